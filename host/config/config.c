/* Scenario loading: defaults, then the INI file through inih, then the -s overrides in order,
 * then the cross-key rules. The first error stops the load; its message names where the value
 * came from (file and line, or the -s argument), the section and key, and what is expected. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ini.h>

#include "common/files.h"
#include "config/config.h"
#include "config/config_internal.h"

/* Scenario files are a few dozen lines; anything this large is the wrong file. */
#define MAX_FILE_BYTES ((size_t)1 << 20)

/* ---- names: suggestions for typing mistakes ------------------------------------------ */

/* Optimal string alignment distance (Levenshtein plus adjacent transpositions, the most
 * common typo: "relay_dealy"). Names longer than 63 characters are never near a key. */
static int edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 63 || lb > 63)
        return 99;
    int d[64][64];
    for (size_t i = 0; i <= la; i++)
        d[i][0] = (int)i;
    for (size_t j = 0; j <= lb; j++)
        d[0][j] = (int)j;
    for (size_t i = 1; i <= la; i++) {
        for (size_t j = 1; j <= lb; j++) {
            int cost = a[i - 1] != b[j - 1];
            int best = d[i - 1][j - 1] + cost;
            if (d[i - 1][j] + 1 < best)
                best = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < best)
                best = d[i][j - 1] + 1;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                d[i - 2][j - 2] + 1 < best)
                best = d[i - 2][j - 2] + 1;
            d[i][j] = best;
        }
    }
    return d[la][lb];
}

/* How near WORD is to the known NAME: a small score, or -1 when it is not a likely typo. A
 * fragment of a long name ("drop" for drop_probability) counts as near too. */
int config_name_nearness(const char *word, const char *name)
{
    int allowed = (int)strlen(name) / 4 + 1;
    if (allowed > 3)
        allowed = 3;
    int d = edit_distance(word, name);
    if (d <= allowed)
        return d;
    if (strlen(word) >= 4 && strstr(name, word))
        return 4;
    return -1;
}

/* Nearest key to NAME: in SECTION when IN_SECTION, else in the other sections. */
static int nearest_key(const char *section, const char *name, int in_section)
{
    int best = -1, best_score = 99;
    for (int i = 0; i < config_key_count(); i++) {
        int k = config_key_in_order(i);
        if ((strcmp(config_key_at(k)->section, section) == 0) != in_section)
            continue;
        int s = config_name_nearness(name, config_key_at(k)->name);
        if (s >= 0 && s < best_score) {
            best = k;
            best_score = s;
        }
    }
    return best;
}

static void section_keys(const char *section, char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < config_key_count() && used < size; i++) {
        const config_key *k = config_key_at(config_key_in_order(i));
        if (strcmp(k->section, section) != 0)
            continue;
        int n = snprintf(buf + used, size - used, "%s%s", used ? ", " : "", k->name);
        if (n < 0)
            break;
        used += (size_t)n;
    }
}

static int fail_unknown_key(load_ctx *ctx, const char *section, const char *name,
                            const char *where)
{
    for (int i = 0; i < config_key_count(); i++) {
        const config_key *k = config_key_at(config_key_in_order(i));
        if (strcmp(k->name, name) == 0)
            return cn_fail(ctx->err, CN_ERR_INPUT,
                           "%s: [%s] unknown key '%.64s'; '%s' is a key of [%s], not of [%s]",
                           where, section, name, name, k->section, section);
    }
    int k = nearest_key(section, name, 1);
    if (k >= 0)
        return cn_fail(ctx->err, CN_ERR_INPUT, "%s: [%s] unknown key '%.64s'; did you mean '%s'?",
                       where, section, name, config_key_at(k)->name);
    k = nearest_key(section, name, 0);
    if (k >= 0)
        return cn_fail(ctx->err, CN_ERR_INPUT,
                       "%s: [%s] unknown key '%.64s'; did you mean '%s' of [%s]?", where, section,
                       name, config_key_at(k)->name, config_key_at(k)->section);
    char keys[512];
    section_keys(section, keys, sizeof keys);
    return cn_fail(ctx->err, CN_ERR_INPUT, "%s: [%s] unknown key '%.64s'; the keys of [%s] are: %s",
                   where, section, name, section, keys);
}

static int fail_unknown_section(load_ctx *ctx, const char *section, const char *name,
                                const char *where)
{
    const char *best = NULL;
    int best_score = 99;
    const char *const *sections = config_section_names();
    for (int i = 0; sections[i]; i++) {
        int s = config_name_nearness(section, sections[i]);
        if (s >= 0 && s < best_score) {
            best = sections[i];
            best_score = s;
        }
    }
    if (best)
        return cn_fail(ctx->err, CN_ERR_INPUT,
                       "%s: unknown section [%.64s] (key '%.64s'); did you mean [%s]?", where,
                       section, name, best);
    return cn_fail(ctx->err, CN_ERR_INPUT,
                   "%s: unknown section [%.64s] (key '%.64s'); expected one of: %s", where,
                   section, name, config_section_list());
}

/* ---- one key = value, from the file or from -s ----------------------------------------- */

/* ---- named sections ("traffic.flow NAME"): their option group's code sets their keys --- */

static int name_char(char c) { return isalnum((unsigned char)c) || c == '_' || c == '-'; }

int config_section_name(const char *section, const char *prefix, char name[CONFIG_NAME_MAX])
{
    if (strncmp(section, prefix, strlen(prefix)) != 0)
        return -1;
    const char *s = section + strlen(prefix);
    if (*s != ' ' && *s != '\t' && *s != '.')
        return -1;
    if (*s == '.')
        s++;
    else
        while (*s == ' ' || *s == '\t')
            s++;
    size_t n = strlen(s);
    if (n == 0 || n >= CONFIG_NAME_MAX)
        return -1;
    for (size_t i = 0; i < n; i++)
        if (!name_char(s[i]))
            return -1;
    memcpy(name, s, n + 1);
    return 0;
}

/* The named section SECTION is meant as (it starts with the prefix of one), or NULL. */
static const config_named_section *named_section(const char *section)
{
    for (int g = 0; g < config_group_count(); g++) {
        const model_config *group = config_group_at(g);
        for (int i = 0; i < group->n_named; i++)
            if (strncmp(section, group->named[i].prefix, strlen(group->named[i].prefix)) == 0)
                return &group->named[i];
    }
    return NULL;
}

/* Copies S without surrounding whitespace; inih keeps the spaces of "[ flood ]". */
static void copy_trimmed(char *dst, size_t size, const char *s, size_t len)
{
    while (len > 0 && isspace((unsigned char)*s)) {
        s++;
        len--;
    }
    while (len > 0 && isspace((unsigned char)s[len - 1]))
        len--;
    if (len >= size)
        len = size - 1;
    memcpy(dst, s, len);
    dst[len] = '\0';
}

static int assign(load_ctx *ctx, const char *raw_section, const char *name, const char *value,
                  const char *where, key_state origin)
{
    char section[64];
    copy_trimmed(section, sizeof section, raw_section, strlen(raw_section));
    if (section[0] == '\0')
        return cn_fail(ctx->err, CN_ERR_INPUT,
                       "%s: %.64s = %.200s is outside any section; expected a [section] line "
                       "before it (one of: %s)",
                       where, name, value, config_section_list());
    ctx->n_set++; /* (an error ends the load: only a success can count) */
    const config_named_section *named = named_section(section);
    if (named)
        return named->assign(ctx, section, name, value, where, origin);
    if (!config_section_known(section))
        return fail_unknown_section(ctx, section, name, where);
    if (name[0] == '\0')
        return cn_fail(ctx->err, CN_ERR_INPUT, "%s: [%s] '= %.200s' has no key name before '='",
                       where, section, value);
    int key = config_find_key(section, name);
    if (key < 0)
        return fail_unknown_key(ctx, section, name, where);
    /* Within one file a repeated key is almost always an editing mistake; an override
     * replacing a file value (or an earlier override) is the point of -s. */
    if (origin.origin == ORIGIN_FILE && ctx->keys[key].origin == ORIGIN_FILE)
        return cn_fail(ctx->err, CN_ERR_INPUT,
                       "%s: [%s] %s is set twice (first on line %d); keep only one of them", where,
                       section, name, ctx->keys[key].line);
    if (config_set_value(ctx, key, value, where) != 0)
        return CN_ERR_INPUT;
    ctx->keys[key] = origin;
    return 0;
}

/* ---- the INI text through inih ---------------------------------------------------------- */

/* The reader feeds inih one line per call and counts them, because Debian's inih does not
 * pass line numbers to the handler: inih calls the handler for a line before it reads the
 * next one, so LINENO is the line of the pair being handled. */
typedef struct ini_source {
    load_ctx *ctx;
    const char *pos, *end;  /* text not read yet */
    int lineno;             /* lines handed to inih */
    int long_line;          /* a line too long for inih's buffer (parsing stops there), or 0 */
    size_t long_len, max_len;
    cn_error first;         /* first error raised in the handler ... */
    int first_line;         /* ... and its line, 0 if none */
} ini_source;

/* A section line "[traffic.flow NAME]" makes a flow even when no key follows: inih calls the
 * handler only for keys, so the reader looks at section lines itself, as inih reads them (a
 * BOM on line 1, the name up to the first ']' unless a " ;" comment comes first). */
static int open_section(ini_source *src, const char *s, size_t len)
{
    if (src->lineno == 1 && len >= 3 && memcmp(s, "\xEF\xBB\xBF", 3) == 0) {
        s += 3;
        len -= 3;
    }
    if (len == 0 || s[0] != '[')
        return 0;
    size_t close = 1;
    while (close < len && s[close] != ']' &&
           !(s[close] == ';' && (s[close - 1] == ' ' || s[close - 1] == '\t')))
        close++;
    if (close >= len || s[close] != ']')
        return 0; /* inih reports the line */
    /* inih ignores whatever follows the ']': "[flood] relay_delay = 0.5" would run with the
     * default. Only a comment may follow. */
    size_t after = close + 1;
    while (after < len && (s[after] == ' ' || s[after] == '\t'))
        after++;
    if (after < len && s[after] != ';' && s[after] != '#') {
        char line[72];
        copy_trimmed(line, sizeof line, s, len);
        src->first_line = src->lineno;
        return cn_fail(&src->first, CN_ERR_INPUT,
                       "%s:%d: section line '%s%s' has text after ']'; expected nothing or a "
                       "comment (';' or '#') after the section name, and each key = value on "
                       "a line of its own",
                       src->ctx->name, src->lineno, line,
                       strlen(line) == sizeof line - 1 ? "..." : "");
    }
    char section[64], where[1100];
    copy_trimmed(section, sizeof section, s + 1, close - 1);
    snprintf(where, sizeof where, "%s:%d", src->ctx->name, src->lineno);
    key_state origin = {ORIGIN_FILE, src->lineno, NULL, NULL, ++src->ctx->seq};
    cn_error *caller = src->ctx->err;
    src->ctx->err = &src->first;
    const config_named_section *named = named_section(section);
    int rc = named && named->open ? named->open(src->ctx, section, where, origin) : 0;
    src->ctx->err = caller;
    if (rc != 0)
        src->first_line = src->lineno;
    return rc;
}

static char *read_line(char *str, int num, void *stream)
{
    ini_source *src = stream;
    if (src->first_line || src->pos >= src->end)
        return NULL; /* the first error is the cause; later lines would only add noise */
    const char *nl = memchr(src->pos, '\n', (size_t)(src->end - src->pos));
    const char *stop = nl ? nl : src->end, *s = src->pos;
    size_t len = (size_t)(stop - s);
    if (len > 0 && s[len - 1] == '\r')
        len--;
    /* inih documents its buffer as 3 more than the longest line ("\r\n\0"). A longer line
     * would be split silently by an fgets-style reader and its tail read as a new line. */
    size_t max_len = num > 3 ? (size_t)num - 3 : 0;
    if (len > max_len) {
        src->long_line = src->lineno + 1;
        src->long_len = len;
        src->max_len = max_len;
        return NULL;
    }
    /* Leading blanks are dropped: inih would otherwise read an indented line as the
     * continuation of the previous value (configparser style), turning "  seed = 2" into a
     * second value of the previous key. Values never span lines in a scenario. */
    while (len > 0 && (*s == ' ' || *s == '\t')) {
        s++;
        len--;
    }
    memcpy(str, s, len);
    str[len] = '\n';
    str[len + 1] = '\0';
    src->pos = nl ? nl + 1 : src->end;
    src->lineno++;
    if (open_section(src, s, len) != 0)
        return NULL;
    return str;
}

static int on_pair(void *user, const char *section, const char *name, const char *value)
{
    ini_source *src = user;
    char where[1100];
    snprintf(where, sizeof where, "%s:%d", src->ctx->name, src->lineno);
    key_state origin = {ORIGIN_FILE, src->lineno, NULL, NULL, ++src->ctx->seq};
    cn_error *caller = src->ctx->err;
    src->ctx->err = &src->first;
    int rc = assign(src->ctx, section, name, value, where, origin);
    src->ctx->err = caller;
    if (rc != 0) {
        src->first_line = src->lineno;
        return 0;
    }
    return 1;
}

/* Line LINENO (from 1) of TEXT, trimmed and shortened for a message. */
static void quote_line(const char *text, size_t len, int lineno, char *buf, size_t size)
{
    const char *s = text, *end = text + len;
    for (int i = 1; i < lineno && s < end; i++) {
        const char *nl = memchr(s, '\n', (size_t)(end - s));
        s = nl ? nl + 1 : end;
    }
    const char *nl = memchr(s, '\n', (size_t)(end - s));
    size_t n = (size_t)((nl ? nl : end) - s);
    char line[72];
    copy_trimmed(line, sizeof line, s, n);
    snprintf(buf, size, "%s%s", line, strlen(line) == sizeof line - 1 ? "..." : "");
}

/* inih reports a line it could not parse only by its number: say what is wrong with it. */
static int fail_syntax(load_ctx *ctx, const char *text, size_t len, int lineno)
{
    char line[96];
    quote_line(text, len, lineno, line, sizeof line);
    if (line[0] == '[')
        return cn_fail(ctx->err, CN_ERR_INPUT,
                       "%s:%d: section line '%s' has no closing ']'; expected '[section]'",
                       ctx->name, lineno, line);
    return cn_fail(ctx->err, CN_ERR_INPUT,
                   "%s:%d: '%s' is neither 'key = value' nor '[section]' nor a comment "
                   "(comments start with ';' or '#')",
                   ctx->name, lineno, line);
}

static int parse_text(load_ctx *ctx, const char *text, size_t len)
{
    ini_source src;
    memset(&src, 0, sizeof src);
    src.ctx = ctx;
    src.pos = text;
    src.end = text + len;
    int rc = ini_parse_stream(read_line, &src, on_pair, &src);
    /* an error of the reader (open_section) ends the text early: inih sees no error */
    if (src.first_line && (rc == 0 || rc == src.first_line))
        return cn_fail(ctx->err, src.first.code, "%s", src.first.msg);
    if (rc > 0)
        return fail_syntax(ctx, text, len, rc);
    if (rc < 0)
        return cn_fail(ctx->err, CN_ERR_RUNTIME, "%s: inih could not allocate its line buffer",
                       ctx->name);
    if (src.long_line)
        return cn_fail(ctx->err, CN_ERR_INPUT,
                       "%s:%d: line is %zu characters long; expected at most %zu characters per "
                       "line (the limit of inih)",
                       ctx->name, src.long_line, src.long_len, src.max_len);
    return 0;
}

/* ---- overrides --------------------------------------------------------------------------- */

static int apply_override(load_ctx *ctx, const config_override *ov)
{
    char where[400], section[64], name[64], value[512];
    const char *text = ov->text ? ov->text : "";
    if (ov->source)
        snprintf(where, sizeof where, "%.300s", ov->source);
    else
        snprintf(where, sizeof where, "-s argument '%.200s'", text);
    /* the key is after the last '.' before '=': section names may hold dots
     * ("mobility.group.walkers.speed_max=2"), key names never do */
    const char *eq = strchr(text, '=');
    const char *dot = NULL;
    for (const char *c = text; eq && c < eq; c++)
        if (*c == '.')
            dot = c;
    if (!dot || (size_t)(dot - text) >= sizeof section || (size_t)(eq - dot) > sizeof name)
        return cn_fail(ctx->err, CN_ERR_INPUT,
                       "%s: expected section.key=value, for example flood.ttl=3", where);
    if (strlen(eq + 1) >= sizeof value)
        return cn_fail(ctx->err, CN_ERR_INPUT, "%s: value is longer than %zu characters", where,
                       sizeof value - 1);
    copy_trimmed(section, sizeof section, text, (size_t)(dot - text));
    copy_trimmed(name, sizeof name, dot + 1, (size_t)(eq - dot - 1));
    copy_trimmed(value, sizeof value, eq + 1, strlen(eq + 1));
    if (section[0] == '\0' || name[0] == '\0')
        return cn_fail(ctx->err, CN_ERR_INPUT,
                       "%s: expected section.key=value, for example flood.ttl=3", where);
    key_state origin = {ORIGIN_OVERRIDE, 0, text, ov->source, ++ctx->seq};
    return assign(ctx, section, name, value, where, origin);
}

/* ---- loading ----------------------------------------------------------------------------- */

static int apply_defaults(load_ctx *ctx)
{
    for (int g = 0; g < config_group_count(); g++) {
        const model_config *group = config_group_at(g);
        int rc = config_check_values_size(group, ctx->err);
        if (rc != 0)
            return rc;
        size_t size = group->load_state_size;
        ctx->group_state[g] = size ? calloc(1, size) : NULL;
        /* at least one byte, so that a group without values still has a distinct block */
        ctx->group_values[g] = calloc(1, group->values_size ? group->values_size : 1);
        if ((size && !ctx->group_state[g]) || !ctx->group_values[g])
            return cn_fail(ctx->err, CN_ERR_RUNTIME, "%s: out of memory", ctx->name);
    }
    /* a named section's keys default to what its own code says, at the end (a flow's are
     * [traffic]'s) */
    for (int k = 0; k < config_key_count(); k++)
        if (config_key_at(k)->def && !config_is_named_key(k) &&
            config_set_value(ctx, k, config_key_at(k)->def, "built-in default") != 0)
            return CN_ERR_RUNTIME; /* a bug in a key table; test_config catches it */
    return 0;
}

/* A scenario file that sets nothing (empty, or only comments, blank lines and section lines)
 * is almost always the wrong file or one cut short: the defaults would run in its name. A key
 * set by -s says that the defaults are meant; so does a flow's section, which makes a flow. */
static int check_sets_something(const load_ctx *ctx)
{
    if (ctx->n_set > 0)
        return 0;
    for (int g = 0; g < config_group_count(); g++)
        if (config_group_at(g)->has_named && config_group_at(g)->has_named(ctx))
            return 0;
    return cn_fail(ctx->err, CN_ERR_INPUT,
                   "%s: the scenario file sets no key (it is empty or holds only comments, "
                   "blank lines and section lines); expected at least one key = value line, "
                   "or a -s override such as -s simulation.seed=1 to run the built-in defaults",
                   ctx->name);
}

static int load_text(const char *name, const char *text, size_t len, const char *path,
                     int need_key, const config_override *overrides, int n_overrides,
                     scenario *out, cn_error *err)
{
    load_ctx *ctx = calloc(1, sizeof *ctx);
    if (!ctx)
        return cn_fail(err, CN_ERR_RUNTIME, "%s: out of memory", name);
    ctx->name = name;
    ctx->err = err;
    int rc = 0;
    if (strlen(path) >= sizeof ctx->sc.path)
        rc = cn_fail(err, CN_ERR_INPUT, "%.200s...: path is longer than %zu characters", path,
                     sizeof ctx->sc.path - 1);
    if (rc == 0)
        rc = apply_defaults(ctx);
    if (rc == 0 && text)
        rc = parse_text(ctx, text, len);
    for (int i = 0; rc == 0 && i < n_overrides; i++)
        rc = apply_override(ctx, &overrides[i]);
    if (rc == 0 && need_key)
        rc = check_sets_something(ctx);
    if (rc == 0)
        rc = config_finish(ctx);
    if (rc == 0) {
        snprintf(ctx->sc.path, sizeof ctx->sc.path, "%s", path);
        memcpy(out, &ctx->sc, sizeof *out);
    }
    for (int g = 0; g < CONFIG_MAX_MODELS; g++) {
        free(ctx->group_state[g]);
        free(ctx->group_values[g]);
    }
    free(ctx);
    return rc;
}

int config_load_string(const char *name, const char *text, const config_override *overrides,
                       int n_overrides, scenario *out, cn_error *err)
{
    if (!name)
        name = "(string)";
    return load_text(name, text, text ? strlen(text) : 0, name, 0, overrides, n_overrides, out,
                     err);
}

/* Reads the whole file: inih then runs on memory, and a syntax error can quote its line. */
static int read_file(const char *path, char **text, size_t *len, cn_error *err)
{
    FILE *f = NULL;
    mode_t mode = 0;
    int e = file_open_regular(path, &f, &mode); /* a FIFO would block open() */
    if (e == EISDIR)
        return cn_fail(err, CN_ERR_INPUT, "%s: cannot read the scenario file: %s", path,
                       strerror(e));
    if (e < 0)
        return cn_fail(err, CN_ERR_INPUT, "%s: cannot read the scenario file: it is %s, not a "
                       "regular file", path, file_kind_name(mode));
    if (e)
        return cn_fail(err, CN_ERR_INPUT, "%s: cannot open the scenario file: %s", path,
                       strerror(e));
    char *buf = malloc(MAX_FILE_BYTES + 1);
    if (!buf) {
        fclose(f);
        return cn_fail(err, CN_ERR_RUNTIME, "%s: out of memory", path);
    }
    size_t n = fread(buf, 1, MAX_FILE_BYTES + 1, f);
    int read_errno = errno, failed = ferror(f);
    fclose(f);
    int rc = 0;
    if (failed)
        rc = cn_fail(err, CN_ERR_INPUT, "%s: cannot read the scenario file: %s", path,
                     strerror(read_errno));
    else if (n > MAX_FILE_BYTES)
        rc = cn_fail(err, CN_ERR_INPUT,
                     "%s: file is larger than %zu bytes; expected an INI scenario file", path,
                     MAX_FILE_BYTES);
    else if (memchr(buf, '\0', n)) {
        const char *nul = memchr(buf, '\0', n);
        int line = 1;
        for (const char *s = buf; s < nul; s++)
            line += *s == '\n';
        rc = cn_fail(err, CN_ERR_INPUT,
                     "%s:%d: contains a NUL byte; expected a text INI scenario file", path, line);
    }
    if (rc != 0) {
        free(buf);
        return rc;
    }
    buf[n] = '\0';
    *text = buf;
    *len = n;
    return 0;
}

int config_load(const char *path, const config_override *overrides, int n_overrides,
                scenario *out, cn_error *err)
{
    if (!path)
        return load_text("built-in defaults", NULL, 0, "", 0, overrides, n_overrides, out,
                         err);
    char *text = NULL;
    size_t len = 0;
    int rc = read_file(path, &text, &len, err);
    if (rc != 0)
        return rc;
    rc = load_text(path, text, len, path, 1, overrides, n_overrides, out, err);
    free(text);
    return rc;
}

/* ---- output ------------------------------------------------------------------------------ */

/* A path with a newline would end the comment line and inject INI text. */
static void print_sanitized(FILE *out, const char *s)
{
    for (; *s; s++)
        fputc(iscntrl((unsigned char)*s) ? '?' : *s, out);
}

/* Which sections a pass of config_dump writes. */
enum dump_pass { DUMP_SIMULATION, DUMP_MODEL, DUMP_CORE };

static int in_pass(const scenario *sc, const char *section, enum dump_pass pass)
{
    const char *owner = config_section_model(section);
    int simulation = strcmp(section, "simulation") == 0;
    switch (pass) {
    case DUMP_SIMULATION:
        return simulation;
    case DUMP_MODEL:
        return owner && strcmp(owner, sc->model) == 0;
    case DUMP_CORE:
        return !owner && !simulation;
    }
    return 0;
}

/* The sections of PASS in the registry's order, every key with its effective value; a
 * model's named sections and unusual lines as its group writes them. */
static void dump_pass(const scenario *sc, FILE *out, enum dump_pass pass)
{
    const char *section = "";
    for (int i = 0; i < config_key_count(); i++) {
        int k = config_key_in_order(i);
        const config_key *key = config_key_at(k);
        const model_config *group = config_key_group(k);
        char value[64];
        if (!in_pass(sc, key->section, pass))
            continue;
        if (config_is_named_key(k)) {
            if (group && group->dump_named)
                group->dump_named(sc, k, out);
            continue;
        }
        if (strcmp(section, key->section) != 0) {
            section = key->section;
            fprintf(out, "\n[%s]\n", section);
        }
        config_format_value(sc, k, value, sizeof value);
        if (!group || !group->dump_line || !group->dump_line(sc, k, value, out))
            fprintf(out, "%s = %s\n", key->name, value);
    }
}

/* [simulation], the sections of the scenario's model, the other core sections, then what its
 * group writes after them (a flood's flows). Another model's sections are left out: the
 * scenario may not set them. */
void config_dump(const scenario *sc, FILE *out)
{
    fprintf(out, "; clnetsim scenario: the effective configuration");
    if (sc->path[0]) {
        fprintf(out, " of ");
        print_sanitized(out, sc->path);
    }
    fprintf(out, "\n; Units: lengths in metres, times in seconds, speeds in m/s, sizes in "
                 "bytes.\n");
    dump_pass(sc, out, DUMP_SIMULATION);
    dump_pass(sc, out, DUMP_MODEL);
    dump_pass(sc, out, DUMP_CORE);
    const model_config *group = config_group_of(sc->model);
    if (group && group->dump_tail)
        group->dump_tail(sc, out);
}

char *config_dump_string(const scenario *sc)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return NULL;
    config_dump(sc, f);
    if (fclose(f) != 0) {
        free(text);
        return NULL;
    }
    return text;
}
