#pragma OPENCL FP_CONTRACT OFF
/* The flood model of docs/model.md on the device. One window [T, T + L) runs:
 *   move_rwp (mobile scenarios, windows after the first)
 *   cell lists (mobile: every window with transmissions; static: once, then CSR lists)
 *   transmit (every transmission of the window with its receptions and relays, the source's
 *             new packets included)
 * Packets in flight occupy "slots": one bitset of seen nodes per slot. Transmissions are
 * (node, slot) entries of a frontier; relays are appended to the next window's frontier.
 * Every result is a set union or an integer sum, so the order in which work-items run, the
 * work-group size and the device cannot change it. */
#include "common/exchange.clh"
#include "common/philox.clh"
#include "common/geometry.clh"
#include "common/cells.clh"
#include "flood/flood_layout.clh"
#include "common/test_break.clh"

/* 64-bit counter kept as two 32-bit words, updated with 32-bit atomics only (OpenCL 1.2 core):
 * a carry out of the low word is added to the high word. Sums are exact modulo 2^64. */
inline void add64(volatile __global uint *c, ulong v)
{
    uint lo = (uint)v;
    uint hi = (uint)(v >> 32);
    uint old = atomic_add(&c[0], lo);
    if (old + lo < old)
        hi += 1u;
    if (hi)
        atomic_add(&c[1], hi);
}

/* Reads a word that other work-items of the same launch update with atomics. OpenCL C 1.2
 * defines no order between a plain access and an atomic one to the same word (a data race,
 * which oclgrind --data-races reports), and has no atomic load: an atomic or of nothing is
 * one. Only words that another work-item may change meanwhile are read this way. */
inline uint load_atomic(volatile __global uint *p)
{
    return atomic_or(p, 0u);
}

/* Adds V to the 128-bit control counter WORD (low 64 bits at WORD, high at CTL_HI(WORD)).
 * Each atomic add detects its own carry out and passes it on, so concurrent adds sum exactly
 * whatever their order; the top word cannot wrap (2^128 events). */
inline void add_wide(volatile __global uint *ctl, uint word, ulong v)
{
    uint lo = (uint)v;
    ulong mid = v >> 32;
    uint old = atomic_add(&ctl[word], lo);
    if (old + lo < old)
        mid += 1u; /* at most 2^32 */
    uint carry = (uint)(mid >> 32);
    if ((uint)mid != 0u) {
        uint old1 = atomic_add(&ctl[word + 1u], (uint)mid);
        if (old1 + (uint)mid < old1)
            carry = 1u;
    }
    if (carry)
        add64(&ctl[CTL_HI(word)], 1u);
}

/* ---- build options ---------------------------------------------------------------------- */

/* Connectivity qudg (docs/models.md): the host builds the program with -DFLOOD_QUDG=1 for
 * qudg scenarios. A constant rather than a kernel argument: udg kernels then compile to what
 * they were without qudg (a per-edge test and a position load per transmitter cost grid_flood
 * a quarter of its time on the H200 and a third on PoCL). */
#ifndef FLOOD_QUDG
#define FLOOD_QUDG 0
#endif

/* The neighbour cap K ([connectivity] max_neighbors, docs/models.md), -DFLOOD_CAP=K; 0: none.
 * A build option for the same reason, and because cap_select keeps K entries in private
 * arrays, whose size must be a constant. */
#ifndef FLOOD_CAP
#define FLOOD_CAP 0
#endif

/* Forwarding drop probability drawn per node ([flood] drop_probability = uniform(a, b),
 * docs/models.md): -DFLOOD_NODE_DROP=1, and each node's threshold comes from an array. */
#ifndef FLOOD_NODE_DROP
#define FLOOD_NODE_DROP 0
#endif

/* Work-items per transmission of transmit_mobile, -DFLOOD_TEAM=T (a power of two; the host
 * takes it from the platform profile's flood.transmit_mobile_team, host/models/flood/
 * flood_setup.c). 1: one work-item per transmission, the kernel it always was (CPUs keep it:
 * a PoCL work-item is a loop iteration, and a team only adds barriers' worth of bookkeeping).
 * A GPU with a few thousand transmissions per window fills few of its multiprocessors with
 * one item each, every item a long serial loop over its candidates; a team of T splits that
 * loop T ways (transmit_mobile says how). */
#ifndef FLOOD_TEAM
#define FLOOD_TEAM 1
#endif

/* Traffic flows ([traffic.flow NAME] sections, docs/models.md): -DFLOOD_FLOWS=1. Each packet
 * then has its own source, creation time and destination (or broadcast), which the window
 * descriptor brings with the new packet (NEW_WORDS words: slot, packet, source, time lo, time
 * hi, destination, flow) and the slot tables keep; and each window counts the deliveries of
 * every slot, so that the host can sum them per flow and per packet. Without flows a packet
 * is (slot, packet) and its time start + k x interval. */
#ifndef FLOOD_FLOWS
#define FLOOD_FLOWS 0
#endif
#if FLOOD_FLOWS
#define NEW_WORDS 7u
#else
#define NEW_WORDS 2u
#endif
#define BROADCAST 0xffffffffu

/* Forwarding schemes (docs/models.md, "Forwarding schemes"): -DFLOOD_SCHEME=1 (counter) or 2
 * (distance); 0: probabilistic, docs/model.md's rule. Under a scheme a transmission's hop
 * count no longer follows from its time (a node relays a whole number of windows after its
 * first reception), so a frontier entry carries it: (node, slot, hop count, 0) instead of (node,
 * slot). ENTRY_HOP(e, h) is the entry's hop count, H when entries do not carry one. */
#ifndef FLOOD_SCHEME
#define FLOOD_SCHEME 0
#endif
/* uints per slot of a window's delivery counts (FLOOD_FLOWS): the deliveries; under a scheme
 * also their hop counts summed (lo, hi) and the largest, which no longer follow from the
 * window (docs/models.md, "Forwarding schemes") */
#define DELIV_WORDS (FLOOD_SCHEME ? 4u : 1u)
#if FLOOD_SCHEME
typedef uint4 entry_t;
#define ENTRY(j, slot, h) ((uint4)((j), (slot), (uint)(h), 0u))
#define ENTRY_HOP(e, h) ((long)(e).z)
#else
typedef uint2 entry_t;
#define ENTRY(j, slot, h) ((uint2)((j), (slot)))
#define ENTRY_HOP(e, h) (h)
#endif
/* whether a reception needs the distance between its two nodes: qudg draws links by it, and
 * distance compares it with its threshold */
#define NEEDS_D2 (FLOOD_QUDG || FLOOD_SCHEME == 2)

/* Node i's cap threshold THR[i] = (d2, id) of its K-th nearest link, by (distance, id), or
 * (ULONG_MAX, ULONG_MAX) when it has at most K (cap_select). Whether the link to node J at
 * squared distance D2 comes no later than threshold T: */
inline int cap_within(ulong d2, uint j, ulong2 t)
{
    return d2 < t.x || (d2 == t.x && (ulong)j <= t.y);
}

/* Whether the link i-j of squared length D2 survives the cap: each end keeps the other. */
inline int cap_keeps(uint i, uint j, ulong d2, __global const ulong2 *thr)
{
    return cap_within(d2, j, thr[i]) && cap_within(d2, i, thr[j]);
}

/* ---- placement and mobility ---------------------------------------------------------- */

/* The placement kernels read the scenario's constants from the parameter block PRM
 * (flood_layout.clh), like every flood kernel: node count, grid, area, key. */
__kernel void place_grid(__global long4 *pos, __constant const flood_params *prm)
{
    uint i = get_global_id(0);
    if (i >= prm->nodes)
        return;
    uint cols = prm->cols;
    long spacing = prm->spacing;
    pos[i] = (long4)((long)(i % cols) * spacing, (long)(i / cols) * spacing, 0, 0);
}

/* Activity areas (docs/models.md): node i is node (r, c) of area a = i / PER_AREA, at
 * (a x PITCH + c x spacing, r x spacing, 0) with PITCH = (cols - 1) x spacing + 2 x range. */
__kernel void place_areas(__global long4 *pos, __constant const flood_params *prm)
{
    uint i = get_global_id(0);
    if (i >= prm->nodes)
        return;
    uint per_area = prm->per_area, cols = prm->cols;
    long spacing = prm->spacing, pitch = prm->pitch;
    uint a = i / per_area, k = i % per_area;
    pos[i] = (long4)((long)a * pitch + (long)(k % cols) * spacing, (long)(k / cols) * spacing, 0,
                     0);
}

inline long4 uniform_point(uint4 w, ulong W, ulong H, ulong D)
{
    return (long4)((long)philox_uniform(w.x, W), (long)philox_uniform(w.y, H),
                   (long)philox_uniform(w.z, D), 0);
}

__kernel void place_uniform(__global long4 *pos, __constant const flood_params *prm)
{
    uint i = get_global_id(0);
    if (i >= prm->nodes)
        return;
    uint2 key = (uint2)(prm->key_lo, prm->key_hi);
    pos[i] = uniform_point(philox_draw(key, i, 0u, STREAM_PLACEMENT), prm->width, prm->height,
                           prm->depth);
}

/* Leg m of node i: its waypoint and speed (mm/s) from ctr {i, m, 3, 0}. */
inline void rwp_leg(uint2 key, uint i, uint m, ulong W, ulong H, ulong D, long vmin, long vmax,
                    __global long4 *waypoint, __global long *speed)
{
    uint4 w = philox_draw(key, i, m, STREAM_MOBILITY_LEG);
    waypoint[i] = uniform_point(w, W, H, D);
    speed[i] = philox_between(w.w, vmin, vmax);
}

/* The *_init kernels run once per run of ids [first, N) of their model (the launch's global
 * offset is FIRST): the run's own speeds and times come as arguments (runs of one model may
 * differ), the scenario's key and area from the parameter block PRM. */
__kernel void rwp_init(uint n, __constant const flood_params *prm, long vmin, long vmax,
                       __global long4 *waypoint, __global long *speed, __global uint *leg,
                       __global long *pause_end)
{
    uint i = get_global_id(0);
    if (i >= n)
        return;
    leg[i] = 0u;
    pause_end[i] = 0;
    rwp_leg((uint2)(prm->key_lo, prm->key_hi), i, 0u, prm->width, prm->height, prm->depth,
            vmin, vmax, waypoint, speed);
}

/* One window's step of random waypoint, applied at the window's start T. A node pausing
 * until after T stays; otherwise it spends its budget b = v * L / 10^9 mm toward the waypoint
 * and, on reaching it, draws its pause (ctr {i, m, 4, 0}, in ms) and its next leg. The fourth
 * component of a position is not a coordinate and is kept: with several partitions it holds
 * the node's partition (stamp_parts), which transmit_mobile reads with the position. */
inline void rwp_move_node(__global long4 *pos, uint i, uint2 key, ulong W, ulong H, ulong D,
                          long vmin, long vmax, long pmin_ms, long pmax_ms, long T, long L,
                          __global long4 *waypoint, __global long *speed, __global uint *leg,
                          __global long *pause_end)
{
    if (T < pause_end[i])
        return;
    long4 p = pos[i], wp = waypoint[i];
    long b = speed[i] * L / 1000000000L;
    long dx = wp.x - p.x, dy = wp.y - p.y, dz = wp.z - p.z;
    long d = (long)isqrt64((ulong)(dx * dx) + (ulong)(dy * dy) + (ulong)(dz * dz));
    if (d <= b) {
        uint m = leg[i];
        uint4 w = philox_draw(key, i, m, STREAM_MOBILITY_PAUSE);
        long pause_ms = philox_between(w.x, pmin_ms, pmax_ms);
        pos[i] = (long4)(wp.x, wp.y, wp.z, p.w);
        pause_end[i] = T + pause_ms * 1000000L;
        leg[i] = m + 1u;
        rwp_leg(key, i, m + 1u, W, H, D, vmin, vmax, waypoint, speed);
    } else {
        pos[i] = (long4)(p.x + dx * b / d, p.y + dy * b / d, p.z + dz * b / d, p.w);
    }
}

/* Every kernel of a mobility step runs over ids [first, n): the launch's global offset is
 * FIRST, so that a model's kernel serves one run of ids of a mobility group. A model's own
 * step kernel runs when one run of ids moves: its parameters are the parameter block's (PRM);
 * the window's start T (and random_walk's window) are arguments. Each takes the cell lists'
 * ranks last (CELLS_RANK_PARAMS, cl/common/cells.clh), which the host turns on only when the
 * launch moves every node: the node's cell is computed here, where its position is at hand,
 * and the lists are then built in one launch (host/engine/cell_lists.h, ranked builds). */
inline void rwp_step(__global long4 *pos, uint i, __constant const flood_params *prm, long T,
                     __global long4 *waypoint, __global long *speed, __global uint *leg,
                     __global long *pause_end)
{
    rwp_move_node(pos, i, (uint2)(prm->key_lo, prm->key_hi), prm->width, prm->height,
                  prm->depth, prm->vmin, prm->vmax, prm->pmin_ms, prm->pmax_ms, T, prm->L,
                  waypoint, speed, leg, pause_end);
}

__kernel void move_rwp(__global long4 *pos, uint n, __constant const flood_params *prm, long T,
                       __global long4 *waypoint, __global long *speed, __global uint *leg,
                       __global long *pause_end, CELLS_RANK_PARAMS)
{
    uint i = get_global_id(0);
    cells_rank_clear(CELLS_RANK_PASS);
    if (i >= n)
        return;
    rwp_step(pos, i, prm, T, waypoint, speed, leg, pause_end);
    cells_rank_node(pos[i], i, CELLS_RANK_PASS);
}

/* ---- linear and random_walk (docs/models.md, "Mobility") ------------------------------- */

/* A walk's per-window distance is at most this many mm, so that direction x distance fits. */
#define WALK_BUDGET_MAX (1L << 40)

/* Direction of a walk draw: each component (w >> 11) - 2^20, z only in 3-D (D > 0). */
inline long4 walk_direction(uint4 w, ulong D)
{
    return (long4)((long)(w.x >> 11) - 1048576L, (long)(w.y >> 11) - 1048576L,
                   D > 0 ? (long)(w.z >> 11) - 1048576L : 0L, 0L);
}

/* A walk draw ctr {i, ITEM, STREAM, 0}: the direction (walk_direction) and, in *V, a speed
 * uniform in [VMIN, VMAX] from w3. */
inline long4 walk_draw(uint2 key, uint i, uint item, uint stream, ulong D, long vmin, long vmax,
                       long *v)
{
    uint4 w = philox_draw(key, i, item, stream);
    *v = philox_between(w.w, vmin, vmax);
    return walk_direction(w, D);
}

inline long floor_div64(long a, long b)
{
    long q = a / b;
    return (a % b != 0 && a < 0) ? q - 1 : q;
}

/* One coordinate after a move from P to X on an axis of side S > 0, under boundary POLICY
 * (0 stop, 1 slide, 2 bounce, 3 wrap). *DIR is the direction component: bounce negates it
 * after an odd number of reflections, slide zeroes it. */
inline long walk_boundary(long p, long x, long S, int policy, long *dir)
{
    if (policy == 3)
        return x - floor_div64(x, S) * S; /* [0, S) */
    if (x >= 0 && x <= S)
        return x;
    if (policy == 0)
        return x < 0 ? 0 : S;
    if (policy == 1) {
        *dir = 0;
        return p;
    }
    long q = floor_div64(x, S), r = x - q * S;
    if (q & 1) {
        *dir = -*dir;
        return S - r;
    }
    return r;
}

/* Moves node I of POS one window (L ns) along direction D at speed V (mm/s), meeting the
 * boundary POLICY on each axis of nonzero side; returns the direction as the sides left it.
 * The fourth component of a position is kept (stamp_parts). */
inline long4 walk_step(__global long4 *pos, uint i, long4 d, long v, long L, ulong W, ulong H,
                       ulong D, int policy)
{
    long len = (long)isqrt64((ulong)(d.x * d.x) + (ulong)(d.y * d.y) + (ulong)(d.z * d.z));
    if (len == 0)
        return d;
    long b = min(v * L / 1000000000L, WALK_BUDGET_MAX);
    long4 p = pos[i];
    long pc[3] = {p.x, p.y, p.z}, dc[3] = {d.x, d.y, d.z}, side[3] = {(long)W, (long)H, (long)D};
    for (int c = 0; c < 3; c++)
        if (side[c] > 0)
            pc[c] = walk_boundary(pc[c], pc[c] + dc[c] * b / len, side[c], policy, &dc[c]);
    pos[i] = (long4)(pc[0], pc[1], pc[2], p.w);
    return (long4)(dc[0], dc[1], dc[2], 0);
}

/* linear: each node's direction and speed, drawn once from ctr {i, 0, 7, 0}. */
__kernel void walk_init(uint n, __constant const flood_params *prm, long vmin, long vmax,
                        __global long4 *dir, __global long *speed)
{
    uint i = get_global_id(0);
    if (i >= n)
        return;
    long v;
    dir[i] = walk_draw((uint2)(prm->key_lo, prm->key_hi), i, 0u, STREAM_WALK, prm->depth, vmin,
                       vmax, &v);
    speed[i] = v;
}

/* One window's step of linear (FRESH = 0: the node's own direction and speed) or random_walk
 * (FRESH = 1: drawn for this window from ctr {i, WINDOW, 7, 0}), applied at the window's
 * start. The node moves by direction x b / |direction| per axis (C division), b = v L / 10^9
 * mm (at most WALK_BUDGET_MAX), then each axis of nonzero side meets the boundary policy; an
 * axis of side 0 does not move. The fourth component of a position is kept (stamp_parts). */
inline void walk_move_node(__global long4 *pos, uint i, uint2 key, ulong W, ulong H, ulong D,
                           long vmin, long vmax, long L, uint window, int fresh, int policy,
                           __global long4 *dir, __global long *speed)
{
    long4 d;
    long v;
    if (fresh) {
        d = walk_draw(key, i, window, STREAM_WALK, D, vmin, vmax, &v);
    } else {
        d = dir[i];
        v = speed[i];
    }
    d = walk_step(pos, i, d, v, L, W, H, D, policy);
    if (!fresh)
        dir[i] = d;
}

inline void walk_step_node(__global long4 *pos, uint i, __constant const flood_params *prm,
                           uint window, __global long4 *dir, __global long *speed)
{
    walk_move_node(pos, i, (uint2)(prm->key_lo, prm->key_hi), prm->width, prm->height,
                   prm->depth, prm->vmin, prm->vmax, prm->L, window, (int)prm->fresh,
                   (int)prm->policy, dir, speed);
}

__kernel void move_walk(__global long4 *pos, uint n, __constant const flood_params *prm,
                        uint window, __global long4 *dir, __global long *speed,
                        CELLS_RANK_PARAMS)
{
    uint i = get_global_id(0);
    cells_rank_clear(CELLS_RANK_PASS);
    if (i >= n)
        return;
    walk_step_node(pos, i, prm, window, dir, speed);
    cells_rank_node(pos[i], i, CELLS_RANK_PASS);
}

/* random_direction: a node's phases (LEG: even 2m, travelling leg m; odd 2m + 1, pausing
 * after it) end at PHASE_END (ns). At each window start T >= 1 L the phases that have ended
 * are left: a leg's end draws its pause (ctr {i, m, 9, 0}.w1) to T + pause, a pause's end
 * draws leg m + 1 (direction and speed from ctr {i, m + 1, 8, 0}, travel time from
 * ctr {i, m + 1, 9, 0}.w0) to T + travel; a travelling node then takes one walk step. Travel
 * times are at least 1 ms, so at most three phases change in one window. */
__kernel void direction_init(uint n, __constant const flood_params *prm, long vmin, long vmax,
                             long tmin_ms, long tmax_ms, __global long4 *dir,
                             __global long *speed, __global uint *leg,
                             __global long *phase_end)
{
    uint i = get_global_id(0);
    if (i >= n)
        return;
    uint2 key = (uint2)(prm->key_lo, prm->key_hi);
    long v;
    dir[i] = walk_draw(key, i, 0u, STREAM_DIRECTION, prm->depth, vmin, vmax, &v);
    speed[i] = v;
    uint4 q = philox_draw(key, i, 0u, STREAM_LEG_TIMES);
    leg[i] = 0u;
    phase_end[i] = philox_between(q.x, tmin_ms, tmax_ms) * 1000000L;
}

inline void direction_move_node(__global long4 *pos, uint i, uint2 key, ulong W, ulong H,
                                ulong D, long vmin, long vmax, long tmin_ms, long tmax_ms,
                                long pmin_ms, long pmax_ms, long T, long L, int policy,
                                __global long4 *dir, __global long *speed, __global uint *leg,
                                __global long *phase_end)
{
    uint ph = leg[i];
    long end = phase_end[i];
    long4 d = dir[i];
    long v = speed[i];
    for (int turn = 0; turn < 3; turn++) {
        if ((ph & 1u) == 0u) { /* travelling leg ph / 2 */
            if (T < end) {
                d = walk_step(pos, i, d, v, L, W, H, D, policy);
                break;
            }
            uint4 q = philox_draw(key, i, ph / 2u, STREAM_LEG_TIMES);
            end = T + philox_between(q.y, pmin_ms, pmax_ms) * 1000000L;
        } else { /* pausing after leg ph / 2 */
            if (T < end)
                break;
            uint m = ph / 2u + 1u;
            d = walk_draw(key, i, m, STREAM_DIRECTION, D, vmin, vmax, &v);
            uint4 q = philox_draw(key, i, m, STREAM_LEG_TIMES);
            end = T + philox_between(q.x, tmin_ms, tmax_ms) * 1000000L;
        }
        ph++;
    }
    leg[i] = ph;
    phase_end[i] = end;
    dir[i] = d;
    speed[i] = v;
}

inline void direction_step(__global long4 *pos, uint i, __constant const flood_params *prm,
                           long T, __global long4 *dir, __global long *speed, __global uint *leg,
                           __global long *phase_end)
{
    direction_move_node(pos, i, (uint2)(prm->key_lo, prm->key_hi), prm->width, prm->height,
                        prm->depth, prm->vmin, prm->vmax, prm->tmin_ms, prm->tmax_ms,
                        prm->pmin_ms, prm->pmax_ms, T, prm->L, (int)prm->policy, dir, speed,
                        leg, phase_end);
}

__kernel void move_direction(__global long4 *pos, uint n, __constant const flood_params *prm,
                             long T, __global long4 *dir, __global long *speed,
                             __global uint *leg, __global long *phase_end, CELLS_RANK_PARAMS)
{
    uint i = get_global_id(0);
    cells_rank_clear(CELLS_RANK_PASS);
    if (i >= n)
        return;
    direction_step(pos, i, prm, T, dir, speed, leg, phase_end);
    cells_rank_node(pos[i], i, CELLS_RANK_PASS);
}

/* ---- grid_walk (docs/models.md, "grid_walk") -------------------------------------------- */

/* The heading a node at intersection (X, Y) takes with turn draw W0, coming with heading HP
 * (4: none): uniform among +x, +y, -x, -y (in that order) that stay within [0, XM] x [0, YM],
 * less the way back unless it is the only one; 4 (stay) when there is none. */
inline long grid_turn(long x, long y, long xm, long ym, long hp, uint w0)
{
    int ok[4] = {x < xm, y < ym, x > 0, y > 0};
    int n = ok[0] + ok[1] + ok[2] + ok[3];
    if (n == 0)
        return 4;
    if (hp < 4 && n > 1 && ok[(hp + 2) % 4]) {
        ok[(hp + 2) % 4] = 0;
        n--;
    }
    long pick = (long)philox_uniform(w0, (ulong)n);
    for (int h = 0; h < 4; h++)
        if (ok[h] && pick-- == 0)
            return h;
    return 4;
}

/* grid_walk start: each node to the intersection nearest to its placement (ties up, at most
 * the last street), a speed and a first heading from ctr {i, 0, 10, 0}. The heading is kept in
 * DIR.x, the number of turn draws made in LEG. */
__kernel void grid_init(__global long4 *pos, uint n, __constant const flood_params *prm, long s,
                        long xm, long ym, long vmin, long vmax, __global long4 *dir,
                        __global long *speed, __global uint *leg)
{
    uint i = get_global_id(0);
    if (i >= n)
        return;
    uint2 key = (uint2)(prm->key_lo, prm->key_hi);
    long4 p = pos[i];
    long x = min((p.x + s / 2) / s * s, xm), y = min((p.y + s / 2) / s * s, ym);
    pos[i] = (long4)(x, y, p.z, p.w);
    uint4 w = philox_draw(key, i, 0u, STREAM_GRID_TURN);
    speed[i] = philox_between(w.w, vmin, vmax);
    dir[i] = (long4)(grid_turn(x, y, xm, ym, 4, w.x), 0, 0, 0);
    leg[i] = 1u;
}

/* One window of grid_walk: the node runs b = v L / 10^9 mm along its heading; at every
 * intersection it reaches it turns (turn draw ctr {i, t, 10, 0}, t counting in LEG). The
 * configuration bounds b by 64 street spacings, so the loop is bounded. */
inline void grid_move_node(__global long4 *pos, uint i, uint2 key, long s, long xm, long ym,
                           long L, __global long4 *dir, __global long *speed, __global uint *leg)
{
    long h = dir[i].x;
    if (h >= 4)
        return;
    long b = min(speed[i] * L / 1000000000L, WALK_BUDGET_MAX);
    long4 p = pos[i];
    uint t = leg[i];
    for (int step = 0; step < 200; step++) {
        long u = (h & 1) ? p.y : p.x, r = u % s;
        long dist = (h < 2) ? s - r : (r != 0 ? r : s);
        long go = min(b, dist), sign = h < 2 ? 1 : -1;
        if (h & 1)
            p.y += sign * go;
        else
            p.x += sign * go;
        if (b < dist)
            break;
        b -= dist;
        h = grid_turn(p.x, p.y, xm, ym, h, philox_draw(key, i, t, STREAM_GRID_TURN).x);
        t++;
        if (h >= 4)
            break;
    }
    pos[i] = p;
    dir[i] = (long4)(h, 0, 0, 0);
    leg[i] = t;
}

inline void grid_step(__global long4 *pos, uint i, __constant const flood_params *prm,
                      __global long4 *dir, __global long *speed, __global uint *leg)
{
    grid_move_node(pos, i, (uint2)(prm->key_lo, prm->key_hi), prm->street, prm->xm, prm->ym,
                   prm->L, dir, speed, leg);
}

__kernel void move_grid(__global long4 *pos, uint n, __constant const flood_params *prm,
                        __global long4 *dir, __global long *speed, __global uint *leg,
                        CELLS_RANK_PARAMS)
{
    uint i = get_global_id(0);
    cells_rank_clear(CELLS_RANK_PASS);
    if (i >= n)
        return;
    grid_step(pos, i, prm, dir, speed, leg);
    cells_rank_node(pos[i], i, CELLS_RANK_PASS);
}

/* ---- mobility groups (docs/models.md, "Mobility groups") ------------------------------ */

/* Entries of a segment row of move_groups' table (host: flood_setup.c). */
#define SEG_FIRST 0
#define SEG_MODEL 1
#define SEG_VMIN 2
#define SEG_VMAX 3
#define SEG_PMIN 4
#define SEG_PMAX 5
#define SEG_TMIN 6
#define SEG_TMAX 7
#define SEG_STREET 8
#define SEG_XM 9
#define SEG_YM 10
#define SEG_POLICY 11
#define SEG_WORDS 12

/* One window's step when several runs of ids move by different models or parameters: each
 * node finds its run in SEG (NSEG rows of SEG_WORDS, by first id ascending, covering every
 * id) and takes its model's step. Runs are contiguous, so work-groups rarely mix models. */
inline void groups_step(__global long4 *pos, uint i, __constant const flood_params *prm, long T,
                        uint window, __global const long *seg, uint nseg,
                        __global long4 *waypoint, __global long *speed, __global uint *leg,
                        __global long *pause_end)
{
    uint2 key = (uint2)(prm->key_lo, prm->key_hi);
    ulong W = prm->width, H = prm->height, D = prm->depth;
    long L = prm->L;
    uint lo = 0, hi = nseg; /* the last row whose first id is <= i */
    while (hi - lo > 1) {
        uint mid = (lo + hi) / 2;
        if (seg[mid * SEG_WORDS + SEG_FIRST] <= (long)i)
            lo = mid;
        else
            hi = mid;
    }
    __global const long *g = seg + lo * SEG_WORDS;
    long model = g[SEG_MODEL], vmin = g[SEG_VMIN], vmax = g[SEG_VMAX];
    int policy = (int)g[SEG_POLICY];
    if (model == 1)
        rwp_move_node(pos, i, key, W, H, D, vmin, vmax, g[SEG_PMIN], g[SEG_PMAX], T, L,
                      waypoint, speed, leg, pause_end);
    else if (model == 2 || model == 3)
        walk_move_node(pos, i, key, W, H, D, vmin, vmax, L, window, model == 3, policy,
                       waypoint, speed);
    else if (model == 4)
        direction_move_node(pos, i, key, W, H, D, vmin, vmax, g[SEG_TMIN], g[SEG_TMAX],
                            g[SEG_PMIN], g[SEG_PMAX], T, L, policy, waypoint, speed, leg,
                            pause_end);
    else if (model == 5)
        grid_move_node(pos, i, key, g[SEG_STREET], g[SEG_XM], g[SEG_YM], L, waypoint, speed,
                       leg);
}

__kernel void move_groups(__global long4 *pos, uint n, __constant const flood_params *prm,
                          long T, uint window, __global const long *seg, uint nseg,
                          __global long4 *waypoint, __global long *speed, __global uint *leg,
                          __global long *pause_end, CELLS_RANK_PARAMS)
{
    uint i = get_global_id(0);
    cells_rank_clear(CELLS_RANK_PASS);
    if (i >= n)
        return;
    groups_step(pos, i, prm, T, window, seg, nseg, waypoint, speed, leg, pause_end);
    cells_rank_node(pos[i], i, CELLS_RANK_PASS);
}

/* The next window's mobility step inside transmit_mobile's launch (FLOOD_STEP: 0 none, else
 * the window's step kernel as a code: 1 move_rwp, 2 move_walk, 3 move_direction, 4 move_grid,
 * 5 move_groups; host/models/flood/flood_fuse.c). Only that model's code is built into the
 * transmit kernel, which keeps its registers, and so its occupancy, those of the transmit. */
#ifndef FLOOD_STEP
#define FLOOD_STEP 0
#endif
inline void fused_step(__global long4 *pos, uint i, __constant const flood_params *prm, long T,
                       uint window, __global const long *seg, uint nseg,
                       __global long4 *waypoint, __global long *speed, __global uint *leg,
                       __global long *pause_end)
{
#if FLOOD_STEP == 1
    rwp_step(pos, i, prm, T, waypoint, speed, leg, pause_end);
#elif FLOOD_STEP == 2
    walk_step_node(pos, i, prm, window, waypoint, speed);
#elif FLOOD_STEP == 3
    direction_step(pos, i, prm, T, waypoint, speed, leg, pause_end);
#elif FLOOD_STEP == 4
    grid_step(pos, i, prm, waypoint, speed, leg);
#elif FLOOD_STEP == 5
    groups_step(pos, i, prm, T, window, seg, nseg, waypoint, speed, leg, pause_end);
#endif
}

/* ---- neighbour lists of static scenarios ---------------------------------------------- */

/* The cells around position P, clipped to the grid: x0_ .. x1_, y0_ .. y1_, z0_ .. z1_ (the
 * names the candidate loops below read). */
#define CANDIDATE_CELLS(p)                                                                  \
    uint cx_ = cell_axis((p).x, side, nx), cy_ = cell_axis((p).y, side, ny);                \
    uint cz_ = cell_axis((p).z, side, nz);                                                  \
    uint z0_ = cz_ > 0 ? cz_ - 1 : 0, z1_ = cz_ + 1 < nz ? cz_ + 1 : cz_;                   \
    uint y0_ = cy_ > 0 ? cy_ - 1 : 0, y1_ = cy_ + 1 < ny ? cy_ + 1 : cy_;                   \
    uint x0_ = cx_ > 0 ? cx_ - 1 : 0, x1_ = cx_ + 1 < nx ? cx_ + 1 : cx_

/* Visits the nodes of the cells adjacent to position p (3x3 in 2-D, 3x3x3 in 3-D). */
#define FOR_EACH_CANDIDATE(p, j, BODY)                                                      \
    do {                                                                                    \
        CANDIDATE_CELLS(p);                                                                 \
        for (uint z_ = z0_; z_ <= z1_; z_++)                                                \
            for (uint y_ = y0_; y_ <= y1_; y_++) {                                          \
                uint row_ = (z_ * ny + y_) * nx;                                            \
                uint a_ = cell_start[row_ + x0_], e_ = cell_start[row_ + x1_ + 1];          \
                for (uint q_ = a_; q_ < e_; q_++) {                                         \
                    uint j = cell_nodes[q_];                                                \
                    BODY                                                                    \
                }                                                                           \
            }                                                                               \
    } while (0)

/* FOR_EACH_CANDIDATE's candidates shared by a team of TEAM work-items (a power of two), this
 * one being member MEMBER: the candidates of the 3 (2-D) or 9 (3-D) rows of cells, each row a
 * run of cell_nodes, are numbered on across the rows, and the member takes those whose number
 * is MEMBER modulo TEAM (a row's first such is MEMBER - BEFORE_ modulo TEAM past its start,
 * which the unsigned difference gives: 2^32 is a multiple of TEAM). Every member gets the
 * floor or the ceiling of count / TEAM, however the nodes fill the cells, and the members of
 * a team read neighbouring words of cell_nodes at each step. (A share of the cells instead
 * would give 27 or 9 shares of unequal size to 8 or 32 members: some idle, the others as
 * slow as the fullest cells.)
 * FOR_EACH_CANDIDATE_SHARE_POS (FLOOD_SORTED: built where the cell lists come from ranks,
 * which also place the positions) gives each candidate J its position PJ: from SORTED_POS at
 * J's place in cell_nodes when SORTED (the last build placed them, cells.scatter_ranked: a
 * team reads them as one run beside the node numbers, and no read waits for another), else
 * from POS[J]; and each member loads its next candidate before it handles the current one, so
 * that the loads overlap the handling (whose atomics keep the compiler from moving them). */
#define FOR_EACH_CANDIDATE_SHARE(p, j, member, team, BODY)                                  \
    do {                                                                                    \
        CANDIDATE_CELLS(p);                                                                 \
        uint before_ = 0; /* the candidates of the rows before */                           \
        for (uint z_ = z0_; z_ <= z1_; z_++)                                                \
            for (uint y_ = y0_; y_ <= y1_; y_++) {                                          \
                uint row_ = (z_ * ny + y_) * nx;                                            \
                uint a_ = cell_start[row_ + x0_], e_ = cell_start[row_ + x1_ + 1];          \
                for (uint q_ = a_ + (((member) - before_) & ((team) - 1u)); q_ < e_;         \
                     q_ += (team)) {                                                        \
                    uint j = cell_nodes[q_];                                                \
                    BODY                                                                    \
                }                                                                           \
                before_ += e_ - a_;                                                         \
            }                                                                               \
    } while (0)

#ifndef FLOOD_SORTED
#define FLOOD_SORTED 0
#endif
#if FLOOD_SORTED
#define FOR_EACH_CANDIDATE_SHARE_POS(p, j, pj, member, team, sorted, sorted_pos, pos, BODY)  \
    do {                                                                                    \
        CANDIDATE_CELLS(p);                                                                 \
        uint before_ = 0; /* the candidates of the rows before */                           \
        for (uint z_ = z0_; z_ <= z1_; z_++)                                                \
            for (uint y_ = y0_; y_ <= y1_; y_++) {                                          \
                uint row_ = (z_ * ny + y_) * nx;                                            \
                uint a_ = cell_start[row_ + x0_], e_ = cell_start[row_ + x1_ + 1];          \
                uint q_ = a_ + (((member) - before_) & ((team) - 1u));                      \
                uint jn_ = 0u;                                                              \
                long4 pn_ = (long4)(0);                                                     \
                if (q_ < e_) {                                                              \
                    jn_ = cell_nodes[q_];                                                   \
                    pn_ = (sorted) ? (sorted_pos)[q_] : (pos)[jn_];                         \
                }                                                                           \
                for (; q_ < e_; q_ += (team)) {                                             \
                    uint j = jn_;                                                           \
                    long4 pj = pn_;                                                         \
                    if (q_ + (team) < e_) {                                                 \
                        jn_ = cell_nodes[q_ + (team)];                                      \
                        pn_ = (sorted) ? (sorted_pos)[q_ + (team)] : (pos)[jn_];            \
                    }                                                                       \
                    BODY                                                                    \
                }                                                                           \
                before_ += e_ - a_;                                                         \
            }                                                                               \
    } while (0)
#endif

/* FOR_EACH_CANDIDATE_SHARE_POS over fixed cells (FLOOD_FIXED: the lists written by the
 * ranking itself, cl/common/cells.clh; transmit_mobile's fx_ names): cell c's first
 * min(count, fx_cap) nodes lie at slots c x fx_cap on of fx_nodes, their positions beside
 * them in fx_pos. A row's (up to) three cells are read as one run of candidates, numbered on
 * across the rows as in FOR_EACH_CANDIDATE_SHARE, with the same loads one candidate ahead;
 * their counts are loaded together, before the run. A cell counted past the capacity also
 * has the overflow slots whose fx_cell names it (fx_over of them, after all the cells'
 * slots), which the team shares by their number. */
#ifndef FLOOD_FIXED
#define FLOOD_FIXED 0
#endif
#if FLOOD_FIXED
/* Slot of candidate T of a row: the row's first cell holds candidates 0 .. M0 - 1 from slot
 * B0 on, the second M0 .. M01 - 1 from B1 + M0, the third the rest from B2 + M01 (B1 and B2
 * are their cells' first slots less the candidates before them, so each is one addition) */
#define FIXED_ROW_SLOT(t, m0, m01, b0, b1, b2)                                              \
    ((t) + ((t) < (m0) ? (b0) : (t) < (m01) ? (b1) : (b2)))
#define FOR_EACH_CANDIDATE_FIXED(p, j, pj, member, team, BODY)                              \
    do {                                                                                    \
        CANDIDATE_CELLS(p);                                                                 \
        uint before_ = 0; /* the candidates of the rows before */                           \
        uint wide_ = x1_ - x0_; /* the row's cells past its first: 0 to 2 */                \
        for (uint z_ = z0_; z_ <= z1_; z_++)                                                \
            for (uint y_ = y0_; y_ <= y1_; y_++) {                                          \
                uint c0_ = (z_ * ny + y_) * nx + x0_;                                       \
                uint n0_ = fx_counts[c0_];                                                  \
                uint n1_ = wide_ >= 1u ? fx_counts[c0_ + 1u] : 0u;                          \
                uint n2_ = wide_ >= 2u ? fx_counts[c0_ + 2u] : 0u;                          \
                uint m0_ = min(n0_, fx_cap), m01_ = m0_ + min(n1_, fx_cap);                 \
                uint e_ = m01_ + min(n2_, fx_cap);                                          \
                uint b0_ = c0_ * fx_cap, b1_ = b0_ + fx_cap - m0_;                          \
                uint b2_ = b0_ + 2u * fx_cap - m01_;                                        \
                uint t_ = ((member) - before_) & ((team) - 1u);                             \
                uint jn_ = 0u;                                                              \
                long4 pn_ = (long4)(0);                                                     \
                if (t_ < e_) {                                                              \
                    uint s_ = FIXED_ROW_SLOT(t_, m0_, m01_, b0_, b1_, b2_);                 \
                    jn_ = fx_nodes[s_];                                                     \
                    pn_ = fx_pos[s_];                                                       \
                }                                                                           \
                for (; t_ < e_; t_ += (team)) {                                             \
                    uint j = jn_;                                                           \
                    long4 pj = pn_;                                                         \
                    if (t_ + (team) < e_) {                                                 \
                        uint s_ = FIXED_ROW_SLOT(t_ + (team), m0_, m01_, b0_, b1_, b2_);    \
                        jn_ = fx_nodes[s_];                                                 \
                        pn_ = fx_pos[s_];                                                   \
                    }                                                                       \
                    BODY                                                                    \
                }                                                                           \
                before_ += e_;                                                              \
                if (max(n0_, max(n1_, n2_)) > fx_cap)                                       \
                    for (uint k_ = (member); k_ < fx_over; k_ += (team))                    \
                        if (fx_cell[k_] - c0_ <= wide_) {                                   \
                            uint j = fx_nodes[fx_cells_slots + k_];                         \
                            long4 pj = fx_pos[fx_cells_slots + k_];                         \
                            BODY                                                            \
                        }                                                                   \
            }                                                                               \
    } while (0)
#endif

/* Whether node J receives in partition PART (every node does when there is one partition). */
#define OWNED(j) (nparts <= 1u || part_of[(j)] == part)

/* The cap filters the lists of udg, whose graph never changes; under qudg they hold every pair
 * within range, and the links and the cap are decided per window by the transmit kernel. */
#define CSR_CAP_KEEPS(i, j, d2) (FLOOD_CAP == 0 || FLOOD_QUDG || cap_keeps((i), (j), (d2), cap_thr))

/* The cell grid and the range, from the parameter block PRM, under the names
 * FOR_EACH_CANDIDATE reads. */
#define GRID_FROM_PARAMS(prm)                                                               \
    ulong range2 = (prm)->range2;                                                           \
    long side = (prm)->side;                                                                \
    uint nx = (prm)->nx, ny = (prm)->ny, nz = (prm)->nz

/* The lists of a partition: for every transmitter i (of any partition), its neighbours that
 * belong to partition PART, the receptions that partition handles. */
__kernel void csr_count(__global const long4 *pos, __constant const flood_params *prm,
                        __global const uint *cell_start, __global const uint *cell_nodes,
                        __global uint *degree, __global const ushort *part_of, uint part,
                        uint nparts, __global const ulong2 *cap_thr)
{
    uint i = get_global_id(0);
    if (i >= prm->nodes)
        return;
    GRID_FROM_PARAMS(prm);
    long4 p = pos[i];
    uint deg = 0;
    FOR_EACH_CANDIDATE(p, j, {
        if (j != i && OWNED(j)) {
            ulong d2 = dist2(p, pos[j]);
            if (d2 <= range2 && CSR_CAP_KEEPS(i, j, d2))
                deg++;
        }
    });
    degree[i] = deg;
}

__kernel void csr_fill(__global const long4 *pos, __constant const flood_params *prm,
                       __global const uint *cell_start, __global const uint *cell_nodes,
                       __global const uint *offsets, __global uint *neighbours,
                       __global const ushort *part_of, uint part, uint nparts,
                       __global const ulong2 *cap_thr)
{
    uint i = get_global_id(0);
    if (i >= prm->nodes)
        return;
    GRID_FROM_PARAMS(prm);
    long4 p = pos[i];
    uint at = offsets[i];
    FOR_EACH_CANDIDATE(p, j, {
        if (j != i && OWNED(j)) {
            ulong d2 = dist2(p, pos[j]);
            if (d2 <= range2 && CSR_CAP_KEEPS(i, j, d2))
                neighbours[at++] = j;
        }
    });
}

/* ---- packets ---------------------------------------------------------------------------- */

/* Parameters of one window's transmissions, the same for every work-item. */
typedef struct window_params {
    long T, L, start, interval, duration;
    ulong drop_threshold;
    uint2 key;
    uint source, destination, ttl, words;
    ulong rmin2, link_thr;   /* qudg: r_min^2 (mm^2) and thr(link_probability) */
    __global const ulong *node_drop; /* FLOOD_NODE_DROP: each node's drop threshold */
    __global uint *deliv;    /* FLOOD_FLOWS: the window's deliveries per slot */
} window_params;

/* A window's parameters from the parameter block (flood_layout.clh), read once per
 * work-item: T, the window's start (0 for whole packets, whose walk keeps its own times), and
 * the nodes' drop thresholds NODE_DROP come as arguments. */
inline window_params params_window(__constant const flood_params *prm, long T,
                                   __global const ulong *node_drop)
{
    window_params w = {T,
                       prm->L,
                       prm->start,
                       prm->interval,
                       prm->duration,
                       prm->drop_threshold,
                       (uint2)(prm->key_lo, prm->key_hi),
                       prm->source,
                       prm->destination,
                       prm->ttl,
                       prm->words,
                       prm->rmin2,
                       prm->link_thr,
                       node_drop,
                       0};
    return w;
}

/* Node J's drop threshold: its own under a law drawn per node, else the scenario's. */
#define DROP_THRESHOLD(w, j) (FLOOD_NODE_DROP ? (w)->node_drop[(j)] : (w)->drop_threshold)

/* QUDG (docs/models.md, "Connectivity"): nodes I and J at squared distance D2 (never more
 * than range^2: the caller's test) are linked in window WIN when D2 <= r_min^2, else when w0
 * of ctr {min(i, j), max(i, j), 5, WIN} is below thr(link_probability). The pair is unordered,
 * so both ends draw the same link. */
inline int qudg_link(uint i, uint j, ulong d2, uint win, const window_params *w)
{
    if (d2 <= w->rmin2)
        return 1;
    uint4 c = (uint4)(min(i, j), max(i, j), STREAM_QUDG_LINK, win);
    return (ulong)philox4x32_10(c, w->key).x < w->link_thr;
}

/* ---- per-node drop probability ---------------------------------------------------------- */

/* [flood] drop_probability = uniform(a, b) (docs/models.md): node j's threshold is
 * thr(a) + ((w0 x (thr(b) - thr(a))) >> 32), w0 of ctr {j, 0, 11, 0}. */
__kernel void node_drop_init(__constant const flood_params *prm, __global ulong *node_drop)
{
    uint j = get_global_id(0);
    if (j >= prm->nodes)
        return;
    ulong ta = prm->drop_threshold, tb = prm->drop_threshold_max;
    uint4 r = philox_draw((uint2)(prm->key_lo, prm->key_hi), j, 0u, STREAM_NODE_DROP);
    node_drop[j] = ta + (((ulong)r.x * (tb - ta)) >> 32);
}

/* ---- neighbour cap ------------------------------------------------------------------------ */

/* Whether nodes I and J (i != j) at squared distance D2 are linked in window WIN before the
 * cap: within range, and under qudg the window's draw. */
inline int linked_before_cap(uint i, uint j, ulong d2, ulong range2, uint win,
                             const window_params *w)
{
    if (d2 > range2)
        return 0;
    if (FLOOD_QUDG) /* (constants in ifs: clang warns of them in logical operators) */
        return qudg_link(i, j, d2, win, w);
    return 1;
}

/* Each node's cap threshold for window WIN (cap_within): the K-th of its links ordered by
 * (d2, id), found by keeping the K smallest in sorted private arrays. Keys are distinct (ids
 * are), so the result does not depend on the order in which the cells are visited. */
__kernel void cap_select(__global const long4 *pos, __constant const flood_params *prm,
                         __global const uint *cell_start, __global const uint *cell_nodes,
                         uint win, __global ulong2 *thr)
{
    uint i = get_global_id(0);
    if (i >= prm->nodes)
        return;
#if FLOOD_CAP > 0
    GRID_FROM_PARAMS(prm);
    window_params w = params_window(prm, 0, 0); /* the key and qudg's link draws */
    ulong kd[FLOOD_CAP];
    uint kid[FLOOD_CAP];
    uint f = 0;
    long4 p = pos[i];
    FOR_EACH_CANDIDATE(p, j, {
        if (j != i) {
            ulong d2 = dist2(p, pos[j]);
            if (linked_before_cap(i, j, d2, range2, win, &w) &&
                (f < FLOOD_CAP || d2 < kd[FLOOD_CAP - 1] ||
                 (d2 == kd[FLOOD_CAP - 1] && j < kid[FLOOD_CAP - 1]))) {
                uint q = f < FLOOD_CAP ? f++ : FLOOD_CAP - 1;
                while (q > 0 && (kd[q - 1] > d2 || (kd[q - 1] == d2 && kid[q - 1] > j))) {
                    kd[q] = kd[q - 1];
                    kid[q] = kid[q - 1];
                    q--;
                }
                kd[q] = d2;
                kid[q] = j;
            }
        }
    });
    thr[i] = f == FLOOD_CAP ? (ulong2)(kd[FLOOD_CAP - 1], (ulong)kid[FLOOD_CAP - 1])
                            : (ulong2)(ULONG_MAX, ULONG_MAX);
#endif
}

/* Per node i, the links i-j with j > i of window WIN's graph that the cap keeps (.x) and
 * cuts (.y): the host sums them for the JSON's links and links_cut. */
__kernel void cap_count(__global const long4 *pos, __constant const flood_params *prm,
                        __global const uint *cell_start, __global const uint *cell_nodes,
                        uint win, __global const ulong2 *thr, __global uint2 *counts)
{
    uint i = get_global_id(0);
    if (i >= prm->nodes)
        return;
    GRID_FROM_PARAMS(prm);
    window_params w = params_window(prm, 0, 0); /* the key and qudg's link draws */
    uint kept = 0, cut = 0;
    long4 p = pos[i];
    FOR_EACH_CANDIDATE(p, j, {
        if (j > i) {
            ulong d2 = dist2(p, pos[j]);
            if (linked_before_cap(i, j, d2, range2, win, &w)) {
                if (cap_keeps(i, j, d2, thr))
                    kept++;
                else
                    cut++;
            }
        }
    });
    counts[i] = (uint2)(kept, cut);
}

/* Hop count and time of packet K's transmissions in the window starting at T: every
 * transmission of a packet happens at t_k + (h - 1) L, so each packet has one time per window. */
inline long packet_hop(long T, long L, long tk)
{
    long d = T - tk;
    return d <= 0 ? 1 : (d + L - 1) / L + 1;
}

/* Appends entry E (a relay of node E.x, slot E.y) straight to the frontier; entries past its
 * capacity go to the spill bitset, which the host gathers after growing the frontier. */
inline void store_entry(entry_t e, volatile __global uint *ctl, uint out_word,
                        __global entry_t *out, uint capacity, __global uint *spill, uint words)
{
    uint at = atomic_inc(&ctl[out_word]);
    if (at < capacity)
        out[at] = e;
    else
        atomic_or(&spill[(size_t)e.y * words + (e.x >> 5)], 1u << (e.x & 31u));
    if (at == 0xffffffffu) /* the count wrapped: the host stops the run (CTL_WRAPPED) */
        atomic_or(&ctl[CTL_OVERFLOW], CTL_WRAPPED);
}

/* ... and marks its slot alive for the window (STAMP). */
inline void append_entry(entry_t e, volatile __global uint *ctl, uint out_word,
                         __global entry_t *out, uint capacity, __global uint *spill, uint words,
                         __global uint *alive, uint stamp)
{
    store_entry(e, ctl, out_word, out, capacity, spill, words);
    alive[e.y] = stamp;
}

/* Appends relay (j, slot) straight to the frontier (docs/model.md's rule: no hop count
 * carried). */
inline void append_global(uint j, uint slot, volatile __global uint *ctl, uint out_word,
                          __global entry_t *out, uint capacity, __global uint *spill, uint words,
                          __global uint *alive, uint stamp)
{
    append_entry(ENTRY(j, slot, 0), ctl, out_word, out, capacity, spill, words, alive, stamp);
}

/* Appends relay (j, slot) through the work-group's local buffer when it has room (one global
 * atomic per work-group instead of one per relay), else straight to the frontier. */
inline void append_relay(uint j, uint slot, __local uint *l_n, __local entry_t *lbuf,
                         uint lcap, volatile __global uint *ctl, uint out_word,
                         __global entry_t *out,
                         uint capacity, __global uint *spill, uint words, __global uint *alive,
                         uint stamp)
{
    uint idx = atomic_inc(l_n);
    if (idx < lcap)
        lbuf[idx] = ENTRY(j, slot, 0);
    else
        append_global(j, slot, ctl, out_word, out, capacity, spill, words, alive, stamp);
}

/* A first reception at the destination is a delivery with hop count h and latency t - tk;
 * with flows the destination is the packet's (W's, set per entry), and under broadcast every
 * first reception is one. Each is also counted for the packet's slot. */
inline void count_delivery(uint j, uint slot, long t, long tk, long h, const window_params *w,
                           volatile __global uint *ctl)
{
    int hit = j == w->destination;
    if (FLOOD_FLOWS) {
        hit = hit || w->destination == BROADCAST;
        __global uint *d = w->deliv + (size_t)DELIV_WORDS * slot;
        if (hit)
            atomic_inc(d);
        if (FLOOD_SCHEME != 0 && hit) {
            add64(d + 1, (ulong)h);
            atomic_max(d + 3, (uint)h);
        }
    }
    if (hit) {
        add_wide(ctl, CTL_DELIVERED, 1u);
        add_wide(ctl, CTL_HOPS, (ulong)h);
        add_wide(ctl, CTL_LATENCY, (ulong)(t - tk));
    }
}

/* Whether nodes that first hear a packet at hop count h may relay it (the ttl, 0: no limit). */
inline int ttl_allows_relay(long h, const window_params *w)
{
    return w->ttl == 0u || h < (long)w->ttl;
}

/* What follows node j's first reception of packet k at time t with hop count h (docs/model.md):
 * a delivery at the destination, then j relays unless the ttl stops it or the relay draw
 * {j, k, 1, 0} says drop. Returns 1 when j relays. */
inline int after_first_reception(uint j, uint slot, uint k, long t, long tk, long h,
                                 const window_params *w, volatile __global uint *ctl)
{
    count_delivery(j, slot, t, tk, h, w, ctl);
    if (!ttl_allows_relay(h, w))
        return 0;
    uint4 r = philox_draw(w->key, j, k, STREAM_RELAY);
    return (ulong)r.x >= DROP_THRESHOLD(w, j);
}

/* Node j hears packet k (slot) at time t with hop count h. Returns 1 when this is j's first
 * reception and j relays. Exactly one of the simultaneous transmitters wins the atomic_or;
 * since all of them carry the same (t, h), who wins cannot change the outcome. The claim is
 * the atomic's return value alone: a plain read of the word first (to skip the atomic for
 * nodes already seen) would race with the other transmitters' atomic_or on it. */
inline int receive(uint j, uint slot, uint k, long t, long tk, long h, const window_params *w,
                   __global uint *seen, volatile __global uint *ctl, uint *first)
{
    __global uint *word = seen + (size_t)slot * w->words + (j >> 5);
    uint bit = 1u << (j & 31u);
    if (atomic_or(word, bit) & bit)
        return 0;
    (*first)++;
    return after_first_reception(j, slot, k, t, tk, h, w, ctl);
}

/* ---- forwarding schemes in the window loop (docs/models.md, "Forwarding schemes") -------- */

/* Under counter and distance a node holds, per packet slot, four words from its first
 * reception until its decision, at STATE + ((slot x n) + node) x 4 (SCHEME_AT):
 *   SW_HOP    ~h, h the least hop count of its first reception's copies (0: not heard; the
 *             complement turns the least into atomic_max, which every driver has)
 *   SW_COPIES the copies heard since the first reception, those of its window included
 *   SW_FLAGS  SF_DONE once it decided (or the ttl or the relay draw stopped it: later copies
 *             change nothing), SF_WAIT once its first window is over (its hop count is then
 *             final and its decision window set), SF_NEAR when a copy came from within the
 *             distance threshold
 *   SW_DUE    the window of its decision, modulo 2^32 (within 10^6 windows of the first)
 * The words live on the device holding the node's partition, like its seen bits, and travel
 * with them (migrations, re-tilings); a retired slot's words are cleared with its bits. */
#define SCHEME_WORDS 4u
#define SW_HOP 0u
#define SW_COPIES 1u
#define SW_FLAGS 2u
#define SW_DUE 3u
#define SF_DONE 1u
#define SF_WAIT 2u
#define SF_NEAR 4u
#define SCHEME_AT(state, n, slot, j) ((state) + ((size_t)(slot) * (n) + (j)) * SCHEME_WORDS)

/* The pending list of a window (PL): the (slot, node) pairs scheme_decide must visit, as
 * slot x n + node. The nodes left waiting by the last window's decisions come first, then
 * the first receptions of the window, appended as they happen; the window's decisions append
 * the nodes still waiting to the next window's list. Two halves of CAP items alternate by
 * window parity; their lengths are the control words CTL_PEND + (w % CTL_ROTATION), rotated like
 * CTL_COUNT (window w clears the word of w + 2). A pair is in a list at most once, so CAP =
 * slots x n always suffices: beyond it is a bug, reported through CTL_OVERFLOW. The host
 * keeps the lists only while a device runs window after window; otherwise scheme_decide
 * visits every pair once and the lists start again from its output. */
typedef struct pend_list {
    __global uint *items;
    uint cap, word;
} pend_list;

inline void pend_append(pend_list pl, volatile __global uint *ctl, uint slot, uint j, uint n)
{
    uint at = atomic_inc(&ctl[pl.word]);
    if (at < pl.cap)
        pl.items[at] = slot * n + j;
    else /* an atomic: the same launch may or CTL_WRAPPED into the word */
        atomic_or(&ctl[CTL_OVERFLOW], 1u);
}

/* Node j hears a copy of the packet in SLOT, sent with hop count h from squared distance D2,
 * under a scheme: a first copy is a first reception (counted in *FIRST; returns 1, and the
 * caller lists it for the window's decisions); copies of its first window give it the least
 * hop count; until it decides, every copy is counted (counter) or compared with the
 * threshold (distance). The decision itself waits for scheme_decide, after every copy of the
 * window. (The atomics come without a plain read first: on a GPU the extra loads cost more
 * than the atomics they saved.) */
inline int scheme_hear(uint j, uint slot, long h, ulong d2, ulong near2, __global uint *seen,
                       uint words, __global uint *state, uint n, uint *first)
{
    __global uint *st = SCHEME_AT(state, n, slot, j);
    /* DONE and WAIT change only in scheme_decide, but another copy of this launch may set
     * NEAR meanwhile (atomic_or below): the word is read atomically */
    uint f = load_atomic(&st[SW_FLAGS]);
    if (f & SF_DONE)
        return 0;
    int fresh = 0;
    if (!(f & SF_WAIT)) {
        __global uint *word = seen + (size_t)slot * words + (j >> 5);
        uint bit = 1u << (j & 31u);
        if (!(atomic_or(word, bit) & bit)) {
            (*first)++;
            fresh = 1;
        }
        atomic_max(&st[SW_HOP], ~(uint)h);
    }
    if (FLOOD_SCHEME == 1)
        atomic_inc(&st[SW_COPIES]);
    else if (d2 <= near2 && !(f & SF_NEAR))
        atomic_or(&st[SW_FLAGS], SF_NEAR);
    return fresh;
}

/* Lists node j's first reception of SLOT's packet for the window's decisions: through the
 * work-group's local buffer when it has room (a scheme leaves it free: its relays are made by
 * scheme_decide), flushed with one global atomic per work-group as relays are, else straight
 * to the window's pending list PL. */
inline void list_fresh(uint j, uint slot, __local uint *l_n, __local entry_t *lbuf, uint lcap,
                       pend_list pl, uint n, volatile __global uint *ctl)
{
    uint idx = atomic_inc(l_n);
    if (idx < lcap)
        lbuf[idx] = ENTRY(j, slot, 0);
    else
        pend_append(pl, ctl, slot, j, n);
}

/* A window's entries are in[0 .. ctl[in_word] + n_import), the relays of the last window (this
 * device's own, then N_IMPORT that other devices made and the host appended: passing their
 * number saves a write of the count word each window), followed by the
 * source's N_NEW new packets, described (slot, packet) in the window's descriptor. Their number
 * lives on the device, so the host can enqueue the window before the last one has finished;
 * work-groups walk the entries in strides of the launch size, which only has to be large
 * enough to fill the device. The descriptor also lists N_CLEAR slots retired earlier, whose
 * seen bitsets are cleared here (nothing uses those slots in this window) so that a later
 * window can give them to new packets. Small descriptors travel as the INLINE argument, larger
 * ones in DESC.
 * Per-work-item counts (transmissions, receptions, first receptions) are summed over the
 * work-group in local memory, then added once to the global counters: no atomic per event.
 * With several partitions, each partition's launch reads the entries its device holds but
 * handles only the receptions of its own nodes (its neighbour lists hold only those; the
 * mobile kernel tests ownership), and counts only the transmissions of its own nodes, so
 * every counter is a sum over partitions, whichever device holds which entries. */
#define DESCRIPTOR(idx) (use_inline ? inline_words[(idx)] : desc[(idx)])

/* Under a scheme the transmit kernels take the nodes' states (SCHEME_STATE, N_NODES of them
 * per slot) and the pending lists (PEND, PEND_CAP items per half), and tx_window_begin also
 * the distance threshold squared (NEAR2), which TRANSMIT_SCHEME_PASS passes on from the
 * parameter block with the node count; a retired slot's states are cleared with its seen
 * bits, and the source of a new packet has nothing to decide. */
#if FLOOD_SCHEME
#define TRANSMIT_SCHEME_ARGS , __global uint *scheme_state, __global uint *pend, uint pend_cap
#define TX_BEGIN_SCHEME_ARGS                                                                \
    , __global uint *scheme_state, uint n_nodes, ulong near2, __global uint *pend, uint pend_cap
#define TRANSMIT_SCHEME_PASS , scheme_state, prm->nodes, prm->near2, pend, pend_cap
#else
#define TRANSMIT_SCHEME_ARGS
#define TX_BEGIN_SCHEME_ARGS
#define TRANSMIT_SCHEME_PASS
#endif

/* What every work-item of a transmit launch knows of the window, set once by tx_window_begin:
 * its parameters, where its entries come from and, under a scheme, where its first receptions
 * go. */
typedef struct tx_window {
    window_params w;              /* w.destination is the entry's own under flows (tx_begin) */
    __global uint *alive;         /* the slots' liveness words, after the control words */
    uint relayed, count;          /* the window's entries: RELAYED relays, then new packets */
    int use_inline;               /* the descriptor came as INLINE_WORDS, else it is in DESC */
    uint inline_words[16];
    __global const uint *desc;
#if FLOOD_SCHEME
    __global uint *scheme_state;
    uint n_nodes;
    ulong near2;
    pend_list pl;                 /* the window's pending list */
#endif
} tx_window;

/* Word IDX of the window's descriptor. */
inline uint descriptor(const tx_window *tw, uint idx)
{
    return tw->use_inline ? tw->inline_words[idx] : tw->desc[idx];
}

/* The window's start, before any entry: the entry count read, the control words of later
 * windows cleared, the retired slots' seen bits (and scheme states) cleared and, with flows,
 * the next window's deliveries zeroed. No barrier: nothing here is read by this launch's
 * entries but the count, which no work-item writes. The clearing is spread over the
 * launch's transmit items: GID of GSIZE (the whole launch but for transmit_mobile's fused
 * mobility step, whose groups come first and do none of this). */
inline void tx_window_begin(tx_window *tw, window_params w, volatile __global uint *ctl,
                            uint in_word, uint n_import, uint n_new, uint n_clear,
                            uint clear_word, uint16 inline_desc, __global const uint *desc,
                            __global uint *seen, __global uint *deliv, uint slots,
                            uint parity, size_t gid, size_t gsize TX_BEGIN_SCHEME_ARGS)
{
    uint words = w.words;
    tw->w = w;
    tw->alive = (__global uint *)ctl + CTL_WORDS;
    vstore16(inline_desc, 0, tw->inline_words);
    tw->desc = desc;
    tw->use_inline = NEW_WORDS * n_new + n_clear <= 16;
    tw->relayed = ctl[in_word] + n_import;
    tw->count = tw->relayed + n_new;
    if (gid == 0) {
        ctl[clear_word] = 0u;
        if ((ulong)ctl[in_word] + n_import + n_new > 0xfffffffful) /* the count wrapped */
            atomic_or(&ctl[CTL_OVERFLOW], CTL_WRAPPED);
    }
    for (size_t c = gid; c < (size_t)n_clear * words; c += gsize)
        seen[(size_t)descriptor(tw, NEW_WORDS * n_new + (uint)(c / words)) * words + c % words] =
            0u;
#if FLOOD_SCHEME
    tw->scheme_state = scheme_state;
    tw->n_nodes = n_nodes;
    tw->near2 = near2;
    size_t per = (size_t)n_nodes * SCHEME_WORDS;
    for (size_t c = gid; c < (size_t)n_clear * per; c += gsize)
        scheme_state[(size_t)descriptor(tw, NEW_WORDS * n_new + (uint)(c / per)) * per +
                     c % per] = 0u;
    /* the window's pending list: half PARITY (w % 2), its length the word of IN_WORD's
     * rotation; the window clears that of CLEAR_WORD's */
    tw->pl.items = pend + (size_t)parity * pend_cap;
    tw->pl.cap = pend_cap;
    tw->pl.word = CTL_PEND + (in_word - CTL_COUNT);
    if (gid == 0)
        ctl[CTL_PEND + (clear_word - CTL_COUNT)] = 0u;
#endif
    if (FLOOD_FLOWS) { /* the next window's deliveries start from zero */
        tw->w.deliv = deliv + (size_t)parity * slots * DELIV_WORDS;
        for (size_t c = gid; c < (size_t)slots * DELIV_WORDS;
             c += gsize)
            deliv[(size_t)(parity ^ 1u) * slots * DELIV_WORDS + c] = 0u;
    }
}

/* One work-item's entry of the window: who transmits which packet when, and its counts. */
typedef struct tx_item {
    uint i, slot, k; /* the transmitter, the packet's slot and number */
    long tk, h, t;   /* the packet's creation time, the hop count and time of the copies */
    uint n_tx, n_rx, n_first; /* summed over the work-group by tx_end */
} tx_item;

/* Entry GID of the window (a work-group's items take the entries FIRST .. FIRST + lsize - 1)
 * into *IT: a relay of the last window, or a new packet (whose tables it writes; its source has
 * seen it from the start). Returns 1 when the entry transmits (before the duration; it then
 * counts as a transmission when its node is this partition's). Every work-item of the group
 * calls it, for the barrier that orders the reset of the group's local buffer. When a team of
 * items shares the entry (transmit_mobile), each reads it, and only its LEAD writes the new
 * packet's tables and counts the transmission: the others would write the same words again,
 * a race in OpenCL's terms, and count it again. */
inline int tx_begin(tx_item *it, tx_window *tw, uint gid, int lead, __local uint *l_n,
                    __global const entry_t *in, __global uint *seen, __global uint *slot_packet,
                    __global long *slot_time, __global uint2 *slot_route,
                    __global const ushort *part_of, uint part, uint nparts)
{
    it->n_tx = it->n_rx = it->n_first = 0u;
    if (get_local_id(0) == 0)
        *l_n = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (gid >= tw->count)
        return 0;
    const window_params *w = &tw->w;
    uint i, slot, k;
    long tk, sent_hop = 0;
    if (gid < tw->relayed) {
        i = in[gid].x;
        slot = in[gid].y;
        sent_hop = ENTRY_HOP(in[gid], 0);
        k = slot_packet[slot];
        tk = FLOOD_FLOWS ? slot_time[slot] : w->start + (long)k * w->interval;
        if (FLOOD_FLOWS)
            tw->w.destination = slot_route[slot].x;
    } else { /* a new packet: the source has seen it from the start */
        uint q = gid - tw->relayed;
        slot = descriptor(tw, NEW_WORDS * q);
        k = descriptor(tw, NEW_WORDS * q + 1);
        i = w->source;
        tk = w->start + (long)k * w->interval;
        if (FLOOD_FLOWS) { /* its source, time, destination and flow */
            i = descriptor(tw, NEW_WORDS * q + 2);
            tk = (long)(((ulong)descriptor(tw, NEW_WORDS * q + 4) << 32) |
                        descriptor(tw, NEW_WORDS * q + 3));
            tw->w.destination = descriptor(tw, NEW_WORDS * q + 5);
            if (lead) {
                slot_time[slot] = tk;
                slot_route[slot] = (uint2)(w->destination, descriptor(tw, NEW_WORDS * q + 6));
            }
        }
        if (lead) {
            slot_packet[slot] = k;
            atomic_or(&seen[(size_t)slot * w->words + (i >> 5)], 1u << (i & 31u));
#if FLOOD_SCHEME
            SCHEME_AT(tw->scheme_state, tw->n_nodes, slot, i)[SW_FLAGS] = SF_DONE;
#endif
        }
    }
    long h = packet_hop(w->T, w->L, tk);
    long t = tk + (h - 1) * w->L;
    if (FLOOD_SCHEME != 0 && gid < tw->relayed) /* its own hop count, not the time's */
        h = sent_hop;
    it->i = i;
    it->slot = slot;
    it->k = k;
    it->tk = tk;
    it->h = h;
    it->t = t;
    if (!(w->duration == 0 || t < w->duration))
        return 0;
    it->n_tx = lead && OWNED(i) ? 1u : 0u;
    return 1;
}

/* The end of a work-group's entries: its counts summed in local memory and added once to the
 * global counters, then its local buffer flushed with one global atomic (relays to the
 * frontier; under a scheme, first receptions to the pending list). Every work-item of the
 * group calls it: the barriers are in uniform control flow. */
inline void tx_end(const tx_item *it, const tx_window *tw, volatile __global uint *ctl,
                   __local uint *l_n, __local uint *l_flush, __local ulong4 *l_sums,
                   __local entry_t *lbuf, uint lcap, uint out_word, __global entry_t *out,
                   uint capacity, __global uint *spill, uint stamp)
{
    uint lid = get_local_id(0), lsize = get_local_size(0);
    l_sums[lid] = (ulong4)(it->n_tx, it->n_rx, it->n_first, 0u); /* a group can pass 2^32 */
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint step = lsize >> 1; step > 0; step >>= 1) {
        if (lid < step)
            l_sums[lid] += l_sums[lid + step];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
#if FLOOD_SCHEME
    uint flush_word = tw->pl.word; /* the local buffer holds first receptions */
#else
    uint flush_word = out_word; /* the local buffer holds relays */
#endif
    if (lid == 0) {
        uint n_local = min(*l_n, lcap);
        l_flush[0] = atomic_add(&ctl[flush_word], n_local);
        if (l_flush[0] + n_local < l_flush[0]) /* the count wrapped */
            atomic_or(&ctl[CTL_OVERFLOW], CTL_WRAPPED);
        l_flush[1] = n_local;
        add_wide(ctl, CTL_TX, l_sums[0].x);
        add_wide(ctl, CTL_RX, l_sums[0].y);
        add_wide(ctl, CTL_FIRST, l_sums[0].z);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint q = lid; q < l_flush[1]; q += lsize) {
        uint at = l_flush[0] + q;
        entry_t e = lbuf[q];
#if FLOOD_SCHEME /* to the pending list */
        if (at < tw->pl.cap)
            tw->pl.items[at] = e.y * tw->n_nodes + e.x;
        else
            atomic_or(&ctl[CTL_OVERFLOW], 1u);
#else /* to the frontier */
        if (at < capacity)
            out[at] = e;
        else
            atomic_or(&spill[(size_t)e.y * tw->w.words + (e.x >> 5)], 1u << (e.x & 31u));
        tw->alive[e.y] = stamp;
#endif
    }
    barrier(CLK_LOCAL_MEM_FENCE);
}

/* The arguments both transmit kernels start with: the window's entries and frontier, its count
 * words, the seen bits, the scenario's constants in the parameter block PRM
 * (flood_layout.clh, read once per work-item by params_window), the window's start T, the
 * group's local areas and the partition's. */
#define TRANSMIT_COMMON_ARGS                                                                \
    __global const entry_t *in, uint in_word, uint n_new, uint n_clear,                    \
        uint16 inline_desc, __global const uint *desc, __global entry_t *out, uint capacity, \
        uint out_word, uint clear_word, volatile __global uint *ctl, uint stamp,            \
        __global uint *seen, __global uint *spill, __constant const flood_params *prm,           \
        __global uint *slot_packet, long T, __local uint *l_n, __local uint *l_flush,       \
        __local ulong4 *l_sums, __local entry_t *lbuf, uint lcap,                           \
        __global const ushort *part_of, uint part, uint nparts, uint n_import,             \
        __global const ulong2 *cap_thr, __global const ulong *node_drop

/* transmit_mobile's fused mobility step (FLOOD_STEP; STEP_GROUPS 0: none, the arguments then
 * placeholders): the first STEP_GROUPS work-groups of the launch move nodes 0 .. STEP_N - 1
 * in STEP_POS to the window starting at STEP_T (number STEP_WINDOW) with the model's state,
 * and rank them for the cell lists (CELLS_RANK_PARAMS, cl/common/cells.clh). */
#define TRANSMIT_STEP_ARGS                                                                  \
    uint step_groups, __global long4 *step_pos, uint step_n, long step_T, uint step_window, \
        __global const long *step_seg, uint step_nseg, __global long4 *step_waypoint,       \
        __global long *step_speed, __global uint *step_leg, __global long *step_pause_end,  \
        CELLS_RANK_PARAMS

/* Traffic flows (FLOOD_FLOWS; placeholders without): per slot the packet's creation time, its
 * (destination, flow), and the deliveries of the window of parity PARITY (two regions of
 * SLOTS words, by window parity: the window clears the other one). Last in both kernels. */
#define TRANSMIT_FLOW_ARGS                                                                  \
    __global long *slot_time, __global uint2 *slot_route, __global uint *deliv, uint slots, \
        uint parity

/* Node J hears the item's copy (from squared distance D2): a reception, and a relay made
 * through the group's local buffer when it is J's first and J relays (returns 1); under a
 * scheme the copy is heard for the window's decisions (a first reception listed for them), and
 * nothing relays here (returns 0). */
inline int tx_hear(uint j, ulong d2, tx_item *it, const tx_window *tw, __global uint *seen,
                   volatile __global uint *ctl, __local uint *l_n, __local entry_t *lbuf,
                   uint lcap, uint out_word, __global entry_t *out, uint capacity,
                   __global uint *spill, uint stamp)
{
#if FLOOD_SCHEME
    if (scheme_hear(j, it->slot, it->h, d2, tw->near2, seen, tw->w.words, tw->scheme_state,
                    tw->n_nodes, &it->n_first))
        list_fresh(j, it->slot, l_n, lbuf, lcap, tw->pl, tw->n_nodes, ctl);
    return 0;
#else
    if (!receive(j, it->slot, it->k, it->t, it->tk, it->h, &tw->w, seen, ctl, &it->n_first))
        return 0;
    append_relay(j, it->slot, l_n, lbuf, lcap, ctl, out_word, out, capacity, spill,
                 tw->w.words, tw->alive, stamp);
    return 1;
#endif
}

/* Static scenarios: neighbours from the CSR lists built once (under qudg, every pair within
 * range, each link drawn for the window; POS then gives the distances). */
__kernel void transmit(TRANSMIT_COMMON_ARGS, __global const uint *offsets,
                       __global const uint *neighbours, __global const long4 *pos,
                       TRANSMIT_FLOW_ARGS TRANSMIT_SCHEME_ARGS)
{
    tx_window tw;
    window_params w = params_window(prm, T, node_drop);
    tx_window_begin(&tw, w, ctl, in_word, n_import, n_new, n_clear, clear_word, inline_desc,
                    desc, seen, deliv, slots, parity, get_global_id(0), get_global_size(0)
                    TRANSMIT_SCHEME_PASS);
    uint lsize = get_local_size(0);
    for (uint first = (uint)get_group_id(0) * lsize; first < tw.count;
         first += (uint)get_global_size(0)) {
        tx_item it;
        if (tx_begin(&it, &tw, first + (uint)get_local_id(0), 1, l_n, in, seen, slot_packet,
                     slot_time, slot_route, part_of, part, nparts)) {
            uint i = it.i;
            /* one loop for both models: two loops, one per case, make PoCL 5.0's
             * work-group compiler fail an assertion (see transmit_mobile) */
            uint a = offsets[i], e = offsets[i + 1];
            long4 pi = NEEDS_D2 ? pos[i] : (long4)(0);
            uint win = (uint)(T / tw.w.L);
            if (!FLOOD_QUDG)
                it.n_rx = e - a;
            for (uint q = a; q < e; q++) {
                uint j = neighbours[q];
                if (TEST_DROPS(TB_TRANSMIT, j))
                    continue;
                ulong d2 = NEEDS_D2 ? dist2(pi, pos[j]) : 0ul;
                if (FLOOD_QUDG) { /* the window's links, then the cap of the window's graph */
                    if (!qudg_link(i, j, d2, win, &tw.w))
                        continue;
                    if (FLOOD_CAP > 0) {
                        if (!cap_keeps(i, j, d2, cap_thr))
                            continue;
                    }
                    it.n_rx++;
                }
                tx_hear(j, d2, &it, &tw, seen, ctl, l_n, lbuf, lcap, out_word, out, capacity,
                        spill, stamp);
            }
        }
        tx_end(&it, &tw, ctl, l_n, l_flush, l_sums, lbuf, lcap, out_word, out, capacity, spill,
               stamp);
    }
}

inline int in_box(long4 p, long4 lo, long4 hi)
{
    return p.x >= lo.x && p.x <= hi.x && p.y >= lo.y && p.y <= hi.y && p.z >= lo.z &&
           p.z <= hi.z;
}

/* Whether P lies in one of the N boxes BOXES (lo, hi pairs): the reach of the partitions each
 * other holder keeps (flood_export_setup). */
inline int in_boxes(long4 p, __global const long4 *boxes, uint n)
{
    for (uint k = 0u; k < n; k++)
        if (in_box(p, boxes[2u * k], boxes[2u * k + 1u]))
            return 1;
    return 0;
}

/* A relay of node j that another device may need (j lies in [X_LO, X_HI], which bounds the
 * reach boxes of the partitions held elsewhere) is also appended to EXPORTED, the core
 * exchange's export area (xch_append, counted in ctl[export_word]); beyond EXPORT_CAP it is
 * only counted, and the host then sends the whole frontier instead (transmit_mobile). */

/* Mobile scenarios: neighbours found in the cell lists of this window's positions; the
 * distance test lives here, in the reader, so no neighbour list is ever stored. With several
 * partitions, [BOX_LO, BOX_HI] bounds where a transmitter can have a receiver of PART (the
 * host widens the tile by the farthest its nodes can have moved since they were last tiled,
 * and by the range): transmitters outside it skip the cell search, so a partition's work
 * shrinks with its share of the area. A candidate's partition comes with its position (its
 * fourth component, stamp_parts): one read per candidate instead of two.
 * With partitions on several devices the relays the others need are exported here, as they
 * are made, rather than by a pass over the frontier afterwards (export_border): that pass
 * and its launch sat between the window's last transmit and its read-back. Window w counts
 * them in ctl[EXPORT_WORD] = CTL_EXPORT + (w % 2) and clears the other word for window
 * w + 1 (its read-back of window w - 1 is queued before). An empty box exports nothing.
 * The range and the cell grid (RANGE2, SIDE, NX, NY, NZ) stay arguments, although the
 * parameter block holds them: read from it in this kernel's cell search, Mesa's rusticl 22.3
 * (llvmpipe) flooded wrong on several devices, at random (test impls_two_partitions_mobile_
 * static); arguments are what every implementation got right here.
 * Teams (FLOOD_TEAM > 1): the TEAM items of a team take the same entry and share its
 * candidates (FOR_EACH_CANDIDATE_SHARE_POS). Each hears the receivers it found itself: no two
 * members meet the same candidate (a node lies in one cell, the rows are disjoint runs of
 * cell_nodes), and tx_hear is made for concurrent hearers anyway (seen bits, scheme words and
 * deliveries by atomics, the group's relay buffer by its local counter). The degree and the
 * first receptions are counted per item and summed over the whole group by tx_end, as every
 * item's always were, so a team needs no reduction of its own; the lead alone writes a new
 * packet's tables and counts the transmission (tx_begin). Every item of the group still
 * passes the same passes and barriers: the loop's bounds depend on the group only. No result
 * depends on which member heard what (the order of entries, docs/architecture.md). */
__kernel void transmit_mobile(TRANSMIT_COMMON_ARGS, __global const long4 *pos, ulong range2,
                              long side, uint nx, uint ny, uint nz,
                              __global const uint *cell_start, __global const uint *cell_nodes,
                              long4 box_lo, long4 box_hi, __global const long4 *x_boxes,
                              uint x_n,
                              __global entry_t *exported, uint export_cap, uint export_word,
                              __global const long4 *cell_pos, uint cell_sorted,
                              TRANSMIT_STEP_ARGS, TRANSMIT_FLOW_ARGS TRANSMIT_SCHEME_ARGS)
{
#if FLOOD_STEP
    /* The fused mobility step (TRANSMIT_STEP_ARGS): the first STEP_GROUPS groups move the
     * nodes to the next window and rank them, the others transmit. */
    if (get_group_id(0) < step_groups) {
        uint k = (uint)get_global_id(0);
        cells_rank_clear_items(k, (size_t)step_groups * get_local_size(0), CELLS_RANK_PASS);
        if (k < step_n) {
            fused_step(step_pos, k, prm, step_T, step_window, step_seg, step_nseg,
                       step_waypoint, step_speed, step_leg, step_pause_end);
            cells_rank_node(step_pos[k], k, CELLS_RANK_PASS);
        }
        return;
    }
#endif
#if FLOOD_FIXED
    /* This window's lists: those of the ranking before the one the step takes (RANK_SEQ is
     * the step's, whether or not this launch steps), in the other half of the fixed cells
     * (cl/common/cells.clh). No work-item of the transmit reads POS: the step moves it. */
    uint fx_seq = (rank_seq + 5u) % 6u, fx_half = fx_seq & 1u, fx_cap = fixed_cap;
    uint fx_cells_slots = rank_cells * fixed_cap;
    __global const uint *fx_counts =
        (__global const uint *)rank_counts + (fx_seq % 3u) * CELLS_RANK_PART_WORDS(rank_cells);
    uint fx_over = fx_counts[rank_cells + 1u];
    __global const uint *fx_nodes = fixed_nodes + fx_half * (fx_cells_slots + fixed_n);
    __global const long4 *fx_pos = fixed_pos + fx_half * (fx_cells_slots + fixed_n);
    __global const uint *fx_cell = fixed_cell + fx_half * fixed_n;
    __global const uint *fx_slot = fixed_slot + fx_half * fixed_n;
#endif
    size_t skip = (size_t)step_groups * get_local_size(0);
    size_t gid = get_global_id(0) - skip, gsize = get_global_size(0) - skip;
    uint group = (uint)(get_group_id(0) - step_groups);
    if (gid == 0)
        ctl[CTL_EXPORT + ((export_word - CTL_EXPORT) ^ 1u)] = 0u;
    tx_window tw;
    window_params w = params_window(prm, T, node_drop);
    tx_window_begin(&tw, w, ctl, in_word, n_import, n_new, n_clear, clear_word, inline_desc,
                    desc, seen, deliv, slots, parity, gid, gsize TRANSMIT_SCHEME_PASS);
    uint lsize = get_local_size(0);
#if FLOOD_TEAM > 1
    /* TEAM items per entry: FLOOD_TEAM, or the largest power of two dividing the group's size
     * (its lowest set bit) when FLOOD_TEAM does not divide it, so that every entry has a
     * whole team and a group of 1, 2 or 4 items (a shape the self-test tries) is still
     * exact. A group takes lsize / TEAM entries per pass. */
    uint team = min((uint)FLOOD_TEAM, lsize & (0u - lsize));
    uint member = (uint)get_local_id(0) & (team - 1u);
    uint per_pass = lsize / team, stride = (uint)gsize / team;
#define TX_MOBILE_ENTRY (first + (uint)get_local_id(0) / team)
#define TX_MOBILE_LEAD (member == 0u)
#if FLOOD_FIXED
#define TX_MOBILE_CANDIDATES(p, j, BODY)                                                    \
    FOR_EACH_CANDIDATE_FIXED(p, j, pj_, member, team, BODY)
#define TX_MOBILE_PJ pj_
#elif FLOOD_SORTED
#define TX_MOBILE_CANDIDATES(p, j, BODY)                                                    \
    FOR_EACH_CANDIDATE_SHARE_POS(p, j, pj_, member, team, cell_sorted, cell_pos, pos, BODY)
#define TX_MOBILE_PJ pj_
#else
#define TX_MOBILE_CANDIDATES(p, j, BODY) FOR_EACH_CANDIDATE_SHARE(p, j, member, team, BODY)
#define TX_MOBILE_PJ pos[j]
#endif
#else
    uint per_pass = lsize, stride = (uint)gsize;
#define TX_MOBILE_ENTRY (first + (uint)get_local_id(0))
#define TX_MOBILE_LEAD 1
#if FLOOD_FIXED
#define TX_MOBILE_CANDIDATES(p, j, BODY) FOR_EACH_CANDIDATE_FIXED(p, j, pj_, 0u, 1u, BODY)
#define TX_MOBILE_PJ pj_
#else
#define TX_MOBILE_CANDIDATES(p, j, BODY) FOR_EACH_CANDIDATE(p, j, BODY)
#define TX_MOBILE_PJ pos[j]
#endif
#endif
    for (uint first = group * per_pass; first < tw.count; first += stride) {
        tx_item it;
        if (tx_begin(&it, &tw, TX_MOBILE_ENTRY, TX_MOBILE_LEAD, l_n, in, seen, slot_packet,
                     slot_time, slot_route, part_of, part, nparts)) {
            uint i = it.i;
#if FLOOD_FIXED
            long4 p = fx_pos[fx_slot[i]];
#else
            long4 p = pos[i];
#endif
            uint deg = 0; /* this item's share of the degree: tx_end sums the group's */
            if (in_box(p, box_lo, box_hi)) {
                /* .w is read only with several partitions: loading it with the coordinates
                 * slowed the one-partition run by 10%, and two loops, one per case, made
                 * PoCL 5.0's work-group compiler fail an assertion */
                uint win = (uint)(T / tw.w.L);
                TX_MOBILE_CANDIDATES(p, j, {
                    if (j != i && (nparts <= 1u || pos[j].w == (long)part) &&
                        !TEST_DROPS(TB_TRANSMIT_MOBILE, j)) {
                        ulong d2 = dist2(p, TX_MOBILE_PJ);
                        if (d2 <= range2 && (!FLOOD_QUDG || qudg_link(i, j, d2, win, &tw.w)) &&
                            (FLOOD_CAP == 0 || cap_keeps(i, j, d2, cap_thr))) {
                            deg++;
                            if (tx_hear(j, d2, &it, &tw, seen, ctl, l_n, lbuf, lcap, out_word,
                                        out, capacity, spill, stamp) &&
                                in_boxes(TX_MOBILE_PJ, x_boxes, x_n)) {
                                uint xa = xch_append(&ctl[export_word], export_cap);
                                if (xa != 0xffffffffu)
                                    exported[xa] = ENTRY(j, it.slot, 0);
                            }
                        }
                    }
                });
            }
            it.n_rx = deg;
        }
        tx_end(&it, &tw, ctl, l_n, l_flush, l_sums, lbuf, lcap, out_word, out, capacity, spill,
               stamp);
    }
#undef TX_MOBILE_ENTRY
#undef TX_MOBILE_LEAD
#undef TX_MOBILE_CANDIDATES
#undef TX_MOBILE_PJ
}

/* Several devices, static scenarios: the relays in IN[0 .. min(ctl[in_word], capacity)) that
 * another device may need, those made by nodes inside one of the N_BOXES reach boxes (BOXES
 * holds lo, hi pairs) of the partitions held elsewhere, copied to OUT from ctl[export_word]
 * on. OUT has room for CAPACITY entries; the order is free (no result depends on the order
 * of entries). */
__kernel void export_border(__global const entry_t *in, uint in_word, uint capacity,
                            volatile __global uint *ctl, __global const long4 *pos,
                            __global const long4 *boxes, uint n_boxes, __global entry_t *out,
                            uint export_word)
{
    uint n = min(ctl[in_word], capacity);
    for (uint g = (uint)get_global_id(0); g < n; g += (uint)get_global_size(0)) {
        entry_t e = in[g];
        long4 p = pos[e.x];
        for (uint b = 0; b < n_boxes; b++) {
            long4 lo = boxes[2 * b], hi = boxes[2 * b + 1];
            if (in_box(p, lo, hi)) {
                uint xa = xch_append(&ctl[export_word], capacity);
                if (xa != 0xffffffffu)
                    out[xa] = e;
                break;
            }
        }
    }
}

/* ---- forwarding schemes: the decisions of a window ---------------------------------------- */

/* Node resources under a scheme (FLOOD_RESOURCES, cl/flood/flood_resources.cl): a slot's word
 * gathers marks (SLOT_MARKS in flood_layout.clh) instead of being overwritten, because the
 * host needs to know both whether the packet transmitted and whether it lives on. */
#ifndef FLOOD_RESOURCES
#define FLOOD_RESOURCES 0
#endif
inline void slot_mark(__global uint *alive, uint slot, uint stamp, uint mark)
{
    uint old = load_atomic(&alive[slot]); /* other decisions of the launch change it */
    for (;;) {
        uint have = ((old ^ stamp) & ~SLOT_MARKS) == 0u ? old ^ stamp : 0u;
        if ((have & mark) == mark)
            return;
        uint prev = atomic_cmpxchg(&alive[slot], old, stamp ^ (have | mark));
        if (prev == old)
            return;
        old = prev;
    }
}

/* Keeps SLOT alive for the host while its packet has nodes waiting for their decision and no
 * relay this window: (STAMP ^ SCHEME_WAIT_MARK), unless a relay already wrote STAMP, which
 * wins whatever the order (decide_pair stores STAMP unconditionally). */
inline void scheme_keep_alive(__global uint *alive, uint slot, uint stamp)
{
    uint old = load_atomic(&alive[slot]); /* other decisions of the launch change it */
    while (old != stamp && old != (stamp ^ SCHEME_WAIT_MARK)) {
        uint prev = atomic_cmpxchg(&alive[slot], old, stamp ^ SCHEME_WAIT_MARK);
        if (prev == old)
            break;
        old = prev;
    }
}

/* What the decisions of a window share (scheme_decide). */
typedef struct decide_ctx {
    window_params w;
    volatile __global uint *ctl;
    __global uint *state, *alive, *spill;
    __global const uint *slot_packet;
    __global const long *slot_time;
    __global const uint2 *slot_route;
    __global entry_t *out, *exported;
    __global const long4 *pos, *x_boxes;
    uint x_n;
    pend_list next;
    uint n, win, stamp, counter_c, assess_a, capacity, out_word, export_cap, export_word;
} decide_ctx;

/* Node j's state in SLOT after every copy of the window (docs/models.md, "Forwarding
 * schemes"): a node first heard in this window takes its first reception (a delivery, then
 * the ttl, the relay draw {j, k, 1, 0} and its assessment delay r from {j, k, 13, 0}); a node
 * whose decision window has come (r = 0: now) relays when it heard fewer than COUNTER_C
 * copies (counter) or no copy from within the threshold (distance). A relay is the entry
 * (j, slot, h + 1) of the next window; a node left waiting joins the next pending list. */
inline void decide_pair(decide_ctx *c, uint j, uint slot)
{
    __global uint *st = SCHEME_AT(c->state, c->n, slot, j);
    uint hw = st[SW_HOP], f = st[SW_FLAGS];
    if (hw == 0u || (f & SF_DONE))
        return; /* not heard, or nothing left to decide */
    long h = (long)~hw;
    int waits = 0;
    if (!(f & SF_WAIT)) { /* its first reception, at the packet's time in the window */
        uint k = c->slot_packet[slot];
        long tk = FLOOD_FLOWS ? c->slot_time[slot] : c->w.start + (long)k * c->w.interval;
        long t = tk + (packet_hop(c->w.T, c->w.L, tk) - 1) * c->w.L;
        if (FLOOD_FLOWS)
            c->w.destination = c->slot_route[slot].x;
        count_delivery(j, slot, t, tk, h, &c->w, c->ctl);
        int go = ttl_allows_relay(h, &c->w) &&
                 (ulong)philox_draw(c->w.key, j, k, STREAM_RELAY).x >= DROP_THRESHOLD(&c->w, j);
        uint r = 0u;
        if (go && c->assess_a > 0u)
            r = (uint)philox_uniform(philox_draw(c->w.key, j, k, STREAM_ASSESS).x,
                                     (ulong)c->assess_a + 1ul);
        if (!go) {
            st[SW_FLAGS] = f | SF_DONE;
            return;
        }
        if (r > 0u) {
            st[SW_DUE] = c->win + r;
            st[SW_FLAGS] = f | SF_WAIT;
            waits = 1;
        }
    } else if (st[SW_DUE] != c->win) {
        waits = 1;
    }
    if (waits) {
        pend_append(c->next, c->ctl, slot, j, c->n);
        if (FLOOD_RESOURCES)
            slot_mark(c->alive, slot, c->stamp, SCHEME_WAIT_MARK);
        else
            scheme_keep_alive(c->alive, slot, c->stamp);
        return;
    }
    st[SW_FLAGS] = f | SF_WAIT | SF_DONE;
    int relays = FLOOD_SCHEME == 1 ? st[SW_COPIES] < c->counter_c : !(f & SF_NEAR);
    if (!relays)
        return;
    entry_t e = ENTRY(j, slot, h + 1);
    store_entry(e, c->ctl, c->out_word, c->out, c->capacity, c->spill, c->w.words);
    if (FLOOD_RESOURCES) /* the entry's slot word gathers marks */
        slot_mark(c->alive, slot, c->stamp, SLOT_RELAY_MARK);
    else /* STAMP, as append_entry stores it, but atomically: other decisions of the launch
          * compare-and-swap the word (scheme_keep_alive) */
        atomic_xchg(&c->alive[slot], c->stamp);
    if (c->export_cap > 0u && in_boxes(c->pos[j], c->x_boxes, c->x_n)) {
        uint xa = xch_append(&c->ctl[c->export_word], c->export_cap);
        if (xa != 0xffffffffu)
            c->exported[xa] = e;
    }
}

/* The decisions of partition PART's nodes in the window starting at T, after its transmit
 * launch has counted every copy of the window (decide_pair). Normally only the pairs of the
 * window's pending list are visited (PEND: two halves of PEND_CAP items, this window's is
 * half PARITY, its length the word PEND_WORD; the next window's length is NEXT_WORD); with
 * FULL every (node, slot) pair is, and the next list is rebuilt from it (flood_scheme.c says
 * when). Every outcome is a count, a set union or a store of one work-item, so neither the
 * launch shape nor the order of the list can change it. With partitions on several devices
 * (mobile), relays inside one of the X_N boxes X_BOXES are exported as transmit_mobile
 * exports its own (EXPORT_CAP 0: none). */
__kernel void scheme_decide(volatile __global uint *ctl, __global uint *state,
                            __constant const flood_params *prm, uint slots,
                            __global const uint *slot_packet, __global const long *slot_time,
                            __global const uint2 *slot_route, __global uint *deliv, uint parity,
                            long T, __global const ulong *node_drop,
                            __global const ushort *part_of, uint part, uint nparts,
                            __global entry_t *out, uint capacity, uint out_word,
                            __global uint *spill, uint stamp, __global const long4 *pos,
                            __global const long4 *x_boxes, uint x_n,
                            __global entry_t *exported, uint export_cap,
                            uint export_word, __global uint *pend, uint pend_cap,
                            uint pend_word, uint next_word, uint full)
{
    decide_ctx c;
    uint n = prm->nodes;
    window_params w = params_window(prm, T, node_drop);
    w.deliv = deliv + (size_t)parity * slots * DELIV_WORDS;
    c.w = w;
    c.ctl = ctl;
    c.state = state;
    c.alive = (__global uint *)ctl + CTL_WORDS;
    c.spill = spill;
    c.slot_packet = slot_packet;
    c.slot_time = slot_time;
    c.slot_route = slot_route;
    c.out = out;
    c.exported = exported;
    c.pos = pos;
    c.x_boxes = x_boxes;
    c.x_n = x_n;
    c.next.items = pend + (size_t)(parity ^ 1u) * pend_cap;
    c.next.cap = pend_cap;
    c.next.word = next_word;
    c.n = n;
    c.win = (uint)(T / w.L);
    c.stamp = stamp;
    c.counter_c = prm->counter_c;
    c.assess_a = prm->assess_a;
    c.capacity = capacity;
    c.out_word = out_word;
    c.export_cap = export_cap;
    c.export_word = export_word;
    if (full) {
        for (uint j = (uint)get_global_id(0); j < n; j += (uint)get_global_size(0))
            if (OWNED(j))
                for (uint slot = 0; slot < slots; slot++)
                    decide_pair(&c, j, slot);
        return;
    }
    __global const uint *items = pend + (size_t)parity * pend_cap;
    uint count = min(ctl[pend_word], pend_cap);
    for (uint g = (uint)get_global_id(0); g < count; g += (uint)get_global_size(0)) {
        uint item = items[g], j = item % n;
        if (OWNED(j))
            decide_pair(&c, j, item / n);
    }
}

/* ---- re-tiling mobile partitions (host/models/flood/flood_retile.c) ---------------------- */

/* The last index k in [0, count) with v >= cuts[k]; cuts[0] is below every coordinate. */
inline uint cut_index(__global const long *cuts, uint count, long v)
{
    uint lo = 0u, hi = count;
    while (hi - lo > 1u) {
        uint mid = lo + (hi - lo) / 2u;
        if (v >= cuts[mid])
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* Every node joins the partition of the tile its position lies in (the rule of
 * partition_cut_tile: CUTS holds the PX + 1 strip cuts, then PY + 1 cuts per strip), in
 * PART_OF and in the fourth component of its position. The nodes that leave a partition this
 * device holds (HELD, a byte per partition) for one it does not take their seen bits with
 * them: their ids go to MOVED, counted in ctl[CTL_RETILE] (MOVED has room for every node). */
__kernel void retile(__global long4 *pos, __constant const flood_params *prm,
                     __global const long *cuts, uint px, uint py, __global ushort *part_of,
                     __global const uchar *held, volatile __global uint *ctl,
                     __global uint *moved)
{
    uint i = get_global_id(0);
    if (i >= prm->nodes)
        return;
    long4 p = pos[i];
    uint s = cut_index(cuts, px, p.x);
    uint q = s * py + cut_index(cuts + px + 1u + s * (py + 1u), py, p.y);
    uint old = part_of[i];
    if (q == old)
        return;
    part_of[i] = (ushort)q;
    pos[i].w = (long)q;
    if (held[old] && !held[q])
        moved[atomic_inc(&ctl[CTL_RETILE])] = i;
}

/* Each node's partition into the fourth component of its position, where the mobile transmit
 * kernel reads it. */
__kernel void stamp_parts(__global long4 *pos, __constant const flood_params *prm,
                          __global const ushort *part_of)
{
    uint i = get_global_id(0);
    if (i < prm->nodes)
        pos[i].w = (long)part_of[i];
}

/* Records of the first min(ctl[CTL_RETILE], CAPACITY) moved nodes: the node, then its seen bit
 * in every one of the SLOTS slots, packed 32 to a word (RECORD words each). */
__kernel void gather_moved(__global const uint *moved, volatile __global uint *ctl,
                           uint capacity, __global const uint *seen,
                           __constant const flood_params *prm, uint slots, uint record,
                           __global uint *records, __global const uint *state,
                           uint state_words)
{
    uint r = get_global_id(0);
    if (r >= min(ctl[CTL_RETILE], capacity))
        return;
    uint words = prm->words, n = prm->nodes;
    uint i = moved[r];
    __global uint *out = records + (size_t)r * record;
    out[0] = i;
    /* under a scheme, after the bits: the node's states of every slot (SCHEME_WORDS each) */
    uint bit_words = record - 1u - slots * state_words;
    for (uint q = 0; q < slots * state_words; q++)
        out[1u + bit_words + q] =
            state[((size_t)(q / state_words) * n + i) * state_words + q % state_words];
    for (uint w0 = 0; w0 < bit_words; w0++) {
        uint v = 0u;
        for (uint b = 0; b < 32u && w0 * 32u + b < slots; b++) {
            uint slot = w0 * 32u + b;
            v |= ((seen[(size_t)slot * words + (i >> 5)] >> (i & 31u)) & 1u) << b;
        }
        out[w0 + 1u] = v;
    }
}

/* Another device's COUNT records: the seen bits of the nodes that joined a partition this
 * device holds (their partition is already updated here by retile) are set to theirs. Nodes of
 * one word may arrive in several records: atomics. */
__kernel void scatter_moved(__global const uint *records, uint count, uint record,
                            __global const ushort *part_of, __global const uchar *held,
                            __global uint *seen, __constant const flood_params *prm, uint slots,
                            __global uint *state, uint state_words)
{
    uint r = get_global_id(0);
    if (r >= count)
        return;
    uint words = prm->words, n = prm->nodes;
    __global const uint *in = records + (size_t)r * record;
    uint i = in[0];
    if (!held[part_of[i]])
        return;
    uint bit_words = record - 1u - slots * state_words;
    for (uint q = 0; q < slots * state_words; q++)
        state[((size_t)(q / state_words) * n + i) * state_words + q % state_words] =
            in[1u + bit_words + q];
    uint bit = 1u << (i & 31u);
    for (uint slot = 0; slot < slots; slot++) {
        __global uint *word = seen + (size_t)slot * words + (i >> 5);
        if ((in[1u + slot / 32u] >> (slot % 32u)) & 1u)
            atomic_or(word, bit);
        else
            atomic_and(word, ~bit);
    }
}

/* After the host grew an overflowing frontier: moves every spilled relay into it, after the
 * AT entries already there, and clears the spill bits. Runs over the words of live slots. */
__kernel void gather_spill(__global uint *spill, ulong total_words,
                           __constant const flood_params *prm, volatile __global uint *ctl,
                           __global entry_t *out, uint at, __global const uint *state)
{
    uint words = prm->words, n = prm->nodes;
    /* slots x words can pass 2^32: a 64-bit index, each item a stride of the words */
    for (size_t g = get_global_id(0); g < total_words; g += get_global_size(0)) {
        uint v = spill[g];
        if (v == 0u)
            continue;
        spill[g] = 0u;
        uint slot = (uint)(g / words), base_node = (uint)(g % words) * 32u;
        while (v != 0u) {
            uint b = 31u - clz(v & (0u - v));
            v &= v - 1u;
            uint j = base_node + b;
            /* under a scheme the relay's hop count is one more than its node's (see
             * scheme_decide, which spilled it on this device, where the node's state lives) */
            uint h = FLOOD_SCHEME ? ~SCHEME_AT(state, n, slot, j)[SW_HOP] + 1u : 0u;
            (void)state;
            (void)n;
            out[at + atomic_inc(&ctl[CTL_GATHER])] = ENTRY(j, slot, h);
        }
    }
}

/* ---- the same window, grouped by packet (CPU devices, static scenarios) ---------------- */

/* The relay draws {j, k, 1, 0} of the first N of the sixteen candidates CAND (nodes that have
 * just heard packet K for the first time), computed together: those that pass are appended
 * to RUN from index AT, in candidate order; returns the new end of the run. Lanes past N hold
 * stale nodes, drawn and ignored. */
inline uint relay_candidates(const uint *cand, uint n, uint k, const window_params *w,
                             __global uint *run, uint at)
{
    uint16 c0 = vload16(0, cand), c1 = (uint16)(k);
    uint16 c2 = (uint16)(STREAM_RELAY), c3 = (uint16)(0u);
    philox4x32_10_x16(&c0, &c1, &c2, &c3, w->key);
    uint r[16];
    vstore16(c0, 0, r);
    for (uint l = 0; l < n; l++)
        if ((ulong)r[l] >= DROP_THRESHOLD(w, cand[l]))
            run[at++] = cand[l];
    return at;
}

/* ---- whole packets (static scenarios) --------------------------------------------------- */

/* Per work-item sums reduced at the end of a packet: tx, rx, first, and with traffic flows
 * the deliveries, their hops and the last one's hop count. */
#if FLOOD_FLOWS
#define RED_WIDTH 6u
#else
#define RED_WIDTH 3u
#endif

/* Statistics row of one work-group (PACKET_STATS longs), summed by the host at the end. */
#define PS_TX 0
#define PS_RX 1
#define PS_FIRST 2
#define PS_DELIVERED 3
#define PS_HOPS 4
#define PS_LATENCY 5
#define PS_END 6      /* latest transmission time, -1: none */
#define PS_HOPS_HI 7  /* the high 64 bits of PS_HOPS and PS_LATENCY: a work-group's sums over */
#define PS_LATENCY_HI 8 /* a whole run can pass 2^64 (docs/when-things-go-wrong.md) */
#define PACKET_STATS 10

/* Adds the 128-bit value (HI, LO) to the 128-bit row member AT (its low 64 bits, as a long)
 * and AT_HI. Only the row's owner writes it. */
inline void row_add_wide(__global long *row, uint at, uint at_hi, ulong lo, ulong hi)
{
    ulong old = (ulong)row[at], sum = old + lo;
    row[at] = (long)sum;
    row[at_hi] += (long)(hi + (sum < old ? 1ul : 0ul));
}
/* longs of a packet's record (traffic flows): deliveries, their hops, the last one's hop
 * count, and under a forwarding scheme their latencies (the low 64 bits; the high ones at 5:
 * a broadcast packet's sum can pass 2^64) and the last one's latency */
#define PACKET_REC 8

/* Where a work-group is in its packets (RESUME_* in flood_layout.clh): packet Q of the
 * chunk; in STAGE 0 its seen words before S are cleared; in stage 1 the current level is
 * frontier entries [A, B) at hop H and time T, entries before S have transmitted, and the
 * next level so far is [B, END). ACC holds the packet's sums so far. */
typedef struct packet_walk {
    uint q, stage, a, b, s, end;
    long h, t, last;
    long acc[RESUME_ACCS];
} packet_walk;

/* The walk saved in REC by the launch before, when REC belongs to launch sequence EPOCH;
 * else a fresh walk at packet FIRST. */
inline void walk_load(packet_walk *p, __global const long *rec, uint epoch, uint first)
{
    int go_on = rec[RESUME_EPOCH] == (long)epoch;
    p->q = go_on ? (uint)rec[RESUME_Q] : first;
    p->stage = go_on ? (uint)rec[RESUME_STAGE] : 0u;
    p->a = (uint)rec[RESUME_A];
    p->b = (uint)rec[RESUME_B];
    p->s = go_on ? (uint)rec[RESUME_S] : 0u;
    p->end = (uint)rec[RESUME_END];
    p->h = rec[RESUME_H];
    p->t = rec[RESUME_T];
    p->last = rec[RESUME_LAST];
    for (uint x = 0; x < RESUME_ACCS; x++)
        p->acc[x] = go_on ? rec[RESUME_ACC + x] : 0;
}

inline void walk_save(const packet_walk *p, __global long *rec, uint epoch)
{
    rec[RESUME_EPOCH] = (long)epoch;
    rec[RESUME_Q] = (long)p->q;
    rec[RESUME_STAGE] = (long)p->stage;
    rec[RESUME_A] = (long)p->a;
    rec[RESUME_B] = (long)p->b;
    rec[RESUME_S] = (long)p->s;
    rec[RESUME_END] = (long)p->end;
    rec[RESUME_H] = p->h;
    rec[RESUME_T] = p->t;
    rec[RESUME_LAST] = p->last;
    for (uint x = 0; x < RESUME_ACCS; x++)
        rec[RESUME_ACC + x] = p->acc[x];
}

/* Arguments of the bounded launches: the work-groups' records, the launch sequence, the
 * launch's quota of work units (0: no bound) and the seen words one unit clears. */
#define PACKET_RESUME_ARGS __global long *resume, uint epoch, uint quota, uint unit_words

/* Up to *QUOTA units of packet K's levels (created at TK) by a work-group of one item (the
 * CPU shape): plain loads and stores, relay draws sixteen at a time (relay_candidates), the
 * frontier appended in order. A level's start costs a unit, and each entry transmitted one
 * (with its neighbours and their relay draws: the host's unit is 17 + 2 x the largest degree
 * loop iterations). Adds the counts to P->acc (tx, rx, first, delivered, hops; acc[5]
 * unused: the latencies follow from the hops, (h - 1) L each), sets acc[6] to the hop count
 * of its last delivery, and P->last to the time of its latest transmission (-1: none).
 * Returns 1 once the packet's flood is over, 0 when the quota ran out first. The source and
 * destination are W's. */
inline int flood_one_slice(packet_walk *p, uint *quota, uint k, __global const uint *offsets,
                           __global const uint *neighbours, __global const long4 *pos,
                           __global uint *bits, __global uint *fr, const window_params *w)
{
    uint cand[16] = {0u};
    while (p->a < p->b && (w->duration == 0 || p->t < w->duration)) {
        if (*quota == 0u)
            return 0;
        *quota -= 1u;
        p->last = p->t;
        int relays = w->ttl == 0u || p->h < (long)w->ttl;
        uint n_cand = 0;
        uint win = (uint)(p->t / w->L);
        uint stop = p->b - p->s <= *quota ? p->b : p->s + *quota;
        *quota -= stop - p->s;
        for (uint e = p->s; e < stop; e++) {
            uint i = fr[e];
            uint o0 = offsets[i], o1 = offsets[i + 1];
            long4 pi = FLOOD_QUDG ? pos[i] : (long4)(0);
            p->acc[0]++;
            if (!FLOOD_QUDG)
                p->acc[1] += o1 - o0;
            for (uint o = o0; o < o1; o++) {
                uint j = neighbours[o];
                if (TEST_DROPS(TB_PACKETS_ONE, j))
                    continue;
                if (FLOOD_QUDG) {
                    if (!qudg_link(i, j, dist2(pi, pos[j]), win, w))
                        continue;
                    p->acc[1]++;
                }
                uint bit = 1u << (j & 31u), v = bits[j >> 5];
                if (v & bit)
                    continue;
                bits[j >> 5] = v | bit;
                p->acc[2]++;
                int hit = j == w->destination;
                if (FLOOD_FLOWS) /* a broadcast packet: every first reception */
                    hit = hit || w->destination == BROADCAST;
                if (hit) {
                    p->acc[3]++;
                    p->acc[4] += p->h;
                    p->acc[6] = p->h;
                }
                if (!relays)
                    continue;
                cand[n_cand++] = j;
                if (n_cand == 16) {
                    p->end = relay_candidates(cand, 16, k, w, fr, p->end);
                    n_cand = 0;
                }
            }
        }
        if (n_cand)
            p->end = relay_candidates(cand, n_cand, k, w, fr, p->end);
        p->s = stop;
        if (stop < p->b)
            return 0;
        p->a = p->b;
        p->b = p->end;
        p->s = p->a;
        p->h++;
        p->t += w->L;
    }
    return 1;
}

/* Stages of a work-group's walk through its packets (RESUME_STAGE). */
#define WALK_CLEAR 0u  /* clearing the packet's seen words */
#define WALK_LEVELS 1u /* transmitting its levels */
#define WALK_END 2u    /* adding its sums to the statistics row */

/* Traffic flows (FLOOD_FLOWS; placeholders without): packet K0 + q's (time lo, time hi,
 * source, destination) in TAB[TBASE + q], and its record (deliveries, their hops, the last
 * one's hop count) written to REC[4 (TBASE + q) ..]. */
#define PACKET_FLOW_ARGS __global const uint4 *tab, __global long *rec, uint tbase

/* With traffic flows, packet I of the round's table TAB: its creation time into *TK, its
 * source and destination into *SRC and *DST (without flows they stay [traffic]'s). */
inline void round_packet(__global const uint4 *tab, uint i, long *tk, uint *src, uint *dst)
{
    if (FLOOD_FLOWS) {
        uint4 e = tab[i];
        *tk = (long)(((ulong)e.y << 32) | e.x);
        *src = e.z;
        *dst = e.w;
    }
}

/* The packets of a cooperative work-group (work-groups of more than one item), on seen bits
 * in global memory (GBITS) or, when LOCAL_BITS, in local memory (LBITS, saved to GBITS when a
 * bounded launch stops mid-packet). OpenCL 1.2 has no generic address space: the function
 * takes both pointers, and LOCAL_BITS is a constant of each caller that the compiler folds, so
 * each kernel keeps only its own accesses.
 *
 * A packet's levels: level entries get indices in one sequence (TAIL counts them): the
 * current level is [A, B). The first PACKET_LEVEL_CAP entries of a level are kept in local
 * memory (LCUR, and LNEXT for the level being appended), the rest in the global frontier FR
 * at their index: on a GPU a level then costs no global round trip for its entries, which is
 * most of a small level's time. Counters are private sums, reduced through RED at the end of
 * each packet.
 *
 * The walk is a loop of steps, each step one stage's work (some seen words cleared, a slice
 * of a level transmitted, or a packet's end), then a barrier, the step's bookkeeping, and a
 * barrier. Every decision is taken from values all the group's items share, and the barriers
 * are never under a branch (some CPU compilers break on those). With a quota (a bounded
 * launch, PACKET_RESUME_ARGS) a step costs units: a level slice one, plus one per entry each
 * item transmits; clearing one per UNIT_WORDS words each item clears; a packet's end 1 +
 * ls / 16. When the quota is spent the group saves its walk (the level entries held in local
 * memory to FR at their indices, local seen bits to GBITS, its sums reduced) and stops. */
inline void flood_packets_group(uint k0, uint count, __global const uint *restrict offsets,
                                __global const uint *restrict neighbours,
                                __global const long4 *pos, __global uint *fr, __global long *row,
                                const window_params *bw, PACKET_FLOW_ARGS, PACKET_RESUME_ARGS,
                                __local ulong *red, __local uint *tail, __local long *delivery,
                                __local uint *lfront, __global uint *gbits, __local uint *lbits,
                                const int local_bits, const uint test_bit)
{
    uint g = get_group_id(0), groups = get_num_groups(0);
    uint lid = get_local_id(0), ls = get_local_size(0);
    long start = bw->start, interval = bw->interval, L = bw->L, duration = bw->duration;
    uint2 key = bw->key;
    uint source = bw->source, destination = bw->destination, ttl = bw->ttl, words = bw->words;
    __global long *res = resume + (size_t)g * RESUME_LONGS;
    packet_walk p;
    walk_load(&p, res, epoch, g);
    __local uint *lcur = lfront, *lnext = lfront + PACKET_LEVEL_CAP;
    ulong tx = 0, rx = 0, first = 0, dv = 0, dh = 0;
    long dl = 0;
    if (lid == 0) { /* the group's sums so far, from the launch before */
        tx = (ulong)p.acc[0];
        rx = (ulong)p.acc[1];
        first = (ulong)p.acc[2];
        dv = (ulong)p.acc[3];
        dh = (ulong)p.acc[4];
        dl = p.acc[5];
        delivery[0] = p.acc[6];
        delivery[1] = p.acc[7];
        delivery[2] = p.acc[8];
        tail[0] = p.end;
    }
    /* a walk stopped mid-packet: its level entries and seen bits back in local memory */
    uint resumed = p.stage != WALK_CLEAR ? 1u : 0u;
    for (uint x = lid; resumed && x < min(p.b - p.a, (uint)PACKET_LEVEL_CAP); x += ls)
        lcur[x] = fr[p.a + x];
    for (uint x = lid; resumed && x < min(p.end - p.b, (uint)PACKET_LEVEL_CAP); x += ls)
        lnext[x] = fr[p.b + x];
    for (uint c = lid; local_bits && resumed && c < words; c += ls)
        lbits[c] = gbits[c];
    barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
    uint left = quota ? quota : UINT_MAX;
    int going = 1;
    while (going) {
        if (!quota)
            left = UINT_MAX;
        int stop_now = p.q >= count || left == 0u; /* done, or the quota is spent */
        uint k = k0 + p.q;
        long tk = start + (long)k * interval;
        uint src = source, dst = destination;
        if (!stop_now)
            round_packet(tab, tbase + p.q, &tk, &src, &dst);
        window_params lw = *bw;
        lw.source = src;
        lw.destination = dst;
        int more = !stop_now && p.stage == WALK_LEVELS && p.a < p.b &&
                   (duration == 0 || p.t < duration);
        if (!stop_now && p.stage == WALK_LEVELS && !more)
            p.stage = WALK_END; /* the packet's levels are over */
        uint stop = p.s;
        /* ---- the step's work ---- */
        if (stop_now) {
            /* a walk stopped mid-packet keeps its level entries and seen bits */
            uint keep = p.q < count && p.stage != WALK_CLEAR ? 1u : 0u;
            for (uint x = lid; keep && x < min(p.b - p.a, (uint)PACKET_LEVEL_CAP); x += ls)
                fr[p.a + x] = lcur[x];
            uint nb = tail[0];
            for (uint x = lid; keep && x < min(nb - p.b, (uint)PACKET_LEVEL_CAP); x += ls)
                fr[p.b + x] = lnext[x];
            for (uint c = lid; local_bits && keep && c < words; c += ls)
                gbits[c] = lbits[c];
        } else if (p.stage == WALK_CLEAR) {
            ulong room = (ulong)left * unit_words * ls;
            stop = (ulong)(words - p.s) <= room ? words : p.s + (uint)room;
            for (uint c = p.s + lid; c < stop; c += ls) {
                if (local_bits)
                    lbits[c] = 0u;
                else
                    gbits[c] = 0u;
            }
            left -= min(left, (stop - p.s + unit_words * ls - 1u) / (unit_words * ls));
        } else if (p.stage == WALK_LEVELS) {
            left--;
            p.last = p.t;
            int relays = ttl == 0u || p.h < (long)ttl;
            uint win = (uint)(p.t / L);
            uint per_item = (p.b - p.s + ls - 1u) / ls; /* to the level's end */
            uint take = min(per_item, left);
            left -= take;
            stop = p.b - p.s <= take * ls ? p.b : p.s + take * ls;
            for (uint e = p.s + lid; e < stop; e += ls) {
                uint i = e - p.a < PACKET_LEVEL_CAP ? lcur[e - p.a] : fr[e];
                uint o0 = offsets[i], o1 = offsets[i + 1];
                long4 pi = FLOOD_QUDG ? pos[i] : (long4)(0);
                tx++;
                if (!FLOOD_QUDG)
                    rx += o1 - o0;
                for (uint o = o0; o < o1; o++) {
                    uint j = neighbours[o];
                    if (TEST_DROPS(test_bit, j))
                        continue;
                    if (FLOOD_QUDG) {
                        if (!qudg_link(i, j, dist2(pi, pos[j]), win, &lw))
                            continue;
                        rx++;
                    }
                    uint bit = 1u << (j & 31u);
                    /* the atomic's return value alone (a plain read first would race) */
                    uint had = local_bits ? atomic_or(&lbits[j >> 5], bit)
                                          : atomic_or(&gbits[j >> 5], bit);
                    if (had & bit)
                        continue; /* seen before, or another work-item got there first */
                    first++;
                    if (FLOOD_FLOWS) { /* the packet's destination, or everyone */
                        if (j == dst || dst == BROADCAST) {
                            dv++;
                            dh += (ulong)p.h;
                            dl = p.h;
                        }
                    } else if (j == dst) { /* one first reception per packet */
                        delivery[0] = 1;
                        delivery[1] = p.h;
                        delivery[2] = p.t - tk;
                    }
                    if (relays &&
                        (ulong)philox_draw(key, j, k, STREAM_RELAY).x >=
                            DROP_THRESHOLD(&lw, j)) {
                        uint at = atomic_inc(tail);
                        if (at - p.b < PACKET_LEVEL_CAP)
                            lnext[at - p.b] = j;
                        else
                            fr[at] = j;
                    }
                }
            }
        }
        if (stop_now || p.stage == WALK_END) { /* the sums, to be reduced */
            red[RED_WIDTH * lid] = tx;
            red[RED_WIDTH * lid + 1] = rx;
            red[RED_WIDTH * lid + 2] = first;
            if (FLOOD_FLOWS) {
                red[RED_WIDTH * lid + 3] = dv;
                red[RED_WIDTH * lid + 4] = dh;
                red[RED_WIDTH * lid + 5] = (ulong)dl;
            }
        }
        barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
        /* ---- its bookkeeping ---- */
        if ((stop_now || p.stage == WALK_END) && lid == 0) {
            for (uint x = 1; x < ls; x++) {
                tx += red[RED_WIDTH * x];
                rx += red[RED_WIDTH * x + 1];
                first += red[RED_WIDTH * x + 2];
                if (FLOOD_FLOWS) {
                    dv += red[RED_WIDTH * x + 3];
                    dh += red[RED_WIDTH * x + 4];
                    dl = max(dl, (long)red[RED_WIDTH * x + 5]);
                }
            }
        }
        if (stop_now) {
            going = 0; /* the walk is saved after the loop */
        } else if (p.stage == WALK_END) {
            if (lid == 0) {
                row[PS_TX] += (long)tx;
                row[PS_RX] += (long)rx;
                row[PS_FIRST] += (long)first;
                if (FLOOD_FLOWS) { /* a delivery at hop h comes (h - 1) L after creation */
                    row[PS_DELIVERED] += (long)dv;
                    row_add_wide(row, PS_HOPS, PS_HOPS_HI, (ulong)dh, 0ul);
                    ulong x_ = (ulong)dh - (ulong)dv; /* whole relay delays, in 128 bits */
                    row_add_wide(row, PS_LATENCY, PS_LATENCY_HI, x_ * (ulong)L,
                                 mul_hi(x_, (ulong)L));
                    __global long *pr = rec + PACKET_REC * (size_t)(tbase + p.q);
                    pr[0] = (long)dv;
                    pr[1] = (long)dh;
                    pr[2] = dl;
                } else if (delivery[0]) {
                    row[PS_DELIVERED] += 1;
                    row_add_wide(row, PS_HOPS, PS_HOPS_HI, (ulong)delivery[1], 0ul);
                    row_add_wide(row, PS_LATENCY, PS_LATENCY_HI, (ulong)delivery[2], 0ul);
                }
                if (p.last > row[PS_END])
                    row[PS_END] = p.last;
            }
            tx = rx = first = dv = dh = 0;
            dl = 0;
            p.q += groups;
            p.stage = WALK_CLEAR;
            p.s = 0u;
            left -= min(left, 1u + ls / 16u);
        } else if (p.stage == WALK_CLEAR) {
            p.s = stop;
            if (stop == words) { /* the packet starts: its source has its own packet */
                if (lid == 0) {
                    if (local_bits)
                        lbits[src >> 5] |= 1u << (src & 31u);
                    else
                        gbits[src >> 5] |= 1u << (src & 31u);
                    lcur[0] = src;
                    tail[0] = 1u;
                    delivery[0] = 0;
                }
                p.stage = WALK_LEVELS;
                p.a = p.s = 0u;
                p.b = 1u;
                p.h = 1;
                p.t = tk;
                p.last = -1;
            }
        } else { /* a level slice */
            p.s = stop;
            if (stop == p.b) { /* the level is over: the next one is what it appended */
                p.a = p.b;
                p.b = tail[0];
                p.s = p.a;
                p.h++;
                p.t += L;
                __local uint *swap = lcur;
                lcur = lnext;
                lnext = swap;
            }
        }
        /* every item has read TAIL, RED and the level before the next step writes them */
        barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
    }
    /* The walk saved for the next launch (or its end marked), after the loop rather than in
     * the step that stops it: PoCL 5.0's work-group function generation aborts on that branch
     * between the loop's two barriers (Kernel.cc, region_entry_barrier). Nothing after the
     * last barrier writes what it reads. */
    if (lid == 0) {
        p.end = tail[0];
        p.acc[0] = (long)tx;
        p.acc[1] = (long)rx;
        p.acc[2] = (long)first;
        p.acc[3] = (long)dv;
        p.acc[4] = (long)dh;
        p.acc[5] = dl;
        p.acc[6] = delivery[0];
        p.acc[7] = delivery[1];
        p.acc[8] = delivery[2];
        walk_save(&p, res, epoch);
        row[PS_PENDING] = p.q < count ? 1 : 0;
    }
}

/* Floods packets K0 .. K0 + COUNT - 1 from creation to their last relay, one work-group per
 * packet at a time (work-group g takes K0 + g, then K0 + g + G, ...).
 *
 * Why this is exact: in a static scenario a packet's flood depends on nothing but the
 * neighbour lists and its own seen set; no two packets meet. A packet's transmissions at hop h
 * all happen at t_k + (h - 1) L, so its flood is a breadth-first search, level h being window
 * (t_k + (h - 1) L) / L, and it can be run to its end without waiting for other packets'
 * windows. Every counter is a sum over packets, and the end time a maximum, so neither the
 * order of packets nor of work-items can change a result.
 *
 * State per work-group: a seen bitset of WORDS words (SEEN here; flood_packets_local keeps it
 * in local memory) and one frontier array of N entries, in which each level is the run of
 * entries appended by the level before (a node enters at most once per packet, so N entries
 * always suffice). Counters are private 64-bit sums, reduced through RED at the end of each
 * packet. Groups of one item (the CPU shape) run flood_packets_one instead, and seen bits in
 * local memory flood_packets_local: separate kernels rather than branches, because barriers
 * under a branch break some CPU compilers (PoCL 5.0 aborts on them).
 *
 * The whole-packet kernels take the node count N by value (and flood_packets_scheme also the
 * schemes' thresholds, which its loops test), not from the parameter block: they are the hot
 * kernels of static scenarios, and an argument is a value every compiler keeps at hand (a
 * register, or an operand from the GPU's argument bank), whereas a value loaded through a
 * buffer pointer is kept only where the compiler proves that no store of the loops changes
 * it (on CPUs __constant is ordinary memory). With N read from the block, grid_flood measured
 * possibly 4% slower on an H100, within the spread; arguments remove the doubt. What they
 * read of the block, params_window loads once into private variables at entry, from its
 * first 88 bytes (flood_layout.clh). */
__kernel void flood_packets(uint k0, uint count, __global const uint *restrict offsets,
                            __global const uint *restrict neighbours, uint n,
                            __global uint *seen, __global uint *front, __global long *stats,
                            __constant const flood_params *prm, __global const long4 *pos,
                            __global const ulong *node_drop, PACKET_FLOW_ARGS,
                            PACKET_RESUME_ARGS, __local ulong *red,
                            __local uint *tail, __local long *delivery, __local uint *lfront)
{
    uint g = get_group_id(0);
    window_params w = params_window(prm, 0, node_drop);
    __global uint *gbits = seen + (size_t)g * w.words;
    __global uint *fr = front + (size_t)g * n;
    __global long *row = stats + (size_t)g * PACKET_STATS;
    flood_packets_group(k0, count, offsets, neighbours, pos, fr, row, &w, tab, rec, tbase,
                        resume, epoch, quota, unit_words, red, tail, delivery, lfront, gbits,
                        (__local uint *)0, 0, TB_PACKETS);
}

/* The CPU shape: work-groups of one item, each flooding its packets alone (flood_one_slice:
 * no barriers, no atomics, relay draws sixteen at a time), within the launch's quota of work
 * units when it has one (PACKET_RESUME_ARGS). */
__kernel void flood_packets_one(uint k0, uint count, __global const uint *offsets,
                                __global const uint *neighbours, uint n, __global uint *seen,
                                __global uint *front, __global long *stats,
                                __constant const flood_params *prm, __global const long4 *pos,
                                __global const ulong *node_drop, PACKET_FLOW_ARGS,
                                PACKET_RESUME_ARGS)
{
    uint g = get_global_id(0), groups = get_global_size(0);
    window_params w = params_window(prm, 0, node_drop);
    long start = w.start, interval = w.interval, L = w.L;
    uint source = w.source, destination = w.destination, words = w.words;
    __global uint *bits = seen + (size_t)g * words;
    __global uint *fr = front + (size_t)g * n;
    __global long *row = stats + (size_t)g * PACKET_STATS;
    __global long *res = resume + (size_t)g * RESUME_LONGS;
    packet_walk p;
    walk_load(&p, res, epoch, g);
    uint left = quota ? quota : UINT_MAX;
    while (p.q < count) {
        if (quota && left == 0u) { /* the rest in the next launch */
            walk_save(&p, res, epoch);
            row[PS_PENDING] = 1;
            return;
        }
        uint k = k0 + p.q;
        long tk = start + (long)k * interval;
        w.source = source;
        w.destination = destination;
        round_packet(tab, tbase + p.q, &tk, &w.source, &w.destination);
        if (p.stage == 0u) { /* the seen words, unit_words per unit */
            uint room = left < UINT_MAX / unit_words ? left * unit_words : UINT_MAX;
            uint stop = words - p.s <= room ? words : p.s + room;
            for (uint c = p.s; c < stop; c++)
                bits[c] = 0u;
            left -= min(left, (stop - p.s + unit_words - 1u) / unit_words);
            p.s = stop;
            if (stop < words)
                continue;
            bits[w.source >> 5] |= 1u << (w.source & 31u);
            fr[0] = w.source;
            p.stage = 1u;
            p.a = p.s = 0u;
            p.b = p.end = 1u;
            p.h = 1;
            p.t = tk;
            p.last = -1;
            for (uint x = 0; x < RESUME_ACCS; x++)
                p.acc[x] = 0;
        }
        if (!flood_one_slice(&p, &left, k, offsets, neighbours, pos, bits, fr, &w))
            continue;
        for (int c = 0; c < 4; c++)
            row[c] += p.acc[c];
        row_add_wide(row, PS_HOPS, PS_HOPS_HI, (ulong)p.acc[4], 0ul);
        ulong x = (ulong)(p.acc[4] - p.acc[3]); /* whole relay delays, the product in 128 bits */
        row_add_wide(row, PS_LATENCY, PS_LATENCY_HI, x * (ulong)L, mul_hi(x, (ulong)L));
        if (FLOOD_FLOWS) {
            rec[PACKET_REC * (size_t)(tbase + p.q)] = p.acc[3];
            rec[PACKET_REC * (size_t)(tbase + p.q) + 1] = p.acc[4];
            rec[PACKET_REC * (size_t)(tbase + p.q) + 2] = p.acc[6];
        }
        if (p.last > row[PS_END])
            row[PS_END] = p.last;
        p.q += groups;
        p.stage = 0u;
        p.s = 0u;
        left -= min(left, 1u);
    }
    walk_save(&p, res, epoch); /* a launch after the last finds nothing to do */
    row[PS_PENDING] = 0;
}

/* The same with the seen bitset in local memory (LBITS, WORDS words), when the host found room
 * for it there: claims are then local atomics, the costliest step of a level on a GPU. */
__kernel void flood_packets_local(uint k0, uint count, __global const uint *restrict offsets,
                                  __global const uint *restrict neighbours, uint n,
                                  __global uint *seen, __global uint *front,
                                  __global long *stats, __constant const flood_params *prm,
                                  __global const long4 *pos, __global const ulong *node_drop,
                                  PACKET_FLOW_ARGS, PACKET_RESUME_ARGS, __local ulong *red,
                                  __local uint *tail, __local long *delivery,
                                  __local uint *lfront, __local uint *lbits)
{
    uint g = get_group_id(0);
    window_params w = params_window(prm, 0, node_drop);
    __global uint *gbits = seen + (size_t)g * w.words; /* where a stopped walk keeps LBITS */
    __global uint *fr = front + (size_t)g * n;
    __global long *row = stats + (size_t)g * PACKET_STATS;
    flood_packets_group(k0, count, offsets, neighbours, pos, fr, row, &w, tab, rec, tbase,
                        resume, epoch, quota, unit_words, red, tail, delivery, lfront, gbits,
                        lbits, 1, TB_PACKETS_LOCAL);
}

/* ---- forwarding schemes, whole packets (docs/models.md, "Forwarding schemes") ----------- */

/* -DFLOOD_SCHEME=1 (counter) or 2 (distance); 0: probabilistic, docs/model.md's rule, which
 * the kernels above implement. */
#ifndef FLOOD_SCHEME
#define FLOOD_SCHEME 0
#endif

#if FLOOD_SCHEME
/* A node's state word for the packet being flooded: the copies it heard (counter), whether
 * one came from within the distance threshold (distance), SEALED once its first reception's
 * level has ended (its hop count is then final), DONE once it has decided (later copies
 * change nothing, so they are not even counted). */
#define SC_SEALED 0x80000000u
#define SC_NEAR 0x40000000u
#define SC_DONE 0x20000000u
#define SC_COUNT 0x1fffffffu
/* uints of per-node state per work-group: hop words, state words, the first-heard list, and
 * two lists of (node, decision level) pairs waiting for their decision */
#define SCHEME_STATE_WORDS 7u
/* per work-item sums: tx, rx, first, delivered, hops, latency, last delivery's latency and
 * hop count */
#define RED_SCHEME 9u
/* whether a transmission needs the distance to each neighbour (qudg draws links by it) */
#if FLOOD_QUDG || FLOOD_SCHEME == 2
#define SCHEME_DISTANCES 1
#else
#define SCHEME_DISTANCES 0
#endif

/* Whether a node relays at the end of its assessment, from its state word C. */
inline int scheme_relays(uint c, uint counter_c)
{
#if FLOOD_SCHEME == 1
    return (c & SC_COUNT) < counter_c;
#else
    (void)counter_c;
    return (c & SC_NEAR) == 0u;
#endif
}

/* Floods packets K0 .. K0 + COUNT - 1 under the counter or distance scheme, one work-group
 * per packet at a time, as flood_packets does. Packets still never meet in a static
 * scenario; what changes is that a node relays a whole number of levels (L) after its first
 * reception, not always one, and that its decision depends on the copies it hears until then.
 * So the flood is walked level by level in time (level m: time t_k + m L): each level first
 * runs its transmissions (phase 1: copies counted, first receptions found, hop counts taken
 * as the least of the level's copies by atomic_max on their complement), then, after a
 * barrier, its decisions (phase 2: the level's first receptions, whose hop counts are now
 * final, and the waiting nodes whose assessment ends at this level). A relay decided at
 * level m transmits at level m + 1. Levels with nothing to transmit are skipped to the next
 * decision. Every outcome is a set union, a minimum or a count, so neither the work-group
 * size nor the order of work-items can change it.
 *
 * STATE holds per work-group SCHEME_STATE_WORDS x N uints, zero between packets (each packet
 * clears what it touched: the nodes of its first-heard list). FRONT holds the transmitters in
 * level order (each node transmits a packet at most once). */
__kernel void flood_packets_scheme(uint k0, uint count, __global const uint *restrict offsets,
                                   __global const uint *restrict neighbours, uint n,
                                   __global uint *seen, __global uint *front,
                                   __global long *stats, __constant const flood_params *prm,
                                   __global const long4 *pos, __global const ulong *node_drop,
                                   PACKET_FLOW_ARGS,
                                   __global uint *state, uint counter_c, ulong near2,
                                   uint assess_a, __local ulong *red, __local uint *lc)
{
    uint g = get_group_id(0), groups = get_num_groups(0);
    uint lid = get_local_id(0), ls = get_local_size(0);
    window_params w = params_window(prm, 0, node_drop);
    long start = w.start, interval = w.interval, L = w.L, duration = w.duration;
    ulong drop_threshold = w.drop_threshold, rmin2 = w.rmin2, link_thr = w.link_thr;
    uint2 key = w.key;
    uint source = w.source, destination = w.destination, ttl = w.ttl, words = w.words;
    __global uint *bits = seen + (size_t)g * words;
    __global uint *fr = front + (size_t)g * n;
    __global long *row = stats + (size_t)g * PACKET_STATS;
    __global uint *hop = state + (size_t)g * SCHEME_STATE_WORDS * n;
    __global uint *cnt = hop + (size_t)n, *heard = hop + 2 * (size_t)n;
    __global uint *wcur = hop + 3 * (size_t)n, *wnext = hop + 5 * (size_t)n;
    for (uint q = g; q < count; q += groups) {
        uint k = k0 + q;
        long tk = start + (long)k * interval;
        uint src = source, dst = destination;
        round_packet(tab, tbase + q, &tk, &src, &dst);
        window_params lw = {0, L, start, interval, duration, drop_threshold, key, src,
                            dst, ttl, words, rmin2, link_thr, node_drop};
        ulong tx = 0, rx = 0, first = 0, dv = 0, dh = 0;
        ulong dlat = 0, dlat_hi = 0; /* 128 bits: a broadcast packet's sum can pass 2^64 */
        long last = -1, lt = -1, lh = 0; /* the last delivery: latency and hop count */
        for (uint c = lid; c < words; c += ls)
            bits[c] = 0u;
        barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
        if (lid == 0) {
            bits[src >> 5] |= 1u << (src & 31u); /* the source has its own packet */
            hop[src] = ~0u;                      /* hop count 0: it transmits with 1 */
            cnt[src] = SC_SEALED | SC_DONE;
            fr[0] = src;
            heard[0] = src;
            lc[0] = 1u;          /* transmitters appended */
            lc[1] = 1u;          /* first-heard nodes appended */
            lc[2] = 0u;          /* nodes waiting after this level */
            lc[3] = UINT_MAX;    /* the nearest of their decision levels, from this one */
        }
        barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
        uint a = 0, b = 1, ha = 1, nw = 0;
        long m = 0, t = tk;
        while ((a < b || nw > 0) && (duration == 0 || t < duration)) {
            if (a < b)
                last = t;
            uint win = (uint)(t / L);
            /* phase 1: the level's transmissions */
            for (uint e = a + lid; e < b; e += ls) {
                uint i = fr[e];
                uint hi = ~hop[i] + 1u; /* its first reception's hop count, plus one */
                uint o0 = offsets[i], o1 = offsets[i + 1];
                long4 pi = SCHEME_DISTANCES ? pos[i] : (long4)(0);
                tx++;
                if (!FLOOD_QUDG)
                    rx += o1 - o0;
                for (uint o = o0; o < o1; o++) {
                    uint j = neighbours[o];
                    if (TEST_DROPS(TB_PACKETS_SCHEME, j))
                        continue;
                    ulong d2 = SCHEME_DISTANCES ? dist2(pi, pos[j]) : 0ul;
                    if (FLOOD_QUDG) {
                        if (!qudg_link(i, j, d2, win, &lw))
                            continue;
                        rx++;
                    }
                    /* its flags change only in phase 2, but its count (or NEAR) changes
                     * under the other work-items' atomics of this phase: an atomic read */
                    uint c = load_atomic(&cnt[j]);
                    if (c & SC_DONE)
                        continue;
                    if (!(c & SC_SEALED)) { /* heard first at this level, or never before */
                        uint bit = 1u << (j & 31u);
                        if (!(atomic_or(&bits[j >> 5], bit) & bit)) {
                            first++;
                            heard[atomic_inc(&lc[1])] = j;
                        }
                        atomic_max(&hop[j], ~hi);
                    }
                    if (FLOOD_SCHEME == 1)
                        atomic_inc(&cnt[j]);
                    else if (d2 <= near2)
                        atomic_or(&cnt[j], SC_NEAR);
                }
            }
            barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
            /* phase 2: the level's first receptions, then the decisions due at this level */
            uint hb = lc[1];
            for (uint e = ha + lid; e < hb; e += ls) {
                uint j = heard[e];
                uint c = cnt[j] | SC_SEALED;
                long h = (long)~hop[j];
                int hit = j == dst;
                if (FLOOD_FLOWS) /* a broadcast packet: every first reception */
                    hit = hit || dst == BROADCAST;
                if (hit) {
                    dv++;
                    dh += (ulong)h;
                    dlat += (ulong)(t - tk);
                    dlat_hi += dlat < (ulong)(t - tk) ? 1ul : 0ul;
                    if (t - tk > lt || (t - tk == lt && h > lh)) {
                        lt = t - tk;
                        lh = h;
                    }
                }
                int go = ttl == 0u || h < (long)ttl;
                if (go)
                    go = (ulong)philox_draw(key, j, k, STREAM_RELAY).x >= DROP_THRESHOLD(&lw, j);
                uint r = 0u;
                if (go && assess_a > 0u)
                    r = (uint)philox_uniform(philox_draw(key, j, k, STREAM_ASSESS).x,
                                             (ulong)assess_a + 1ul);
                if (!go) {
                    c |= SC_DONE;
                } else if (r == 0u) { /* no wait: decides on the copies of this level */
                    c |= SC_DONE;
                    if (scheme_relays(c, counter_c))
                        fr[atomic_inc(&lc[0])] = j;
                } else {
                    uint at = atomic_inc(&lc[2]);
                    wnext[2 * at] = j;
                    wnext[2 * at + 1] = (uint)m + r; /* modulo 2^32: r <= 10^6 */
                    atomic_min(&lc[3], r);
                }
                cnt[j] = c;
            }
            for (uint e = lid; e < nw; e += ls) {
                uint j = wcur[2 * e], due = wcur[2 * e + 1];
                if (due == (uint)m) {
                    uint c = cnt[j] | SC_DONE;
                    cnt[j] = c;
                    if (scheme_relays(c, counter_c))
                        fr[atomic_inc(&lc[0])] = j;
                } else {
                    uint at = atomic_inc(&lc[2]);
                    wnext[2 * at] = j;
                    wnext[2 * at + 1] = due;
                    atomic_min(&lc[3], due - (uint)m);
                }
            }
            barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
            a = b;
            b = lc[0];
            ha = hb;
            nw = lc[2];
            uint ahead = lc[3];
            __global uint *swap = wcur;
            wcur = wnext;
            wnext = swap;
            /* the next level with a transmission or a decision */
            if (a < b)
                m++;
            else if (nw > 0)
                m += (long)ahead;
            t = tk + m * L;
            barrier(CLK_LOCAL_MEM_FENCE); /* everyone has read the counts */
            if (lid == 0) {
                lc[2] = 0u;
                lc[3] = UINT_MAX;
            }
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        red[RED_SCHEME * lid] = tx;
        red[RED_SCHEME * lid + 1] = rx;
        red[RED_SCHEME * lid + 2] = first;
        red[RED_SCHEME * lid + 3] = dv;
        red[RED_SCHEME * lid + 4] = dh;
        red[RED_SCHEME * lid + 5] = dlat;
        red[RED_SCHEME * lid + 6] = (ulong)lt;
        red[RED_SCHEME * lid + 7] = (ulong)lh;
        red[RED_SCHEME * lid + 8] = dlat_hi;
        barrier(CLK_LOCAL_MEM_FENCE);
        if (lid == 0) {
            for (uint x = 1; x < ls; x++) {
                __local const ulong *v = red + RED_SCHEME * x;
                tx += v[0];
                rx += v[1];
                first += v[2];
                dv += v[3];
                dh += v[4];
                dlat += v[5];
                dlat_hi += v[8] + (dlat < v[5] ? 1ul : 0ul);
                if ((long)v[6] > lt || ((long)v[6] == lt && (long)v[7] > lh)) {
                    lt = (long)v[6];
                    lh = (long)v[7];
                }
            }
            row[PS_TX] += (long)tx;
            row[PS_RX] += (long)rx;
            row[PS_FIRST] += (long)first;
            row[PS_DELIVERED] += (long)dv;
            row_add_wide(row, PS_HOPS, PS_HOPS_HI, dh, 0ul);
            row_add_wide(row, PS_LATENCY, PS_LATENCY_HI, dlat, dlat_hi);
            if (last > row[PS_END])
                row[PS_END] = last;
            if (FLOOD_FLOWS) {
                __global long *x = rec + PACKET_REC * (size_t)(tbase + q);
                x[0] = (long)dv;
                x[1] = (long)dh;
                x[2] = lh;
                x[3] = (long)dlat;
                x[4] = lt;
                x[5] = (long)dlat_hi;
            }
        }
        /* the packet's state back to zero for the next: the nodes it touched */
        uint touched = lc[1];
        for (uint e = lid; e < touched; e += ls) {
            uint j = heard[e];
            hop[j] = 0u;
            cnt[j] = 0u;
        }
        barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
    }
}
#endif
