/* The check macros of the single-file unit tests (tests/config, tests/inject): each check is
 * counted, and a failing one prints where it is and what was expected, then the test carries
 * on, so that one run reports every broken check. main() reports `checks` and `failures`. */
#ifndef CLNETSIM_TEST_CHECK_H
#define CLNETSIM_TEST_CHECK_H
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>

static int checks, failures;

#define CHECK(cond) check_at(__FILE__, __LINE__, (cond) ? 1 : 0, "%s", #cond)
#define CHECK_I64(got, want) check_i64_at(__FILE__, __LINE__, #got, (int64_t)(got), (int64_t)(want))
#define CHECK_U64(got, want)                                                                       \
    check_u64_at(__FILE__, __LINE__, #got, (uint64_t)(got), (uint64_t)(want))
/* |got - want| <= rel x |want| */
#define CHECK_NEAR(got, want, rel) check_near_at(__FILE__, __LINE__, #got, (got), (want), (rel))

__attribute__((format(printf, 4, 5))) static inline void check_at(const char *file, int line,
                                                                 int ok, const char *fmt, ...)
{
    checks++;
    if (ok)
        return;
    failures++;
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s:%d: check failed: ", file, line);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

static inline void check_i64_at(const char *file, int line, const char *what, int64_t got,
                                int64_t want)
{
    check_at(file, line, got == want, "%s = %lld, expected %lld", what, (long long)got,
             (long long)want);
}

static inline void check_u64_at(const char *file, int line, const char *what, uint64_t got,
                                uint64_t want)
{
    check_at(file, line, got == want, "%s = %llu, expected %llu", what, (unsigned long long)got,
             (unsigned long long)want);
}

static inline void check_near_at(const char *file, int line, const char *what, double got,
                                 double want, double rel)
{
    check_at(file, line, fabs(got - want) <= rel * fabs(want), "%s = %.17g, expected %.17g",
             what, got, want);
}

#endif
