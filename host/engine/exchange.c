/* The core's exchange of records between partitions on different devices (exchange.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dist/dist.h"
#include "engine/exchange.h"
#include "dist/dist_stream.h"

static void *pinned_alloc(void *ctx, size_t bytes, void **handle);
static void pinned_release(void *ctx, void *handle, void *area);

uint64_t exchange_device_bytes(size_t record_bytes, uint32_t capacity, uint32_t n_parts)
{
    return 3 * ((uint64_t)record_bytes + 4) * capacity + 4 * XCH_WORDS + n_parts;
}

uint32_t exchange_grown_capacity(uint32_t cap)
{
    uint64_t c = 2 * (uint64_t)cap;
    return c > XCH_MAX_CAPACITY ? XCH_MAX_CAPACITY : c == 0 ? 1 : (uint32_t)c;
}

static int alloc_areas(exchange *ex, exchange_device *d, uint32_t cap, cn_error *err)
{
    size_t rb = ex->cfg.record_bytes;
    dbuf *rec[] = {&d->out_rec, &d->def_rec, &d->x_rec};
    dbuf *dest[] = {&d->out_dest, &d->def_dest, &d->x_dest};
    static const char *const what[] = {"exchange outbox", "exchange deferred records",
                                       "exchange exports"};
    int rc = 0;
    for (int a = 0; a < 3 && rc == 0; a++) {
        rc = dbuf_alloc(d->dev, rec[a], rb * cap, ex->acc, what[a], err);
        if (!rc)
            rc = dbuf_alloc(d->dev, dest[a], 4 * (size_t)cap, ex->acc, what[a], err);
    }
    if (!rc)
        d->cap = cap;
    return rc;
}

static void release_areas(exchange *ex, exchange_device *d)
{
    dbuf *bufs[] = {&d->out_rec, &d->out_dest, &d->def_rec, &d->def_dest, &d->x_rec,
                    &d->x_dest};
    for (size_t b = 0; b < sizeof bufs / sizeof bufs[0]; b++)
        dbuf_release(bufs[b], ex->acc);
}

int exchange_init(exchange *ex, const exchange_config *cfg, device_ctx *const *devs, int n_devs,
                  dbuf_account *acc, cn_error *err)
{
    memset(ex, 0, sizeof *ex);
    ex->cfg = *cfg;
    ex->n_devs = n_devs;
    ex->acc = acc;
    int ranks = cfg->rank && dist_size() > 1;
    ex->router = (exchange_router){.record_bytes = cfg->record_bytes, .span = cfg->span,
                                   .n_parts = cfg->n_parts, .n_places = n_devs,
                                   .home = cfg->home, .model = cfg->model,
                                   .rank = ranks ? cfg->rank : NULL, .my_rank = dist_rank(),
                                   .n_ranks = dist_size()};
    if (!ranks)
        ex->router.my_rank = 0;
    dist_host_memory pinned = {n_devs > 0 ? devs[0] : NULL, pinned_alloc, pinned_release};
    int rc = ranks ? exchange_rank_transport(&ex->transport, cfg->record_bytes, n_devs, &pinned,
                                             err)
                   : exchange_local_transport(&ex->transport, cfg->record_bytes, n_devs, err);
    /* Streams on ranks of one device (two devices in one process streaming their exports to
     * each other stalled once on two GPUs, cause not found: they exchange at the window's
     * end); the test hook CLNETSIM_TEST_NO_STREAM=1 keeps every export for the window's end */
    const char *no_stream = getenv("CLNETSIM_TEST_NO_STREAM");
    ex->streaming = ranks && n_devs == 1 && !(no_stream && strcmp(no_stream, "1") == 0);
    /* a minute; the test hook CLNETSIM_TEST_WAIT_WARN=S: S seconds */
    const char *warn = getenv("CLNETSIM_TEST_WAIT_WARN");
    ex->wait_warn_s = warn && *warn ? strtod(warn, NULL) : 60;
    unsigned char *here = rc ? NULL : calloc(cfg->n_parts ? cfg->n_parts : 1, 1);
    if (!rc && !here)
        rc = cn_fail(err, CN_ERR_RUNTIME, "out of host memory");
    for (int i = 0; i < n_devs && rc == 0; i++) {
        exchange_device *d = &ex->dev[i];
        d->dev = devs[i];
        rc = alloc_areas(ex, d, cfg->capacity, err);
        if (!rc)
            rc = dbuf_alloc(d->dev, &d->ctl, 4 * XCH_WORDS, acc, "exchange control", err);
        if (!rc)
            rc = dbuf_alloc(d->dev, &d->here, cfg->n_parts, acc, "exchange partition map", err);
        for (uint32_t p = 0; p < cfg->n_parts; p++)
            here[p] = cfg->home(cfg->model, (int)p) == i;
        if (!rc) /* blocking: HERE is reused for the next device */
            rc = dbuf_write(d->dev, &d->here, 0, cfg->n_parts, here, 1, err);
        if (!rc)
            rc = dbuf_zero(d->dev, &d->ctl, 0, d->ctl.bytes, err);
        if (!rc && ex->streaming) {
            cl_int st;
            d->copy_queue = clCreateCommandQueue(d->dev->context, d->dev->info.id, 0, &st);
            rc = cl_check(st, "clCreateCommandQueue", d->dev->info.name, err);
        }
    }
    free(here);
    return rc;
}

static void release_stream_areas(exchange_device *d)
{
    if (d->sdest)
        host_area_free(d->dev, d->sdest_mem, d->sdest);
    if (d->srec)
        host_area_free(d->dev, d->srec_mem, d->srec);
    d->sdest = NULL;
    d->srec = NULL;
    d->scap = 0;
}

void exchange_release(exchange *ex)
{
    for (size_t i = 0; i < ex->n_segs; i++)
        clReleaseEvent(ex->segs[i]->ev);
    for (size_t i = 0; i < ex->cap_segs; i++)
        free(ex->segs[i]);
    free(ex->segs);
    ex->segs = NULL;
    ex->n_segs = ex->cap_segs = 0;
    for (int i = 0; i < ex->n_devs; i++) {
        release_areas(ex, &ex->dev[i]);
        dbuf_release(&ex->dev[i].ctl, ex->acc);
        dbuf_release(&ex->dev[i].here, ex->acc);
    }
    if (ex->transport.destroy) /* completes what it still sends from the stream areas */
        ex->transport.destroy(ex->transport.self);
    ex->transport.destroy = NULL;
    for (int i = 0; i < ex->n_devs; i++) {
        release_stream_areas(&ex->dev[i]);
        if (ex->dev[i].copy_queue)
            clReleaseCommandQueue(ex->dev[i].copy_queue);
        ex->dev[i].copy_queue = NULL;
    }
    exchange_router_free(&ex->router);
    free(ex->stage_dest);
    free(ex->stage_rec);
    ex->stage_dest = NULL;
    ex->stage_rec = NULL;
    ex->stage_cap = 0;
}

int exchange_single_home(const exchange *ex)
{
    if (ex->router.rank)
        return 0; /* partitions live on other ranks */
    int first = ex->cfg.n_parts ? ex->cfg.home(ex->cfg.model, 0) : 0;
    for (uint32_t p = 1; p < ex->cfg.n_parts; p++)
        if (ex->cfg.home(ex->cfg.model, (int)p) != first)
            return 0;
    return 1;
}

void exchange_clear_words(exchange *ex)
{
    for (int i = 0; i < ex->n_devs; i++)
        memset(ex->dev[i].words, 0, sizeof ex->dev[i].words);
}

int exchange_deliver(exchange *ex, int dev, cn_error *err)
{
    int rc = ex->cfg.consumer.consume(ex->cfg.consumer.ctx, dev, err);
    return rc ? rc : exchange_read_words(ex, dev, err);
}

int exchange_read_words(exchange *ex, int dev, cn_error *err)
{
    exchange_device *d = &ex->dev[dev];
    return dbuf_read(d->dev, &d->ctl, 0, sizeof d->words, d->words, 0, err);
}

int exchange_needs_more(const exchange *ex)
{
    for (int i = 0; i < ex->n_devs; i++) {
        const uint32_t *w = ex->dev[i].words;
        if (w[XCH_DEFER] || w[XCH_EXPORT] || w[XCH_STALLED])
            return 1;
        for (int m = XCH_MODEL; m < XCH_WORDS; m++)
            if (w[m])
                return 1;
    }
    return 0;
}

int exchange_reset(exchange *ex, int dev, cn_error *err)
{
    exchange_device *d = &ex->dev[dev];
    d->taken = 0;
    return dbuf_zero(d->dev, &d->ctl, 0, d->ctl.bytes, err);
}

int exchange_move_home(exchange *ex, int partition, int from, int to, cn_error *err)
{
    unsigned char zero = 0, one = 1;
    int rc = dbuf_write(ex->dev[from].dev, &ex->dev[from].here, (size_t)partition, 1, &zero, 1,
                        err);
    if (!rc) /* blocking: the bytes live on this stack */
        rc = dbuf_write(ex->dev[to].dev, &ex->dev[to].here, (size_t)partition, 1, &one, 1, err);
    return rc;
}

int exchange_partition_here(exchange *ex, int partition, int dev, int here, cn_error *err)
{
    unsigned char v = here != 0;
    /* blocking: the byte lives on this stack */
    return dbuf_write(ex->dev[dev].dev, &ex->dev[dev].here, (size_t)partition, 1, &v, 1, err);
}

static int finish(exchange_device *d, cn_error *err)
{
    return cl_check(clFinish(d->dev->queue), "clFinish", d->dev->info.name, err);
}

/* Not blocking: WORDS change next after a wait for the device, or a read of the control
 * block into them queued after the write. */
static int write_words(exchange_device *d, cn_error *err)
{
    return dbuf_write(d->dev, &d->ctl, 0, sizeof d->words, d->words, 0, err);
}

static int deliver_and_wait(exchange *ex, int dev, cn_error *err)
{
    int rc = exchange_deliver(ex, dev, err);
    return rc ? rc : finish(&ex->dev[dev], err);
}

/* Delivers DEV's deferred records again, after the model made room, until none is left. DEV's
 * control block is read (words) on entry. */
static int settle_deferred(exchange *ex, int dev, cn_error *err)
{
    exchange_device *d = &ex->dev[dev];
    int rc = 0;
    while (rc == 0 && d->words[XCH_DEFER] > 0) {
        uint32_t n = d->words[XCH_DEFER];
        rc = ex->cfg.consumer.make_room(ex->cfg.consumer.ctx, dev, n, err);
        cl_int st = CL_SUCCESS;
        if (!rc) {
            st = clEnqueueCopyBuffer(d->dev->queue, d->def_rec.mem, d->out_rec.mem, 0, 0,
                                     ex->cfg.record_bytes * n, 0, NULL, NULL);
            if (st == CL_SUCCESS)
                st = clEnqueueCopyBuffer(d->dev->queue, d->def_dest.mem, d->out_dest.mem, 0, 0,
                                         4 * (size_t)n, 0, NULL, NULL);
            rc = cl_check(st, "clEnqueueCopyBuffer", d->dev->info.name, err);
        }
        if (!rc) {
            d->words[XCH_OUT] = n;
            d->words[XCH_FROM] = 0;
            d->words[XCH_DEFER] = 0;
            rc = write_words(d, err);
        }
        if (!rc)
            rc = deliver_and_wait(ex, dev, err);
    }
    return rc;
}

static int deliver_and_settle(exchange *ex, int dev, cn_error *err)
{
    int rc = deliver_and_wait(ex, dev, err);
    return rc ? rc : settle_deferred(ex, dev, err);
}

static int grow_stage(exchange *ex, size_t need, cn_error *err)
{
    return exchange_records_reserve(&ex->stage_dest, &ex->stage_rec, NULL, &ex->stage_cap, need,
                                    ex->cfg.record_bytes, 4096, err);
}

/* Writes the records collected for DEV into its inbox (in chunks of its capacity) and has the
 * model consume each chunk there, deferred records included. LATER: the last chunk's
 * consumption is only enqueued, its words read back (exchange_settle_arrivals settles it). */
static int fill_inbox(exchange *ex, int dev, const uint32_t *dest, const unsigned char *rec,
                      size_t n, int later, cn_error *err)
{
    exchange_device *d = &ex->dev[dev];
    size_t rb = ex->cfg.record_bytes;
    int rc = 0;
    for (size_t off = 0; off < n && rc == 0; off += d->cap) {
        uint32_t chunk = n - off < d->cap ? (uint32_t)(n - off) : d->cap;
        rc = dbuf_write(d->dev, &d->out_rec, 0, rb * chunk, rec + rb * off, 0, err);
        if (!rc)
            rc = dbuf_write(d->dev, &d->out_dest, 0, 4 * (size_t)chunk, dest + off, 0, err);
        d->words[XCH_OUT] = chunk;
        d->words[XCH_FROM] = 0;
        d->words[XCH_EXPORT] = 0;
        d->taken = 0;
        if (!rc)
            rc = write_words(d, err);
        if (!rc && later && off + chunk == n) {
            rc = exchange_deliver(ex, dev, err);
            d->unsettled = 1;
        } else if (!rc) {
            rc = deliver_and_settle(ex, dev, err);
        }
    }
    return rc;
}

/* What the router posted for each device, written into its inbox and consumed there. */
static int fill_collected(exchange *ex, cn_error *err)
{
    int rc = 0;
    for (int i = 0; i < ex->n_devs && rc == 0; i++) {
        const uint32_t *dest;
        const void *rec;
        size_t n;
        rc = ex->transport.collect(ex->transport.self, i, &dest, &rec, &n, err);
        if (!rc && n)
            rc = fill_inbox(ex, i, dest, rec, n, 0, err);
    }
    return rc;
}

/* Carries every device's exports to the devices that hold their partitions: read to the
 * host, routed through the transport, collected per device into its inbox. */
static int carry(exchange *ex, cn_error *err)
{
    size_t total = 0;
    for (int i = 0; i < ex->n_devs; i++) /* those streamed already are on their way */
        total += ex->dev[i].words[XCH_EXPORT] - ex->dev[i].taken;
    if (total == 0)
        return 0;
    size_t rb = ex->cfg.record_bytes, at = 0;
    /* the stage and the router's arrays are written again below: a bundle for another rank
     * that references them from an earlier carry of this window takes a copy first */
    int rc = ex->transport.keep ? ex->transport.keep(ex->transport.self, err) : 0;
    if (!rc)
        rc = grow_stage(ex, total, err);
    for (int i = 0; i < ex->n_devs && rc == 0; i++) {
        exchange_device *d = &ex->dev[i];
        uint32_t first = d->taken, n = d->words[XCH_EXPORT] - first;
        d->words[XCH_EXPORT] = 0;
        d->taken = 0;
        if (n == 0)
            continue;
        rc = dbuf_read(d->dev, &d->x_rec, rb * first, rb * n, ex->stage_rec + rb * at, 0, err);
        if (!rc)
            rc = dbuf_read(d->dev, &d->x_dest, 4 * (size_t)first, 4 * (size_t)n,
                           ex->stage_dest + at, 1, err);
        at += n;
    }
    if (!rc)
        rc = exchange_route(&ex->router, ex->stage_dest, ex->stage_rec, total, &ex->transport,
                            err);
    ex->moved_bytes += (rb + 4) * (uint64_t)total;
    return rc ? rc : fill_collected(ex, err);
}

/* Runs DEV's stopped producers again on an outbox twice as large. */
static int redo_stalled(exchange *ex, int dev, cn_error *err)
{
    exchange_device *d = &ex->dev[dev];
    int rc = finish(d, err);
    if (!rc) {
        release_areas(ex, d);
        rc = alloc_areas(ex, d, exchange_grown_capacity(d->cap), err);
    }
    memset(d->words, 0, sizeof d->words);
    d->taken = 0;
    if (!rc)
        rc = write_words(d, err);
    if (!rc)
        rc = ex->cfg.consumer.redo(ex->cfg.consumer.ctx, dev, err);
    return rc ? rc : deliver_and_settle(ex, dev, err);
}

int exchange_settle(exchange *ex, cn_error *err)
{
    int rc = 0;
    for (int i = 0; i < ex->n_devs && rc == 0; i++)
        rc = settle_deferred(ex, i, err);
    for (int again = 1; again && rc == 0;) {
        rc = carry(ex, err);
        again = 0;
        for (int i = 0; i < ex->n_devs && rc == 0; i++) {
            exchange_device *d = &ex->dev[i];
            if (ex->cfg.consumer.check)
                rc = ex->cfg.consumer.check(ex->cfg.consumer.ctx, i, d->words, err);
            if (!rc && d->words[XCH_STALLED] > 0) {
                rc = redo_stalled(ex, i, err);
                again = 1;
            }
        }
    }
    return rc;
}

int exchange_flush(exchange *ex, int failed, cn_error *err)
{
    if (!ex->transport.flush)
        return failed;
    const exchange_batch *in;
    size_t n_in = 0;
    int rc = ex->transport.flush(ex->transport.self, failed, &in, &n_in, err);
    if (rc)
        return rc;
    /* one device: every arrival is for it, written to its inbox from where MPI put it, the
     * last chunk's delivery left for exchange_settle_arrivals to check and settle */
    for (size_t b = 0; b < n_in && rc == 0 && ex->n_devs == 1; b++)
        rc = fill_inbox(ex, 0, in[b].dest, in[b].rec, in[b].n, b + 1 == n_in, err);
    if (ex->n_devs == 1)
        return rc;
    /* every arrival is for a partition of this rank: the router posts it to its device (one
     * for another rank, which would go out again and wander, is an error) */
    ex->router.local_only = 1;
    for (size_t b = 0; b < n_in && rc == 0; b++)
        rc = exchange_route(&ex->router, in[b].dest, in[b].rec, in[b].n, &ex->transport, err);
    ex->router.local_only = 0;
    return rc ? rc : fill_collected(ex, err);
}

int exchange_settle_arrivals(exchange *ex, int *settled, cn_error *err)
{
    int rc = 0;
    *settled = 0;
    for (int i = 0; i < ex->n_devs && rc == 0; i++) {
        exchange_device *d = &ex->dev[i];
        if (!d->unsettled)
            continue;
        d->unsettled = 0;
        rc = finish(d, err);
        /* a record for no partition of this rank would go out again and wander */
        if (!rc && d->words[XCH_EXPORT] > 0)
            rc = cn_fail(err, CN_ERR_RUNTIME, "internal error: records arrived at MPI rank %d "
                         "for partitions it does not hold", ex->router.my_rank);
        if (!rc && d->words[XCH_DEFER] > 0)
            *settled = 1;
        if (!rc)
            rc = settle_deferred(ex, i, err);
    }
    return rc;
}

/* The arrivals from other ranks in pinned memory of the rank's first device (dist_stream) */
static void *pinned_alloc(void *ctx, size_t bytes, void **handle)
{
    cl_mem mem = NULL;
    void *area = host_area_alloc(ctx, bytes, &mem);
    *handle = mem;
    return area;
}

static void pinned_release(void *ctx, void *handle, void *area)
{
    host_area_free(ctx, handle, area);
}

int exchange_segment(exchange *ex, int dev, cn_error *err)
{
    if (!ex->streaming)
        return 0;
    exchange_device *d = &ex->dev[dev];
    if (ex->n_segs == ex->cap_segs) {
        size_t cap = ex->cap_segs ? 2 * ex->cap_segs : 16;
        exchange_segment_rec **grown = realloc(ex->segs, cap * sizeof(exchange_segment_rec *));
        if (!grown)
            return cn_fail(err, CN_ERR_RUNTIME, "out of host memory");
        ex->segs = grown;
        for (size_t i = ex->cap_segs; i < cap; i++)
            ex->segs[i] = NULL;
        ex->cap_segs = cap;
    }
    exchange_segment_rec *sg = ex->segs[ex->n_segs];
    if (!sg) /* each record stays where it is: its words are being read into */
        sg = ex->segs[ex->n_segs] = calloc(1, sizeof *sg);
    if (!sg)
        return cn_fail(err, CN_ERR_RUNTIME, "out of host memory");
    int rc = ex->cfg.consumer.consume(ex->cfg.consumer.ctx, dev, err);
    /* the next segment starts where this one's records end */
    cl_int st = rc ? CL_SUCCESS
                   : clEnqueueCopyBuffer(d->dev->queue, d->ctl.mem, d->ctl.mem, 4 * XCH_OUT,
                                         4 * XCH_FROM, 4, 0, NULL, NULL);
    if (!rc)
        rc = cl_check(st, "clEnqueueCopyBuffer", d->dev->info.name, err);
    if (!rc) {
        st = clEnqueueReadBuffer(d->dev->queue, d->ctl.mem, CL_FALSE, 0, sizeof sg->words,
                                 sg->words, 0, NULL, &sg->ev);
        rc = cl_check(st, "clEnqueueReadBuffer", d->dev->info.name, err);
    }
    if (!rc) {
        sg->dev = dev;
        ex->n_segs++;
    }
    return rc;
}

/* Pinned host arrays for DEV's streamed exports, at a window's start (no send or collect
 * reads them then): a quarter more than the most a window exported so far (SWANT), never
 * more than its export area holds. Pinning is slow (the export area can hold hundreds of
 * megabytes), so they follow what the windows need; a window that exports more than they
 * hold leaves the rest to the window's end (exchange_settle carries it). */
static int stream_areas(exchange_device *d, size_t record_bytes, cn_error *err)
{
    if (d->scap >= d->swant || d->scap >= d->cap)
        return 0;
    uint64_t want = (uint64_t)d->swant + d->swant / 4;
    uint32_t cap = want < 4096 ? 4096 : want > d->cap ? d->cap : (uint32_t)want;
    release_stream_areas(d);
    d->sdest = host_area_alloc(d->dev, 4 * (size_t)cap, &d->sdest_mem);
    d->srec = host_area_alloc(d->dev, record_bytes * cap, &d->srec_mem);
    if (!d->sdest || !d->srec)
        return cn_fail(err, CN_ERR_RUNTIME, "out of host memory for the records to other "
                       "ranks of device '%s'", d->dev->info.name);
    d->scap = cap;
    return 0;
}


/* Waits for EV while MPI moves what is in flight: MPI progresses transfers only inside its
 * calls, so a plain wait would leave them all to the window's end. */
static int wait_polling(exchange *ex, cl_event ev, const device_ctx *dev, cn_error *err)
{
    /* a wait that lasts (exchange.wait_warn_s) says so once, naming the rank and device (a
     * run that stalls tells where: this rank's device, not the other ranks) */
    double t0 = wall_seconds(), warn_at = t0 + ex->wait_warn_s;
    for (;;) {
        double now = wall_seconds();
        if (now > warn_at) {
            fprintf(stderr, "clnetsim: warning: MPI rank %d has waited %.0f s for device '%s' "
                    "(a partition's work or its exports' read), still waiting\n",
                    dist_rank(), now - t0, dev->info.name);
            warn_at = INFINITY;
        }
        cl_int status = CL_COMPLETE;
        cl_int st = clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status,
                                   &status, NULL);
        if (st != CL_SUCCESS)
            return cl_check(st, "clGetEventInfo", dev->info.name, err);
        if (status < 0)
            return device_fail(err, dev->info.name, CN_ERR_RUNTIME, "a command of the exchange "
                               "failed on device '%s' (status %d)", dev->info.name, status);
        if (status == CL_COMPLETE)
            return 0;
        int rc = ex->transport.poll(ex->transport.self, err);
        if (rc)
            return rc;
    }
}

/* Reads DEV's exports from the last taken up to UPTO beside its work, and routes them: those
 * for other ranks go out at once, from the stream areas (never written again this window). */
static int stream_exports(exchange *ex, int dev, uint32_t upto, cn_error *err)
{
    exchange_device *d = &ex->dev[dev];
    if (upto > d->swant)
        d->swant = upto;
    if (upto > d->scap) /* the rest at the window's end */
        upto = d->scap;
    if (upto <= d->taken)
        return 0;
    size_t rb = ex->cfg.record_bytes, first = d->taken, n = upto - first;
    cl_event done = NULL;
    cl_int st = clEnqueueReadBuffer(d->copy_queue, d->x_dest.mem, CL_FALSE, 4 * first, 4 * n,
                                    d->sdest + first, 0, NULL, NULL);
    if (st == CL_SUCCESS)
        st = clEnqueueReadBuffer(d->copy_queue, d->x_rec.mem, CL_FALSE, rb * first, rb * n,
                                 d->srec + rb * first, 0, NULL, &done);
    if (st == CL_SUCCESS)
        st = clFlush(d->copy_queue);
    int rc = cl_check(st, "clEnqueueReadBuffer", d->dev->info.name, err);
    if (!rc)
        rc = wait_polling(ex, done, d->dev, err);
    if (done)
        clReleaseEvent(done);
    d->taken = upto;
    ex->moved_bytes += (rb + 4) * (uint64_t)n;
    return rc ? rc : exchange_route_in_place(&ex->router, dev, d->sdest + first,
                                             d->srec + rb * first, n, &ex->transport, err);
}

int exchange_stream(exchange *ex, cn_error *err)
{
    if (!ex->streaming)
        return 0;
    int rc = 0;
    for (int i = 0; i < ex->n_devs && rc == 0; i++)
        rc = stream_areas(&ex->dev[i], ex->cfg.record_bytes, err);
    if (!rc)
        rc = ex->transport.stream(ex->transport.self, 1, err);
    for (int i = 0; i < ex->n_devs && rc == 0; i++)
        rc = cl_check(clFlush(ex->dev[i].dev->queue), "clFlush", ex->dev[i].dev->info.name,
                      err);
    for (size_t i = 0; i < ex->n_segs; i++) {
        exchange_segment_rec *sg = ex->segs[i];
        exchange_device *d = &ex->dev[sg->dev];
        if (!rc)
            rc = wait_polling(ex, sg->ev, d->dev, err);
        clReleaseEvent(sg->ev);
        if (!rc)
            rc = stream_exports(ex, sg->dev, sg->words[XCH_EXPORT], err);
        if (!rc)
            rc = ex->transport.poll(ex->transport.self, err);
    }
    ex->n_segs = 0;
    int off = ex->transport.stream(ex->transport.self, 0, err);
    return rc ? rc : off;
}

uint64_t exchange_rank_bytes(const exchange *ex)
{
    return ex->transport.sent_bytes ? ex->transport.sent_bytes(ex->transport.self) : 0;
}
