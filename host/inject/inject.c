/* The injector's life cycle and its decisions in flight: each decision is kept from
 * inject_decide() until its row of the trace has been written, so that completions, which may
 * arrive in any order, find the kind, device and multiplicity they are measured for. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "inject/inject_internal.h"

const char *inject_policy_name(inject_policy p)
{
    switch (p) {
    case INJECT_STATIC: return "static";
    case INJECT_RAPID: return "rapid";
    case INJECT_ADVANCED: return "advanced";
    case INJECT_HYBRID: return "hybrid";
    }
    return "?";
}

/* CLNETSIM_TEST_DEVICE_SLOWDOWN="D:F[,D:F...]": a testing hook that makes device D look F
 * times slower. Entries that do not parse, name no device or have F <= 0 are ignored. */
static void parse_slowdown(double *slowdown, int n_devices)
{
    for (int d = 0; d < n_devices; d++)
        slowdown[d] = 1.0;
    const char *s = getenv("CLNETSIM_TEST_DEVICE_SLOWDOWN");
    while (s && *s) {
        char *end;
        long dev = strtol(s, &end, 10);
        if (end != s && *end == ':') {
            const char *f_at = end + 1;
            double f = strtod(f_at, &end);
            if (end != f_at && (*end == ',' || *end == '\0') && dev >= 0 && dev < n_devices &&
                isfinite(f) && f > 0)
                slowdown[dev] = f;
        }
        s = strchr(s, ',');
        if (s)
            s++;
    }
}

static void *zalloc(size_t n, size_t size)
{
    return calloc(n ? n : 1, size); /* never NULL for an empty array */
}

int inject_init(injector *inj, const inject_config *cfg, int n_kinds, int n_devices,
                const inject_device_class *classes, int n_partitions, const int *home)
{
    memset(inj, 0, sizeof *inj);
    if (n_kinds < 0 || n_devices < 1 || n_partitions < 0) {
        errno = EINVAL;
        return -1;
    }
    inj->cfg = *cfg;
    if (cfg->policy < INJECT_STATIC || cfg->policy > INJECT_HYBRID)
        inj->cfg.policy = INJECT_STATIC;
    inj->n_kinds = n_kinds;
    inj->n_devices = n_devices;
    inj->n_partitions = n_partitions;
    size_t nd = (size_t)n_devices, nk = (size_t)n_kinds;
    inj->device_class = zalloc(nd, sizeof *inj->device_class);
    inj->home = zalloc((size_t)n_partitions, sizeof *inj->home);
    inj->backlog_s = zalloc(nd, sizeof *inj->backlog_s);
    inj->sets_per_device = zalloc(nd, sizeof *inj->sets_per_device);
    inj->events_per_device = zalloc(nd, sizeof *inj->events_per_device);
    inj->bytes_moved = zalloc(nd, sizeof *inj->bytes_moved);
    inj->untimed_sets = zalloc(nd, sizeof *inj->untimed_sets);
    inj->estimated_s = zalloc(nd, sizeof *inj->estimated_s);
    inj->lost = zalloc(nd, sizeof *inj->lost);
    inj->threshold = zalloc(nk, sizeof *inj->threshold);
    inj->crossover = zalloc(nk, sizeof *inj->crossover);
    struct inject_private *pv = inj->priv = zalloc(1, sizeof *inj->priv);
    if (pv) {
        pv->tries = zalloc(nk * nd, sizeof *pv->tries);
        pv->in_flight = zalloc(nd, sizeof *pv->in_flight);
        pv->slowdown = zalloc(nd, sizeof *pv->slowdown);
        pv->pinned_window = zalloc((size_t)n_partitions, sizeof *pv->pinned_window);
        pv->pinned_device = zalloc((size_t)n_partitions, sizeof *pv->pinned_device);
        pv->pinned_policy = zalloc((size_t)n_partitions, sizeof *pv->pinned_policy);
        pv->planned_s = zalloc(nd, sizeof *pv->planned_s);
        pv->group_at = zalloc((size_t)n_partitions, sizeof *pv->group_at);
        pv->group_n = zalloc((size_t)n_partitions, sizeof *pv->group_n);
        pv->plan_order = zalloc((size_t)n_partitions, sizeof *pv->plan_order);
    }
    if (!inj->device_class || !inj->home || !inj->backlog_s || !inj->sets_per_device ||
        !inj->events_per_device || !inj->bytes_moved || !inj->untimed_sets ||
        !inj->estimated_s || !inj->lost || !inj->threshold || !inj->crossover ||
        !pv || !pv->tries || !pv->in_flight || !pv->slowdown || !pv->pinned_window ||
        !pv->pinned_device || !pv->pinned_policy || !pv->planned_s || !pv->group_at ||
        !pv->group_n || !pv->plan_order ||
        feedback_init(&inj->feedback, n_kinds, n_devices, cfg->history) != 0) {
        inject_free(inj);
        errno = ENOMEM;
        return -1;
    }
    for (int d = 0; d < n_devices; d++)
        inj->device_class[d] = classes && classes[d] == INJECT_GPU ? INJECT_GPU : INJECT_CPU;
    for (int p = 0; p < n_partitions; p++) {
        pv->pinned_window[p] = -1;
        int h = home ? home[p] : p % n_devices;
        inj->home[p] = h >= 0 && h < n_devices ? h : 0;
    }
    for (int k = 0; k < n_kinds; k++) {
        inj->threshold[k] = cfg->threshold ? cfg->threshold : INJECT_DEFAULT_THRESHOLD;
        inj->crossover[k] = -1;
    }
    parse_slowdown(pv->slowdown, n_devices);
    /* CLNETSIM_TEST_MIGRATE_EVERY=K: a testing hook that moves every partition to the next
     * device every K windows, whatever the policy says (models under constant migration) */
    const char *me = getenv("CLNETSIM_TEST_MIGRATE_EVERY");
    pv->migrate_every = me ? (int)strtol(me, NULL, 10) : 0;
    inj->mode = inj->cfg.policy == INJECT_HYBRID ? INJECT_ADVANCED : inj->cfg.policy;
    inject_learn_thresholds(inj);
    return 0;
}

void inject_free(injector *inj)
{
    struct inject_private *pv = inj->priv;
    if (pv) {
        inject_trace_discard(inj);
        free(pv->pending);
        free(pv->tries);
        free(pv->in_flight);
        free(pv->slowdown);
        free(pv->pinned_window);
        free(pv->pinned_device);
        free(pv->pinned_policy);
        free(pv->scratch);
        free(pv->planned_s);
        free(pv->group_at);
        free(pv->group_n);
        free(pv->plan_order);
        free(pv);
    }
    free(inj->device_class);
    free(inj->home);
    free(inj->backlog_s);
    free(inj->sets_per_device);
    free(inj->events_per_device);
    free(inj->bytes_moved);
    free(inj->untimed_sets);
    free(inj->estimated_s);
    free(inj->lost);
    free(inj->threshold);
    free(inj->crossover);
    feedback_free(&inj->feedback);
    memset(inj, 0, sizeof *inj);
}

/* Hybrid: rapid when the input is full, advanced otherwise; a switch waits until the last one
 * is `hold` windows old, so that a load hovering around `busy` does not flip the policy back
 * and forth. The first window chooses freely. */
static void choose_mode(injector *inj, int64_t window, int n_sets)
{
    int64_t busy = inj->cfg.busy > 0 ? inj->cfg.busy : 1;
    /* n_sets / devices > busy, counting the devices left */
    int full = (int64_t)n_sets > busy * inject_live_devices(inj);
    inject_policy want = full ? INJECT_RAPID : INJECT_ADVANCED;
    struct inject_private *pv = inj->priv;
    if (!pv->mode_chosen) {
        pv->mode_chosen = 1;
        inj->mode = want;
        inj->mode_since = window;
        return;
    }
    if (want != inj->mode && window - inj->mode_since >= (int64_t)inj->cfg.hold) {
        inj->mode = want;
        inj->mode_since = window;
        inj->mode_switches++;
    }
}

void inject_window_begin(injector *inj, int64_t window, int n_sets)
{
    inj->window = window;
    inj->sets_in_window = n_sets;
    for (int p = 0; p < inj->n_partitions; p++)
        inj->priv->pinned_window[p] = -1; /* a plan of this window pins them again */
    if (inj->cfg.policy == INJECT_HYBRID)
        choose_mode(inj, window, n_sets);
    inject_learn_thresholds(inj);
}

static int longest_first(const void *a, const void *b)
{
    const struct plan_entry *x = a, *y = b;
    int xu = !(x->home_s >= 0), yu = !(y->home_s >= 0);
    if (xu != yu)
        return xu ? -1 : 1;
    if (!xu && x->home_s != y->home_s)
        return x->home_s > y->home_s ? -1 : 1;
    return x->first < y->first ? -1 : x->first > y->first;
}

int inject_window_plan(injector *inj, int64_t window, const inject_set *sets, int n_sets)
{
    inject_window_begin(inj, window, n_sets);
    struct inject_private *pv = inj->priv;
    if (n_sets > pv->cap_scratch) {
        inject_set *grown = realloc(pv->scratch, (size_t)n_sets * sizeof *grown);
        if (!grown)
            return -1;
        pv->scratch = grown;
        pv->cap_scratch = n_sets;
    }
    /* Each partition's sets gathered into one run of SCRATCH, in plan order (a counting
     * sort: a plan may hold thousands of partitions), the runs in the order of the
     * partitions' first sets. */
    int *at = pv->group_at, *n_of = pv->group_n;
    for (int i = 0; i < n_sets; i++) {
        int p = sets[i].partition;
        if (p >= 0 && p < inj->n_partitions)
            at[p] = -1, n_of[p] = 0;
    }
    for (int i = 0; i < n_sets; i++) {
        int p = sets[i].partition;
        if (p >= 0 && p < inj->n_partitions)
            n_of[p]++;
    }
    int next = 0;
    for (int i = 0; i < n_sets; i++) {
        int p = sets[i].partition;
        if (p >= 0 && p < inj->n_partitions && at[p] < 0) {
            at[p] = next;
            next += n_of[p];
            n_of[p] = 0; /* from here on: sets placed in its run */
        }
    }
    for (int i = 0; i < n_sets; i++) {
        int p = sets[i].partition;
        if (p >= 0 && p < inj->n_partitions)
            pv->scratch[at[p] + n_of[p]++] = sets[i];
    }
    /* Partitions placed longest first (their predicted time at home; the unknown ones first,
     * then ties, in the order of their first set). The sets chosen so far count as backlog
     * of their device while the plan is made, as they would once enqueued, so that
     * partitions spread over devices as sets do, and a short partition fills in beside the
     * long ones instead of the long ones being moved onto a device a short one left idle. */
    int n_order = 0;
    for (int i = 0; i < n_sets; i++) {
        int p = sets[i].partition;
        if (p < 0 || p >= inj->n_partitions || at[p] < 0)
            continue;
        pv->plan_order[n_order++] = (struct plan_entry){
            inject_predict_sets(inj, inj->home[p], pv->scratch + at[p], n_of[p]), i, p};
        at[p] = -1 - at[p]; /* listed: marked until the loop below */
    }
    qsort(pv->plan_order, (size_t)n_order, sizeof *pv->plan_order, longest_first);
    for (int d = 0; d < inj->n_devices; d++)
        pv->planned_s[d] = 0;
    for (int o = 0; o < n_order; o++) {
        int p = pv->plan_order[o].partition;
        at[p] = -1 - at[p];
        const inject_set *run = pv->scratch + at[p];
        int n = n_of[p];
        int d = inject_choose_sets(inj, p, run, n, &pv->pinned_policy[p]);

        pv->pinned_device[p] = d;
        pv->pinned_window[p] = window;
        double pred = inject_predict_sets(inj, d, run, n);
        if (pred > 0 && isfinite(pred)) {
            inj->backlog_s[d] += pred;
            pv->planned_s[d] += pred;
        }
    }
    for (int d = 0; d < inj->n_devices; d++) {
        inj->backlog_s[d] -= pv->planned_s[d];
        if (pv->in_flight[d] == 0 || inj->backlog_s[d] < 0)
            inj->backlog_s[d] = 0; /* as release_backlog() leaves an idle device */
    }
    return 0;
}

/* Keeps D until its trace row is written. Returns 0, or -1 when out of memory. */
static int remember(injector *inj, const inject_decision *d, int kind, int partition,
                    uint64_t multiplicity)
{
    struct inject_private *pv = inj->priv;
    if (pv->n_pending == pv->cap_pending) {
        int cap = pv->cap_pending ? 2 * pv->cap_pending : 64;
        pending_decision *grown = realloc(pv->pending, (size_t)cap * sizeof *grown);
        if (!grown)
            return -1;
        pv->pending = grown;
        pv->cap_pending = cap;
    }
    pending_decision *r = &pv->pending[pv->n_pending++];
    memset(r, 0, sizeof *r);
    r->d = *d;
    r->kind = kind;
    r->partition = partition;
    r->window = inj->window;
    r->multiplicity = multiplicity;
    r->measured_s = -1.0;
    return 0;
}

inject_decision inject_decide(injector *inj, int kind, int partition, uint64_t multiplicity,
                              uint64_t partition_bytes)
{
    inject_decision d;
    memset(&d, 0, sizeof d);
    d.id = inj->next_id++;
    if (partition >= 0 && partition < inj->n_partitions) {
        d.from = inj->home[partition];
        struct inject_private *pv = inj->priv;
        if (pv->pinned_window[partition] == inj->window &&
            !inj->lost[pv->pinned_device[partition]]) {
            d.device = pv->pinned_device[partition];
            d.policy = pv->pinned_policy[partition];
        } else {
            inject_set one = {kind, partition, multiplicity, partition_bytes};
            d.device = inject_choose_sets(inj, partition, &one, 1, &d.policy);
        }
        if (d.device != d.from) {
            d.migrate = 1;
            inj->home[partition] = d.device;
            inj->migrations++;
        }
    } else { /* a partition that does not exist has no home to move: device 0 runs it */
        d.policy = inj->cfg.policy == INJECT_HYBRID ? inj->mode : inj->cfg.policy;
    }
    d.predicted_s = feedback_predict(&inj->feedback, kind, d.device, multiplicity);
    inj->decisions[d.policy]++;
    if (kind >= 0 && kind < inj->n_kinds)
        inj->priv->tries[(size_t)kind * (size_t)inj->n_devices + (size_t)d.device]++;
    if (remember(inj, &d, kind, partition, multiplicity) != 0)
        inj->priv->trace_errno = ENOMEM; /* its time is not learnt and its row is lost */
    return d;
}

/* The decision numbered ID among those kept, or NULL. */
static pending_decision *find_pending(injector *inj, uint64_t id)
{
    struct inject_private *pv = inj->priv;
    int lo = 0, hi = pv->n_pending;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (pv->pending[mid].d.id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < pv->n_pending && pv->pending[lo].d.id == id ? &pv->pending[lo] : NULL;
}

void inject_enqueued(injector *inj, const inject_decision *d, uint64_t multiplicity,
                     uint64_t moved_bytes, double move_seconds)
{
    if (d->device < 0 || d->device >= inj->n_devices)
        return;
    inj->sets_per_device[d->device]++;
    inj->events_per_device[d->device] += multiplicity;
    inj->bytes_moved[d->device] += moved_bytes;
    if (moved_bytes)
        feedback_record_transfer(&inj->feedback, d->device, moved_bytes, move_seconds);
    pending_decision *r = find_pending(inj, d->id);
    if (!r || r->enqueued || r->done)
        return;
    r->enqueued = 1;
    double p = r->d.predicted_s; /* ours, not the caller's copy */
    r->backlog_s = p > 0 && isfinite(p) ? p : 0;
    inj->backlog_s[d->device] += r->backlog_s;
    inj->priv->in_flight[d->device]++;
}

int inject_live_devices(const injector *inj)
{
    int n = 0;
    for (int d = 0; d < inj->n_devices; d++)
        n += !inj->lost[d];
    return n;
}

int inject_device_lost(injector *inj, int device)
{
    if (device < 0 || device >= inj->n_devices || inj->lost[device])
        return 0;
    if (inject_live_devices(inj) < 2)
        return -1;
    inj->lost[device] = 1;
    inj->backlog_s[device] = 0;
    for (int p = 0; p < inj->n_partitions; p++) {
        if (inj->home[p] != device)
            continue;
        int best = -1, best_n = 0;
        for (int d = 0; d < inj->n_devices; d++) {
            if (inj->lost[d])
                continue;
            int n = 0;
            for (int q = 0; q < inj->n_partitions; q++)
                n += inj->home[q] == d;
            if (best < 0 || n < best_n)
                best = d, best_n = n;
        }
        inj->home[p] = best;
    }
    return 0;
}

void inject_set_home(injector *inj, int partition, int device)
{
    if (partition >= 0 && partition < inj->n_partitions && device >= 0 &&
        device < inj->n_devices && !inj->lost[device])
        inj->home[partition] = device;
}

/* Takes back what R added to its device's backlog. */
static void release_backlog(injector *inj, pending_decision *r)
{
    if (!r->enqueued || r->settled)
        return;
    r->settled = 1;
    int dev = r->d.device;
    int *n = &inj->priv->in_flight[dev];
    if (*n > 0)
        (*n)--;
    inj->backlog_s[dev] -= r->backlog_s;
    /* Sums and differences of doubles leave crumbs: an idle device has no backlog at all. */
    if (*n == 0 || inj->backlog_s[dev] < 0)
        inj->backlog_s[dev] = 0;
}

void inject_settle(injector *inj)
{
    struct inject_private *pv = inj->priv;
    for (int i = 0; i < pv->n_pending; i++)
        release_backlog(inj, &pv->pending[i]);
}

/* Writes and forgets the measured decisions at the front: rows go out in decision order. */
static void drop_measured_prefix(injector *inj)
{
    struct inject_private *pv = inj->priv;
    int k = 0;
    while (k < pv->n_pending && pv->pending[k].done)
        k++;
    if (!k)
        return;
    inject_trace_rows(inj, pv->pending, k);
    memmove(pv->pending, pv->pending + k, (size_t)(pv->n_pending - k) * sizeof *pv->pending);
    pv->n_pending -= k;
}

void inject_complete(injector *inj, uint64_t id, double seconds)
{
    pending_decision *r = find_pending(inj, id);
    if (!r || r->done)
        return;
    int dev = r->d.device;
    if (isfinite(seconds) && seconds >= 0) {
        seconds *= inj->priv->slowdown[dev];
        r->measured_s = seconds;
        feedback_record(&inj->feedback, r->kind, dev, r->multiplicity, seconds);
    }
    r->done = 1;
    release_backlog(inj, r);
    drop_measured_prefix(inj);
}

double inject_estimate_seconds(const injector *inj, int kind, int device, uint64_t multiplicity)
{
    double p = feedback_predict(&inj->feedback, kind, device, multiplicity);
    if (p >= 0 && isfinite(p))
        return p;
    const feedback_series *s = feedback_get(&inj->feedback, kind, device);
    return s && s->launches > 0 ? s->total_seconds / (double)s->launches : 0;
}

void inject_unmeasured(injector *inj, uint64_t id)
{
    pending_decision *r = find_pending(inj, id);
    if (!r || r->done)
        return;
    int dev = r->d.device;
    inj->untimed_sets[dev]++;
    inj->estimated_s[dev] += inject_estimate_seconds(inj, r->kind, dev, r->multiplicity);
    r->done = 1;
    release_backlog(inj, r);
    drop_measured_prefix(inj);
}
