/* --trace-inject: one CSV row per decision, in decision order, each written once its set has
 * been measured (inject.c hands over the measured prefix of its decisions). The file is
 * written under a temporary name beside the final one and renamed when closed, so that a run
 * that fails never leaves a trace that looks complete. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "inject/inject_internal.h"
#include "report/report.h"

/* The columns; a run of batches names its steps and units as what they are (inject.h). */
static const char trace_header[] =
    "window,kind,partition,multiplicity,device,predicted_s,measured_s,policy,migrated\n";
static const char trace_header_batches[] =
    "batch,kind,chunk,multiplicity,device,predicted_s,measured_s,policy,migrated\n";

static void free_trace_names(struct inject_private *pv, int n_kinds)
{
    for (int k = 0; pv->kind_names && k < n_kinds; k++)
        free(pv->kind_names[k]);
    free(pv->kind_names);
    free(pv->trace_out);
    pv->kind_names = NULL;
    pv->trace_out = NULL;
}

/* Copies the names: the caller's array need not outlive this call. */
static int copy_kind_names(struct inject_private *pv, int n_kinds, const char *const *names)
{
    pv->kind_names = calloc(n_kinds > 0 ? (size_t)n_kinds : 1, sizeof *pv->kind_names);
    if (!pv->kind_names)
        return -1;
    for (int k = 0; k < n_kinds; k++) {
        char number[16];
        snprintf(number, sizeof number, "%d", k);
        pv->kind_names[k] = strdup(names && names[k] ? names[k] : number);
        if (!pv->kind_names[k])
            return -1;
    }
    return 0;
}

int inject_trace_open(injector *inj, const char *path, const char *const *kind_names,
                      cn_error *err)
{
    struct inject_private *pv = inj->priv;
    if (!pv || !path || !*path || pv->trace)
        return cn_fail(err, CN_ERR_RUNTIME, "the injector trace cannot be opened %s",
                       !pv || !path || !*path ? "without a path" : "twice"), -1;
    pv->trace_out = malloc(sizeof *pv->trace_out);
    if (!pv->trace_out || copy_kind_names(pv, inj->n_kinds, kind_names) != 0) {
        free_trace_names(pv, inj->n_kinds);
        return cn_fail(err, CN_ERR_RUNTIME, "out of host memory for the injector trace"), -1;
    }
    if (output_file_open(pv->trace_out, path, "injector trace", err) != 0) {
        free_trace_names(pv, inj->n_kinds);
        return -1;
    }
    FILE *f = pv->trace = pv->trace_out->file;
    if (fputs(inj->cfg.batches ? trace_header_batches : trace_header, f) == EOF)
        pv->trace_errno = errno ? errno : EIO;
    return 0;
}

/* Seconds, or an empty field when unknown (< 0). */
static void put_seconds(FILE *f, double s)
{
    if (s >= 0)
        fprintf(f, "%.9g", s);
}

void inject_trace_rows(injector *inj, const pending_decision *rows, int n)
{
    struct inject_private *pv = inj->priv;
    FILE *f = pv->trace;
    if (!f)
        return;
    for (int i = 0; i < n; i++) {
        const pending_decision *r = &rows[i];
        fprintf(f, "%lld,", (long long)r->window);
        if (r->kind >= 0 && r->kind < inj->n_kinds)
            csv_print_field(f, pv->kind_names[r->kind]);
        else
            fprintf(f, "%d", r->kind);
        fprintf(f, ",%d,%llu,%d,", r->partition, (unsigned long long)r->multiplicity,
                r->d.device);
        put_seconds(f, r->d.predicted_s);
        fputc(',', f);
        put_seconds(f, r->measured_s);
        fprintf(f, ",%s,%d\n", inject_policy_name(r->d.policy), r->d.migrate);
    }
    if (ferror(f) && !pv->trace_errno)
        pv->trace_errno = errno ? errno : EIO;
}

int inject_trace_close(injector *inj, cn_error *err)
{
    struct inject_private *pv = inj->priv;
    if (!pv || !pv->trace)
        return 0;
    /* Rows still waiting for a measurement are written without one; the decisions stay, so a
     * completion that comes later is still learnt from. */
    inject_trace_rows(inj, pv->pending, pv->n_pending);
    pv->trace = NULL;
    int e = pv->trace_errno, rc = 0;
    if (e) {
        rc = cn_fail(err, CN_ERR_RUNTIME, "cannot write the injector trace '%s': %s",
                     pv->trace_out->path, strerror(e));
        json_output_abort(pv->trace_out);
    } else {
        cn_error why = {0};
        rc = output_file_commit(pv->trace_out, &why);
        if (rc)
            cn_fail(err, CN_ERR_RUNTIME, "%s", why.msg);
        json_output_abort(pv->trace_out);
    }
    free_trace_names(pv, inj->n_kinds);
    pv->trace_errno = 0;
    return rc ? -1 : 0;
}

void inject_trace_discard(injector *inj)
{
    struct inject_private *pv = inj->priv;
    if (pv->trace) {
        json_output_abort(pv->trace_out);
        pv->trace = NULL;
    }
    free_trace_names(pv, inj->n_kinds);
}
