/* SPDX-License-Identifier: MIT */
/* The hardware test program: runs every case against the host's core PMU, or skips
 * (exit 77) saying why when there is none. `pmukit_hwtest --loop N` only runs the
 * known loop (the workload of the command tests). */
#include "hwtest.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct hw_env hw;
static int npass, nfail, nskip;

static void line(const char *tag, const char *name, const char *fmt, va_list *ap)
{
	char why[1024] = "";

	if (fmt)
		vsnprintf(why, sizeof(why), fmt, *ap);
	/* One line per case: the host parses the log line by line. */
	for (char *nl = strchr(why, '\n'); nl; nl = strchr(nl, '\n'))
		*nl = ' ';
	printf("%s - %s%s%s\n", tag, name, fmt ? ": " : "", why);
	fflush(stdout);
}

int hw_ok(const char *name)
{
	npass++;
	line("ok", name, NULL, NULL);
	return 0;
}

int hw_fail(const char *name, const char *fmt, ...)
{
	va_list ap;

	nfail++;
	va_start(ap, fmt);
	line("FAIL", name, fmt, &ap);
	va_end(ap);
	return 0;
}

int hw_skip(const char *name, const char *fmt, ...)
{
	va_list ap;

	nskip++;
	va_start(ap, fmt);
	line("skip", name, fmt, &ap);
	va_end(ap);
	return 0;
}

void hw_note(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

/* The NUMA case list: `pmukit_hwtest --numa`, run by the second (2-node) boot of
 * make hwtest. A case is an int (*)(void) reporting through hw_ok/hw_fail/hw_skip;
 * add one with one line here. */
static int (*const numa_cases[])(void) = {
	hw_numa_pmu,
	hw_numa_place,
	hw_numa_record,
};

static const char *find_pmukit(void)
{
	static char path[PATH_MAX];
	const char *env = getenv("PMUKIT");
	char *slash;

	if (env && *env)
		return env;
	/* Native build: <build>/tests/hw/pmukit_hwtest next to <build>/pmukit. */
	snprintf(path, sizeof(path), "%s", hw.self);
	slash = strrchr(path, '/');
	if (slash) {
		*slash = '\0';
		strncat(path, "/../../pmukit", sizeof(path) - strlen(path) - 1);
		if (access(path, X_OK) == 0)
			return path;
	}
	return "pmukit";
}

int main(int argc, char **argv)
{
	static char self[PATH_MAX];
	const char *ex = getenv("HWTEST_EXACT");
	ssize_t len;
	int n;

	if (argc == 3 && !strcmp(argv[1], "--loop")) {
		known_loop(strtoull(argv[2], NULL, 0));
		return 0;
	}
	len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (len <= 0)
		snprintf(self, sizeof(self), "%s", argv[0]);
	else
		self[len] = '\0';
	hw.self = self;
	hw.pmukit = find_pmukit();
	hw.exact = ex && !strcmp(ex, "1");
	n = pmu_device_core_list(&hw.core, 1);
	if (argc == 2 && !strcmp(argv[1], "--numa")) {
		/* The NUMA cases need no core PMU (hw.core is zeroed without one). */
		for (size_t i = 0; i < sizeof(numa_cases) / sizeof(numa_cases[0]); i++)
			numa_cases[i]();
		printf("%d passed, %d failed, %d skipped\n", npass, nfail, nskip);
		fflush(stdout);
		return nfail ? 1 : 0;
	}
	if (n <= 0) {
		hw_skip("all", "no hardware PMU on this host (pmu_device_core_list() == 0: "
			"/sys/bus/event_source/devices lists no core PMU); `make hwtest` runs "
			"these tests in an arm64 guest with an emulated PMU");
		printf("0 passed, 0 failed, 1 skipped\n");
		return 77;
	}
	hw.counters = hw.core.gp_counters >= 0 && hw.core.fixed_counters >= 0
		      ? hw.core.gp_counters + hw.core.fixed_counters : -1;
	hw_note("core PMU %s (type %u), counters %d, %s mode, pmukit %s", hw.core.name,
		hw.core.type, hw.counters, hw.exact ? "exact" : "approximate", hw.pmukit);

	hw_test_count();
	hw_test_pinned();
	hw_test_userread();
	hw_test_sampling();
	hw_test_command();
	hw_test_record();

	printf("%d passed, %d failed, %d skipped\n", npass, nfail, nskip);
	fflush(stdout);
	return nfail ? 1 : 0;
}
