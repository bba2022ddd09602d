/* The windowed form of the core's exchange (exchange_window.h). */
#include <stdlib.h>
#include <string.h>

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

void exchange_window_release(exchange_window *xw)
{
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
    cl_mem area = NULL;
    rc = xw->sink.make_room(xw->sink.ctx, place, total, &area, err);
    for (size_t i = 0; i < nb && !rc; i++) {
        /* the write reads the origin's stage: its event guards the stage's reuse */
        exchange_stage *s = &xw->place[b[i].from].stage[w & 1];
        cl_int st = clEnqueueWriteBuffer(p->dev->queue, area, CL_FALSE,
                                         (size_t)at[i] * xw->record_bytes,
                                         b[i].n * xw->record_bytes, b[i].rec, 0, NULL,
                                         &s->writes[s->n_writes]);
        if (st != CL_SUCCESS)
            rc = cl_check(st, "clEnqueueWriteBuffer(records between devices)",
                          p->dev->info.name, err);
        else
            s->n_writes++;
    }
    if (!rc)
        *arrived = (uint32_t)(total - own);
    return rc;
}

int exchange_window_carry(exchange_window *xw, int64_t w, uint32_t set, const uint32_t *count,
                          const uint32_t *own, uint32_t *arrived, cn_error *err)
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
    for (int k = 0; k < xw->n_places && !rc; k++)
        if ((set >> k) & 1u)
            rc = xw->transport.post_set(xw->transport.self, k, set, NULL,
                                        xw->place[k].stage[w & 1].map, count[k], err);
    for (int k = 0; k < xw->n_places && !rc; k++)
        if ((set >> k) & 1u)
            rc = deliver_after(xw, w, k, own[k], &arrived[k], err);
    return rc;
}
