/* Kinds of files and paths (files.h). */
/* realpath */
#define _XOPEN_SOURCE 700 // NOLINT(bugprone-reserved-identifier,cert-dcl37-c,cert-dcl51-cpp): a feature-test macro
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/files.h"

const char *file_kind_name(mode_t mode)
{
    if (S_ISFIFO(mode))
        return "a FIFO";
    if (S_ISCHR(mode))
        return "a character device";
    if (S_ISDIR(mode))
        return "a directory";
    if (S_ISSOCK(mode))
        return "a socket";
    if (S_ISBLK(mode))
        return "a block device";
    if (S_ISLNK(mode))
        return "a symbolic link";
    return S_ISREG(mode) ? "a regular file" : "a special file";
}

int file_fd_name(const char *path)
{
    if (!strcmp(path, "/dev/stdout"))
        return STDOUT_FILENO;
    if (!strcmp(path, "/dev/stderr"))
        return STDERR_FILENO;
    const char *n = !strncmp(path, "/dev/fd/", 8)         ? path + 8
                    : !strncmp(path, "/proc/self/fd/", 14) ? path + 14
                                                           : NULL;
    if (!n || *n < '0' || *n > '9')
        return -1;
    char *end;
    long fd = strtol(n, &end, 10);
    return *end || fd > INT_MAX ? -1 : (int)fd;
}

int file_open_regular(const char *path, FILE **out, mode_t *mode)
{
    *out = NULL;
    struct stat st;
    if (stat(path, &st) != 0)
        return errno;
    if (S_ISDIR(st.st_mode))
        return EISDIR;
    if (!S_ISREG(st.st_mode)) {
        *mode = st.st_mode;
        return -1;
    }
    /* O_NONBLOCK: should the path become a FIFO between stat and open, open does not wait for
     * a writer; fstat then sees what was opened */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return errno;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        int e = errno;
        close(fd);
        if (S_ISDIR(st.st_mode))
            return EISDIR;
        if (!S_ISREG(st.st_mode)) {
            *mode = st.st_mode;
            return -1;
        }
        return e ? e : EIO;
    }
    int flags = fcntl(fd, F_GETFL);
    if (flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0 || !(*out = fdopen(fd, "rb"))) {
        int e = errno;
        close(fd);
        return e ? e : EIO;
    }
    return 0;
}

/* A path that does not exist yet: its dangling symbolic links followed to the name they point
 * to, whose folder must exist; OUT gets that folder's real path and the name. */
static int new_target(const char *path, char *out, size_t cap)
{
    char cur[PATH_MAX], link[PATH_MAX];
    if (strlen(path) >= sizeof cur)
        return ENAMETOOLONG;
    strcpy(cur, path); // NOLINT(clang-analyzer-security.insecureAPI.strcpy): length checked
    for (int hops = 0;; hops++) {
        struct stat st;
        if (lstat(cur, &st) != 0) {
            if (errno != ENOENT)
                return errno;
            break;
        }
        if (!S_ISLNK(st.st_mode) || hops == 40)
            return S_ISLNK(st.st_mode) ? ELOOP : EEXIST;
        ssize_t n = readlink(cur, link, sizeof link - 1);
        if (n < 0)
            return errno;
        link[n] = '\0';
        if (link[0] != '/') { /* relative to the link's folder */
            char *slash = strrchr(cur, '/');
            size_t dir = slash ? (size_t)(slash - cur) + 1 : 0;
            if (dir + (size_t)n >= sizeof cur)
                return ENAMETOOLONG;
            memmove(cur + dir, link, (size_t)n + 1);
        } else {
            memcpy(cur, link, (size_t)n + 1);
        }
    }
    char *slash = strrchr(cur, '/');
    const char *base = slash ? slash + 1 : cur;
    if (!*base)
        return EISDIR;
    char dir[PATH_MAX];
    if (slash == cur)
        strcpy(dir, "/"); // NOLINT(clang-analyzer-security.insecureAPI.strcpy): fits
    else if (slash)
        snprintf(dir, sizeof dir, "%.*s", (int)(slash - cur), cur);
    else
        strcpy(dir, "."); // NOLINT(clang-analyzer-security.insecureAPI.strcpy): fits
    char *real = realpath(dir, NULL);
    if (!real)
        return errno;
    struct stat st;
    int e = stat(real, &st) != 0 ? errno : !S_ISDIR(st.st_mode) ? ENOTDIR : 0;
    if (!e && (size_t)snprintf(out, cap, "%s/%s", strcmp(real, "/") ? real : "", base) >= cap)
        e = ENAMETOOLONG;
    free(real);
    return e;
}

int file_real_target(const char *path, char *out, size_t cap)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return errno == ENOENT ? new_target(path, out, cap) : errno;
    char *real = realpath(path, NULL);
    if (!real)
        return errno;
    int e = (size_t)snprintf(out, cap, "%s", real) >= cap ? ENAMETOOLONG : 0;
    free(real);
    return e;
}

int file_identify(const char *path, file_id *id)
{
    memset(id, 0, sizeof *id);
    if (file_fd_name(path) >= 0) {
        id->stream = 1;
        return 0;
    }
    struct stat st;
    if (stat(path, &st) != 0)
        return errno == ENOENT ? new_target(path, id->real, sizeof id->real) : errno;
    id->stream = S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode);
    id->exists = 1;
    id->dev = st.st_dev;
    id->ino = st.st_ino;
    return 0;
}

int file_same(const file_id *a, const file_id *b)
{
    if (a->stream || b->stream || a->exists != b->exists)
        return 0;
    if (a->exists)
        return a->dev == b->dev && a->ino == b->ino;
    return !strcmp(a->real, b->real);
}
