/* SPDX-License-Identifier: MIT */
/* PLACEHOLDER: being written; replaced before this verb ships. */
#include "cmd.h"
#include <stdio.h>

int cmd_list(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "pmukit list: pending\n");
	return 1;
}
