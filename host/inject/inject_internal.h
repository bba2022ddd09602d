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
} pending_decision;

struct inject_private {
    pending_decision *pending; /* in decision order, so sorted by id */
    int n_pending, cap_pending;
    uint64_t *tries;           /* [kind * n_devices + device]: sets of the kind sent there */
    int *in_flight;            /* per device: enqueued sets not completed */
    double *slowdown;          /* per device: CLNETSIM_TEST_DEVICE_SLOWDOWN factor (1: none) */
    uint64_t turn[2];          /* rapid, per device class: whose turn it is */
    int mode_chosen;           /* hybrid: the first window has chosen the mode */
    /* --trace-inject */
    FILE *trace;
    char *trace_path, *trace_tmp;
    char **kind_names;
    int trace_errno;           /* why a write failed or a row was lost (0: none): close fails */
};

/* inject_policy.c */
int inject_choose(injector *inj, int kind, int partition, uint64_t multiplicity,
                  uint64_t partition_bytes, inject_policy *decided_by);
void inject_learn_thresholds(injector *inj);

/* inject_trace.c */
void inject_trace_rows(injector *inj, const pending_decision *rows, int n);
void inject_trace_discard(injector *inj);

#endif
