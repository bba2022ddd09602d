/* --compare: an earlier bench result file against this run. The file is read with a small
 * strict JSON reader (RFC 8259, nesting limited so that a hostile file cannot exhaust the
 * stack); only the members bench_write_json writes are looked at. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"
#include "common/files.h"

enum { J_NULL, J_BOOL, J_NUMBER, J_STRING, J_ARRAY, J_OBJECT };
enum { MAX_DEPTH = 64 };

typedef struct jvalue {
    int kind;
    double number;               /* J_NUMBER; J_BOOL: 0 or 1 */
    char *string;                /* J_STRING */
    size_t n;                    /* J_ARRAY, J_OBJECT: items */
    struct jvalue *items;
    char **keys;                 /* J_OBJECT */
} jvalue;

typedef struct jparser {
    const char *text;
    size_t len, pos;
    const char *file;
    cn_error *err;
} jparser;

static void jfree(jvalue *v)
{
    free(v->string);
    for (size_t i = 0; i < v->n; i++) {
        jfree(&v->items[i]);
        if (v->keys)
            free(v->keys[i]);
    }
    free(v->items);
    free(v->keys);
    memset(v, 0, sizeof *v);
}

static int jfail(jparser *p, const char *what)
{
    return cn_fail(p->err, CN_ERR_INPUT, "'%s' is not a bench result file: %s at byte %zu",
                   p->file, what, p->pos);
}

static void skip_ws(jparser *p)
{
    while (p->pos < p->len && strchr(" \t\r\n", p->text[p->pos]) && p->text[p->pos])
        p->pos++;
}

static int literal(jparser *p, const char *word)
{
    size_t n = strlen(word);
    if (p->len - p->pos < n || strncmp(p->text + p->pos, word, n))
        return jfail(p, "unexpected text");
    p->pos += n;
    return 0;
}

static int hex4(jparser *p, unsigned *out)
{
    *out = 0;
    for (int i = 0; i < 4; i++) {
        if (p->pos >= p->len)
            return jfail(p, "unfinished \\u escape");
        char c = p->text[p->pos++];
        unsigned d = c >= '0' && c <= '9' ? (unsigned)(c - '0')
                   : c >= 'a' && c <= 'f' ? (unsigned)(c - 'a' + 10)
                   : c >= 'A' && c <= 'F' ? (unsigned)(c - 'A' + 10) : 16u;
        if (d == 16)
            return jfail(p, "bad \\u escape");
        *out = *out * 16 + d;
    }
    return 0;
}

static int parse_string(jparser *p, char **out)
{
    p->pos++; /* the opening quote */
    /* the decoded text is never longer than the encoded one */
    size_t start = p->pos, cap = 1;
    while (start < p->len && p->text[start] != '"') {
        if (p->text[start] == '\\')
            start++, cap++;
        start++, cap++;
    }
    char *s = malloc(cap + 4);
    if (!s)
        return cn_fail(p->err, CN_ERR_RUNTIME, "out of memory reading '%s'", p->file);
    size_t k = 0;
    for (;;) {
        if (p->pos >= p->len) {
            free(s);
            return jfail(p, "unfinished string");
        }
        unsigned char c = (unsigned char)p->text[p->pos++];
        if (c == '"')
            break;
        if (c < 0x20) {
            free(s);
            return jfail(p, "control character in a string");
        }
        if (c != '\\') {
            s[k++] = (char)c;
            continue;
        }
        if (p->pos >= p->len) {
            free(s);
            return jfail(p, "unfinished escape");
        }
        char e = p->text[p->pos++];
        const char *from = "\"\\/bfnrt", *to = "\"\\/\b\f\n\r\t";
        const char *hit = e ? strchr(from, e) : NULL;
        if (hit) {
            s[k++] = to[hit - from];
        } else if (e == 'u') {
            unsigned u;
            if (hex4(p, &u)) {
                free(s);
                return CN_ERR_INPUT;
            }
            /* names here are ASCII; anything else is kept as UTF-8 of the BMP code point */
            if (u < 0x80) {
                s[k++] = (char)(u ? u : '?');
            } else if (u < 0x800) {
                s[k++] = (char)(0xc0 | (u >> 6));
                s[k++] = (char)(0x80 | (u & 0x3f));
            } else {
                s[k++] = (char)(0xe0 | (u >> 12));
                s[k++] = (char)(0x80 | ((u >> 6) & 0x3f));
                s[k++] = (char)(0x80 | (u & 0x3f));
            }
        } else {
            free(s);
            return jfail(p, "bad escape");
        }
    }
    s[k] = '\0';
    *out = s;
    return 0;
}

static int parse_value(jparser *p, jvalue *v, int depth);

static int push(jparser *p, jvalue *v, size_t *cap, char *key)
{
    if (v->n == *cap) {
        size_t nc = *cap ? *cap * 2 : 8;
        jvalue *items = realloc(v->items, nc * sizeof *items);
        if (items)
            v->items = items;
        char **keys = v->kind == J_OBJECT ? realloc(v->keys, nc * sizeof *keys) : NULL;
        if (keys)
            v->keys = keys;
        if (!items || (v->kind == J_OBJECT && !keys)) {
            free(key);
            return cn_fail(p->err, CN_ERR_RUNTIME, "out of memory reading '%s'", p->file);
        }
        *cap = nc;
    }
    memset(&v->items[v->n], 0, sizeof v->items[0]);
    if (v->kind == J_OBJECT)
        v->keys[v->n] = key;
    v->n++;
    return 0;
}

static int parse_container(jparser *p, jvalue *v, int depth)
{
    char close = p->text[p->pos] == '{' ? '}' : ']';
    v->kind = close == '}' ? J_OBJECT : J_ARRAY;
    p->pos++;
    size_t cap = 0;
    skip_ws(p);
    if (p->pos < p->len && p->text[p->pos] == close) {
        p->pos++;
        return 0;
    }
    for (;;) {
        char *key = NULL;
        skip_ws(p);
        if (v->kind == J_OBJECT) {
            if (p->pos >= p->len || p->text[p->pos] != '"')
                return jfail(p, "expected a member name");
            if (parse_string(p, &key))
                return CN_ERR_INPUT;
            skip_ws(p);
            if (p->pos >= p->len || p->text[p->pos] != ':') {
                free(key);
                return jfail(p, "expected ':'");
            }
            p->pos++;
        }
        if (push(p, v, &cap, key) || parse_value(p, &v->items[v->n - 1], depth + 1))
            return p->err->code ? p->err->code : CN_ERR_INPUT;
        skip_ws(p);
        if (p->pos < p->len && p->text[p->pos] == ',') {
            p->pos++;
            continue;
        }
        if (p->pos < p->len && p->text[p->pos] == close) {
            p->pos++;
            return 0;
        }
        return jfail(p, close == '}' ? "expected ',' or '}'" : "expected ',' or ']'");
    }
}

static int parse_number(jparser *p, jvalue *v)
{
    size_t s = p->pos;
    const char *t = p->text;
    if (p->pos < p->len && t[p->pos] == '-')
        p->pos++;
    size_t digits = p->pos;
    while (p->pos < p->len && t[p->pos] >= '0' && t[p->pos] <= '9')
        p->pos++;
    if (p->pos == digits)
        return jfail(p, "unexpected character");
    if (p->pos < p->len && t[p->pos] == '.') {
        size_t f = ++p->pos;
        while (p->pos < p->len && t[p->pos] >= '0' && t[p->pos] <= '9')
            p->pos++;
        if (p->pos == f)
            return jfail(p, "digits expected after '.'");
    }
    if (p->pos < p->len && (t[p->pos] == 'e' || t[p->pos] == 'E')) {
        p->pos++;
        if (p->pos < p->len && (t[p->pos] == '+' || t[p->pos] == '-'))
            p->pos++;
        size_t x = p->pos;
        while (p->pos < p->len && t[p->pos] >= '0' && t[p->pos] <= '9')
            p->pos++;
        if (p->pos == x)
            return jfail(p, "digits expected in the exponent");
    }
    char buf[64];
    size_t n = p->pos - s < sizeof buf - 1 ? p->pos - s : sizeof buf - 1;
    memcpy(buf, t + s, n);
    buf[n] = '\0';
    v->kind = J_NUMBER;
    v->number = strtod(buf, NULL);
    return 0;
}

static int parse_value(jparser *p, jvalue *v, int depth)
{
    if (depth > MAX_DEPTH)
        return jfail(p, "nesting too deep");
    skip_ws(p);
    if (p->pos >= p->len)
        return jfail(p, "unexpected end");
    char c = p->text[p->pos];
    if (c == '{' || c == '[')
        return parse_container(p, v, depth);
    if (c == '"') {
        v->kind = J_STRING;
        return parse_string(p, &v->string);
    }
    if (c == 't' || c == 'f') {
        v->kind = J_BOOL;
        v->number = c == 't';
        return literal(p, c == 't' ? "true" : "false");
    }
    if (c == 'n') {
        v->kind = J_NULL;
        return literal(p, "null");
    }
    return parse_number(p, v);
}

static const jvalue *member(const jvalue *obj, const char *name, int kind)
{
    if (!obj || obj->kind != J_OBJECT)
        return NULL;
    for (size_t i = 0; i < obj->n; i++)
        if (!strcmp(obj->keys[i], name))
            return obj->items[i].kind == kind ? &obj->items[i] : NULL;
    return NULL;
}

static int read_file(const char *path, char **text, size_t *len, cn_error *err)
{
    FILE *f = NULL;
    mode_t mode = 0;
    int e = file_open_regular(path, &f, &mode); /* a FIFO would block open() */
    if (e < 0)
        return cn_fail(err, CN_ERR_INPUT, "cannot read the bench result file '%s': it is %s, "
                       "not a regular file", path, file_kind_name(mode));
    if (e)
        return cn_fail(err, CN_ERR_INPUT, "cannot read the bench result file '%s': %s", path,
                       strerror(e));
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    if (!buf) {
        fclose(f);
        return cn_fail(err, CN_ERR_RUNTIME, "out of memory reading '%s'", path);
    }
    for (;;) {
        if (n + 1 >= cap) {
            char *nb = cap < ((size_t)1 << 30) ? realloc(buf, cap * 2) : NULL;
            if (!nb) {
                int big = cap >= ((size_t)1 << 30);
                free(buf);
                fclose(f);
                return big ? cn_fail(err, CN_ERR_INPUT, "'%s' is larger than 1 GiB: not a bench "
                                     "result file", path)
                           : cn_fail(err, CN_ERR_RUNTIME, "out of memory reading '%s'", path);
            }
            buf = nb;
            cap *= 2;
        }
        size_t got = fread(buf + n, 1, cap - n - 1, f);
        n += got;
        if (got == 0)
            break;
    }
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        free(buf);
        return cn_fail(err, CN_ERR_INPUT, "cannot read the bench result file '%s'", path);
    }
    buf[n] = '\0';
    *text = buf;
    *len = n;
    return 0;
}

static int load(const char *path, jvalue *root, cn_error *err)
{
    char *text = NULL;
    size_t len = 0;
    int rc = read_file(path, &text, &len, err);
    if (rc)
        return rc;
    jparser p = {text, len, 0, path, err};
    memset(root, 0, sizeof *root);
    rc = parse_value(&p, root, 0);
    if (!rc) {
        skip_ws(&p);
        if (p.pos != p.len)
            rc = jfail(&p, "text after the end of the object");
    }
    free(text);
    if (!rc && (root->kind != J_OBJECT || !member(root, "clnetsim_bench", J_NUMBER) ||
                !member(root, "cases", J_ARRAY)))
        rc = cn_fail(err, CN_ERR_INPUT, "'%s' is not a bench result file (no "
                     "\"clnetsim_bench\" and \"cases\" members; write one with clnetsim bench "
                     "--json)", path);
    if (rc)
        jfree(root);
    return rc;
}

static const jvalue *find_case(const jvalue *cases, const char *name, int64_t nodes)
{
    for (size_t i = 0; i < cases->n; i++) {
        const jvalue *s = member(&cases->items[i], "scenario", J_STRING);
        const jvalue *n = member(&cases->items[i], "nodes", J_NUMBER);
        if (s && n && !strcmp(s->string, name) && (int64_t)n->number == nodes)
            return &cases->items[i];
    }
    return NULL;
}

/* The OCCURRENCE-th device (0-based) named NAME on PLATFORM: two devices of one model (two
 * PoCL devices, two identical GPUs) are told apart by their order. */
static const jvalue *find_device(const jvalue *c, const char *name, const char *platform,
                                 int occurrence)
{
    const jvalue *devs = member(c, "devices", J_ARRAY);
    for (size_t i = 0; devs && i < devs->n; i++) {
        const jvalue *n = member(&devs->items[i], "name", J_STRING);
        const jvalue *p = member(&devs->items[i], "platform", J_STRING);
        if (n && p && !strcmp(n->string, name) && !strcmp(p->string, platform) &&
            occurrence-- == 0)
            return &devs->items[i];
    }
    return NULL;
}

int bench_compare(const char *old_path, const bench_case *cases, int n_cases, FILE *out,
                  cn_error *err)
{
    jvalue root;
    int rc = load(old_path, &root, err);
    if (rc)
        return rc;
    const jvalue *old_cases = member(&root, "cases", J_ARRAY);
    const jvalue *commit = member(&root, "commit", J_STRING);
    const jvalue *date = member(&root, "date", J_STRING);
    fprintf(out, "\nagainst %s (commit %s, %s): median s, old -> new\n", old_path,
            commit ? commit->string : "?", date ? date->string : "?");
    fprintf(out, "  %-20s %10s %3s  %-32s %10s %10s %9s\n", "scenario", "nodes", "dev", "device",
            "old", "new", "change");
    for (int i = 0; i < n_cases; i++) {
        const bench_case *c = &cases[i];
        const jvalue *oc = find_case(old_cases, c->name, c->nodes);
        for (int d = 0; d < c->n_rows; d++) {
            const bench_row *r = &c->rows[d];
            int occurrence = 0;
            for (int e = 0; e < d; e++)
                occurrence += !strcmp(c->rows[e].name, r->name) &&
                              !strcmp(c->rows[e].platform, r->platform);
            const jvalue *od = oc ? find_device(oc, r->name, r->platform, occurrence) : NULL;
            const jvalue *om = od ? member(od, "median_s", J_NUMBER) : NULL;
            fprintf(out, "  %-20.20s %10lld %3d  %-32.32s ", c->name, (long long)c->nodes,
                    r->index, r->name);
            if (r->failed)
                fprintf(out, "%10s %10s %9s\n", om ? "" : "-", "failed", "");
            else if (!om || om->number <= 0)
                fprintf(out, "%10s %10.4f %9s\n", "-", r->median_s,
                        oc ? "new device" : "new case");
            else
                fprintf(out, "%10.4f %10.4f %+8.1f%%\n", om->number, r->median_s,
                        100.0 * (r->median_s - om->number) / om->number);
        }
    }
    /* what the earlier file has and this run does not */
    for (size_t i = 0; i < old_cases->n; i++) {
        const jvalue *s = member(&old_cases->items[i], "scenario", J_STRING);
        const jvalue *n = member(&old_cases->items[i], "nodes", J_NUMBER);
        int found = 0;
        for (int k = 0; s && n && k < n_cases && !found; k++)
            found = !strcmp(cases[k].name, s->string) && cases[k].nodes == (int64_t)n->number;
        if (!found && s && n)
            fprintf(out, "  %-20.20s %10lld      only in %s\n", s->string, (long long)n->number,
                    old_path);
    }
    jfree(&root);
    return 0;
}

int bench_compare_check(const char *old_path, cn_error *err)
{
    jvalue root;
    int rc = load(old_path, &root, err);
    if (!rc)
        jfree(&root);
    return rc;
}
