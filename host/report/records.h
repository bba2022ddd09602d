/* Per-record rows of a run (`clnetsim run --packets FILE.csv`: the flood's one row per
 * packet): a table whose columns a model declares, int64 cells, which the model fills at the
 * end of its run and the core sorts and writes as CSV. The core knows no column by name: what
 * a row is belongs to the model (model_ops.features' MODEL_PACKET_ROWS says it has rows).
 *
 * Like metric.h, this header depends on nothing of the core, so that a model's declaration
 * and a test can use it alone. */
#ifndef CLNETSIM_RECORDS_H
#define CLNETSIM_RECORDS_H
#include <stdint.h>
#include <stdio.h>

#define RECORD_MAX_COLUMNS 16
#define RECORD_MAX_LABELS 16
#define RECORD_LABEL_BYTES 32
/* A cell without a value (a packet never delivered has no latency): written empty. */
#define RECORD_NONE INT64_MIN

enum record_kind {
    RECORD_INT = 0, /* written in decimal */
    RECORD_LABEL,   /* an index into the table's labels, written as that label (an RFC 4180
                     * field); empty when it names none */
    RECORD_HEX,     /* an unsigned integer of SPAN cells of 32 bits each (most significant
                     * first), written in lower-case hexadecimal, zero-padded to the table's
                     * HEX_DIGITS (Kademlia's ids) */
};

typedef struct record_column {
    const char *name;       /* the CSV header's word */
    unsigned char kind;     /* enum record_kind */
    unsigned char span;     /* the cells it takes in a row (RECORD_HEX: up to 5); 0: one */
} record_column;

/* What a model declares: its columns in the CSV's order, and the column the rows are sorted
 * by (ascending; rows with equal keys by their other cells in column order, so that the file
 * never depends on the order in which the rows were added). */
typedef struct record_shape {
    const record_column *cols;
    int n_cols;             /* 1 .. RECORD_MAX_COLUMNS */
    int key;                /* a column of one cell, before any column of several */
} record_shape;

typedef struct record_table {
    const record_shape *shape; /* NULL: the run has no rows (none were asked for) */
    int64_t *cells;         /* N rows of record_row_cells cells each, malloc'ed */
    int64_t n, cap;
    int n_labels;
    char labels[RECORD_MAX_LABELS][RECORD_LABEL_BYTES]; /* longer ones are cut */
    int hex_digits;         /* RECORD_HEX columns: the digits written (at most 8 a cell) */
} record_table;

/* The cells of one row of SHAPE: its columns' spans. */
int record_row_cells(const record_shape *shape);

/* Starts T with no rows, shaped by SHAPE, with room for CAP rows (more grow as needed).
 * 0, or -1 out of memory (T then has no rows and no shape). */
int record_table_init(record_table *t, const record_shape *shape, int64_t cap);
/* The index of LABEL among T's labels, added when new; -1 when RECORD_MAX_LABELS others are
 * there already. */
int record_table_label(record_table *t, const char *label);
/* A new last row: its record_row_cells cells, all RECORD_NONE, valid until the next append; NULL
 * out of memory. */
int64_t *record_table_append(record_table *t);
/* Writes the header and T's rows as CSV in the table's order (above, record_shape), nothing
 * when T has no shape. 0, or -1 when OUT has an error or there is no memory for the order
 * (errno ENOMEM, nothing written). */
int record_table_write_csv(record_table *t, FILE *out);
/* Releases T's rows; T has no rows and no shape after. */
void record_table_free(record_table *t);

#endif
