/* SPDX-License-Identifier: MIT */
/* The pmukit command on a host with a PMU: `pmukit stat` picks hardware events by
 * default, `pmukit caps` says counting works and why precise sampling does not. */
#include "hwtest.h"

#include <dirent.h>
#include <stdio.h>
#include <string.h>

static char out[1 << 16];

/* The counter whose event name (modifiers aside) is name. */
static const struct hj *find_counter(const struct hj *arr, const char *name)
{
	size_t n = strlen(name);

	for (size_t i = 0; arr && arr->type == HJ_ARR && i < arr->n; i++) {
		const char *ev = hj_str(&arr->kids[i], "event");

		if (ev && !strncmp(ev, name, n) && (ev[n] == '\0' || ev[n] == ':'))
			return &arr->kids[i];
	}
	return NULL;
}

static void test_stat_defaults(void)
{
	const char *name = "stat_defaults";
	/* counts go to stderr as perf's do: -o keeps them apart from the notes
	 * (/proc/self/fd/1: the guest has no /dev/stdout link) */
	char *argv[] = { (char *)hw.pmukit, "stat", "--json", "-o", "/proc/self/fd/1", "--",
			 (char *)hw.self, "--loop", "1000000", NULL };
	static const char *const want[] = { "cycles", "instructions" };
	const struct hj *counters, *st;
	const char *kind;
	struct hj *doc;
	int rc = hw_run(argv, out, sizeof(out));

	if (rc != 0)
		return (void)hw_fail(name, "pmukit stat --json exited with %d: %.400s", rc, out);
	if (!(doc = hj_parse(out)))
		return (void)hw_fail(name, "pmukit stat --json printed no JSON object: %.400s", out);
	kind = hj_str(doc, "default_events");
	counters = hj_get(doc, "counters");
	st = hj_get(doc, "exit_status");
	if (!kind || strcmp(kind, "hardware")) {
		hw_fail(name, "default_events is \"%s\", expected \"hardware\" (note: %s)",
			kind ? kind : "(absent)", hj_str(doc, "note") ? hj_str(doc, "note") : "none");
		goto out;
	}
	if (!st || st->type != HJ_NUM || st->num != 0) {
		hw_fail(name, "exit_status of the workload is not 0");
		goto out;
	}
	for (size_t i = 0; i < 2; i++) {
		const struct hj *c = find_counter(counters, want[i]);
		const struct hj *counted = hj_get(c, "counted"), *v = hj_get(c, "value");

		if (!c) {
			hw_fail(name, "the default events have no %s: %.400s", want[i], out);
			goto out;
		}
		if (!counted || counted->type != HJ_BOOL || !counted->num || !v ||
		    v->type != HJ_NUM || v->num <= 0) {
			hw_fail(name, "%s was not counted", want[i]);
			goto out;
		}
		/* The workload runs 1000000 iterations of 2 instructions, plus start-up. */
		if (i == 1 && v->num < 2000000) {
			hw_fail(name, "instructions = %.0f for a workload of at least 2000000", v->num);
			goto out;
		}
		hw_note("stat_defaults: %s = %.0f", hj_str(c, "event"), v->num);
	}
	hw_ok(name);
out:
	hj_free(doc);
}

static const struct hj *find_concern(const struct hj *doc, int id)
{
	const struct hj *arr = hj_get(doc, "concerns");

	for (size_t i = 0; arr && arr->type == HJ_ARR && i < arr->n; i++) {
		const struct hj *v = hj_get(&arr->kids[i], "id");

		if (v && v->type == HJ_NUM && (int)v->num == id)
			return &arr->kids[i];
	}
	return NULL;
}

static int arm_spe_present(void)
{
	DIR *d = opendir("/sys/bus/event_source/devices");
	struct dirent *de;
	int found = 0;

	while (d && !found && (de = readdir(d)))
		found = !strncmp(de->d_name, "arm_spe", 7);
	if (d)
		closedir(d);
	return found;
}

static void test_caps(void)
{
	const char *name = "caps_counting_precise";
	char *argv[] = { (char *)hw.pmukit, "caps", "--json", NULL };
	const struct hj *cnt, *pre;
	const char *s1, *s3, *r3;
	struct hj *doc;
	int rc = hw_run(argv, out, sizeof(out));

	if (rc != 0)
		return (void)hw_fail(name, "pmukit caps --json exited with %d: %.400s", rc, out);
	if (!(doc = hj_parse(out)))
		return (void)hw_fail(name, "pmukit caps --json printed no JSON object: %.400s", out);
	cnt = find_concern(doc, 1);
	pre = find_concern(doc, 3);
	s1 = hj_str(cnt, "status");
	s3 = hj_str(pre, "status");
	r3 = hj_str(pre, "reason");
	hw_note("caps: counting %s (%s); precise %s (%s)", s1 ? s1 : "?",
		hj_str(cnt, "reason") ? hj_str(cnt, "reason") : "?", s3 ? s3 : "?", r3 ? r3 : "?");
	/* Hardware counting works here; the one limit a host may add is that user-space
	 * counter reads are switched off (arm64 perf_user_access=0, x86 rdpmc=0). */
	if (!s1 || (strcmp(s1, "available") &&
		    !(!strcmp(s1, "limited") && hj_str(cnt, "reason") &&
		      (strstr(hj_str(cnt, "reason"), "perf_user_access") ||
		       strstr(hj_str(cnt, "reason"), "rdpmc"))))) {
		hw_fail(name, "concern 1 (counting) is \"%s\", expected \"available\": %s",
			s1 ? s1 : "(absent)", hj_str(cnt, "reason") ? hj_str(cnt, "reason") : "");
		goto out;
	}
#if defined(__aarch64__)
	/* The emulated PMUv3 has no SPE, no precise_ip, no branch records. */
	if (!arm_spe_present()) {
		if (!s3 || strcmp(s3, "unavailable")) {
			hw_fail(name, "concern 3 (precise) is \"%s\" on an arm64 host without SPE, "
				"expected \"unavailable\"", s3 ? s3 : "(absent)");
			goto out;
		}
		if (!r3 || !strstr(r3, "SPE") || !strstr(r3, "precise") || strstr(r3, "no hardware")) {
			hw_fail(name, "concern 3 is unavailable for the wrong reason: \"%s\" (expected "
				"the PMU's missing precise sampling and SPE)", r3 ? r3 : "");
			goto out;
		}
	}
#else
	(void)arm_spe_present;
	if (!s3 || !r3 || !*r3) {
		hw_fail(name, "concern 3 (precise) has no status or reason");
		goto out;
	}
#endif
	hw_ok(name);
out:
	hj_free(doc);
}

void hw_test_command(void)
{
	test_stat_defaults();
	test_caps();
}
