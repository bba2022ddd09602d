/* Flood model: allocation of the flows, placement, static neighbour lists, packet slots. */
#include <stdlib.h>
#include <string.h>

#include "cl/flood_layout.clh"
#include "engine/partition.h"
#include "models/flood/flood_model.h"

static uint32_t env_u32(const char *name, uint32_t fallback)
{
    const char *v = getenv(name);
    if (!v || !*v)
        return fallback;
    char *end;
    unsigned long x = strtoul(v, &end, 10);
    return (*end == '\0' && x > 0 && x < 0x7fffffffUL) ? (uint32_t)x : fallback;
}

static void release_pinned(struct model *m)
{
    if (m->pinned && m->pinned_map)
        clEnqueueUnmapMemObject(m->dev->queue, m->pinned, m->pinned_map, 0, NULL, NULL);
    if (m->pinned) {
        clFinish(m->dev->queue);
        clReleaseMemObject(m->pinned);
    }
    m->pinned = NULL;
    m->pinned_map = NULL;
    m->rb[0].words = m->rb[1].words = NULL;
}

int flood_readback_areas(struct model *m, cn_error *err)
{
    device_ctx *d = m->dev;
    release_pinned(m);
    size_t area = (size_t)CTL_WORDS + m->slots, bytes = 2 * area * 4;
    cl_int st;
    m->pinned = clCreateBuffer(d->context, CL_MEM_ALLOC_HOST_PTR | CL_MEM_READ_WRITE, bytes, NULL,
                               &st);
    if (st != CL_SUCCESS)
        return cl_check(st, "clCreateBuffer(pinned read-back areas)", d->info.name, err);
    m->pinned_map = clEnqueueMapBuffer(d->queue, m->pinned, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE,
                                       0, bytes, 0, NULL, NULL, &st);
    if (st != CL_SUCCESS) {
        m->pinned_map = NULL;
        return cl_check(st, "clEnqueueMapBuffer(pinned read-back areas)", d->info.name, err);
    }
    memset(m->pinned_map, 0, bytes);
    m->rb[0].words = m->pinned_map;
    m->rb[1].words = m->pinned_map + area;
    return 0;
}

void flood_forget_args(struct model *m)
{
    memset(&m->transmit_args, 0, sizeof m->transmit_args);
    memset(&m->by_packet_args, 0, sizeof m->by_packet_args);
}

uint64_t flood_counter(const struct model *m, int word)
{
    return (uint64_t)m->ctl_host[word] | ((uint64_t)m->ctl_host[word + 1] << 32);
}

static cl_uint2 seed_key(const scenario *sc)
{
    cl_uint2 k;
    k.s[0] = (cl_uint)sc->seed;
    k.s[1] = (cl_uint)(sc->seed >> 32);
    return k;
}

static int make_kernel(struct model *m, const char *name, cl_kernel *k, size_t *ls,
                       cn_error *err)
{
    int rc = device_create_kernel(m->dev, m->prog, name, k, err);
    if (rc == 0 && ls)
        *ls = device_local_size(m->dev, name, *k);
    return rc;
}

static int create_kernels(struct model *m, cn_error *err)
{
    const char *sources[] = {"cells.cl", "flood.cl"};
    int rc = device_build_program(m->dev, sources, 2, "", &m->prog, err);
    if (!rc)
        rc = make_kernel(m, m->sc.placement == PLACEMENT_GRID ? "place_grid" : "place_uniform",
                         &m->k_place, &m->ls_place, err);
    if (!rc && m->mobile)
        rc = make_kernel(m, "rwp_init", &m->k_rwp_init, NULL, err);
    if (!rc && m->mobile)
        rc = make_kernel(m, "move_rwp", &m->k_move, &m->ls_move, err);
    if (!rc)
        rc = make_kernel(m, "csr_count", &m->k_csr_count, &m->ls_csr, err);
    if (!rc)
        rc = make_kernel(m, "csr_fill", &m->k_csr_fill, NULL, err);
    if (!rc)
        rc = make_kernel(m, m->mobile ? "transmit_mobile" : "transmit", &m->k_transmit,
                         &m->ls_transmit, err);
    if (!rc)
        rc = make_kernel(m, "gather_spill", &m->k_gather, &m->ls_gather, err);
    if (!rc && !m->mobile)
        rc = make_kernel(m, "transmit_by_packet", &m->k_by_packet, &m->ls_by_packet, err);
    return rc;
}

static int place_nodes(struct model *m, cn_error *err)
{
    device_ctx *d = m->dev;
    const scenario *sc = &m->sc;
    int rc = dbuf_alloc(d, &m->pos, (size_t)m->n * 32, &m->acc, "positions", err);
    if (rc)
        return rc;
    if (sc->placement == PLACEMENT_GRID) {
        cl_uint cols = (cl_uint)sc->cols;
        cl_long spacing = sc->spacing_mm;
        rc = kernel_args(d, m->k_place, "place_grid", err, 4, KBUF(m->pos), KARG(m->n),
                         KARG(cols), KARG(spacing));
    } else {
        cl_uint2 key = seed_key(sc);
        cl_ulong W = m->extent[0], H = m->extent[1], D = m->extent[2];
        rc = kernel_args(d, m->k_place, "place_uniform", err, 6, KBUF(m->pos), KARG(m->n),
                         KARG(key), KARG(W), KARG(H), KARG(D));
    }
    if (!rc)
        rc = enqueue_1d(d, m->k_place, "place", m->n, m->ls_place, NULL, err);
    if (rc || !m->mobile)
        return rc;

    cl_uint2 key = seed_key(sc);
    cl_ulong W = m->extent[0], H = m->extent[1], D = m->extent[2];
    cl_long vmin = sc->speed_min_mm_s, vmax = sc->speed_max_mm_s;
    rc = dbuf_alloc(d, &m->waypoint, (size_t)m->n * 32, &m->acc, "waypoints", err);
    if (!rc)
        rc = dbuf_alloc(d, &m->speed, (size_t)m->n * 8, &m->acc, "speeds", err);
    if (!rc)
        rc = dbuf_alloc(d, &m->leg, (size_t)m->n * 4, &m->acc, "legs", err);
    if (!rc)
        rc = dbuf_alloc(d, &m->pause_end, (size_t)m->n * 8, &m->acc, "pause ends", err);
    if (!rc)
        rc = kernel_args(d, m->k_rwp_init, "rwp_init", err, 11, KARG(m->n), KARG(key), KARG(W),
                         KARG(H), KARG(D), KARG(vmin), KARG(vmax), KBUF(m->waypoint),
                         KBUF(m->speed), KBUF(m->leg), KBUF(m->pause_end));
    if (!rc)
        rc = enqueue_1d(d, m->k_rwp_init, "rwp_init", m->n, m->ls_move, NULL, err);
    return rc;
}

int flood_move(struct model *m, int64_t window, cl_event *ev, cn_error *err)
{
    const scenario *sc = &m->sc;
    cl_uint2 key = seed_key(sc);
    cl_ulong W = m->extent[0], H = m->extent[1], D = m->extent[2];
    cl_long vmin = sc->speed_min_mm_s, vmax = sc->speed_max_mm_s;
    cl_long pmin = sc->pause_min_ms, pmax = sc->pause_max_ms;
    cl_long T = window * m->L, L = m->L;
    int rc = kernel_args(m->dev, m->k_move, "move_rwp", err, 16, KBUF(m->pos), KARG(m->n),
                         KARG(key), KARG(W), KARG(H), KARG(D), KARG(vmin), KARG(vmax),
                         KARG(pmin), KARG(pmax), KARG(T), KARG(L), KBUF(m->waypoint),
                         KBUF(m->speed), KBUF(m->leg), KBUF(m->pause_end));
    if (!rc)
        rc = enqueue_1d(m->dev, m->k_move, "move_rwp", m->n, m->ls_move, ev, err);
    return rc;
}

/* CSR neighbour lists of partition PART at the current positions: degrees, prefix sum, fill.
 * The cell lists must be built. */
int flood_build_csr(struct model *m, uint32_t part, dbuf *offsets, dbuf *neighbours,
                    uint32_t *deg_sum, cn_error *err)
{
    device_ctx *d = m->dev;
    const cell_grid *g = &m->grid;
    cl_ulong range2 = (cl_ulong)m->sc.range_mm * (cl_ulong)m->sc.range_mm;
    cl_uint nparts = m->n_parts;
    dbuf degree = {0};
    int rc = dbuf_alloc(d, &degree, (size_t)m->n * 4, &m->acc, "degrees", err);
    if (!rc)
        rc = dbuf_alloc(d, offsets, ((size_t)m->n + 1) * 4, &m->acc, "neighbour offsets", err);
    if (!rc)
        rc = kernel_args(d, m->k_csr_count, "csr_count", err, 13, KBUF(m->pos), KARG(m->n),
                         KARG(range2), KARG(g->side), KARG(g->nx), KARG(g->ny), KARG(g->nz),
                         KBUF(m->cells.start), KBUF(m->cells.nodes), KBUF(degree),
                         KBUF(m->part_of), KARG(part), KARG(nparts));
    if (!rc)
        rc = enqueue_1d(d, m->k_csr_count, "csr_count", m->n, m->ls_csr, NULL, err);
    if (!rc)
        rc = scan_run(&m->node_scan, d, &degree, m->n, offsets, m->n + 1, NULL, err);
    /* The device sums degrees in 32 bits; the host sums them in 64 to refuse a graph whose
     * link count would wrap (the offsets would then be wrong). */
    uint64_t total = 0;
    uint32_t *deg = rc ? NULL : malloc((size_t)m->n * 4);
    if (!rc && !deg)
        rc = cn_fail(err, CN_ERR_RUNTIME, "out of host memory for %u degrees", m->n);
    if (!rc)
        rc = dbuf_read(d, &degree, 0, (size_t)m->n * 4, deg, 1, err);
    for (uint32_t i = 0; !rc && i < m->n; i++) {
        total += deg[i];
        if (deg_sum)
            deg_sum[i] += deg[i];
    }
    free(deg);
    dbuf_release(&degree, &m->acc);
    if (rc)
        return rc;
    if (total > 0xffffffffu)
        return cn_fail(err, CN_ERR_INPUT, "the scenario has %llu directed links, more than the "
                       "2^32-1 the neighbour lists hold; lower the range or the density",
                       (unsigned long long)total);
    if (!rc)
        rc = dbuf_alloc(d, neighbours, total ? (size_t)total * 4 : 4, &m->acc, "neighbour lists",
                        err);
    if (!rc)
        rc = kernel_args(d, m->k_csr_fill, "csr_fill", err, 14, KBUF(m->pos), KARG(m->n),
                         KARG(range2), KARG(g->side), KARG(g->nx), KARG(g->ny), KARG(g->nz),
                         KBUF(m->cells.start), KBUF(m->cells.nodes), KBUF(*offsets),
                         KBUF(*neighbours), KBUF(m->part_of), KARG(part), KARG(nparts));
    if (!rc)
        rc = enqueue_1d(d, m->k_csr_fill, "csr_fill", m->n, m->ls_csr, NULL, err);
    return rc;
}

/* Splits the nodes into the scenario's partitions (tiles of their initial positions, which
 * mobile nodes keep for the whole run) and gives the device each node's partition. */
static int make_partitions(struct model *m, cn_error *err)
{
    device_ctx *d = m->dev;
    m->n_parts = m->sc.partitions > 0 ? (uint32_t)m->sc.partitions
                                      : partition_default_count(m->n, 1);
    m->offsets = calloc(m->n_parts, sizeof *m->offsets);
    m->neighbours = calloc(m->n_parts, sizeof *m->neighbours);
    if (!m->offsets || !m->neighbours)
        return cn_fail(err, CN_ERR_RUNTIME, "out of host memory for %u partitions", m->n_parts);
    if (m->n_parts == 1) /* kernels never read it */
        return dbuf_alloc(d, &m->part_of, 4, &m->acc, "partitions", err);
    int64_t *xy = malloc((size_t)m->n * 2 * sizeof *xy);
    cl_long *p = malloc((size_t)m->n * 32);
    uint16_t *part = malloc((size_t)m->n * sizeof *part);
    int rc = xy && p && part ? 0 : cn_fail(err, CN_ERR_RUNTIME, "out of host memory");
    if (!rc)
        rc = dbuf_read(d, &m->pos, 0, (size_t)m->n * 32, p, 1, err);
    for (uint32_t i = 0; !rc && i < m->n; i++) {
        xy[2 * (size_t)i] = p[4 * (size_t)i];
        xy[2 * (size_t)i + 1] = p[4 * (size_t)i + 1];
    }
    if (!rc)
        rc = partition_tiles(xy, m->n, m->n_parts, part, err);
    if (!rc)
        rc = dbuf_alloc(d, &m->part_of, (size_t)m->n * 2, &m->acc, "partitions", err);
    if (!rc)
        rc = dbuf_write(d, &m->part_of, 0, (size_t)m->n * 2, part, 1, err);
    free(xy);
    free(p);
    free(part);
    return rc;
}

static int alloc_packets(struct model *m, cn_error *err)
{
    device_ctx *d = m->dev;
    uint32_t s = env_u32("CLNETSIM_TEST_SLOTS", 32);
    if ((int64_t)s > m->sc.packets)
        s = (uint32_t)m->sc.packets;
    m->slots = s;
    size_t slot_bytes = (size_t)m->words * 4;
    uint32_t cap = env_u32("CLNETSIM_TEST_FRONTIER_CAPACITY", m->n / 8 > 256 ? m->n / 8 : 256);
    m->capacity[0] = m->capacity[1] = cap;
    m->lcap = (uint32_t)(2 * m->ls_transmit);
    /* GPUs: enough work-groups to fill every compute unit several times, the kernel striding
     * over any number of entries with them. CPUs: one work-group per slice of entries, the
     * kernel's loop then runs once (PoCL pays for barriers inside loops). */
    int cpu = (d->info.type & CL_DEVICE_TYPE_CPU) != 0;
    m->max_groups = cpu ? ((size_t)1 << 31) / (m->ls_transmit ? m->ls_transmit : 1)
                        : (size_t)d->info.compute_units * 8;
    if (m->max_groups < 8)
        m->max_groups = 8;
    /* Running a window ahead hides the read-back on devices with their own processors; on a
     * CPU device the host thread would only compete with the device's threads (measured in
     * docs/benchmarks.md). CLNETSIM_TEST_RUN_AHEAD=0|1 overrides, for the tests. */
    m->force_sync = cpu;
    const char *ra = getenv("CLNETSIM_TEST_RUN_AHEAD");
    if (ra && (ra[0] == '0' || ra[0] == '1') && ra[1] == '\0')
        m->force_sync = ra[0] == '0';
    /* On a CPU the window is best handled packet by packet: each packet's bitset stays in one
     * core's cache and needs no atomics (docs/benchmarks.md). It needs the degree bound, so
     * static scenarios only; CLNETSIM_TEST_BY_PACKET=0|1 overrides, for the tests. */
    m->by_packet = cpu && !m->mobile && m->force_sync;
    const char *bp = getenv("CLNETSIM_TEST_BY_PACKET");
    if (bp && (bp[0] == '0' || bp[0] == '1') && bp[1] == '\0')
        m->by_packet = bp[0] == '1' && !m->mobile;
    /* It owns a packet's whole bitset and run: one partition only. */
    if (m->n_parts > 1)
        m->by_packet = 0;
    m->planned = m->processed = -1;
    m->counts_clean = 0; /* all zero at the start */
    /* A frontier bound above this (entries) makes the loop read each window back instead:
     * 32 MiB per frontier buffer, or more for scenarios whose nodes alone need more. */
    m->lag_budget = (uint64_t)4 << 20;
    if ((uint64_t)m->n > m->lag_budget)
        m->lag_budget = m->n;
    if (m->lag_budget * 8 > d->info.max_alloc / 2)
        m->lag_budget = d->info.max_alloc / 16;
    uint32_t lcap = env_u32("CLNETSIM_TEST_RELAY_BUFFER", m->lcap);
    if (lcap < m->lcap)
        m->lcap = lcap;
    int rc = dbuf_alloc(d, &m->seen, s * slot_bytes, &m->acc, "seen bitsets", err);
    if (!rc)
        rc = dbuf_zero(d, &m->seen, 0, s * slot_bytes, err);
    if (!rc)
        rc = dbuf_alloc(d, &m->spill, s * slot_bytes, &m->acc, "spill bitsets", err);
    if (!rc)
        rc = dbuf_zero(d, &m->spill, 0, s * slot_bytes, err);
    if (!rc)
        rc = dbuf_alloc(d, &m->slot_packet, (size_t)s * 4, &m->acc, "slot packets", err);
    if (!rc)
        rc = dbuf_alloc(d, &m->ctl, ((size_t)CTL_WORDS + s) * 4, &m->acc, "counters", err);
    if (!rc)
        rc = dbuf_zero(d, &m->ctl, 0, ((size_t)CTL_WORDS + s) * 4, err);
    for (int b = 0; b < 2 && !rc; b++)
        rc = dbuf_alloc(d, &m->frontier[b], (size_t)cap * 8, &m->acc, "frontier", err);
    for (int b = 0; b < 2 && !rc && m->by_packet; b++) {
        rc = dbuf_alloc(d, &m->seg[b], (size_t)s * 8, &m->acc, "packet runs", err);
        if (!rc)
            rc = dbuf_zero(d, &m->seg[b], 0, (size_t)s * 8, err);
    }
    if (!rc)
        rc = dbuf_alloc(d, &m->desc, 64 * 4, &m->acc, "window descriptors", err);
    if (rc)
        return rc;
    m->desc_cap[0] = m->desc_cap[1] = 64;
    m->slot_pkt = malloc((size_t)s * sizeof *m->slot_pkt);
    m->born_window = malloc((size_t)s * sizeof *m->born_window);
    m->free_slots = malloc((size_t)s * sizeof *m->free_slots);
    if (flood_readback_areas(m, err) != 0)
        return err->code;
    m->desc_host[0] = malloc((size_t)64 * sizeof *m->desc_host[0]);
    m->desc_host[1] = malloc((size_t)64 * sizeof *m->desc_host[1]);
    m->dirty_slots = malloc((size_t)s * sizeof *m->dirty_slots);
    if (!m->slot_pkt || !m->born_window || !m->free_slots || !m->desc_host[0] ||
        !m->desc_host[1] || !m->dirty_slots)
        return cn_fail(err, CN_ERR_RUNTIME, "out of host memory for packet slots");
    for (uint32_t i = 0; i < s; i++) {
        m->slot_pkt[i] = -1;
        m->free_slots[i] = s - 1 - i; /* lowest slot first */
    }
    m->n_free = s;
    return 0;
}

/* More packets in flight than slots: double them. Called with no read-back pending (the caller
 * drained them), so the read-back areas can be remade. Seen bitsets and slot packets are copied;
 * spill bits are always clear between windows; liveness is only compared with the stamp of
 * the window under way, which no new slot can hold. */
int flood_grow_slots(struct model *m, cn_error *err)
{
    device_ctx *d = m->dev;
    uint32_t old = m->slots, s = old * 2;
    if (s <= old || s > (1u << 30))
        return cn_fail(err, CN_ERR_RUNTIME, "too many packets in flight (%u)", old);
    size_t slot_bytes = (size_t)m->words * 4;
    flood_forget_args(m);
    int rc = dbuf_grow(d, &m->seen, s * slot_bytes, old * slot_bytes, &m->acc, "seen bitsets",
                       err);
    if (!rc) /* the new slots go straight to the free list: clear */
        rc = dbuf_zero(d, &m->seen, old * slot_bytes, (s - old) * slot_bytes, err);
    for (int b = 0; b < 2 && !rc && m->by_packet; b++) { /* runs in flight are kept */
        rc = dbuf_grow(d, &m->seg[b], (size_t)s * 8, (size_t)old * 8, &m->acc, "packet runs",
                       err);
        if (!rc)
            rc = dbuf_zero(d, &m->seg[b], (size_t)old * 8, (size_t)(s - old) * 8, err);
    }
    if (!rc)
        rc = dbuf_grow(d, &m->spill, s * slot_bytes, 0, &m->acc, "spill bitsets", err);
    if (!rc)
        rc = dbuf_zero(d, &m->spill, 0, s * slot_bytes, err);
    if (!rc)
        rc = dbuf_grow(d, &m->slot_packet, (size_t)s * 4, (size_t)old * 4, &m->acc,
                       "slot packets", err);
    /* counters kept, liveness of the new slots cleared (a stale word could equal a stamp) */
    if (!rc)
        rc = dbuf_grow(d, &m->ctl, ((size_t)CTL_WORDS + s) * 4, ((size_t)CTL_WORDS + old) * 4,
                       &m->acc, "counters", err);
    if (!rc)
        rc = dbuf_zero(d, &m->ctl, ((size_t)CTL_WORDS + old) * 4, (size_t)(s - old) * 4, err);
    if (rc)
        return rc;
    int64_t *sp = realloc(m->slot_pkt, (size_t)s * sizeof *sp);
    if (sp)
        m->slot_pkt = sp;
    int64_t *bw = realloc(m->born_window, (size_t)s * sizeof *bw);
    if (bw)
        m->born_window = bw;
    uint32_t *fs = realloc(m->free_slots, (size_t)s * sizeof *fs);
    if (fs)
        m->free_slots = fs;
    uint32_t *ds = realloc(m->dirty_slots, (size_t)s * sizeof *ds);
    if (ds)
        m->dirty_slots = ds;
    if (!sp || !bw || !fs || !ds)
        return cn_fail(err, CN_ERR_RUNTIME, "out of host memory for packet slots");
    for (uint32_t i = old; i < s; i++)
        m->slot_pkt[i] = -1;
    for (uint32_t i = s; i > old; i--)
        m->free_slots[m->n_free++] = i - 1;
    m->slots = s;
    return flood_readback_areas(m, err);
}

static void area_extent(struct model *m)
{
    const scenario *sc = &m->sc;
    if (sc->placement == PLACEMENT_GRID) {
        m->extent[0] = (uint64_t)((sc->cols - 1) * sc->spacing_mm);
        m->extent[1] = (uint64_t)((sc->rows - 1) * sc->spacing_mm);
        m->extent[2] = 0;
        if (m->mobile) { /* waypoints are drawn in the mobility area */
            m->extent[0] = (uint64_t)sc->width_mm;
            m->extent[1] = (uint64_t)sc->height_mm;
            m->extent[2] = (uint64_t)sc->depth_mm;
        }
    } else {
        m->extent[0] = (uint64_t)sc->width_mm;
        m->extent[1] = (uint64_t)sc->height_mm;
        m->extent[2] = (uint64_t)sc->depth_mm;
    }
}

int flood_create(struct model **out, const scenario *sc, device_ctx *const *devs, int n_devs,
                 cn_error *err)
{
    (void)n_devs; /* one partition, on the first device */
    struct model *m = calloc(1, sizeof *m);
    if (!m)
        return cn_fail(err, CN_ERR_RUNTIME, "out of host memory");
    *out = m;
    m->sc = *sc;
    m->dev = devs[0];
    int64_t n = scenario_node_count(sc);
    if (n < 1 || n > (int64_t)0x7fffffff)
        return cn_fail(err, CN_ERR_INPUT, "the flood model runs 1 to 2^31-1 nodes, not %lld",
                       (long long)n);
    m->n = (uint32_t)n;
    m->words = (m->n + 31) / 32;
    m->mobile = sc->mobility == MOBILITY_RWP;
    m->L = sc->relay_delay_ns;
    area_extent(m);
    int64_t ext[3];
    /* The cell grid covers every position a node can take: placements and waypoints. */
    ext[0] = (int64_t)m->extent[0];
    ext[1] = (int64_t)m->extent[1];
    ext[2] = (int64_t)m->extent[2];
    if (sc->placement == PLACEMENT_GRID) {
        if ((sc->cols - 1) * sc->spacing_mm > ext[0])
            ext[0] = (sc->cols - 1) * sc->spacing_mm;
        if ((sc->rows - 1) * sc->spacing_mm > ext[1])
            ext[1] = (sc->rows - 1) * sc->spacing_mm;
    }
    int rc = create_kernels(m, err);
    if (!rc)
        rc = cell_grid_choose(&m->grid, ext, sc->range_mm, m->n, err);
    if (!rc)
        rc = place_nodes(m, err);
    if (!rc)
        rc = make_partitions(m, err);
    if (!rc)
        rc = cell_lists_init(&m->cells, m->dev, m->prog, &m->grid, m->n, &m->acc, err);
    if (!rc)
        rc = scan_init(&m->node_scan, m->dev, m->prog, (size_t)m->n + 1, &m->acc, err);
    if (!rc && !m->mobile) {
        /* Static: neighbour lists once; the cell lists are not needed afterwards. */
        cl_event evs[4];
        int n_evs = 0;
        rc = cell_lists_build(&m->cells, m->dev, &m->pos, evs, &n_evs, err);
        for (int i = 0; i < n_evs; i++)
            if (evs[i])
                clReleaseEvent(evs[i]);
        /* The degree bound is over all partitions: a transmitter's relays in every
         * partition together. */
        uint32_t *deg = calloc(m->n, sizeof *deg);
        if (!rc && !deg)
            rc = cn_fail(err, CN_ERR_RUNTIME, "out of host memory for %u degrees", m->n);
        for (uint32_t p = 0; !rc && p < m->n_parts; p++)
            rc = flood_build_csr(m, p, &m->offsets[p], &m->neighbours[p], deg, err);
        for (uint32_t i = 0; !rc && i < m->n; i++)
            m->max_degree = deg[i] > m->max_degree ? deg[i] : m->max_degree;
        free(deg);
        if (!rc)
            rc = cl_check(clFinish(m->dev->queue), "clFinish", m->dev->info.name, err);
    }
    if (!rc)
        rc = alloc_packets(m, err);
    if (!rc)
        rc = cl_check(clFinish(m->dev->queue), "clFinish", m->dev->info.name, err);
    return rc;
}

void flood_destroy(struct model *m)
{
    if (!m)
        return;
    for (uint32_t p = 0; p < m->n_parts && m->offsets && m->neighbours; p++) {
        dbuf_release(&m->offsets[p], &m->acc);
        dbuf_release(&m->neighbours[p], &m->acc);
    }
    free(m->offsets);
    free(m->neighbours);
    dbuf *bufs[] = {&m->pos, &m->waypoint, &m->speed, &m->leg, &m->pause_end, &m->part_of,
                    &m->seen, &m->spill, &m->slot_packet, &m->ctl, &m->desc,
                    &m->seg[0], &m->seg[1], &m->frontier[0], &m->frontier[1]};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
        dbuf_release(bufs[i], &m->acc);
    cell_lists_free(&m->cells, &m->acc);
    scan_free(&m->node_scan, &m->acc);
    cl_kernel ks[] = {m->k_place, m->k_rwp_init, m->k_move, m->k_csr_count, m->k_csr_fill,
                      m->k_transmit, m->k_gather, m->k_by_packet};
    for (size_t i = 0; i < sizeof ks / sizeof ks[0]; i++)
        if (ks[i])
            clReleaseKernel(ks[i]);
    if (m->prog)
        clReleaseProgram(m->prog);
    free(m->slot_pkt);
    free(m->born_window);
    free(m->free_slots);
    for (int r = 0; r < 2; r++)
        if (m->rb[r].ev)
            clReleaseEvent(m->rb[r].ev);
    release_pinned(m);
    free(m->desc_host[0]);
    free(m->desc_host[1]);
    free(m->dirty_slots);
    free(m);
}
