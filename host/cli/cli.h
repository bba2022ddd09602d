/* Command line: subcommands run, devices, keys; --help for each; --version. */
#ifndef CLNETSIM_CLI_H
#define CLNETSIM_CLI_H

/* Runs the command line and returns the process exit status (common/error.h). */
int cli_main(int argc, char **argv);

#endif
