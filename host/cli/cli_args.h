/* Command-line helpers shared by the subcommands. */
#ifndef CLNETSIM_CLI_ARGS_H
#define CLNETSIM_CLI_ARGS_H

/* Option value: "--opt VALUE" or "--opt=VALUE" (NAME is the long form); NULL when missing. */
const char *cli_option_value(int argc, char **argv, int *i, const char *name);

/* ARG is the short form S (may be NULL) or the long form L, alone or as "L=VALUE". */
int cli_is_opt(const char *arg, const char *s, const char *l);

/* A whole number from LO to HI in TEXT; returns 0 and sets *OUT, or -1. */
int cli_parse_int(const char *text, long lo, long hi, long *out);

#endif
