/* SPDX-License-Identifier: MIT */
/* PLACEHOLDER: being written; replaced before this verb ships. */
#include "cmd.h"
#include <stdio.h>

int cmd_caps(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "pmukit caps: pending\n");
	return 1;
}
