/* Keeping the ranks of CPU devices off the cores that the ranks of GPUs on the same machine
 * need for their hosts (docs/user-guide.md, "Several processes"). A CPU OpenCL runtime (PoCL,
 * Intel's) runs a worker on every core it may use; a GPU rank's host thread, which feeds its
 * GPU and moves MPI's messages, then waits for a core, and its GPU for it. */
#ifndef CLNETSIM_DIST_CORES_H
#define CLNETSIM_DIST_CORES_H
#include <stddef.h>

#include "common/error.h"

/* Collective, once the devices are open (their runtimes' workers exist). GPU: whether this
 * rank drives a GPU or another accelerator; RESERVE: the cores kept for each GPU rank of a
 * machine (0: none kept, nothing changes). On a machine with ranks of both kinds, each GPU
 * rank keeps the RESERVE lowest cores it may run on that no GPU rank of a lower local rank
 * kept; the CPU ranks share the other cores of the machine in contiguous ranges, in local rank
 * order, each within the cores it may run on (what the launcher bound it to), and every
 * thread of a CPU rank is bound there. A rank left with no core of its own keeps what it had
 * less the kept cores, or else what it had. CORES (CAP bytes): the cores this rank's threads
 * may run on afterwards, as a list ("0-3,8"). */
int dist_cores_place(int gpu, int reserve, char *cores, size_t cap, cn_error *err);

/* The cores in MASK (BYTES bytes, bit c of byte c / 8 for core c) as a list "0-3,8" in OUT
 * (CAP bytes; "..." ends a list cut short). */
void dist_cores_text(const unsigned char *mask, size_t bytes, char *out, size_t cap);

#endif
