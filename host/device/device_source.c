/* Assembling one OpenCL source from the embedded files: `#include "dir/x.clh"` (a path under
 * cl/, the name the file is embedded by) is expanded here,
 * not by the driver, because the files live in the binary (no include path to hand to the
 * compiler) and because the cache key must cover exactly the text that is compiled. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/embedded.h"
#include "device/device_internal.h"

typedef struct text_buf {
    char *data;
    size_t len, cap;
} text_buf;

static int buf_append(text_buf *b, const char *s, size_t n)
{
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (b->len + n + 1 > cap)
            cap *= 2;
        char *grown = realloc(b->data, cap);
        if (!grown)
            return -1;
        b->data = grown;
        b->cap = cap;
    }
    memcpy(b->data + b->len, s, n);
    b->len += n;
    b->data[b->len] = '\0';
    return 0;
}

typedef struct expander {
    source_lookup_fn lookup;
    void *user;
    char **seen; /* files already in the output: each goes in once */
    int n_seen;
    text_buf out;
    cn_error *err;
} expander;

static const char *embedded_lookup(const char *name, size_t *len, void *user)
{
    (void)user;
    return embedded_file(name, len);
}

static int was_seen(const expander *x, const char *name)
{
    for (int i = 0; i < x->n_seen; i++)
        if (strcmp(x->seen[i], name) == 0)
            return 1;
    return 0;
}

static int mark_seen(expander *x, const char *name)
{
    char **grown = realloc(x->seen, (size_t)(x->n_seen + 1) * sizeof *grown);
    char *copy = strdup(name);
    if (grown)
        x->seen = grown;
    if (!grown || !copy) {
        free(copy);
        return -1;
    }
    x->seen[x->n_seen++] = copy;
    return 0;
}

/* Whether LINE (N bytes, no newline) is `#include "NAME"`; white space is allowed around '#'
 * and after the closing quote. `#include <...>` is left to the compiler, which rejects it. */
static int include_name(const char *line, size_t n, char *name, size_t cap)
{
    const char *p = line, *end = line + n;
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    if (p == end || *p++ != '#')
        return 0;
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    if ((size_t)(end - p) < 8 || strncmp(p, "include", 7) != 0)
        return 0;
    p += 7;
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    if (p == end || *p++ != '"')
        return 0;
    const char *q = memchr(p, '"', (size_t)(end - p));
    if (!q || q == p || (size_t)(q - p) >= cap)
        return 0;
    memcpy(name, p, (size_t)(q - p));
    name[q - p] = '\0';
    return 1;
}

static int emit_line_marker(expander *x, int line, const char *file)
{
    char marker[300];
    int n = snprintf(marker, sizeof marker, "#line %d \"%s\"\n", line, file);
    return buf_append(&x->out, marker, (size_t)n);
}

static int out_of_memory(expander *x)
{
    return cn_fail(x->err, CN_ERR_RUNTIME,
                   "out of host memory while assembling the OpenCL sources");
}

static int expand_file(expander *x, const char *name, const char *includer, int includer_line);

static int expand_text(expander *x, const char *name, const char *text)
{
    int line = 1;
    for (const char *p = text; *p; line++) {
        size_t n = strcspn(p, "\n");
        size_t content = n > 0 && p[n - 1] == '\r' ? n - 1 : n;
        char inc[256];
        if (include_name(p, content, inc, sizeof inc)) {
            int rc = expand_file(x, inc, name, line);
            if (rc)
                return rc;
            if (emit_line_marker(x, line + 1, name))
                return out_of_memory(x);
        } else if (buf_append(&x->out, p, n) || buf_append(&x->out, "\n", 1)) {
            return out_of_memory(x);
        }
        p += n;
        if (*p == '\n')
            p++;
    }
    return 0;
}

static int expand_file(expander *x, const char *name, const char *includer, int includer_line)
{
    if (was_seen(x, name))
        return 0;
    const char *text = x->lookup(name, NULL, x->user);
    if (!text && includer)
        return cn_fail(x->err, CN_ERR_RUNTIME,
                       "%s, line %d: #include \"%s\" names no embedded file (the embedded sources "
                       "are named by their path under cl/, e.g. \"common/philox.clh\")",
                       includer, includer_line, name);
    if (!text)
        return cn_fail(x->err, CN_ERR_RUNTIME, "OpenCL source '%s' is not embedded in this build",
                       name);
    if (mark_seen(x, name) || emit_line_marker(x, 1, name))
        return out_of_memory(x);
    return expand_text(x, name, text);
}

int device_expand_sources(const char *const *sources, int n_sources, source_lookup_fn lookup,
                          void *user, char **out, cn_error *err)
{
    expander x = {.lookup = lookup ? lookup : embedded_lookup, .user = user, .err = err};
    int rc = 0;
    *out = NULL;
    for (int i = 0; rc == 0 && i < n_sources; i++)
        rc = expand_file(&x, sources[i], NULL, 0);
    if (rc == 0 && !x.out.data && buf_append(&x.out, "", 0))
        rc = out_of_memory(&x);
    for (int i = 0; i < x.n_seen; i++)
        free(x.seen[i]);
    free(x.seen);
    if (rc) {
        free(x.out.data);
        return rc;
    }
    *out = x.out.data;
    return 0;
}
