/* The PHOLD model's values: what [phold] holds once a scenario is loaded (docs/models/phold.md,
 * exact semantics there). A phold scenario keeps them in its model values
 * (host/config/config.h); phold_values_of reads them there. */
#ifndef CLNETSIM_PHOLD_VALUES_H
#define CLNETSIM_PHOLD_VALUES_H
#include <stdint.h>

#include "config/config.h"

#define PHOLD_MAX_LPS ((int64_t)2147483647)   /* LP ids are 32-bit on the devices */
#define PHOLD_MAX_POPULATION ((int64_t)1048576)
#define PHOLD_MAX_PER_READ ((int64_t)1000000) /* [phold] windows_per_read */

/* Its keys' offsets (phold_config.c) point into this struct. */
typedef struct phold_values {
    int64_t lps;              /* N >= 1 */
    int64_t population;       /* E >= 1: events per LP at the start */
    double remote;            /* r: the chance that a new event goes to another LP */
    uint64_t remote_threshold; /* thr(r) = floor(r * 2^32), 2^32 for r = 1 */
    int64_t lookahead_ns;     /* A > 0: the least delay of a new event, the window length */
    int64_t mean_ns;          /* M >= 0: the mean of the exponential part of the delay */
    int64_t windows_per_read; /* windows a device runs between read-backs; 0: the run's choice */
} phold_values;

/* The PHOLD values of SC, a scenario of the phold model (sc->model is "phold"). */
static inline const phold_values *phold_values_of(const scenario *sc)
{
    return (const phold_values *)(const void *)sc->model_values.bytes;
}
/* The same, to change them (tests that build a scenario in code). */
static inline phold_values *phold_values_edit(scenario *sc)
{
    return (phold_values *)(void *)sc->model_values.bytes;
}

#endif
