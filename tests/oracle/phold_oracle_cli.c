/* phold_oracle FILE.ini [-s section.key=value]... [--json OUT.json]
 *
 * Runs the sequential PHOLD reference on a scenario loaded exactly as the simulator loads it
 * (config_load) and writes the determinism-contract members of docs/models/phold.md as the
 * simulator prints them, so that json_compare can check a simulator run against it. Without
 * --json (or with "--json -") the object goes to stdout; a file is written through a
 * temporary one renamed at the end. Exit status: 0 ok, 1 the run or the writing failed, 2 bad
 * input. */
#include "phold_oracle_cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *f)
{
    fprintf(f, "usage: phold_oracle FILE.ini [-s section.key=value]... [--json OUT.json]\n");
}

/* The argument after option argv[*a], or NULL after a message. */
static const char *option_value(int argc, char **argv, int *a, const char *what)
{
    if (*a + 1 >= argc) {
        fprintf(stderr, "phold_oracle: %s needs %s\n", argv[*a], what);
        return NULL;
    }
    return argv[++*a];
}

int phold_oracle_cli(int argc, char **argv, phold_scenario_loader load)
{
    const char *ini = NULL, *json = "-";
    config_override *ov = calloc((size_t)argc, sizeof *ov);
    int nov = 0, status = 2;
    if (!ov) {
        fprintf(stderr, "phold_oracle: out of memory\n");
        return 1;
    }
    for (int a = 1; a < argc; a++) {
        if (strcmp(argv[a], "-s") == 0 || strcmp(argv[a], "--set") == 0) {
            if (!(ov[nov].text = option_value(argc, argv, &a, "section.key=value")))
                goto out;
            nov++;
        } else if (strcmp(argv[a], "--json") == 0) {
            if (!(json = option_value(argc, argv, &a, "a file name")))
                goto out;
        } else if (strcmp(argv[a], "-h") == 0 || strcmp(argv[a], "--help") == 0) {
            usage(stdout);
            status = 0;
            goto out;
        } else if (argv[a][0] == '-' && argv[a][1] != '\0') {
            fprintf(stderr, "phold_oracle: unknown option %s\n", argv[a]);
            usage(stderr);
            goto out;
        } else if (!ini) {
            ini = argv[a];
        } else {
            fprintf(stderr, "phold_oracle: more than one scenario file (%s, %s)\n", ini, argv[a]);
            goto out;
        }
    }
    if (!ini) {
        usage(stderr);
        goto out;
    }

    scenario *sc = malloc(sizeof *sc);
    cn_error *err = calloc(1, sizeof *err);
    if (!sc || !err) {
        fprintf(stderr, "phold_oracle: out of memory\n");
        status = 1;
    } else if (load(ini, ov, nov, sc, err) != CN_OK) {
        fprintf(stderr, "phold_oracle: %s\n", err->msg[0] ? err->msg : "cannot load the scenario");
    } else if (strcmp(sc->model, "phold") != 0) {
        fprintf(stderr, "phold_oracle: %s: model is \"%s\", the oracle knows only \"phold\"\n",
                ini, sc->model);
    } else {
        phold_oracle_params p;
        phold_oracle_result r;
        char msg[512];
        phold_oracle_params_from(sc, &p);
        const int rc = phold_oracle_run(&p, &r, msg, sizeof msg);
        if (rc != PHOLD_ORACLE_OK) {
            fprintf(stderr, "phold_oracle: %s: %s\n", ini, msg);
            status = rc == PHOLD_ORACLE_ERR_NOMEM ? 1 : 2;
        } else if (phold_oracle_save_json(json, &p, &r, msg, sizeof msg) != 0) {
            fprintf(stderr, "phold_oracle: %s\n", msg);
            status = 1;
        } else {
            status = 0;
        }
    }
    free(sc);
    free(err);
out:
    free(ov);
    return status;
}
