/* The flood's metrics (flood_metrics.h). Every partial value of the flood's counters is a
 * sum over partitions; the time of the run's end and of the first death are extremes. */
#include "models/flood/flood_metrics.h"

#define COUNT(n) {.name = (n), .kind = METRIC_I64, .contract = 1, .summary = METRIC_SUMMARY_MODEL}
#define SUM128(n) {.name = (n), .kind = METRIC_WIDE, .contract = 1, .summary = METRIC_SUMMARY_MODEL}

const model_metric flood_metrics[FLOOD_N_METRICS] = {
    COUNT("nodes"),
    /* without flows the packets of [traffic]; with flows the departures that happen */
    COUNT("generated"),
    COUNT("delivered"),
    /* 1 - delivered / deliverable (with flows), else / generated */
    {.name = "loss", .kind = METRIC_LOSS, .contract = 1, .summary = METRIC_SUMMARY_MODEL,
     .num = "delivered", .den = "deliverable", .den_alt = "generated"},
    COUNT("transmissions"),
    COUNT("receptions"),
    COUNT("first_receptions"),
    SUM128("hops_sum"),
    SUM128("latency_sum_ns"),
    {.name = "end_time_ns", .kind = METRIC_I64, .reduce = METRIC_MAX, .contract = 1,
     .summary = METRIC_SUMMARY_MODEL},
    {.name = "windows", .kind = METRIC_I64, .reduce = METRIC_MAX, .contract = 1,
     .summary = METRIC_SUMMARY_MODEL},
    /* the neighbour cap's window-0 graph (docs/models.md), on lines of their own */
    {.name = "links", .kind = METRIC_I64, .contract = 1, .optional = 1,
     .summary = METRIC_SUMMARY_LINE},
    {.name = "links_cut", .kind = METRIC_I64, .contract = 1, .optional = 1,
     .summary = METRIC_SUMMARY_LINE},
    /* node resources (docs/models.md), in words */
    {.name = "capacity_drops", .kind = METRIC_I64, .contract = 1, .optional = 1,
     .summary = METRIC_SUMMARY_MODEL},
    {.name = "dead_nodes", .kind = METRIC_I64, .contract = 1, .optional = 1,
     .summary = METRIC_SUMMARY_MODEL},
    /* -1 when nobody died: the flood takes the least itself, over the nodes */
    {.name = "first_death_ns", .kind = METRIC_I64, .reduce = METRIC_MIN, .contract = 1,
     .optional = 1, .summary = METRIC_SUMMARY_MODEL},
    {.name = "energy_spent_nj", .kind = METRIC_I64, .contract = 1, .optional = 1,
     .summary = METRIC_SUMMARY_MODEL},
    /* with flows: the deliveries possible (1 per unicast packet, N - 1 per broadcast one) */
    {.name = "deliverable", .kind = METRIC_I64, .contract = 1, .optional = 1,
     .summary = METRIC_SUMMARY_MODEL},
};

static const model_metric flow_columns[] = {
    COUNT("generated"),
    COUNT("deliverable"),
    COUNT("delivered"),
    {.name = "loss", .kind = METRIC_LOSS, .contract = 1, .summary = METRIC_SUMMARY_MODEL,
     .num = "delivered", .den = "deliverable"},
    SUM128("hops_sum"),
    SUM128("latency_sum_ns"),
};

const metric_table flood_flows_table = {"flows", flow_columns,
                                        (int)(sizeof flow_columns / sizeof flow_columns[0])};
