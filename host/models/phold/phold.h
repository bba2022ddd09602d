/* The PHOLD model (docs/models/phold.md): the synthetic benchmark of parallel discrete-event
 * simulators, on event-driven windows. Host glue to cl/phold/phold.cl. */
#ifndef CLNETSIM_PHOLD_H
#define CLNETSIM_PHOLD_H

#include "config/model_config.h"
#include "engine/engine.h"
#include "models/phold/phold_values.h"

extern const model_ops phold_model_ops;
/* Its option group: sections, keys and rules (phold_config.c). */
extern const model_config phold_config;
/* What selftest and bench need of it: its reference and sizes (phold_bench.c). */
extern const model_bench phold_bench;
/* Its kernel-shape self-test cases and tuning scenarios (phold_shapes.c). */
extern const model_shapes phold_shapes;
/* The PHOLD oracle's outputs (host/oracle; P its parameters, O its results) as a run's
 * members in WANT, by the names docs/models/phold.md ("Outputs") gives them. */
struct phold_oracle_params;
struct phold_oracle_result;
void phold_reference_results(const struct phold_oracle_params *p,
                             const struct phold_oracle_result *o, run_results *want);

/* Event kinds: one, the execution of a window's events of a partition's LPs. */
enum phold_kind { PHOLD_EXECUTE = 0, PHOLD_N_KINDS };

/* Test hooks (environment), results unchanged: CLNETSIM_TEST_PHOLD_SLOTS=n starts every LP
 * with n event slots (at least the population), so that slot growth runs;
 * CLNETSIM_TEST_PHOLD_OUTBOX=n starts the outbox with room for n records, so that stalled
 * LPs and outbox growth run. */

#endif
