/* SPDX-License-Identifier: MIT */
/* Every verb parses its options with getopt_long; this says what was wrong with one
 * in the same words for all of them. */
#include "cmd.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>
#ifndef _WIN32
#include <sys/wait.h>
#endif

/* getopt_long's '?' for a prefix of several long options (--per): says which, 1. */
static int ambiguous(const char *verb, const char *arg, const struct option *longopts)
{
	size_t len = strcspn(arg, "="), n = 0;

	for (const struct option *o = longopts; o->name; o++)
		n += !strncmp(o->name, arg, len);
	if (n < 2)
		return 0;
	fprintf(stderr, "pmukit %s: option '--%.*s' is ambiguous; it could be", verb, (int)len,
		arg);
	for (const struct option *o = longopts; o->name; o++)
		if (!strncmp(o->name, arg, len))
			fprintf(stderr, " --%s", o->name);
	fputc('\n', stderr);
	return 1;
}

/* The option "--NAME=..." names (exact, or a unique prefix as getopt_long takes it),
 * or NULL. */
static const struct option *named(const char *arg, const struct option *longopts)
{
	size_t len = strcspn(arg, "=");
	const struct option *hit = NULL;
	int n = 0;

	for (const struct option *o = longopts; o->name; o++) {
		if (strncmp(o->name, arg, len))
			continue;
		if (strlen(o->name) == len)
			return o;
		hit = o;
		n++;
	}
	return n == 1 ? hit : NULL;
}

/* getopt's own messages would say "pmukit: ..." without the verb: ours name it.
 * optopt is 0 for an unknown long option, the option's letter otherwise. */
int tool_bad_option(char **argv, int opt, const struct option *longopts)
{
	const char *verb = argv[0], *arg = argv[optind - 1];
	int is_long = !strncmp(arg, "--", 2);
	const char *eq = is_long ? strchr(arg, '=') : NULL;
	const struct option *o = eq ? named(arg + 2, longopts) : NULL;

	/* A bad letter inside a cluster (-Zq) leaves optind on it, so argv[optind - 1]
	 * is the argument before: "--event=x -Zq" is about -Z, not --event (which
	 * takes its value). Only a flag given a value is this option's fault. */
	if (eq && optopt && o && o->has_arg != no_argument) {
		eq = NULL;
		is_long = 0;
	}

	/* a value given to a flag (--json=1): glibc says '?' with optopt set,
	 * mingw-w64's BSD getopt_long ':'; both read the same here */
	if (eq && (opt == ':' || optopt))
		fprintf(stderr, "pmukit %s: option '%.*s' takes no argument\n", verb,
			(int)(eq - arg), arg);
	else if (opt == ':')
		fprintf(stderr, "pmukit %s: option '%s' needs an argument\n", verb,
			is_long ? arg : (char[]){ '-', (char)optopt, 0 });
	else if (!optopt && is_long && ambiguous(verb, arg + 2, longopts))
		;
	else if (!optopt)
		fprintf(stderr, "pmukit %s: unknown option '%s'\n", verb, arg);
	else
		fprintf(stderr, "pmukit %s: unknown option '-%c'\n", verb, optopt);
	return 2;
}

int tool_help_or_bad_option(char **argv, int opt, const struct option *longopts,
			    void (*usage)(FILE *f))
{
	if (opt == 'h') {
		usage(stdout);
		return 0;
	}
	tool_bad_option(argv, opt, longopts);
	usage(stderr);
	return 2;
}

int tool_exit_status(int wait_status)
{
#ifdef _WIN32
	return wait_status;	/* the exit code itself, NTSTATUS codes included */
#else
	if (WIFEXITED(wait_status))
		return WEXITSTATUS(wait_status);
	if (WIFSIGNALED(wait_status))
		return 128 + WTERMSIG(wait_status);
	return 1;
#endif
}

int tool_bad_operand(char **argv, const char *word)
{
	fprintf(stderr, "pmukit %s: unexpected argument '%s'\n", argv[0], word);
	return 2;
}
