/* The flood's summary lines in words (the rest of the summary is the report's): deliveries,
 * latency and events after the scenario line; node resources and each flow's results after
 * the simulated time. */
#include <stdio.h>

#include "models/flood/flood_metrics.h"
#include "report/report.h"

static void flood_summary_head(const run_results *r, FILE *out)
{
    int64_t delivered = results_i64(r, "delivered"), generated = results_i64(r, "generated");
    double loss = results_ratio(r, results_find(r, "loss"));
    fprintf(out, "model        %s, %lld nodes, seed %llu\n", r->model,
            (long long)results_i64(r, "nodes"), (unsigned long long)r->seed);
    if (results_find(r, "deliverable") >= 0) /* broadcast packets have several deliveries */
        fprintf(out, "delivered    %lld of %lld deliverable, %lld packets (loss %.4f)\n",
                (long long)delivered, (long long)results_i64(r, "deliverable"),
                (long long)generated, loss);
    else
        fprintf(out, "delivered    %lld of %lld packets (loss %.4f)\n", (long long)delivered,
                (long long)generated, loss);
    if (delivered > 0)
        fprintf(out, "latency      mean %.6f s, mean hops %.3f\n",
                wide_ratio(results_value(r, "latency_sum_ns"), delivered) * 1e-9,
                wide_ratio(results_value(r, "hops_sum"), delivered));
    else
        fprintf(out, "latency      n/a (nothing delivered)\n");
    fprintf(out, "events       %llu (%lld transmissions, %lld receptions, %lld first receptions)\n",
            (unsigned long long)results_events(r), (long long)results_i64(r, "transmissions"),
            (long long)results_i64(r, "receptions"), (long long)results_i64(r, "first_receptions"));
}

/* Node resources in words (the refused copies; the deaths, the first one's time and the
 * energy), then one line per flow. */
static void flood_summary_tail(const run_results *r, FILE *out)
{
    if (results_find(r, "capacity_drops") >= 0)
        fprintf(out, "capacity     %lld copies refused\n",
                (long long)results_i64(r, "capacity_drops"));
    if (results_find(r, "dead_nodes") >= 0 && results_find(r, "first_death_ns") >= 0 &&
        results_find(r, "energy_spent_nj") >= 0) {
        int64_t first = results_i64(r, "first_death_ns");
        fprintf(out, "energy       %.6f J spent, %lld nodes dead",
                (double)results_i64(r, "energy_spent_nj") * 1e-9,
                (long long)results_i64(r, "dead_nodes"));
        if (first >= 0)
            fprintf(out, " (the first at %.3f s)", (double)first * 1e-9);
        fputc('\n', out);
    }
    for (int i = 0; i < r->n_rows; i++) {
        int64_t delivered = (int64_t)results_cell(r, i, "delivered");
        fprintf(out, "flow         %s: %lld packets, %lld of %lld delivered (loss %.4f)",
                r->rows[i].name, (long long)results_cell(r, i, "generated"),
                (long long)delivered, (long long)results_cell(r, i, "deliverable"),
                results_cell_ratio(r, i, metric_index(flood_flows_table.cols,
                                                      flood_flows_table.n_cols, "loss")));
        if (delivered > 0)
            fprintf(out, ", mean latency %.6f s, mean hops %.3f",
                    wide_ratio(results_cell(r, i, "latency_sum_ns"), delivered) * 1e-9,
                    wide_ratio(results_cell(r, i, "hops_sum"), delivered));
        fputc('\n', out);
    }
}

const metric_set flood_metric_set = {flood_metrics, FLOOD_N_METRICS, &flood_flows_table,
                                     flood_summary_head, flood_summary_tail};
