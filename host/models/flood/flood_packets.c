/* Whole packets: static scenarios flood each packet from its creation to its
 * last relay within one launch (flood_packets in cl/flood/flood.cl), instead of advancing every
 * packet by one hop per window with the host in between.
 *
 * Why: in a static scenario packets never meet (each has its own seen set and nobody moves),
 * so a packet's windows need not wait for other packets' windows. The window loop then pays
 * its per-window floor (a launch and a read-back, tens of microseconds) a thousand times for
 * grid_flood while the device has a few microseconds of work per window; here the host
 * launches a handful of rounds and the device runs each packet's breadth-first search with
 * work-group barriers only. Results are the same, bit for bit: counters are sums over
 * packets and the end time is a maximum (docs/architecture.md, "Whole packets").
 *
 * The engine drives it in batches (ENGINE_SYNC_BATCHES, flood_sync in flood_window.c): each
 * step of its loop is a batch of packets (a "round" here), cut into chunks (one per device of
 * the fastest class), each an event set of kind FLOOD_PACKETS whose multiplicity is its
 * packets times the nodes. Every device holds the whole graph, so the injector can send any
 * chunk anywhere: its units are the chunks, which move for free. After each batch the model
 * says how many packets have run of the run's (the progress line and the summary). */
#include <stdlib.h>
#include <string.h>

#include "cl/flood/flood_layout.clh"
#include "dist/dist.h"
#include "models/flood/flood_ckpt_format.h"
#include "models/flood/flood_model.h"

/* Longs per work-group statistics row (PACKET_STATS in cl/flood/flood.cl). */
enum {
    PS_TX,
    PS_RX,
    PS_FIRST,
    PS_DELIVERED,
    PS_HOPS,
    PS_LATENCY,
    PS_END,
    PS_HOPS_HI, /* the high 64 bits of PS_HOPS and PS_LATENCY */
    PS_LATENCY_HI,
    PS_ROW = 10
};
/* Longs per packet record (PACKET_REC): deliveries, their hops, the last one's hop count, and
 * under a forwarding scheme their latencies and the last one's latency. */
#define PACKET_REC 8
/* Per-node uints of a work-group's state under a forwarding scheme (SCHEME_STATE_WORDS). */
#define SCHEME_STATE_WORDS 7

/* Work-groups per compute unit: GPUs hide memory latency with several resident groups; a PoCL
 * work-group runs on one thread, so a few per core balance packets of unequal cost. */
#define PACKET_GROUPS_GPU 8
#define PACKET_GROUPS_CPU 4
/* Batches (rounds) per run (about): each is one launch and one read-back; a few give the
 * progress line something to show without adding a window loop's costs. */
#define PACKET_ROUNDS 8

/* Packets created before the end of the run: t_k < duration, or all without a duration. */
static int64_t packets_to_run(const scenario *scn)
{
    const flood_values *sc = flood_values_of(scn);
    if (scn->duration_ns == 0)
        return sc->packets;
    if (sc->start_ns >= scn->duration_ns)
        return 0;
    if (sc->interval_ns == 0)
        return sc->packets;
    int64_t n = (scn->duration_ns - sc->start_ns + sc->interval_ns - 1) / sc->interval_ns;
    return n < sc->packets ? n : sc->packets;
}

int flood_packets_enabled(void)
{
    const char *e = getenv("CLNETSIM_TEST_WHOLE_PACKETS");
    return !(e && e[0] == '0' && e[1] == '\0');
}

int flood_packets_wanted(const flood_model *m)
{
    /* a packet's levels run in different windows: a graph that changes with the window
     * under a cap (qudg) needs each window's thresholds, which the window loop computes;
     * node resources couple the packets at the nodes, window by window */
    /* the scheme kernel's walk cannot stop mid-packet: on a device that ends loops early
     * (device_loop_limit), forwarding schemes run in the window loop, whose loops are short */
    return flood_packets_enabled() && !m->mobile && m->n_parts == 1 && !m->cap_live &&
           !m->resources && !(m->scheme && m->loops_limited);
}

/* Longs per work-item in the end-of-packet reduction (RED_WIDTH, RED_SCHEME in
 * cl/flood/flood.cl). */
static size_t red_width(const flood_model *m)
{
    return m->scheme ? 9 : m->flows ? 6 : 3;
}

/* The CSR lists replica R floods with: partition 0's own on its home, a copy elsewhere. */
static dbuf *csr_offsets(flood_model *m, flood_replica *r)
{
    return r == &m->rep[m->home[0]] ? &m->offsets[0] : &r->pk_off;
}

static dbuf *csr_neighbours(flood_model *m, flood_replica *r)
{
    return r == &m->rep[m->home[0]] ? &m->neighbours[0] : &r->pk_nbr;
}

/* A launch's quota of work units on a device that ends a work-item's loops after LIMIT
 * iterations in all (device_loop_limit; flood_layout.clh, "Bounded launches"): half of them,
 * less what a launch costs besides its units (its walk loaded and saved, the level entries
 * and seen bits kept in local memory moved out and back, the end-of-packet reduction), in
 * units of 17 + 2 D iterations, D the largest degree (an entry, its neighbours and their
 * relay draws, flood_one_slice's bound; the cooperative shape needs fewer). A unit clears as
 * many seen words. */
static int plan_quota(flood_model *m, flood_replica *r, uint32_t limit, cn_error *err)
{
    uint64_t ls = r->ls_packets, unit = 17 + 2 * (uint64_t)m->max_degree;
    uint64_t fixed = 64 + 2 * RESUME_LONGS + ls;
    if (ls > 1)
        fixed += 4 * (PACKET_LEVEL_CAP / ls + 1) + (r->pk_local ? 2 * (m->words / ls + 1) : 0);
    uint64_t budget = limit / 2;
    uint64_t quota = budget > fixed ? (budget - fixed) / unit : 0;
    if (quota < 2)
        return cn_fail(err, CN_ERR_RUNTIME,
                       "device '%s' ends a work-item's loops after %u iterations, too few to "
                       "flood whole packets on this graph (a node has %u neighbours; work-groups "
                       "of %zu); run it in the window loop ([partition] count = 2) or on "
                       "another device",
                       r->dev->info.name, limit, m->max_degree, r->ls_packets);
    r->pk_quota = quota > UINT32_MAX ? UINT32_MAX : (uint32_t)quota;
    r->pk_unit = (uint32_t)unit;
    return 0;
}

/* The __local arguments of flood_packets (and flood_packets_scheme) with work-groups of SIZE
 * (run_chunk sets them): the reduction rows, then the level counters and the levels' first
 * entries; a group of one item runs flood_packets_one, which has none. */
static cl_ulong packets_local_args(size_t size, const void *user)
{
    const flood_model *m = user;
    if (m->scheme)
        return (cl_ulong)size * red_width(m) * 8 + 4 * 4;
    if (size == 1)
        return 0;
    return (cl_ulong)size * red_width(m) * 8 + 4 + 3 * 8 + (cl_ulong)2 * PACKET_LEVEL_CAP * 4;
}

/* Whether the seen bitset fits in local memory (flood_packets_local) for groups of LS, beside
 * the other __local arguments and the kernel's own local memory (OWN: 0 before the kernel is
 * made), leaving a quarter of the local memory to the driver; CLNETSIM_TEST_LOCAL_BITS=0
 * keeps it in global memory, for the tests. */
static int local_bits_fit(const flood_model *m, device_ctx *d, size_t ls, cl_ulong own)
{
    cl_ulong fixed = packets_local_args(ls, m) + own;
    const char *lb = getenv("CLNETSIM_TEST_LOCAL_BITS");
    return !m->scheme && ls > 1 &&
           fixed + (cl_ulong)m->words * 4 <= device_local_limit(d) / 4 * 3 &&
           !(lb && lb[0] == '0' && lb[1] == '\0');
}

static size_t kernel_limit(const device_ctx *d, cl_kernel k)
{
    size_t kmax = 0;
    if (clGetKernelWorkGroupInfo(k, d->info.id, CL_KERNEL_WORK_GROUP_SIZE, sizeof kmax, &kmax,
                                 NULL) != CL_SUCCESS)
        kmax = 0;
    return kmax;
}

/* Tries the kernel NAME at groups of LS for replica R: 1 when it may run there (it passed the
 * device's self-test, and the kernel allows groups that large), after making its kernel. */
static int try_shape(flood_replica *r, const char *name, size_t ls, cl_kernel *k, int *ok,
                     cn_error *err)
{
    device_ctx *d = r->dev;
    *ok = 0;
    if (device_shape_bad(d, name, ls))
        return 0;
    if (!*k && device_create_kernel(d, r->prog, name, k, err))
        return CN_ERR_RUNTIME;
    size_t kmax = kernel_limit(d, *k);
    *ok = kmax == 0 || kmax >= ls;
    return 0;
}

/* The kernel and group size of whole packets on R, from the size chosen (R->ls_packets):
 * groups of one item run flood_packets_one, larger groups flood_packets_local when the seen
 * bits fit in local memory, else flood_packets; forwarding schemes flood_packets_scheme. A
 * shape that failed the device's self-test is never used: the other kernel at the same size
 * first (global seen bits), then the other sizes, smaller first. */
static int choose_shape(flood_model *m, flood_replica *r, cn_error *err)
{
    device_ctx *d = r->dev;
    size_t want = r->ls_packets;
    size_t limit = kernel_limit(d, r->k_packets);
    if (!limit || (d->info.max_work_group && limit > d->info.max_work_group))
        limit = d->info.max_work_group ? d->info.max_work_group : want;
    size_t sizes[32];
    int n = 0;
    sizes[n++] = want;
    for (size_t s = want / 2; s >= 1; s /= 2)
        sizes[n++] = s;
    for (size_t s = want * 2; s <= limit && s <= 4096 && n < 32; s *= 2)
        sizes[n++] = s;
    for (int i = 0; i < n; i++) {
        size_t ls = sizes[i];
        int ok = 0, rc = 0;
        r->pk_one = r->pk_local = 0;
        if (!m->scheme && ls == 1 && !(rc = try_shape(r, "flood.packets_one", ls,
                                                      &r->k_packets_one, &ok, err)) && ok)
            r->pk_one = 1;
        else if (!rc && local_bits_fit(m, d, ls, 0) &&
                 !(rc = try_shape(r, "flood.packets_local", ls, &r->k_packets_local, &ok, err)) &&
                 ok && local_bits_fit(m, d, ls, device_kernel_local_own(d, r->k_packets_local)))
            r->pk_local = 1;
        if (rc)
            return rc;
        const char *name = r->pk_one ? "flood.packets_one"
                         : r->pk_local ? "flood.packets_local"
                         : m->scheme ? "flood.packets_scheme" : "flood.packets";
        if (!r->pk_one && !r->pk_local && (device_shape_bad(d, name, ls) || ls > limit))
            continue;
        r->ls_packets = ls;
        device_shape_note(d, name, ls);
        return 0;
    }
    return device_fail(err, d->info.name, CN_ERR_RUNTIME,
                       "device '%s' failed the self-test in every shape of whole packets, so "
                       "it cannot run this scenario", d->info.name);
}

/* Kernels, work-group size and shape, groups and buffers of replica R. */
static int setup_replica(flood_model *m, flood_replica *r, cn_error *err)
{
    device_ctx *d = r->dev;
    const char *kname = m->scheme ? "flood.packets_scheme" : "flood.packets";
    int rc = device_create_kernel(d, r->prog, kname, &r->k_packets, err);
    if (rc)
        return rc;
    /* A work-group handles one breadth-first level at a time: about as many items as a level
     * has nodes are useful. A planar flood's front is some sqrt(N) nodes wide: groups near
     * sqrt(N) / 2 were fastest on the H200 (128 for 48 400 nodes: 1.5 ms against 1.9 at 64
     * and 2.9 at 32; 256 for a million; docs/benchmarks.md), and never fewer than 32 (a warp). */
    uint64_t target = 0;
    while ((target + 1) * (target + 1) <= m->n)
        target++;
    target = target / 2 * 1414 / 1000; /* the nearest power of two below, on a log scale */
    size_t cap = 32;
    while ((uint64_t)cap * 2 <= target)
        cap *= 2;
    r->ls_packets = device_local_size_variants(d, kname, r->k_packets, cap, packets_local_args, m);
    rc = choose_shape(m, r, err);
    uint32_t limit = 0;
    r->pk_quota = 0;
    r->pk_unit = 1;
    if (!rc)
        rc = device_loop_limit(d, &limit, err);
    if (!rc && limit && !m->scheme)
        rc = plan_quota(m, r, limit, err);
    if (rc)
        return rc;
    uint64_t state_words = m->scheme ? SCHEME_STATE_WORDS : 0;
    uint64_t groups = flood_packets_groups(m, d, m->pk_total);
    r->pk_groups = (uint32_t)groups;
    r->pk_stats = calloc(groups * PS_ROW, sizeof *r->pk_stats);
    r->pk_read = calloc(groups * PS_ROW, sizeof *r->pk_read);
    if (!r->pk_stats || !r->pk_read)
        return cn_fail(err, CN_ERR_RUNTIME, "out of host memory for packet statistics");
    for (uint64_t g = 0; g < groups; g++)
        r->pk_stats[g * PS_ROW + PS_END] = -1;
    if (m->pk_total == 0)
        return 0;
    size_t n_front = (size_t)groups * m->n * 4, n_seen = (size_t)groups * m->words * 4;
    rc = dbuf_alloc(d, &r->pk_front, n_front, &m->acc, "packet frontiers", err);
    if (!rc)
        rc = dbuf_alloc(d, &r->pk_seen, n_seen, &m->acc, "packet seen bitsets", err);
    if (!rc)
        rc = dbuf_alloc(d, &r->pk_rows, (size_t)groups * PS_ROW * 8, &m->acc,
                        "packet statistics", err);
    if (!rc)
        rc = dbuf_write(d, &r->pk_rows, 0, (size_t)groups * PS_ROW * 8, r->pk_stats, 1, err);
    /* zero: launch sequence 0, which none is (pk_epoch counts from 1) */
    if (!rc)
        rc = dbuf_alloc(d, &r->pk_resume, (size_t)groups * RESUME_LONGS * 8, &m->acc,
                        "packet walk records", err);
    if (!rc)
        rc = dbuf_zero(d, &r->pk_resume, 0, (size_t)groups * RESUME_LONGS * 8, err);
    /* the node states start at zero; each packet leaves them so */
    size_t n_state = (size_t)groups * state_words * m->n * 4;
    if (!rc && n_state)
        rc = dbuf_alloc(d, &r->pk_state, n_state, &m->acc, "packet node states", err);
    if (!rc && n_state)
        rc = dbuf_zero(d, &r->pk_state, 0, n_state, err);

    /* the whole graph's lists, on every device but partition 0's home */
    if (!rc && r != &m->rep[m->home[0]]) {
        uint32_t *deg = calloc(m->n, sizeof *deg);
        rc = deg ? 0 : cn_fail(err, CN_ERR_RUNTIME, "out of host memory for %u degrees", m->n);
        if (!rc)
            rc = flood_build_csr(m, r, 0, &r->pk_off, &r->pk_nbr, deg, err);
        free(deg);
    }
    return rc;
}

uint64_t flood_packets_groups(const flood_model *m, const device_ctx *d, int64_t packets)
{
    /* Each work-group holds a seen bitset and a frontier of N entries. As many groups as keep
     * the device busy, no more than there are packets, and within a quarter of the device's
     * memory and its largest single allocation. */
    uint64_t state_words = m->scheme ? SCHEME_STATE_WORDS : 0;
    uint64_t per_group = (uint64_t)m->n * 4 * (1 + state_words) + (uint64_t)m->words * 4;
    uint64_t cu = d->info.compute_units ? d->info.compute_units : 1;
    int cpu = (d->info.type & CL_DEVICE_TYPE_CPU) != 0;
    uint64_t groups = cu * (cpu ? PACKET_GROUPS_CPU : PACKET_GROUPS_GPU);
    if (groups > (uint64_t)packets)
        groups = (uint64_t)packets;
    uint64_t mem_cap = d->info.global_mem / 4 / per_group;
    /* the largest single buffer: the frontiers, or the schemes' node states (m->n >= 1) */
    uint64_t row = (uint64_t)m->n * 4 * (m->scheme ? state_words : 1);
    uint64_t alloc_cap = row ? d->info.max_alloc / row : groups;
    if (groups > mem_cap)
        groups = mem_cap;
    if (groups > alloc_cap)
        groups = alloc_cap;
    return groups < 1 ? 1 : groups;
}

uint64_t flood_packets_group_bytes(const flood_model *m)
{
    uint64_t state_words = m->scheme ? SCHEME_STATE_WORDS : 0;
    return (uint64_t)m->n * 4 * (1 + state_words) + (uint64_t)m->words * 4 + PS_ROW * 8 +
           RESUME_LONGS * 8;
}

/* Traffic flows: the packets of the run, counted from a departures list of their own (the
 * model's is consumed round by round); -1 with ERR set on failure. */
static int64_t count_departures(flood_model *m, cn_error *err)
{
    departures *d = NULL;
    int64_t n = 0;
    departure dep;
    if (departures_open(&d, &m->sc, err) != 0) {
        departures_close(d);
        return -1;
    }
    while (departures_peek(d, &dep)) {
        departures_pop(d);
        n++;
    }
    departures_close(d);
    return n;
}

int64_t flood_packets_count(flood_model *m, cn_error *err)
{
    return m->flows ? count_departures(m, err) : packets_to_run(&m->sc);
}

int flood_packets_setup(flood_model *m, cn_error *err)
{
    m->pk_total = flood_packets_count(m, err);
    if (m->pk_total < 0)
        return CN_ERR_RUNTIME;
    int rc = 0;
    for (int d = 0; d < m->n_rep && !rc; d++)
        rc = setup_replica(m, &m->rep[d], err);
    if (rc)
        return rc;
    /* A round has one chunk per device of the fastest class present, each starting on its
     * own device: GPUs when there are any, as 16 CPU cores flood whole packets 15 to 27 times
     * slower than an H200 (docs/benchmarks.md), and the injector moves a chunk to a CPU only
     * once it has measured that this pays. One chunk per device, not more: a device runs its
     * chunks one launch after the other, and a launch lasts as long as its slowest packet,
     * so two chunks on one device take twice as long as one chunk of both. */
    int order[FLOOD_MAX_REPLICAS] = {0}, n_order = 0;
    for (int d = 0; d < m->n_rep; d++)
        if (!m->rep[d].cpu)
            order[n_order++] = d;
    if (n_order == 0)
        for (int d = 0; d < m->n_rep; d++)
            order[n_order++] = d;
    m->pk_chunks = n_order;
    for (int c = 0; c < m->pk_chunks; c++)
        m->pk_home[c] = order[c];
    /* Rounds of about PACKET_ROUNDS, each a whole multiple of the groups of the chunks'
     * devices together. */
    uint64_t groups = 0;
    for (int c = 0; c < m->pk_chunks; c++)
        groups += m->rep[m->pk_home[c]].pk_groups;
    if (groups < 1)
        groups = 1;
    m->pk_groups = groups;
    m->pk_next = 0;
    m->pk_rounds = 0;
    return flood_packets_size_rounds(m, groups, err);
}

/* Traffic flows: a round's packets and records (one-entry placeholders without), on every
 * device and on the host, for rounds of m->pk_round packets. */
static int round_tables(flood_model *m, cn_error *err)
{
    int rc = 0;
    size_t tab = m->flows ? (size_t)m->pk_round : 1;
    for (int d = 0; d < m->n_rep && !rc; d++) {
        flood_replica *r = &m->rep[d];
        r->pk_tab_round = -1;
        dbuf_release(&r->pk_tab, &m->acc);
        dbuf_release(&r->pk_rec, &m->acc);
        rc = dbuf_alloc(r->dev, &r->pk_tab, tab * 16, &m->acc, "round packets", err);
        if (!rc)
            rc = dbuf_alloc(r->dev, &r->pk_rec, tab * PACKET_REC * 8, &m->acc,
                            "packet records", err);
    }
    if (!rc && m->flows) {
        free(m->pk_tab_host);
        free(m->pk_flow_host);
        free(m->pk_rec_host);
        m->pk_tab_host = malloc(tab * 16);
        m->pk_flow_host = malloc(tab * 4);
        m->pk_rec_host = malloc(tab * PACKET_REC * 8);
        if (!m->pk_tab_host || !m->pk_flow_host || !m->pk_rec_host)
            rc = cn_fail(err, CN_ERR_RUNTIME, "out of host memory for a round of packets");
    }
    return rc;
}

int flood_packets_size_rounds(flood_model *m, uint64_t groups, cn_error *err)
{
    uint64_t per_round = ((uint64_t)m->pk_total + PACKET_ROUNDS - 1) / PACKET_ROUNDS;
    per_round = (per_round + groups - 1) / groups * groups;
    m->pk_round = per_round ? per_round : groups;
    return round_tables(m, err);
}

int flood_packets_plan(flood_model *m, window_plan *plan)
{
    for (int d = 0; d < m->n_rep; d++)
        m->rep[d].pk_ran = 0;
    for (int c = 0; c < m->pk_chunks; c++)
        m->pk_ran_on[c] = -1;
    if (m->pk_next >= m->pk_total)
        return 0;
    uint64_t count = (uint64_t)(m->pk_total - m->pk_next);
    if (count > m->pk_round)
        count = m->pk_round;
    uint64_t round = count;
    m->pk_round_k0 = m->pk_next;
    m->pk_rounds++;
    /* traffic flows: the round's departures, in packet id order, as the kernels read them */
    for (uint64_t q = 0; q < count && m->flows; q++) {
        departure dep;
        if (!departures_peek(m->deps, &dep))
            break; /* cannot happen: pk_total counted them */
        departures_pop(m->deps);
        uint32_t *e = m->pk_tab_host + 4 * q;
        e[0] = (uint32_t)(uint64_t)dep.t;
        e[1] = (uint32_t)((uint64_t)dep.t >> 32);
        e[2] = dep.source;
        e[3] = dep.destination;
        m->pk_flow_host[q] = dep.flow;
    }
    /* the round's packets in consecutive chunks of (nearly) equal counts; over several
     * ranks those of this rank's share of the round (flood_ranks.c) */
    int64_t k = m->pk_next;
    if (dist_size() > 1)
        flood_ranks_share(m, m->pk_next, count, &k, &count);
    for (int c = 0; c < m->pk_chunks; c++) {
        uint64_t n_c = count / (uint64_t)m->pk_chunks + ((uint64_t)c < count % (uint64_t)m->pk_chunks);
        m->pk_k0[c] = k;
        m->pk_count[c] = (int64_t)n_c;
        k += (int64_t)n_c;
        if (n_c == 0)
            continue;
        event_set *s = &plan->sets[plan->n_sets++];
        s->kind = FLOOD_PACKETS;
        s->partition = c;
        s->multiplicity = n_c * m->n;
    }
    m->pk_next = m->pk_round_k0 + (int64_t)round;
    return 0;
}

/* Whether a group of replica R is still pending after a bounded launch: its rows, read back
 * into R->pk_read (which flood_packets_end overwrites). */
static int rows_pending(flood_replica *r, int *pending, cn_error *err)
{
    int rc = dbuf_read(r->dev, &r->pk_rows, 0, (size_t)r->pk_groups * PS_ROW * 8, r->pk_read, 1,
                       err);
    *pending = 0;
    for (uint32_t g = 0; !rc && g < r->pk_groups; g++)
        *pending |= r->pk_read[(size_t)g * PS_ROW + PS_PENDING] != 0;
    return rc;
}

int flood_packets_run(flood_model *m, flood_replica *r, int chunk, cl_event *evs, int *n_evs,
                      cn_error *err)
{
    device_ctx *d = r->dev;
    const flood_values *sc = flood_values_of(&m->sc);
    if (chunk < 0 || chunk >= m->pk_chunks || m->pk_count[chunk] == 0)
        return cn_fail(err, CN_ERR_RUNTIME, "internal error: no packet chunk %d", chunk);
    /* the node count and the schemes' thresholds by value, not from the parameter block
     * (cl/flood/flood.cl, flood_packets, says why) */
    cl_uint k0 = (cl_uint)m->pk_k0[chunk], count = (cl_uint)m->pk_count[chunk], n = m->n;
    size_t ls = r->ls_packets;
    cl_kernel k = r->k_packets; /* also the scheme kernel, for any group size */
    if (r->pk_one)
        k = r->k_packets_one;
    else if (r->pk_local)
        k = r->k_packets_local;
    /* the scenario's constants come in the parameter block (PARAMS, flood_setup.c) */
    /* traffic flows: the round's packets, once per round on each device that runs a chunk
     * (not blocking: the host table stays as it is until the round has been read back) */
    int rc = 0;
    if (m->flows && r->pk_tab_round != m->pk_rounds) {
        size_t round = (size_t)(m->pk_next - m->pk_round_k0);
        rc = dbuf_write(d, &r->pk_tab, 0, round * 16, m->pk_tab_host, 0, err);
        r->pk_tab_round = m->pk_rounds;
    }
    cl_uint tbase = (cl_uint)(m->pk_k0[chunk] - m->pk_round_k0);
    if (!rc)
        rc = kernel_args(d, k, "flood.packets", err, 14, KARG(k0), KARG(count),
                         KBUF(*csr_offsets(m, r)), KBUF(*csr_neighbours(m, r)), KARG(n),
                         KBUF(r->pk_seen), KBUF(r->pk_front), KBUF(r->pk_rows),
                         KBUF(r->params), KBUF(r->pos), KBUF(*flood_node_drop_buffer(r)),
                         KBUF(r->pk_tab), KBUF(r->pk_rec), KARG(tbase));
    /* the launch sequence of this chunk: the groups' walk records from another are stale */
    if (++r->pk_epoch == 0)
        r->pk_epoch = 1;
    cl_uint epoch = r->pk_epoch, quota = r->pk_quota, unit = r->pk_unit;
    if (!rc && !m->scheme)
        rc = kernel_args_from(d, k, "flood.packets", err, 14, 4, KBUF(r->pk_resume),
                              KARG(epoch), KARG(quota), KARG(unit));
    cl_uint counter_c = (cl_uint)sc->counter_threshold;
    cl_uint assess_a = (cl_uint)sc->assessment_windows;
    cl_ulong near2 = (cl_ulong)sc->distance_threshold_mm * (cl_ulong)sc->distance_threshold_mm;
    if (!rc && m->scheme)
        rc = kernel_args_from(d, k, "flood.packets_scheme", err, 14, 6, KBUF(r->pk_state),
                              KARG(counter_c), KARG(near2), KARG(assess_a),
                              KLOCAL(ls * red_width(m) * 8), KLOCAL(4 * 4));
    else if (!rc && !r->pk_one)
        rc = kernel_args_from(d, k, "flood.packets", err, 18, 4,
                              KLOCAL(ls * red_width(m) * 8), KLOCAL(4), KLOCAL(3 * 8),
                              KLOCAL((size_t)2 * PACKET_LEVEL_CAP * 4));
    if (!rc && r->pk_local)
        rc = kernel_args_from(d, k, "flood.packets_local", err, 22, 1,
                              KLOCAL((size_t)m->words * 4));
    uint64_t groups = r->pk_groups < count ? r->pk_groups : count;
    if (!rc)
        rc = enqueue_1d(d, k, "flood.packets", (size_t)groups * ls, ls, &evs[(*n_evs)++], err);
    /* bounded launches: again until no group is pending (the groups of the chunk must be done
     * before another chunk takes their state); the first launches' times are the set's */
    for (int pending = quota != 0; !rc && pending;) {
        rc = rows_pending(r, &pending, err);
        cl_event *ev = *n_evs < ENGINE_MAX_SET_EVENTS ? &evs[(*n_evs)++] : NULL;
        if (!rc && pending)
            rc = enqueue_1d(d, k, "flood.packets", (size_t)groups * ls, ls, ev, err);
        else if (ev)
            --*n_evs;
    }
    /* with several devices each starts at once, not when the host reads it back */
    if (!rc && m->n_rep > 1)
        rc = cl_check(clFlush(d->queue), "clFlush", d->info.name, err);
    if (!rc) {
        r->pk_ran = 1;
        m->pk_ran_on[chunk] = (int)(r - m->rep);
    }
    return rc;
}

/* Traffic flows: the round's records, from the device that ran each chunk. */
static int read_records(flood_model *m, cn_error *err)
{
    int rc = 0;
    for (int c = 0; c < m->pk_chunks && !rc; c++) {
        if (m->pk_count[c] == 0)
            continue;
        flood_replica *r = &m->rep[m->pk_ran_on[c]];
        size_t base = (size_t)(m->pk_k0[c] - m->pk_round_k0);
        rc = dbuf_read(r->dev, &r->pk_rec, base * PACKET_REC * 8,
                       (size_t)m->pk_count[c] * PACKET_REC * 8,
                       m->pk_rec_host + PACKET_REC * base, 1, err);
    }
    return rc;
}

/* The round's records, read back, into the flows' sums and the packet records
 * (flood_traffic.c). */
static int round_records(flood_model *m, cn_error *err)
{
    int rc = 0;
    int64_t n = m->pk_next - m->pk_round_k0;
    for (int64_t q = 0; q < n && !rc; q++) {
        const uint32_t *e = m->pk_tab_host + 4 * q;
        departure dep = {(int64_t)(((uint64_t)e[1] << 32) | e[0]), m->pk_flow_host[q], e[2],
                         e[3], 0};
        const int64_t *x = m->pk_rec_host + PACKET_REC * q;
        /* the scheme kernel writes the latencies (their sum in 128 bits: low, then high at
         * x[5]); without a scheme they follow from hops */
        wide_int lat = (wide_int)((unsigned __int128)(uint64_t)x[3] |
                                  (unsigned __int128)(uint64_t)x[5] << 64);
        int64_t last_lat = x[4];
        if (!m->scheme)
            flood_lattice_latencies(m, x[0], x[1], x[2], &lat, &last_lat);
        if (flood_whole_packet_done(m, m->pk_round_k0 + q, &dep, x[0], x[1], lat, x[2],
                                    last_lat) != 0)
            rc = cn_fail(err, CN_ERR_RUNTIME, "out of host memory for packet records");
    }
    return rc;
}

int flood_packets_share_records(flood_model *m, const uint64_t *counts, cn_error *err)
{
    size_t unit = PACKET_REC * sizeof *m->pk_rec_host;
    uint64_t n = (uint64_t)(m->pk_next - m->pk_round_k0);
    size_t own = (size_t)(m->pk_share_k0 - m->pk_round_k0);
    int64_t *all = malloc(n ? (size_t)n * unit : 1);
    if (!all)
        return cn_fail(err, CN_ERR_RUNTIME, "out of host memory for a round's packet records");
    int rc = dist_allgatherv(m->pk_rec_host + PACKET_REC * own, counts, unit, all, err);
    if (!rc && n)
        memcpy(m->pk_rec_host, all, (size_t)n * unit);
    free(all);
    return rc ? rc : round_records(m, err);
}

/* A row's 128-bit member: low 64 bits at LO, high at HI. */
static unsigned __int128 row_wide(const int64_t *row, int lo, int hi)
{
    return (unsigned __int128)(uint64_t)row[lo] | (unsigned __int128)(uint64_t)row[hi] << 64;
}

/* The N rows at ROWS added into the row OUT (its counters summed, the hop and latency sums
 * in 128 bits, the latest transmission the greatest). */
static void add_rows(int64_t out[PS_ROW], const int64_t *rows, size_t n)
{
    unsigned __int128 hops = row_wide(out, PS_HOPS, PS_HOPS_HI);
    unsigned __int128 latency = row_wide(out, PS_LATENCY, PS_LATENCY_HI);
    for (size_t at = 0; at < n * PS_ROW; at += PS_ROW) {
        for (int c = PS_TX; c <= PS_DELIVERED; c++)
            out[c] += rows[at + (size_t)c];
        hops += row_wide(rows + at, PS_HOPS, PS_HOPS_HI);
        latency += row_wide(rows + at, PS_LATENCY, PS_LATENCY_HI);
        if (rows[at + PS_END] > out[PS_END])
            out[PS_END] = rows[at + PS_END];
    }
    out[PS_HOPS] = (int64_t)(uint64_t)hops;
    out[PS_HOPS_HI] = (int64_t)(uint64_t)(hops >> 64);
    out[PS_LATENCY] = (int64_t)(uint64_t)latency;
    out[PS_LATENCY_HI] = (int64_t)(uint64_t)(latency >> 64);
}

/* Sums of every replica's rows, as a row: counters in OUT[PS_TX .. PS_LATENCY] (the hop and
 * latency sums in 128 bits with PS_HOPS_HI and PS_LATENCY_HI), the latest transmission in
 * OUT[PS_END] (-1: none). The event counts stay below 2^63 (docs/when-things-go-wrong.md). */
static void sum_rows(const flood_model *m, int64_t out[PS_ROW])
{
    memset(out, 0, PS_ROW * sizeof *out);
    out[PS_END] = -1;
    for (int d = 0; d < m->n_rep; d++)
        add_rows(out, m->rep[d].pk_stats, m->rep[d].pk_groups);
}

int flood_packets_end(flood_model *m, window_outcome *out, cn_error *err)
{
    /* the read-backs wait for the round on every device that ran a chunk of it; the rows
     * give the progress line its events. They are kept only once every one has come back:
     * when a device fails, its chunks run again elsewhere (flood_device_lost) and the rows it
     * had returned for the rounds before are its share of the results. */
    int rc = 0;
    for (int d = 0; d < m->n_rep && !rc; d++) {
        flood_replica *r = &m->rep[d];
        if (r->pk_ran)
            rc = dbuf_read(r->dev, &r->pk_rows, 0, (size_t)r->pk_groups * PS_ROW * 8,
                           r->pk_read, 1, err);
    }
    if (!rc && m->flows)
        rc = read_records(m, err);
    if (rc)
        return rc;
    for (int d = 0; d < m->n_rep; d++)
        if (m->rep[d].pk_ran)
            memcpy(m->rep[d].pk_stats, m->rep[d].pk_read,
                   (size_t)m->rep[d].pk_groups * PS_ROW * sizeof *m->rep[d].pk_read);
    /* (several ranks: the records of the others' shares come in end_ranks) */
    if (m->flows && dist_size() == 1 && (rc = round_records(m, err)) != 0)
        return rc;
    if (dist_size() > 1)
        flood_ranks_measured(m);
    int64_t s[PS_ROW];
    sum_rows(m, s);
    out->drained = 1;
    out->finished = m->pk_next >= m->pk_total;
    out->events = (uint64_t)s[PS_TX] + (uint64_t)s[PS_RX];
    /* what the batches covered: the packets launched, each run to its end */
    out->done = (uint64_t)m->pk_next;
    out->total = (uint64_t)m->pk_total;
    /* the simulated time they reached, for checkpoints in simulated time: the creation time
     * of the last packet launched */
    int64_t last = m->pk_next > 0 ? m->pk_next - 1 : 0;
    out->reached = flood_values_of(&m->sc)->start_ns + last * flood_values_of(&m->sc)->interval_ns;
    if (m->flows) {
        int64_t q = m->pk_next - m->pk_round_k0 - 1;
        const uint32_t *e = m->pk_tab_host + 4 * (q > 0 ? q : 0);
        out->reached = (int64_t)(((uint64_t)e[1] << 32) | e[0]);
    }
    return 0;
}

int64_t flood_packets_last(const flood_model *m)
{
    int64_t s[PS_ROW];
    sum_rows(m, s);
    return s[PS_END];
}

int flood_packets_results(const flood_model *m, run_results *r, cn_error *err)
{
    int64_t s[PS_ROW];
    sum_rows(m, s);
    /* over several ranks these sums are this rank's packets' (partial values, which the
     * ranks' combination adds), and the end is every rank's (flood_end_ranks) */
    int ranks = dist_size() > 1;
    const char *names[] = {"transmissions", "receptions", "first_receptions", "delivered",
                           "hops_sum", "latency_sum_ns"};
    wide_int v[] = {s[PS_TX], s[PS_RX], s[PS_FIRST], s[PS_DELIVERED],
                    (wide_int)row_wide(s, PS_HOPS, PS_HOPS_HI),
                    (wide_int)row_wide(s, PS_LATENCY, PS_LATENCY_HI)};
    int rc = 0;
    for (size_t i = 0; i < sizeof v / sizeof v[0] && !rc; i++)
        rc = ranks ? results_reduce(r, names[i], &v[i], 1, err) : results_set(r, names[i], v[i]);
    int64_t end = ranks ? m->rank_end : s[PS_END];
    r->end_time_ns = end >= 0 ? end : 0;
    r->windows = end >= 0 ? end / m->L + 1 : 0;
    return rc;
}

void flood_interrupted_results(flood_model *m, run_results *r)
{
    /* The window loop: the results are those of the run whose duration ends at the reached
     * time, member for member. Such a run counts every packet of [traffic] as generated,
     * those its duration kept from being created too (docs/model.md, rule 4), so R's
     * generated stays the packet count; with flows it is the packets created
     * (flood_traffic_results), as for the shorter run. */
    if (!m->whole)
        return;
    /* whole packets: every packet launched ran to its end, none after; the run reached the
     * creation time of the first one left */
    results_set(r, "generated", m->pk_next);
    departure dep;
    if (!m->flows)
        r->reached_ns = flood_values_of(&m->sc)->start_ns + m->pk_next * flood_values_of(&m->sc)->interval_ns;
    else if (departures_peek(m->deps, &dep))
        r->reached_ns = dep.t;
}

void flood_packets_free(flood_model *m)
{
    for (int d = 0; d < m->n_rep; d++) {
        flood_replica *r = &m->rep[d];
        dbuf *bufs[] = {&r->pk_front, &r->pk_seen, &r->pk_rows, &r->pk_off, &r->pk_nbr,
                        &r->pk_tab, &r->pk_rec, &r->pk_state, &r->pk_resume};
        for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
            dbuf_release(bufs[i], &m->acc);
        cl_kernel ks[] = {r->k_packets, r->k_packets_local, r->k_packets_one};
        for (size_t i = 0; i < sizeof ks / sizeof ks[0]; i++)
            if (ks[i])
                clReleaseKernel(ks[i]);
        r->k_packets = r->k_packets_local = r->k_packets_one = NULL;
        free(r->pk_stats);
        free(r->pk_read);
        r->pk_stats = r->pk_read = NULL;
    }
    free(m->pk_tab_host);
    free(m->pk_flow_host);
    free(m->pk_rec_host);
    m->pk_tab_host = m->pk_flow_host = NULL;
    m->pk_rec_host = NULL;
}

int flood_device_lost(struct model_state *state, device_ctx *dev, window_plan *plan, cn_error *err)
{
    flood_model *m = flood_of(state);
    int d = flood_replica_index(m, dev);
    if (d < 0)
        return cn_fail(err, CN_ERR_RUNTIME, "internal error: device '%s' holds no flood state",
                       dev->info.name);
    if (!m->whole)
        return cn_fail(err, CN_ERR_RUNTIME, "the window loop keeps each partition's seen bits "
                       "only on the device that holds it, so a run cannot go on without "
                       "device '%s' in place", dev->info.name);
    if (plan->n_sets + m->pk_chunks > ENGINE_MAX_SETS)
        return cn_fail(err, CN_ERR_RUNTIME, "internal error: no room to run chunks again");
    /* Every device holds the whole graph, and its rows are kept only for the rounds that
     * came back whole: its chunks of this round run again on the others, and what it
     * returned before stays its share. */
    flood_replica *r = &m->rep[d];
    r->dead = 1;
    r->pk_ran = 0;
    for (int c = 0; c < m->pk_chunks; c++) {
        if (m->pk_ran_on[c] != d)
            continue;
        m->pk_ran_on[c] = -1;
        event_set *s = &plan->sets[plan->n_sets++];
        s->kind = FLOOD_PACKETS;
        s->partition = c;
        s->multiplicity = (uint64_t)m->pk_count[c] * m->n;
    }
    return 0;
}

/* ---- checkpoints (flood_checkpoint.c) --------------------------------------------------- */


int flood_packets_save(const flood_model *m, ckpt_buf *out, cn_error *err)
{
    int64_t s[PS_ROW];
    sum_rows(m, s);
    if (dist_size() == 1) {
        ckpt_put(out, T_ROWS, s, sizeof s);
        return 0;
    }
    /* several ranks: every rank's sums, added on rank 0, which writes the file */
    void *all = NULL;
    uint64_t got = 0;
    int rc = dist_gatherv(s, PS_ROW, sizeof *s, &all, &got, err);
    if (!rc && dist_rank() == 0) {
        int64_t t[PS_ROW];
        memset(t, 0, sizeof t);
        t[PS_END] = -1;
        add_rows(t, all, (size_t)(got / PS_ROW));
        ckpt_put(out, T_ROWS, t, sizeof t);
    }
    free(all);
    return rc;
}

/* Replica 0's first row holds the sums; every other row stays as set-up made it (zero, no
 * transmission), so that the sums over the rows go on from the checkpoint's. */
int flood_packets_restore(flood_model *m, const ckpt_file *in, cn_error *err)
{
    int64_t s[PS_ROW];
    int rc = ckpt_get(in, T_ROWS, s, sizeof s, err);
    /* several ranks: rank 0 holds the sums, as one process would (every rank adds its own
     * packets' to its rows, and the results add the ranks') */
    if (rc || dist_rank() != 0)
        return rc;
    flood_replica *r = &m->rep[0];
    memcpy(r->pk_stats, s, sizeof s);
    memcpy(r->pk_read, s, sizeof s);
    return dbuf_write(r->dev, &r->pk_rows, 0, sizeof s, s, 1, err);
}
