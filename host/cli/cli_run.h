/* `clnetsim run`: options, device set-up, the run, the outputs. */
#ifndef CLNETSIM_CLI_RUN_H
#define CLNETSIM_CLI_RUN_H

int cli_run(int argc, char **argv);

#endif
