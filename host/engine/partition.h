/* Spatial partitions: the nodes split into tiles of the plane with equal node counts, the
 * units that the injector places on devices (DESIGN.md, "Event sets and the injector").
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

#endif
