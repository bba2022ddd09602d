/* flood_oracle FILE.ini [-s section.key=value]... [--json OUT.json] [--packets OUT.csv]
 *
 * Runs the sequential reference model on a scenario loaded exactly as the simulator loads it
 * (config_load) and writes the determinism-contract members of docs/model.md "Outputs" as one JSON
 * object, so that json_compare can check a simulator run against it. Without --json (or with
 * "--json -") the object goes to stdout. With traffic flows (docs/models.md "Traffic") the
 * object ends with "deliverable" and "flows", as the simulator prints them; last comes
 * "contract", the list of the members written, as the simulator's. --packets writes
 * the per-packet CSV of docs/models.md (through a temporary file renamed at the end, so that
 * a failure leaves no partial file). Exit status: 0 ok, 1 the oracle failed, 2 bad input. */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config/config.h"
#include "oracle/flood_oracle.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: flood_oracle FILE.ini [-s section.key=value]... [--json OUT.json]"
               " [--packets OUT.csv]\n");
}

/* loss = 1 - delivered / generated, computed literally as docs/model.md writes it, printed with 17
 * significant digits so that the text identifies the double exactly. With no packets there is
 * nothing to lose: 0. With flows (docs/models.md) the denominator is the deliverable count. */
static double ratio_loss(int64_t delivered, int64_t of)
{
    if (of <= 0)
        return 0.0;
    return 1.0 - (double)delivered / (double)of;
}

static double loss_of(const flood_oracle_result *r)
{
    return ratio_loss(r->delivered, r->n_flows > 0 ? r->deliverable : r->generated);
}

/* A JSON string: '"' and '\\' escaped, control characters as \u00XX, the rest as is. */
static void print_json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(f, "\\%c", *p);
        else if (*p < 0x20)
            fprintf(f, "\\u%04x", *p);
        else
            fputc(*p, f);
    }
    fputc('"', f);
}

/* A 128-bit sum in decimal, written here rather than with the engine's formatter so that the
 * reference shares no code with what it checks. */
static const char *decimal(wide_int v, char buf[48])
{
    unsigned __int128 mag = v < 0 ? -(unsigned __int128)v : (unsigned __int128)v;
    char *p = buf + 47;
    *p = '\0';
    do {
        *--p = (char)('0' + (int)(mag % 10u));
        mag /= 10u;
    } while (mag > 0);
    if (v < 0)
        *--p = '-';
    return p;
}

/* "deliverable" and "flows" (docs/models.md "Traffic"): one flow object per line. */
static void write_flows(FILE *f, const flood_oracle_result *r)
{
    fprintf(f, "  \"deliverable\": %" PRId64 ",\n", r->deliverable);
    fprintf(f, "  \"flows\": [\n");
    for (int i = 0; i < r->n_flows; i++) {
        const oracle_flow_result *fr = &r->flows[i];
        fprintf(f, "    {\"name\": ");
        print_json_string(f, fr->name);
        char h[48], l[48];
        fprintf(f,
                ", \"generated\": %" PRId64 ", \"deliverable\": %" PRId64
                ", \"delivered\": %" PRId64 ", \"loss\": %.17g, \"hops_sum\": %s"
                ", \"latency_sum_ns\": %s}%s\n",
                fr->generated, fr->deliverable, fr->delivered,
                ratio_loss(fr->delivered, fr->deliverable), decimal(fr->hops_sum, h),
                decimal(fr->latency_sum_ns, l), i + 1 < r->n_flows ? "," : "");
    }
    fprintf(f, "  ],\n");
}

/* The members written, in order: "contract", the last member, names them, as clnetsim's
 * JSON does (docs/architecture.md, "The determinism contract, declared"), so that
 * json_compare compares exactly these and checks the run names the same ones. */
#define ORACLE_MAX_MEMBERS 24

typedef struct member_list {
    const char *name[ORACLE_MAX_MEMBERS];
    int n;
} member_list;

static void written(member_list *l, const char *name)
{
    if (l->n < ORACLE_MAX_MEMBERS)
        l->name[l->n++] = name;
}

static int write_json(FILE *f, const flood_oracle_result *r)
{
    member_list l = {{0}, 0};
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
    char sum[48];
    fprintf(f, "  \"hops_sum\": %s,\n", decimal(r->hops_sum, sum));
    fprintf(f, "  \"latency_sum_ns\": %s,\n", decimal(r->latency_sum_ns, sum));
    fprintf(f, "  \"end_time_ns\": %" PRId64 ",\n", r->end_time_ns);
    fprintf(f, "  \"windows\": %" PRId64 ",\n", r->windows);
    static const char *const always[] = {"model", "seed", "nodes", "generated", "delivered",
                                         "loss", "transmissions", "receptions",
                                         "first_receptions", "hops_sum", "latency_sum_ns",
                                         "end_time_ns", "windows"};
    for (size_t i = 0; i < sizeof always / sizeof always[0]; i++)
        written(&l, always[i]);
    if (r->capped) { /* the neighbour cap's counters (docs/models.md) */
        fprintf(f, "  \"links\": %" PRId64 ",\n  \"links_cut\": %" PRId64 ",\n", r->links,
                r->links_cut);
        written(&l, "links");
        written(&l, "links_cut");
    }
    if (r->has_capacity) { /* node resources (docs/models.md) */
        fprintf(f, "  \"capacity_drops\": %" PRId64 ",\n", r->capacity_drops);
        written(&l, "capacity_drops");
    }
    if (r->has_energy) {
        fprintf(f,
                "  \"dead_nodes\": %" PRId64 ",\n  \"first_death_ns\": %" PRId64
                ",\n  \"energy_spent_nj\": %" PRId64 ",\n",
                r->dead_nodes, r->first_death_ns, r->energy_spent_nj);
        written(&l, "dead_nodes");
        written(&l, "first_death_ns");
        written(&l, "energy_spent_nj");
    }
    if (r->n_flows > 0) {
        write_flows(f, r);
        written(&l, "deliverable");
        written(&l, "flows");
    }
    fprintf(f, "  \"contract\": [");
    for (int i = 0; i < l.n; i++)
        fprintf(f, "%s\"%s\"", i ? ", " : "", l.name[i]);
    fprintf(f, "]\n}\n");
    return ferror(f) ? -1 : 0;
}

/* A CSV field: as is, or quoted (inner quotes doubled) when it holds a comma, a quote or a
 * line break (RFC 4180). */
static void print_csv_field(FILE *f, const char *s)
{
    if (!strpbrk(s, ",\"\r\n")) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

/* The per-packet CSV (docs/models.md "Traffic"): one row per packet in packet id order;
 * latency_ns and hops of the last delivery, both empty when there is none. */
static int write_packets_csv(FILE *f, const flood_oracle_result *r, const oracle_packet *pk,
                             int64_t n)
{
    fprintf(f, "flow,packet,source,created_ns,delivered,latency_ns,hops\n");
    for (int64_t k = 0; k < n && !ferror(f); k++) {
        print_csv_field(f, r->flows[pk[k].flow].name);
        fprintf(f, ",%" PRId64 ",%" PRId32 ",%" PRId64 ",%" PRId64 ",", k, pk[k].source,
                pk[k].created_ns, pk[k].delivered);
        if (pk[k].hops > 0)
            fprintf(f, "%" PRId64 ",%" PRId64 "\n", pk[k].latency_ns, pk[k].hops);
        else
            fprintf(f, ",\n");
    }
    return ferror(f) ? -1 : 0;
}

/* Writes the CSV to PATH through PATH.tmp.XXXXXX in the same directory, renamed over PATH
 * only when everything was written. Returns 0 or -1 (after a message). */
static int save_packets_csv(const char *path, const flood_oracle_result *r,
                            const oracle_packet *pk, int64_t n)
{
    const size_t len = strlen(path) + sizeof ".tmp.XXXXXX";
    char *tmp = malloc(len);
    if (!tmp) {
        fprintf(stderr, "flood_oracle: out of memory\n");
        return -1;
    }
    snprintf(tmp, len, "%s.tmp.XXXXXX", path);
    const int fd = mkstemp(tmp);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f) {
        if (fd >= 0) {
            close(fd);
            unlink(tmp);
        }
        fprintf(stderr, "flood_oracle: cannot write %s\n", path);
        free(tmp);
        return -1;
    }
    int bad = write_packets_csv(f, r, pk, n);
    bad |= fclose(f) != 0;
    if (!bad)
        bad = rename(tmp, path) != 0;
    if (bad) {
        unlink(tmp);
        fprintf(stderr, "flood_oracle: error writing %s\n", path);
    }
    free(tmp);
    return bad ? -1 : 0;
}

int main(int argc, char **argv)
{
    const char *ini = NULL, *json = "-", *csv = NULL;
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
        } else if (strcmp(argv[a], "--packets") == 0) {
            if (a + 1 >= argc) {
                fprintf(stderr, "flood_oracle: --packets needs a file name\n");
                free(ov);
                return 2;
            }
            csv = argv[++a];
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
    oracle_packet *pk = NULL;
    int64_t npk = 0;
    int rc = flood_oracle_run_packets(&sc, &r, csv ? &pk : NULL, &npk);
    if (rc != ORACLE_OK) {
        fprintf(stderr, "flood_oracle: %s: %s\n", ini,
                rc == ORACLE_ERR_NOMEM ? "out of memory"
                                       : "scenario outside what the oracle models");
        return rc == ORACLE_ERR_NOMEM ? 1 : 2;
    }

    if (csv) {
        const int bad = save_packets_csv(csv, &r, pk, npk);
        free(pk);
        if (bad)
            return 1;
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
