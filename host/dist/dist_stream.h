/* Streams of records between ranks within a window (docs/architecture.md, "Several ranks"):
 * a rank sends a bundle to another as soon as it is ready (dist_stream_send, non-blocking),
 * takes in whatever has arrived whenever it has a moment (dist_stream_poll), and at the
 * window's end one collective (dist_stream_end) tells every rank how many bundles each other
 * rank sent it, receives the rest and completes the sends. So the exchange of a window's
 * first records overlaps the devices' work on the rest, instead of waiting for all of them.
 *
 * A bundle is N units of A_UNIT bytes (A) and N of B_UNIT bytes (B), sent as they lie, in two
 * messages; what arrives lands in one arena of host memory, the A units of every bundle one
 * after the other and the B units likewise, in the order of arrival (which varies from run
 * to run: a consumer must not depend on it). The arena comes from the caller's allocator
 * (pinned memory, which the devices copy from several times faster). */
#ifndef CLNETSIM_DIST_STREAM_H
#define CLNETSIM_DIST_STREAM_H
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"

/* Host memory for the arena: ALLOC returns BYTES of it (its handle in *HANDLE) or NULL;
 * RELEASE frees one. */
typedef struct dist_host_memory {
    void *ctx;
    void *(*alloc)(void *ctx, size_t bytes, void **handle);
    void (*release)(void *ctx, void *handle, void *area);
} dist_host_memory;

typedef struct dist_stream dist_stream;

/* A stream of bundles of A_UNIT + B_UNIT bytes a record, its arena from MEM. */
int dist_stream_create(dist_stream **s, size_t a_unit, size_t b_unit,
                       const dist_host_memory *mem, cn_error *err);
void dist_stream_destroy(dist_stream *s);
/* Sends rank TO (not this one) N records, A and B, which stay unchanged until
 * dist_stream_end returns. */
int dist_stream_send(dist_stream *s, int to, const void *a, const void *b, uint64_t n,
                     cn_error *err);
/* Takes in the bundles that have arrived (their receives started; no wait). */
int dist_stream_poll(dist_stream *s, cn_error *err);
/* Collective, once per window: receives every bundle sent to this rank and completes every
 * send. FAILED non-zero: this rank failed in the window; it takes part (what it already sent
 * is received and dropped) and gets FAILED back, the others DIST_PEER_FAILED. */
int dist_stream_end(dist_stream *s, int failed, cn_error *err);
/* What arrived in the window that dist_stream_end closed: the number of records, *A and *B
 * their two arrays (valid until the next send or poll). */
uint64_t dist_stream_arrived(const dist_stream *s, const void **a, const void **b);

#endif
