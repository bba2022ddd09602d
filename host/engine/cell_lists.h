/* Cell lists on the device: nodes binned into cubes at least one radio range wide, rebuilt by
 * count, exclusive prefix sum and scatter (memory O(N + cells)). A reader finds every
 * neighbour of a node in the 3x3(x3) cells around it. */
#ifndef CLNETSIM_CELL_LISTS_H
#define CLNETSIM_CELL_LISTS_H
#include <stdint.h>

#include "engine/dbuf.h"

typedef struct cell_grid {
    int64_t side;            /* mm, >= range */
    uint32_t nx, ny, nz;
    uint32_t n_cells;
} cell_grid;

/* Cells of side >= RANGE covering [0, extent] on each axis; the side doubles while the grid
 * would hold more than max(2 N, 64) cells, so memory stays O(N) for sparse scenarios. */
int cell_grid_choose(cell_grid *g, const int64_t extent[3], int64_t range, uint32_t n_nodes,
                     cn_error *err);

/* Exclusive prefix sum of uint32 on the device (kernels scan_blocks / scan_add). */
#define SCAN_MAX_LEVELS 40
typedef struct scan_ctx {
    cl_kernel blocks, add;
    size_t local;
    int levels;
    dbuf sums[SCAN_MAX_LEVELS], scanned[SCAN_MAX_LEVELS];
} scan_ctx;

int scan_init(scan_ctx *s, device_ctx *dev, cl_program prog, size_t max_len, dbuf_account *acc,
              cn_error *err);
/* OUT[0..LEN) = exclusive sum of IN[0..N) (entries past N count as 0): with LEN = N + 1,
 * OUT[N] is the total. LEN <= the max_len given to scan_init. */
int scan_run(scan_ctx *s, device_ctx *dev, dbuf *in, uint32_t n, dbuf *out, uint32_t len,
             cl_event *ev, cn_error *err);
void scan_free(scan_ctx *s, dbuf_account *acc);

typedef struct cell_lists {
    cell_grid grid;
    uint32_t n;
    dbuf cell_of, count, start, nodes; /* COUNT is all zero between builds */
    cl_kernel k_count, k_scatter;
    size_t local_count, local_scatter;
    karg_cache count_args, scatter_args; /* the same every build: set once */
    scan_ctx scan;
    /* ONE_GROUP: the whole build is one launch of cells.build_one_group, one work-group of
     * LOCAL_ONE items (the kernels above and the scan are then not made). */
    int one_group;
    cl_kernel k_one;
    size_t local_one;
    karg_cache one_args;
    /* RANKED: builds from the ranks a model's kernel takes as it moves the nodes
     * (cell_lists_ranked_init; cl/common/cells.clh): RANK per node, and RANK_COUNTS, three
     * parts of N_CELLS + 2 words; RANKED_MOVES launches ranked so far (the next one counts
     * in part RANKED_MOVES % 3). CHECK: every ranked build is compared with a counted one,
     * made in SHADOW (CLNETSIM_TEST_CELLS_RANKED=check). */
    int ranked, check;
    cl_kernel k_ranked;
    size_t local_ranked;
    karg_cache ranked_args;
    dbuf rank, rank_counts;
    /* SORTED: with ranked builds, each node's position at its place in NODES, current while
     * SORTED_VALID (the last build was a ranked one) */
    dbuf sorted;
    int sorted_valid;
    uint64_t ranked_moves;
    struct cell_lists *shadow;
    /* FIXED_CAP > 0: fixed cells, the lists written by the ranking itself
     * (cell_lists_fixed_init; cl/common/cells.clh), two halves each of FIXED_NODES and
     * FIXED_POS (N_CELLS x FIXED_CAP + N slots), FIXED_CELL and FIXED_SLOT (N words). K_RANK
     * ranks positions that no launch moved (cell_lists_rank_positions). */
    uint32_t fixed_cap;
    dbuf fixed_nodes, fixed_pos, fixed_cell, fixed_slot;
    cl_kernel k_rank;
    karg_cache rank_args;
} cell_lists;

/* The largest node count built in one work-group on DEV: the test hook
 * CLNETSIM_TEST_CELLS_ONE_GROUP=N when set (a whole number: one binary compares both builds
 * on one device), else the platform profile's [kernel] cells.one_group_nodes, else 0 (never).
 * A bad hook value is a CN_ERR_INPUT sentence. */
#define CELLS_ONE_GROUP_KEY "cells.one_group_nodes"
#define CELLS_ONE_GROUP_MAX 2147483647 /* the hook's and the profile's largest value */
int cell_lists_one_group_nodes(const device_ctx *dev, uint32_t *out, cn_error *err);

/* Makes the lists of N nodes on grid G. The build is one launch when N is at most
 * cell_lists_one_group_nodes and the device's local memory holds the N_CELLS + 1 counts with
 * the kernel's other needs; else count, prefix sum and scatter. */
int cell_lists_init(cell_lists *c, device_ctx *dev, cl_program prog, const cell_grid *g,
                    uint32_t n, dbuf_account *acc, cn_error *err);
/* Rebuilds the lists from POS (long4 per node). With INCLUDE (a byte per group), only the nodes
 * whose group, the fourth component of their position, has a non-zero byte there are listed;
 * NULL lists every node. Up to 3 profiling events go to EVS (one for the one-group build);
 * *N_EVS counts them, and an entry may be NULL (a scan of one element enqueues no kernel).
 * EVS NULL: the kernels are launched without events (cheaper on some drivers). */
int cell_lists_build(cell_lists *c, device_ctx *dev, dbuf *pos, dbuf *include, cl_event *evs,
                     int *n_evs, cn_error *err);
void cell_lists_free(cell_lists *c, dbuf_account *acc);

/* ---- ranked builds ----
 * Where a model's kernel moves every node before each build, it may also compute each node's
 * cell and take its rank in it (cl/common/cells.clh): the build is then one launch of
 * cells.scatter_ranked, which scans the counts in every work-group's local memory and puts
 * each node at its rank. The outputs are those of cell_lists_build without a filter: the same
 * cell_of and starts and the same nodes in every cell. */

/* The largest cell count whose lists are built from ranks on DEV: the test hook
 * CLNETSIM_TEST_CELLS_RANKED=N when set (a whole number; "check": no limit, and *CHECK set,
 * else 0), else the platform profile's [kernel] cells.ranked_cells, else 0 (never). CHECK may
 * be NULL. A bad hook value is a CN_ERR_INPUT sentence. */
#define CELLS_RANKED_KEY "cells.ranked_cells"
#define CELLS_RANKED_MAX 2147483647 /* the hook's and the profile's largest value */
int cell_lists_ranked_cells(const device_ctx *dev, uint32_t *out, int *check, cn_error *err);

/* Makes C ready for ranked builds (C->ranked) when its cells are at most
 * cell_lists_ranked_cells and the device's local memory holds their N_CELLS + 1 counts with
 * the scatter's other needs; else C->ranked stays 0 and the model never ranks. */
int cell_lists_ranked_init(cell_lists *c, device_ctx *dev, cl_program prog, dbuf_account *acc,
                           cn_error *err);

/* The CELLS_RANK_PARAMS of mover kernel K, from its argument FIRST (NAME its key, CACHE its
 * argument cache): with ON (C->ranked, and the launch moves every node of the lists) the
 * launch ranks them for the next ranked build, and the caller calls cell_lists_ranked_moved
 * once it is enqueued; without, the kernel ranks nothing. */
#define CELLS_RANK_NARGS 15
int cell_lists_rank_args(cell_lists *c, device_ctx *dev, cl_kernel k, karg_cache *cache,
                         const char *name, int first, int on, cn_error *err);
void cell_lists_ranked_moved(cell_lists *c);

/* Builds the lists from the ranks of the last ranked launch, which must have moved every node
 * to the positions the lists are for, POS (long4 per node). The lists' SORTED array gets each
 * node's position at its place in NODES. One profiling event to EVS as cell_lists_build
 * gives them (EVS NULL: none). */
int cell_lists_build_ranked(cell_lists *c, device_ctx *dev, dbuf *pos, cl_event *evs,
                            int *n_evs, cn_error *err);

/* ---- fixed cells ----
 * Lists with no build launch at all: every ranking (a move's, or cell_lists_rank_positions)
 * also puts each node in a slot of its cell, up to CAP a cell, the others in slots past all
 * the cells' (cl/common/cells.clh). A reader takes the lists of the last ranking from the
 * CELLS_RANK_PARAMS of a launch that ranks next (cell_lists_rank_args), while that launch
 * writes the other half. The counted and the scatter builds keep working beside them. */

/* The capacity of a cell for N nodes in N_CELLS cells: the test hook
 * CLNETSIM_TEST_CELLS_FIXED_CAP=N when set (a whole number from 1 to 65536), else eight times
 * the mean, rounded up to a power of two, from 32 to 4096 and at most 128 slots a node. A bad
 * hook value is a CN_ERR_INPUT sentence. */
int cell_lists_fixed_capacity(uint32_t n, uint32_t n_cells, uint32_t *cap, cn_error *err);

/* Makes ranked lists C (cell_lists_ranked_init done, C->ranked set) also fixed, of capacity
 * CAP: every later ranking writes the lists. Refused (a CN_ERR_RUNTIME sentence) when the
 * slots would pass 2^31. */
int cell_lists_fixed_init(cell_lists *c, device_ctx *dev, cl_program prog, uint32_t cap,
                          dbuf_account *acc, cn_error *err);

/* A ranking of the nodes at POS with no move (cells.rank_nodes): with fixed cells, the lists
 * of those positions. One profiling event to EVS as cell_lists_build gives them. */
int cell_lists_rank_positions(cell_lists *c, device_ctx *dev, dbuf *pos, cl_event *evs,
                              int *n_evs, cn_error *err);

/* With CHECK (CLNETSIM_TEST_CELLS_RANKED=check): the fixed lists of the last ranking read
 * back and compared with a counted build of POS, where that ranking put the nodes (each
 * cell's nodes as a set, each node's position and slot). A CN_ERR_RUNTIME sentence naming the
 * first difference; nothing without CHECK. Waits for the device. */
int cell_lists_fixed_check(cell_lists *c, device_ctx *dev, dbuf *pos, cn_error *err);

#endif
