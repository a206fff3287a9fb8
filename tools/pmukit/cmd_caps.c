/* SPDX-License-Identifier: MIT */
/* pmukit caps: what this host can and cannot measure, why, and what to do about it. */
#include "cmd.h"

#include <pmukit/caps.h>
#include <stdio.h>
#include <string.h>

static void usage(FILE *f)
{
	fprintf(f, "usage: pmukit caps [--json] [--help]\n\n"
		"For each concern (1 scalar counting, 2 sampling + stacks, 3 precise data-source\n"
		"sampling, 4 code-space decode, 5 event space & tracing, 6 NUMA & topology,\n"
		"7 event naming & encoding, 8 OS CPU counters) prints available, limited or\n"
		"unavailable, the reason, what to do, and the facts behind the answer.\n\n"
		"  --json   one JSON object: host, concerns[{id,name,status,reason,remedy}], facts[]\n"
		"  --help   this text\n\n"
		"Exit status: 0 when the probe ran (whatever it found), 1 on internal failure.\n");
}

int cmd_caps(int argc, char **argv)
{
	struct pmu_caps *caps;
	int json = 0, err;

	if ((err = tool_json_option(argc, argv, usage, &json)) >= 0)
		return err;
	err = pmu_caps_probe(&caps);
	if (err)
		return tool_error("caps", "probing this host", err);
	err = json ? pmu_caps_write_json(caps, stdout, PMU_JSON_PRETTY)
		   : pmu_caps_write_text(caps, stdout);
	pmu_caps_free(caps);
	if (err)
		return tool_error("caps", "writing the matrix", err);
	return tool_flush_stdout("caps", "the matrix");
}
