/* flood_oracle FILE.ini [-s section.key=value]... [--json OUT.json]
 *
 * Runs the sequential reference model on a scenario loaded exactly as the simulator loads it
 * (config_load) and writes the determinism-contract members of MODEL.md "Outputs" as one JSON
 * object, so that json_compare can check a simulator run against it. Without --json (or with
 * "--json -") the object goes to stdout. Exit status: 0 ok, 1 the oracle failed, 2 bad input. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "oracle/flood_oracle.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: flood_oracle FILE.ini [-s section.key=value]... [--json OUT.json]\n");
}

/* loss = 1 - delivered / generated, computed literally as MODEL.md writes it, printed with 17
 * significant digits so that the text identifies the double exactly. With no packets there is
 * nothing to lose: 0. */
static double loss_of(const flood_oracle_result *r)
{
    if (r->generated <= 0)
        return 0.0;
    return 1.0 - (double)r->delivered / (double)r->generated;
}

static int write_json(FILE *f, const flood_oracle_result *r)
{
    fprintf(f, "{\n");
    fprintf(f, "  \"model\": \"flood\",\n");
    fprintf(f, "  \"seed\": %" PRIu64 ",\n", r->seed);
    fprintf(f, "  \"nodes\": %" PRId64 ",\n", r->nodes);
    fprintf(f, "  \"generated\": %" PRId64 ",\n", r->generated);
    fprintf(f, "  \"delivered\": %" PRId64 ",\n", r->delivered);
    fprintf(f, "  \"loss\": %.17g,\n", loss_of(r));
    fprintf(f, "  \"transmissions\": %" PRId64 ",\n", r->transmissions);
    fprintf(f, "  \"receptions\": %" PRId64 ",\n", r->receptions);
    fprintf(f, "  \"first_receptions\": %" PRId64 ",\n", r->first_receptions);
    fprintf(f, "  \"hops_sum\": %" PRId64 ",\n", r->hops_sum);
    fprintf(f, "  \"latency_sum_ns\": %" PRId64 ",\n", r->latency_sum_ns);
    fprintf(f, "  \"end_time_ns\": %" PRId64 ",\n", r->end_time_ns);
    fprintf(f, "  \"windows\": %" PRId64 "%s\n", r->windows, r->capped ? "," : "");
    if (r->capped) /* the neighbour cap's counters (docs/models.md) */
        fprintf(f, "  \"links\": %" PRId64 ",\n  \"links_cut\": %" PRId64 "\n", r->links,
                r->links_cut);
    fprintf(f, "}\n");
    return ferror(f) ? -1 : 0;
}

int main(int argc, char **argv)
{
    const char *ini = NULL, *json = "-";
    config_override *ov = calloc((size_t)argc, sizeof *ov);
    int nov = 0;
    if (!ov) {
        fprintf(stderr, "flood_oracle: out of memory\n");
        return 1;
    }
    for (int a = 1; a < argc; a++) {
        if (strcmp(argv[a], "-s") == 0 || strcmp(argv[a], "--set") == 0) {
            if (a + 1 >= argc) {
                fprintf(stderr, "flood_oracle: %s needs section.key=value\n", argv[a]);
                free(ov);
                return 2;
            }
            ov[nov++].text = argv[++a];
        } else if (strcmp(argv[a], "--json") == 0) {
            if (a + 1 >= argc) {
                fprintf(stderr, "flood_oracle: --json needs a file name\n");
                free(ov);
                return 2;
            }
            json = argv[++a];
        } else if (strcmp(argv[a], "-h") == 0 || strcmp(argv[a], "--help") == 0) {
            usage(stdout);
            free(ov);
            return 0;
        } else if (argv[a][0] == '-' && argv[a][1] != '\0') {
            fprintf(stderr, "flood_oracle: unknown option %s\n", argv[a]);
            usage(stderr);
            free(ov);
            return 2;
        } else if (!ini) {
            ini = argv[a];
        } else {
            fprintf(stderr, "flood_oracle: more than one scenario file (%s, %s)\n", ini, argv[a]);
            free(ov);
            return 2;
        }
    }
    if (!ini) {
        usage(stderr);
        free(ov);
        return 2;
    }

    scenario sc;
    cn_error err;
    memset(&err, 0, sizeof err);
    if (config_load(ini, ov, nov, &sc, &err) != CN_OK) {
        fprintf(stderr, "flood_oracle: %s\n", err.msg[0] ? err.msg : "cannot load the scenario");
        free(ov);
        return 2;
    }
    free(ov);
    if (strcmp(sc.model, "flood") != 0) {
        fprintf(stderr, "flood_oracle: %s: model is \"%s\", the oracle knows only \"flood\"\n",
                ini, sc.model);
        return 2;
    }

    flood_oracle_result r;
    int rc = flood_oracle_run(&sc, &r);
    if (rc != ORACLE_OK) {
        fprintf(stderr, "flood_oracle: %s: %s\n", ini,
                rc == ORACLE_ERR_NOMEM ? "out of memory"
                                       : "scenario outside what the oracle models");
        return rc == ORACLE_ERR_NOMEM ? 1 : 2;
    }

    FILE *f = strcmp(json, "-") == 0 ? stdout : fopen(json, "w");
    if (!f) {
        fprintf(stderr, "flood_oracle: cannot write %s\n", json);
        return 1;
    }
    int bad = write_json(f, &r);
    if (f != stdout)
        bad |= fclose(f) != 0;
    else
        bad |= fflush(f) != 0;
    if (bad) {
        fprintf(stderr, "flood_oracle: error writing %s\n", json);
        return 1;
    }
    return 0;
}
