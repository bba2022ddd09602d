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

/* The value of extension counter NAME into *V: 1, or 0 when R has none. */
static int counter_of(const run_results *r, const char *name, int64_t *v)
{
    for (int i = 0; i < r->n_counters; i++)
        if (strcmp(r->counters[i].name, name) == 0) {
            *v = r->counters[i].value;
            return 1;
        }
    return 0;
}

/* The extension counters, one per line, but those of node resources (docs/models.md) in
 * words: the refused copies, and the deaths with the time of the first and the energy. */
static void print_counters(const run_results *r, FILE *out)
{
    static const char *const own[] = {"capacity_drops", "dead_nodes", "first_death_ns",
                                      "energy_spent_nj"};
    for (int i = 0; i < r->n_counters; i++) {
        int mine = 0;
        for (size_t k = 0; k < sizeof own / sizeof own[0]; k++)
            mine |= strcmp(r->counters[i].name, own[k]) == 0;
        if (!mine)
            fprintf(out, "%-12s %lld\n", r->counters[i].name, (long long)r->counters[i].value);
    }
    int64_t drops, dead, first, spent;
    if (counter_of(r, "capacity_drops", &drops))
        fprintf(out, "capacity     %lld copies refused\n", (long long)drops);
    if (counter_of(r, "dead_nodes", &dead) && counter_of(r, "first_death_ns", &first) &&
        counter_of(r, "energy_spent_nj", &spent)) {
        fprintf(out, "energy       %.6f J spent, %lld nodes dead", (double)spent * 1e-9,
                (long long)dead);
        if (first >= 0)
            fprintf(out, " (the first at %.3f s)", (double)first * 1e-9);
        fputc('\n', out);
    }
}

/* The flood's contract in words: deliveries, latency, events. */
static void print_flood_head(const run_results *r, FILE *out)
{
    uint64_t events = results_events(r);
    fprintf(out, "model        %s, %lld nodes, seed %llu\n", r->model, (long long)r->nodes,
            (unsigned long long)r->seed);
    if (r->n_flows > 0) /* broadcast packets have several deliveries each */
        fprintf(out, "delivered    %lld of %lld deliverable, %lld packets (loss %.4f)\n",
                (long long)r->delivered, (long long)r->deliverable, (long long)r->generated,
                results_loss(r));
    else
        fprintf(out, "delivered    %lld of %lld packets (loss %.4f)\n", (long long)r->delivered,
                (long long)r->generated, results_loss(r));
    if (r->delivered > 0)
        fprintf(out, "latency      mean %.6f s, mean hops %.3f\n",
                wide_ratio(r->latency_sum_ns, r->delivered) * 1e-9,
                wide_ratio(r->hops_sum, r->delivered));
    else
        fprintf(out, "latency      n/a (nothing delivered)\n");
    fprintf(out, "events       %llu (%lld transmissions, %lld receptions, %lld first receptions)\n",
            (unsigned long long)events, (long long)r->transmissions, (long long)r->receptions,
            (long long)r->first_receptions);
}

void report_print_summary(const run_results *r, FILE *out)
{
    uint64_t events = results_events(r);
    fprintf(out, "scenario     %s\n", r->scenario_path[0] ? r->scenario_path : "(defaults)");
    if (r->n_metrics > 0) { /* a model that declares its contract members: each on a line */
        fprintf(out, "model        %s, seed %llu\n", r->model, (unsigned long long)r->seed);
        for (int i = 0; i < r->n_metrics; i++)
            fprintf(out, "%-16s %llu\n", r->metrics[i].name,
                    (unsigned long long)r->metrics[i].value);
    } else {
        print_flood_head(r, out);
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
    print_counters(r, out);
    for (int i = 0; i < r->n_flows; i++) {
        const flow_result *f = &r->flows[i];
        fprintf(out, "flow         %s: %lld packets, %lld of %lld delivered (loss %.4f)", f->name,
                (long long)f->generated, (long long)f->delivered, (long long)f->deliverable,
                results_flow_loss(f));
        if (f->delivered > 0)
            fprintf(out, ", mean latency %.6f s, mean hops %.3f",
                    wide_ratio(f->latency_sum_ns, f->delivered) * 1e-9,
                    wide_ratio(f->hops_sum, f->delivered));
        fputc('\n', out);
    }
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
