/* A straightforward sequential C implementation of the static grid flood of docs/model.md, for
 * benchmarks only: per packet, a breadth-first search hop by hop with a bitset of nodes seen,
 * neighbours of the 4-neighbour grid computed on the fly, and the relay decision drawn from
 * Philox. It is the yardstick docs/benchmarks.md compares clnetsim's whole process with.
 * Only grids with range = spacing, no TTL, no duration, no mobility.
 * usage: baseline_flood ROWS COLS PACKETS DROP_PROBABILITY SEED */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void philox(uint32_t c[4], uint32_t k0, uint32_t k1)
{
    for (int r = 0; r < 10; r++) {
        uint64_t p0 = (uint64_t)0xD2511F53u * c[0], p1 = (uint64_t)0xCD9E8D57u * c[2];
        uint32_t n0 = (uint32_t)(p1 >> 32) ^ c[1] ^ k0, n2 = (uint32_t)(p0 >> 32) ^ c[3] ^ k1;
        c[0] = n0, c[1] = (uint32_t)p1, c[2] = n2, c[3] = (uint32_t)p0;
        k0 += 0x9E3779B9u, k1 += 0xBB67AE85u;
    }
}

int main(int argc, char **argv)
{
    if (argc != 6) {
        fprintf(stderr, "usage: baseline_flood ROWS COLS PACKETS DROP_PROBABILITY SEED\n");
        return 2;
    }
    uint32_t rows = (uint32_t)atol(argv[1]), cols = (uint32_t)atol(argv[2]);
    uint32_t packets = (uint32_t)atol(argv[3]), n = rows * cols, dest = n - 1;
    uint64_t thr = (uint64_t)floor(atof(argv[4]) * 4294967296.0);
    uint64_t seed = strtoull(argv[5], NULL, 10);
    uint64_t *seen = malloc(((n + 63) / 64) * 8);
    uint32_t *cur = malloc((size_t)n * 4), *next = malloc((size_t)n * 4);
    uint64_t tx = 0, rx = 0, first = 0, delivered = 0, hops = 0;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (uint32_t k = 0; k < packets; k++) {
        memset(seen, 0, ((n + 63) / 64) * 8);
        seen[0] |= 1; /* the source, node 0 */
        uint32_t nc = 1, h = 1;
        cur[0] = 0;
        while (nc) {
            uint32_t nn = 0;
            for (uint32_t e = 0; e < nc; e++) {
                uint32_t i = cur[e], r = i / cols, c = i % cols, nb[4], d = 0;
                if (c > 0) nb[d++] = i - 1;
                if (c + 1 < cols) nb[d++] = i + 1;
                if (r > 0) nb[d++] = i - cols;
                if (r + 1 < rows) nb[d++] = i + cols;
                tx++;
                rx += d;
                for (uint32_t q = 0; q < d; q++) {
                    uint32_t j = nb[q];
                    if (seen[j >> 6] >> (j & 63) & 1)
                        continue;
                    seen[j >> 6] |= (uint64_t)1 << (j & 63);
                    first++;
                    if (j == dest)
                        delivered++, hops += h;
                    uint32_t ctr[4] = {j, k, 1, 0};
                    philox(ctr, (uint32_t)seed, (uint32_t)(seed >> 32));
                    if (ctr[0] >= thr)
                        next[nn++] = j;
                }
            }
            uint32_t *t = cur;
            cur = next, next = t, nc = nn, h++;
        }
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    printf("{\"transmissions\": %llu, \"receptions\": %llu, \"first_receptions\": %llu, "
           "\"delivered\": %llu, \"hops_sum\": %llu, \"wall_s\": %.6f}\n",
           (unsigned long long)tx, (unsigned long long)rx, (unsigned long long)first,
           (unsigned long long)delivered, (unsigned long long)hops,
           (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9);
    free(seen), free(cur), free(next);
    return 0;
}
