/* Running a scenario on each device separately, statistics, and the contract check. */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"
#include "config/model_config.h" /* CONFIG_MAX_IDS: the most entities of a scenario */
#include "engine/engine.h"

void bench_apply_test_skew(int position, run_results *res)
{
    const char *v = getenv("CLNETSIM_TEST_SKEW_DEVICE");
    if (!v || !*v || strtol(v, NULL, 10) != position || res->n_metrics == 0)
        return;
    /* the flood's receptions; other models: the last contract member */
    int i = results_find(res, "receptions");
    for (int k = res->n_metrics - 1; i < 0 && k >= 0; k--)
        if (res->metrics[k].set && results_metric(res, k)->contract)
            i = k;
    if (i >= 0)
        res->metrics[i].value += 1;
}

/* The present contract members of R, as indexes into R->metrics; returns how many. */
static int contract_members(const run_results *r, int *idx)
{
    int n = 0;
    for (int i = 0; i < r->n_metrics; i++)
        if (r->metrics[i].set && results_metric(r, i)->contract)
            idx[n++] = i;
    return n;
}

/* The table rows of two runs: their count, names and every column. */
static int rows_diff(const run_results *a, const run_results *b, char *buf, size_t cap)
{
    const metric_table *t = a->declared ? a->declared->table : NULL;
    if (a->n_rows != b->n_rows) {
        snprintf(buf, cap, "%s: %d vs %d rows", t ? t->name : "table", a->n_rows, b->n_rows);
        return 1;
    }
    for (int i = 0; i < a->n_rows && t; i++) {
        if (strcmp(a->rows[i].name, b->rows[i].name) != 0) {
            snprintf(buf, cap, "%s %d: %s vs %s", t->name, i + 1, a->rows[i].name,
                     b->rows[i].name);
            return 1;
        }
        for (int c = 0; c < t->n_cols && c < REPORT_MAX_COLUMNS; c++)
            if (a->rows[i].values[c] != b->rows[i].values[c]) {
                char x[WIDE_TEXT], y[WIDE_TEXT];
                snprintf(buf, cap, "%s %s: %s: %s vs %s", t->name, a->rows[i].name,
                         t->cols[c].name, wide_format(a->rows[i].values[c], x),
                         wide_format(b->rows[i].values[c], y));
                return 1;
            }
    }
    return 0;
}

int bench_contract_diff(const run_results *a, const run_results *b, char *buf, size_t cap)
{
    if (strcmp(a->model, b->model)) {
        snprintf(buf, cap, "model: %s vs %s", a->model, b->model);
        return 1;
    }
    if (a->seed != b->seed) {
        snprintf(buf, cap, "seed: %llu vs %llu", (unsigned long long)a->seed,
                 (unsigned long long)b->seed);
        return 1;
    }
    /* the declared contract members, in order, by name and value */
    int ia[REPORT_MAX_METRICS], ib[REPORT_MAX_METRICS];
    int na = contract_members(a, ia), nb = contract_members(b, ib);
    if (na != nb) {
        snprintf(buf, cap, "%d vs %d contract members", na, nb);
        return 1;
    }
    for (int k = 0; k < na; k++) {
        const struct result_metric *x = &a->metrics[ia[k]], *y = &b->metrics[ib[k]];
        if (strcmp(x->name, y->name) != 0) {
            snprintf(buf, cap, "contract member %d: %s vs %s", k + 1, x->name, y->name);
            return 1;
        }
        /* a ratio is derived from other members: equal when they are */
        if (results_metric(a, ia[k])->kind != METRIC_LOSS && x->value != y->value) {
            char vx[WIDE_TEXT], vy[WIDE_TEXT];
            snprintf(buf, cap, "%s: %s vs %s", x->name, wide_format(x->value, vx),
                     wide_format(y->value, vy));
            return 1;
        }
    }
    return rows_diff(a, b, buf, cap);
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void summarise(bench_row *r)
{
    double sorted[BENCH_MAX_REPEAT];
    memcpy(sorted, r->runs, (size_t)r->n_runs * sizeof sorted[0]);
    qsort(sorted, (size_t)r->n_runs, sizeof sorted[0], by_value);
    int n = r->n_runs;
    r->median_s = n % 2 ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
    r->min_s = sorted[0];
    r->max_s = sorted[n - 1];
    r->events = results_events(&r->first);
    r->device_bytes = r->first.device_bytes;
    r->events_per_s = r->median_s > 0 ? (double)r->events / r->median_s : 0;
    r->windows = r->first.batched ? 0 : r->first.windows;
    r->per_window_us = r->windows > 0 ? r->median_s * 1e6 / (double)r->windows : 0;
}

/* Warm-up and timed runs of SC on DEV; the first timed run's results go to ROW->first, and a
 * run whose contract differs from it is reported in MISMATCH. */
static int run_device(bench_row *row, const scenario *sc, device_ctx *dev, int position,
                      const bench_options *opt, char *mismatch, size_t cap, cn_error *err)
{
    run_results *res = calloc(1, sizeof *res);
    if (!res)
        return cn_fail(err, CN_ERR_RUNTIME, "out of memory");
    engine_options eo = {0};
    device_ctx *ptr = dev;
    dev->n_local_used = 0;
    int rc = 0;
    for (int i = 0; rc == 0 && i < opt->warmup + opt->repeat; i++) {
        memset(res, 0, sizeof *res);
        rc = engine_run(sc, &ptr, 1, &eo, res, err);
        if (rc || i < opt->warmup)
            continue;
        bench_apply_test_skew(position, res);
        int k = row->n_runs++;
        row->runs[k] = res->wall_s;
        row->setup_s = res->setup_s;
        if (k == 0) {
            row->first = *res;
        } else if (!mismatch[0]) {
            char diff[256];
            if (bench_contract_diff(&row->first, res, diff, sizeof diff))
                snprintf(mismatch, cap, "device %d (%s) gave different results in runs 1 and %d: "
                         "%s", dev->info.index, dev->info.name, k + 1, diff);
        }
    }
    free(res);
    if (rc == 0)
        device_local_sizes_text(dev, row->work_groups, sizeof row->work_groups);
    return rc;
}

int bench_run_case(bench_case *c, const scenario *sc, device_ctx *devs, int n_devs,
                   const bench_options *opt, cn_error *err)
{
    c->n_rows = 0;
    c->agree = 1;
    c->mismatch[0] = '\0';
    int ran = 0;
    for (int d = 0; d < n_devs && d < BENCH_MAX_DEVICES; d++) {
        bench_row *row = &c->rows[c->n_rows++];
        memset(row, 0, sizeof *row);
        row->index = devs[d].info.index;
        snprintf(row->name, sizeof row->name, "%s", devs[d].info.name);
        snprintf(row->platform, sizeof row->platform, "%s", devs[d].info.platform_name);
        snprintf(row->type, sizeof row->type, "%s", device_type_name(devs[d].info.type));
        if (opt->progress)
            fprintf(opt->progress, "%s: %d runs on device %d (%s)...\n", c->name,
                    opt->warmup + opt->repeat, row->index, row->name);
        cn_error e = {0};
        char mismatch[1024] = "";
        /* the device's floor first, after the runs' warm-up would find the kernels built */
        if (device_window_floor(&devs[d], &row->floor, &e) != 0 ||
            run_device(row, sc, &devs[d], d, opt, mismatch, sizeof mismatch, &e) != 0) {
            row->failed = 1;
            snprintf(row->error, sizeof row->error, "%s", e.msg);
            continue;
        }
        summarise(row);
        ran++;
        if (mismatch[0] && c->agree) {
            c->agree = 0;
            snprintf(c->mismatch, sizeof c->mismatch, "%s", mismatch);
        }
    }
    if (ran == 0)
        return cn_fail(err, CN_ERR_RUNTIME, "%s: no device could run the scenario (device %d: "
                       "%s)", c->name, c->rows[0].index, c->rows[0].error);
    /* every device against the first that ran */
    const bench_row *ref = NULL;
    double slowest = 0;
    for (int i = 0; i < c->n_rows; i++) {
        bench_row *r = &c->rows[i];
        if (r->failed)
            continue;
        if (r->median_s > slowest)
            slowest = r->median_s;
        char diff[256];
        if (!ref)
            ref = r;
        else if (c->agree && bench_contract_diff(&ref->first, &r->first, diff, sizeof diff)) {
            c->agree = 0;
            snprintf(c->mismatch, sizeof c->mismatch, "devices %d (%s) and %d (%s) disagree: %s",
                     ref->index, ref->name, r->index, r->name, diff);
        }
    }
    for (int i = 0; i < c->n_rows; i++)
        if (!c->rows[i].failed)
            c->rows[i].speedup = c->rows[i].median_s > 0 ? slowest / c->rows[i].median_s : 0;
    return 0;
}

/* For functions that return a count: sets ERR (bad input) and returns -1. */
static int fail_count(cn_error *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static int fail_count(cn_error *err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    cn_vfail(err, CN_ERR_INPUT, fmt, ap);
    va_end(ap);
    return -1;
}

int bench_parse_sizes(const char *text, int64_t *out, int max, cn_error *err)
{
    int n = 0;
    const char *p = text;
    while (*p) {
        char *end;
        double v = strtod(p, &end);
        if (end == p)
            return fail_count(err, "--sizes '%s': expected node counts such as "
                           "1000,16k,1M", text);
        double mult = 1;
        if (*end == 'k' || *end == 'K')
            mult = 1e3, end++;
        else if (*end == 'M' || *end == 'm')
            mult = 1e6, end++;
        else if (*end == 'G' || *end == 'g')
            mult = 1e9, end++;
        double nodes = v * mult;
        if (!(nodes >= 1 && nodes <= (double)CONFIG_MAX_IDS) || nodes != floor(nodes))
            return fail_count(err, "--sizes '%s': %.*s is not a whole node count "
                           "from 1 to %lld", text, (int)(end - p), p,
                           (long long)CONFIG_MAX_IDS);
        if (n == max)
            return fail_count(err, "--sizes '%s': more than %d sizes", text, max);
        out[n++] = (int64_t)nodes;
        if (*end == ',')
            end++;
        else if (*end)
            return fail_count(err, "--sizes '%s': unexpected '%c' (sizes are "
                           "separated by commas)", text, *end);
        p = end;
    }
    if (n == 0)
        return fail_count(err, "--sizes needs at least one node count");
    return n;
}

/* The model's own answers (engine.h, model_bench): bench knows no model. */
static const model_bench *bench_of(const scenario *sc)
{
    const model_ops *ops = model_find(sc->model);
    return ops ? ops->bench : NULL;
}

int64_t bench_case_size(const scenario *sc, int64_t *population)
{
    const model_bench *b = bench_of(sc);
    *population = 0;
    return b && b->size ? b->size(sc, population) : 0;
}

int bench_size_overrides(const scenario *sc, int64_t n, char out[][96], int max,
                         cn_error *err)
{
    const model_bench *b = bench_of(sc);
    if (!b || !b->resize)
        return fail_count(err, "--sizes: the %s model of '%s' cannot be sized", sc->model,
                          sc->path);
    return b->resize(sc, n, out, max, err);
}
