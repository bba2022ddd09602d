/* Fuzz target of the configuration path: INI text plus -s overrides, as `clnetsim run` reads
 * them. The input is the INI text up to a line "%%"; every later line is one override
 * (section.key=value). Beyond "never crash, hang or leak", the target checks what the
 * configuration promises its callers:
 * - a refusal is CN_ERR_INPUT with one non-empty sentence (no newline);
 * - an accepted scenario's --dump-config text is read back without error, and dumping that
 *   again gives the same text (the dump is a fixed point: docs/user-guide.md promises that
 *   `--dump-config` reproduces the run).
 * A broken promise aborts, which libFuzzer reports like a crash. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"

#define FUZZ_TARGET "fuzz_config"
#include "fuzz_checks.h"

#define FUZZ_MAX_INPUT (64 * 1024)
#define FUZZ_MAX_OVERRIDES 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);


/* Splits TEXT (modified) into the INI part and at most FUZZ_MAX_OVERRIDES override lines. */
static int split_overrides(char *text, config_override *ov)
{
    char *line;
    if (strncmp(text, "%%\n", 3) == 0) {
        line = text + 3;
        text[0] = '\0';
    } else {
        char *mark = strstr(text, "\n%%\n");
        if (!mark)
            return 0;
        line = mark + 4;
        mark[1] = '\0';
    }
    int n = 0;
    while (*line && n < FUZZ_MAX_OVERRIDES) {
        char *end = strchr(line, '\n');
        if (end)
            *end = '\0';
        ov[n].source = NULL; /* named as an -s argument */
        ov[n++].text = line;
        if (!end)
            break;
        line = end + 1;
    }
    return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > FUZZ_MAX_INPUT)
        return 0;
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0'; /* an embedded NUL ends the text, as it would end a C string */
    config_override ov[FUZZ_MAX_OVERRIDES];
    int n = split_overrides(text, ov);

    scenario *sc = malloc(sizeof *sc);
    scenario *again = malloc(sizeof *again);
    if (!sc || !again) {
        free(sc);
        free(again);
        free(text);
        return 0;
    }
    cn_error err = {0};
    int rc = config_load_string("fuzz.ini", text, ov, n, sc, &err);
    if (rc != CN_OK) {
        check_one_line_refusal(rc, &err);
    } else {
        char *first = config_dump_string(sc);
        if (first) {
            cn_error err2 = {0};
            int rc2 = config_load_string("fuzz.ini", first, NULL, 0, again, &err2);
            if (rc2 != CN_OK) {
                fprintf(stderr, "--- dump ---\n%s", first);
                broken("the dump of an accepted scenario is refused", err2.msg);
            }
            char *second = config_dump_string(again);
            if (second && strcmp(first, second) != 0) {
                fprintf(stderr, "--- first dump ---\n%s--- second dump ---\n%s", first, second);
                broken("dumping the dump gives another text", NULL);
            }
            free(second);
            free(first);
        }
    }
    free(again);
    free(sc);
    free(text);
    return 0;
}
