/* Streams of records between ranks within a window (dist_stream.h). */
#include "dist/dist_stream.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dist/dist.h"
#include "dist/dist_mpi.h"

#ifdef CLNETSIM_HAVE_MPI
#include <mpi.h>

enum { TAG_A = 21, TAG_B = 22 };

typedef struct req_list {
    MPI_Request *r;
    size_t n, cap;
} req_list;
#endif

struct dist_stream {
    size_t a_unit, b_unit;
    dist_host_memory mem;
    int n_ranks, me, mpi;       /* MPI: whether MPI was started */
    unsigned char *a, *b;       /* the arena: CAP records, N of them placed */
    void *a_handle, *b_handle;
    uint64_t cap, n;
    int ended;                  /* N records are the last window's arrivals, handed out */
    uint64_t *sent, *got;       /* [n_ranks]: bundles sent to, received from each rank */
#ifdef CLNETSIM_HAVE_MPI
    MPI_Datatype ta, tb;
    req_list sends, recvs;
#endif
};

#ifdef CLNETSIM_HAVE_MPI
/* A rank that cannot go on while the others wait for its messages stops them all. */
static void stop_all(const dist_stream *s, const char *what)
{
    fprintf(stderr, "clnetsim: error: MPI rank %d of %d: %s\n", s->me, s->n_ranks, what);
    dist_abort(CN_ERR_RUNTIME);
}

static MPI_Request *new_request(const dist_stream *s, req_list *l)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 64;
        MPI_Request *grown = realloc(l->r, cap * sizeof(MPI_Request));
        if (!grown)
            stop_all(s, "out of host memory for MPI requests");
        l->r = grown;
        l->cap = cap;
    }
    l->r[l->n] = MPI_REQUEST_NULL;
    return &l->r[l->n++];
}

static int wait_list(req_list *l, cn_error *err)
{
    int rc = l->n ? dist_mpi_check(MPI_Waitall((int)l->n, l->r, MPI_STATUSES_IGNORE),
                                   "MPI_Waitall", err)
                  : 0;
    l->n = 0;
    return rc;
}

/* Room in the arena for NEED more records: a larger arena once the receives into this one
 * are complete (they write where they were started). */
static int arena_room(dist_stream *s, uint64_t need, cn_error *err)
{
    if (s->n + need <= s->cap)
        return 0;
    int rc = wait_list(&s->recvs, err);
    if (rc)
        return rc;
    uint64_t cap = s->cap ? 2 * s->cap : 4096;
    while (cap < s->n + need)
        cap *= 2;
    void *ah = NULL, *bh = NULL;
    unsigned char *a = s->mem.alloc(s->mem.ctx, cap * s->a_unit, &ah);
    unsigned char *b = a ? s->mem.alloc(s->mem.ctx, cap * s->b_unit, &bh) : NULL;
    if (!a || !b)
        stop_all(s, "out of host memory for the records from other ranks");
    if (s->n) {
        memcpy(a, s->a, s->n * s->a_unit);
        memcpy(b, s->b, s->n * s->b_unit);
    }
    if (s->a)
        s->mem.release(s->mem.ctx, s->a_handle, s->a);
    if (s->b)
        s->mem.release(s->mem.ctx, s->b_handle, s->b);
    s->a = a;
    s->b = b;
    s->a_handle = ah;
    s->b_handle = bh;
    s->cap = cap;
    return 0;
}

/* Starts the receives of the bundle MSG announces (its A message, STATUS) from rank FROM. */
static int take(dist_stream *s, MPI_Message *msg, MPI_Status *status, cn_error *err)
{
    int count = 0, from = status->MPI_SOURCE;
    int rc = dist_mpi_check(MPI_Get_count(status, s->ta, &count), "MPI_Get_count", err);
    if (!rc && (count == MPI_UNDEFINED || count < 0))
        return cn_fail(err, CN_ERR_RUNTIME, "MPI rank %d received a bundle of records from rank "
                       "%d that is not a whole number of records", s->me, from);
    if (!rc)
        rc = arena_room(s, (uint64_t)count, err);
    if (!rc)
        rc = dist_mpi_check(MPI_Imrecv(s->a + s->n * s->a_unit, count, s->ta, msg,
                                       new_request(s, &s->recvs)),
                            "MPI_Imrecv", err);
    if (!rc) /* the B message of the same bundle: the next one from FROM (never overtaken) */
        rc = dist_mpi_check(MPI_Irecv(s->b + s->n * s->b_unit, count, s->tb, from, TAG_B,
                                      MPI_COMM_WORLD, new_request(s, &s->recvs)),
                            "MPI_Irecv", err);
    if (!rc) {
        s->n += (uint64_t)count;
        s->got[from]++;
    }
    return rc;
}
#endif

/* The first call of a window forgets the last window's arrivals. */
static void begin(dist_stream *s)
{
    if (!s->ended)
        return;
    s->ended = 0;
    s->n = 0;
    memset(s->sent, 0, (size_t)s->n_ranks * sizeof *s->sent);
    memset(s->got, 0, (size_t)s->n_ranks * sizeof *s->got);
}

int dist_stream_create(dist_stream **out, size_t a_unit, size_t b_unit,
                       const dist_host_memory *mem, cn_error *err)
{
    dist_stream *s = calloc(1, sizeof *s);
    *out = s;
    if (!s)
        return cn_fail(err, CN_ERR_RUNTIME, "out of host memory");
    s->a_unit = a_unit;
    s->b_unit = b_unit;
    s->mem = *mem;
    s->n_ranks = dist_size();
    s->me = dist_rank();
    s->mpi = dist_is_mpi();
    s->sent = calloc((size_t)s->n_ranks, sizeof *s->sent);
    s->got = calloc((size_t)s->n_ranks, sizeof *s->got);
    if (!s->sent || !s->got)
        return cn_fail(err, CN_ERR_RUNTIME, "out of host memory");
#ifdef CLNETSIM_HAVE_MPI
    s->ta = s->tb = MPI_DATATYPE_NULL;
    if (!s->mpi)
        return 0;
    int rc = dist_unit_type(a_unit, &s->ta, err);
    if (!rc)
        rc = dist_unit_type(b_unit, &s->tb, err);
    return rc;
#else
    return 0;
#endif
}

void dist_stream_destroy(dist_stream *s)
{
    if (!s)
        return;
#ifdef CLNETSIM_HAVE_MPI
    cn_error ignored;
    wait_list(&s->recvs, &ignored);
    wait_list(&s->sends, &ignored);
    free(s->recvs.r);
    free(s->sends.r);
    if (s->ta != MPI_DATATYPE_NULL)
        MPI_Type_free(&s->ta);
    if (s->tb != MPI_DATATYPE_NULL)
        MPI_Type_free(&s->tb);
#endif
    if (s->a)
        s->mem.release(s->mem.ctx, s->a_handle, s->a);
    if (s->b)
        s->mem.release(s->mem.ctx, s->b_handle, s->b);
    free(s->sent);
    free(s->got);
    free(s);
}

int dist_stream_send(dist_stream *s, int to, const void *a, const void *b, uint64_t n,
                     cn_error *err)
{
    begin(s);
    if (to < 0 || to >= s->n_ranks || to == s->me)
        return cn_fail(err, CN_ERR_RUNTIME, "internal error: MPI rank %d streams records to "
                       "rank %d of %d", s->me, to, s->n_ranks);
    if (n == 0)
        return 0;
    if (n > INT_MAX)
        return cn_fail(err, CN_ERR_RUNTIME, "MPI rank %d has %llu records for rank %d in one "
                       "bundle, more than MPI counts (2^31 - 1)", s->me, (unsigned long long)n,
                       to);
#ifdef CLNETSIM_HAVE_MPI
    int rc = dist_mpi_check(MPI_Isend(a, (int)n, s->ta, to, TAG_A, MPI_COMM_WORLD,
                                      new_request(s, &s->sends)),
                            "MPI_Isend", err);
    if (!rc)
        rc = dist_mpi_check(MPI_Isend(b, (int)n, s->tb, to, TAG_B, MPI_COMM_WORLD,
                                      new_request(s, &s->sends)),
                            "MPI_Isend", err);
    if (!rc)
        s->sent[to]++;
    return rc;
#else
    (void)a;
    (void)b;
    return cn_fail(err, CN_ERR_RUNTIME, "internal error: records streamed without MPI");
#endif
}

int dist_stream_poll(dist_stream *s, cn_error *err)
{
    begin(s);
#ifdef CLNETSIM_HAVE_MPI
    while (s->mpi) {
        int flag = 0;
        MPI_Message msg;
        MPI_Status status;
        int rc = dist_mpi_check(MPI_Improbe(MPI_ANY_SOURCE, TAG_A, MPI_COMM_WORLD, &flag, &msg,
                                            &status),
                                "MPI_Improbe", err);
        if (rc || !flag)
            return rc;
        rc = take(s, &msg, &status, err);
        if (rc)
            return rc;
    }
    return 0;
#else
    (void)err;
    return 0;
#endif
}

int dist_stream_end(dist_stream *s, int failed, cn_error *err)
{
    begin(s);
    s->ended = 1;
#ifdef CLNETSIM_HAVE_MPI
    if (s->n_ranks > 1) {
        int R = s->n_ranks, peer = 0;
        uint64_t *out = malloc(4 * (size_t)R * sizeof *out);
        if (!out)
            stop_all(s, "out of host memory");
        uint64_t *in = out + 2 * R;
        for (int r = 0; r < R; r++) {
            out[2 * r] = s->sent[r];
            out[2 * r + 1] = failed != 0;
        }
        /* every rank learns how many bundles each sent it, and who failed */
        int rc = dist_mpi_check(MPI_Alltoall(out, 2, MPI_UINT64_T, in, 2, MPI_UINT64_T,
                                             MPI_COMM_WORLD),
                                "MPI_Alltoall", err);
        for (int r = 0; r < R && !rc; r++) {
            peer |= in[2 * r + 1] != 0 && r != s->me;
            while (!rc && s->got[r] < in[2 * r]) {
                MPI_Message msg;
                MPI_Status status;
                rc = dist_mpi_check(MPI_Mprobe(r, TAG_A, MPI_COMM_WORLD, &msg, &status),
                                    "MPI_Mprobe", err);
                if (!rc)
                    rc = take(s, &msg, &status, err);
            }
        }
        free(out);
        int wr = wait_list(&s->recvs, err);
        int ws = wait_list(&s->sends, err);
        rc = rc ? rc : wr ? wr : ws;
        if (rc || failed)
            return rc ? rc : failed;
        return peer ? DIST_PEER_FAILED : 0;
    }
#else
    (void)err;
#endif
    return failed;
}

uint64_t dist_stream_arrived(const dist_stream *s, const void **a, const void **b)
{
    *a = s->a;
    *b = s->b;
    return s->ended ? s->n : 0;
}
