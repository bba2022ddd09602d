/* Checkpoint files (checkpoint.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/files.h"
#include "engine/checkpoint.h"
#include "report/report.h"

static const char magic[8] = {'C', 'L', 'N', 'S', 'C', 'K', 'P', 'T'};
#define BYTE_ORDER_MARK 0x01020304u
#define HEADER_BYTES 24 /* magic, version, byte-order mark, body length */
/* A checkpoint is read whole into memory: beyond this it is not one of ours. */
#define MAX_FILE_BYTES ((uint64_t)1 << 40)

uint32_t ckpt_crc32(uint32_t crc, const void *data, size_t len)
{
    static uint32_t table[256];
    static int ready;
    if (!ready) { /* the reflected polynomial 0xEDB88320 */
        for (uint32_t i = 0; i < 256; i++) {
            uint32_t c = i;
            for (int k = 0; k < 8; k++)
                c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
            table[i] = c;
        }
        ready = 1;
    }
    const uint8_t *p = data;
    crc = ~crc;
    for (size_t i = 0; i < len; i++)
        crc = table[(crc ^ p[i]) & 0xffu] ^ (crc >> 8);
    return ~crc;
}

static int reserve(ckpt_buf *b, size_t more)
{
    if (b->oom)
        return -1;
    if (b->len + more <= b->cap)
        return 0;
    size_t cap = b->cap ? b->cap : 4096;
    while (cap < b->len + more)
        cap *= 2;
    uint8_t *d = realloc(b->data, cap);
    if (!d) {
        b->oom = 1;
        return -1;
    }
    b->data = d;
    b->cap = cap;
    return 0;
}

void ckpt_put(ckpt_buf *b, uint32_t tag, const void *data, size_t len)
{
    size_t padded = (len + 7) & ~(size_t)7;
    if (reserve(b, 16 + padded) != 0)
        return;
    uint32_t head[2] = {tag, 0};
    uint64_t n = len;
    memcpy(b->data + b->len, head, 8);
    memcpy(b->data + b->len + 8, &n, 8);
    if (len)
        memcpy(b->data + b->len + 16, data, len);
    memset(b->data + b->len + 16 + len, 0, padded - len);
    b->len += 16 + padded;
}

void ckpt_put_i64(ckpt_buf *b, uint32_t tag, int64_t v)
{
    ckpt_put(b, tag, &v, sizeof v);
}

void ckpt_buf_free(ckpt_buf *b)
{
    free(b->data);
    memset(b, 0, sizeof *b);
}

int ckpt_write(const char *path, const ckpt_buf *body, cn_error *err)
{
    if (body->oom)
        return cn_fail(err, CN_ERR_RUNTIME, "out of host memory for the checkpoint '%s'", path);
    uint8_t head[HEADER_BYTES];
    uint32_t version = CHECKPOINT_FORMAT, bom = BYTE_ORDER_MARK;
    uint64_t n = body->len;
    memcpy(head, magic, 8);
    memcpy(head + 8, &version, 4);
    memcpy(head + 12, &bom, 4);
    memcpy(head + 16, &n, 8);
    uint32_t crc = ckpt_crc32(ckpt_crc32(0, head, sizeof head), body->data, body->len);
    json_output o;
    int rc = output_file_open_regular(&o, path, "checkpoint", err);
    if (rc)
        return rc;
    /* write errors (a full disk, a size limit) show when the file is finished */
    fwrite(head, 1, sizeof head, o.file);
    if (body->len)
        fwrite(body->data, 1, body->len, o.file);
    fwrite(&crc, 1, 4, o.file);
    rc = output_file_commit(&o, err);
    json_output_abort(&o);
    return rc;
}

static int refuse(cn_error *err, const char *path, const char *why)
{
    return cn_fail(err, CN_ERR_INPUT, "cannot resume from '%s': %s", path, why);
}

/* The whole of PATH into F->data (*SIZE bytes). */
static int read_all(ckpt_file *f, const char *path, size_t *size, cn_error *err)
{
    FILE *in = NULL;
    mode_t mode = 0;
    int e = file_open_regular(path, &in, &mode); /* a FIFO would block open() */
    if (e == EISDIR)
        return refuse(err, path, "it is not a regular file");
    if (e < 0) {
        char why[64];
        snprintf(why, sizeof why, "it is %s, not a regular file", file_kind_name(mode));
        return refuse(err, path, why);
    }
    if (e)
        return cn_fail(err, CN_ERR_INPUT, "cannot read the checkpoint '%s': %s", path,
                       strerror(e));
    struct stat st;
    if (fstat(fileno(in), &st) != 0) {
        fclose(in);
        return refuse(err, path, "it is not a regular file");
    }
    if ((uint64_t)st.st_size > MAX_FILE_BYTES) {
        fclose(in);
        return refuse(err, path, "it is larger than any clnetsim checkpoint (1 TiB)");
    }
    *size = (size_t)st.st_size;
    f->data = malloc(*size ? *size : 1);
    if (!f->data) {
        fclose(in);
        return cn_fail(err, CN_ERR_RUNTIME, "out of host memory to read the checkpoint '%s'",
                       path);
    }
    size_t got = *size ? fread(f->data, 1, *size, in) : 0;
    int bad = ferror(in);
    fclose(in);
    if (bad || got != *size)
        return cn_fail(err, CN_ERR_INPUT, "cannot read the checkpoint '%s': %s", path,
                       bad ? strerror(errno ? errno : EIO) : "it changed while being read");
    return 0;
}

/* Every record of the body lies inside it. */
static int records_ok(const uint8_t *body, size_t len)
{
    size_t at = 0;
    while (at < len) {
        uint64_t n;
        if (len - at < 16)
            return 0;
        memcpy(&n, body + at + 8, 8);
        if (n > len - at - 16 || ((n + 7) & ~(uint64_t)7) > len - at - 16)
            return 0;
        at += 16 + (size_t)((n + 7) & ~(uint64_t)7);
    }
    return 1;
}

/* The header, the checksum and the records of F->data (SIZE bytes), as read from PATH. */
static int check_file(ckpt_file *f, const char *path, size_t size, cn_error *err)
{
    if (size < 8 || memcmp(f->data, magic, 8) != 0)
        return refuse(err, path, "it is not a clnetsim checkpoint (no CLNSCKPT mark at its "
                      "start)");
    if (size < HEADER_BYTES + 4)
        return refuse(err, path, "the file is truncated (shorter than a checkpoint header)");
    uint32_t version, bom;
    uint64_t n;
    memcpy(&version, f->data + 8, 4);
    memcpy(&bom, f->data + 12, 4);
    memcpy(&n, f->data + 16, 8);
    char why[200];
    if (bom != BYTE_ORDER_MARK)
        return refuse(err, path, "it was written on a machine of the other byte order");
    if (version != CHECKPOINT_FORMAT) {
        snprintf(why, sizeof why, "it has checkpoint format %u, and this clnetsim reads format "
                 "%u only", version, CHECKPOINT_FORMAT);
        return refuse(err, path, why);
    }
    if (n != size - HEADER_BYTES - 4) {
        snprintf(why, sizeof why, "the file is %s (its header announces %llu bytes of state, "
                 "it holds %llu)", n > size - HEADER_BYTES - 4 ? "truncated" : "damaged",
                 (unsigned long long)n, (unsigned long long)(size - HEADER_BYTES - 4));
        return refuse(err, path, why);
    }
    uint32_t stored, crc = ckpt_crc32(0, f->data, size - 4);
    memcpy(&stored, f->data + size - 4, 4);
    if (stored != crc) {
        snprintf(why, sizeof why, "the file is damaged (its CRC-32 is %08x, its content gives "
                 "%08x)", stored, crc);
        return refuse(err, path, why);
    }
    f->body = f->data + HEADER_BYTES;
    f->body_len = (size_t)n;
    if (!records_ok(f->body, f->body_len))
        return refuse(err, path, "its records are malformed");
    return 0;
}

static int set_path(ckpt_file *f, const char *path, cn_error *err)
{
    memset(f, 0, sizeof *f);
    if (strlen(path) >= sizeof f->path)
        return cn_fail(err, CN_ERR_INPUT, "checkpoint path '%.64s...' is too long", path);
    snprintf(f->path, sizeof f->path, "%s", path);
    return 0;
}

int ckpt_read(ckpt_file *f, const char *path, cn_error *err)
{
    int rc = set_path(f, path, err);
    size_t size = 0;
    if (!rc)
        rc = read_all(f, path, &size, err);
    return rc ? rc : check_file(f, path, size, err);
}

int ckpt_read_memory(ckpt_file *f, const char *path, const void *data, size_t size,
                     cn_error *err)
{
    int rc = set_path(f, path, err);
    if (rc)
        return rc;
    f->data = malloc(size ? size : 1);
    if (!f->data)
        return cn_fail(err, CN_ERR_RUNTIME, "out of host memory to read the checkpoint '%s'",
                       path);
    if (size)
        memcpy(f->data, data, size);
    return check_file(f, path, size, err);
}

void ckpt_close(ckpt_file *f)
{
    free(f->data);
    f->data = NULL;
    f->body = NULL;
    f->body_len = 0;
}

static const uint8_t *lookup(const ckpt_file *f, uint32_t tag, size_t *len)
{
    size_t at = 0;
    while (at + 16 <= f->body_len) {
        uint32_t t;
        uint64_t n;
        memcpy(&t, f->body + at, 4);
        memcpy(&n, f->body + at + 8, 8);
        if (t == tag) {
            *len = (size_t)n;
            return f->body + at + 16;
        }
        at += 16 + (size_t)((n + 7) & ~(uint64_t)7);
    }
    return NULL;
}

/* TAG as text for messages: its four characters. */
static void tag_text(uint32_t tag, char out[5])
{
    for (int i = 0; i < 4; i++) {
        unsigned c = (tag >> (8 * i)) & 0xffu;
        out[i] = (char)(c >= 32 && c < 127 ? c : (unsigned)'?');
    }
    out[4] = '\0';
}

int ckpt_mismatch(const ckpt_file *f, cn_error *err, const char *what)
{
    return cn_fail(err, CN_ERR_INPUT, "cannot resume from '%s': it is damaged or does not fit "
                   "its own scenario (%s)", f->path, what);
}

int ckpt_refuse(const ckpt_file *f, cn_error *err, uint32_t tag, const char *fmt, ...)
{
    char t[5], what[400];
    tag_text(tag, t);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return cn_fail(err, CN_ERR_INPUT, "cannot resume from '%s': record %s: %s", f->path, t,
                   what);
}

int ckpt_find(const ckpt_file *f, uint32_t tag, const void **data, size_t *len, cn_error *err)
{
    *data = lookup(f, tag, len);
    if (*data)
        return 0;
    char t[5], why[64];
    tag_text(tag, t);
    snprintf(why, sizeof why, "record '%s' is missing", t);
    return ckpt_mismatch(f, err, why);
}

int ckpt_get(const ckpt_file *f, uint32_t tag, void *dst, size_t len, cn_error *err)
{
    const void *p = NULL;
    size_t n;
    int rc = ckpt_find(f, tag, &p, &n, err);
    if (rc)
        return rc;
    if (n != len) {
        char t[5], why[120];
        tag_text(tag, t);
        snprintf(why, sizeof why, "record '%s' holds %zu bytes, expected %zu", t, n, len);
        return ckpt_mismatch(f, err, why);
    }
    if (len)
        memcpy(dst, p, len);
    return 0;
}

int ckpt_get_i64(const ckpt_file *f, uint32_t tag, int64_t *v, cn_error *err)
{
    return ckpt_get(f, tag, v, sizeof *v, err);
}

int ckpt_has(const ckpt_file *f, uint32_t tag)
{
    size_t n;
    return lookup(f, tag, &n) != NULL;
}

/* ENXT, EWIN and ETIM into P. */
static int read_progress(const ckpt_file *f, ckpt_progress *p, cn_error *err)
{
    int rc = ckpt_get_i64(f, CKPT_NEXT, &p->next, err);
    if (!rc)
        rc = ckpt_get_i64(f, CKPT_DONE, &p->done, err);
    if (!rc)
        rc = ckpt_get_i64(f, CKPT_REACHED, &p->reached, err);
    return rc;
}

/* What holds for every kind of step (windows or batches: STEP, STEPS) once the next one's
 * number is in range. */
static int check_done_reached(const ckpt_file *f, const ckpt_progress *p, const char *step,
                              const char *steps, cn_error *err)
{
    if (p->done < 0 || p->done > p->next)
        return ckpt_refuse(f, err, CKPT_DONE, "%lld %s run, with the next %s %lld",
                           (long long)p->done, steps, step, (long long)p->next);
    if (p->reached < 0)
        return ckpt_refuse(f, err, CKPT_REACHED, "time reached %lld ns is negative",
                           (long long)p->reached);
    return 0;
}

/* Steps that are counted (STEP: "window" or "batch"): none negative, the next within the
 * 64-bit count, no more run than the next one's number. */
static int get_progress_count(const ckpt_file *f, ckpt_progress *p, const char *step,
                              const char *steps, cn_error *err)
{
    int rc = read_progress(f, p, err);
    if (rc)
        return rc;
    /* a count: the step after the last one the 64-bit counter holds is not one */
    if (p->next < 0)
        return ckpt_refuse(f, err, CKPT_NEXT, "next %s %lld is negative", step,
                           (long long)p->next);
    if (p->next == INT64_MAX)
        return ckpt_refuse(f, err, CKPT_NEXT, "next %s %lld is beyond the last %s a run can "
                           "count", step, (long long)p->next, step);
    return check_done_reached(f, p, step, steps, err);
}

int ckpt_get_progress(const ckpt_file *f, int64_t L, ckpt_progress *p, cn_error *err)
{
    int rc = read_progress(f, p, err);
    if (rc)
        return rc;
    if (L <= 0)
        return cn_fail(err, CN_ERR_INPUT, "cannot resume from '%s': its scenario has no window "
                       "length", f->path);
    int64_t last = INT64_MAX / L - 2; /* (next + 1) * L and one window more fit in int64 */
    if (p->next < 0 || p->next > last)
        return ckpt_refuse(f, err, CKPT_NEXT, "next window %lld is %s", (long long)p->next,
                           p->next < 0 ? "negative" : "beyond the last window whose time fits "
                                                      "in 64 bits");
    return check_done_reached(f, p, "window", "windows", err);
}

int ckpt_get_progress_events(const ckpt_file *f, ckpt_progress *p, cn_error *err)
{
    return get_progress_count(f, p, "window", "windows", err);
}

int ckpt_get_progress_batches(const ckpt_file *f, ckpt_progress *p, cn_error *err)
{
    return get_progress_count(f, p, "batch", "batches", err);
}

int ckpt_find_exact(const ckpt_file *f, uint32_t tag, uint64_t bytes, const char *what,
                    const void **data, cn_error *err)
{
    size_t len = 0;
    int rc = ckpt_find(f, tag, data, &len, err);
    if (!rc && (uint64_t)len != bytes)
        rc = ckpt_refuse(f, err, tag, "%zu bytes where %s take %llu", len, what,
                         (unsigned long long)bytes);
    return rc;
}
