/* The run's processes (docs/architecture.md, "Distributed runs"): the ranks of MPI when the
 * binary was built with it (CMake option CLNETSIM_MPI) and a launcher (mpirun, mpiexec, srun)
 * started the process, otherwise this process alone. Everything above this layer asks for the
 * rank, the number of ranks and the collective operations here, and never calls MPI itself;
 * with one process the operations are the identity, so that a single-process run behaves and
 * costs as if MPI did not exist.
 *
 * Every MPI call is checked (MPI_ERRORS_RETURN on the world communicator): a failure becomes
 * one sentence naming the call and the rank. A collective whose ranks disagree on an error
 * goes through dist_agree, which hands every rank the first failing rank's sentence. */
#ifndef CLNETSIM_DIST_H
#define CLNETSIM_DIST_H
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"

/* Starts MPI when the process was launched by an MPI launcher and the build has MPI; else
 * (and for a launcher's single process) the stand-in of one rank. Takes the command line's
 * ARGC and ARGV as MPI_Init does. Call once, before anything else. */
int dist_init(int *argc, char ***argv, cn_error *err);
/* Ends MPI, if started; the last call of the process. */
void dist_finalize(void);
/* Ends every rank at once with status CODE (a rank that cannot go on while others wait in a
 * collective); with one process, exit(CODE). */
void dist_abort(int code) __attribute__((noreturn));

int dist_rank(void);        /* 0 .. dist_size() - 1 */
int dist_size(void);        /* the run's ranks, 1 without MPI */
/* The rank among those of its machine, and how many share the machine (the node-local GPU of
 * a rank is its local rank's) */
int dist_local_rank(void);
int dist_local_size(void);
/* The machine of this rank, the same for the ranks that share it: the lowest world rank
 * among them (0 with one process) */
int dist_node(void);
/* Test hook CLNETSIM_TEST_RANK_SLOWER=F (a whole number from 1 to 1000): the factor by which
 * this rank measures itself slower than the others, instead of reading the clock: F on the
 * rank CLNETSIM_TEST_RANK names, 1 on the others; 0 when the hook is off. The coordinators
 * (the flood's whole packets, PHOLD's) then see shares follow set speeds, whatever else the
 * machine runs meanwhile. */
int dist_test_slower(void);
/* What a rank's own lines on stderr begin with, after "clnetsim: ": "MPI rank R: " when the
 * run has several ranks (each reports on its own devices), else "" */
const char *dist_who(void);
/* A scope in which this process is alone: dist_rank() is 0, dist_size() 1 and every
 * collective a no-op, until the matching dist_alone_end(). For what one rank runs by itself
 * while the others wait, a device's first-use self-test and tuning (their runs would
 * otherwise enter the model's collectives, which the other ranks are not in). Nests. */
void dist_alone_begin(void);
void dist_alone_end(void);
/* Whether MPI was started (0: the single-process stand-in) */
int dist_is_mpi(void);
/* The MPI library's version line ("Open MPI v4.1.4, ..."), or "none" */
const char *dist_library(void);

typedef enum dist_op { DIST_SUM, DIST_MIN, DIST_MAX } dist_op;
/* V[0 .. N) on every rank becomes the reduction OP of every rank's V, on every rank (sums
 * wrap modulo 2^64, as the counters' integer sums do: the order cannot matter). */
int dist_allreduce_u64(uint64_t *v, int n, dist_op op, cn_error *err);
int dist_allreduce_i64(int64_t *v, int n, dist_op op, cn_error *err);
/* BYTES of BUF from rank ROOT to every rank. */
int dist_bcast(void *buf, size_t bytes, int root, cn_error *err);
/* Every rank's BYTES of SEND, in rank order, into RECV (dist_size() x BYTES) on every rank. */
int dist_allgather(const void *send, void *recv, size_t bytes, cn_error *err);

/* One reduction of N values, each by its own operation OPS[I], in place on every rank: the
 * window's agreement in one collective (the least next time, the greatest stop signal, the
 * sum of events ...). Sums wrap modulo 2^64. */
int dist_allreduce_each(int64_t *v, const dist_op *ops, int n, cn_error *err);

/* Returned (with ERR untouched) by a collective that carries failures, when another rank
 * said it failed and this one did not: the caller stops and the agreement that follows
 * (dist_agree) hands out the failing rank's sentence. */
#define DIST_PEER_FAILED 64

/* Collective: rank 0 receives every rank's N units of UNIT bytes from SEND, in rank order,
 * into *ALL (malloc'ed, the caller frees it; NULL elsewhere), *TOTAL units in all. With one
 * process, a copy. An error (the same on every rank) when the units pass what MPI counts. */
int dist_gatherv(const void *send, uint64_t n, size_t unit, void **all, uint64_t *total,
                 cn_error *err);

/* Collective: every rank receives every rank's COUNTS[R] units of UNIT bytes, in rank order,
 * into RECV (room for their sum); this rank's come from SEND. Every rank passes the same
 * COUNTS. With one process, a copy. An error (the same on every rank) when the units pass
 * what MPI counts. */
int dist_allgatherv(const void *send, const uint64_t *counts, size_t unit, void *recv,
                    cn_error *err);

/* Contiguous ranges: the rank that holds item I of N when the items are cut into
 * dist_size() ranges of nearly equal length in rank order (rank r holds [first(r),
 * first(r + 1))), and the first item of rank R. */
int dist_range_rank(uint64_t i, uint64_t n);
uint64_t dist_range_first(int rank, uint64_t n);

/* A run of bytes to or from one rank (dist_transfer). */
typedef struct dist_piece {
    int rank;
    void *buf;              /* read for a send, written for a receive */
    uint64_t bytes;
} dist_piece;

/* Point to point: OUT's N_OUT pieces sent to their ranks and IN's N_IN received from theirs,
 * each piece of the size its sender sends (the pieces between two ranks taken in the order
 * they are passed), moved in parts of at most 1 GiB; returns once all are done. Every rank
 * passes the pieces the others expect of it (one with nothing to move passes none). */
int dist_transfer(const dist_piece *out, int n_out, const dist_piece *in, int n_in,
                  cn_error *err);

/* Collective: rank 0 receives every rank's TEXT (a C string), in rank order, as one string
 * in *ALL (malloc'ed; the caller frees it); the other ranks get *ALL = NULL. */
int dist_gather_text(const char *text, char **all, cn_error *err);

/* Collective: whether any rank failed (RC non-zero), and if one did, the lowest failing
 * rank's error in ERR on every rank (its code and sentence, which names that rank when there
 * are several). Returns that error's code, 0 when every rank succeeded. */
int dist_agree(int rc, cn_error *err);

#endif
