#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engine/partition.h"

uint32_t partition_default_count(uint32_t n_nodes, int n_devices)
{
    uint32_t p = n_devices > 0 ? (uint32_t)n_devices : 1;
    uint32_t most = n_nodes / 1024 > 0 ? n_nodes / 1024 : 1;
    return p < most ? p : most;
}

/* qsort has no context argument: the positions being sorted and the primary axis. */
static const int64_t *sort_xy;
static int sort_axis;

static int cmp_nodes(const void *a, const void *b)
{
    uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
    for (int k = 0; k < 2; k++) {
        int axis = k == 0 ? sort_axis : 1 - sort_axis;
        int64_t u = sort_xy[2 * (size_t)i + (size_t)axis];
        int64_t v = sort_xy[2 * (size_t)j + (size_t)axis];
        if (u != v)
            return u < v ? -1 : 1;
    }
    return i < j ? -1 : i > j;
}

static void sort_by(uint32_t *ids, uint32_t n, const int64_t *xy, int axis)
{
    sort_xy = xy;
    sort_axis = axis;
    qsort(ids, n, sizeof *ids, cmp_nodes);
}

/* The divisor PX of PARTS for which PX x (PARTS / PX) tiles are closest to square on an area
 * of WIDTH x HEIGHT. */
static uint32_t strips_for(uint32_t parts, double width, double height)
{
    double want = sqrt((double)parts * (width > 0 ? width : 1) / (height > 0 ? height : 1));
    uint32_t best = 1;
    double best_err = INFINITY;
    for (uint32_t px = 1; px <= parts; px++) {
        if (parts % px)
            continue;
        double e = fabs(log((double)px / want));
        if (e < best_err) {
            best_err = e;
            best = px;
        }
    }
    return best;
}

/* The PX x PY split of PARTS for the bounding box of N points XY. */
static uint32_t strips_of_points(const int64_t *xy, uint32_t n, uint32_t parts)
{
    int64_t lo[2] = {INT64_MAX, INT64_MAX}, hi[2] = {INT64_MIN, INT64_MIN};
    for (uint32_t i = 0; i < n; i++)
        for (int a = 0; a < 2; a++) {
            int64_t v = xy[2 * (size_t)i + (size_t)a];
            lo[a] = v < lo[a] ? v : lo[a];
            hi[a] = v > hi[a] ? v : hi[a];
        }
    return strips_for(parts, (double)(hi[0] - lo[0]), (double)(hi[1] - lo[1]));
}

int partition_tiles(const int64_t *xy, uint32_t n, uint32_t parts, uint16_t *part_of,
                    cn_error *err)
{
    if (parts < 1 || parts > PARTITION_MAX || parts > n)
        return cn_fail(err, CN_ERR_INPUT, "%u partitions cannot be made of %u nodes", parts, n);
    uint32_t *ids = malloc((size_t)n * sizeof *ids);
    if (!ids)
        return cn_fail(err, CN_ERR_RUNTIME, "out of host memory for %u partitions", parts);
    for (uint32_t i = 0; i < n; i++)
        ids[i] = i;
    uint32_t px = strips_of_points(xy, n, parts);
    uint32_t py = parts / px;
    sort_by(ids, n, xy, 0);
    for (uint32_t s = 0; s < px; s++) {
        /* strip s: nodes [a, b) of the x order, a share of n as equal as integers allow */
        uint32_t a = (uint32_t)((uint64_t)n * s / px), b = (uint32_t)((uint64_t)n * (s + 1) / px);
        sort_by(ids + a, b - a, xy, 1);
        for (uint32_t t = 0; t < py; t++) {
            uint32_t c = a + (uint32_t)((uint64_t)(b - a) * t / py);
            uint32_t e = a + (uint32_t)((uint64_t)(b - a) * (t + 1) / py);
            for (uint32_t q = c; q < e; q++)
                part_of[ids[q]] = (uint16_t)(s * py + t);
        }
    }
    free(ids);
    return 0;
}

int partition_make_cuts(const int64_t *xy, uint32_t n, uint32_t parts, partition_cuts *c,
                        cn_error *err)
{
    memset(c, 0, sizeof *c);
    if (parts < 1 || parts > PARTITION_MAX || parts > n)
        return cn_fail(err, CN_ERR_INPUT, "%u partitions cannot be made of %u nodes", parts, n);
    c->px = strips_of_points(xy, n, parts);
    c->py = parts / c->px;
    uint32_t *ids = malloc((size_t)n * sizeof *ids);
    c->x = malloc(((size_t)c->px + 1) * sizeof *c->x);
    c->y = malloc((size_t)c->px * (c->py + 1) * sizeof *c->y);
    if (!ids || !c->x || !c->y) {
        free(ids);
        partition_cuts_free(c);
        return cn_fail(err, CN_ERR_RUNTIME, "out of host memory for %u partitions", parts);
    }
    for (uint32_t i = 0; i < n; i++)
        ids[i] = i;
    sort_by(ids, n, xy, 0);
    c->x[0] = -PARTITION_FAR;
    c->x[c->px] = PARTITION_FAR;
    for (uint32_t s = 1; s < c->px; s++)
        c->x[s] = xy[2 * (size_t)ids[(uint64_t)n * s / c->px]];
    /* ids in x order: the nodes of strip s are a contiguous run */
    uint32_t a = 0;
    for (uint32_t s = 0; s < c->px; s++) {
        uint32_t b = a;
        while (b < n && xy[2 * (size_t)ids[b]] < c->x[s + 1])
            b++;
        sort_by(ids + a, b - a, xy, 1);
        int64_t *y = c->y + (size_t)s * (c->py + 1);
        y[0] = -PARTITION_FAR;
        y[c->py] = PARTITION_FAR;
        for (uint32_t t = 1; t < c->py; t++) /* an empty strip gets empty tiles but one */
            y[t] = b > a ? xy[2 * (size_t)ids[a + (uint32_t)((uint64_t)(b - a) * t / c->py)] + 1]
                         : PARTITION_FAR;
        a = b;
    }
    free(ids);
    return 0;
}

/* The last index k in [0, count) with v >= cuts[k] (cuts[0] is below every v). */
static uint32_t cut_index(const int64_t *cuts, uint32_t count, int64_t v)
{
    uint32_t lo = 0, hi = count;
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (v >= cuts[mid])
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

uint32_t partition_cut_tile(const partition_cuts *c, int64_t x, int64_t y)
{
    uint32_t s = cut_index(c->x, c->px, x);
    return s * c->py + cut_index(c->y + (size_t)s * (c->py + 1), c->py, y);
}

void partition_cut_box(const partition_cuts *c, uint32_t part, int64_t lo[2], int64_t hi[2])
{
    uint32_t s = part / c->py, t = part % c->py;
    const int64_t *y = c->y + (size_t)s * (c->py + 1);
    lo[0] = c->x[s];
    hi[0] = c->x[s + 1] - 1;
    lo[1] = y[t];
    hi[1] = y[t + 1] - 1;
}

void partition_cuts_free(partition_cuts *c)
{
    free(c->x);
    free(c->y);
    c->x = c->y = NULL;
}
