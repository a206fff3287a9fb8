/* SPDX-License-Identifier: MIT */
/* GNU build-ids of real files (compared with readelf -n), of the running kernel
 * (compared with perf buildid-list -k) and of modules (a sysroot tree holding the
 * kernel's own notes, then broken notes). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "core/error.h"
#include "linux/buildid.h"

static void hex(const uint8_t *id, size_t n, char *out)
{
	for (size_t i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", id[i]);
	out[2 * n] = '\0';
}

/* The first 40-or-fewer hex digits after `marker` in a command's output. */
static int run_for_hex(const char *cmd, const char *marker, char *out, size_t size)
{
	char line[512];
	FILE *p = popen(cmd, "r");
	int found = 0;

	if (!p)
		return 0;
	while (!found && fgets(line, sizeof(line), p)) {
		const char *at = marker ? strstr(line, marker) : line;

		if (at && sscanf(at + (marker ? strlen(marker) : 0), " %127[0-9a-f]", out) == 1)
			found = strlen(out) < size;
	}
	pclose(p);
	return found;
}

static void check_file(const char *path)
{
	char cmd[1200], want[128], have[41];
	uint8_t id[20];
	size_t len = 0;

	snprintf(cmd, sizeof(cmd), "readelf -n '%s' 2>/dev/null", path);
	if (!run_for_hex(cmd, "Build ID:", want, sizeof(want)))
		skip(); /* readelf missing (binutils), or the file has no build-id */
	assert_int_equal(pmuk_build_id_of_file(path, id, &len), 0);
	hex(id, len, have);
	assert_string_equal(have, want);
}

static void test_self_exe(void **state)
{
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	(void)state;
	assert_true(n > 0);
	exe[n] = '\0';
	check_file(exe);
}

static void test_libc(void **state)
{
	char line[4096], path[4096] = "";
	FILE *f = fopen("/proc/self/maps", "r");

	(void)state;
	assert_non_null(f);
	while (!path[0] && fgets(line, sizeof(line), f)) {
		char *p = strchr(line, '/');

		if (p && strstr(p, "/libc.so")) {
			p[strcspn(p, "\n")] = '\0';
			snprintf(path, sizeof(path), "%s", p);
		}
	}
	fclose(f);
	if (!path[0])
		skip(); /* statically linked test */
	check_file(path);
}

static void test_file_errors(void **state)
{
	uint8_t id[20];
	size_t len = 0;

	(void)state;
	assert_int_equal(pmuk_build_id_of_file("/nonexistent/pmukit", id, &len), PMU_ENOENT);
	assert_non_null(strstr(pmu_error_detail(), "/nonexistent/pmukit"));
	assert_int_equal(pmuk_build_id_of_file("/proc/self/status", id, &len), PMU_EFORMAT);
	assert_non_null(strstr(pmu_error_detail(), "not an ELF file"));
	assert_int_equal(pmuk_build_id_of_file(NULL, id, &len), PMU_EINVAL);
}

/* Mapped files include devices and FIFOs: they are not opened (a FIFO would
 * block the recorder's /proc walk until a writer came), PMU_ENOENT at once. */
static void test_not_regular(void **state)
{
	char fifo[64] = "/tmp/pmukit-bid-XXXXXX";   /* room for the "/f" added below */
	uint8_t id[20];
	size_t len = 0;

	(void)state;
	assert_non_null(mkdtemp(fifo));
	strcat(fifo, "/f");
	assert_int_equal(mkfifo(fifo, 0600), 0);
	alarm(10);  /* a hang is a failure */
	assert_int_equal(pmuk_build_id_of_file(fifo, id, &len), PMU_ENOENT);
	assert_non_null(strstr(pmu_error_detail(), "not a regular file"));
	assert_int_equal(pmuk_build_id_of_file("/dev/null", id, &len), PMU_ENOENT);
	alarm(0);
	unlink(fifo);
	*strrchr(fifo, '/') = 0;
	rmdir(fifo);
}

/* A program linked without a build-id has none: PMU_ENOENT, not garbage. */
static void test_no_build_id(void **state)
{
	char dir[] = "/tmp/pmukit-bid-XXXXXX", cmd[1024], bin[600];
	uint8_t id[20];
	size_t len = 0;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(bin, sizeof(bin), "%s/nobid", dir);
	snprintf(cmd, sizeof(cmd), "printf 'int main(void){return 0;}' | cc -x c - "
		 "-Wl,--build-id=none -o %s 2>/dev/null", bin);
	if (system(cmd)) {
		rmdir(dir);
		skip(); /* no C compiler */
	}
	assert_int_equal(pmuk_build_id_of_file(bin, id, &len), PMU_ENOENT);
	assert_non_null(strstr(pmu_error_detail(), "no GNU build-id"));
	unlink(bin);
	rmdir(dir);
}

static void test_kernel(void **state)
{
	char want[128], have[41];
	uint8_t id[20];
	size_t len = 0;
	int err = pmuk_build_id_kernel(id, &len);

	(void)state;
	if (err == PMU_EPERM || access("/sys/kernel/notes", R_OK))
		skip(); /* /sys/kernel/notes is root-only on some kernels */
	assert_int_equal(err, 0);
	hex(id, len, have);
	if (!run_for_hex("perf buildid-list -k 2>/dev/null", NULL, want, sizeof(want)))
		skip(); /* Debian's linux-perf is not installed */
	assert_string_equal(have, want);
}

static char root[64];

static void note(FILE *f, const char *name, uint32_t type, const void *desc, uint32_t descsz)
{
	uint32_t namesz = (uint32_t)strlen(name) + 1, hdr[3] = { namesz, descsz, type };
	static const char zero[4];

	fwrite(hdr, 4, 3, f);
	fwrite(name, 1, namesz, f);
	fwrite(zero, 1, (4 - namesz % 4) % 4, f);
	fwrite(desc, 1, descsz, f);
	fwrite(zero, 1, (4 - descsz % 4) % 4, f);
}

static void write_module_notes(const char *mod, int variant)
{
	static const uint8_t want[20] = { 0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4, 5, 6,
					  7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "mkdir -p %s/sys/module/%s/notes", root, mod);
	assert_int_equal(system(path), 0);
	snprintf(path, sizeof(path), "%s/sys/module/%s/notes/.note.gnu.build-id", root, mod);
	f = fopen(path, "wb");
	assert_non_null(f);
	note(f, "Linux", 6, "x86", 4);         /* another note first: it must be stepped over */
	if (variant == 0) {
		note(f, "GNU", 3, want, 20);
	} else if (variant == 1) {
		uint32_t hdr[3] = { 4, 4000, 3 };  /* a descsz past the end */

		fwrite(hdr, 4, 3, f);
		fwrite("GNU", 1, 4, f);
	}
	fclose(f);
}

static int fixture_setup(void **state)
{
	(void)state;
	snprintf(root, sizeof(root), "/tmp/pmukit-bidroot-XXXXXX");
	if (!mkdtemp(root))
		return -1;
	write_module_notes("good", 0);
	write_module_notes("broken", 1);
	write_module_notes("nognu", 2);
	return pmu_sysroot_set(root);
}

static int fixture_teardown(void **state)
{
	char cmd[128];

	(void)state;
	pmu_sysroot_set("");
	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	return system(cmd);
}

static void test_module_notes(void **state)
{
	uint8_t id[20];
	size_t len = 0;
	char have[41];

	(void)state;
	assert_int_equal(pmuk_build_id_module("good", id, &len), 0);
	hex(id, len, have);
	assert_string_equal(have, "deadbeef0102030405060708090a0b0c0d0e0f10");
	assert_int_equal(pmuk_build_id_module("broken", id, &len), PMU_EFORMAT);
	assert_non_null(strstr(pmu_error_detail(), "runs past the end"));
	assert_int_equal(pmuk_build_id_module("nognu", id, &len), PMU_ENOENT);
	assert_int_equal(pmuk_build_id_module("absent", id, &len), PMU_ENOENT);
	assert_non_null(strstr(pmu_error_detail(), "/sys/module/absent/notes"));
	assert_int_equal(pmuk_build_id_module("../good", id, &len), PMU_EINVAL);
	assert_int_equal(pmuk_build_id_module("", id, &len), PMU_EINVAL);
}

int main(void)
{
	const struct CMUnitTest live[] = {
		cmocka_unit_test(test_self_exe),
		cmocka_unit_test(test_libc),
		cmocka_unit_test(test_file_errors),
		cmocka_unit_test(test_not_regular),
		cmocka_unit_test(test_no_build_id),
		cmocka_unit_test(test_kernel),
	};
	const struct CMUnitTest fixture[] = {
		cmocka_unit_test(test_module_notes),
	};

	return cmocka_run_group_tests(live, NULL, NULL) |
	       cmocka_run_group_tests(fixture, fixture_setup, fixture_teardown);
}
