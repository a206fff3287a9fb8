/* SPDX-License-Identifier: MIT */
/* pmukit list [PATTERN] [--json]: the events this host understands, grouped by kind. */
#include "cmd.h"
#include "core/json.h"

#include <pmukit/pmukit.h>
#include <stdio.h>
#include <string.h>

static const char *const kind_names[] = {
	[PMU_EVENT_HARDWARE] = "hardware",
	[PMU_EVENT_SOFTWARE] = "software",
	[PMU_EVENT_HW_CACHE] = "cache",
	[PMU_EVENT_RAW] = "cpu-specific",
	[PMU_EVENT_TRACEPOINT] = "tracepoint",
};
static const char *const kind_titles[] = {
	[PMU_EVENT_HARDWARE] = "Generic hardware events",
	[PMU_EVENT_SOFTWARE] = "Software events",
	[PMU_EVENT_HW_CACHE] = "Generic cache events",
	[PMU_EVENT_RAW] = "CPU- and PMU-specific events (sysfs aliases, libpfm4)",
	[PMU_EVENT_TRACEPOINT] = "Tracepoints",
};

static void usage(FILE *f)
{
	fprintf(f, "usage: pmukit list [PATTERN] [--json]\n\n"
		   "Lists the events pmukit understands on this host and whether each can be\n"
		   "counted here (with the reason when not).\n\n"
		   "  PATTERN   case-insensitive glob (\"L1-*\", \"*miss*\") or substring (\"cache\")\n"
		   "  --json    {\"events\": [{name, pmu, kind, description, usable, reason}]}\n"
		   "  --help    this text\n");
}

/* A reason shared by consecutive events is spelled out once, then referred to. */
static void print_text(const struct pmu_event_info *v, size_t n)
{
	const char *said = NULL;
	int last = -1;

	for (size_t i = 0; i < n; i++) {
		const struct pmu_event_info *e = &v[i];

		if ((int)e->kind != last) {
			printf("%s%s:\n", last < 0 ? "" : "\n", kind_titles[e->kind]);
			last = (int)e->kind;
		}
		printf("  %-32s", e->name);
		if (e->pmu[0])
			printf(" [%s]", e->pmu);
		if (e->desc[0])
			printf(" %s", e->desc);
		if (!e->usable && said && !strcmp(said, e->reason)) {
			printf(" (not usable here: as above)");
		} else if (!e->usable) {
			printf(" (not usable here: %s)", e->reason);
			said = e->reason;
		}
		putchar('\n');
	}
}

static void print_json(const struct pmu_event_info *v, size_t n)
{
	struct pmuk_json j;

	pmuk_json_init(&j, stdout, 1);
	pmuk_json_obj_begin(&j, NULL);
	pmuk_json_arr_begin(&j, "events");
	for (size_t i = 0; i < n; i++) {
		pmuk_json_obj_begin(&j, NULL);
		pmuk_json_str(&j, "name", v[i].name);
		pmuk_json_str(&j, "pmu", v[i].pmu);
		pmuk_json_str(&j, "kind", kind_names[v[i].kind]);
		pmuk_json_str(&j, "description", v[i].desc);
		pmuk_json_bool(&j, "usable", v[i].usable);
		if (v[i].usable)
			pmuk_json_null(&j, "reason");
		else
			pmuk_json_str(&j, "reason", v[i].reason);
		pmuk_json_obj_end(&j);
	}
	pmuk_json_arr_end(&j);
	pmuk_json_obj_end(&j);
	pmuk_json_finish(&j);
}

int cmd_list(int argc, char **argv)
{
	const char *pattern = NULL;
	struct pmu_event_info *v;
	int json = 0, ret;
	size_t n;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			usage(stdout);
			return 0;
		} else if (!strcmp(argv[i], "--json")) {
			json = 1;
		} else if (argv[i][0] == '-' && argv[i][1]) {
			fprintf(stderr, "pmukit list: unknown option '%s'\n", argv[i]);
			usage(stderr);
			return 2;
		} else if (pattern) {
			fprintf(stderr, "pmukit list: only one PATTERN may be given ('%s', '%s')\n",
				pattern, argv[i]);
			usage(stderr);
			return 2;
		} else {
			pattern = argv[i];
		}
	}
	ret = pmu_event_catalog(pattern, &v, &n);
	if (ret)
		return tool_error("list", "listing events", ret);
	if (json)
		print_json(v, n);
	else if (!n)
		printf("no event matches '%s'\n", pattern ? pattern : "");
	else
		print_text(v, n);
	pmu_event_catalog_free(v);
	return 0;
}
