/* Sections by model. A section belongs to the core (every scenario has it) or to one model's
 * option group (registry.c, config_section_model); [simulation] model may come after the
 * sections it governs, or from -s, so what a scenario may set is decided once the file and
 * every override are in, from the origin each key remembers. */
#include <stdio.h>
#include <string.h>

#include "config/config_internal.h"

/* The first assignment (by key_state.seq) to a section of another model than the scenario's. */
struct config_stray {
    const key_state *st;         /* NULL: none found */
    char section[CONFIG_NAME_MAX + 24];
    const char *key;             /* NULL: a section line that set no key (a flow's) */
    const char *owner;           /* the model the section belongs to */
    const char *considering;     /* the model whose sections are being looked at */
};

void config_stray_consider(config_stray *s, const key_state *st, const char *label,
                           const char *key)
{
    if (st->origin == ORIGIN_DEFAULT)
        return;
    if (s->st && st->seq >= s->st->seq)
        return;
    s->st = st;
    s->key = key;
    s->owner = s->considering;
    snprintf(s->section, sizeof s->section, "%s", label);
}

int config_check_model_sections(load_ctx *ctx)
{
    const scenario *sc = &ctx->sc;
    config_stray s = {NULL, "", NULL, NULL, NULL};
    for (int k = 0; k < config_key_count(); k++) {
        const model_config *group = config_key_group(k);
        if (!group || strcmp(group->model, sc->model) == 0)
            continue;
        s.considering = group->model;
        config_stray_consider(&s, &ctx->keys[k], config_key_at(k)->section,
                              config_key_at(k)->name);
    }
    for (int g = 0; g < config_group_count(); g++) {
        const model_config *group = config_group_at(g);
        if (!group->strays || strcmp(group->model, sc->model) == 0)
            continue;
        s.considering = group->model;
        group->strays(ctx, &s);
    }
    if (!s.st)
        return 0;
    char where[400];
    config_origin_where(ctx, s.st, where, sizeof where);
    if (!s.key)
        return cn_fail(ctx->err, CN_ERR_INPUT,
                       "%s: section [%s] belongs to the %s model, but this scenario's model is "
                       "%s",
                       where, s.section, s.owner, sc->model);
    return cn_fail(ctx->err, CN_ERR_INPUT,
                   "%s: [%s] %s: section [%s] belongs to the %s model, but this scenario's model "
                   "is %s",
                   where, s.section, s.key, s.section, s.owner, sc->model);
}
