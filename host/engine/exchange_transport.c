/* The router and the in-process transport of the core's exchange (exchange_transport.h). */
#include <stdlib.h>
#include <string.h>

#include "engine/exchange_transport.h"

/* One growable batch per place: what was posted for it since its last collect. */
typedef struct local_place {
    uint32_t *dest;
    unsigned char *rec;
    size_t n, cap;
} local_place;

/* A batch posted for a set of places, by reference (post_set): the places that have not
 * collected it yet. */
typedef struct local_set {
    exchange_batch b;
    uint32_t pending;
} local_set;

/* The set batches one place posted, in the order of the posts. */
typedef struct local_origin {
    local_set *sets;
    size_t n, cap;
} local_origin;

typedef struct local_transport {
    size_t record_bytes;
    int n_places;
    local_origin *origin;       /* [n_places] */
    exchange_batch *arrived;    /* what the last collect_sets handed out */
    size_t arrived_cap;
    local_place place[];
} local_transport;

int exchange_records_reserve(uint32_t **dest, unsigned char **rec, int **place, size_t *cap,
                             size_t need, size_t record_bytes, size_t first, cn_error *err)
{
    if (need <= *cap)
        return 0;
    size_t n = *cap ? *cap : first;
    while (n < need)
        n *= 2;
    uint32_t *d = realloc(*dest, n * sizeof *d);
    if (d)
        *dest = d;
    unsigned char *r = realloc(*rec, n * record_bytes);
    if (r)
        *rec = r;
    int *pl = place ? realloc(*place, n * sizeof *pl) : NULL;
    if (pl)
        *place = pl;
    if (!d || !r || (place && !pl))
        return cn_fail(err, CN_ERR_RUNTIME, "out of host memory for the records between "
                       "devices");
    *cap = n;
    return 0;
}

int exchange_records_append(uint32_t **dest_arr, unsigned char **rec_arr, size_t *cap,
                            size_t have, const uint32_t *dest, const void *rec, size_t n,
                            size_t record_bytes, size_t first, cn_error *err)
{
    int rc = exchange_records_reserve(dest_arr, rec_arr, NULL, cap, have + n, record_bytes,
                                      first, err);
    if (rc || n == 0)
        return rc;
    memcpy(*dest_arr + have, dest, n * sizeof *dest);
    memcpy(*rec_arr + have * record_bytes, rec, n * record_bytes);
    return 0;
}

static int local_post(void *self, int to, const uint32_t *dest, const void *rec, size_t n,
                      cn_error *err)
{
    local_transport *lt = self;
    if (to < 0 || to >= lt->n_places)
        return cn_fail(err, CN_ERR_RUNTIME, "internal error: records posted for place %d of "
                       "%d", to, lt->n_places);
    local_place *p = &lt->place[to];
    int rc = exchange_records_append(&p->dest, &p->rec, &p->cap, p->n, dest, rec, n,
                                     lt->record_bytes, 1024, err);
    if (!rc)
        p->n += n;
    return rc;
}

static int local_collect(void *self, int to, const uint32_t **dest, const void **rec,
                         size_t *n, cn_error *err)
{
    local_transport *lt = self;
    if (to < 0 || to >= lt->n_places)
        return cn_fail(err, CN_ERR_RUNTIME, "internal error: records collected for place %d "
                       "of %d", to, lt->n_places);
    local_place *p = &lt->place[to];
    *dest = p->dest;
    *rec = p->rec;
    *n = p->n;
    p->n = 0; /* the next post starts the batch again; the storage stays */
    return 0;
}

static int local_post_set(void *self, int from, uint32_t set, const uint32_t *dest,
                          const void *rec, size_t n, cn_error *err)
{
    local_transport *lt = self;
    if (from < 0 || from >= lt->n_places || (lt->n_places < 32 && set >> lt->n_places))
        return cn_fail(err, CN_ERR_RUNTIME, "internal error: records posted from place %d "
                       "for the set 0x%x of %d places", from, set, lt->n_places);
    set &= ~(1u << from);
    if (n == 0 || set == 0)
        return 0;
    local_origin *o = &lt->origin[from];
    size_t live = 0; /* the batches every place has collected are forgotten */
    for (size_t i = 0; i < o->n; i++)
        if (o->sets[i].pending)
            o->sets[live++] = o->sets[i];
    o->n = live;
    if (o->n == o->cap) {
        size_t cap = o->cap ? 2 * o->cap : 4;
        local_set *grown = realloc(o->sets, cap * sizeof *grown);
        if (!grown)
            return cn_fail(err, CN_ERR_RUNTIME, "out of host memory");
        o->sets = grown;
        o->cap = cap;
    }
    o->sets[o->n++] = (local_set){{from, dest, rec, n}, set};
    return 0;
}

static int local_collect_sets(void *self, int to, const exchange_batch **batches,
                              size_t *n_batches, cn_error *err)
{
    local_transport *lt = self;
    if (to < 0 || to >= lt->n_places)
        return cn_fail(err, CN_ERR_RUNTIME, "internal error: records collected for place %d "
                       "of %d", to, lt->n_places);
    size_t want = 0;
    for (int f = 0; f < lt->n_places; f++)
        for (size_t i = 0; i < lt->origin[f].n; i++)
            want += (lt->origin[f].sets[i].pending >> to) & 1u;
    if (want > lt->arrived_cap) {
        exchange_batch *grown = realloc(lt->arrived, want * sizeof *grown);
        if (!grown)
            return cn_fail(err, CN_ERR_RUNTIME, "out of host memory");
        lt->arrived = grown;
        lt->arrived_cap = want;
    }
    size_t k = 0;
    for (int f = 0; f < lt->n_places; f++)
        for (size_t i = 0; i < lt->origin[f].n; i++) {
            local_set *s = &lt->origin[f].sets[i];
            if ((s->pending >> to) & 1u) {
                lt->arrived[k++] = s->b;
                s->pending &= ~(1u << to);
            }
        }
    *batches = lt->arrived;
    *n_batches = k;
    return 0;
}

static void local_destroy(void *self)
{
    local_transport *lt = self;
    if (!lt)
        return;
    for (int i = 0; i < lt->n_places; i++) {
        free(lt->place[i].dest);
        free(lt->place[i].rec);
        if (lt->origin)
            free(lt->origin[i].sets);
    }
    free(lt->origin);
    free(lt->arrived);
    free(lt);
}

int exchange_local_transport(exchange_transport *t, size_t record_bytes, int n_places,
                             cn_error *err)
{
    memset(t, 0, sizeof *t);
    local_transport *lt = calloc(1, sizeof *lt + (size_t)n_places * sizeof lt->place[0]);
    if (!lt)
        return cn_fail(err, CN_ERR_RUNTIME, "out of host memory");
    lt->record_bytes = record_bytes;
    lt->n_places = n_places;
    t->self = lt;
    t->destroy = local_destroy;
    lt->origin = calloc(n_places > 0 ? (size_t)n_places : 1, sizeof *lt->origin);
    if (!lt->origin)
        return cn_fail(err, CN_ERR_RUNTIME, "out of host memory");
    if (n_places > 32)
        return cn_fail(err, CN_ERR_RUNTIME, "internal error: %d places, more than a set of "
                       "places holds (32)", n_places);
    t->post = local_post;
    t->collect = local_collect;
    t->post_set = local_post_set;
    t->collect_sets = local_collect_sets;
    return 0;
}

/* The router's places: this rank's, then one per rank when partitions live on several */
static size_t router_places(const exchange_router *r)
{
    return (size_t)r->n_places + (r->rank ? (size_t)r->n_ranks : 0);
}

static int router_grow(exchange_router *r, size_t n, cn_error *err)
{
    if (!r->count) {
        r->count = calloc(router_places(r) + 1, sizeof *r->count);
        if (!r->count)
            return cn_fail(err, CN_ERR_RUNTIME, "out of host memory");
    }
    return exchange_records_reserve(&r->dest, &r->rec, &r->place, &r->cap, n, r->record_bytes,
                                    1024, err);
}

/* Each partition's place now (homes change with migrations): one call of the model's
 * functions per partition and route, none per record. */
static int place_table(exchange_router *r, cn_error *err)
{
    if (!r->place_of) {
        r->place_of = malloc((r->n_parts ? r->n_parts : 1) * sizeof *r->place_of);
        if (!r->place_of)
            return cn_fail(err, CN_ERR_RUNTIME, "out of host memory");
    }
    for (uint32_t p = 0; p < r->n_parts; p++) {
        int rank = r->rank ? r->rank(r->model, (int)p) : r->my_rank;
        if (rank < 0 || rank >= (r->rank ? r->n_ranks : r->my_rank + 1)) {
            r->place_of[p] = -1 - rank; /* named in the error if a record goes there */
            continue;
        }
        r->place_of[p] = rank != r->my_rank ? r->n_places + rank : r->home(r->model, (int)p);
        if (rank == r->my_rank && (r->place_of[p] < 0 || r->place_of[p] >= r->n_places))
            r->place_of[p] = INT32_MIN;
        else if (rank != r->my_rank && r->local_only)
            r->place_of[p] = INT32_MIN + 1;
    }
    return 0;
}

static int bad_partition(const exchange_router *r, uint32_t p, cn_error *err)
{
    int v = r->place_of[p];
    if (v == INT32_MIN + 1)
        return cn_fail(err, CN_ERR_RUNTIME, "internal error: a record arrived at MPI rank %d for "
                       "partition %u, of rank %d", r->my_rank, p, r->rank(r->model, (int)p));
    if (v == INT32_MIN)
        return cn_fail(err, CN_ERR_RUNTIME, "internal error: partition %u lives at place %d, "
                       "not one of the %d", p, r->home(r->model, (int)p), r->n_places);
    return cn_fail(err, CN_ERR_RUNTIME, "internal error: partition %u lives on MPI rank %d, not "
                   "one of the %d", p, -1 - v, r->n_ranks);
}

/* Copies record I of SRC to slot AT of DST: the common sizes as constants, which the
 * compiler turns into moves rather than calls. */
static inline void copy_record(unsigned char *dst, size_t at, const unsigned char *src, size_t i,
                               size_t rb)
{
    if (rb == 16)
        memcpy(dst + at * 16, src + i * 16, 16);
    else if (rb == 8)
        memcpy(dst + at * 8, src + i * 8, 8);
    else
        memcpy(dst + at * rb, src + i * rb, rb);
}

/* exchange_route and exchange_route_in_place: IO_DEST and IO_REC non-NULL (DEST and REC,
 * writable), the records are put in place order where they lie and posted from there. */
/* The one place every partition lives at but those at FROM, or -1 when there are several. */
static int single_place_but(const exchange_router *r, int from)
{
    int only = -1;
    for (uint32_t p = 0; p < r->n_parts; p++) {
        int v = r->place_of[p];
        if (v == from)
            continue;
        if (v < 0 || (only >= 0 && v != only))
            return -1;
        only = v;
    }
    return only;
}

static int route(exchange_router *r, const uint32_t *dest, const void *rec, size_t n,
                 exchange_transport *t, uint32_t *io_dest, void *io_rec, int from,
                 cn_error *err)
{
    if (n == 0)
        return 0;
    int rc = router_grow(r, n, err);
    if (!rc)
        rc = place_table(r, err);
    if (rc)
        return rc;
    /* records from place FROM are for partitions elsewhere: when those all live at one place
     * (two ranks of one device each), that is where they go, without a look at each */
    int only = from >= 0 ? single_place_but(r, from) : -1;
    if (only >= 0)
        return t->post(t->self, only, dest, rec, n, err);
    size_t places = router_places(r);
    memset(r->count, 0, (places + 1) * sizeof *r->count);
    /* dest / span by a multiplication: exact for every 32-bit dest (Lemire, Kaser and
     * Kurz, "Faster remainder by direct computation", 2019) */
    uint64_t magic = UINT64_MAX / (r->span ? r->span : 1) + 1;
    uint32_t last_p = UINT32_MAX;
    int place = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t p = r->span == 1 ? dest[i]
                                  : (uint32_t)(((unsigned __int128)magic * dest[i]) >> 64);
        if (p != last_p) { /* neighbouring records often share a partition */
            if (p >= r->n_parts)
                return cn_fail(err, CN_ERR_RUNTIME, "internal error: a record between "
                               "devices names destination %u, beyond the %u partitions",
                               dest[i], r->n_parts);
            place = r->place_of[p];
            if (place < 0)
                return bad_partition(r, p, err);
            last_p = p;
        }
        r->place[i] = place;
        r->count[place + 1]++;
    }
    /* every record for one place: posted as it is, in its order */
    for (size_t k = 0; k < places; k++)
        if (r->count[k + 1] == n)
            return t->post(t->self, (int)k, dest, rec, n, err);
    /* a stable counting sort: each place's records keep their order */
    for (size_t k = 0; k < places; k++)
        r->count[k + 1] += r->count[k];
    const unsigned char *src = rec;
    size_t rb = r->record_bytes;
    for (size_t i = 0; i < n; i++) {
        size_t at = r->count[r->place[i]]++;
        r->dest[at] = dest[i];
        copy_record(r->rec, at, src, i, rb);
    }
    const uint32_t *sorted_dest = r->dest;
    const unsigned char *sorted_rec = r->rec;
    if (io_dest) { /* back where they came from, in their new order */
        memcpy(io_dest, r->dest, n * sizeof *io_dest);
        memcpy(io_rec, r->rec, n * rb);
        sorted_dest = io_dest;
        sorted_rec = io_rec;
    }
    /* count[k] is now the end of place k's records, count[k - 1] their start */
    for (size_t k = 0; k < places && rc == 0; k++) {
        size_t start = k ? r->count[k - 1] : 0, end = r->count[k];
        if (end > start)
            rc = t->post(t->self, (int)k, sorted_dest + start, sorted_rec + start * rb,
                         end - start, err);
    }
    return rc;
}

int exchange_route(exchange_router *r, const uint32_t *dest, const void *rec, size_t n,
                   exchange_transport *t, cn_error *err)
{
    return route(r, dest, rec, n, t, NULL, NULL, -1, err);
}

int exchange_route_in_place(exchange_router *r, int from, uint32_t *dest, void *rec, size_t n,
                            exchange_transport *t, cn_error *err)
{
    return route(r, dest, rec, n, t, dest, rec, from, err);
}

uint64_t exchange_place_after(const exchange_batch *batches, size_t n_batches, uint64_t own,
                              uint64_t *at)
{
    uint64_t next = own;
    for (size_t i = 0; i < n_batches; i++) {
        at[i] = next;
        next += batches[i].n;
    }
    return next;
}

void exchange_router_free(exchange_router *r)
{
    free(r->dest);
    free(r->rec);
    free(r->place);
    free(r->count);
    free(r->place_of);
    r->place_of = NULL;
    r->dest = NULL;
    r->rec = NULL;
    r->place = NULL;
    r->count = NULL;
    r->cap = 0;
}
