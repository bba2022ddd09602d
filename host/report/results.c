/* A run's metric values by declaration (report.h, "metrics"): how models fill them and how
 * the generic consumers (JSON, summary, bench, selftest) read them. */
#include <stdio.h>
#include <string.h>

#include "report/report.h"

/* What an undeclared metric (results_add_metric without a declaration) is. */
static const model_metric plain_metric = {.name = "", .kind = METRIC_U64, .contract = 1};

void results_declare(run_results *r, const metric_set *set)
{
    r->declared = set;
    r->n_metrics = 0;
    /* an array metric takes one value per element, in order */
    for (int d = 0; d < set->n_metrics; d++) {
        int n = set->metrics[d].elements > 1 ? set->metrics[d].elements : 1;
        for (int e = 0; e < n && r->n_metrics < REPORT_MAX_METRICS; e++)
            r->metrics[r->n_metrics++] = (struct result_metric){
                set->metrics[d].name, 0, !set->metrics[d].optional, 0, (short)d, (short)e};
    }
    r->n_rows = 0;
}

/* Index of element ELEM of metric NAME, present or not, or -1. */
static int index_at(const run_results *r, const char *name, int elem)
{
    for (int i = 0; i < r->n_metrics; i++)
        if (r->metrics[i].elem == elem && strcmp(r->metrics[i].name, name) == 0)
            return i;
    return -1;
}

int results_set_at(run_results *r, const char *name, int elem, wide_int v)
{
    int i = index_at(r, name, elem);
    if (i < 0)
        return -1;
    r->metrics[i].value = v;
    r->metrics[i].set = 1;
    r->metrics[i].partial = 0;
    return 0;
}

int results_set(run_results *r, const char *name, wide_int v)
{
    return results_set_at(r, name, 0, v);
}

int results_reduce(run_results *r, const char *name, const wide_int *parts, size_t n,
                   cn_error *err)
{
    return results_reduce_at(r, name, 0, parts, n, err);
}

int results_reduce_at(run_results *r, const char *name, int elem, const wide_int *parts,
                      size_t n, cn_error *err)
{
    int i = index_at(r, name, elem);
    if (i < 0)
        return cn_fail(err, CN_ERR_RUNTIME, "internal error: no declaration of metric %s to "
                       "reduce", name);
    if (n == 0) { /* no part here: the other ranks' values make it */
        r->metrics[i].value = 0;
        r->metrics[i].set = 1;
        r->metrics[i].partial = 2;
        return 0;
    }
    const model_metric *m = results_metric(r, i);
    wide_int v = parts[0];
    for (size_t k = 1; k < n; k++)
        v = metric_combine(m, v, parts[k]);
    int rc = results_fits(m, name, v, err);
    if (rc)
        return rc;
    r->metrics[i].value = v;
    r->metrics[i].set = 1;
    r->metrics[i].partial = 1;
    return 0;
}

int results_fits(const model_metric *m, const char *name, wide_int v, cn_error *err)
{
    if (m->kind == METRIC_I64 && (v > (wide_int)INT64_MAX || v < (wide_int)INT64_MIN)) {
        char text[WIDE_TEXT];
        return cn_fail(err, CN_ERR_RUNTIME, "the %s counter reached %s, beyond 2^63 - 1: the "
                       "run's results cannot be reported", name, wide_format(v, text));
    }
    return 0;
}

void results_add_metric(run_results *r, const char *name, uint64_t value)
{
    if (r->declared)
        (void)results_set(r, name, (wide_int)value);
    else if (r->n_metrics < REPORT_MAX_METRICS)
        r->metrics[r->n_metrics++] = (struct result_metric){name, (wide_int)value, 1, 0, 0, 0};
}

const model_metric *results_metric(const run_results *r, int i)
{
    return r->declared && i >= 0 && i < r->n_metrics ? &r->declared->metrics[r->metrics[i].decl]
                                                     : &plain_metric;
}

int results_find_at(const run_results *r, const char *name, int elem)
{
    int i = index_at(r, name, elem);
    return i >= 0 && r->metrics[i].set ? i : -1;
}

int results_find(const run_results *r, const char *name)
{
    return results_find_at(r, name, 0);
}

wide_int results_value(const run_results *r, const char *name)
{
    int i = results_find(r, name);
    return i < 0 ? 0 : r->metrics[i].value;
}

int64_t results_i64(const run_results *r, const char *name)
{
    return (int64_t)results_value(r, name);
}

uint64_t results_events(const run_results *r)
{
    return r->model_events;
}

/* 1 - NUM / DEN, 0 when DEN is 0 (nothing to deliver). */
static double loss_of(wide_int num, wide_int den)
{
    return den > 0 ? 1.0 - (double)num / (double)den : 0.0;
}

double results_ratio(const run_results *r, int i)
{
    const model_metric *m = results_metric(r, i);
    const char *den = m->den && results_find(r, m->den) >= 0 ? m->den : m->den_alt;
    return loss_of(results_value(r, m->num), den ? results_value(r, den) : 0);
}

/* Text of a value of M: decimal for integers, %.17g (the shortest form that always reads
 * back to the same double) for ratios. */
static void value_text(const model_metric *m, wide_int v, double ratio, char buf[WIDE_TEXT])
{
    if (m->kind == METRIC_LOSS)
        snprintf(buf, WIDE_TEXT, "%.17g", ratio);
    else
        wide_format(v, buf);
}

void results_text(const run_results *r, int i, char buf[WIDE_TEXT])
{
    const model_metric *m = results_metric(r, i);
    value_text(m, r->metrics[i].value, m->kind == METRIC_LOSS ? results_ratio(r, i) : 0, buf);
}

int results_value_text(const run_results *r, int i, char *out, size_t cap)
{
    if (i < 0 || i >= r->n_metrics || r->metrics[i].elem > 0)
        return 1;
    const model_metric *m = results_metric(r, i);
    if (m->elements <= 1) {
        char v[WIDE_TEXT];
        results_text(r, i, v);
        snprintf(out, cap, "%s", v);
        return 0;
    }
    size_t at = 0;
    out[0] = 0;
    for (int e = 0; e < m->elements && i + e < r->n_metrics && at < cap; e++) {
        char v[WIDE_TEXT];
        wide_format(r->metrics[i + e].value, v);
        int w = snprintf(out + at, cap - at, "%s%s", e ? ", " : "[", v);
        at += w > 0 ? (size_t)w : 0;
    }
    if (at < cap)
        snprintf(out + at, cap - at, "]");
    return 0;
}

int results_add_row(run_results *r, const char *name)
{
    if (!r->declared || !r->declared->table || r->n_rows >= REPORT_MAX_ROWS)
        return -1;
    struct result_row *row = &r->rows[r->n_rows];
    memset(row, 0, sizeof *row);
    snprintf(row->name, sizeof row->name, "%s", name);
    return r->n_rows++;
}

static int column_of(const run_results *r, const char *name)
{
    const metric_table *t = r->declared ? r->declared->table : NULL;
    int c = t ? metric_index(t->cols, t->n_cols, name) : -1;
    return c < REPORT_MAX_COLUMNS ? c : -1;
}

int results_set_cell(run_results *r, int row, const char *name, wide_int v)
{
    int c = column_of(r, name);
    if (c < 0 || row < 0 || row >= r->n_rows)
        return -1;
    r->rows[row].values[c] = v;
    return 0;
}

wide_int results_cell(const run_results *r, int row, const char *name)
{
    int c = column_of(r, name);
    return c < 0 || row < 0 || row >= r->n_rows ? 0 : r->rows[row].values[c];
}

double results_cell_ratio(const run_results *r, int row, int c)
{
    const model_metric *m = &r->declared->table->cols[c];
    return loss_of(results_cell(r, row, m->num), results_cell(r, row, m->den));
}

void results_cell_text(const run_results *r, int row, int c, char buf[WIDE_TEXT])
{
    const model_metric *m = &r->declared->table->cols[c];
    value_text(m, r->rows[row].values[c],
               m->kind == METRIC_LOSS ? results_cell_ratio(r, row, c) : 0, buf);
}
