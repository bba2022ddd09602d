/* The device memory of a flood run, estimated from the scenario (flood_memory.h). The sizes
 * follow the allocations of flood_setup.c, flood_packets.c, flood_exchange.c and
 * flood_retile.c; what the run only learns as it goes (how many links the graph has, how many
 * relays a window makes) is bounded or estimated, and marked so. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "cl/flood/flood_layout.clh"
#include "models/flood/flood_memory.h"
#include "models/flood/flood_model.h"

static void add(flood_memory *mem, const char *what, uint64_t bytes, uint64_t largest,
                int estimated)
{
    if (mem->n == FLOOD_MEMORY_PARTS || bytes == 0)
        return;
    mem->part[mem->n] = (flood_memory_part){what, bytes, largest, estimated};
    if (mem->n == 0 || largest > mem->part[mem->largest].largest)
        mem->largest = mem->n;
    mem->n++;
    mem->total += bytes;
}

static uint64_t max_u64(uint64_t a, uint64_t b)
{
    return a > b ? a : b;
}

static uint64_t min_u64(uint64_t a, uint64_t b)
{
    return a < b ? a : b;
}

/* A test hook's number (as flood_setup.c reads it), or FALLBACK. */
static uint64_t env_count(const char *name, uint64_t fallback)
{
    const char *v = getenv(name);
    char *end;
    unsigned long x = v && *v ? strtoul(v, &end, 10) : 0;
    return x > 0 && x < 0x7fffffffUL && *end == '\0' ? x : fallback;
}

/* Grid neighbours within RANGE of a node of a ROWS x COLS grid SPACING apart, the node left
 * out: the lattice points of the disk, as far as the grid reaches. */
static uint64_t lattice_degree(int64_t rows, int64_t cols, int64_t spacing, int64_t range)
{
    if (spacing <= 0 || range < 0)
        return 0;
    double r2 = (double)range * (double)range;
    uint64_t points = 0;
    for (int64_t i = 0; i < cols && i * spacing <= range; i++) {
        double left = r2 - (double)(i * spacing) * (double)(i * spacing);
        int64_t j = (int64_t)floor(sqrt(left > 0 ? left : 0) / (double)spacing);
        if (j > rows - 1)
            j = rows - 1;
        points += (uint64_t)(i == 0 ? 1 : 2) * (uint64_t)(2 * j + 1);
    }
    return points > 0 ? points - 1 : 0;
}

/* Directed links of the static graph, what its neighbour lists hold: exact bounds from the
 * geometry of grids and areas (every node has at most the lattice's neighbours), the density
 * for uniform placement (the mean degree of nodes spread evenly, with a tenth more for the
 * spread of a random placement: *ESTIMATED is set). */
static uint64_t graph_links(const flood_model *m, int *estimated)
{
    const flood_values *sc = flood_values_of(&m->sc);
    uint64_t n = m->n, degree;
    *estimated = 0;
    if (sc->placement == PLACEMENT_GRID) {
        degree = lattice_degree(sc->rows, sc->cols, sc->spacing_mm, sc->range_mm);
    } else if (sc->placement == PLACEMENT_AREAS) { /* plus the chain and border links */
        degree = lattice_degree(sc->rows, sc->cols, sc->spacing_mm, sc->range_mm) + 2;
    } else {
        double r = (double)sc->range_mm, w = (double)m->extent[0], h = (double)m->extent[1];
        double d = (double)m->extent[2], pi = 3.14159265358979;
        double share = d > 0 ? 4.0 / 3.0 * pi * r * r * r / (w * h * d) : pi * r * r / (w * h);
        double mean = (double)(n - 1) * (w > 0 && h > 0 ? share : 1.0);
        double bound = ceil(mean * 1.1) + 1;
        degree = bound < (double)n ? (uint64_t)bound : n;
        *estimated = 1;
    }
    if (m->cap && !m->cap_live && m->cap < degree)
        degree = m->cap;
    return n * min_u64(degree, n > 0 ? n - 1 : 0);
}

/* The bytes of a prefix sum over LEN entries: two words per work-group at every level. */
static uint64_t scan_bytes(const device_ctx *dev, uint64_t len)
{
    uint64_t local = platform_profile_local_size(&dev->profile, "cells.scan_blocks");
    local = local < 2 ? 2 : local;
    uint64_t bytes = 0;
    while (len > 1) {
        len = (len + local - 1) / local;
        bytes += 8 * len;
    }
    return bytes;
}

void flood_memory_estimate(flood_model *m, const device_ctx *dev, int64_t packets,
                           flood_memory *out)
{
    const flood_values *sc = flood_values_of(&m->sc);
    uint64_t n = m->n, words = m->words;
    *out = (flood_memory){0};
    /* whole packets or the window loop, as flood_create will decide: one partition when
     * the scenario asks for none or one (make_partitions) */
    uint32_t parts = m->sc.partitions > 1 && sc->placement != PLACEMENT_AREAS
                         ? (uint32_t)m->sc.partitions : 1;
    uint32_t saved = m->n_parts;
    m->n_parts = parts;
    int whole = flood_packets_wanted(m);
    m->n_parts = saved;

    /* positions (and the mobility state) on every device */
    uint64_t mobile = m->mobile ? n * (32 + 8 + 4 + 8) : 0;
    add(out, "positions", n * 32 + mobile, n * 32, 0);
    /* per node: partitions, drop thresholds, the cap's thresholds and link counts */
    uint64_t per_node = n * 2 + (sc->drop.law == LAW_UNIFORM ? n * 8 : 0) +
                        (m->cap ? n * (16 + 8) : 0);
    add(out, "node tables", per_node, m->cap ? n * 16 : n * 8, 0);
    uint64_t cells = (uint64_t)m->grid.n_cells;
    /* with the mobility step's ranks (flood_setup.c, ranked_lists): a rank and a position in
     * cell order per node and two halves of counts, where the device would take them */
    uint32_t ranked_most = 0;
    cn_error ignored = {0};
    int ranks = m->mobile && m->move_first == 0 && m->move_end == (int64_t)n &&
                (parts == 1 || m->cap) &&
                cell_lists_ranked_cells(dev, &ranked_most, NULL, &ignored) == 0 &&
                cells <= ranked_most;
    /* the fixed cells that a step fused into the transmit writes (flood_fuse.c): two halves
     * of slots (a node and a position each) and two words per node each */
    int fixed = flood_fuse_possible(m, dev);
    if (fixed) {
        uint32_t cap = 0;
        if (cell_lists_fixed_capacity(m->n, m->grid.n_cells, &cap, &ignored) != 0)
            cap = 1; /* a bad hook value: the run refuses it before any allocation */
        uint64_t slots = cells * cap + n;
        add(out, "fixed cells", 2 * slots * (4 + 32) + 2 * (2 * n * 4 + 4), 2 * slots * 32, 0);
    }
    add(out, "cell lists", n * 8 + (2 * cells + 1) * 4 + scan_bytes(dev, cells + 1) +
        scan_bytes(dev, n + 1) + (ranks || fixed ? n * (4 + 32) + 3 * (cells + 2) * 4 : 0),
        max_u64(n, cells + 1) * 4, 0);
    /* static: the neighbour lists (each device holds every partition's at most), with the
     * degrees they are built from */
    if (!m->mobile) {
        int est = 0;
        uint64_t links = graph_links(m, &est);
        add(out, "neighbour lists", links * 4 + (2 * n + 1) * 4, max_u64(links, n + 1) * 4,
            est);
    }
    /* the window loop's packet slots: seen and spill bits, and the frontiers, which grow to
     * a window's relays (at most a node per packet in flight), as far as running ahead lets
     * them (flood_setup.c, choose_shapes) */
    uint64_t slots = env_count("CLNETSIM_TEST_SLOTS", 32);
    if (sc->n_flows == 0 && (int64_t)slots > sc->packets)
        slots = sc->packets > 0 ? (uint64_t)sc->packets : 1;
    add(out, "seen bitsets", 2 * slots * words * 4, slots * words * 4, 0);
    uint64_t entries = env_count("CLNETSIM_TEST_FRONTIER_CAPACITY", max_u64(n / 8, 256));
    if (!whole) {
        uint64_t lag = min_u64(max_u64((uint64_t)4 << 20, n), dev->info.max_alloc / 16);
        entries = max_u64(entries, min_u64(n * slots, lag));
    }
    /* forwarding schemes in the window loop: per slot and node the state (16 bytes) and two
     * pending-list items (flood_scheme.c) */
    if (!whole && sc->scheme != SCHEME_PROBABILISTIC)
        add(out, "scheme states", slots * n * (16 + 8), slots * n * 16, 0);
    uint64_t exported = !whole && m->n_rep > 1 ? entries * 8 : 0;
    add(out, "frontiers", 2 * entries * 8 + exported, entries * 8, !whole);
    /* node resources (flood_resources.c): energy and death times, the transmission lists,
     * the nodes reached and the transmitters, and one entry per frontier relay */
    if (flood_has_resources(sc))
        add(out, "node resources", n * (8 + 8 + 4 + 4 + 4) + max_u64(entries, 256) * 16,
            max_u64(n * 8, max_u64(entries, 256) * 16), 0);
    uint64_t flows = m->flows ? slots * 24 : 0;
    add(out, "slot tables", slots * 8 + CTL_WORDS * 4 + 256 + flows, slots * 8 + 256, 0);
    /* mobile partitions that follow their nodes: the moved nodes, and records for an eighth
     * of them at a re-tiling */
    if (m->mobile && parts > 1)
        add(out, "moved nodes", n * 4 + n / 8 * (1 + (slots + 31) / 32) * 4, n * 4, 1);
    /* whole packets: each work-group's frontier, seen bits and node states, and a round's
     * packets and records */
    if (whole && packets > 0) {
        uint64_t groups = flood_packets_groups(m, dev, packets);
        uint64_t state = m->scheme ? n * 4 * 7 : n * 4;
        uint64_t round = min_u64((uint64_t)packets, (uint64_t)packets / 8 + 16 * groups);
        add(out, "whole-packet state", groups * flood_packets_group_bytes(m) + round * 80,
            groups * state, 0);
    }
}

/* BYTES for people: "41.2 GiB", "512.0 KiB", "96 bytes". */
static void format_size(uint64_t bytes, char *buf, size_t cap)
{
    static const char *const units[] = {"KiB", "MiB", "GiB", "TiB"};
    if (bytes < 1024) {
        snprintf(buf, cap, "%llu bytes", (unsigned long long)bytes);
        return;
    }
    double v = (double)bytes / 1024.0;
    int u = 0;
    while (v >= 1024.0 && u < 3)
        v /= 1024.0, u++;
    snprintf(buf, cap, "%.1f %s", v, units[u]);
}

/* The replicas of the N devices of M whose memory is the host's (CPU devices, or with host
 * unified memory) need SHARED bytes in all, which must fit the host's available memory: each
 * device's global memory is the host's, so that devices that each fit could together exhaust
 * it. Not a failure of one device (on_failure = continue does not leave one out): the
 * scenario does not fit these devices together. */
static int host_memory_check(const flood_model *m, const char *name, uint64_t shared, int n,
                             cn_error *err)
{
    uint64_t avail = device_host_available();
    if (!avail || shared <= avail)
        return 0;
    char devices[512] = "", need[32], all[32], have[32];
    size_t at = 0;
    int k = 0;
    for (int d = 0; d < m->n_rep; d++) {
        const device_ctx *dev = m->rep[d].dev;
        if (!dev->info.host_memory)
            continue;
        k++;
        int w = snprintf(devices + at, sizeof devices - at, "%s%d '%s'",
                         k == 1 ? "" : k == n ? " and " : ", ", dev->ordinal, dev->info.name);
        if (w < 0 || (size_t)w >= sizeof devices - at)
            break;
        at += (size_t)w;
    }
    format_size(shared / (uint64_t)n, need, sizeof need);
    format_size(shared, all, sizeof all);
    format_size(avail, have, sizeof have);
    if (n == 1)
        return cn_fail(err, CN_ERR_INPUT, "%s needs about %s on device %s, whose memory is the "
                       "host's, and the host has %s available; use a smaller scenario or a "
                       "machine with more memory", name, all, devices, have);
    return cn_fail(err, CN_ERR_INPUT, "%s needs about %s on each of devices %s, whose memory is "
                   "the host's: %s in all, and the host has %s available; use fewer of these "
                   "devices, a smaller scenario or a machine with more memory", name, need,
                   devices, all, have);
}

int flood_memory_check(flood_model *m, cn_error *err)
{
    const char *name = m->sc.path[0] ? m->sc.path : "the scenario";
    int64_t packets = -1;
    uint64_t shared = 0; /* the replicas of devices whose memory is the host's */
    int n_shared = 0;
    for (int d = 0; d < m->n_rep; d++) {
        const device_ctx *dev = m->rep[d].dev;
        if (packets < 0 && (packets = flood_packets_count(m, err)) < 0)
            return CN_ERR_RUNTIME;
        flood_memory mem;
        flood_memory_estimate(m, dev, packets, &mem);
        const flood_memory_part *big = &mem.part[mem.largest];
        char total[32], largest[32], global[32], alloc[32];
        format_size(mem.total, total, sizeof total);
        format_size(big->largest, largest, sizeof largest);
        format_size(dev->info.global_mem, global, sizeof global);
        format_size(dev->info.max_alloc, alloc, sizeof alloc);
        if (mem.total > dev->info.global_mem)
            return device_fail(err, dev->info.name, CN_ERR_INPUT,
                               "%s needs about %s on device '%s' (largest buffer %s: the %s%s), "
                               "which has %s of global memory and allows %s per allocation; "
                               "use a smaller scenario or a device with more memory",
                               name, total, dev->info.name, largest, big->what,
                               big->estimated ? ", estimated" : "", global, alloc);
        if (big->largest > dev->info.max_alloc)
            return device_fail(err, dev->info.name, CN_ERR_INPUT,
                               "%s needs one buffer of about %s for the %s on device '%s', "
                               "which allows %s per allocation (of its %s of global memory the "
                               "run needs about %s in all); use a smaller scenario or a device "
                               "that allows larger allocations",
                               name, largest, big->what, dev->info.name, alloc, global, total);
        if (dev->info.host_memory) {
            shared += mem.total;
            n_shared++;
        }
    }
    return n_shared ? host_memory_check(m, name, shared, n_shared, err) : 0;
}
