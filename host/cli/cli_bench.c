/* `clnetsim bench` and `clnetsim selftest`: options, devices, outputs (host/bench does the
 * work). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"
#include "cli/cli_args.h"
#include "cli/cli_bench.h"
#include "common/embedded.h"
#include "config/config.h"
#include "device/device.h"

#define MAX_SCENARIOS 64
#define MAX_SIZES 64
#define MAX_OVERRIDES 256

typedef struct bench_args {
    const char *scenarios[MAX_SCENARIOS];
    int n_scenarios;
    config_override overrides[MAX_OVERRIDES + BENCH_MAX_OVERRIDES];
    int n_overrides;
    const char *devices;
    long repeat, warmup;
    const char *sizes;
    const char *json, *csv, *compare;
    int quiet;
    size_t work_group;
} bench_args;

static void print_bench_usage(FILE *out)
{
    fprintf(out,
            "usage: clnetsim bench [SCENARIO.ini ...] [options]\n"
            "\n"
            "Runs each scenario on each selected device separately: warm-up runs, then timed\n"
            "runs. Prints a table per scenario (median simulation time, min-max, events per\n"
            "second, speed-up against the slowest device, work-group sizes; PHOLD: device\n"
            "memory per LP and per pending event) and checks that every device and run gave\n"
            "the same determinism-contract outputs. Without a scenario, runs the reference\n"
            "set (scenarios/bench/, built in).\n"
            "\n"
            "options:\n"
            "  -d, --devices SPEC       devices, as for run (default: all)\n"
            "  -r, --repeat N           timed runs per device and scenario (default 5)\n"
            "      --warmup N           untimed runs first (default 1)\n"
            "      --sizes LIST         node counts (1000,16k,1M): each scenario at each size,\n"
            "                           at the scenario's density (PHOLD: LP counts)\n"
            "  -s, --set SECTION.KEY=VALUE  override a key of every scenario (repeatable)\n"
            "      --work-group N       work-group size for every kernel (power of two)\n"
            "  -j, --json FILE          write every result as JSON (atomically)\n"
            "      --csv FILE           one CSV row per scenario and device\n"
            "      --compare OLD.json   print the change against an earlier --json file\n"
            "  -q, --quiet              no progress lines\n"
            "  -h, --help               this text\n"
            "\n"
            "Exit status: 0 success, 1 a device failed or devices disagreed, 2 bad input.\n");
}

static void print_selftest_usage(FILE *out)
{
    fprintf(out,
            "usage: clnetsim selftest [--devices SPEC] [--json FILE] [-q]\n"
            "\n"
            "Checks every selected device (default: all): the Philox known answers, then small\n"
            "flood scenarios whose counters must equal the sequential reference model's and\n"
            "small PHOLD scenarios whose contract members must equal the PHOLD oracle's.\n"
            "Prints a verdict per device; --json FILE writes the verdicts and the scenarios\n"
            "run (atomically).\n"
            "\n"
            "Exit status: 0 every device passed, 1 a device failed, 2 bad input.\n");
}

static int usage_error(const char *cmd, const char *fmt, const char *arg)
{
    char shown[1024];
    fprintf(stderr, "clnetsim %s: ", cmd);
    fprintf(stderr, fmt, cn_escape(arg, shown, sizeof shown));
    fprintf(stderr, " (see clnetsim %s --help)\n", cmd);
    return CN_ERR_INPUT;
}

static int parse_bench_args(int argc, char **argv, bench_args *ba)
{
    memset(ba, 0, sizeof *ba);
    ba->repeat = 5;
    ba->warmup = 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v;
        long n;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            print_bench_usage(stdout);
            return -1;
        } else if (cli_is_opt(a, "-s", "--set")) {
            if (!(v = cli_option_value(argc, argv, &i, "--set")))
                return usage_error("bench", "%s needs SECTION.KEY=VALUE", a);
            if (ba->n_overrides == MAX_OVERRIDES)
                return usage_error("bench", "more than %s overrides", "256");
            ba->overrides[ba->n_overrides++].text = v;
        } else if (cli_is_opt(a, "-d", "--devices")) {
            if (!(v = cli_option_value(argc, argv, &i, "--devices")))
                return usage_error("bench", "%s needs a device selection", a);
            ba->devices = v;
        } else if (cli_is_opt(a, "-r", "--repeat")) {
            if (!(v = cli_option_value(argc, argv, &i, "--repeat")) ||
                cli_parse_int(v, 1, BENCH_MAX_REPEAT, &n))
                return usage_error("bench", "--repeat '%s' must be a whole number from 1 to 1000",
                                   v ? v : "");
            ba->repeat = n;
        } else if (cli_is_opt(a, NULL, "--warmup")) {
            if (!(v = cli_option_value(argc, argv, &i, "--warmup")) ||
                cli_parse_int(v, 0, 100, &n))
                return usage_error("bench", "--warmup '%s' must be a whole number from 0 to 100",
                                   v ? v : "");
            ba->warmup = n;
        } else if (cli_is_opt(a, NULL, "--sizes")) {
            if (!(v = cli_option_value(argc, argv, &i, "--sizes")))
                return usage_error("bench", "%s needs node counts", a);
            ba->sizes = v;
        } else if (cli_is_opt(a, NULL, "--work-group")) {
            if (!(v = cli_option_value(argc, argv, &i, "--work-group")) ||
                cli_parse_int(v, 1, 4096, &n) || (n & (n - 1)))
                return usage_error("bench", "--work-group '%s' must be a power of two from 1 to "
                                   "4096", v ? v : "");
            ba->work_group = (size_t)n;
        } else if (cli_is_opt(a, "-j", "--json")) {
            if (!(v = cli_option_value(argc, argv, &i, "--json")))
                return usage_error("bench", "%s needs a file name", a);
            ba->json = v;
        } else if (cli_is_opt(a, NULL, "--csv")) {
            if (!(v = cli_option_value(argc, argv, &i, "--csv")))
                return usage_error("bench", "%s needs a file name", a);
            ba->csv = v;
        } else if (cli_is_opt(a, NULL, "--compare")) {
            if (!(v = cli_option_value(argc, argv, &i, "--compare")))
                return usage_error("bench", "%s needs a file name", a);
            ba->compare = v;
        } else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
            ba->quiet = 1;
        } else if (a[0] == '-' && a[1] != '\0') {
            return usage_error("bench", "unknown option '%s'", a);
        } else {
            if (ba->n_scenarios == MAX_SCENARIOS)
                return usage_error("bench", "more than %s scenarios", "64");
            ba->scenarios[ba->n_scenarios++] = a;
        }
    }
    return 0;
}

static int fail(const cn_error *err)
{
    fprintf(stderr, "clnetsim: error: %s\n", err->msg);
    return err->code ? err->code : CN_ERR_RUNTIME;
}

/* The built-in reference set: the embedded files named "bench/NAME.ini". */
static int builtin_scenarios(const char **names, int max)
{
    int n = 0;
    for (size_t i = 0; i < embedded_count() && n < max; i++) {
        const char *name = embedded_at(i)->name;
        if (!strncmp(name, "bench/", 6))
            names[n++] = name;
    }
    return n;
}

/* "dir/grid_flood.ini" -> "grid_flood" */
static void case_name(const char *path, char *out, size_t cap)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t len = strlen(base);
    if (len > 4 && !strcmp(base + len - 4, ".ini"))
        len -= 4;
    snprintf(out, cap, "%.*s", (int)len, base);
}

/* Scenario SRC (a file, or a built-in name when BUILTIN) with the user's overrides and, when
 * N > 0, those that size it to N nodes (recorded in C). */
static int load_case(const bench_args *ba, const char *src, int builtin, int64_t n,
                     bench_case *c, scenario *sc, cn_error *err)
{
    config_override ov[MAX_OVERRIDES + BENCH_MAX_OVERRIDES];
    memcpy(ov, ba->overrides, (size_t)ba->n_overrides * sizeof ov[0]);
    int n_ov = ba->n_overrides;
    const char *text = builtin ? embedded_file(src, NULL) : NULL;
    int rc = builtin ? config_load_string(src, text, ov, n_ov, sc, err)
                     : config_load(src, ov, n_ov, sc, err);
    if (rc)
        return rc;
    c->n_overrides = 0;
    /* the sizing overrides are named after the option that made them, not as -s arguments */
    char source[BENCH_MAX_OVERRIDES][300];
    if (n > 0) {
        int k = bench_size_overrides(sc, n, c->overrides, BENCH_MAX_OVERRIDES, err);
        if (k < 0)
            return err->code;
        c->n_overrides = k;
        for (int i = 0; i < k; i++) {
            snprintf(source[i], sizeof source[i], "--sizes '%.64s' at size %lld (%s)",
                     ba->sizes, (long long)n, c->overrides[i]);
            ov[n_ov].text = c->overrides[i];
            ov[n_ov++].source = source[i];
        }
        rc = builtin ? config_load_string(src, text, ov, n_ov, sc, err)
                     : config_load(src, ov, n_ov, sc, err);
        if (rc)
            return rc;
    }
    case_name(src, c->name, sizeof c->name);
    snprintf(c->path, sizeof c->path, "%s%s", builtin ? "(built in) " : "", src);
    c->nodes = bench_case_size(sc, &c->population);
    return 0;
}

static int open_output(json_output *o, const char *path, const char *what, cn_error *err)
{
    return path ? output_file_open(o, path, what, err) : 0;
}

int cli_bench(int argc, char **argv)
{
    bench_args ba;
    int rc = parse_bench_args(argc, argv, &ba);
    if (rc)
        return rc < 0 ? CN_OK : rc;
    cn_error err = {0};
    int64_t sizes[MAX_SIZES];
    int n_sizes = 0;
    if (ba.sizes && (n_sizes = bench_parse_sizes(ba.sizes, sizes, MAX_SIZES, &err)) < 0)
        return fail(&err);
    int builtin = ba.n_scenarios == 0;
    /* no output is a scenario, the --compare file or the other output */
    cli_file files[MAX_SCENARIOS + 3];
    int n_files = 0;
    for (int s = 0; !builtin && s < ba.n_scenarios; s++)
        files[n_files++] = (cli_file){"the scenario", ba.scenarios[s], 1, 0};
    files[n_files++] = (cli_file){"--compare", ba.compare, 1, 0};
    files[n_files++] = (cli_file){"--json", ba.json, 0, 0};
    files[n_files++] = (cli_file){"--csv", ba.csv, 0, 0};
    if (cli_check_distinct(files, n_files, &err) != 0)
        return fail(&err);
    if (builtin && (ba.n_scenarios = builtin_scenarios(ba.scenarios, MAX_SCENARIOS)) == 0)
        return fail(&(cn_error){.code = CN_ERR_RUNTIME,
                                .msg = "this build has no built-in bench scenarios"});
    int n_cases = ba.n_scenarios * (n_sizes ? n_sizes : 1);
    bench_case *cases = calloc((size_t)n_cases, sizeof *cases);
    scenario *scs = calloc((size_t)n_cases, sizeof *scs);
    device_ctx *devs = calloc(BENCH_MAX_DEVICES, sizeof *devs);
    if (!cases || !scs || !devs) {
        free(cases);
        free(scs);
        free(devs);
        return fail(&(cn_error){.code = CN_ERR_RUNTIME, .msg = "out of memory"});
    }
    /* Every input is checked before any device is touched: scenarios, sizes, the earlier
     * result file, the output paths. */
    for (int s = 0; rc == 0 && s < ba.n_scenarios; s++)
        for (int z = 0; rc == 0 && z < (n_sizes ? n_sizes : 1); z++) {
            int k = s * (n_sizes ? n_sizes : 1) + z;
            rc = load_case(&ba, ba.scenarios[s], builtin, n_sizes ? sizes[z] : 0, &cases[k],
                           &scs[k], &err);
        }
    if (rc == 0 && ba.compare)
        rc = bench_compare_check(ba.compare, &err);
    json_output json = {0}, csv = {0};
    if (rc == 0)
        rc = open_output(&json, ba.json, "JSON output", &err);
    if (rc == 0)
        rc = open_output(&csv, ba.csv, "CSV output", &err);
    device_list list = {0};
    int n_open = 0;
    /* the models of the scenarios, each once: their kernels' shapes and sizes */
    const model_ops *models[MAX_SCENARIOS];
    int n_models = 0;
    for (int k = 0; rc == 0 && k < n_cases; k++) {
        const model_ops *m = model_find(scs[k].model);
        int seen = !shapes_of(m);
        for (int j = 0; j < n_models && !seen; j++)
            seen = models[j] == m;
        if (!seen && n_models < MAX_SCENARIOS)
            models[n_models++] = m;
    }
    if (rc == 0)
        rc = cli_open_devices(ba.devices && *ba.devices ? ba.devices : "all", ba.work_group,
                              BENCH_MAX_DEVICES, &list, devs, &n_open,
                              CLI_CHECK_PHILOX | CLI_CHECK_SHAPES, 1, models, n_models,
                              ba.quiet ? NULL : stderr, NULL, &err);
    const char *set[MAX_OVERRIDES];
    for (int i = 0; i < ba.n_overrides; i++)
        set[i] = ba.overrides[i].text;
    bench_options opt = {.warmup = (int)ba.warmup, .repeat = (int)ba.repeat,
                         .progress = ba.quiet ? NULL : stderr, .set = set,
                         .n_set = ba.n_overrides};
    int trouble = 0;
    for (int k = 0; rc == 0 && k < n_cases; k++) {
        rc = bench_run_case(&cases[k], &scs[k], devs, n_open, &opt, &err);
        if (rc == 0) {
            bench_print_case(&cases[k], stdout);
            cli_flush_stdout();
            trouble |= !cases[k].agree;
            for (int d = 0; d < cases[k].n_rows; d++)
                trouble |= cases[k].rows[d].failed;
        }
    }
    if (rc == 0 && ba.json) {
        bench_print_json(json.file, cases, n_cases, &opt);
        rc = output_file_finish(&json, &err);
    }
    if (rc == 0 && ba.csv) {
        bench_print_csv(csv.file, cases, n_cases);
        rc = output_file_finish(&csv, &err);
    }
    if (rc == 0)
        rc = output_file_publish(&json, &err);
    if (rc == 0)
        rc = output_file_publish(&csv, &err);
    if (rc == 0 && ba.compare)
        rc = bench_compare(ba.compare, cases, n_cases, stdout, &err);
    json_output_abort(&json);
    json_output_abort(&csv);
    for (int d = 0; d < n_open; d++)
        device_close(&devs[d]);
    device_list_free(&list);
    free(devs);
    free(scs);
    free(cases);
    if (rc)
        return fail(&err);
    if (trouble) {
        fprintf(stderr, "clnetsim: error: bench found %s (see the tables above)\n",
                "devices that failed or disagreed");
        return CN_ERR_RUNTIME;
    }
    return CN_OK;
}

static void print_tune_usage(FILE *out)
{
    fprintf(out,
            "usage: clnetsim tune [--devices SPEC] [--repeat N] [-q]\n"
            "\n"
            "Measures the work-group size of every kernel on each selected device (default:\n"
            "all): each model's short scenarios run at every size from 8 to 1024 with each\n"
            "launch timed, and each kernel takes the size of least time. Prints the times and\n"
            "the choice, a table per model, and caches it next to the kernel binaries; kernels\n"
            "with an entry in the device's platform profile keep that entry. A run of a model\n"
            "also does this on a device's first use; this command measures again.\n"
            "\n"
            "options:\n"
            "  -d, --devices SPEC   devices, as for run (default: all)\n"
            "  -r, --repeat N       runs per scenario and size, the least time counts (default 3)\n"
            "  -q, --quiet          no progress lines\n"
            "\n"
            "Exit status: 0 success, 1 a device failed, 2 bad input.\n");
}

int cli_tune(int argc, char **argv)
{
    const char *spec = NULL;
    long repeat = 3;
    int quiet = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            print_tune_usage(stdout);
            return CN_OK;
        } else if (cli_is_opt(a, "-d", "--devices")) {
            if (!(spec = cli_option_value(argc, argv, &i, "--devices")))
                return usage_error("tune", "%s needs a device selection", a);
        } else if (cli_is_opt(a, "-r", "--repeat")) {
            if (!(v = cli_option_value(argc, argv, &i, "--repeat")) ||
                cli_parse_int(v, 1, 100, &repeat))
                return usage_error("tune", "--repeat '%s' must be a whole number from 1 to 100",
                                   v ? v : "");
        } else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
            quiet = 1;
        } else {
            return usage_error("tune", "unexpected argument '%s'", a);
        }
    }
    cn_error err = {0};
    device_list list = {0};
    device_ctx *devs = calloc(BENCH_MAX_DEVICES, sizeof *devs);
    tune_report *rep = calloc(1, sizeof *rep);
    int n_open = 0;
    /* every model that declares kernels to tune, in the table's order */
    const model_ops *models[16];
    int n_models = 0;
    for (int i = 0; model_at(i) && n_models < 16; i++)
        if (shapes_of(model_at(i)))
            models[n_models++] = model_at(i);
    int rc = devs && rep ? cli_open_devices(spec && *spec ? spec : "all", 0, BENCH_MAX_DEVICES,
                                            &list, devs, &n_open,
                                            CLI_CHECK_PHILOX | CLI_CHECK_SHAPES, 0, models,
                                            n_models, NULL, NULL, &err)
                         : cn_fail(&err, CN_ERR_RUNTIME, "out of memory");
    for (int d = 0; rc == 0 && d < n_open; d++)
        for (int m = 0; rc == 0 && m < n_models; m++) {
            if (!quiet)
                fprintf(stderr, "device %d (%s), the %s model:\n", devs[d].info.index,
                        devs[d].info.name, models[m]->name);
            rc = tune_measure(&devs[d], models[m], (int)repeat, 0, rep, quiet ? NULL : stderr,
                              &err);
            if (rc == 0) {
                tune_print(&devs[d], rep, stdout);
                cli_flush_stdout();
            }
        }
    for (int d = 0; d < n_open; d++)
        device_close(&devs[d]);
    device_list_free(&list);
    free(devs);
    if (rep)
        tune_report_free(rep);
    free(rep);
    return rc ? fail(&err) : CN_OK;
}

int cli_selftest(int argc, char **argv)
{
    const char *spec = NULL, *json_path = NULL;
    int quiet = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            print_selftest_usage(stdout);
            return CN_OK;
        } else if (cli_is_opt(a, "-d", "--devices")) {
            if (!(spec = cli_option_value(argc, argv, &i, "--devices")))
                return usage_error("selftest", "%s needs a device selection", a);
        } else if (cli_is_opt(a, "-j", "--json")) {
            if (!(json_path = cli_option_value(argc, argv, &i, "--json")))
                return usage_error("selftest", "%s needs a file name", a);
        } else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
            quiet = 1;
        } else {
            return usage_error("selftest", "unexpected argument '%s'", a);
        }
    }
    cn_error err = {0};
    device_list list = {0};
    json_output json = {0};
    /* the output path is checked before any device is touched */
    int rc = open_output(&json, json_path, "JSON output", &err);
    if (rc == 0)
        rc = device_enumerate(&list, &err);
    int idx[BENCH_MAX_DEVICES];
    int n = rc ? 0 : device_select(&list, spec && *spec ? spec : "all", idx, BENCH_MAX_DEVICES,
                                   &err);
    selftest_verdict *all = n > 0 ? calloc((size_t)n, sizeof *all) : NULL;
    if (rc || n <= 0 || !all) {
        if (rc == 0 && n > 0)
            cn_fail(&err, CN_ERR_RUNTIME, "out of memory");
        json_output_abort(&json);
        device_list_free(&list);
        free(all);
        return fail(&err);
    }
    int failed = 0;
    printf("%-7s %3s  %-40s %s\n", "verdict", "dev", "device", "outcome");
    for (int d = 0; d < n; d++) {
        device_ctx dev;
        selftest_verdict *v = &all[d];
        cn_error e = {0};
        if (device_open(&dev, &list.items[idx[d]], &e) != 0) {
            memset(v, 0, sizeof *v);
            v->index = list.items[idx[d]].index;
            snprintf(v->name, sizeof v->name, "%s", list.items[idx[d]].name);
            snprintf(v->detail, sizeof v->detail, "%s", e.msg);
        } else {
            /* CLNETSIM_TEST_BREAK_KERNEL names devices by their place; the tuned sizes (the
             * first-use search of a run, cached) are among the shapes a run may choose */
            device_fault_arm(&dev, d);
            cn_error te = {0};
            int trc = 0;
            for (int m = 0; trc == 0 && model_at(m); m++)
                trc = tune_ensure(&dev, model_at(m), quiet ? NULL : stderr, &te);
            if (trc != 0) {
                memset(v, 0, sizeof *v);
                v->index = dev.info.index;
                snprintf(v->name, sizeof v->name, "%s", dev.info.name);
                snprintf(v->detail, sizeof v->detail, "%s", te.msg);
            } else {
                selftest_device(&dev, d, v, quiet ? NULL : stderr);
            }
            device_close(&dev);
        }
        failed += !v->passed;
        if (v->passed)
            printf("%-7s %3d  %-40.40s %d checks: %s\n", "PASS", v->index, v->name, v->checks,
                   v->detail);
        else
            printf("%-7s %3d  %-40.40s check %d: %s\n", "FAIL", v->index, v->name, v->checks,
                   v->detail);
        cli_flush_stdout();
    }
    device_list_free(&list);
    if (json_path) {
        selftest_print_json(json.file, all, n);
        rc = output_file_commit(&json, &err);
        json_output_abort(&json);
    }
    free(all);
    if (rc)
        return fail(&err);
    if (failed) {
        fprintf(stderr, "clnetsim: error: %d of %d devices failed the self-test\n", failed, n);
        return CN_ERR_RUNTIME;
    }
    return CN_OK;
}
