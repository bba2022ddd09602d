/* Sequential reference implementation of the flood model (see flood_oracle.h).
 *
 * Structure: time is cut into windows [w*L, (w+1)*L), L = relay_delay. A node relays a whole
 * number of L after its first reception (L under probabilistic; (r + 1) L after an assessment
 * delay of r windows under counter and distance, docs/models.md "Forwarding schemes"), so all
 * transmissions of a packet are at t_k + m L: a packet has at most one transmission time per
 * window, and everything it does in a window happens at that time. The oracle therefore walks
 * the windows in order and, in each, takes every live packet one step: its transmissions of
 * that time (the frontier, each with its own hop count), the first receptions they cause, and
 * the decisions due then, whose relays are the frontier of the next window. Between its first
 * reception and its decision a node holds an assessment record (the least hop count of its
 * first copies, the copies it heard); packets with nothing to send wait, without steps, for
 * their next decision. Packets never interact (each has its own per-node state), so the order
 * in which packets are handled inside a window does not matter; only positions (hence
 * neighbour sets) are shared, and those depend on the window alone.
 *
 * Traffic flows (docs/models.md "Traffic") only change where packets come from: every
 * departure of every (flow, source) is listed until its stop condition, the list is sorted by
 * (t, f, s, m) to give the packet ids, and each packet then floods as above from its own
 * source, at its own creation time, towards its flow's destination (every node for a
 * broadcast). Without flows the list is the packets of docs/model.md, k = 0 .. P - 1.
 *
 * Node resources (docs/models.md "Node resources") make packets meet at the nodes: a node's
 * capacity and energy are shared by every packet of a window. Such a window is then taken
 * whole (resources_window): every transmission of every packet is listed and sorted by node,
 * time and packet, paid node by node; the copies of those that happen are listed and sorted
 * by receiver, time, packet and sender, accepted and paid node by node; and each packet then
 * hears the copies that happened and settles its step as above. */
#include "oracle/flood_oracle.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define NS_PER_S INT64_C(1000000000)
#define NS_PER_MS INT64_C(1000000)

/* ---------------------------------------------------------------- Philox4x32-10 */

/* Constants of Random123's philox4x32: the multipliers and the Weyl key increments. */
#define PHILOX_M0 UINT32_C(0xD2511F53)
#define PHILOX_M1 UINT32_C(0xCD9E8D57)
#define PHILOX_W0 UINT32_C(0x9E3779B9)
#define PHILOX_W1 UINT32_C(0xBB67AE85)

void oracle_philox4x32_10(const uint32_t ctr[4], uint32_t key0, uint32_t key1, uint32_t out[4])
{
    uint32_t c[4] = {ctr[0], ctr[1], ctr[2], ctr[3]};
    for (int round = 0; round < 10; round++) {
        if (round > 0) { /* the key is bumped between rounds, not before the first */
            key0 += PHILOX_W0;
            key1 += PHILOX_W1;
        }
        uint64_t p0 = (uint64_t)PHILOX_M0 * c[0];
        uint64_t p1 = (uint64_t)PHILOX_M1 * c[2];
        uint32_t hi0 = (uint32_t)(p0 >> 32), lo0 = (uint32_t)p0;
        uint32_t hi1 = (uint32_t)(p1 >> 32), lo1 = (uint32_t)p1;
        uint32_t n0 = hi1 ^ c[1] ^ key0;
        uint32_t n2 = hi0 ^ c[3] ^ key1;
        c[0] = n0;
        c[1] = lo1;
        c[2] = n2;
        c[3] = lo0;
    }
    memcpy(out, c, sizeof c);
}

void oracle_philox(uint64_t seed, uint32_t a, uint32_t b, uint32_t s, uint32_t w[4])
{
    const uint32_t ctr[4] = {a, b, s, 0};
    oracle_philox4x32_10(ctr, (uint32_t)(seed & 0xffffffffu), (uint32_t)(seed >> 32), w);
}

/* A value uniform in [0, n): (w * n) >> 32 with a 64-bit product; n <= 2^32. */
static uint64_t uniform_below(uint32_t w, uint64_t n) { return ((uint64_t)w * n) >> 32; }

/* ---------------------------------------------------------------- integer helpers */

/* Digit-by-digit (base 4) square root: exact for every 64-bit input and free of floating
 * point, so it cannot disagree with the model's floor(sqrt()) on large or near-square values. */
uint64_t oracle_isqrt_u64(uint64_t x)
{
    uint64_t rem = x, root = 0;
    uint64_t bit = UINT64_C(1) << 62; /* the largest power of four */
    while (bit > rem)
        bit >>= 2;
    while (bit != 0) {
        if (rem >= root + bit) {
            rem -= root + bit;
            root = (root >> 1) + bit;
        } else {
            root >>= 1;
        }
        bit >>= 2;
    }
    return root;
}

/* Squared distance in 64-bit unsigned arithmetic: coordinates are at most 2^31 - 1 mm apart
 * (SCENARIO_MAX_SIDE_MM), so each square is below 2^62 and the sum of three below 2^64. */
static uint64_t dist2(const int64_t a[3], const int64_t b[3])
{
    uint64_t s = 0;
    for (int c = 0; c < 3; c++) {
        int64_t d = a[c] - b[c];
        s += (uint64_t)(d * d);
    }
    return s;
}

/* rwp budget b = v * L / 10^9 (integer division), split as v * (L / 10^9) + v * (L % 10^9) /
 * 10^9 so that v * L cannot overflow for long windows; the result is the same integer. */
/* ---- linear and random_walk (docs/models.md, "Mobility") */

#define WALK_BUDGET_MAX (INT64_C(1) << 40) /* mm per window, so that direction x b fits */

/* A walk draw ctr {i, item, STREAM, 0} (7: linear and random_walk, 8: random_direction):
 * direction components (w >> 11) - 2^20 (z only when the area has a depth), speed uniform in
 * [speed_min, speed_max] from w3. */
static void walk_draw(const scenario *scn, const mobility_params *mp, uint32_t i, uint32_t item,
                      uint32_t stream, int64_t d[3], int64_t *v)
{
    const flood_values *sc = flood_values_of(scn);
    uint32_t w[4];
    oracle_philox(scn->seed, i, item, stream, w);
    for (int c = 0; c < 3; c++)
        d[c] = (int64_t)(w[c] >> 11) - (INT64_C(1) << 20);
    if (sc->depth_mm == 0)
        d[2] = 0;
    *v = mp->speed_min_mm_s +
         (int64_t)uniform_below(w[3], (uint64_t)(mp->speed_max_mm_s - mp->speed_min_mm_s + 1));
}

/* random_direction, leg M of node I: its travel time (WHICH = 0, from w0 of ctr {i, m, 9, 0})
 * or the pause after it (WHICH = 1, from w1), in ns. */
static int64_t leg_time_ns(const scenario *sc, const mobility_params *mp, uint32_t i,
                           uint32_t m, int which)
{
    uint32_t w[4];
    oracle_philox(sc->seed, i, m, 9, w);
    if (which == 0)
        return (mp->travel_min_ms +
                (int64_t)uniform_below(w[0], (uint64_t)(mp->travel_max_ms - mp->travel_min_ms + 1))) *
               NS_PER_MS;
    return (mp->pause_min_ms +
            (int64_t)uniform_below(w[1], (uint64_t)(mp->pause_max_ms - mp->pause_min_ms + 1))) *
           NS_PER_MS;
}

/* ---- grid_walk (docs/models.md) */

/* The last street along each axis: floor(side / s) s. */
static int64_t last_street(int64_t side, int64_t s) { return side / s * s; }

/* The heading taken at intersection (x, y) with turn draw W0, coming with heading HP (4:
 * none): uniform among +x, +y, -x, -y (in that order) that stay inside, without the way back
 * unless it is the only one; 4 when none. */
static int64_t grid_turn(const scenario *scn, const mobility_params *mp, int64_t x, int64_t y,
                         int64_t hp, uint32_t w0)
{
    const flood_values *sc = flood_values_of(scn);
    const int64_t s = mp->street_spacing_mm;
    const int64_t xm = last_street(sc->width_mm, s), ym = last_street(sc->height_mm, s);
    bool ok[4] = {x < xm, y < ym, x > 0, y > 0};
    int n = ok[0] + ok[1] + ok[2] + ok[3];
    if (n == 0)
        return 4;
    if (hp < 4 && n > 1 && ok[(hp + 2) % 4]) {
        ok[(hp + 2) % 4] = false;
        n--;
    }
    int64_t pick = (int64_t)uniform_below(w0, (uint64_t)n);
    for (int h = 0; h < 4; h++)
        if (ok[h] && pick-- == 0)
            return h;
    return 4;
}

/* Node I to the nearest intersection (ties up, at most the last street), its speed and first
 * heading from ctr {i, 0, 10, 0}; the heading is kept in dir[i][0], the turns made in leg. */
static void grid_start(const scenario *scn, const mobility_params *mp, oracle_mobility *m,
                       int64_t i)
{
    const flood_values *sc = flood_values_of(scn);
    const int64_t s = mp->street_spacing_mm;
    int64_t *p = m->pos[i];
    int64_t x = (p[0] + s / 2) / s * s, y = (p[1] + s / 2) / s * s;
    const int64_t xm = last_street(sc->width_mm, s), ym = last_street(sc->height_mm, s);
    p[0] = x < xm ? x : xm;
    p[1] = y < ym ? y : ym;
    uint32_t w[4];
    oracle_philox(scn->seed, (uint32_t)i, 0, 10, w);
    m->speed[i] = mp->speed_min_mm_s +
                  (int64_t)uniform_below(w[3], (uint64_t)(mp->speed_max_mm_s - mp->speed_min_mm_s + 1));
    m->dir[i][0] = grid_turn(scn, mp, p[0], p[1], 4, w[0]);
    m->leg[i] = 1;
}

/* floor(a / b) for b > 0 */
static int64_t floor_div(int64_t a, int64_t b)
{
    int64_t q = a / b;
    if (a % b != 0 && a < 0)
        q--;
    return q;
}

/* The coordinate after a move from P to X on an axis of side S > 0 (docs/models.md). */
static int64_t walk_boundary(int policy, int64_t p, int64_t x, int64_t s, int64_t *dir)
{
    if (policy == BOUNDARY_WRAP)
        return x - floor_div(x, s) * s;
    if (x >= 0 && x <= s)
        return x;
    switch (policy) {
    case BOUNDARY_STOP:
        return x < 0 ? 0 : s;
    case BOUNDARY_SLIDE:
        *dir = 0;
        return p;
    default: { /* bounce: fold into [0, s], reflected an odd number of times when q is odd */
        const int64_t q = floor_div(x, s), r = x - q * s;
        if (q % 2 != 0) {
            *dir = -*dir;
            return s - r;
        }
        return r;
    }
    }
}

static int64_t rwp_budget(int64_t v, int64_t l_ns)
{
    return v * (l_ns / NS_PER_S) + (v * (l_ns % NS_PER_S)) / NS_PER_S;
}

/* ---------------------------------------------------------------- scenario checks */

int64_t oracle_node_count(const scenario *scn)
{
    const flood_values *sc = flood_values_of(scn);
    if (sc->placement == PLACEMENT_GRID) {
        if (sc->rows < 1 || sc->cols < 1 || sc->rows > INT32_MAX / sc->cols)
            return -1;
        return sc->rows * sc->cols;
    }
    if (sc->placement == PLACEMENT_UNIFORM)
        return sc->nodes >= 1 && sc->nodes <= INT32_MAX ? sc->nodes : -1;
    if (sc->placement == PLACEMENT_AREAS) {
        if (sc->areas < 2 || sc->areas > 1024 || sc->rows < 1 || sc->cols < 1 ||
            sc->rows > INT32_MAX / sc->cols || sc->rows * sc->cols > INT32_MAX / sc->areas)
            return -1;
        return sc->areas * sc->rows * sc->cols;
    }
    return -1;
}

static bool side_ok(int64_t v) { return v >= 0 && v <= SCENARIO_MAX_SIDE_MM; }

/* One set of mobility parameters ([mobility] or a group's) within what the model defines. */
static bool mobility_ok(const scenario *scn, const mobility_params *mp)
{
    const flood_values *sc = flood_values_of(scn);
    if (mp->model != MOBILITY_STATIC) {
        if (mp->model != MOBILITY_RWP && mp->model != MOBILITY_LINEAR &&
            mp->model != MOBILITY_RANDOM_WALK && mp->model != MOBILITY_RANDOM_DIRECTION &&
            mp->model != MOBILITY_GRID_WALK)
            return false;
        /* grid_walk: at most 64 intersections per window (the configuration's rule) */
        if (mp->model == MOBILITY_GRID_WALK &&
            (mp->street_spacing_mm < 1 || mp->street_spacing_mm > SCENARIO_MAX_SIDE_MM ||
             rwp_budget(mp->speed_max_mm_s, sc->relay_delay_ns) > 64 * mp->street_spacing_mm))
            return false;
        if (mp->model == MOBILITY_RANDOM_DIRECTION &&
            (mp->travel_min_ms < 1 || mp->travel_max_ms < mp->travel_min_ms ||
             mp->travel_max_ms - mp->travel_min_ms >= (INT64_C(1) << 32) ||
             mp->travel_max_ms > INT64_MAX / NS_PER_MS / 2))
            return false;
        if (mp->boundary < BOUNDARY_STOP || mp->boundary > BOUNDARY_WRAP)
            return false;
        if (mp->speed_min_mm_s < 0 || mp->speed_max_mm_s < mp->speed_min_mm_s ||
            mp->speed_max_mm_s - mp->speed_min_mm_s >= (INT64_C(1) << 32))
            return false;
        if (mp->pause_min_ms < 0 || mp->pause_max_ms < mp->pause_min_ms ||
            mp->pause_max_ms - mp->pause_min_ms >= (INT64_C(1) << 32) ||
            mp->pause_max_ms > INT64_MAX / NS_PER_MS / 2)
            return false;
        /* v * (L % 10^9) must fit in 64 bits (rwp_budget). */
        if (mp->speed_max_mm_s > INT64_MAX / NS_PER_S ||
            (mp->speed_max_mm_s > 0 && sc->relay_delay_ns / NS_PER_S > INT64_MAX / 2 / mp->speed_max_mm_s))
            return false;
    }
    return true;
}

/* Groups: names ids of the scenario, at most the documented counts, each node in one. */
static bool groups_ok(const scenario *scn, int64_t n)
{
    const flood_values *sc = flood_values_of(scn);
    if (sc->n_groups < 0 || sc->n_groups > SCENARIO_MAX_GROUPS)
        return false;
    for (int g = 0; g < sc->n_groups; g++) {
        const mobility_group *grp = &sc->groups[g];
        if (grp->n_ranges < 1 || grp->n_ranges > GROUP_MAX_RANGES || !mobility_ok(scn, &grp->mob))
            return false;
        for (int r = 0; r < grp->n_ranges; r++) {
            if (grp->first[r] < 0 || grp->last[r] < grp->first[r] || grp->last[r] >= n)
                return false;
            for (int h = 0; h <= g; h++) /* against every earlier range */
                for (int q = 0; q < (h == g ? r : sc->groups[h].n_ranges); q++)
                    if (grp->first[r] <= sc->groups[h].last[q] &&
                        sc->groups[h].first[q] <= grp->last[r])
                        return false;
        }
    }
    return true;
}

/* A time law of docs/models.md: a constant >= 0, uniform(a, b) with 0 <= a <= b, or (when
 * EXP_OK, for intervals) exponential(mean) with mean > 0. */
static bool time_law_ok(const time_law *tl, bool exp_ok)
{
    switch (tl->law) {
    case TLAW_CONSTANT:
        return tl->a_ns >= 0;
    case TLAW_UNIFORM:
        return tl->a_ns >= 0 && tl->b_ns >= tl->a_ns;
    case TLAW_EXPONENTIAL:
        return exp_ok && tl->a_ns > 0;
    default:
        return false;
    }
}

/* The flows of docs/models.md "Traffic", as the configuration accepts them: a known
 * destination, sources that are node ids (never a unicast destination), laws in range, a
 * duration when packets are unlimited, packets = 1 for an interval that can only be 0. */
static bool flows_ok(const scenario *scn, int64_t n)
{
    const flood_values *sc = flood_values_of(scn);
    if (sc->n_flows < 0 || sc->n_flows > SCENARIO_MAX_FLOWS)
        return false;
    for (int f = 0; f < sc->n_flows; f++) {
        const traffic_flow *fl = &sc->flows[f];
        const int64_t dest = fl->destination == -1 ? n - 1 : fl->destination;
        if (dest != FLOW_BROADCAST && (dest < 0 || dest >= n))
            return false;
        if (!fl->all_sources) {
            if (fl->n_ranges < 1 || fl->n_ranges > FLOW_MAX_RANGES)
                return false;
            for (int r = 0; r < fl->n_ranges; r++)
                if (fl->first[r] < 0 || fl->last[r] < fl->first[r] || fl->last[r] >= n ||
                    (fl->first[r] <= dest && dest <= fl->last[r]))
                    return false;
        }
        if (fl->packets < 0 || (fl->packets == 0 && scn->duration_ns <= 0))
            return false;
        if (!time_law_ok(&fl->interval, true) || !time_law_ok(&fl->start, false))
            return false;
        const int64_t upper = fl->interval.law == TLAW_UNIFORM ? fl->interval.b_ns
                                                                : fl->interval.a_ns;
        if (fl->interval.law != TLAW_EXPONENTIAL && upper == 0 && fl->packets != 1)
            return false;
        if (fl->interval_draw != DRAW_PACKET && fl->interval_draw != DRAW_NODE)
            return false;
    }
    return true;
}

/* Largest assessment delay in relay delays (docs/models.md, "Forwarding schemes"). */
#define MAX_ASSESSMENT_WINDOWS INT64_C(1000000)

/* The forwarding scheme and, for counter and distance, their keys as the configuration
 * accepts them: C >= 2, 0 < D <= range, and A = a L with 0 <= a <= 10^6. Under probabilistic
 * the other schemes' keys are ignored, whatever they hold. */
static bool scheme_ok(const scenario *scn)
{
    const flood_values *sc = flood_values_of(scn);
    switch (sc->scheme) {
    case SCHEME_PROBABILISTIC:
        return true;
    case SCHEME_COUNTER:
        if (sc->counter_threshold < 2)
            return false;
        break;
    case SCHEME_DISTANCE:
        if (sc->distance_threshold_mm <= 0 || sc->distance_threshold_mm > sc->range_mm)
            return false;
        break;
    default:
        return false;
    }
    const int64_t a = sc->assessment_windows;
    return a >= 0 && a <= MAX_ASSESSMENT_WINDOWS && sc->assessment_delay_ns >= 0 &&
           sc->assessment_delay_ns % sc->relay_delay_ns == 0 &&
           sc->assessment_delay_ns / sc->relay_delay_ns == a;
}

/* Activity areas (docs/models.md, placement = areas): a static udg graph without a cap
 * (the model defines nothing else), a spacing > 0, and every coordinate of the row of areas,
 * 2 x range apart, within the side limit. */
static bool areas_ok(const scenario *scn)
{
    const flood_values *sc = flood_values_of(scn);
    if (sc->connectivity != CONNECTIVITY_UDG || sc->max_neighbors != 0 ||
        sc->mob.model != MOBILITY_STATIC || sc->spacing_mm <= 0 ||
        sc->border_threshold > (UINT64_C(1) << 32))
        return false;
    for (int g = 0; g < sc->n_groups; g++)
        if (sc->groups[g].mob.model != MOBILITY_STATIC)
            return false;
    if (sc->cols - 1 > SCENARIO_MAX_SIDE_MM / sc->spacing_mm ||
        sc->rows - 1 > SCENARIO_MAX_SIDE_MM / sc->spacing_mm)
        return false;
    /* (cols - 1) s and 2 R are then each below 2^32 mm, so the pitch and the row of at most
     * 1024 areas stay far inside int64 */
    const int64_t width = (sc->cols - 1) * sc->spacing_mm;
    return side_ok((sc->areas - 1) * (width + 2 * sc->range_mm) + width);
}

/* Node resources (docs/models.md): values within the configuration's limits (under any
 * forwarding scheme); budgets summed over the nodes must fit int64. */
static bool resources_ok(const scenario *scn, int64_t n)
{
    const flood_values *sc = flood_values_of(scn);
    const energy_law *e = &sc->energy_budget;
    const int64_t costs[4] = {sc->tx_fixed_nj, sc->tx_per_byte_nj, sc->rx_fixed_nj,
                              sc->rx_per_byte_nj};
    if (sc->rx_capacity < 0 || e->a_nj < 0 || e->b_nj < e->a_nj ||
        e->b_nj > SCENARIO_MAX_ENERGY_NJ || (e->law != LAW_CONSTANT && e->law != LAW_UNIFORM))
        return false;
    for (int i = 0; i < 4; i++)
        if (costs[i] < 0 || costs[i] > SCENARIO_MAX_ENERGY_NJ)
            return false;
    int64_t total;
    if (__builtin_mul_overflow(e->b_nj, n, &total))
        return false;
    const bool on = sc->rx_capacity > 0 || e->law == LAW_UNIFORM || e->a_nj > 0;
    if (!on)
        return true;
    /* the largest size in use, and the costs of an event with it */
    int64_t size = sc->size_bytes;
    for (int f = 0; f < sc->n_flows; f++)
        size = f == 0 || sc->flows[f].size_bytes > size ? sc->flows[f].size_bytes : size;
    int64_t c;
    for (int i = 0; i < 4; i += 2)
        if (__builtin_mul_overflow(costs[i + 1], size, &c) ||
            __builtin_add_overflow(c, costs[i], &c) || c > SCENARIO_MAX_ENERGY_NJ)
            return false;
    return true;
}

/* The oracle refuses what the model does not define rather than guess; node ids must fit the
 * int32 neighbour lists (and therefore the 32-bit counter words). */
static bool scenario_ok(const scenario *scn)
{
    const flood_values *sc = flood_values_of(scn);
    int64_t n = oracle_node_count(scn);
    if (n < 1 || sc->relay_delay_ns <= 0)
        return false;
    if (!side_ok(sc->width_mm) || !side_ok(sc->height_mm) || !side_ok(sc->depth_mm))
        return false;
    if (sc->placement == PLACEMENT_GRID) {
        if (sc->spacing_mm < 0 || (sc->rows > 1 && sc->spacing_mm > SCENARIO_MAX_SIDE_MM / (sc->rows - 1)) ||
            (sc->cols > 1 && sc->spacing_mm > SCENARIO_MAX_SIDE_MM / (sc->cols - 1)))
            return false;
    }
    if ((sc->connectivity != CONNECTIVITY_UDG && sc->connectivity != CONNECTIVITY_QUDG) ||
        !side_ok(sc->range_mm))
        return false;
    if (sc->placement == PLACEMENT_AREAS && !areas_ok(scn))
        return false;
    if (sc->connectivity == CONNECTIVITY_QUDG &&
        (sc->range_min_mm < 0 || sc->range_min_mm > sc->range_mm ||
         sc->link_threshold > (UINT64_C(1) << 32)))
        return false;
    if (sc->max_neighbors < 0)
        return false;
    if (!mobility_ok(scn, &sc->mob) || !groups_ok(scn, n))
        return false;
    if (scn->duration_ns < 0)
        return false;
    if (sc->ttl < 0 || sc->drop_threshold > (UINT64_C(1) << 32))
        return false;
    if (sc->drop.law == LAW_UNIFORM && (sc->drop_threshold_max < sc->drop_threshold ||
                                        sc->drop_threshold_max > (UINT64_C(1) << 32)))
        return false;
    if (!scheme_ok(scn) || !resources_ok(scn, n))
        return false;
    if (sc->n_flows != 0) /* [traffic] then only gives the flows' defaults */
        return flows_ok(scn, n);
    if (sc->source < 0 || sc->source >= n || sc->destination < -1 || sc->destination >= n)
        return false;
    if (sc->packets < 0 || sc->interval_ns < 0 || sc->start_ns < 0)
        return false;
    /* Every creation time start + k * interval must be representable. */
    if (sc->packets > 0 && sc->interval_ns > 0 &&
        sc->packets - 1 > (INT64_MAX - sc->start_ns) / sc->interval_ns)
        return false;
    return true;
}

/* ---------------------------------------------------------------- placement, neighbours */

int oracle_place(const scenario *scn, int64_t (*pos)[3])
{
    const flood_values *sc = flood_values_of(scn);
    int64_t n = oracle_node_count(scn);
    if (n < 1)
        return ORACLE_ERR_INPUT;
    if (sc->placement == PLACEMENT_GRID) {
        for (int64_t i = 0; i < n; i++) {
            int64_t r = i / sc->cols, c = i % sc->cols;
            pos[i][0] = c * sc->spacing_mm;
            pos[i][1] = r * sc->spacing_mm;
            pos[i][2] = 0;
        }
        return ORACLE_OK;
    }
    if (sc->placement == PLACEMENT_AREAS) {
        /* area a's node (r, c) at x = a ((cols - 1) s + G) + c s, y = r s, G = 2 R */
        const int64_t per = sc->rows * sc->cols;
        const int64_t gap = 2 * sc->range_mm, width = (sc->cols - 1) * sc->spacing_mm;
        for (int64_t a = 0; a < sc->areas; a++)
            for (int64_t r = 0; r < sc->rows; r++)
                for (int64_t c = 0; c < sc->cols; c++) {
                    int64_t *p = pos[a * per + r * sc->cols + c];
                    p[0] = a * (width + gap) + c * sc->spacing_mm;
                    p[1] = r * sc->spacing_mm;
                    p[2] = 0;
                }
        return ORACLE_OK;
    }
    for (int64_t i = 0; i < n; i++) {
        uint32_t w[4];
        oracle_philox(scn->seed, (uint32_t)i, 0, 2, w);
        pos[i][0] = (int64_t)uniform_below(w[0], (uint64_t)sc->width_mm);
        pos[i][1] = (int64_t)uniform_below(w[1], (uint64_t)sc->height_mm);
        pos[i][2] = (int64_t)uniform_below(w[2], (uint64_t)sc->depth_mm);
    }
    return ORACLE_OK;
}

/* Growable array of undirected edges (i < j), found in (i, j) lexicographic order. */
typedef struct edge_list {
    int32_t (*e)[2];
    size_t n, cap;
} edge_list;

static int edge_push(edge_list *el, int32_t i, int32_t j)
{
    if (el->n == el->cap) {
        size_t cap = el->cap ? 2 * el->cap : 1024;
        void *p = realloc(el->e, cap * sizeof *el->e);
        if (!p)
            return ORACLE_ERR_NOMEM;
        el->e = p;
        el->cap = cap;
    }
    el->e[el->n][0] = i;
    el->e[el->n][1] = j;
    el->n++;
    return ORACLE_OK;
}

int oracle_neighbours(const int64_t (*pos)[3], int64_t n, int64_t range_mm, int64_t **offsets,
                      int32_t **list)
{
    *offsets = NULL;
    *list = NULL;
    if (n < 0 || n > INT32_MAX || range_mm < 0)
        return ORACLE_ERR_INPUT;
    const uint64_t r2 = (uint64_t)range_mm * (uint64_t)range_mm;
    edge_list el = {NULL, 0, 0};
    for (int64_t i = 0; i < n; i++) {
        for (int64_t j = i + 1; j < n; j++) {
            /* Cheap rejection on x alone; the exact test follows. */
            int64_t dx = pos[i][0] - pos[j][0];
            if (dx > range_mm || -dx > range_mm)
                continue;
            if (dist2(pos[i], pos[j]) <= r2 && edge_push(&el, (int32_t)i, (int32_t)j) != ORACLE_OK) {
                free(el.e);
                return ORACLE_ERR_NOMEM;
            }
        }
    }
    int64_t *off = calloc((size_t)n + 1, sizeof *off);
    int64_t *cur = malloc(((size_t)n + 1) * sizeof *cur);
    int32_t *lst = malloc((2 * el.n + 1) * sizeof *lst);
    if (!off || !cur || !lst) {
        free(el.e);
        free(off);
        free(cur);
        free(lst);
        return ORACLE_ERR_NOMEM;
    }
    for (size_t k = 0; k < el.n; k++) {
        off[el.e[k][0] + 1]++;
        off[el.e[k][1] + 1]++;
    }
    for (int64_t i = 0; i < n; i++)
        off[i + 1] += off[i];
    memcpy(cur, off, ((size_t)n + 1) * sizeof *cur);
    /* Edges come in (i, j) lexicographic order, so node x first receives its smaller
     * neighbours (as the j of edges (i, x), i ascending) and then its larger ones (as the i of
     * edges (x, j), j ascending): every list ends up sorted without a sort. */
    for (size_t k = 0; k < el.n; k++) {
        int32_t a = el.e[k][0], b = el.e[k][1];
        lst[cur[a]++] = b;
        lst[cur[b]++] = a;
    }
    free(el.e);
    free(cur);
    *offsets = off;
    *list = lst;
    return ORACLE_OK;
}

/* ---------------------------------------------------------------- activity areas */

bool oracle_area_border_link(const scenario *scn, int64_t a, int64_t r)
{
    const flood_values *sc = flood_values_of(scn);
    uint32_t w[4];
    oracle_philox(scn->seed, (uint32_t)a, (uint32_t)r, 14, w);
    return (uint64_t)w[0] < sc->border_threshold;
}

static int cmp_i32(const void *a, const void *b)
{
    const int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return x < y ? -1 : x > y;
}

/* Merges the extra undirected links EXTRA (NX pairs, unsorted, possibly repeated or already
 * in the lists) into the CSR lists OFF/LST of N nodes: each list is rebuilt as the sorted
 * union of its old entries and its new ones, without repeats. */
static int merge_links(int64_t n, int64_t **off, int32_t **lst, const int32_t (*extra)[2],
                       size_t nx)
{
    int64_t *o = *off;
    int64_t *noff = calloc((size_t)n + 1, sizeof *noff);
    int32_t *nl = malloc(((size_t)o[n] + 2 * nx + 1) * sizeof *nl);
    int64_t *add = calloc((size_t)n + 1, sizeof *add);
    int32_t *ext = malloc((2 * nx + 1) * sizeof *ext);
    if (!noff || !nl || !add || !ext) {
        free(noff);
        free(nl);
        free(add);
        free(ext);
        return ORACLE_ERR_NOMEM;
    }
    /* the extra ends of each node, grouped by node (a counting sort) */
    for (size_t k = 0; k < nx; k++) {
        add[extra[k][0] + 1]++;
        add[extra[k][1] + 1]++;
    }
    for (int64_t i = 0; i < n; i++)
        add[i + 1] += add[i];
    int64_t *fill = malloc(((size_t)n + 1) * sizeof *fill);
    if (!fill) {
        free(noff);
        free(nl);
        free(add);
        free(ext);
        return ORACLE_ERR_NOMEM;
    }
    memcpy(fill, add, ((size_t)n + 1) * sizeof *fill);
    for (size_t k = 0; k < nx; k++) {
        ext[fill[extra[k][0]]++] = extra[k][1];
        ext[fill[extra[k][1]]++] = extra[k][0];
    }
    free(fill);
    int64_t at = 0;
    for (int64_t i = 0; i < n; i++) {
        const int64_t start = at;
        for (int64_t q = o[i]; q < o[i + 1]; q++)
            nl[at++] = (*lst)[q];
        for (int64_t q = add[i]; q < add[i + 1]; q++)
            nl[at++] = ext[q];
        qsort(nl + start, (size_t)(at - start), sizeof *nl, cmp_i32);
        int64_t kept = start; /* drop repeats */
        for (int64_t q = start; q < at; q++)
            if (q == start || nl[q] != nl[kept - 1])
                nl[kept++] = nl[q];
        at = kept;
        noff[i + 1] = at;
    }
    free(add);
    free(ext);
    free(*off);
    free(*lst);
    *off = noff;
    *lst = nl;
    return ORACLE_OK;
}

int oracle_area_links(const scenario *scn, int64_t n, int64_t **off, int32_t **lst)
{
    const flood_values *sc = flood_values_of(scn);
    if (sc->placement != PLACEMENT_AREAS)
        return ORACLE_OK;
    if (oracle_node_count(scn) != n)
        return ORACLE_ERR_INPUT;
    const int64_t per = sc->rows * sc->cols;
    /* per consecutive pair: the chain link and at most one border link per row */
    const size_t cap = (size_t)(sc->areas - 1) * (size_t)(sc->rows + 1);
    int32_t (*extra)[2] = malloc((cap + 1) * sizeof *extra);
    if (!extra)
        return ORACLE_ERR_NOMEM;
    size_t nx = 0;
    for (int64_t a = 0; a + 1 < sc->areas; a++) {
        /* the chain: the last node of area a, the first of area a + 1 */
        extra[nx][0] = (int32_t)((a + 1) * per - 1);
        extra[nx][1] = (int32_t)((a + 1) * per);
        nx++;
        /* the border: (a, r, cols - 1) - (a + 1, r, 0) when its draw says so */
        for (int64_t r = 0; r < sc->rows; r++)
            if (oracle_area_border_link(scn, a, r)) {
                extra[nx][0] = (int32_t)(a * per + r * sc->cols + sc->cols - 1);
                extra[nx][1] = (int32_t)((a + 1) * per + r * sc->cols);
                nx++;
            }
    }
    const int rc = merge_links(n, off, lst, (const int32_t (*)[2])extra, nx);
    free(extra);
    return rc;
}

/* ---------------------------------------------------------------- mobility */

/* The parameters node I moves by: those of the group naming it, else [mobility]'s. */
static const mobility_params *node_params(const scenario *scn, int64_t i)
{
    const flood_values *sc = flood_values_of(scn);
    for (int g = 0; g < sc->n_groups; g++)
        for (int r = 0; r < sc->groups[g].n_ranges; r++)
            if (i >= sc->groups[g].first[r] && i <= sc->groups[g].last[r])
                return &sc->groups[g].mob;
    return &sc->mob;
}

int oracle_mobility_init(oracle_mobility *m, const scenario *sc)
{
    memset(m, 0, sizeof *m);
    int64_t n = oracle_node_count(sc);
    if (n < 1)
        return ORACLE_ERR_INPUT;
    m->n = n;
    m->pos = malloc((size_t)n * sizeof *m->pos);
    m->leg = calloc((size_t)n, sizeof *m->leg);
    m->pause_end_ns = calloc((size_t)n, sizeof *m->pause_end_ns);
    m->dir = calloc((size_t)n, sizeof *m->dir);
    m->speed = calloc((size_t)n, sizeof *m->speed);
    m->params = calloc((size_t)n, sizeof(const mobility_params *));
    if (!m->pos || !m->leg || !m->pause_end_ns || !m->dir || !m->speed || !m->params) {
        oracle_mobility_free(m);
        return ORACLE_ERR_NOMEM;
    }
    m->window = 0;
    m->mobile = false;
    const int rc = oracle_place(sc, m->pos);
    if (rc != ORACLE_OK)
        return rc;
    for (int64_t i = 0; i < n; i++) {
        const mobility_params *mp = node_params(sc, i);
        m->params[i] = mp;
        m->mobile = m->mobile || mp->model != MOBILITY_STATIC;
        if (mp->model == MOBILITY_LINEAR) /* drawn once: ctr {i, 0, 7, 0} */
            walk_draw(sc, mp, (uint32_t)i, 0, 7, m->dir[i], &m->speed[i]);
        if (mp->model == MOBILITY_GRID_WALK)
            grid_start(sc, mp, m, i);
        if (mp->model == MOBILITY_RANDOM_DIRECTION) { /* leg 0, travelling from time 0 */
            walk_draw(sc, mp, (uint32_t)i, 0, 8, m->dir[i], &m->speed[i]);
            m->pause_end_ns[i] = leg_time_ns(sc, mp, (uint32_t)i, 0, 0);
        }
    }
    return ORACLE_OK;
}

void oracle_mobility_free(oracle_mobility *m)
{
    free(m->pos);
    free(m->leg);
    free(m->pause_end_ns);
    free(m->dir);
    free(m->speed);
    free(m->params);
    memset(m, 0, sizeof *m);
}

/* random waypoint, node I, at the start of window W. */
static void rwp_node(const scenario *scn, const mobility_params *mp, oracle_mobility *m,
                     int64_t i, int64_t w)
{
    const flood_values *sc = flood_values_of(scn);
    const int64_t l = sc->relay_delay_ns;
    const int64_t t_w = w * l;
    if (t_w < m->pause_end_ns[i])
        return; /* still pausing at the start of this window */
    uint32_t d[4];
    oracle_philox(scn->seed, (uint32_t)i, m->leg[i], 3, d);
    const int64_t wp[3] = {(int64_t)uniform_below(d[0], (uint64_t)sc->width_mm),
                           (int64_t)uniform_below(d[1], (uint64_t)sc->height_mm),
                           (int64_t)uniform_below(d[2], (uint64_t)sc->depth_mm)};
    const int64_t v = mp->speed_min_mm_s +
        (int64_t)uniform_below(d[3], (uint64_t)(mp->speed_max_mm_s - mp->speed_min_mm_s + 1));
    const int64_t b = rwp_budget(v, l);
    int64_t *p = m->pos[i];
    /* d <= 2^32 (dist2 < 2^64), and b >= 0, so the comparison below is exact. */
    const int64_t dist = (int64_t)oracle_isqrt_u64(dist2(wp, p));
    if (dist <= b) {
        p[0] = wp[0];
        p[1] = wp[1];
        p[2] = wp[2];
        uint32_t q[4];
        oracle_philox(scn->seed, (uint32_t)i, m->leg[i], 4, q);
        const int64_t pause_ms = mp->pause_min_ms +
            (int64_t)uniform_below(q[0], (uint64_t)(mp->pause_max_ms - mp->pause_min_ms + 1));
        m->pause_end_ns[i] = t_w + pause_ms * NS_PER_MS;
        m->leg[i]++;
    } else {
        /* b < dist < 2^32 and |delta| < 2^31, so delta * b < 2^63: no overflow. C division
         * truncates towards zero, as the model requires. */
        for (int c = 0; c < 3; c++) {
            const int64_t delta = wp[c] - p[c];
            p[c] += (delta * b) / dist;
        }
    }
}

void oracle_move_rwp(const scenario *sc, oracle_mobility *m, int64_t w)
{
    for (int64_t i = 0; i < m->n; i++)
        if (m->params[i]->model == MOBILITY_RWP)
            rwp_node(sc, m->params[i], m, i, w);
    m->window = w;
}

/* One walk step along D at speed V (docs/models.md): D as the sides leave it. */
static void walk_step(const scenario *scn, const mobility_params *mp, int64_t p[3], int64_t d[3],
                      int64_t v)
{
    const flood_values *sc = flood_values_of(scn);
    const int64_t side[3] = {sc->width_mm, sc->height_mm, sc->depth_mm};
    const uint64_t len2 = (uint64_t)(d[0] * d[0]) + (uint64_t)(d[1] * d[1]) +
                          (uint64_t)(d[2] * d[2]);
    const int64_t len = (int64_t)oracle_isqrt_u64(len2);
    if (len == 0)
        return;
    int64_t b = v * sc->relay_delay_ns / NS_PER_S; /* fits: checked by the configuration */
    if (b > WALK_BUDGET_MAX)
        b = WALK_BUDGET_MAX;
    for (int c = 0; c < 3; c++)
        if (side[c] > 0)
            p[c] = walk_boundary(mp->boundary, p[c], p[c] + d[c] * b / len, side[c], &d[c]);
}

/* grid_walk: one window's run of b mm along the streets, turning at each intersection. */
static void grid_node(const scenario *scn, const mobility_params *mp, oracle_mobility *m,
                      int64_t i)
{
    const flood_values *sc = flood_values_of(scn);
    const int64_t s = mp->street_spacing_mm;
    int64_t h = m->dir[i][0];
    if (h >= 4)
        return;
    int64_t b = m->speed[i] * sc->relay_delay_ns / NS_PER_S;
    if (b > WALK_BUDGET_MAX)
        b = WALK_BUDGET_MAX;
    int64_t *p = m->pos[i];
    for (;;) {
        const int axis = (int)(h & 1);
        const int64_t r = p[axis] % s;
        const int64_t dist = h < 2 ? s - r : (r != 0 ? r : s);
        const int64_t go = b < dist ? b : dist;
        p[axis] += h < 2 ? go : -go;
        if (b < dist)
            break;
        b -= dist;
        uint32_t q[4];
        oracle_philox(scn->seed, (uint32_t)i, m->leg[i], 10, q);
        m->leg[i]++;
        h = grid_turn(scn, mp, p[0], p[1], h, q[0]);
        if (h >= 4)
            break;
    }
    m->dir[i][0] = h;
}

/* random_direction (docs/models.md): at the start of window W, leave the phases that have
 * ended (travel, then pause, then the next leg), then step if travelling. */
static void direction_node(const scenario *scn, const mobility_params *mp, oracle_mobility *m,
                           int64_t i, int64_t w)
{
    const flood_values *sc = flood_values_of(scn);
    const int64_t t = w * sc->relay_delay_ns;
    uint32_t ph = m->leg[i];
    int64_t end = m->pause_end_ns[i];
    for (;;) {
        if (ph % 2 == 0) {
            if (t < end) {
                walk_step(scn, mp, m->pos[i], m->dir[i], m->speed[i]);
                break;
            }
            end = t + leg_time_ns(scn, mp, (uint32_t)i, ph / 2, 1);
        } else {
            if (t < end)
                break;
            const uint32_t leg = ph / 2 + 1;
            walk_draw(scn, mp, (uint32_t)i, leg, 8, m->dir[i], &m->speed[i]);
            end = t + leg_time_ns(scn, mp, (uint32_t)i, leg, 0);
        }
        ph++;
    }
    m->leg[i] = ph;
    m->pause_end_ns[i] = end;
}

/* linear and random_walk (docs/models.md): one window's step. */
static void walk_node(const scenario *sc, const mobility_params *mp, oracle_mobility *m,
                      int64_t i, int64_t w)
{
    int64_t d[3], v;
    if (mp->model == MOBILITY_RANDOM_WALK) {
        walk_draw(sc, mp, (uint32_t)i, (uint32_t)w, 7, d, &v); /* the window number mod 2^32 */
    } else {
        memcpy(d, m->dir[i], sizeof d);
        v = m->speed[i];
    }
    walk_step(sc, mp, m->pos[i], d, v);
    if (mp->model == MOBILITY_LINEAR)
        memcpy(m->dir[i], d, sizeof d);
}

void oracle_mobility_advance(const scenario *sc, oracle_mobility *m, int64_t w)
{
    if (!m->mobile) {
        if (w > m->window)
            m->window = w;
        return;
    }
    while (m->window < w) {
        const int64_t next = m->window + 1;
        for (int64_t i = 0; i < m->n; i++) {
            const mobility_params *mp = m->params[i];
            switch (mp->model) {
            case MOBILITY_RWP:
                rwp_node(sc, mp, m, i, next);
                break;
            case MOBILITY_RANDOM_DIRECTION:
                direction_node(sc, mp, m, i, next);
                break;
            case MOBILITY_GRID_WALK:
                grid_node(sc, mp, m, i);
                break;
            case MOBILITY_LINEAR:
            case MOBILITY_RANDOM_WALK:
                walk_node(sc, mp, m, i, next);
                break;
            default: /* static */
                break;
            }
        }
        m->window = next;
    }
}

/* ---------------------------------------------------------------- traffic flows */

/* Exact 128-bit products for the laws of docs/models.md (GCC and Clang's unsigned __int128:
 * an implementation independent of the kernels' 32-bit limbs). */
typedef unsigned __int128 u128;

uint32_t oracle_lg_q16(uint64_t x)
{
    if (x < 1 || x > (UINT64_C(1) << 32))
        return 0;
    uint64_t e = 0; /* the highest set bit */
    while ((x >> (e + 1)) != 0)
        e++;
    uint64_t v = e <= 31 ? x << (31 - e) : x >> 1; /* 2^31 <= v < 2^32: the mantissa, Q31 */
    uint64_t g = e << 16;
    for (int i = 15; i >= 0; i--) {
        v = (v * v) >> 31; /* v < 2^32, so v * v < 2^64 */
        if (v >= (UINT64_C(1) << 32)) {
            v >>= 1;
            g |= UINT64_C(1) << i;
        }
    }
    return (uint32_t)g;
}

int64_t oracle_exponential_ns(int64_t mean_ns, uint32_t w0)
{
    const uint64_t x = (uint64_t)w0 + 1;                        /* 1 .. 2^32 */
    const uint64_t neg_log = (UINT64_C(32) << 16) - oracle_lg_q16(x); /* -log2(x / 2^32), Q16 */
    const u128 p = (u128)(uint64_t)mean_ns * neg_log * UINT64_C(744261118); /* < 2^114 */
    const u128 i = p >> 46;
    return i > (u128)INT64_MAX ? -1 : (int64_t)i;
}

/* a + ((w0 * (b - a + 1)) >> 32) for 0 <= a <= b: b - a + 1 <= 2^63, so the product needs up
 * to 95 bits; the result is at most b. */
static int64_t uniform_between(uint32_t w0, int64_t a, int64_t b)
{
    const u128 span = (u128)(uint64_t)(b - a) + 1;
    return a + (int64_t)(((u128)w0 * span) >> 32);
}

/* w0 of the draw ctr {s, item, stream, f} (streams 6 and 12 put the flow in the 4th word). */
static uint32_t flow_draw(const scenario *sc, int f, int64_t s, uint32_t item, uint32_t stream)
{
    const uint32_t ctr[4] = {(uint32_t)s, item, stream, (uint32_t)f};
    uint32_t w[4];
    oracle_philox4x32_10(ctr, (uint32_t)(sc->seed & 0xffffffffu), (uint32_t)(sc->seed >> 32), w);
    return w[0];
}

int64_t oracle_flow_start(const scenario *scn, int f, int64_t s)
{
    const flood_values *sc = flood_values_of(scn);
    const time_law *tl = &sc->flows[f].start;
    if (tl->law != TLAW_UNIFORM)
        return tl->a_ns;
    return uniform_between(flow_draw(scn, f, s, 0, 12), tl->a_ns, tl->b_ns);
}

int64_t oracle_flow_interval(const scenario *scn, int f, int64_t s, int64_t m, uint32_t *w0)
{
    const flood_values *sc = flood_values_of(scn);
    const traffic_flow *fl = &sc->flows[f];
    const time_law *tl = &fl->interval;
    if (w0)
        *w0 = 0;
    if (tl->law == TLAW_CONSTANT)
        return tl->a_ns;
    const uint32_t item = fl->interval_draw == DRAW_NODE ? 0 : (uint32_t)m; /* m mod 2^32 */
    const uint32_t w = flow_draw(scn, f, s, item, 6);
    if (w0)
        *w0 = w;
    if (tl->law == TLAW_UNIFORM)
        return uniform_between(w, tl->a_ns, tl->b_ns);
    return oracle_exponential_ns(tl->a_ns, w);
}

/* Whether node S is a source of flow F (N nodes, destination DEST resolved). */
static bool is_source(const traffic_flow *fl, int64_t dest, int64_t s)
{
    if (fl->all_sources)
        return s != dest; /* never true for broadcast (DEST < 0) */
    for (int r = 0; r < fl->n_ranges; r++)
        if (fl->first[r] <= s && s <= fl->last[r])
            return true;
    return false;
}

static int departure_order(const void *a, const void *b)
{
    const oracle_departure *x = a, *y = b;
    if (x->t_ns != y->t_ns)
        return x->t_ns < y->t_ns ? -1 : 1;
    if (x->flow != y->flow)
        return x->flow < y->flow ? -1 : 1;
    if (x->source != y->source)
        return x->source < y->source ? -1 : 1;
    return (x->m > y->m) - (x->m < y->m);
}

/* Packet ids are kept below 2^31 (they are counter words of the relay draws). */
#define MAX_DEPARTURES INT64_C(2147483647)

static int departure_push(oracle_departure **d, int64_t *n, int64_t *cap, oracle_departure x)
{
    if (*n >= MAX_DEPARTURES)
        return ORACLE_ERR_INPUT;
    if (*n == *cap) {
        const int64_t c = *cap ? 2 * *cap : 64;
        void *q = realloc(*d, (size_t)c * sizeof **d);
        if (!q)
            return ORACLE_ERR_NOMEM;
        *d = q;
        *cap = c;
    }
    (*d)[(*n)++] = x;
    return ORACLE_OK;
}

int oracle_flow_departures(const scenario *scn, oracle_departure **out, int64_t *n_out)
{
    const flood_values *sc = flood_values_of(scn);
    *out = NULL;
    *n_out = 0;
    const int64_t n = oracle_node_count(scn);
    if (n < 1 || sc->n_flows < 1 || scn->duration_ns < 0 || !flows_ok(scn, n))
        return ORACLE_ERR_INPUT;
    const int64_t dur = scn->duration_ns;
    oracle_departure *d = NULL;
    int64_t nd = 0, cap = 0;
    int rc = ORACLE_OK;
    /* Every departure of every (flow, source), each source until its stop condition. */
    for (int f = 0; f < sc->n_flows && rc == ORACLE_OK; f++) {
        const traffic_flow *fl = &sc->flows[f];
        const int64_t dest = fl->destination == -1 ? n - 1 : fl->destination;
        for (int64_t s = 0; s < n && rc == ORACLE_OK; s++) {
            if (!is_source(fl, dest, s))
                continue;
            int64_t t = oracle_flow_start(scn, f, s);
            for (int64_t m = 0;; m++) {
                if (fl->packets > 0 && m >= fl->packets)
                    break; /* its packets-th departure was the last */
                if (dur > 0 && t >= dur)
                    break; /* at or after the end of the run: does not happen */
                rc = departure_push(&d, &nd, &cap, (oracle_departure){t, f, (int32_t)s, m});
                if (rc != ORACLE_OK)
                    break;
                int64_t in = oracle_flow_interval(scn, f, s, m, NULL);
                if (in == 0 && fl->packets == 0)
                    in = 1; /* without a packet limit a drawn 0 counts as 1 ns */
                if (in < 0 || t > INT64_MAX - in)
                    break; /* the next time would exceed 2^63 - 1 ns */
                t += in;
            }
        }
    }
    if (rc != ORACLE_OK) {
        free(d);
        return rc;
    }
    /* Packet ids: increasing (t, f, s, m). */
    if (nd > 1)
        qsort(d, (size_t)nd, sizeof *d, departure_order);
    *out = d;
    *n_out = nd;
    return ORACLE_OK;
}

/* Without flows: docs/model.md's packets k = 0 .. P - 1 at start + k * interval from [traffic]
 * source, those created before the duration (creation times do not decrease with k). */
static int legacy_departures(const scenario *scn, oracle_departure **out, int64_t *n_out)
{
    const flood_values *sc = flood_values_of(scn);
    *out = NULL;
    *n_out = 0;
    oracle_departure *d = NULL;
    int64_t nd = 0, cap = 0;
    for (int64_t k = 0; k < sc->packets; k++) {
        const int64_t t = sc->start_ns + k * sc->interval_ns;
        if (scn->duration_ns > 0 && t >= scn->duration_ns)
            break;
        const int rc = departure_push(&d, &nd, &cap, (oracle_departure){t, 0, (int32_t)sc->source, k});
        if (rc != ORACLE_OK) {
            free(d);
            return rc;
        }
    }
    *out = d;
    *n_out = nd;
    return ORACLE_OK;
}

/* ---------------------------------------------------------------- flooding */

/* One transmission of the packet's current time: the node and the hop count it sends. */
typedef struct sender {
    int32_t node;
    int64_t hop;
} sender;

/* A node between its first reception of a packet and its decision (docs/models.md,
 * "Forwarding schemes"). Under probabilistic the decision comes at the first reception, so
 * such a record lives for one step only. */
typedef struct assessment {
    int32_t node;
    bool fresh;       /* first heard at the packet's current time: HOP is still being settled */
    bool near;        /* distance: some copy came from a transmitter within D */
    int64_t hop;      /* the least hop count of the copies of its first reception */
    int64_t copies;   /* copies heard from the first reception on, those at its time included */
    int64_t decide_t; /* time of the decision (known once FRESH is cleared) */
} assessment;

/* What a node is to a packet: it has not heard it, it holds an assessment record, or it has
 * nothing left to do with it (the source from creation, a node once it decided or was
 * stopped). Copies that reach a settled node are counted as receptions and change nothing. */
enum { NODE_UNHEARD = 0, NODE_ASSESSING = 1, NODE_SETTLED = 2 };

/* One packet in flight. All its transmissions are at t_k + m L (m whole), so it has at most
 * one transmission time per window; T is its next time with something to do: transmissions
 * (FRONT) and the decisions due then. */
typedef struct live_packet {
    int64_t k;        /* packet number */
    int64_t t_k;      /* creation time */
    int64_t dest;     /* its destination, or FLOW_BROADCAST */
    int32_t flow;     /* its flow (0 without flows) */
    int64_t t;        /* the time of FRONT's transmissions, or of the next decision */
    uint8_t *state;   /* per node: NODE_* */
    sender *front;    /* the transmissions at T */
    int64_t nfront;
    assessment *pending; /* the nodes in NODE_ASSESSING, in no particular order */
    int64_t npending, cap_pending;
} live_packet;

static void live_free(live_packet *p)
{
    free(p->state);
    free(p->front);
    free(p->pending);
    p->state = NULL;
    p->front = NULL;
    p->pending = NULL;
}

/* Nothing left to do: no transmission ahead and nobody assessing. */
static bool live_done(const live_packet *p) { return p->nfront == 0 && p->npending == 0; }

/* Node J's drop threshold: the scenario's, or under drop_probability = uniform(a, b) its own,
 * thr(a) + ((w0 * (thr(b) - thr(a))) >> 32) with w0 of ctr {j, 0, 11, 0} (docs/models.md).
 * Drawn again at every decision: the reference favours the plain statement over speed. */
static uint64_t drop_threshold_of(const scenario *scn, int64_t j)
{
    const flood_values *sc = flood_values_of(scn);
    if (sc->drop.law != LAW_UNIFORM)
        return sc->drop_threshold;
    uint32_t w[4];
    oracle_philox(scn->seed, (uint32_t)j, 0, 11, w);
    return sc->drop_threshold +
           (((uint64_t)w[0] * (sc->drop_threshold_max - sc->drop_threshold)) >> 32);
}

/* The node drops packet K instead of relaying it (relay decision, stream 1). */
static bool relay_dropped(const scenario *sc, int64_t j, int64_t k)
{
    uint32_t w[4];
    oracle_philox(sc->seed, (uint32_t)j, (uint32_t)k, 1, w);
    return (uint64_t)w[0] < drop_threshold_of(sc, j);
}

/* Node J's assessment delay for packet K in windows: r = (w0 * (a + 1)) >> 32 with w0 of
 * ctr {j, k, 13, 0} under counter and distance; 0 without a draw when a = 0 and under
 * probabilistic (which decides at the first reception). */
static int64_t assessment_delay_of(const scenario *scn, int64_t j, int64_t k)
{
    const flood_values *sc = flood_values_of(scn);
    if (sc->scheme == SCHEME_PROBABILISTIC || sc->assessment_windows == 0)
        return 0;
    uint32_t w[4];
    oracle_philox(scn->seed, (uint32_t)j, (uint32_t)k, 13, w);
    return (int64_t)uniform_below(w[0], (uint64_t)sc->assessment_windows + 1);
}

/* The scheme's verdict on what the node heard until its decision. */
static bool assessment_relays(const scenario *scn, const assessment *a)
{
    const flood_values *sc = flood_values_of(scn);
    switch (sc->scheme) {
    case SCHEME_COUNTER:
        return a->copies < sc->counter_threshold;
    case SCHEME_DISTANCE:
        return !a->near;
    default: /* probabilistic: the relay draw alone decides */
        return true;
    }
}

/* A delivery of P at hop count H with latency LAT: counted in the totals, in its flow and in
 * its packet's record. The record keeps the last delivery: the latest, and among deliveries
 * at the same time the largest hop count (under assessment delays a later delivery can have
 * fewer hops than an earlier one). Deliveries come in time order. */
static void deliver(const live_packet *p, int64_t h, int64_t lat, flood_oracle_result *r,
                    oracle_packet *rec)
{
    r->delivered++;
    r->hops_sum += h;
    r->latency_sum_ns += lat;
    oracle_flow_result *fr = &r->flows[p->flow];
    fr->delivered++;
    fr->hops_sum += h;
    fr->latency_sum_ns += lat;
    oracle_packet *pk = &rec[p->k];
    pk->delivered++;
    if (pk->hops == 0 || lat > pk->latency_ns || (lat == pk->latency_ns && h > pk->hops)) {
        pk->latency_ns = lat;
        pk->hops = h;
    }
}

/* Node J hears a copy of P with hop count HOP from node I (positions POS of the copy's
 * window). SLOT maps the assessing nodes to their records. A first copy opens a record. */
static int hear(const scenario *scn, live_packet *p, int32_t *slot, const int64_t (*pos)[3],
                int32_t i, int32_t j, int64_t hop)
{
    const flood_values *sc = flood_values_of(scn);
    if (p->state[j] == NODE_SETTLED)
        return ORACLE_OK;
    if (p->state[j] == NODE_UNHEARD) {
        if (p->npending == p->cap_pending) {
            const int64_t cap = p->cap_pending ? 2 * p->cap_pending : 16;
            void *q = realloc(p->pending, (size_t)cap * sizeof *p->pending);
            if (!q)
                return ORACLE_ERR_NOMEM;
            p->pending = q;
            p->cap_pending = cap;
        }
        p->pending[p->npending] = (assessment){j, true, false, hop, 0, 0};
        slot[j] = (int32_t)p->npending++;
        p->state[j] = NODE_ASSESSING;
    }
    assessment *a = &p->pending[slot[j]];
    if (a->fresh && hop < a->hop) /* the first reception takes the least hop count */
        a->hop = hop;
    a->copies++;
    if (sc->scheme == SCHEME_DISTANCE) {
        const uint64_t d = (uint64_t)sc->distance_threshold_mm;
        if (dist2(pos[i], pos[j]) <= d * d)
            a->near = true;
    }
    return ORACLE_OK;
}

/* T + R * L, or -1 when it is not representable. */
static int64_t later(int64_t t, int64_t r, int64_t l)
{
    int64_t d, s;
    if (__builtin_mul_overflow(r, l, &d) || __builtin_add_overflow(t, d, &s))
        return -1;
    return s;
}

/* The first reception of the node of A (at P's time T, with every copy of that time heard):
 * it is counted and may be a delivery; then the ttl and the relay draw may stop the node
 * (false), else its decision time is set. */
static int first_reception(const scenario *scn, const live_packet *p, assessment *a,
                           flood_oracle_result *r, oracle_packet *rec, bool *assessing)
{
    const flood_values *sc = flood_values_of(scn);
    r->first_receptions++;
    /* broadcast: every first reception is a delivery (the source has none) */
    if (p->dest == FLOW_BROADCAST || a->node == p->dest)
        deliver(p, a->hop, p->t - p->t_k, r, rec);
    a->fresh = false;
    *assessing = !(sc->ttl > 0 && a->hop >= sc->ttl) && !relay_dropped(scn, a->node, p->k);
    if (!*assessing)
        return ORACLE_OK;
    a->decide_t = later(p->t, assessment_delay_of(scn, a->node, p->k), sc->relay_delay_ns);
    return a->decide_t < 0 ? ORACLE_ERR_INPUT : ORACLE_OK;
}

/* The end of P's step at its time T, once every copy of T was heard: the first receptions,
 * then the decisions due at T, whose relays form the next FRONT at T + L. P->T then moves to
 * its next time with something to do. SCRATCH holds at least N senders. */
static int settle_packet(const scenario *scn, live_packet *p, sender *scratch,
                         flood_oracle_result *r, oracle_packet *rec)
{
    const flood_values *sc = flood_values_of(scn);
    const int64_t t = p->t, l = sc->relay_delay_ns;
    int rc = ORACLE_OK;
    /* First receptions, then the decisions due now (a delay of 0 decides at once). */
    int64_t nnext = 0, kept = 0, next_t = INT64_MAX;
    for (int64_t x = 0; x < p->npending && rc == ORACLE_OK; x++) {
        assessment a = p->pending[x];
        bool assessing = true;
        if (a.fresh)
            rc = first_reception(scn, p, &a, r, rec, &assessing);
        if (rc == ORACLE_OK && assessing && a.decide_t == t) {
            assessing = false;
            if (assessment_relays(scn, &a)) {
                if (t > INT64_MAX - l)
                    rc = ORACLE_ERR_INPUT; /* the relay time is not representable */
                scratch[nnext++] = (sender){a.node, a.hop + 1};
            }
        }
        if (assessing) {
            p->pending[kept++] = a;
            if (a.decide_t < next_t)
                next_t = a.decide_t;
        } else {
            p->state[a.node] = NODE_SETTLED;
        }
    }
    if (rc != ORACLE_OK)
        return rc;
    p->npending = kept;

    free(p->front);
    p->front = NULL;
    p->nfront = nnext;
    if (nnext > 0) {
        p->front = malloc((size_t)nnext * sizeof *p->front);
        if (!p->front)
            return ORACLE_ERR_NOMEM;
        memcpy(p->front, scratch, (size_t)nnext * sizeof *p->front);
        next_t = t + l; /* every pending decision is later: it is at least T + L */
    }
    p->t = next_t;
    return ORACLE_OK;
}

/* Points SLOT at the assessment records of P's nodes (hear uses it). */
static void map_pending(const live_packet *p, int32_t *slot)
{
    for (int64_t x = 0; x < p->npending; x++)
        slot[p->pending[x].node] = (int32_t)x;
}

/* One step of P at its time T in the current window (neighbour lists OFF/LST, positions
 * POS): FRONT's transmissions and their receptions, then settle_packet. SLOT holds at least
 * N entries, SCRATCH at least N senders. Returns ORACLE_OK or ORACLE_ERR_*. */
static int step_packet(const scenario *sc, live_packet *p, const int64_t *off,
                       const int32_t *lst, const int64_t (*pos)[3], int32_t *slot,
                       sender *scratch, flood_oracle_result *r, oracle_packet *rec)
{
    const int64_t t = p->t;
    int rc = ORACLE_OK;
    map_pending(p, slot);
    if (p->nfront > 0) {
        r->transmissions += p->nfront;
        if (t > r->end_time_ns)
            r->end_time_ns = t;
    }
    /* All transmissions of the step are simultaneous: every copy is heard before any node's
     * first reception is settled, so that it takes the least hop count among them. */
    for (int64_t f = 0; f < p->nfront && rc == ORACLE_OK; f++) {
        const int32_t i = p->front[f].node;
        r->receptions += off[i + 1] - off[i];
        for (int64_t e = off[i]; e < off[i + 1] && rc == ORACLE_OK; e++)
            rc = hear(sc, p, slot, pos, i, lst[e], p->front[f].hop);
    }
    return rc == ORACLE_OK ? settle_packet(sc, p, scratch, r, rec) : rc;
}

/* ---------------------------------------------------------------- node resources */

/* docs/models.md, "Node resources": in each window a node first makes its transmissions, in
 * order (time, packet), then hears the copies that reach it, in order (time, packet, sender).
 * It accepts at most rx_capacity copies; with an energy budget every event it makes happens
 * only if it can pay for it, and the first it cannot pay kills it. Packets then meet at the
 * nodes, so a window is taken whole: every event of every packet is listed, sorted and applied
 * node by node, and each packet then settles what its accepted copies told its nodes. */

/* One event of a window: NODE transmits packet K (SENDER = NODE) or hears a copy of it from
 * SENDER, at time T with hop count HOP; A is the packet's index among the live packets. */
typedef struct res_event {
    int32_t node, sender;
    int64_t t, k, a, hop;
    bool happens;
} res_event;

typedef struct res_state {
    bool energy;
    int64_t *left;    /* energy left, nJ */
    int64_t *death;   /* time of death, -1 while alive */
    res_event *tx, *rx;
    int64_t ntx, nrx, cap_tx, cap_rx;
} res_state;

int64_t oracle_energy_budget(const scenario *scn, int64_t j)
{
    const flood_values *sc = flood_values_of(scn);
    const energy_law *e = &sc->energy_budget;
    if (e->law != LAW_UNIFORM)
        return e->a_nj;
    uint32_t w[4];
    oracle_philox(scn->seed, (uint32_t)j, 0, 15, w);
    return uniform_between(w[0], e->a_nj, e->b_nj);
}

static bool energy_on(const scenario *scn)
{
    const flood_values *sc = flood_values_of(scn);
    return sc->energy_budget.law == LAW_UNIFORM || sc->energy_budget.a_nj > 0;
}

/* The packet size of P's flow (without flows, [traffic] size). */
static int64_t packet_size(const scenario *scn, const live_packet *p)
{
    const flood_values *sc = flood_values_of(scn);
    return sc->n_flows > 0 ? sc->flows[p->flow].size_bytes : sc->size_bytes;
}

static int res_event_order(const void *x, const void *y)
{
    const res_event *a = x, *b = y;
    if (a->node != b->node)
        return a->node < b->node ? -1 : 1;
    if (a->t != b->t)
        return a->t < b->t ? -1 : 1;
    if (a->k != b->k)
        return a->k < b->k ? -1 : 1;
    return (a->sender > b->sender) - (a->sender < b->sender);
}

/* Accepted copies grouped by packet (the order within a packet does not matter). */
static int res_packet_order(const void *x, const void *y)
{
    const res_event *a = x, *b = y;
    if (a->a != b->a)
        return a->a < b->a ? -1 : 1;
    return res_event_order(x, y);
}

static int res_push(res_event **v, int64_t *n, int64_t *cap, res_event e)
{
    if (*n == *cap) {
        const int64_t c = *cap ? 2 * *cap : 256;
        void *q = realloc(*v, (size_t)c * sizeof **v);
        if (!q)
            return ORACLE_ERR_NOMEM;
        *v = q;
        *cap = c;
    }
    (*v)[(*n)++] = e;
    return ORACLE_OK;
}

/* Node J pays COST for an event at time T: true when it can (or there is no energy model);
 * otherwise it dies at T, if it was alive. */
static bool res_pay(res_state *rs, int32_t j, int64_t t, int64_t cost, flood_oracle_result *r)
{
    if (!rs->energy)
        return true;
    if (rs->death[j] >= 0)
        return false;
    if (rs->left[j] >= cost) {
        rs->left[j] -= cost;
        r->energy_spent_nj += cost;
        return true;
    }
    rs->death[j] = t;
    r->dead_nodes++;
    if (r->first_death_ns < 0 || t < r->first_death_ns)
        r->first_death_ns = t;
    return false;
}

static int res_init(const scenario *scn, int64_t n, res_state *rs, flood_oracle_result *r)
{
    const flood_values *sc = flood_values_of(scn);
    memset(rs, 0, sizeof *rs);
    r->has_capacity = sc->rx_capacity > 0;
    r->has_energy = rs->energy = energy_on(scn);
    r->first_death_ns = -1;
    if (!rs->energy)
        return ORACLE_OK;
    rs->left = malloc((size_t)n * sizeof *rs->left);
    rs->death = malloc((size_t)n * sizeof *rs->death);
    if (!rs->left || !rs->death)
        return ORACLE_ERR_NOMEM;
    for (int64_t j = 0; j < n; j++) {
        rs->left[j] = oracle_energy_budget(scn, j);
        rs->death[j] = -1;
    }
    return ORACLE_OK;
}

static void res_free(res_state *rs)
{
    free(rs->left);
    free(rs->death);
    free(rs->tx);
    free(rs->rx);
}

/* Window W under node resources: the live packets whose time T lies in W (and before the
 * duration) transmit, copies are accepted, and each packet settles. Packets cut by the
 * duration are emptied as in the plain loop. */
static int resources_window(const scenario *scn, int64_t w, live_packet *live, int64_t nlive,
                            const int64_t *off, const int32_t *lst, const int64_t (*pos)[3],
                            int32_t *slot, sender *scratch, res_state *rs,
                            flood_oracle_result *r, oracle_packet *rec, bool *executed)
{
    const flood_values *sc = flood_values_of(scn);
    const int64_t l = sc->relay_delay_ns;
    int rc = ORACLE_OK;
    rs->ntx = rs->nrx = 0;
    for (int64_t a = 0; a < nlive && rc == ORACLE_OK; a++) {
        live_packet *p = &live[a];
        if (p->t / l != w)
            continue;
        if (scn->duration_ns > 0 && p->t >= scn->duration_ns) {
            p->nfront = p->npending = 0; /* nothing at or after the duration happens */
            continue;
        }
        for (int64_t f = 0; f < p->nfront && rc == ORACLE_OK; f++)
            rc = res_push(&rs->tx, &rs->ntx, &rs->cap_tx,
                          (res_event){p->front[f].node, p->front[f].node, p->t, p->k, a,
                                      p->front[f].hop, false});
    }
    if (rc != ORACLE_OK)
        return rc;
    /* Each node's transmissions in order (time, packet): those it can pay happen. */
    if (rs->ntx > 1) /* (an empty list may have no array yet) */
        qsort(rs->tx, (size_t)rs->ntx, sizeof *rs->tx, res_event_order);
    for (int64_t e = 0; e < rs->ntx; e++) {
        res_event *x = &rs->tx[e];
        const live_packet *p = &live[x->a];
        x->happens = res_pay(rs, x->node, x->t,
                             sc->tx_fixed_nj + sc->tx_per_byte_nj * packet_size(scn, p), r);
    }
    /* The packets' fronts become the transmissions that happen (never more than before). */
    for (int64_t e = 0; e < rs->ntx; e++)
        live[rs->tx[e].a].nfront = 0;
    for (int64_t e = 0; e < rs->ntx && rc == ORACLE_OK; e++) {
        const res_event *x = &rs->tx[e];
        if (!x->happens)
            continue;
        live_packet *p = &live[x->a];
        p->front[p->nfront++] = (sender){x->node, x->hop};
        r->transmissions++;
        if (x->t > r->end_time_ns)
            r->end_time_ns = x->t;
        *executed = true;
        for (int64_t q = off[x->node]; q < off[x->node + 1] && rc == ORACLE_OK; q++)
            rc = res_push(&rs->rx, &rs->nrx, &rs->cap_rx,
                          (res_event){lst[q], x->node, x->t, x->k, x->a, x->hop, false});
    }
    if (rc != ORACLE_OK)
        return rc;
    /* Each node's copies in order (time, packet, sender): the first rx_capacity are accepted
     * (a dead node accepts none), and each happens if the node can pay for it. */
    if (rs->nrx > 1) /* (an empty list may have no array yet) */
        qsort(rs->rx, (size_t)rs->nrx, sizeof *rs->rx, res_event_order);
    for (int64_t e = 0; e < rs->nrx;) {
        const int32_t j = rs->rx[e].node;
        int64_t end = e, accepted = 0;
        while (end < rs->nrx && rs->rx[end].node == j)
            end++;
        for (; e < end; e++) {
            res_event *x = &rs->rx[e];
            if (rs->energy && rs->death[j] >= 0)
                break; /* dead: nothing more happens to it, not even a refusal */
            if (sc->rx_capacity > 0 && accepted == sc->rx_capacity) {
                r->capacity_drops++;
                continue;
            }
            accepted++;
            x->happens = res_pay(rs, j, x->t,
                                 sc->rx_fixed_nj +
                                     sc->rx_per_byte_nj * packet_size(scn, &live[x->a]),
                                 r);
        }
        e = end;
    }
    /* Each packet hears its copies that happened, then settles its step. */
    if (rs->nrx > 1) /* (an empty list may have no array yet) */
        qsort(rs->rx, (size_t)rs->nrx, sizeof *rs->rx, res_packet_order);
    int64_t e = 0;
    for (int64_t a = 0; a < nlive && rc == ORACLE_OK; a++) {
        live_packet *p = &live[a];
        if (p->t / l != w || (scn->duration_ns > 0 && p->t >= scn->duration_ns))
            continue;
        map_pending(p, slot);
        while (e < rs->nrx && rs->rx[e].a < a)
            e++;
        for (; e < rs->nrx && rs->rx[e].a == a && rc == ORACLE_OK; e++) {
            const res_event *x = &rs->rx[e];
            if (!x->happens)
                continue;
            r->receptions++;
            rc = hear(scn, p, slot, pos, x->sender, x->node, x->hop);
        }
        if (rc == ORACLE_OK)
            rc = settle_packet(scn, p, scratch, r, rec);
    }
    return rc;
}

/* qudg (docs/models.md): keeps in the range lists OFF/LST (range = r_max) the links of window
 * W: pairs within range_min, and the others whose draw ctr {min, max, 5, w mod 2^32} has
 * w0 < thr(link_probability). The pair is unordered, so both directions agree. */
static void qudg_filter(const scenario *scn, const int64_t (*pos)[3], int64_t n, int64_t w,
                        int64_t *off, int32_t *lst)
{
    const flood_values *sc = flood_values_of(scn);
    const uint64_t rmin2 = (uint64_t)sc->range_min_mm * (uint64_t)sc->range_min_mm;
    const uint32_t key0 = (uint32_t)(scn->seed & 0xffffffffu), key1 = (uint32_t)(scn->seed >> 32);
    int64_t at = 0;
    for (int64_t i = 0; i < n; i++) {
        const int64_t a = off[i], b = off[i + 1];
        off[i] = at;
        for (int64_t q = a; q < b; q++) {
            const int64_t j = lst[q];
            bool linked = dist2(pos[i], pos[j]) <= rmin2;
            if (!linked) {
                const uint32_t ctr[4] = {(uint32_t)(i < j ? i : j), (uint32_t)(i < j ? j : i), 5,
                                         (uint32_t)w};
                uint32_t r[4];
                oracle_philox4x32_10(ctr, key0, key1, r);
                linked = (uint64_t)r[0] < sc->link_threshold;
            }
            if (linked)
                lst[at++] = (int32_t)j;
        }
    }
    off[n] = at;
}

/* One link of node i while ranking: its squared length, the other end, its place in LST. */
typedef struct cap_key {
    uint64_t d2;
    int32_t j;
    int64_t e;
} cap_key;

static int cap_key_order(const void *a, const void *b)
{
    const cap_key *x = a, *y = b;
    if (x->d2 != y->d2)
        return x->d2 < y->d2 ? -1 : 1;
    return (x->j > y->j) - (x->j < y->j);
}

/* Where J appears in node I's list (sorted by id), or -1. */
static int64_t edge_of(const int64_t *off, const int32_t *lst, int64_t i, int32_t j)
{
    int64_t lo = off[i], hi = off[i + 1];
    while (lo < hi) {
        const int64_t mid = lo + (hi - lo) / 2;
        if (lst[mid] < j)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < off[i + 1] && lst[lo] == j ? lo : -1;
}

int oracle_cap_filter(const int64_t (*pos)[3], int64_t n, int64_t k, int64_t *off, int32_t *lst,
                      int64_t *links, int64_t *cut)
{
    const int64_t total = off[n];
    uint8_t *kept_by_i = calloc((size_t)(total > 0 ? total : 1), 1);
    int64_t most = 0;
    for (int64_t i = 0; i < n; i++)
        most = off[i + 1] - off[i] > most ? off[i + 1] - off[i] : most;
    cap_key *keys = malloc((size_t)(most > 0 ? most : 1) * sizeof *keys);
    if (!kept_by_i || !keys) {
        free(kept_by_i);
        free(keys);
        return ORACLE_ERR_NOMEM;
    }
    /* each node's own choice: its K first links in the order (d2, id) */
    for (int64_t i = 0; i < n; i++) {
        const int64_t deg = off[i + 1] - off[i];
        for (int64_t q = 0; q < deg; q++) {
            const int64_t e = off[i] + q;
            keys[q] = (cap_key){dist2(pos[i], pos[lst[e]]), lst[e], e};
        }
        qsort(keys, (size_t)deg, sizeof *keys, cap_key_order);
        for (int64_t q = 0; q < deg && q < k; q++)
            kept_by_i[keys[q].e] = 1;
    }
    /* a link stays when both ends chose it */
    int64_t n_kept = 0, n_cut = 0, at = 0;
    uint8_t *stays = malloc((size_t)(total > 0 ? total : 1));
    if (!stays) {
        free(kept_by_i);
        free(keys);
        return ORACLE_ERR_NOMEM;
    }
    for (int64_t i = 0; i < n; i++)
        for (int64_t e = off[i]; e < off[i + 1]; e++) {
            const int64_t back = edge_of(off, lst, lst[e], (int32_t)i);
            stays[e] = kept_by_i[e] && back >= 0 && kept_by_i[back];
            if (i < lst[e]) {
                if (stays[e])
                    n_kept++;
                else
                    n_cut++;
            }
        }
    for (int64_t i = 0; i < n; i++) {
        const int64_t a = off[i], b = off[i + 1];
        off[i] = at;
        for (int64_t e = a; e < b; e++)
            if (stays[e])
                lst[at++] = lst[e];
    }
    off[n] = at;
    free(stays);
    free(kept_by_i);
    free(keys);
    if (links)
        *links = n_kept;
    if (cut)
        *cut = n_cut;
    return ORACLE_OK;
}

/* The graph of window W at positions POS: udg lists, qudg's draws of W, then the cap. */
static int window_graph(const scenario *scn, const int64_t (*pos)[3], int64_t n, int64_t w,
                        int64_t **off, int32_t **lst, int64_t *links, int64_t *cut)
{
    const flood_values *sc = flood_values_of(scn);
    int rc = oracle_neighbours(pos, n, sc->range_mm, off, lst);
    if (rc == ORACLE_OK)
        rc = oracle_area_links(scn, n, off, lst);
    if (rc == ORACLE_OK && sc->connectivity == CONNECTIVITY_QUDG)
        qudg_filter(scn, pos, n, w, *off, *lst);
    if (rc == ORACLE_OK && sc->max_neighbors > 0)
        rc = oracle_cap_filter(pos, n, sc->max_neighbors, *off, *lst, links, cut);
    return rc;
}

/* The next window with something to do: the next creation's, or the earliest next time of a
 * live packet (windows in between hold nothing: a packet may wait for its nodes' decisions).
 * -1 when nothing is left. */
static int64_t next_window(const oracle_departure *dep, int64_t n_dep, int64_t next_k,
                           const live_packet *live, int64_t nlive, int64_t l)
{
    int64_t w = next_k < n_dep ? dep[next_k].t_ns / l : -1;
    for (int64_t a = 0; a < nlive; a++)
        if (w < 0 || live[a].t / l < w)
            w = live[a].t / l;
    return w;
}

/* Whether a live packet transmits in window W (before the duration DUR, when it is > 0). */
static bool sends_in(const live_packet *live, int64_t nlive, int64_t w, int64_t l, int64_t dur)
{
    for (int64_t a = 0; a < nlive; a++)
        if (live[a].nfront > 0 && live[a].t / l == w && (dur <= 0 || live[a].t < dur))
            return true;
    return false;
}

/* Packet K of departure DP, towards DEST, joins the live packets: its source transmits it at
 * its creation time with hop count 1, and has it from then on. */
static int start_packet(live_packet **live, int64_t *nlive, int64_t *cap_live,
                        const oracle_departure *dp, int64_t k, int64_t dest, int64_t n)
{
    if (*nlive == *cap_live) {
        const int64_t cap = *cap_live ? 2 * *cap_live : 16;
        void *q = realloc(*live, (size_t)cap * sizeof **live);
        if (!q)
            return ORACLE_ERR_NOMEM;
        *live = q;
        *cap_live = cap;
    }
    live_packet *p = &(*live)[(*nlive)++];
    memset(p, 0, sizeof *p);
    p->k = k;
    p->t_k = p->t = dp->t_ns;
    p->dest = dest;
    p->flow = dp->flow;
    p->state = calloc((size_t)n, 1);
    p->front = malloc(sizeof *p->front);
    if (!p->state || !p->front)
        return ORACLE_ERR_NOMEM;
    p->state[dp->source] = NODE_SETTLED;
    p->front[0] = (sender){dp->source, 1};
    p->nfront = 1;
    return ORACLE_OK;
}

int flood_oracle_run(const scenario *sc, flood_oracle_result *out)
{
    return flood_oracle_run_packets(sc, out, NULL, NULL);
}

int flood_oracle_run_packets(const scenario *scn, flood_oracle_result *out, oracle_packet **packets,
                             int64_t *n_packets)
{
    const flood_values *sc = flood_values_of(scn);
    memset(out, 0, sizeof *out);
    if (packets)
        *packets = NULL;
    if (n_packets)
        *n_packets = 0;
    if (!scenario_ok(scn))
        return ORACLE_ERR_INPUT;

    const int64_t n = oracle_node_count(scn);
    const int64_t l = sc->relay_delay_ns;
    const bool flows = sc->n_flows > 0;
    bool mobile = false;
    const bool qudg = sc->connectivity == CONNECTIVITY_QUDG;
    out->seed = scn->seed;
    out->nodes = n;

    /* The packets: every departure, in packet id order (without flows, docs/model.md's). */
    oracle_departure *dep = NULL;
    int64_t n_dep = 0;
    int rc = flows ? oracle_flow_departures(scn, &dep, &n_dep) : legacy_departures(scn, &dep, &n_dep);
    if (rc != ORACLE_OK) {
        memset(out, 0, sizeof *out);
        return rc;
    }
    /* Without flows, docs/model.md's packets that the duration keeps from being created still
     * count as generated, but only packets created get a record. */
    const int64_t n_rec = n_dep;
    oracle_packet *rec = calloc((size_t)(n_rec > 0 ? n_rec : 1), sizeof *rec);
    int64_t *dest_of_flow = calloc(SCENARIO_MAX_FLOWS, sizeof *dest_of_flow);
    if (!rec || !dest_of_flow) {
        free(dep);
        free(rec);
        free(dest_of_flow);
        return ORACLE_ERR_NOMEM;
    }
    if (flows) {
        out->n_flows = sc->n_flows;
        for (int f = 0; f < sc->n_flows; f++) {
            const int64_t d = sc->flows[f].destination;
            dest_of_flow[f] = d == -1 ? n - 1 : d;
            memcpy(out->flows[f].name, sc->flows[f].name, sizeof out->flows[f].name);
            out->flows[f].name[GROUP_NAME_MAX - 1] = '\0';
        }
        for (int64_t k = 0; k < n_dep; k++) {
            oracle_flow_result *fr = &out->flows[dep[k].flow];
            fr->generated++;
            fr->deliverable += dest_of_flow[dep[k].flow] == FLOW_BROADCAST ? n - 1 : 1;
        }
        for (int f = 0; f < sc->n_flows; f++) {
            out->generated += out->flows[f].generated;
            out->deliverable += out->flows[f].deliverable;
        }
    } else {
        dest_of_flow[0] = sc->destination == -1 ? n - 1 : sc->destination;
        strcpy(out->flows[0].name, "traffic");
        out->generated = out->deliverable = sc->packets;
        out->flows[0].generated = out->flows[0].deliverable = sc->packets;
    }
    for (int64_t k = 0; k < n_rec; k++) {
        rec[k].flow = k < n_dep ? dep[k].flow : 0;
        rec[k].source = k < n_dep ? dep[k].source : (int32_t)sc->source;
        rec[k].created_ns = k < n_dep ? dep[k].t_ns : sc->start_ns + k * sc->interval_ns;
    }

    oracle_mobility mob;
    rc = oracle_mobility_init(&mob, scn);
    if (rc != ORACLE_OK) {
        oracle_mobility_free(&mob);
        free(dep);
        free(rec);
        free(dest_of_flow);
        memset(out, 0, sizeof *out);
        return rc;
    }
    mobile = mob.mobile;
    int64_t *off = NULL;
    int32_t *lst = NULL;
    sender *scratch = NULL;
    int32_t *slot = NULL;
    live_packet *live = NULL;
    int64_t nlive = 0, cap_live = 0;
    int64_t next_k = 0;
    bool executed = false;
    /* node resources couple the packets: windows are then taken whole (resources_window) */
    const bool resources = sc->rx_capacity > 0 || energy_on(scn);
    res_state rs;
    memset(&rs, 0, sizeof rs);
    /* the cap reports window 0's graph, whatever the traffic */
    if (sc->max_neighbors > 0) {
        out->capped = true;
        rc = window_graph(scn, (const int64_t (*)[3])mob.pos, n, 0, &off, &lst, &out->links,
                          &out->links_cut);
        free(off);
        free(lst);
        off = NULL;
        lst = NULL;
        if (rc != ORACLE_OK)
            goto done;
    }
    rc = res_init(scn, n, &rs, out);
    if (rc != ORACLE_OK)
        goto done;
    int64_t nb_window = -1; /* window of the positions OFF/LST were built from, -1: none */
    scratch = malloc((size_t)n * sizeof *scratch);
    slot = malloc((size_t)n * sizeof *slot);
    if (!scratch || !slot) {
        rc = ORACLE_ERR_NOMEM;
        goto done;
    }

    /* Every departure in DEP happens (none at or after the duration). */
    for (int64_t w; (w = next_window(dep, n_dep, next_k, live, nlive, l)) >= 0;) {
        oracle_mobility_advance(scn, &mob, w);

        /* Packets created in this window (DEP is in packet id order, so in time order). */
        while (next_k < n_dep && dep[next_k].t_ns / l == w) {
            rc = start_packet(&live, &nlive, &cap_live, &dep[next_k], next_k,
                              dest_of_flow[dep[next_k].flow], n);
            if (rc != ORACLE_OK)
                goto done;
            next_k++;
        }

        /* Neighbour sets of this window's positions, when something is sent in it (once for
         * static udg scenarios; qudg draws its links for every window). */
        if (sends_in(live, nlive, w, l, scn->duration_ns) &&
            (nb_window < 0 || ((mobile || qudg) && nb_window != w))) {
            free(off);
            free(lst);
            off = NULL;
            lst = NULL;
            rc = window_graph(scn, (const int64_t (*)[3])mob.pos, n, w, &off, &lst, NULL, NULL);
            if (rc != ORACLE_OK)
                goto done;
            nb_window = w;
        }

        if (resources) {
            rc = resources_window(scn, w, live, nlive, off, lst, (const int64_t (*)[3])mob.pos,
                                  slot, scratch, &rs, out, rec, &executed);
            if (rc != ORACLE_OK)
                goto done;
            for (int64_t a = 0; a < nlive;) {
                if (live_done(&live[a])) {
                    live_free(&live[a]);
                    live[a] = live[--nlive];
                } else {
                    a++;
                }
            }
            continue;
        }
        for (int64_t a = 0; a < nlive;) {
            live_packet *p = &live[a];
            if (p->t / l != w) { /* waiting for a later decision */
                a++;
                continue;
            }
            if (scn->duration_ns > 0 && p->t >= scn->duration_ns) {
                /* cut by the duration: nothing of it at or after T is executed or counted */
                p->nfront = p->npending = 0;
            } else {
                executed = executed || p->nfront > 0;
                rc = step_packet(scn, p, off, lst, (const int64_t (*)[3])mob.pos, slot, scratch,
                                 out, rec);
                if (rc != ORACLE_OK)
                    goto done;
            }
            if (live_done(p)) {
                live_free(p);
                live[a] = live[--nlive]; /* order of packets is irrelevant */
            } else {
                a++;
            }
        }
    }
    if (executed)
        out->windows = out->end_time_ns / l + 1;
    rc = ORACLE_OK;

done:
    for (int64_t a = 0; a < nlive; a++)
        live_free(&live[a]);
    free(live);
    free(scratch);
    free(slot);
    free(off);
    free(lst);
    free(dep);
    free(dest_of_flow);
    oracle_mobility_free(&mob);
    res_free(&rs);
    if (rc != ORACLE_OK) {
        free(rec);
        flood_oracle_result zero;
        memset(&zero, 0, sizeof zero);
        *out = zero;
        return rc;
    }
    if (packets) {
        *packets = rec;
        if (n_packets)
            *n_packets = n_rec;
    } else {
        free(rec);
    }
    return rc;
}
