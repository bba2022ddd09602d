#!/usr/bin/env python3
"""A plain reference of the Kademlia model (docs/models/kademlia.md).

It follows the model's text step by step and shares nothing with the simulator: its own
Philox4x32-10 (philox_reference.py), routing tables made by comparing every pair of peers (not the sorted ids), and
the whole shortlist of every lookup (not only its k closest). The run goes window by window as
a parallel engine would: with Tmin the least pending time, every peer runs, in its own
(t, i, n, r) order, its events with t < min(Tmin + l_min, T) (a message lands at least l_min
later, outside the window; a peer's next start may fall inside it, and runs there). Slow
(quadratic in the peers), so only for small networks.

With churn (S > 0, the model's "Churn") peers go offline and come back: each peer's periods
are computed up to T before the run, every departure before T is an entry of its peer's queue
that fails its open lookups, and an offline peer runs nothing.

usage: kademlia_reference.py SEED PEERS ID_BITS K ALPHA GAP_MAX_NS LAT_MIN_NS LAT_MAX_NS
                             DURATION_NS random|peers [--churn S_NS O_NS R_NS]
                             [--lookups FILE.csv]
prints the JSON object of the model's outputs.
"""
import bisect
import heapq
import json
import sys

from philox_reference import philox4x32_10
from phold_reference import exp_table  # the churn's periods: PHOLD's table of quantiles

MASK32 = 0xFFFFFFFF
START, REQUEST, RESPONSE, TIMEOUT, LEAVE = 0, 1, 2, 3, 4
FRESH, ASKED, ANSWERED, FAILED = 0, 1, 2, 3



def first_bits(words, bits):
    """The first BITS bits of the words, each most significant bit first."""
    v = 0
    for w in words:
        v = (v << 32) | w
    return v >> (32 * len(words) - bits)


def ids_of(key, n, bits):
    """The peers' ids, in index order, each its first attempt that no earlier peer holds; and
    the number of redraws."""
    taken, ids, redraws = set(), [], 0
    for i in range(n):
        a = 0
        while True:
            x = first_bits(philox4x32_10((i, a, 40, 0), key) + philox4x32_10((i, a, 40, 1), key),
                           bits)
            if x not in taken:
                break
            a += 1
        redraws += a
        taken.add(x)
        ids.append(x)
    return ids, redraws


class Model:
    def __init__(self, seed, n, bits, k, alpha, gap_max, lat_min, lat_max, t_end, targets,
                 churn=(0, 0, 0)):
        self.key = (seed & MASK32, seed >> 32)
        self.n, self.bits, self.k, self.alpha = n, bits, k, alpha
        self.gap_max, self.lat_min, self.lat_max, self.t_end = gap_max, lat_min, lat_max, t_end
        self.targets = targets
        self.session, self.offline, self.timeout = churn
        self.ids = self.make_ids()
        self.tables = self.make_tables()
        self.bounds = self.make_periods()
        self.lookups = {}
        self.rows = []
        self.out = dict(lookups_started=0, lookups_completed=0, lookups_failed=0,
                        lookups_found=0, messages=0, events=0, hops=[], latencies=[],
                        last_time_ns=0)

    def draw(self, a, b, stream, d):
        return philox4x32_10((a, b, stream, d), self.key)

    def make_ids(self):
        return ids_of(self.key, self.n, self.bits)[0]

    def make_tables(self):
        """Bucket b of peer i: the peers whose distance has its highest bit at b, the k closest."""
        tables = []
        for i in range(self.n):
            buckets = {}
            for j in range(self.n):
                if j != i:
                    d = self.ids[i] ^ self.ids[j]
                    buckets.setdefault(d.bit_length() - 1, []).append((d, j))
            table = []
            for b in buckets.values():
                table += [j for _, j in sorted(b)[:self.k]]
            tables.append(table)
        return tables

    def make_periods(self):
        """Each peer's period boundaries b_1, b_2, ... up to the first past T (b_0 = 0: online
        from 0); none without churn."""
        if self.session == 0:
            return [[] for _ in range(self.n)]
        tables = (exp_table(self.session), exp_table(self.offline))
        bounds = []
        for i in range(self.n):
            b, p, mine = 0, 0, []
            while b <= self.t_end:
                w = self.draw(i, p, 45, 0)
                b += max(1, tables[p % 2][w[0] >> 16])
                mine.append(b)
                p += 1
            bounds.append(mine)
        return bounds

    def online(self, i, t):
        """Whether peer i is online at t: an even number of boundaries at or before t."""
        return bisect.bisect_right(self.bounds[i], t) % 2 == 0

    def closest(self, peers, x):
        return sorted(peers, key=lambda j: self.ids[j] ^ x)[:self.k]

    def latency(self, a, b):
        w = self.draw(min(a, b), max(a, b), 44, 0)
        return self.lat_min + ((w[0] * (self.lat_max - self.lat_min + 1)) >> 32)

    def lookup_draw(self, i, n):
        """(gap, target) of peer i's n-th lookup."""
        w = self.draw(i, n & MASK32, 41, n >> 32)
        gap = (((w[1] << 32) | w[0]) * (self.gap_max + 1)) >> 64
        if self.targets == "peers":
            p = (i + 1 + ((w[2] * (self.n - 1)) >> 32)) % self.n
            return gap, self.ids[p], p
        x = first_bits(self.draw(i, n & MASK32, 42, n >> 32) + self.draw(i, n & MASK32, 43, n >> 32),
                       self.bits)
        return gap, x, None

    # ---- events -----------------------------------------------------------------------
    def send(self, t, to, i, n, r, kind, payload):
        self.out["messages"] += kind in (REQUEST, RESPONSE)
        heapq.heappush(self.queues[to], (t, i, n, r, kind, payload))

    def start(self, t, i, n):
        self.out["lookups_started"] += 1
        gap_next, _, _ = self.lookup_draw(i, n + 1)
        self.send(t + gap_next, i, i, n + 1, -1, START, None)
        _, x, p = self.lookup_draw(i, n)
        lk = dict(x=x, target=p, start=t, f=0, m=0, ended=None, hops=-1,
                  L={c: [FRESH, 1] for c in self.closest(self.tables[i], x)})
        self.lookups[(i, n)] = lk
        self.go_on(t, i, n, lk)

    def request(self, t, c, i, n, m, payload):
        x, h = payload
        self.send(t + self.latency(c, i), i, i, n, m, RESPONSE,
                  (c, self.closest(self.tables[c], x), h))

    def response(self, t, i, n, payload):
        lk = self.lookups[(i, n)]
        if lk["ended"] is not None:
            return
        c, q_list, h = payload
        lk["f"] -= 1
        lk["L"][c][0] = ANSWERED
        for q in q_list:
            if q != i and q not in lk["L"]:
                lk["L"][q] = [FRESH, h + 1]
        self.go_on(t, i, n, lk)

    def timed_out(self, t, i, n, c):
        lk = self.lookups[(i, n)]
        if lk["ended"] is not None:
            return
        lk["f"] -= 1
        lk["L"][c][0] = FAILED
        self.go_on(t, i, n, lk)

    def end(self, lk, outcome, t):
        lk["ended"], lk["end"] = outcome, t
        self.out["lookups_" + outcome] += 1

    def go_on(self, t, i, n, lk):
        top = self.closest(lk["L"].keys(), lk["x"])
        if not any(lk["L"][c][0] in (FRESH, ASKED) for c in top):
            answered = [c for c in top if lk["L"][c][0] == ANSWERED]
            if not answered:
                self.end(lk, "failed", t)
                return
            self.end(lk, "completed", t)
            lk["hops"] = lk["L"][answered[0]][1]
            self.out["hops"].append(lk["hops"])
            self.out["latencies"].append(t - lk["start"])
            p = lk["target"]
            if p is not None and p in lk["L"] and lk["L"][p][0] == ANSWERED:
                self.out["lookups_found"] += 1
                lk["found"] = 1
            return
        while lk["f"] < self.alpha:
            fresh = [c for c in top if lk["L"][c][0] == FRESH]
            if not fresh:
                break
            c = fresh[0]
            lk["L"][c][0] = ASKED
            self.send(t + self.latency(i, c), c, i, n, lk["m"], REQUEST, (lk["x"], lk["L"][c][1]))
            lk["m"] += 1
            lk["f"] += 1

    def leave(self, t, i):
        """Peer i goes offline at t: its lookups that have not ended fail there."""
        for (j, n), lk in sorted(self.lookups.items()):
            if j == i and lk["ended"] is None:
                self.end(lk, "failed", t)

    def execute(self, peer, ev):
        t, i, n, r, kind, payload = ev
        if kind == LEAVE:
            self.leave(t, peer)
            return
        if not self.online(peer, t):
            # nothing runs at an offline peer; a request brings its initiator a timeout
            if kind == REQUEST:
                sent = t - self.latency(i, peer)
                self.send(sent + self.timeout, i, i, n, r, TIMEOUT, peer)
            elif kind == START:  # not started; the next start still comes
                gap_next, _, _ = self.lookup_draw(i, n + 1)
                self.send(t + gap_next, i, i, n + 1, -1, START, None)
            return
        self.out["events"] += 1
        self.out["last_time_ns"] = max(self.out["last_time_ns"], t)
        if kind == START:
            self.start(t, i, n)
        elif kind == REQUEST:
            self.request(t, peer, i, n, r, payload)
        elif kind == RESPONSE:
            self.response(t, i, n, payload)
        else:
            self.timed_out(t, i, n, payload)

    def run(self, one_queue=False):
        """Window by window; ONE_QUEUE: every event of every peer in one global order instead
        (t, peer, i, n, r), another schedule that must give the same results."""
        self.queues = [[] for _ in range(self.n)]
        for i in range(self.n):
            gap, _, _ = self.lookup_draw(i, 0)
            heapq.heappush(self.queues[i], (gap, i, 0, -1, START, None))
            for b in self.bounds[i][0::2]:  # departures: b_1, b_3, ...
                if b < self.t_end:
                    heapq.heappush(self.queues[i], (b, i, -1, -2, LEAVE, None))
        while one_queue:
            peer = min((p for p in range(self.n) if self.queues[p]),
                       key=lambda p: (self.queues[p][0][0], p), default=None)
            if peer is None or self.queues[peer][0][0] >= self.t_end:
                return self.results()
            self.execute(peer, heapq.heappop(self.queues[peer]))
        while True:
            tmin = min((q[0][0] for q in self.queues if q), default=None)
            if tmin is None or tmin >= self.t_end:
                break
            limit = min(tmin + self.lat_min, self.t_end)
            for peer in range(self.n):
                q = self.queues[peer]
                while q and q[0][0] < limit:
                    self.execute(peer, heapq.heappop(q))
        return self.results()

    def results(self):
        o, hops, lat = self.out, self.out["hops"], self.out["latencies"]
        hist_h = [0] * 32
        for h in hops:
            hist_h[min(h, 32) - 1] += 1
        hist_l = [0] * 64
        for v in lat:
            hist_l[min(v // self.lat_min, 63)] += 1
        return {
            "model": "kademlia", "peers": self.n, "id_bits": self.bits,
            "bucket_size": self.k, "alpha": self.alpha,
            "lookups_started": o["lookups_started"], "lookups_completed": o["lookups_completed"],
            "lookups_failed": o["lookups_failed"], "lookups_found": o["lookups_found"],
            "messages": o["messages"], "events": o["events"],
            "hops_sum": sum(hops), "hops_min": min(hops, default=0),
            "hops_max": max(hops, default=0),
            "latency_sum_ns": sum(lat), "latency_min_ns": min(lat, default=0),
            "latency_max_ns": max(lat, default=0),
            "hops_histogram": hist_h, "latency_histogram": hist_l,
            "peers_alive": sum(self.online(i, self.t_end) for i in range(self.n)),
            "last_time_ns": o["last_time_ns"],
        }

    def lookup_rows(self):
        digits = (self.bits + 3) // 4
        for (i, n) in sorted(self.lookups):
            lk = self.lookups[(i, n)]
            outcome = lk["ended"] or "open"
            end = lk["end"] if lk["ended"] else -1
            yield "%d,%d,%d,%0*x,%s,%d,%d,%d,%d" % (i, n, lk["start"], digits, lk["x"], outcome,
                                                   end, lk["hops"], lk["m"], lk.get("found", 0))


def main(argv):
    if len(argv) < 11 or argv[10] not in ("random", "peers"):
        sys.exit(__doc__)
    seed, n, bits, k, alpha, gap, lmin, lmax, dur = (int(a) for a in argv[1:10])
    rest, churn, rows = argv[11:], (0, 0, 0), None
    while rest:
        if rest[0] == "--churn" and len(rest) >= 4:
            churn, rest = tuple(int(a) for a in rest[1:4]), rest[4:]
        elif rest[0] == "--lookups" and len(rest) >= 2:
            rows, rest = rest[1], rest[2:]
        else:
            sys.exit(__doc__)
    m = Model(seed, n, bits, k, alpha, gap, lmin, lmax, dur, argv[10], churn)
    out = m.run()
    print(json.dumps({"model": out.pop("model"), "seed": seed, **out}))
    if rows:
        with open(rows, "w", encoding="ascii") as f:
            f.write("origin,number,start_ns,target,outcome,end_ns,hops,requests,found\n")
            for row in m.lookup_rows():
                f.write(row + "\n")


if __name__ == "__main__":
    main(sys.argv)
