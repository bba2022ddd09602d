/* Kernel keys: the one name of a kernel everywhere outside its OpenCL C source. A key is
 * FAMILY.NAME, where FAMILY is the kernel's folder under cl/ (a model: flood, phold; or core)
 * or, for the shared sources of cl/common, the file's stem (cells), and NAME is the C name
 * without a leading "FAMILY_": flood_packets in cl/flood is flood.packets, transmit is
 * flood.transmit, scan_blocks in cl/common/cells.cl is cells.scan_blocks, phold_execute is
 * phold.execute. Keys are what platform profiles ([work_group]), the tuner, the shapes
 * self-test, kernel timings and error texts name, so that two models may have kernels of the
 * same C name and a profile entry says which model's it tunes.
 *
 * The mapping is read from the embedded sources themselves (every kernel starts a line with
 * "__kernel void NAME("), so a new model's kernels get their keys without any table. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "common/embedded.h"
#include "device/device.h"

#define KERNEL_MARK "__kernel void "

static int has_cl_suffix(const char *s)
{
    size_t n = strlen(s);
    return n > 3 && strcmp(s + n - 3, ".cl") == 0;
}

/* The family of the embedded source NAME ("flood/flood.cl" -> flood, "common/cells.cl" ->
 * cells); 0 when it is not a kernel source under a folder. */
static int source_family(const char *name, char *family, size_t cap)
{
    const char *slash = strchr(name, '/');
    if (!slash || !has_cl_suffix(name))
        return 0;
    const char *from = name;
    size_t len = (size_t)(slash - name);
    if (len == strlen("common") && strncmp(name, "common", len) == 0) {
        from = slash + 1;
        len = strlen(from) - 3;
    }
    if (len == 0 || len >= cap)
        return 0;
    memcpy(family, from, len);
    family[len] = '\0';
    return 1;
}

static void make_key(const char *family, const char *c_name, char *key, size_t cap)
{
    size_t f = strlen(family);
    const char *rest = c_name;
    if (strncmp(c_name, family, f) == 0 && c_name[f] == '_' && c_name[f + 1])
        rest = c_name + f + 1;
    snprintf(key, cap, "%s.%s", family, rest);
}

/* Calls VISIT(c_name, key, user) for every kernel of the embedded sources until it
 * returns non-zero, and returns that value (0 when none did). */
static int each_kernel(int (*visit)(const char *, const char *, void *),
                       void *user)
{
    for (size_t i = 0; i < embedded_count(); i++) {
        const struct embedded_entry *f = embedded_at(i);
        char family[64];
        if (!source_family(f->name, family, sizeof family))
            continue;
        for (const char *at = f->data; (at = strstr(at, KERNEL_MARK)) != NULL;) {
            int line_start = at == f->data || at[-1] == '\n';
            at += strlen(KERNEL_MARK);
            size_t n = 0;
            while (isalnum((unsigned char)at[n]) || at[n] == '_')
                n++;
            if (!line_start || n == 0 || n >= 64)
                continue;
            char c_name[64], key[160];
            memcpy(c_name, at, n);
            c_name[n] = '\0';
            make_key(family, c_name, key, sizeof key);
            int rc = visit(c_name, key, user);
            if (rc)
                return rc;
        }
    }
    return 0;
}

struct key_search {
    const char *want; /* the C name or the key looked for */
    char *out;
    size_t cap;
};

static int match_c_name(const char *c_name, const char *key, void *user)
{
    struct key_search *s = user;
    if (strcmp(c_name, s->want) != 0)
        return 0;
    snprintf(s->out, s->cap, "%s", key);
    return 1;
}

static int match_key(const char *c_name, const char *key, void *user)
{
    struct key_search *s = user;
    if (strcmp(key, s->want) != 0)
        return 0;
    snprintf(s->out, s->cap, "%s", c_name);
    return 1;
}

int device_kernel_key(const char *c_name, char *key, size_t cap)
{
    struct key_search s = {c_name, key, cap};
    return each_kernel(match_c_name, &s) ? 0 : -1;
}

int device_kernel_c_name(const char *key, char *c_name, size_t cap)
{
    struct key_search s = {key, c_name, cap};
    return each_kernel(match_key, &s) ? 0 : -1;
}
