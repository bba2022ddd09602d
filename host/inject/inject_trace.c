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

static const char trace_header[] =
    "window,kind,partition,multiplicity,device,predicted_s,measured_s,policy,migrated\n";

static void free_trace_names(struct inject_private *pv, int n_kinds)
{
    for (int k = 0; pv->kind_names && k < n_kinds; k++)
        free(pv->kind_names[k]);
    free(pv->kind_names);
    free(pv->trace_path);
    free(pv->trace_tmp);
    pv->kind_names = NULL;
    pv->trace_path = pv->trace_tmp = NULL;
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

int inject_trace_open(injector *inj, const char *path, const char *const *kind_names)
{
    struct inject_private *pv = inj->priv;
    if (!pv || !path || !*path || pv->trace) {
        errno = !pv || !path || !*path ? EINVAL : EBUSY;
        return -1;
    }
    size_t len = strlen(path) + 32;
    pv->trace_path = strdup(path);
    pv->trace_tmp = malloc(len);
    if (!pv->trace_path || !pv->trace_tmp ||
        copy_kind_names(pv, inj->n_kinds, kind_names) != 0) {
        free_trace_names(pv, inj->n_kinds);
        errno = ENOMEM;
        return -1;
    }
    snprintf(pv->trace_tmp, len, "%s.tmp.%ld", path, (long)getpid());
    FILE *f = fopen(pv->trace_tmp, "w");
    if (!f) {
        int e = errno;
        free_trace_names(pv, inj->n_kinds);
        errno = e;
        return -1;
    }
    pv->trace = f;
    if (fputs(trace_header, f) == EOF)
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

int inject_trace_close(injector *inj)
{
    struct inject_private *pv = inj->priv;
    if (!pv || !pv->trace)
        return 0;
    /* Rows still waiting for a measurement are written without one; the decisions stay, so a
     * completion that comes later is still learnt from. */
    inject_trace_rows(inj, pv->pending, pv->n_pending);
    FILE *f = pv->trace;
    pv->trace = NULL;
    int e = pv->trace_errno;
    if (fflush(f) != 0 && !e)
        e = errno ? errno : EIO;
    if (fclose(f) != 0 && !e)
        e = errno ? errno : EIO;
    if (!e && rename(pv->trace_tmp, pv->trace_path) != 0)
        e = errno ? errno : EIO;
    if (e)
        remove(pv->trace_tmp);
    free_trace_names(pv, inj->n_kinds);
    pv->trace_errno = 0;
    errno = e;
    return e ? -1 : 0;
}

void inject_trace_discard(injector *inj)
{
    struct inject_private *pv = inj->priv;
    if (pv->trace) {
        fclose(pv->trace);
        remove(pv->trace_tmp);
        pv->trace = NULL;
    }
    free_trace_names(pv, inj->n_kinds);
}
