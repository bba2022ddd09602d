/* `clnetsim bench`, `clnetsim selftest` and `clnetsim tune`. */
#ifndef CLNETSIM_CLI_BENCH_H
#define CLNETSIM_CLI_BENCH_H

int cli_bench(int argc, char **argv);
int cli_selftest(int argc, char **argv);
int cli_tune(int argc, char **argv);

#endif
