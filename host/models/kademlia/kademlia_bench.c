/* What selftest and bench need of Kademlia (engine.h, model_bench): the Kademlia oracle
 * (host/oracle/kademlia_oracle.c) as a run's members, and the peers that a benchmark case's
 * size counts. */
#include <stdio.h>

#include "models/kademlia/kademlia.h"
#include "oracle/kademlia_oracle.h"

static int kademlia_reference(const scenario *sc, run_results *want, char *why, size_t cap)
{
    const kademlia_values *v = kademlia_values_of(sc);
    kad_oracle_params p = {
        .seed = sc->seed,
        .peers = v->peers,
        .id_bits = (int)v->id_bits,
        .k = (int)v->bucket_size,
        .alpha = (int)v->alpha,
        .gap_max_ns = v->gap_max_ns,
        .lat_min_ns = v->latency_min_ns,
        .lat_max_ns = v->latency_max_ns,
        .duration_ns = sc->duration_ns,
        .targets_peers = v->targets == KAD_TARGETS_PEERS,
        .session_ns = v->session_ns,
        .offline_ns = v->offline_ns,
        .timeout_ns = v->timeout_ns,
    };
    kad_oracle_result o;
    if (kad_oracle_run(&p, &o, NULL, why, cap) != KAD_ORACLE_OK)
        return 1;
    results_declare(want, kademlia_model_ops.metrics);
    snprintf(want->model, sizeof want->model, "kademlia");
    want->seed = p.seed;
    const struct { const char *name; int64_t v; } all[] = {
        {"peers", p.peers},
        {"id_bits", p.id_bits},
        {"bucket_size", p.k},
        {"alpha", p.alpha},
        {"lookups_started", o.lookups_started},
        {"lookups_completed", o.lookups_completed},
        {"lookups_failed", o.lookups_failed},
        {"lookups_found", o.lookups_found},
        {"messages", o.messages},
        {"events", o.events},
        {"hops_sum", o.hops_sum},
        {"hops_min", o.hops_min},
        {"hops_max", o.hops_max},
        {"latency_sum_ns", o.latency_sum_ns},
        {"latency_min_ns", o.latency_min_ns},
        {"latency_max_ns", o.latency_max_ns},
        {"peers_alive", o.peers_alive},
        {"last_time_ns", o.last_time_ns},
    };
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        results_set(want, all[i].name, all[i].v);
    for (int h = 0; h < KAD_ORACLE_HOPS_BINS; h++)
        results_set_at(want, "hops_histogram", h, o.hops_histogram[h]);
    for (int h = 0; h < KAD_ORACLE_LATENCY_BINS; h++)
        results_set_at(want, "latency_histogram", h, o.latency_histogram[h]);
    return 0;
}

static int64_t kademlia_size(const scenario *sc, int64_t *pending)
{
    *pending = 0;
    return kademlia_values_of(sc)->peers;
}

static int kademlia_resize(const scenario *sc, int64_t n, char out[][96], int max,
                           cn_error *err)
{
    (void)sc;
    if (max < 1) {
        cn_fail(err, CN_ERR_INPUT, "internal error: too few sizing overrides");
        return -1;
    }
    snprintf(out[0], 96, "kademlia.peers=%lld", (long long)n);
    return 1;
}

const model_bench kademlia_bench = {
    .title = "Kademlia",
    .reference_name = "the Kademlia oracle",
    .reference = kademlia_reference,
    .size = kademlia_size,
    .resize = kademlia_resize,
};
