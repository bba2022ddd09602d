#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli_args.h"
#include "cli/cli_run.h"
#include "config/config.h"
#include "device/device.h"
#include "dist/dist.h"
#include "dist/dist_cores.h"
#include "engine/checkpoint.h"
#include "engine/engine.h"
#include "report/report.h"

#define MAX_OVERRIDES 256

typedef struct run_args {
    const char *scenario;
    config_override overrides[MAX_OVERRIDES];
    int n_overrides;
    const char *devices;
    const char *json;
    const char *packets;
    const char *rows_flag;      /* the option that named PACKETS: --packets or --lookups */
    int quiet;
    int dump_config;
    size_t work_group;
    const char *trace_inject;
    int show_feedback;
    int kernel_times;              /* --kernel-times */
    const char *checkpoint;        /* --checkpoint FILE */
    int64_t checkpoint_every_ns;   /* --checkpoint-every, simulated time */
    double checkpoint_wall_s;      /* --checkpoint-every with --checkpoint-clock wall */
    int resume;                    /* `clnetsim resume`: SCENARIO is the checkpoint */
    int gpu_rank_cores;            /* --gpu-rank-cores: cores kept for each GPU rank */
} run_args;

#define CHECKPOINT_USAGE                                                                    \
    "      --checkpoint FILE.ckpt   write the run's state to FILE.ckpt (atomically) every\n"    \
    "                               --checkpoint-every and when a signal stops the run\n"   \
    "      --checkpoint-every S     seconds between checkpoints: of simulated time, or\n"    \
    "                               of wall time with --checkpoint-clock wall\n"           \
    "      --checkpoint-clock C     sim (the default) or wall\n"

/* The options run and resume share, after their own, and their exit statuses. */
#define SHARED_USAGE                                                                        \
    "      --work-group N           work-group size for every kernel (power of two)\n"       \
    "      --trace-inject FILE.csv  one row per injector decision (docs/injector.md)\n"      \
    "      --show-feedback          print the injector's feedback table at the end\n"        \
    "      --kernel-times           print each kernel's device time (profiling events) at\n" \
    "                               the end, per device, on standard error\n"               \
    "      --gpu-rank-cores N       under MPI: cores kept for each rank of GPUs, off which\n" \
    "                               the CPU ranks of its machine stay (default 1, 0: none)\n" \
    CHECKPOINT_USAGE                                                                        \
    "  -h, --help                   this text\n"
#define EXIT_USAGE                                                                          \
    "Exit status: 0 success, 1 device or runtime failure (or standard output could not\n"    \
    "be written), 2 bad input, 129, 130 or 143 stopped by SIGHUP, SIGINT or SIGTERM.\n"

static void print_run_usage(FILE *out)
{
    fprintf(out,
            "usage: clnetsim run FILE.ini [options]\n"
            "\n"
            "Runs the scenario FILE.ini and prints a summary (delivered packets, loss,\n"
            "latency, events, events per second, device).\n"
            "\n"
            "options:\n"
            "  -s, --set SECTION.KEY=VALUE  override one key of the file (repeatable)\n"
            "  -d, --devices SPEC           devices to use: cpu, gpu, all, indices from\n"
            "                               `clnetsim devices` (0,2), or\n"
            "                               platform-text:device-text (default: the GPUs,\n"
            "                               else every device); one run uses them all;\n"
            "                               under MPI, SPEC@local: this rank's share\n"
            "  -j, --json FILE              write the results as JSON (atomically)\n"
            "      --packets FILE.csv       one row per packet: flow, packet, source,\n"
            "                               created_ns, delivered, latency_ns, hops\n"
            "      --lookups FILE.csv       kademlia: one row per lookup started\n"
            "  -q, --quiet                  no summary, no progress line\n"
            "      --dump-config            print the effective configuration and exit\n"
            SHARED_USAGE
            "\n"
            "SIGINT (Ctrl-C), SIGTERM or SIGHUP stops the run at the end of the current window;\n"
            "its results so far are written, marked \"complete\": false (a second signal\n"
            "kills the process), and with --checkpoint a checkpoint to resume from.\n"
            "\n"
            EXIT_USAGE);
}

static void print_resume_usage(FILE *out)
{
    fprintf(out,
            "usage: clnetsim resume FILE.ckpt [options]\n"
            "\n"
            "Continues the run saved in the checkpoint FILE.ckpt (written by clnetsim run\n"
            "--checkpoint) to its end, on any devices. The checkpoint holds the scenario;\n"
            "the results are those of the run never stopped.\n"
            "\n"
            "options:\n"
            "  -d, --devices SPEC           devices to use (as for clnetsim run)\n"
            "  -j, --json FILE              write the results as JSON (atomically)\n"
            "      --packets FILE.csv       the per-packet rows (the checkpointed run must\n"
            "                               have kept them: it ran with --packets)\n"
            "  -q, --quiet                  no summary, no progress line\n"
            "      --dump-config            print the checkpoint's configuration and exit\n"
            SHARED_USAGE
            "\n"
            "With --checkpoint-every and no --checkpoint, the checkpoints go to FILE.ckpt.\n"
            "A damaged checkpoint, or a file that is not one, is refused with exit status 2.\n"
            "\n"
            EXIT_USAGE);
}

/* The signal that asked the run to stop (0: none), read by the engine at window ends. */
static volatile sig_atomic_t stop_signal;

static void on_stop_signal(int sig)
{
    stop_signal = sig;
}

/* SIGINT, SIGTERM and SIGHUP stop the run at a window boundary; SA_RESETHAND gives a second
 * one its default action, so an impatient user can still kill the process. */
static void catch_stop_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop_signal;
    sa.sa_flags = SA_RESETHAND;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    /* SIGHUP (a closed terminal, a dropped ssh session) too, unless it is ignored: nohup */
    struct sigaction old;
    if (sigaction(SIGHUP, NULL, &old) == 0 && old.sa_handler != SIG_IGN)
        sigaction(SIGHUP, &sa, NULL);
}

static const char *command_name = "run";

/* Under several MPI ranks every rank reads the same command line, and rank 0 alone speaks. */
static int usage_error(const char *fmt, const char *arg)
{
    if (dist_rank() != 0)
        return CN_ERR_INPUT;
    char shown[1024];
    fprintf(stderr, "clnetsim %s: ", command_name);
    fprintf(stderr, fmt, cn_escape(arg, shown, sizeof shown));
    fprintf(stderr, " (see clnetsim %s --help)\n", command_name);
    return CN_ERR_INPUT;
}

/* --checkpoint-every and --checkpoint-clock, once all options are read. */
static int checkpoint_period(run_args *ra, const char *every, const char *clock)
{
    if (clock && strcmp(clock, "sim") != 0 && strcmp(clock, "wall") != 0)
        return usage_error("--checkpoint-clock '%s' must be sim or wall", clock);
    if (!every)
        return clock ? usage_error("%s needs --checkpoint-every", "--checkpoint-clock") : 0;
    int64_t ns = 0;
    if (decimal_to_scaled_int(every, 9, &ns) != 0 || ns <= 0)
        return usage_error("--checkpoint-every '%s' must be a positive number of seconds",
                           every);
    if (clock && !strcmp(clock, "wall"))
        ra->checkpoint_wall_s = (double)ns * 1e-9;
    else
        ra->checkpoint_every_ns = ns;
    if (!ra->checkpoint && !ra->resume)
        return usage_error("%s needs --checkpoint FILE", "--checkpoint-every");
    if (!ra->checkpoint) /* resume: the checkpoint resumed from is brought up to date */
        ra->checkpoint = ra->scenario;
    return 0;
}

static int parse_run_args(int argc, char **argv, run_args *ra, int resume)
{
    memset(ra, 0, sizeof *ra);
    ra->gpu_rank_cores = 1;
    ra->resume = resume;
    command_name = resume ? "resume" : "run";
    const char *every = NULL, *clock = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            if (dist_rank() != 0)
                ;
            else if (resume)
                print_resume_usage(stdout);
            else
                print_run_usage(stdout);
            return -1;
        } else if (cli_is_opt(a, NULL, "--checkpoint")) {
            if (!(v = cli_option_value(argc, argv, &i, "--checkpoint")))
                return usage_error("%s needs a file name", a);
            ra->checkpoint = v;
        } else if (cli_is_opt(a, NULL, "--checkpoint-every")) {
            if (!(every = cli_option_value(argc, argv, &i, "--checkpoint-every")))
                return usage_error("%s needs a number of seconds", a);
        } else if (cli_is_opt(a, NULL, "--checkpoint-clock")) {
            if (!(clock = cli_option_value(argc, argv, &i, "--checkpoint-clock")))
                return usage_error("%s needs sim or wall", a);
        } else if (resume && cli_is_opt(a, "-s", "--set")) {
            return usage_error("%s cannot change a resumed run: the checkpoint holds its "
                               "scenario", a);
        } else if (cli_is_opt(a, "-s", "--set")) {
            if (!(v = cli_option_value(argc, argv, &i, "--set")))
                return usage_error("%s needs SECTION.KEY=VALUE", a);
            if (ra->n_overrides == MAX_OVERRIDES)
                return usage_error("more than %s overrides", "256");
            ra->overrides[ra->n_overrides++].text = v;
        } else if (cli_is_opt(a, "-d", "--devices")) {
            if (!(v = cli_option_value(argc, argv, &i, "--devices")))
                return usage_error("%s needs a device selection", a);
            ra->devices = v;
        } else if (cli_is_opt(a, "-j", "--json")) {
            if (!(v = cli_option_value(argc, argv, &i, "--json")))
                return usage_error("%s needs a file name", a);
            ra->json = v;
        } else if (cli_is_opt(a, NULL, "--packets") || cli_is_opt(a, NULL, "--lookups")) {
            const char *flag = cli_is_opt(a, NULL, "--packets") ? "--packets" : "--lookups";
            if (!(v = cli_option_value(argc, argv, &i, flag)))
                return usage_error("%s needs a file name", a);
            ra->packets = v;
            ra->rows_flag = flag;
        } else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
            ra->quiet = 1;
        } else if (!strcmp(a, "--dump-config")) {
            ra->dump_config = 1;
        } else if (cli_is_opt(a, NULL, "--work-group")) {
            if (!(v = cli_option_value(argc, argv, &i, "--work-group")))
                return usage_error("%s needs a size", a);
            char *end;
            unsigned long n = strtoul(v, &end, 10);
            if (*end || n == 0 || n > 4096 || (n & (n - 1)))
                return usage_error("--work-group '%s' must be a power of two from 1 to 4096", v);
            ra->work_group = n;
        } else if (cli_is_opt(a, NULL, "--trace-inject")) {
            if (!(v = cli_option_value(argc, argv, &i, "--trace-inject")))
                return usage_error("%s needs a file name", a);
            ra->trace_inject = v;
        } else if (!strcmp(a, "--show-feedback")) {
            ra->show_feedback = 1;
        } else if (!strcmp(a, "--kernel-times")) {
            ra->kernel_times = 1;
        } else if (cli_is_opt(a, NULL, "--gpu-rank-cores")) {
            if (!(v = cli_option_value(argc, argv, &i, "--gpu-rank-cores")))
                return usage_error("%s needs a number of cores", a);
            char *end;
            unsigned long n = strtoul(v, &end, 10);
            if (*end || !*v || v[0] == '-' || n > 1024)
                return usage_error("--gpu-rank-cores '%s' must be a number of cores from 0 to "
                                   "1024", v);
            ra->gpu_rank_cores = (int)n;
        } else if (a[0] == '-' && a[1] != '\0') {
            return usage_error("unknown option '%s'", a);
        } else if (!ra->scenario) {
            ra->scenario = a;
        } else {
            return usage_error(resume ? "unexpected argument '%s': one checkpoint per run"
                                      : "unexpected argument '%s': one scenario file per run",
                               a);
        }
    }
    if (!ra->scenario)
        return usage_error("%s", resume ? "needs a checkpoint file" : "needs a scenario file");
    return checkpoint_period(ra, every, clock);
}

/* Whether this rank drives a GPU or another accelerator (the test hook
 * CLNETSIM_TEST_GPU_RANKS=R[,R...] makes those ranks count as such, on machines without). */
static int rank_drives_gpu(const device_ctx *devs, int n)
{
    const char *hook = getenv("CLNETSIM_TEST_GPU_RANKS");
    for (const char *p = hook; p && *p;) {
        char *end;
        long r = strtol(p, &end, 10);
        if (end == p)
            break;
        if (r == dist_rank())
            return 1;
        p = *end == ',' ? end + 1 : end;
    }
    for (int d = 0; d < n; d++)
        if (devs[d].info.type & (CL_DEVICE_TYPE_GPU | CL_DEVICE_TYPE_ACCELERATOR))
            return 1;
    return 0;
}

/* Under several ranks the error is the agreed one (dist_agree), the same on every rank:
 * rank 0 prints it. */
static int fail(const cn_error *err)
{
    if (dist_rank() == 0)
        fprintf(stderr, "clnetsim: error: %s\n", err->msg);
    return err->code ? err->code : CN_ERR_RUNTIME;
}

/* A 64-bit FNV-1a hash of TEXT */
static uint64_t text_hash(const char *text)
{
    uint64_t h = 1469598103934665603ull;
    for (const unsigned char *c = (const unsigned char *)text; *c; c++)
        h = (h ^ *c) * 1099511628211ull;
    return h;
}

/* --trace-inject's file for this rank: PATH itself with one process; over several ranks each
 * rank's decisions go to a file of its own, PATH with ".rank-R" before its ".csv" (or after
 * it when it has none): trace.csv -> trace.rank-1.csv. */
static int rank_trace_path(const char *path, char *out, size_t cap, cn_error *err)
{
    size_t len = strlen(path), stem = len;
    if (len >= 4 && strcmp(path + len - 4, ".csv") == 0)
        stem = len - 4;
    int n = dist_size() == 1
                ? snprintf(out, cap, "%s", path)
                : snprintf(out, cap, "%.*s.rank-%d%s", (int)stem, path, dist_rank(), path + stem);
    if (n < 0 || (size_t)n >= cap)
        return cn_fail(err, CN_ERR_INPUT, "--trace-inject '%s': the file name is too long",
                       path);
    return 0;
}

/* Several ranks: what a run over them does not do yet, refused on every rank alike, and the
 * scenario every rank read, which must be one (the same file on every machine). */
static int ranks_can_run(const run_args *ra, const scenario *sc, const model_ops *ops,
                         cn_error *err)
{
    if (dist_size() == 1)
        return 0;
    if (ops && !ops->end_ranks)
        return cn_fail(err, CN_ERR_INPUT, "the %s model does not run over several MPI ranks "
                       "yet: start it as one process (docs/user-guide.md, "
                       "\"Several processes\")", sc->model);
    char *text = config_dump_string(sc);
    if (!text)
        return cn_fail(err, CN_ERR_RUNTIME, "out of host memory");
    uint64_t h = text_hash(text);
    free(text);
    int64_t v[2] = {(int64_t)(h >> 1), -(int64_t)(h >> 1)};
    const dist_op how[2] = {DIST_MIN, DIST_MIN};
    int rc = dist_allreduce_each(v, how, 2, err);
    if (!rc && v[0] != -v[1])
        rc = cn_fail(err, CN_ERR_INPUT, "the MPI ranks read different scenarios from '%s' "
                     "(each rank reads the file, with its -s overrides, on its own machine): "
                     "give every rank the same one", ra->scenario);
    return rc;
}

/* `resume`: the checkpoint CK read and checked, and the scenario it holds into SC. */
static int load_checkpoint(const run_args *ra, ckpt_file *ck, scenario *sc, cn_error *err)
{
    int rc = ckpt_read(ck, ra->scenario, err);
    const void *text = NULL, *path = NULL;
    size_t text_len = 0, path_len = 0;
    int64_t records = 0;
    if (!rc)
        rc = ckpt_find(ck, CKPT_SCENARIO, &text, &text_len, err);
    if (!rc)
        rc = ckpt_find(ck, CKPT_PATH, &path, &path_len, err);
    if (!rc)
        rc = ckpt_get_i64(ck, CKPT_RECORDS, &records, err);
    if (rc)
        return rc;
    char *t = malloc(text_len + 1), name[1024];
    if (!t)
        return cn_fail(err, CN_ERR_RUNTIME, "out of host memory");
    memcpy(t, text, text_len);
    t[text_len] = '\0';
    /* messages and results name the scenario the run was started with */
    snprintf(name, sizeof name, "%.*s", (int)(path_len < sizeof name ? path_len : 0),
             (const char *)path);
    cn_error why = {0};
    rc = config_load_string(name[0] ? name : ra->scenario, t, NULL, 0, sc, &why);
    free(t);
    if (rc)
        return cn_fail(err, CN_ERR_INPUT, "cannot resume from '%s': the scenario it holds is "
                       "refused: %s", ra->scenario, why.msg);
    sc->record_packets = records != 0;
    const model_ops *ops = model_find(sc->model);
    if (ops && ops->resume_scenario && (rc = ops->resume_scenario(ck, sc, err)) != 0)
        return rc;
    if (ra->packets && !records)
        return cn_fail(err, CN_ERR_INPUT, "cannot write %s '%s': the run saved in '%s' kept no "
                       "per-item rows (it ran without %s); resume it without %s", ra->rows_flag,
                       ra->packets, ra->scenario, ra->rows_flag, ra->rows_flag);
    return 0;
}

/* The checkpoint path can be written: found out now rather than at the first checkpoint. */
static int checkpoint_writable(const char *path, cn_error *err)
{
    json_output probe;
    int rc = output_file_open_regular(&probe, path, "checkpoint", err);
    json_output_abort(&probe);
    return rc;
}

/* No output is an input or another output (docs/when-things-go-wrong.md, "Files"). */
static int check_distinct(const run_args *ra, cn_error *err)
{
    const cli_file files[] = {
        {ra->resume ? "the checkpoint resumed from" : "the scenario", ra->scenario, 1, 1},
        {"--json", ra->json, 0, 0},
        {"--packets", ra->packets, 0, 0},
        {"--trace-inject", ra->trace_inject, 0, 0},
        /* resume: the checkpoints may go to the file resumed from (its default) */
        {"--checkpoint", ra->checkpoint, 0, ra->resume}};
    return cli_check_distinct(files, (int)(sizeof files / sizeof files[0]), err);
}

static int run_or_resume(int argc, char **argv, int resume)
{
    run_args ra;
    int rc = parse_run_args(argc, argv, &ra, resume);
    if (rc)
        return rc < 0 ? CN_OK : rc;
    cn_error err = {0};
    /* several ranks: each rank checks its own files, and all of them learn of any failure
     * (dist_agree) at each step where one rank alone could fail */
    if (dist_agree(check_distinct(&ra, &err), &err) != 0)
        return fail(&err);
    scenario *sc = calloc(1, sizeof *sc);
    ckpt_file ck = {0};
    if (!sc)
        return CN_ERR_RUNTIME;
    rc = resume ? load_checkpoint(&ra, &ck, sc, &err)
                : config_load(ra.scenario, ra.overrides, ra.n_overrides, sc, &err);
    rc = dist_agree(rc, &err);
    if (rc != 0) {
        ckpt_close(&ck);
        free(sc);
        return fail(&err);
    }
    if (ra.dump_config) {
        if (dist_rank() == 0)
            config_dump(sc, stdout);
        ckpt_close(&ck);
        free(sc);
        return CN_OK;
    }
    char *text = NULL;
    if (ra.checkpoint && !(text = config_dump_string(sc)))
        rc = cn_fail(&err, CN_ERR_RUNTIME, "out of host memory");
    if (!rc && ra.checkpoint)
        rc = checkpoint_writable(ra.checkpoint, &err);
    const model_ops *ops = model_find(sc->model);
    if (!rc && ra.packets && !(ops && (ops->features & MODEL_PACKET_ROWS)))
        rc = cn_fail(&err, CN_ERR_INPUT, "%s: the %s model writes no per-item rows (the flood "
                     "model's are --packets, the kademlia model's --lookups)", ra.rows_flag,
                     sc->model);
    else if (!rc && ra.packets && strcmp(ra.rows_flag, ops->rows_option) != 0)
        rc = cn_fail(&err, CN_ERR_INPUT, "%s: the %s model's per-item rows are %s", ra.rows_flag,
                     sc->model, ops->rows_option);
    char trace_path[4096] = "";
    if (!rc && ra.trace_inject)
        rc = rank_trace_path(ra.trace_inject, trace_path, sizeof trace_path, &err);
    rc = dist_agree(rc, &err);
    if (!rc)
        rc = ranks_can_run(&ra, sc, ops, &err);
    if (rc) {
        free(text);
        ckpt_close(&ck);
        free(sc);
        return fail(&err);
    }
    catch_stop_signals(); /* before the temporary output files exist */
    json_output json = {0}, csv = {0};
    /* rank 0 writes the outputs */
    int writer = dist_rank() == 0;
    if (dist_agree(writer && ra.json ? json_output_open(&json, ra.json, &err) : 0, &err) != 0) {
        free(text);
        ckpt_close(&ck);
        free(sc);
        return fail(&err);
    }
    /* per-packet records (docs/models.md, "Traffic"): the CSV is written only once the run
     * has succeeded, like the JSON */
    if (dist_agree(writer && ra.packets ? output_file_open(&csv, ra.packets,
                                                             ra.rows_flag[2] == 'l'
                                                                 ? "lookups CSV" : "packets CSV",
                                                             &err)
                                        : 0,
                   &err) != 0) {
        json_output_abort(&json);
        free(text);
        ckpt_close(&ck);
        free(sc);
        return fail(&err);
    }
    if (!resume)
        sc->record_packets = ra.packets != NULL;
    device_list list = {0};
    device_ctx *devs = calloc(ENGINE_MAX_DEVICES, sizeof *devs);
    int n_open = 0;
    run_results *res = calloc(1, sizeof *res);
    /* [devices] on_failure = continue: a device that fails at set-up is left out too */
    FILE *drop = sc->on_failure == ON_FAILURE_CONTINUE ? stderr : NULL;
    /* the set-up the summary reports begins here: opening, self-testing and tuning the
     * devices build kernels too (a cold kernel cache costs most of a small run) */
    double setup_started = wall_seconds();
    /* kernel shapes are self-tested and tuned only for a model whose kernels have them
     * (MODEL_KERNEL_SHAPES: the cases its model_bench.shapes declares) */
    int shapes = ops && (ops->features & MODEL_KERNEL_SHAPES);
    int checks = CLI_CHECK_PHILOX | (shapes ? CLI_CHECK_SHAPES : 0);
    rc = res && devs ? cli_open_devices(ra.devices, ra.work_group, ENGINE_MAX_DEVICES, &list,
                                         devs, &n_open, checks, shapes, &ops, shapes,
                                         ra.quiet ? NULL : stderr, drop, &err)
                     : cn_fail(&err, CN_ERR_RUNTIME, "out of memory");
    for (int d = 0; d < n_open && ra.kernel_times && !rc; d++)
        rc = device_kernel_timer_start(&devs[d], &err);
    /* a rank that cannot reach its devices stops every rank, with its sentence */
    rc = dist_agree(rc, &err);
    if (!res || !devs) /* failed above: the agreement cannot have cleared that */
        rc = rc ? rc : CN_ERR_RUNTIME;
    /* several ranks: the CPU ranks off the cores the GPU ranks of their machine keep */
    char cores[64] = "";
    if (rc == 0 && dist_size() > 1)
        rc = dist_cores_place(rank_drives_gpu(devs, n_open), ra.gpu_rank_cores, cores,
                              sizeof cores, &err);
    if (rc == 0) {
        engine_options opt = {.progress = !ra.quiet && writer,
                              .trace_path = ra.trace_inject ? trace_path : NULL,
                              .show_feedback = ra.show_feedback && writer ? stdout : NULL,
                              .stop = &stop_signal,
                              .log = stderr,
                              .checkpoint = ra.checkpoint,
                              .checkpoint_every_ns = ra.checkpoint_every_ns,
                              .checkpoint_wall_s = ra.checkpoint_wall_s,
                              .scenario_text = text,
                              .resume = resume ? &ck : NULL,
                              .setup_started = setup_started,
                              .rank_cores = cores[0] ? cores : NULL};
        device_ctx *ptrs[ENGINE_MAX_DEVICES];
        for (int d = 0; d < n_open; d++)
            ptrs[d] = &devs[d];
        rc = engine_run(sc, ptrs, n_open, &opt, res, &err);
    }
    /* both files are written and synced before either is renamed into place */
    if (rc == 0 && ra.packets && writer) {
        errno = 0;
        if (report_print_records(res, csv.file) && errno == ENOMEM)
            rc = cn_fail(&err, CN_ERR_RUNTIME, "cannot write the %s '%s': out of memory",
                         csv.what, csv.path);
        else
            rc = output_file_finish(&csv, &err);
    }
    if (rc == 0 && ra.json && writer) {
        report_print_json(res, json.file);
        rc = output_file_finish(&json, &err);
    }
    if (rc == 0)
        rc = output_file_publish(&csv, &err);
    if (rc == 0)
        rc = output_file_publish(&json, &err);
    json_output_abort(&json);
    json_output_abort(&csv);
    if (res)
        results_free_records(res);
    if (rc == 0 && !ra.quiet && writer)
        report_print_summary(res, stdout);
    int stopped = rc == 0 && res->interrupted ? res->stop_signal : 0;
    for (int d = 0; d < n_open; d++) {
        if (rc == 0 && ra.kernel_times && writer)
            device_kernel_timer_print(&devs[d], stderr);
        device_kernel_timer_stop(&devs[d]);
        device_close(&devs[d]);
    }
    free(devs);
    device_list_free(&list);
    free(res);
    free(text);
    ckpt_close(&ck);
    free(sc);
    if (rc == 0 && stopped) /* the shell's convention: 128 + the signal's number */
        return 128 + stopped;
    return rc ? fail(&err) : CN_OK;
}

int cli_run(int argc, char **argv)
{
    return run_or_resume(argc, argv, 0);
}

int cli_resume(int argc, char **argv)
{
    return run_or_resume(argc, argv, 1);
}
