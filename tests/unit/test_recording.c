/* SPDX-License-Identifier: MIT */
/* pmu_recording_* on Linux, recording this process for real (cpu-clock works
 * without a PMU): the stats against the file, argument checks before anything
 * starts, a bad stop size refused without ending the recording, the default
 * event said in the notes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <pmukit/pmukit.h>
#include <pmukit/recording.h>

static char path[64];

static int setup(void **state)
{
	int fd;

	(void)state;
	snprintf(path, sizeof(path), "/tmp/pmukit-rec-XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(path);
	return 0;
}

static void spin(double seconds)
{
	struct timespec a, b;
	volatile double x = 0;

	clock_gettime(CLOCK_MONOTONIC, &a);
	do {
		for (int i = 0; i < 100000; i++)
			x += i;
		clock_gettime(CLOCK_MONOTONIC, &b);
	} while ((double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9 < seconds);
}

static int start_self(const char *spec, struct pmu_recording_opts *o, struct pmu_recording **r)
{
	struct pmu_target self = { .kind = PMU_TARGET_SELF };
	struct pmu_event_list *ev = NULL;
	int err;

	if (spec)
		assert_int_equal(pmu_event_parse(spec, &ev), 0);
	err = pmu_recording_start(ev, &self, o, r);
	pmu_event_list_free(ev);
	return err;
}

static void test_self(void **state)
{
	PMU_OPTS(pmu_recording_opts, o, .path = path, .freq = 2000, .callchain = 1);
	struct pmu_recording_stats st;
	struct pmu_recording *r;
	struct stat sb;
	uint64_t magic = 0;
	FILE *f;
	int err = start_self("cpu-clock", &o, &r);

	(void)state;
	if (err == PMU_EPERM)
		skip();
	assert_int_equal(err, 0);
	assert_string_equal(pmu_recording_path(r), path);
	assert_string_equal(pmu_recording_notes(r), "");
	spin(0.3);
	/* a bad size is refused before anything stops */
	assert_int_equal(pmu_recording_stop(r, &st, 0), PMU_EINVAL);
	spin(0.1);
	assert_int_equal(pmu_recording_stop(r, &st, sizeof(st)), 0);
	assert_int_equal(pmu_recording_stop(r, &st, sizeof(st)), PMU_EINVAL);
	pmu_recording_close(r);
	/* 0.4 s at 2 kHz: far more than 100 samples even on a loaded machine */
	assert_true(st.samples > 100);
	assert_true(st.records > st.samples);
	assert_int_equal(stat(path, &sb), 0);
	assert_int_equal((uint64_t)sb.st_size, st.bytes);
	f = fopen(path, "rb");
	assert_non_null(f);
	assert_int_equal(fread(&magic, 8, 1, f), 1);
	fclose(f);
	assert_memory_equal(&magic, "PERFILE2", 8);
}

static void test_checks(void **state)
{
	PMU_OPTS(pmu_recording_opts, o, .path = path, .freq = 100, .period = 100);
	struct pmu_recording *r = (void *)1;

	(void)state;
	assert_int_equal(start_self("cpu-clock", &o, &r), PMU_EINVAL);
	assert_null(r);
	assert_non_null(strstr(pmu_error_detail(), "not both"));
	o.period = 0;
	o.buffer_kb = 12;  /* 3 pages: rings are a power of two */
	assert_int_equal(start_self("cpu-clock", &o, &r), PMU_EINVAL);
	assert_non_null(strstr(pmu_error_detail(), "power of two"));
	o.buffer_kb = 0;
	o.path = NULL;
	assert_int_equal(start_self("cpu-clock", &o, &r), PMU_EINVAL);
	assert_non_null(strstr(pmu_error_detail(), "path"));
	assert_int_equal(pmu_recording_stop(NULL, NULL, 0), PMU_EINVAL);
	assert_null(pmu_recording_notes(NULL));
}

/* No event list: cycles where a core PMU exists, else cpu-clock, and the notes say so. */
static void test_default_event(void **state)
{
	PMU_OPTS(pmu_recording_opts, o, .path = path);
	struct pmu_recording_stats st;
	struct pmu_device d;
	struct pmu_recording *r;
	int core = pmu_device_core_list(&d, 1) > 0, err = start_self(NULL, &o, &r);

	(void)state;
	if (err == PMU_EPERM)
		skip();
	assert_int_equal(err, 0);
	if (core)
		assert_string_equal(pmu_recording_notes(r), "");
	else
		assert_non_null(strstr(pmu_recording_notes(r), "sampling cpu-clock instead of "
						"cycles"));
	assert_int_equal(pmu_recording_stop(r, &st, sizeof(st)), 0);
	pmu_recording_close(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_self, setup, teardown),
		cmocka_unit_test_setup_teardown(test_checks, setup, teardown),
		cmocka_unit_test_setup_teardown(test_default_event, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
