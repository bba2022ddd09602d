#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "version.h"
#include "cli/cli.h"
#include "cli/cli_bench.h"
#include "cli/cli_run.h"
#include "common/error.h"
#include "config/config.h"
#include "device/device.h"

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

int cli_main(int argc, char **argv)
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
