/* Results of a run: the JSON summary of docs/model.md, "Outputs" (written atomically), the
 * human summary, and the progress line. */
#ifndef CLNETSIM_REPORT_H
#define CLNETSIM_REPORT_H
#include <stdint.h>
#include <stdio.h>

#include "common/error.h"
#include "common/wide.h"
#include "report/metric.h"
#include "report/records.h"

#define REPORT_MAX_DEVICES 16

typedef struct device_report {
    char name[256];
    char platform[128];
    char type[16];
    uint64_t event_sets;
    uint64_t timed_sets;    /* of them, those of timed windows (window_plan.timed) */
    uint64_t events;
    uint64_t bytes_moved;   /* partition migrations to this device */
    double busy_s;          /* measured over the timed sets, estimated for the others */
    double share;           /* its events over the events of every device */
    /* the run went on without it ([devices] on_failure = continue): its error's first line */
    int failed;
    char failure[512];
    int rank;               /* the MPI rank whose device it is (0 with one process) */
    char cores[64];         /* several ranks: the cores its rank ran on ("0-3,8"), or "" */
} device_report;

/* What the injector did (docs/injector.md). */
typedef struct inject_report {
    char policy[16];        /* the [inject] policy */
    uint64_t decisions[4];  /* by the policy that decided: static, rapid, advanced, hybrid */
    uint64_t migrations;
    uint64_t switches;      /* hybrid: changes between rapid and advanced */
    uint64_t exchanged_bytes; /* model data moved between devices at window boundaries */
} inject_report;

/* Where the host's time went in the window loop (measurements, docs/user-guide.md). */
typedef struct host_report {
    double plan_s;          /* planning windows and the injector's placement */
    double enqueue_s;       /* deciding and enqueuing event sets, migrations included */
    double end_window_s;    /* the models' ends of windows: read-backs and exchanges */
    double wait_s;          /* of which blocked waiting for devices (as the model reports) */
    uint64_t read_backs;    /* the model's read-backs of window results (as it reports) */
} host_report;

/* A run over several MPI ranks (docs/user-guide.md, "Several processes"): the records
 * between ranks and the time the ranks spent exchanging them and agreeing. */
typedef struct ranks_report {
    int count;              /* ranks; 1: one process (nothing written) */
    uint64_t sent_bytes;    /* records (and their words) sent between ranks, all ranks */
    double exchange_s;      /* the longest any rank spent in the windows' exchanges, */
    double agree_s;         /* and in their agreements (waiting for the slowest rank) */
    uint64_t moves;         /* partitions the coordinator moved between ranks */
    uint64_t looks;         /* times it compared the ranks' busy times */
} ranks_report;

/* Adaptive granularity (engine/granularity.h): the model's knob that the run chose as it
 * went, or that the scenario fixed; KNOB "" when the model has none. */
#define REPORT_MAX_RUNGS 48
typedef struct granularity_report {
    char knob[48];          /* its key, "section.key" */
    int adaptive;           /* 1: chosen by the run; 0: fixed by the scenario */
    int64_t start, final;   /* the value it began with and the one in force at the end */
    uint64_t periods, probes, moves; /* measured periods, neighbours tried, steps taken */
    uint64_t skipped;       /* steps left out of the measurements (irregular ones) */
    int n_rungs;            /* the ladder: each value and its measured events per second */
    int64_t rung_value[REPORT_MAX_RUNGS];
    double rung_rate[REPORT_MAX_RUNGS]; /* < 0: never measured */
} granularity_report;

/* values: an array metric (model_metric.elements) takes one per element */
#define REPORT_MAX_METRICS 160
#define REPORT_MAX_ROWS 16
#define REPORT_MAX_COLUMNS 8

typedef struct run_results {
    char model[32];
    uint64_t seed;
    /* the model's metrics (report/metric.h), typed values in the order DECLARED gives: the
     * determinism contract, identical on every device, policy and partition count. Filled
     * with results_declare, then results_set by name. DECLARED NULL: metrics appended by
     * results_add_metric, each an unsigned 64-bit contract member (tests build such runs). */
    const metric_set *declared;
    int n_metrics;
    struct result_metric {
        const char *name;    /* a string literal: the declaration's */
        wide_int value;      /* METRIC_LOSS: unused, derived when written */
        int set;             /* present in this run (an optional metric only once set) */
        /* how it combines over MPI ranks: 0, set whole (results_set: the same on every rank,
         * rank 0's is taken); 1, this process's partial value (results_reduce), combined
         * by the declared reduction; 2, partial, but no part of this process had one */
        int partial;
        /* its declaration (an index into DECLARED's metrics) and, for an array metric, the
         * element (an array's values follow one another, element 0 first) */
        short decl, elem;
    } metrics[REPORT_MAX_METRICS];
    /* the rows of DECLARED's table (the flood's flows), in order; none: no table member */
    int n_rows;
    struct result_row {
        char name[32];
        wide_int values[REPORT_MAX_COLUMNS]; /* in the table's column order */
    } rows[REPORT_MAX_ROWS];
    /* the engine's: simulated time reached and windows run (the summary's "simulated" line);
     * a model that makes them contract members declares metrics of their own too */
    int64_t end_time_ns;
    int64_t windows;
    /* a run of batches (the engine's ENGINE_SYNC_BATCHES: the flood's whole packets) instead
     * of windows: BATCHES run (a resumed run's from its start) and what they covered,
     * BATCH_DONE of the model's BATCH_UNIT ("packets"); the summary's "simulated" line and
     * the JSON's "batches" say them. WINDOWS stays the model's (the flood's contract member). */
    int batched;
    int64_t batches;
    uint64_t batch_done;
    char batch_unit[16];
    uint64_t model_events;   /* the model's executed events (events per second) */
    /* the model's per-record rows when the scenario asked for them (scenario.record_packets,
     * `run --packets`): shaped and filled by the model, released by results_free_records */
    record_table records;
    /* measurements */
    double wall_s;          /* simulation: from the first window to the final counters */
    double setup_s;         /* device open, kernel build, allocation and placement */
    double build_s;         /* of SETUP_S, the devices' kernel builds (or cache loads) */
    uint64_t device_bytes;  /* peak device memory allocated by the model */
    int n_devices;
    device_report devices[REPORT_MAX_DEVICES];
    inject_report injector;
    host_report host;
    ranks_report ranks;
    granularity_report granularity;
    char scenario_path[1024];
    /* a run stopped by a signal at a window boundary (docs/when-things-go-wrong.md): the
     * counters are those of the simulation up to REACHED_NS, and the JSON says
     * "complete": false; STOP_SIGNAL is the signal's number */
    int interrupted;
    int stop_signal;
    int64_t reached_ns;
    /* checkpoints (docs/when-things-go-wrong.md): how many this run wrote, and whether it
     * resumed from one, made at simulated time RESUMED_FROM_NS */
    int64_t checkpoints;
    int resumed;
    int64_t resumed_from_ns;
} run_results;

/* R's per-record rows as CSV (the header, then the rows in the model's order: they are
 * sorted here; record_table_write_csv); nothing when the run has none. */
int report_print_records(run_results *r, FILE *out);
void results_free_records(run_results *r);
uint64_t results_events(const run_results *r); /* model_events */
/* "SIGINT", "SIGTERM", "SIGHUP": the signal that stopped a run, for the outputs. */
const char *results_signal_name(int sig);

/* ---- metrics (report/metric.h) ---- */
/* Starts R's metrics as SET declares them: every metric in order, none set but those that
 * are not optional (0 until set), no rows. */
void results_declare(run_results *r, const metric_set *set);
/* Sets metric NAME to V (and makes it present). Returns 0, or -1 when R declares no such
 * metric (a model's mistake, caught by its tests). */
int results_set(run_results *r, const char *name, wide_int v);
/* Sets metric NAME to the combination of its N partial values PARTS (one per device,
 * partition or work-group, in any order) by its declared reduction (metric_combine): a model
 * hands the core what each of its parts counted and the core reduces, so that every model's
 * results combine by the same rules, and the reduction over MPI ranks (engine/rank_step.h)
 * applies the same function to the ranks' values. N 0: this process holds no part (a rank
 * without partitions); the ranks' reduction then leaves it out. A METRIC_I64 result outside the signed 64-bit range (more
 * events than any run makes: docs/when-things-go-wrong.md, "Overflow audit") is an error
 * rather than a wrapped number. Returns 0, or CN_ERR_RUNTIME with ERR set (an undeclared
 * NAME: a model's mistake). */
int results_reduce(run_results *r, const char *name, const wide_int *parts, size_t n,
                   cn_error *err);
/* The same for element ELEM of an array metric (model_metric.elements). */
int results_reduce_at(run_results *r, const char *name, int elem, const wide_int *parts,
                      size_t n, cn_error *err);
/* 0 when V, a combined value of metric M (NAME), can be reported: a METRIC_I64 beyond the
 * signed 64-bit range is CN_ERR_RUNTIME with ERR set (results_reduce, and the combination
 * over ranks, check their sums so). */
int results_fits(const model_metric *m, const char *name, wide_int v, cn_error *err);
/* Appends an undeclared metric (DECLARED NULL; ignored beyond REPORT_MAX_METRICS), or sets a
 * declared one. */
void results_add_metric(run_results *r, const char *name, uint64_t value);
/* Metric I's declaration: DECLARED's, or that of an unsigned 64-bit contract member. */
const model_metric *results_metric(const run_results *r, int i);
/* Index of the present metric NAME (an array's element 0), or -1. */
int results_find(const run_results *r, const char *name);
/* Sets element ELEM of the array metric NAME to V (ELEM 0 of a plain one: results_set);
 * -1 when R declares no such element. */
int results_set_at(run_results *r, const char *name, int elem, wide_int v);
/* Index of element ELEM of the present metric NAME, or -1. */
int results_find_at(const run_results *r, const char *name, int elem);
/* Metric I's values as the JSON writes them: results_text's, or for element 0 of an array
 * metric "[v0, v1, ...]" (CAP: RESULTS_VALUE_CAP holds any), and whether I is an
 * element after the first (nothing to write: 1). */
int results_value_text(const run_results *r, int i, char *out, size_t cap);
#define RESULTS_VALUE_CAP (WIDE_TEXT * REPORT_MAX_METRICS)
/* The value of the present metric NAME; 0 when absent. */
wide_int results_value(const run_results *r, const char *name);
int64_t results_i64(const run_results *r, const char *name);
/* Metric I as the JSON writes it (an integer in decimal, a ratio as %.17g). */
void results_text(const run_results *r, int i, char buf[WIDE_TEXT]);
/* The ratio of a METRIC_LOSS metric I. */
double results_ratio(const run_results *r, int i);
/* Appends a row named NAME to the table; returns its index, or -1 beyond REPORT_MAX_ROWS or
 * without a declared table. */
int results_add_row(run_results *r, const char *name);
/* Sets column NAME of row ROW; -1 when the table has no such column. */
int results_set_cell(run_results *r, int row, const char *name, wide_int v);
wide_int results_cell(const run_results *r, int row, const char *name);
/* Column C of row ROW as the JSON writes it. */
void results_cell_text(const run_results *r, int row, int c, char buf[WIDE_TEXT]);
double results_cell_ratio(const run_results *r, int row, int c);

/* JSON output through a temporary file in the same folder and a rename, so a failed run never
 * leaves a partial file. Opened before the run (a path that cannot be written is reported
 * before any work is done), committed after it, or aborted (the temporary file removed). */
typedef struct json_output {
    char path[1024];         /* as the user gave it, for messages */
    char target[4096];       /* the real file it will be (symbolic links resolved) */
    char tmp_path[4200];
    char what[32];           /* "JSON output", "CSV output": for messages */
    FILE *file;
    int finished;            /* written and closed, not yet renamed into place */
    int in_place;            /* a character device, a FIFO, /dev/stdout: written directly */
} json_output;

int json_output_open(json_output *o, const char *path, cn_error *err);
void json_output_abort(json_output *o);
/* The same for any file: open, write to O->file, then commit (flush, sync, rename) or abort.
 * Several files of one result are finished first (flush, sync, close: a write error, EFBIG
 * or ENOSPC, shows there) and published (renamed) only once all of them are finished, so a
 * failure leaves none of them rather than some. Errors are CN_ERR_INPUT, naming the file.
 * A symbolic link is followed: its target is replaced, the link stays. A character device
 * (/dev/null), a FIFO (refused when no process reads it) or /dev/stdout, /dev/stderr and
 * /dev/fd/N are written in place; any other kind of file is refused. Nothing but a regular
 * file is ever renamed over. */
int output_file_open(json_output *o, const char *path, const char *what, cn_error *err);
/* The same for a file that must be a regular one (or new): checkpoints. */
int output_file_open_regular(json_output *o, const char *path, const char *what,
                             cn_error *err);
int output_file_finish(json_output *o, cn_error *err);
int output_file_publish(json_output *o, cn_error *err);
int output_file_commit(json_output *o, cn_error *err); /* finish, then publish */
/* S as a JSON string, quotes included. */
void json_print_string(FILE *out, const char *s);
/* S as an RFC 4180 CSV field: as is, or quoted (inner quotes doubled) when it holds a comma,
 * a quote or a line break. */
void csv_print_field(FILE *out, const char *s);
/* Same object, to a stream. */
void report_print_json(const run_results *r, FILE *out);
void report_print_summary(const run_results *r, FILE *out);

/* Progress line on stderr, redrawn at most a few times per second, only on a terminal and only
 * once the run has lasted a second. CLNETSIM_TEST_PROGRESS=1 draws it at every update, on
 * whatever stderr is, one line each, so that tests can read it. */
typedef struct progress {
    int enabled;
    int every;              /* the test hook: every update, each on a line of its own */
    double started, last_draw;
    int drawn;
} progress;

void progress_init(progress *p, int enabled);
/* Windows: the simulated time reached, windows run, events so far and the estimated end. */
void progress_update(progress *p, int64_t sim_ns, int64_t windows, uint64_t events,
                     int64_t estimated_end_ns);
/* Batches: batches run, and DONE of TOTAL UNITs ("packets") covered, events so far. */
void progress_update_batches(progress *p, int64_t batches, uint64_t done, uint64_t total,
                             const char *unit, uint64_t events);
void progress_finish(progress *p);

/* Monotonic wall clock in seconds. */
double wall_seconds(void);

#endif
