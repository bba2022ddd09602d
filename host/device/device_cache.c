/* The persistent kernel-binary cache. Compiling the kernels takes seconds on some drivers and
 * happens on every run and every device, so built binaries are kept under
 * $XDG_CACHE_HOME/clnetsim (else ~/.cache/clnetsim), one file per build key.
 *
 * The cache is an optimisation only: every failure here (no HOME, read-only directory, a
 * damaged or foreign file) means "not cached" and the caller builds from source. A file is
 * trusted only when its header names the same key and its payload hash matches, so a
 * truncated write or a flipped bit never reaches the driver. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "version.h"
#include "common/embedded.h"
#include "device/device_internal.h"

#define CACHE_MAGIC  "CLNSKBIN"
#define CACHE_FORMAT 1u
#define HEADER_SIZE  56 /* magic 8, format 4, reserved 4, key length, h1, h2, size, payload hash */

/* ---- hashing ---- */

static uint64_t fnv1a(uint64_t h, const unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}

/* A second, structurally different hash (multiply, then fold the high bits down), so that a
 * collision of both needs two unrelated accidents. */
static uint64_t mix(uint64_t h, const unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        h = (h + p[i] + 1) * 0xff51afd7ed558ccdull;
        h ^= h >> 29;
    }
    return h;
}

void cache_key_init(cache_key *k)
{
    k->h1 = 0xcbf29ce484222325ull;
    k->h2 = 0x9e3779b97f4a7c15ull;
    k->length = 0;
}

void cache_key_add(cache_key *k, const void *data, size_t len)
{
    unsigned char prefix[8];
    for (int i = 0; i < 8; i++)
        prefix[i] = (unsigned char)((uint64_t)len >> (8 * i));
    k->h1 = fnv1a(fnv1a(k->h1, prefix, 8), data, len);
    k->h2 = mix(mix(k->h2, prefix, 8), data, len);
    k->length += 8 + (uint64_t)len;
}

void cache_key_add_str(cache_key *k, const char *s)
{
    cache_key_add(k, s ? s : "", s ? strlen(s) : 0);
}

/* ---- where ---- */

int cache_disabled(void)
{
    const char *v = getenv("CLNETSIM_NO_CACHE");
    return v && v[0] && strcmp(v, "0") != 0;
}

int device_cache_dir(char *buf, size_t cap)
{
    if (cache_disabled() || cap == 0)
        return 0;
    /* The XDG specification says to ignore a relative XDG_CACHE_HOME. */
    const char *xdg = getenv("XDG_CACHE_HOME");
    const char *home = getenv("HOME");
    int n;
    if (xdg && xdg[0] == '/')
        n = snprintf(buf, cap, "%s/clnetsim", xdg);
    else if (home && home[0])
        n = snprintf(buf, cap, "%s/.cache/clnetsim", home);
    else
        return 0;
    return n > 0 && (size_t)n < cap;
}

static int cache_path(const cache_key *key, char *buf, size_t cap)
{
    char dir[4096];
    if (!device_cache_dir(dir, sizeof dir))
        return 0;
    int n = snprintf(buf, cap, "%s/%016llx%016llx.bin", dir, (unsigned long long)key->h1,
                     (unsigned long long)key->h2);
    return n > 0 && (size_t)n < cap;
}

/* mkdir -p: every missing parent too; an existing directory is fine. */
static int make_dirs(const char *path)
{
    char tmp[4096];
    if (snprintf(tmp, sizeof tmp, "%s", path) >= (int)sizeof tmp)
        return -1;
    for (char *p = tmp + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(tmp, 0755) != 0 && errno != EEXIST)
            return -1;
        *p = '/';
    }
    return mkdir(tmp, 0755) != 0 && errno != EEXIST ? -1 : 0;
}

/* ---- file format: little-endian header, then the driver's binary ---- */

static void put64(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t get64(const unsigned char *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = (v << 8) | p[i];
    return v;
}

static void make_header(unsigned char *h, const cache_key *key, const unsigned char *binary,
                        size_t size)
{
    memset(h, 0, HEADER_SIZE);
    memcpy(h, CACHE_MAGIC, sizeof CACHE_MAGIC - 1);
    for (int i = 0; i < 4; i++)
        h[8 + i] = (unsigned char)(CACHE_FORMAT >> (8 * i));
    put64(h + 16, key->length);
    put64(h + 24, key->h1);
    put64(h + 32, key->h2);
    put64(h + 40, (uint64_t)size);
    put64(h + 48, fnv1a(0xcbf29ce484222325ull, binary, size));
}

/* Checks everything but the payload hash (which needs the payload); gives the payload size. */
static int header_fits(const unsigned char *h, const cache_key *key, uint64_t *size)
{
    unsigned char expect[HEADER_SIZE];
    make_header(expect, key, NULL, 0);
    *size = get64(h + 40);
    return memcmp(h, expect, 40) == 0 && *size > 0 && *size < ((uint64_t)1 << 32) ? 0 : -1;
}

int cache_load(const cache_key *key, unsigned char **binary, size_t *size)
{
    char path[4200];
    unsigned char header[HEADER_SIZE];
    uint64_t n = 0;
    *binary = NULL;
    if (!cache_path(key, path, sizeof path))
        return -1;
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    unsigned char *data = NULL;
    int ok = fread(header, 1, HEADER_SIZE, f) == HEADER_SIZE && header_fits(header, key, &n) == 0 &&
             (data = malloc((size_t)n)) != NULL && fread(data, 1, (size_t)n, f) == (size_t)n &&
             fgetc(f) == EOF && get64(header + 48) == fnv1a(0xcbf29ce484222325ull, data, (size_t)n);
    fclose(f);
    if (!ok) {
        free(data);
        return -1;
    }
    *binary = data;
    *size = (size_t)n;
    return 0;
}

FILE *cache_file_begin(const char *path, char *tmp, size_t cap)
{
    /* A unique temporary name in the same directory, then rename: readers (other runs, other
     * devices of this run) see either no file or a complete one, never a partial write. */
    const char *slash = strrchr(path, '/');
    if (!slash)
        return NULL;
    int dir_len = (int)(slash - path);
    int made = snprintf(tmp, cap, "%.*s/.tmp-XXXXXX", dir_len, path);
    if (made <= 0 || (size_t)made >= cap)
        return NULL;
    tmp[dir_len] = '\0';
    int rc = make_dirs(tmp);
    tmp[dir_len] = '/';
    if (rc)
        return NULL;
    int fd = mkstemp(tmp);
    if (fd < 0)
        return NULL;
    FILE *f = fdopen(fd, "wb");
    if (!f) {
        close(fd);
        unlink(tmp);
    }
    return f;
}

int cache_file_commit(FILE *f, const char *tmp, const char *path)
{
    int ok = !ferror(f);
    ok = fclose(f) == 0 && ok;
    if (!ok || rename(tmp, path) != 0) {
        unlink(tmp);
        return -1;
    }
    return 0;
}

void cache_store(const cache_key *key, const unsigned char *binary, size_t size)
{
    char path[4200], tmp[4200];
    unsigned char header[HEADER_SIZE];
    FILE *f = cache_path(key, path, sizeof path) ? cache_file_begin(path, tmp, sizeof tmp) : NULL;
    if (!f)
        return;
    make_header(header, key, binary, size);
    if (fwrite(header, 1, HEADER_SIZE, f) == HEADER_SIZE && fwrite(binary, 1, size, f) == size) {
        (void)cache_file_commit(f, tmp, path);
        return;
    }
    fclose(f);
    unlink(tmp);
}

void cache_key_add_device(cache_key *k, const device_ctx *dev)
{
    cache_key_add_str(k, dev->info.platform_name);
    cache_key_add_str(k, dev->info.name);
    cache_key_add_str(k, dev->info.version);
    cache_key_add_str(k, dev->info.driver);
    cache_key_add_str(k, CLNETSIM_VERSION);
    for (size_t i = 0; i < embedded_count(); i++) {
        const struct embedded_entry *e = embedded_at(i);
        size_t n = strlen(e->name);
        if ((n > 3 && !strcmp(e->name + n - 3, ".cl")) ||
            (n > 4 && !strcmp(e->name + n - 4, ".clh"))) {
            cache_key_add_str(k, e->name);
            cache_key_add(k, e->data, e->len);
        }
    }
}

int cache_ini_path(const cache_key *key, const char *prefix, char *buf, size_t cap)
{
    char dir[4096];
    if (!device_cache_dir(dir, sizeof dir))
        return 0;
    int w = snprintf(buf, cap, "%s/%s-%016llx%016llx.ini", dir, prefix,
                     (unsigned long long)key->h1, (unsigned long long)key->h2);
    return w > 0 && (size_t)w < cap;
}
