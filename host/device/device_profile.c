/* Platform profiles: the files platforms/NAME.ini, embedded in the binary. Each says which
 * platforms it is for ([match]), the extra build options ([build]) and the work-group sizes per
 * kernel ([work_group], by kernel key as device_keys.c defines it: flood.transmit). The first
 * profile whose [match] fits the device wins; default.ini is the fallback and has no [match].
 * A profile may also give kernels' compile-time choices ([kernel], by key: the team of
 * work-items per transmission of flood.transmit_mobile), which the model reading them checks:
 * the device layer knows no model's choices, only that each is a key and a whole number.
 *
 * Profiles are part of the program, not user input, so a mistake in one is a CN_ERR_RUNTIME
 * error naming the file and line: it must fail loudly in the tests, not fall back quietly. */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ini.h>

#include "common/embedded.h"
#include "device/device_internal.h"

#define DEFAULT_PROFILE "default.ini"
#define MAX_LOCAL_SIZE  65536

/* Options that would let the compiler reorder or fuse floating-point operations, which the
 * determinism contract (docs/architecture.md) forbids on every device. */
static const char *const forbidden_options[] = {
    "-cl-fast-relaxed-math", "-cl-mad-enable",      "-cl-unsafe-math-optimizations",
    "-cl-finite-math-only",  "-cl-no-signed-zeros", "-cl-denorms-are-zero",
};

typedef struct profile_parser {
    platform_profile *profile;
    char *match;
    size_t match_cap;
    int have_default;
    int failed; /* the handler refused a line; the first reason is kept */
    char fail_key[64];
    char fail_reason[256];
} profile_parser;

static int refuse(profile_parser *pp, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int refuse(profile_parser *pp, const char *key, const char *fmt, ...)
{
    if (!pp->failed) {
        va_list ap;
        va_start(ap, fmt);
        pp->failed = 1;
        snprintf(pp->fail_key, sizeof pp->fail_key, "%s", key);
        vsnprintf(pp->fail_reason, sizeof pp->fail_reason, fmt, ap);
        va_end(ap);
    }
    return 0; /* inih: this line is an error */
}

static int parse_size(const char *value, size_t *out)
{
    size_t v = 0;
    if (!*value)
        return -1;
    for (const char *c = value; *c; c++) {
        if (!isdigit((unsigned char)*c) || v > MAX_LOCAL_SIZE)
            return -1;
        v = v * 10 + (size_t)(*c - '0');
    }
    if (v < 1 || v > MAX_LOCAL_SIZE)
        return -1;
    *out = v;
    return 0;
}

static int is_identifier(const char *s)
{
    if (!(isalpha((unsigned char)*s) || *s == '_'))
        return 0;
    for (; *s; s++)
        if (!(isalnum((unsigned char)*s) || *s == '_'))
            return 0;
    return 1;
}

/* A kernel key: FAMILY.NAME, two identifiers (device_keys.c). */
static int is_key(const char *s)
{
    const char *dot = strchr(s, '.');
    char family[64];
    if (!dot || (size_t)(dot - s) >= sizeof family)
        return 0;
    memcpy(family, s, (size_t)(dot - s));
    family[dot - s] = '\0';
    return is_identifier(family) && is_identifier(dot + 1);
}

/* Entries used to be bare C names (transmit); a profile still written so would silently tune
 * nothing, so the old name is refused with the key that replaced it. */
static int refuse_bare(profile_parser *pp, const char *name)
{
    char key[128];
    if (device_kernel_key(name, key, sizeof key) == 0)
        return refuse(pp, name, "'%s' is a bare kernel name: [work_group] keys name the "
                      "kernel's family, write '%s'", name, key);
    return refuse(pp, name, "'%s' is not a kernel key (FAMILY.KERNEL, such as flood.transmit)",
                  name);
}

static int on_build(profile_parser *pp, const char *name, const char *value)
{
    if (strcmp(name, "options") != 0)
        return refuse(pp, name, "unknown key '%s' in [build] (known: options)", name);
    for (size_t i = 0; i < sizeof forbidden_options / sizeof forbidden_options[0]; i++)
        if (strstr(value, forbidden_options[i]))
            return refuse(pp, name,
                          "build option %s is not allowed: it breaks the determinism "
                          "contract (results identical on every device)",
                          forbidden_options[i]);
    if (strlen(value) >= sizeof pp->profile->build_options)
        return refuse(pp, name, "build options are too long (at most %zu characters)",
                      sizeof pp->profile->build_options - 1);
    snprintf(pp->profile->build_options, sizeof pp->profile->build_options, "%s", value);
    return 1;
}

static int on_work_group(profile_parser *pp, const char *name, const char *value)
{
    platform_profile *p = pp->profile;
    size_t size = 0;
    if (parse_size(value, &size))
        return refuse(pp, name, "work-group size '%s' for '%s' is not an integer from 1 to 65536",
                      value, name);
    if (strcmp(name, "default") == 0) {
        if (pp->have_default)
            return refuse(pp, name, "'%s' is given twice", name);
        pp->have_default = 1;
        p->default_local_size = size;
        return 1;
    }
    if (is_identifier(name))
        return refuse_bare(pp, name);
    if (!is_key(name) || strlen(name) >= sizeof p->work_group[0].kernel)
        return refuse(pp, name, "'%s' is not a kernel name", name);
    for (int i = 0; i < p->n_kernels; i++)
        if (strcmp(p->work_group[i].kernel, name) == 0)
            return refuse(pp, name, "'%s' is given twice", name);
    if (p->n_kernels == p->cap_kernels) {
        int cap = p->cap_kernels ? 2 * p->cap_kernels : 32;
        struct platform_work_group *grown = realloc(p->work_group, (size_t)cap * sizeof *grown);
        if (!grown)
            return refuse(pp, name, "out of memory for the entry of '%s'", name);
        p->work_group = grown;
        p->cap_kernels = cap;
    }
    snprintf(p->work_group[p->n_kernels].kernel, sizeof p->work_group[0].kernel, "%s", name);
    p->work_group[p->n_kernels++].local_size = size;
    return 1;
}

/* Choices whose values are not sizes from 1 to 65536 (a team, a work-group): their bounds. */
static const struct choice_range {
    const char *key;
    long lo, hi;
} choice_ranges[] = {
    /* nodes up to which the cell lists are built by one work-group, 0: never
     * (host/engine/cell_lists.c); the bound is the test hook's, CELLS_ONE_GROUP_MAX */
    {"cells.one_group_nodes", 0, 2147483647L},
    /* cells up to which the cell lists are built from the ranks of the mobility step, 0:
     * never (host/engine/cell_lists.c); the bound is the test hook's, CELLS_RANKED_MAX */
    {"cells.ranked_cells", 0, 2147483647L},
    /* 1: the next window's mobility step inside the transmit launch, 0: in its own
     * (host/models/flood/flood_fuse.c) */
    {"flood.transmit_mobile_step", 0, 1},
    /* nodes up to which that step is fused (absent: any number) */
    {"flood.transmit_mobile_step_nodes", 0, 2147483647L},
};

/* VALUE, all digits, within [LO, HI]. The test in the loop only keeps V from overflowing:
 * where HI is below a digit, (HI - digit) / 10 rounds up to 0 and lets that digit in, so HI
 * is checked again at the end. */
static int parse_whole(const char *value, long lo, long hi, long *out)
{
    long v = 0;
    if (!*value)
        return -1;
    for (const char *c = value; *c; c++) {
        if (!isdigit((unsigned char)*c) || v > (hi - (*c - '0')) / 10)
            return -1;
        v = v * 10 + (*c - '0');
    }
    if (v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

static int on_kernel(profile_parser *pp, const char *name, const char *value)
{
    platform_profile *p = pp->profile;
    if (!is_key(name) || strlen(name) >= sizeof p->choices[0].key)
        return refuse(pp, name, "'%s' is not a kernel choice's key (FAMILY.NAME, such as "
                      "flood.transmit_mobile_team)", name);
    long v = 0;
    const struct choice_range *range = NULL;
    for (size_t i = 0; i < sizeof choice_ranges / sizeof choice_ranges[0]; i++)
        if (strcmp(choice_ranges[i].key, name) == 0)
            range = &choice_ranges[i];
    if (range) {
        if (parse_whole(value, range->lo, range->hi, &v))
            return refuse(pp, name, "'%s' for '%s' is not a whole number from %ld to %ld", value,
                          name, range->lo, range->hi);
    } else {
        size_t size = 0;
        if (parse_size(value, &size))
            return refuse(pp, name, "'%s' for '%s' is not an integer from 1 to 65536", value,
                          name);
        v = (long)size;
    }
    for (int i = 0; i < p->n_choices; i++)
        if (strcmp(p->choices[i].key, name) == 0)
            return refuse(pp, name, "'%s' is given twice", name);
    if (p->n_choices == PLATFORM_MAX_CHOICES)
        return refuse(pp, name, "[kernel] has more than %d entries", PLATFORM_MAX_CHOICES);
    snprintf(p->choices[p->n_choices].key, sizeof p->choices[0].key, "%s", name);
    p->choices[p->n_choices++].value = v;
    return 1;
}

static int on_key(void *user, const char *section, const char *name, const char *value)
{
    profile_parser *pp = user;
    if (strcmp(section, "match") == 0) {
        if (strcmp(name, "platform") != 0)
            return refuse(pp, name, "unknown key '%s' in [match] (known: platform)", name);
        snprintf(pp->match, pp->match_cap, "%s", value);
        return 1;
    }
    if (strcmp(section, "build") == 0)
        return on_build(pp, name, value);
    if (strcmp(section, "work_group") == 0)
        return on_work_group(pp, name, value);
    if (strcmp(section, "kernel") == 0)
        return on_kernel(pp, name, value);
    return refuse(pp, name,
                  "unknown section [%s] (known: [match], [build], [work_group], [kernel])",
                  section);
}

/* inih gives the number of the first bad line but not why; the handler's reason is used when
 * that line holds the key it refused, otherwise the line was not INI syntax at all. */
static void line_key(const char *text, int line, char *key, size_t cap)
{
    for (int l = 1; l < line && text; l++) {
        text = strchr(text, '\n');
        if (text)
            text++;
    }
    key[0] = '\0';
    if (!text)
        return;
    size_t n = strcspn(text, "=:\n");
    if (text[n] != '=' && text[n] != ':')
        return;
    char raw[128];
    snprintf(raw, sizeof raw, "%.*s", (int)(n < sizeof raw ? n : sizeof raw - 1), text);
    str_copy_trimmed(key, cap, raw);
}

int platform_profile_parse(const char *name, const char *text, platform_profile *out, char *match,
                           size_t match_cap, cn_error *err)
{
    memset(out, 0, sizeof *out);
    snprintf(out->name, sizeof out->name, "%s", name);
    match[0] = '\0';
    profile_parser pp = {.profile = out, .match = match, .match_cap = match_cap};
    int line = ini_parse_string(text, on_key, &pp);
    if (line != 0)
        platform_profile_free(out);
    if (line < 0)
        return cn_fail(err, CN_ERR_RUNTIME, "platform profile %s could not be read (out of memory)",
                       name);
    if (line > 0) {
        char key[64];
        line_key(text, line, key, sizeof key);
        const char *reason = pp.failed && strcmp(key, pp.fail_key) == 0
                                 ? pp.fail_reason
                                 : "expected '[section]' or 'key = value'";
        return cn_fail(err, CN_ERR_RUNTIME, "platform profile %s, line %d: %s", name, line, reason);
    }
    if (!pp.have_default) {
        platform_profile_free(out);
        return cn_fail(err, CN_ERR_RUNTIME,
                       "platform profile %s: [work_group] has no 'default' size", name);
    }
    return 0;
}

void platform_profile_free(platform_profile *p)
{
    free(p->work_group);
    p->work_group = NULL;
    p->n_kernels = p->cap_kernels = 0;
}

int platform_profile_matches(const char *match_list, const device_entry *dev)
{
    const char *p = match_list;
    while (*p) {
        size_t n = strcspn(p, ",");
        char raw[128], item[128];
        snprintf(raw, sizeof raw, "%.*s", (int)(n < sizeof raw ? n : sizeof raw - 1), p);
        str_copy_trimmed(item, sizeof item, raw);
        if (item[0] &&
            (str_icontains(dev->platform_name, item) || str_icontains(dev->platform_vendor, item)))
            return 1;
        p += n;
        if (*p == ',')
            p++;
    }
    return 0;
}

static int has_suffix(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

int platform_profile_load(const device_entry *dev, platform_profile *out, cn_error *err)
{
    char match[256];
    /* Every embedded profile is parsed, matching or not, so that a broken one is reported by
     * the first run on any machine rather than only on the vendor it is for. */
    int found = 0;
    for (size_t i = 0; i < embedded_count(); i++) {
        const struct embedded_entry *f = embedded_at(i);
        /* profiles are the .ini files without a folder (bench/ holds scenarios) */
        if (!has_suffix(f->name, ".ini") || strchr(f->name, '/') ||
            strcmp(f->name, DEFAULT_PROFILE) == 0)
            continue;
        platform_profile candidate;
        if (platform_profile_parse(f->name, f->data, &candidate, match, sizeof match, err)) {
            if (found)
                platform_profile_free(out);
            return CN_ERR_RUNTIME;
        }
        if (!found && match[0] && platform_profile_matches(match, dev)) {
            *out = candidate;
            found = 1;
        } else {
            platform_profile_free(&candidate);
        }
    }
    if (found)
        return 0;
    const char *text = embedded_file(DEFAULT_PROFILE, NULL);
    if (!text)
        return cn_fail(err, CN_ERR_RUNTIME, "platform profile %s is not embedded in this build",
                       DEFAULT_PROFILE);
    return platform_profile_parse(DEFAULT_PROFILE, text, out, match, sizeof match, err);
}

size_t platform_profile_local_size(const platform_profile *p, const char *kernel)
{
    size_t entry = platform_profile_entry(p, kernel);
    if (entry)
        return entry;
    return p->default_local_size > 0 ? p->default_local_size : 1;
}

size_t platform_profile_entry(const platform_profile *p, const char *kernel)
{
    /* Test hook: a profile with its default only, as for a vendor without a table. */
    const char *hook = getenv("CLNETSIM_TEST_PROFILE_ENTRIES");
    if (hook && !strcmp(hook, "0"))
        return 0;
    for (int i = 0; kernel && i < p->n_kernels; i++)
        if (strcmp(p->work_group[i].kernel, kernel) == 0)
            return p->work_group[i].local_size;
    return 0;
}

long platform_profile_choice(const platform_profile *p, const char *key, long fallback)
{
    for (int i = 0; key && i < p->n_choices; i++)
        if (strcmp(p->choices[i].key, key) == 0)
            return p->choices[i].value;
    return fallback;
}
