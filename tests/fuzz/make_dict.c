/* Prints a libFuzzer dictionary of the configuration's words: section headers, key names with
 * their '=', choices and the law syntax, from the schema table itself, so that the fuzzer
 * reaches the value parsers of every key instead of guessing names. */
#include <stdio.h>

#include "config/config_internal.h"

static void entry(const char *prefix, const char *word, const char *suffix)
{
    putchar('"');
    for (const char *parts[3] = {prefix, word, suffix}, **p = parts; p < parts + 3; p++)
        for (const char *c = *p; *c; c++) {
            if (*c == '"' || *c == '\\')
                printf("\\%c", *c);
            else if (*c < 0x20 || *c > 0x7e) /* the dictionary's escape for other bytes */
                printf("\\x%02X", (unsigned char)*c);
            else
                putchar(*c);
        }
    puts("\"");
}

int main(void)
{
    for (const char *const *s = config_section_names(); *s; s++)
        entry("[", *s, "]\n");
    entry("[traffic.flow ", "a", "]\n");
    entry("[mobility.group ", "a", "]\n");
    for (int i = 0; i < config_key_count(); i++) {
        int k = config_key_in_order(i);
        const config_key *key = config_key_at(k);
        entry("", key->name, " = ");
        if (!config_is_named_key(k))
            entry(key->section, ".", key->name);
        for (int c = 0; key->choices && key->choices[c]; c++)
            entry("", key->choices[c], "");
    }
    static const char *const words[] = {"uniform(", "exponential(", ")", ", ", "-", "all",
                                        "broadcast", "0x", "1e", "\n%%\n", "=", ";", "#"};
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        entry("", words[i], "");
    return 0;
}
