/* The checkpoint file format (host/engine/checkpoint.h), without a simulation. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../common/check.h"
#include "engine/checkpoint.h"

#define T_A CKPT_TAG('T', 'A', 'A', 'A')
#define T_B CKPT_TAG('T', 'B', 'B', 'B')
#define T_C CKPT_TAG('T', 'C', 'C', 'C')

static char dir[64];

static const char *path_of(const char *name)
{
    static char buf[160];
    snprintf(buf, sizeof buf, "%s/%s", dir, name);
    return buf;
}

/* The bytes of file NAME, *SIZE of them (malloc'ed). */
static unsigned char *slurp(const char *name, size_t *size)
{
    FILE *f = fopen(path_of(name), "rb");
    unsigned char *b = malloc(1 << 16);
    *size = f && b ? fread(b, 1, 1 << 16, f) : 0;
    if (f)
        fclose(f);
    return b;
}

static void spill(const char *name, const unsigned char *b, size_t size)
{
    FILE *f = fopen(path_of(name), "wb");
    if (f) {
        fwrite(b, 1, size, f);
        fclose(f);
    }
}

/* Reading NAME fails with a message that contains WANT. */
static void refused(const char *name, const char *want)
{
    ckpt_file f;
    cn_error err = {0};
    int rc = ckpt_read(&f, path_of(name), &err);
    CHECK(rc == CN_ERR_INPUT);
    CHECK(strstr(err.msg, want) != NULL);
    if (!strstr(err.msg, want))
        fprintf(stderr, "    message: %s\n", err.msg);
    ckpt_close(&f);
}

static void test_crc(void)
{
    /* the check value of CRC-32/ISO-HDLC, the zlib and IEEE 802.3 CRC */
    CHECK_U64(ckpt_crc32(0, "123456789", 9), 0xCBF43926u);
    CHECK_U64(ckpt_crc32(0, "", 0), 0);
    /* continued over pieces, the same as at once */
    CHECK_U64(ckpt_crc32(ckpt_crc32(0, "1234", 4), "56789", 5), 0xCBF43926u);
}

static void test_round_trip(void)
{
    ckpt_buf b = {0};
    const char text[] = "seven b"; /* 7 bytes: padded to 8 */
    int64_t big[100];
    for (int i = 0; i < 100; i++)
        big[i] = (int64_t)i * 0x0101010101LL - 7;
    ckpt_put(&b, T_A, text, 7);
    ckpt_put(&b, T_B, big, sizeof big);
    ckpt_put_i64(&b, T_C, -42);
    CHECK_I64(b.len, (16 + 8) + (16 + 800) + (16 + 8));
    cn_error err = {0};
    CHECK_I64(ckpt_write(path_of("good.ckpt"), &b, &err), 0);
    ckpt_buf_free(&b);

    ckpt_file f;
    CHECK_I64(ckpt_read(&f, path_of("good.ckpt"), &err), 0);
    const void *p = NULL;
    size_t n = 0;
    CHECK_I64(ckpt_find(&f, T_A, &p, &n, &err), 0);
    CHECK_I64(n, 7);
    CHECK(p && memcmp(p, text, 7) == 0);
    int64_t back[100], c = 0;
    CHECK_I64(ckpt_get(&f, T_B, back, sizeof back, &err), 0);
    CHECK(memcmp(back, big, sizeof big) == 0);
    CHECK_I64(ckpt_get_i64(&f, T_C, &c, &err), 0);
    CHECK_I64(c, -42);
    CHECK(ckpt_has(&f, T_C));
    CHECK(!ckpt_has(&f, CKPT_TAG('N', 'O', 'N', 'E')));
    /* a record of another length, or missing, is a mismatch naming the record */
    CHECK_I64(ckpt_get(&f, T_A, back, 8, &err), CN_ERR_INPUT);
    CHECK(strstr(err.msg, "record 'TAAA' holds 7 bytes, expected 8") != NULL);
    err = (cn_error){0}; /* a first error is kept: a fresh one for the next */
    CHECK_I64(ckpt_find(&f, CKPT_TAG('N', 'O', 'N', 'E'), &p, &n, &err), CN_ERR_INPUT);
    CHECK(strstr(err.msg, "record 'NONE' is missing") != NULL);
    ckpt_close(&f);
}

static void test_damage(void)
{
    size_t size;
    unsigned char *b = slurp("good.ckpt", &size);
    CHECK_I64(size, 24 + 864 + 4);
    /* every single byte flipped is caught: the header's fields or the checksum */
    int caught = 0;
    for (size_t i = 0; i < size; i++) {
        b[i] ^= 0x20;
        spill("flip.ckpt", b, size);
        ckpt_file f;
        cn_error err = {0};
        caught += ckpt_read(&f, path_of("flip.ckpt"), &err) == CN_ERR_INPUT;
        ckpt_close(&f);
        b[i] ^= 0x20;
    }
    CHECK_I64(caught, (int64_t)size);
    b[500] ^= 1;
    spill("flip.ckpt", b, size);
    refused("flip.ckpt", "the file is damaged (its CRC-32 is ");
    b[500] ^= 1;
    spill("short.ckpt", b, size - 9);
    refused("short.ckpt", "the file is truncated (its header announces 864 bytes of state, it "
                          "holds 855)");
    spill("tiny.ckpt", b, 20);
    refused("tiny.ckpt", "the file is truncated (shorter than a checkpoint header)");
    spill("empty.ckpt", b, 0);
    refused("empty.ckpt", "it is not a clnetsim checkpoint");
    b[8] = 9;
    spill("v9.ckpt", b, size);
    refused("v9.ckpt", "it has checkpoint format 9, and this clnetsim reads format 2 only");
    b[8] = 1;
    b[12] = 1, b[15] = 4; /* the byte-order mark of the other order */
    spill("bom.ckpt", b, size);
    refused("bom.ckpt", "written on a machine of the other byte order");
    free(b);
    refused("nowhere.ckpt", "");
    /* a well-formed file whose records overrun the body (a correct checksum over nonsense) */
    unsigned char bad[24 + 16 + 4];
    uint32_t version = CHECKPOINT_FORMAT, bom = 0x01020304u, tag = T_A, zero = 0;
    uint64_t body = 16, len = 1000;
    memcpy(bad, "CLNSCKPT", 8);
    memcpy(bad + 8, &version, 4);
    memcpy(bad + 12, &bom, 4);
    memcpy(bad + 16, &body, 8);
    memcpy(bad + 24, &tag, 4);
    memcpy(bad + 28, &zero, 4);
    memcpy(bad + 32, &len, 8);
    uint32_t crc = ckpt_crc32(0, bad, 40);
    memcpy(bad + 40, &crc, 4);
    spill("overrun.ckpt", bad, sizeof bad);
    refused("overrun.ckpt", "its records are malformed");
}

/* A file of the engine's records ENXT, EWIN and ETIM, read by ckpt_get_progress (window
 * length L) or, with L 0, ckpt_get_progress_events: the status, and the message holds WANT. */
static void progress(int64_t next, int64_t done, int64_t reached, int64_t L, int want_rc,
                     const char *want)
{
    ckpt_buf b = {0};
    ckpt_put_i64(&b, CKPT_NEXT, next);
    ckpt_put_i64(&b, CKPT_DONE, done);
    ckpt_put_i64(&b, CKPT_REACHED, reached);
    cn_error err = {0};
    CHECK_I64(ckpt_write(path_of("progress.ckpt"), &b, &err), 0);
    ckpt_buf_free(&b);
    ckpt_file f;
    ckpt_progress p = {0, 0, 0};
    CHECK_I64(ckpt_read(&f, path_of("progress.ckpt"), &err), 0);
    int rc = L > 0 ? ckpt_get_progress(&f, L, &p, &err) : ckpt_get_progress_events(&f, &p, &err);
    CHECK_I64(rc, want_rc);
    if (rc == 0) {
        CHECK_I64(p.next, next);
        CHECK_I64(p.done, done);
        CHECK_I64(p.reached, reached);
    } else if (!strstr(err.msg, want)) {
        CHECK(0);
        fprintf(stderr, "    message: %s\n    expected: %s\n", err.msg, want);
    }
    ckpt_close(&f);
}

/* Fixed windows: window W is [W x L, (W + 1) x L), so the next window's end must fit int64.
 * Event-driven windows: the number is a count whatever the lookahead (the next window's
 * begin comes from the model), so the same count is a valid one there. */
static void test_progress(void)
{
    const int64_t L = (int64_t)1 << 61; /* INT64_MAX / L - 2 = 1: the last fixed window */
    progress(1, 1, 5, L, 0, "");
    progress(2, 2, 5, L, CN_ERR_INPUT,
             "record ENXT: next window 2 is beyond the last window whose time fits in 64 bits");
    progress(2, 2, 5, 0, 0, "");
    progress((int64_t)1 << 40, 1000, (int64_t)1 << 61, 0, 0, "");
    progress(-1, 0, 0, 0, CN_ERR_INPUT, "record ENXT: next window -1 is negative");
    progress(INT64_MAX, 0, 0, 0, CN_ERR_INPUT,
             "record ENXT: next window 9223372036854775807 is beyond the last window a run can "
             "count");
    progress(3, 4, 0, 0, CN_ERR_INPUT, "record EWIN: 4 windows run, with the next window 3");
    progress(3, -1, 0, 0, CN_ERR_INPUT, "record EWIN: -1 windows run, with the next window 3");
    progress(3, 3, -7, 0, CN_ERR_INPUT, "record ETIM: time reached -7 ns is negative");
}

int main(void)
{
    snprintf(dir, sizeof dir, "/tmp/clnetsim-ckpt-XXXXXX");
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    test_crc();
    test_round_trip();
    test_damage();
    test_progress();
    const char *names[] = {"good", "flip", "short",   "tiny",
                           "empty", "v9", "bom", "overrun", "progress"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char file[32];
        snprintf(file, sizeof file, "%s.ckpt", names[i]);
        unlink(path_of(file));
    }
    rmdir(dir);
    printf("%d checks, %d failures\n", checks, failures);
    return failures != 0;
}
