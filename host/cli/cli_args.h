/* Command-line helpers shared by the subcommands. */
#ifndef CLNETSIM_CLI_ARGS_H
#define CLNETSIM_CLI_ARGS_H
#include <stdio.h>

#include "common/error.h"
#include "device/device.h"
#include "engine/engine.h"

/* Option value: "--opt VALUE" or "--opt=VALUE" (NAME is the long form); NULL when missing. */
const char *cli_option_value(int argc, char **argv, int *i, const char *name);

/* ARG is the short form S (may be NULL) or the long form L, alone or as "L=VALUE". */
int cli_is_opt(const char *arg, const char *s, const char *l);

/* A whole number from LO to HI in TEXT; returns 0 and sets *OUT, or -1. */
int cli_parse_int(const char *text, long lo, long hi, long *out);

/* What cli_open_devices checks of each device: the Philox known answers, and the kernels'
 * shapes of the models it is opened for against their references (host/bench/shapes.c; a
 * model without MODEL_KERNEL_SHAPES has none). */
#define CLI_CHECK_PHILOX 1
#define CLI_CHECK_SHAPES 2

/* Opens the devices of SPEC (NULL: device_select's default) one by one, at most MAX, with
 * WORK_GROUP as --work-group; runs the checks of KNOWN_ANSWERS (CLI_CHECK_*) and, when TUNE,
 * loads (or, on first use, measures) the work-group sizes of each of MODELS (N_MODELS, the
 * models the command will run), with a line to LOG when a search runs. *N_OPEN says how many
 * were opened, to close on any outcome. Each device gets its place in the selection as
 * ordinal (device_fault_arm). With DROP, a device that fails to open, self-test or tune
 * stays in DEVS marked failed (device_mark_failed), a warning line to DROP names it, and the
 * others are opened: only a failure of every device fails the call. Without DROP the first
 * failure does. */
int cli_open_devices(const char *spec, size_t work_group, int max, device_list *list,
                     device_ctx *devs, int *n_open, int known_answers, int tune,
                     const model_ops *const *models, int n_models, FILE *log, FILE *drop,
                     cn_error *err);

/* A file a command reads (INPUT) or writes, named by OPTION ("--json", "the scenario"). */
typedef struct cli_file {
    const char *option;
    const char *path;
    int input;
    int group; /* files of one nonzero group may be one file (resume's own checkpoint) */
} cli_file;

/* Refuses (CN_ERR_INPUT, naming both options and the path) two of the N FILES that are one
 * file, an output and an input or two outputs, before anything is read or written: by device
 * and inode when they exist, by their real folder and name when they do not yet. Devices,
 * FIFOs and /dev/stdout may be named more than once (each output is written in turn). */
int cli_check_distinct(const cli_file *files, int n, cn_error *err);

/* fflush(stdout), remembering why it failed (errno): a later fflush has nothing left to write
 * and could not say (main.c reports it once, at the end). */
void cli_flush_stdout(void);
int cli_stdout_errno(void);

#endif
