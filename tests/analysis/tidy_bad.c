/* A program with two defects on purpose: the clang-tidy test runs the checks on it first, to
 * show that they do report a finding (and fail the test) when there is one. */
#include <stdlib.h>

int main(int argc, char **argv)
{
    int *value = NULL;
    if (argc > 1)
        value = malloc(sizeof *value);
    *value = atoi(argv[0]); /* a null dereference (argc <= 1), and atoi, which cannot fail */
    int rc = *value;
    free(value);
    return rc;
}
