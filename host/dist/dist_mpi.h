/* What the modules of host/dist share of MPI, never included above that layer. */
#ifndef CLNETSIM_DIST_MPI_H
#define CLNETSIM_DIST_MPI_H
#ifdef CLNETSIM_HAVE_MPI
#include <mpi.h>
#include <stddef.h>

#include "common/error.h"

/* 0, or the error of a failed MPI call CALL (one sentence naming it and the rank). */
int dist_mpi_check(int rc, const char *call, cn_error *err);
/* A committed datatype of UNIT contiguous bytes (counts then count records, not bytes). */
int dist_unit_type(size_t unit, MPI_Datatype *type, cn_error *err);
#endif
#endif
