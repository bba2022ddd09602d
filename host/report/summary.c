#include <stdio.h>
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
        char v[WIDE_TEXT];
        results_text(r, i, v);
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
        fprintf(out, "device       %s (%s, %s): %llu event sets, %.1f%% of the events, busy "
                "%.3f s\n", r->devices[i].name, r->devices[i].platform, r->devices[i].type,
                (unsigned long long)r->devices[i].event_sets, 100.0 * r->devices[i].share,
                r->devices[i].busy_s);
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
    fprintf(out, "memory       %.1f MiB on the devices\n",
            (double)r->device_bytes / (1024.0 * 1024.0));
}

void progress_init(progress *p, int enabled)
{
    p->enabled = enabled && isatty(STDERR_FILENO);
    p->started = wall_seconds();
    p->last_draw = 0;
    p->drawn = 0;
}

void progress_update(progress *p, int64_t sim_ns, int64_t windows, uint64_t events,
                     int64_t estimated_end_ns)
{
    if (!p->enabled)
        return;
    double now = wall_seconds(), elapsed = now - p->started;
    if (elapsed < 1.0 || now - p->last_draw < 0.25)
        return;
    p->last_draw = now;
    p->drawn = 1;
    double eta = -1;
    if (estimated_end_ns > sim_ns && sim_ns > 0)
        eta = elapsed * (double)(estimated_end_ns - sim_ns) / (double)sim_ns;
    char eta_text[32] = "?";
    if (eta >= 0)
        snprintf(eta_text, sizeof eta_text, "%.0f s", eta);
    fprintf(stderr, "\r  t = %.3f s  windows %lld  %.3g events/s  ETA %s   ", (double)sim_ns * 1e-9,
            (long long)windows, (double)events / elapsed, eta_text);
    fflush(stderr);
}

void progress_finish(progress *p)
{
    if (p->enabled && p->drawn) {
        fprintf(stderr, "\r%78s\r", "");
        fflush(stderr);
    }
}
