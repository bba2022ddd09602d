/* Private to host/inject: the bookkeeping shared by the injector's files. inject.c keeps the
 * decisions in flight, inject_policy.c chooses devices, inject_trace.c writes --trace-inject and
 * inject_report.c prints --show-feedback. */
#ifndef CLNETSIM_INJECT_INTERNAL_H
#define CLNETSIM_INJECT_INTERNAL_H
#include "inject/inject.h"

/* A decision whose row has not been written yet: in flight, or measured behind an older one
 * still in flight. */
typedef struct pending_decision {
    inject_decision d;
    int kind, partition;
    int64_t window;
    uint64_t multiplicity;
    double measured_s;  /* < 0: not measured (or the measurement was not valid) */
    double backlog_s;   /* what inject_enqueued() added to the device's backlog */
    int enqueued, done;
    int settled;        /* known finished (inject_settle), its backlog taken back */
} pending_decision;

struct inject_private {
    pending_decision *pending; /* in decision order, so sorted by id */
    int n_pending, cap_pending;
    uint64_t *tries;           /* [kind * n_devices + device]: sets of the kind sent there */
    int *in_flight;            /* per device: enqueued sets not completed */
    double *slowdown;          /* per device: CLNETSIM_TEST_DEVICE_SLOWDOWN factor (1: none) */
    int migrate_every;         /* CLNETSIM_TEST_MIGRATE_EVERY (0: none) */
    uint64_t turn[2];          /* rapid, per device class: whose turn it is */
    int mode_chosen;           /* hybrid: the first window has chosen the mode */
    /* inject_window_plan(): per partition, the device chosen for all its sets of the window
     * pinned_window (-1: none), and the policy that chose it */
    int64_t *pinned_window;
    int *pinned_device;
    inject_policy *pinned_policy;
    inject_set *scratch;       /* the window's sets, grouped by partition */
    int *group_at, *group_n;   /* per partition: where its run in scratch starts, its length */
    double *planned_s;         /* per device: predicted seconds chosen so far in the plan */
    struct plan_entry {        /* per partition of the plan: the order it is placed in */
        double home_s;         /* its sets' predicted seconds at home (< 0: unknown) */
        int first, partition;  /* its first set's index in the plan */
    } *plan_order;
    int cap_scratch;
    /* --trace-inject */
    FILE *trace;               /* trace_out->file while the trace is open */
    struct json_output *trace_out;
    char **kind_names;
    int trace_errno;           /* why a write failed or a row was lost (0: none): close fails */
};

/* inject_policy.c */
/* The device for SETS (N of them, all of PARTITION): where its home goes for them. */
int inject_choose_sets(injector *inj, int partition, const inject_set *sets, int n,
                       inject_policy *decided_by);
void inject_learn_thresholds(injector *inj);

/* Predicted seconds of SETS on DEVICE: the sum of their kinds' lines; negative when one of
 * them cannot be predicted there yet. */
double inject_predict_sets(const injector *inj, int device, const inject_set *sets, int n);

/* inject_trace.c */
void inject_trace_rows(injector *inj, const pending_decision *rows, int n);
void inject_trace_discard(injector *inj);

#endif
