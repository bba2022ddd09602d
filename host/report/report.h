/* Results of a run: the JSON summary of docs/model.md, "Outputs" (written atomically), the
 * human summary, and the progress line. */
#ifndef CLNETSIM_REPORT_H
#define CLNETSIM_REPORT_H
#include <stdint.h>
#include <stdio.h>

#include "common/error.h"
#include "common/wide.h"

#define REPORT_MAX_DEVICES 16

typedef struct device_report {
    char name[256];
    char platform[128];
    char type[16];
    uint64_t event_sets;
    uint64_t events;
    uint64_t bytes_moved;   /* partition migrations to this device */
    double busy_s;
    double share;           /* its events over the events of every device */
    /* the run went on without it ([devices] on_failure = continue): its error's first line */
    int failed;
    char failure[512];
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
} host_report;

#define REPORT_MAX_COUNTERS 8
#define REPORT_MAX_METRICS 16
#define REPORT_MAX_FLOWS 16

/* One packet's outcome (clnetsim run --packets FILE.csv, docs/models.md "Traffic"). */
typedef struct packet_record {
    int64_t packet, created_ns;
    uint32_t flow, source;
    int64_t delivered;       /* deliveries (0 or 1 for unicast) */
    int64_t latency_ns, hops; /* of the last delivery; -1 when none */
} packet_record;

/* One traffic flow's results (docs/models.md, "Traffic"). */
typedef struct flow_result {
    char name[32];
    int64_t generated, deliverable, delivered;
    wide_int hops_sum, latency_sum_ns; /* 128 bits: common/wide.h */
} flow_result;

typedef struct run_results {
    /* the determinism contract: identical on every device, policy and partition count */
    char model[32];
    uint64_t seed;
    int64_t nodes;
    int64_t generated;
    int64_t delivered;
    int64_t transmissions;
    int64_t receptions;
    int64_t first_receptions;
    wide_int hops_sum;       /* 128 bits: these sums can pass 2^63 (common/wide.h) */
    wide_int latency_sum_ns;
    int64_t end_time_ns;
    int64_t windows;
    /* a model with declared metrics (model_ops.metrics): its contract members, in order,
     * instead of the flood's above; MODEL_EVENTS its executed events (events per second) */
    int n_metrics;
    struct result_metric {
        const char *name;   /* a string literal */
        uint64_t value;
    } metrics[REPORT_MAX_METRICS];
    uint64_t model_events;
    /* counters of the model's extensions in use (docs/models.md), after these in the JSON:
     * part of the contract too */
    int n_counters;
    struct result_counter {
        const char *name;   /* a string literal */
        int64_t value;
    } counters[REPORT_MAX_COUNTERS];
    /* traffic flows ([traffic.flow NAME] sections): N_FLOWS > 0 adds deliverable and flows
     * to the JSON, and loss is then 1 - delivered / deliverable */
    int n_flows;
    int64_t deliverable;
    flow_result flows[REPORT_MAX_FLOWS];
    /* per-packet records when the scenario asked for them (scenario.record_packets):
     * malloc'ed, released by results_free_packets; the names of their flows */
    packet_record *packets;
    int64_t n_packets;
    char packet_flows[REPORT_MAX_FLOWS][32];
    /* measurements */
    double wall_s;          /* simulation: from the first window to the final counters */
    double setup_s;         /* device open, kernel build, allocation and placement */
    double build_s;         /* of SETUP_S, the devices' kernel builds (or cache loads) */
    uint64_t device_bytes;  /* peak device memory allocated by the model */
    int n_devices;
    device_report devices[REPORT_MAX_DEVICES];
    inject_report injector;
    host_report host;
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

/* loss = 1 - delivered / generated (with flows: / deliverable); 0 with nothing to deliver */
double results_loss(const run_results *r);
/* A flow's loss, by the same rule. */
double results_flow_loss(const flow_result *f);
/* The per-packet CSV (header, then R's records in packet id order: they are sorted here). */
int report_print_packets(run_results *r, FILE *out);
void results_free_packets(run_results *r);
uint64_t results_events(const run_results *r); /* transmissions + receptions */
/* "SIGINT", "SIGTERM", "SIGHUP": the signal that stopped a run, for the outputs. */
const char *results_signal_name(int sig);
/* Appends a declared metric's value (ignored beyond REPORT_MAX_METRICS). */
void results_add_metric(run_results *r, const char *name, uint64_t value);
/* Appends an extension counter (ignored beyond REPORT_MAX_COUNTERS: a model defines few). */
void results_add_counter(run_results *r, const char *name, int64_t value);

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
 * once the run has lasted a second. */
typedef struct progress {
    int enabled;
    double started, last_draw;
    int drawn;
} progress;

void progress_init(progress *p, int enabled);
void progress_update(progress *p, int64_t sim_ns, int64_t windows, uint64_t events,
                     int64_t estimated_end_ns);
void progress_finish(progress *p);

/* Monotonic wall clock in seconds. */
double wall_seconds(void);

#endif
