/* SPDX-License-Identifier: MIT */
/* The .etl -> record adapter: on a synthetic trace (stacks attached by
 * timestamp and thread, plain and cached; names of threads named late or
 * exited; modules with PDB GUID+Age; CSwitch -> CPU time and PMC deltas;
 * losses; time order) and on the real files of ../shared/fixtures/etl. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <pmukit/error.h>
#include <pmukit/report.h>
#include <pmukit/symbols.h>
#include <unistd.h>

#include "etl_synth.h"
#include "formats/etl_records.h"

#define T0 1000000ull
#define FIX PMUKIT_SOURCE_DIR "/../shared/fixtures/etl/"
#define K1 0xfffff80000001234ull
#define K2 0xfffff80000002000ull
#define K3 0xfffff80000003000ull
#define U1 0x7ff600001000ull
#define U2 0x7ff600002000ull
#define U5 0x7ff600005000ull
#define U6 0x7ff600006000ull
#define APP 0x7ff600000000ull

static void thread_v3(struct syn *s, unsigned hook, uint32_t pid, uint32_t tid, uint64_t t,
		      const char *name)
{
	size_t at = syn_kernel(s, 2, (uint16_t)hook, 3, 0, 0, t, NULL, 0);
	syn_u32(s, pid), syn_u32(s, tid);
	for (int i = 0; i < 7; i++)
		syn_u64(s, 0x1000 * (i + 1));
	syn_u32(s, 0);
	syn_u8(s, 8), syn_u8(s, 5), syn_u8(s, 2), syn_u8(s, 0);
	if (name)
		syn_wstr(s, name);
	syn_end(s, at);
}

static void image(struct syn *s, uint32_t pid, uint64_t base, uint64_t size, uint64_t t,
		  const char *path)
{
	size_t at = syn_kernel(s, 2, 0x1403, 3, 0, 0, t, NULL, 0);
	syn_u64(s, base), syn_u64(s, size), syn_u32(s, pid), syn_u32(s, 0), syn_u32(s, 0);
	syn_u32(s, 0), syn_u64(s, base), syn_zero(s, 16), syn_wstr(s, path);
	syn_end(s, at);
}

/* KernelTraceControl DbgID_RSDS in a FULL64 header, as PerfView merges it. */
static void rsds(struct syn *s, uint32_t pid, uint64_t base, uint64_t t, const char *pdb)
{
	static const uint8_t task[16] = { 0xd7, 0x75, 0xe6, 0xb3, 0x54, 0x25, 0x18, 0x4f,
					  0x83, 0x0b, 0x27, 0x62, 0x73, 0x25, 0x60, 0xde };
	size_t at = s->n;

	syn_u16(s, 0), syn_u8(s, 20), syn_u8(s, 0xC0), syn_u8(s, 36), syn_u8(s, 0), syn_u16(s, 2);
	syn_u32(s, 0), syn_u32(s, pid), syn_u64(s, t), syn_put(s, task, 16), syn_u64(s, 0);
	syn_u64(s, base), syn_u32(s, pid);
	for (int i = 0; i < 16; i++)
		syn_u8(s, (uint8_t)(0xA0 + i));
	syn_u32(s, 3);
	syn_put(s, pdb, strlen(pdb) + 1);
	syn_set16(s, at, (uint16_t)(s->n - at));
	syn_align(s);
}

static void stack_ev(struct syn *s, unsigned op, uint64_t t, uint64_t et, uint32_t tid,
		     const uint64_t *f, unsigned n)
{
	size_t at = syn_kernel(s, 17, (uint16_t)(0x1800 | op), 2, 0, 0, t, NULL, 0);
	syn_u64(s, et), syn_u32(s, 100), syn_u32(s, tid);
	for (unsigned i = 0; i < n; i++)
		syn_u64(s, f[i]);
	syn_end(s, at);
}

static void key_def(struct syn *s, unsigned op, uint64_t t, uint64_t key, const uint64_t *f,
		    unsigned n)
{
	size_t at = syn_kernel(s, 17, (uint16_t)(0x1800 | op), 2, 0, 0, t, NULL, 0);
	syn_u64(s, key);
	for (unsigned i = 0; i < n; i++)
		syn_u64(s, f[i]);
	syn_end(s, at);
}

static void profile(struct syn *s, uint64_t t, uint64_t ip, uint32_t tid)
{
	size_t at = syn_kernel(s, 17, 0x0F2E, 2, 0, 0, t, NULL, 0);
	syn_u64(s, ip), syn_u32(s, tid), syn_u16(s, 1), syn_u8(s, 8 << 3), syn_u8(s, 0);
	syn_end(s, at);
}

/* An LBR record naming the sample at raw time et of thread tid: n branches
 * (0x1000+i -> 0x2000+i), most recent first. */
static void lbr(struct syn *s, uint64_t t, uint64_t et, uint32_t tid, unsigned n)
{
	size_t at = syn_kernel(s, 17, 0x0C20, 2, 0, 0, t, NULL, 0);
	syn_u64(s, et), syn_u32(s, 100), syn_u32(s, tid), syn_u32(s, 0x2), syn_u32(s, 0);
	for (unsigned i = 0; i < n; i++)
		syn_u64(s, 0x1000 + i), syn_u64(s, 0x2000 + i), syn_u64(s, 0);
	syn_end(s, at);
}

static void cswitch(struct syn *s, uint64_t t, uint32_t new_tid, uint32_t old_tid,
		    uint64_t p0, uint64_t p1)
{
	uint64_t pmc[2] = { p0, p1 };
	size_t at = syn_kernel(s, 17, 0x0524, 4, 0, 0, t, pmc, 2);
	syn_u32(s, new_tid), syn_u32(s, old_tid);
	syn_u8(s, 8), syn_u8(s, 9), syn_u8(s, 0), syn_u8(s, 0);
	syn_u8(s, 5), syn_u8(s, 1), syn_u8(s, 5), syn_u8(s, 0);
	syn_u32(s, 0), syn_u32(s, 0);
	syn_end(s, at);
}

static char *build(struct syn *s)
{
	static const uint64_t k12[] = { K1, K2 }, k3[] = { K3 }, u12[] = { U1, U2 },
		u56[] = { U5, U6 }, u1[] = { U1 };
	size_t at;

	syn_begin(s, 8192, 8, 2);
	syn_buffer_begin(s, 0, 0);
	at = syn_kernel(s, 2, 0x0303, 4, 0, 0, T0 + 1, NULL, 0);	/* process rundown */
	syn_u64(s, 0x8000), syn_u32(s, 100), syn_u32(s, 4), syn_u32(s, 1), syn_u32(s, 259);
	syn_u64(s, 0x1AB000), syn_u32(s, 0), syn_u32(s, 0);
	syn_put(s, "app.exe", 8), syn_wstr(s, "app.exe -x"), syn_wstr(s, ""), syn_wstr(s, "");
	syn_end(s, at);
	thread_v3(s, 0x0503, 100, 200, T0 + 2, NULL);
	rsds(s, 100, APP, T0 + 3, "C:\\src\\app.pdb");
	image(s, 100, APP, 0x10000, T0 + 4, "\\Device\\HarddiskVolume2\\app.exe");
	image(s, 0, 0xfffff80000000000ull, 0x100000, T0 + 5, "\\SystemRoot\\system32\\ntoskrnl.exe");
	thread_v3(s, 0x0503, 100, 300, T0 + 6, NULL);
	thread_v3(s, 0x0503, 100, 400, T0 + 7, NULL);
	at = syn_kernel(s, 17, 0x0F30, 2, 0, 0, T0 + 8, NULL, 0);	/* PmcCounterConfig */
	syn_u32(s, 2), syn_wstr(s, "BranchInstructions"), syn_wstr(s, "LLCReference");
	syn_end(s, at);
	at = syn_kernel(s, 17, 0x0F49, 3, 0, 0, T0 + 9, NULL, 0);	/* CollectionStart */
	syn_u32(s, 0), syn_u32(s, 10000), syn_u32(s, 10000), syn_wstr(s, "Timer");
	syn_end(s, at);
	at = syn_kernel(s, 2, 0x0548, 2, 300, 100, T0 + 75, NULL, 0);	/* ThreadSetName */
	syn_u32(s, 100), syn_u32(s, 300), syn_wstr(s, "gone");
	syn_end(s, at);
	thread_v3(s, 0x0502, 100, 300, T0 + 80, "");
	key_def(s, 35, T0 + 300, 0x66, k3, 1);
	key_def(s, 36, T0 + 500, 0x55, u12, 2);
	thread_v3(s, 0x0504, 100, 400, T0 + 501, "late-name");
	syn_buffer_end(s);

	syn_buffer_begin(s, 1, 0);
	profile(s, T0 + 40, K1, 200);
	stack_ev(s, 32, T0 + 41, T0 + 40, 200, k12, 2);
	profile(s, T0 + 45, K3, 200);
	at = syn_kernel(s, 17, 0x1825, 2, 0, 0, T0 + 46, NULL, 0);	/* StackKeyKernel */
	syn_u64(s, T0 + 45), syn_u32(s, 100), syn_u32(s, 200), syn_u64(s, 0x66);
	syn_end(s, at);
	profile(s, T0 + 50, U1 + 0x99, 400);
	at = syn_kernel(s, 17, 0x1826, 2, 0, 0, T0 + 60, NULL, 0);	/* StackKeyUser */
	syn_u64(s, T0 + 40), syn_u32(s, 100), syn_u32(s, 200), syn_u64(s, 0x55);
	syn_end(s, at);
	profile(s, T0 + 70, U5, 200);
	stack_ev(s, 32, T0 + 71, T0 + 70, 200, u56, 2);
	profile(s, T0 + 78, U2 + 4, 300);
	cswitch(s, T0 + 100, 200, 0, 1000, 50);
	cswitch(s, T0 + 150, 0, 200, 1600, 80);
	stack_ev(s, 32, T0 + 160, T0 + 999, 200, u1, 1);	/* names no sample */
	syn_buffer_end(s);
	return syn_write(s, "records");
}

struct seen {
	unsigned n, samples, comms, mmaps, switches, lost, exits;
	uint64_t last_time, lost_count, lost_buffers, lost_uncounted;
	int ordered;
	uint64_t chain[5][8];
	uint32_t nchain[5], nk[5], tid[5];
	int32_t pid[5];
	uint64_t period;
	char names[64][64];
	uint32_t name_tid[64];
	unsigned n_names;
	int pdb_ok, kernel_map;
	struct pmu_report *rp;
};

static int on_record(const struct pmu_record *r, void *ctx)
{
	struct seen *s = ctx;

	s->n++;
	if (r->time < s->last_time)
		s->ordered = 0;
	s->last_time = r->time;
	if (r->kind == PMU_RECORD_SAMPLE) {
		unsigned i = s->samples++;
		assert_true(i < 5);
		s->tid[i] = (uint32_t)r->tid;
		s->pid[i] = r->pid;
		s->period = r->sample.period;
		if (r->has & PMU_HAS_CALLCHAIN) {
			s->nchain[i] = r->sample.nr_callchain;
			s->nk[i] = r->sample.nr_kernel_frames;
			memcpy(s->chain[i], r->sample.callchain, r->sample.nr_callchain * 8);
		}
	} else if (r->kind == PMU_RECORD_COMM && s->n_names < 64) {
		snprintf(s->names[s->n_names], 64, "%s", r->comm.long_name ? r->comm.long_name : r->comm.name);
		s->name_tid[s->n_names++] = (uint32_t)r->tid;
	} else if (r->kind == PMU_RECORD_MMAP) {
		s->mmaps++;
		if (r->mmap.start == APP)
			s->pdb_ok = r->mmap.build_id_kind == PMU_BUILD_ID_PDB &&
				    r->mmap.build_id_size == 20 && r->mmap.build_id[0] == 0xA0 &&
				    r->mmap.build_id[16] == 3 && r->pid == 100 &&
				    !strcmp(r->mmap.debug_path, "C:\\src\\app.pdb");
		else
			s->kernel_map = r->pid == -1 && r->cpumode == PMU_CPUMODE_KERNEL;
	} else if (r->kind == PMU_RECORD_SWITCH) {
		s->switches++;
		assert_int_equal(r->sw.nr_pmc, 2);
	} else if (r->kind == PMU_RECORD_LOST) {
		s->lost++;
		s->lost_count += r->lost.count;
		s->lost_buffers += r->lost.buffers;
		s->lost_uncounted += r->lost.uncounted;
	} else if (r->kind == PMU_RECORD_EXIT) {
		s->exits++;
	}
	return s->rp ? pmu_report_record(r, s->rp) : 0;
}

static const char *name_of(const struct seen *s, uint32_t tid)
{
	for (unsigned i = 0; i < s->n_names; i++)
		if (s->name_tid[i] == tid)
			return s->names[i];
	return NULL;
}

struct lbr_seen {
	unsigned samples, with;
	uint32_t n[4];
	uint64_t from1[4];
	struct pmu_report *rp;
};

static int on_lbr_record(const struct pmu_record *r, void *ctx)
{
	struct lbr_seen *s = ctx;

	assert_int_equal(pmu_report_record(r, s->rp), 0);
	if (r->kind != PMU_RECORD_SAMPLE || s->samples >= 4)
		return 0;
	s->n[s->samples] = r->sample.nr_branches;
	if (r->has & PMU_HAS_BRANCH_STACK) {
		s->with++;
		assert_int_equal(r->sample.branches[1].to, 0x2001);
		s->from1[s->samples] = r->sample.branches[1].from;
	}
	s->samples++;
	return 0;
}

static void test_synthetic(void **state)
{
	struct syn syn;
	struct seen s = { .ordered = 1 };
	struct pmuk_etl_records *a;
	struct pmuk_etl_records_stats st;
	(void)state;

	char *path = build(&syn);
	assert_int_equal(pmuk_etl_records_open(path, NULL, &a), 0);
	assert_int_equal(pmuk_etl_records_event_count(a), 1);
	assert_string_equal(pmuk_etl_records_event_names(a)[0], "Timer");
	assert_int_equal(pmuk_etl_records_pmc_count(a), 2);
	assert_string_equal(pmuk_etl_records_pmc_names(a)[1], "LLCReference");
	PMU_OPTS(pmu_report_opts, ro, .pmc_names = pmuk_etl_records_pmc_names(a), .nr_pmc = 2);
	assert_int_equal(pmu_report_new(&ro, &s.rp), 0);
	assert_int_equal(pmuk_etl_records_read(a, on_record, &s), 0);
	assert_int_equal(pmuk_etl_records_read(a, on_record, &s), PMU_EINVAL);
	pmuk_etl_records_stats(a, &st);
	unlink(path);

	assert_true(s.ordered);
	assert_int_equal(st.records, s.n);
	assert_int_equal(s.samples, 5);
	assert_int_equal(st.with_stack, 3);
	assert_int_equal(st.keys_unresolved, 0);
	assert_int_equal(st.unmatched, 1);
	assert_int_equal(s.period, 1000000);	/* 1 ms timer interval */
	/* kernel part (plain stack) + user part (key, defined at rundown) */
	uint64_t c0[] = { K1, K2, U1, U2 }, c1[] = { K3, U1, U2 }, c3[] = { U5, U6 };
	assert_int_equal(s.nchain[0], 4);
	assert_int_equal(s.nk[0], 2);
	assert_memory_equal(s.chain[0], c0, sizeof(c0));
	/* kernel key; its user part is the one logged when the thread left the kernel */
	assert_int_equal(s.nchain[1], 3);
	assert_int_equal(s.nk[1], 1);
	assert_memory_equal(s.chain[1], c1, sizeof(c1));
	assert_int_equal(s.nchain[2], 0);
	assert_int_equal(s.nchain[3], 2);
	assert_int_equal(s.nk[3], 0);
	assert_memory_equal(s.chain[3], c3, sizeof(c3));
	assert_int_equal(s.nchain[4], 0);
	for (int i = 0; i < 5; i++)
		assert_int_equal(s.pid[i], 100);
	/* names: the process, a thread named at run time that exited, one
	 * named only by the rundown at the end of the trace */
	assert_string_equal(name_of(&s, 100), "app.exe");
	assert_string_equal(name_of(&s, 300), "gone");
	assert_string_equal(name_of(&s, 400), "late-name");
	assert_null(name_of(&s, 200));
	assert_int_equal(s.exits, 1);
	assert_int_equal(s.mmaps, 2);
	assert_true(s.pdb_ok);
	assert_true(s.kernel_map);
	assert_int_equal(s.switches, 4);
	assert_int_equal(st.switches, 2);
	assert_int_equal(s.lost_count, 7);
	assert_int_equal(s.lost_buffers, 2);

	/* the report: CPU time and PMC deltas of thread 200, names, modules */
	struct pmu_report_row w;
	int found = 0;
	for (size_t i = 0; i < pmu_report_count(s.rp, PMU_REPORT_TID); i++) {
		assert_int_equal(pmu_report_row(s.rp, PMU_REPORT_TID, i, &w), 0);
		if (w.tid == 200) {
			found |= 1;
			assert_int_equal(w.cpu_time_ns, 5000);
			assert_int_equal(w.pmc[0], 600);
			assert_int_equal(w.pmc[1], 30);
			assert_string_equal(w.name, "app.exe");
			assert_int_equal(w.samples, 3);
		} else if (w.tid == 300) {
			found |= 2;
			assert_string_equal(w.name, "gone");
			assert_true(w.exited);
		}
	}
	assert_int_equal(found, 3);
	assert_int_equal(pmu_report_row(s.rp, PMU_REPORT_MODULE, 0, &w), 0);
	assert_string_equal(w.name, "app.exe");
	assert_string_equal(w.build_id, "A3A2A1A0A5A4A7A6A8A9AAABACADAEAF3");
	assert_int_equal(w.samples, 3);
	pmu_report_free(s.rp);
	pmuk_etl_records_close(a);
	free(syn.d);
}

/* A kernel part waiting for its user part is dropped when its thread ends:
 * the next thread with that id (here in another process) must not lend it
 * a user stack. */
static void test_stack_after_thread_end(void **state)
{
	static const uint64_t k12[] = { K1, K2 }, u12[] = { U1, U2 };
	struct syn syn;
	struct seen s = { .ordered = 1 };
	struct pmuk_etl_records *a;
	(void)state;

	syn_begin(&syn, 8192, 8, 1);
	syn_buffer_begin(&syn, 0, 0);
	thread_v3(&syn, 0x0503, 100, 500, T0 + 1, NULL);
	profile(&syn, T0 + 10, K1, 500);
	stack_ev(&syn, 32, T0 + 11, T0 + 10, 500, k12, 2);	/* kernel only: waits */
	thread_v3(&syn, 0x0502, 100, 500, T0 + 20, NULL);
	thread_v3(&syn, 0x0501, 200, 500, T0 + 30, NULL);
	profile(&syn, T0 + 40, U1, 500);
	stack_ev(&syn, 32, T0 + 41, T0 + 40, 500, u12, 2);
	syn_buffer_end(&syn);
	char *path = syn_write(&syn, "tidreuse");
	assert_int_equal(pmuk_etl_records_open(path, NULL, &a), 0);
	assert_int_equal(pmuk_etl_records_read(a, on_record, &s), 0);
	unlink(path);
	assert_int_equal(s.samples, 2);
	assert_int_equal(s.pid[0], 100);
	assert_int_equal(s.nchain[0], 2);
	assert_int_equal(s.nk[0], 2);
	assert_memory_equal(s.chain[0], k12, sizeof(k12));
	assert_int_equal(s.pid[1], 200);
	assert_int_equal(s.nchain[1], 2);
	assert_int_equal(s.nk[1], 0);
	assert_memory_equal(s.chain[1], u12, sizeof(u12));
	pmuk_etl_records_close(a);
	free(syn.d);
}

/* LBR records become the branch stack of the sample they name (raw time and
 * thread); one naming no waiting sample, or a sample that has one, is counted. */
static void test_lbr_attach(void **state)
{
	struct syn syn;
	struct lbr_seen s = { 0 };
	struct pmu_report_summary sum;
	struct pmuk_etl_records *a;
	struct pmuk_etl_records_stats st;
	(void)state;

	syn_begin(&syn, 8192, 8, 1);
	syn_buffer_begin(&syn, 0, 0);
	thread_v3(&syn, 0x0503, 100, 500, T0 + 1, NULL);
	thread_v3(&syn, 0x0503, 100, 501, T0 + 2, NULL);
	profile(&syn, T0 + 10, U1, 500);
	lbr(&syn, T0 + 11, T0 + 10, 500, 3);
	profile(&syn, T0 + 20, U1, 501);
	lbr(&syn, T0 + 21, T0 + 20, 500, 2);	/* wrong thread: no sample */
	profile(&syn, T0 + 30, U1, 500);
	lbr(&syn, T0 + 31, T0 + 30, 500, 16);
	lbr(&syn, T0 + 32, T0 + 30, 500, 1);	/* a second one for the same sample */
	syn_buffer_end(&syn);
	char *path = syn_write(&syn, "lbr");
	assert_int_equal(pmuk_etl_records_open(path, NULL, &a), 0);
	assert_int_equal(pmu_report_new(NULL, &s.rp), 0);
	assert_int_equal(pmuk_etl_records_read(a, on_lbr_record, &s), 0);
	pmu_report_summary(s.rp, &sum, sizeof(sum));
	assert_int_equal(sum.with_branches, 2);
	pmu_report_free(s.rp);
	unlink(path);
	pmuk_etl_records_stats(a, &st);
	pmuk_etl_records_close(a);
	free(syn.d);
	assert_int_equal(s.samples, 3);
	assert_int_equal(s.with, 2);
	assert_int_equal(s.n[0], 3);
	assert_int_equal(s.from1[0], 0x1001);
	assert_int_equal(s.n[1], 0);
	assert_int_equal(s.n[2], 16);
	assert_int_equal(st.with_branches, 2);
	assert_int_equal(st.lbr_unmatched, 2);
}

/* A buffer flagged EVENTS_LOST when the header counts no lost events (a
 * session that stopped before writing its totals): reported, not dropped. */
static void read_flagged(uint32_t header_lost, struct seen *s)
{
	struct syn syn;
	struct pmuk_etl_records *a;

	syn_begin(&syn, 8192, 8, 1);
	syn_set32(&syn, syn.hdr_at + 48, header_lost);
	syn_set32(&syn, syn.hdr_at + 0x38 + 16 + 176 + 28, 0);	/* buffers lost (psz 8) */
	syn_buffer_begin(&syn, 0, 0);
	syn_set16(&syn, syn.buf + 0x34, 0x0022);	/* PROC_INDEX | EVENTS_LOST */
	thread_v3(&syn, 0x0503, 100, 500, T0 + 1, NULL);
	profile(&syn, T0 + 10, U1, 500);
	syn_buffer_end(&syn);
	syn_buffer_begin(&syn, 0, 0);
	profile(&syn, T0 + 20, U1, 500);
	syn_buffer_end(&syn);
	char *path = syn_write(&syn, "flagged");
	assert_int_equal(pmuk_etl_records_open(path, NULL, &a), 0);
	assert_int_equal(pmuk_etl_records_read(a, on_record, s), 0);
	unlink(path);
	pmuk_etl_records_close(a);
	free(syn.d);
}

static void test_lost_flagged(void **state)
{
	struct pmu_report_summary sum;
	struct seen s = { .ordered = 1 };

	(void)state;
	assert_int_equal(pmu_report_new(NULL, &s.rp), 0);
	read_flagged(0, &s);
	assert_int_equal(s.samples, 2);
	assert_int_equal(s.lost, 1);
	assert_int_equal(s.lost_count, 0);
	assert_int_equal(s.lost_uncounted, 1);
	pmu_report_summary(s.rp, &sum, sizeof(sum));
	assert_int_equal(sum.lost_uncounted, 1);
	pmu_report_free(s.rp);

	/* the header's count already covers the flagged buffer */
	struct seen t = { .ordered = 1 };
	read_flagged(9, &t);
	assert_int_equal(t.lost_count, 9);
	assert_int_equal(t.lost_uncounted, 0);
}

static void key_ref(struct syn *s, unsigned op, uint64_t t, uint64_t et, uint32_t tid, uint64_t key)
{
	size_t at = syn_kernel(s, 17, (uint16_t)(0x1800 | op), 2, 0, 0, t, NULL, 0);
	syn_u64(s, et), syn_u32(s, 100), syn_u32(s, tid), syn_u64(s, key);
	syn_end(s, at);
}

/* A cached-stack key is reused after KeyDelete: each reference takes the
 * definition current at its time (the first delete/rundown after it, else
 * the last create before it); an undefined key leaves the sample bare. */
static void test_stack_key_reuse(void **state)
{
	static const uint64_t ka[] = { K1 }, kb[] = { K2, K3 }, kc[] = { K3 };
	struct syn syn;
	struct seen s = { .ordered = 1 };
	struct pmuk_etl_records *a;
	struct pmuk_etl_records_stats st;
	(void)state;

	syn_begin(&syn, 8192, 8, 1);
	syn_buffer_begin(&syn, 0, 0);
	thread_v3(&syn, 0x0503, 100, 200, T0 + 1, NULL);
	profile(&syn, T0 + 10, K1, 200);
	key_ref(&syn, 37, T0 + 11, T0 + 10, 200, 0x77);
	key_def(&syn, 35, T0 + 20, 0x77, ka, 1);		/* evicted: A */
	profile(&syn, T0 + 30, K2, 200);
	key_ref(&syn, 37, T0 + 31, T0 + 30, 200, 0x77);
	key_def(&syn, 34, T0 + 32, 0x88, kc, 1);		/* created, never deleted */
	profile(&syn, T0 + 35, K3, 200);
	key_ref(&syn, 37, T0 + 36, T0 + 35, 200, 0x88);
	profile(&syn, T0 + 38, K3, 200);
	key_ref(&syn, 37, T0 + 39, T0 + 38, 200, 0x99);	/* never defined */
	key_def(&syn, 36, T0 + 40, 0x77, kb, 2);		/* rundown: B */
	syn_buffer_end(&syn);
	char *path = syn_write(&syn, "keyreuse");
	assert_int_equal(pmuk_etl_records_open(path, NULL, &a), 0);
	assert_int_equal(pmuk_etl_records_read(a, on_record, &s), 0);
	pmuk_etl_records_stats(a, &st);
	unlink(path);
	assert_int_equal(s.samples, 4);
	assert_int_equal(s.nchain[0], 1);
	assert_memory_equal(s.chain[0], ka, sizeof(ka));
	assert_int_equal(s.nchain[1], 2);
	assert_memory_equal(s.chain[1], kb, sizeof(kb));
	assert_int_equal(s.nchain[2], 1);
	assert_memory_equal(s.chain[2], kc, sizeof(kc));
	assert_int_equal(s.nchain[3], 0);
	assert_int_equal(st.keys_unresolved, 1);
	assert_int_equal(st.with_stack, 3);
	pmuk_etl_records_close(a);
	free(syn.d);
}

/* The user part comes when the thread returns to user mode: within the
 * stack window it completes the sample, after it the sample has gone out
 * with its kernel part only and the late part counts as unmatched. */
static void test_stack_window(void **state)
{
	static const uint64_t k12[] = { K1, K2 }, u12[] = { U1, U2 }, all[] = { K1, K2, U1, U2 };
	struct syn syn;
	(void)state;

	syn_begin(&syn, 8192, 8, 1);
	syn_buffer_begin(&syn, 0, 0);
	thread_v3(&syn, 0x0503, 100, 200, T0 + 1, NULL);
	thread_v3(&syn, 0x0503, 100, 300, T0 + 2, NULL);
	profile(&syn, T0 + 10, K1, 200);
	stack_ev(&syn, 32, T0 + 11, T0 + 10, 200, k12, 2);
	profile(&syn, T0 + 15000000, U5, 300);			/* 1.5 s: time moves on */
	stack_ev(&syn, 32, T0 + 20000000, T0 + 10, 200, u12, 2);	/* 2 s later */
	syn_buffer_end(&syn);
	char *path = syn_write(&syn, "window");
	for (int wide = 0; wide < 2; wide++) {
		PMU_OPTS(pmuk_etl_records_opts, o, .stack_window_ns = wide ? 3000000000ull : 0);
		struct seen s = { .ordered = 1 };
		struct pmuk_etl_records *a;
		struct pmuk_etl_records_stats st;
		assert_int_equal(pmuk_etl_records_open(path, &o, &a), 0);
		assert_int_equal(pmuk_etl_records_read(a, on_record, &s), 0);
		pmuk_etl_records_stats(a, &st);
		assert_int_equal(s.samples, 2);
		assert_int_equal(s.nk[0], 2);
		if (wide) {
			assert_int_equal(s.nchain[0], 4);
			assert_memory_equal(s.chain[0], all, sizeof(all));
			assert_int_equal(st.unmatched, 0);
		} else {
			assert_int_equal(s.nchain[0], 2);
			assert_int_equal(st.unmatched, 1);
		}
		pmuk_etl_records_close(a);
	}
	unlink(path);
	free(syn.d);
}

static int count_only(const struct pmu_record *r, void *ctx)
{
	struct seen *s = ctx;

	if (r->time < s->last_time)
		s->ordered = 0;
	s->last_time = r->time;
	s->samples += r->kind == PMU_RECORD_SAMPLE;
	s->exits += r->kind == PMU_RECORD_SAMPLE && r->pid < 0;
	if (r->kind == PMU_RECORD_COMM && !r->comm.name[0])
		s->lost++;	/* no empty names */
	if (r->kind == PMU_RECORD_COMM && r->tid != r->pid) {
		const char *n = r->comm.long_name ? r->comm.long_name : r->comm.name;
		unsigned i;
		for (i = 0; i < s->n_names && strcmp(s->names[i], n); i++)
			;
		if (i == s->n_names && s->n_names < 64)
			snprintf(s->names[s->n_names++], 64, "%s", n);
		s->comms++;
	}
	return 0;
}

static void run_fixture(const char *file, struct seen *s, struct pmuk_etl_records_stats *st)
{
	struct pmuk_etl_records *a;

	if (access(file, R_OK))
		skip();
	memset(s, 0, sizeof(*s));
	s->ordered = 1;
	assert_int_equal(pmuk_etl_records_open(file, NULL, &a), 0);
	assert_int_equal(pmuk_etl_records_read(a, count_only, s), 0);
	pmuk_etl_records_stats(a, st);
	pmuk_etl_records_close(a);
	assert_true(s->ordered);
}

/* Samples equal the SampledProfile counts of SOURCES.md; the samples that get
 * a stack are those a StackWalk Stack/StackKey record names by timestamp and
 * thread (counted independently, by brute force over the reader's events). */
static void test_net452(void **state)
{
	struct seen s;
	struct pmuk_etl_records_stats st;
	(void)state;

	run_fixture(FIX "perfview-net452-x64-compressed.etl", &s, &st);
	assert_int_equal(s.samples, 79528);
	assert_int_equal(st.with_stack, 6318);
	assert_int_equal(st.keys_unresolved, 0);
	assert_int_equal(s.exits, 0);	/* every sampled thread has its process */
	run_fixture(FIX "perfview-net452-x86-compressed.etl", &s, &st);
	assert_int_equal(s.samples, 88809);
	assert_int_equal(st.with_stack, 6806);
	assert_int_equal(st.keys_unresolved, 0);
}

/* A thread rundown (V3) named by n UTF-16 units u, then the m units of v. */
static void thread_utf16(struct syn *s, uint32_t tid, uint64_t t, uint16_t u, unsigned n,
			 const uint16_t *v, unsigned m)
{
	size_t at = syn_kernel(s, 2, 0x0503, 3, 0, 0, t, NULL, 0);

	syn_u32(s, 100), syn_u32(s, tid);
	for (int i = 0; i < 7; i++)
		syn_u64(s, 0x1000 * (i + 1));
	syn_u32(s, 0);
	syn_u8(s, 8), syn_u8(s, 5), syn_u8(s, 2), syn_u8(s, 0);
	for (unsigned i = 0; i < n + m; i++)
		syn_u16(s, i < n ? u : v[i - n]);
	syn_u16(s, 0);
	syn_end(s, at);
}

struct utf8_seen {
	char name[3][300];
	char shortname[3][16];
};

static int on_utf8_comm(const struct pmu_record *r, void *ctx)
{
	struct utf8_seen *s = ctx;

	if (r->kind == PMU_RECORD_COMM && r->tid >= 1 && r->tid <= 2) {
		memcpy(s->shortname[r->tid], r->comm.name, 16);
		snprintf(s->name[r->tid], 300, "%s", r->comm.long_name ? r->comm.long_name : "");
	}
	return 0;
}

/* Long UTF-8 names are cut at a character boundary: 9 x U+00E9 are 18 bytes,
 * pmu_comm.name's 15 would split the 8th; 127 of them are 254 bytes and the
 * thread event's 256-byte name has no room for the U+20AC after them, nor for
 * the 'a' after that (which must not be put in its place). */
static void test_utf8_names_cut(void **state)
{
	struct syn syn;
	struct utf8_seen s;
	struct pmuk_etl_records *a;
	static const uint16_t euro_a[] = { 0x20AC, 'a' };
	char want[300] = "";
	(void)state;

	syn_begin(&syn, 8192, 8, 1);
	syn_buffer_begin(&syn, 0, 0);
	thread_utf16(&syn, 1, T0 + 1, 0x00E9, 9, NULL, 0);
	thread_utf16(&syn, 2, T0 + 2, 0x00E9, 127, euro_a, 2);
	syn_buffer_end(&syn);
	char *path = syn_write(&syn, "utf8");
	memset(&s, 0, sizeof(s));
	assert_int_equal(pmuk_etl_records_open(path, NULL, &a), 0);
	assert_int_equal(pmuk_etl_records_read(a, on_utf8_comm, &s), 0);
	pmuk_etl_records_close(a);
	unlink(path);
	free(syn.d);
	for (int i = 0; i < 7; i++)
		strcat(want, "\xc3\xa9");
	assert_string_equal(s.shortname[1], want);
	for (int i = 7; i < 9; i++)
		strcat(want, "\xc3\xa9");
	assert_string_equal(s.name[1], want);
	for (int i = 9; i < 127; i++)
		strcat(want, "\xc3\xa9");
	assert_string_equal(s.name[2], want);
}

/* Thread names (V3 trailing names, 30 distinct) come out as COMM records,
 * whole also when longer than pmu_comm.name holds. */
static void test_airbus_names(void **state)
{
	struct seen s;
	struct pmuk_etl_records_stats st;
	int found = 0;
	(void)state;

	run_fixture(FIX "airbus-ShutdownPerfDiagLogger.etl", &s, &st);
	assert_int_equal(s.samples, 0);
	assert_int_equal(s.lost, 0);
	assert_int_equal(s.n_names, 30);
	for (unsigned i = 0; i < s.n_names; i++)
		found += !strcmp(s.names[i], "Win32k Raw Input Thread") ||
			 !strcmp(s.names[i], "DWM Compositor Thread") ||
			 !strcmp(s.names[i], "EventLog-Security");
	assert_int_equal(found, 3);
}

struct proc_names {
	char name[8][16];          /* by pid 0..7 */
	unsigned samples_named;    /* samples of a process already named */
};

static int on_proc_comm(const struct pmu_record *r, void *ctx)
{
	struct proc_names *s = ctx;

	if (r->kind == PMU_RECORD_COMM && r->pid == r->tid && r->pid >= 0 && r->pid < 8)
		memcpy(s->name[r->pid], r->comm.name, 16);
	if (r->kind == PMU_RECORD_SAMPLE && r->pid >= 0 && r->pid < 8 && s->name[r->pid][0])
		s->samples_named++;
	return 0;
}

/* The Idle process (0) and System (4) are named also when no process rundown
 * lists them (a trace without the process group's rundown); pid 5 is not. */
static void test_idle_system_names(void **state)
{
	struct syn syn;
	struct proc_names s;
	struct pmuk_etl_records *a;
	(void)state;

	syn_begin(&syn, 8192, 8, 1);
	syn_buffer_begin(&syn, 0, 0);
	thread_v3(&syn, 0x0503, 0, 0, T0 + 1, NULL);
	thread_v3(&syn, 0x0503, 4, 8, T0 + 2, NULL);
	thread_v3(&syn, 0x0503, 5, 12, T0 + 3, NULL);
	profile(&syn, T0 + 10, K1, 0);
	profile(&syn, T0 + 11, K1, 8);
	profile(&syn, T0 + 12, U1, 12);
	syn_buffer_end(&syn);
	char *path = syn_write(&syn, "idle");
	memset(&s, 0, sizeof(s));
	assert_int_equal(pmuk_etl_records_open(path, NULL, &a), 0);
	assert_int_equal(pmuk_etl_records_read(a, on_proc_comm, &s), 0);
	pmuk_etl_records_close(a);
	unlink(path);
	free(syn.d);
	assert_string_equal(s.name[0], "Idle");
	assert_string_equal(s.name[4], "System");
	assert_string_equal(s.name[5], "");
	assert_int_equal(s.samples_named, 2);	/* named before their samples */
}

/* A CLR method event (EVENT_HEADER64, version 2) of the runtime (rundown 0)
 * or rundown provider: id 143 load / DCStart, 144 unload / DCEnd. */
static void clr_method(struct syn *s, int rundown, uint16_t id, uint32_t pid, uint64_t t,
		       uint64_t method, uint64_t start, const char *name)
{
	static const uint8_t guid[2][16] = {
		{ 0x23, 0x0d, 0x3c, 0xe1, 0xbc, 0xcc, 0x12, 0x4e,
		  0x93, 0x1b, 0xd9, 0xcc, 0x2e, 0xee, 0x27, 0xe4 },
		{ 0x1c, 0x02, 0x69, 0xa6, 0x50, 0xc4, 0x09, 0x46,
		  0xa0, 0x35, 0x5a, 0xf5, 0x9a, 0xf4, 0xdf, 0x18 } };
	size_t at = s->n;

	syn_u16(s, 0), syn_u8(s, 19), syn_u8(s, 0xC0);	/* size patched below */
	syn_u16(s, 0x0040), syn_u16(s, 0), syn_u32(s, pid + 1), syn_u32(s, pid), syn_u64(s, t);
	syn_put(s, guid[rundown != 0], 16);
	syn_u16(s, id), syn_u8(s, 2), syn_u8(s, 0), syn_u8(s, 4), syn_u8(s, 0), syn_u16(s, 0);
	syn_u64(s, 0x10), syn_u64(s, 0), syn_zero(s, 16);
	syn_u64(s, method), syn_u64(s, 0x77000), syn_u64(s, start);
	syn_u32(s, 0x100), syn_u32(s, 0x06000001), syn_u32(s, 0);
	syn_wstr(s, "App.Type"), syn_wstr(s, name), syn_wstr(s, "void  (int32)");
	syn_u16(s, 7), syn_u64(s, 0);
	syn_set16(s, at, (uint16_t)(s->n - at));
	syn_align(s);
}

struct jit_syms {
	uint64_t start[8];
	unsigned n, unloads;
};

static int on_jit_sym(const struct pmu_record *r, void *ctx)
{
	struct jit_syms *j = ctx;

	if (r->kind == PMU_RECORD_SYMBOL && r->symbol.name && j->n < 8)
		j->start[j->n++] = r->symbol.start;
	else if (r->kind == PMU_RECORD_SYMBOL)	/* an unload after its range */
		j->unloads += j->n && r->symbol.start == 0xA000;
	return 0;
}

/* A method the rundown lists at the trace's start (its tier-0 code) and that
 * tiered compilation loads again during the trace at another address: both
 * ranges are named (the tier-0 code still runs, e.g. in frames below). A
 * method listed by the start and the end rundowns is named once. A method
 * unloaded during a trace that neither loads nor lists it (an end rundown
 * only) is named from the start until its unload. */
static void test_clr_rundown_tiers(void **state)
{
	struct syn syn;
	struct jit_syms j = { { 0 }, 0, 0 };
	struct pmuk_etl_records *a;
	(void)state;

	syn_begin(&syn, 8192, 8, 1);
	syn_buffer_begin(&syn, 0, 0);
	thread_v3(&syn, 0x0503, 12, 16, T0 + 1, NULL);
	clr_method(&syn, 1, 143, 12, T0 + 2, 0x1111, 0x7000, "Tier0");	/* DCStart */
	clr_method(&syn, 1, 143, 12, T0 + 3, 0x2222, 0x8000, "Other");
	clr_method(&syn, 0, 143, 12, T0 + 20, 0x1111, 0x9000, "Tier1");	/* tier-up */
	clr_method(&syn, 0, 144, 12, T0 + 30, 0x3333, 0xA000, "Gone");	/* unload only */
	clr_method(&syn, 1, 144, 12, T0 + 40, 0x1111, 0x7000, "Tier0");	/* DCEnd */
	clr_method(&syn, 1, 144, 12, T0 + 41, 0x1111, 0x9000, "Tier1");
	clr_method(&syn, 1, 144, 12, T0 + 42, 0x2222, 0x8000, "Other");
	syn_buffer_end(&syn);
	char *path = syn_write(&syn, "clrtier");
	assert_int_equal(pmuk_etl_records_open(path, NULL, &a), 0);
	assert_int_equal(pmuk_etl_records_read(a, on_jit_sym, &j), 0);
	pmuk_etl_records_close(a);
	unlink(path);
	free(syn.d);
	assert_int_equal(j.n, 4);
	int seen[4] = { 0 };
	for (unsigned i = 0; i < j.n; i++)
		seen[(j.start[i] - 0x7000) / 0x1000]++;
	assert_int_equal(seen[0], 1);	/* tier 0, from the start */
	assert_int_equal(seen[1], 1);
	assert_int_equal(seen[2], 1);	/* tier 1, from its load */
	assert_int_equal(seen[3], 1);	/* from the start until its unload */
	assert_int_equal(j.unloads, 1);
}

/* Process start (op 1) or end (2), version 3, without a SID. */
static void process_v3(struct syn *s, unsigned op, uint32_t pid, uint64_t t, const char *image)
{
	size_t at = syn_kernel(s, 2, (uint16_t)(0x0300 | op), 3, 0, 0, t, NULL, 0);
	syn_u64(s, 0xffff000000000000ull | pid), syn_u32(s, pid), syn_u32(s, 4);
	syn_u32(s, 1), syn_u32(s, 0), syn_u64(s, 0x1000), syn_u32(s, 0);
	syn_put(s, image, strlen(image) + 1), syn_wstr(s, "");
	syn_end(s, at);
}

/* Samples of the report's row name, 0 when none. */
static uint64_t row_samples(struct pmu_report *rp, const char *name)
{
	struct pmu_report_row w;

	for (size_t i = 0; i < pmu_report_count(rp, PMU_REPORT_SYM); i++) {
		assert_int_equal(pmu_report_row(rp, PMU_REPORT_SYM, i, &w), 0);
		if (strstr(w.name, name))
			return w.samples;
	}
	return 0;
}

/* A process's .NET methods end with it: a process that reuses its pid later
 * in the trace has none of them (its JIT code is [unknown] until its own
 * methods load). */
static void test_clr_pid_reuse(void **state)
{
	PMU_OPTS(pmu_symbolizer_opts, so, .offline = 1);
	struct pmu_symbolizer *sym;
	struct pmu_report *rp;
	struct pmuk_etl_records *a;
	struct syn syn;
	(void)state;

	syn_begin(&syn, 8192, 8, 1);
	syn_buffer_begin(&syn, 0, 0);
	process_v3(&syn, 1, 12, T0 + 1, "old.exe");
	thread_v3(&syn, 0x0501, 12, 16, T0 + 2, NULL);
	clr_method(&syn, 1, 143, 12, T0 + 3, 0x1111, 0x7000, "Old");	/* DCStart */
	profile(&syn, T0 + 10, 0x7010, 16);
	thread_v3(&syn, 0x0502, 12, 16, T0 + 19, NULL);
	process_v3(&syn, 2, 12, T0 + 20, "old.exe");
	process_v3(&syn, 1, 12, T0 + 30, "new.exe");
	thread_v3(&syn, 0x0501, 12, 20, T0 + 31, NULL);
	profile(&syn, T0 + 40, 0x7010, 20);
	syn_buffer_end(&syn);
	char *path = syn_write(&syn, "clrreuse");
	assert_int_equal(pmu_symbolizer_open(&so, &sym), 0);
	assert_int_equal(pmuk_etl_records_open(path, NULL, &a), 0);
	PMU_OPTS(pmu_report_opts, ro, .symbolizer = sym);
	pmuk_etl_records_report_opts(a, &ro);
	assert_int_equal(pmu_report_new(&ro, &rp), 0);
	assert_int_equal(pmuk_etl_records_read(a, pmu_report_record, rp), 0);
	pmuk_etl_records_close(a);
	unlink(path);
	free(syn.d);
	assert_int_equal(row_samples(rp, "App.Type.Old(int32)"), 1);
	assert_int_equal(row_samples(rp, "0x7010"), 1);
	pmu_report_free(rp);
	pmu_symbolizer_close(sym);
}

int main(void)
{
	(void)syn_u32_at;	/* etl_synth.h helpers this test does not need */
	(void)syn_ptr;
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_synthetic),
		cmocka_unit_test(test_stack_after_thread_end),
		cmocka_unit_test(test_lost_flagged),
		cmocka_unit_test(test_lbr_attach),
		cmocka_unit_test(test_stack_key_reuse),
		cmocka_unit_test(test_stack_window),
		cmocka_unit_test(test_net452),
		cmocka_unit_test(test_airbus_names),
		cmocka_unit_test(test_utf8_names_cut),
		cmocka_unit_test(test_idle_system_names),
		cmocka_unit_test(test_clr_rundown_tiers),
		cmocka_unit_test(test_clr_pid_reuse),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
