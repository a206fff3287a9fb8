/* SPDX-License-Identifier: MIT */
/* The merge step (src/formats/etl_merge.c) on the real kernel traces of
 * ../shared/fixtures/etl: ImageID for every image, DbgID_RSDS from PE images
 * built here (pe_synth.h) that stand for some of the trace's, VolumeMapping and
 * SystemPaths; the merged file is read back with pmukit's own reader: every
 * added event decodes, nothing is reported corrupt, the original events are
 * all still there, and the record source gives the modules drive-letter paths
 * and the PDB identities written. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <pmukit/error.h>
#include <pmukit/etl.h>
#include <pmukit/trace.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "formats/etl_merge.h"
#include "pe_synth.h"

#define FIX PMUKIT_SOURCE_DIR "/../shared/fixtures/etl/"

static const uint8_t kguid[16] = { 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88,
				   0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xf0, 0x01 };
static const uint8_t dguid[16] = { 0xa1, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7, 0xa8,
				   0xa9, 0xaa, 0xab, 0xac, 0xad, 0xae, 0xaf, 0xb0 };
static char kpe[64], dpe[64];

static void write_pe(char *path, const char *tag, const uint8_t guid[16], uint32_t age,
		     const char *pdb)
{
	uint8_t img[PE_SYNTH_SIZE];
	size_t n = pe_synth(img, 1, 0, guid, age, pdb);
	FILE *f;

	snprintf(path, 64, "/tmp/pmukit_merge_%s_%d.exe", tag, (int)getpid());
	assert_non_null(f = fopen(path, "wb"));
	assert_int_equal(fwrite(img, 1, n, f), n);
	fclose(f);
}

/* ntoskrnl.exe and the drivers of C:\ as the two PEs built here; others absent. */
static int locate(const char *path, char *out, size_t size, void *ctx)
{
	size_t n = strlen(path);

	(void)ctx;
	if (n > 12 && !strcmp(path + n - 12, "ntoskrnl.exe"))
		return snprintf(out, size, "%s", kpe) < 0;
	if (n > 4 && !strcmp(path + n - 4, ".sys") && !strncmp(path, "C:\\", 3))
		return snprintf(out, size, "%s", dpe) < 0;
	return -1;
}

static const struct pmuk_etl_volume vols[] = {
	{ "\\Device\\HarddiskVolume3\\", "C:\\" },
	{ "\\SystemRoot\\", "C:\\Windows\\" },
};

struct back {
	uint64_t events, image_ids, rsds, rsds_k, rsds_d, volumes, sysdirs;
	uint64_t mmaps, on_c, device, with_k, with_d;
};

/* The log-file header's BuffersWritten. */
static uint32_t buffers_written(const char *path)
{
	struct pmu_etl *r;
	uint32_t n;

	assert_int_equal(pmu_etl_open(path, NULL, &r), 0);
	n = pmu_etl_header(r)->buffers_written;
	pmu_etl_close(r);
	return n;
}

static void read_events(const char *path, struct back *b)
{
	struct pmu_etl_event ev;
	struct pmu_etl_imageid_ev id;
	struct pmu_etl_sysconfig_paths_ev sp;
	struct pmu_etl_stats st;
	struct pmu_etl *r;
	int rc;

	assert_int_equal(pmu_etl_open(path, NULL, &r), 0);
	while ((rc = pmu_etl_next(r, &ev)) > 0) {
		b->events++;
		if (!pmu_etl_decode_imageid_rsds(&ev, &id)) {
			b->image_ids += id.opcode == 0;
			b->rsds += id.opcode == 36;
			b->rsds_k += id.opcode == 36 && id.pdb_guid.d1 == 0x44332211 &&
				     id.pdb_age == 7 && !strcmp(id.file_name, "ntkrnlmp.pdb");
			b->rsds_d += id.opcode == 36 && id.pdb_guid.d1 == 0xa4a3a2a1 &&
				     id.pdb_age == 2 && !strcmp(id.file_name, "driver.pdb");
		} else if (!pmu_etl_decode_sysconfig_paths(&ev, &sp)) {
			b->volumes += sp.opcode == 35 && !strcmp(sp.second, "C:\\");
			b->sysdirs += sp.opcode == 33 && !strcmp(sp.second, "C:\\Windows\\");
		}
	}
	assert_int_equal(rc, 0);
	pmu_etl_stats(r, &st, sizeof(st));
	assert_int_equal(st.problems, 0);
	pmu_etl_close(r);
}

static int on_rec(const struct pmu_record *rec, void *ctx)
{
	struct back *b = ctx;
	const struct pmu_mmap *m = &rec->mmap;

	if (rec->kind != PMU_RECORD_MMAP)
		return 0;
	b->mmaps++;
	b->on_c += !strncmp(m->path, "C:\\", 3);
	b->device += !strncmp(m->path, "\\Device\\HarddiskVolume3\\", 24);
	if (m->build_id_size == 20 && m->build_id_kind == PMU_BUILD_ID_PDB) {
		b->with_k += !memcmp(m->build_id, kguid, 16) && m->build_id[16] == 7;
		b->with_d += !memcmp(m->build_id, dguid, 16) && m->build_id[16] == 2 &&
			     m->debug_path && !strcmp(m->debug_path, "driver.pdb");
	}
	return 0;
}

static void merge_kernel_trace(void **state)
{
	PMU_OPTS(pmuk_etl_merge_opts, o, .volumes = vols, .n_volumes = 2,
		 .windows_dir = "C:\\Windows\\", .locate = locate);
	const char *in = FIX "airbus-ShutdownPerfDiagLogger.etl";
	char out[64];
	struct pmuk_etl_merge_stats st;
	struct back before = { 0 }, after = { 0 };
	struct pmu_trace *t;

	(void)state;
	if (access(in, R_OK))
		skip();
	write_pe(kpe, "k", kguid, 7, "ntkrnlmp.pdb");
	write_pe(dpe, "d", dguid, 2, "driver.pdb");
	snprintf(out, sizeof(out), "/tmp/pmukit_merge_%d.etl", (int)getpid());
	assert_int_equal(pmuk_etl_merge(in, out, &o, &st), 0);
	printf("merged: %llu images, %llu ImageID, %llu DbgID_RSDS, %llu unreadable, "
	       "%llu buffers added\n", (unsigned long long)st.images,
	       (unsigned long long)st.image_ids, (unsigned long long)st.rsds,
	       (unsigned long long)st.unreadable, (unsigned long long)st.buffers);
	assert_true(st.images > 100 && st.image_ids == st.images);
	assert_true(st.rsds > 1 && st.rsds + st.unreadable + st.no_rsds == st.images);
	assert_int_equal(st.volumes, 2);

	read_events(in, &before);
	read_events(out, &after);
	assert_int_equal(before.image_ids + before.rsds, 0);
	/* every original event, and one more per event added */
	assert_int_equal(after.events, before.events + st.image_ids + st.rsds + 3);
	assert_int_equal(after.image_ids, st.image_ids);
	assert_int_equal(after.rsds, st.rsds);
	assert_int_equal(after.rsds_k + after.rsds_d, st.rsds);
	assert_true(after.rsds_k >= 1 && after.rsds_d >= 1);
	assert_int_equal(after.volumes, 1);
	assert_int_equal(after.sysdirs, 1);
	/* the header counts the buffers added (xperf's merged files do) */
	assert_true(st.buffers >= 1);
	assert_true(buffers_written(in) > 0);
	assert_int_equal(buffers_written(out), buffers_written(in) + st.buffers);

	/* the record source: drive letters and PDB identities on the modules */
	assert_int_equal(pmu_trace_open(out, NULL, &t), 0);
	assert_int_equal(pmu_trace_read(t, on_rec, &after), 0);
	pmu_trace_close(t);
	printf("modules: %llu, %llu on C:\\, %llu left as \\Device\\HarddiskVolume3, %llu with "
	       "ntoskrnl's PDB id, %llu with the driver's\n", (unsigned long long)after.mmaps,
	       (unsigned long long)after.on_c, (unsigned long long)after.device,
	       (unsigned long long)after.with_k, (unsigned long long)after.with_d);
	assert_true(after.mmaps > 100);
	assert_int_equal(after.on_c, after.mmaps);
	assert_int_equal(after.device, 0);
	assert_true(after.with_k >= 1 && after.with_d >= 1);
	unlink(out), unlink(kpe), unlink(dpe);
}

/* A trace PerfView merged already: images it identified are not identified
 * twice; the compressed buffers are copied as they are and still read. */
static void merge_merged_trace(void **state)
{
	const char *in = FIX "perfview-net452-x86-compressed.etl";
	char out[64];
	struct pmuk_etl_merge_stats st;
	struct back before = { 0 }, after = { 0 };

	(void)state;
	if (access(in, R_OK))
		skip();
	snprintf(out, sizeof(out), "/tmp/pmukit_merge2_%d.etl", (int)getpid());
	assert_int_equal(pmuk_etl_merge(in, out, NULL, &st), 0);
	assert_true(st.already > 0);
	assert_int_equal(st.rsds, 0);	/* none of its images is on this disk */
	read_events(in, &before);
	read_events(out, &after);
	assert_int_equal(after.events, before.events + st.image_ids);
	assert_int_equal(after.image_ids, before.image_ids + st.image_ids);
	unlink(out);
}

static void merge_errors(void **state)
{
	char out[64];

	(void)state;
	snprintf(out, sizeof(out), "/tmp/pmukit_merge3_%d.etl", (int)getpid());
	assert_int_equal(pmuk_etl_merge("/nonexistent/x.etl", out, NULL, NULL), PMU_ENOENT);
	assert_int_equal(pmuk_etl_merge(PMUKIT_SOURCE_DIR "/README.md", out, NULL, NULL),
			 PMU_EFORMAT);
	unlink(out);
}

static const char *mapped(const struct pmuk_etl_volume *v, size_t n, const char *in)
{
	static char out[300];

	pmuk_etl_map_path(v, n, "C:", in, out, sizeof(out));
	return out;
}

/* NT device prefixes replaced at a path component's end only: a volume mapped
 * without its trailing backslash ("\Device\HarddiskVolume1" -> "D:") does
 * not rename a path of volume 10, which has no drive letter. */
static void map_path_components(void **state)
{
	const struct pmuk_etl_volume v[] = { { "\\Device\\HarddiskVolume1", "D:" },
					     { "\\Device\\HarddiskVolume2\\", "C:\\" } };
	(void)state;
	assert_string_equal(mapped(v, 2, "\\Device\\HarddiskVolume10\\x.dll"),
			    "\\Device\\HarddiskVolume10\\x.dll");
	assert_string_equal(mapped(v, 2, "\\Device\\HarddiskVolume1\\x.dll"), "D:\\x.dll");
	assert_string_equal(mapped(v, 2, "\\Device\\HarddiskVolume1"), "D:");
	assert_string_equal(mapped(v, 2, "\\DEVICE\\harddiskvolume2\\Windows\\a.dll"),
			    "C:\\Windows\\a.dll");
	assert_string_equal(mapped(v, 2, "\\Windows\\b.dll"), "C:\\Windows\\b.dll");
	assert_string_equal(mapped(v, 2, "\\??\\E:\\c.dll"), "E:\\c.dll");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(merge_kernel_trace),
		cmocka_unit_test(merge_merged_trace),
		cmocka_unit_test(merge_errors),
		cmocka_unit_test(map_path_components),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
