/* Activity areas (placement = areas, docs/models.md): the neighbour lists, built on the host.
 *
 * The graph is fixed: udg links inside each area, which the grid's geometry gives directly,
 * and the chain and border links between consecutive areas, which no distance test finds
 * (the areas are 2 x range apart). Building the lists here, once, keeps the device kernels
 * as they are: whole packets and the window loop's static transmit read the same CSR lists
 * whatever made them. A few hundred thousand nodes take milliseconds. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/philox.h"
#include "models/flood/flood_model.h"

/* floor(sqrt(x)), exact: the double's estimate corrected by integer steps. */
static uint64_t isqrt64(uint64_t x)
{
    uint64_t q = (uint64_t)sqrt((double)x);
    while (q > 0 && q > x / q)
        q--;
    while ((q + 1) <= x / (q + 1))
        q++;
    return q;
}

int64_t flood_areas_pitch(const scenario *scn)
{
    const flood_values *sc = flood_values_of(scn);
    return (sc->cols - 1) * sc->spacing_mm + 2 * sc->range_mm;
}

/* What node_links needs about the scenario. */
typedef struct areas_geom {
    int64_t rows, cols, per, count;
    int64_t kr;             /* the largest row offset within range (at most rows - 1) */
    int64_t *reach;         /* [0 .. kr]: the largest column offset within range at that row
                               offset (at most cols - 1) */
    uint8_t *border;        /* [a * rows + r]: the border pair of row r between a and a + 1 */
} areas_geom;

static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

/* Node I's neighbours in increasing id order, written to OUT when it is not NULL; returns how
 * many. Those in the previous area come first, then its own area's, then the next area's. */
static uint64_t node_links(const areas_geom *g, int64_t i, uint32_t *out)
{
    const int64_t a = i / g->per, k = i % g->per, r = k / g->cols, c = k % g->cols;
    const int64_t base = a * g->per;
    uint64_t n = 0;
#define EMIT(j)                                                                              \
    do {                                                                                     \
        if (out)                                                                             \
            out[n] = (uint32_t)(j);                                                          \
        n++;                                                                                 \
    } while (0)
    if (a > 0) { /* the border link of row r, then the chain link (when it is another) */
        int64_t border = c == 0 && g->border[(a - 1) * g->rows + r] ? base - g->per + r * g->cols +
                                                                          g->cols - 1
                                                                    : -1;
        if (border >= 0)
            EMIT(border);
        if (k == 0 && base - 1 != border)
            EMIT(base - 1);
    }
    for (int64_t dr = -g->kr; dr <= g->kr; dr++) {
        const int64_t rr = r + dr;
        if (rr < 0 || rr >= g->rows)
            continue;
        const int64_t w = g->reach[dr < 0 ? -dr : dr];
        const int64_t c0 = c - w > 0 ? c - w : 0, c1 = min64(c + w, g->cols - 1);
        if (!out) {
            n += (uint64_t)(c1 - c0 + 1) - (dr == 0);
            continue;
        }
        for (int64_t cc = c0; cc <= c1; cc++)
            if (dr != 0 || cc != c)
                EMIT(base + rr * g->cols + cc);
    }
    if (a + 1 < g->count) { /* the chain link, then the border link of row r (when another) */
        const int64_t next = base + g->per;
        int64_t border = c == g->cols - 1 && g->border[a * g->rows + r] ? next + r * g->cols : -1;
        if (k == g->per - 1)
            EMIT(next);
        if (border >= 0 && !(k == g->per - 1 && border == next))
            EMIT(border);
    }
#undef EMIT
    return n;
}

/* The reach of each row offset, and every border draw: w0 of ctr {a, r, 14, 0} below
 * thr(border_links). */
static int geometry(const scenario *scn, areas_geom *g, cn_error *err)
{
    const flood_values *sc = flood_values_of(scn);
    memset(g, 0, sizeof *g);
    g->rows = sc->rows;
    g->cols = sc->cols;
    g->per = sc->rows * sc->cols;
    g->count = sc->areas;
    const uint64_t s = (uint64_t)sc->spacing_mm, range = (uint64_t)sc->range_mm;
    g->kr = min64((int64_t)(range / s), g->rows - 1);
    g->reach = malloc((size_t)(g->kr + 1) * sizeof *g->reach);
    g->border = malloc((size_t)((g->count - 1) * g->rows));
    if (!g->reach || !g->border)
        return cn_fail(err, CN_ERR_RUNTIME, "out of host memory for the links of %lld areas",
                       (long long)g->count);
    for (int64_t d = 0; d <= g->kr; d++) {
        /* (d s)^2 + (e s)^2 <= range^2, so e s <= isqrt(range^2 - (d s)^2); every product is
         * below 2^62 (sides and the range are below 2^31 mm) */
        const uint64_t ds = (uint64_t)d * s;
        g->reach[d] = min64((int64_t)(isqrt64(range * range - ds * ds) / s), g->cols - 1);
    }
    for (int64_t a = 0; a + 1 < g->count; a++)
        for (int64_t r = 0; r < g->rows; r++) {
            philox4x32 w = philox_draw(scn->seed, (uint32_t)a, (uint32_t)r, STREAM_AREA_BORDER);
            g->border[a * g->rows + r] = (uint64_t)w.v[0] < sc->border_threshold;
        }
    return 0;
}

int flood_areas_lists(const scenario *sc, uint32_t **offsets, uint32_t **list, cn_error *err)
{
    *offsets = NULL;
    *list = NULL;
    areas_geom g;
    int rc = geometry(sc, &g, err);
    const int64_t n = g.per * g.count;
    uint32_t *off = rc ? NULL : malloc(((size_t)n + 1) * 4);
    if (!rc && !off)
        rc = cn_fail(err, CN_ERR_RUNTIME, "out of host memory for %lld neighbour offsets",
                     (long long)n);
    uint64_t total = 0;
    for (int64_t i = 0; !rc && i < n; i++) {
        off[i] = (uint32_t)total;
        total += node_links(&g, i, NULL);
        if (total > 0xffffffffu)
            rc = cn_fail(err, CN_ERR_INPUT, "the scenario has more than 2^32-1 directed links, "
                         "more than the neighbour lists hold; lower the range or the density");
    }
    uint32_t *lst = rc ? NULL : malloc(total ? (size_t)total * 4 : 4);
    if (!rc && !lst)
        rc = cn_fail(err, CN_ERR_RUNTIME, "out of host memory for %llu neighbours",
                     (unsigned long long)total);
    if (!rc) {
        off[n] = (uint32_t)total;
        for (int64_t i = 0; i < n; i++)
            node_links(&g, i, lst + off[i]);
        *offsets = off;
        *list = lst;
    } else {
        free(off);
        free(lst);
    }
    free(g.reach);
    free(g.border);
    return rc;
}

int flood_areas_csr(flood_model *m, flood_replica *r, dbuf *offsets, dbuf *neighbours,
                    uint32_t *deg_sum, cn_error *err)
{
    uint32_t *off = NULL, *lst = NULL;
    /* the lists have a row for each of the rows x cols x areas nodes, which m->n counts */
    const int64_t listed = flood_values_of(&m->sc)->rows * flood_values_of(&m->sc)->cols * flood_values_of(&m->sc)->areas;
    if (listed != (int64_t)m->n)
        return cn_fail(err, CN_ERR_RUNTIME, "internal error: %u nodes, %lld in the areas",
                       (unsigned)m->n, (long long)listed);
    int rc = flood_areas_lists(&m->sc, &off, &lst, err);
    if (rc)
        return rc;
    const size_t n = m->n, total = off[n];
    for (size_t i = 0; deg_sum && i < n; i++)
        deg_sum[i] += off[i + 1] - off[i];
    rc = dbuf_alloc(r->dev, offsets, (n + 1) * 4, &m->acc, "neighbour offsets", err);
    if (!rc)
        rc = dbuf_write(r->dev, offsets, 0, (n + 1) * 4, off, 1, err);
    if (!rc)
        rc = dbuf_alloc(r->dev, neighbours, total ? total * 4 : 4, &m->acc, "neighbour lists",
                        err);
    if (!rc && total)
        rc = dbuf_write(r->dev, neighbours, 0, total * 4, lst, 1, err);
    free(off);
    free(lst);
    return rc;
}
