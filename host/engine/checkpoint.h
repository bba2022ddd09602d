/* Checkpoint files: a run's complete state at a window boundary (docs/when-things-go-wrong.md,
 * "Checkpoints and resuming").
 *
 * Layout, little-endian:
 *   "CLNSCKPT"            8 bytes, the magic
 *   u32 format version    CHECKPOINT_FORMAT
 *   u32 byte-order mark   0x01020304 as this host wrote it
 *   u64 body bytes
 *   body                  records: u32 tag, u32 zero, u64 length, the bytes, zero padding
 *                         to a multiple of 8
 *   u32 CRC-32            (IEEE 802.3, as zlib computes it) of everything before it
 *
 * Writers append records to a ckpt_buf; the file is written through a temporary file and a
 * rename, so a failure never leaves a half-written checkpoint, and the one before stays. A
 * reader checks the magic, the version, the byte order, the length and the checksum before
 * anything is used, so a damaged or foreign file is refused with a message. */
#ifndef CLNETSIM_CHECKPOINT_H
#define CLNETSIM_CHECKPOINT_H
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"

#define CHECKPOINT_FORMAT 2u /* 2: 128-bit counters and sums */

/* Record tags, four characters each, of everything a checkpoint holds. */
#define CKPT_TAG(a, b, c, d)                                                               \
    ((uint32_t)(a) | (uint32_t)(b) << 8 | (uint32_t)(c) << 16 | (uint32_t)(d) << 24)

/* Records of a checkpoint that the engine writes besides the model's. */
#define CKPT_SCENARIO CKPT_TAG('S', 'C', 'E', 'N')  /* the configuration text */
#define CKPT_PATH CKPT_TAG('S', 'P', 'T', 'H')      /* the scenario's file name */
#define CKPT_RECORDS CKPT_TAG('S', 'R', 'E', 'C')   /* int64: per-packet records kept */
#define CKPT_MODEL CKPT_TAG('M', 'O', 'D', 'L')     /* the model's name */
#define CKPT_NEXT CKPT_TAG('E', 'N', 'X', 'T')      /* int64: the next window to run */
#define CKPT_DONE CKPT_TAG('E', 'W', 'I', 'N')      /* int64: windows run so far */
#define CKPT_REACHED CKPT_TAG('E', 'T', 'I', 'M')   /* int64: simulated time reached, ns */
/* With fixed windows (ENGINE_SYNC_FIXED) window W is [W * L, (W + 1) * L), so ENXT also says
 * where the run goes on. With event-driven windows (ENGINE_SYNC_EVENT) the window number is
 * only a count: the next window begins where the restored model's least pending time says
 * (model_ops.next_begin), and ETIM is the end of the last window run. With batches
 * (ENGINE_SYNC_BATCHES) ENXT and EWIN count batches, and ETIM is the time the model says its
 * batches reached (window_outcome.reached; the flood: the creation of the last packet run). */

typedef struct ckpt_buf {
    uint8_t *data;
    size_t len, cap;
    int oom;            /* an append ran out of memory: the buffer must not be written */
} ckpt_buf;

void ckpt_put(ckpt_buf *b, uint32_t tag, const void *data, size_t len);
void ckpt_put_i64(ckpt_buf *b, uint32_t tag, int64_t v);
void ckpt_buf_free(ckpt_buf *b);
/* Writes BODY as the checkpoint PATH (atomically); errors name the file. */
int ckpt_write(const char *path, const ckpt_buf *body, cn_error *err);

/* A checkpoint read and checked whole. */
typedef struct ckpt_file {
    char path[1024];
    uint8_t *data;
    const uint8_t *body;
    size_t body_len;
} ckpt_file;

/* Reads PATH and checks it; on failure ERR says why in a sentence naming the file. */
int ckpt_read(ckpt_file *f, const char *path, cn_error *err);
/* The same checks of SIZE bytes at DATA (copied), named PATH in messages: the fuzz target
 * of the reader (tests/fuzz/fuzz_checkpoint.c). */
int ckpt_read_memory(ckpt_file *f, const char *path, const void *data, size_t size,
                     cn_error *err);
void ckpt_close(ckpt_file *f);
/* Record TAG: its bytes and length; an error when the file has none. */
int ckpt_find(const ckpt_file *f, uint32_t tag, const void **data, size_t *len, cn_error *err);
/* Record TAG, which must hold exactly BYTES bytes (WHAT names its contents in the refusal):
 * *DATA its bytes. */
int ckpt_find_exact(const ckpt_file *f, uint32_t tag, uint64_t bytes, const char *what,
                    const void **data, cn_error *err);
/* Record TAG into DST, which it must fill exactly. */
int ckpt_get(const ckpt_file *f, uint32_t tag, void *dst, size_t len, cn_error *err);
int ckpt_get_i64(const ckpt_file *f, uint32_t tag, int64_t *v, cn_error *err);
/* Whether the file has record TAG. */
int ckpt_has(const ckpt_file *f, uint32_t tag);
/* A message about F's content that does not fit what resumes it ("... holds 64 slots"):
 * "checkpoint 'F' is damaged or does not belong to this scenario: WHAT". */
int ckpt_mismatch(const ckpt_file *f, cn_error *err, const char *what);

/* A field of record TAG that is out of its range or does not fit the others or the scenario:
 * "cannot resume from 'F': record TAG: WHAT" (WHAT formatted as printf does). */
int ckpt_refuse(const ckpt_file *f, cn_error *err, uint32_t tag, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* The engine's records ENXT, EWIN and ETIM: where a resumed run starts. */
typedef struct ckpt_progress {
    int64_t next;    /* the next window to run */
    int64_t done;    /* windows run so far */
    int64_t reached; /* simulated time reached, ns */
} ckpt_progress;
/* Reads them and checks them against each other and the window length L (ns): none negative,
 * no more windows run than the next one's number, and every window time up to the next
 * one's end within int64. The model checks them against its scenario (model_ops.restore). */
int ckpt_get_progress(const ckpt_file *f, int64_t L, ckpt_progress *p, cn_error *err);
/* The same records of a run of event-driven windows, where no window length makes a time of
 * a window number: none negative and no more windows run than the next one's number. The
 * model checks the time reached and the windows against its scenario. */
int ckpt_get_progress_events(const ckpt_file *f, ckpt_progress *p, cn_error *err);
/* The same records of a run of batches (the engine's ENGINE_SYNC_BATCHES), whose numbers
 * count batches: the same checks, said of batches. */
int ckpt_get_progress_batches(const ckpt_file *f, ckpt_progress *p, cn_error *err);

/* CRC-32 (IEEE) of LEN bytes, continuing from CRC (0 to start). */
uint32_t ckpt_crc32(uint32_t crc, const void *data, size_t len);

#endif
