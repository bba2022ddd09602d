/* The Kademlia model's option group: [kademlia] (docs/models/kademlia.md), its rules between
 * keys and its part of docs/keys.md. Its values are a kademlia_values (kademlia_values.h),
 * kept in a kademlia scenario's model values, where the model reads them
 * (kademlia_values_of). Help texts end up in a Markdown table: no '|' in them. */
#include <stddef.h>
#include <stdio.h>

#include "config/config_internal.h"
#include "models/kademlia/kademlia.h"
#include "models/kademlia/kademlia_values.h"

#define FIELD(f) offsetof(kademlia_values, f)
_Static_assert(sizeof(kademlia_values) <= SCENARIO_MODEL_BYTES,
               "Kademlia's values must fit a scenario's model values (host/config/config.h)");

enum kademlia_config_key {
    KK_PEERS,
    KK_ID_BITS,
    KK_BUCKET,
    KK_ALPHA,
    KK_GAP,
    KK_LAT_MIN,
    KK_LAT_MAX,
    KK_TARGETS,
    KK_BATCH,
    KK_SESSION,
    KK_OFFLINE,
    KK_TIMEOUT,
    KK_COUNT
};

static const char *const targets_choices[] = {"random", "peers", NULL};

static const config_key kademlia_keys[KK_COUNT] = {
    [KK_PEERS] = {"kademlia", "peers", KT_INT, FIELD(peers), 2, KADEMLIA_MAX_PEERS, 0, "peers",
                  NULL, "1024",
                  "Number N of peers, numbered 0 to N - 1, each with a random id. The model's "
                  "definition gives no default; 1024 is clnetsim's."},
    [KK_ID_BITS] = {"kademlia", "id_bits", KT_INT, FIELD(id_bits), 32, KADEMLIA_MAX_BITS, 0,
                    "bits", NULL, "64",
                    "Length B of an id; distances are the XOR of two ids, compared as B-bit "
                    "unsigned integers. A peer has one k-bucket per bit."},
    [KK_BUCKET] = {"kademlia", "bucket_size", KT_INT, FIELD(bucket_size), 1, KADEMLIA_MAX_K, 0,
                   "contacts", NULL, "8",
                   "k: the contacts a bucket holds (the k closest peers of its range) and that "
                   "a response carries (the k closest to the target that the peer knows)."},
    [KK_ALPHA] = {"kademlia", "alpha", KT_INT, FIELD(alpha), 1, KADEMLIA_MAX_K, 0, "requests",
                  NULL, "3",
                  "Requests a lookup keeps in flight, at most bucket_size."},
    [KK_GAP] = {"kademlia", "lookup_gap_max", KT_TIME_NS, FIELD(gap_max_ns), 0, KEY_TIME_MAX,
                KEY_MIN_OPEN, NULL, NULL, "10",
                "D: each peer starts lookups one after another, the gaps uniform in [0, D]."},
    [KK_LAT_MIN] = {"kademlia", "latency_min", KT_TIME_NS, FIELD(latency_min_ns), 0,
                    KEY_TIME_MAX, KEY_MIN_OPEN, NULL, NULL, "0.01",
                    "Least one-way latency of a message: the lookahead, the window length of "
                    "the parallel engine."},
    [KK_LAT_MAX] = {"kademlia", "latency_max", KT_TIME_NS, FIELD(latency_max_ns), 0,
                    KEY_TIME_MAX, KEY_MIN_OPEN, NULL, NULL, "0.1",
                    "Largest one-way latency: each pair of peers draws its latency once, "
                    "uniform in [latency_min, latency_max] (latency_max - latency_min below "
                    "4.295 s)."},
    [KK_TARGETS] = {"kademlia", "targets", KT_CHOICE, FIELD(targets), 0, 0, 0, NULL,
                    targets_choices, "random",
                    "What lookups look for: random ids (almost never a peer's), or the ids of "
                    "peers drawn uniformly among the others (every lookup then finds its "
                    "target)."},
    [KK_BATCH] = {"kademlia", "windows_per_launch", KT_INT, FIELD(windows_per_launch), 0,
                  1000000, 0, "windows", NULL, "0",
                  "Windows of latency_min that one launch of the devices runs: each peer runs "
                  "its lookups as far as they go before the launch's end (lookups never "
                  "meet, so the results are the same for every value); more windows, fewer "
                  "launches and read-backs. 0: chosen by the run as it goes, from the events "
                  "per second it measures (adaptive granularity, starting at 1000). With "
                  "--lookups every launch is one window."},
    [KK_SESSION] = {"kademlia", "session_mean", KT_TIME_NS, FIELD(session_ns), 0, KEY_TIME_MAX,
                    0, NULL, NULL, "0",
                    "Churn: the mean length S of a peer's online periods, exponential, each "
                    "followed by an offline period (docs/models/kademlia.md, \"Churn\"). 0: "
                    "no churn, every peer always online."},
    [KK_OFFLINE] = {"kademlia", "offline_mean", KT_TIME_NS, FIELD(offline_ns), 0, KEY_TIME_MAX,
                    0, NULL, NULL, "0",
                    "Churn: the mean length of a peer's offline periods, exponential; 0: the "
                    "same as session_mean."},
    [KK_TIMEOUT] = {"kademlia", "rpc_timeout", KT_TIME_NS, FIELD(timeout_ns), 0, KEY_TIME_MAX,
                    KEY_MIN_OPEN, NULL, NULL, "1",
                    "Churn: how long an initiator waits for the response to a request before "
                    "it gives the peer asked up, at least latency_max + latency_min."},
};

static int first_key;
#define K_KAD_ALPHA (first_key + KK_ALPHA)
#define K_KAD_BUCKET (first_key + KK_BUCKET)
#define K_KAD_GAP (first_key + KK_GAP)
#define K_KAD_LAT_MIN (first_key + KK_LAT_MIN)
#define K_KAD_LAT_MAX (first_key + KK_LAT_MAX)
#define K_KAD_SESSION (first_key + KK_SESSION)
#define K_KAD_TIMEOUT (first_key + KK_TIMEOUT)

#define WHERE(...) CONFIG_WHERE(ctx, where, __VA_ARGS__)

static int check(load_ctx *ctx)
{
    const scenario *sc = &ctx->sc;
    const kademlia_values *p = config_values(ctx, &kademlia_config);
    char where[400], a[64], b[64], c[64], d[64];
    if (sc->duration_ns <= 0)
        return cn_fail(ctx->err, CN_ERR_INPUT,
                       "%s: [simulation] duration: the kademlia model needs a duration > 0: "
                       "its peers start lookups for ever",
                       WHERE(K_DURATION, K_MODEL));
    if (p->alpha > p->bucket_size)
        return cn_fail(ctx->err, CN_ERR_INPUT,
                       "%s: [kademlia] alpha = %lld with bucket_size = %lld: expected alpha <= "
                       "bucket_size (a lookup asks only its k closest peers)",
                       WHERE(K_KAD_ALPHA, K_KAD_BUCKET), (long long)p->alpha,
                       (long long)p->bucket_size);
    if (p->latency_max_ns < p->latency_min_ns ||
        p->latency_max_ns - p->latency_min_ns > KADEMLIA_MAX_LATENCY_SPAN) {
        config_format_loaded(ctx, K_KAD_LAT_MIN, a, sizeof a);
        config_format_loaded(ctx, K_KAD_LAT_MAX, b, sizeof b);
        return cn_fail(ctx->err, CN_ERR_INPUT,
                       "%s: [kademlia] latency_min = %s s and latency_max = %s s: expected "
                       "latency_min <= latency_max <= latency_min + 4.294967295 s",
                       WHERE(K_KAD_LAT_MIN, K_KAD_LAT_MAX), a, b);
    }
    if (p->session_ns > 0 && p->timeout_ns < p->latency_max_ns + p->latency_min_ns) {
        config_format_loaded(ctx, K_KAD_TIMEOUT, a, sizeof a);
        config_format_loaded(ctx, K_KAD_LAT_MAX, b, sizeof b);
        config_format_loaded(ctx, K_KAD_LAT_MIN, c, sizeof c);
        return cn_fail(ctx->err, CN_ERR_INPUT,
                       "%s: [kademlia] rpc_timeout = %s s with latency_max = %s s and "
                       "latency_min = %s s: expected rpc_timeout >= latency_max + latency_min "
                       "(a request's timeout must come after its response could)",
                       WHERE(K_KAD_TIMEOUT, K_KAD_LAT_MAX, K_KAD_LAT_MIN, K_KAD_SESSION), a,
                       b, c);
    }
    /* every time a run computes: a start at most D after one before T, a message at most
     * 2 l_max after an event before T, a timeout at most R after a request before T */
    typedef unsigned __int128 wide;
    wide end = (wide)sc->duration_ns + (wide)p->gap_max_ns + 2 * (wide)p->latency_max_ns +
               (wide)p->timeout_ns;
    if (end > (wide)SCENARIO_MAX_TIME_NS) {
        config_format_loaded(ctx, K_DURATION, a, sizeof a);
        config_format_loaded(ctx, K_KAD_GAP, b, sizeof b);
        config_format_loaded(ctx, K_KAD_LAT_MAX, c, sizeof c);
        format_scaled(SCENARIO_MAX_TIME_NS, 9, d, sizeof d);
        return cn_fail(ctx->err, CN_ERR_INPUT,
                       "%s: [simulation] duration = %s s with [kademlia] lookup_gap_max = %s s "
                       "and latency_max = %s s: simulated time could pass %s s (2^62 ns), the "
                       "limit of the simulation clock; expected duration + lookup_gap_max + 2 x "
                       "latency_max + rpc_timeout <= %s s",
                       WHERE(K_DURATION, K_KAD_GAP, K_KAD_LAT_MAX), a, b, c, d, d);
    }
    return 0;
}

/* An offline mean left at 0 is the session mean. */
static void derive(void *values)
{
    kademlia_values *p = values;
    if (p->offline_ns == 0)
        p->offline_ns = p->session_ns;
}

const model_config kademlia_config = {
    .model = "kademlia",
    .summary = "a Kademlia overlay of peers running iterative lookups, "
               "docs/models/kademlia.md",
    .keys = kademlia_keys,
    .n_keys = KK_COUNT,
    .first_key = &first_key,
    .values_size = sizeof(kademlia_values),
    .check = check,
    .derive = derive,
    .reference = "`model = kademlia`: a Kademlia overlay whose peers run iterative FIND_NODE "
                 "lookups over\nconverged routing tables (docs/models/kademlia.md). Its peers "
                 "start lookups for ever, so it\nneeds `[simulation] duration` > 0.\n\n",
};
