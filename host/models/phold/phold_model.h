/* Private to host/models/phold: the model's state and the pieces its files share. */
#ifndef CLNETSIM_PHOLD_MODEL_H
#define CLNETSIM_PHOLD_MODEL_H
#include <stdint.h>

#include "cl/phold/phold_layout.clh"
#include "engine/dbuf.h"
#include "engine/engine.h"
#include "engine/exchange.h"

#define PHOLD_EXP_ENTRIES 65536 /* EXP_QUANTILES (common/exp_quantiles.h) */
/* The compact delay table of CPU devices (cl/phold/phold_cpu.cl): a base per block of this
 * many entries and a 32-bit offset per entry. */
#define PHOLD_EXP_BLOCK (1 << PHOLD_EXP_BLOCK_SHIFT)
#define PHOLD_EXP_BLOCKS (PHOLD_EXP_ENTRIES / PHOLD_EXP_BLOCK)

enum phold_kernel {
    PK_START, PK_EXECUTE, PK_DELIVER, PK_REGROW, PK_MIN, PK_RESULTS, PK_NEXT, PK_COUNT
};

/* The most windows one step runs (phold_model.per_read) when the run chooses: beyond it the
 * step's read-back is a negligible share of it anyway. */
#define PHOLD_PER_READ_MAX 4096
/* Where the run's choice starts */
#define PHOLD_PER_READ_START 16
/* Chained windows enqueued ahead of the device at most (phold_window.c; even) */
#define PHOLD_CHAIN_AHEAD 32

/* What one device holds: a block for each partition it holds, and nothing for the others, so
 * that several devices share the LPs' memory instead of each holding all of it. A block is
 * part_lps LPs (P) wide; partition p lives in block b = phold_model.block[p] of its home:
 * LP first(p) + g has its count at cnt[b * P + g], its slot q at [(b * C + q) * P + g] (slot
 * after slot within the block: neighbouring work-items read neighbouring words), its statistic
 * s at stats[(b * STAT_WORDS + s) * P + g]. Blocks are whole partitions, so a migration moves
 * one contiguous run of each array and a device that gains a partition appends a block (the
 * arrays' prefix stays where it was); a block a partition leaves is reused by the next one
 * that arrives. Its outbox and the areas its deliveries fill are the core exchange's
 * (phold_model.ex). */
typedef struct phold_device {
    device_ctx *dev;
    cl_program prog;
    cl_kernel k[PK_COUNT];
    size_t local[PK_COUNT];
    dbuf exp_table;         /* long[65536] */
    /* CPU devices run phold_execute_cpu (cpu_shape), which reads delays from the compact
     * table: long[PHOLD_EXP_BLOCKS] bases (negative: read exp_table), uint[65536] offsets */
    int cpu_shape;
    dbuf exp_base, exp_off;
    dbuf cnt;               /* uint[n_blocks * P]: pending events per LP */
    dbuf slot_t;            /* long[n_blocks * C * P]: event times, as above */
    dbuf slot_os;           /* uint2[n_blocks * C * P]: (origin, serial) likewise */
    dbuf stats;             /* ulong[n_blocks * STAT_WORDS * P] */
    dbuf group_min;         /* long[2 * n_blocks * block_groups]: least time, executed events */
    dbuf group_res;         /* ulong[n_blocks * block_groups * RES_WORDS] */
    dbuf block_map;         /* uint[n_parts]: each held partition's block (deliveries) */
    uint32_t n_blocks;      /* blocks allocated, held or free */
    uint8_t *taken;         /* [n_parts]: block b holds a partition (host side) */
    uint32_t slots_per_lp;  /* C */
    /* Chained windows (phold_model.chain): the chain's words (long[WIN_WORDS], cl/phold/
     * phold_layout.clh) and the groups of group_min that hold its partitions' least times
     * (uint[n_chain_groups]) */
    dbuf win, chain_groups;
    uint32_t n_chain_groups;
    int ran;                /* it ran a set this window */
    int64_t sets;           /* sets it ran, for the report */
} phold_device;

typedef struct phold_model {
    scenario sc;
    uint32_t N, E;
    int64_t lookahead, T;
    uint64_t remote_thr;
    int n_devs;
    phold_device dev[ENGINE_MAX_DEVICES];
    uint32_t n_parts, part_lps;
    /* Over several MPI ranks each holds the contiguous range [p_lo, p_hi) of the partitions
     * (dist_range_rank): RANK_OF says whose each is, and HOME is -1 for another rank's. With
     * one process the range is every partition. */
    uint32_t p_lo, p_hi;
    int *rank_of;           /* [n_parts] */
    /* [ranks + 1]: rank r holds partitions [rank_first[r], rank_first[r + 1]), the same on
     * every rank; the coordinator (phold_balance.c) moves the boundaries */
    uint32_t *rank_first;
    double plan_t;          /* when this window's plan began (wall clock) */
    double busy_s;          /* this rank's own work since the coordinator last looked */
    int64_t busy_windows;   /* windows it counts */
    uint64_t rank_moves;    /* partitions moved between ranks */
    uint64_t rank_looks;    /* the coordinator's looks */
    int *home;              /* [n_parts]: index into dev[], -1: another rank's */
    uint32_t *block;        /* [n_parts]: the block of its home holding each partition */
    uint32_t block_groups;  /* reduction groups of a block: part_lps / reduce_local, up */
    uint32_t *group_base;   /* [n_parts + 1]: first group of each partition (min, results) */
    size_t reduce_local;    /* work-group size of phold_min and phold_results everywhere */
    int64_t *part_min;      /* [n_parts]: least pending time, after each window */
    int64_t *group_min_host; /* [2 * n_groups], as group_min (host_area_alloc of dev[0]) */
    cl_mem group_min_mem;
    uint64_t executed;      /* events executed so far, for the progress line */
    int64_t next_begin;     /* the least pending time of all: the next window's begin */
    int64_t tend;           /* the window under way ends here: min(begin + A, T) */
    int64_t until;          /* the step's limit (window_plan.until) */
    int64_t windows;
    /* Windows a step runs before the host reads back (chained on the device: phold_next
     * finds each next begin there). CHAIN: the run may chain them (one device, one process);
     * PER_READ: the value in force (1 when it may not); PER_READ_AUTO: the run chooses it
     * (model_knob). CHAINING: a chain's windows are being enqueued (their deliveries are
     * guarded). WIN_START: the chain's words written at a step's start (the first window's
     * end, nothing stopped, nothing armed); WIN_HOST: read back at its end; WIN_MARK: read
     * on the way (phold_window.c, enqueue_chain). */
    int chain, per_read_auto, chaining;
    int64_t per_read;
    int64_t win_start[WIN_WORDS], win_host[WIN_WORDS], win_mark[2][WIN_WORDS];
    dbuf_account acc;
    uint64_t peak_bytes;
    double wait_s;
    uint64_t migrated;      /* bytes of partitions moved between devices */
    /* remote events between devices: records of a uint4 event, destination word the LP */
    exchange ex;
    int ex_ready;           /* EX was set up (released on destroy) */
} phold_model;

static inline phold_model *phold_of(struct model_state *m) { return (phold_model *)(void *)m; }
static inline const phold_model *phold_of_c(const struct model_state *m)
{
    return (const phold_model *)(const void *)m;
}

/* Element offsets of partition P's first LP in its home's arrays (see phold_device). */
static inline size_t phold_lp_at(const phold_model *pm, uint32_t p)
{
    return (size_t)pm->block[p] * pm->part_lps;
}
static inline size_t phold_slot_at(const phold_model *pm, uint32_t p, uint32_t q)
{
    return ((size_t)pm->block[p] * pm->dev[pm->home[p]].slots_per_lp + q) * pm->part_lps;
}
static inline size_t phold_stat_at(const phold_model *pm, uint32_t p, uint32_t s)
{
    return ((size_t)pm->block[p] * STAT_WORDS + s) * pm->part_lps;
}
/* Index of partition P's first reduction group in its home's group_min and group_res. */
static inline size_t phold_group_at(const phold_model *pm, uint32_t p)
{
    return (size_t)pm->block[p] * pm->block_groups;
}

/* phold_setup.c */
int phold_create(struct model_state **out, const scenario *sc, device_ctx *const *devs, int n_devs,
                 cn_error *err);
void phold_destroy(struct model_state *m);
/* "phold.execute" ...: the profile key of kernel K (enum phold_kernel). */
const char *phold_kernel_profile_name(int k);
/* Grows D's event slots to C_NEW per LP, keeping every LP's events. */
int phold_grow_slots(phold_model *pm, phold_device *d, uint32_t c_new, cn_error *err);
/* A free block of D for partition P (one more block when none is free), marked taken and
 * written to D's block map; P's old block, if any, is the caller's to give up. */
int phold_take_block(phold_model *pm, phold_device *d, uint32_t p, uint32_t *block,
                     cn_error *err);
/* Block BLOCK of D is free again (its partition left). */
void phold_give_block(phold_model *pm, phold_device *d, uint32_t block);

/* phold_window.c */
/* Several ranks: after end_window, the records for other ranks' partitions go out and what
 * they sent is delivered (exchange_flush), then the least pending time is taken. */
int phold_end_ranks(struct model_state *m, const window_plan *plan, int failed,
                    window_outcome *out, cn_error *err);
/* Sets up the core exchange for the model's remote events (records of a uint4 event, the
 * destination word its LP) with PHOLD's consumer: the delivery into slots. */
int phold_exchange_init(phold_model *pm, uint32_t capacity, cn_error *err);
int phold_plan_window(struct model_state *m, window_plan *plan, cn_error *err);
int phold_run_set(struct model_state *m, const window_plan *plan, const event_set *set,
                  device_ctx *dev, cl_event *evs, int *n_evs, cn_error *err);
int phold_end_window(struct model_state *m, const window_plan *plan, window_outcome *out,
                     cn_error *err);
/* The least pending times of every partition, into pm->part_min and pm->next_begin: enqueued
 * (kernels and reads), collected once the devices are done, or both with the wait. */
int phold_enqueue_minimum(phold_model *pm, cn_error *err);
void phold_collect_minimum(phold_model *pm);
int phold_find_minimum(phold_model *pm, cn_error *err);
int phold_results(struct model_state *m, run_results *res, cn_error *err);
int phold_migrate(struct model_state *m, int partition, int to, uint64_t *bytes, cn_error *err);
/* A partition's block in host memory: DATA holds the counts (4 P bytes, N of them used), the
 * statistics (STAT_BYTES), then the first ROWS rows of event times and of (origin, serial)
 * (ROW_BYTES each), BYTES in all. */
typedef struct phold_blob {
    uint32_t n, rows;
    size_t stat_bytes, row_bytes, bytes;
    unsigned char *data;
} phold_blob;
/* Partition P's block read from its home into BLOB (DATA malloc'ed: the caller frees it). */
int phold_block_read(phold_model *pm, uint32_t p, phold_blob *blob, cn_error *err);
/* BLOB written into a block of device TO taken for partition P (slots grown to hold its
 * rows), which becomes P's home and block; the old block is the caller's to give up. */
int phold_block_write(phold_model *pm, uint32_t p, int to, const phold_blob *blob,
                      cn_error *err);

/* phold_balance.c */
/* Several ranks, at the end of end_ranks on every rank: every [partition] rebalance windows,
 * the coordinator's look at the ranks' times, and the partitions it moves between them. RC:
 * this rank's error so far (then nothing moves, on any rank). */
int phold_balance(phold_model *pm, int rc, cn_error *err);

/* phold_checkpoint.c: model_ops' checkpoint operations (engine.h) */
int phold_can_checkpoint(const struct model_state *m, cn_error *err);
int phold_checkpoint_check(const ckpt_file *in, const scenario *sc, cn_error *err);
int phold_save(struct model_state *m, int64_t next, ckpt_buf *out, cn_error *err);
int phold_restore(struct model_state *m, int64_t next, const ckpt_file *in, cn_error *err);

#endif
