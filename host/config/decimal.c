/* Exact number parsing for the INI units. Times and lengths are converted from their decimal
 * text with integer arithmetic only: "0.1" seconds is exactly 100000000 ns, whereas a double
 * would carry 0.1000000000000000055... and a different rounding could creep in on another
 * platform. The determinism contract starts here. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "config/config.h"
#include "config/config_internal.h"

/* A decimal number split into its parts; digits are not copied. */
typedef struct decimal_parts {
    int negative;
    const char *int_digits;
    size_t n_int;
    const char *frac_digits;
    size_t n_frac;
    int64_t exponent;            /* saturated at +-EXPONENT_CAP */
} decimal_parts;

/* Far beyond any exponent that can give a finite nonzero int64 from a text of any length we
 * accept, small enough that exponent + scale - n_frac cannot overflow. */
#define EXPONENT_CAP ((int64_t)1000000000)

static int is_digit(char c) { return c >= '0' && c <= '9'; }

static size_t count_digits(const char *s)
{
    size_t n = 0;
    while (is_digit(s[n]))
        n++;
    return n;
}

/* Grammar: [+-]? (D+ ('.' D*)? | '.' D+) ([eE] [+-]? D+)?  Returns 0 or -1. */
static int split_decimal(const char *s, decimal_parts *p)
{
    memset(p, 0, sizeof *p);
    if (*s == '+' || *s == '-')
        p->negative = *s++ == '-';
    p->int_digits = s;
    p->n_int = count_digits(s);
    s += p->n_int;
    if (*s == '.') {
        s++;
        p->frac_digits = s;
        p->n_frac = count_digits(s);
        s += p->n_frac;
    }
    if (p->n_int + p->n_frac == 0)
        return -1;
    if (*s == 'e' || *s == 'E') {
        int exp_negative = 0;
        s++;
        if (*s == '+' || *s == '-')
            exp_negative = *s++ == '-';
        if (!is_digit(*s))
            return -1;
        for (; is_digit(*s); s++)
            if (p->exponent < EXPONENT_CAP)
                p->exponent = p->exponent * 10 + (*s - '0');
        if (p->exponent > EXPONENT_CAP)
            p->exponent = EXPONENT_CAP;
        if (exp_negative)
            p->exponent = -p->exponent;
    }
    return *s == '\0' ? 0 : -1;
}

/* I-th digit of the mantissa, integer digits then fraction digits. */
static int mantissa_digit(const decimal_parts *p, size_t i)
{
    return i < p->n_int ? p->int_digits[i] - '0' : p->frac_digits[i - p->n_int] - '0';
}

int decimal_syntax_ok(const char *text)
{
    decimal_parts p;
    return split_decimal(text, &p) == 0;
}

int decimal_to_scaled_int(const char *text, int scale, int64_t *out)
{
    decimal_parts p;
    if (!text || split_decimal(text, &p) != 0)
        return -1;

    size_t total = p.n_int + p.n_frac, first = 0;
    while (first < total && mantissa_digit(&p, first) == 0)
        first++;
    if (first == total) {
        *out = 0;
        return 0;
    }
    /* value = 0.d1 d2 ... dn * 10^k with d1 != 0, so the result has k integer digits. */
    int64_t n = (int64_t)(total - first);
    int64_t k = (int64_t)p.n_int - (int64_t)first + p.exponent + scale;
    if (k > 19) /* at least 10^19 > INT64_MAX */
        return -2;

    uint64_t mag = 0;
    for (int64_t i = 0; i < k && i < n; i++)
        mag = mag * 10 + (uint64_t)mantissa_digit(&p, first + (size_t)i);
    for (int64_t i = n; i < k; i++)
        mag *= 10;
    /* Ties away from zero: round the magnitude up when the first dropped digit is >= 5. When
     * k < 0 that digit is one of the zeros between the point and d1. */
    if (k < n && k >= 0 && mantissa_digit(&p, first + (size_t)k) >= 5)
        mag += 1;

    uint64_t limit = p.negative ? (uint64_t)1 << 63 : ((uint64_t)1 << 63) - 1;
    if (mag > limit)
        return -2;
    if (!p.negative)
        *out = (int64_t)mag;
    else
        *out = mag == (uint64_t)1 << 63 ? INT64_MIN : -(int64_t)mag;
    return 0;
}

int parse_int64_strict(const char *s, int64_t *out)
{
    int negative = 0;
    if (*s == '+' || *s == '-')
        negative = *s++ == '-';
    if (!is_digit(*s))
        return -1;
    uint64_t limit = negative ? (uint64_t)1 << 63 : ((uint64_t)1 << 63) - 1, mag = 0;
    int too_big = 0;
    for (; is_digit(*s); s++) {
        unsigned d = (unsigned)(*s - '0');
        if (mag > (limit - d) / 10)
            too_big = 1; /* keep scanning: trailing garbage is the better message */
        else
            mag = mag * 10 + d;
    }
    if (*s != '\0')
        return -1;
    if (too_big)
        return -2;
    *out = !negative ? (int64_t)mag : mag == (uint64_t)1 << 63 ? INT64_MIN : -(int64_t)mag;
    return 0;
}

static int hex_value(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Seeds are often copied from hashes or other tools, hence the 0x form; no sign is accepted
 * because strtoull would silently wrap "-1" to 2^64-1. */
int parse_uint64_seed(const char *s, uint64_t *out)
{
    unsigned base = 10;
    if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        base = 16;
        s += 2;
    }
    if (hex_value(*s) < 0 || (base == 10 && !is_digit(*s)))
        return -1;
    uint64_t v = 0;
    int too_big = 0;
    for (; *s; s++) {
        int d = hex_value(*s);
        if (d < 0 || (unsigned)d >= base)
            return -1;
        if (v > (UINT64_MAX - (unsigned)d) / base)
            too_big = 1;
        else
            v = v * base + (unsigned)d;
    }
    if (too_big)
        return -2;
    *out = v;
    return 0;
}

void format_scaled(int64_t v, int scale, char *buf, size_t size)
{
    /* 10^18 is the largest power of ten in uint64; the schema uses scales 0, 3 and 9. */
    if (scale < 0)
        scale = 0;
    if (scale > 18)
        scale = 18;
    uint64_t mag = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v, p10 = 1;
    for (int i = 0; i < scale; i++)
        p10 *= 10;
    uint64_t whole = mag / p10, frac = mag % p10;
    char digits[20] = {0};
    int n = 0;
    if (frac != 0) {
        /* The fraction with its leading zeros, then without its trailing ones. */
        for (int i = scale - 1; i >= 0; i--, frac /= 10)
            digits[i] = (char)('0' + frac % 10);
        n = scale;
        while (digits[n - 1] == '0')
            n--;
    }
    snprintf(buf, size, "%s%llu%s%.*s", v < 0 ? "-" : "", (unsigned long long)whole,
             n ? "." : "", n, digits);
}
