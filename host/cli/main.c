#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_args.h"
#include "common/error.h"
#include "dist/dist.h"

/* Standard output is flushed and closed here, once for every command: a write that failed
 * (a full disk under a redirect, /dev/full) would otherwise end in status 0 with the output
 * lost. stdio keeps a failed write's data in its buffer, so the final fflush fails again and
 * gives the reason. Status 0 becomes 1 (a system failure); any other status is kept. */
static int close_stdout(int rc)
{
    errno = 0;
    int failed = fflush(stdout) != 0 || ferror(stdout);
    int e = failed ? (cli_stdout_errno() ? cli_stdout_errno() : errno ? errno : EIO) : 0;
    if (fclose(stdout) != 0 && !failed) {
        failed = 1;
        e = errno ? errno : EIO;
    }
    if (!failed)
        return rc;
    fprintf(stderr, "clnetsim: error: cannot write to standard output: %s\n", strerror(e));
    return rc == CN_OK ? CN_ERR_RUNTIME : rc;
}

int main(int argc, char **argv)
{
    /* A file-size limit (ulimit -f) would kill the process in the middle of writing a result,
     * leaving its temporary file behind; ignored, the write fails with EFBIG instead and the
     * output code reports it and removes the temporary file. */
    signal(SIGXFSZ, SIG_IGN);
    /* MPI first, when a launcher started the process (dist.h): it may take its own arguments
     * off the command line */
    cn_error err = {0};
    if (dist_init(&argc, &argv, &err) != 0) {
        fprintf(stderr, "clnetsim: error: %s\n", err.msg);
        dist_finalize();
        return close_stdout(err.code);
    }
    int rc = cli_main(argc, argv);
    dist_finalize();
    return close_stdout(rc);
}
