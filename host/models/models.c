#include <string.h>

#include "engine/engine.h"
#include "models/flood/flood.h"
#include "models/phold/phold.h"

/* The table of models: a model is reachable from the INI by its name. */
static const model_ops *const models[] = {&flood_model_ops, &phold_model_ops};

const model_ops *model_find(const char *name)
{
    for (size_t i = 0; i < sizeof models / sizeof models[0]; i++)
        if (strcmp(models[i]->name, name) == 0)
            return models[i];
    return NULL;
}
