/* kademlia_oracle: the Kademlia model's sequential reference (host/oracle/kademlia_oracle.h)
 * from the command line, with the parameters in the model's units (docs/models/kademlia.md):
 *
 *   kademlia_oracle SEED PEERS ID_BITS K ALPHA GAP_MAX_NS LAT_MIN_NS LAT_MAX_NS DURATION_NS
 *                   random|peers [--churn S_NS O_NS R_NS] [--json OUT.json]
 *                   [--lookups FILE.csv] [--stats]
 *
 * prints the model's JSON object (or writes it to OUT.json), the lookups' rows to FILE.csv,
 * and with --stats a line of what it built (ids drawn again, table entries) on stderr. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oracle/kademlia_oracle.h"

static int usage(void)
{
    fprintf(stderr, "usage: kademlia_oracle SEED PEERS ID_BITS K ALPHA GAP_MAX_NS LAT_MIN_NS "
                    "LAT_MAX_NS DURATION_NS random|peers [--churn S_NS O_NS R_NS] "
                    "[--json OUT.json] [--lookups FILE.csv] [--stats]\n");
    return 2;
}

/* ARG as an integer in [LO, HI] into *V; 0 on success. */
static int number(const char *arg, const char *name, int64_t lo, int64_t hi, int64_t *v)
{
    char *end = NULL;
    errno = 0;
    long long x = strtoll(arg, &end, 10);
    if (errno || !end || *end || end == arg || x < lo || x > hi) {
        fprintf(stderr, "kademlia_oracle: %s '%s' must be an integer from %" PRId64 " to %" PRId64
                "\n", name, arg, lo, hi);
        return 1;
    }
    *v = x;
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 11)
        return usage();
    static const char *const names[] = {"SEED", "PEERS", "ID_BITS", "K", "ALPHA", "GAP_MAX_NS",
                                        "LAT_MIN_NS", "LAT_MAX_NS", "DURATION_NS"};
    int64_t v[9];
    for (int j = 0; j < 9; j++)
        if (number(argv[1 + j], names[j], 0, INT64_MAX, &v[j]))
            return 2;
    if (strcmp(argv[10], "random") != 0 && strcmp(argv[10], "peers") != 0)
        return usage();
    const char *json = NULL, *rows = NULL;
    int stats = 0;
    int64_t churn[3] = {0, 0, 0};
    static const char *const churn_names[] = {"S_NS", "O_NS", "R_NS"};
    for (int a = 11; a < argc; a++) {
        if (strcmp(argv[a], "--churn") == 0 && a + 3 < argc) {
            for (int j = 0; j < 3; j++)
                if (number(argv[++a], churn_names[j], 0, INT64_MAX, &churn[j]))
                    return 2;
        } else if (strcmp(argv[a], "--json") == 0 && a + 1 < argc)
            json = argv[++a];
        else if (strcmp(argv[a], "--lookups") == 0 && a + 1 < argc)
            rows = argv[++a];
        else if (strcmp(argv[a], "--stats") == 0)
            stats = 1;
        else
            return usage();
    }
    if (v[2] > 160 || v[3] > 64 || v[4] > 64) {
        fprintf(stderr, "kademlia_oracle: ID_BITS, K or ALPHA out of range\n");
        return 2;
    }
    kad_oracle_params p = {(uint64_t)v[0], v[1], (int)v[2], (int)v[3], (int)v[4], v[5], v[6],
                           v[7], v[8], strcmp(argv[10], "peers") == 0, churn[0], churn[1],
                           churn[2]};
    FILE *lk = rows ? fopen(rows, "w") : NULL;
    if (rows && !lk) {
        fprintf(stderr, "kademlia_oracle: cannot write '%s': %s\n", rows, strerror(errno));
        return 1;
    }
    kad_oracle_result r;
    char err[256] = "";
    int rc = kad_oracle_run(&p, &r, lk, err, sizeof err);
    if (lk && fclose(lk) != 0 && rc == KAD_ORACLE_OK)
        rc = KAD_ORACLE_ERR_IO, snprintf(err, sizeof err, "cannot write '%s'", rows);
    if (rc != KAD_ORACLE_OK) {
        fprintf(stderr, "kademlia_oracle: %s\n", err);
        return rc == KAD_ORACLE_ERR_INPUT ? 2 : 1;
    }
    if (stats)
        fprintf(stderr, "kademlia_oracle: %" PRId64 " ids drawn again, %" PRId64
                " table entries (%.1f a peer)\n", r.id_redraws, r.table_entries,
                (double)r.table_entries / (double)p.peers);
    FILE *out = json ? fopen(json, "w") : stdout;
    if (!out) {
        fprintf(stderr, "kademlia_oracle: cannot write '%s': %s\n", json, strerror(errno));
        return 1;
    }
    kad_oracle_write_json(&p, &r, out);
    if (json && fclose(out) != 0) {
        fprintf(stderr, "kademlia_oracle: cannot write '%s'\n", json);
        return 1;
    }
    return 0;
}
