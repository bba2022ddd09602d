/* A kernel with a warning under clang's defaults (a logical operator on a constant other than
 * 0 or 1, as `hit && FLOOD_SCHEME` was with FLOOD_SCHEME = 2): kernel_warnings.sh must fail
 * on it, or it could not fail at all. */
#define FLAG 2
__kernel void bad(__global uint *out, uint hit)
{
    if (hit && FLAG)
        out[0] = 1u;
}
