/* ckpt_splice A B OUT TAG...: writes OUT, the checkpoint A with each record TAG (four
 * characters) replaced by record TAG of the checkpoint B, with its length and CRC-32 made
 * anew, so that a reader gets past the checksum to what the records say: a checkpoint of one
 * model that names the scenario of another (tests/phold/phold_checkpoint_tests.sh). Exit 1 on
 * any error. */
#include <stdio.h>
#include <string.h>

#include "engine/checkpoint.h"

static int die(const char *what)
{
    fprintf(stderr, "ckpt_splice: %s\n", what);
    return 1;
}

int main(int argc, char **argv)
{
    if (argc < 5)
        return die("usage: ckpt_splice A B OUT TAG...");
    uint32_t tags[16];
    int n_tags = argc - 4;
    if (n_tags > 16)
        return die("at most 16 tags");
    for (int i = 0; i < n_tags; i++) {
        const char *t = argv[4 + i];
        if (strlen(t) != 4)
            return die("a tag is four characters");
        tags[i] = CKPT_TAG(t[0], t[1], t[2], t[3]);
    }
    cn_error err = {0};
    ckpt_file a, b;
    if (ckpt_read(&a, argv[1], &err) != 0 || ckpt_read(&b, argv[2], &err) != 0)
        return die(err.msg);
    ckpt_buf out = {0};
    size_t at = 0;
    while (at + 16 <= a.body_len) {
        uint32_t tag;
        uint64_t len;
        memcpy(&tag, a.body + at, 4);
        memcpy(&len, a.body + at + 8, 8);
        const void *p = a.body + at + 16;
        size_t n = (size_t)len;
        for (int i = 0; i < n_tags; i++)
            if (tag == tags[i] && ckpt_find(&b, tag, &p, &n, &err) != 0)
                return die(err.msg);
        ckpt_put(&out, tag, p, n);
        at += 16 + (size_t)((len + 7) & ~(uint64_t)7);
    }
    int rc = ckpt_write(argv[3], &out, &err);
    ckpt_buf_free(&out);
    ckpt_close(&a);
    ckpt_close(&b);
    return rc ? die(err.msg) : 0;
}
