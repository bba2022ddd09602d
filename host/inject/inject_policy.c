/* The policies: where each set runs. docs/injector.md states these rules for users; keep the
 * two in step. Decisions may depend on measured times (they never change results), but every
 * division is guarded so that a zero or odd measurement cannot crash a run or spread NaN. */
#include <math.h>

#include "inject/inject_internal.h"

/* Thresholds from here on mean "never": a double this large no longer converts to uint64_t. */
#define THRESHOLD_LIMIT 9.2e18
/* The largest multiplicity at which devices of one class are compared (2^40). */
#define COMPARE_LIMIT 1099511627776.0

static int valid_kind(const injector *inj, int kind)
{
    return kind >= 0 && kind < inj->n_kinds;
}

static int has_samples(const injector *inj, int kind, int device)
{
    const feedback_series *s = feedback_get(&inj->feedback, kind, device);
    return s && s->n > 0;
}

/* Calibration: a device with no kept sample of KIND gets sets of it until it has been tried
 * INJECT_CALIBRATION_TRIES times (its first launch is discarded as warm-up). The device tried
 * least goes first; among equals the home (no move), then the lowest number. -1: none left. */
static int calibration_device(const injector *inj, int kind, int home)
{
    if (!valid_kind(inj, kind))
        return -1;
    const uint64_t *tries = inj->priv->tries + (size_t)kind * (size_t)inj->n_devices;
    int best = -1;
    for (int d = 0; d < inj->n_devices; d++) {
        if (inj->lost[d] || has_samples(inj, kind, d) || tries[d] >= INJECT_CALIBRATION_TRIES)
            continue;
        if (best < 0 || tries[d] < tries[best] || (tries[d] == tries[best] && d == home))
            best = d;
    }
    return best;
}

static int count_class(const injector *inj, inject_device_class c)
{
    int n = 0;
    for (int d = 0; d < inj->n_devices; d++)
        n += inj->device_class[d] == c && !inj->lost[d];
    return n;
}

static uint64_t threshold_of(const injector *inj, int kind)
{
    return valid_kind(inj, kind) ? inj->threshold[kind]
           : inj->cfg.threshold  ? inj->cfg.threshold
                                 : INJECT_DEFAULT_THRESHOLD;
}

/* rapid: GPUs when a set reaches its kind's threshold, CPUs otherwise (all the sets of a
 * partition's window go together: one of them at or above its threshold takes them to a GPU);
 * the devices of a class take turns. */
static int rapid_device(injector *inj, int home, const inject_set *sets, int n)
{
    /* A learnt threshold needs a calibrated CPU and GPU: until then (trials may wait, see
     * trial_affordable) the sets stay where their partition lives. */
    if (!inj->cfg.threshold && count_class(inj, INJECT_CPU) && count_class(inj, INJECT_GPU))
        for (int i = 0; i < n; i++)
            if (valid_kind(inj, sets[i].kind) && inj->crossover[sets[i].kind] < 0)
                return home;
    inject_device_class c = INJECT_CPU;
    for (int i = 0; i < n; i++)
        if (sets[i].multiplicity >= threshold_of(inj, sets[i].kind))
            c = INJECT_GPU;
    int count = count_class(inj, c);
    if (count == 0) {
        c = c == INJECT_GPU ? INJECT_CPU : INJECT_GPU;
        count = count_class(inj, c);
    }
    if (count == 0) /* not reached: the engine never leaves out its last device */
        return home;
    int turn = (int)(inj->priv->turn[c]++ % (uint64_t)count);
    for (int d = 0; d < inj->n_devices; d++)
        if (inj->device_class[d] == c && !inj->lost[d] && turn-- == 0)
            return d;
    return 0; /* not reached: count counts the devices of class c */
}

double inject_predict_sets(const injector *inj, int device, const inject_set *sets, int n)
{
    double sum = 0;
    for (int i = 0; i < n; i++) {
        double p = feedback_predict(&inj->feedback, sets[i].kind, device, sets[i].multiplicity);
        if (!(p >= 0))
            return -1;
        sum += p;
    }
    return sum;
}

double inject_move_seconds(const injector *inj, int from, int to, uint64_t bytes)
{
    if (from == to || bytes == 0)
        return 0;
    /* The engine times each migration as a whole and books it to the destination. */
    double rate = feedback_transfer_rate(&inj->feedback, to);
    if (!(rate > 0) || !isfinite(rate)) {
        int gpu = inj->device_class[from] == INJECT_GPU || inj->device_class[to] == INJECT_GPU;
        rate = gpu ? INJECT_DEFAULT_GPU_RATE : INJECT_DEFAULT_CPU_RATE;
    }
    return (double)bytes / rate;
}

/* advanced: the least predicted finish = backlog + move + compute; a move must beat staying
 * at home by INJECT_HYSTERESIS of the home's finish, so near-equal devices do not trade a
 * partition back and forth. A migrated partition stays for the windows that follow, so the
 * move is spread over [inject] hold windows, the horizon over which a choice is kept: a
 * large partition then moves to a device that is faster on every window even when one
 * window's saving is smaller than its move. A device whose time cannot be predicted yet (its
 * calibration sets are still in flight) is no candidate; when the home is such a device the
 * sets stay. SETS are the partition's sets of the window (or one set), priced together: they
 * run where the partition lives, so one device takes all of them. */
static int advanced_device(const injector *inj, int home, const inject_set *sets, int n)
{
    double home_pred = inject_predict_sets(inj, home, sets, n);
    if (!(home_pred >= 0))
        return home;
    double home_finish = inj->backlog_s[home] + home_pred;
    uint64_t bytes = n > 0 ? sets[0].partition_bytes : 0;
    int best = home;
    double best_finish = 0;
    for (int d = 0; d < inj->n_devices; d++) {
        double pred = inject_predict_sets(inj, d, sets, n);
        if (d == home || inj->lost[d] || !(pred >= 0))
            continue;
        double horizon = inj->cfg.hold > 1 ? (double)inj->cfg.hold : 1.0;
        double f = inj->backlog_s[d] + inject_move_seconds(inj, home, d, bytes) / horizon + pred;
        if (best == home || f < best_finish) {
            best = d;
            best_finish = f;
        }
    }
    return best != home && best_finish < (1.0 - INJECT_HYSTERESIS) * home_finish ? best : home;
}

/* Device time measured so far, every kind on every device, without the first launches: their
 * warm-up says nothing about how long the run is. */
static double measured_seconds(const injector *inj)
{
    double sum = 0;
    for (int k = 0; k < inj->n_kinds; k++)
        for (int d = 0; d < inj->n_devices; d++) {
            const feedback_series *s = feedback_get(&inj->feedback, k, d);
            sum += s->total_seconds - s->first_seconds;
        }
    return sum;
}

/* A trial on device C moves the partition there and back and runs its sets there
 * INJECT_CALIBRATION_TRIES times, each priced at INJECT_TRIAL_SLOWDOWN times the home's
 * prediction (C may be that much slower; on a GPU the lost run-ahead costs as much). It is
 * made once that cost is at most calibration_share of the device time measured so far: a
 * short run is not slowed down by trying a device it cannot profit from, a long one tries
 * every device early on. Until the home itself can predict the sets, the cost is unknown and
 * the trial waits. */
static int trial_affordable(const injector *inj, int home, int c, const inject_set *sets, int n)
{
    double share = inj->cfg.calibration_share;
    if (!(share > 0))
        return 1;
    double home_pred = inject_predict_sets(inj, home, sets, n);
    if (!(home_pred >= 0))
        return 0;
    uint64_t bytes = n > 0 ? sets[0].partition_bytes : 0;
    double cost = inject_move_seconds(inj, home, c, bytes) + inject_move_seconds(inj, c, home, bytes) +
                  INJECT_CALIBRATION_TRIES * INJECT_TRIAL_SLOWDOWN * home_pred;
    return cost <= share * measured_seconds(inj);
}

int inject_choose_sets(injector *inj, int partition, const inject_set *sets, int n,
                       inject_policy *decided_by)
{
    int home = inj->home[partition];
    inject_policy p = inj->cfg.policy == INJECT_HYBRID ? inj->mode : inj->cfg.policy;
    *decided_by = p;
    if (!inj->cfg.can_migrate)
        return home;
    int every = inj->priv->migrate_every;
    if (every > 0 && inj->window % every == 0) { /* the next device left */
        int next = (home + 1) % inj->n_devices;
        while (inj->lost[next])
            next = (next + 1) % inj->n_devices;
        return next;
    }
    if (every > 0)
        return home;
    if (p == INJECT_STATIC)
        return home;
    for (int i = 0; i < n; i++) {
        int c = calibration_device(inj, sets[i].kind, home);
        if (c >= 0 && (c == home || trial_affordable(inj, home, c, sets, n)))
            return c;
    }
    if (p == INJECT_RAPID)
        return rapid_device(inj, home, sets, n);
    return advanced_device(inj, home, sets, n);
}


/* The calibrated device of class C with the least predicted time for AT events, with its
 * line; -1 when the class has none. */
static int best_of_class(const injector *inj, int kind, inject_device_class c, double at,
                         double *a, double *b)
{
    int best = -1;
    double best_t = 0;
    for (int d = 0; d < inj->n_devices; d++) {
        double ad, bd;
        if (inj->device_class[d] != c || inj->lost[d] ||
            feedback_fit(&inj->feedback, kind, d, &ad, &bd) != 0)
            continue;
        double t = ad + bd * at;
        if (best < 0 || t < best_t) {
            best = d;
            best_t = t;
            *a = ad;
            *b = bd;
        }
    }
    return best;
}

/* Where the lines of the best CPU and the best GPU meet: from there on the GPU is faster.
 * Returns the multiplicity (0: the GPU is never slower; HUGE_VAL: large sets are no faster on
 * the GPU), or -1 when a class has no calibrated device. */
static double learn_crossover(const injector *inj, int kind)
{
    double at = (double)inj->threshold[kind];
    at = at < 1 ? 1 : at > COMPARE_LIMIT ? COMPARE_LIMIT : at;
    double ac = 0, bc = 0, ag = 0, bg = 0;
    if (best_of_class(inj, kind, INJECT_CPU, at, &ac, &bc) < 0 ||
        best_of_class(inj, kind, INJECT_GPU, at, &ag, &bg) < 0)
        return -1;
    double den = bc - bg; /* seconds per event the GPU saves */
    if (den > 0) {
        double x = (ag - ac) / den;
        return !(x > 0) ? 0 : isfinite(x) ? x : HUGE_VAL;
    }
    return den == 0 && ag < ac ? 0 : HUGE_VAL;
}

void inject_learn_thresholds(injector *inj)
{
    for (int k = 0; k < inj->n_kinds; k++) {
        double x = learn_crossover(inj, k);
        inj->crossover[k] = x;
        if (inj->cfg.threshold)
            inj->threshold[k] = inj->cfg.threshold;
        else if (x < 0)
            inj->threshold[k] = INJECT_DEFAULT_THRESHOLD;
        else
            inj->threshold[k] = x >= THRESHOLD_LIMIT ? INJECT_THRESHOLD_NEVER : (uint64_t)ceil(x);
    }
}
