/* Combining and finding declared metrics (report/metric.h). */
#include <string.h>

#include "report/metric.h"

wide_int metric_combine(const model_metric *m, wide_int a, wide_int b)
{
    switch (m->reduce) {
    case METRIC_MIN:
        return a < b ? a : b;
    case METRIC_MAX:
        return a > b ? a : b;
    default:
        /* an unsigned 64-bit sum is defined modulo 2^64 (PHOLD's checksums): wrap it as the
         * devices' own sums do, so that any grouping of partial sums gives the same value */
        return m->kind == METRIC_U64 ? (wide_int)(uint64_t)((uint64_t)a + (uint64_t)b) : a + b;
    }
}

int metric_index(const model_metric *list, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (strcmp(list[i].name, name) == 0)
            return i;
    return -1;
}
