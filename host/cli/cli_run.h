/* `clnetsim run` and `clnetsim resume`: options, device set-up, the run, the outputs. */
#ifndef CLNETSIM_CLI_RUN_H
#define CLNETSIM_CLI_RUN_H

int cli_run(int argc, char **argv);
/* `clnetsim resume FILE.ckpt`: the run saved in a checkpoint, continued to its end. */
int cli_resume(int argc, char **argv);

#endif
