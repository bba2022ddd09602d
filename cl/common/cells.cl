#pragma OPENCL FP_CONTRACT OFF
/* Cell lists, rebuilt on the device by count, prefix sum and scatter: memory O(N + cells),
 * and a neighbour search that only looks at the 3x3(x3) cells around a node. Cells are at
 * least the radio range wide, so every neighbour lies in an adjacent cell. */
#include "common/cells.clh"

/* A node left out of the lists: its cell_of entry. */
#define CELL_NONE 0xffffffffu

/* With FILTERED, only the nodes whose group (the fourth component of the position) has a
 * non-zero byte in INCLUDE are binned: a device binning only the nodes it handles does half
 * the atomics when two devices share the nodes, and its readers skip the others unread. */
__kernel void cell_count(__global const long4 *pos, uint n, long side, uint nx, uint ny, uint nz,
                         __global uint *cell_of, __global uint *cell_count_out,
                         __global const uchar *include, uint filtered)
{
    uint i = get_global_id(0);
    if (i >= n)
        return;
    long4 p = pos[i];
    if (filtered && !include[p.w]) {
        cell_of[i] = CELL_NONE;
        return;
    }
    uint c = cell_of_pos(p, side, nx, ny, nz);
    cell_of[i] = c;
    atomic_inc(&cell_count_out[c]);
}

/* Each node takes a place in its cell by counting the cell's count down, which leaves every
 * count at zero for the next build: no buffer to clear between builds. The order of nodes
 * inside a cell depends on scheduling; nothing downstream depends on it (neighbour sets, not
 * sequences, decide every result). */
__kernel void cell_scatter(uint n, __global const uint *cell_of, __global const uint *cell_start,
                           __global uint *cell_count, __global uint *cell_nodes)
{
    uint i = get_global_id(0);
    if (i >= n)
        return;
    uint c = cell_of[i];
    if (c == CELL_NONE)
        return;
    cell_nodes[cell_start[c] + atomic_dec(&cell_count[c]) - 1u] = i;
}

/* Inclusive scan of A[0 .. lsize) in local memory by the whole work-group, item LID's word
 * in place (every item calls it, after a barrier that made A whole; it ends with one). */
inline void group_scan_inclusive(__local uint *a, uint lid, uint lsize)
{
    for (uint off = 1; off < lsize; off <<= 1) {
        uint add = lid >= off ? a[lid - off] : 0u;
        barrier(CLK_LOCAL_MEM_FENCE);
        a[lid] += add;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}

/* The start of this item's run of an exclusive scan of the LEN words of A in local memory,
 * made by the whole work-group (every item calls it, after a barrier that made A whole): each
 * item sums its own run [*LO, *HI) of consecutive words, the group scans those sums
 * (inclusive, in SUMS, a word per item), and the item then walks its run again from the
 * value returned. A is left as it was. */
inline uint group_scan_runs(__local const uint *a, uint len, __local uint *sums, uint *lo,
                            uint *hi)
{
    uint lid = get_local_id(0), lsize = get_local_size(0);
    uint per = (len + lsize - 1u) / lsize;
    *lo = min(lid * per, len);
    *hi = min(*lo + per, len);
    uint own = 0u;
    for (uint c = *lo; c < *hi; c++)
        own += a[c];
    sums[lid] = own;
    barrier(CLK_LOCAL_MEM_FENCE);
    group_scan_inclusive(sums, lid, lsize);
    return sums[lid] - own;
}

/* The whole build in one work-group, for a device where a launch costs more than the
 * kernels (a GPU binning a few thousand nodes every window): one launch instead of count,
 * scan(s) and scatter. COUNTS holds N_CELLS + 1 words, SUMS one per item. The same outputs
 * as the kernels above: cell_of (CELL_NONE for a node left out), start (start[n_cells] =
 * the total) and the same set of nodes in every cell, in an order that depends on
 * scheduling as cell_scatter's does. It never touches the global counts, which stay zero. */
__kernel void build_one_group(__global const long4 *pos, uint n, long side, uint nx, uint ny,
                              uint nz, uint n_cells, __global uint *cell_of,
                              __global uint *cell_start, __global uint *cell_nodes,
                              __global const uchar *include, uint filtered,
                              __local uint *counts, __local uint *sums)
{
    uint lid = get_local_id(0), lsize = get_local_size(0);
    uint len = n_cells + 1u;
    for (uint c = lid; c < len; c += lsize)
        counts[c] = 0u;
    barrier(CLK_LOCAL_MEM_FENCE);
    /* Item LID bins nodes LID, LID + LSIZE, ...: the scatter below reads back only the
     * cell_of entries the same item wrote, so no fence on global memory is needed. */
    for (uint i = lid; i < n; i += lsize) {
        long4 p = pos[i];
        uint c = CELL_NONE;
        if (!filtered || include[p.w]) {
            c = cell_of_pos(p, side, nx, ny, nz);
            atomic_inc(&counts[c]);
        }
        cell_of[i] = c;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    uint lo, hi;
    uint at = group_scan_runs(counts, len, sums, &lo, &hi);
    /* start[] goes out; COUNTS keeps each cell's end, counted down by the scatter */
    for (uint c = lo; c < hi; c++) {
        cell_start[c] = at;
        at += counts[c];
        counts[c] = at;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint i = lid; i < n; i += lsize) {
        uint c = cell_of[i];
        if (c != CELL_NONE)
            cell_nodes[atomic_dec(&counts[c]) - 1u] = i;
    }
}

/* Ranks without a move: what a kernel that moves the nodes does with CELLS_RANK_PARAMS
 * (cl/common/cells.clh), for nodes at POS[0..N) in one launch of at least N items. */
__kernel void rank_nodes(__global const long4 *pos, uint n, CELLS_RANK_PARAMS)
{
    uint i = get_global_id(0);
    cells_rank_clear(CELLS_RANK_PASS);
    if (i < n)
        cells_rank_node(pos[i], i, CELLS_RANK_PASS);
}

/* The lists from the ranks of one ranked launch (cl/common/cells.clh), whose counts are
 * part PART of COUNTS (CELLS_RANK_PART_WORDS apart; its first N_CELLS + 1 words, the last 0): every work-group scans
 * them into STARTS (local, N_CELLS + 1 words; SUMS a word per item), group 0 writes them
 * out, and item i puts node i at its rank past its cell's start. One launch of at least N
 * items. The same outputs as the builds above: cell_of (written by the ranks), start
 * (start[n_cells] = the total) and the same set of nodes in every cell, in the order the
 * ranks' atomics served them. */
__kernel void scatter_ranked(uint n, uint n_cells, __global const uint *counts, uint part,
                             __global const uint *cell_of, __global const uint *rank,
                             __global uint *cell_start, __global uint *cell_nodes,
                             __local uint *starts, __local uint *sums,
                             __global const long4 *positions, __global long4 *sorted)
{
    uint lid = get_local_id(0), lsize = get_local_size(0);
    uint len = n_cells + 1u;
    __global const uint *own = counts + part * CELLS_RANK_PART_WORDS(n_cells);
    for (uint c = lid; c < len; c += lsize)
        starts[c] = own[c];
    barrier(CLK_LOCAL_MEM_FENCE);
    uint lo, hi;
    uint at = group_scan_runs(starts, len, sums, &lo, &hi);
    /* every item reads its run before it is overwritten (the scan ended with a barrier) */
    for (uint c = lo; c < hi; c++) {
        uint k = starts[c];
        starts[c] = at;
        at += k;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (get_group_id(0) == 0)
        for (uint c = lid; c < len; c += lsize)
            cell_start[c] = starts[c];
    uint i = get_global_id(0);
    if (i >= n)
        return;
    uint place = starts[cell_of[i]] + rank[i];
    cell_nodes[place] = i;
    /* the node's position beside it, so that a reader of a cell's nodes reads their
     * positions as one run (POSITIONS, where the ranking launch moved them) */
    sorted[place] = positions[i];
}

/* Exclusive prefix sum, in three steps so that any length works on any device:
 * scan_blocks scans each work-group's slice and stores the slice total, the totals are
 * scanned the same way (recursively, by the host), and scan_add adds them back.
 * Elements at or past N read as 0, so scanning N + 1 elements leaves the total in out[N]. */
__kernel void scan_blocks(__global const uint *in, uint n, uint len, __global uint *out,
                          __global uint *block_sums, __local uint *tmp)
{
    uint gid = get_global_id(0), lid = get_local_id(0), lsize = get_local_size(0);
    uint v = gid < n ? in[gid] : 0u;
    tmp[lid] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
    group_scan_inclusive(tmp, lid, lsize);
    if (gid < len)
        out[gid] = tmp[lid] - v;
    if (lid == lsize - 1)
        block_sums[get_group_id(0)] = tmp[lid];
}

__kernel void scan_add(__global uint *out, uint len, __global const uint *block_offsets)
{
    uint gid = get_global_id(0);
    if (gid < len)
        out[gid] += block_offsets[get_group_id(0)];
}
