/* SPDX-License-Identifier: MIT */
/* pmukit list [PATTERN] [--json]: the events this host understands, grouped by kind. */
#include "cmd.h"
#include "core/json.h"
#include "core/wprp.h"

#include <pmukit/pmukit.h>
#include <getopt.h>
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

/* perf list's category words; perf's "pmu" lists what pmukit calls cpu-specific. */
static const struct {
	const char *word;
	enum pmu_event_kind kind;
} categories[] = {
	{ "hw", PMU_EVENT_HARDWARE },	  { "hardware", PMU_EVENT_HARDWARE },
	{ "sw", PMU_EVENT_SOFTWARE },	  { "software", PMU_EVENT_SOFTWARE },
	{ "cache", PMU_EVENT_HW_CACHE },  { "hwcache", PMU_EVENT_HW_CACHE },
	{ "pmu", PMU_EVENT_RAW },	  { "tracepoint", PMU_EVENT_TRACEPOINT },
};

/* perf's categories pmukit has nothing for: said in a sentence, not searched. */
static const struct {
	const char *word, *why;
} absent[] = {
	{ "sdt", "pmukit has no SDT (USDT) events: it does not place uprobes; use 'perf list "
		 "sdt' and 'perf probe'" },
	{ "metric", "pmukit has no named metrics: 'pmukit stat' prints the derived ones (CPUs "
		    "utilized, IPC, miss ratios) next to the counts" },
	{ "metricgroup", "pmukit has no metric groups: 'pmukit stat' prints the derived "
			 "metrics (CPUs utilized, IPC, miss ratios) next to the counts" },
};

static void usage(FILE *f)
{
	fprintf(f, "usage: pmukit list [hw|sw|cache|pmu|tracepoint|PATTERN] [--json]\n"
		   "       pmukit list --windows-profile-source EVENT [--windows-model MODEL]\n\n"
		   "Lists the events pmukit understands on this host and whether each can be\n"
		   "counted here (with the reason when not).\n\n"
		   "  hw, sw, cache, pmu, tracepoint  one kind, as perf list takes them (also\n"
		   "            hardware, software, hwcache): generic hardware, software, cache,\n"
		   "            CPU- and PMU-specific (sysfs aliases, libpfm4), tracepoints\n"
		   "  PATTERN   case-insensitive glob (\"L1-*\", \"*miss*\") or substring (\"miss\")\n"
		   "  --json    {\"events\": [{name, pmu, kind, description, usable, reason}]}\n"
		   "  --windows-profile-source EVENT\n"
		   "            print the Windows 10 1903+ raw profile-source registration of a\n"
		   "            CPU-specific Intel event: the WPRP <MicroArchitecturalConfig>\n"
		   "            fragment and the registry form. EVENT is one of\n"
		   "              rNNNN                      raw event select (hex), no sysfs needed\n"
		   "              intel:event=0x3c,umask=0x00[,cmask=N][,inv][,edge][,any]\n"
		   "                   [,name=NAME][,interval=N]  explicit fields, no sysfs needed\n"
		   "              cpu/event=..,umask=../ or a libpfm4 name (needs the cpu PMU)\n"
		   "            ExtendedBits = CMask CMaskInvert AnyThread EdgeDetect, two hex\n"
		   "            digits each (\"01000100\": cmask=1,any)\n"
		   "  --windows-model MODEL  the <Model> registry key (exact CPU family/model)\n"
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

/* The kind a perf category word names; -1 when the word is a pattern. */
static int category(const char *word)
{
	for (size_t i = 0; word && i < sizeof(categories) / sizeof(categories[0]); i++)
		if (!strcmp(word, categories[i].word))
			return (int)categories[i].kind;
	return -1;
}

/* Keeps the events of one kind, in order; returns how many. */
static size_t keep_kind(struct pmu_event_info *v, size_t n, int kind)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		if ((int)v[i].kind == kind)
			v[k++] = v[i];
	return k;
}

static const char *absent_why(const char *word)
{
	for (size_t i = 0; word && i < sizeof(absent) / sizeof(absent[0]); i++)
		if (!strcmp(word, absent[i].word))
			return absent[i].why;
	return NULL;
}

/* --windows-profile-source: the WPRP fragment, then the registry form. */
static int print_profile_source(const char *event, const char *model)
{
	struct pmuk_wprp_source s;
	int ret = pmuk_wprp_from_spec(event, &s);

	if (ret)
		return tool_error("list", event, ret);
	printf("<!-- pmukit: %s as a raw profile source (Windows 10 1903+, system-global) -->\n",
	       event);
	if ((ret = pmuk_wprp_write_xml(stdout, &s)))
		return tool_error("list", "writing the WPRP fragment", ret);
	putchar('\n');
	if ((ret = pmuk_wprp_write_registry(stdout, &s, model)))
		return tool_error("list", "writing the registry form", ret);
	return 0;
}

struct list_args {
	const char *pattern, *wps, *model;
	int json;
};

static const struct option longopts[] = {
	{ "windows-profile-source", required_argument, NULL, 'w' },
	{ "windows-model", required_argument, NULL, 'm' },
	{ "json", no_argument, NULL, 'j' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* -1 to go on, else the exit status (0 after --help, 2 after a bad option). */
static int parse_args(int argc, char **argv, struct list_args *a)
{
	int opt;

	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		if (opt == 'w') {
			a->wps = optarg;
		} else if (opt == 'm') {
			a->model = optarg;
		} else if (opt == 'j') {
			a->json = 1;
		} else {
			return tool_help_or_bad_option(argv, opt, longopts, usage);
		}
	}
	if (optind < argc)
		a->pattern = argv[optind];
	if (optind + 1 < argc) {
		fprintf(stderr, "pmukit list: only one PATTERN may be given ('%s', '%s')\n",
			argv[optind], argv[optind + 1]);
		usage(stderr);
		return 2;
	}
	return -1;
}

int cmd_list(int argc, char **argv)
{
	struct list_args a = { 0 };
	struct pmu_event_info *v;
	const char *pattern, *why;
	int ret, kind;
	size_t n;

	if ((ret = parse_args(argc, argv, &a)) >= 0)
		return ret;
	pattern = a.pattern;
	if (a.wps)
		return print_profile_source(a.wps, a.model);
	if (a.model) {
		fprintf(stderr, "pmukit list: --windows-model goes with --windows-profile-source\n");
		return 2;
	}
	if ((why = absent_why(pattern)) != NULL) {
		/* --json stays JSON for its reader: no events, the sentence on stderr */
		if (a.json)
			print_json(NULL, 0);
		fprintf(a.json ? stderr : stdout, "no '%s' events: %s\n", pattern, why);
		return tool_flush_stdout("list", "the list");
	}
	kind = category(pattern);
	ret = pmu_event_catalog(kind < 0 ? pattern : NULL, &v, &n);
	if (ret)
		return tool_error("list", "listing events", ret);
	if (kind >= 0)
		n = keep_kind(v, n, kind);
	if (a.json)
		print_json(v, n);
	else if (!n)
		printf("no event matches '%s'\n", pattern ? pattern : "");
	else
		print_text(v, n);
	pmu_event_catalog_free(v);
	return tool_flush_stdout("list", "the list");
}
