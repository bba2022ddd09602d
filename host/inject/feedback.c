#include <math.h>
#include <stdlib.h>

#include "inject/inject.h"

int feedback_init(feedback_table *t, int n_kinds, int n_devices, int history)
{
    t->n_kinds = n_kinds;
    t->n_devices = n_devices;
    t->history = history < 2 ? 2 : history;
    size_t n = (size_t)n_kinds * (size_t)n_devices;
    t->series = calloc(n ? n : 1, sizeof *t->series);
    t->transfer_bytes = calloc((size_t)n_devices, sizeof *t->transfer_bytes);
    t->transfer_seconds = calloc((size_t)n_devices, sizeof *t->transfer_seconds);
    int ok = t->series && t->transfer_bytes && t->transfer_seconds;
    for (size_t i = 0; ok && i < n; i++) {
        t->series[i].multiplicity = calloc((size_t)t->history, sizeof(uint64_t));
        t->series[i].seconds = calloc((size_t)t->history, sizeof(double));
        ok = t->series[i].multiplicity && t->series[i].seconds;
    }
    if (!ok) {
        feedback_free(t);
        return -1;
    }
    return 0;
}

void feedback_free(feedback_table *t)
{
    for (size_t i = 0; t->series && i < (size_t)t->n_kinds * (size_t)t->n_devices; i++) {
        free(t->series[i].multiplicity);
        free(t->series[i].seconds);
    }
    free(t->series);
    free(t->transfer_bytes);
    free(t->transfer_seconds);
    t->series = NULL;
    t->transfer_bytes = t->transfer_seconds = NULL;
}

static feedback_series *series_at(const feedback_table *t, int kind, int device)
{
    if (kind < 0 || kind >= t->n_kinds || device < 0 || device >= t->n_devices)
        return NULL;
    return &t->series[(size_t)kind * (size_t)t->n_devices + (size_t)device];
}

void feedback_record(feedback_table *t, int kind, int device, uint64_t multiplicity,
                     double seconds)
{
    feedback_series *s = series_at(t, kind, device);
    if (!s || !isfinite(seconds) || seconds < 0)
        return; /* a failed measurement teaches nothing */
    s->launches++;
    s->total_seconds += seconds;
    s->total_events += multiplicity;
    if (s->launches == 1) {
        s->first_seconds = seconds;
        return; /* compile and warm-up noise: busy time, not a sample */
    }
    s->multiplicity[s->next] = multiplicity;
    s->seconds[s->next] = seconds;
    s->next = (s->next + 1) % t->history;
    if (s->n < t->history)
        s->n++;
}

const feedback_series *feedback_get(const feedback_table *t, int kind, int device)
{
    return series_at(t, kind, device);
}

int feedback_fit(const feedback_table *t, int kind, int device, double *a, double *b)
{
    const feedback_series *s = series_at(t, kind, device);
    if (!s || s->n == 0)
        return -1;
    double sm = 0, st = 0, smm = 0, smt = 0;
    for (int i = 0; i < s->n; i++) {
        double m = (double)s->multiplicity[i], tt = s->seconds[i];
        sm += m;
        st += tt;
        smm += m * m;
        smt += m * tt;
    }
    double n = s->n, den = n * smm - sm * sm;
    if (s->n >= 2 && den > 1e-9 * smm * n) {
        double slope = (n * smt - sm * st) / den;
        double icpt = (st - slope * sm) / n;
        if (slope >= 0 && icpt >= 0 && isfinite(slope) && isfinite(icpt)) {
            *a = icpt;
            *b = slope;
            return 0;
        }
    }
    /* One sample, no spread in multiplicity, or a line that would predict negative times at
     * some size: seconds per event from the totals is the estimate that stays sane. */
    *a = sm > 0 ? 0 : st / n;
    *b = sm > 0 ? st / sm : 0;
    return 0;
}

double feedback_predict(const feedback_table *t, int kind, int device, uint64_t multiplicity)
{
    double a, b;
    if (feedback_fit(t, kind, device, &a, &b) != 0)
        return -1.0;
    return a + b * (double)multiplicity;
}

void feedback_record_transfer(feedback_table *t, int device, uint64_t bytes, double seconds)
{
    if (device < 0 || device >= t->n_devices || !(seconds > 0) || !isfinite(seconds))
        return;
    t->transfer_bytes[device] += (double)bytes;
    t->transfer_seconds[device] += seconds;
}

double feedback_transfer_rate(const feedback_table *t, int device)
{
    if (device < 0 || device >= t->n_devices || t->transfer_seconds[device] <= 0)
        return -1.0;
    return t->transfer_bytes[device] / t->transfer_seconds[device];
}
