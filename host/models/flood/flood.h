/* The flood model of docs/model.md: host glue to cl/flood/flood.cl. */
#ifndef CLNETSIM_FLOOD_H
#define CLNETSIM_FLOOD_H
#include <stdint.h>

#include "config/model_config.h"
#include "engine/engine.h"
#include "models/flood/flood_values.h"

extern const model_ops flood_model_ops;
/* Its option group: sections, keys and rules (flood_config.c). */
extern const model_config flood_config;
/* What selftest and bench need of it: its reference and sizes (flood_bench.c). */
extern const model_bench flood_bench;
/* Its kernel-shape self-test cases and tuning scenarios (flood_shapes.c). */
extern const model_shapes flood_shapes;
/* The flood oracle's results O (host/oracle) as the flood's declared metrics in WANT: each
 * member by its declared name, the extensions' only where the scenario uses them, and the
 * flows' rows. */
struct flood_oracle_result;
void flood_reference_results(const struct flood_oracle_result *o, run_results *want);

/* Event kinds, in the order a window runs them. */
enum flood_kind { FLOOD_MOVE = 0, FLOOD_BIN, FLOOD_TRANSMIT, FLOOD_PACKETS, FLOOD_N_KINDS };

/* Inspection for tests: the model after create() (the handle it hands out), stepped by hand. */
/* Applies the mobility step of window W (W >= 1), as the window loop would. */
int flood_step_mobility(struct model_state *m, int64_t window, cn_error *err);
/* Current positions, N x 3 int64 mm. */
int flood_read_positions(struct model_state *m, int64_t (*pos)[3], cn_error *err);
/* Neighbour lists of the current positions from the device's cell lists, as CSR with each
 * node's list sorted ascending. *OFFSETS has N + 1 entries; the caller frees both. */
int flood_neighbour_lists(struct model_state *m, uint32_t **offsets, uint32_t **list,
                          cn_error *err);

/* Test hooks (environment): CLNETSIM_TEST_FRONTIER_CAPACITY=n starts the frontier that small
 * so that its growth and the spill path run; CLNETSIM_TEST_RELAY_BUFFER=n caps the
 * work-group relay buffer so that the direct append path runs; CLNETSIM_TEST_SLOTS=n starts
 * with n packet slots so that slot growth runs; CLNETSIM_TEST_WHOLE_PACKETS=0 makes static
 * scenarios use the window loop instead of whole packets. Results must not
 * change. */

#endif
