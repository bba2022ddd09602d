#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dist/dist.h"
#include "engine/engine.h"
#include "engine/granularity.h"
#include "engine/plan_order.h"
#include "engine/rank_step.h"

/* Fills RES's devices: every device of ALL (the run's), those of LIVE (the injector's
 * devices, in its order) with what the injector counted, the others with nothing; failed
 * ones with their error. */
static void describe_devices(const injector *inj, device_ctx *const *all, int n_all,
                             device_ctx *const *live, int n_live, run_results *res)
{
    res->n_devices = n_all < REPORT_MAX_DEVICES ? n_all : REPORT_MAX_DEVICES;
    uint64_t all_events = 0;
    for (int d = 0; d < n_live; d++)
        all_events += inj->events_per_device[d];
    inject_report *ir = &res->injector;
    snprintf(ir->policy, sizeof ir->policy, "%s", inject_policy_name(inj->cfg.policy));
    for (int p = 0; p < 4; p++)
        ir->decisions[p] = inj->decisions[p];
    ir->migrations = inj->migrations;
    ir->switches = inj->mode_switches;
    for (int i = 0; i < res->n_devices; i++) {
        device_report *r = &res->devices[i];
        memset(r, 0, sizeof *r);
        snprintf(r->name, sizeof r->name, "%s", all[i]->info.name);
        snprintf(r->platform, sizeof r->platform, "%s", all[i]->info.platform_name);
        snprintf(r->type, sizeof r->type, "%s", device_type_name(all[i]->info.type));
        r->failed = all[i]->failed;
        snprintf(r->failure, sizeof r->failure, "%s", all[i]->failure);
        int d = 0;
        while (d < n_live && live[d] != all[i])
            d++;
        if (d == n_live)
            continue; /* left out before this run's injector started */
        r->event_sets = inj->sets_per_device[d];
        r->timed_sets = inj->sets_per_device[d] - inj->untimed_sets[d];
        r->events = inj->events_per_device[d];
        r->bytes_moved = inj->bytes_moved[d];
        r->share = all_events ? (double)inj->events_per_device[d] / (double)all_events : 0;
        /* measured over the timed sets, and the injector's estimate of each untimed one */
        r->busy_s = inj->estimated_s[d];
        for (int k = 0; k < inj->feedback.n_kinds; k++)
            r->busy_s += feedback_get(&inj->feedback, k, d)->total_seconds;
    }
}

typedef struct pending_set {
    uint64_t decision;      /* the injector's decision id */
    int device;             /* where it runs */
    int untimed;            /* run in an untimed window without events: no time to read */
    int n_evs;
    cl_event evs[ENGINE_MAX_SET_EVENTS];
} pending_set;

/* Sets whose kernels may still run: the model may enqueue a window before the last one has
 * finished, so times are collected once the events complete, oldest first. */
#define PENDING_MAX 64
typedef struct pending_fifo {
    pending_set sets[PENDING_MAX];
    int head, count;
} pending_fifo;

static int set_complete(const pending_set *p)
{
    for (int e = 0; e < p->n_evs; e++) {
        cl_int status = CL_COMPLETE;
        if (p->evs[e] && (clGetEventInfo(p->evs[e], CL_EVENT_COMMAND_EXECUTION_STATUS,
                                         sizeof status, &status, NULL) != CL_SUCCESS ||
                          status > CL_COMPLETE))
            return 0; /* queued, submitted or running; an error status counts as done */
    }
    return 1;
}

/* Records the times of completed sets; with WAIT, waits for all of them. */
static void collect_feedback(injector *inj, pending_fifo *f, int wait)
{
    while (f->count > 0) {
        pending_set *p = &f->sets[f->head];
        if (wait || f->count == PENDING_MAX) {
            for (int e = 0; e < p->n_evs; e++)
                if (p->evs[e])
                    clWaitForEvents(1, &p->evs[e]);
        } else if (!set_complete(p)) {
            break;
        }
        /* a set that had nothing to do (its work was done by an earlier one) is no sample;
         * one launched without events in an untimed window counts as the injector's
         * estimate of it */
        double seconds = p->n_evs > 0 ? 0 : -1;
        for (int e = 0; e < p->n_evs; e++) {
            if (!p->evs[e])
                continue;
            seconds += device_event_seconds(p->evs[e]);
            clReleaseEvent(p->evs[e]);
        }
        if (p->untimed)
            inject_unmeasured(inj, p->decision);
        else
            inject_complete(inj, p->decision, seconds);
        f->head = (f->head + 1) % PENDING_MAX;
        f->count--;
    }
}

/* DEVICE was left out: its sets are forgotten without waiting for them (a lost device may
 * never complete them); the injector learns no time from them. */
static void forget_device(pending_fifo *f, int device)
{
    for (int i = 0; i < f->count; i++) {
        pending_set *p = &f->sets[(f->head + i) % PENDING_MAX];
        if (p->device != device)
            continue;
        for (int e = 0; e < p->n_evs; e++)
            if (p->evs[e])
                clReleaseEvent(p->evs[e]);
        p->n_evs = 0;
    }
}

/* The device among DEVS whose call made ERR, or -1 (not a device's failure, or a device of no
 * concern to this run). */
static int failed_device(const cn_error *err, device_ctx *const *devs, int n_devs)
{
    for (int d = 0; err->device && d < n_devs; d++)
        if (err->device == devs[d]->info.name)
            return d;
    return -1;
}

/* What run_windows needs to go on without a failed device. */
typedef struct recovery {
    int allowed;            /* [devices] on_failure = continue */
    FILE *log;
} recovery;

/* ERR (status RC) arose in window PLAN->index. With on_failure = continue, when it is a
 * device's failure, another device is left and the model can go on without it in place, the
 * device is left out (the injector never chooses it again, its sets in flight are forgotten,
 * the model appends to PLAN what must run again) and 0 is returned. Otherwise RC, ERR kept. */
static int go_on_without(const model_ops *ops, struct model_state *m, injector *inj,
                         device_ctx *const *devs, pending_fifo *fifo, window_plan *plan,
                         const recovery *rec, int rc, cn_error *err)
{
    int d = failed_device(err, devs, inj->n_devices);
    if (!rec->allowed || d < 0 || inj->lost[d] || !ops->device_lost ||
        inject_live_devices(inj) < 2)
        return rc;
    cn_error why = {0};
    if (ops->device_lost(m, devs[d], plan, &why) != 0)
        return rc; /* the engine starts again without the device */
    inject_device_lost(inj, d);
    forget_device(fifo, d);
    device_mark_failed(devs[d], err->msg);
    if (rec->log)
        fprintf(rec->log, "clnetsim: warning: device %d '%s' failed in window %lld and is left "
                "out; the run goes on on the others: %s\n", devs[d]->ordinal,
                devs[d]->info.name, (long long)plan->index, devs[d]->failure);
    cn_error_clear(err);
    return 0;
}

/* Decides where set S of PLAN runs, migrates its partition when the decision moves it, and
 * lets the model enqueue it. */
static int run_one_set(const model_ops *ops, struct model_state *m, injector *inj,
                       device_ctx *const *devs, pending_fifo *fifo, const window_plan *plan,
                       int s, cn_error *err)
{
    const event_set *set = &plan->sets[s];
    if (fifo->count == PENDING_MAX)
        collect_feedback(inj, fifo, 0);
    inject_decision d = inject_decide(inj, set->kind, set->partition, set->multiplicity,
                                      ops->partition_bytes(m, set->partition));
    uint64_t moved = 0;
    double move_s = 0;
    if (d.migrate) {
        double t0 = wall_seconds();
        int rc = ops->migrate(m, set->partition, d.device, &moved, err);
        move_s = wall_seconds() - t0;
        if (rc)
            return rc;
    }
    pending_set *p = &fifo->sets[(fifo->head + fifo->count++) % PENDING_MAX];
    p->decision = d.id;
    p->device = d.device;
    p->n_evs = 0;
    memset(p->evs, 0, sizeof p->evs);
    int rc = ops->run_set(m, plan, set, devs[d.device], p->evs, &p->n_evs, err);
    /* a model may hand back the events of an untimed window's set anyway: it is measured */
    p->untimed = !plan->timed && p->n_evs == 0;
    /* a model that reports more events than it filled would have the engine wait on
     * garbage: refuse it here, where it shows */
    for (int e = 0; e < p->n_evs && rc == 0; e++)
        if (!p->evs[e] || p->n_evs > ENGINE_MAX_SET_EVENTS)
            rc = cn_fail(err, CN_ERR_RUNTIME, "internal error: event set %d of %s %lld "
                         "reported %d events but filled fewer", s,
                         inj->cfg.batches ? "batch" : "window", (long long)plan->index,
                         p->n_evs);
    if (rc == 0)
        inject_enqueued(inj, &d, set->multiplicity, moved, move_s);
    return rc;
}

/* The model's kind names in NAMES (ENGINE_MAX_KINDS entries), for the trace and the table. */
static const char *const *name_kinds(const model_ops *ops, const char **names)
{
    for (int k = 0; k < ops->n_kinds && k < ENGINE_MAX_KINDS; k++)
        names[k] = ops->kinds[k].name;
    return names;
}

/* The injector for this run: the scenario's [inject] keys, the devices' classes, and the
 * partitions as the model placed them. */
static int make_injector(injector *inj, const model_ops *ops, struct model_state *m, int sync,
                         const scenario *sc, device_ctx *const *devs, int n_devs,
                         const engine_options *opt, cn_error *err)
{
    inject_config cfg = {
        .policy = (inject_policy)sc->policy,
        .history = (int)sc->history,
        .hold = (int)sc->hold,
        .threshold = (uint64_t)sc->threshold,
        .busy = (int)sc->busy,
        /* several ranks: a partition stays on its device (moving one needs what the
         * others hold of it on this rank only; not built over ranks yet) */
        .can_migrate = ops->migrate != NULL && !rank_several(),
        .calibration_share = sc->calibration_share,
        .batches = sync == ENGINE_SYNC_BATCHES,
    };
    inject_device_class classes[ENGINE_MAX_DEVICES];
    for (int d = 0; d < n_devs; d++)
        classes[d] = devs[d]->info.type & CL_DEVICE_TYPE_CPU ? INJECT_CPU : INJECT_GPU;
    int n_parts = ops->n_partitions(m);
    int *home = calloc((size_t)n_parts, sizeof *home);
    if (!home)
        return cn_fail(err, CN_ERR_RUNTIME, "out of host memory for the injector");
    for (int p = 0; p < n_parts; p++)
        home[p] = ops->partition_home(m, p);
    int rc = inject_init(inj, &cfg, ops->n_kinds, n_devs, classes, n_parts, home);
    free(home);
    if (rc != 0)
        return cn_fail(err, CN_ERR_RUNTIME, "out of host memory for the injector");
    if (opt->trace_path) {
        const char *kind_names[ENGINE_MAX_KINDS];
        if (inject_trace_open(inj, opt->trace_path, name_kinds(ops, kind_names), err) != 0)
            return err->code;
    }
    return 0;
}

/* When a step's sets are timed (window_plan.timed). Each timed set costs launches with
 * profiling events, several times dearer than without on some drivers (NVIDIA's: about 11 us
 * against 4), and the host's reading of the events; a one-device run that nobody watches
 * needs only samples. So every step is timed when the injector has a choice to make (more
 * than one live device) or the user observes the timings (--show-feedback, --trace-inject);
 * otherwise one step in EVERY, from the first, and the second (the first launch of a kind on
 * a device is discarded as warm-up: the second gives the first sample kept). The kernel timer
 * of --kernel-times and `tune` makes its own events (enqueue_1d) and needs none of these. */
typedef struct timing_rule {
    int watched;    /* --show-feedback or --trace-inject */
    int64_t every;  /* ENGINE_TIMING_EVERY, or CLNETSIM_TEST_TIMING_EVERY; 1: every step */
    int64_t step;   /* steps begun in this attempt, the current one included */
} timing_rule;

static int step_timed(const timing_rule *t, const injector *inj, int64_t step)
{
    return t->watched || inject_live_devices(inj) > 1 || t->every <= 1 || step <= 1 ||
           step % t->every == 0;
}

/* Test hook: CLNETSIM_TEST_TIMING_EVERY=K times one step in K (1: every step), so that tests
 * can compare runs timed throughout with sampled ones. Returns 0 (*EVERY set, the default
 * when unset), or an input error naming the bad value. */
#define TIMING_EVERY_MAX 1000000
static int timing_every(int64_t *every, cn_error *err)
{
    const char *v = getenv("CLNETSIM_TEST_TIMING_EVERY");
    *every = ENGINE_TIMING_EVERY;
    if (!v || !*v)
        return 0;
    char *end;
    errno = 0;
    long long k = strtoll(v, &end, 10);
    if (*end != '\0' || errno || k < 1 || k > TIMING_EVERY_MAX)
        return cn_fail(err, CN_ERR_INPUT, "CLNETSIM_TEST_TIMING_EVERY='%s' is not a whole "
                       "number from 1 to %d", v, TIMING_EVERY_MAX);
    *every = k;
    return 0;
}

/* Test hook: CLNETSIM_TEST_RAISE=INT@N (or TERM@N, HUP@N, KILL@N) raises that signal once N
 * windows (or batches) are done, so that tests stop a run at a known point through the real
 * signal handler (or kill it: a rank that dies). With CLNETSIM_TEST_RANK=R only MPI rank R
 * raises it. Returns the window count, -1 when unset or malformed; *SIG the signal. */
static int64_t test_raise_point(int *sig)
{
    const char *v = getenv("CLNETSIM_TEST_RAISE");
    const char *only = getenv("CLNETSIM_TEST_RANK");
    if (only && *only && strtol(only, NULL, 10) != dist_rank())
        return -1;
    const char *at = v ? strchr(v, '@') : NULL;
    /* strtoll, as sscanf's %lld has undefined behaviour on a number out of range */
    long long n = at ? strtoll(at + 1, NULL, 10) : 0;
    if (n < 1)
        return -1;
    *sig = !strncmp(v, "INT@", 4)    ? SIGINT
           : !strncmp(v, "TERM@", 5) ? SIGTERM
           : !strncmp(v, "HUP@", 4)  ? SIGHUP
           : !strncmp(v, "KILL@", 5) ? SIGKILL
                                     : 0;
    return *sig ? (int64_t)n : -1;
}

/* Where a run starts and when its next checkpoint is due. */
typedef struct run_start {
    int sync;                 /* enum engine_sync of this run (model_ops.run_sync) */
    int64_t window;           /* the first window (or batch) to run (a resumed run's is later
                               * than 0) */
    int64_t windows_done;     /* windows (or batches) run before it, then so far */
    uint64_t batch_done;      /* batches: what the last one said they covered */
    int stop_signal;          /* the signal that stopped the run (several ranks: agreed) */
    rank_agreement ranks;     /* several ranks: what they agreed on last */
    sim_time_ns next_sim;     /* a checkpoint is due once this simulated time is reached */
    double next_wall;         /* or this wall time (wall_seconds) */
    int64_t written;          /* checkpoints written */
    granularity_report gran;  /* the model's knob, as the run chose it */
} run_start;

/* Writes the checkpoint of the boundary before window NEXT: the engine's records, then the
 * model's (docs/when-things-go-wrong.md, "Checkpoints and resuming"). */
static int write_checkpoint(const model_ops *ops, struct model_state *m, const scenario *sc,
                            const engine_options *opt, int64_t next, int64_t done,
                            sim_time_ns reached, cn_error *err)
{
    ckpt_buf b = {0};
    const char *text = opt->scenario_text ? opt->scenario_text : "";
    ckpt_put(&b, CKPT_MODEL, ops->name, strlen(ops->name));
    ckpt_put(&b, CKPT_SCENARIO, text, strlen(text));
    ckpt_put(&b, CKPT_PATH, sc->path, strlen(sc->path));
    ckpt_put_i64(&b, CKPT_RECORDS, sc->record_packets);
    ckpt_put_i64(&b, CKPT_NEXT, next);
    ckpt_put_i64(&b, CKPT_DONE, done);
    ckpt_put_i64(&b, CKPT_REACHED, reached);
    /* several ranks: each saves its part, the model puts the parts together on rank 0,
     * which writes the one file; every rank learns whether that worked */
    int rc = ops->save(m, next, &b, err);
    if (!rc && dist_rank() == 0)
        rc = ckpt_write(opt->checkpoint, &b, err);
    if (rank_several())
        rc = dist_agree(rc, err);
    ckpt_buf_free(&b);
    return rc;
}

/* Whether a checkpoint is due at simulated time REACHED (then the next one is scheduled). */
static int checkpoint_due(const engine_options *opt, run_start *st, sim_time_ns reached)
{
    int due = 0;
    if (opt->checkpoint_every_ns > 0 && reached >= st->next_sim) {
        due = 1;
        st->next_sim = (reached / opt->checkpoint_every_ns + 1) * opt->checkpoint_every_ns;
    }
    double now = wall_seconds();
    if (opt->checkpoint_wall_s > 0 && now >= st->next_wall)
        due = 1;
    if (due)
        st->next_wall = now + opt->checkpoint_wall_s;
    return due;
}

/* The progress line after a step: windows show the simulated time REACHED, batches what
 * they covered in the model's units. */
static void show_progress(progress *prog, const model_ops *ops, int sync, sim_time_ns reached,
                          int64_t done, const window_outcome *out)
{
    if (sync == ENGINE_SYNC_BATCHES)
        progress_update_batches(prog, done, out->done, out->total, ops->batch_unit, out->events);
    else
        progress_update(prog, reached, done, out->events, out->estimated_end);
}

/* The model's knob (model_ops.knob) into REP; when the run chooses it, the ladder G and
 * the knob set to its start. Returns whether G is in use (*RC set when out of memory). */
static int start_granularity(const model_ops *ops, struct model_state *m, granularity *g,
                             granularity_report *rep, cn_error *err, int *rc)
{
    memset(rep, 0, sizeof *rep);
    if (!ops->knob)
        return 0;
    int64_t lo = 1, hi = 1, start = 1;
    int adaptive = ops->knob->range(m, &lo, &hi, &start);
    if (adaptive < 0)
        return 0;
    snprintf(rep->knob, sizeof rep->knob, "%s", ops->knob->name);
    rep->start = rep->final = start;
    if (!adaptive)
        return 0;
    if (gran_init(g, lo, hi, start, ops->knob->proportional) != 0) {
        gran_free(g);
        *rc = cn_fail(err, CN_ERR_RUNTIME, "out of host memory for the granularity's table");
        return 0;
    }
    rep->adaptive = 1;
    ops->knob->set(m, gran_value(g));
    return 1;
}

/* Runs the windows (or batches) to the end, or until *OPT->stop is set: then *STOPPED_AT is
 * the simulated time reached, the end of the last window run (the models' results are those
 * of the simulation up to there; a model of batches states it itself). *WINDOW is the window
 * (or batch) under way; ST->windows_done counts those run. */
static int run_windows(const model_ops *ops, struct model_state *m, injector *inj,
                       device_ctx *const *devs, const scenario *sc, const engine_options *opt,
                       const recovery *rec, pending_fifo *fifo, host_report *host,
                       run_start *st, sim_time_ns *stopped_at, int64_t *window, cn_error *err)
{
    timing_rule timing = {opt->show_feedback || opt->trace_path, ENGINE_TIMING_EVERY, 0};
    sim_time_ns L = ops->lookahead(m);
    progress prog;
    progress_init(&prog, opt->progress);
    int64_t w = st->window;
    int64_t *windows_done = &st->windows_done;
    int batches = st->sync == ENGINE_SYNC_BATCHES, event = st->sync == ENGINE_SYNC_EVENT;
    int ranks = rank_several();
    window_outcome out;
    int raise_sig = 0;
    /* only in runs that can be stopped: not in the device self-test's and tuner's */
    int64_t raise_at = opt->stop ? test_raise_point(&raise_sig) : -1;
    /* A plan holds a set per partition: large, so one for the whole run. */
    window_plan *plan = malloc(sizeof *plan);
    inject_set *sets = malloc(ENGINE_MAX_SETS * sizeof *sets);
    int rc = plan && sets ? 0 : cn_fail(err, CN_ERR_RUNTIME, "out of host memory");
    /* the kinds' reads and writes decide which order of sets a plan may have */
    plan_order order;
    if (!rc)
        rc = plan_order_init(&order, ops, err);
    if (!rc)
        rc = timing_every(&timing.every, err);
    /* adaptive granularity: the model's knob, moved by the events per second measured */
    granularity gran;
    int gran_on = !rc && start_granularity(ops, m, &gran, &st->gran, err, &rc);
    /* the events so far at the last step's end; none known before the first step (a resumed
     * run's counts begin with the checkpoint's), which the knob's ramp then takes by its time
     * alone */
    uint64_t events_seen = UINT64_MAX;
    const char *walk = getenv("CLNETSIM_TEST_GRANULARITY");
    int gran_walk = walk && !strcmp(walk, "walk");
    if (gran_on && gran_walk && gran_test_walk(&gran, 0))
        ops->knob->set(m, gran_value(&gran));
    while (rc == 0) {
        plan->index = *window = w;
        /* event-driven windows begin at the least pending time (the model may end one
         * earlier than begin + L: at its duration); a batch is no slice of time */
        plan->begin = event ? (ranks ? st->ranks.begin : ops->next_begin(m)) : batches ? 0 : w * L;
        plan->end = batches ? 0 : plan->begin + L;
        plan->until = opt->checkpoint && opt->checkpoint_every_ns > 0 ? st->next_sim
                                                                       : INT64_MAX;
        plan->n_sets = 0;
        plan->timed = step_timed(&timing, inj, timing.step);
        plan->timed_next = step_timed(&timing, inj, timing.step + 1);
        timing.step++;
        for (int d = 0; d < inj->n_devices; d++) /* for CLNETSIM_TEST_FAIL=enqueue@D:W */
            device_fault_window(devs[d], w);
        double t_plan = wall_seconds();
        if ((rc = ops->plan_window(m, plan, err)) != 0 ||
            (rc = plan_order_check(&order, plan, err)) != 0) {
            if (ranks) /* the others learn of it in the window's collectives */
                rc = rank_end_window(ops, m, plan, rc, 0, event, &out, &st->ranks, err);
            break;
        }
        /* the injector places each partition once for all its sets of the window */
        for (int s = 0; s < plan->n_sets; s++) {
            const event_set *set = &plan->sets[s];
            sets[s] = (inject_set){set->kind, set->partition, set->multiplicity,
                                   ops->partition_bytes(m, set->partition)};
        }
        if (inject_window_plan(inj, w, sets, plan->n_sets) != 0) {
            rc = cn_fail(err, CN_ERR_RUNTIME, "out of host memory for the injector");
            if (ranks)
                rc = rank_end_window(ops, m, plan, rc, 0, event, &out, &st->ranks, err);
            break;
        }
        double t_sets = wall_seconds();
        host->plan_s += t_sets - t_plan;
        /* A device that fails while others are left may be left out (go_on_without): its
         * set runs again elsewhere, and what it ran of the window is appended to the plan,
         * run, and the window ended again. */
        for (int s = 0;;) {
            for (; s < plan->n_sets && rc == 0; s++) {
                rc = run_one_set(ops, m, inj, devs, fifo, plan, s, err);
                if (rc && go_on_without(ops, m, inj, devs, fifo, plan, rec, rc, err) == 0)
                    rc = 0, s--;
            }
            memset(&out, 0, sizeof out);
            double t_end = wall_seconds();
            host->enqueue_s += t_end - t_sets;
            /* The times of the sets that have finished (the last window's) are read here,
             * while the devices run this one: between this window's read-back and the next
             * window's launches the host does only what they need. The injector learns them
             * one window later; the backlog it prices is kept right by inject_settle(). */
            collect_feedback(inj, fifo, 0);
            if (rc == 0)
                rc = ops->end_window(m, plan, &out, err);
            t_sets = wall_seconds();
            host->end_window_s += t_sets - t_end;
            if (rc == 0 || go_on_without(ops, m, inj, devs, fifo, plan, rec, rc, err) != 0)
                break;
            rc = 0; /* the sets appended to the plan run next */
        }
        /* several ranks: their records, then the run's outcome of the window, on every rank
         * (a stop signal caught by any rank stops them all at this boundary) */
        st->ranks.step_s = wall_seconds() - t_plan;
        if (ranks)
            rc = rank_end_window(ops, m, plan, rc, opt->stop ? (int)*opt->stop : 0, event, &out,
                                 &st->ranks, err);
        if (rc == 0 && out.drained)
            inject_settle(inj);
        /* several ranks: a partition another rank handed this one (the model's coordinator)
         * lives where the model put it */
        for (int p = 0; ranks && rc == 0 && p < inj->n_partitions; p++) {
            int h = ops->partition_home(m, p);
            if (h >= 0)
                inject_set_home(inj, p, h);
        }
        if (rc != 0)
            break;
        ++*windows_done;
        /* the step's events per second (several ranks: the run's events over the longest
         * rank's time, the same on every rank); the model takes a new value for the next */
        uint64_t stepped = events_seen <= out.events ? out.events - events_seen : 0;
        events_seen = out.events;
        if (gran_on && out.irregular && !gran_walk)
            gran_skip(&gran);
        else if (gran_on && (gran_walk ? gran_test_walk(&gran, *windows_done)
                                       : gran_step(&gran, stepped, st->ranks.step_s)))
            ops->knob->set(m, gran_value(&gran));
        /* the simulated time reached: a fixed window's end, or what the model says its
         * batches or its event-driven step reached */
        sim_time_ns reached = batches || event ? out.reached : plan->end;
        /* (an event-driven step may have run several windows: its model counts them) */
        show_progress(&prog, ops, st->sync, reached, event ? out.next_window : *windows_done,
                      &out);
        if (batches)
            st->batch_done = out.done;
        if (out.finished)
            break;
        if (*windows_done == raise_at)
            raise(raise_sig);
        int64_t next = out.next_window > w ? out.next_window : w + 1;
        int stop = ranks ? st->ranks.stop : opt->stop ? (int)*opt->stop : 0;
        if (stop)
            st->stop_signal = stop;
        /* a stopped run leaves a checkpoint too, so that it can be resumed */
        int due = opt->checkpoint && checkpoint_due(opt, st, reached);
        if (opt->checkpoint && ranks && opt->checkpoint_wall_s > 0) {
            /* each rank's clock: one that says it is time decides for all */
            int64_t any = due;
            const dist_op most = DIST_MAX;
            if ((rc = dist_allreduce_each(&any, &most, 1, err)) != 0)
                break;
            if (any && !due)
                st->next_wall = wall_seconds() + opt->checkpoint_wall_s;
            due = any != 0;
        }
        if (opt->checkpoint && (due || stop)) {
            rc = write_checkpoint(ops, m, sc, opt, next, *windows_done, reached, err);
            if (rc)
                break;
            st->written++;
        }
        if (stop) {
            *stopped_at = reached > 0 ? reached : 0;
            break;
        }
        w = next;
    }
    if (gran_on) {
        gran_report(&gran, &st->gran);
        gran_free(&gran);
    }
    free(plan);
    free(sets);
    progress_finish(&prog);
    return rc;
}

/* Where the run starts: window 0, or a checkpoint's state restored into the model just
 * created; and when the first checkpoint is due. */
static int start_point(const model_ops *ops, struct model_state *m, const scenario *sc,
                       const engine_options *opt, run_start *st, run_results *res,
                       cn_error *err)
{
    int can = ops->save && ops->restore && ops->can_checkpoint && ops->check_checkpoint;
    if (opt->checkpoint && !can)
        return cn_fail(err, CN_ERR_INPUT, "model '%s' cannot write checkpoints", ops->name);
    if (opt->checkpoint && ops->can_checkpoint(m, err) != 0)
        return err->code ? err->code : CN_ERR_INPUT;
    sim_time_ns reached = 0;
    if (opt->resume) {
        const ckpt_file *f = opt->resume;
        char name[32] = "";
        const void *p = NULL;
        size_t n;
        int rc = ckpt_find(f, CKPT_MODEL, &p, &n, err);
        if (!rc && (n >= sizeof name || (memcpy(name, p, n), strcmp(name, ops->name) != 0)))
            rc = ckpt_mismatch(f, err, "it is not a checkpoint of this model");
        ckpt_progress pg = {0, 0, 0};
        if (!rc && can) /* the file against its scenario before anything is read from it */
            rc = ops->check_checkpoint(f, sc, err);
        /* event-driven windows: the window number is a count, and the next window's begin
         * comes from the restored model (next_begin); batches are counts too */
        if (!rc && st->sync == ENGINE_SYNC_EVENT)
            rc = ckpt_get_progress_events(f, &pg, err);
        else if (!rc && st->sync == ENGINE_SYNC_BATCHES)
            rc = ckpt_get_progress_batches(f, &pg, err);
        else if (!rc)
            rc = ckpt_get_progress(f, ops->lookahead(m), &pg, err);
        st->window = pg.next;
        st->windows_done = pg.done;
        reached = pg.reached;
        if (!rc && !can)
            rc = cn_fail(err, CN_ERR_INPUT, "model '%s' cannot resume from checkpoints",
                         ops->name);
        if (!rc)
            rc = ops->restore(m, st->window, f, err);
        if (rc)
            return rc;
        res->resumed = 1;
        res->resumed_from_ns = reached;
    }
    /* the first checkpoint comes a whole period after the start (or the resumed time) */
    if (opt->checkpoint_every_ns > 0)
        st->next_sim = (reached / opt->checkpoint_every_ns + 1) * opt->checkpoint_every_ns;
    st->next_wall = wall_seconds() + opt->checkpoint_wall_s;
    return 0;
}

/* One attempt at the run on the LIVE devices (ALL: every device, for the report). When it
 * fails, *FAILED_IN is the window under way, or -1 when the model's set-up failed. */
static int run_attempt(const model_ops *ops, const scenario *sc, device_ctx *const *all,
                       int n_all, device_ctx *const *live, int n_live,
                       const engine_options *opt, run_results *res, int64_t *failed_in,
                       cn_error *err)
{
    memset(res, 0, sizeof *res);
    injector inj;
    memset(&inj, 0, sizeof inj);
    *failed_in = -1;
    for (int d = 0; d < n_live; d++) /* set-up comes before the first window */
        device_fault_window(live[d], -1);

    double t0 = opt->setup_started > 0 ? opt->setup_started : wall_seconds();
    struct model_state *m = NULL;
    int rc = ops->create(&m, sc, live, n_live, err);
    double t1 = wall_seconds();
    /* the scenario may decide how this model steps (the flood: batches of whole packets) */
    int sync = rc == 0 && ops->run_sync ? ops->run_sync(m) : ops->sync;
    if (rc == 0)
        rc = make_injector(&inj, ops, m, sync, sc, live, n_live, opt, err);
    pending_fifo *fifo = calloc(1, sizeof *fifo);
    if (rc == 0 && !fifo)
        rc = cn_fail(err, CN_ERR_RUNTIME, "out of host memory");
    host_report host = {0};
    sim_time_ns stopped_at = -1;
    recovery rec = {sc->on_failure == ON_FAILURE_CONTINUE, opt->log};
    run_start st = {.sync = sync};
    if (rc == 0)
        rc = start_point(ops, m, sc, opt, &st, res, err);
    /* several ranks: every rank's set-up agreed on, and the first window's begin */
    if (rank_several())
        rc = rank_agree_start(rc, rc == 0 && sync == ENGINE_SYNC_EVENT ? ops->next_begin(m) : 0,
                              &st.ranks, err);
    if (rc == 0 && rank_several() && ops->start_ranks)
        rc = ops->start_ranks(m, err);
    if (rc == 0) {
        *failed_in = st.window;
        rc = run_windows(ops, m, &inj, live, sc, opt, &rec, fifo, &host, &st, &stopped_at,
                         failed_in, err);
    }
    res->checkpoints = st.written;
    if (rc == 0 && stopped_at >= 0) { /* the model may state the reached time more exactly */
        res->interrupted = 1;
        res->stop_signal = st.stop_signal;
        res->reached_ns = stopped_at;
    }
    /* the windows' agreements leave every rank with the same status here */
    int ran = rc == 0;
    if (rc == 0)
        rc = ops->results(m, res, err);
    double t2 = wall_seconds();
    if (fifo) {
        collect_feedback(&inj, fifo, 1);
        free(fifo);
    }
    if (m)
        ops->destroy(m);
    if (rc == 0 && opt->trace_path && inject_trace_close(&inj, err) != 0)
        rc = err->code;
    if (rc == 0 && opt->show_feedback) {
        const char *kind_names[ENGINE_MAX_KINDS], *device_names[ENGINE_MAX_DEVICES];
        name_kinds(ops, kind_names);
        for (int d = 0; d < n_live; d++)
            device_names[d] = live[d]->info.name;
        inject_print_feedback(&inj, kind_names, device_names, opt->show_feedback);
        gran_print(&st.gran, opt->show_feedback);
    }
    if (rc == 0) {
        res->setup_s = t1 - t0;
        res->build_s = 0;
        for (int d = 0; d < n_all; d++)
            res->build_s += all[d]->build_s;
        res->wall_s = t2 - t1;
        host.wait_s = res->host.wait_s; /* the model's share, from its results */
        host.read_backs = res->host.read_backs;
        res->host = host;
        res->granularity = st.gran;
        snprintf(res->scenario_path, sizeof res->scenario_path, "%s", sc->path);
        describe_devices(&inj, all, n_all, live, n_live, res);
        for (int d = 0; d < res->n_devices && opt->rank_cores; d++)
            snprintf(res->devices[d].cores, sizeof res->devices[d].cores, "%s",
                     opt->rank_cores);
        if (sync == ENGINE_SYNC_BATCHES) { /* the summary's and JSON's words for the steps */
            res->batched = 1;
            res->batches = st.windows_done;
            res->batch_done = st.batch_done;
            snprintf(res->batch_unit, sizeof res->batch_unit, "%s",
                     ops->batch_unit ? ops->batch_unit : "units");
        }
    }
    /* the run's results from every rank's (with one process: checked) */
    if (ran)
        rc = rank_combine_results(rc, res, &st.ranks, err);
    inject_free(&inj);
    return rc;
}

int engine_run(const scenario *sc, device_ctx *const *devs, int n_devs,
               const engine_options *opt, run_results *res, cn_error *err)
{
    const model_ops *ops = model_find(sc->model);
    if (!ops)
        return cn_fail(err, CN_ERR_INPUT, "unknown model '%s'", sc->model);
    if (ops->n_kinds > ENGINE_MAX_KINDS)
        return cn_fail(err, CN_ERR_RUNTIME, "model '%s' declares more than %d event kinds",
                       sc->model, ENGINE_MAX_KINDS);
    if (n_devs < 1 || n_devs > ENGINE_MAX_DEVICES)
        return cn_fail(err, CN_ERR_INPUT, "between 1 and %d devices can be used, not %d",
                       ENGINE_MAX_DEVICES, n_devs);
    int64_t every; /* a bad test hook stops the run before any device is used */
    if (timing_every(&every, err) != 0)
        return err->code;
    if (rank_several() && !ops->end_ranks)
        return cn_fail(err, CN_ERR_INPUT, "the %s model does not run over several MPI ranks "
                       "yet: start it as one process", ops->name);
    device_ctx *live[ENGINE_MAX_DEVICES];
    int n_live = 0;
    for (int d = 0; d < n_devs; d++)
        if (!devs[d]->failed)
            live[n_live++] = devs[d];
    int rc = n_live ? 0 : cn_fail(err, CN_ERR_RUNTIME, "every selected device has failed");
    /* several ranks: one that cannot start stops them all before the model's collectives */
    if (rank_several())
        rc = dist_agree(rc, err);
    if (rc)
        return rc;
    for (;;) {
        int64_t failed_in = -1;
        rc = run_attempt(ops, sc, devs, n_devs, live, n_live, opt, res, &failed_in, err);
        int d = rc ? failed_device(err, live, n_live) : -1;
        int others = 0; /* devices left besides D (the attempt may have left some out) */
        for (int i = 0; i < n_live; i++)
            others += i != d && !live[i]->failed;
        /* several ranks: the others would have to start again too (not done: the run
         * ends, and the checkpoint, if any, resumes) */
        if (rc == 0 || d < 0 || others == 0 || sc->on_failure != ON_FAILURE_CONTINUE ||
            rank_several())
            return rc;
        /* the model could not go on without the device in place (it held state no other
         * device has): the run starts again on the others, whose results are the same */
        device_mark_failed(live[d], err->msg);
        if (opt->log && failed_in < 0)
            fprintf(opt->log, "clnetsim: warning: device %d '%s' failed at set-up and is left "
                    "out: %s\n", live[d]->ordinal, live[d]->info.name, live[d]->failure);
        else if (opt->log)
            fprintf(opt->log, "clnetsim: warning: device %d '%s' failed in window %lld, and the "
                    "state it held exists nowhere else, so the run starts again without it: "
                    "%s\n", live[d]->ordinal, live[d]->info.name, (long long)failed_in,
                    live[d]->failure);
        int kept = 0;
        for (int i = 0; i < n_live; i++)
            if (!live[i]->failed)
                live[kept++] = live[i];
        n_live = kept;
        cn_error_clear(err);
    }
}
