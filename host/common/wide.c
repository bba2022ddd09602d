#include "common/wide.h"

char *wide_format(wide_int v, char buf[WIDE_TEXT])
{
    unsigned __int128 mag = v < 0 ? (unsigned __int128)0 - (unsigned __int128)v
                                  : (unsigned __int128)v;
    char digits[WIDE_TEXT];
    int n = 0;
    do {
        digits[n++] = (char)('0' + (int)(mag % 10));
        mag /= 10;
    } while (mag != 0);
    int at = 0;
    if (v < 0)
        buf[at++] = '-';
    while (n > 0)
        buf[at++] = digits[--n];
    buf[at] = '\0';
    return buf;
}

double wide_ratio(wide_int v, int64_t n)
{
    /* the quotient and remainder are exact; only their sum as a double is rounded */
    wide_int q = v / n, r = v % n;
    return (double)q + (double)r / (double)n;
}

int wide_parse(const char *s, const char **end, wide_int *out)
{
    int negative = *s == '-';
    const char *p = s + negative;
    const unsigned __int128 limit = ((unsigned __int128)1 << 127) - 1 + (unsigned)negative;
    unsigned __int128 mag = 0;
    if (*p < '0' || *p > '9')
        return -1;
    for (; *p >= '0' && *p <= '9'; p++) {
        unsigned d = (unsigned)(*p - '0');
        if (mag > (limit - d) / 10)
            return -1;
        mag = mag * 10 + d;
    }
    *end = p;
    *out = negative ? (wide_int)((unsigned __int128)0 - mag) : (wide_int)mag;
    return 0;
}
