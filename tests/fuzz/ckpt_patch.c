/* ckpt_patch IN OUT TAG OFFSET VALUE: copies the checkpoint IN to OUT with the 8 bytes at
 * OFFSET in record TAG (four characters) replaced by the int64 VALUE, and the CRC-32
 * recomputed, so that the reader gets past its checksum to the fields themselves (the tests
 * of crafted checkpoints, tests/fuzz/CMakeLists.txt). With VALUE "len" the record's length
 * field is replaced instead. Exit 1 on any error. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/checkpoint.h"

#define HEADER_BYTES 24

static int die(const char *what)
{
    fprintf(stderr, "ckpt_patch: %s\n", what);
    return 1;
}

int main(int argc, char **argv)
{
    if (argc != 6 || strlen(argv[3]) != 4)
        return die("usage: ckpt_patch IN OUT TAG OFFSET VALUE");
    FILE *in = fopen(argv[1], "rb");
    if (!in)
        return die(strerror(errno));
    static uint8_t data[1 << 24];
    size_t size = fread(data, 1, sizeof data, in);
    fclose(in);
    if (size < HEADER_BYTES + 4 || size == sizeof data)
        return die("not a checkpoint of a size this tool takes");
    char *end = NULL;
    errno = 0;
    unsigned long long offset = strtoull(argv[4], &end, 10);
    if (errno || *end)
        return die("bad OFFSET");
    int length = strcmp(argv[5], "len") == 0;
    int64_t value = 0;
    if (!length) {
        errno = 0;
        value = (int64_t)strtoll(argv[5], &end, 10);
        if (errno || *end)
            return die("bad VALUE");
    }
    uint32_t tag = CKPT_TAG(argv[3][0], argv[3][1], argv[3][2], argv[3][3]);
    size_t at = HEADER_BYTES, stop = size - 4;
    while (at + 16 <= stop) {
        uint32_t t;
        uint64_t n;
        memcpy(&t, data + at, 4);
        memcpy(&n, data + at + 8, 8);
        if (t == tag) {
            if (length) {
                uint64_t v = offset; /* "len": OFFSET is the new length */
                memcpy(data + at + 8, &v, 8);
            } else {
                if (offset + 8 > n)
                    return die("OFFSET beyond the record");
                memcpy(data + at + 16 + offset, &value, 8);
            }
            uint32_t crc = ckpt_crc32(0, data, stop);
            memcpy(data + stop, &crc, 4);
            FILE *out = fopen(argv[2], "wb");
            if (!out || fwrite(data, 1, size, out) != size || fclose(out) != 0)
                return die("cannot write OUT");
            return 0;
        }
        if (n > stop - at - 16)
            break;
        at += 16 + (size_t)((n + 7) & ~(uint64_t)7);
    }
    return die("no such record");
}
