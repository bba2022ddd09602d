/* host/report/records.h: a model's per-record rows written by the core as CSV. The bytes
 * are checked whole: the header from the declared columns, labels as RFC 4180 fields (empty
 * when a cell names none), RECORD_NONE as an empty cell, the rows sorted by the declared key
 * column with ties by the other cells whatever the order they were added in, growth past the
 * first capacity, and no output at all for a run without rows. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/check.h"
#include "report/records.h"
#include "report/report.h"

#define CHECK_TEXT(got, want)                                                                  \
    check_at(__FILE__, __LINE__, strcmp((got), (want)) == 0, "'%s', expected '%s'", (got), (want))

/* What T writes, in a static buffer (NULL on a stream error). */
static const char *csv_of(record_table *t)
{
    static char text[1 << 16];
    FILE *f = tmpfile();
    if (!f)
        return NULL;
    int rc = record_table_write_csv(t, f);
    size_t n = 0;
    if (rc == 0) {
        rewind(f);
        n = fread(text, 1, sizeof text - 1, f);
    }
    fclose(f);
    text[n] = '\0';
    return rc == 0 ? text : NULL;
}

/* Columns as the flood declares its packets' (the key is not the first column). */
static const record_column cols[] = {{"name", RECORD_LABEL, 0}, {"id", RECORD_INT, 0},
                                     {"a", RECORD_INT, 0},      {"b", RECORD_INT, 0}};
static const record_shape shape = {cols, 4, 1};

static void add(record_table *t, int64_t name, int64_t id, int64_t a, int64_t b)
{
    int64_t *row = record_table_append(t);
    CHECK(row != NULL);
    if (!row)
        return;
    row[0] = name;
    row[1] = id;
    row[2] = a;
    row[3] = b;
}

static void test_csv_bytes(void)
{
    record_table t;
    CHECK(record_table_init(&t, &shape, 0) == 0);
    CHECK_I64(record_table_label(&t, "plain"), 0);
    CHECK_I64(record_table_label(&t, "with,comma"), 1);
    CHECK_I64(record_table_label(&t, "say \"hi\""), 2);
    CHECK_I64(record_table_label(&t, "plain"), 0); /* known: its index */
    /* added out of order; id 5 thrice (ties by name, then a, then b); ids 2 and 7 name no
     * label */
    add(&t, 1, 9, -3, RECORD_NONE);
    add(&t, 2, 5, 4, 1);
    add(&t, 0, 5, 4, 2);
    add(&t, 0, 5, 3, 9);
    add(&t, 99, 7, 0, 0);
    add(&t, -1, 2, RECORD_NONE, RECORD_NONE);
    add(&t, 0, 10, INT64_MAX, INT64_MIN + 1); /* the widest numbers */
    int64_t *blank = record_table_append(&t); /* every cell starts empty */
    CHECK(blank != NULL);
    if (blank)
        blank[1] = 8;
    const char *got = csv_of(&t);
    CHECK(got != NULL);
    if (got)
        CHECK_TEXT(got, "name,id,a,b\n"
                        ",2,,\n"
                        "plain,5,3,9\n"
                        "plain,5,4,2\n"
                        "\"say \"\"hi\"\"\",5,4,1\n"
                        ",7,0,0\n"
                        ",8,,\n"
                        "\"with,comma\",9,-3,\n"
                        "plain,10,9223372036854775807,-9223372036854775807\n");
    CHECK_I64(t.n, 8);
    record_table_free(&t);
    CHECK(t.shape == NULL && t.cells == NULL && t.n == 0);
}

/* Rows past the first capacity keep every cell; the order is the key's, not the adding's. */
static void test_growth(void)
{
    record_table t;
    CHECK(record_table_init(&t, &shape, 1) == 0);
    const int n = 1000;
    for (int i = 0; i < n; i++)
        add(&t, RECORD_NONE, (int64_t)((i * 389) % n), i, -i);
    const char *got = csv_of(&t);
    CHECK(got != NULL);
    if (got) {
        char want[1 << 16];
        size_t len = (size_t)snprintf(want, sizeof want, "name,id,a,b\n");
        for (int id = 0; id < n; id++) {
            int i = 0;
            while ((i * 389) % n != id) /* 389 is prime to 1000: one i per id */
                i++;
            len += (size_t)snprintf(want + len, sizeof want - len, ",%d,%d,%d\n", id, i, -i);
        }
        CHECK_TEXT(got, want);
    }
    record_table_free(&t);
}

/* Sixteen labels at most; a run without rows writes nothing, through the report too. */
static void test_limits(void)
{
    record_table t;
    CHECK(record_table_init(&t, &shape, 0) == 0);
    char name[16];
    for (int i = 0; i < RECORD_MAX_LABELS; i++) {
        snprintf(name, sizeof name, "f%d", i);
        CHECK_I64(record_table_label(&t, name), i);
    }
    CHECK_I64(record_table_label(&t, "one too many"), -1);
    CHECK_I64(record_table_label(&t, "f15"), 15);
    record_table_free(&t);

    run_results *r = calloc(1, sizeof *r);
    CHECK(r != NULL);
    if (!r)
        return;
    FILE *f = tmpfile();
    CHECK(f != NULL);
    if (f) {
        CHECK_I64(report_print_records(r, f), 0);
        CHECK_I64(ftell(f), 0);
        fclose(f);
    }
    results_free_records(r);
    free(r);
}

/* A column of several cells written in hexadecimal (Kademlia's targets: 32-bit words, most
 * significant first, zero-padded to the table's digits), between plain ones; rows sorted by
 * the key, then by every cell. */
static void test_hex_columns(void)
{
    static const record_column hcols[] = {
        {"i", RECORD_INT, 0}, {"target", RECORD_HEX, 3}, {"n", RECORD_INT, 0}};
    static const record_shape hshape = {hcols, 3, 0};
    CHECK_I64(record_row_cells(&hshape), 5);
    record_table t;
    CHECK(record_table_init(&t, &hshape, 0) == 0);
    t.hex_digits = 17;
    const int64_t rows[][5] = {{2, 0x1, 0xabcdef01, 0x00000002, 7},
                               {1, 0x0, 0x0, 0xff, 8},
                               {1, 0x0, 0x0, 0xfe, 9}};
    for (int r = 0; r < 3; r++) {
        int64_t *c = record_table_append(&t);
        CHECK(c != NULL);
        if (c)
            memcpy(c, rows[r], sizeof rows[r]);
    }
    const char *text = csv_of(&t);
    CHECK(text != NULL);
    if (text)
        CHECK_TEXT(text, "i,target,n\n1,000000000000000fe,9\n1,000000000000000ff,8\n"
                         "2,1abcdef0100000002,7\n");
    record_table_free(&t);
}

int main(void)
{
    test_csv_bytes();
    test_growth();
    test_limits();
    test_hex_columns();
    printf("%d checks, %d failures\n", checks, failures);
    return failures != 0;
}
