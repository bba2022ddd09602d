/* Spatial partitions: the nodes split into tiles of the plane with equal node counts, the
 * units that the injector places on devices (docs/architecture.md, "Partitions").
 * Which partition a node belongs to never changes a result; it only decides where the work
 * of its receptions runs. */
#ifndef CLNETSIM_PARTITION_H
#define CLNETSIM_PARTITION_H
#include <stdint.h>

#include "common/error.h"

#define PARTITION_MAX 4096

/* Partitions a run uses when the scenario leaves [partition] count at 0: one per device,
 * fewer when the scenario has too few nodes for it to pay (about 1024 nodes per partition). */
uint32_t partition_default_count(uint32_t n_nodes, int n_devices);

/* Splits N nodes at positions XY (x, y of node i at xy[2 i], xy[2 i + 1], in mm) into PARTS
 * tiles: PX vertical strips of equal node counts (by x, then y, then id), each cut into PY
 * tiles of equal node counts (by y, then x, then id), PX x PY = PARTS with PX chosen so that
 * tiles are about as wide as they are tall. Writes each node's partition to PART_OF.
 * Deterministic: ties are broken by node id. */
int partition_tiles(const int64_t *xy, uint32_t n, uint32_t parts, uint16_t *part_of,
                    cn_error *err);

/* Tiles as regions of the plane, for nodes that move: PX strips cut at x coordinates, each cut
 * into PY tiles at y coordinates. Tile s x PY + t holds the points with x[s] <= x < x[s + 1]
 * and y[s (PY + 1) + t] <= y < y[s (PY + 1) + t + 1]; the outer cuts are -/+ PARTITION_FAR, so
 * that every point of the plane lies in exactly one tile and a tile widened by up to 2^62 still
 * fits an int64. The retile kernel (cl/flood/flood.cl) applies the same rule on the devices. */
#define PARTITION_FAR ((int64_t)1 << 61)
typedef struct partition_cuts {
    uint32_t px, py;
    int64_t *x;             /* PX + 1 cuts */
    int64_t *y;             /* PX x (PY + 1) cuts */
} partition_cuts;

/* The cuts of PARTS tiles of the points XY (as partition_tiles takes them): the strips' x cuts
 * at the x of the first node of each strip in partition_tiles' order, and in each strip (the
 * nodes between its x cuts) the y cuts likewise, so that the tiles hold nearly equal node
 * counts (exactly equal unless nodes share coordinates). */
int partition_make_cuts(const int64_t *xy, uint32_t n, uint32_t parts, partition_cuts *c,
                        cn_error *err);
/* The tile holding point (X, Y). */
uint32_t partition_cut_tile(const partition_cuts *c, int64_t x, int64_t y);
/* Tile PART's extent: x in [lo[0], hi[0]], y in [lo[1], hi[1]] (inclusive). */
void partition_cut_box(const partition_cuts *c, uint32_t part, int64_t lo[2], int64_t hi[2]);
void partition_cuts_free(partition_cuts *c);

#endif
