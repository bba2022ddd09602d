/* Churn (docs/models/kademlia.md, "Churn"): each peer's online and offline periods, computed
 * once on the host for the whole run and held by every device beside the tables. */
#include <stdlib.h>

#include "common/exp_quantiles.h"
#include "common/philox.h"
#include "models/kademlia/kademlia.h"
#include "models/kademlia/kademlia_model.h"

int kad_make_periods(kad_model *km, cn_error *err)
{
    if (km->session == 0)
        return 0;
    int64_t *q = malloc(2 * EXP_QUANTILES * sizeof *q);
    km->boff = malloc(((size_t)km->N + 1) * sizeof *km->boff);
    size_t cap = (size_t)km->N * 4 + 16, used = 0;
    km->bounds = malloc(cap * sizeof *km->bounds);
    int rc = q && km->boff && km->bounds ? 0 : cn_fail(err, CN_ERR_RUNTIME, "out of host memory "
                                                       "for the peers' churn periods");
    if (!rc) {
        exp_quantiles(km->session, q);
        exp_quantiles(km->offline, q + EXP_QUANTILES);
    }
    for (uint32_t i = 0; i < km->N && rc == 0; i++) {
        km->boff[i] = used;
        int64_t b = 0;
        for (uint32_t p = 0; b <= km->T && rc == 0; p++) {
            philox4x32 w = philox_draw(km->sc.seed, i, p, KAD_STREAM_CHURN);
            int64_t d = q[(p & 1u) * EXP_QUANTILES + (w.v[0] >> 16)];
            b += d > 1 ? d : 1;
            if (used == cap) {
                int64_t *g = realloc(km->bounds, 2 * cap * sizeof *g);
                if (!g) {
                    rc = cn_fail(err, CN_ERR_RUNTIME, "out of host memory for the peers' churn "
                                 "periods");
                    break;
                }
                km->bounds = g;
                cap *= 2;
            }
            km->bounds[used++] = b;
        }
    }
    if (!rc)
        km->boff[km->N] = used;
    free(q);
    return rc;
}

int kad_online(const kad_model *km, uint32_t j, int64_t t)
{
    if (km->session == 0)
        return 1;
    uint64_t lo = km->boff[j], hi = km->boff[j + 1];
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (km->bounds[mid] <= t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return (lo - km->boff[j]) % 2 == 0;
}
