#include <string.h>

#include "config/model_config.h"
#include "engine/engine.h"
#include "models/flood/flood.h"
#include "models/kademlia/kademlia.h"
#include "models/phold/phold.h"

/* The table of models, one line each: the callbacks the engine runs and the option group the
 * configuration reads. A model is reachable from the INI by its name; the first is the
 * default of [simulation] model. */
typedef struct model_entry {
    const model_ops *ops;
    const model_config *config;
} model_entry;

static const model_entry models[] = {
    {&flood_model_ops, &flood_config},
    {&phold_model_ops, &phold_config},
    {&kademlia_model_ops, &kademlia_config},
};

#define N_MODELS (sizeof models / sizeof models[0])

const model_ops *model_find(const char *name)
{
    for (size_t i = 0; i < N_MODELS; i++)
        if (strcmp(models[i].ops->name, name) == 0)
            return models[i].ops;
    return NULL;
}

const model_ops *model_at(int i)
{
    return i >= 0 && (size_t)i < N_MODELS ? models[i].ops : NULL;
}

const model_config *const *model_config_table(int *n)
{
    static const model_config *configs[N_MODELS];
    for (size_t i = 0; i < N_MODELS; i++)
        configs[i] = models[i].config;
    *n = (int)N_MODELS;
    return configs;
}
