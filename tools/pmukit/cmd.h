/* SPDX-License-Identifier: MIT */
#ifndef PMUKIT_TOOL_CMD_H
#define PMUKIT_TOOL_CMD_H

#include <stdio.h>

struct option;

/* One function per verb, each in its own cmd_<verb>.c. argv[0] is the verb.
 * A verb returns the process exit status. */
int cmd_stat(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_caps(int argc, char **argv);
int cmd_topo(int argc, char **argv);
int cmd_numa(int argc, char **argv);
int cmd_etl(int argc, char **argv);
int cmd_addr2line(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_cpustat(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_script(int argc, char **argv);
int cmd_exporter(int argc, char **argv);

/* For verbs whose only options are --json and --help: -1 to go on (with *json
 * set), else the exit status to return (0 after --help, 2 after a bad option). */
int tool_json_option(int argc, char **argv, void (*usage)(FILE *f), int *json);

/* Options: every verb calls getopt_long with opterr 0 and a shortopts string that
 * starts with ':' (after any '+'); on its '?' or ':' this says what was wrong in
 * the same words for every verb ("pmukit VERB: unknown option '--x'", "option '-e'
 * needs an argument", an ambiguous prefix and what it could be) and returns 2. The
 * verb then shows its usage or a hint. argv[0] is the verb. */
int tool_bad_option(char **argv, int opt, const struct option *longopts);

/* The end of a verb's getopt_long loop: -h/--help shows usage on stdout and is 0;
 * anything else is tool_bad_option's, with usage on stderr, and 2. */
int tool_help_or_bad_option(char **argv, int opt, const struct option *longopts,
			    void (*usage)(FILE *f));

/* A word a verb that takes no operands was given ("pmukit caps x"): says
 * "pmukit VERB: unexpected argument 'x'" and returns 2. */
int tool_bad_operand(char **argv, const char *word);

/* The exit status a shell gives for a command's wait status (pmu_command_wait):
 * its exit code, or 128 + the signal that killed it (POSIX); on Windows the exit
 * code as is. */
int tool_exit_status(int wait_status);

/* Prints "pmukit VERB: what failed: pmu_strerror(err): detail" to stderr; returns 1. */
int tool_error(const char *verb, const char *what, int err);
/* Flushes stdout: a write that failed (a full disk, a closed pipe) is said, naming
 * what was written, and is exit status 1; else 0. verb NULL: pmukit itself. */
int tool_flush_stdout(const char *verb, const char *what);
/* f is written by this thread only: glibc is told not to lock it for every
 * character once the symbolizer's reader threads exist (no-op elsewhere). */
void tool_single_writer(FILE *f);

#endif
