/* The table of 65536 exponential quantiles that draws of an exponential law read (PHOLD's
 * delays, docs/models/phold.md, "The table of delays"; Kademlia's churn periods,
 * docs/models/kademlia.md, "Churn"): a draw's top 16 bits index it. */
#ifndef CLNETSIM_EXP_QUANTILES_H
#define CLNETSIM_EXP_QUANTILES_H
#include <stdint.h>

#define EXP_QUANTILES 65536

/* TABLE[j] = llround(-MEAN_NS * log1p(-(j + 0.5) / 65536)), in ns: the quantiles of the
 * exponential law of mean MEAN_NS at the midpoints of 65536 equal slices (all 0 for 0). */
void exp_quantiles(int64_t mean_ns, int64_t table[EXP_QUANTILES]);

#endif
