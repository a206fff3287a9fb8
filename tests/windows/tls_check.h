/* SPDX-License-Identifier: MIT */
/* The result lines of the Windows test programs (tls_loop.c, tls_der.c): one "ok
 * NAME" or "not ok NAME: why" a line, flushed at once (a crash keeps what came
 * before); fails counts the "not ok" ones, the program's exit status. */
#ifndef PMUKIT_TESTS_WINDOWS_TLS_CHECK_H
#define PMUKIT_TESTS_WINDOWS_TLS_CHECK_H
#include <stdio.h>

static int fails;

static void check(int ok, const char *name, const char *why)
{
	if (ok)
		printf("ok %s\n", name);
	else
		printf("not ok %s: %s\n", name, why), fails++;
	fflush(stdout);
}
#endif
