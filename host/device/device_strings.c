/* Small string helpers of the device layer. Driver strings come with stray blanks (Intel CPU
 * names start with spaces, some vendors pad with trailing ones), and users type device names
 * in any case, so matching is case-insensitive on trimmed text. */
#include <ctype.h>
#include <string.h>

#include "device/device_internal.h"

static int lower(char c) { return tolower((unsigned char)c); }

int str_iequal(const char *a, const char *b)
{
    for (; *a && *b; a++, b++)
        if (lower(*a) != lower(*b))
            return 0;
    return *a == *b;
}

int str_icontains(const char *hay, const char *needle)
{
    size_t n = strlen(needle);
    if (n == 0)
        return 1;
    for (; *hay; hay++) {
        size_t i = 0;
        while (i < n && hay[i] && lower(hay[i]) == lower(needle[i]))
            i++;
        if (i == n)
            return 1;
    }
    return 0;
}

void str_copy_trimmed(char *dst, size_t cap, const char *src)
{
    while (*src && isspace((unsigned char)*src))
        src++;
    size_t n = strlen(src);
    while (n > 0 && isspace((unsigned char)src[n - 1]))
        n--;
    if (n >= cap)
        n = cap - 1;
    memcpy(dst, src, n);
    dst[n] = '\0';
}
