#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "report/report.h"

double wall_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The present metrics that the summary shows on lines of their own at WHERE, "NAME  VALUE"
 * in a column of WIDTH. */
static void print_lines(const run_results *r, int where, int width, FILE *out)
{
    for (int i = 0; i < r->n_metrics; i++) {
        if (!r->metrics[i].set || results_metric(r, i)->summary != where)
            continue;
        char v[RESULTS_VALUE_CAP];
        if (results_value_text(r, i, v, sizeof v) == 0)
            fprintf(out, "%-*s %s\n", width, r->metrics[i].name, v);
    }
}

void report_print_summary(const run_results *r, FILE *out)
{
    uint64_t events = results_events(r);
    fprintf(out, "scenario     %s\n", r->scenario_path[0] ? r->scenario_path : "(defaults)");
    const metric_set *set = r->declared;
    if (set && set->summary_head) { /* the model's words */
        set->summary_head(r, out);
    } else {
        fprintf(out, "model        %s, seed %llu\n", r->model, (unsigned long long)r->seed);
        print_lines(r, METRIC_SUMMARY_HEAD, 16, out);
    }
    if (r->batched) /* batches are no slices of time: what they covered, in the model's units */
        fprintf(out, "simulated    %.3f s, %llu %s in %lld batch%s\n",
                (double)r->end_time_ns * 1e-9, (unsigned long long)r->batch_done, r->batch_unit,
                (long long)r->batches, r->batches == 1 ? "" : "es");
    else
        fprintf(out, "simulated    %.3f s in %lld windows\n", (double)r->end_time_ns * 1e-9,
                (long long)r->windows);
    if (r->interrupted)
        fprintf(out, "stopped      by %s at simulated time %.3f s: the results so far, not a "
                "complete run\n", results_signal_name(r->stop_signal),
                (double)r->reached_ns * 1e-9);
    if (r->resumed)
        fprintf(out, "resumed      from a checkpoint at simulated time %.3f s\n",
                (double)r->resumed_from_ns * 1e-9);
    if (r->checkpoints > 0)
        fprintf(out, "checkpoints  %lld written\n", (long long)r->checkpoints);
    print_lines(r, METRIC_SUMMARY_LINE, 12, out);
    if (set && set->summary_tail)
        set->summary_tail(r, out);
    fprintf(out, "wall         %.3f s simulation + %.3f s setup (%.3f s kernel builds), %.3g "
            "events/s\n", r->wall_s, r->setup_s, r->build_s,
            r->wall_s > 0 ? (double)events / r->wall_s : 0.0);
    for (int i = 0; i < r->n_devices; i++) {
        const device_report *d = &r->devices[i];
        if (r->ranks.count > 1)
            fprintf(out, "device       rank %d%s%s%s: %s (%s, %s): %llu event sets, %.1f%% of "
                    "the events, busy %.3f s", d->rank, d->cores[0] ? " (cores " : "",
                    d->cores, d->cores[0] ? ")" : "", d->name, d->platform, d->type,
                    (unsigned long long)d->event_sets, 100.0 * d->share, d->busy_s);
        else
            fprintf(out, "device       %s (%s, %s): %llu event sets, %.1f%% of the events, busy "
                "%.3f s", d->name, d->platform, d->type, (unsigned long long)d->event_sets,
                100.0 * d->share, d->busy_s);
        /* untimed sets count at the injector's estimate (docs/user-guide.md) */
        if (d->timed_sets < d->event_sets)
            fprintf(out, " (%llu sets timed, the others estimated)",
                    (unsigned long long)d->timed_sets);
        fputc('\n', out);
        if (r->devices[i].failed)
            fprintf(out, "             failed and left out: %s\n", r->devices[i].failure);
    }
    if (r->n_devices > 1) {
        const inject_report *ij = &r->injector;
        fprintf(out, "injector     %s: %llu rapid and %llu advanced decisions, %llu migrations, "
                "%.1f MiB exchanged\n", ij->policy, (unsigned long long)ij->decisions[1],
                (unsigned long long)ij->decisions[2], (unsigned long long)ij->migrations,
                (double)ij->exchanged_bytes / (1024.0 * 1024.0));
    }
    if (r->ranks.count > 1) {
        fprintf(out, "ranks        %d MPI ranks: %.1f MiB of records between them, at most "
                "%.3f s exchanging and %.3f s agreeing on one rank\n", r->ranks.count,
                (double)r->ranks.sent_bytes / (1024.0 * 1024.0), r->ranks.exchange_s,
                r->ranks.agree_s);
        /* per window (or round of whole packets): what a model of the cost at more ranks
         * starts from (docs/benchmarks.md) */
        int64_t steps = r->batched ? r->batches : r->windows;
        if (steps > 0)
            fprintf(out, "             a %s: %.3f MiB sent by a rank on average, at most %.3f ms "
                    "exchanging\n", r->batched ? "round" : "window",
                    (double)r->ranks.sent_bytes / (1024.0 * 1024.0) / r->ranks.count /
                        (double)steps,
                    r->ranks.exchange_s * 1e3 / (double)steps);
        if (r->ranks.moves > 0)
            fprintf(out, "             %llu partitions moved between ranks by their measured "
                    "times\n", (unsigned long long)r->ranks.moves);
    }
    const granularity_report *g = &r->granularity;
    if (g->knob[0] && g->adaptive)
        fprintf(out, "granularity  %s chosen by the run: %lld at the start, %lld at the end "
                "(%llu moves)\n", g->knob, (long long)g->start, (long long)g->final,
                (unsigned long long)g->moves);
    else if (g->knob[0])
        fprintf(out, "granularity  %s = %lld (fixed)\n", g->knob, (long long)g->final);
    fprintf(out, "memory       %.1f MiB on the devices\n",
            (double)r->device_bytes / (1024.0 * 1024.0));
}

void progress_init(progress *p, int enabled)
{
    const char *every = getenv("CLNETSIM_TEST_PROGRESS");
    p->every = enabled && every && !strcmp(every, "1");
    p->enabled = p->every || (enabled && isatty(STDERR_FILENO));
    p->started = wall_seconds();
    p->last_draw = 0;
    p->drawn = 0;
}

/* Whether to draw now (a few times per second, once the run has lasted a second); *ELAPSED
 * the wall seconds since the start. */
static int progress_due(progress *p, double *elapsed)
{
    if (!p->enabled) /* before the clock: a run without the line pays nothing per window */
        return 0;
    double now = wall_seconds();
    *elapsed = now - p->started;
    if (!p->every && (*elapsed < 1.0 || now - p->last_draw < 0.25))
        return 0;
    p->last_draw = now;
    p->drawn = 1;
    return 1;
}

/* Ends the line: redrawn in place on a terminal, a line of its own under the test hook. */
static void progress_draw(const progress *p, const char *text, double elapsed, uint64_t events,
                          double eta)
{
    char eta_text[32] = "?";
    if (eta >= 0)
        snprintf(eta_text, sizeof eta_text, "%.0f s", eta);
    double rate = elapsed > 0 ? (double)events / elapsed : 0.0;
    fprintf(stderr, "\r  %s  %.3g events/s  ETA %s   %s", text, rate, eta_text,
            p->every ? "\n" : "");
    fflush(stderr);
}

void progress_update(progress *p, int64_t sim_ns, int64_t windows, uint64_t events,
                     int64_t estimated_end_ns)
{
    double elapsed;
    if (!progress_due(p, &elapsed))
        return;
    double eta = -1;
    if (estimated_end_ns > sim_ns && sim_ns > 0)
        eta = elapsed * (double)(estimated_end_ns - sim_ns) / (double)sim_ns;
    char text[96];
    snprintf(text, sizeof text, "t = %.3f s  windows %lld", (double)sim_ns * 1e-9,
             (long long)windows);
    progress_draw(p, text, elapsed, events, eta);
}

void progress_update_batches(progress *p, int64_t batches, uint64_t done, uint64_t total,
                             const char *unit, uint64_t events)
{
    double elapsed;
    if (!progress_due(p, &elapsed))
        return;
    /* the share of the units done measures the work, as batches are no slices of time */
    double eta = done > 0 && total >= done ? elapsed * (double)(total - done) / (double)done : -1;
    char text[128];
    snprintf(text, sizeof text, "batch %lld  %llu of %llu %s", (long long)batches,
             (unsigned long long)done, (unsigned long long)total, unit ? unit : "units");
    progress_draw(p, text, elapsed, events, eta);
}

void progress_finish(progress *p)
{
    if (p->enabled && p->drawn && !p->every) {
        fprintf(stderr, "\r%78s\r", "");
        fflush(stderr);
    }
}
