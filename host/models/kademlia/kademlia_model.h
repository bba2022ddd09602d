/* Private to host/models/kademlia: the model's state and the pieces its files share. */
#ifndef CLNETSIM_KADEMLIA_MODEL_H
#define CLNETSIM_KADEMLIA_MODEL_H
#include <stdint.h>

#include "cl/kademlia/kademlia_layout.clh"
#include "engine/dbuf.h"
#include "engine/engine.h"

/* Windows per launch chosen by the run: where it starts (a good value on every device
 * measured, docs/benchmarks.md) and the most it takes. */
#define KAD_BATCH_START 1000
#define KAD_BATCH_MAX 1000000

enum kad_kernel {
    KK_COUNT_K, KK_FILL, KK_START, KK_WINDOW, KK_WINDOW_MIN, KK_MIN, KK_OPEN_ROWS, KK_N
};

/* What one device holds: every peer's id and routing table (they never change: a request is
 * answered where its lookup runs), and a block of part_peers (P) peers for each partition it
 * runs. Partition p lives in block b = block[p] of its home: peer first(p) + g has its state
 * word s at pstate[(b * PS_WORDS + s) * P + g], its statistic s at stats[(b * KS_WORDS + s) *
 * P + g], its lookup record r (of S) at look[((b * S + r) * P + g) * LW] (uint words, LW of
 * them: kademlia_layout.clh), and the block's histograms at hist[b * KAD_HIST_WORDS]. */
typedef struct kad_device {
    device_ctx *dev;
    cl_program prog;
    cl_kernel k[KK_N];
    size_t local[KK_N];
    dbuf ids;               /* uint[N * W]: peer j's id at j * W, left-aligned */
    dbuf toff, lbase;       /* ulong[N + 1]: each peer's contacts, its bucket starts */
    dbuf lpos;              /* ushort[lbase[N]]: bucket q of peer j starts at contacts[toff[j] +
                             * lpos[lbase[j] + q]] (the last entry: its table's size) */
    dbuf contacts;          /* uint[toff[N]] */
    dbuf bounds, boff;      /* churn: kad_model.bounds and boff (one word each without) */
    dbuf pstate;            /* long[blocks * PS_WORDS * P] */
    dbuf look;              /* uint[blocks * S * P * LW] */
    dbuf stats;             /* ulong[blocks * KS_WORDS * P] */
    dbuf hist;              /* uint[blocks * KAD_HIST_WORDS] */
    dbuf group_min;         /* long[2 * groups of its blocks] */
    dbuf ctl;               /* uint[CTL_WORDS] */
    dbuf rows;              /* uint[row_cap * ROW_WORDS], with --lookups */
    uint32_t n_blocks;
    uint32_t slots;         /* S: lookup records per peer */
    uint32_t row_cap;
    uint64_t held;          /* peers of the partitions it holds */
    uint32_t words[CTL_WORDS]; /* its control words as last read */
    int ran;                /* it ran a set this window */
    karg_cache window_args; /* kad_window's arguments as last set (forgotten when a buffer
                             * is replaced) */
    karg_cache min_args;    /* kad_min's */
} kad_device;

typedef struct kad_model {
    scenario sc;
    uint32_t N, B, W, K, alpha, lw;
    int targets_peers;
    int64_t lmin, lmax, gap_max, T;
    int64_t batch;          /* windows of lmin per launch (1 with --lookups) */
    int batch_auto;         /* the run chooses it (engine/granularity.h) */
    int n_devs;
    kad_device dev[ENGINE_MAX_DEVICES];
    uint32_t n_parts, part_peers;
    /* Over several MPI ranks each holds the contiguous range [p_lo, p_hi) of the partitions
     * (dist_range_rank); nothing crosses ranks (every device holds every table), so a rank
     * runs its partitions alone and the engine agrees on the next window's begin. */
    uint32_t p_lo, p_hi;
    int *home;              /* [n_parts]: index into dev[], -1: another rank's */
    uint32_t *block;        /* [n_parts]: its block on its home */
    uint32_t *group_base;   /* [n_parts + 1]: first reduction group of each partition */
    uint32_t block_groups;  /* reduction groups of a block */
    size_t reduce_local;
    int64_t *part_min;      /* [n_parts]: least pending time after each window */
    int64_t *group_min_host; /* [2 * groups] */
    uint32_t *ids;          /* [N * W]: the ids, for the rows' targets */
    uint64_t table_entries; /* contacts of every table together */
    /* churn (docs/models/kademlia.md, "Churn"; 0: none): the mean periods and the timeout,
     * in ns, and every peer's boundaries b_1, b_2, ... (to the first past T): peer j's at
     * bounds[boff[j] .. boff[j + 1]) */
    int64_t session, offline, rto;
    int64_t *bounds;
    uint64_t *boff;
    int64_t next_begin, tend, windows;
    int regrew;             /* this window grew a device's records and ran again there */
    uint64_t executed;
    dbuf_account acc;
    uint64_t peak_bytes;
    double wait_s;
    int rows_on;            /* --lookups */
    /* a window's minimum in its launch (kad_window_min) rather than in kad_min after it */
    int fused;
    record_table rows;      /* the rows read back so far (a row's target added by the host) */
} kad_model;

static inline kad_model *kad_of(struct model_state *m) { return (kad_model *)(void *)m; }
static inline const kad_model *kad_of_c(const struct model_state *m)
{
    return (const kad_model *)(const void *)m;
}

static inline uint32_t kad_part_first(const kad_model *km, uint32_t p)
{
    return p * km->part_peers;
}
static inline uint32_t kad_part_size(const kad_model *km, uint32_t p)
{
    uint32_t first = kad_part_first(km, p);
    return km->N - first < km->part_peers ? km->N - first : km->part_peers;
}

/* kademlia_setup.c */
int kad_create(struct model_state **out, const scenario *sc, device_ctx *const *devs, int n_devs,
               cn_error *err);
void kad_destroy(struct model_state *m);
const char *kad_kernel_profile_name(int k);
/* Grows D's lookup records to S_NEW per peer, keeping every peer's. */
int kad_grow_records(kad_model *km, kad_device *d, uint32_t s_new, cn_error *err);
/* Waits for every device (when RC is 0), the wait counted in wait_s. */
int kad_wait(kad_model *km, int rc, cn_error *err);

/* kademlia_ids.c: the ids of docs/models/kademlia.md ("Peers and their ids") into IDS (N * W
 * words, left-aligned), sorted into SORTED with their peers in SORTED_PEER, the redraws
 * counted in *REDRAWS; and the sort alone. */
int kad_make_ids(uint64_t seed, uint32_t n, uint32_t bits, uint32_t *ids, uint32_t *sorted,
                 uint32_t *sorted_peer, uint64_t *redraws, cn_error *err);
int kad_sort_ids(const uint32_t *ids, uint32_t n, uint32_t w, uint32_t *sorted,
                 uint32_t *sorted_peer, cn_error *err);
/* Lookup N of peer I's target id, left-aligned in W of the 5 words of LEFT (the others 0);
 * returns the peer looked for with targets = peers, else ~0 (a lookup record's LK_TARGET). */
uint32_t kad_target_id(const kad_model *km, uint32_t i, uint32_t n, uint32_t left[5]);
/* Lookup N of peer I's target as the B-bit integer in 5 words, most significant first
 * (right-aligned, for the rows). */
void kad_target_words(const kad_model *km, uint32_t i, uint32_t n, uint32_t out[5]);

/* kademlia_churn.c: every peer's periods (nothing without churn), and whether peer J is
 * online at T */
int kad_make_periods(kad_model *km, cn_error *err);
int kad_online(const kad_model *km, uint32_t j, int64_t t);

/* kademlia_window.c */
int kad_plan_window(struct model_state *m, window_plan *plan, cn_error *err);
int kad_run_set(struct model_state *m, const window_plan *plan, const event_set *set,
                device_ctx *dev, cl_event *evs, int *n_evs, cn_error *err);
int kad_end_window(struct model_state *m, const window_plan *plan, window_outcome *out,
                   cn_error *err);
int kad_end_ranks(struct model_state *m, const window_plan *plan, int failed,
                  window_outcome *out, cn_error *err);
/* The least pending time of every partition into part_min and next_begin (and the events
 * run), with the control words: computed where needed (every partition's at the START, else
 * those that ran this window), read, waited for, checked. */
int kad_find_minimum(kad_model *km, int start, cn_error *err);
/* The rows the devices hold, read into km->rows; their counts reset. */
int kad_drain_rows(kad_model *km, cn_error *err);
/* With --lookups, D's rows made room for a window of its records (a window closes at most one
 * lookup per record), the rows so far read back first. */
int kad_fit_rows(kad_model *km, kad_device *d, cn_error *err);
/* A row of the devices' words W (ROW_WORDS: kademlia_layout.clh) appended to km->rows, its
 * target added; -1 when out of memory. kad_row_words: the words of a row's cells C. */
int kad_add_row(kad_model *km, const uint32_t *w);
void kad_row_words(const int64_t *c, uint32_t *w);

/* kademlia_checkpoint.c (model_ops' checkpoints; the check: kademlia_ckpt_format.h) */
int kad_can_checkpoint(const struct model_state *m, cn_error *err);
int kad_save(struct model_state *m, int64_t next, ckpt_buf *out, cn_error *err);
int kad_restore(struct model_state *m, int64_t next, const ckpt_file *in, cn_error *err);

/* kademlia_results.c: the --lookups rows' columns, and the results */
extern const record_shape kad_rows_shape;
int kad_results(struct model_state *m, run_results *res, cn_error *err);

#endif
