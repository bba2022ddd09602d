/* The kernel-shape self-test: every kernel a run may launch, at every work-group size a run may
 * choose (each power of two from 1 to the device's limit: the profile's sizes, the tuned ones
 * and --work-group are among them), against the sequential reference (host/oracle).
 *
 * Why per shape: a device can run a kernel right in one shape and wrong in another. Mesa's
 * llvmpipe ends a work-item's loops after 65535 iterations, which only whole packets in
 * work-groups of one item reach on big floods: its known-answer test and small scenarios
 * passed while grid_flood lost 90% of its transmissions. So each size runs small scenarios
 * that launch every kernel (whole packets with seen bits in local and in global memory, the
 * forwarding-scheme kernel, and the window loop: static and mobile, several partitions, CSR
 * lists, scans, spills, migration, caps, schemes and node resources), and work-groups of one
 * also flood a grid of 25 600 nodes (one work-item then turns its loops well over 2^16 times).
 * A shape whose counters differ is marked bad on the device
 * (device_shape_mark_bad), and the places that choose a shape move off it; a device on which
 * some kernel has no good shape left is refused. The verdicts are cached per device like the
 * tuning (device_shapes_path), so a device is tested on its first use only. */
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"
#include "engine/engine.h"

enum { WINDOW_LOOP, WHOLE_PACKETS, GLOBAL_BITS };


typedef struct shape_case {
    const char *name;
    int subject;    /* WINDOW_LOOP: every kernel it launches; else the whole-packet kernel */
    int size_one;   /* only in work-groups of one item */
    const char *ini;
} shape_case;

/* One packet over a grid of 160 x 160: a work-group of one item turns its frontier loop once
 * per node (25 600 times) and its neighbour loop four times as often, some 2^17 loop
 * iterations in one work-item, twice what Mesa's llvmpipe allows (the loop probe finds such a
 * limit and the run bounds its launches, docs/architecture.md; this case is the net for a
 * device that fails long loops otherwise). A line of more than 2^16 hops would also reach a
 * limit per loop, but the reference's cost grows with nodes times windows: seconds, not
 * milliseconds. */
#define BIG_INI                                                                             \
    "[simulation]\nseed = 3\n[topology]\nplacement = grid\nrows = 160\ncols = 160\n"         \
    "spacing = 10\n[connectivity]\nrange = 10\n[traffic]\npackets = 1\ninterval = 1\n"     \
    "[flood]\nrelay_delay = 1\ndrop_probability = 0\n"

#define GRID_INI                                                                            \
    "[simulation]\nseed = 21\n[topology]\nplacement = grid\nrows = 14\ncols = 13\n"          \
    "spacing = 100\n[connectivity]\nrange = 150\n[traffic]\npackets = 6\ninterval = 0.5\n"  \
    "[flood]\nrelay_delay = 1\ndrop_probability = 0.15\n"

static const shape_case cases[] = {
    {"whole packets", WHOLE_PACKETS, 0, GRID_INI},
    {"whole packets, seen bits in global memory", GLOBAL_BITS, 0, GRID_INI},
    {"whole packets, counter scheme", WHOLE_PACKETS, 0,
     GRID_INI "scheme = counter\ncounter_threshold = 4\nassessment_delay = 2\n"},
    {"25 600 nodes, one packet, whole packets", WHOLE_PACKETS, 1, BIG_INI},
    {"25 600 nodes, one packet, seen bits in global memory", GLOBAL_BITS, 1, BIG_INI},
    {"25 600 nodes, one packet, counter scheme", WHOLE_PACKETS, 1,
     BIG_INI "scheme = counter\ncounter_threshold = 3\n"},
    {"window loop, static grid in 3 partitions", WINDOW_LOOP, 0,
     "[simulation]\nseed = 22\n[topology]\nplacement = grid\nrows = 16\ncols = 15\n"
     "spacing = 100\n[connectivity]\nrange = 100\n[traffic]\npackets = 6\ninterval = 1\n"
     "[flood]\nrelay_delay = 1\ndrop_probability = 0.1\n[partition]\ncount = 3\n"},
    {"window loop, random waypoint in 3 partitions, re-tiled", WINDOW_LOOP, 0,
     "[simulation]\nseed = 23\n[topology]\nplacement = uniform\nnodes = 300\nwidth = 700\n"
     "height = 700\ndepth = 0\n[connectivity]\nrange = 100\n[mobility]\nmodel = rwp\n"
     "speed_min = 20\nspeed_max = 60\npause_max = 1\n[traffic]\npackets = 6\ninterval = 1\n"
     "[flood]\nrelay_delay = 0.5\ndrop_probability = 0.1\n[partition]\ncount = 3\n"
     "retile = 2\n"},
    {"window loop, counter scheme, qudg under a cap, receive capacity", WINDOW_LOOP, 0,
     "[simulation]\nseed = 24\n[topology]\nplacement = uniform\nnodes = 300\nwidth = 500\n"
     "height = 500\ndepth = 0\n[connectivity]\nmodel = qudg\nrange = 100\nrange_min = 60\n"
     "link_probability = 0.7\nmax_neighbors = 7\n[traffic]\npackets = 6\ninterval = 0.3\n"
     "[flood]\nrelay_delay = 0.1\ndrop_probability = 0.05\nscheme = counter\n"
     "counter_threshold = 3\nassessment_delay = 0.2\n[resources]\nrx_capacity = 5\n"},
};
#define N_CASES ((int)(sizeof cases / sizeof cases[0]))

/* The whole-packet kernels, which whole-packet cases blame alone. */
static int packet_kernel(const char *k)
{
    return !strcmp(k, "flood.packets") || !strcmp(k, "flood.packets_one") ||
           !strcmp(k, "flood.packets_local") || !strcmp(k, "flood.packets_scheme");
}

typedef struct shape_state {
    scenario *sc[N_CASES];
    run_results want[N_CASES]; /* the reference's results (model_ops.bench->reference) */
    int loaded[N_CASES];
} shape_state;

/* Case C's scenario and reference, computed once for every size. */
static int prepare(shape_state *st, int c, char *detail, size_t cap)
{
    if (st->loaded[c])
        return 0;
    cn_error err = {0};
    st->sc[c] = calloc(1, sizeof *st->sc[c]);
    if (!st->sc[c]) {
        snprintf(detail, cap, "out of memory");
        return 1;
    }
    if (config_load_string("shapes.ini", cases[c].ini, NULL, 0, st->sc[c], &err) != 0) {
        snprintf(detail, cap, "internal error in case '%s': %.1800s", cases[c].name, err.msg);
        return 1;
    }
    /* the same scenario as an earlier case: the same reference */
    for (int e = 0; e < c; e++)
        if (st->loaded[e] && cases[e].ini == cases[c].ini) {
            st->want[c] = st->want[e];
            st->loaded[c] = 1;
            return 0;
        }
    const model_ops *ops = model_find(st->sc[c]->model);
    char why[512] = "";
    if (!ops || !ops->bench || !ops->bench->reference ||
        ops->bench->reference(st->sc[c], &st->want[c], why, sizeof why) != 0) {
        snprintf(detail, cap, "internal error: the reference model refused case '%s'",
                 cases[c].name);
        return 1;
    }
    st->loaded[c] = 1;
    return 0;
}

/* Runs case C on DEV in groups of SIZE: 0 equal, 1 different (why in WHY), 2 when the run
 * failed (WHY says why), -1 on an internal error (DETAIL says why). The shapes it launched
 * are left in DEV->noted. */
static int run_case(device_ctx *dev, shape_state *st, int c, size_t size, char *why,
                    size_t why_cap, char *detail, size_t cap)
{
    if (prepare(st, c, detail, cap))
        return -1;
    run_results *res = calloc(1, sizeof *res);
    if (!res) {
        snprintf(detail, cap, "out of memory");
        return -1;
    }
    /* seen bits in global memory: the other kernels at this size are ruled out for the run */
    int saved_bad = dev->n_bad;
    if (cases[c].subject == GLOBAL_BITS) {
        device_shape_mark_bad(dev, "flood.packets_one", size);
        device_shape_mark_bad(dev, "flood.packets_local", size);
    }
    size_t saved_override = dev->local_size_override;
    dev->local_size_override = size;
    dev->n_noted = 0;
    engine_options eo = {0};
    device_ctx *ptr = dev;
    cn_error err = {0};
    int rc = engine_run(st->sc[c], &ptr, 1, &eo, res, &err);
    dev->local_size_override = saved_override;
    dev->n_bad = saved_bad;
    int out = 0;
    if (rc) {
        /* not a wrong result: a run that cannot start or finish (too little memory, a launch
         * the device refuses) fails the same way in a real run, with its own message */
        snprintf(why, why_cap, "could not run: %.400s", err.msg);
        out = 2;
    } else if (selftest_reference_differs(res, &st->want[c], why, why_cap)) {
        out = 1;
    }
    results_free_records(res);
    free(res);
    return out;
}

static int noted_in(const device_shape *list, int n, const device_shape *s)
{
    for (int i = 0; i < n; i++)
        if (list[i].size == s->size && !strcmp(list[i].kernel, s->kernel))
            return 1;
    return 0;
}

static void add_size(size_t *sizes, int *n, int cap, size_t s)
{
    for (int i = 0; i < *n; i++)
        if (sizes[i] == s)
            return;
    if (*n < cap)
        sizes[(*n)++] = s;
}

static int by_size(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return (x > y) - (x < y);
}

/* Every size a run may choose on DEV: --work-group when given, else each kernel's size from
 * the profile (its entries and default) and the tuning, and for whole packets the smaller
 * groups a small scenario cuts theirs to (powers of two from 32: flood_packets.c). A shape
 * found bad adds every other power of two (SWEEP), as the run then moves to one of them. */
int shapes_sizes(const device_ctx *dev, int sweep, size_t *sizes, int cap)
{
    int n = 0;
    size_t limit = dev->info.max_work_group ? dev->info.max_work_group : 1;
    if (sweep) {
        for (size_t s = 1; s <= limit && s <= 4096; s *= 2)
            add_size(sizes, &n, cap, s);
        return n;
    }
    if (dev->local_size_override) {
        add_size(sizes, &n, cap, device_local_size_natural(dev, "flood.packets"));
        return n;
    }
    const platform_profile *p = &dev->profile;
    for (int i = 0; i < p->n_kernels; i++)
        add_size(sizes, &n, cap, device_local_size_natural(dev, p->work_group[i].kernel));
    for (int i = 0; i < dev->n_tuned; i++)
        add_size(sizes, &n, cap, device_local_size_natural(dev, dev->tuned[i].kernel));
    /* a kernel with neither: the profile's default */
    add_size(sizes, &n, cap, device_local_size_natural(dev, "(default)"));
    const char *packets[] = {"flood.packets", "flood.packets_scheme"};
    for (int k = 0; k < 2; k++) {
        size_t top = device_local_size_natural(dev, packets[k]);
        add_size(sizes, &n, cap, top);
        for (size_t s = 32; s < top; s *= 2)
            add_size(sizes, &n, cap, s);
    }
    qsort(sizes, (size_t)n, sizeof *sizes, by_size);
    return n;
}

static int tested(const size_t *sizes, int n, size_t s)
{
    for (int i = 0; i < n; i++)
        if (sizes[i] == s)
            return 1;
    return 0;
}

/* The untested sizes a run would move to from the bad shapes (device_shape_avoid, and for
 * blind whole packets the other kernel at the same size first: flood_packets.c). */
static int moved_sizes(const device_ctx *dev, const size_t *sizes, int n, size_t *out, int cap)
{
    size_t limit = dev->info.max_work_group ? dev->info.max_work_group : 1;
    int n_out = 0;
    for (int i = 0; i < dev->n_bad; i++) {
        const device_shape *b = &dev->bad[i];
        int blind = !strcmp(b->kernel, "flood.packets_one") ||
                    !strcmp(b->kernel, "flood.packets_local");
        if (blind && !device_shape_bad(dev, "flood.packets", b->size))
            continue;
        size_t to = device_shape_avoid(dev, blind ? "flood.packets" : b->kernel, b->size, limit);
        if (to != b->size && !tested(sizes, n, to) && !tested(out, n_out, to) && n_out < cap)
            out[n_out++] = to;
    }
    return n_out;
}

static void sizes_text(const size_t *sizes, int n, char *buf, size_t cap)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < n && used < cap; i++) {
        int w = snprintf(buf + used, cap - used, "%s%zu", i ? " " : "", sizes[i]);
        used = w > 0 ? used + (size_t)w : cap;
    }
}

/* One size: every case, then the blame. A whole-packet case blames its whole-packet kernel;
 * a window-loop case every shape it launched that no passing case of this size launched too
 * (all of them when each did). SEEN gathers every shape launched. */
typedef struct shape_list {
    device_shape *items;
    int n, cap;
} shape_list;

static int list_add(shape_list *l, const device_shape *s)
{
    return device_shape_put(&l->items, &l->n, &l->cap, s->kernel, s->size, 0);
}

static int test_size(device_ctx *dev, shape_state *st, size_t size, shapes_report *rep,
                     shape_list *seen, FILE *log)
{
    /* lists as long as the shapes launched: kernels times sizes, whatever the programs hold */
    shape_list good = {0}, failed[N_CASES] = {{0}};
    int any = 0, rc = 0;
    for (int c = 0; c < N_CASES && rc == 0; c++) {
        if (cases[c].size_one && size != 1)
            continue;
        char why[512];
        if (log)
            fprintf(log, "device %d: work-groups of %zu: %s...\n", dev->info.index, size,
                    cases[c].name);
        int r = run_case(dev, st, c, size, why, sizeof why, rep->detail, sizeof rep->detail);
        if (r < 0) {
            rc = -1;
            break;
        }
        rep->runs++;
        for (int i = 0; i < dev->n_noted && rc == 0; i++) {
            const device_shape *s = &dev->noted[i];
            int subject = cases[c].subject == WINDOW_LOOP || packet_kernel(s->kernel);
            rc = list_add(seen, s);
            if (rc == 0 && r == 0)
                rc = list_add(&good, s);
            else if (rc == 0 && r == 1 && subject)
                rc = list_add(&failed[c], s);
        }
        if (rc) {
            snprintf(rep->detail, sizeof rep->detail, "out of memory");
            break;
        }
        if (r) {
            any |= r == 1;
            if (rep->n_failures < SHAPES_MAX_FAILURES)
                snprintf(rep->failures[rep->n_failures++], sizeof rep->failures[0],
                         "work-groups of %zu, %s: %.300s", size, cases[c].name, why);
        }
    }
    for (int c = 0; rc == 0 && any && c < N_CASES; c++) {
        int blamed = 0;
        for (int pass = 0; pass < 2 && !blamed; pass++)
            for (int i = 0; i < failed[c].n; i++)
                if (pass == 1 || cases[c].subject != WINDOW_LOOP ||
                    !noted_in(good.items, good.n, &failed[c].items[i])) {
                    device_shape_mark_bad(dev, failed[c].items[i].kernel, failed[c].items[i].size);
                    blamed = 1;
                }
    }
    free(good.items);
    for (int c = 0; c < N_CASES; c++)
        free(failed[c].items);
    return rc;
}

/* A kernel (the three blind whole-packet kernels count as one) that ran in some shape and has
 * no good one left: the device cannot run it, and is refused. */
static const char *kernel_without_shape(const device_ctx *dev, const device_shape *seen, int n)
{
    for (int i = 0; i < n; i++) {
        const char *k = seen[i].kernel;
        int blind = !strcmp(k, "flood.packets") || !strcmp(k, "flood.packets_one") ||
                    !strcmp(k, "flood.packets_local");
        int good = 0;
        for (int j = 0; j < n && !good; j++) {
            const char *o = seen[j].kernel;
            int same = blind ? !strcmp(o, "flood.packets") || !strcmp(o, "flood.packets_one") ||
                                   !strcmp(o, "flood.packets_local")
                             : !strcmp(o, k);
            good = same && !device_shape_bad(dev, o, seen[j].size);
        }
        if (!good)
            return blind ? "whole packets (flood_packets, flood_packets_one, "
                           "flood_packets_local)"
                         : k;
    }
    return NULL;
}

int shapes_test(device_ctx *dev, shapes_report *rep, FILE *log)
{
    memset(rep, 0, sizeof *rep);
    shape_state *st = calloc(1, sizeof *st);
    shape_list seen = {0}; /* every shape the test launched */
    if (!st) {
        snprintf(rep->detail, sizeof rep->detail, "out of memory");
        return -1;
    }
    dev->n_bad = 0;
    double t0 = wall_seconds();
    size_t sizes[16];
    int n_sizes = shapes_sizes(dev, 0, sizes, 16);
    int rc = 0;
    /* the fault hooks of CLNETSIM_TEST_FAIL count the run's own calls, not the test's */
    device_fault saved_fault = dev->fault;
    dev->fault.armed = 0;
    for (int z = 0; rc == 0 && z < n_sizes; z++)
        rc = test_size(dev, st, sizes[z], rep, &seen, log);
    /* a bad shape: the run moves to another size, which is tested too, until every size a
     * run may move to has been */
    for (int more = 1; rc == 0 && more;) {
        more = 0;
        size_t next[16];
        int n_next = moved_sizes(dev, sizes, n_sizes, next, 16);
        for (int z = 0; rc == 0 && z < n_next && n_sizes < 16; z++) {
            rc = test_size(dev, st, next[z], rep, &seen, log);
            sizes[n_sizes++] = next[z];
            more = 1;
        }
    }
    qsort(sizes, (size_t)n_sizes, sizeof *sizes, by_size);
    dev->fault = saved_fault;
    rep->n_sizes = n_sizes;
    sizes_text(sizes, n_sizes, rep->sizes, sizeof rep->sizes);
    if (rc == 0) {
        const char *k = kernel_without_shape(dev, seen.items, seen.n);
        if (k)
            snprintf(rep->refused, sizeof rep->refused, "%s", k);
        rep->wall_s = wall_seconds() - t0;
    }
    for (int c = 0; c < N_CASES; c++)
        free(st->sc[c]);
    free(st);
    free(seen.items);
    dev->n_noted = 0;
    return rc;
}

void shapes_warn(const device_ctx *dev, FILE *out)
{
    if (!out)
        return;
    for (int i = 0; i < dev->n_bad; i++) {
        int first = 1;
        for (int j = 0; j < i && first; j++)
            first = strcmp(dev->bad[j].kernel, dev->bad[i].kernel) != 0;
        if (!first)
            continue;
        char sizes[256] = "";
        size_t used = 0;
        for (int j = i; j < dev->n_bad && used < sizeof sizes; j++)
            if (!strcmp(dev->bad[j].kernel, dev->bad[i].kernel)) {
                int w = snprintf(sizes + used, sizeof sizes - used, "%s%zu", used ? ", " : "",
                                 dev->bad[j].size);
                used = w > 0 ? used + (size_t)w : sizeof sizes;
            }
        fprintf(out, "clnetsim: warning: device %d '%s' failed the self-test in shape %s at "
                "work-groups of %s: not used on this device\n", dev->ordinal, dev->info.name,
                dev->bad[i].kernel, sizes);
    }
}

int shapes_ensure(device_ctx *dev, FILE *log, FILE *warn, cn_error *err)
{
    char refused[192], key[256];
    size_t sizes[16];
    /* the cache is keyed by the sizes a run may choose (another --work-group tests again) */
    sizes_text(sizes, shapes_sizes(dev, 0, sizes, 16), key, sizeof key);
    if (device_shapes_load(dev, key, refused, sizeof refused) != 0) {
        shapes_report *rep = malloc(sizeof *rep);
        if (!rep)
            return cn_fail(err, CN_ERR_RUNTIME, "out of memory");
        if (log)
            fprintf(log, "clnetsim: self-testing every kernel shape on device %d (%s), once: "
                    "work-groups of %s\n", dev->ordinal, dev->info.name, key);
        if (shapes_test(dev, rep, NULL) != 0) {
            int rc = cn_fail(err, CN_ERR_RUNTIME, "%s", rep->detail);
            free(rep);
            return rc;
        }
        snprintf(refused, sizeof refused, "%s", rep->refused);
        free(rep);
        device_shapes_store(dev, key, refused);
    }
    shapes_warn(dev, warn);
    if (refused[0])
        return device_fail(err, dev->info.name, CN_ERR_RUNTIME,
                           "device '%s' failed the self-test in every work-group size of %s "
                           "(its results differ from the sequential reference's); this device "
                           "is refused", dev->info.name, refused);
    return 0;
}
