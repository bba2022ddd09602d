#include <stdlib.h>

#include "inject/inject.h"

int inject_init(injector *inj, inject_policy policy, int n_kinds, int n_devices,
                int n_partitions)
{
    inj->policy = policy;
    inj->n_devices = n_devices;
    inj->n_partitions = n_partitions;
    inj->home = calloc((size_t)n_partitions, sizeof *inj->home);
    inj->sets_per_device = calloc((size_t)n_devices, sizeof *inj->sets_per_device);
    inj->events_per_device = calloc((size_t)n_devices, sizeof *inj->events_per_device);
    if (!inj->home || !inj->sets_per_device || !inj->events_per_device ||
        feedback_init(&inj->feedback, n_kinds, n_devices) != 0) {
        inject_free(inj);
        return -1;
    }
    /* Initial placement: partitions dealt round-robin over the devices. */
    for (int p = 0; p < n_partitions; p++)
        inj->home[p] = p % n_devices;
    return 0;
}

void inject_free(injector *inj)
{
    free(inj->home);
    free(inj->sets_per_device);
    free(inj->events_per_device);
    feedback_free(&inj->feedback);
    inj->home = NULL;
    inj->sets_per_device = inj->events_per_device = NULL;
}

int inject_choose(injector *inj, int kind, int partition, uint64_t multiplicity)
{
    (void)kind;
    int dev = (partition >= 0 && partition < inj->n_partitions) ? inj->home[partition] : 0;
    inj->sets_per_device[dev]++;
    inj->events_per_device[dev] += multiplicity;
    return dev;
}

void inject_feedback(injector *inj, int kind, int device, uint64_t multiplicity, double seconds)
{
    feedback_record(&inj->feedback, kind, device, multiplicity, seconds);
}
