/* One key's text <-> one field (of struct scenario, or of a model's values struct), in both
 * directions, so that what --dump-config writes is exactly what the parser reads back. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config_internal.h"


const char *config_key_where(const load_ctx *ctx, int key, char *buf, size_t size)
{
    return config_origin_where(ctx, &ctx->keys[key], buf, size);
}

const char *config_origin_where(const load_ctx *ctx, const key_state *st, char *buf,
                                size_t size)
{
    if (st->origin == ORIGIN_FILE)
        snprintf(buf, size, "%s:%d", ctx->name, st->line);
    else if (st->origin == ORIGIN_OVERRIDE && st->source)
        snprintf(buf, size, "%.300s", st->source);
    else if (st->origin == ORIGIN_OVERRIDE)
        snprintf(buf, size, "-s argument '%.200s'", st->override);
    else
        snprintf(buf, size, "%s", ctx->name);
    return buf;
}

/* Why the text was refused, before "expected ...": empty for a value out of range. */
static const char *syntax_reason(const char *text)
{
    if (text[0] == '\0')
        return "empty value; ";
    /* inih only strips "value ; comment" (a ';' after whitespace); '#' stays in the value. */
    if (strchr(text, '#'))
        return "not a number (a comment after a value must start with ' ;'); ";
    return "not a number; ";
}

/* Where a value goes and how messages name it. */
typedef struct target {
    load_ctx *ctx;
    void *base;                  /* the struct KEY's offset refers to */
    const char *section;
} target;

static void *field(const target *t, const config_key *k) { return (char *)t->base + k->offset; }
static const void *cfield(const void *base, const config_key *k)
{
    return (const char *)base + k->offset;
}

#define NAME_FIELD_SIZE CONFIG_NAME_MAX /* the char[32] of KT_NAME: scenario.model's size */
_Static_assert(sizeof(((scenario *)0)->model) == NAME_FIELD_SIZE, "KT_NAME fields are char[32]");

static int fail_value(const target *t, int key, const char *text, const char *where,
                      const char *reason)
{
    const config_key *k = config_key_at(key);
    char expected[256];
    config_expected(key, expected, sizeof expected);
    return cn_fail(t->ctx->err, CN_ERR_INPUT, "%s: [%s] %s = %.200s: %sexpected %s", where,
                   t->section, k->name, text, reason, expected);
}

static int set_choice(const target *t, int key, const char *text, const char *where)
{
    const config_key *k = config_key_at(key);
    for (int i = 0; k->choices[i]; i++) {
        if (strcmp(k->choices[i], text) != 0)
            continue;
        if (k->type == KT_CHOICE)
            *(int *)field(t, k) = i;
        else
            snprintf((char *)field(t, k), NAME_FIELD_SIZE, "%s", k->choices[i]);
        return 0;
    }
    return fail_value(t, key, text, where, text[0] ? "" : "empty value; ");
}

static int in_range(const config_key *k, int64_t v)
{
    if (v < k->min || v > k->max)
        return 0;
    return !((k->flags & KEY_MIN_OPEN) && v == k->min);
}

static int set_scaled(const target *t, int key, const char *text, const char *where)
{
    const config_key *k = config_key_at(key);
    int64_t v = 0;
    int rc = k->type == KT_INT ? parse_int64_strict(text, &v)
                               : decimal_to_scaled_int(text, key_type_scale(k->type), &v);
    if (rc == -1) {
        /* "1.5" packets parses as a decimal: say that an integer is wanted, not "not a number". */
        const char *why = k->type == KT_INT && decimal_syntax_ok(text) ? "not an integer; "
                                                                       : syntax_reason(text);
        return fail_value(t, key, text, where, why);
    }
    if (rc == -2) {
        const char *why = k->type == KT_INT          ? "does not fit in int64; "
                          : k->type == KT_TIME_NS    ? "does not fit in int64 nanoseconds; "
                          : k->type == KT_TIME_MS    ? "does not fit in int64 milliseconds; "
                          : k->type == KT_SPEED_MM_S ? "does not fit in int64 mm/s; "
                          : k->type == KT_ENERGY_NJ  ? "does not fit in int64 nanojoules; "
                                                     : "does not fit in int64 millimetres; ";
        return fail_value(t, key, text, where, why);
    }
    if (!in_range(k, v))
        return fail_value(t, key, text, where, "");
    *(int64_t *)field(t, k) = v;
    return 0;
}

static int set_seed(const target *t, int key, const char *text, const char *where)
{
    uint64_t v = 0;
    int rc = parse_uint64_seed(text, &v);
    if (rc != 0)
        return fail_value(t, key, text, where,
                          rc == -2 ? "does not fit in 64 bits; " : syntax_reason(text));
    *(uint64_t *)field(t, config_key_at(key)) = v;
    return 0;
}

/* strtod gives the double nearest to the text (what the threshold of docs/model.md is defined
 * on); our own grammar check first keeps out what strtod would also take: "nan", "inf", hex
 * floats, leading spaces. Note: strtod follows LC_NUMERIC, and clnetsim never changes the C
 * locale. */
/* TEXT as a probability in [0, 1] into *OUT: 0, -1 bad syntax, -2 out of range. */
static int probability_value(const char *text, double *out)
{
    if (!decimal_syntax_ok(text))
        return -1;
    char *end = NULL;
    errno = 0;
    double p = strtod(text, &end);
    if (end == text || *end != '\0' || !(p >= 0.0 && p <= 1.0))
        return -2;
    *out = p == 0.0 ? 0.0 : p; /* "-0" would otherwise dump as "-0" */
    return 0;
}

static int parse_probability_text(const target *t, int key, const char *text,
                                  const char *where, double *out)
{
    int rc = probability_value(text, out);
    if (rc != 0)
        return fail_value(t, key, text, where, rc == -1 ? syntax_reason(text) : "");
    return 0;
}

static int set_probability(const target *t, int key, const char *text, const char *where)
{
    return parse_probability_text(t, key, text, where,
                                  (double *)field(t, config_key_at(key)));
}

/* [FROM, TO) without surrounding blanks into BUF; 0 when empty or too long. */
static int trim_copy(const char *from, const char *to, char *buf, size_t size)
{
    while (from < to && (*from == ' ' || *from == '\t'))
        from++;
    while (to > from && (to[-1] == ' ' || to[-1] == '\t'))
        to--;
    size_t n = (size_t)(to - from);
    if (n == 0 || n >= size)
        return 0;
    memcpy(buf, from, n);
    buf[n] = '\0';
    return 1;
}

/* A probability, or "uniform(a, b)" (spaces allowed around the numbers) with a <= b. */
static int set_prob_law(const target *t, int key, const char *text, const char *where)
{
    prob_law *law = (prob_law *)field(t, config_key_at(key));
    const char *open = "uniform(";
    const char *paren = strchr(text, '(');
    if (paren && strncmp(text, open, strlen(open)) != 0)
        return fail_value(t, key, text, where, "unknown law (only uniform is drawn per node); ");
    if (strncmp(text, open, strlen(open)) != 0) {
        double p = 0;
        int rc = parse_probability_text(t, key, text, where, &p);
        if (rc == 0)
            *law = (prob_law){LAW_CONSTANT, p, p};
        return rc;
    }
    const char *s = text + strlen(open);
    const char *comma = strchr(s, ',');
    const char *close = comma ? strchr(comma, ')') : NULL;
    if (!comma || !close || close[1] != '\0')
        return fail_value(t, key, text, where, "not uniform(a, b); ");
    char a[64], b[64];
    if (!trim_copy(s, comma, a, sizeof a) || !trim_copy(comma + 1, close, b, sizeof b))
        return fail_value(t, key, text, where, "not uniform(a, b); ");
    double pa = 0, pb = 0;
    if (probability_value(a, &pa) != 0)
        return fail_value(t, key, text, where, "the lower bound is not a probability; ");
    if (probability_value(b, &pb) != 0)
        return fail_value(t, key, text, where, "the upper bound is not a probability; ");
    if (pa > pb)
        return fail_value(t, key, text, where, "the lower bound is above the upper one; ");
    *law = (prob_law){LAW_UNIFORM, pa, pb};
    return 0;
}

/* ---- node id ranges: 0-99, 250, 300-399 (mobility groups, flow sources) ------------------- */

static const char *skip_blanks(const char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    return s;
}

/* A node id at *S (digits only), advancing *S; -1 on syntax, -2 when too large. */
static int parse_id(const char **s, int64_t *out)
{
    const char *p = *s;
    if (!isdigit((unsigned char)*p))
        return -1;
    int64_t v = 0;
    for (; isdigit((unsigned char)*p); p++) {
        if (v > (INT64_MAX - 9) / 10)
            return -2;
        v = v * 10 + (*p - '0');
    }
    *out = v;
    *s = p;
    return 0;
}

static int fail_ranges(load_ctx *ctx, const char *section, int key, const char *text,
                       const char *where, const char *reason)
{
    char expected[200];
    config_expected(key, expected, sizeof expected);
    return cn_fail(ctx->err, CN_ERR_INPUT, "%s: [%s] %s = %.200s: %sexpected %s", where, section,
                   config_key_at(key)->name, text, reason, expected);
}

int config_parse_id_ranges(load_ctx *ctx, const char *section, int key, const char *text,
                           const char *where, int max, int64_t *first, int64_t *last,
                           int *n_out)
{
    int64_t a_list[64], b_list[64];
    if (max > 64)
        max = 64;
    const char *s = skip_blanks(text);
    int n = 0;
    if (*s == '\0')
        return fail_ranges(ctx, section, key, text, where, "empty value; ");
    for (;;) {
        int64_t a = 0, b = 0;
        int rc = parse_id(&s, &a);
        s = skip_blanks(s);
        b = a;
        if (rc == 0 && *s == '-') {
            s = skip_blanks(s + 1);
            rc = parse_id(&s, &b);
            s = skip_blanks(s);
        }
        if (rc == -2 || (rc == 0 && (a > CONFIG_MAX_IDS - 1 || b > CONFIG_MAX_IDS - 1)))
            return fail_ranges(ctx, section, key, text, where, "an id is too large; ");
        if (rc != 0)
            return fail_ranges(ctx, section, key, text, where, "");
        if (a > b) {
            char why[96];
            snprintf(why, sizeof why, "range %lld-%lld ends before it starts; ", (long long)a,
                     (long long)b);
            return fail_ranges(ctx, section, key, text, where, why);
        }
        if (n == max)
            return fail_ranges(ctx, section, key, text, where, "too many ranges; ");
        a_list[n] = a;
        b_list[n] = b;
        n++;
        if (*s == '\0')
            break;
        if (*s != ',')
            return fail_ranges(ctx, section, key, text, where, "");
        s = skip_blanks(s + 1);
    }
    /* only once the whole text is good, and without leftovers of an earlier value */
    for (int r = 0; r < max; r++) {
        first[r] = r < n ? a_list[r] : 0;
        last[r] = r < n ? b_list[r] : 0;
    }
    *n_out = n;
    return 0;
}

void config_format_id_ranges(const int64_t *first, const int64_t *last, int n, char *buf,
                             size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int r = 0; r < n && used < size; r++) {
        int k = first[r] == last[r]
                    ? snprintf(buf + used, size - used, "%s%lld", r ? ", " : "",
                               (long long)first[r])
                    : snprintf(buf + used, size - used, "%s%lld-%lld", r ? ", " : "",
                               (long long)first[r], (long long)last[r]);
        if (k < 0)
            break;
        used += (size_t)k;
    }
}

/* TEXT as a decimal in KEY's INI unit (seconds, joules: both kept in units of 10^-9), within
 * KEY's [min, max]: 0, -1 syntax, -2 out of range. */
static int law_value(const config_key *k, const char *text, int64_t *out)
{
    int64_t v = 0;
    int rc = decimal_to_scaled_int(text, 9, &v);
    if (rc == -1)
        return -1;
    if (rc != 0 || v < k->min || v > k->max)
        return -2;
    *out = v;
    return 0;
}

/* A constant, "uniform(a, b)" with a <= b, or "exponential(mean)" with mean > 0 (refused with
 * KEY_NO_EXPONENTIAL); spaces allowed around the numbers. Every value within the key's
 * [min, max], in 10^-9 of the INI unit. Fills *LAW (enum time_law_kind), *A and *B. */
static int parse_law(const target *t, int key, const char *text, const char *where, int *law,
                     int64_t *a_out, int64_t *b_out)
{
    const config_key *k = config_key_at(key);
    const char *uni = "uniform(", *expo = "exponential(";
    int is_uni = strncmp(text, uni, strlen(uni)) == 0;
    int is_expo = strncmp(text, expo, strlen(expo)) == 0;
    if (!is_uni && !is_expo && strchr(text, '('))
        return fail_value(t, key, text, where,
                          (k->flags & KEY_NO_EXPONENTIAL) ? "unknown law (only uniform); "
                                                          : "unknown law; ");
    if (!is_uni && !is_expo) {
        int64_t v = 0;
        int rc = law_value(k, text, &v);
        if (rc != 0)
            return fail_value(t, key, text, where, rc == -1 ? syntax_reason(text) : "");
        *law = TLAW_CONSTANT;
        *a_out = *b_out = v;
        return 0;
    }
    if (is_expo && (k->flags & KEY_NO_EXPONENTIAL)) {
        char why[96];
        snprintf(why, sizeof why, "exponential is not a law of %s; ", k->name);
        return fail_value(t, key, text, where, why);
    }
    const char *s = text + strlen(is_uni ? uni : expo);
    const char *comma = strchr(s, ',');
    const char *close = strchr(is_uni && comma ? comma : s, ')');
    const char *not_law = is_uni ? "not uniform(a, b); " : "not exponential(mean); ";
    if (!close || close[1] != '\0' || (is_uni && !comma) || (is_expo && comma))
        return fail_value(t, key, text, where, not_law);
    char a[64], b[64];
    if (!trim_copy(s, is_uni ? comma : close, a, sizeof a) ||
        (is_uni && !trim_copy(comma + 1, close, b, sizeof b)))
        return fail_value(t, key, text, where, not_law);
    int64_t va = 0, vb = 0;
    int rc = law_value(k, a, &va);
    if (is_expo) {
        if (rc == -1)
            return fail_value(t, key, text, where, "the mean is not a number; ");
        /* 0 and negative means are "not > 0"; the others out of range are too large */
        if ((rc == 0 && va == 0) || (rc != 0 && a[0] == '-'))
            return fail_value(t, key, text, where, "the mean is not > 0; ");
        if (rc != 0)
            return fail_value(t, key, text, where, "the mean is out of range; ");
        *law = TLAW_EXPONENTIAL;
        *a_out = *b_out = va;
        return 0;
    }
    if (rc != 0)
        return fail_value(t, key, text, where,
                          rc == -1 ? "the lower bound is not a number; "
                                   : "the lower bound is out of range; ");
    rc = law_value(k, b, &vb);
    if (rc != 0)
        return fail_value(t, key, text, where,
                          rc == -1 ? "the upper bound is not a number; "
                                   : "the upper bound is out of range; ");
    if (va > vb)
        return fail_value(t, key, text, where, "the lower bound is above the upper one; ");
    *law = TLAW_UNIFORM;
    *a_out = va;
    *b_out = vb;
    return 0;
}

/* A time in seconds (a constant), uniform(a, b) or exponential(mean): a time_law in ns.
 * Structs are filled from zeroed copies so that their padding is zero too: the round-trip
 * tests compare scenarios byte for byte. */
static int set_time_law(const target *t, int key, const char *text, const char *where)
{
    time_law v;
    memset(&v, 0, sizeof v);
    int rc = parse_law(t, key, text, where, &v.law, &v.a_ns, &v.b_ns);
    if (rc == 0)
        memcpy(field(t, config_key_at(key)), &v, sizeof v);
    return rc;
}

/* An energy in joules (a constant) or uniform(a, b): an energy_law in nJ. */
static int set_energy_law(const target *t, int key, const char *text, const char *where)
{
    int law = 0;
    int64_t a = 0, b = 0;
    int rc = parse_law(t, key, text, where, &law, &a, &b);
    if (rc != 0)
        return rc;
    energy_law v;
    memset(&v, 0, sizeof v);
    v.law = law == TLAW_UNIFORM ? LAW_UNIFORM : LAW_CONSTANT;
    v.a_nj = a;
    v.b_nj = b;
    memcpy(field(t, config_key_at(key)), &v, sizeof v);
    return 0;
}

/* A node id, -1 (the last node) or "broadcast". */
static int set_destination(const target *t, int key, const char *text, const char *where)
{
    const config_key *k = config_key_at(key);
    if (strcmp(text, "broadcast") == 0) {
        *(int64_t *)field(t, k) = FLOW_BROADCAST;
        return 0;
    }
    int64_t v = 0;
    int rc = parse_int64_strict(text, &v);
    if (rc == -1)
        return fail_value(t, key, text, where,
                          decimal_syntax_ok(text) ? "not an integer; " : syntax_reason(text));
    if (rc != 0 || v < k->min || v > k->max)
        return fail_value(t, key, text, where, "");
    *(int64_t *)field(t, k) = v;
    return 0;
}

int config_set_value_at(load_ctx *ctx, void *base, const char *section, int key,
                        const char *text, const char *where)
{
    target t = {ctx, base, section};
    switch (config_key_at(key)->type) {
    case KT_CHOICE:
    case KT_NAME:
        return set_choice(&t, key, text, where);
    case KT_SEED:
        return set_seed(&t, key, text, where);
    case KT_PROBABILITY:
        return set_probability(&t, key, text, where);
    case KT_PROB_LAW:
        return set_prob_law(&t, key, text, where);
    case KT_TIME_LAW:
        return set_time_law(&t, key, text, where);
    case KT_ENERGY_LAW:
        return set_energy_law(&t, key, text, where);
    case KT_DESTINATION:
        return set_destination(&t, key, text, where);
    case KT_IDS:     /* a group's, set by config_assign_group */
    case KT_SOURCES: /* a flow's, set by config_assign_flow */
        return cn_fail(ctx->err, CN_ERR_RUNTIME, "internal error: %s set as a plain key",
                       config_key_at(key)->name);
    default:
        return set_scaled(&t, key, text, where);
    }
}

int config_set_value(load_ctx *ctx, int key, const char *text, const char *where)
{
    int g = config_key_group_index(key);
    void *base = g < 0 ? (void *)&ctx->sc : ctx->group_values[g];
    return config_set_value_at(ctx, base, config_key_at(key)->section, key, text, where);
}

/* Shortest of %.15g .. %.17g that reads back to the same double: "0.1", not
 * "0.10000000000000001", yet always exact. */
static void format_probability(double p, char *buf, size_t size)
{
    if (!buf || size == 0)
        return; /* never the case; tells GCC's -fsanitize build that buf is not NULL */
    for (int digits = 15; digits <= 17; digits++) {
        snprintf(buf, size, "%.*g", digits, p);
        if (strtod(buf, NULL) == p)
            return;
    }
}

void config_format_value(const scenario *sc, int key, char *buf, size_t size)
{
    const void *base = config_key_group_index(key) < 0 ? (const void *)sc
                                                       : (const void *)sc->model_values.bytes;
    config_format_value_at(base, key, buf, size);
}

void config_format_loaded(const load_ctx *ctx, int key, char *buf, size_t size)
{
    int g = config_key_group_index(key);
    config_format_value_at(g < 0 ? (const void *)&ctx->sc : ctx->group_values[g], key, buf,
                           size);
}

/* A law of values held in 10^-9 units (ns, nJ) as INI text: the constant A (NAME NULL),
 * "uniform(A, B)" or "exponential(A)". */
static void format_law(const char *name, int64_t a, int64_t b, char *buf, size_t size)
{
    char ta[32], tb[32];
    format_scaled(a, 9, ta, sizeof ta);
    format_scaled(b, 9, tb, sizeof tb);
    if (!name)
        snprintf(buf, size, "%s", ta);
    else if (strcmp(name, "uniform") == 0)
        snprintf(buf, size, "uniform(%s, %s)", ta, tb);
    else
        snprintf(buf, size, "%s(%s)", name, ta);
}

void config_format_value_at(const void *base, int key, char *buf, size_t size)
{
    const config_key *k = config_key_at(key);
    const void *f = cfield(base, k);
    switch (k->type) {
    case KT_CHOICE: {
        int v = *(const int *)f, n = 0;
        while (k->choices[n])
            n++;
        snprintf(buf, size, "%s", v >= 0 && v < n ? k->choices[v] : "?");
        break;
    }
    case KT_NAME:
        snprintf(buf, size, "%s", (const char *)f);
        break;
    case KT_SEED:
        snprintf(buf, size, "%llu", (unsigned long long)*(const uint64_t *)f);
        break;
    case KT_PROBABILITY:
        format_probability(*(const double *)f, buf, size);
        break;
    case KT_PROB_LAW: {
        const prob_law *law = f;
        if (law->law == LAW_UNIFORM) {
            char a[32], b[32];
            format_probability(law->p, a, sizeof a);
            format_probability(law->p_max, b, sizeof b);
            snprintf(buf, size, "uniform(%s, %s)", a, b);
        } else {
            format_probability(law->p, buf, size);
        }
        break;
    }
    case KT_TIME_LAW: {
        const time_law *law = f;
        format_law(law->law == TLAW_UNIFORM ? "uniform"
                   : law->law == TLAW_EXPONENTIAL ? "exponential" : NULL,
                   law->a_ns, law->b_ns, buf, size);
        break;
    }
    case KT_ENERGY_LAW: {
        const energy_law *law = f;
        format_law(law->law == LAW_UNIFORM ? "uniform" : NULL, law->a_nj, law->b_nj, buf, size);
        break;
    }
    case KT_DESTINATION: {
        int64_t v = *(const int64_t *)f;
        if (v == FLOW_BROADCAST)
            snprintf(buf, size, "broadcast");
        else
            snprintf(buf, size, "%lld", (long long)v);
        break;
    }
    case KT_IDS:     /* per group: config_format_ranges */
    case KT_SOURCES: /* per flow: flows.c */
        snprintf(buf, size, "%s", "");
        break;
    default:
        format_scaled(*(const int64_t *)f, key_type_scale(k->type), buf, size);
        break;
    }
}
