#pragma OPENCL FP_CONTRACT OFF
/* Node resources (docs/models.md, "Node resources"): a receive capacity and an energy budget
 * per node. Built after flood.cl (whose helpers it uses) with -DFLOOD_RESOURCES=1, only for
 * scenarios that ask for them; the plain transmit kernels are not touched.
 *
 * These rules couple the packets at the nodes: which copies a node accepts, and whether it can
 * still pay, depend on every packet of the window, in the order (time, packet, sender), never
 * on the order in which work-items happen to run. A window therefore runs four kernels:
 *   res_link     each transmission of the window joins its transmitter's list (a linked list
 *                of entries built with atomic_xchg), and each transmitter joins a node list;
 *   res_charge   per transmitter: its transmissions in order (time, packet) are paid or, at the
 *                first it cannot pay, it dies; the paid ones stay in its list, and the nodes
 *                they reach are stamped with the window (plain stores of one value: no
 *                atomics);
 *   res_receive  per node stamped: it counts and prices its copies (its neighbours' lists);
 *                if it can take and pay for all of them it takes them all, else it takes them
 *                in order (time, packet, sender), by repeated search of the next smallest,
 *                until the capacity or its energy runs out;
 *   res_reset    the transmitters' lists are emptied for the next window.
 * Within a window every transmission of packet k happens at the same time t (flood.cl,
 * packet_hop), so (time, packet) orders a node's transmissions and (time, packet, sender) its
 * copies; per node everything is sequential, so the results are those of the rules.
 * Under counter and distance (FLOOD_SCHEME) a copy taken is only heard (scheme_hear); the
 * window's scheme_decide then settles first receptions and decisions as without resources,
 * and marks the slots' words (slot_mark) without erasing res_charge's transmission mark. */

#ifndef FLOOD_ENERGY
#define FLOOD_ENERGY 0 /* -DFLOOD_ENERGY=1: an energy budget (else a capacity alone) */
#endif
#ifndef FLOOD_RES_MOBILE
#define FLOOD_RES_MOBILE 0 /* -DFLOOD_RES_MOBILE=1: links from the cell lists of the window */
#endif

#define RES_NONE 0xffffffffu
/* in an entry's slot word, while res_charge pays in order: this transmission is paid */
#define RES_PAID 0x80000000u

/* Per work-item sums, reduced per work-group at the end of each kernel. */
#define RS_TX 0
#define RS_RX 1
#define RS_FIRST 2
#define RS_DROPS 3
#define RS_ENERGY 4
#define RS_DEAD 5
#define RES_SUMS 6

/* The links of node I in the window (docs/models.md: udg, qudg's draws of the window, the
 * cap), which are symmetric: a node's links are also those whose transmissions reach it. The
 * body sees J; it must not hold a comma outside parentheses (it passes through another macro).
 * Needs W (window_params), WIN (the window, for qudg) and CAP_THR; mobile, also the range and
 * the cell grid under FOR_EACH_CANDIDATE's names (GRID_FROM_PARAMS, cl/flood/flood.cl). */
#if FLOOD_RES_MOBILE
#define RES_LINK_ARGS                                                                       \
    __global const long4 *pos, __global const uint *cell_start, __global const uint *cell_nodes
#define RES_LINK_PASS pos, cell_start, cell_nodes
#define FOR_EACH_LINK(i, j, BODY)                                                           \
    do {                                                                                    \
        long4 pl_ = pos[(i)];                                                               \
        FOR_EACH_CANDIDATE(pl_, j, {                                                        \
            if (j != (i)) {                                                                 \
                ulong d2_ = dist2(pl_, pos[j]);                                             \
                if (d2_ <= range2 && (!FLOOD_QUDG || qudg_link((i), j, d2_, win, &w)) &&    \
                    (FLOOD_CAP == 0 || cap_keeps((i), j, d2_, cap_thr))) {                  \
                    BODY                                                                    \
                }                                                                           \
            }                                                                               \
        });                                                                                 \
    } while (0)
#else
#define RES_LINK_ARGS __global const uint *offsets, __global const uint *neighbours,      \
                      __global const long4 *pos
#define RES_LINK_PASS offsets, neighbours, pos
/* static lists: udg (capped once when there is a cap), or under qudg every pair within range,
 * each link drawn for the window and then capped */
#define FOR_EACH_LINK(i, j, BODY)                                                           \
    do {                                                                                    \
        uint e_ = offsets[(i) + 1];                                                         \
        long4 pl_ = FLOOD_QUDG ? pos[(i)] : (long4)(0);                                     \
        for (uint q_ = offsets[(i)]; q_ < e_; q_++) {                                       \
            uint j = neighbours[q_];                                                        \
            int ok_ = 1;                                                                    \
            if (FLOOD_QUDG) {                                                               \
                ulong d2_ = dist2(pl_, pos[j]);                                             \
                ok_ = qudg_link((i), j, d2_, win, &w) &&                                    \
                      (FLOOD_CAP == 0 || cap_keeps((i), j, d2_, cap_thr));                  \
            }                                                                               \
            if (ok_) {                                                                      \
                BODY                                                                        \
            }                                                                               \
        }                                                                                   \
    } while (0)
#endif

/* What the resource kernels know of the packets in the window starting at T. */
typedef struct res_window {
    long T, L, start, interval;
    __global const uint *slot_packet;
    __global const long *slot_time;    /* FLOOD_FLOWS */
    __global const uint2 *slot_route;  /* FLOOD_FLOWS: (destination, flow) */
    __global const long *costs;        /* per flow: transmission, accepted copy (nJ) */
} res_window;

/* A copy or a transmission in the order of the rules: time, packet, sender. Packet ids are
 * given in order of creation time (docs/models.md, "Traffic"), so the packet order is that of
 * (creation time TK, id): ids then only break ties between packets created at the same time,
 * and their 32-bit device form (the id modulo 2^32) compares right by its wrapped difference. */
typedef struct res_key {
    long t, tk;
    uint k, s;
} res_key;

inline int res_before(res_key a, res_key b)
{
    if (a.t != b.t)
        return a.t < b.t;
    if (a.tk != b.tk)
        return a.tk < b.tk;
    if (a.k != b.k)
        return (int)(a.k - b.k) < 0;
    return a.s < b.s;
}

/* An entry E of the lists is (slot, next entry, window hop, hop count): the window hop gives
 * the transmission's time (packet_hop, found once by res_link: it divides); the hop count is
 * the transmission's own, which under a scheme can be smaller (docs/models.md, "Forwarding
 * schemes"; without one it is not read). Its packet K, creation time TK and time T: */
inline void res_packet(const res_window *rw, uint4 e, uint *k, long *tk, long *t)
{
    *k = rw->slot_packet[e.x];
    *tk = FLOOD_FLOWS ? rw->slot_time[e.x] : rw->start + (long)*k * rw->interval;
    *t = *tk + ((long)e.z - 1) * rw->L;
}

/* The key of the transmission of entry E by node S. */
inline res_key res_key_of(const res_window *rw, uint4 e, uint s)
{
    uint k;
    long tk, t;
    res_packet(rw, e, &k, &tk, &t);
    res_key key = {t, tk, k, s};
    return key;
}

/* The cost of an event of slot SLOT's packet (nJ): a transmission (RX = 0) or an accepted
 * copy (RX = 1), tx_fixed + tx_per_byte x size and the like, per flow from the host. */
inline long res_cost(const res_window *rw, uint slot, uint rx)
{
    uint f = FLOOD_FLOWS ? rw->slot_route[slot].y : 0u;
    return rw->costs[2u * f + rx];
}

/* Adds the work-group's sums to the 64-bit counters (once per work-group). Every work-item
 * calls it, outside any divergent branch. */
inline void res_flush(const ulong *sums, __local ulong *l_red, volatile __global uint *ctl)
{
    uint lid = get_local_id(0), ls = get_local_size(0);
    for (uint c = 0; c < RES_SUMS; c++)
        l_red[c * ls + lid] = sums[c];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint step = ls >> 1; step > 0; step >>= 1) {
        if (lid < step)
            for (uint c = 0; c < RES_SUMS; c++)
                l_red[c * ls + lid] += l_red[c * ls + lid + step];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) {
        const uint word[RES_SUMS] = {CTL_TX, CTL_RX, CTL_FIRST, CTL_RES_DROPS, CTL_RES_ENERGY,
                                     CTL_RES_DEAD};
        for (uint c = 0; c < RES_SUMS; c++)
            if (l_red[c * ls])
                add_wide(ctl, word[c], l_red[c * ls]);
    }
}

/* Each node's budget (the constant A, or a + ((w0 x (b - a + 1)) >> 32) with w0 of
 * ctr {j, 0, 15, 0} under uniform(a, b)), alive (death time LONG_MAX), no transmission
 * listed. b - a + 1 < 2^60, so the product is taken in two halves. */
__kernel void res_init(__constant const flood_params *prm, __global long *energy,
                       __global long *death, __global uint *head)
{
    uint j = get_global_id(0);
    if (j >= prm->nodes)
        return;
    long a = prm->energy_a, b = prm->energy_b;
    long e = a;
    if (prm->energy_uniform) {
        ulong span = (ulong)(b - a) + 1ul;
        ulong w0 = philox_draw((uint2)(prm->key_lo, prm->key_hi), j, 0u, STREAM_ENERGY).x;
        e = a + (long)(w0 * (span >> 32) + ((w0 * (span & 0xfffffffful)) >> 32));
    }
    energy[j] = e;
    death[j] = LONG_MAX;
    head[j] = RES_NONE;
}

/* The window's entries (the relays of the last window, then the source's new packets, read as
 * tx_window_begin and tx_begin (flood.cl) read them, with the same side effects: slots
 * cleared, a new packet's tables written) become lists: entry G of node I is ENT[G], HEAD[I]
 * the first. Transmissions at or after the duration, and those of dead nodes, are left out:
 * they never happen and cost nothing. The first entry of a node lists it in TXNODES. */
__kernel void res_link(__global const entry_t *in, uint in_word, uint n_new, uint n_clear,
                       uint16 inline_desc, __global const uint *desc, uint clear_word,
                       volatile __global uint *ctl, __global uint *seen,
                       __constant const flood_params *prm, __global uint *slot_packet, long T,
                       uint n_import, uint parity, __global uint *head, __global uint4 *ent,
                       uint ent_cap, __global uint *txnodes, __global const long *death,
                       __global long *slot_time, __global uint2 *slot_route,
                       __global uint *deliv, uint slots, __global uint *scheme_state)
{
    uint words = prm->words, source = prm->source, n_nodes = prm->nodes;
    long L = prm->L, start = prm->start, interval = prm->interval, duration = prm->duration;
    uint inline_words[16];
    vstore16(inline_desc, 0, inline_words);
    int use_inline = NEW_WORDS * n_new + n_clear <= 16;
    uint relayed = ctl[in_word] + n_import, count = relayed + n_new;
    size_t gid = get_global_id(0), gsize = get_global_size(0);
    if (gid == 0) { /* the next window's count words; nothing reads them until then */
        ctl[clear_word] = 0u;
        if ((ulong)ctl[in_word] + n_import + n_new > 0xfffffffful) /* the count wrapped */
            atomic_or(&ctl[CTL_OVERFLOW], CTL_WRAPPED);
        if (FLOOD_SCHEME) /* (the pending list's, rotated alike: flood.cl, pend_list) */
            ctl[CTL_PEND + (clear_word - CTL_COUNT)] = 0u;
        ctl[CTL_RES_TXN + (parity ^ 1u)] = 0u;
    }
    for (size_t c = gid; c < (size_t)n_clear * words; c += gsize)
        seen[(size_t)DESCRIPTOR(NEW_WORDS * n_new + (uint)(c / words)) * words + c % words] = 0u;
    if (FLOOD_SCHEME) { /* the retired slots' scheme states, as tx_window_begin clears them */
        size_t per = (size_t)n_nodes * SCHEME_WORDS;
        for (size_t c = gid; c < (size_t)n_clear * per; c += gsize)
            scheme_state[(size_t)DESCRIPTOR(NEW_WORDS * n_new + (uint)(c / per)) * per +
                         c % per] = 0u;
    }
    if (FLOOD_FLOWS) /* the next window's deliveries start from zero */
        for (size_t c = gid; c < (size_t)slots * DELIV_WORDS; c += gsize)
            deliv[(size_t)(parity ^ 1u) * slots * DELIV_WORDS + c] = 0u;
    for (uint g = (uint)gid; g < count; g += (uint)gsize) {
        uint i, slot, k, sent_hop = 1u;
        long tk;
        if (g < relayed) {
            i = in[g].x;
            slot = in[g].y;
            sent_hop = (uint)ENTRY_HOP(in[g], 0);
            k = slot_packet[slot];
            tk = FLOOD_FLOWS ? slot_time[slot] : start + (long)k * interval;
        } else { /* a new packet: created even when its source is dead */
            uint q = g - relayed;
            slot = DESCRIPTOR(NEW_WORDS * q);
            k = DESCRIPTOR(NEW_WORDS * q + 1);
            i = source;
            tk = start + (long)k * interval;
            if (FLOOD_FLOWS) {
                i = DESCRIPTOR(NEW_WORDS * q + 2);
                tk = (long)(((ulong)DESCRIPTOR(NEW_WORDS * q + 4) << 32) |
                            DESCRIPTOR(NEW_WORDS * q + 3));
                slot_time[slot] = tk;
                slot_route[slot] = (uint2)(DESCRIPTOR(NEW_WORDS * q + 5),
                                           DESCRIPTOR(NEW_WORDS * q + 6));
            }
            slot_packet[slot] = k;
            atomic_or(&seen[(size_t)slot * words + (i >> 5)], 1u << (i & 31u));
            if (FLOOD_SCHEME) /* the source of a new packet has nothing to decide */
                SCHEME_AT(scheme_state, n_nodes, slot, i)[SW_FLAGS] = SF_DONE;
        }
        long h = packet_hop(T, L, tk), t = tk + (h - 1) * L;
        if (duration != 0 && t >= duration)
            continue;
        if (FLOOD_ENERGY && death[i] != LONG_MAX)
            continue;
        if (g >= ent_cap) { /* the host sizes ENT to the window's bound: a bug (an atomic:
                             * work-item 0 may or CTL_WRAPPED into the word meanwhile) */
            atomic_or(&ctl[CTL_OVERFLOW], 1u);
            continue;
        }
        ent[g].x = slot;
        ent[g].z = (uint)h; /* at most the nodes + 1 (a node relays a packet once) */
        ent[g].w = sent_hop; /* under a scheme the entry's own (else unused) */
        uint old = atomic_xchg(&head[i], g);
        ent[g].y = old;
        if (old == RES_NONE)
            txnodes[atomic_inc(&ctl[CTL_RES_TXN + parity])] = i;
    }
}


/* Per transmitter: pays its transmissions (all of them when it can, else in order (time,
 * packet) up to the first it cannot pay, at whose time it dies), keeps only the paid ones in
 * its list, marks their packets as transmitted in the window (the host learns the last
 * transmission time from it), and stamps the nodes they reach with the window (STAMP). */
__kernel void res_charge(volatile __global uint *ctl, uint parity, uint stamp,
                         __global uint *head, __global uint4 *ent,
                         __global const uint *txnodes, __global uint *reached,
                         __global long *energy, __global long *death,
                         __global const long *costs, __global const uint *slot_packet,
                         __global const long *slot_time, __global const uint2 *slot_route,
                         __constant const flood_params *prm, long T,
                         __global const ulong2 *cap_thr, __local ulong *l_red, RES_LINK_ARGS)
{
    res_window rw = {T, prm->L, prm->start, prm->interval, slot_packet, slot_time, slot_route,
                     costs};
    window_params w = params_window(prm, T, 0); /* the key and qudg's link draws */
#if FLOOD_RES_MOBILE
    GRID_FROM_PARAMS(prm);
#endif
    uint win = (uint)(T / w.L);
    __global uint *alive = (__global uint *)ctl + CTL_WORDS;
    ulong sums[RES_SUMS] = {0, 0, 0, 0, 0, 0};
    uint n = ctl[CTL_RES_TXN + parity];
    for (uint g = (uint)get_global_id(0); g < n; g += (uint)get_global_size(0)) {
        uint i = txnodes[g], first = head[i], paid = 0;
        long sum = 0, e_left = FLOOD_ENERGY ? energy[i] : 0;
        for (uint e = first; e != RES_NONE; e = ent[e].y) {
            paid++;
            if (FLOOD_ENERGY && sum <= e_left) /* (no further once beyond: no overflow) */
                sum += res_cost(&rw, ent[e].x, 0u);
        }
        if (FLOOD_ENERGY && sum > e_left) {
            /* in order (time, packet): the next one after the last paid, until one is too dear */
            res_key last = {LONG_MIN, LONG_MIN, 0u, 0u};
            paid = 0;
            for (;;) {
                res_key best = {LONG_MAX, LONG_MAX, 0u, 0u};
                uint at = RES_NONE;
                for (uint e = first; e != RES_NONE; e = ent[e].y) {
                    uint4 x = ent[e];
                    x.x &= ~RES_PAID;
                    res_key k = res_key_of(&rw, x, i);
                    if (res_before(last, k) && (at == RES_NONE || res_before(k, best))) {
                        best = k;
                        at = e;
                    }
                }
                if (at == RES_NONE)
                    break;
                long cost = res_cost(&rw, ent[at].x, 0u); /* (not paid yet: no mark) */
                if (cost > e_left) {
                    death[i] = best.t;
                    sums[RS_DEAD]++;
                    break;
                }
                e_left -= cost;
                sums[RS_ENERGY] += (ulong)cost;
                ent[at].x |= RES_PAID;
                paid++;
                last = best;
            }
            uint kept = RES_NONE;
            for (uint e = first, next; e != RES_NONE; e = next) {
                next = ent[e].y;
                if (ent[e].x & RES_PAID) {
                    ent[e].x &= ~RES_PAID;
                    ent[e].y = kept;
                    kept = e;
                }
            }
            head[i] = kept;
        } else if (FLOOD_ENERGY) {
            e_left -= sum;
            sums[RS_ENERGY] += (ulong)sum;
        }
        if (FLOOD_ENERGY)
            energy[i] = e_left;
        for (uint e = head[i]; e != RES_NONE; e = ent[e].y)
            alive[ent[e].x] = stamp ^ RES_TX_MARK;
        sums[RS_TX] += paid;
        if (paid)
            FOR_EACH_LINK(i, j, reached[j] = stamp;);
    }
    res_flush(sums, l_red, ctl);
}

/* What res_receive shares with the helpers that hear a copy. */
typedef struct res_rx {
    res_window rw;
    window_params w;
    volatile __global uint *ctl;
    __global uint *seen, *spill, *alive;
    __global entry_t *out;
    uint out_word, capacity, stamp;
    __global const long4 *pos;   /* under distance: the window's positions */
    __global uint *scheme_state; /* under a scheme: the nodes' states per slot */
    uint n;
    ulong near2;
    pend_list pl; /* under a scheme: the window's pending list */
    /* mobile: the range and the cell grid, read from the parameter block once per work-item
     * (res_receive) rather than once per node in res_take's loop */
    ulong range2;
    long side;
    uint nx, ny, nz;
} res_rx;

/* Node J hears the copy of entry E's packet from node I (docs/model.md's reception: a first
 * reception may be a delivery and a relay; under a scheme the copy is heard and the decision
 * left to scheme_decide, as in transmit). */
inline void res_hear(res_rx *x, uint i, uint j, uint4 e, ulong *sums)
{
    sums[RS_RX]++;
    if (FLOOD_SCHEME) {
        uint first = 0;
        ulong d2 = FLOOD_SCHEME == 2 ? dist2(x->pos[i], x->pos[j]) : 0ul;
        if (scheme_hear(j, e.x, (long)e.w, d2, x->near2, x->seen, x->w.words, x->scheme_state,
                        x->n, &first))
            pend_append(x->pl, x->ctl, e.x, j, x->n);
        sums[RS_FIRST] += first;
        return;
    }
    uint k;
    long tk, t;
    res_packet(&x->rw, e, &k, &tk, &t);
    if (FLOOD_FLOWS)
        x->w.destination = x->rw.slot_route[e.x].x;
    uint first = 0;
    if (receive(j, e.x, k, t, tk, (long)e.z, &x->w, x->seen, x->ctl, &first))
        append_global(j, e.x, x->ctl, x->out_word, x->out, x->capacity, x->spill, x->w.words,
                      x->alive, x->stamp);
    sums[RS_FIRST] += first;
}

/* Every paid transmission of node I is heard by J. */
inline void res_hear_all(res_rx *x, uint i, uint j, __global const uint *head,
                         __global const uint4 *ent, ulong *sums)
{
    for (uint e = head[i]; e != RES_NONE; e = ent[e].y)
        res_hear(x, i, j, ent[e], sums);
}

/* The paid transmissions of node I as copies: counted in *C, their costs added to *SUM while
 * it is at most LIMIT (beyond, the sum no longer matters and could overflow). */
inline void res_count(const res_window *rw, uint i, __global const uint *head,
                      __global const uint4 *ent, long limit, ulong *c, long *sum)
{
    for (uint e = head[i]; e != RES_NONE; e = ent[e].y) {
        (*c)++;
        if (FLOOD_ENERGY && *sum <= limit)
            *sum += res_cost(rw, ent[e].x, 1u);
    }
}

/* Among the paid transmissions of node I, the one with the smallest key after LAST, if it
 * comes before *BEST (then *BEST and *AT, its entry). */
inline void res_next_copy(const res_window *rw, uint i, __global const uint *head,
                          __global const uint4 *ent, res_key last, res_key *best, uint *at)
{
    for (uint e = head[i]; e != RES_NONE; e = ent[e].y) {
        res_key k = res_key_of(rw, ent[e], i);
        if (res_before(last, k) && (*at == RES_NONE || res_before(k, *best))) {
            *best = k;
            *at = e;
        }
    }
}

/* Node J, reached by copies in the window: those it accepts (the first CAPACITY_M in order
 * (time, packet, sender), all when 0) and can pay for are receptions; the others accepted are
 * not (it died at the first it could not pay); those beyond the capacity are refused, and
 * counted unless it died. A node already dead hears nothing. */
inline void res_take(res_rx *x, uint j, uint capacity_m, __global const uint *head,
                     __global const uint4 *ent, __global long *energy, __global long *death,
                     ulong *sums, RES_LINK_ARGS, __global const ulong2 *cap_thr)
{
    if (FLOOD_ENERGY && death[j] != LONG_MAX)
        return;
#if FLOOD_RES_MOBILE
    ulong range2 = x->range2; /* FOR_EACH_CANDIDATE's names */
    long side = x->side;
    uint nx = x->nx, ny = x->ny, nz = x->nz;
#endif
    window_params w = x->w; /* for FOR_EACH_LINK's link draws */
    uint win = (uint)(x->rw.T / x->rw.L);
    long e_left = FLOOD_ENERGY ? energy[j] : 0, sum = 0;
    ulong c = 0; /* copies reaching j in the window: in 64 bits, many packets may be in flight */
    FOR_EACH_LINK(j, i, res_count(&x->rw, i, head, ent, e_left, &c, &sum););
    ulong accept = capacity_m == 0u || c <= capacity_m ? c : capacity_m;
    if (accept == c && sum <= e_left) { /* (sum is 0 without an energy model) */
        e_left -= sum;
        sums[RS_ENERGY] += (ulong)sum;
        FOR_EACH_LINK(j, i, res_hear_all(x, i, j, head, ent, sums););
    } else {
        res_key last = {LONG_MIN, LONG_MIN, 0u, 0u};
        ulong taken = 0;
        int died = 0;
        while (taken < accept) {
            res_key best = {LONG_MAX, LONG_MAX, 0u, 0u};
            uint at = RES_NONE;
            FOR_EACH_LINK(j, i, res_next_copy(&x->rw, i, head, ent, last, &best, &at););
            if (at == RES_NONE)
                break;
            long cost = FLOOD_ENERGY ? res_cost(&x->rw, ent[at].x, 1u) : 0;
            if (cost > e_left) {
                death[j] = best.t;
                sums[RS_DEAD]++;
                died = 1;
                break;
            }
            e_left -= cost;
            sums[RS_ENERGY] += (ulong)cost;
            res_hear(x, best.s, j, ent[at], sums);
            taken++;
            last = best;
        }
        if (!died)
            sums[RS_DROPS] += c - taken;
    }
    if (FLOOD_ENERGY)
        energy[j] = e_left;
}

/* Per node stamped by res_charge in this window, in id order (which keeps the seen bits of
 * neighbouring receivers together): it takes its copies (res_take). */
__kernel void res_receive(volatile __global uint *ctl, uint stamp, __global const uint *head,
                          __global const uint4 *ent, __global const uint *reached,
                          __global long *energy, __global long *death,
                          __global const long *costs, __global const uint *slot_packet,
                          __global long *slot_time, __global uint2 *slot_route,
                          __global uint *deliv, uint slots, uint parity, __global uint *seen,
                          __global entry_t *out, uint capacity, uint out_word,
                          __global uint *spill, __constant const flood_params *prm, long T,
                          __global const ulong2 *cap_thr, __global const ulong *node_drop,
                          __global uint *scheme_state, __global uint *pend, uint pend_cap,
                          uint pend_word, __local ulong *l_red, RES_LINK_ARGS)
{
    uint n = prm->nodes, capacity_m = prm->capacity_m;
    res_window rw = {T, prm->L, prm->start, prm->interval, slot_packet, slot_time, slot_route,
                     costs};
    window_params w = params_window(prm, T, node_drop);
    w.deliv = deliv + (size_t)parity * slots * DELIV_WORDS;
    res_rx x;
    x.rw = rw;
    x.w = w;
    x.ctl = ctl;
    x.seen = seen;
    x.spill = spill;
    x.alive = (__global uint *)ctl + CTL_WORDS;
    x.out = out;
    x.out_word = out_word;
    x.capacity = capacity;
    x.stamp = stamp;
    x.pos = pos;
    x.scheme_state = scheme_state;
    x.n = n;
    x.near2 = prm->near2;
    x.range2 = prm->range2;
    x.side = prm->side;
    x.nx = prm->nx;
    x.ny = prm->ny;
    x.nz = prm->nz;
    x.pl.items = pend + (size_t)parity * pend_cap;
    x.pl.cap = pend_cap;
    x.pl.word = pend_word;
    ulong sums[RES_SUMS] = {0, 0, 0, 0, 0, 0};
    /* a run of consecutive nodes per work-item (one each when the launch covers them all) */
    uint per = (uint)((n + get_global_size(0) - 1) / get_global_size(0));
    uint j0 = (uint)get_global_id(0) * per, j1 = min(n, j0 + per);
    for (uint j = j0; j < j1; j++)
        if (reached[j] == stamp)
            res_take(&x, j, capacity_m, head, ent, energy, death, sums, RES_LINK_PASS, cap_thr);
    res_flush(sums, l_red, ctl);
}

/* The transmitters' lists emptied for the next window. */
__kernel void res_reset(volatile __global uint *ctl, uint parity, __global uint *head,
                        __global const uint *txnodes)
{
    uint n = ctl[CTL_RES_TXN + parity];
    for (uint g = (uint)get_global_id(0); g < n; g += (uint)get_global_size(0))
        head[txnodes[g]] = RES_NONE;
}
