/* Tests of host/inject driven through its interface with synthetic timings: the feedback
 * table, calibration, each policy, residency and migration, backlog, hybrid switching, the
 * trace file and the slowdown testing hook. Every expected value follows from the rules of
 * docs/injector.md. */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "inject/inject.h"

#include "../common/check.h"

/* ---- helpers ----------------------------------------------------------------------------- */

static inject_config config(inject_policy policy)
{
    inject_config c = {.policy = policy, .history = 8, .hold = 3, .threshold = 0, .busy = 2,
                       .can_migrate = 1};
    return c;
}

static const inject_device_class cpu_gpu[] = {INJECT_CPU, INJECT_GPU};
static const inject_device_class cpu_gpu_gpu[] = {INJECT_CPU, INJECT_GPU, INJECT_GPU};

static double cpu_time(uint64_t m)
{
    return 1e-6 * (double)m;
}

static double gpu_time(uint64_t m)
{
    return 50e-6 + 1e-8 * (double)m;
}

/* A discarded first launch, then samples at four sizes. */
static void feed(injector *inj, int kind, int dev, double (*time_of)(uint64_t))
{
    static const uint64_t sizes[] = {10, 100, 1000, 10000};
    feedback_record(&inj->feedback, kind, dev, 1, 1.0);
    for (int i = 0; i < 4; i++)
        feedback_record(&inj->feedback, kind, dev, sizes[i], time_of(sizes[i]));
}

/* One set through the whole life cycle, measured at once with SECONDS. */
static inject_decision run_set(injector *inj, int kind, int part, uint64_t m, uint64_t bytes,
                               double seconds)
{
    inject_decision d = inject_decide(inj, kind, part, m, bytes);
    inject_enqueued(inj, &d, m, 0, 0);
    inject_complete(inj, d.id, seconds);
    return d;
}

static char *read_text(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    static char buf[8192];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

static int exists(const char *path)
{
    return access(path, F_OK) == 0;
}

/* ---- the feedback table ------------------------------------------------------------------ */

static void test_feedback_history(void)
{
    feedback_table t;
    CHECK(feedback_init(&t, 1, 1, 4) == 0);
    CHECK(feedback_predict(&t, 0, 0, 10) < 0);
    feedback_record(&t, 0, 0, 5, 99.0); /* warm-up: counted as busy time, not kept */
    const feedback_series *s = feedback_get(&t, 0, 0);
    CHECK_U64(s->launches, 1);
    CHECK_I64(s->n, 0);
    CHECK(feedback_predict(&t, 0, 0, 10) < 0);
    for (uint64_t m = 1; m <= 10; m++)
        feedback_record(&t, 0, 0, m * 100, 2e-3 + 1e-6 * (double)(m * 100));
    CHECK_U64(s->launches, 11);
    CHECK_I64(s->n, 4); /* bounded by history */
    CHECK_U64(s->total_events, 5 + 5500);
    CHECK_NEAR(s->total_seconds, 99.0 + 10 * 2e-3 + 1e-6 * 5500, 1e-12);
    double a, b;
    CHECK(feedback_fit(&t, 0, 0, &a, &b) == 0);
    CHECK_NEAR(a, 2e-3, 1e-9);
    CHECK_NEAR(b, 1e-6, 1e-9);
    CHECK_NEAR(feedback_predict(&t, 0, 0, 5000), 7e-3, 1e-9);
    /* the kept samples are the last four (700..1000 events) */
    uint64_t kept = 0;
    for (int i = 0; i < s->n; i++)
        kept += s->multiplicity[i];
    CHECK_U64(kept, 700 + 800 + 900 + 1000);
    /* failed measurements are not learnt from */
    feedback_record(&t, 0, 0, 10, NAN);
    feedback_record(&t, 0, 0, 10, -1);
    feedback_record(&t, 0, 0, 10, INFINITY);
    CHECK_U64(s->launches, 11);
    /* out of range: ignored */
    feedback_record(&t, 1, 0, 10, 1);
    feedback_record(&t, 0, -1, 10, 1);
    CHECK(feedback_get(&t, 1, 0) == NULL);
    CHECK(feedback_transfer_rate(&t, 0) < 0);
    feedback_record_transfer(&t, 0, 1000, 0); /* no time: no rate */
    feedback_record_transfer(&t, 0, 1000, NAN);
    CHECK(feedback_transfer_rate(&t, 0) < 0);
    feedback_record_transfer(&t, 0, 4000, 2e-6);
    feedback_record_transfer(&t, 0, 6000, 3e-6);
    CHECK_NEAR(feedback_transfer_rate(&t, 0), 2e9, 1e-12);
    feedback_free(&t);
}

static void test_feedback_fallbacks(void)
{
    feedback_table t;
    CHECK(feedback_init(&t, 3, 1, 8) == 0);
    double a, b;
    /* one sample: seconds per event */
    feedback_record(&t, 0, 0, 1, 1);
    feedback_record(&t, 0, 0, 200, 4e-3);
    CHECK(feedback_fit(&t, 0, 0, &a, &b) == 0);
    CHECK(a == 0);
    CHECK_NEAR(b, 2e-5, 1e-12);
    /* no spread in multiplicity */
    feedback_record(&t, 1, 0, 1, 1);
    feedback_record(&t, 1, 0, 50, 1e-3);
    feedback_record(&t, 1, 0, 50, 3e-3);
    CHECK(feedback_fit(&t, 1, 0, &a, &b) == 0);
    CHECK(a == 0);
    CHECK_NEAR(b, 4e-5, 1e-12);
    CHECK_NEAR(feedback_predict(&t, 1, 0, 100), 4e-3, 1e-12);
    /* a line with a negative intercept would predict negative times for small sets */
    feedback_record(&t, 2, 0, 1, 1);
    feedback_record(&t, 2, 0, 100, 1e-4);
    feedback_record(&t, 2, 0, 200, 5e-4);
    CHECK(feedback_fit(&t, 2, 0, &a, &b) == 0);
    CHECK(a == 0);
    CHECK_NEAR(b, 6e-4 / 300, 1e-12);
    CHECK(feedback_predict(&t, 2, 0, 1) > 0);
    feedback_free(&t);
}

/* ---- rapid ------------------------------------------------------------------------------- */

static void test_rapid_learnt_threshold(void)
{
    inject_config c = config(INJECT_RAPID);
    injector inj;
    CHECK(inject_init(&inj, &c, 1, 2, cpu_gpu, 1, (const int[]){0}) == 0);
    CHECK_U64(inj.threshold[0], INJECT_DEFAULT_THRESHOLD);
    CHECK(inj.crossover[0] < 0);
    feed(&inj, 0, 0, cpu_time);
    feed(&inj, 0, 1, gpu_time);
    CHECK_U64(inj.threshold[0], INJECT_DEFAULT_THRESHOLD); /* learnt at the next window */
    inject_window_begin(&inj, 0, 1);
    /* 1e-6 m = 50e-6 + 1e-8 m at m = 50e-6 / 0.99e-6 = 50.50...: from 51 on, the GPU */
    CHECK_NEAR(inj.crossover[0], 50e-6 / (1e-6 - 1e-8), 1e-9);
    CHECK_U64(inj.threshold[0], 51);
    inject_decision d = inject_decide(&inj, 0, 0, 50, 1000);
    CHECK_I64(d.device, 0);
    CHECK_I64(d.migrate, 0);
    CHECK_I64(d.policy, INJECT_RAPID);
    CHECK_NEAR(d.predicted_s, 50e-6, 1e-9);
    d = inject_decide(&inj, 0, 0, 51, 1000);
    CHECK_I64(d.device, 1);
    CHECK_I64(d.migrate, 1);
    CHECK_I64(d.from, 0);
    CHECK_I64(inj.home[0], 1);
    CHECK_NEAR(d.predicted_s, gpu_time(51), 1e-9);
    d = inject_decide(&inj, 0, 0, 1, 1000); /* back to the CPU */
    CHECK_I64(d.device, 0);
    CHECK_I64(d.from, 1);
    CHECK_I64(d.migrate, 1);
    CHECK_U64(inj.decisions[INJECT_RAPID], 3);
    CHECK_U64(inj.migrations, 2);
    /* the GPU gets slower per event: the crossover moves up at the next window, to
     * 45e-6 / (1e-6 - 6e-7) = 112.5 */
    for (int i = 0; i < 8; i++)
        feedback_record(&inj.feedback, 0, 1, 100 + 1000 * (uint64_t)i,
                        45e-6 + 6e-7 * (double)(100 + 1000 * i));
    inject_window_begin(&inj, 1, 1);
    CHECK_NEAR(inj.crossover[0], 112.5, 1e-9);
    CHECK_U64(inj.threshold[0], 113);

    /* --show-feedback names the threshold and the counts */
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    const char *kinds[] = {"transmit"}, *devs[] = {"cpu0", "gpu0"};
    inject_print_feedback(&inj, kinds, devs, f);
    fclose(f);
    CHECK(strstr(text, "rapid threshold: 113 events, learnt (the lines cross at 112.5 events)"));
    CHECK(strstr(text, "decisions: static 0, rapid 3, advanced 0; migrations 2") != NULL);
    CHECK(strstr(text, "device 1 gpu0: 13 launches, 8 samples kept") != NULL);
    CHECK(strstr(text, "Kind transmit") != NULL);
    free(text);
    inject_free(&inj);
}

static void test_rapid_fixed_threshold(void)
{
    inject_config c = config(INJECT_RAPID);
    c.threshold = 1000;
    injector inj;
    CHECK(inject_init(&inj, &c, 1, 2, cpu_gpu, 1, (const int[]){1}) == 0);
    feed(&inj, 0, 0, cpu_time);
    feed(&inj, 0, 1, gpu_time);
    inject_window_begin(&inj, 0, 1);
    CHECK_U64(inj.threshold[0], 1000);
    CHECK_NEAR(inj.crossover[0], 50e-6 / (1e-6 - 1e-8), 1e-9); /* shown, not used */
    CHECK_I64(inject_decide(&inj, 0, 0, 1000, 0).device, 1);
    CHECK_I64(inject_decide(&inj, 0, 0, 999, 0).device, 0);
    CHECK_I64(inject_decide(&inj, 0, 0, 52, 0).device, 0);
    inject_free(&inj);
}

static void test_rapid_turns(void)
{
    inject_config c = config(INJECT_RAPID);
    c.threshold = 100;
    injector inj;
    CHECK(inject_init(&inj, &c, 1, 3, cpu_gpu_gpu, 4, (const int[]){0, 0, 0, 0}) == 0);
    for (int d = 0; d < 3; d++)
        feed(&inj, 0, d, d ? gpu_time : cpu_time);
    inject_window_begin(&inj, 0, 4);
    static const int want[] = {1, 2, 1, 2};
    for (int p = 0; p < 4; p++)
        CHECK_I64(inject_decide(&inj, 0, p, 100, 0).device, want[p]);
    CHECK_I64(inject_decide(&inj, 0, 0, 99, 0).device, 0);
    CHECK_I64(inject_decide(&inj, 0, 1, 1, 0).device, 0);
    CHECK_I64(inject_decide(&inj, 0, 2, 1000, 0).device, 1);
    CHECK_U64(inj.migrations, 6);
    inject_free(&inj);

    /* no GPU: large sets go to the CPUs, which take turns */
    static const inject_device_class two_cpus[] = {INJECT_CPU, INJECT_CPU};
    CHECK(inject_init(&inj, &c, 1, 2, two_cpus, 1, NULL) == 0);
    feed(&inj, 0, 0, cpu_time);
    feed(&inj, 0, 1, cpu_time);
    CHECK_I64(inject_decide(&inj, 0, 0, 5000, 0).device, 0);
    CHECK_I64(inject_decide(&inj, 0, 0, 5000, 0).device, 1);
    CHECK_I64(inject_decide(&inj, 0, 0, 5000, 0).device, 0);
    inject_free(&inj);
}

static double gpu_slow_per_event(uint64_t m)
{
    return 1e-5 + 2e-6 * (double)m;
}

static double gpu_fast_always(uint64_t m)
{
    return 0.5e-6 * (double)m;
}

static void test_rapid_limits(void)
{
    inject_config c = config(INJECT_RAPID);
    injector inj;
    /* the GPU costs more per event: large sets never go there */
    CHECK(inject_init(&inj, &c, 1, 2, cpu_gpu, 1, NULL) == 0);
    feed(&inj, 0, 0, cpu_time);
    feed(&inj, 0, 1, gpu_slow_per_event);
    inject_window_begin(&inj, 0, 1);
    CHECK(isinf(inj.crossover[0]));
    CHECK_U64(inj.threshold[0], INJECT_THRESHOLD_NEVER);
    CHECK_I64(inject_decide(&inj, 0, 0, 1000000000, 0).device, 0);
    inject_free(&inj);
    /* the GPU is faster at every size: threshold 0 */
    CHECK(inject_init(&inj, &c, 1, 2, cpu_gpu, 1, NULL) == 0);
    feed(&inj, 0, 0, cpu_time);
    feed(&inj, 0, 1, gpu_fast_always);
    inject_window_begin(&inj, 0, 1);
    CHECK(inj.crossover[0] >= 0 && inj.crossover[0] < 1e-9); /* 0, give or take rounding */
    CHECK(inj.threshold[0] <= 1);
    CHECK_I64(inject_decide(&inj, 0, 0, 1, 0).device, 1);
    inject_free(&inj);
    /* a class without calibrated devices: the default stays */
    CHECK(inject_init(&inj, &c, 1, 2, cpu_gpu, 1, NULL) == 0);
    feed(&inj, 0, 0, cpu_time);
    inject_window_begin(&inj, 0, 1);
    CHECK(inj.crossover[0] < 0);
    CHECK_U64(inj.threshold[0], INJECT_DEFAULT_THRESHOLD);
    inject_free(&inj);
}

/* ---- advanced ---------------------------------------------------------------------------- */

static void test_advanced_move_cost(void)
{
    inject_config c = config(INJECT_ADVANCED);
    injector inj;
    CHECK(inject_init(&inj, &c, 1, 2, cpu_gpu, 2, (const int[]){0, 0}) == 0);
    feed(&inj, 0, 0, cpu_time);
    feed(&inj, 0, 1, gpu_time);
    feedback_record_transfer(&inj.feedback, 1, 1000000000, 1.0); /* 1 GB/s into the GPU */
    /* 1e6 events: 1 s on the CPU, 0.01005 s on the GPU; moving 3 GB costs 3 s, spread over
     * the hold of 3 windows 1 s each: 1.01005 s does not beat 1 s: stay */
    inject_decision d = inject_decide(&inj, 0, 0, 1000000, 3000000000);
    CHECK_I64(d.device, 0);
    CHECK_I64(d.migrate, 0);
    CHECK_I64(d.policy, INJECT_ADVANCED);
    CHECK_NEAR(d.predicted_s, 1.0, 1e-9);
    /* 100 MB cost 0.1 s, 0.0333 s a window: 0.0434 s beats 1 s by far more than the margin */
    d = inject_decide(&inj, 0, 0, 1000000, 100000000);
    CHECK_I64(d.device, 1);
    CHECK_I64(d.migrate, 1);
    CHECK_I64(d.from, 0);
    CHECK_NEAR(d.predicted_s, gpu_time(1000000), 1e-9);
    /* now at home on the GPU, it stays: the CPU is slower even without a move */
    d = inject_decide(&inj, 0, 0, 1000000, 0);
    CHECK_I64(d.device, 1);
    CHECK_I64(d.migrate, 0);
    /* small sets leave the GPU when the CPU wins with the move priced at the default rate
     * (8 GB/s with a GPU involved): 10 events, 1e-5 s + 8e-6 s / 3 (64 KB) against 50.1e-6 s */
    d = inject_decide(&inj, 0, 0, 10, 64000);
    CHECK_I64(d.device, 0);
    CHECK_I64(d.migrate, 1);
    CHECK_NEAR(inject_move_seconds(&inj, 1, 0, 64000), 8e-6, 1e-12);
    /* ... but not when the move eats the saving: 1.2 MB cost 1.5e-4 s, 5e-5 s a window */
    d = inject_decide(&inj, 0, 1, 10, 1200000);
    CHECK_I64(d.device, 0); /* partition 1 is at home on the CPU already */
    inj.home[1] = 1;
    d = inject_decide(&inj, 0, 1, 10, 1200000);
    CHECK_I64(d.device, 1);
    CHECK_I64(d.migrate, 0);
    CHECK_U64(inj.migrations, 2);
    CHECK_U64(inj.decisions[INJECT_ADVANCED], 6);
    inject_free(&inj);
}

static void test_advanced_hysteresis(void)
{
    static const inject_device_class two_cpus[] = {INJECT_CPU, INJECT_CPU};
    inject_config c = config(INJECT_ADVANCED);
    injector inj;
    CHECK(inject_init(&inj, &c, 1, 2, two_cpus, 1, (const int[]){1}) == 0);
    feed(&inj, 0, 0, cpu_time);
    feed(&inj, 0, 1, cpu_time);
    /* equal predictions: no move */
    CHECK_I64(inject_decide(&inj, 0, 0, 1000, 0).device, 1);
    /* device 0 faster by 5%: inside the margin, no move */
    for (int i = 0; i < 8; i++)
        feedback_record(&inj.feedback, 0, 0, 1000, 0.95e-3);
    CHECK_I64(inject_decide(&inj, 0, 0, 1000, 0).device, 1);
    /* faster by 20%: it moves */
    for (int i = 0; i < 8; i++)
        feedback_record(&inj.feedback, 0, 0, 1000, 0.8e-3);
    CHECK_I64(inject_decide(&inj, 0, 0, 1000, 0).device, 0);
    inject_free(&inj);
}

static void test_advanced_backlog(void)
{
    inject_config c = config(INJECT_ADVANCED);
    injector inj;
    CHECK(inject_init(&inj, &c, 1, 2, cpu_gpu, 2, (const int[]){1, 1}) == 0);
    feed(&inj, 0, 0, cpu_time);
    feed(&inj, 0, 1, gpu_time);
    /* 1000 events: 1e-3 s on the CPU, 60e-6 s on the GPU: the GPU, at home */
    inject_decision a = inject_decide(&inj, 0, 0, 1000, 1000000);
    CHECK_I64(a.device, 1);
    inject_enqueued(&inj, &a, 1000, 0, 0);
    CHECK_NEAR(inj.backlog_s[1], gpu_time(1000), 1e-12);
    /* a large set queued on the GPU: 0.1 s of backlog */
    inject_decision big = inject_decide(&inj, 0, 0, 9995000, 0);
    CHECK_I64(big.device, 1);
    inject_enqueued(&inj, &big, 9995000, 0, 0);
    CHECK_NEAR(inj.backlog_s[1], gpu_time(1000) + 0.1, 1e-9);
    /* partition 1 now finishes sooner on the idle CPU, move included (1 MB at 8 GB/s) */
    inject_decision b = inject_decide(&inj, 0, 1, 1000, 1000000);
    CHECK_I64(b.device, 0);
    CHECK_I64(b.migrate, 1);
    inject_enqueued(&inj, &b, 1000, 1000000, 1e-3);
    CHECK_NEAR(inj.backlog_s[0], 1e-3, 1e-9);
    CHECK_NEAR(feedback_transfer_rate(&inj.feedback, 0), 1e9, 1e-12);
    CHECK_U64(inj.bytes_moved[0], 1000000);
    /* completions release the backlog, never below zero */
    inject_complete(&inj, big.id, 0.1);
    CHECK_NEAR(inj.backlog_s[1], gpu_time(1000), 1e-9);
    inject_complete(&inj, a.id, gpu_time(1000));
    CHECK(inj.backlog_s[1] == 0);
    inject_complete(&inj, a.id, 1.0);  /* twice: ignored */
    inject_complete(&inj, 12345, 1.0); /* unknown: ignored */
    CHECK(inj.backlog_s[1] == 0);
    CHECK_U64(feedback_get(&inj.feedback, 0, 1)->launches, 7);
    inject_complete(&inj, b.id, 1e-3);
    CHECK(inj.backlog_s[0] == 0);
    CHECK_U64(inj.sets_per_device[1], 2);
    CHECK_U64(inj.events_per_device[1], 9996000);
    /* with the GPU idle again, partition 1 goes back to it */
    CHECK_I64(inject_decide(&inj, 0, 1, 1000, 0).device, 1);
    inject_free(&inj);

    /* settled sets leave the backlog at once; their times, read later, are still learnt and
     * release nothing twice */
    CHECK(inject_init(&inj, &c, 1, 2, cpu_gpu, 2, (const int[]){1, 1}) == 0);
    feed(&inj, 0, 0, cpu_time);
    feed(&inj, 0, 1, gpu_time);
    inject_decision x = inject_decide(&inj, 0, 0, 9995000, 0);
    inject_enqueued(&inj, &x, 9995000, 0, 0);
    inject_decision y = inject_decide(&inj, 0, 1, 1000, 0);
    CHECK_I64(y.device, 0); /* the GPU is busy with x */
    inject_enqueued(&inj, &y, 1000, 0, 0);
    inject_settle(&inj);
    CHECK(inj.backlog_s[0] == 0 && inj.backlog_s[1] == 0);
    /* done work does not count: partition 1 goes back to the GPU */
    inject_decision z = inject_decide(&inj, 0, 1, 1000, 0);
    CHECK_I64(z.device, 1);
    inject_enqueued(&inj, &z, 1000, 0, 0);
    CHECK_NEAR(inj.backlog_s[1], gpu_time(1000), 1e-12);
    inject_complete(&inj, x.id, 0.1);
    inject_complete(&inj, y.id, 1e-3);
    CHECK_NEAR(inj.backlog_s[1], gpu_time(1000), 1e-12);
    CHECK_U64(feedback_get(&inj.feedback, 0, 1)->launches, 6);
    CHECK_U64(feedback_get(&inj.feedback, 0, 0)->launches, 6);
    inject_complete(&inj, z.id, gpu_time(1000));
    CHECK(inj.backlog_s[1] == 0);
    inject_free(&inj);
}

/* ---- hybrid, static, no migration -------------------------------------------------------- */

static void test_hybrid_switching(void)
{
    inject_config c = config(INJECT_HYBRID); /* busy 2, hold 3 */
    c.threshold = 100;
    injector inj;
    CHECK(inject_init(&inj, &c, 1, 2, cpu_gpu, 1, (const int[]){0}) == 0);
    feed(&inj, 0, 0, cpu_time);
    feed(&inj, 0, 1, gpu_time);
    inject_window_begin(&inj, 0, 4); /* 4 / 2 devices = 2: not above busy */
    CHECK_I64(inj.mode, INJECT_ADVANCED);
    CHECK_I64(inj.mode_since, 0);
    inject_decision d = inject_decide(&inj, 0, 0, 150, 0);
    CHECK_I64(d.policy, INJECT_ADVANCED);
    CHECK_I64(d.device, 1); /* 51.5e-6 s against 150e-6 s */
    inject_window_begin(&inj, 1, 5); /* full, but the choice is 1 window old */
    CHECK_I64(inj.mode, INJECT_ADVANCED);
    inject_window_begin(&inj, 2, 5);
    CHECK_I64(inj.mode, INJECT_ADVANCED);
    inject_window_begin(&inj, 3, 5); /* 3 windows: it switches */
    CHECK_I64(inj.mode, INJECT_RAPID);
    CHECK_I64(inj.mode_since, 3);
    CHECK_U64(inj.mode_switches, 1);
    d = inject_decide(&inj, 0, 0, 99, 0);
    CHECK_I64(d.policy, INJECT_RAPID);
    CHECK_I64(d.device, 0); /* below the threshold */
    inject_window_begin(&inj, 4, 0); /* empty: advanced wanted, held */
    CHECK_I64(inj.mode, INJECT_RAPID);
    inject_window_begin(&inj, 9, 4); /* windows may be skipped: they still count */
    CHECK_I64(inj.mode, INJECT_ADVANCED);
    CHECK_I64(inj.mode_since, 9);
    CHECK_U64(inj.mode_switches, 2);
    CHECK_I64(inject_decide(&inj, 0, 0, 99, 0).policy, INJECT_ADVANCED);
    CHECK_U64(inj.decisions[INJECT_ADVANCED], 2);
    CHECK_U64(inj.decisions[INJECT_RAPID], 1);
    CHECK_U64(inj.decisions[INJECT_HYBRID], 0);
    inject_free(&inj);

    /* the first window chooses freely */
    CHECK(inject_init(&inj, &c, 1, 2, cpu_gpu, 1, NULL) == 0);
    inject_window_begin(&inj, 0, 5);
    CHECK_I64(inj.mode, INJECT_RAPID);
    CHECK_U64(inj.mode_switches, 0);
    inject_free(&inj);
    /* other policies never change the mode */
    c.policy = INJECT_ADVANCED;
    CHECK(inject_init(&inj, &c, 1, 2, cpu_gpu, 1, NULL) == 0);
    inject_window_begin(&inj, 0, 500);
    CHECK_I64(inj.mode, INJECT_ADVANCED);
    inject_free(&inj);
}

static void test_static(void)
{
    inject_config c = config(INJECT_STATIC);
    injector inj;
    CHECK(inject_init(&inj, &c, 1, 2, cpu_gpu, 3, NULL) == 0);
    CHECK_I64(inj.home[0], 0);
    CHECK_I64(inj.home[1], 1);
    CHECK_I64(inj.home[2], 0);
    feed(&inj, 0, 0, cpu_time);
    feed(&inj, 0, 1, gpu_time);
    for (int i = 0; i < 6; i++) {
        inject_decision d = inject_decide(&inj, 0, i % 3, i % 2 ? 1 : 100000000, 0);
        CHECK_I64(d.device, (i % 3) == 1);
        CHECK_I64(d.migrate, 0);
        CHECK_I64(d.policy, INJECT_STATIC);
    }
    CHECK_U64(inj.decisions[INJECT_STATIC], 6);
    CHECK_U64(inj.migrations, 0);
    inject_free(&inj);
}

static void test_no_migration_any_policy(void)
{
    for (int p = INJECT_STATIC; p <= INJECT_HYBRID; p++) {
        inject_config c = config((inject_policy)p);
        c.can_migrate = 0;
        c.threshold = 10;
        injector inj;
        CHECK(inject_init(&inj, &c, 2, 2, cpu_gpu, 1, (const int[]){0}) == 0);
        /* kind 0: the GPU is far better; kind 1: uncalibrated everywhere */
        feed(&inj, 0, 0, cpu_time);
        feed(&inj, 0, 1, gpu_time);
        inject_window_begin(&inj, 0, p == INJECT_HYBRID ? 100 : 1);
        for (int i = 0; i < 5; i++) {
            inject_decision d = run_set(&inj, i % 2, 0, 1000000, 0, 1e-3);
            CHECK_I64(d.device, 0);
            CHECK_I64(d.migrate, 0);
            CHECK_I64(d.policy, p == INJECT_HYBRID ? INJECT_RAPID : p);
        }
        CHECK_U64(inj.decisions[p == INJECT_HYBRID ? INJECT_RAPID : p], 5);
        CHECK_U64(inj.migrations, 0);
        inject_free(&inj);
    }
}

/* ---- calibration ------------------------------------------------------------------------- */

static void test_calibration(void)
{
    inject_config c = config(INJECT_ADVANCED);
    injector inj;
    CHECK(inject_init(&inj, &c, 2, 3, cpu_gpu_gpu, 1, (const int[]){0}) == 0);
    /* fewest tries first, the home among equals, then the lowest number: each device twice */
    static const int want[] = {0, 1, 2, 2, 0, 1};
    inject_decision d[6];
    for (int i = 0; i < 6; i++) {
        d[i] = inject_decide(&inj, 0, 0, 100, 0);
        CHECK_I64(d[i].device, want[i]);
        CHECK_I64(d[i].policy, INJECT_ADVANCED);
        inject_enqueued(&inj, &d[i], 100, 0, 0);
    }
    CHECK_U64(inj.migrations, 4);
    /* all tried twice, nothing measured yet: no prediction anywhere, the set stays */
    inject_decision wait = inject_decide(&inj, 0, 0, 100, 0);
    CHECK_I64(wait.device, 1);
    CHECK_I64(wait.migrate, 0);
    CHECK(wait.predicted_s < 0);
    /* the first launch per device is discarded: one sample each after both come back */
    static const double secs[] = {1e-3, 9e-4, 9e-4, 2e-4, 1e-3, 3e-4};
    for (int i = 0; i < 6; i++)
        inject_complete(&inj, d[i].id, secs[i]);
    for (int dev = 0; dev < 3; dev++) {
        CHECK_U64(feedback_get(&inj.feedback, 0, dev)->launches, 2);
        CHECK_I64(feedback_get(&inj.feedback, 0, dev)->n, 1);
    }
    /* device 2 measured 2e-4 s for 100 events: the best */
    inject_decision next = inject_decide(&inj, 0, 0, 100, 0);
    CHECK_I64(next.device, 2);
    CHECK_NEAR(next.predicted_s, 2e-4, 1e-12);
    /* another kind calibrates on its own, starting from the current home */
    CHECK_I64(inject_decide(&inj, 1, 0, 100, 0).device, 2);
    CHECK_I64(inject_decide(&inj, 1, 0, 100, 0).device, 0);
    inject_free(&inj);

    /* rapid calibrates too, before it uses the threshold */
    c = config(INJECT_RAPID);
    CHECK(inject_init(&inj, &c, 1, 2, cpu_gpu, 1, (const int[]){1}) == 0);
    static const int want_rapid[] = {1, 0, 0, 1};
    for (int i = 0; i < 4; i++)
        CHECK_I64(run_set(&inj, 0, 0, 5, 0, 1e-4).device, want_rapid[i]);
    /* calibrated, but the threshold is learnt at the next window: until then, at home */
    CHECK_I64(inject_decide(&inj, 0, 0, 5, 0).device, 1);
    inject_window_begin(&inj, 1, 1);
    /* equal lines through the origin: the GPU is never faster, the CPU */
    CHECK(isinf(inj.crossover[0]));
    CHECK_I64(inject_decide(&inj, 0, 0, 5, 0).device, 0);
    inject_free(&inj);
}

/* ---- a lost device ----------------------------------------------------------------------- */

static void test_lost_device(void)
{
    inject_config c = config(INJECT_RAPID);
    c.threshold = 100;
    injector inj;
    /* four partitions at home on devices 1, 1, 2 and 0; device 1, a GPU, is lost */
    CHECK(inject_init(&inj, &c, 1, 3, cpu_gpu_gpu, 4, (const int[]){1, 1, 2, 0}) == 0);
    for (int d = 0; d < 3; d++)
        feed(&inj, 0, d, d ? gpu_time : cpu_time);
    CHECK(inject_device_lost(&inj, 1) == 0);
    CHECK_I64(inject_live_devices(&inj), 2);
    /* its partitions go to the live device with the fewest (0 and 2 have one each: the lower
     * number), then to 2; that is no migration */
    CHECK_I64(inj.home[0], 0);
    CHECK_I64(inj.home[1], 2);
    CHECK_U64(inj.migrations, 0);
    /* rapid: large sets to the one GPU left, small ones to the CPU */
    inject_window_begin(&inj, 0, 4);
    for (int i = 0; i < 4; i++)
        CHECK_I64(inject_decide(&inj, 0, i, 1000, 0).device, 2);
    CHECK_I64(inject_decide(&inj, 0, 0, 1, 0).device, 0);
    /* the last device left cannot be lost: nothing changes */
    CHECK(inject_device_lost(&inj, 0) == 0);
    CHECK(inject_device_lost(&inj, 2) == -1);
    CHECK_I64(inject_live_devices(&inj), 1);
    CHECK_I64(inject_decide(&inj, 0, 3, 1, 0).device, 2);
    inject_free(&inj);

    /* calibration never tries a lost device: each live one twice */
    c = config(INJECT_ADVANCED);
    CHECK(inject_init(&inj, &c, 1, 3, cpu_gpu_gpu, 1, (const int[]){0}) == 0);
    CHECK(inject_device_lost(&inj, 1) == 0);
    static const int want[] = {0, 2, 2, 0};
    for (int i = 0; i < 4; i++)
        CHECK_I64(run_set(&inj, 0, 0, 100, 0, i % 2 ? 1e-4 : 1e-3).device, want[i]);
    /* advanced: device 1 would be fastest, but it is lost */
    feed(&inj, 0, 1, gpu_fast_always);
    feed(&inj, 0, 2, gpu_slow_per_event);
    CHECK_I64(inject_decide(&inj, 0, 0, 100, 0).device, 0);
    inject_free(&inj);

    /* a partition the window's plan put on a device that is lost then goes elsewhere */
    CHECK(inject_init(&inj, &c, 1, 3, cpu_gpu_gpu, 1, (const int[]){2}) == 0);
    for (int d = 0; d < 3; d++)
        feed(&inj, 0, d, d ? gpu_time : cpu_time);
    const inject_set one = {0, 0, 1000, 0};
    CHECK(inject_window_plan(&inj, 0, &one, 1) == 0);
    CHECK(inject_device_lost(&inj, 2) == 0);
    CHECK_I64(inj.home[0], 0);
    CHECK(inject_decide(&inj, 0, 0, 1000, 0).device != 2);
    inject_free(&inj);

    /* hybrid counts the devices left: 5 sets over 2 devices are more than busy = 2 each */
    c = config(INJECT_HYBRID);
    CHECK(inject_init(&inj, &c, 1, 3, cpu_gpu_gpu, 1, NULL) == 0);
    CHECK(inject_device_lost(&inj, 1) == 0);
    inject_window_begin(&inj, 0, 5);
    CHECK_I64(inj.mode, INJECT_RAPID);
    inject_free(&inj);

    /* the migration hook skips a lost device too */
    setenv("CLNETSIM_TEST_MIGRATE_EVERY", "1", 1);
    CHECK(inject_init(&inj, &c, 1, 3, cpu_gpu_gpu, 1, (const int[]){0}) == 0);
    unsetenv("CLNETSIM_TEST_MIGRATE_EVERY");
    CHECK(inject_device_lost(&inj, 1) == 0);
    inject_window_begin(&inj, 0, 1);
    CHECK_I64(inject_decide(&inj, 0, 0, 1, 0).device, 2);
    inject_free(&inj);
}

/* ---- plans: one device per partition and window ----------------------------------------- */

static void test_window_plan(void)
{
    inject_config c = config(INJECT_ADVANCED);
    injector inj;
    CHECK(inject_init(&inj, &c, 2, 2, cpu_gpu, 1, (const int[]){0}) == 0);
    feed(&inj, 0, 0, cpu_time);
    feed(&inj, 0, 1, gpu_time);
    feed(&inj, 1, 0, cpu_time);
    feed(&inj, 1, 1, gpu_slow_per_event);
    /* kind 0, 1000 events: 1e-3 s on the CPU, 60e-6 s on the GPU; kind 1, 100 events: 1e-4 s
     * on the CPU, 2.1e-4 s on the GPU. Together 1.1e-3 s against 2.7e-4 s: both on the GPU,
     * one migration, although kind 1 alone would stay on the CPU. */
    const inject_set plan[] = {{0, 0, 1000, 0}, {1, 0, 100, 0}};
    CHECK(inject_window_plan(&inj, 0, plan, 2) == 0);
    inject_decision a = inject_decide(&inj, 0, 0, 1000, 0);
    CHECK_I64(a.device, 1);
    CHECK_I64(a.migrate, 1);
    CHECK_I64(a.policy, INJECT_ADVANCED);
    inject_decision b = inject_decide(&inj, 1, 0, 100, 0);
    CHECK_I64(b.device, 1);
    CHECK_I64(b.migrate, 0);
    CHECK_NEAR(b.predicted_s, gpu_slow_per_event(100), 1e-12);
    CHECK_U64(inj.migrations, 1);
    CHECK(inj.backlog_s[0] == 0 && inj.backlog_s[1] == 0); /* the plan leaves no backlog */
    /* without a plan each set chooses alone: kind 1 goes back to the CPU */
    inject_window_begin(&inj, 1, 1);
    b = inject_decide(&inj, 1, 0, 100, 0);
    CHECK_I64(b.device, 0);
    CHECK_I64(b.migrate, 1);
    inject_free(&inj);

    /* the plan counts its own choices as backlog: a large partition takes the GPU, a small
     * one then finishes sooner on the idle CPU (both start on the GPU) */
    CHECK(inject_init(&inj, &c, 1, 2, cpu_gpu, 2, (const int[]){1, 1}) == 0);
    feed(&inj, 0, 0, cpu_time);
    feed(&inj, 0, 1, gpu_time);
    const inject_set two[] = {{0, 0, 9995000, 0}, {0, 1, 1000, 0}};
    CHECK(inject_window_plan(&inj, 0, two, 2) == 0);
    CHECK_I64(inject_decide(&inj, 0, 0, 9995000, 0).device, 1);
    inject_decision small = inject_decide(&inj, 0, 1, 1000, 0);
    CHECK_I64(small.device, 0);
    CHECK_I64(small.migrate, 1);
    CHECK(inj.backlog_s[0] == 0 && inj.backlog_s[1] == 0);
    inject_free(&inj);

    /* partitions are placed longest first, whatever their order in the plan: listed first,
     * the small one would take the idle GPU and leave the CPU idle beside the large one */
    CHECK(inject_init(&inj, &c, 1, 2, cpu_gpu, 2, (const int[]){1, 1}) == 0);
    feed(&inj, 0, 0, cpu_time);
    feed(&inj, 0, 1, gpu_time);
    const inject_set small_first[] = {{0, 0, 1000, 0}, {0, 1, 9995000, 0}};
    CHECK(inject_window_plan(&inj, 0, small_first, 2) == 0);
    small = inject_decide(&inj, 0, 0, 1000, 0);
    CHECK_I64(small.device, 0);
    CHECK_I64(small.migrate, 1);
    CHECK_I64(inject_decide(&inj, 0, 1, 9995000, 0).device, 1);
    inject_free(&inj);

    /* rapid: one set at its threshold takes the partition's whole window to a GPU */
    c = config(INJECT_RAPID);
    c.threshold = 1000;
    CHECK(inject_init(&inj, &c, 2, 2, cpu_gpu, 1, (const int[]){0}) == 0);
    for (int k = 0; k < 2; k++) {
        feed(&inj, k, 0, cpu_time);
        feed(&inj, k, 1, gpu_time);
    }
    const inject_set mixed[] = {{0, 0, 10, 0}, {1, 0, 1000, 0}};
    CHECK(inject_window_plan(&inj, 0, mixed, 2) == 0);
    CHECK_I64(inject_decide(&inj, 0, 0, 10, 0).device, 1);
    CHECK_I64(inject_decide(&inj, 1, 0, 1000, 0).device, 1);
    const inject_set under[] = {{0, 0, 10, 0}, {1, 0, 999, 0}};
    CHECK(inject_window_plan(&inj, 1, under, 2) == 0);
    CHECK_I64(inject_decide(&inj, 0, 0, 10, 0).device, 0);
    CHECK_I64(inject_decide(&inj, 1, 0, 999, 0).device, 0);
    CHECK_U64(inj.migrations, 2);
    inject_free(&inj);

    /* calibration: every set of the window goes to the device being tried */
    c = config(INJECT_ADVANCED);
    CHECK(inject_init(&inj, &c, 2, 2, cpu_gpu, 1, (const int[]){1}) == 0);
    feed(&inj, 0, 1, gpu_time);
    feed(&inj, 1, 1, gpu_time);
    for (int w = 0; w < 2; w++) {
        CHECK(inject_window_plan(&inj, w, plan, 2) == 0);
        CHECK_I64(inject_decide(&inj, 0, 0, 1000, 0).device, 0);
        CHECK_I64(inject_decide(&inj, 1, 0, 100, 0).device, 0);
    }
    CHECK_U64(inj.migrations, 1);
    inject_free(&inj);
}

/* A trial that migrates waits until it costs at most calibration_share of the device time
 * measured so far. */
static void test_calibration_share(void)
{
    inject_config c = config(INJECT_ADVANCED);
    c.calibration_share = 0.05;
    injector inj;
    CHECK(inject_init(&inj, &c, 2, 2, cpu_gpu, 1, (const int[]){1}) == 0);
    /* the GPU calibrated on kind 0: 3 launches of 60e-6 s, the first one warm-up: 1.2e-4 s
     * measured */
    for (int i = 0; i < 3; i++)
        feedback_record(&inj.feedback, 0, 1, 1000, 60e-6);
    /* trying the CPU: 800 kB there and back at the default 8 GB/s, 2e-4 s, and twice four
     * times the GPU's 60e-6 s, 6.8e-4 s: 0.0136 s must have been measured. Not yet: the
     * set stays on the GPU, which alone can predict it. */
    const inject_set set = {0, 0, 1000, 800000};
    CHECK(inject_window_plan(&inj, 0, &set, 1) == 0);
    inject_decision d = inject_decide(&inj, 0, 0, 1000, 800000);
    CHECK_I64(d.device, 1);
    CHECK_I64(d.migrate, 0);
    /* 0.0134 s more measured (any kind counts, its warm-up does not): 0.01352 s, still
     * 8e-5 s short */
    feedback_record(&inj.feedback, 1, 1, 1, 0.5);
    feedback_record(&inj.feedback, 1, 1, 1, 0.0134);
    CHECK(inject_window_plan(&inj, 1, &set, 1) == 0);
    CHECK_I64(inject_decide(&inj, 0, 0, 1000, 800000).device, 1);
    feedback_record(&inj.feedback, 1, 1, 1, 0.0001);
    CHECK(inject_window_plan(&inj, 2, &set, 1) == 0);
    d = inject_decide(&inj, 0, 0, 1000, 800000);
    CHECK_I64(d.device, 0);
    CHECK_I64(d.migrate, 1);
    inject_free(&inj);

    /* a home that cannot predict its sets yet gives no price: its own calibration comes first
     * and costs nothing (no move) */
    CHECK(inject_init(&inj, &c, 1, 2, cpu_gpu, 1, (const int[]){1}) == 0);
    CHECK(inject_window_plan(&inj, 0, &set, 1) == 0);
    CHECK_I64(inject_decide(&inj, 0, 0, 1000, 800000).device, 1);
    CHECK(inject_window_plan(&inj, 1, &set, 1) == 0);
    CHECK_I64(inject_decide(&inj, 0, 0, 1000, 800000).device, 1);
    CHECK(inject_window_plan(&inj, 2, &set, 1) == 0);
    CHECK_I64(inject_decide(&inj, 0, 0, 1000, 800000).device, 1); /* tried, not measured */
    inject_free(&inj);
}

/* ---- trace ------------------------------------------------------------------------------- */

static char tmp_dir[64];

/* How many temporary files of PATH (PATH.tmp.XXXXXX) its folder holds. */
static int temporary_files(const char *path)
{
    char dir[128], prefix[160];
    const char *slash = strrchr(path, '/');
    snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
    snprintf(prefix, sizeof prefix, "%s.tmp.", slash + 1);
    DIR *d = opendir(dir);
    int n = 0;
    for (const struct dirent *e; d && (e = readdir(d));)
        n += !strncmp(e->d_name, prefix, strlen(prefix));
    if (d)
        closedir(d);
    return n;
}

static void test_trace(void)
{
    char path[128];
    snprintf(path, sizeof path, "%s/trace.csv", tmp_dir);
    inject_config c = config(INJECT_STATIC);
    injector inj;
    CHECK(inject_init(&inj, &c, 2, 1, NULL, 1, NULL) == 0);
    const char *names[] = {"transmit", "odd \"name\", too"};
    CHECK(inject_trace_open(&inj, path, names, NULL) == 0);
    names[0] = "changed"; /* the names were copied */
    CHECK(temporary_files(path) == 1);
    CHECK(!exists(path));
    feedback_record(&inj.feedback, 0, 0, 10, 1);
    feedback_record(&inj.feedback, 0, 0, 10, 0.5);
    inject_window_begin(&inj, 0, 2);
    inject_decision d0 = inject_decide(&inj, 0, 0, 10, 0);
    inject_decision d1 = inject_decide(&inj, 1, 0, 20, 0);
    inject_window_begin(&inj, 7, 1);
    inject_decision d2 = inject_decide(&inj, 0, 0, 30, 0);
    inject_complete(&inj, d2.id, 0.25);
    inject_complete(&inj, d0.id, 0.5);
    CHECK(inject_trace_close(&inj, NULL) == 0); /* d1 was never measured */
    CHECK(temporary_files(path) == 0);
    const char *want = "window,kind,partition,multiplicity,device,predicted_s,measured_s,policy,"
                       "migrated\n"
                       "0,transmit,0,10,0,0.5,0.5,static,0\n"
                       "0,\"odd \"\"name\"\", too\",0,20,0,,,static,0\n"
                       "7,transmit,0,30,0,1.5,0.25,static,0\n";
    const char *got = read_text(path);
    CHECK(got && strcmp(got, want) == 0);
    if (got && strcmp(got, want) != 0)
        fprintf(stderr, "trace:\n%s\nexpected:\n%s", got, want);
    inject_complete(&inj, d1.id, 0.125); /* after the close: still learnt */
    CHECK_U64(feedback_get(&inj.feedback, 1, 0)->launches, 1);
    CHECK(inject_trace_close(&inj, NULL) == 0); /* closing twice is harmless */
    inject_free(&inj);
    remove(path);

    /* migrations and the rapid/advanced names */
    c = config(INJECT_RAPID);
    c.threshold = 100;
    CHECK(inject_init(&inj, &c, 1, 2, cpu_gpu, 1, NULL) == 0);
    feed(&inj, 0, 0, cpu_time);
    feed(&inj, 0, 1, gpu_time);
    CHECK(inject_trace_open(&inj, path, NULL, NULL) == 0);
    d0 = inject_decide(&inj, 0, 0, 100, 0);
    d1 = inject_decide(&inj, 0, 0, 100, 0);
    inject_complete(&inj, d1.id, 0.002);
    inject_complete(&inj, d0.id, 0.001);
    CHECK(inject_trace_close(&inj, NULL) == 0);
    want = "window,kind,partition,multiplicity,device,predicted_s,measured_s,policy,migrated\n"
           "0,0,0,100,1,5.1e-05,0.001,rapid,1\n"
           "0,0,0,100,1,5.1e-05,0.002,rapid,0\n";
    got = read_text(path);
    CHECK(got && strcmp(got, want) == 0);
    if (got && strcmp(got, want) != 0)
        fprintf(stderr, "trace:\n%s\nexpected:\n%s", got, want);
    inject_free(&inj);
    remove(path);
}

static void test_trace_not_closed(void)
{
    char path[128];
    snprintf(path, sizeof path, "%s/abandoned.csv", tmp_dir);
    inject_config c = config(INJECT_STATIC);
    injector inj;
    CHECK(inject_init(&inj, &c, 1, 1, NULL, 1, NULL) == 0);
    CHECK(inject_trace_open(&inj, path, NULL, NULL) == 0);
    run_set(&inj, 0, 0, 5, 0, 1e-3);
    CHECK(temporary_files(path) == 1);
    inject_free(&inj); /* a failed run: no trace at all */
    CHECK(temporary_files(path) == 0);
    CHECK(!exists(path));
}

static void test_trace_unwritable(void)
{
    char path[160];
    snprintf(path, sizeof path, "%s/no/such/folder/trace.csv", tmp_dir);
    inject_config c = config(INJECT_STATIC);
    injector inj;
    CHECK(inject_init(&inj, &c, 1, 1, NULL, 1, NULL) == 0);
    cn_error err = {0};
    CHECK(inject_trace_open(&inj, path, NULL, &err) == -1);
    CHECK(strstr(err.msg, "No such file or directory") != NULL);
    CHECK(inject_trace_close(&inj, NULL) == 0); /* nothing open */
    run_set(&inj, 0, 0, 5, 0, 1e-3);      /* the injector still works */
    inject_free(&inj);
}

/* ---- the testing hook and odd inputs ----------------------------------------------------- */

static void test_slowdown_hook(void)
{
    setenv("CLNETSIM_TEST_DEVICE_SLOWDOWN", "1:4,x:3,0:-2,9:2,1:", 1);
    inject_config c = config(INJECT_STATIC);
    injector inj;
    CHECK(inject_init(&inj, &c, 1, 2, cpu_gpu, 2, NULL) == 0);
    unsetenv("CLNETSIM_TEST_DEVICE_SLOWDOWN");
    run_set(&inj, 0, 0, 10, 0, 0.5); /* device 0: bad entries leave it alone */
    run_set(&inj, 0, 1, 10, 0, 0.5); /* device 1: four times slower */
    run_set(&inj, 0, 1, 10, 0, 0.25);
    CHECK_NEAR(feedback_get(&inj.feedback, 0, 0)->total_seconds, 0.5, 1e-15);
    CHECK_NEAR(feedback_get(&inj.feedback, 0, 1)->total_seconds, 3.0, 1e-15);
    CHECK_NEAR(feedback_predict(&inj.feedback, 0, 1, 10), 1.0, 1e-15);
    inject_free(&inj);
}

/* Sets run without profiling events (an untimed window): no sample, no launch, the backlog
 * taken back, and the device's estimated seconds grow by the estimate when each completes:
 * nothing before any launch, the mean of the launches while no sample is kept, then the
 * fitted line. */
static void test_unmeasured(void)
{
    inject_config c = config(INJECT_STATIC);
    injector inj;
    CHECK(inject_init(&inj, &c, 1, 1, cpu_gpu, 1, NULL) == 0);
    CHECK_NEAR(inject_estimate_seconds(&inj, 0, 0, 10), 0.0, 0);
    inject_decision d = inject_decide(&inj, 0, 0, 10, 0);
    inject_enqueued(&inj, &d, 10, 0, 0);
    inject_unmeasured(&inj, d.id);
    CHECK(inj.untimed_sets[0] == 1);
    CHECK_NEAR(inj.estimated_s[0], 0.0, 0);
    run_set(&inj, 0, 0, 10, 0, 2.0); /* the warm-up launch: busy time, no sample */
    CHECK_NEAR(inject_estimate_seconds(&inj, 0, 0, 10), 2.0, 0);
    d = inject_decide(&inj, 0, 0, 10, 0);
    inject_enqueued(&inj, &d, 10, 0, 0);
    inject_unmeasured(&inj, d.id);
    CHECK_NEAR(inj.estimated_s[0], 2.0, 1e-15);
    run_set(&inj, 0, 0, 100, 0, 1.0); /* the first sample: 0.01 s per event */
    d = inject_decide(&inj, 0, 0, 50, 0);
    inject_enqueued(&inj, &d, 50, 0, 0);
    inject_unmeasured(&inj, d.id);
    inject_unmeasured(&inj, d.id);     /* once only */
    inject_unmeasured(&inj, 12345);    /* no such decision */
    CHECK_NEAR(inj.estimated_s[0], 2.5, 1e-15);
    CHECK(inj.untimed_sets[0] == 3);
    CHECK(inj.sets_per_device[0] == 5);
    const feedback_series *fs = feedback_get(&inj.feedback, 0, 0);
    CHECK(fs->launches == 2 && fs->n == 1);
    CHECK_NEAR(fs->total_seconds, 3.0, 1e-15);
    CHECK_NEAR(inj.backlog_s[0], 0.0, 0); /* every set done */
    inject_free(&inj);
}

static void test_odd_inputs(void)
{
    inject_config c = config(INJECT_HYBRID);
    injector inj;
    CHECK(inject_init(&inj, &c, 1, 0, NULL, 1, NULL) == -1);
    CHECK(inject_init(&inj, &c, 0, 1, NULL, 0, NULL) == 0); /* nothing to do, but valid */
    inject_window_begin(&inj, 0, 0);
    inject_free(&inj);
    CHECK(inject_init(&inj, &c, 1, 2, cpu_gpu, 1, (const int[]){7}) == 0);
    CHECK_I64(inj.home[0], 0); /* a home that is no device: the first */
    /* a partition or kind that does not exist: device 0, no move, no crash */
    inject_decision d = inject_decide(&inj, 0, 5, 10, 0);
    CHECK_I64(d.device, 0);
    CHECK_I64(d.migrate, 0);
    d = run_set(&inj, 3, 0, 10, 0, 1e-3);
    CHECK_I64(d.migrate, 0);
    /* failed measurements: not learnt, the backlog still released */
    d = inject_decide(&inj, 0, 0, 10, 0);
    inject_enqueued(&inj, &d, 10, 0, 0);
    inject_complete(&inj, d.id, NAN);
    d = inject_decide(&inj, 0, 0, 10, 0);
    inject_enqueued(&inj, &d, 10, 0, 0);
    inject_complete(&inj, d.id, -1);
    CHECK_U64(feedback_get(&inj.feedback, 0, 0)->launches, 0);
    CHECK_U64(feedback_get(&inj.feedback, 0, 1)->launches, 0);
    CHECK(inj.backlog_s[0] == 0 && inj.backlog_s[1] == 0);
    inject_free(&inj);

    /* zero-time measurements: predictions of 0, no division by zero anywhere */
    c.policy = INJECT_ADVANCED;
    CHECK(inject_init(&inj, &c, 1, 2, cpu_gpu, 1, NULL) == 0);
    for (int dev = 0; dev < 2; dev++)
        for (uint64_t m = 0; m < 6; m++)
            feedback_record(&inj.feedback, 0, dev, m * 1000, 0);
    inject_window_begin(&inj, 0, 1);
    CHECK(isinf(inj.crossover[0])); /* the GPU is never faster */
    d = inject_decide(&inj, 0, 0, 1000, 1 << 20);
    CHECK(d.predicted_s == 0);
    CHECK_I64(d.device, 0);
    inject_free(&inj);
}

int main(void)
{
    snprintf(tmp_dir, sizeof tmp_dir, "%s", "/tmp/test_inject_XXXXXX");
    if (!mkdtemp(tmp_dir)) {
        perror("mkdtemp");
        return 1;
    }
    test_feedback_history();
    test_feedback_fallbacks();
    test_rapid_learnt_threshold();
    test_rapid_fixed_threshold();
    test_rapid_turns();
    test_rapid_limits();
    test_advanced_move_cost();
    test_advanced_hysteresis();
    test_advanced_backlog();
    test_hybrid_switching();
    test_static();
    test_no_migration_any_policy();
    test_calibration();
    test_lost_device();
    test_window_plan();
    test_calibration_share();
    test_trace();
    test_trace_not_closed();
    test_trace_unwritable();
    test_slowdown_hook();
    test_unmeasured();
    test_odd_inputs();
    if (rmdir(tmp_dir) != 0) {
        fprintf(stderr, "files left in %s\n", tmp_dir);
        failures++;
    }
    printf("%d checks, %d failures\n", checks, failures);
    return failures ? 1 : 0;
}
