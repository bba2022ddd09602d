/* The window engine: simulated time, event kinds, event sets and the per-window plan.
 *
 * A model describes itself (flows = its state arrays, event kinds = kernels with the flows
 * they read and write) and, window by window, which event sets are due: (kind, partition)
 * with a multiplicity, i.e. cloned events that one kernel launch runs together. The engine
 * asks the injector where each set runs, lets the model enqueue it there, and feeds the
 * measured times back. Scheduling cost grows with the number of sets, not of events. */
#ifndef CLNETSIM_ENGINE_H
#define CLNETSIM_ENGINE_H
#include <signal.h>
#include <stdint.h>
#include <stdio.h>

#include <CL/cl.h>

#include "common/error.h"
#include "config/config.h"
#include "engine/checkpoint.h"
#include "device/device.h"
#include "inject/inject.h"
#include "report/report.h"

typedef int64_t sim_time_ns;

#define ENGINE_MAX_KINDS 16
/* Every partition's sets and a few per device (replicated flows) fit in a window's plan. */
#define ENGINE_MAX_SETS (4096 + 2 * 16 + 16)
#define ENGINE_MAX_DEVICES 16
#define ENGINE_MAX_SET_EVENTS 8
/* With one device and no one watching the timings, one step in this many (from the first
 * one, and the second, whose sets give the first samples kept after the warm-up launch) is
 * timed: enough samples for the reports, few launches with events (engine.c, timing_rule). */
#define ENGINE_TIMING_EVERY 16

/* An event kind: one kernel family, with the flows (model_ops.flows) it reads and writes.
 * The engine refuses a plan in which a set reads a flow before a set of another kind that
 * writes it in the same window (engine/plan_order.h). What a kind costs is measured by the
 * injector (its calibration runs), never guessed from the declaration. */
typedef struct event_kind {
    const char *name;   /* e.g. "transmit": the feedback table's label of the kind */
    uint32_t reads;     /* bit i: the kind reads flow i */
    uint32_t writes;    /* bit i: the kind writes flow i */
} event_kind;

typedef struct event_set {
    int kind;               /* index into the model's kinds */
    int partition;          /* spatial partition the events belong to */
    uint64_t multiplicity;  /* number of cloned events in the set */
} event_set;

/* One step of the engine's loop: a window, or a batch (ENGINE_SYNC_BATCHES). The name is the
 * window's, as most steps are windows; the outputs name a batch as one. */
typedef struct window_plan {
    int64_t index;          /* window number: [index * L, (index + 1) * L) with fixed
                             * windows; with event-driven ones only their count; with
                             * batches the batch's number, from 0 */
    sim_time_ns begin, end; /* the window; batches cover no time slice: both 0 */
    /* A model that runs several windows in a step ends it at the first window that ends at or
     * after UNTIL, as single windows would reach it (a checkpoint in simulated time is due
     * there); INT64_MAX: no such limit. */
    sim_time_ns until;
    /* Whether this window's sets are timed (engine.c, timing_rule): 1, every set hands back
     * the profiling events of its kernels, as the feedback table and the reports need them;
     * 0, a model may launch without events (a launch with one costs several times one
     * without on some drivers) and hand back none: the set is then counted at the
     * injector's prediction (inject_unmeasured). TIMED_NEXT is the same for the step after
     * this one, for a model that enqueues part of it before it is planned (a step of the
     * next window queued while this one is read back). Events needed for anything else (a read-back
     * waited on, another device's wait) are the model's own and always made. */
    int timed, timed_next;
    int n_sets;
    event_set sets[ENGINE_MAX_SETS]; /* in dependency order (writes before later reads) */
} window_plan;

/* What the model reports after each window (or batch). */
typedef struct window_outcome {
    int finished;           /* no event remains (or the duration is reached) */
    int64_t next_window;    /* next window with work (> index) when not finished */
    uint64_t events;        /* events executed so far (transmissions + receptions) */
    sim_time_ns estimated_end; /* windows: best guess of the end time, for the progress line */
    int drained;            /* every set enqueued so far has finished (the model waited) */
    /* the step did work that its knob does not decide (the model grew a buffer and ran sets
     * again): its time says nothing of the knob's value, and adaptive granularity leaves it
     * out (over several ranks: when any rank's was) */
    int irregular;
    /* Batches only (a window's are its end and the times above). What the batches so far
     * cover, in the model's own units (model_ops.batch_unit: the flood's packets launched, of
     * all those of the run), for the progress line and the summary. */
    uint64_t done, total;
    /* Batches and event-driven windows: the simulated time reached, the clock of checkpoints
     * in simulated time (an event-driven step's end, later than its plan's when the model ran
     * several windows in it: next_window then counts them too). */
    sim_time_ns reached;
} window_outcome;

/* The outcome of an event-driven window (ENGINE_SYNC_EVENT) after which the model waited for
 * every set: finished once the least pending time NEXT_BEGIN reaches the run's END, EVENTS run
 * so far, the next window's index after PLAN's and the time reached its end. */
static inline void window_outcome_event(window_outcome *out, const window_plan *plan,
                                        sim_time_ns next_begin, sim_time_ns end,
                                        uint64_t events)
{
    *out = (window_outcome){0};
    out->finished = next_begin >= end;
    out->events = events;
    out->next_window = plan->index + 1;
    out->estimated_end = end;
    out->drained = 1;
    out->reached = plan->end;
}

/* A model's state, opaque to the core: the handle its create() hands out and every callback
 * gets back. No model defines this tag; each keeps its own struct (flood_model, phold_model)
 * and converts the handle with its own helper (flood_of, phold_of), so the core cannot read a
 * model's fields and no model's state can pass for another's by name. */
struct model_state;

/* How the engine steps (docs/architecture.md, "Windows and batches"): fixed windows
 * [index * L, (index + 1) * L); event-driven ones [Tmin, Tmin + L) from the least pending
 * time the model reports (next_begin) after each window; or batches, steps that are no slice
 * of time but a share of the run's work taken whole (the flood's whole packets: each packet
 * runs from its creation to its end within one step), which the model sizes and cuts into
 * chunks, the injector's units (the sets' partitions). The outputs (progress line, summary,
 * --trace-inject, --show-feedback) say batches and chunks in that mode. */
enum engine_sync { ENGINE_SYNC_FIXED = 0, ENGINE_SYNC_EVENT = 1, ENGINE_SYNC_BATCHES = 2 };

/* What a model offers beyond model_ops' callbacks, asked by the command line before a run
 * (model_ops.features, bits): MODEL_PACKET_ROWS, one row per item (the flood's packets) for
 * `run --packets`, which results() puts into run_results.records (report/records.h);
 * MODEL_KERNEL_SHAPES, kernels whose shapes the devices' self-test
 * checks against the reference and whose work-group sizes the tuner measures
 * (host/bench/shapes.c, tune.c), from the cases its model_bench.shapes declares. */
#define MODEL_PACKET_ROWS 1u
#define MODEL_KERNEL_SHAPES 2u

/* One case of the kernel-shape self-test (host/bench/shapes.c): a small scenario of the model,
 * run at each work-group size a run may choose and compared with the model's reference. */
typedef struct model_shape_case {
    const char *name;           /* what it covers, in the self-test's words */
    const char *ini;            /* its scenario, INI text (the reference must take it) */
    int size_one;               /* run only in work-groups of one item */
    /* The kernels (profile names, NULL-terminated) it is the test of: a wrong result blames
     * those of them it launched. NULL: every kernel it launches, blamed where no case that
     * passed at the same size launched it too (all of them when each did). */
    const char *const *kernels;
    /* Kernels marked bad at the case's size while it runs, so that the run takes another of
     * its variants (the flood's seen bits in global memory); NULL: none. */
    const char *const *ruled_out;
} model_shape_case;

/* What the kernel-shape self-test and `tune` run for a model (MODEL_KERNEL_SHAPES), so that
 * neither names one. */
typedef struct model_shapes {
    /* The kernel families the model launches (NULL-terminated: "flood", "cells"): the
     * profile's entries and tuned sizes of these are the sizes its runs may choose. */
    const char *const *families;
    const model_shape_case *cases;
    int n_cases;
    /* Kernels that stand in for one another (NULL-terminated; the run sizes them by the
     * first and picks among them at that size): one kernel when the self-test asks whether
     * a good shape is left, named VARIANTS_NAME in the refusal. NULL: none. */
    const char *const *variants;
    const char *variants_name;
    /* Kernels whose work-groups a small scenario cuts to the powers of two from CUT_FROM
     * below their size (NULL-terminated): those sizes are tested too. NULL: none. */
    const char *const *cut;
    size_t cut_from;
    /* `tune`: short scenarios (INI text) that launch every kernel of the model, and pairs
     * of kernels sized as one, the second's time counted at the first's. */
    const char *const *tune_ini;
    int n_tune;
    const char *const (*tune_joined)[2];
    int n_joined;
} model_shapes;

/* What `clnetsim selftest` and `bench` (host/bench) need of a model beyond a run, so that
 * neither names a model: its sequential reference, and what a benchmark case's size counts.
 * The model's folder implements it (host/models/X/X_bench.c). */
typedef struct model_bench {
    const char *title;          /* the model in the self-test's words (PHOLD: its acronym) */
    const char *reference_name; /* its reference there: "the sequential reference" */
    /* Runs SC through the model's sequential reference (host/oracle) and puts its results
     * into WANT (zeroed by the caller) as the run's would be: model, seed and every contract
     * member by its declared name. 0, or 1 with a sentence in WHY when the reference
     * refuses SC. selftest compares a run with WANT member by member. */
    int (*reference)(const scenario *sc, run_results *want, char *why, size_t cap);
    /* What a case's size counts (the flood's nodes, PHOLD's LPs) and, in *PENDING, the
     * events pending per unit all along (PHOLD's population; 0: none), from which bench
     * reports the device bytes per unit and per pending event. */
    int64_t (*size)(const scenario *sc, int64_t *pending);
    /* --sizes: the -s overrides ("section.key=value", at most MAX) that make SC about N
     * units at the same density; the count written, or -1 with ERR set. */
    int (*resize)(const scenario *sc, int64_t n, char out[][96], int max, cn_error *err);
    /* The kernel-shape self-test's cases and tune's scenarios (above); NULL: none. */
    const model_shapes *shapes;
} model_bench;

/* A knob of the model that the run may choose as it goes (adaptive granularity,
 * engine/granularity.h): a way of grouping its work that never changes its results. */
typedef struct model_knob {
    const char *name;       /* its key ("section.key"), for the outputs */
    /* Whether the run chooses it (1; 0: the scenario fixed it at *START; -1: this run has
     * no such knob), and the values it may then take, [*LO, *HI], starting at *START. */
    int (*range)(const struct model_state *m, int64_t *lo, int64_t *hi, int64_t *start);
    /* The value for the next steps (within the range). */
    void (*set)(struct model_state *m, int64_t value);
    /* Whether a step costs a fixed part plus a part in proportion to the value (as windows
     * per launch do when every window costs alike): the run may then ramp straight to the
     * longest steps it allows (engine/granularity.h). */
    int proportional;
} model_knob;

typedef struct model_ops {
    const char *name;
    const event_kind *kinds;
    int n_kinds;
    const char *const *flows; /* the state arrays the kinds' masks name (at most 32): the
                               * plan-order check's sentences name them */
    int n_flows;
    int sync;               /* enum engine_sync */
    /* The sync mode of this run when the scenario decides it (the flood: batches of whole
     * packets in static scenarios, fixed windows otherwise), asked once after create; NULL:
     * SYNC. */
    int (*run_sync)(const struct model_state *m);
    /* ENGINE_SYNC_BATCHES: what window_outcome's DONE and TOTAL count, in words ("packets") */
    const char *batch_unit;
    unsigned features;      /* MODEL_PACKET_ROWS, MODEL_KERNEL_SHAPES */
    /* MODEL_PACKET_ROWS: the option of `run` that asks for them ("--packets", "--lookups") */
    const char *rows_option;
    /* The knob the run may choose (above); NULL: none */
    const model_knob *knob;
    /* ENGINE_SYNC_EVENT: the next window's begin, the least time of a pending event */
    sim_time_ns (*next_begin)(const struct model_state *m);
    /* The model's metrics (report/metric.h): its results, in JSON order, how partial values
     * combine, the contract members and the summary's lines. results() fills them
     * (results_declare, then results_set by name). */
    const metric_set *metrics;
    /* selftest's reference and bench's sizes (above); NULL: the model has neither */
    const model_bench *bench;
    /* Allocates the flows on DEVS (partition p lives on devs[p % n]) and builds what the
     * first window needs. */
    int (*create)(struct model_state **out, const scenario *sc, device_ctx *const *devs, int n_devs,
                  cn_error *err);
    sim_time_ns (*lookahead)(const struct model_state *m);
    /* Fills PLAN (index, begin, end already set) with the event sets due in the window. */
    int (*plan_window)(struct model_state *m, window_plan *plan, cn_error *err);
    /* Enqueues SET on DEV; hands back the profiling events of its kernels (at most
     * ENGINE_MAX_SET_EVENTS), which the engine times and releases after end_window. */
    int (*run_set)(struct model_state *m, const window_plan *plan, const event_set *set,
                   device_ctx *dev, cl_event *evs, int *n_evs, cn_error *err);
    /* Partitions: how many, the device each was placed on (an index into DEVS) and the bytes
     * of its flows (what a migration moves). */
    int (*n_partitions)(const struct model_state *m);
    int (*partition_home)(const struct model_state *m, int partition);
    uint64_t (*partition_bytes)(const struct model_state *m, int partition);
    /* Moves PARTITION's flows to device TO and reports the bytes moved. NULL when the model
     * cannot move partitions: the injector then runs every set where its partition lives. */
    int (*migrate)(struct model_state *m, int partition, int to, uint64_t *bytes, cn_error *err);
    /* DEV failed in the window of PLAN (a set enqueued there, or the window's end): the model
     * goes on without it and appends to PLAN the sets of the window that ran there and must
     * run again elsewhere (the engine then runs them and ends the window again). Returns 0, or
     * an error when it cannot go on without DEV's state: the engine then starts the run again
     * without DEV. NULL: the model never goes on in place. */
    int (*device_lost)(struct model_state *m, device_ctx *dev, window_plan *plan, cn_error *err);
    /* Reads back the few bytes that size the next window and says what comes next. */
    int (*end_window)(struct model_state *m, const window_plan *plan, window_outcome *out,
                      cn_error *err);
    /* Several MPI ranks (docs/architecture.md, "Several ranks"): the model holds the
     * partitions that the rule of contiguous ranges gives its rank (dist_range_rank), and
     * end_window leaves the records for other ranks' partitions in its exchange. The engine
     * then calls END_RANKS on every rank, once per window, also on a rank where the window
     * failed (FAILED non-zero: it only takes part), which carries those records in the
     * exchange's one collective (exchange_flush) and finishes the window with what arrived:
     * OUT as end_window's, of this rank's partitions (next_begin too); the engine agrees on
     * the run's. Returns FAILED, DIST_PEER_FAILED when another rank failed, or an error.
     * NULL: the model does not run over several ranks. */
    int (*end_ranks)(struct model_state *m, const window_plan *plan, int failed,
                     window_outcome *out, cn_error *err);
    /* Several ranks, before the first window, once every rank's set-up succeeded: the
     * model's own agreements (a collective on every rank: what every rank has, which its
     * batches may depend on). Returns 0 or the error agreed by every rank. NULL: none. */
    int (*start_ranks)(struct model_state *m, cn_error *err);
    /* Checkpoints (engine/checkpoint.h). CAN_CHECKPOINT: 0 when SAVE will work for this
     * model, else an error saying what it does not support (asked before the first window).
     * SAVE appends the model's complete state at the boundary before window NEXT (every
     * window before it done; the model may wait for its devices) to OUT. RESTORE puts that
     * state into a model just created from the same scenario, on any devices. CHECK_CHECKPOINT
     * checks IN against its scenario SC with no device, every record the model reads and the
     * engine's (ckpt_get_progress), before anything is restored: the engine calls it before
     * RESTORE, which may then trust the file's counts. NULL: the model has no checkpoints. */
    int (*can_checkpoint)(const struct model_state *m, cn_error *err);
    int (*check_checkpoint)(const ckpt_file *in, const scenario *sc, cn_error *err);
    /* Before the model of a resumed run is created: what its scenario SC takes from the
     * checkpoint IN (a partition count the scenario left to the devices, so that the run
     * resumes on any number of devices or MPI ranks). NULL: nothing. */
    int (*resume_scenario)(const ckpt_file *in, scenario *sc, cn_error *err);
    int (*save)(struct model_state *m, int64_t next, ckpt_buf *out, cn_error *err);
    int (*restore)(struct model_state *m, int64_t next, const ckpt_file *in, cn_error *err);
    /* Final counters (the determinism-contract members) and device memory in use. */
    int (*results)(struct model_state *m, run_results *res, cn_error *err);
    void (*destroy)(struct model_state *m);
} model_ops;

/* Looks a model up by its [simulation] model name. */
const model_ops *model_find(const char *name);
/* The I-th model of the table (host/models/models.c), NULL past its end. */
const model_ops *model_at(int i);

typedef struct engine_options {
    int progress;              /* draw a progress line on stderr (terminal only) */
    const char *trace_path;    /* --trace-inject: CSV of every decision, or NULL */
    FILE *show_feedback;       /* --show-feedback: print the feedback table here, or NULL */
    /* When *STOP becomes non-zero (a signal handler sets it), the run stops at the end of
     * the current window and its results so far are returned with RES->interrupted set.
     * NULL: never. */
    volatile sig_atomic_t *stop;
    FILE *log;                 /* warnings (a device left out), or NULL */
    /* Checkpoints (docs/when-things-go-wrong.md): the run's state is written atomically to
     * CHECKPOINT at the first window boundary after every CHECKPOINT_EVERY_NS of simulated
     * time (0: never) or CHECKPOINT_WALL_S seconds of wall time (0: never), and when a signal
     * stops the run. NULL: no checkpoints. SCENARIO_TEXT, the configuration as --dump-config
     * prints it, goes into each one, so that a checkpoint resumes on its own. */
    const char *checkpoint;
    int64_t checkpoint_every_ns;
    double checkpoint_wall_s;
    const char *scenario_text;
    /* Resuming: the run continues from this checkpoint (read and checked by the caller, whose
     * scenario came from it), on whatever devices are given. NULL: from the start. */
    const ckpt_file *resume;
    /* wall_seconds() when the set-up began (the devices' opening, self-test and kernel builds
     * come before engine_run); 0: when engine_run creates the model. */
    double setup_started;
    /* Several ranks: the cores this rank's threads may run on (dist_cores_place), reported
     * with its devices. NULL: not reported. */
    const char *rank_cores;
} engine_options;

/* The engine's own records of a checkpoint (CKPT_SCENARIO, CKPT_NEXT, ...): checkpoint.h. */

/* Runs SC on DEVS to the end and fills RES (counters, windows, wall time, per-device work;
 * every device of DEVS is reported, those marked failed too).
 *
 * Failing devices ([devices] on_failure, docs/when-things-go-wrong.md): a device already
 * marked failed (at set-up, device_mark_failed) is not used. With on_failure = continue, a
 * device whose call fails (cn_error.device) while others are left is marked failed and left
 * out, with a warning line to OPT->log: in place when the model can go on without it
 * (model_ops.device_lost), otherwise by starting the run again on the others (results depend
 * only on the scenario). With stop, or when no other device is left, the error ends the run. */
int engine_run(const scenario *sc, device_ctx *const *devs, int n_devs,
               const engine_options *opt, run_results *res, cn_error *err);

/* Window index holding time T for window length L (T >= 0). */
static inline int64_t window_of(sim_time_ns t, sim_time_ns L) { return t / L; }

#endif
