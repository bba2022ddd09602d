/* PHOLD checkpoints (engine/checkpoint.h, docs/when-things-go-wrong.md, "Checkpoints and
 * resuming").
 *
 * At a window boundary PHOLD's whole state is per LP: its pending events and its statistics.
 * Nothing is in flight (the outbox, overflow and export areas are empty once a window has
 * ended), so the checkpoint depends on no device, partition count or slot layout, and the same
 * state always gives the same bytes: each LP's events are written in key order (t, origin,
 * serial), whatever slots held them. The device-side cache of each LP's least time (STAT_MIN
 * below the mark STAT_BASE) is left out: a restore sets the mark to 0, so that the minimum
 * kernel scans every slot again.
 *
 * Records (besides the engine's ENXT, EWIN and ETIM):
 *   PSHP  uint64[3]: lps, population, windows run
 *   PCNT  uint32[lps]: pending events of each LP
 *   PEVT  16 bytes per pending event, LP after LP, each LP's in key order: int64 time (ns),
 *         uint32 origin, uint32 serial
 *   PSTA  uint64[PHOLD_CKPT_STATS][lps]: each LP's executed events, remote events, time sum,
 *         weighted sum and last time (stats rows STAT_EVENTS .. STAT_LAST), row after row */
#include <stdlib.h>
#include <string.h>

#include "cl/phold/phold_layout.clh"
#include "dist/dist.h"
#include "models/phold/phold.h"
#include "models/phold/phold_model.h"

#define T_SHAPE CKPT_TAG('P', 'S', 'H', 'P')
#define T_COUNTS CKPT_TAG('P', 'C', 'N', 'T')
#define T_EVENTS CKPT_TAG('P', 'E', 'V', 'T')
#define T_STATS CKPT_TAG('P', 'S', 'T', 'A')

/* The statistics rows a checkpoint holds: every row before the least-time cache. */
#define PHOLD_CKPT_STATS (STAT_LAST + 1)
_Static_assert(STAT_MIN == PHOLD_CKPT_STATS && STAT_BASE == PHOLD_CKPT_STATS + 1 &&
                   STAT_WORDS == PHOLD_CKPT_STATS + 2,
               "the least-time cache follows the saved statistics rows");

/* Times a run can hold: config.h keeps every PHOLD time below SCENARIO_MAX_TIME_NS. */
#define TIME_LIMIT ((int64_t)1 << 62)

typedef struct ckpt_event {
    int64_t t;
    uint32_t origin, serial;
} ckpt_event;
_Static_assert(sizeof(ckpt_event) == 16, "an event is 16 bytes in the file");

typedef struct ckpt_shape {
    uint64_t lps, population, windows;
} ckpt_shape;

static uint32_t part_lps(const phold_model *pm, uint32_t p, uint32_t *first)
{
    *first = p * pm->part_lps;
    return pm->N - *first < pm->part_lps ? pm->N - *first : pm->part_lps;
}

/* The key order of docs/models/phold.md: (t, origin, serial). */
static int key_cmp(const ckpt_event *a, const ckpt_event *b)
{
    if (a->t != b->t)
        return a->t < b->t ? -1 : 1;
    if (a->origin != b->origin)
        return a->origin < b->origin ? -1 : 1;
    return a->serial < b->serial ? -1 : a->serial > b->serial;
}

static int key_qsort(const void *a, const void *b)
{
    return key_cmp(a, b);
}

/* Every PHOLD run can be saved. */
int phold_can_checkpoint(const struct model_state *m, cn_error *err)
{
    (void)m;
    (void)err;
    return 0;
}

/* ---- save -------------------------------------------------------------------------------- */

/* Rank RANK's LPs, [LO, LO + N): where its partitions begin and end now (the coordinator
 * moves them), in LPs. */
typedef struct lp_range {
    uint32_t lo, n;
} lp_range;

static lp_range rank_lps(const phold_model *pm, int rank)
{
    uint64_t p0 = pm->rank_first[rank], p1 = pm->rank_first[rank + 1];
    uint64_t lo = p0 * pm->part_lps, hi = p1 * pm->part_lps;
    lo = lo < pm->N ? lo : pm->N;
    hi = hi < pm->N ? hi : pm->N;
    return (lp_range){(uint32_t)lo, (uint32_t)(hi - lo)};
}

/* Partition P's LPs from the device holding it (the counts of this rank's LPs, R, read into
 * CNT already; entry I - R.lo is LP I's): statistics into STATS (row s at s * R.n), and their
 * events into EV, LP I's at EV + AT[I - R.lo], in key order. */
static int save_partition(phold_model *pm, uint32_t p, lp_range r, const uint32_t *cnt,
                          uint64_t *stats, const uint64_t *at, ckpt_event *ev, cn_error *err)
{
    phold_device *d = &pm->dev[pm->home[p]];
    uint32_t first, n = part_lps(pm, p, &first), k = first - r.lo;
    int rc = 0;
    for (int s = 0; s < PHOLD_CKPT_STATS && rc == 0; s++)
        rc = dbuf_read(d->dev, &d->stats, 8 * phold_stat_at(pm, p, (uint32_t)s), 8 * (size_t)n,
                       stats + (size_t)s * r.n + k, 1, err);
    if (rc)
        return rc;
    uint32_t rows = 0; /* the rows of P's block some LP of P uses */
    for (uint32_t i = k; i < k + n; i++)
        rows = cnt[i] > rows ? cnt[i] : rows;
    if (rows > d->slots_per_lp)
        return cn_fail(err, CN_ERR_RUNTIME, "internal error: a phold LP counts %u events in %u "
                       "slots at a window boundary", rows, d->slots_per_lp);
    int64_t *t = malloc(8 * (size_t)(n ? n : 1));
    uint32_t *os = malloc(8 * (size_t)(n ? n : 1));
    if (!t || !os)
        rc = cn_fail(err, CN_ERR_RUNTIME, "out of host memory for a checkpoint");
    for (uint32_t q = 0; q < rows && rc == 0; q++) {
        size_t off = 8 * phold_slot_at(pm, p, q);
        rc = dbuf_read(d->dev, &d->slot_t, off, 8 * (size_t)n, t, 0, err);
        if (!rc)
            rc = dbuf_read(d->dev, &d->slot_os, off, 8 * (size_t)n, os, 1, err);
        for (uint32_t g = 0; g < n && rc == 0; g++)
            if (q < cnt[k + g])
                ev[at[k + g] + q] = (ckpt_event){t[g], os[2 * g], os[2 * g + 1]};
    }
    free(t);
    free(os);
    for (uint32_t i = k; i < k + n && rc == 0; i++)
        qsort(ev + at[i], cnt[i], sizeof *ev, key_qsort);
    return rc;
}

/* This rank's LPs R saved: their counts CNT, statistics STATS (rows of R.n) and events EV
 * (*N_EV), or an error. */
static int save_local(phold_model *pm, lp_range r, uint32_t **cnt, uint64_t **stats,
                      ckpt_event **ev, uint64_t *n_ev, cn_error *err)
{
    size_t n = r.n ? r.n : 1;
    /* zeroed: the partitions cover every LP of the range, which the analysers cannot tell */
    *cnt = calloc(n, 4);
    *stats = calloc((size_t)PHOLD_CKPT_STATS * n, 8);
    uint64_t *at = calloc(n + 1, 8);
    *ev = NULL;
    *n_ev = 0;
    int rc = *cnt && *stats && at ? 0 : cn_fail(err, CN_ERR_RUNTIME, "out of host memory for "
                                                "a checkpoint");
    /* the counts first: they place each LP's events */
    for (uint32_t p = pm->p_lo; p < pm->p_hi && rc == 0; p++) {
        phold_device *d = &pm->dev[pm->home[p]];
        uint32_t first, k = part_lps(pm, p, &first);
        rc = dbuf_read(d->dev, &d->cnt, 4 * phold_lp_at(pm, p), 4 * (size_t)k,
                       *cnt + (first - r.lo), 1, err);
    }
    uint64_t sum = 0;
    for (uint32_t i = 0; i < r.n && rc == 0; i++) {
        at[i] = sum;
        sum += (*cnt)[i];
    }
    /* (the ranks' LPs share the population: rank 0 checks the sum of all) */
    if (!rc && sum > (uint64_t)pm->N * pm->E)
        rc = cn_fail(err, CN_ERR_RUNTIME, "internal error: %u phold LPs hold %llu pending "
                     "events, more than lps x population", r.n, (unsigned long long)sum);
    if (!rc && !(*ev = calloc(sum ? sum : 1, sizeof **ev)))
        rc = cn_fail(err, CN_ERR_RUNTIME, "out of host memory for a checkpoint");
    for (uint32_t p = pm->p_lo; p < pm->p_hi && rc == 0; p++)
        rc = save_partition(pm, p, r, *cnt, *stats, at, *ev, err);
    free(at);
    *n_ev = sum;
    return rc;
}

/* Several ranks: every rank's LPs on rank 0, in LP order (the ranks hold consecutive
 * ranges): counts, events, and the statistics rows put together from each rank's rows. */
static int gather_ranks(phold_model *pm, lp_range r, uint32_t **cnt, uint64_t **stats,
                        ckpt_event **ev, uint64_t *n_ev, cn_error *err)
{
    void *all_cnt = NULL, *all_ev = NULL, *all_stats = NULL;
    uint64_t got = 0, got_ev = 0, got_st = 0;
    int rc = dist_gatherv(*cnt, r.n, 4, &all_cnt, &got, err);
    if (!rc)
        rc = dist_gatherv(*ev, *n_ev, sizeof **ev, &all_ev, &got_ev, err);
    if (!rc)
        rc = dist_gatherv(*stats, (uint64_t)PHOLD_CKPT_STATS * r.n, 8, &all_stats, &got_st, err);
    free(*cnt);
    free(*stats);
    free(*ev);
    *cnt = all_cnt;
    *ev = all_ev;
    *n_ev = got_ev;
    *stats = NULL;
    if (rc || dist_rank() != 0) {
        free(all_stats);
        return rc;
    }
    /* rank k's block is its rows of its LPs: row s of LP i goes to s * N + i */
    uint64_t *rows = malloc(8 * (size_t)PHOLD_CKPT_STATS * pm->N);
    if (!rows) {
        free(all_stats);
        return cn_fail(err, CN_ERR_RUNTIME, "out of host memory for a checkpoint");
    }
    const uint64_t *src = all_stats;
    for (int k = 0; k < dist_size(); k++) {
        lp_range q = rank_lps(pm, k);
        for (int s = 0; s < PHOLD_CKPT_STATS; s++, src += q.n)
            memcpy(rows + (size_t)s * pm->N + q.lo, src, 8 * (size_t)q.n);
    }
    free(all_stats);
    *stats = rows;
    return 0;
}

int phold_save(struct model_state *m, int64_t next, ckpt_buf *out, cn_error *err)
{
    phold_model *pm = phold_of(m);
    (void)next;
    uint64_t total = (uint64_t)pm->N * pm->E; /* PHOLD's population never changes */
    lp_range r = rank_lps(pm, dist_rank());
    uint32_t *cnt = NULL;
    uint64_t *stats = NULL, n_ev = 0;
    ckpt_event *ev = NULL;
    int rc = save_local(pm, r, &cnt, &stats, &ev, &n_ev, err);
    /* several ranks: each saved its own LPs; rank 0 puts them together (a rank that failed
     * stops them all first, with its sentence) */
    if (dist_size() > 1 && (rc = dist_agree(rc, err)) == 0)
        rc = gather_ranks(pm, r, &cnt, &stats, &ev, &n_ev, err);
    if (!rc && dist_rank() == 0 && n_ev != total)
        rc = cn_fail(err, CN_ERR_RUNTIME, "internal error: the phold LPs hold %llu pending "
                     "events, not lps x population = %llu", (unsigned long long)n_ev,
                     (unsigned long long)total);
    if (!rc && dist_rank() == 0) {
        ckpt_shape shape = {pm->N, pm->E, (uint64_t)pm->windows};
        ckpt_put(out, T_SHAPE, &shape, sizeof shape);
        ckpt_put(out, T_COUNTS, cnt, 4 * (size_t)pm->N);
        ckpt_put(out, T_EVENTS, ev, sizeof *ev * (size_t)total);
        ckpt_put(out, T_STATS, stats, 8 * PHOLD_CKPT_STATS * (size_t)pm->N);
    }
    free(cnt);
    free(stats);
    free(ev);
    return rc;
}

/* ---- check ------------------------------------------------------------------------------- */

static uint64_t stat_of(const uint8_t *stats, uint64_t N, int s, uint64_t i)
{
    uint64_t v;
    memcpy(&v, stats + 8 * ((uint64_t)s * N + i), 8);
    return v;
}

/* The windows, the time reached and the shape against the scenario. */
static int check_progress(const ckpt_file *in, const scenario *sc, const ckpt_shape *s,
                          const ckpt_progress *pg, cn_error *err)
{
    const phold_values *ph = phold_values_of(sc);
    int64_t T = sc->duration_ns, A = ph->lookahead_ns;
    if (s->lps != (uint64_t)ph->lps || s->population != (uint64_t)ph->population)
        return ckpt_refuse(in, err, T_SHAPE, "%llu LPs of population %llu, and the scenario has "
                           "%lld of population %lld", (unsigned long long)s->lps,
                           (unsigned long long)s->population, (long long)ph->lps,
                           (long long)ph->population);
    /* the engine's steps (EWIN) may each have run several windows (phold.windows_per_read),
     * which its window numbers (ENXT) count */
    if (s->windows != (uint64_t)pg->next || pg->done > pg->next)
        return ckpt_refuse(in, err, T_SHAPE, "%llu windows run, and records EWIN and ENXT say "
                           "%lld steps run and %lld windows", (unsigned long long)s->windows,
                           (long long)pg->done, (long long)pg->next);
    /* window k begins at least (k + 1) x lookahead in (the first events come a lookahead
     * after 0, each window's a lookahead after the last one's begin), and runs only before
     * the duration */
    if (pg->next > (T - 1) / A)
        return ckpt_refuse(in, err, CKPT_NEXT, "next window %lld is beyond the %lld windows "
                           "that a duration of %lld ns with a lookahead of %lld ns holds",
                           (long long)pg->next, (long long)((T - 1) / A), (long long)T,
                           (long long)A);
    /* a run that reached its duration has ended and writes no checkpoint */
    if (pg->reached >= T)
        return ckpt_refuse(in, err, CKPT_REACHED, "time reached %lld ns is not before the "
                           "scenario's duration %lld ns", (long long)pg->reached, (long long)T);
    return 0;
}

/* Each LP's count, and their total: PHOLD keeps lps x population events pending (each event
 * executed makes exactly one). */
static int check_counts(const ckpt_file *in, uint64_t N, uint64_t total, const uint8_t *cnt,
                        cn_error *err)
{
    uint64_t sum = 0;
    for (uint64_t i = 0; i < N; i++) {
        uint32_t c;
        memcpy(&c, cnt + 4 * i, 4);
        if (c > total)
            return ckpt_refuse(in, err, T_COUNTS, "LP %llu holds %u events, more than the %llu "
                               "of the whole run", (unsigned long long)i, c,
                               (unsigned long long)total);
        sum += c;
    }
    if (sum != total)
        return ckpt_refuse(in, err, T_COUNTS, "the LPs hold %llu pending events, and PHOLD "
                           "keeps lps x population = %llu", (unsigned long long)sum,
                           (unsigned long long)total);
    return 0;
}

/* Each LP's statistics: no more remote events than events, serials that fit 32 bits, and its
 * last time before the time reached (0 when it executed nothing). */
static int check_stats(const ckpt_file *in, uint64_t N, uint64_t E, const uint8_t *st,
                       int64_t reached, cn_error *err)
{
    for (uint64_t i = 0; i < N; i++) {
        uint64_t k = stat_of(st, N, STAT_EVENTS, i), r = stat_of(st, N, STAT_REMOTE, i);
        uint64_t last = stat_of(st, N, STAT_LAST, i);
        if (r > k || k > 0xffffffffULL - E)
            return ckpt_refuse(in, err, T_STATS, "LP %llu executed %llu events, %llu of them "
                               "remote, with a population of %llu (serials are 32-bit)",
                               (unsigned long long)i, (unsigned long long)k,
                               (unsigned long long)r, (unsigned long long)E);
        if (k == 0 ? last != 0 : last >= (uint64_t)reached)
            return ckpt_refuse(in, err, T_STATS, "LP %llu executed %llu events, the last at %llu "
                               "ns, and the time reached is %lld ns", (unsigned long long)i,
                               (unsigned long long)k, (unsigned long long)last,
                               (long long)reached);
    }
    return 0;
}

/* Every pending event: its time within the clock and not before the time reached (events
 * before it have run), an origin among the LPs, a serial that its origin has made (its start
 * events hold 0 .. E - 1 and never leave it, its K-th executed event makes E + K), and each
 * LP's in strictly increasing key order. */
static int check_events(const ckpt_file *in, uint64_t N, uint64_t E, const uint8_t *cnt,
                        const uint8_t *st, const uint8_t *evb, int64_t reached, cn_error *err)
{
    uint64_t j = 0;
    ckpt_event prev = {0, 0, 0};
    for (uint64_t i = 0; i < N; i++) {
        uint32_t c;
        memcpy(&c, cnt + 4 * i, 4);
        for (uint32_t q = 0; q < c; q++, j++) {
            ckpt_event e;
            memcpy(&e, evb + 16 * j, 16);
            if (e.t < 0 || e.t >= TIME_LIMIT)
                return ckpt_refuse(in, err, T_EVENTS, "event %u of LP %llu is at %lld ns, "
                                   "outside 0 to 2^62 ns", q, (unsigned long long)i,
                                   (long long)e.t);
            if (e.t < reached)
                return ckpt_refuse(in, err, T_EVENTS, "event %u of LP %llu is at %lld ns, "
                                   "before the time reached %lld ns (it would have run)", q,
                                   (unsigned long long)i, (long long)e.t, (long long)reached);
            if (e.origin >= N)
                return ckpt_refuse(in, err, T_EVENTS, "event %u of LP %llu comes from LP %u, "
                                   "of %llu LPs", q, (unsigned long long)i, e.origin,
                                   (unsigned long long)N);
            uint64_t made = E + stat_of(st, N, STAT_EVENTS, e.origin);
            if (e.serial >= made || (e.serial < E && e.origin != i))
                return ckpt_refuse(in, err, T_EVENTS, "event %u of LP %llu has serial %u from "
                                   "LP %u, which has made serials below %llu only (its start "
                                   "events, below %llu, stay on it)", q, (unsigned long long)i,
                                   e.serial, e.origin, (unsigned long long)made,
                                   (unsigned long long)E);
            if (q > 0 && key_cmp(&prev, &e) >= 0)
                return ckpt_refuse(in, err, T_EVENTS, "the events of LP %llu are not in "
                                   "increasing key order (time, origin, serial) at event %u",
                                   (unsigned long long)i, q);
            prev = e;
        }
    }
    return 0;
}

int phold_checkpoint_check(const ckpt_file *in, const scenario *sc, cn_error *err)
{
    const phold_values *ph = phold_values_of(sc);
    if (ph->lps < 1 || ph->lps > PHOLD_MAX_LPS || ph->population < 1 ||
        ph->population > PHOLD_MAX_POPULATION || ph->lookahead_ns <= 0 || sc->duration_ns <= 0)
        return cn_fail(err, CN_ERR_INPUT, "cannot resume from '%s': its scenario is not a phold "
                       "run (lps, population, lookahead and duration)", in->path);
    if (!ckpt_has(in, T_SHAPE))
        return ckpt_mismatch(in, err, "it holds no state of the phold model");
    ckpt_shape s;
    ckpt_progress pg = {0, 0, 0};
    int rc = ckpt_get(in, T_SHAPE, &s, sizeof s, err);
    if (!rc)
        rc = ckpt_get_progress_events(in, &pg, err);
    if (!rc)
        rc = check_progress(in, sc, &s, &pg, err);
    if (rc)
        return rc;
    uint64_t N = s.lps, E = s.population, total = N * E; /* both checked: no overflow */
    const void *cnt = NULL, *st = NULL, *ev = NULL;
    rc = ckpt_find_exact(in, T_COUNTS, 4 * N, "the LPs' event counts", &cnt, err);
    if (!rc)
        rc = check_counts(in, N, total, cnt, err);
    if (!rc)
        rc = ckpt_find_exact(in, T_STATS, 8 * PHOLD_CKPT_STATS * N, "the LPs' statistics", &st,
                             err);
    if (!rc)
        rc = check_stats(in, N, E, st, pg.reached, err);
    if (!rc)
        rc = ckpt_find_exact(in, T_EVENTS, 16 * total, "the pending events", &ev, err);
    if (!rc)
        rc = check_events(in, N, E, cnt, st, ev, pg.reached, err);
    return rc;
}

/* ---- restore ----------------------------------------------------------------------------- */

/* The slots per LP device D needs for the partitions it holds: its own, or when the fullest of
 * its LPs holds more, that LP's count and half as many again (as a window's overflow grows
 * them: every LP pays for the rows). */
static uint32_t slots_needed(const phold_model *pm, const phold_device *d, const uint32_t *cnt)
{
    uint32_t most = 0;
    for (uint32_t p = pm->p_lo; p < pm->p_hi; p++) {
        if (&pm->dev[pm->home[p]] != d)
            continue;
        uint32_t first, n = part_lps(pm, p, &first);
        for (uint32_t i = first; i < first + n; i++)
            most = cnt[i] > most ? cnt[i] : most;
    }
    uint64_t c = d->slots_per_lp;
    if (c < most)
        c = (uint64_t)most + most / 2 + 1;
    return c > 0x7fffffffu ? 0x7fffffffu : (uint32_t)c;
}

/* Partition P's LPs onto the device holding it, with an empty least-time cache. */
static int restore_partition(phold_model *pm, uint32_t p, const uint32_t *cnt,
                             const uint64_t *stats, const uint64_t *at, const ckpt_event *ev,
                             cn_error *err)
{
    phold_device *d = &pm->dev[pm->home[p]];
    uint32_t first, n = part_lps(pm, p, &first), rows = 0;
    for (uint32_t i = first; i < first + n; i++)
        rows = cnt[i] > rows ? cnt[i] : rows;
    int64_t *t = malloc(8 * (size_t)(n ? n : 1));
    uint32_t *os = malloc(8 * (size_t)(n ? n : 1));
    int rc = t && os ? 0 : cn_fail(err, CN_ERR_RUNTIME, "out of host memory for a checkpoint");
    for (uint32_t q = 0; q < rows && rc == 0; q++) {
        for (uint32_t g = 0; g < n; g++) {
            const ckpt_event *e = q < cnt[first + g] ? &ev[at[first + g] + q] : NULL;
            t[g] = e ? e->t : 0;
            os[2 * g] = e ? e->origin : 0;
            os[2 * g + 1] = e ? e->serial : 0;
        }
        size_t off = 8 * phold_slot_at(pm, p, q);
        rc = dbuf_write(d->dev, &d->slot_t, off, 8 * (size_t)n, t, 1, err);
        if (!rc)
            rc = dbuf_write(d->dev, &d->slot_os, off, 8 * (size_t)n, os, 1, err);
    }
    if (!rc)
        rc = dbuf_write(d->dev, &d->cnt, 4 * phold_lp_at(pm, p), 4 * (size_t)n, cnt + first, 1,
                        err);
    for (int s = 0; s < PHOLD_CKPT_STATS && rc == 0; s++)
        rc = dbuf_write(d->dev, &d->stats, 8 * phold_stat_at(pm, p, (uint32_t)s), 8 * (size_t)n,
                        stats + (size_t)s * pm->N + first, 1, err);
    /* STAT_MIN, STAT_BASE: no least time kept below a mark of 0, so phold_min scans all */
    for (uint32_t g = 0; g < n && rc == 0; g++)
        t[g] = PHOLD_NO_EVENT;
    if (!rc)
        rc = dbuf_write(d->dev, &d->stats, 8 * phold_stat_at(pm, p, STAT_MIN), 8 * (size_t)n, t,
                        1, err);
    if (!rc)
        rc = dbuf_zero(d->dev, &d->stats, 8 * phold_stat_at(pm, p, STAT_BASE), 8 * (size_t)n,
                       err);
    free(t);
    free(os);
    return rc;
}

int phold_restore(struct model_state *m, int64_t next, const ckpt_file *in, cn_error *err)
{
    phold_model *pm = phold_of(m);
    (void)next;
    /* the engine has checked the file whole (phold_checkpoint_check) against this scenario:
     * the lengths are read again, the contents trusted */
    ckpt_shape s;
    const void *cp = NULL, *sp = NULL, *ep = NULL;
    uint64_t total = (uint64_t)pm->N * pm->E;
    int rc = ckpt_get(in, T_SHAPE, &s, sizeof s, err);
    if (!rc && (s.lps != pm->N || s.population != pm->E))
        rc = ckpt_mismatch(in, err, "a phold run of other lps or population");
    if (!rc)
        rc = ckpt_find_exact(in, T_COUNTS, 4 * (uint64_t)pm->N, "the LPs' event counts", &cp, err);
    if (!rc)
        rc = ckpt_find_exact(in, T_STATS, 8 * PHOLD_CKPT_STATS * (uint64_t)pm->N,
                             "the LPs' statistics", &sp, err);
    if (!rc)
        rc = ckpt_find_exact(in, T_EVENTS, 16 * total, "the pending events", &ep, err);
    if (rc)
        return rc;
    /* copies: the records need not be aligned for their types */
    uint32_t *cnt = malloc(4 * (size_t)pm->N);
    uint64_t *stats = malloc(8 * PHOLD_CKPT_STATS * (size_t)pm->N);
    uint64_t *at = calloc((size_t)pm->N + 1, 8);
    ckpt_event *ev = calloc(total ? total : 1, sizeof *ev); /* zeroed for the analysers */
    rc = cnt && stats && at && ev ? 0
                                  : cn_fail(err, CN_ERR_RUNTIME, "out of host memory for a "
                                            "checkpoint");
    if (!rc) {
        memcpy(cnt, cp, 4 * (size_t)pm->N);
        memcpy(stats, sp, 8 * PHOLD_CKPT_STATS * (size_t)pm->N);
        memcpy(ev, ep, sizeof *ev * (size_t)total);
        uint64_t sum = 0;
        for (uint32_t i = 0; i < pm->N; i++) {
            at[i] = sum;
            sum += cnt[i];
        }
    }
    /* an LP may hold more events than this run's slots start with */
    for (int d = 0; d < pm->n_devs && rc == 0; d++) {
        uint32_t c = slots_needed(pm, &pm->dev[d], cnt);
        if (c != pm->dev[d].slots_per_lp)
            rc = phold_grow_slots(pm, &pm->dev[d], c, err);
    }
    if (!rc && pm->acc.peak > pm->peak_bytes)
        pm->peak_bytes = pm->acc.peak;
    for (uint32_t p = pm->p_lo; p < pm->p_hi && rc == 0; p++) /* this rank's */
        rc = restore_partition(pm, p, cnt, stats, at, ev, err);
    free(cnt);
    free(stats);
    free(at);
    free(ev);
    if (rc)
        return rc;
    pm->windows = (int64_t)s.windows;
    /* the least pending times: the next window's begin (model_ops.next_begin) */
    return phold_find_minimum(pm, err);
}
