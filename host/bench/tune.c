/* The work-group search of `clnetsim tune` and of a device's first use (bench.h). */
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"
#include "dist/dist.h"
#include "engine/engine.h"

/* A kernel's time; a kernel sized as one with others (model_shapes.tune_joined: the
 * flood's scan_add runs with scan_blocks' size) counts their time too. */
static double kernel_seconds(device_ctx *dev, const model_shapes *ms, const char *kernel)
{
    double s = device_kernel_timer_seconds(dev, kernel);
    for (int j = 0; j < ms->n_joined; j++) {
        if (strcmp(kernel, ms->tune_joined[j][0]))
            continue;
        double add = device_kernel_timer_seconds(dev, ms->tune_joined[j][1]);
        if (s >= 0 && add > 0)
            s += add;
    }
    return s;
}

static tune_row *row_of(tune_report *rep, const char *kernel)
{
    for (int i = 0; i < rep->n_rows; i++)
        if (!strcmp(rep->rows[i].kernel, kernel))
            return &rep->rows[i];
    if (rep->n_rows == rep->cap_rows) {
        int cap = rep->cap_rows ? 2 * rep->cap_rows : 32;
        tune_row *grown = realloc(rep->rows, (size_t)cap * sizeof *grown);
        if (!grown)
            return NULL;
        rep->rows = grown;
        rep->cap_rows = cap;
    }
    tune_row *r = &rep->rows[rep->n_rows++];
    memset(r, 0, sizeof *r);
    snprintf(r->kernel, sizeof r->kernel, "%s", kernel);
    for (int k = 0; k < TUNE_MAX_SIZES; k++)
        r->seconds[k] = -1;
    return r;
}

static int run_scenarios(device_ctx *dev, scenario *scs, int n, cn_error *err)
{
    run_results *res = calloc(1, sizeof *res);
    if (!res)
        return cn_fail(err, CN_ERR_RUNTIME, "out of memory");
    engine_options eo = {0};
    device_ctx *ptr = dev;
    int rc = 0;
    /* this device's own runs: over several ranks, the others take no part (dist.h) */
    dist_alone_begin();
    for (int s = 0; rc == 0 && s < n; s++)
        rc = engine_run(&scs[s], &ptr, 1, &eo, res, err);
    dist_alone_end();
    free(res);
    return rc;
}

/* Whether a kernel launched by the warm-up lacks a profile entry: only then does a first use
 * need the search. */
static int profile_incomplete(device_ctx *dev, const model_shapes *ms)
{
    for (int i = 0; i < dev->n_local_used; i++)
        if (!platform_profile_entry(&dev->profile, dev->local_used[i].kernel) &&
            kernel_seconds(dev, ms, dev->local_used[i].kernel) >= 0)
            return 1;
    return 0;
}

static int measure(device_ctx *dev, const model_shapes *ms, int repeat, int only_missing,
                   scenario *scs, tune_report *rep, FILE *log, cn_error *err)
{
    size_t limit = dev->info.max_work_group ? dev->info.max_work_group : 1024;
    /* 1, then 8 .. 1024: a group of one item is a shape of its own for some kernels
     * (flood_packets then floods a packet with no barriers and no atomics, the CPU shape) */
    rep->n_sizes = 0;
    rep->sizes[rep->n_sizes++] = 1;
    for (size_t s = 8; s <= 1024 && s <= limit && rep->n_sizes < TUNE_MAX_SIZES; s *= 2)
        rep->sizes[rep->n_sizes++] = s;
    dev->n_local_used = 0;
    /* warm-up: kernel builds, first-touch memory */
    int rc = run_scenarios(dev, scs, ms->n_tune, err);
    if (rc == 0 && only_missing) {
        if (!profile_incomplete(dev, ms)) {
            rep->n_sizes = 0; /* the profile has a size for every kernel: nothing to measure */
            return 0;
        }
        if (log)
            fprintf(log, "clnetsim: %smeasuring work-group sizes on device %d (%s), once: the "
                    "%s model's kernels without an entry in platform profile '%s'\n",
                    dist_who(), dev->info.index, dev->info.name, rep->model, dev->profile.name);
    }
    for (int z = 0; rc == 0 && z < rep->n_sizes; z++) {
        dev->local_size_override = rep->sizes[z];
        if (log && !only_missing)
            fprintf(log, "  work-groups of %zu...\n", rep->sizes[z]);
        for (int r = 0; rc == 0 && r < repeat; r++) {
            dev->n_local_used = 0;
            device_kernel_timer_reset(dev);
            rc = run_scenarios(dev, scs, ms->n_tune, err);
            for (int i = 0; rc == 0 && i < dev->n_local_used; i++) {
                /* a size above the kernel's limit ran at a smaller one: measured there */
                if (dev->local_used[i].size != rep->sizes[z])
                    continue;
                tune_row *row = row_of(rep, dev->local_used[i].kernel);
                if (!row)
                    continue;
                double t = kernel_seconds(dev, ms, row->kernel);
                if (t < 0)
                    continue; /* not launched by these scenarios: not measured */
                if (row->seconds[z] < 0 || t < row->seconds[z])
                    row->seconds[z] = t;
            }
        }
    }
    dev->local_size_override = 0;
    return rc;
}

/* Whether NAME is among the space-separated names of LIST. */
static int named(const char *list, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = list; *p;) {
        size_t w = strcspn(p, " ");
        if (w == n && !strncmp(p, name, n))
            return 1;
        p += w;
        p += strspn(p, " ");
    }
    return 0;
}

/* The measured sizes replace the model's earlier ones; another model's stay. */
static void forget_model(device_ctx *dev, const model_shapes *ms)
{
    int kept = 0;
    for (int i = 0; i < dev->n_tuned; i++)
        if (!shapes_kernel_of(ms, dev->tuned[i].kernel))
            dev->tuned[kept++] = dev->tuned[i];
    dev->n_tuned = kept;
}

int tune_measure(device_ctx *dev, const model_ops *model, int repeat, int only_missing,
                 tune_report *rep, FILE *log, cn_error *err)
{
    tune_report_free(rep);
    memset(rep, 0, sizeof *rep);
    const model_shapes *ms = shapes_of(model);
    if (!ms || ms->n_tune < 1)
        return cn_fail(err, CN_ERR_RUNTIME, "internal error: the %s model declares no tuning "
                       "scenarios", model ? model->name : "(none)");
    rep->model = model->name;
    double t0 = wall_seconds();
    scenario *scs = calloc((size_t)ms->n_tune, sizeof *scs);
    if (!scs)
        return cn_fail(err, CN_ERR_RUNTIME, "out of memory");
    int rc = 0;
    for (int s = 0; rc == 0 && s < ms->n_tune; s++)
        rc = config_load_string("tune.ini", ms->tune_ini[s], NULL, 0, &scs[s], err);
    size_t saved_override = dev->local_size_override;
    forget_model(dev, ms);
    if (rc == 0)
        rc = device_kernel_timer_start(dev, err);
    if (rc == 0)
        rc = measure(dev, ms, repeat < 1 ? 1 : repeat, only_missing, scs, rep, log, err);
    device_kernel_timer_stop(dev);
    dev->local_size_override = saved_override;
    free(scs);
    if (rc)
        return rc;
    for (int i = 0; i < rep->n_rows; i++) {
        tune_row *r = &rep->rows[i];
        size_t entry = platform_profile_entry(&dev->profile, r->kernel);
        r->has_entry = entry != 0;
        r->profile_size = entry ? entry : platform_profile_local_size(&dev->profile, r->kernel);
        int best = -1;
        for (int z = 0; z < rep->n_sizes; z++)
            if (r->seconds[z] >= 0 && (best < 0 || r->seconds[z] < r->seconds[best]))
                best = z;
        /* The profile's size stays unless another is more than TUNE_MARGIN faster: differences
         * below that are run-to-run noise, not a property of the size. */
        double at_profile = -1;
        for (int z = 0; z < rep->n_sizes; z++)
            if (rep->sizes[z] == r->profile_size)
                at_profile = r->seconds[z];
        if (best >= 0 && at_profile >= 0 && r->seconds[best] >= (1 - TUNE_MARGIN) * at_profile)
            best = -1;
        r->best = best >= 0 ? rep->sizes[best] : r->profile_size;
        r->measured = at_profile >= 0 || best >= 0;
        if (!r->has_entry && r->measured &&
            device_shape_put(&dev->tuned, &dev->n_tuned, &dev->cap_tuned, r->kernel, r->best, 1))
            return cn_fail(err, CN_ERR_RUNTIME, "out of memory");
    }
    rep->wall_s = wall_seconds() - t0;
    if (!named(dev->tuned_models, model->name)) {
        size_t used = strlen(dev->tuned_models);
        snprintf(dev->tuned_models + used, sizeof dev->tuned_models - used, "%s%s",
                 used ? " " : "", model->name);
    }
    char note[200];
    if (rep->n_sizes == 0)
        snprintf(note, sizeof note, "%s: nothing measured: platform profile '%s' has a size for "
                 "every kernel", model->name, dev->profile.name);
    else
        snprintf(note, sizeof note, "%s: %d runs per size; kernels with a platform-profile "
                 "entry keep it", model->name, repeat < 1 ? 1 : repeat);
    device_tune_store(dev, note);
    return 0;
}

/* Seconds at the size the profile gives a kernel, or -1 when not among the candidates. */
static double at_size(const tune_report *rep, const tune_row *r, size_t size)
{
    for (int z = 0; z < rep->n_sizes; z++)
        if (rep->sizes[z] == size)
            return r->seconds[z];
    return -1;
}

void tune_print(const device_ctx *dev, const tune_report *rep, FILE *out)
{
    fprintf(out, "\ndevice %d: %s (%s), the %s model's kernels\n", dev->info.index,
            dev->info.name, dev->info.platform_name, rep->model ? rep->model : "?");
    fprintf(out, "  %-22s", "kernel, ms at size");
    for (int z = 0; z < rep->n_sizes; z++)
        fprintf(out, " %8zu", rep->sizes[z]);
    fprintf(out, "   profile   best  uses  gain\n");
    for (int i = 0; i < rep->n_rows; i++) {
        const tune_row *r = &rep->rows[i];
        fprintf(out, "  %-22.22s", r->kernel);
        for (int z = 0; z < rep->n_sizes; z++) {
            if (r->seconds[z] < 0)
                fprintf(out, " %8s", "-");
            else
                fprintf(out, " %8.3f", r->seconds[z] * 1e3);
        }
        size_t uses = r->has_entry || !r->measured ? r->profile_size : r->best;
        double tp = at_size(rep, r, r->profile_size), tu = at_size(rep, r, uses);
        fprintf(out, "   %5zu%s %6zu %5zu", r->profile_size, r->has_entry ? "*" : " ", r->best,
                uses);
        if (tp > 0 && tu >= 0)
            fprintf(out, " %+5.0f%%", 100.0 * (tp - tu) / tp);
        fprintf(out, "\n");
    }
    fprintf(out, "  (* an entry of the platform profile '%s', which the run keeps; the others use "
            "the best size; gain: time saved against the profile's size)\n", dev->profile.name);
    char path[4300];
    if (device_tune_path(dev, path, sizeof path))
        fprintf(out, "  measured in %.1f s, cached in %s\n", rep->wall_s, path);
    else
        fprintf(out, "  measured in %.1f s, not cached (no cache directory)\n", rep->wall_s);
}

int tune_ensure(device_ctx *dev, const model_ops *model, FILE *log, cn_error *err)
{
    const char *off = getenv("CLNETSIM_NO_TUNE");
    char path[4300];
    if (!shapes_of(model) || (off && *off && strcmp(off, "0")) || dev->local_size_override ||
        !device_tune_path(dev, path, sizeof path))
        return 0;
    /* a file of an earlier clnetsim names no model: each model measures again, once */
    if (device_tune_load(dev) == 0 && named(dev->tuned_models, model->name))
        return 0;
    tune_report *rep = calloc(1, sizeof *rep);
    if (!rep)
        return cn_fail(err, CN_ERR_RUNTIME, "out of memory");
    /* Said before the builds: a CPU device with a cold kernel cache builds for a minute or
     * more, silently otherwise (and over ranks the other ranks wait for it meanwhile). */
    if (log)
        fprintf(log, "clnetsim: %spreparing device %d (%s) for the %s model, once: building its "
                "kernels%s\n", dist_who(), dev->info.index, dev->info.name, model->name,
                dev->info.type & CL_DEVICE_TYPE_CPU ? " (a CPU device without a kernel cache: "
                                                      "a minute or more)" : "");
    int rc = tune_measure(dev, model, 2, 1, rep, log, err);
    tune_report_free(rep);
    free(rep);
    return rc;
}

void tune_report_free(tune_report *rep)
{
    free(rep->rows);
    rep->rows = NULL;
    rep->n_rows = rep->cap_rows = 0;
}
