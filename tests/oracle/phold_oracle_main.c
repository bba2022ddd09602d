/* phold_oracle FILE.ini [-s section.key=value]... [--json OUT.json]: see phold_oracle_cli.c. */
#include "phold_oracle_cli.h"

int main(int argc, char **argv) { return phold_oracle_cli(argc, argv, config_load); }
