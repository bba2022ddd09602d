/* Mobility groups: [mobility.group NAME] sections. Each names its nodes by id ranges and may
 * set any [mobility] key; what it leaves out is [mobility]'s, so that a file can say once what
 * the groups share. Nodes of no group move by [mobility]. A node's draws are those of its id
 * (docs/models.md), so moving a node from one group to another changes only that node. */
#include <ctype.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/flood/flood_config.h"

#define GROUP_PREFIX "mobility.group"

int config_is_group_section(const char *section)
{
    return strncmp(section, GROUP_PREFIX, strlen(GROUP_PREFIX)) == 0;
}

/* The group called NAME, created on first use; -1 with the error set when there are already
 * SCENARIO_MAX_GROUPS. */
static int group_index(load_ctx *ctx, const char *name, const char *where, key_state origin)
{
    flood_values *sc = flood_load_values(ctx);
    for (int g = 0; g < sc->n_groups; g++)
        if (strcmp(sc->groups[g].name, name) == 0)
            return g;
    if (sc->n_groups == SCENARIO_MAX_GROUPS) {
        cn_fail(ctx->err, CN_ERR_INPUT,
                "%s: [mobility.group %s] would be group %d: expected at most %d mobility groups "
                "(a group may hold up to %d id ranges)",
                where, name, SCENARIO_MAX_GROUPS + 1, SCENARIO_MAX_GROUPS, GROUP_MAX_RANGES);
        return -1;
    }
    int g = sc->n_groups++;
    memset(&sc->groups[g], 0, sizeof sc->groups[g]);
    snprintf(sc->groups[g].name, sizeof sc->groups[g].name, "%s", name);
    group_state *st = &flood_load_of(ctx)->groups[g];
    memset(st, 0, sizeof *st);
    st->opened = origin;
    return g;
}

void config_format_ranges(const mobility_group *g, char *buf, size_t size)
{
    config_format_id_ranges(g->first, g->last, g->n_ranges, buf, size);
}

/* ---- one key of a group ---------------------------------------------------------------- */

static int fail_group_key(load_ctx *ctx, const char *group, const char *name, const char *where)
{
    int best = -1, best_score = 99;
    for (int k = 0; k < config_key_count(); k++) {
        if (k != K_GROUP_NODES && strcmp(config_key_at(k)->section, "mobility") != 0)
            continue;
        int s = config_name_nearness(name, config_key_at(k)->name);
        if (s >= 0 && s < best_score) {
            best = k;
            best_score = s;
        }
    }
    if (best >= 0)
        return cn_fail(ctx->err, CN_ERR_INPUT,
                       "%s: [mobility.group %s] unknown key '%.64s'; did you mean '%s'?", where,
                       group, name, config_key_at(best)->name);
    return cn_fail(ctx->err, CN_ERR_INPUT,
                   "%s: [mobility.group %s] unknown key '%.64s'; a group takes nodes and the "
                   "keys of [mobility]: model, speed_min, speed_max, pause_min, pause_max, "
                   "travel_min, travel_max, street_spacing, boundary",
                   where, group, name);
}

int config_assign_group(load_ctx *ctx, const char *section, const char *name, const char *value,
                        const char *where, key_state origin)
{
    char gname[GROUP_NAME_MAX];
    if (config_section_name(section, GROUP_PREFIX, gname) != 0)
        return cn_fail(ctx->err, CN_ERR_INPUT,
                       "%s: section [%.64s] (key '%.64s'): expected [mobility.group NAME], NAME "
                       "of 1 to %d letters, digits, '_' or '-'",
                       where, section, name, GROUP_NAME_MAX - 1);
    if (name[0] == '\0')
        return cn_fail(ctx->err, CN_ERR_INPUT,
                       "%s: [mobility.group %s] '= %.200s' has no key name before '='", where,
                       gname, value);
    int key = strcmp(name, "nodes") == 0 ? K_GROUP_NODES : config_find_key("mobility", name);
    if (key < 0)
        return fail_group_key(ctx, gname, name, where);
    int g = group_index(ctx, gname, where, origin);
    if (g < 0)
        return CN_ERR_INPUT;
    group_state *st = &flood_load_of(ctx)->groups[g];
    if (origin.origin == ORIGIN_FILE && st->keys[key].origin == ORIGIN_FILE)
        return cn_fail(ctx->err, CN_ERR_INPUT,
                       "%s: [mobility.group %s] %s is set twice (first on line %d); keep only "
                       "one of them",
                       where, gname, name, st->keys[key].line);
    char label[GROUP_NAME_MAX + 16];
    snprintf(label, sizeof label, "mobility.group %s", gname);
    mobility_group *grp = &flood_load_values(ctx)->groups[g];
    int rc = key == K_GROUP_NODES
                 ? config_parse_id_ranges(ctx, label, key, value, where, GROUP_MAX_RANGES,
                                          grp->first, grp->last, &grp->n_ranges)
                 : config_set_value_at(ctx, &st->values, label, key, value, where);
    if (rc != 0)
        return CN_ERR_INPUT;
    st->keys[key] = origin;
    return 0;
}

const char *config_group_key_where(const load_ctx *ctx, int g, int key, char *buf, size_t size)
{
    const key_state *st = &flood_load_of(ctx)->groups[g].keys[key];
    if (st->origin == ORIGIN_DEFAULT)
        return config_key_where(ctx, key, buf, size);
    return config_origin_where(ctx, st, buf, size);
}

static const char *opened_where(const load_ctx *ctx, int g, char *buf, size_t size)
{
    return config_origin_where(ctx, &flood_load_of(ctx)->groups[g].opened, buf, size);
}

/* ---- once every value is in ------------------------------------------------------------ */

/* A range of some group, for sorting and the overlap check. */
typedef struct id_range {
    int64_t first, last;
    int group, index;
} id_range;

static int by_first(const void *a, const void *b)
{
    const id_range *x = a, *y = b;
    return x->first < y->first ? -1 : x->first > y->first;
}

/* All ranges of SC's groups, sorted by first id: at most SCENARIO_MAX_GROUPS x
 * GROUP_MAX_RANGES entries. */
static int sorted_ranges(const flood_values *sc, id_range *out)
{
    int n = 0;
    for (int g = 0; g < sc->n_groups; g++)
        for (int r = 0; r < sc->groups[g].n_ranges; r++)
            out[n++] = (id_range){sc->groups[g].first[r], sc->groups[g].last[r], g, r};
    if (n > 1)
        qsort(out, (size_t)n, sizeof *out, by_first);
    return n;
}

int config_finish_groups(load_ctx *ctx)
{
    flood_values *sc = flood_load_values(ctx);
    char where[300], text[200];
    for (int g = 0; g < sc->n_groups; g++) {
        mobility_group *grp = &sc->groups[g];
        group_state *st = &flood_load_of(ctx)->groups[g];
        if (st->keys[K_GROUP_NODES].origin == ORIGIN_DEFAULT)
            return cn_fail(ctx->err, CN_ERR_INPUT,
                           "%s: [mobility.group %s] has no nodes key: expected nodes = the ids "
                           "of its nodes, such as 0-99",
                           opened_where(ctx, g, where, sizeof where), grp->name);
        for (int r = 0; r < grp->n_ranges; r++)
            if (grp->last[r] >= sc->nodes) {
                config_format_ranges(grp, text, sizeof text);
                return cn_fail(ctx->err, CN_ERR_INPUT,
                               "%s: [mobility.group %s] nodes = %s: node %lld does not exist; "
                               "expected ids in [0, %lld] (the scenario has %lld nodes)",
                               config_group_key_where(ctx, g, K_GROUP_NODES, where,
                                                      sizeof where),
                               grp->name, text, (long long)grp->last[r],
                               (long long)(sc->nodes - 1), (long long)sc->nodes);
            }
        /* keys the group did not set are [mobility]'s */
        memcpy(&grp->mob, &sc->mob, sizeof grp->mob);
        for (int k = 0; k < config_key_count(); k++) {
            if (strcmp(config_key_at(k)->section, "mobility") != 0 ||
                st->keys[k].origin == ORIGIN_DEFAULT)
                continue;
            size_t off = config_key_at(k)->offset - offsetof(flood_values, mob);
            size_t bytes = config_key_at(k)->type == KT_CHOICE ? sizeof(int) : sizeof(int64_t);
            memcpy((char *)&grp->mob + off, (const char *)&st->values.mob + off, bytes);
        }
    }
    id_range all[SCENARIO_MAX_GROUPS * GROUP_MAX_RANGES];
    int n = sorted_ranges(sc, all);
    for (int i = 1; i < n; i++) {
        const id_range *a = &all[i - 1], *b = &all[i];
        if (b->first > a->last)
            continue;
        /* report the later-set one: likely the mistake */
        const id_range *late = b->group >= a->group ? b : a, *early = late == b ? a : b;
        char other[200];
        config_format_ranges(&sc->groups[late->group], text, sizeof text);
        config_format_ranges(&sc->groups[early->group], other, sizeof other);
        int64_t node = b->first;
        if (late->group == early->group)
            return cn_fail(ctx->err, CN_ERR_INPUT,
                           "%s: [mobility.group %s] nodes = %s: node %lld is in two of its "
                           "ranges; expected ranges that do not overlap",
                           config_group_key_where(ctx, late->group, K_GROUP_NODES, where,
                                                  sizeof where),
                           sc->groups[late->group].name, text, (long long)node);
        return cn_fail(ctx->err, CN_ERR_INPUT,
                       "%s: [mobility.group %s] nodes = %s: node %lld is also in [mobility.group "
                       "%s] (nodes = %s); expected each node in at most one group",
                       config_group_key_where(ctx, late->group, K_GROUP_NODES, where,
                                              sizeof where),
                       sc->groups[late->group].name, text, (long long)node,
                       sc->groups[early->group].name, other);
    }
    return 0;
}

void config_dump_groups(const flood_values *sc, FILE *out)
{
    for (int g = 0; g < sc->n_groups; g++) {
        const mobility_group *grp = &sc->groups[g];
        char text[256];
        config_format_ranges(grp, text, sizeof text);
        fprintf(out, "\n[mobility.group %s]\nnodes = %s\n", grp->name, text);
        /* every key, so that the dump does not depend on [mobility] staying as it is */
        flood_values view;
        memset(&view, 0, sizeof view);
        view.mob = grp->mob;
        for (int k = 0; k < config_key_count(); k++) {
            if (strcmp(config_key_at(k)->section, "mobility") != 0)
                continue;
            config_format_value_at(&view, k, text, sizeof text);
            fprintf(out, "%s = %s\n", config_key_at(k)->name, text);
        }
    }
}

/* ---- questions the engine and the tools ask -------------------------------------------- */

const mobility_params *flood_node_mobility(const flood_values *sc, int64_t id)
{
    for (int g = 0; g < sc->n_groups; g++)
        for (int r = 0; r < sc->groups[g].n_ranges; r++)
            if (id >= sc->groups[g].first[r] && id <= sc->groups[g].last[r])
                return &sc->groups[g].mob;
    return &sc->mob;
}

int flood_mobility_segments(const flood_values *sc, mobility_segment *out)
{
    id_range all[SCENARIO_MAX_GROUPS * GROUP_MAX_RANGES];
    int n = sorted_ranges(sc, all), count = 0;
    int64_t nodes = flood_node_count(sc), at = 0;
    for (int i = 0; i <= n && at < nodes; i++) {
        int64_t first = i < n ? all[i].first : nodes;
        if (first > nodes)
            first = nodes;
        /* [mobility]'s nodes up to this range, then the range */
        mobility_segment pieces[2] = {{at, first, &sc->mob, -1}, {0, 0, NULL, -1}};
        int n_pieces = first > at ? 1 : 0;
        if (i < n) {
            int64_t end = all[i].last + 1 < nodes ? all[i].last + 1 : nodes;
            if (end > first)
                pieces[n_pieces++] =
                    (mobility_segment){first, end, &sc->groups[all[i].group].mob, all[i].group};
            at = end > at ? end : at;
        } else {
            at = nodes;
        }
        for (int p = 0; p < n_pieces; p++) {
            if (count > 0 && out[count - 1].group == pieces[p].group &&
                out[count - 1].end == pieces[p].first)
                out[count - 1].end = pieces[p].end;
            else
                out[count++] = pieces[p];
        }
    }
    return count;
}

int flood_is_mobile(const flood_values *sc)
{
    mobility_segment seg[SCENARIO_MAX_SEGMENTS];
    int n = flood_mobility_segments(sc, seg);
    for (int i = 0; i < n; i++)
        if (seg[i].mob->model != MOBILITY_STATIC)
            return 1;
    return 0;
}

int64_t flood_speed_max(const flood_values *sc)
{
    mobility_segment seg[SCENARIO_MAX_SEGMENTS];
    int n = flood_mobility_segments(sc, seg);
    int64_t v = 0;
    for (int i = 0; i < n; i++)
        if (seg[i].mob->model != MOBILITY_STATIC && seg[i].mob->speed_max_mm_s > v)
            v = seg[i].mob->speed_max_mm_s;
    return v;
}

int flood_wraps(const flood_values *sc)
{
    mobility_segment seg[SCENARIO_MAX_SEGMENTS];
    int n = flood_mobility_segments(sc, seg);
    for (int i = 0; i < n; i++) {
        int m = seg[i].mob->model;
        if ((m == MOBILITY_LINEAR || m == MOBILITY_RANDOM_WALK ||
             m == MOBILITY_RANDOM_DIRECTION) &&
            seg[i].mob->boundary == BOUNDARY_WRAP)
            return 1;
    }
    return 0;
}
