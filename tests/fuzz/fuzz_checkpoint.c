/* Fuzz target of the checkpoint reader: what `clnetsim resume` does with a file before any
 * device is touched. The input is a checkpoint file; its header's length and its CRC-32 are
 * set from its bytes before it is read (when it is long enough to have them), so that
 * mutations of the records' contents get past the checksum to the checks of the fields
 * themselves. The scenario the checkpoint holds is loaded as `resume` loads it, and the
 * records of its model are checked against it by the model's own check (model_ops
 * check_checkpoint: flood_checkpoint_check, phold_checkpoint_check, kad_checkpoint_check), as
 * the engine does before a restore. Beyond "never crash, hang or leak" (sanitizers), the
 * target checks that a refusal is CN_ERR_INPUT with one non-empty sentence that names the
 * file; a broken promise aborts, which libFuzzer reports like a crash. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "engine/checkpoint.h"
#include "engine/engine.h"
#include "models/flood/flood_ckpt_format.h"
#include "models/traffic/departures.h"

#define FUZZ_TARGET "fuzz_checkpoint"
#include "fuzz_checks.h"

#define FUZZ_MAX_INPUT (1 << 20)
#define HEADER_BYTES 24
#define NAME "fuzz.ckpt"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* ... and one that names the file */
static void check_refusal(int rc, const cn_error *err)
{
    check_one_line_refusal(rc, err);
    if (!strstr(err->msg, "'" NAME "'"))
        broken("a refusal that does not name the file", err->msg);
}

/* What `resume` does with the file (cli_run.c, load_checkpoint; engine.c, start_point) up to
 * the first use of a device. */
static int resume_checks(const ckpt_file *f, scenario *sc, cn_error *err)
{
    const void *text = NULL, *path = NULL;
    size_t text_len = 0, path_len = 0;
    int64_t records = 0;
    int rc = ckpt_find(f, CKPT_SCENARIO, &text, &text_len, err);
    if (!rc)
        rc = ckpt_find(f, CKPT_PATH, &path, &path_len, err);
    if (!rc)
        rc = ckpt_get_i64(f, CKPT_RECORDS, &records, err);
    if (rc)
        return rc;
    char *t = malloc(text_len + 1);
    if (!t)
        return 0;
    memcpy(t, text, text_len);
    t[text_len] = '\0';
    cn_error why = {0};
    rc = config_load_string(NAME, t, NULL, 0, sc, &why);
    free(t);
    if (rc)
        return cn_fail(err, CN_ERR_INPUT, "cannot resume from '%s': the scenario it holds is "
                       "refused: %s", NAME, why.msg);
    sc->record_packets = records != 0;
    const model_ops *ops = model_find(sc->model);
    if (!ops || !ops->check_checkpoint)
        return cn_fail(err, CN_ERR_INPUT, "cannot resume from '%s': the %s model has no "
                       "checkpoints", NAME, sc->model);
    rc = ops->check_checkpoint(f, sc, err);
    /* the flood's traffic generator state, as flood_restore puts it back, where the
     * generator is small enough to open here (it holds a source per node with source = all) */
    if (rc || strcmp(sc->model, "flood") != 0 || flood_node_count(flood_values_of(sc)) > 100000)
        return rc;
    departures *d = NULL;
    const void *state = NULL;
    size_t len = 0;
    cn_error quiet = {0};
    if (departures_open(&d, sc, &quiet) == 0 && ckpt_find(f, CKPT_TAG('F', 'D', 'E', 'P'),
                                                            &state, &len, err) == 0) {
        departure dep;
        if (departures_restore(d, state, len) == 0 && departures_peek(d, &dep))
            departures_pop(d);
    }
    departures_close(d);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > FUZZ_MAX_INPUT)
        return 0;
    uint8_t *copy = malloc(size ? size : 1);
    scenario *sc = malloc(sizeof *sc);
    if (!copy || !sc) {
        free(copy);
        free(sc);
        return 0;
    }
    if (size)
        memcpy(copy, data, size);
    if (size >= HEADER_BYTES + 4) { /* a valid length and checksum, whatever the records */
        uint64_t n = size - HEADER_BYTES - 4;
        memcpy(copy + 16, &n, 8);
        uint32_t crc = ckpt_crc32(0, copy, size - 4);
        memcpy(copy + size - 4, &crc, 4);
    }
    ckpt_file f;
    cn_error err = {0};
    int rc = ckpt_read_memory(&f, NAME, copy, size, &err);
    if (!rc)
        rc = resume_checks(&f, sc, &err);
    if (rc)
        check_refusal(rc, &err);
    ckpt_close(&f);
    free(sc);
    free(copy);
    return 0;
}
