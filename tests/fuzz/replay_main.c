/* Runs the fuzz target on files, for builds without libFuzzer (any compiler): each argument
 * is a file or a folder of files. The regression inputs of tests/fuzz/regressions and the
 * seed corpus (scenarios/) go through it in every build, the sanitizer build included. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "replay: cannot open %s\n", path);
        return 1;
    }
    size_t cap = 4096, len = 0;
    uint8_t *buf = malloc(cap);
    size_t got;
    while (buf && (got = fread(buf + len, 1, cap - len, f)) > 0) {
        len += got;
        if (len == cap) {
            uint8_t *grown = realloc(buf, cap * 2);
            if (!grown) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = grown;
            cap *= 2;
        }
    }
    fclose(f);
    if (!buf) {
        fprintf(stderr, "replay: out of memory reading %s\n", path);
        return 1;
    }
    fprintf(stderr, "replay: %s\n", path); /* names the input should it abort */
    LLVMFuzzerTestOneInput(buf, len);
    free(buf);
    return 0;
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The files of folder DIR in name order, so that a failure names the same file every time. */
static int run_folder(const char *dir, int *count)
{
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(stderr, "replay: cannot open the folder %s\n", dir);
        return 1;
    }
    char **names = NULL;
    size_t n = 0;
    struct dirent *e;
    int rc = 0;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char **grown = realloc(names, (n + 1) * sizeof *names);
        if (!grown || !(grown[n] = strdup(e->d_name))) {
            names = grown ? grown : names;
            rc = 1;
            break;
        }
        names = grown;
        n++;
    }
    closedir(d);
    if (n > 1) /* an empty folder has no list at all */
        qsort(names, n, sizeof *names, compare_names);
    for (size_t i = 0; i < n; i++) {
        char path[4096];
        struct stat st;
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        if (rc == 0 && stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
            rc = run_file(path);
            (*count)++;
        }
        free(names[i]);
    }
    free(names);
    return rc;
}

int main(int argc, char **argv)
{
    int count = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0) {
            fprintf(stderr, "replay: no such file or folder: %s\n", argv[i]);
            return 1;
        }
        int rc = S_ISDIR(st.st_mode) ? run_folder(argv[i], &count) : run_file(argv[i]);
        if (!S_ISDIR(st.st_mode))
            count++;
        if (rc)
            return rc;
    }
    if (count == 0) {
        fprintf(stderr, "replay: no input files\n");
        return 1;
    }
    printf("replay: %d inputs, no failure\n", count);
    return 0;
}
