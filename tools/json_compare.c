/* json_compare [--members a,b,c] A.json B.json
 *
 * Compares the determinism-contract members of two result files (docs/model.md "Outputs", and the
 * counters of the model extensions of docs/models.md when either file has them; or the
 * members a result's own "contract" list names, see below). Numbers
 * are compared by their exact text, not their value: the contract is bit-for-bit equality, and
 * "1.0" vs "1" or a last-digit difference in "loss" is a real difference in how a result was
 * produced. Strings are compared after decoding escapes; other values (true, false, null,
 * arrays, objects) by their exact text.
 *
 * The reader is a small strict JSON (RFC 8259) parser: the top level must be one object; the
 * values of its members may be anything, and nested arrays and objects are fully checked but
 * not kept. Duplicate top-level member names are an error (which one would count?).
 *
 * A result that names its own contract (a top-level member "contract": an array of member
 * names, as clnetsim's results do) is compared on exactly those members: the union of both
 * files' lists, each a mismatch when missing on either side, and "contract" itself (the two
 * lists must be the same list). A file without "contract" (an older result, ns-3's output,
 * an independent implementation's) names the flood's legacy list: model, seed and the flood's
 * declared metrics (host/models/flood/flood_metrics.c, compiled in: the one source of that
 * list), its optional ones (the extensions' counters, deliverable, flows) where either file
 * has them. When neither file has "contract" that list is compared; when one has, its list
 * must equal the other's legacy list. --members overrides all of this.
 *
 * Exit status: 0 all compared members equal; 1 a mismatch, a missing member or a file that
 * cannot be read or parsed (the message names the file and byte offset); 2 bad command line. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/flood/flood_metrics.h"

enum { MAX_DEPTH = 512 }; /* nesting limit, so that hostile input cannot exhaust the stack */

typedef enum jkind { J_STRING, J_NUMBER, J_TRUE, J_FALSE, J_NULL, J_ARRAY, J_OBJECT } jkind;

/* One top-level member: its decoded name and the raw text span of its value. */
typedef struct member {
    char *name;
    size_t name_len;
    jkind kind;
    size_t start, end;  /* value text is text[start .. end) */
    char *str;          /* decoded value when kind == J_STRING */
    size_t str_len;
} member;

typedef struct doc {
    const char *file;
    char *text;
    size_t len;
    member *m;
    size_t nm, cap;
} doc;

typedef struct parser {
    doc *d;
    size_t pos;
    bool failed;
} parser;

static void fail_at(parser *p, size_t at, const char *what)
{
    if (!p->failed)
        fprintf(stderr, "json_compare: %s: byte %zu: %s\n", p->d->file, at, what);
    p->failed = true;
}

static void skip_ws(parser *p)
{
    while (p->pos < p->d->len) {
        char c = p->d->text[p->pos];
        if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
            break;
        p->pos++;
    }
}

static int peek(const parser *p) { return p->pos < p->d->len ? (unsigned char)p->d->text[p->pos] : -1; }

/* Growable byte buffer for decoded strings. */
typedef struct buf {
    char *b;
    size_t n, cap;
} buf;

static bool buf_put(buf *b, char c)
{
    if (b->n + 1 >= b->cap) {
        size_t cap = b->cap ? 2 * b->cap : 32;
        char *q = realloc(b->b, cap);
        if (!q)
            return false;
        b->b = q;
        b->cap = cap;
    }
    b->b[b->n++] = c;
    b->b[b->n] = '\0';
    return true;
}

static bool buf_utf8(buf *b, uint32_t cp)
{
    if (cp < 0x80)
        return buf_put(b, (char)cp);
    if (cp < 0x800)
        return buf_put(b, (char)(0xC0 | (cp >> 6))) && buf_put(b, (char)(0x80 | (cp & 0x3F)));
    if (cp < 0x10000)
        return buf_put(b, (char)(0xE0 | (cp >> 12))) &&
               buf_put(b, (char)(0x80 | ((cp >> 6) & 0x3F))) &&
               buf_put(b, (char)(0x80 | (cp & 0x3F)));
    return buf_put(b, (char)(0xF0 | (cp >> 18))) && buf_put(b, (char)(0x80 | ((cp >> 12) & 0x3F))) &&
           buf_put(b, (char)(0x80 | ((cp >> 6) & 0x3F))) && buf_put(b, (char)(0x80 | (cp & 0x3F)));
}

/* Four hex digits at p->pos; advances past them. */
static bool hex4(parser *p, uint32_t *out)
{
    uint32_t v = 0;
    for (int k = 0; k < 4; k++) {
        int c = peek(p);
        uint32_t d;
        if (c >= '0' && c <= '9')
            d = (uint32_t)(c - '0');
        else if (c >= 'a' && c <= 'f')
            d = (uint32_t)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F')
            d = (uint32_t)(c - 'A' + 10);
        else {
            fail_at(p, p->pos, "expected a hex digit in a \\u escape");
            return false;
        }
        v = v << 4 | d;
        p->pos++;
    }
    *out = v;
    return true;
}

/* Length of the well-formed UTF-8 sequence at T[0..N) (RFC 3629: no overlong forms, no
 * surrogates, nothing above U+10FFFF), or 0 if it is not one. */
static size_t utf8_len(const unsigned char *t, size_t n)
{
    if (t[0] < 0x80)
        return 1;
    size_t len;
    uint32_t cp;
    if (t[0] >= 0xC2 && t[0] <= 0xDF)
        len = 2, cp = t[0] & 0x1Fu;
    else if (t[0] >= 0xE0 && t[0] <= 0xEF)
        len = 3, cp = t[0] & 0x0Fu;
    else if (t[0] >= 0xF0 && t[0] <= 0xF4)
        len = 4, cp = t[0] & 0x07u;
    else
        return 0;
    if (len > n)
        return 0;
    for (size_t k = 1; k < len; k++) {
        if ((t[k] & 0xC0) != 0x80)
            return 0;
        cp = cp << 6 | (t[k] & 0x3Fu);
    }
    if ((len == 3 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) ||
        (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)))
        return 0;
    return len;
}

/* A string starting at the opening quote. With OUT, the decoded bytes are returned (malloc'ed,
 * NUL-terminated, length in *LEN; they may contain NUL from \u0000). */
static bool parse_string(parser *p, char **out, size_t *len)
{
    buf b = {NULL, 0, 0};
    const size_t open = p->pos;
    p->pos++; /* the opening quote, checked by the caller */
    for (;;) {
        int c = peek(p);
        if (c < 0) {
            fail_at(p, open, "unterminated string");
            goto bad;
        }
        if (c == '"') {
            p->pos++;
            break;
        }
        if (c < 0x20) {
            fail_at(p, p->pos, "control character inside a string");
            goto bad;
        }
        if (c != '\\') {
            size_t n = utf8_len((const unsigned char *)p->d->text + p->pos, p->d->len - p->pos);
            if (n == 0) {
                fail_at(p, p->pos, "invalid UTF-8 inside a string");
                goto bad;
            }
            for (size_t k = 0; k < n; k++)
                if (out && !buf_put(&b, p->d->text[p->pos + k]))
                    goto nomem;
            p->pos += n;
            continue;
        }
        const size_t esc = p->pos;
        p->pos++;
        c = peek(p);
        char simple = 0;
        switch (c) {
        case '"': simple = '"'; break;
        case '\\': simple = '\\'; break;
        case '/': simple = '/'; break;
        case 'b': simple = '\b'; break;
        case 'f': simple = '\f'; break;
        case 'n': simple = '\n'; break;
        case 'r': simple = '\r'; break;
        case 't': simple = '\t'; break;
        case 'u': break;
        default:
            fail_at(p, esc, "invalid escape in a string");
            goto bad;
        }
        p->pos++;
        if (simple) {
            if (out && !buf_put(&b, simple))
                goto nomem;
            continue;
        }
        uint32_t cp;
        if (!hex4(p, &cp))
            goto bad;
        if (cp >= 0xDC00 && cp <= 0xDFFF) {
            fail_at(p, esc, "lone low surrogate in a \\u escape");
            goto bad;
        }
        if (cp >= 0xD800 && cp <= 0xDBFF) {
            /* A high surrogate must be followed by a low one: together one code point. */
            uint32_t lo;
            if (p->pos + 1 >= p->d->len || p->d->text[p->pos] != '\\' || p->d->text[p->pos + 1] != 'u') {
                fail_at(p, esc, "high surrogate not followed by a low surrogate");
                goto bad;
            }
            p->pos += 2;
            if (!hex4(p, &lo))
                goto bad;
            if (lo < 0xDC00 || lo > 0xDFFF) {
                fail_at(p, esc, "high surrogate not followed by a low surrogate");
                goto bad;
            }
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
        }
        if (out && !buf_utf8(&b, cp))
            goto nomem;
    }
    if (out) {
        if (!b.b && !(b.b = calloc(1, 1))) /* the empty string still gets a buffer */
            goto nomem;
        *out = b.b;
        *len = b.n;
    }
    return true;
nomem:
    fail_at(p, p->pos, "out of memory");
bad:
    free(b.b);
    return false;
}

static bool is_digit(int c) { return c >= '0' && c <= '9'; }

/* -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? */
static bool parse_number(parser *p)
{
    const size_t start = p->pos;
    if (peek(p) == '-')
        p->pos++;
    if (peek(p) == '0') {
        p->pos++;
        if (is_digit(peek(p))) {
            fail_at(p, start, "number with a leading zero");
            return false;
        }
    } else if (is_digit(peek(p))) {
        while (is_digit(peek(p)))
            p->pos++;
    } else {
        fail_at(p, start, "invalid number");
        return false;
    }
    if (peek(p) == '.') {
        p->pos++;
        if (!is_digit(peek(p))) {
            fail_at(p, start, "invalid number: no digit after the decimal point");
            return false;
        }
        while (is_digit(peek(p)))
            p->pos++;
    }
    if (peek(p) == 'e' || peek(p) == 'E') {
        p->pos++;
        if (peek(p) == '+' || peek(p) == '-')
            p->pos++;
        if (!is_digit(peek(p))) {
            fail_at(p, start, "invalid number: no digit in the exponent");
            return false;
        }
        while (is_digit(peek(p)))
            p->pos++;
    }
    return true;
}

static bool parse_literal(parser *p, const char *word)
{
    size_t n = strlen(word);
    if (p->pos + n > p->d->len || memcmp(p->d->text + p->pos, word, n) != 0) {
        fail_at(p, p->pos, "invalid literal");
        return false;
    }
    p->pos += n;
    return true;
}

static bool parse_value(parser *p, int depth, jkind *kind);

/* An array or object starting at its opening bracket; contents checked and discarded. */
static bool parse_container(parser *p, int depth, bool is_object)
{
    const char close = is_object ? '}' : ']';
    if (depth >= MAX_DEPTH) {
        fail_at(p, p->pos, "nesting too deep");
        return false;
    }
    p->pos++;
    skip_ws(p);
    if (peek(p) == close) {
        p->pos++;
        return true;
    }
    for (;;) {
        skip_ws(p);
        if (is_object) {
            if (peek(p) != '"') {
                fail_at(p, p->pos, "expected a member name (string)");
                return false;
            }
            if (!parse_string(p, NULL, NULL))
                return false;
            skip_ws(p);
            if (peek(p) != ':') {
                fail_at(p, p->pos, "expected ':' after a member name");
                return false;
            }
            p->pos++;
        }
        jkind k;
        if (!parse_value(p, depth + 1, &k))
            return false;
        skip_ws(p);
        int c = peek(p);
        if (c == ',') {
            p->pos++;
            continue;
        }
        if (c == close) {
            p->pos++;
            return true;
        }
        fail_at(p, p->pos, is_object ? "expected ',' or '}'" : "expected ',' or ']'");
        return false;
    }
}

/* Any value, after optional white space; leaves p->pos just past it. */
static bool parse_value(parser *p, int depth, jkind *kind)
{
    skip_ws(p);
    int c = peek(p);
    switch (c) {
    case '"': *kind = J_STRING; return parse_string(p, NULL, NULL);
    case '{': *kind = J_OBJECT; return parse_container(p, depth, true);
    case '[': *kind = J_ARRAY; return parse_container(p, depth, false);
    case 't': *kind = J_TRUE; return parse_literal(p, "true");
    case 'f': *kind = J_FALSE; return parse_literal(p, "false");
    case 'n': *kind = J_NULL; return parse_literal(p, "null");
    default:
        if (c == '-' || is_digit(c)) {
            *kind = J_NUMBER;
            return parse_number(p);
        }
        fail_at(p, p->pos, c < 0 ? "unexpected end of file, expected a value" : "expected a value");
        return false;
    }
}

static const member *find_member(const doc *d, const char *name, size_t len)
{
    for (size_t k = 0; k < d->nm; k++)
        if (d->m[k].name_len == len && memcmp(d->m[k].name, name, len) == 0)
            return &d->m[k];
    return NULL;
}

/* The top level: one object whose members are kept. */
static bool parse_doc(doc *d)
{
    parser p = {d, 0, false};
    skip_ws(&p);
    if (peek(&p) != '{') {
        fail_at(&p, p.pos, p.pos >= d->len ? "empty file, expected an object" : "expected '{' (the top level must be an object)");
        return false;
    }
    p.pos++;
    skip_ws(&p);
    if (peek(&p) == '}') {
        p.pos++;
    } else {
        for (;;) {
            skip_ws(&p);
            if (peek(&p) != '"') {
                fail_at(&p, p.pos, "expected a member name (string)");
                return false;
            }
            const size_t name_at = p.pos;
            member m;
            memset(&m, 0, sizeof m);
            if (!parse_string(&p, &m.name, &m.name_len))
                return false;
            if (find_member(d, m.name, m.name_len)) {
                fail_at(&p, name_at, "duplicate member name");
                free(m.name);
                return false;
            }
            skip_ws(&p);
            if (peek(&p) != ':') {
                fail_at(&p, p.pos, "expected ':' after a member name");
                free(m.name);
                return false;
            }
            p.pos++;
            skip_ws(&p);
            m.start = p.pos;
            if (!parse_value(&p, 1, &m.kind)) {
                free(m.name);
                return false;
            }
            m.end = p.pos;
            if (m.kind == J_STRING) {
                parser q = {d, m.start, false}; /* second pass to keep the decoded value */
                if (!parse_string(&q, &m.str, &m.str_len)) {
                    free(m.name);
                    return false;
                }
            }
            if (d->nm == d->cap) {
                size_t cap = d->cap ? 2 * d->cap : 32;
                member *q = realloc(d->m, cap * sizeof *q);
                if (!q) {
                    fail_at(&p, p.pos, "out of memory");
                    free(m.name);
                    free(m.str);
                    return false;
                }
                d->m = q;
                d->cap = cap;
            }
            d->m[d->nm++] = m;
            skip_ws(&p);
            int c = peek(&p);
            if (c == ',') {
                p.pos++;
                continue;
            }
            if (c == '}') {
                p.pos++;
                break;
            }
            fail_at(&p, p.pos, c < 0 ? "unexpected end of file, expected ',' or '}'" : "expected ',' or '}'");
            return false;
        }
    }
    skip_ws(&p);
    if (p.pos != d->len) {
        fail_at(&p, p.pos, "unexpected text after the top-level object");
        return false;
    }
    return true;
}

static bool load_doc(doc *d, const char *file)
{
    memset(d, 0, sizeof *d);
    d->file = file;
    FILE *f = fopen(file, "rb");
    if (!f) {
        fprintf(stderr, "json_compare: %s: byte 0: cannot open the file\n", file);
        return false;
    }
    size_t cap = 4096;
    d->text = malloc(cap);
    for (;;) {
        if (!d->text) {
            fprintf(stderr, "json_compare: %s: byte %zu: out of memory\n", file, d->len);
            fclose(f);
            return false;
        }
        size_t got = fread(d->text + d->len, 1, cap - d->len, f);
        d->len += got;
        if (d->len < cap)
            break;
        cap *= 2;
        char *q = realloc(d->text, cap);
        if (!q)
            free(d->text);
        d->text = q;
    }
    bool read_error = ferror(f) != 0;
    fclose(f);
    if (read_error) {
        fprintf(stderr, "json_compare: %s: byte %zu: read error\n", file, d->len);
        return false;
    }
    return parse_doc(d);
}

static void free_doc(doc *d)
{
    for (size_t k = 0; k < d->nm; k++) {
        free(d->m[k].name);
        free(d->m[k].str);
    }
    free(d->m);
    free(d->text);
}

static bool values_equal(const doc *a, const member *ma, const doc *b, const member *mb)
{
    if (ma->kind != mb->kind)
        return false;
    if (ma->kind == J_STRING)
        return ma->str_len == mb->str_len && memcmp(ma->str, mb->str, ma->str_len) == 0;
    return ma->end - ma->start == mb->end - mb->start &&
           memcmp(a->text + ma->start, b->text + mb->start, ma->end - ma->start) == 0;
}

/* The value's text as it appears in the file (shortened: arrays can be long). */
static void print_value(const doc *d, const member *m)
{
    if (!m) {
        printf("<missing>");
        return;
    }
    size_t n = m->end - m->start;
    const size_t max = 200;
    printf("%.*s%s", (int)(n > max ? max : n), d->text + m->start, n > max ? "..." : "");
}

/* Member NAME (LEN bytes: a decoded name may hold any byte) in A and B: 0 when equal, else 1
 * after printing both values. */
static int compare_named(const doc *a, const doc *b, const char *name, size_t len)
{
    const member *ma = find_member(a, name, len);
    const member *mb = find_member(b, name, len);
    if (ma && mb && values_equal(a, ma, b, mb))
        return 0;
    printf("%.*s: A=", (int)len, name);
    print_value(a, ma);
    printf(" B=");
    print_value(b, mb);
    printf("\n");
    return 1;
}

/* The same for a C string NAME; when OPTIONAL, a member absent from both files is equal. */
static int compare_member(const doc *a, const doc *b, const char *name, bool optional)
{
    const size_t len = strlen(name);
    if (optional && !find_member(a, name, len) && !find_member(b, name, len))
        return 0;
    return compare_named(a, b, name, len);
}

/* A contract list: the decoded member names of an array of strings. */
typedef struct names_list {
    char **name;
    size_t *len;
    size_t n;
} names_list;

static void free_names(names_list *l)
{
    for (size_t k = 0; k < l->n; k++)
        free(l->name[k]);
    free(l->name);
    free(l->len);
    memset(l, 0, sizeof *l);
}

/* Reads the value of member M of D ("contract") into L: it must be an array of strings.
 * Returns false after a message naming the file and byte offset. */
static bool read_names(const doc *d, const member *m, names_list *l)
{
    memset(l, 0, sizeof *l);
    parser p = {(doc *)d, m->start, false};
    if (m->kind != J_ARRAY) {
        fail_at(&p, m->start, "\"contract\" must be an array of member names (strings)");
        return false;
    }
    p.pos++; /* '[' */
    skip_ws(&p);
    if (peek(&p) == ']')
        return true;
    for (;;) {
        skip_ws(&p);
        if (peek(&p) != '"') {
            fail_at(&p, p.pos, "\"contract\" must be an array of member names (strings)");
            free_names(l);
            return false;
        }
        char **nn = realloc(l->name, (l->n + 1) * sizeof *nn);
        if (nn)
            l->name = nn;
        size_t *nl = nn ? realloc(l->len, (l->n + 1) * sizeof *nl) : NULL;
        if (nl)
            l->len = nl;
        if (!nn || !nl) {
            fail_at(&p, p.pos, "out of memory");
            free_names(l);
            return false;
        }
        if (!parse_string(&p, &l->name[l->n], &l->len[l->n])) {
            free_names(l);
            return false;
        }
        l->n++;
        skip_ws(&p);
        if (peek(&p) == ',') {
            p.pos++;
            continue;
        }
        /* The whole file was parsed already: after the last string comes ']'. */
        return true;
    }
}

static bool names_has(const names_list *l, size_t upto, const char *name, size_t len)
{
    for (size_t k = 0; k < upto; k++)
        if (l->len[k] == len && memcmp(l->name[k], name, len) == 0)
            return true;
    return false;
}

/* The flood's legacy list: model, seed, the flood's declared metrics and its table, each
 * with whether it is optional (compared only when either file has it). */
typedef struct legacy_member {
    const char *name;
    bool optional;
} legacy_member;

enum { N_LEGACY = FLOOD_N_METRICS + 3 };

static void legacy_members(legacy_member out[N_LEGACY])
{
    size_t n = 0;
    out[n++] = (legacy_member){"model", false};
    out[n++] = (legacy_member){"seed", false};
    for (int i = 0; i < FLOOD_N_METRICS; i++)
        out[n++] = (legacy_member){flood_metrics[i].name, flood_metrics[i].optional != 0};
    out[n] = (legacy_member){flood_flows_table.name, true};
}

/* The list a file without "contract" names, as L: the legacy list, its optional members
 * where A or B has them. */
static bool legacy_names(const doc *a, const doc *b, names_list *l)
{
    legacy_member all[N_LEGACY];
    legacy_members(all);
    memset(l, 0, sizeof *l);
    l->name = calloc(N_LEGACY, sizeof *l->name);
    l->len = calloc(N_LEGACY, sizeof *l->len);
    if (!l->name || !l->len) {
        fprintf(stderr, "json_compare: out of memory\n");
        free_names(l);
        return false;
    }
    for (size_t k = 0; k < N_LEGACY; k++) {
        size_t len = strlen(all[k].name);
        if (all[k].optional && !find_member(a, all[k].name, len) &&
            !find_member(b, all[k].name, len))
            continue;
        l->name[l->n] = malloc(len + 1);
        if (!l->name[l->n]) {
            fprintf(stderr, "json_compare: out of memory\n");
            free_names(l);
            return false;
        }
        memcpy(l->name[l->n], all[k].name, len + 1);
        l->len[l->n++] = len;
    }
    return true;
}

/* The comparison when a file names its contract (CA, CB: its "contract" member in A and B,
 * one of them possibly NULL): "contract" first (the same list on both sides), then every
 * member either list names, each once. */
static int compare_contracts(const doc *a, const member *ca, const doc *b, const member *cb)
{
    names_list la = {NULL, NULL, 0}, lb = {NULL, NULL, 0};
    /* a file without "contract" names the legacy list, which the other's must equal */
    if (!(ca ? read_names(a, ca, &la) : legacy_names(a, b, &la)) ||
        !(cb ? read_names(b, cb, &lb) : legacy_names(a, b, &lb))) {
        free_names(&la);
        free_names(&lb);
        return 1;
    }
    bool same = la.n == lb.n;
    for (size_t k = 0; same && k < la.n; k++)
        same = la.len[k] == lb.len[k] && memcmp(la.name[k], lb.name[k], la.len[k]) == 0;
    int status = 0;
    if (!same) {
        printf("contract: A=");
        print_value(a, ca);
        printf(" B=");
        print_value(b, cb);
        printf("\n");
        status = 1;
    }
    /* the members the files name themselves; a legacy list only stands in for the other's
     * when the two are the same */
    const names_list *first = ca ? &la : &lb, *second = ca && cb ? &lb : NULL;
    for (size_t k = 0; k < first->n; k++)
        if (!names_has(first, k, first->name[k], first->len[k]) &&
            !(first->len[k] == 8 && memcmp(first->name[k], "contract", 8) == 0))
            status |= compare_named(a, b, first->name[k], first->len[k]);
    for (size_t k = 0; second && k < second->n; k++)
        if (!names_has(second, k, second->name[k], second->len[k]) &&
            !names_has(first, first->n, second->name[k], second->len[k]) &&
            !(second->len[k] == 8 && memcmp(second->name[k], "contract", 8) == 0))
            status |= compare_named(a, b, second->name[k], second->len[k]);
    free_names(&la);
    free_names(&lb);
    return status;
}

int main(int argc, char **argv)
{
    const char *files[2];
    int nfiles = 0;
    char *list = NULL; /* --members argument, split in place */
    for (int a = 1; a < argc; a++) {
        if (strcmp(argv[a], "--members") == 0) {
            if (a + 1 >= argc) {
                fprintf(stderr, "json_compare: --members needs a comma-separated list\n");
                return 2;
            }
            list = argv[++a];
        } else if (strncmp(argv[a], "--members=", 10) == 0) {
            list = argv[a] + 10;
        } else if (nfiles < 2 && (argv[a][0] != '-' || argv[a][1] == '\0')) {
            files[nfiles++] = argv[a];
        } else {
            fprintf(stderr, "usage: json_compare [--members a,b,c] A.json B.json\n");
            return 2;
        }
    }
    if (nfiles != 2) {
        fprintf(stderr, "usage: json_compare [--members a,b,c] A.json B.json\n");
        return 2;
    }

    const char **names = NULL;
    size_t nnames = 0;
    if (list) {
        names = calloc(strlen(list) / 2 + 2, sizeof *names);
        if (!names) {
            fprintf(stderr, "json_compare: out of memory\n");
            return 1;
        }
        for (char *tok = strtok(list, ","); tok; tok = strtok(NULL, ","))
            names[nnames++] = tok;
        if (nnames == 0) {
            fprintf(stderr, "json_compare: --members: empty list\n");
            free(names);
            return 2;
        }
    }

    doc a, b;
    bool ok_a = load_doc(&a, files[0]);
    bool ok_b = load_doc(&b, files[1]); /* parse both, so that both files' errors are shown */
    int status = 0;
    if (!ok_a || !ok_b) {
        status = 1;
    } else {
        const member *ca = list ? NULL : find_member(&a, "contract", 8);
        const member *cb = list ? NULL : find_member(&b, "contract", 8);
        if (ca || cb) {
            status = compare_contracts(&a, ca, &b, cb);
        } else {
            legacy_member legacy[N_LEGACY];
            legacy_members(legacy);
            for (size_t k = 0; k < (list ? nnames : (size_t)N_LEGACY); k++)
                status |= list ? compare_member(&a, &b, names[k], false)
                               : compare_member(&a, &b, legacy[k].name, legacy[k].optional);
        }
    }
    free_doc(&a);
    free_doc(&b);
    free(names);
    return status;
}
