#include <stdlib.h>
#include <string.h>

#include "inject/inject.h"

/* A decision whose set has not completed yet. */
typedef struct pending_decision {
    inject_decision d;
    int kind, partition;
    int64_t window;
    uint64_t multiplicity;
    double measured_s;
    int done;
} pending_decision;

struct inject_private {
    pending_decision *pending; /* oldest first */
    int n_pending, cap_pending;
};

int inject_init(injector *inj, const inject_config *cfg, int n_kinds, int n_devices,
                const inject_device_class *classes, int n_partitions, const int *home)
{
    memset(inj, 0, sizeof *inj);
    inj->cfg = *cfg;
    inj->n_kinds = n_kinds;
    inj->n_devices = n_devices;
    inj->n_partitions = n_partitions;
    inj->device_class = calloc((size_t)n_devices, sizeof *inj->device_class);
    inj->home = calloc((size_t)n_partitions, sizeof *inj->home);
    inj->backlog_s = calloc((size_t)n_devices, sizeof *inj->backlog_s);
    inj->sets_per_device = calloc((size_t)n_devices, sizeof *inj->sets_per_device);
    inj->events_per_device = calloc((size_t)n_devices, sizeof *inj->events_per_device);
    inj->bytes_moved = calloc((size_t)n_devices, sizeof *inj->bytes_moved);
    if (!inj->device_class || !inj->home || !inj->backlog_s || !inj->sets_per_device ||
        !inj->events_per_device || !inj->bytes_moved ||
        !(inj->priv = calloc(1, sizeof *inj->priv)) ||
        feedback_init(&inj->feedback, n_kinds, n_devices, cfg->history) != 0) {
        inject_free(inj);
        return -1;
    }
    for (int d = 0; d < n_devices; d++)
        inj->device_class[d] = classes ? classes[d] : INJECT_CPU;
    for (int p = 0; p < n_partitions; p++)
        inj->home[p] = home ? home[p] : p % n_devices;
    inj->mode = cfg->policy == INJECT_HYBRID ? INJECT_ADVANCED : cfg->policy;
    return 0;
}

void inject_free(injector *inj)
{
    free(inj->device_class);
    free(inj->home);
    free(inj->backlog_s);
    free(inj->sets_per_device);
    free(inj->events_per_device);
    free(inj->bytes_moved);
    if (inj->priv)
        free(inj->priv->pending);
    free(inj->priv);
    feedback_free(&inj->feedback);
    memset(inj, 0, sizeof *inj);
}

void inject_window_begin(injector *inj, int64_t window, int n_sets)
{
    inj->window = window;
    inj->sets_in_window = n_sets;
}

inject_decision inject_decide(injector *inj, int kind, int partition, uint64_t multiplicity,
                              uint64_t partition_bytes)
{
    (void)partition_bytes;
    inject_decision d;
    memset(&d, 0, sizeof d);
    d.id = inj->next_id++;
    d.device = (partition >= 0 && partition < inj->n_partitions) ? inj->home[partition] : 0;
    d.from = d.device;
    d.policy = INJECT_STATIC;
    d.predicted_s = feedback_predict(&inj->feedback, kind, d.device, multiplicity);
    inj->decisions[d.policy]++;
    struct inject_private *pv = inj->priv;
    if (pv->n_pending == pv->cap_pending) {
        int cap = pv->cap_pending ? 2 * pv->cap_pending : 64;
        pending_decision *grown = realloc(pv->pending, (size_t)cap * sizeof *grown);
        if (!grown)
            return d; /* not tracked: its time is not learnt, nothing else changes */
        pv->pending = grown;
        pv->cap_pending = cap;
    }
    pending_decision *r = &pv->pending[pv->n_pending++];
    memset(r, 0, sizeof *r);
    r->d = d;
    r->kind = kind;
    r->partition = partition;
    r->window = inj->window;
    r->multiplicity = multiplicity;
    return d;
}

void inject_enqueued(injector *inj, const inject_decision *d, uint64_t multiplicity,
                     uint64_t moved_bytes, double move_seconds)
{
    inj->sets_per_device[d->device]++;
    inj->events_per_device[d->device] += multiplicity;
    inj->bytes_moved[d->device] += moved_bytes;
    if (moved_bytes)
        feedback_record_transfer(&inj->feedback, d->device, moved_bytes, move_seconds);
}

void inject_complete(injector *inj, uint64_t id, double seconds)
{
    struct inject_private *pv = inj->priv;
    for (int i = 0; i < pv->n_pending; i++) {
        pending_decision *r = &pv->pending[i];
        if (r->d.id != id || r->done)
            continue;
        r->done = 1;
        r->measured_s = seconds;
        feedback_record(&inj->feedback, r->kind, r->d.device, r->multiplicity, seconds);
        break;
    }
    int k = 0; /* drop the completed prefix */
    while (k < pv->n_pending && pv->pending[k].done)
        k++;
    if (k) {
        memmove(pv->pending, pv->pending + k, (size_t)(pv->n_pending - k) * sizeof *pv->pending);
        pv->n_pending -= k;
    }
}

int inject_trace_open(injector *inj, const char *path, const char *const *kind_names)
{
    (void)inj, (void)path, (void)kind_names;
    return 0;
}

int inject_trace_close(injector *inj)
{
    (void)inj;
    return 0;
}

void inject_print_feedback(const injector *inj, const char *const *kind_names,
                           const char *const *device_names, FILE *out)
{
    (void)inj, (void)kind_names, (void)device_names, (void)out;
}
