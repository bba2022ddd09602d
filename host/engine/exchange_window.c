/* The windowed form of the core's exchange (exchange_window.h). */
#include <stdlib.h>
#include <string.h>

#include "dist/dist.h"
#include "engine/exchange_window.h"
#include "report/report.h"

static int stage_quiet(exchange_window_place *p, exchange_stage *s, cn_error *err)
{
    int rc = 0;
    for (int i = 0; i < s->n_writes; i++) {
        if (!rc)
            rc = cl_check(clWaitForEvents(1, &s->writes[i]),
                          "clWaitForEvents(records between devices)", p->dev->info.name, err);
        clReleaseEvent(s->writes[i]);
    }
    s->n_writes = 0;
    return rc;
}

/* Room for N records in stage S, its first KEEP kept; quiet first. */
static int stage_reserve(exchange_window *xw, exchange_window_place *p, exchange_stage *s,
                         uint32_t n, uint32_t keep, cn_error *err)
{
    if (n <= s->cap)
        return 0;
    int rc = stage_quiet(p, s, err);
    uint64_t cap = (uint64_t)n + n / 2 + xw->stage_slack;
    if (cap > 0xffffffffu)
        cap = 0xffffffffu;
    cl_mem mem = NULL;
    unsigned char *map = rc ? NULL : host_area_alloc(p->dev, (size_t)cap * xw->record_bytes, &mem);
    if (!rc && !map)
        rc = cn_fail(err, CN_ERR_RUNTIME, "out of host memory for %u records between devices",
                     n);
    if (rc)
        return rc;
    if (keep && s->map)
        memcpy(map, s->map, (size_t)keep * xw->record_bytes);
    host_area_free(p->dev, s->mem, s->map);
    s->mem = mem;
    s->map = map;
    s->cap = (uint32_t)cap;
    return 0;
}

int exchange_window_init(exchange_window *xw, size_t record_bytes, device_ctx *const *devs,
                         int n, dbuf_account *acc, exchange_window_sink sink, cn_error *err)
{
    memset(xw, 0, sizeof *xw);
    if (n < 0 || n > ENGINE_MAX_DEVICES)
        return cn_fail(err, CN_ERR_RUNTIME, "internal error: %d places for the exchange", n);
    xw->record_bytes = record_bytes;
    xw->n_places = n;
    xw->acc = acc;
    xw->sink = sink;
    xw->guess_limit = 0xffffffffu;
    xw->stage_slack = 1024;
    const char *hook = getenv("CLNETSIM_TEST_EXCHANGE_GUESS");
    if (hook && *hook) {
        char *end;
        unsigned long k = strtoul(hook, &end, 10);
        if (*end == '\0' && k > 0 && k < 0x7fffffffUL)
            xw->guess_limit = xw->stage_slack = (uint32_t)k;
    }
    for (int i = 0; i < n; i++) {
        xw->place[i].dev = devs[i];
        for (int b = 0; b < 2; b++)
            xw->place[i].stage[b].spec_window = -1;
    }
    return exchange_local_transport(&xw->transport, record_bytes, n, err);
}

void exchange_window_drop(exchange_window *xw, int place)
{
    exchange_window_place *p = &xw->place[place];
    if (!p->dev)
        return;
    clFinish(p->dev->queue); /* its reads into the stages */
    for (int b = 0; b < 2; b++) {
        exchange_stage *s = &p->stage[b];
        cn_error ignored = {0};
        (void)stage_quiet(p, s, &ignored);
        host_area_free(p->dev, s->mem, s->map);
        memset(s, 0, sizeof *s);
        s->spec_window = -1;
    }
    dbuf_release(&p->area, xw->acc);
    p->cap = 0;
    p->dev = NULL;
}

/* The writes from the other ranks' records, waited for before their buffer is reused. */
static int remote_quiet(exchange_window *xw, cn_error *err)
{
    int rc = 0;
    for (int i = 0; i < xw->n_rwrites; i++) {
        if (!rc)
            rc = cl_check(clWaitForEvents(1, &xw->rwrites[i]),
                          "clWaitForEvents(records between ranks)", "a device of this rank",
                          err);
        clReleaseEvent(xw->rwrites[i]);
    }
    xw->n_rwrites = 0;
    return rc;
}

void exchange_window_release(exchange_window *xw)
{
    cn_error ignored = {0};
    (void)remote_quiet(xw, &ignored);
    free(xw->rbuf);
    free(xw->sbuf);
    xw->rbuf = xw->sbuf = NULL;
    xw->rbuf_cap = xw->sbuf_cap = 0;
    for (int i = 0; i < xw->n_places; i++)
        exchange_window_drop(xw, i);
    if (xw->transport.destroy)
        xw->transport.destroy(xw->transport.self);
    xw->transport.destroy = NULL;
}

int exchange_window_reserve(exchange_window *xw, int place, uint32_t cap, cn_error *err)
{
    exchange_window_place *p = &xw->place[place];
    if (cap <= p->cap && p->area.mem)
        return 0;
    dbuf_release(&p->area, xw->acc);
    p->cap = 0;
    int rc = dbuf_alloc(p->dev, &p->area, (size_t)(cap ? cap : 1) * xw->record_bytes, xw->acc,
                        "exported records", err);
    if (!rc)
        p->cap = cap;
    return rc;
}

const dbuf *exchange_window_area(const exchange_window *xw, int place)
{
    return &xw->place[place].area;
}

uint32_t exchange_window_capacity(const exchange_window *xw, int place)
{
    return xw->place[place].cap;
}

int exchange_window_post(exchange_window *xw, int64_t w, int place, uint32_t bound,
                         cn_error *err)
{
    exchange_window_place *p = &xw->place[place];
    exchange_stage *s = &p->stage[w & 1];
    /* as many as it exported last time and as much again: rarely too few, and the rest is
     * read once their number is known */
    uint64_t guess = 2 * (uint64_t)p->last + 1024;
    if (guess > bound)
        guess = bound;
    if (guess > xw->guess_limit)
        guess = xw->guess_limit;
    if (guess > p->cap)
        guess = p->cap;
    s->spec_window = -1;
    int rc = stage_quiet(p, s, err);
    if (!rc)
        rc = stage_reserve(xw, p, s, (uint32_t)guess, 0, err);
    if (!rc && guess > 0) {
        cl_int st = clEnqueueReadBuffer(p->dev->queue, p->area.mem, CL_FALSE, 0,
                                        (size_t)guess * xw->record_bytes, s->map, 0, NULL, NULL);
        if (st != CL_SUCCESS)
            rc = cl_check(st, "clEnqueueReadBuffer(exported records)", p->dev->info.name, err);
    }
    if (!rc) {
        s->spec = (uint32_t)guess;
        s->spec_window = w;
    }
    return rc;
}

/* The records of window W's exports that PLACE's post did not read: queued, not waited for.
 * Sets *QUEUED when it queued a read. */
static int read_rest(exchange_window *xw, int64_t w, int place, uint32_t count, int *queued,
                     cn_error *err)
{
    exchange_window_place *p = &xw->place[place];
    exchange_stage *s = &p->stage[w & 1];
    uint32_t have = s->spec_window == w ? (s->spec < count ? s->spec : count) : 0;
    *queued = 0;
    if (count > p->cap)
        return cn_fail(err, CN_ERR_RUNTIME, "internal error: device '%s' exported %u records, "
                       "beyond the %u its area holds", p->dev->info.name, count, p->cap);
    /* not read with the model's read-back: the last writes from the stage must be done */
    int rc = s->spec_window == w ? 0 : stage_quiet(p, s, err);
    if (!rc && count > have) {
        rc = stage_reserve(xw, p, s, count, have, err);
        if (!rc)
            rc = dbuf_read(p->dev, &p->area, (size_t)have * xw->record_bytes,
                           (size_t)(count - have) * xw->record_bytes,
                           s->map + (size_t)have * xw->record_bytes, 0, err);
        *queued = 1;
    }
    s->spec_window = -1;
    p->last = count;
    return rc;
}

/* Writes the batches that arrived for PLACE into its model's area, after its OWN records. */
static int deliver_after(exchange_window *xw, int64_t w, int place, uint32_t own,
                         uint32_t *arrived, cn_error *err)
{
    exchange_window_place *p = &xw->place[place];
    const exchange_batch *b;
    size_t nb = 0;
    int rc = xw->transport.collect_sets(xw->transport.self, place, &b, &nb, err);
    uint64_t at[ENGINE_MAX_DEVICES];
    if (!rc && nb > ENGINE_MAX_DEVICES)
        rc = cn_fail(err, CN_ERR_RUNTIME, "internal error: %zu batches of records for one "
                     "device", nb);
    if (rc)
        return rc;
    uint64_t total = exchange_place_after(b, nb, own, at);
    /* then the other ranks' (several ranks), after them */
    uint64_t rat[64] = {0};
    for (size_t i = 0; i < xw->n_remote; i++) {
        rat[i] = total;
        total += xw->remote[i].n;
    }
    cl_mem area = NULL;
    rc = xw->sink.make_room(xw->sink.ctx, place, total, &area, err);
    for (size_t i = 0; i < nb + xw->n_remote && !rc; i++) {
        const exchange_batch *bi = i < nb ? &b[i] : &xw->remote[i - nb];
        size_t to = (size_t)(i < nb ? at[i] : rat[i - nb]);
        /* the write reads the origin's stage (or the ranks' buffer): its event guards the
         * reuse */
        cl_event *ev;
        if (i < nb) {
            exchange_stage *s = &xw->place[bi->from].stage[w & 1];
            ev = &s->writes[s->n_writes];
        } else {
            ev = &xw->rwrites[xw->n_rwrites];
        }
        cl_int st = clEnqueueWriteBuffer(p->dev->queue, area, CL_FALSE, to * xw->record_bytes,
                                         bi->n * xw->record_bytes, bi->rec, 0, NULL, ev);
        if (st != CL_SUCCESS)
            rc = cl_check(st, "clEnqueueWriteBuffer(records between devices)",
                          p->dev->info.name, err);
        else if (i < nb)
            xw->place[bi->from].stage[w & 1].n_writes++;
        else
            xw->n_rwrites++;
    }
    if (!rc)
        *arrived = (uint32_t)(total - own);
    return rc;
}

/* Every record of window W that SET's places exported on the host (read_rest, waited for). */
static int read_all(exchange_window *xw, int64_t w, uint32_t set, const uint32_t *count,
                    cn_error *err)
{
    int rc = 0;
    uint32_t waits = 0;
    /* what is not on the host yet: every read queued first, so that the devices copy at the
     * same time */
    for (int k = 0; k < xw->n_places && !rc; k++) {
        int queued = 0;
        if ((set >> k) & 1u)
            rc = read_rest(xw, w, k, count[k], &queued, err);
        waits |= (uint32_t)queued << k;
    }
    double t0 = wall_seconds();
    for (int k = 0; k < xw->n_places && !rc; k++)
        if ((waits >> k) & 1u)
            rc = cl_check(clFinish(xw->place[k].dev->queue), "clFinish(records between devices)",
                          xw->place[k].dev->info.name, err);
    xw->wait_s += wall_seconds() - t0;
    return rc;
}

/* Each place of SET posts its records for the others of SET, then writes what it collects
 * (and the other ranks' batches, xw->remote) after its own. */
static int post_and_deliver(exchange_window *xw, int64_t w, uint32_t set, const uint32_t *count,
                            const uint32_t *own, uint32_t *arrived, cn_error *err)
{
    int rc = 0;
    for (int k = 0; k < xw->n_places && !rc; k++)
        if ((set >> k) & 1u)
            rc = xw->transport.post_set(xw->transport.self, k, set, NULL,
                                        xw->place[k].stage[w & 1].map, count[k], err);
    for (int k = 0; k < xw->n_places && !rc; k++)
        if ((set >> k) & 1u)
            rc = deliver_after(xw, w, k, own[k], &arrived[k], err);
    return rc;
}

/* Room for BYTES in *BUF of *CAP bytes, its content not kept. */
static int room(unsigned char **buf, size_t *cap, size_t bytes, cn_error *err)
{
    if (bytes <= *cap && *buf)
        return 0;
    size_t want = bytes + bytes / 2 + 1;
    free(*buf);
    *buf = malloc(want);
    *cap = *buf ? want : 0;
    return *buf ? 0 : cn_fail(err, CN_ERR_RUNTIME, "out of host memory for %zu bytes of "
                              "records between ranks", bytes);
}

int exchange_window_carry_ranks(exchange_window *xw, int64_t w, uint32_t set,
                                const uint32_t *count, const uint32_t *own, uint32_t *arrived,
                                cn_error *err)
{
    int ranks = dist_size(), me = dist_rank();
    if (ranks > 64)
        return cn_fail(err, CN_ERR_RUNTIME, "records for sets of places are carried between at "
                       "most 64 MPI ranks, not %d", ranks);
    int rc = remote_quiet(xw, err);
    if (!rc)
        rc = read_all(xw, w, set, count, err);
    /* this rank's records, its places' in order, and every rank's count (a failure here
     * still takes part: its count says so, and every rank fails alike) */
    uint64_t mine = 0;
    for (int k = 0; k < xw->n_places; k++)
        if ((set >> k) & 1u)
            mine += count[k];
    if (!rc)
        rc = room(&xw->sbuf, &xw->sbuf_cap, (size_t)mine * xw->record_bytes, err);
    uint64_t n[64], said = rc ? UINT64_MAX : mine;
    int crc = dist_allgather(&said, n, sizeof said, err);
    if (crc)
        return crc;
    for (int r = 0; r < ranks; r++)
        if (n[r] == UINT64_MAX)
            return rc ? rc : DIST_PEER_FAILED;
    size_t at = 0;
    for (int k = 0; k < xw->n_places; k++)
        if ((set >> k) & 1u) {
            size_t b = (size_t)count[k] * xw->record_bytes;
            if (b)
                memcpy(xw->sbuf + at, xw->place[k].stage[w & 1].map, b);
            at += b;
        }
    uint64_t sum = 0;
    for (int r = 0; r < ranks; r++)
        sum += n[r];
    rc = room(&xw->rbuf, &xw->rbuf_cap, (size_t)sum * xw->record_bytes, err);
    if (rc) /* the others wait in the gather: no way back */
        return rc;
    rc = dist_allgatherv(xw->sbuf, n, xw->record_bytes, xw->rbuf, err);
    xw->n_remote = 0;
    size_t off = 0;
    for (int r = 0; r < ranks && !rc; r++) {
        if (r != me && n[r] > 0)
            xw->remote[xw->n_remote++] = (exchange_batch){-1, NULL,
                                                          xw->rbuf + off * xw->record_bytes,
                                                          (size_t)n[r]};
        off += (size_t)n[r];
    }
    xw->sent_records += mine;
    if (!rc)
        rc = post_and_deliver(xw, w, set, count, own, arrived, err);
    xw->n_remote = 0;
    return rc;
}

int exchange_window_carry(exchange_window *xw, int64_t w, uint32_t set, const uint32_t *count,
                          const uint32_t *own, uint32_t *arrived, cn_error *err)
{
    int rc = read_all(xw, w, set, count, err);
    return rc ? rc : post_and_deliver(xw, w, set, count, own, arrived, err);
}
