/* The phold_oracle command line, apart from main() so that the tests can run it on a scenario
 * built in code (a LOAD function of their own in place of config_load). */
#ifndef CLNETSIM_PHOLD_ORACLE_CLI_H
#define CLNETSIM_PHOLD_ORACLE_CLI_H
#include "config/config.h"
#include "oracle/phold_oracle.h"

typedef int (*phold_scenario_loader)(const char *path, const config_override *overrides,
                                     int n_overrides, scenario *out, cn_error *err);


/* phold_oracle FILE.ini [-s section.key=value]... [--json OUT.json]: returns the exit status
 * (0 ok, 1 the run or the writing failed, 2 bad input). */
int phold_oracle_cli(int argc, char **argv, phold_scenario_loader load);

#endif
