/* A program that leaks one block and reads uninitialised memory on purpose: the valgrind
 * test runs it first to show that its checker does report such errors in the program's
 * own code. */
#include <stdio.h>
#include <stdlib.h>

int main(void)
{
    int *lost = malloc(64 * sizeof *lost);
    if (!lost)
        return 1;
    if (lost[3] > 0) /* uninitialised, on purpose */
        puts("positive");
    lost = NULL; /* the block is now lost */
    return lost != NULL;
}
