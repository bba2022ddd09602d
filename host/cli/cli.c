#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "version.h"
#include "cli/cli.h"
#include "cli/cli_bench.h"
#include "cli/cli_run.h"
#include "common/error.h"
#include "config/config.h"
#include "device/device.h"
#include "dist/dist.h"

static void print_version(FILE *out)
{
    fprintf(out, "clnetsim %s (commit %s)\n", CLNETSIM_VERSION, CLNETSIM_GIT_COMMIT);
}

static void print_usage(FILE *out)
{
    fprintf(out,
            "usage: clnetsim <command> [options]\n"
            "\n"
            "Packet-level network simulation on every OpenCL device.\n"
            "\n"
            "commands:\n"
            "  run FILE.ini     run a scenario and print its summary\n"
            "  resume FILE.ckpt continue a run from its checkpoint\n"
            "  bench [FILE.ini ...]  time scenarios on each device, check they agree\n"
            "  selftest         check every device against known answers\n"
            "  tune             measure the work-group sizes of every kernel on each device\n"
            "  devices          list every OpenCL platform and device\n"
            "  keys             print the reference of every scenario key (Markdown)\n"
            "\n"
            "options:\n"
            "  -h, --help       this text; `clnetsim COMMAND --help` for a command\n"
            "  -V, --version    version and git commit\n");
}

static void print_devices_usage(FILE *out)
{
    fprintf(out,
            "usage: clnetsim devices\n"
            "\n"
            "Lists every OpenCL platform and device with the index that --devices accepts,\n"
            "its type, compute units, memory, OpenCL C and driver versions. Devices that\n"
            "clnetsim cannot use are listed with the reason.\n");
}

static int cmd_devices(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            print_devices_usage(stdout);
            return CN_OK;
        }
        char shown[1024];
        fprintf(stderr, "clnetsim devices: unknown argument '%s' (see clnetsim devices --help)\n",
                cn_escape(argv[i], shown, sizeof shown));
        return CN_ERR_INPUT;
    }
    cn_error err = {0};
    device_list list = {0};
    if (device_enumerate(&list, &err) != 0) {
        fprintf(stderr, "clnetsim: error: %s\n", err.msg);
        return err.code;
    }
    device_print_listing(&list, stdout);
    device_list_free(&list);
    return CN_OK;
}

static int cmd_keys(int argc, char **argv)
{
    if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
        printf("usage: clnetsim keys\n\nPrints every section and key a scenario may use, with "
               "type, range, default and meaning, as Markdown.\n");
        return CN_OK;
    }
    if (argc > 1) {
        char shown[1024];
        fprintf(stderr, "clnetsim keys: unknown argument '%s'\n",
                cn_escape(argv[1], shown, sizeof shown));
        return CN_ERR_INPUT;
    }
    config_print_reference(stdout);
    return CN_OK;
}

static int cli_main_one(int argc, char **argv);

/* `devices` under several MPI ranks: each rank's listing, headed by the rank and its machine,
 * printed by rank 0 in rank order (a rank that cannot list its devices stops them all, its
 * error printed once). */
static int devices_of_ranks(void)
{
    cn_error err = {0};
    device_list list = {0};
    char *text = NULL, *all = NULL;
    size_t len = 0;
    int rc = device_enumerate(&list, &err);
    FILE *f = rc ? NULL : open_memstream(&text, &len);
    if (!rc && !f)
        rc = cn_fail(&err, CN_ERR_RUNTIME, "cannot make the listing of rank %d's devices",
                     dist_rank());
    if (f) {
        char host[256] = "";
        if (gethostname(host, sizeof host - 1) != 0)
            snprintf(host, sizeof host, "?");
        fprintf(f, "rank %d of %d (local rank %d of %d on %s):\n", dist_rank(), dist_size(),
                dist_local_rank(), dist_local_size(), host);
        device_print_listing(&list, f);
        if (fclose(f) != 0)
            rc = cn_fail(&err, CN_ERR_RUNTIME, "cannot make the listing of rank %d's devices",
                         dist_rank());
    }
    device_list_free(&list);
    rc = dist_agree(rc, &err);
    if (!rc)
        rc = dist_agree(dist_gather_text(text ? text : "", &all, &err), &err);
    free(text);
    if (rc) {
        if (dist_rank() == 0)
            fprintf(stderr, "clnetsim: error: %s\n", err.msg);
        return rc;
    }
    if (all)
        fputs(all, stdout);
    free(all);
    return CN_OK;
}

/* A command under several MPI ranks: rank 0 alone prints help, versions and the keys; every
 * rank lists its devices; `run` runs the scenario over the ranks (cli_run.c); the other
 * commands that run scenarios are refused before any rank touches a file or a device. */
static int cli_main_ranks(int argc, char **argv)
{
    const char *cmd = argv[1];
    static const char *const single[] = {"-h", "--help", "help", "-V", "--version", "version",
                                         "keys"};
    for (size_t i = 0; i < sizeof single / sizeof single[0]; i++)
        if (!strcmp(cmd, single[i])) {
            if (dist_rank() == 0)
                return cli_main_one(argc, argv);
            return CN_OK;
        }
    if (!strcmp(cmd, "devices") && argc == 2)
        return devices_of_ranks();
    if (!strcmp(cmd, "run") || !strcmp(cmd, "resume"))
        return cli_main_one(argc, argv);
    if (dist_rank() == 0) {
        char shown[1024];
        fprintf(stderr, "clnetsim: error: '%s' was started as %d MPI ranks, and only 'run' and "
                "'resume' run over several ranks yet: start it as one process (docs/user-guide.md, "
                "\"Several processes\")\n", cn_escape(cmd, shown, sizeof shown), dist_size());
    }
    return CN_ERR_INPUT;
}

int cli_main(int argc, char **argv)
{
    if (dist_size() == 1)
        return cli_main_one(argc, argv);
    if (argc < 2) /* the usage, once */
        return dist_rank() == 0 ? cli_main_one(argc, argv) : CN_ERR_INPUT;
    return cli_main_ranks(argc, argv);
}

static int cli_main_one(int argc, char **argv)
{
    if (argc < 2) {
        print_usage(stderr);
        return CN_ERR_INPUT;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help") || !strcmp(cmd, "help")) {
        print_usage(stdout);
        return CN_OK;
    }
    if (!strcmp(cmd, "-V") || !strcmp(cmd, "--version") || !strcmp(cmd, "version")) {
        print_version(stdout);
        return CN_OK;
    }
    if (!strcmp(cmd, "run"))
        return cli_run(argc - 1, argv + 1);
    if (!strcmp(cmd, "resume"))
        return cli_resume(argc - 1, argv + 1);
    if (!strcmp(cmd, "bench"))
        return cli_bench(argc - 1, argv + 1);
    if (!strcmp(cmd, "selftest"))
        return cli_selftest(argc - 1, argv + 1);
    if (!strcmp(cmd, "tune"))
        return cli_tune(argc - 1, argv + 1);
    if (!strcmp(cmd, "devices"))
        return cmd_devices(argc - 1, argv + 1);
    if (!strcmp(cmd, "keys"))
        return cmd_keys(argc - 1, argv + 1);
    char shown[1024];
    fprintf(stderr, "clnetsim: unknown command '%s' (commands: run, resume, bench, selftest, tune, devices, keys; see "
                    "clnetsim --help)\n", cn_escape(cmd, shown, sizeof shown));
    return CN_ERR_INPUT;
}
