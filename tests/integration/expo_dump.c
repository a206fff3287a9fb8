/* SPDX-License-Identifier: MIT */
/* Test helper until `pmukit exporter --once` exists: scrapes a pmu_exporter N
 * times (a short pause between) and prints the last scrape.
 *   expo_dump [text|openmetrics] [native|node|windows] [COLLECTORS|all] [N] [EVENTS] */
#include <pmukit/error.h>
#include <pmukit/exporter.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int main(int argc, char **argv)
{
	enum pmu_expo_format fmt = argc > 1 && !strcmp(argv[1], "openmetrics") ?
		PMU_EXPO_OPENMETRICS : PMU_EXPO_TEXT;
	const char *compat = argc > 2 ? argv[2] : "native";
	const char *coll = argc > 3 && strcmp(argv[3], "all") ? argv[3] : NULL;
	int n = argc > 4 ? atoi(argv[4]) : 1;
	PMU_OPTS(pmu_exporter_opts, o, .collectors = coll,
		 .compat = !strcmp(compat, "node") ? PMU_EXPORTER_COMPAT_NODE :
			   !strcmp(compat, "windows") ? PMU_EXPORTER_COMPAT_WINDOWS :
			   PMU_EXPORTER_NATIVE,
		 .pmu_events = argc > 5 ? argv[5] : NULL);
	struct timespec pause = { 0, 20 * 1000 * 1000 };
	struct pmu_exporter *e;
	const char *text = NULL;
	size_t len = 0;
	int err;

	if ((err = pmu_exporter_open(&o, &e))) {
		fprintf(stderr, "expo_dump: %s\n", pmu_error_detail());
		return 1;
	}
	for (int i = 0; i < n && !err; i++) {
		if (i)
			nanosleep(&pause, NULL);
		err = pmu_exporter_scrape(e, fmt, &text, &len);
	}
	if (err)
		fprintf(stderr, "expo_dump: %s\n", pmu_error_detail());
	else
		fwrite(text, 1, len, stdout);
	pmu_exporter_close(e);
	return err ? 1 : 0;
}
