/* Sections by model, and the rules of the phold model. A section belongs to the core (every
 * scenario has it) or to one model (schema.c, config_section_model); [simulation] model may
 * come after the sections it governs, or from -s, so what a scenario may set is decided once
 * the file and every override are in, from the origin each key remembers. */
#include <stdio.h>
#include <string.h>

#include "config/config_internal.h"

int config_is_phold(const scenario *sc) { return strcmp(sc->model, "phold") == 0; }

/* The first assignment (by key_state.seq) to a section of another model than the scenario's. */
typedef struct stray {
    const key_state *st;         /* NULL: none found */
    char section[GROUP_NAME_MAX + 24];
    const char *key;             /* NULL: a section line that set no key (a flow's) */
    const char *owner;           /* the model the section belongs to */
} stray;

/* Considers ST, set in SECTION (LABEL in messages) for KEY (NULL: the section line of a flow
 * that sets no key). */
static void consider(stray *s, const key_state *st, const char *section, const char *label,
                     const char *key, const char *model)
{
    if (st->origin == ORIGIN_DEFAULT)
        return;
    const char *owner = config_section_model(section);
    if (!owner || strcmp(owner, model) == 0)
        return;
    if (s->st && st->seq >= s->st->seq)
        return;
    s->st = st;
    s->key = key;
    s->owner = owner;
    snprintf(s->section, sizeof s->section, "%s", label);
}

int config_check_model_sections(load_ctx *ctx)
{
    const scenario *sc = &ctx->sc;
    stray s = {NULL, "", NULL, NULL};
    for (int k = 0; k < K_COUNT; k++)
        consider(&s, &ctx->keys[k], config_keys[k].section, config_keys[k].section,
                 config_keys[k].name, sc->model);
    char label[GROUP_NAME_MAX + 24];
    for (int g = 0; g < sc->n_groups; g++) {
        snprintf(label, sizeof label, "mobility.group %s", sc->groups[g].name);
        for (int k = 0; k < K_COUNT; k++)
            consider(&s, &ctx->groups[g].keys[k], "mobility.group NAME", label,
                     config_keys[k].name, sc->model);
    }
    for (int f = 0; f < sc->n_flows; f++) {
        snprintf(label, sizeof label, "traffic.flow %s", sc->flows[f].name);
        int keys = 0;
        for (int k = 0; k < K_COUNT; k++) {
            consider(&s, &ctx->flows[f].keys[k], FLOW_SECTION, label, config_keys[k].name,
                     sc->model);
            keys += ctx->flows[f].keys[k].origin != ORIGIN_DEFAULT;
        }
        if (keys == 0) /* a section line alone makes a flow */
            consider(&s, &ctx->flows[f].opened, FLOW_SECTION, label, NULL, sc->model);
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

/* Every executed event has t < duration; its new event lands at most lookahead plus the
 * largest exponential delay later, and the table's largest entry, -M ln(0.5 / 65536), is
 * below 12 M; a window ends one lookahead after its least time. So no time a phold run
 * computes passes duration + 2 x lookahead + 12 x mean, which must stay within the clock's
 * limit (config.h, SCENARIO_MAX_TIME_NS). */
#define PHOLD_DELAY_MEANS 12

/* WHERE(K_A, K_B, ...): where the one of those keys set last was set (checks.c). */
#define KEY_LIST(...) ((const int[]){__VA_ARGS__})
#define WHERE(...)                                                                          \
    config_where_latest(ctx, KEY_LIST(__VA_ARGS__),                                         \
                        (int)(sizeof KEY_LIST(__VA_ARGS__) / sizeof(int)), where, sizeof where)

int config_check_phold(load_ctx *ctx)
{
    const scenario *sc = &ctx->sc;
    const phold_params *p = &sc->phold;
    char where[400], a[64], b[64], c[64], d[64];
    if (sc->duration_ns <= 0)
        return cn_fail(ctx->err, CN_ERR_INPUT,
                       "%s: [simulation] duration: the phold model needs a duration > 0: its "
                       "events never run out",
                       WHERE(K_DURATION, K_MODEL));
    /* Both follow from the keys' ranges (lps < 2^31, population <= 2^20); kept here so that
     * widening a range cannot let the event count overflow or LP ids pass 32 bits. */
    int64_t events = 0;
    if (__builtin_mul_overflow(p->lps, p->population, &events) ||
        (uint64_t)p->lps > UINT32_MAX)
        return cn_fail(ctx->err, CN_ERR_INPUT,
                       "%s: [phold] lps = %lld with population = %lld: expected at most "
                       "4294967295 LPs and lps x population within int64",
                       WHERE(K_PHOLD_LPS, K_PHOLD_POPULATION), (long long)p->lps,
                       (long long)p->population);
    typedef unsigned __int128 wide;
    wide end = (wide)sc->duration_ns + 2 * (wide)p->lookahead_ns +
               PHOLD_DELAY_MEANS * (wide)p->mean_ns;
    if (end > (wide)SCENARIO_MAX_TIME_NS) {
        config_format_value(sc, K_DURATION, a, sizeof a);
        config_format_value(sc, K_PHOLD_LOOKAHEAD, b, sizeof b);
        config_format_value(sc, K_PHOLD_MEAN, c, sizeof c);
        format_scaled(SCENARIO_MAX_TIME_NS, 9, d, sizeof d);
        return cn_fail(ctx->err, CN_ERR_INPUT,
                       "%s: [simulation] duration = %s s with [phold] lookahead = %s s and mean "
                       "= %s s: simulated time could pass %s s (2^62 ns, about 146 years), the "
                       "limit of the simulation clock; expected duration + 2 x lookahead + %d x "
                       "mean <= %s s",
                       WHERE(K_DURATION, K_PHOLD_LOOKAHEAD, K_PHOLD_MEAN), a, b, c, d,
                       PHOLD_DELAY_MEANS, d);
    }
    return 0;
}
