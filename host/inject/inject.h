/* The injector: decides which device queue runs each event set, and keeps the feedback table
 * of measured times it learns from. Its decisions never change results (docs/architecture.md,
 * "Determinism contract"); they only move work. docs/injector.md explains the policies to
 * users.
 *
 * Residency: every partition's flows live on one device (its home). A set that runs on a
 * device other than its partition's home migrates the partition there first (the engine asks
 * the model to move it); the injector prices that move from the partition's size and the
 * transfer rates it has measured.
 *
 * Life of a set: inject_window_plan() (or inject_window_begin()) once per window, then per
 * set inject_decide() (returns the device and whether the partition migrates), then
 * inject_enqueued() once the model has enqueued it (with the bytes it moved, if it migrated),
 * and inject_complete() when its profiling events have completed, with the measured device
 * time. Decisions are numbered in the order they are made; completions may come later and in
 * any order. */
#ifndef CLNETSIM_INJECT_H
#define CLNETSIM_INJECT_H
#include <stdint.h>
#include <stdio.h>

#include "common/error.h"

typedef enum inject_policy {
    INJECT_STATIC = 0,   /* partitions stay on the device they were placed on */
    INJECT_RAPID = 1,    /* multiplicity threshold: large sets to GPUs, small ones to CPUs */
    INJECT_ADVANCED = 2, /* least predicted finish time, migration priced in */
    INJECT_HYBRID = 3,   /* rapid or advanced by how full the input is, held for some windows */
} inject_policy;

typedef enum inject_device_class {
    INJECT_CPU = 0,
    INJECT_GPU = 1,      /* GPUs and accelerators: high throughput, high launch latency */
} inject_device_class;

typedef struct inject_config {
    inject_policy policy;
    int history;         /* samples kept per (kind, device), >= 2 ([inject] history) */
    int hold;            /* windows hybrid keeps its choice ([inject] hold) */
    uint64_t threshold;  /* rapid: fixed multiplicity threshold, 0 = learnt ([inject] threshold) */
    int busy;            /* hybrid: sets per device per window above which rapid decides */
    int can_migrate;     /* 0: the model cannot move partitions; every set runs at home */
    double calibration_share; /* trials that migrate cost at most this share of the measured
                                 device time ([inject] calibration_share; 0: no limit) */
    /* The engine steps in batches, not windows, and the units it places are chunks of a
     * batch, not partitions (ENGINE_SYNC_BATCHES): --trace-inject and --show-feedback say so.
     * The policies are the same; a window's count (HOLD, BUSY) is then a batch's. */
    int batches;
} inject_config;

/* Recent (multiplicity, seconds) samples of one kind on one device. */
typedef struct feedback_series {
    uint64_t launches;        /* all launches seen, including the discarded first one */
    int n, next;              /* ring of the last `history` kept samples */
    uint64_t *multiplicity;
    double *seconds;
    double total_seconds;     /* busy time of every launch */
    double first_seconds;     /* of which the discarded first launch */
    uint64_t total_events;
} feedback_series;

typedef struct feedback_table {
    int n_kinds, n_devices, history;
    feedback_series *series;  /* [kind * n_devices + device] */
    /* per device: measured host<->device transfers (bytes and seconds, all of them) */
    double *transfer_bytes, *transfer_seconds;
} feedback_table;

int feedback_init(feedback_table *t, int n_kinds, int n_devices, int history);
void feedback_free(feedback_table *t);
/* Records one measured launch. The first launch of a kind on a device counts as busy time but
 * is not kept as a sample: it carries compilation and warm-up. Times that are not finite or
 * negative are ignored. */
void feedback_record(feedback_table *t, int kind, int device, uint64_t multiplicity,
                     double seconds);
const feedback_series *feedback_get(const feedback_table *t, int kind, int device);
/* The line seconds = *A + *B * multiplicity fitted to the kept samples of KIND on DEVICE:
 * least squares when it is usable (two samples or more, a spread in multiplicity, A >= 0 and
 * B >= 0); otherwise a line through the origin with the samples' seconds per event (or their
 * mean time when every sample has multiplicity 0). Returns 0, or -1 when there is no sample. */
int feedback_fit(const feedback_table *t, int kind, int device, double *a, double *b);
/* Predicted seconds for MULTIPLICITY events: the line of feedback_fit(); negative when there
 * are no samples yet. */
double feedback_predict(const feedback_table *t, int kind, int device, uint64_t multiplicity);
/* Records a measured transfer of BYTES to or from DEVICE. */
void feedback_record_transfer(feedback_table *t, int device, uint64_t bytes, double seconds);
/* Bytes per second measured for DEVICE; negative before any transfer. */
double feedback_transfer_rate(const feedback_table *t, int device);

/* Constants of the policies (docs/injector.md explains them). */
#define INJECT_DEFAULT_THRESHOLD 4096u     /* rapid: until a crossover can be learnt */
#define INJECT_THRESHOLD_NEVER UINT64_MAX  /* rapid: large sets are no faster on a GPU */
#define INJECT_CALIBRATION_TRIES 2         /* sets tried per (kind, device): 1st discarded */
#define INJECT_HYSTERESIS 0.10             /* advanced: share of the home's finish to save */
#define INJECT_TRIAL_SLOWDOWN 4.0          /* a trial's sets priced at this many times home's */
#define INJECT_DEFAULT_GPU_RATE 8e9        /* bytes/s of a migration touching a GPU, guessed */
#define INJECT_DEFAULT_CPU_RATE 10e9       /* bytes/s of a migration between CPUs, guessed */

/* One decision, as inject_decide() returns it. */
typedef struct inject_decision {
    uint64_t id;              /* number of the decision in the run, from 0 */
    int device;               /* where the set runs */
    int migrate;              /* 1: the partition moves from `from` to `device` first */
    int from;                 /* the partition's home before the decision */
    double predicted_s;       /* predicted compute time on `device` (< 0: unknown yet) */
    inject_policy policy;     /* the policy that decided (rapid or advanced under hybrid) */
} inject_decision;

typedef struct injector {
    inject_config cfg;
    int n_kinds, n_devices, n_partitions;
    inject_device_class *device_class;
    int *home;                /* device holding each partition */
    double *backlog_s;        /* predicted seconds enqueued and not completed, per device */
    /* per device, for the report: sets, their events, the bytes moved in; the sets run
     * untimed (inject_unmeasured) and their estimated seconds, which the reported busy time
     * adds to the measured ones */
    uint64_t *sets_per_device, *events_per_device, *bytes_moved;
    uint64_t *untimed_sets;
    double *estimated_s;
    /* per policy that decided (index inject_policy) */
    uint64_t decisions[4];
    uint64_t migrations;
    uint64_t next_id;
    inject_policy mode;       /* hybrid: the policy in force */
    int64_t mode_since;       /* hybrid: window of the last switch */
    uint64_t mode_switches;   /* hybrid: switches between rapid and advanced */
    /* rapid, per kind: the threshold in force (cfg.threshold, learnt or the default), and the
     * learnt crossover multiplicity (< 0 until both classes have a calibrated device) */
    uint64_t *threshold;
    double *crossover;
    int64_t window;           /* current window */
    int sets_in_window;
    int *lost;                /* per device: left out after a failure (inject_device_lost) */
    feedback_table feedback;
    /* private bookkeeping of decisions not yet completed, the trace, the test hook */
    struct inject_private *priv;
} injector;

/* N_DEVICES devices of the given classes; N_PARTITIONS partitions with their initial homes
 * (HOME[p]); NULL deals them round-robin. Returns 0, or -1 when out of memory. */
int inject_init(injector *inj, const inject_config *cfg, int n_kinds, int n_devices,
                const inject_device_class *classes, int n_partitions, const int *home);
void inject_free(injector *inj);

/* A new window with N_SETS sets due (hybrid measures how full its input is from this). Each
 * inject_decide() that follows then chooses for its set alone. */
void inject_window_begin(injector *inj, int64_t window, int n_sets);

/* One set of a window's plan, as inject_window_plan() takes it. */
typedef struct inject_set {
    int kind, partition;
    uint64_t multiplicity;
    uint64_t partition_bytes; /* the size of the partition's flows (what a migration moves) */
} inject_set;

/* A new window with its N_SETS sets: like inject_window_begin(), and then one choice per
 * partition for all its sets of the window, priced together (the sum of their predicted
 * times; under rapid, a GPU when one of them reaches its kind's threshold). A partition's
 * sets depend on each other and on its flows, so splitting them over devices would move the
 * partition back and forth within a window. inject_decide() then hands out these choices:
 * the first set of a partition that changes device migrates it, the others follow.
 * Returns 0, or -1 when out of memory (the sets are then decided one by one). */
int inject_window_plan(injector *inj, int64_t window, const inject_set *sets, int n_sets);
/* Where a set of KIND on PARTITION with MULTIPLICITY events runs. PARTITION_BYTES is the size
 * of the partition's flows, what a migration would move. Updates the homes when it migrates. */
inject_decision inject_decide(injector *inj, int kind, int partition, uint64_t multiplicity,
                              uint64_t partition_bytes);
/* The set of decision D was enqueued; MOVED_BYTES and MOVE_SECONDS describe its migration
 * (0 when none). */
void inject_enqueued(injector *inj, const inject_decision *d, uint64_t multiplicity,
                     uint64_t moved_bytes, double move_seconds);
/* DEVICE failed and the run goes on without it: no policy chooses it again, and the
 * partitions it was home to move to the live devices, each to the one with the fewest
 * partitions (the lowest number among equals), without a migration: the model gives them to
 * the device that runs them. Returns 0, or -1 when no other device is live (nothing
 * changes). */
int inject_device_lost(injector *inj, int device);
/* Partition P lives on DEVICE now, moved there from outside the injector (over several MPI
 * ranks, from another rank: the model says where it put it). A lost device is never one. */
void inject_set_home(injector *inj, int partition, int device);
/* The devices not lost. */
int inject_live_devices(const injector *inj);
/* The set of decision ID finished after SECONDS of device time. */
void inject_complete(injector *inj, uint64_t id, double seconds);
/* The set of decision ID finished, launched without profiling events (an untimed window,
 * window_plan.timed): it is no sample, and its device's busy time counts it at the injector's
 * estimate, taken now (inject_estimate_seconds). */
void inject_unmeasured(injector *inj, uint64_t id);
/* What a set of KIND with MULTIPLICITY events is thought to have taken on DEVICE: the
 * feedback table's prediction; before any sample is kept, the mean of the kind's measured
 * launches there (the warm-up one included); 0 when none was measured. */
double inject_estimate_seconds(const injector *inj, int kind, int device, uint64_t multiplicity);
/* Every set enqueued so far has finished (the model waited for it), though its time may be
 * read later: the devices' backlogs drop to what was not enqueued yet. The engine reads the
 * times after feeding the next window, off the path from one window's read-back to the next
 * launches. */
void inject_settle(injector *inj);

/* --trace-inject: one CSV row per decision (window, kind, partition, multiplicity, device,
 * predicted_s, measured_s, policy, migrated), written in decision order once measured.
 * KIND_NAMES name the kinds (NULL: numbers). Returns 0, or -1 when PATH cannot be opened
 * (the reason in ERR, when not NULL). */
int inject_trace_open(injector *inj, const char *path, const char *const *kind_names,
                      cn_error *err);
/* Writes what remains and closes the trace; returns 0, or -1 on a write error (in ERR). The
 * trace is written as every output is (report.h, output_file_open): to a temporary file
 * renamed here, so a failed run never leaves a partial trace (inject_free() removes a trace
 * that was not closed), or in place to a device or a FIFO. */
int inject_trace_close(injector *inj, cn_error *err);

/* --show-feedback: the feedback table, one block per kind and device. */
void inject_print_feedback(const injector *inj, const char *const *kind_names,
                           const char *const *device_names, FILE *out);

/* Seconds that moving BYTES of a partition from device FROM to device TO is expected to take:
 * BYTES over the rate measured for migrations into TO, or over the default rate until one has
 * been measured (INJECT_DEFAULT_GPU_RATE when either device is a GPU, else the CPU rate). */
double inject_move_seconds(const injector *inj, int from, int to, uint64_t bytes);

/* "static", "rapid", "advanced" or "hybrid". */
const char *inject_policy_name(inject_policy p);

#endif
