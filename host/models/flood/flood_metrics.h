/* The flood's results as declared metrics (report/metric.h): the members of docs/model.md
 * "Outputs" and of the extensions of docs/models.md, in the order of its JSON.
 *
 * flood_metrics.c holds only the tables and depends on nothing else, so that json_compare
 * compiles it in: it is the one source of the list json_compare applies to result files
 * that name no "contract" (older results, ns-3's and the independent implementations'
 * outputs). */
#ifndef CLNETSIM_FLOOD_METRICS_H
#define CLNETSIM_FLOOD_METRICS_H
#include "report/metric.h"

#define FLOOD_N_METRICS 18
extern const model_metric flood_metrics[FLOOD_N_METRICS];
/* The per-flow results ([traffic.flow NAME] sections): the member "flows". */
extern const metric_table flood_flows_table;

/* The whole declaration, with the summary's lines in words (flood_summary.c). */
extern const metric_set flood_metric_set;

#endif
