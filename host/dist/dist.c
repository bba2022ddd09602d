/* The run's processes: MPI's ranks, or the stand-in of one (dist.h). */
#include "dist/dist.h"
#include "dist/dist_mpi.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef CLNETSIM_HAVE_MPI
#include <mpi.h>
#endif

static int world_rank = 0, world_size = 1, node_rank = 0, node_size = 1, started = 0;
static int node_leader = 0; /* the lowest world rank of this machine */
static char library[256] = "none";

#ifdef CLNETSIM_HAVE_MPI
/* Whether an MPI launcher started this process: the variables Open MPI's mpirun, MPICH's
 * Hydra and PMI or PMIx launchers (srun) give every process they start. Without one the
 * process stays single: MPI_Init would make it a singleton of one rank anyway, at a cost. */
static int launched(void)
{
    static const char *const vars[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMI_RANK",
                                       "PMIX_RANK", "MPI_LOCALNRANKS"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
        if (getenv(vars[i]))
            return 1;
    return 0;
}

static int mpi_check(int rc, const char *call, cn_error *err)
{
    if (rc == MPI_SUCCESS)
        return 0;
    char text[MPI_MAX_ERROR_STRING] = "";
    int len = 0;
    if (MPI_Error_string(rc, text, &len) != MPI_SUCCESS || len <= 0)
        snprintf(text, sizeof text, "MPI error %d", rc);
    return cn_fail(err, CN_ERR_RUNTIME, "%s failed on MPI rank %d of %d: %s", call, world_rank,
                   world_size, text);
}

/* A committed datatype of UNIT contiguous bytes, so that counts and displacements count
 * records rather than bytes (an int of records goes 2^31 records far). */
static int unit_type(size_t unit, MPI_Datatype *type, cn_error *err)
{
    if (unit > INT_MAX)
        return cn_fail(err, CN_ERR_RUNTIME, "internal error: records of %zu bytes, more than "
                       "MPI counts", unit);
    int rc = mpi_check(MPI_Type_contiguous((int)unit, MPI_BYTE, type), "MPI_Type_contiguous",
                       err);
    if (!rc)
        rc = mpi_check(MPI_Type_commit(type), "MPI_Type_commit", err);
    return rc;
}

int dist_mpi_check(int rc, const char *call, cn_error *err)
{
    return mpi_check(rc, call, err);
}

int dist_unit_type(size_t unit, MPI_Datatype *type, cn_error *err)
{
    return unit_type(unit, type, err);
}

static MPI_Op mpi_op(dist_op op)
{
    return op == DIST_SUM ? MPI_SUM : op == DIST_MIN ? MPI_MIN : MPI_MAX;
}
#endif

int dist_init(int *argc, char ***argv, cn_error *err)
{
#ifdef CLNETSIM_HAVE_MPI
    if (!launched())
        return 0;
    int provided = 0;
    /* only the main thread calls MPI */
    int rc = MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided);
    if (rc != MPI_SUCCESS)
        return cn_fail(err, CN_ERR_RUNTIME, "MPI_Init_thread failed (error %d): MPI could not "
                       "start this process", rc);
    started = 1;
    rc = mpi_check(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN),
                   "MPI_Comm_set_errhandler", err);
    if (!rc)
        rc = mpi_check(MPI_Comm_rank(MPI_COMM_WORLD, &world_rank), "MPI_Comm_rank", err);
    if (!rc)
        rc = mpi_check(MPI_Comm_size(MPI_COMM_WORLD, &world_size), "MPI_Comm_size", err);
    /* the ranks of this machine: those that can share memory */
    MPI_Comm local = MPI_COMM_NULL;
    if (!rc)
        rc = mpi_check(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, world_rank,
                                           MPI_INFO_NULL, &local),
                       "MPI_Comm_split_type", err);
    if (!rc)
        rc = mpi_check(MPI_Comm_rank(local, &node_rank), "MPI_Comm_rank", err);
    if (!rc)
        rc = mpi_check(MPI_Comm_size(local, &node_size), "MPI_Comm_size", err);
    if (!rc)
        rc = mpi_check(MPI_Allreduce(&world_rank, &node_leader, 1, MPI_INT, MPI_MIN, local),
                       "MPI_Allreduce", err);
    if (local != MPI_COMM_NULL && !rc)
        rc = mpi_check(MPI_Comm_free(&local), "MPI_Comm_free", err);
    char version[MPI_MAX_LIBRARY_VERSION_STRING] = "";
    int len = 0;
    if (!rc)
        rc = mpi_check(MPI_Get_library_version(version, &len), "MPI_Get_library_version", err);
    if (!rc) { /* its first line, as much as fits */
        size_t n = strcspn(version, "\r\n");
        if (n > sizeof library - 1)
            n = sizeof library - 1;
        memcpy(library, version, n);
        library[n] = '\0';
    }
    return rc;
#else
    (void)argc;
    (void)argv;
    (void)err;
    return 0;
#endif
}

void dist_finalize(void)
{
#ifdef CLNETSIM_HAVE_MPI
    if (started)
        MPI_Finalize();
    started = 0;
#endif
}

void dist_abort(int code)
{
#ifdef CLNETSIM_HAVE_MPI
    if (started)
        MPI_Abort(MPI_COMM_WORLD, code);
#endif
    exit(code);
}

/* dist_alone_begin: the world's rank and size kept while the process is alone */
static int alone_depth = 0, kept_rank = 0, kept_size = 1;

void dist_alone_begin(void)
{
    if (alone_depth++ == 0) {
        kept_rank = world_rank, kept_size = world_size;
        world_rank = 0, world_size = 1;
    }
}

void dist_alone_end(void)
{
    if (alone_depth > 0 && --alone_depth == 0)
        world_rank = kept_rank, world_size = kept_size;
}

int dist_rank(void)
{
    return world_rank;
}

int dist_size(void)
{
    return world_size;
}

int dist_local_rank(void)
{
    return node_rank;
}

int dist_local_size(void)
{
    return node_size;
}

int dist_node(void)
{
    return node_leader;
}

int dist_test_slower(void)
{
    const char *v = getenv("CLNETSIM_TEST_RANK_SLOWER");
    if (!v || !*v)
        return 0;
    char *end;
    long f = strtol(v, &end, 10);
    if (*end != '\0' || f < 1 || f > 1000)
        return 0;
    const char *only = getenv("CLNETSIM_TEST_RANK");
    return only && *only && strtol(only, NULL, 10) == world_rank ? (int)f : 1;
}

const char *dist_who(void)
{
    static char who[32];
    if (world_size <= 1)
        return "";
    snprintf(who, sizeof who, "MPI rank %d: ", world_rank);
    return who;
}

int dist_is_mpi(void)
{
    return started;
}

const char *dist_library(void)
{
    return library;
}

/* V[0 .. N) reduced in place over every rank, as unsigned or signed 64-bit integers */
static int allreduce64(void *v, int n, int is_signed, dist_op op, cn_error *err)
{
#ifdef CLNETSIM_HAVE_MPI
    if (started && world_size > 1)
        return mpi_check(MPI_Allreduce(MPI_IN_PLACE, v, n, is_signed ? MPI_INT64_T : MPI_UINT64_T,
                                       mpi_op(op), MPI_COMM_WORLD),
                         "MPI_Allreduce", err);
#endif
    (void)v;
    (void)n;
    (void)is_signed;
    (void)op;
    (void)err;
    return 0;
}

int dist_allreduce_u64(uint64_t *v, int n, dist_op op, cn_error *err)
{
    return allreduce64(v, n, 0, op, err);
}

int dist_allreduce_i64(int64_t *v, int n, dist_op op, cn_error *err)
{
    return allreduce64(v, n, 1, op, err);
}

int dist_bcast(void *buf, size_t bytes, int root, cn_error *err)
{
#ifdef CLNETSIM_HAVE_MPI
    if (started && world_size > 1) {
        /* in pieces that an int counts */
        for (size_t at = 0; at < bytes;) {
            size_t piece = bytes - at < (size_t)1 << 30 ? bytes - at : (size_t)1 << 30;
            int rc = mpi_check(MPI_Bcast((char *)buf + at, (int)piece, MPI_BYTE, root,
                                         MPI_COMM_WORLD),
                               "MPI_Bcast", err);
            if (rc)
                return rc;
            at += piece;
        }
        return 0;
    }
#endif
    (void)buf;
    (void)bytes;
    (void)root;
    (void)err;
    return 0;
}

int dist_allgather(const void *send, void *recv, size_t bytes, cn_error *err)
{
#ifdef CLNETSIM_HAVE_MPI
    if (started && world_size > 1) {
        if (bytes > INT_MAX)
            return cn_fail(err, CN_ERR_RUNTIME, "internal error: %zu bytes per rank to gather, "
                           "more than MPI_Allgather counts", bytes);
        return mpi_check(MPI_Allgather(send, (int)bytes, MPI_BYTE, recv, (int)bytes, MPI_BYTE,
                                       MPI_COMM_WORLD),
                         "MPI_Allgather", err);
    }
#endif
    (void)err;
    memmove(recv, send, bytes);
    return 0;
}

int dist_transfer(const dist_piece *out, int n_out, const dist_piece *in, int n_in,
                  cn_error *err)
{
    if (n_out == 0 && n_in == 0)
        return 0;
#ifdef CLNETSIM_HAVE_MPI
    if (started && world_size > 1) {
        enum { TAG_TRANSFER = 31 };
        const uint64_t part = (uint64_t)1 << 30;
        size_t n_req = 0;
        for (int i = 0; i < n_out; i++)
            n_req += (size_t)((out[i].bytes + part - 1) / part);
        for (int i = 0; i < n_in; i++)
            n_req += (size_t)((in[i].bytes + part - 1) / part);
        MPI_Request *req = malloc((n_req ? n_req : 1) * sizeof(MPI_Request));
        if (!req)
            return cn_fail(err, CN_ERR_RUNTIME, "out of host memory for MPI requests");
        size_t k = 0;
        int rc = 0;
        for (int dir = 0; dir < 2 && rc == 0; dir++) { /* the receives first, then the sends */
            const dist_piece *list = dir ? out : in;
            for (int i = 0; i < (dir ? n_out : n_in) && rc == 0; i++)
                for (uint64_t at = 0; at < list[i].bytes && rc == 0; at += part) {
                    uint64_t left = list[i].bytes - at;
                    int n = (int)(left < part ? left : part);
                    char *buf = (char *)list[i].buf + at;
                    rc = dir ? mpi_check(MPI_Isend(buf, n, MPI_BYTE, list[i].rank, TAG_TRANSFER,
                                                   MPI_COMM_WORLD, &req[k]),
                                         "MPI_Isend", err)
                             : mpi_check(MPI_Irecv(buf, n, MPI_BYTE, list[i].rank, TAG_TRANSFER,
                                                   MPI_COMM_WORLD, &req[k]),
                                         "MPI_Irecv", err);
                    k += rc == 0;
                }
        }
        /* what was started completes, even after a failure (its buffers are the caller's) */
        int wrc = k ? mpi_check(MPI_Waitall((int)k, req, MPI_STATUSES_IGNORE), "MPI_Waitall",
                                err)
                    : 0;
        free(req);
        return rc ? rc : wrc;
    }
#endif
    (void)out;
    (void)in;
    return cn_fail(err, CN_ERR_RUNTIME, "internal error: bytes to move between MPI ranks in a "
                   "run of one process");
}

int dist_gather_text(const char *text, char **all, cn_error *err)
{
    *all = NULL;
    void *bytes = NULL;
    uint64_t total = 0;
    int rc = dist_gatherv(text, strlen(text), 1, &bytes, &total, err);
    if (rc || !bytes)
        return rc;
    char *joined = realloc(bytes, total + 1);
    if (!joined) {
        free(bytes);
        return cn_fail(err, CN_ERR_RUNTIME, "out of host memory for the ranks' text");
    }
    joined[total] = '\0';
    *all = joined;
    return 0;
}

/* Whether MSG begins "MPI rank R of S: " with this run's S: a sentence agreed on before. */
static int agreed_before(const char *msg)
{
    static const char head[] = "MPI rank ";
    if (strncmp(msg, head, sizeof head - 1) != 0)
        return 0;
    char *end;
    (void)strtol(msg + sizeof head - 1, &end, 10);
    if (strncmp(end, " of ", 4) != 0)
        return 0;
    long size = strtol(end + 4, &end, 10);
    return size == world_size && end[0] == ':' && end[1] == ' ';
}

int dist_agree(int rc, cn_error *err)
{
    if (world_size == 1)
        return rc;
    /* the lowest failing rank, or world_size when none failed */
    int64_t first = rc ? world_rank : world_size;
    cn_error own = {0};
    int crc = dist_allreduce_i64(&first, 1, DIST_MIN, &own);
    if (crc) {
        cn_error_clear(err);
        *err = own;
        return crc;
    }
    if (first == world_size)
        return 0;
    struct {
        int32_t code;
        char msg[sizeof err->msg];
    } what = {0, ""};
    if (first == world_rank) {
        what.code = err->code ? err->code : rc;
        snprintf(what.msg, sizeof what.msg, "%s", err->msg);
    }
    crc = dist_bcast(&what, sizeof what, (int)first, &own);
    if (crc) {
        cn_error_clear(err);
        *err = own;
        return crc;
    }
    if (first != world_rank) {
        cn_error_clear(err);
        err->code = what.code;
    }
    /* "MPI rank R of S: " and as much of the sentence as fits after it; a sentence agreed on
     * before (an agreement inside a step that failed) has its rank already */
    char prefix[64];
    int p = snprintf(prefix, sizeof prefix, "MPI rank %d of %d: ", (int)first, world_size);
    size_t pl = p > 0 && (size_t)p < sizeof prefix ? (size_t)p : 0;
    if (agreed_before(what.msg))
        pl = 0;
    size_t ml = strnlen(what.msg, sizeof what.msg);
    if (ml > sizeof err->msg - 1 - pl)
        ml = sizeof err->msg - 1 - pl;
    memcpy(err->msg, prefix, pl);
    memcpy(err->msg + pl, what.msg, ml);
    err->msg[pl + ml] = '\0';
    return what.code;
}

int dist_range_rank(uint64_t i, uint64_t n)
{
    return n ? (int)(i * (uint64_t)world_size / n) : 0;
}

uint64_t dist_range_first(int rank, uint64_t n)
{
    return ((uint64_t)rank * n + (uint64_t)world_size - 1) / (uint64_t)world_size;
}

#ifdef CLNETSIM_HAVE_MPI
static int64_t combine_one(dist_op op, int64_t a, int64_t b)
{
    if (op == DIST_SUM)
        return (int64_t)((uint64_t)a + (uint64_t)b);
    if (op == DIST_MIN)
        return a < b ? a : b;
    return a > b ? a : b;
}

/* The user operation of dist_allreduce_each: the buffer is pairs (operation, value), so that
 * one MPI_Op reduces each value by its own operation. */
static void each_op(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    const int64_t *a = in;
    int64_t *b = inout;
    for (int i = 0; i + 1 < *len; i += 2)
        b[i + 1] = combine_one((dist_op)a[i], a[i + 1], b[i + 1]);
}
#endif

int dist_allreduce_each(int64_t *v, const dist_op *ops, int n, cn_error *err)
{
#ifdef CLNETSIM_HAVE_MPI
    if (started && world_size > 1) {
        enum { MOST = 32 };
        if (n > MOST)
            return cn_fail(err, CN_ERR_RUNTIME, "internal error: %d values in one agreement, "
                           "more than %d", n, MOST);
        int64_t pairs[2 * MOST];
        for (int i = 0; i < n; i++) {
            pairs[2 * i] = ops[i];
            pairs[2 * i + 1] = v[i];
        }
        MPI_Op op = MPI_OP_NULL;
        int rc = mpi_check(MPI_Op_create(each_op, 1, &op), "MPI_Op_create", err);
        if (!rc)
            rc = mpi_check(MPI_Allreduce(MPI_IN_PLACE, pairs, 2 * n, MPI_INT64_T, op,
                                         MPI_COMM_WORLD),
                           "MPI_Allreduce", err);
        if (op != MPI_OP_NULL)
            MPI_Op_free(&op);
        for (int i = 0; i < n && !rc; i++)
            v[i] = pairs[2 * i + 1];
        return rc;
    }
#endif
    (void)v;
    (void)ops;
    (void)n;
    (void)err;
    return 0;
}

int dist_gatherv(const void *send, uint64_t n, size_t unit, void **all, uint64_t *total,
                 cn_error *err)
{
    *all = NULL;
    *total = n;
#ifdef CLNETSIM_HAVE_MPI
    if (started && world_size > 1) {
        int R = world_size;
        uint64_t *counts = malloc((size_t)R * sizeof *counts);
        int *rc_n = malloc((size_t)R * sizeof *rc_n), *at = malloc((size_t)R * sizeof *at);
        if (!counts || !rc_n || !at) { /* the others wait in the gather */
            fprintf(stderr, "clnetsim: error: MPI rank %d of %d: out of host memory\n",
                    world_rank, R);
            dist_abort(CN_ERR_RUNTIME);
        }
        /* every rank learns every count, so that all refuse alike what MPI cannot count */
        int rc = mpi_check(MPI_Allgather(&n, 1, MPI_UINT64_T, counts, 1, MPI_UINT64_T,
                                         MPI_COMM_WORLD),
                           "MPI_Allgather", err);
        uint64_t sum = 0;
        for (int r = 0; r < R && !rc; r++)
            sum += counts[r];
        if (!rc && (sum > INT_MAX || unit > INT_MAX))
            rc = cn_fail(err, CN_ERR_RUNTIME, "%llu records of %zu bytes to gather on MPI rank "
                         "0, more than MPI_Gatherv counts (2^31 - 1)", (unsigned long long)sum,
                         unit);
        for (int r = 0, k = 0; r < R && !rc; r++) {
            rc_n[r] = (int)counts[r];
            at[r] = k;
            k += rc_n[r];
        }
        if (!rc && world_rank == 0 && !(*all = malloc(sum * unit > 0 ? sum * unit : 1))) {
            fprintf(stderr, "clnetsim: error: MPI rank 0 of %d: out of host memory for %llu "
                    "bytes gathered from the ranks\n", R, (unsigned long long)sum * unit);
            dist_abort(CN_ERR_RUNTIME);
        }
        MPI_Datatype type = MPI_DATATYPE_NULL;
        if (!rc)
            rc = unit_type(unit, &type, err);
        if (!rc)
            rc = mpi_check(MPI_Gatherv(n ? send : (const void *)&sum, (int)n, type, *all, rc_n,
                                       at, type, 0, MPI_COMM_WORLD),
                           "MPI_Gatherv", err);
        if (type != MPI_DATATYPE_NULL)
            MPI_Type_free(&type);
        free(counts);
        free(rc_n);
        free(at);
        *total = sum;
        if (rc) {
            free(*all);
            *all = NULL;
        }
        return rc;
    }
#endif
    *all = malloc(n * unit > 0 ? n * unit : 1);
    if (!*all)
        return cn_fail(err, CN_ERR_RUNTIME, "out of host memory");
    if (n)
        memcpy(*all, send, n * unit);
    return 0;
}

int dist_allgatherv(const void *send, const uint64_t *counts, size_t unit, void *recv,
                    cn_error *err)
{
#ifdef CLNETSIM_HAVE_MPI
    if (started && world_size > 1) {
        int R = world_size;
        int *n = malloc((size_t)R * sizeof *n), *at = malloc((size_t)R * sizeof *at);
        if (!n || !at) { /* the others wait in the gather */
            fprintf(stderr, "clnetsim: error: MPI rank %d of %d: out of host memory\n",
                    world_rank, R);
            dist_abort(CN_ERR_RUNTIME);
        }
        uint64_t sum = 0;
        for (int r = 0; r < R; r++)
            sum += counts[r];
        int rc = 0;
        if (sum > INT_MAX || unit > INT_MAX)
            rc = cn_fail(err, CN_ERR_RUNTIME, "%llu records of %zu bytes to gather on every MPI "
                         "rank, more than MPI_Allgatherv counts (2^31 - 1)",
                         (unsigned long long)sum, unit);
        for (int r = 0, k = 0; r < R && !rc; r++) {
            n[r] = (int)counts[r];
            at[r] = k;
            k += n[r];
        }
        MPI_Datatype type = MPI_DATATYPE_NULL;
        if (!rc)
            rc = unit_type(unit, &type, err);
        if (!rc)
            rc = mpi_check(MPI_Allgatherv(n[world_rank] ? send : (const void *)&sum,
                                          n[world_rank], type, recv, n, at, type,
                                          MPI_COMM_WORLD),
                           "MPI_Allgatherv", err);
        if (type != MPI_DATATYPE_NULL)
            MPI_Type_free(&type);
        free(n);
        free(at);
        return rc;
    }
#endif
    (void)err;
    if (counts[0])
        memcpy(recv, send, counts[0] * unit);
    return 0;
}

