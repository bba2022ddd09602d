/* Files compiled into the binary: OpenCL sources (cl/), platform profiles (platforms/) and the
 * bench reference scenarios (scenarios/bench/, named "bench/NAME.ini"). */
#ifndef CLNETSIM_EMBEDDED_H
#define CLNETSIM_EMBEDDED_H
#include <stddef.h>

struct embedded_entry {
    const char *name; /* a path under cl/ ("flood/flood.cl"), "pocl.ini", "bench/x.ini" */
    const char *data; /* NUL-terminated contents */
    size_t len;       /* length without the terminating NUL */
};

/* Contents of the embedded file NAME, or NULL when there is none. */
const char *embedded_file(const char *name, size_t *len);
size_t embedded_count(void);
const struct embedded_entry *embedded_at(size_t i);

#endif
