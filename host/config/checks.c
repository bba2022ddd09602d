/* Rules between keys, checked once the file and every override are in: the core's part. The
 * rules of a model, and its derived fields, are its option group's (host/models/X); its values
 * reach the scenario here, at the end of the load. */
#include <stdio.h>
#include <string.h>

#include "config/config_internal.h"

/* Where to point for a rule about several keys: the value set last is the likely culprit,
 * so an override beats a file line, and a later line beats an earlier one. */
const char *config_where_latest(const load_ctx *ctx, const int *keys, int n, char *buf,
                                size_t size)
{
    int best = -1, best_rank = -1;
    for (int i = 0; i < n; i++) {
        const key_state *st = &ctx->keys[keys[i]];
        int rank = st->origin == ORIGIN_OVERRIDE ? 1 << 30
                   : st->origin == ORIGIN_FILE   ? st->line
                                                 : 0;
        if (rank > best_rank) {
            best = keys[i];
            best_rank = rank;
        }
    }
    return config_key_where(ctx, best, buf, size);
}

int config_finish(load_ctx *ctx)
{
    /* first whether every section set belongs to the model: another model's keys would
     * otherwise meet rules that do not concern this scenario */
    int rc = config_check_model_sections(ctx);
    const model_config *group = config_group_of(ctx->sc.model);
    if (rc == 0 && group && group->check)
        rc = group->check(ctx);
    if (rc != 0 || !group)
        return rc;
    /* the model's derived fields: its values are then a function of its keys alone (a dump
     * reloads to the same bytes); they become the scenario's, the rest of the block zero */
    void *values = config_values(ctx, group);
    if (group->derive)
        group->derive(values);
    memset(&ctx->sc.model_values, 0, sizeof ctx->sc.model_values);
    memcpy(ctx->sc.model_values.bytes, values, group->values_size);
    return 0;
}
