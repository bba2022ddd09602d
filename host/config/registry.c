/* The registry of keys: the core's table (schema.c) and the option group of every model of the
 * model table, built once at the first question. Ids are stable for a build (the core's first,
 * then each group in table order); the order in which keys are shown and searched is a
 * separate list, chosen so that a scenario of the default model dumps its sections in that
 * order: [simulation], the default model's sections, the other core sections; then the other
 * models' sections. [simulation] model's choices, default and help come from the table. */
#include <stdio.h>
#include <string.h>

#include "config/config_internal.h"

#define MAX_SECTIONS 64

typedef struct registry {
    int built;
    int n_keys;
    const config_key *key[CONFIG_MAX_KEYS];
    int group[CONFIG_MAX_KEYS];            /* index into groups, -1 for the core */
    int order[CONFIG_MAX_KEYS];
    int n_groups;
    const model_config *groups[CONFIG_MAX_MODELS];
    const char *sections[MAX_SECTIONS + 1]; /* fixed ones, NULL-terminated */
    char section_list[1024];                /* every one, named ones included */
    config_key model_key;                   /* [simulation] model, completed from the table */
    const char *model_choices[CONFIG_MAX_MODELS + 1];
    char model_help[2048];
} registry;

static registry reg;
static const model_config *extra[CONFIG_MAX_MODELS];
static int n_extra;

int config_check_values_size(const model_config *group, cn_error *err)
{
    if (group->values_size <= SCENARIO_MODEL_BYTES)
        return 0;
    return cn_fail(err, CN_ERR_RUNTIME,
                   "model %s: its values take %zu bytes, more than the %d bytes a scenario keeps "
                   "for its model's values (SCENARIO_MODEL_BYTES, host/config/config.h); expected "
                   "a smaller values struct or a larger SCENARIO_MODEL_BYTES",
                   group->model, group->values_size, SCENARIO_MODEL_BYTES);
}

int config_register_model(const model_config *group, cn_error *err)
{
    int rc = config_check_values_size(group, err);
    if (rc != 0)
        return rc;
    if (n_extra == CONFIG_MAX_MODELS)
        return cn_fail(err, CN_ERR_RUNTIME, "model %s: at most %d models can be registered",
                       group->model, CONFIG_MAX_MODELS);
    extra[n_extra++] = group;
    reg.built = 0;
    return 0;
}

/* "Model to simulate: a (...), b (...) or c (...). A scenario may set ..." */
static void model_help(registry *r)
{
    size_t used = 0, size = sizeof r->model_help;
    used += (size_t)snprintf(r->model_help, size, "Model to simulate: ");
    for (int g = 0; g < r->n_groups && used < size; g++) {
        const char *sep = g == 0 ? "" : g == r->n_groups - 1 ? " or " : ", ";
        used += (size_t)snprintf(r->model_help + used, size - used, "%s%s (%s)", sep,
                                 r->groups[g]->model, r->groups[g]->summary);
    }
    if (used < size)
        snprintf(r->model_help + used, size - used,
                 ". A scenario may set the core sections and those of its model only; a key of "
                 "another model's section is an error.");
}

static void add_key(registry *r, const config_key *k, int group)
{
    r->key[r->n_keys] = k;
    r->group[r->n_keys] = group;
    r->n_keys++;
}

static void add_order(registry *r, int *n, int id) { r->order[(*n)++] = id; }

static int listed(const char *const *list, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (strcmp(list[i], name) == 0)
            return 1;
    return 0;
}

/* The sections in key order: the fixed ones in SECTIONS, every one in SECTION_LIST. */
static void list_sections(registry *r)
{
    const char *all[CONFIG_MAX_KEYS];
    int n_all = 0, n_fixed = 0;
    size_t used = 0;
    r->section_list[0] = '\0';
    for (int i = 0; i < r->n_keys; i++) {
        const char *s = r->key[r->order[i]]->section;
        if (listed(all, n_all, s))
            continue;
        all[n_all++] = s;
        if (!strchr(s, ' ') && n_fixed < MAX_SECTIONS)
            r->sections[n_fixed++] = s;
        if (used < sizeof r->section_list)
            used += (size_t)snprintf(r->section_list + used, sizeof r->section_list - used,
                                     "%s%s", used ? ", " : "", s);
    }
    r->sections[n_fixed] = NULL;
}

static void build(void)
{
    registry *r = &reg;
    memset(r, 0, sizeof *r);
    int n_table = 0;
    const model_config *const *table = model_config_table(&n_table);
    for (int i = 0; i < n_table + n_extra && r->n_groups < CONFIG_MAX_MODELS; i++)
        r->groups[r->n_groups++] = i < n_table ? table[i] : extra[i - n_table];

    /* ids: the core's, then each group's */
    r->model_key = config_core_keys[K_MODEL];
    for (int k = 0; k < K_CORE_COUNT; k++)
        add_key(r, k == K_MODEL ? &r->model_key : &config_core_keys[k], -1);
    for (int g = 0; g < r->n_groups; g++) {
        const model_config *m = r->groups[g];
        *m->first_key = r->n_keys;
        for (int k = 0; k < m->n_keys && r->n_keys < CONFIG_MAX_KEYS; k++)
            add_key(r, &m->keys[k], g);
        r->model_choices[g] = m->model;
    }
    r->model_choices[r->n_groups] = NULL;
    r->model_key.choices = r->model_choices;
    r->model_key.def = r->n_groups ? r->groups[0]->model : "";
    model_help(r);
    r->model_key.help = r->model_help;

    /* the order */
    int n = 0;
    for (int k = 0; k < K_CORE_COUNT; k++)
        if (strcmp(config_core_keys[k].section, "simulation") == 0)
            add_order(r, &n, k);
    for (int g = 0; g < r->n_groups; g++) {
        for (int id = 0; id < r->n_keys; id++)
            if (r->group[id] == g)
                add_order(r, &n, id);
        if (g == 0)
            for (int k = 0; k < K_CORE_COUNT; k++)
                if (strcmp(config_core_keys[k].section, "simulation") != 0)
                    add_order(r, &n, k);
    }
    if (r->n_groups == 0)
        for (int k = 0; k < K_CORE_COUNT; k++)
            if (strcmp(config_core_keys[k].section, "simulation") != 0)
                add_order(r, &n, k);
    list_sections(r);
    r->built = 1;
}

static const registry *get(void)
{
    if (!reg.built)
        build();
    return &reg;
}

int config_key_count(void) { return get()->n_keys; }

const config_key *config_key_at(int id) { return get()->key[id]; }

int config_key_in_order(int i) { return get()->order[i]; }

const model_config *config_key_group(int id)
{
    const registry *r = get();
    return r->group[id] < 0 ? NULL : r->groups[r->group[id]];
}

int config_key_group_index(int id) { return get()->group[id]; }

int config_group_count(void) { return get()->n_groups; }

const model_config *config_group_at(int i) { return get()->groups[i]; }

const model_config *config_group_of(const char *model)
{
    const registry *r = get();
    for (int g = 0; g < r->n_groups; g++)
        if (strcmp(r->groups[g]->model, model) == 0)
            return r->groups[g];
    return NULL;
}

int config_is_named_key(int key) { return strchr(config_key_at(key)->section, ' ') != NULL; }

const char *const *config_section_names(void) { return get()->sections; }

const char *config_section_list(void) { return get()->section_list; }

const char *config_section_model(const char *section)
{
    const registry *r = get();
    for (int id = 0; id < r->n_keys; id++)
        if (strcmp(r->key[id]->section, section) == 0)
            return r->group[id] < 0 ? NULL : r->groups[r->group[id]]->model;
    return NULL;
}

int config_section_known(const char *section)
{
    for (const char *const *s = config_section_names(); *s; s++)
        if (strcmp(*s, section) == 0)
            return 1;
    return 0;
}

int config_find_key(const char *section, const char *name)
{
    const registry *r = get();
    for (int id = 0; id < r->n_keys; id++)
        if (strcmp(r->key[id]->section, section) == 0 && strcmp(r->key[id]->name, name) == 0)
            return id;
    return -1;
}

static int group_index(const model_config *group)
{
    const registry *r = get();
    for (int g = 0; g < r->n_groups; g++)
        if (r->groups[g] == group)
            return g;
    return -1;
}

void *config_load_state(const load_ctx *ctx, const model_config *group)
{
    int g = group_index(group);
    return g < 0 ? NULL : ctx->group_state[g];
}

void *config_values(const load_ctx *ctx, const model_config *group)
{
    int g = group_index(group);
    return g < 0 ? NULL : ctx->group_values[g];
}
