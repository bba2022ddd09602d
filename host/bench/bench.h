/* Benchmarks and self-tests: one scenario on each selected device separately, timed after a
 * warm-up, with the determinism-contract outputs compared across runs and devices; result
 * tables, JSON and CSV files, comparison with an earlier result file; and the per-device
 * self-test (Philox known answers, then small scenarios against the sequential reference of
 * host/oracle). `clnetsim bench` and `clnetsim selftest` (host/cli) are thin layers on this. */
#ifndef CLNETSIM_BENCH_H
#define CLNETSIM_BENCH_H
#include <stdint.h>
#include <stdio.h>

#include "common/error.h"
#include "config/config.h"
#include "device/device.h"
#include "engine/engine.h"
#include "report/report.h"

#define BENCH_MAX_REPEAT 1000
#define BENCH_MAX_DEVICES 16
#define BENCH_MAX_OVERRIDES 8

/* One device's runs of one scenario. */
typedef struct bench_row {
    int index;                  /* in the listing of `clnetsim devices` */
    char name[256];
    char platform[128];
    char type[16];
    int failed;                 /* the device could not run the scenario: see error */
    char error[2048];
    int n_runs;
    double runs[BENCH_MAX_REPEAT]; /* simulation wall time of each timed run, s */
    double median_s, min_s, max_s;
    double setup_s;             /* of the last run: model allocation, placement */
    uint64_t events;            /* the model's executed events (results_events) */
    double events_per_s;        /* events / median */
    double speedup;             /* slowest device's median / this one's */
    uint64_t device_bytes;      /* peak device memory of the model (of the first timed run) */
    char work_groups[1024];     /* "kernel=size ..." as chosen for the runs */
    int64_t windows;            /* the scenario's windows (0 for a run of batches) */
    double per_window_us;       /* median / windows, when it ran windows */
    device_floor floor;         /* the device's empty window (device_window_floor) */
    run_results first;          /* the first timed run's results (its contract members) */
} bench_row;

/* One scenario (at one size) on every device. */
typedef struct bench_case {
    char name[128];             /* the scenario's file name without ".ini" */
    char path[1024];            /* file, or "(built in) bench/NAME.ini" */
    int64_t nodes;              /* the flood's nodes; PHOLD's LPs (bench_case_size) */
    int64_t population;         /* PHOLD: events per LP at the start, pending all along; else 0 */
    int n_overrides;            /* the sizing overrides of --sizes, if any */
    char overrides[BENCH_MAX_OVERRIDES][96];
    int n_rows;
    bench_row rows[BENCH_MAX_DEVICES];
    int agree;                  /* every run of every device gave the same contract members */
    char mismatch[1024];        /* when not: the first difference, naming both devices */
} bench_case;

typedef struct bench_options {
    int warmup;                 /* untimed runs per device first (kernel build, caches) */
    int repeat;                 /* timed runs per device */
    FILE *progress;             /* a line per device and scenario, or NULL */
    const char *const *set;     /* the user's -s overrides of every scenario, in order */
    int n_set;
} bench_options;

/* Runs SC on each of DEVS separately (warm-up, then REPEAT timed runs) and fills C (name,
 * path, nodes and overrides are the caller's). A device that fails is marked failed with the
 * message and the others go on; the contract check covers the devices that ran. Returns
 * CN_ERR_RUNTIME only when no device could run, 0 otherwise (see C->agree and rows' failed). */
int bench_run_case(bench_case *c, const scenario *sc, device_ctx *devs, int n_devs,
                   const bench_options *opt, cn_error *err);

/* The first difference between two runs' determinism-contract members, as "receptions:
 * 123 vs 124" in BUF; returns 0 when they are equal. Compared: model, seed, the declared
 * contract members present (run_results.metrics) in order, by name and value (a derived
 * ratio by its operands), then the rows of the model's table. */
int bench_contract_diff(const run_results *a, const run_results *b, char *buf, size_t cap);

/* What a case's size counts: the LPs of a PHOLD scenario (and its population in
 * *POPULATION), else the flood's nodes (*POPULATION 0). */
int64_t bench_case_size(const scenario *sc, int64_t *population);

/* --sizes: the overrides that scale SC to about N nodes at the same density (grid: rows =
 * cols = round(sqrt(N)); uniform: nodes = N, width and height times sqrt(N / nodes), depth
 * kept; areas: N / count nodes per area, rows the largest divisor of it not above its square
 * root, N a multiple of the count; a destination at the last node stays at the last node;
 * PHOLD: lps = N, the events per LP kept). Returns the count written
 * into OUT, or -1 with ERR set when N is out of range for the scenario. */
int bench_size_overrides(const scenario *sc, int64_t n, char out[][96], int max,
                         cn_error *err);

/* "1000,16k,1M" -> node counts; returns how many, or -1 with ERR set. */
int bench_parse_sizes(const char *text, int64_t *out, int max, cn_error *err);

/* PHOLD's device memory per LP (R's device bytes over C's LPs) and per pending event (over
 * LPs x population); 0 where the case has no such count. */
double bench_bytes_per_lp(const bench_case *c, const bench_row *r);
double bench_bytes_per_event(const bench_case *c, const bench_row *r);

/* The human table of one case (one row per device). */
void bench_print_case(const bench_case *c, FILE *out);

/* Result files (the caller writes them atomically, report.h output_file_*): JSON with every
 * case, the machine, date and commit; CSV with a row per case and device. */
void bench_print_json(FILE *f, const bench_case *cases, int n_cases, const bench_options *opt);
void bench_print_csv(FILE *f, const bench_case *cases, int n_cases);

/* --compare: reads OLD (a file of bench_write_json) and prints, per case and device found in
 * both, the old and new medians and the change. Cases or devices in one only are listed as
 * such. Returns CN_ERR_INPUT with ERR set when OLD cannot be read or is not a bench file. */
int bench_compare(const char *old_path, const bench_case *cases, int n_cases, FILE *out,
                  cn_error *err);
/* Reads OLD as bench_compare would, and only says whether it can: checked before the runs. */
int bench_compare_check(const char *old_path, cn_error *err);

/* Test hook: CLNETSIM_TEST_SKEW_DEVICE=K adds one to the metric "receptions" (a model without
 * it: to its last contract member) of every run on the K-th device of a bench or selftest selection
 * (0-based), so that tests can see a mismatch reported. */
void bench_apply_test_skew(int position, run_results *res);

/* ---- selftest ---- */

#define SELFTEST_MAX_CASES 32

typedef struct selftest_verdict {
    int index;
    char name[256];
    char platform[128];
    int passed;
    int checks;                 /* checks run (known answers, scenarios) */
    char detail[2048];          /* the first failure, or what passed */
    int n_cases;                /* the scenarios run, in order: the last failed unless PASSED */
    struct selftest_case_run {
        const char *name;       /* string literals of selftest.c */
        const char *model;      /* its model's name (model_ops.name) */
        int passed;
    } cases[SELFTEST_MAX_CASES];
} selftest_verdict;

/* Runs the self-test on DEV (already opened; POSITION is its place in the selection, for the
 * test hook); a line per check goes to LOG unless NULL. Never fails itself: the outcome is
 * in V. */
void selftest_device(device_ctx *dev, int position, selftest_verdict *v, FILE *log);

/* `selftest --json`: the version and commit, and per device its verdict with the scenarios run
 * (name, model, passed). */
void selftest_print_json(FILE *f, const selftest_verdict *v, int n);

/* The first difference between a run R and WANT, the results of its model's sequential
 * reference (model_ops.bench->reference), in BUF: 1 when they differ, 0 when every member is
 * equal. Compared: model, seed, then every contract member R has against WANT's member of
 * that name (a ratio derived from other members aside), every contract member WANT has and R
 * lacks, and the rows of the model's table; a run that declares no contract member differs. */
int selftest_reference_differs(const run_results *r, const run_results *want, char *buf,
                               size_t cap);

/* ---- the kernel-shape self-test (shapes.c) ----
 * Every kernel of a model at every work-group size a run may choose (powers of two up to the
 * device's limit), in the small scenarios the model declares (model_bench.shapes), against
 * its sequential reference; shapes whose contract members differ are marked bad on the device
 * (DEV->bad) and never used there. */

#define SHAPES_MAX_FAILURES 8

typedef struct shapes_report {
    int n_sizes;                /* work-group sizes tested */
    char sizes[256];            /* and which, "1 8 256" */
    int runs;                   /* scenario runs, all sizes together */
    int n_failures;             /* the first SHAPES_MAX_FAILURES, as "work-groups of S, case:
                                 * difference" */
    char failures[SHAPES_MAX_FAILURES][512];
    char refused[192];          /* the kernel left with no good shape ("": none) */
    int first_bad;              /* DEV->bad from this index on: this test's verdicts */
    char detail[2048];          /* an internal error (shapes_test returned -1) */
    double wall_s;
} shapes_report;

/* MODEL's cases and tuning scenarios when it declares MODEL_KERNEL_SHAPES, else NULL. */
const model_shapes *shapes_of(const model_ops *model);
/* Whether KERNEL (a profile name) is of a family MS declares (model_shapes.families). */
int shapes_kernel_of(const model_shapes *ms, const char *kernel);

/* The work-group sizes a run of MODEL may choose on DEV (shapes.c says which) in SIZES,
 * sorted, or with SWEEP every power of two up to its limit; returns how many. */
int shapes_sizes(const device_ctx *dev, const model_ops *model, int sweep, size_t *sizes,
                 int cap);

/* Tests every shape of MODEL's kernels on DEV (already opened), adding the bad ones to
 * DEV->bad (another model's stay) and filling REP; LOG (or NULL) gets a line per run.
 * Returns 0, or -1 on an internal error (REP->detail). */
int shapes_test(device_ctx *dev, const model_ops *model, shapes_report *rep, FILE *log);

/* One line per kernel with bad shapes on DEV (DEV->bad from index FROM on), on OUT:
 * "clnetsim: warning: device D 'NAME' failed the self-test in shape KERNEL at work-groups of
 * S[, S...]: not used on this device". */
void shapes_warn(const device_ctx *dev, int from, FILE *out);

/* A device's first use by MODEL (nothing for a model without MODEL_KERNEL_SHAPES): loads its
 * cached verdicts, or tests every shape of the model's kernels (LOG, or NULL, gets one line
 * when it does) and caches them; then warns of each bad shape on WARN, and refuses a device
 * left without a good shape of some kernel (CN_ERR_RUNTIME, ERR names the device and the
 * kernel). Without a cache directory (CLNETSIM_NO_CACHE=1) the test runs every time. */
int shapes_ensure(device_ctx *dev, const model_ops *model, FILE *log, FILE *warn,
                  cn_error *err);

/* ---- tune: work-group sizes measured on the device ----
 * Every candidate size (powers of two from 8 to 1024, within the device's limit) is given to
 * every kernel at once, and a model's short tuning scenarios (model_shapes.tune_ini: the
 * flood's static grid and mobile flood, PHOLD's LPs in one and in several partitions) run
 * with every launch profiled; each kernel keeps the size at which its own device time was
 * least (minimum over the repeats), unless that is within TUNE_MARGIN of its time at the
 * profile's size. Sizes never change results, so kernels can be measured together. A kernel
 * with an entry in the platform profile keeps it (the static table); the others get the
 * measured size (the dynamic update), cached next to the kernel binaries: one file per
 * device, which names the models measured. */

#define TUNE_MAX_SIZES 9
#define TUNE_MARGIN 0.05        /* another size must be 5% faster than the profile's to win */

typedef struct tune_row {
    char kernel[64];
    size_t profile_size;        /* what the profile gives it (its entry, else its default) */
    int has_entry;              /* the profile has an entry for it: the tuned size is not used */
    size_t best;                /* the size of least time (the profile's within TUNE_MARGIN) */
    int measured;               /* the tuning scenarios launched it */
    double seconds[TUNE_MAX_SIZES]; /* per candidate; < 0 when the size was not reachable */
} tune_row;

typedef struct tune_report {
    const char *model;          /* whose scenarios ran (model_ops.name) */
    int n_sizes;
    size_t sizes[TUNE_MAX_SIZES];
    int n_rows, cap_rows;       /* a row per kernel launched: as many as the programs hold */
    tune_row *rows;
    double wall_s;              /* the search's own time */
} tune_report;

/* Measures MODEL's kernels on DEV (REPEAT runs per scenario and size), fills REP and
 * DEV->tuned (kernels without a profile entry; another model's stay), and stores the tuning
 * cache. With ONLY_MISSING, the search runs only when a kernel the scenarios launch has no
 * profile entry (REP->n_sizes is 0 otherwise). A model without MODEL_KERNEL_SHAPES: an
 * internal error. */
int tune_measure(device_ctx *dev, const model_ops *model, int repeat, int only_missing,
                 tune_report *rep, FILE *log, cn_error *err);
/* Frees REP's rows (REP itself zeroed first, or filled by tune_measure, which frees the rows
 * of a report it is given again). */
void tune_report_free(tune_report *rep);

/* The table of `clnetsim tune` for DEV. */
void tune_print(const device_ctx *dev, const tune_report *rep, FILE *out);

/* First use by MODEL (nothing for a model without MODEL_KERNEL_SHAPES): loads DEV's tuning
 * cache, or, when it does not name MODEL, measures (two runs per size, and only when the
 * profile lacks one of the model's kernels) and caches it. Nothing when --work-group is in
 * force, when there is no cache directory, or with CLNETSIM_NO_TUNE=1. LOG (or NULL) gets one
 * line when a search runs. */
int tune_ensure(device_ctx *dev, const model_ops *model, FILE *log, cn_error *err);

#endif
