/* The flood's cases of the kernel-shape self-test and its tuning scenarios (engine.h,
 * model_shapes; host/bench/shapes.c and tune.c run them).
 *
 * The self-test runs small scenarios that launch every kernel (whole packets with seen bits in
 * local and in global memory, the forwarding-scheme kernel, and the window loop: static and
 * mobile, several partitions, CSR lists, scans, spills, migration, caps, schemes and node
 * resources), and in work-groups of one also floods a grid of 25 600 nodes (one work-item then
 * turns its loops well over 2^16 times: Mesa's llvmpipe ends a work-item's loops after 65535
 * iterations, which only whole packets in work-groups of one item reach on big floods). */
#include <stddef.h>

#include "models/flood/flood.h"

/* One packet over a grid of 160 x 160: a work-group of one item turns its frontier loop once
 * per node (25 600 times) and its neighbour loop four times as often, some 2^17 loop
 * iterations in one work-item, twice what Mesa's llvmpipe allows (the loop probe finds such a
 * limit and the run bounds its launches, docs/architecture.md; this case is the net for a
 * device that fails long loops otherwise). A line of more than 2^16 hops would also reach a
 * limit per loop, but the reference's cost grows with nodes times windows: seconds, not
 * milliseconds. */
#define BIG_INI                                                                             \
    "[simulation]\nseed = 3\n[topology]\nplacement = grid\nrows = 160\ncols = 160\n"         \
    "spacing = 10\n[connectivity]\nrange = 10\n[traffic]\npackets = 1\ninterval = 1\n"     \
    "[flood]\nrelay_delay = 1\ndrop_probability = 0\n"

#define GRID_INI                                                                            \
    "[simulation]\nseed = 21\n[topology]\nplacement = grid\nrows = 14\ncols = 13\n"          \
    "spacing = 100\n[connectivity]\nrange = 150\n[traffic]\npackets = 6\ninterval = 0.5\n"  \
    "[flood]\nrelay_delay = 1\ndrop_probability = 0.15\n"

/* The whole-packet kernels, which whole-packet cases blame alone. */
static const char *const packet_kernels[] = {"flood.packets", "flood.packets_one",
                                             "flood.packets_local", "flood.packets_scheme",
                                             NULL};
/* Seen bits in global memory: the other blind kernels at the case's size are ruled out. */
static const char *const local_bits[] = {"flood.packets_one", "flood.packets_local", NULL};

static const model_shape_case cases[] = {
    {"whole packets", GRID_INI, 0, packet_kernels, NULL},
    {"whole packets, seen bits in global memory", GRID_INI, 0, packet_kernels, local_bits},
    {"whole packets, counter scheme",
     GRID_INI "scheme = counter\ncounter_threshold = 4\nassessment_delay = 2\n", 0,
     packet_kernels, NULL},
    {"25 600 nodes, one packet, whole packets", BIG_INI, 1, packet_kernels, NULL},
    {"25 600 nodes, one packet, seen bits in global memory", BIG_INI, 1, packet_kernels,
     local_bits},
    {"25 600 nodes, one packet, counter scheme", BIG_INI "scheme = counter\ncounter_threshold = 3\n",
     1, packet_kernels, NULL},
    {"window loop, static grid in 3 partitions",
     "[simulation]\nseed = 22\n[topology]\nplacement = grid\nrows = 16\ncols = 15\n"
     "spacing = 100\n[connectivity]\nrange = 100\n[traffic]\npackets = 6\ninterval = 1\n"
     "[flood]\nrelay_delay = 1\ndrop_probability = 0.1\n[partition]\ncount = 3\n",
     0, NULL, NULL},
    {"window loop, random waypoint in 3 partitions, re-tiled",
     "[simulation]\nseed = 23\n[topology]\nplacement = uniform\nnodes = 300\nwidth = 700\n"
     "height = 700\ndepth = 0\n[connectivity]\nrange = 100\n[mobility]\nmodel = rwp\n"
     "speed_min = 20\nspeed_max = 60\npause_max = 1\n[traffic]\npackets = 6\ninterval = 1\n"
     "[flood]\nrelay_delay = 0.5\ndrop_probability = 0.1\n[partition]\ncount = 3\n"
     "retile = 2\n",
     0, NULL, NULL},
    {"window loop, counter scheme, qudg under a cap, receive capacity",
     "[simulation]\nseed = 24\n[topology]\nplacement = uniform\nnodes = 300\nwidth = 500\n"
     "height = 500\ndepth = 0\n[connectivity]\nmodel = qudg\nrange = 100\nrange_min = 60\n"
     "link_probability = 0.7\nmax_neighbors = 7\n[traffic]\npackets = 6\ninterval = 0.3\n"
     "[flood]\nrelay_delay = 0.1\ndrop_probability = 0.05\nscheme = counter\n"
     "counter_threshold = 3\nassessment_delay = 0.2\n[resources]\nrx_capacity = 5\n",
     0, NULL, NULL},
};

/* Blind whole packets: three kernels of one work, sized by flood.packets, of which the run
 * takes the one-item or the local-memory kernel at that size when it can (flood_packets.c). */
static const char *const blind[] = {"flood.packets", "flood.packets_one", "flood.packets_local",
                                    NULL};
/* A small scenario cuts the whole-packet kernels' groups to powers of two from 32
 * (flood_packets.c). */
static const char *const cut[] = {"flood.packets", "flood.packets_scheme", NULL};
static const char *const families[] = {"flood", "cells", NULL};

/* Short, and covering every kernel of the flood model: a static grid floods whole packets
 * (flood_packets), the same grid in two partitions runs the window loop's CSR kernels, and a
 * mobile scenario the cell lists, mobility and re-tiling. */
static const char *const tune_ini[] = {
    "[topology]\nplacement = grid\nrows = 64\ncols = 64\nspacing = 100\n[connectivity]\n"
    "range = 100\n[traffic]\npackets = 10\ninterval = 1\n[flood]\nrelay_delay = 1\n"
    "drop_probability = 0.1\n",
    /* the same grid in two partitions: static scenarios on several devices or partitions run
     * the window loop's kernels (transmit, gather_spill) instead of flood_packets */
    "[topology]\nplacement = grid\nrows = 64\ncols = 64\nspacing = 100\n[connectivity]\n"
    "range = 100\n[traffic]\npackets = 10\ninterval = 1\n[flood]\nrelay_delay = 1\n"
    "drop_probability = 0.1\n[partition]\ncount = 2\n",
    "[topology]\nplacement = uniform\nnodes = 1500\nwidth = 885\nheight = 885\ndepth = 0\n"
    "[connectivity]\nrange = 100\n[mobility]\nmodel = rwp\nspeed_min = 1\nspeed_max = 5\n"
    "[traffic]\npackets = 4\ninterval = 1\n[flood]\nrelay_delay = 1\ndrop_probability = 0.1\n",
};

/* scan_add runs with scan_blocks' size (one size serves both): its time counts there. */
static const char *const joined[][2] = {{"cells.scan_blocks", "cells.scan_add"}};

const model_shapes flood_shapes = {
    .families = families,
    .cases = cases,
    .n_cases = (int)(sizeof cases / sizeof cases[0]),
    .variants = blind,
    .variants_name = "whole packets (flood_packets, flood_packets_one, flood_packets_local)",
    .cut = cut,
    .cut_from = 32,
    .tune_ini = tune_ini,
    .n_tune = (int)(sizeof tune_ini / sizeof tune_ini[0]),
    .tune_joined = joined,
    .n_joined = 1,
};
