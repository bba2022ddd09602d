/* The kernel-shape self-test: every kernel a run of a model may launch, at every work-group
 * size a run may choose (each power of two from 1 to the device's limit: the profile's sizes,
 * the tuned ones and --work-group are among them), against the model's sequential reference
 * (model_bench.reference, host/oracle).
 *
 * Why per shape: a device can run a kernel right in one shape and wrong in another. Mesa's
 * llvmpipe ends a work-item's loops after 65535 iterations, which only the flood's whole
 * packets in work-groups of one item reach on big floods: its known-answer test and small
 * scenarios passed while grid_flood lost 90% of its transmissions. So each size runs the small
 * scenarios the model declares (model_bench.shapes: host/models/flood/flood_shapes.c,
 * host/models/phold/phold_shapes.c), which launch every kernel it has. A shape whose contract
 * members differ is marked bad on the device (device_shape_mark_bad), and the places that
 * choose a shape move off it; a device on which some kernel has no good shape left is refused.
 * The verdicts are cached per device and model like the tuning (device_shapes_path), so a
 * device is tested on a model's first use only. */
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"
#include "dist/dist.h"
#include "engine/engine.h"

#define MAX_CASES 32

const model_shapes *shapes_of(const model_ops *model)
{
    return model && (model->features & MODEL_KERNEL_SHAPES) && model->bench
               ? model->bench->shapes
               : NULL;
}

static int listed(const char *const *list, const char *k)
{
    for (int i = 0; list && list[i]; i++)
        if (!strcmp(list[i], k))
            return 1;
    return 0;
}

/* The kernel's family: its key up to the dot ("cells" of "cells.scan_add"). */
int shapes_kernel_of(const model_shapes *ms, const char *k)
{
    const char *dot = strchr(k, '.');
    size_t n = dot ? (size_t)(dot - k) : strlen(k);
    for (int i = 0; ms->families && ms->families[i]; i++)
        if (strlen(ms->families[i]) == n && !strncmp(ms->families[i], k, n))
            return 1;
    return 0;
}

typedef struct shape_state {
    const model_ops *model;
    const model_shapes *ms;
    scenario *sc[MAX_CASES];
    run_results want[MAX_CASES]; /* the reference's results (model_ops.bench->reference) */
    int loaded[MAX_CASES];
} shape_state;

/* Case C's scenario and reference, computed once for every size. */
static int prepare(shape_state *st, int c, char *detail, size_t cap)
{
    if (st->loaded[c])
        return 0;
    const model_shape_case *cs = &st->ms->cases[c];
    cn_error err = {0};
    st->sc[c] = calloc(1, sizeof *st->sc[c]);
    if (!st->sc[c]) {
        snprintf(detail, cap, "out of memory");
        return 1;
    }
    if (config_load_string("shapes.ini", cs->ini, NULL, 0, st->sc[c], &err) != 0) {
        snprintf(detail, cap, "internal error in case '%s': %.1800s", cs->name, err.msg);
        return 1;
    }
    /* the same scenario as an earlier case: the same reference */
    for (int e = 0; e < c; e++)
        if (st->loaded[e] && !strcmp(st->ms->cases[e].ini, cs->ini)) {
            st->want[c] = st->want[e];
            st->loaded[c] = 1;
            return 0;
        }
    const model_ops *ops = model_find(st->sc[c]->model);
    char why[512] = "";
    if (ops != st->model) {
        snprintf(detail, cap, "internal error: case '%s' of the %s model is a %s scenario",
                 cs->name, st->model->name, st->sc[c]->model);
        return 1;
    }
    if (!ops->bench->reference ||
        ops->bench->reference(st->sc[c], &st->want[c], why, sizeof why) != 0) {
        snprintf(detail, cap, "internal error: the reference model refused case '%s'",
                 cs->name);
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
    /* kernels ruled out at this size for the run (the flood's seen bits in global memory) */
    int saved_bad = dev->n_bad;
    for (const char *const *k = st->ms->cases[c].ruled_out; k && *k; k++)
        device_shape_mark_bad(dev, *k, size);
    size_t saved_override = dev->local_size_override;
    dev->local_size_override = size;
    dev->n_noted = 0;
    engine_options eo = {0};
    device_ctx *ptr = dev;
    cn_error err = {0};
    /* this device's own run: over several ranks, the others take no part (dist.h) */
    dist_alone_begin();
    int rc = engine_run(st->sc[c], &ptr, 1, &eo, res, &err);
    dist_alone_end();
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

/* Every size a run of MODEL may choose on DEV: --work-group when given, else each of its
 * kernels' sizes from the profile (its entries and default) and the tuning, and the smaller
 * groups a small scenario cuts some kernels' to (model_shapes.cut). A shape found bad adds
 * every other power of two (SWEEP), as the run then moves to one of them. */
int shapes_sizes(const device_ctx *dev, const model_ops *model, int sweep, size_t *sizes,
                 int cap)
{
    int n = 0;
    size_t limit = dev->info.max_work_group ? dev->info.max_work_group : 1;
    const model_shapes *ms = shapes_of(model);
    if (sweep) {
        for (size_t s = 1; s <= limit && s <= 4096; s *= 2)
            add_size(sizes, &n, cap, s);
        return n;
    }
    if (dev->local_size_override) { /* every kernel's size */
        add_size(sizes, &n, cap, device_local_size_natural(dev, "(default)"));
        return n;
    }
    const platform_profile *p = &dev->profile;
    for (int i = 0; ms && i < p->n_kernels; i++)
        if (shapes_kernel_of(ms, p->work_group[i].kernel))
            add_size(sizes, &n, cap, device_local_size_natural(dev, p->work_group[i].kernel));
    for (int i = 0; ms && i < dev->n_tuned; i++)
        if (shapes_kernel_of(ms, dev->tuned[i].kernel))
            add_size(sizes, &n, cap, device_local_size_natural(dev, dev->tuned[i].kernel));
    /* a kernel with neither: the profile's default */
    add_size(sizes, &n, cap, device_local_size_natural(dev, "(default)"));
    for (int k = 0; ms && ms->cut && ms->cut[k]; k++) {
        size_t top = device_local_size_natural(dev, ms->cut[k]);
        add_size(sizes, &n, cap, top);
        for (size_t s = ms->cut_from ? ms->cut_from : 1; s < top; s *= 2)
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

/* The untested sizes a run would move to from the bad shapes found since FROM
 * (device_shape_avoid, and for a variant another variant at the same size first: the run
 * sizes them by the first, model_shapes.variants). */
static int moved_sizes(const device_ctx *dev, const model_shapes *ms, int from,
                       const size_t *sizes, int n, size_t *out, int cap)
{
    size_t limit = dev->info.max_work_group ? dev->info.max_work_group : 1;
    int n_out = 0;
    const char *lead = ms->variants ? ms->variants[0] : NULL;
    for (int i = from; i < dev->n_bad; i++) {
        const device_shape *b = &dev->bad[i];
        int variant = lead && strcmp(b->kernel, lead) && listed(ms->variants, b->kernel);
        if (variant && !device_shape_bad(dev, lead, b->size))
            continue;
        size_t to = device_shape_avoid(dev, variant ? lead : b->kernel, b->size, limit);
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

/* One size: every case, then the blame. A case that names its kernels blames those it
 * launched; another every shape it launched that no passing case of this size launched too
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
    const model_shapes *ms = st->ms;
    shape_list good = {0}, failed[MAX_CASES] = {{0}};
    int any = 0, rc = 0;
    for (int c = 0; c < ms->n_cases && rc == 0; c++) {
        const model_shape_case *cs = &ms->cases[c];
        if (cs->size_one && size != 1)
            continue;
        char why[512];
        if (log)
            fprintf(log, "device %d: work-groups of %zu: %s...\n", dev->info.index, size,
                    cs->name);
        int r = run_case(dev, st, c, size, why, sizeof why, rep->detail, sizeof rep->detail);
        if (r < 0) {
            rc = -1;
            break;
        }
        rep->runs++;
        for (int i = 0; i < dev->n_noted && rc == 0; i++) {
            const device_shape *s = &dev->noted[i];
            int subject = !cs->kernels || listed(cs->kernels, s->kernel);
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
                         "work-groups of %zu, %s: %.300s", size, cs->name, why);
        }
    }
    for (int c = 0; rc == 0 && any && c < ms->n_cases; c++) {
        int blamed = 0;
        for (int pass = 0; pass < 2 && !blamed; pass++)
            for (int i = 0; i < failed[c].n; i++)
                if (pass == 1 || ms->cases[c].kernels ||
                    !noted_in(good.items, good.n, &failed[c].items[i])) {
                    device_shape_mark_bad(dev, failed[c].items[i].kernel, failed[c].items[i].size);
                    blamed = 1;
                }
    }
    free(good.items);
    for (int c = 0; c < ms->n_cases; c++)
        free(failed[c].items);
    return rc;
}

/* A kernel (a model's variants count as one) that ran in some shape and has no good one
 * left: the device cannot run it, and is refused. */
static const char *kernel_without_shape(const device_ctx *dev, const model_shapes *ms,
                                        const device_shape *seen, int n)
{
    for (int i = 0; i < n; i++) {
        const char *k = seen[i].kernel;
        int variant = listed(ms->variants, k);
        int good = 0;
        for (int j = 0; j < n && !good; j++) {
            const char *o = seen[j].kernel;
            int same = variant ? listed(ms->variants, o) : !strcmp(o, k);
            good = same && !device_shape_bad(dev, o, seen[j].size);
        }
        if (!good)
            return variant && ms->variants_name ? ms->variants_name : k;
    }
    return NULL;
}

int shapes_test(device_ctx *dev, const model_ops *model, shapes_report *rep, FILE *log)
{
    memset(rep, 0, sizeof *rep);
    const model_shapes *ms = shapes_of(model);
    if (!ms || ms->n_cases < 1 || ms->n_cases > MAX_CASES) {
        snprintf(rep->detail, sizeof rep->detail, "internal error: the %s model declares %s",
                 model ? model->name : "(none)",
                 ms ? "too many kernel-shape cases" : "no kernel-shape cases");
        return -1;
    }
    shape_state *st = calloc(1, sizeof *st);
    shape_list seen = {0}; /* every shape the test launched */
    if (!st) {
        snprintf(rep->detail, sizeof rep->detail, "out of memory");
        return -1;
    }
    st->model = model;
    st->ms = ms;
    /* verdicts from here on are this model's (another model's stay: its kernels differ) */
    int from = rep->first_bad = dev->n_bad;
    double t0 = wall_seconds();
    size_t sizes[16];
    int n_sizes = shapes_sizes(dev, model, 0, sizes, 16);
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
        int n_next = moved_sizes(dev, ms, from, sizes, n_sizes, next, 16);
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
        const char *k = kernel_without_shape(dev, ms, seen.items, seen.n);
        if (k)
            snprintf(rep->refused, sizeof rep->refused, "%s", k);
        rep->wall_s = wall_seconds() - t0;
    }
    for (int c = 0; c < ms->n_cases; c++)
        free(st->sc[c]);
    free(st);
    free(seen.items);
    dev->n_noted = 0;
    return rc;
}

void shapes_warn(const device_ctx *dev, int from, FILE *out)
{
    if (!out)
        return;
    for (int i = from < 0 ? 0 : from; i < dev->n_bad; i++) {
        int first = 1;
        for (int j = from; j < i && first; j++)
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

int shapes_ensure(device_ctx *dev, const model_ops *model, FILE *log, FILE *warn,
                  cn_error *err)
{
    if (!shapes_of(model))
        return 0;
    char refused[192], key[256];
    size_t sizes[16];
    int from = dev->n_bad;
    /* the cache is keyed by the model and the sizes a run may choose (another --work-group
     * tests again) */
    sizes_text(sizes, shapes_sizes(dev, model, 0, sizes, 16), key, sizeof key);
    if (device_shapes_load(dev, model->name, key, refused, sizeof refused) != 0) {
        shapes_report *rep = malloc(sizeof *rep);
        if (!rep)
            return cn_fail(err, CN_ERR_RUNTIME, "out of memory");
        if (log)
            fprintf(log, "clnetsim: %sself-testing every kernel shape of the %s model on "
                    "device %d (%s), once: work-groups of %s\n", dist_who(), model->name,
                    dev->info.index, dev->info.name, key);
        if (shapes_test(dev, model, rep, NULL) != 0) {
            int rc = cn_fail(err, CN_ERR_RUNTIME, "%s", rep->detail);
            free(rep);
            return rc;
        }
        snprintf(refused, sizeof refused, "%s", rep->refused);
        free(rep);
        device_shapes_store(dev, model->name, from, key, refused);
    }
    shapes_warn(dev, from, warn);
    if (refused[0])
        return device_fail(err, dev->info.name, CN_ERR_RUNTIME,
                           "device '%s' failed the self-test in every work-group size of %s "
                           "(its results differ from the sequential reference's); this device "
                           "is refused", dev->info.name, refused);
    return 0;
}
