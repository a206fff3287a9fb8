/* SPDX-License-Identifier: MIT */
/* pmukit numa: which NUMA node holds the pages of a process (pmu_memory_query), per
 * address, or every mapping of the process summarised by node as numastat -p does. */
#include "cmd.h"
#include "numa_maps.h"

#include "core/json.h"
#include "core/num.h"

#include <pmukit/pmukit.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *f)
{
	fprintf(f, "usage: pmukit numa -p PID [--json] ADDR...\n"
		   "       pmukit numa -p PID --maps [--max-pages N] [--json]\n\n"
		   "Says which NUMA node holds the page of each address of process PID, or why\n"
		   "no node can be given (not present, not mapped, no permission, process gone).\n"
		   "Linux asks move_pages(2) in query mode: another user's process needs\n"
		   "CAP_SYS_NICE. Windows asks QueryWorkingSetEx.\n\n"
		   "  -p, --pid PID      the process (0: pmukit itself)\n"
		   "  --maps             every mapping of /proc/PID/maps with its pages per node,\n"
		   "                     not present and not mapped (numastat -p per mapping);\n"
		   "                     named by path, [heap], [stack] or [anon] (Linux only)\n"
		   "  --max-pages N      query at most N pages of one mapping (default %u); a\n"
		   "                     larger mapping is sampled evenly and marked so\n"
		   "  --json             one JSON object\n"
		   "  --help             this text\n\n"
		   "ADDR: a number (0x... hex, else decimal).\n", NUMA_MAX_PAGES_DEFAULT);
}

static int query_addrs(int pid, char **words, int n, int json)
{
	uint64_t *addrs = calloc((size_t)n, sizeof(*addrs));
	struct pmu_page_node *ans = calloc((size_t)n, sizeof(*ans));
	struct pmuk_json j;
	int err = 0;

	if (!addrs || !ans) {
		free(addrs);
		free(ans);
		fprintf(stderr, "pmukit numa: out of memory for %d addresses\n", n);
		return 1;
	}
	for (int i = 0; i < n && !err; i++) {
		if (pmuk_parse_u64(words[i], 0, &addrs[i])) {
			fprintf(stderr, "pmukit numa: '%s' is not an address (0x... or decimal)\n",
				words[i]);
			err = 2;
		}
	}
	if (!err && (err = pmu_memory_query(pid, addrs, (size_t)n, ans)) != 0)
		err = tool_error("numa", "querying the pages", err);
	if (!err && json) {
		pmuk_json_init(&j, stdout, 1);
		pmuk_json_obj_begin(&j, NULL);
		pmuk_json_int(&j, "pid", pid);
		pmuk_json_arr_begin(&j, "addresses");
		for (int i = 0; i < n; i++) {
			char hex[24];

			snprintf(hex, sizeof(hex), "0x%llx", (unsigned long long)addrs[i]);
			pmuk_json_obj_begin(&j, NULL);
			pmuk_json_str(&j, "address", hex);
			if (ans[i].state == PMU_PAGE_ON_NODE)
				pmuk_json_int(&j, "node", ans[i].node);
			else
				pmuk_json_null(&j, "node");
			pmuk_json_str(&j, "state", pmu_page_state_name(ans[i].state));
			pmuk_json_obj_end(&j);
		}
		pmuk_json_arr_end(&j);
		pmuk_json_obj_end(&j);
		pmuk_json_finish(&j);
	} else if (!err) {
		for (int i = 0; i < n; i++) {
			printf("0x%-16llx ", (unsigned long long)addrs[i]);
			if (ans[i].state == PMU_PAGE_ON_NODE)
				printf("node %d\n", ans[i].node);
			else
				printf("%s\n", pmu_page_state_name(ans[i].state));
		}
	}
	free(addrs);
	free(ans);
	return err ? err : tool_flush_stdout("numa", "the answers");
}

int cmd_numa(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "pid", required_argument, NULL, 'p' },
		{ "maps", no_argument, NULL, 'M' },
		{ "max-pages", required_argument, NULL, 'N' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	long pid = -1, max_pages = NUMA_MAX_PAGES_DEFAULT;
	int json = 0, maps = 0, opt;

	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, ":p:h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'p':
			if (pmuk_parse_long(optarg, 10, 0, 0x7fffffff, &pid)) {
				fprintf(stderr, "pmukit numa: -p '%s' is not a process id\n", optarg);
				return 2;
			}
			break;
		case 'M':
			maps = 1;
			break;
		case 'N':
			if (pmuk_parse_long(optarg, 10, 1, 1L << 30, &max_pages)) {
				fprintf(stderr, "pmukit numa: --max-pages '%s' is not a number "
					"from 1 to %ld\n", optarg, 1L << 30);
				return 2;
			}
			break;
		case 'j':
			json = 1;
			break;
		default:
			return tool_help_or_bad_option(argv, opt, longopts, usage);
		}
	}
	if (pid < 0) {
		fprintf(stderr, "pmukit numa: which process? give -p PID\n");
		usage(stderr);
		return 2;
	}
	if (maps) {
		if (optind < argc)
			return tool_bad_operand(argv, argv[optind]);
		return numa_maps_run((int)pid, (size_t)max_pages, json);
	}
	if (optind >= argc) {
		fprintf(stderr, "pmukit numa: give addresses to query, or --maps\n");
		return 2;
	}
	return query_addrs((int)pid, argv + optind, argc - optind, json);
}
