/* --show-feedback: what the injector learnt and what it did, as plain text for people. */
#include <math.h>

#include "inject/inject_internal.h"

static const char *class_name(inject_device_class c)
{
    return c == INJECT_GPU ? "gpu" : "cpu";
}

static const char *name_or_blank(const char *const *names, int i)
{
    return names && names[i] ? names[i] : "";
}

static void print_mode(const injector *inj, FILE *out)
{
    const inject_config *c = &inj->cfg;
    /* the engine's steps and the units it places: batches and their chunks, or windows and
     * partitions */
    const char *step = c->batches ? "batch" : "window";
    const char *steps = c->batches ? "batches" : "windows";
    fprintf(out, "Injector: policy %s", inject_policy_name(c->policy));
    if (c->policy == INJECT_HYBRID)
        fprintf(out, ", now %s (since %s %lld, %llu switches)\n"
                     "  rapid above %d sets per device in a %s, a choice held %d %s",
                inject_policy_name(inj->mode), step, (long long)inj->mode_since,
                (unsigned long long)inj->mode_switches, c->busy, step, c->hold, steps);
    fputc('\n', out);
    if (!c->can_migrate)
        fprintf(out, "  this model cannot move %s: every set runs at home\n",
                c->batches ? "chunks" : "partitions");
    fprintf(out, "  decisions: static %llu, rapid %llu, advanced %llu; migrations %llu\n",
            (unsigned long long)inj->decisions[INJECT_STATIC],
            (unsigned long long)inj->decisions[INJECT_RAPID],
            (unsigned long long)inj->decisions[INJECT_ADVANCED],
            (unsigned long long)inj->migrations);
}

static void print_devices(const injector *inj, const char *const *device_names, FILE *out)
{
    fprintf(out, "Devices\n");
    for (int d = 0; d < inj->n_devices; d++) {
        fprintf(out, "  %d %s [%s]: %llu sets, %llu events\n", d, name_or_blank(device_names, d),
                class_name(inj->device_class[d]), (unsigned long long)inj->sets_per_device[d],
                (unsigned long long)inj->events_per_device[d]);
        double rate = feedback_transfer_rate(&inj->feedback, d);
        if (rate > 0)
            fprintf(out, "    transfers in: %.3g GB/s (%.0f bytes in %.6f s)\n", rate * 1e-9,
                    inj->feedback.transfer_bytes[d], inj->feedback.transfer_seconds[d]);
        else
            fprintf(out, "    transfers in: not measured (assumed %.3g GB/s, %.3g GB/s with a "
                         "GPU)\n",
                    INJECT_DEFAULT_CPU_RATE * 1e-9, INJECT_DEFAULT_GPU_RATE * 1e-9);
    }
}

static void print_threshold(const injector *inj, int k, FILE *out)
{
    double x = inj->crossover[k];
    uint64_t t = inj->threshold[k];
    fprintf(out, "  rapid threshold: ");
    if (t == INJECT_THRESHOLD_NEVER)
        fprintf(out, "never (GPUs are no faster for large sets)");
    else
        fprintf(out, "%llu events", (unsigned long long)t);
    if (inj->cfg.threshold)
        fprintf(out, ", fixed by [inject] threshold");
    else if (x < 0)
        fprintf(out, ", the default until a CPU and a GPU are both calibrated");
    else
        fprintf(out, ", learnt");
    if (x >= 0 && isfinite(x))
        fprintf(out, " (the lines cross at %.6g events)", x);
    fputc('\n', out);
}

static void print_series(const injector *inj, int k, int d, const char *const *device_names,
                         FILE *out)
{
    const feedback_series *s = feedback_get(&inj->feedback, k, d);
    if (s->launches == 0) {
        fprintf(out, "  device %d %s: no launches\n", d, name_or_blank(device_names, d));
        return;
    }
    fprintf(out, "  device %d %s: %llu launches, %d samples kept, busy %.6f s, %llu events\n", d,
            name_or_blank(device_names, d), (unsigned long long)s->launches, s->n,
            s->total_seconds, (unsigned long long)s->total_events);
    double a, b;
    if (feedback_fit(&inj->feedback, k, d, &a, &b) != 0) {
        fprintf(out, "    no samples yet (the first launch is discarded as warm-up)\n");
        return;
    }
    fprintf(out, "    fit: seconds = %.4g + %.4g * m", a, b);
    if (b > 0)
        fprintf(out, " (%.4g events/s beyond the launch)", 1.0 / b);
    fprintf(out, "\n    predicted: %.4g s for 1000 events, %.4g s for 1000000 events\n",
            a + b * 1e3, a + b * 1e6);
}

void inject_print_feedback(const injector *inj, const char *const *kind_names,
                           const char *const *device_names, FILE *out)
{
    if (!out || !inj->priv)
        return;
    print_mode(inj, out);
    print_devices(inj, device_names, out);
    for (int k = 0; k < inj->n_kinds; k++) {
        if (kind_names && kind_names[k])
            fprintf(out, "Kind %s\n", kind_names[k]);
        else
            fprintf(out, "Kind %d\n", k);
        print_threshold(inj, k, out);
        for (int d = 0; d < inj->n_devices; d++)
            print_series(inj, k, d, device_names, out);
    }
}
