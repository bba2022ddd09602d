/* Device selection from the user's SPEC (see device.h for the grammar). Works on the list alone,
 * without OpenCL, so every form and every error can be tested on synthetic lists.
 *
 * Classes ("all", "cpu", "gpu") and text matches quietly skip unusable devices: the user asked
 * for a kind of device, not for that one. Indices are explicit, so an unusable device named by
 * its index is an error that gives the reason. */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device/device_internal.h"
#include "dist/dist.h"

typedef struct selection {
    int *indices;
    int max;
    int n;
} selection;

/* Adds position I once; the order of first mention is kept. */
static void select_add(selection *s, int i)
{
    for (int k = 0; k < s->n; k++)
        if (s->indices[k] == i)
            return;
    if (s->n < s->max)
        s->indices[s->n++] = i;
}

/* "0 'name' (platform, cpu), 1 ..." for messages: the user sees what exists without having to
 * run `clnetsim devices` first. */
static void describe_devices(const device_list *list, char *buf, size_t cap)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < list->count && used + 1 < cap; i++) {
        const device_entry *e = &list->items[i];
        int n = snprintf(buf + used, cap - used, "%s%d '%s' (%s, %s%s)", i ? ", " : "", e->index,
                         e->name, e->platform_name, e->type ? device_type_name(e->type) : "-",
                         e->usable ? "" : ", unusable");
        if (n < 0)
            break;
        used += (size_t)n;
    }
    if (used + 1 >= cap && cap > 4)
        memcpy(buf + cap - 4, "...", 4);
}

static int fail_no_match(const device_list *list, const char *spec, const char *what, cn_error *err)
{
    char devices[1500];
    describe_devices(list, devices, sizeof devices);
    cn_fail(err, CN_ERR_INPUT, "no usable OpenCL device matches %s '%s'; the devices are: %s", what,
            spec, devices);
    return -1;
}

static int fail_unusable(const device_entry *e, const char *spec, const char *how, cn_error *err)
{
    cn_fail(err, CN_ERR_INPUT, "device %d '%s' %s '%s' but cannot be used: %s", e->index, e->name,
            how, spec, e->reason);
    return -1;
}

/* ---- comma-separated indices ---- */

static int parse_index(const char *text, long *value)
{
    if (!*text)
        return -1;
    for (const char *c = text; *c; c++)
        if (!isdigit((unsigned char)*c))
            return -1;
    errno = 0;
    *value = strtol(text, NULL, 10);
    return errno == ERANGE || *value > INT_MAX ? -1 : 0;
}

static int find_index(const device_list *list, long index)
{
    for (int i = 0; i < list->count; i++)
        if (list->items[i].index == index)
            return i;
    return -1;
}

static int select_one_index(const device_list *list, const char *spec, const char *element,
                            selection *s, cn_error *err)
{
    long index = 0;
    if (!*element) {
        cn_fail(err, CN_ERR_INPUT,
                "device list '%s' is malformed: it has an empty element (write indices from "
                "`clnetsim devices` separated by commas, like 0,2)",
                spec);
        return -1;
    }
    if (parse_index(element, &index)) {
        cn_fail(err, CN_ERR_INPUT,
                "device list '%s' is malformed: '%s' is not a device index (write indices from "
                "`clnetsim devices` separated by commas, like 0,2; to match a device name, write "
                "':TEXT')",
                spec, element);
        return -1;
    }
    int pos = find_index(list, index);
    if (pos < 0) {
        cn_fail(err, CN_ERR_INPUT,
                "device index %ld in '%s' is out of range: the listing has %d device%s, numbered "
                "0 to %d (see `clnetsim devices`; to match a device name, write ':TEXT')",
                index, spec, list->count, list->count == 1 ? "" : "s", list->count - 1);
        return -1;
    }
    if (!list->items[pos].usable)
        return fail_unusable(&list->items[pos], spec, "is selected by", err);
    select_add(s, pos);
    return 0;
}

static int select_indices(const device_list *list, const char *spec, selection *s, cn_error *err)
{
    const char *p = spec;
    for (;;) {
        size_t n = strcspn(p, ",");
        char element[64];
        char raw[64];
        snprintf(raw, sizeof raw, "%.*s", (int)(n < sizeof raw ? n : sizeof raw - 1), p);
        str_copy_trimmed(element, sizeof element, raw);
        if (select_one_index(list, spec, element, s, err))
            return -1;
        if (p[n] == '\0')
            return s->n;
        p += n + 1;
    }
}

/* ---- classes and text ---- */

/* A comma or a leading digit makes a list: "0" is device 0, not a name containing "0". */
static int is_list(const char *spec)
{
    return strchr(spec, ',') || isdigit((unsigned char)spec[0]);
}

static int select_class(const device_list *list, cl_device_type type, selection *s)
{
    for (int i = 0; i < list->count; i++) {
        const device_entry *e = &list->items[i];
        if (e->usable && (type == CL_DEVICE_TYPE_ALL || (e->type & type)))
            select_add(s, i);
    }
    return s->n;
}

static int class_of(const char *spec, cl_device_type *type)
{
    static const struct {
        const char *word;
        cl_device_type type;
    } classes[] = {
        {"all", CL_DEVICE_TYPE_ALL},
        {"cpu", CL_DEVICE_TYPE_CPU},
        {"gpu", CL_DEVICE_TYPE_GPU},
        {"accelerator", CL_DEVICE_TYPE_ACCELERATOR},
    };
    for (size_t i = 0; i < sizeof classes / sizeof classes[0]; i++)
        if (str_iequal(spec, classes[i].word)) {
            *type = classes[i].type;
            return 1;
        }
    return 0;
}

static int entry_matches_text(const device_entry *e, const char *spec)
{
    const char *colon = strchr(spec, ':');
    if (!colon)
        return str_icontains(e->platform_name, spec) || str_icontains(e->platform_vendor, spec) ||
               str_icontains(e->name, spec);
    /* Split at the first colon only: ROCm device names such as "gfx90a:sramecc+:xnack-" hold
     * colons themselves. */
    char platform[256];
    size_t n = (size_t)(colon - spec);
    snprintf(platform, sizeof platform, "%.*s",
             (int)(n < sizeof platform ? n : sizeof platform - 1), spec);
    int platform_ok =
        str_icontains(e->platform_name, platform) || str_icontains(e->platform_vendor, platform);
    return platform_ok && str_icontains(e->name, colon + 1);
}

static int select_text(const device_list *list, const char *spec, selection *s, cn_error *err)
{
    const device_entry *first_unusable = NULL;
    for (int i = 0; i < list->count; i++) {
        const device_entry *e = &list->items[i];
        if (!entry_matches_text(e, spec))
            continue;
        if (e->usable)
            select_add(s, i);
        else if (!first_unusable)
            first_unusable = e;
    }
    if (s->n == 0 && first_unusable)
        return fail_unusable(first_unusable, spec, "matches", err);
    if (s->n == 0)
        return fail_no_match(list, spec, "the text", err);
    return s->n;
}

static int select_default(const device_list *list, selection *s, cn_error *err)
{
    if (select_class(list, CL_DEVICE_TYPE_GPU, s) > 0 ||
        select_class(list, CL_DEVICE_TYPE_ALL, s) > 0)
        return s->n;
    char devices[1500];
    describe_devices(list, devices, sizeof devices);
    cn_fail(err, CN_ERR_INPUT,
            "no usable OpenCL device was found; the devices are: %s "
            "(`clnetsim devices` gives the reasons)",
            devices);
    return -1;
}

int device_select_share(int *indices, int n, int local, int local_size)
{
    if (n <= 0 || local_size <= 1)
        return n;
    if (n < local_size) {
        indices[0] = indices[local % n];
        return 1;
    }
    int first = (int)((int64_t)local * n / local_size);
    int end = (int)((int64_t)(local + 1) * n / local_size);
    memmove(indices, indices + first, (size_t)(end - first) * sizeof *indices);
    return end - first;
}

static int select_spec(const device_list *list, const char *spec, int *indices, int max,
                       cn_error *err);

int device_select(const device_list *list, const char *spec, int *indices, int max, cn_error *err)
{
    static const char suffix[] = "@local";
    size_t len = spec ? strlen(spec) : 0, sl = sizeof suffix - 1;
    while (len > 0 && isspace((unsigned char)spec[len - 1]))
        len--;
    if (len < sl || strncmp(spec + len - sl, suffix, sl) != 0 || len - sl >= 512)
        return select_spec(list, spec, indices, max, err);
    char rest[512];
    memcpy(rest, spec, len - sl);
    rest[len - sl] = '\0';
    int all[64];
    int n = select_spec(list, rest, all, (int)(sizeof all / sizeof all[0]), err);
    if (n <= 0)
        return n;
    n = device_select_share(all, n, dist_local_rank(), dist_local_size());
    if (n > max)
        n = max;
    memcpy(indices, all, (size_t)n * sizeof *indices);
    return n;
}

static int select_spec(const device_list *list, const char *spec, int *indices, int max,
                       cn_error *err)
{
    char text[512];
    if (max <= 0) {
        cn_fail(err, CN_ERR_RUNTIME, "device_select called with no room for a device");
        return -1;
    }
    if (spec && strlen(spec) >= sizeof text) {
        cn_fail(err, CN_ERR_INPUT, "the device selection is too long (%zu characters; at most %zu)",
                strlen(spec), sizeof text - 1);
        return -1;
    }
    str_copy_trimmed(text, sizeof text, spec ? spec : "");
    if (list->count == 0) {
        cn_fail(err, CN_ERR_INPUT,
                "no OpenCL platform was found, so no device can be selected%s%s%s; on Debian or "
                "Ubuntu, `apt-get install pocl-opencl-icd` gives a CPU device",
                text[0] ? " by '" : "", text, text[0] ? "'" : "");
        return -1;
    }
    selection s = {indices, max, 0};
    cl_device_type type;
    if (text[0] == '\0')
        return select_default(list, &s, err);
    if (class_of(text, &type))
        return select_class(list, type, &s) > 0 ? s.n : fail_no_match(list, text, "the class", err);
    if (is_list(text))
        return select_indices(list, text, &s, err);
    return select_text(list, text, &s, err);
}
