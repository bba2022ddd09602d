/* The injector: decides which device queue runs each event set, and keeps the feedback table
 * of measured times it learns from. Its decisions never change results (DESIGN.md,
 * "Determinism contract"); they only move work.
 *
 * With one partition per run, every policy places all sets on the device that holds the
 * partition; the table is filled all the same, so the policies that route by it have data
 * from the first window on. */
#ifndef CLNETSIM_INJECT_H
#define CLNETSIM_INJECT_H
#include <stdint.h>

typedef enum inject_policy {
    INJECT_STATIC = 0, /* partitions stay on the device they were placed on */
} inject_policy;

#define FEEDBACK_HISTORY 64

/* Recent (multiplicity, seconds) samples of one kind on one device. */
typedef struct feedback_series {
    uint64_t launches;        /* all launches seen, including the discarded first one */
    int n, next;              /* ring of the last FEEDBACK_HISTORY kept samples */
    uint64_t multiplicity[FEEDBACK_HISTORY];
    double seconds[FEEDBACK_HISTORY];
    double total_seconds;     /* busy time of every launch */
    uint64_t total_events;
} feedback_series;

typedef struct feedback_table {
    int n_kinds, n_devices;
    feedback_series *series;  /* [kind * n_devices + device] */
} feedback_table;

int feedback_init(feedback_table *t, int n_kinds, int n_devices);
void feedback_free(feedback_table *t);
/* Records one measured launch. The first launch of a kind on a device counts as busy time but
 * is not kept as a sample: it carries compilation and warm-up. */
void feedback_record(feedback_table *t, int kind, int device, uint64_t multiplicity,
                     double seconds);
const feedback_series *feedback_get(const feedback_table *t, int kind, int device);
/* Predicted seconds for MULTIPLICITY events from the kept samples (least squares line through
 * time against multiplicity); negative when there are no samples yet. */
double feedback_predict(const feedback_table *t, int kind, int device, uint64_t multiplicity);

typedef struct injector {
    inject_policy policy;
    int n_devices;
    int n_partitions;
    int *home;                /* device holding each partition */
    uint64_t *sets_per_device;
    uint64_t *events_per_device;
    feedback_table feedback;
} injector;

int inject_init(injector *inj, inject_policy policy, int n_kinds, int n_devices,
                int n_partitions);
void inject_free(injector *inj);
/* Device for a set of KIND on PARTITION with MULTIPLICITY events. */
int inject_choose(injector *inj, int kind, int partition, uint64_t multiplicity);
/* Measured time of a set that ran on DEVICE. */
void inject_feedback(injector *inj, int kind, int device, uint64_t multiplicity, double seconds);

#endif
