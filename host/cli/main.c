#include <signal.h>

#include "cli/cli.h"

int main(int argc, char **argv)
{
    /* A file-size limit (ulimit -f) would kill the process in the middle of writing a result,
     * leaving its temporary file behind; ignored, the write fails with EFBIG instead and the
     * output code reports it and removes the temporary file. */
    signal(SIGXFSZ, SIG_IGN);
    return cli_main(argc, argv);
}
