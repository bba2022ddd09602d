/* Errors travel up to the CLI as one sentence; nothing below the CLI prints or exits. */
#ifndef CLNETSIM_ERROR_H
#define CLNETSIM_ERROR_H
#include <stdarg.h>
#include <stddef.h>

/* Exit statuses, shared by every subcommand. */
enum {
    CN_OK = 0,
    CN_ERR_RUNTIME = 1, /* a device, driver or system call failed during the run */
    CN_ERR_INPUT = 2,   /* bad command line, configuration or file: nothing was run */
};

typedef struct cn_error {
    int code;        /* CN_ERR_*; 0 while no error is set */
    char msg[2048];  /* one sentence for the user, no trailing newline */
    /* The device whose call failed, when one did: the name buffer of its device_ctx, set with
     * the message (cl_check, device_fail). Compared as a pointer, because two devices of one
     * model share a name; the engine uses it to go on without that device. */
    const char *device;
} cn_error;

/* Sets ERR (if not NULL and not already set) and returns CODE, so callers can write
 * `return cn_fail(err, CN_ERR_INPUT, "...", ...);`. The first error wins: it is the cause. */
int cn_fail(cn_error *err, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int cn_vfail(cn_error *err, int code, const char *fmt, va_list ap);
/* The message's control characters (user text: a -s value with a newline, an escape
 * sequence in a file name) are written as \n, \t, \r or \xNN, so that it stays one line and
 * nothing reaches the terminal raw. cn_escape does the same for text printed otherwise
 * (usage errors): S into BUF of SIZE bytes, returns BUF. */
const char *cn_escape(const char *s, char *buf, size_t size);
/* Appends TEXT to ERR's message as it is: only for the compiler's build log, the one message
 * of several lines. */
void cn_append_raw(cn_error *err, const char *text);
void cn_error_clear(cn_error *err);
#ifdef __clang_analyzer__
/* For the static analyser (clang-tidy), which does not look into error.c: cn_fail returns
 * CODE, so a path after a failure is not followed on as if the call had succeeded. */
#define cn_fail(err, code, ...) ((void)cn_fail(err, code, __VA_ARGS__), (code))
#endif

#endif
