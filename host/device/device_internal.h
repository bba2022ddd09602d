/* Private interface shared by the files of host/device/ and its tests (tests/device/). Nothing
 * outside the device layer includes this header: other modules use device.h only. */
#ifndef CLNETSIM_DEVICE_INTERNAL_H
#define CLNETSIM_DEVICE_INTERNAL_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "device/device.h"

/* --- strings (device_strings.c) --- */

/* Case-insensitive substring test; an empty NEEDLE matches everything. */
int str_icontains(const char *hay, const char *needle);
int str_iequal(const char *a, const char *b);
/* Copies SRC into DST (capacity CAP > 0) without leading/trailing white space, truncating. */
void str_copy_trimmed(char *dst, size_t cap, const char *src);

/* --- sources and include expansion (device_source.c) --- */

/* Where source files come from: the embedded files in the binary, or a table in a test. */
typedef const char *(*source_lookup_fn)(const char *name, size_t *len, void *user);

/* Concatenates the files SOURCES (in order) into one malloc'ed string *OUT, replacing every
 * line `#include "name"` by the file NAME, recursively. A file is included once: a second
 * include of it (or of a top-level source) expands to nothing, which is all the include guards
 * of cl/ would do anyway. `#line` markers keep the compiler's messages pointing at the right
 * file and line. A missing file is a CN_ERR_RUNTIME error naming the including file and line.
 * LOOKUP NULL means the embedded files. */
int device_expand_sources(const char *const *sources, int n_sources, source_lookup_fn lookup,
                          void *user, char **out, cn_error *err);

/* --- profiles (device_profile.c) --- */

/* Parses profile TEXT (from file NAME, used in messages) into OUT and its [match] list into
 * MATCH (comma-separated substrings, "" when the profile matches nothing by itself). */
int platform_profile_parse(const char *name, const char *text, platform_profile *out, char *match,
                           size_t match_cap, cn_error *err);

/* Whether the comma-separated substrings of MATCH_LIST fit the platform name or vendor of DEV. */
int platform_profile_matches(const char *match_list, const device_entry *dev);

/* --- binary cache (device_cache.c) --- */

/* 128-bit key of one build: two independent 64-bit hashes over length-prefixed fields, so that
 * ("ab", "c") and ("a", "bc") differ. */
typedef struct cache_key {
    uint64_t h1, h2;
    uint64_t length; /* bytes of key material, stored in the cache file header and checked */
} cache_key;

void cache_key_init(cache_key *k);
void cache_key_add(cache_key *k, const void *data, size_t len);
void cache_key_add_str(cache_key *k, const char *s);

/* Whether CLNETSIM_NO_CACHE asks for no cache. */
int cache_disabled(void);

/* Reads the cached binary for KEY into a malloc'ed *BINARY; 0 on success, -1 when there is
 * no valid entry (missing, truncated, another key, damaged payload). */
int cache_load(const cache_key *key, unsigned char **binary, size_t *size);

/* Stores BINARY for KEY atomically (temporary file, then rename). Failures are ignored: an
 * unwritable cache only means builds are not reused. */
void cache_store(const cache_key *key, const unsigned char *binary, size_t size);

/* Adds what a verdict measured on DEV depends on to K: the device and its driver, the
 * clnetsim version and the kernels' source (any change of a kernel measures again). */
void cache_key_add_device(cache_key *k, const device_ctx *dev);

/* The cache folder's file PREFIX-HASH.ini for KEY, into BUF: 0 when there is no cache. */
int cache_ini_path(const cache_key *key, const char *prefix, char *buf, size_t cap);

/* Opens a temporary file beside PATH (its name into TMP) for an atomic replacement of PATH,
 * making the folder if needed; NULL when it cannot. cache_file_commit closes it and renames it
 * onto PATH (0), or removes it (-1): readers see the old file or the whole new one. */
FILE *cache_file_begin(const char *path, char *tmp, size_t cap);
int cache_file_commit(FILE *f, const char *tmp, const char *path);

/* --- self-test (device_selftest.c) --- */

/* The environment variable that makes the self-test expect a wrong answer (tests only). */
#define SELFTEST_FAIL_ENV "CLNETSIM_TEST_FAIL_SELFTEST"

#endif
