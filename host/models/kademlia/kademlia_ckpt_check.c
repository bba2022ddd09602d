/* The checks of a kademlia checkpoint against its scenario (kademlia_ckpt_format.h), before
 * any device is touched: what `clnetsim resume` and the checkpoint fuzzer run. */
#include <stdlib.h>
#include <string.h>

#include "models/kademlia/kademlia.h"
#include "models/kademlia/kademlia_ckpt_format.h"

/* Times a run can hold (config.h keeps durations and gaps far below it). */
#define TIME_LIMIT ((int64_t)1 << 62)

static uint32_t word_at(const uint8_t *b, uint64_t i)
{
    uint32_t v;
    memcpy(&v, b + 4 * i, 4);
    return v;
}

/* Peer I of the record KPER at PEERS (a record need not be aligned for its type). */
static kad_ckpt_peer peer_at(const uint8_t *peers, uint64_t i)
{
    kad_ckpt_peer p;
    memcpy(&p, peers + i * sizeof p, sizeof p);
    return p;
}

static int64_t time_at(const uint32_t *w)
{
    return (int64_t)(((uint64_t)w[1] << 32) | w[0]);
}

/* The shape against the scenario, the windows and the time reached against the run. */
static int check_shape(const ckpt_file *in, const scenario *sc, const kad_ckpt_shape *s,
                       const ckpt_progress *pg, cn_error *err)
{
    const kademlia_values *v = kademlia_values_of(sc);
    uint64_t W = ((uint64_t)v->id_bits + 31) / 32;
    uint64_t lw = LK_WORDS(W, (uint64_t)v->bucket_size, (uint64_t)v->alpha);
    if (s->peers != (uint64_t)v->peers || s->id_bits != (uint64_t)v->id_bits ||
        s->bucket_size != (uint64_t)v->bucket_size || s->alpha != (uint64_t)v->alpha ||
        s->targets != (uint64_t)v->targets || s->record_words != lw)
        return ckpt_refuse(in, err, KT_SHAPE, "%llu peers of %llu-bit ids, buckets of %llu, "
                           "alpha %llu, targets %llu and records of %llu words, and the "
                           "scenario has %lld, %lld, %lld, %lld, %d and %llu",
                           (unsigned long long)s->peers, (unsigned long long)s->id_bits,
                           (unsigned long long)s->bucket_size, (unsigned long long)s->alpha,
                           (unsigned long long)s->targets, (unsigned long long)s->record_words,
                           (long long)v->peers, (long long)v->id_bits,
                           (long long)v->bucket_size, (long long)v->alpha, v->targets,
                           (unsigned long long)lw);
    if (s->windows != (uint64_t)pg->done || pg->next != pg->done)
        return ckpt_refuse(in, err, KT_SHAPE, "%llu windows run, and records EWIN and ENXT say "
                           "%lld run and %lld next", (unsigned long long)s->windows,
                           (long long)pg->done, (long long)pg->next);
    /* window k begins at least k x latency_min in (each lasts that long at least), and runs
     * only before the duration */
    int64_t T = sc->duration_ns, L = v->latency_min_ns, most = (T - 1) / L + 1;
    if (pg->next > most)
        return ckpt_refuse(in, err, CKPT_NEXT, "next window %lld is beyond the %lld windows "
                           "that a duration of %lld ns with a latency_min of %lld ns holds",
                           (long long)pg->next, (long long)most, (long long)T, (long long)L);
    /* a run that reached its duration has ended and writes no checkpoint */
    if (pg->reached >= T)
        return ckpt_refuse(in, err, CKPT_REACHED, "time reached %lld ns is not before the "
                           "scenario's duration %lld ns", (long long)pg->reached, (long long)T);
    if (s->rows != 0 && !sc->record_packets)
        return ckpt_refuse(in, err, KT_SHAPE, "%llu rows of lookups, from a run without them",
                           (unsigned long long)s->rows);
    return 0;
}

/* Peer I's statistics: no more ended than started, no more found than completed, the least
 * and greatest hops and latencies of what completed (their initial values when none did), and
 * its last event before the time reached. */
static int check_stats(const ckpt_file *in, uint64_t i, const kad_ckpt_peer *p,
                       int64_t reached, cn_error *err)
{
    const uint64_t *s = p->stats;
    uint64_t done = s[KS_COMPLETED], failed = s[KS_FAILED];
    if (p->started < 0 || p->started > (int64_t)0x100000000 ||
        s[KS_SKIPPED] > (uint64_t)p->started || done > (uint64_t)p->started - s[KS_SKIPPED] ||
        failed > (uint64_t)p->started - s[KS_SKIPPED] - done || s[KS_FOUND] > done)
        return ckpt_refuse(in, err, KT_PEERS, "peer %llu started %lld lookups, and counts %llu "
                           "completed (%llu of them found) and %llu failed",
                           (unsigned long long)i, (long long)p->started,
                           (unsigned long long)done, (unsigned long long)s[KS_FOUND],
                           (unsigned long long)failed);
    int none = done == 0 && (s[KS_HOPS_MIN] != UINT64_MAX || s[KS_LAT_MIN] != UINT64_MAX ||
                             s[KS_HOPS_SUM] || s[KS_HOPS_MAX] || s[KS_LAT_SUM] ||
                             s[KS_LAT_MAX]);
    int some = done > 0 && (s[KS_HOPS_MIN] < 1 || s[KS_HOPS_MIN] > s[KS_HOPS_MAX] ||
                            s[KS_HOPS_MAX] > 0xffffffffu || s[KS_LAT_MIN] > s[KS_LAT_MAX] ||
                            s[KS_LAT_MAX] >= (uint64_t)reached);
    if (none || some)
        return ckpt_refuse(in, err, KT_PEERS, "peer %llu completed %llu lookups, with hops from "
                           "%llu to %llu and latencies from %llu to %llu ns",
                           (unsigned long long)i, (unsigned long long)done,
                           (unsigned long long)s[KS_HOPS_MIN], (unsigned long long)s[KS_HOPS_MAX],
                           (unsigned long long)s[KS_LAT_MIN], (unsigned long long)s[KS_LAT_MAX]);
    if (s[KS_EVENTS] == 0 ? s[KS_LAST] != 0 : s[KS_LAST] >= (uint64_t)reached)
        return ckpt_refuse(in, err, KT_PEERS, "peer %llu ran %llu events, the last at %llu ns, "
                           "and the time reached is %lld ns", (unsigned long long)i,
                           (unsigned long long)s[KS_EVENTS], (unsigned long long)s[KS_LAST],
                           (long long)reached);
    return 0;
}

/* Every peer: its next start not before the time reached (it would have run) and at most a
 * gap past the duration, its numbers within 32 bits, its statistics; the records in all, and
 * the completed lookups in all into *COMPLETED. */
static int check_peers(const ckpt_file *in, const scenario *sc, const kad_ckpt_shape *s,
                       const uint8_t *peers, int64_t reached, uint64_t *completed,
                       cn_error *err)
{
    const kademlia_values *v = kademlia_values_of(sc);
    int64_t last_start = sc->duration_ns - 1 + v->gap_max_ns;
    uint64_t records = 0;
    *completed = 0;
    for (uint64_t i = 0; i < s->peers; i++) {
        kad_ckpt_peer p = peer_at(peers, i);
        if (p.next_start < reached || p.next_start > last_start)
            return ckpt_refuse(in, err, KT_PEERS, "peer %llu starts its next lookup at %lld "
                               "ns, outside the time reached %lld ns to %lld ns",
                               (unsigned long long)i, (long long)p.next_start,
                               (long long)reached, (long long)last_start);
        int rc = check_stats(in, i, &p, reached, err);
        if (rc)
            return rc;
        if (p.records > KAD_CKPT_MAX_RECORDS)
            return ckpt_refuse(in, err, KT_PEERS, "peer %llu holds %llu lookup records, more "
                               "than %u", (unsigned long long)i, (unsigned long long)p.records,
                               KAD_CKPT_MAX_RECORDS);
        records += p.records;
        *completed += p.stats[KS_COMPLETED];
    }
    if (records != s->records)
        return ckpt_refuse(in, err, KT_PEERS, "the peers hold %llu lookup records, and record "
                           "KSHP says %llu", (unsigned long long)records,
                           (unsigned long long)s->records);
    return 0;
}

/* The histograms: as many completed lookups in the hops' bins, and in the latencies', as the
 * peers count. */
static int check_hist(const ckpt_file *in, const uint8_t *hist, uint64_t completed,
                      cn_error *err)
{
    uint64_t sum[2] = {0, 0};
    for (int b = 0; b < KAD_CKPT_BINS; b++) {
        uint64_t c;
        memcpy(&c, hist + 8 * b, 8);
        uint64_t *to = &sum[b >= KAD_HOPS_BINS];
        if (c > UINT64_MAX - *to)
            return ckpt_refuse(in, err, KT_HIST, "bin %d holds %llu lookups, past 2^64 in all",
                               b, (unsigned long long)c);
        *to += c;
    }
    if (sum[0] != completed || sum[1] != completed)
        return ckpt_refuse(in, err, KT_HIST, "the bins hold %llu lookups by hops and %llu by "
                           "latency, and the peers completed %llu", (unsigned long long)sum[0],
                           (unsigned long long)sum[1], (unsigned long long)completed);
    return 0;
}

/* What one record's fields may hold. */
typedef struct record_limits {
    uint64_t peers, W, K, alpha, bits;
    int targets_peers;
    int64_t reached;
    int churn;              /* peers given up and requests timing out may be in it */
} record_limits;

/* Record R (LW words) of peer I, its Q-th: a lookup it started before the time reached, with
 * a target of the run's kind, a top of 1 .. K distinct peers each of depth >= 1, its requests
 * in flight to peers of the run after the time reached, and no word it does not use. *OPEN:
 * whether it is still open. Returns 0 or the refusal. */
static int check_record(const ckpt_file *in, const record_limits *lim, uint64_t i, uint64_t q,
                        const uint32_t *r, const kad_ckpt_peer *p, int *open, cn_error *err)
{
    uint32_t flags = r[LK_FLAGS], outcome = (flags & LKF_OUTCOME) >> 1;
    uint32_t f = (flags >> 8) & 0xffu, nt = (flags >> 16) & 0xffu;
#define BAD(...) ckpt_refuse(in, err, KT_LOOKUPS, "record %llu of peer %llu: " __VA_ARGS__)
#define IDS (unsigned long long)q, (unsigned long long)i
    if (!(flags & LKF_USED) || outcome > 2 || f > lim->alpha || nt < 1 || nt > lim->K ||
        (flags & ~(LKF_USED | LKF_OUTCOME | 0xffff00u)))
        return BAD("flags %#x (outcome %u, %u requests in flight, %u in its top) are not a "
                   "lookup's with alpha %llu and buckets of %llu", IDS, flags, outcome, f, nt,
                   (unsigned long long)lim->alpha, (unsigned long long)lim->K);
    int64_t start = time_at(r + LK_START);
    if ((int64_t)r[LK_N] >= p->started || start < 0 || start >= lim->reached)
        return BAD("lookup %u started at %lld ns, and the peer started %lld before the time "
                   "reached %lld ns", IDS, r[LK_N], (long long)start, (long long)p->started,
                   (long long)lim->reached);
    int bad_target = lim->targets_peers ? r[LK_TARGET] >= lim->peers || r[LK_TARGET] == i
                                        : r[LK_TARGET] != 0xffffffffu;
    uint32_t spare = (uint32_t)(32 * lim->W - lim->bits);
    if (bad_target || (spare && (r[LK_X + lim->W - 1] & ((1u << spare) - 1))))
        return BAD("target %u (id bits past %llu: %#x) is not one of this run", IDS,
                   r[LK_TARGET], (unsigned long long)lim->bits, r[LK_X + lim->W - 1]);
    for (uint64_t b = 0; b < lim->K; b++) {
        const uint32_t *m = r + LK_TOP(lim->W) + 2 * b;
        int dup = 0;
        for (uint64_t c = 0; c < b && b < nt; c++)
            dup |= r[LK_TOP(lim->W) + 2 * c] == m[0];
        uint32_t top_state = lim->churn ? TOP_GAVE_UP : TOP_ANSWERED;
        if (b < nt ? m[0] >= lim->peers || dup || (m[1] & 3u) > top_state || m[1] < 4
                   : m[0] || m[1])
            return BAD("member %llu of its top (peer %u, depth %u, state %u) is not one of its "
                       "%u", IDS, (unsigned long long)b, m[0], m[1] >> 2, m[1] & 3u, nt);
    }
    uint32_t flying = 0;
    for (uint64_t e = 0; e < lim->alpha; e++) {
        const uint32_t *w = r + LK_FLY(lim->W, lim->K) + LK_FLY_WORDS * e;
        uint32_t phase = w[4] & 3u;
        int64_t t = time_at(w);
        if (phase == FLY_FREE && (w[0] || w[1] || w[2] || w[3] || w[4]))
            return BAD("request %llu in flight is free and holds words (a record's unused "
                       "words are zero)", IDS, (unsigned long long)e);
        uint32_t last_phase = lim->churn ? FLY_TIMEOUT : FLY_RESPONSE;
        if (phase != FLY_FREE && (phase > last_phase || w[2] >= lim->peers || w[4] < 4 ||
                                  w[3] >= r[LK_M] || t < lim->reached || t >= TIME_LIMIT))
            return BAD("request %llu in flight (phase %u, to peer %u, number %u of %u, at %lld "
                       "ns) is not one after the time reached %lld ns", IDS,
                       (unsigned long long)e, phase, w[2], w[3], r[LK_M], (long long)t,
                       (long long)lim->reached);
        flying += phase != FLY_FREE;
    }
    /* open: its F requests are those in flight (none left: it failed); ended: kept while a
     * response it drops is on its way, of the F it had when it ended */
    if (outcome == 0 ? flying != f || f == 0 : flying == 0 || flying > f)
        return BAD("%u requests in flight where its flags count %u (outcome %u)", IDS, flying,
                   f, outcome);
#undef BAD
#undef IDS
    *open = outcome == 0;
    return 0;
}

/* Every record, peer after peer, each peer's by increasing number; with the peers' counts:
 * every lookup a peer started is completed, failed, or open in one of its records. */
static int check_records(const ckpt_file *in, const record_limits *lim, uint64_t lw,
                         const uint8_t *peers, const uint8_t *look, cn_error *err)
{
    uint64_t at = 0;
    for (uint64_t i = 0; i < lim->peers; i++) {
        kad_ckpt_peer p = peer_at(peers, i);
        uint64_t open = 0;
        for (uint64_t q = 0; q < p.records; q++, at++) {
            uint32_t r[LK_WORDS(5, KADEMLIA_MAX_K, KADEMLIA_MAX_K)] = {0};
            for (uint64_t k = 0; k < lw; k++)
                r[k] = word_at(look, at * lw + k);
            int is_open = 0;
            int rc = check_record(in, lim, i, q, r, &p, &is_open, err);
            if (rc)
                return rc;
            if (q > 0 && r[LK_N] <= word_at(look, (at - 1) * lw + LK_N))
                return ckpt_refuse(in, err, KT_LOOKUPS, "the records of peer %llu are not in "
                                   "increasing order of their numbers at record %llu",
                                   (unsigned long long)i, (unsigned long long)q);
            open += (uint64_t)is_open;
        }
        /* (starts while the peer was offline, with churn, never began) */
        uint64_t ended = p.stats[KS_COMPLETED] + p.stats[KS_FAILED] + p.stats[KS_SKIPPED];
        if (ended + open != (uint64_t)p.started)
            return ckpt_refuse(in, err, KT_LOOKUPS, "peer %llu started %lld lookups, and %llu "
                               "completed or failed with %llu open", (unsigned long long)i,
                               (long long)p.started, (unsigned long long)ended,
                               (unsigned long long)open);
    }
    return 0;
}

/* The rows (--lookups): one per lookup ended, by (origin, number), each of a lookup its
 * origin started, ended after it started and before the time reached; as many for each peer
 * as it completed and failed, and of those outcomes. */
static int check_rows(const ckpt_file *in, const record_limits *lim, uint64_t n_rows,
                      const uint8_t *peers, const uint8_t *rows, cn_error *err)
{
    uint64_t at = 0;
    for (uint64_t i = 0; i < lim->peers; i++) {
        kad_ckpt_peer p = peer_at(peers, i);
        uint64_t got[3] = {0, 0, 0};
        for (; at < n_rows && word_at(rows, at * ROW_WORDS) == i; at++) {
            uint32_t w[ROW_WORDS];
            for (int k = 0; k < ROW_WORDS; k++)
                w[k] = word_at(rows, at * ROW_WORDS + (uint64_t)k);
            uint32_t outcome = w[6] & 3u;
            int64_t start = time_at(w + 2), end = time_at(w + 4);
            int order = at > 0 && word_at(rows, (at - 1) * ROW_WORDS) == i &&
                        word_at(rows, (at - 1) * ROW_WORDS + 1) >= w[1];
            int shape = outcome == ROW_COMPLETED ? w[7] < 1 || (w[6] >> 2) > 1
                      : outcome == ROW_FAILED ? w[7] != 0xffffffffu || (w[6] >> 2) != 0 : 1;
            if (order || shape || (int64_t)w[1] >= p.started || start < 0 || end < start ||
                end >= lim->reached)
                return ckpt_refuse(in, err, KT_ROWS, "row %llu (lookup %u of peer %llu, outcome "
                                   "%u, from %lld to %lld ns, %u hops) is not one of a lookup "
                                   "it ended before the time reached %lld ns, in order",
                                   (unsigned long long)at, w[1], (unsigned long long)i,
                                   outcome, (long long)start, (long long)end, w[7],
                                   (long long)lim->reached);
            got[outcome]++;
        }
        if (got[ROW_COMPLETED] != p.stats[KS_COMPLETED] || got[ROW_FAILED] != p.stats[KS_FAILED])
            return ckpt_refuse(in, err, KT_ROWS, "peer %llu has %llu rows completed and %llu "
                               "failed, and counts %llu and %llu", (unsigned long long)i,
                               (unsigned long long)got[ROW_COMPLETED],
                               (unsigned long long)got[ROW_FAILED],
                               (unsigned long long)p.stats[KS_COMPLETED],
                               (unsigned long long)p.stats[KS_FAILED]);
    }
    if (at != n_rows)
        return ckpt_refuse(in, err, KT_ROWS, "row %llu names peer %u, of %llu peers (or is out "
                           "of order)", (unsigned long long)at, word_at(rows, at * ROW_WORDS),
                           (unsigned long long)lim->peers);
    return 0;
}

int kad_checkpoint_check(const ckpt_file *in, const scenario *sc, cn_error *err)
{
    const kademlia_values *v = kademlia_values_of(sc);
    if (v->peers < 2 || v->peers > KADEMLIA_MAX_PEERS || v->id_bits < 32 ||
        v->id_bits > KADEMLIA_MAX_BITS || v->bucket_size < 1 ||
        v->bucket_size > KADEMLIA_MAX_K || v->alpha < 1 || v->alpha > v->bucket_size ||
        v->latency_min_ns <= 0 || v->gap_max_ns <= 0 || sc->duration_ns <= 0)
        return cn_fail(err, CN_ERR_INPUT, "cannot resume from '%s': its scenario is not a "
                       "kademlia run (peers, id_bits, bucket_size, alpha, latency_min, "
                       "lookup_gap_max and duration)", in->path);
    if (!ckpt_has(in, KT_SHAPE))
        return ckpt_mismatch(in, err, "it holds no state of the kademlia model");
    kad_ckpt_shape s;
    ckpt_progress pg = {0, 0, 0};
    int rc = ckpt_get(in, KT_SHAPE, &s, sizeof s, err);
    if (!rc)
        rc = ckpt_get_progress_events(in, &pg, err);
    if (!rc)
        rc = check_shape(in, sc, &s, &pg, err);
    if (rc)
        return rc;
    /* the shape fits the scenario: no product below overflows */
    const void *peers = NULL, *hist = NULL, *look = NULL, *rows = NULL;
    uint64_t completed = 0;
    rc = ckpt_find_exact(in, KT_PEERS, s.peers * sizeof(kad_ckpt_peer), "the peers", &peers,
                         err);
    if (!rc)
        rc = check_peers(in, sc, &s, peers, pg.reached, &completed, err);
    if (!rc)
        rc = ckpt_find_exact(in, KT_HIST, 8 * KAD_CKPT_BINS, "the histograms", &hist, err);
    if (!rc)
        rc = check_hist(in, hist, completed, err);
    if (!rc)
        rc = ckpt_find_exact(in, KT_LOOKUPS, 4 * s.records * s.record_words,
                             "the lookup records", &look, err);
    record_limits lim = {s.peers, (s.id_bits + 31) / 32, s.bucket_size, s.alpha, s.id_bits,
                         v->targets == KAD_TARGETS_PEERS, pg.reached, v->session_ns > 0};
    if (!rc)
        rc = check_records(in, &lim, s.record_words, peers, look, err);
    if (!rc && s.rows > UINT64_MAX / (4 * ROW_WORDS))
        rc = ckpt_refuse(in, err, KT_SHAPE, "%llu rows of lookups, past what a file holds",
                         (unsigned long long)s.rows);
    if (!rc && sc->record_packets)
        rc = ckpt_find_exact(in, KT_ROWS, 4ull * ROW_WORDS * s.rows, "the lookups' rows", &rows,
                             err);
    if (!rc && sc->record_packets)
        rc = check_rows(in, &lim, s.rows, peers, rows, err);
    return rc;
}
