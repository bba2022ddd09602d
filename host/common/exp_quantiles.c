#include "common/exp_quantiles.h"

#include <math.h>

void exp_quantiles(int64_t mean_ns, int64_t table[EXP_QUANTILES])
{
    double mean = (double)mean_ns;
    for (int j = 0; j < EXP_QUANTILES; j++)
        table[j] = mean_ns == 0 ? 0 : llround(-mean * log1p(-((double)j + 0.5) / 65536.0));
}
