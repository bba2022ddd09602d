/* What kind of file a path names, and opening inputs so that they cannot block
 * (docs/when-things-go-wrong.md, "Files"). */
#ifndef CLNETSIM_FILES_H
#define CLNETSIM_FILES_H
#include <stdio.h>
#include <sys/types.h>

/* "a FIFO", "a character device", "a directory", "a socket", "a block device", "a symbolic
 * link", "a regular file": for messages. */
const char *file_kind_name(mode_t mode);

/* The descriptor an output named /dev/stdout, /dev/stderr, /dev/fd/N or /proc/self/fd/N
 * stands for (written to as it is, whatever it is), or -1 for any other path. */
int file_fd_name(const char *path);

/* Opens PATH for reading only if it is a regular file: a FIFO would block in open(), and a
 * device is not something to read a scenario or a checkpoint from. Returns 0 with *OUT open
 * ("rb"); an errno value when the path cannot be opened (EISDIR for a folder); or -1 when it is
 * another kind of file, with *MODE its st_mode (file_kind_name). */
int file_open_regular(const char *path, FILE **out, mode_t *mode);

/* Which file a path names, to tell whether two options name the same one. */
typedef struct file_id {
    int stream;          /* a character device, a FIFO or a descriptor name: written in place */
    int exists;          /* DEV and INO are those of the existing file */
    dev_t dev;
    ino_t ino;
    char real[4096];     /* a new file: its real folder (links resolved) and its name */
} file_id;

/* 0, or an errno value when PATH names nothing that could be identified (the option that
 * opens it reports why). */
int file_identify(const char *path, file_id *id);
/* Whether A and B are one file. Streams never are: each output is written in turn. */
int file_same(const file_id *a, const file_id *b);

/* The real path of the regular file PATH will be (the target of its symbolic links, so the
 * link stays a link), into OUT of CAP bytes: 0 or an errno value. */
int file_real_target(const char *path, char *out, size_t cap);

#endif
