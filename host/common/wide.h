/* 128-bit sums: the latency and hop sums of a run can pass 2^63 (a long line of nodes, many
 * packets, long relay delays), and a sum that wraps would be a wrong number that looks right.
 * They are carried in 128 bits from the device counters to the JSON
 * (docs/when-things-go-wrong.md, "Overflow audit"). GCC and clang provide the type. */
#ifndef CLNETSIM_WIDE_H
#define CLNETSIM_WIDE_H
#include <stddef.h>
#include <stdint.h>

typedef __int128 wide_int;

/* Characters wide_format needs at most, the terminating NUL included. */
#define WIDE_TEXT 42

/* V in decimal, exactly (JSON numbers of any size are valid JSON). Returns BUF. */
char *wide_format(wide_int v, char buf[WIDE_TEXT]);

/* V / N as a double, N > 0 (a mean). */
double wide_ratio(wide_int v, int64_t n);

/* Parses a decimal integer of up to 38 digits, with an optional '-'; *END past its last
 * digit. Returns 0, or -1 when there is no digit or the value does not fit. */
int wide_parse(const char *s, const char **end, wide_int *out);

#endif
