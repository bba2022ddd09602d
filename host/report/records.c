/* A model's per-record rows, sorted and written as CSV (records.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "report/records.h"
#include "report/report.h"

int record_row_cells(const record_shape *shape)
{
    int n = 0;
    for (int c = 0; c < shape->n_cols; c++)
        n += shape->cols[c].span ? shape->cols[c].span : 1;
    return n;
}

int record_table_init(record_table *t, const record_shape *shape, int64_t cap)
{
    memset(t, 0, sizeof *t);
    if (cap < 16)
        cap = 16;
    t->cells = malloc((size_t)cap * (size_t)record_row_cells(shape) * sizeof *t->cells);
    if (!t->cells)
        return -1;
    t->shape = shape;
    t->cap = cap;
    return 0;
}

int record_table_label(record_table *t, const char *label)
{
    for (int i = 0; i < t->n_labels; i++)
        if (strncmp(t->labels[i], label, RECORD_LABEL_BYTES - 1) == 0)
            return i;
    if (t->n_labels == RECORD_MAX_LABELS)
        return -1;
    snprintf(t->labels[t->n_labels], sizeof t->labels[0], "%s", label);
    return t->n_labels++;
}

int64_t *record_table_append(record_table *t)
{
    size_t w = (size_t)record_row_cells(t->shape);
    if (t->n == t->cap) {
        int64_t cap = 2 * t->cap;
        int64_t *c = realloc(t->cells, (size_t)cap * w * sizeof *c);
        if (!c)
            return NULL;
        t->cells = c;
        t->cap = cap;
    }
    int64_t *row = t->cells + (size_t)t->n++ * w;
    for (size_t i = 0; i < w; i++)
        row[i] = RECORD_NONE;
    return row;
}

/* Rows A and B in the table's order: the key, then every cell in column order. */
static int row_cmp(const record_table *t, int64_t a, int64_t b)
{
    int w = record_row_cells(t->shape), k = t->shape->key;
    const int64_t *x = t->cells + (size_t)a * (size_t)w, *y = t->cells + (size_t)b * (size_t)w;
    if (x[k] != y[k])
        return x[k] < y[k] ? -1 : 1;
    for (int c = 0; c < w; c++)
        if (x[c] != y[c])
            return x[c] < y[c] ? -1 : 1;
    return 0;
}

typedef struct keyed {
    int64_t key, row;
} keyed;

static int by_key(const void *a, const void *b)
{
    const keyed *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return (x->row > y->row) - (x->row < y->row);
}

/* The rows in the table's order (malloc'ed), or NULL out of memory: the keys sorted with
 * their rows by the library's sort, which needs no context, then each run of equal keys by
 * the rows' cells (runs are short: most keys are unique). */
static keyed *order_of(const record_table *t)
{
    keyed *k = malloc((size_t)(t->n ? t->n : 1) * sizeof *k);
    if (!k)
        return NULL;
    size_t w = (size_t)record_row_cells(t->shape), key = (size_t)t->shape->key;
    for (int64_t i = 0; i < t->n; i++)
        k[i] = (keyed){t->cells[(size_t)i * w + key], i};
    qsort(k, (size_t)t->n, sizeof *k, by_key);
    for (int64_t i = 0, j; i < t->n; i = j) {
        for (j = i + 1; j < t->n && k[j].key == k[i].key;)
            j++;
        for (int64_t a = i + 1; a < j; a++) /* insertion sort of the run [i, j) */
            for (int64_t b = a; b > i && row_cmp(t, k[b - 1].row, k[b].row) > 0; b--) {
                keyed tmp = k[b];
                k[b] = k[b - 1];
                k[b - 1] = tmp;
            }
    }
    return k;
}

/* V in decimal, as "%lld" writes it, without parsing a format for each cell (a table may
 * hold millions of rows). */
static void put_int(FILE *out, int64_t v)
{
    char buf[24];
    char *p = buf + sizeof buf;
    *--p = '\0';
    uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
    do {
        *--p = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0)
        *--p = '-';
    fputs(p, out);
}

/* The SPAN 32-bit words of CELLS (most significant first) as DIGITS hexadecimal digits: the
 * lowest 4 x DIGITS bits of their number. */
static void put_hex(FILE *out, const int64_t *cells, int span, int digits)
{
    static const char hex[] = "0123456789abcdef";
    for (int d = digits - 1; d >= 0; d--) {
        int word = span - 1 - d / 8, shift = 4 * (d % 8);
        uint32_t v = word >= 0 ? (uint32_t)cells[word] : 0;
        fputc(hex[(v >> shift) & 15u], out);
    }
}

int record_table_write_csv(record_table *t, FILE *out)
{
    if (!t->shape)
        return ferror(out) ? -1 : 0;
    const record_shape *s = t->shape;
    keyed *order = order_of(t);
    if (!order) {
        errno = ENOMEM;
        return -1;
    }
    for (int c = 0; c < s->n_cols; c++) {
        if (c)
            fputc(',', out);
        csv_print_field(out, s->cols[c].name);
    }
    fputc('\n', out);
    size_t w = (size_t)record_row_cells(s);
    for (int64_t i = 0; i < t->n; i++) {
        const int64_t *cell = t->cells + (size_t)order[i].row * w;
        for (int c = 0; c < s->n_cols; c++) {
            int span = s->cols[c].span ? s->cols[c].span : 1;
            if (c)
                fputc(',', out);
            if (s->cols[c].kind == RECORD_LABEL)
                csv_print_field(out, cell[0] >= 0 && cell[0] < t->n_labels
                                         ? t->labels[cell[0]] : "");
            else if (s->cols[c].kind == RECORD_HEX)
                put_hex(out, cell, span, t->hex_digits);
            else if (cell[0] != RECORD_NONE)
                put_int(out, cell[0]);
            cell += span;
        }
        fputc('\n', out);
    }
    free(order);
    return ferror(out) ? -1 : 0;
}

void record_table_free(record_table *t)
{
    free(t->cells);
    memset(t, 0, sizeof *t);
}
