/* SPDX-License-Identifier: MIT */
/* The .etl reader on synthetic files: kernel events no public file holds
 * (CSwitch + PMC values, ReadyThread, PMC samples/config, LBR, ThreadSetName),
 * 32-bit payloads, the time-ordered merge, compressed buffers and corruption. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <pmukit/etl.h>
#include <pmukit/error.h>
#include <unistd.h>

#include "etl_synth.h"
#include "formats/etl_int.h"

#define T0 1000000ull	/* raw time of the header record */

struct probs {
	unsigned n;
	char last[512];
	char all[4096];
};

static void on_problem(const char *msg, void *ctx)
{
	struct probs *p = ctx;

	p->n++;
	snprintf(p->last, sizeof(p->last), "%s", msg);
	size_t o = strlen(p->all);
	snprintf(p->all + o, sizeof(p->all) - o, "%s\n", msg);
}

static struct pmu_etl *open_syn(const struct syn *s, const char *tag, int order, struct probs *p)
{
	PMU_OPTS(pmu_etl_opts, o, .order = order, .on_problem = on_problem, .problem_ctx = p);
	struct pmu_etl *r;
	char *path = syn_write(s, tag);

	if (p)
		memset(p, 0, sizeof(*p));
	assert_int_equal(pmu_etl_open(path, &o, &r), 0);
	unlink(path);	/* the reader keeps it open */
	return r;
}

static void thread_payload(struct syn *s, unsigned psz, uint32_t pid, uint32_t tid, const char *name)
{
	syn_u32(s, pid);
	syn_u32(s, tid);
	for (int i = 0; i < 7; i++)
		syn_ptr(s, 0x1000 * (i + 1), psz);
	syn_u32(s, 0);
	syn_u8(s, 8), syn_u8(s, 5), syn_u8(s, 2), syn_u8(s, 0);
	if (name)
		syn_wstr(s, name);
}

/* CPU 1 buffer of 64-bit kernel events; returns the number of records. */
static unsigned kernel64(struct syn *s)
{
	static const uint64_t pmc[2] = { 111, 222 };
	size_t at;

	syn_buffer_begin(s, 1, 0);
	at = syn_kernel(s, 2, 0x0501, 3, 200, 100, T0 + 10, NULL, 0);
	thread_payload(s, 8, 100, 200, "worker");
	syn_end(s, at);
	at = syn_kernel(s, 17, 0x0524, 4, 0, 0, T0 + 20, pmc, 2);	/* CSwitch + 2 PMCs */
	syn_u32(s, 200), syn_u32(s, 0);
	syn_u8(s, 8), syn_u8(s, 9), syn_u8(s, 1), syn_u8(s, 0);
	syn_u8(s, 5), syn_u8(s, 1), syn_u8(s, 5), syn_u8(s, 2);
	syn_u32(s, 77), syn_u32(s, 0);
	syn_end(s, at);
	at = syn_kernel(s, 17, 0x0532, 2, 0, 0, T0 + 30, NULL, 0);	/* ReadyThread */
	syn_u32(s, 200), syn_u8(s, 1), syn_u8(s, 2), syn_u8(s, 3), syn_u8(s, 0);
	syn_end(s, at);
	at = syn_kernel(s, 17, 0x0F2E, 2, 0, 0, T0 + 40, NULL, 0);	/* SampledProfile */
	syn_u64(s, 0xfffff80000001234ull), syn_u32(s, 200), syn_u16(s, 1);
	syn_u8(s, 12 << 3 | 1), syn_u8(s, 3);
	syn_end(s, at);
	at = syn_kernel(s, 17, 0x0F30, 2, 0, 0, T0 + 50, NULL, 0);	/* PmcCounterConfig */
	syn_u32(s, 2), syn_wstr(s, "BranchInstructions"), syn_wstr(s, "LLCReference");
	syn_end(s, at);
	at = syn_kernel(s, 17, 0x0F2F, 2, 0, 0, T0 + 60, NULL, 0);	/* PmcCounterProfile */
	syn_u64(s, 0x7ff600001000ull), syn_u32(s, 200), syn_u16(s, 29), syn_u16(s, 0);
	syn_end(s, at);
	at = syn_kernel(s, 17, 0x0C20, 2, 0, 0, T0 + 70, NULL, 0);	/* LBR */
	syn_u64(s, T0 + 69), syn_u32(s, 100), syn_u32(s, 200), syn_u32(s, 0x201), syn_u32(s, 0);
	for (int i = 0; i < 2; i++)
		syn_u64(s, 0x1000 + i), syn_u64(s, 0x2000 + i), syn_u64(s, 0);
	syn_end(s, at);
	at = syn_kernel(s, 2, 0x0548, 2, 200, 100, T0 + 80, NULL, 0);	/* ThreadSetName */
	syn_u32(s, 100), syn_u32(s, 200), syn_wstr(s, "renamed");
	syn_end(s, at);
	at = syn_kernel(s, 17, 0x1820, 2, 0, 0, T0 + 85, NULL, 0);	/* StackWalk */
	syn_u64(s, T0 + 40), syn_u32(s, 100), syn_u32(s, 200);
	syn_u64(s, 0xfffff80000001234ull), syn_u64(s, 0x7ff600002000ull), syn_u64(s, 0x7ff600003000ull);
	syn_end(s, at);
	at = syn_kernel(s, 2, 0x0502, 3, 200, 100, T0 + 90, NULL, 0);	/* Thread end, no name */
	thread_payload(s, 8, 100, 200, "");
	syn_end(s, at);
	syn_buffer_end(s);
	return 10;
}

static void test_kernel_events_64(void **state)
{
	struct syn s;
	struct pmu_etl_event ev;
	struct probs p;
	unsigned n = 0, seen = 0;
	(void)state;

	syn_begin(&s, 4096, 8, 2);
	unsigned k = kernel64(&s);
	struct pmu_etl *r = open_syn(&s, "k64", PMU_ETL_ORDER_TIME, &p);
	const struct pmu_etl_header *h = pmu_etl_header(r);
	assert_int_equal(h->os_build, 19041);
	assert_int_equal(h->events_lost, 7);
	assert_int_equal(h->buffers_lost, 2);
	assert_string_equal(h->logger_name, "synthetic");
	assert_string_equal(h->log_file_name, "synthetic.etl");
	while (pmu_etl_next(r, &ev) > 0) {
		union {
			struct pmu_etl_thread_ev t;
			struct pmu_etl_cswitch_ev cs;
			struct pmu_etl_readythread_ev rt;
			struct pmu_etl_sample_ev sp;
			struct pmu_etl_pmc_counters_ev pc;
			struct pmu_etl_pmc_sample_ev ps;
			struct pmu_etl_lbr_ev lbr;
			struct pmu_etl_thread_name_ev tn;
			struct pmu_etl_stack_ev sw;
		} u;
		n++;
		if (ev.group == 0)
			continue;
		assert_int_equal(ev.cpu, 1);
		assert_int_equal(ev.pointer_size, 8);
		assert_int_equal(ev.time_ns - h->start_ns, (int64_t)(ev.raw_time - T0) * 100);
		if (!pmu_etl_decode_thread(&ev, &u.t)) {
			assert_int_equal(u.t.tid, 200);
			assert_int_equal(u.t.win32_start_addr, 0x6000);
			assert_int_equal(u.t.base_priority, 8);
			assert_string_equal(u.t.name, ev.opcode == 1 ? "worker" : "");
			seen |= 1;
		} else if (!pmu_etl_decode_cswitch(&ev, &u.cs)) {
			assert_int_equal(u.cs.new_tid, 200);
			assert_int_equal(u.cs.new_priority, 8);
			assert_int_equal(u.cs.old_wait_reason, 5);
			assert_int_equal(u.cs.old_state, 5);
			assert_int_equal(u.cs.new_wait_time, 77);
			assert_int_equal(ev.version, 4);
			assert_int_equal(ev.n_pmc, 2);
			assert_int_equal(ev.pmc[0], 111);
			assert_int_equal(ev.pmc[1], 222);
			assert_int_equal(ev.payload_size, 24);
			seen |= 2;
		} else if (!pmu_etl_decode_readythread(&ev, &u.rt)) {
			assert_int_equal(u.rt.tid, 200);
			assert_int_equal(u.rt.adjust_increment, 2);
			seen |= 4;
		} else if (!pmu_etl_decode_sampled_profile(&ev, &u.sp)) {
			assert_int_equal(u.sp.ip, 0xfffff80000001234ull);
			assert_int_equal(u.sp.priority, 12);
			assert_int_equal(u.sp.dpc, 1);
			assert_int_equal(u.sp.isr, 0);
			assert_int_equal(u.sp.rank, 3);
			seen |= 8;
		} else if (!pmu_etl_decode_pmc_counters(&ev, &u.pc)) {
			assert_int_equal(u.pc.count, 2);
			assert_string_equal(u.pc.names[0], "BranchInstructions");
			assert_string_equal(u.pc.names[1], "LLCReference");
			seen |= 16;
		} else if (!pmu_etl_decode_pmc_profile(&ev, &u.ps)) {
			assert_int_equal(u.ps.source, 29);
			assert_int_equal(u.ps.tid, 200);
			seen |= 32;
		} else if (!pmu_etl_decode_lbr(&ev, &u.lbr)) {
			assert_int_equal(u.lbr.n, 2);
			assert_int_equal(u.lbr.filters, 0x201);
			assert_int_equal(u.lbr.branch[1].from, 0x1001);
			assert_int_equal(u.lbr.branch[1].to, 0x2001);
			assert_int_equal(u.lbr.time, T0 + 69);
			seen |= 64;
		} else if (!pmu_etl_decode_thread_set_name(&ev, &u.tn)) {
			assert_string_equal(u.tn.name, "renamed");
			seen |= 128;
		} else if (!pmu_etl_decode_stackwalk(&ev, &u.sw)) {
			assert_int_equal(u.sw.n_frames, 3);
			assert_int_equal(u.sw.event_time, T0 + 40);
			assert_int_equal(u.sw.frames[2], 0x7ff600003000ull);
			assert_int_equal(pmu_etl_time_ns(r, u.sw.event_time) - h->start_ns, 4000);
			seen |= 256;
		} else {
			fail_msg("event group %u opcode %u not decoded", ev.group, ev.opcode);
		}
	}
	assert_int_equal(n, k + 1);
	assert_int_equal(seen, 511);
	assert_int_equal(p.n, 0);
	/* the name set at run time survives the thread's end */
	struct pmu_etl_thread t;
	assert_int_equal(pmu_etl_thread_lookup(r, 200, h->start_ns + 10000, &t), 0);
	assert_string_equal(t.name, "renamed");
	assert_true(t.started && t.ended);
	assert_int_equal(t.end_ns - h->start_ns, 9000);
	assert_int_equal(pmu_etl_thread_lookup(r, 999, 0, &t), PMU_ENOENT);
	pmu_etl_close(r);
	free(s.d);
}

static void test_kernel_events_32(void **state)
{
	struct syn s;
	struct pmu_etl_event ev;
	size_t at;
	unsigned seen = 0;
	(void)state;

	syn_begin(&s, 2048, 4, 1);
	syn_buffer_begin(&s, 0, 0);
	at = syn_kernel(&s, 1, 0x0303, 4, 0, 0, T0 + 1, NULL, 0);	/* process rundown V4 */
	syn_u32(&s, 0x8000), syn_u32(&s, 300), syn_u32(&s, 4), syn_u32(&s, 1), syn_u32(&s, 259);
	syn_u32(&s, 0x1AB000), syn_u32(&s, 0);		/* DTB, flags */
	syn_u32(&s, 0x1234), syn_u32(&s, 0);		/* TOKEN_USER (2 pointers) */
	syn_u8(&s, 1), syn_u8(&s, 2), syn_zero(&s, 5), syn_u8(&s, 5);	/* SID S-1-5-x-y */
	syn_u32(&s, 21), syn_u32(&s, 1001);
	syn_put(&s, "app.exe", 8);
	syn_wstr(&s, "app.exe -x"), syn_wstr(&s, ""), syn_wstr(&s, "");
	syn_end(&s, at);
	at = syn_kernel(&s, 1, 0x0503, 3, 0, 0, T0 + 2, NULL, 0);	/* thread rundown V3, P=4 */
	thread_payload(&s, 4, 300, 301, "w32");
	syn_end(&s, at);
	at = syn_kernel(&s, 1, 0x030A, 3, 301, 300, T0 + 3, NULL, 0);	/* image load, P=4 */
	syn_u32(&s, 0x400000), syn_u32(&s, 0x5000), syn_u32(&s, 300), syn_u32(&s, 0xC0FFEE);
	syn_u32(&s, 0x5F000000), syn_u8(&s, 1), syn_u8(&s, 2), syn_u16(&s, 0);
	syn_u32(&s, 0x400000), syn_zero(&s, 16), syn_wstr(&s, "\\Device\\app.exe");
	syn_end(&s, at);
	at = syn_kernel(&s, 16, 0x0F2E, 2, 0, 0, T0 + 4, NULL, 0);	/* sample, P=4 */
	syn_u32(&s, 0x401234), syn_u32(&s, 301), syn_u16(&s, 1), syn_u8(&s, 2), syn_u8(&s, 0);
	syn_end(&s, at);
	at = syn_kernel(&s, 16, 0x1820, 2, 0, 0, T0 + 5, NULL, 0);	/* stack, P=4 */
	syn_u64(&s, T0 + 4), syn_u32(&s, 300), syn_u32(&s, 301);
	syn_u32(&s, 0x401234), syn_u32(&s, 0x402000);
	syn_end(&s, at);
	syn_buffer_end(&s);

	struct pmu_etl *r = open_syn(&s, "k32", PMU_ETL_ORDER_TIME, NULL);
	assert_int_equal(pmu_etl_header(r)->pointer_size, 4);
	while (pmu_etl_next(r, &ev) > 0) {
		struct pmu_etl_process_ev pe;
		struct pmu_etl_thread_ev te;
		struct pmu_etl_image_ev ie;
		struct pmu_etl_sample_ev se;
		struct pmu_etl_stack_ev sw;
		assert_int_equal(ev.pointer_size, 4);
		if (!pmu_etl_decode_process(&ev, &pe)) {
			assert_int_equal(pe.pid, 300);
			assert_int_equal(pe.ppid, 4);
			assert_int_equal(pe.directory_table_base, 0x1AB000);
			assert_int_equal(pe.sid_size, 8 + 16);
			assert_string_equal(pe.image, "app.exe");
			assert_string_equal(pe.command_line, "app.exe -x");
			seen |= 1;
		} else if (!pmu_etl_decode_thread(&ev, &te)) {
			assert_int_equal(te.tid, 301);
			assert_int_equal(te.teb_base, 0x7000);
			assert_string_equal(te.name, "w32");
			seen |= 2;
		} else if (!pmu_etl_decode_image(&ev, &ie)) {
			assert_int_equal(ie.base, 0x400000);
			assert_int_equal(ie.checksum, 0xC0FFEE);
			assert_int_equal(ie.signature_type, 2);
			assert_string_equal(ie.file_name, "\\Device\\app.exe");
			seen |= 4;
		} else if (!pmu_etl_decode_sampled_profile(&ev, &se)) {
			assert_int_equal(se.ip, 0x401234);
			assert_int_equal(se.isr, 1);
			seen |= 8;
		} else if (!pmu_etl_decode_stackwalk(&ev, &sw)) {
			assert_int_equal(sw.n_frames, 2);
			assert_int_equal(sw.frames[1], 0x402000);
			seen |= 16;
		}
	}
	assert_int_equal(seen, 31);
	struct pmu_etl_thread t;
	assert_int_equal(pmu_etl_thread_lookup(r, 301, 0, &t), 0);
	assert_string_equal(t.name, "w32");
	assert_string_equal(t.process, "app.exe");
	pmu_etl_close(r);
	free(s.d);
}

static void cpu_buffer(struct syn *s, unsigned cpu, const unsigned *times, unsigned n)
{
	syn_buffer_begin(s, cpu, 0);
	for (unsigned i = 0; i < n; i++) {
		size_t at = syn_kernel(s, 17, 0x0F2E, 2, 0, 0, T0 + times[i], NULL, 0);
		syn_u64(s, times[i]), syn_u32(s, cpu), syn_u16(s, 1), syn_u16(s, 0);
		syn_end(s, at);
	}
	syn_buffer_end(s);
}

static void test_time_order(void **state)
{
	static const unsigned a[] = { 10, 30, 50 }, b[] = { 20, 40 }, c[] = { 60, 70 };
	struct syn s;
	struct pmu_etl_event ev;
	uint64_t got[16];
	unsigned n;
	(void)state;

	syn_begin(&s, 1024, 8, 2);
	cpu_buffer(&s, 0, a, 3);
	cpu_buffer(&s, 1, b, 2);
	cpu_buffer(&s, 1, c, 2);
	for (int order = 0; order < 2; order++) {
		struct pmu_etl *r = open_syn(&s, "order", order, NULL);
		n = 0;
		while (pmu_etl_next(r, &ev) > 0)
			if (ev.group == PMU_ETL_GROUP_PERFINFO) {
				assert_int_equal(ev.cpu, ev.payload[8]);
				got[n++] = ev.raw_time - T0;
			}
		assert_int_equal(n, 7);
		static const uint64_t by_time[] = { 10, 20, 30, 40, 50, 60, 70 };
		static const uint64_t by_file[] = { 10, 30, 50, 20, 40, 60, 70 };
		assert_memory_equal(got, order == PMU_ETL_ORDER_TIME ? by_time : by_file, sizeof(by_time));
		pmu_etl_close(r);
	}
	free(s.d);
}

/* Reading in time order scans the buffer headers once, however many CPUs
 * there are (each CPU's stream rescanning the file made it quadratic). */
static void test_time_order_many_cpus(void **state)
{
	enum { CPUS = 64, ROUNDS = 16 };
	struct syn s;
	struct pmu_etl_event ev;
	unsigned t[2];
	(void)state;

	syn_begin(&s, 1024, 8, CPUS);
	for (unsigned r = 0; r < ROUNDS; r++)
		for (unsigned c = 0; c < CPUS; c++) {
			t[0] = 1000 * r + c;
			t[1] = 1000 * r + c + 500;
			cpu_buffer(&s, c, t, 2);
		}
	struct pmu_etl *r = open_syn(&s, "manycpu", PMU_ETL_ORDER_TIME, NULL);
	uint64_t last = 0;
	unsigned n = 0;
	while (pmu_etl_next(r, &ev) > 0) {
		assert_true(ev.raw_time >= last);
		last = ev.raw_time;
		n++;
	}
	assert_int_equal(n, 1 + 2 * CPUS * ROUNDS);
	/* every header once while streaming, plus a few at the ends */
	assert_true(r->header_reads <= CPUS * ROUNDS + 1 + CPUS);
	pmu_etl_close(r);
	free(s.d);
}

/* A processor with a multiple of 256 buffers still has its stream. */
static void test_time_order_256_buffers(void **state)
{
	struct syn s;
	struct pmu_etl_event ev;
	unsigned t = 1;
	(void)state;

	syn_begin(&s, 1024, 8, 2);
	for (unsigned i = 0; i < 256; i++, t++)
		cpu_buffer(&s, 1, &t, 1);
	cpu_buffer(&s, 0, &t, 1);
	struct pmu_etl *r = open_syn(&s, "cpu256", PMU_ETL_ORDER_TIME, NULL);
	unsigned n = 0;
	while (pmu_etl_next(r, &ev) > 0)
		n += ev.group == PMU_ETL_GROUP_PERFINFO;
	assert_int_equal(n, 257);
	pmu_etl_close(r);
	free(s.d);
}

/* Log-file header fields of a syn_begin(psz 8) file, at their offsets. */
#define HDR_PAYLOAD (0x48 + 32)
#define HDR_CPU_MHZ (HDR_PAYLOAD + 0x34)
#define HDR_PERF_FREQ (HDR_PAYLOAD + 0x100)
#define HDR_START (HDR_PAYLOAD + 0x108)
#define HDR_CLOCK (HDR_PAYLOAD + 0x110)

/* A file on the given clock with samples at raw times T0 + d[i]. */
static struct pmu_etl *clock_file(struct syn *s, unsigned clock, uint64_t freq, uint32_t mhz,
				  uint64_t start, const uint64_t *d, unsigned n)
{
	syn_begin(s, 1024, 8, 1);
	syn_buffer_begin(s, 0, 0);
	for (unsigned i = 0; i < n; i++) {
		size_t at = syn_kernel(s, 17, 0x0F2E, 2, 0, 0, T0 + d[i], NULL, 0);
		syn_u64(s, 0x1000), syn_u32(s, 4), syn_u16(s, 1), syn_u16(s, 0);
		syn_end(s, at);
	}
	syn_buffer_end(s);
	syn_set32(s, HDR_CLOCK, clock);
	syn_set32(s, HDR_PERF_FREQ, (uint32_t)freq);
	syn_set32(s, HDR_PERF_FREQ + 4, (uint32_t)(freq >> 32));
	syn_set32(s, HDR_CPU_MHZ, mhz);
	syn_set32(s, HDR_START, (uint32_t)start);
	syn_set32(s, HDR_START + 4, (uint32_t)(start >> 32));
	return open_syn(s, "clock", PMU_ETL_ORDER_FILE, NULL);
}

static int64_t sample_ns(struct pmu_etl *r, unsigned i)
{
	struct pmu_etl_event ev;
	unsigned k = 0;

	while (pmu_etl_next(r, &ev) > 0)
		if (ev.group == PMU_ETL_GROUP_PERFINFO && k++ == i)
			return ev.time_ns - pmu_etl_header(r)->start_ns;
	fail_msg("no sample %u", i);
	return 0;
}

/* QPC at a frequency that does not divide 1 GHz, system time, CPU cycles;
 * times before the header; corrupt start times and far clocks saturate. */
static void test_clock_types(void **state)
{
	struct syn s;
	struct pmu_etl *r;
	const uint64_t start = 132756731757990000ull;	/* 2021-09-09 */
	(void)state;

	uint64_t q[] = { 3117777ull * 5 + 1234 };
	r = clock_file(&s, 1, 3117777, 0, start, q, 1);
	assert_int_equal(pmu_etl_header(r)->tick_freq, 3117777);
	assert_int_equal(pmu_etl_header(r)->start_ns, (int64_t)(start - 116444736000000000ull) * 100);
	assert_int_equal(sample_ns(r, 0), 5000000000ll + 1234ll * 1000000000 / 3117777);
	assert_int_equal(pmu_etl_time_ns(r, 0) - pmu_etl_header(r)->start_ns,
			 -(int64_t)(T0 * 1000000000 / 3117777));
	pmu_etl_close(r);
	free(s.d);

	uint64_t st[] = { 12345 };
	r = clock_file(&s, 2, 0, 0, start, st, 1);
	assert_int_equal(pmu_etl_header(r)->tick_freq, 10000000);
	assert_int_equal(sample_ns(r, 0), 1234500);
	pmu_etl_close(r);
	free(s.d);

	uint64_t cy[] = { 3000000000ull * 2 + 3, 7 };
	r = clock_file(&s, 3, 10000000, 3000, start, cy, 2);
	assert_int_equal(pmu_etl_header(r)->tick_freq, 3000000000ull);
	assert_int_equal(sample_ns(r, 0), 2000000001);
	pmu_etl_close(r);
	free(s.d);

	/* a zero start time (1601) and raw times at the ends of the clock */
	uint64_t far[] = { 1 };
	r = clock_file(&s, 1, 10000000, 0, 0, far, 1);
	const struct pmu_etl_header *h = pmu_etl_header(r);
	assert_true(h->start_ns < -9000000000000000000ll);
	assert_int_equal(pmu_etl_time_ns(r, 0), INT64_MIN);	/* 0.1 s before 1678 */
	assert_int_equal(pmu_etl_time_ns(r, UINT64_MAX), INT64_MAX);
	pmu_etl_close(r);
	free(s.d);
	r = clock_file(&s, 1, 10000000, 0, UINT64_MAX, far, 1);
	h = pmu_etl_header(r);
	assert_int_equal(h->start_ns, INT64_MAX / 100 * 100);
	assert_int_equal(pmu_etl_time_ns(r, UINT64_MAX), INT64_MAX);
	pmu_etl_close(r);
	free(s.d);
	/* a 4.3 PHz "CPU": tick remainders past 64 bits times 1e9 */
	r = clock_file(&s, 3, 0, UINT32_MAX, start, far, 1);
	h = pmu_etl_header(r);
	assert_int_equal(pmu_etl_time_ns(r, T0 + 20000000000ull) - h->start_ns, 4656);
	int64_t far_ns = pmu_etl_time_ns(r, UINT64_MAX) - h->start_ns - 4294967296999ll;
	assert_true(far_ns >= -1 && far_ns <= 1);	/* a double rounds the remainder */
	pmu_etl_close(r);
	free(s.d);
}

/* A plain LZ77 encoder (greedy) matching the decoder's format, for tests. */
static size_t lz77_encode(const uint8_t *in, size_t n, uint8_t *out)
{
	size_t o = 4, flag_at = 0, nib_at = 0, i = 0;
	uint32_t flags = 0;
	int nf = 0, nib_pending = 0;

	while (i < n) {
		size_t best = 0, bdist = 0;
		for (size_t d = 1; d <= 8192 && d <= i; d++) {
			size_t l = 0;
			while (i + l < n && in[i + l - d] == in[i + l] && l < 70000)
				l++;
			if (l > best)
				best = l, bdist = d;
		}
		if (nf == 32) {
			syn_u32_at(out, flag_at, flags);
			flag_at = o;
			o += 4;
			flags = 0;
			nf = 0;
		}
		nf++;
		if (best < 3) {
			out[o++] = in[i++];
			continue;
		}
		flags |= 1u << (32 - nf);
		size_t l = best - 3;
		out[o] = (uint8_t)((((bdist - 1) << 3) | (l < 7 ? l : 7)) & 0xFF);
		out[o + 1] = (uint8_t)(((bdist - 1) << 3) >> 8);
		o += 2;
		if (l >= 7) {
			size_t x = l - 7 < 15 ? l - 7 : 15;
			if (!nib_pending) {
				nib_at = o;
				out[o++] = (uint8_t)x;
				nib_pending = 1;
			} else {
				out[nib_at] |= (uint8_t)(x << 4);
				nib_pending = 0;
			}
			if (x == 15) {
				if (l - 22 < 255) {
					out[o++] = (uint8_t)(l - 22);
				} else {
					out[o++] = 255;
					if (l < 65536) {
						out[o++] = l & 0xFF, out[o++] = (uint8_t)(l >> 8);
					} else {
						out[o++] = 0, out[o++] = 0;
						syn_u32_at(out, o, (uint32_t)l);
						o += 4;
					}
				}
			}
		}
		i += best;
	}
	syn_u32_at(out, flag_at, flags);
	return o;
}

static void test_compressed(void **state)
{
	struct syn s, c;
	char name[301];
	(void)state;

	memset(name, 'a', 300);
	name[300] = '\0';
	syn_begin(&s, 8192, 8, 2);
	kernel64(&s);
	syn_buffer_begin(&s, 0, 0);	/* long runs: nibble, byte and u16 lengths */
	size_t at = syn_kernel(&s, 2, 0x0501, 3, 5, 4, T0 + 100, NULL, 0);
	thread_payload(&s, 8, 4, 5, name);
	syn_end(&s, at);
	syn_buffer_end(&s);

	/* the same buffers, compressed: BufferSize = 0x48 + packed bytes */
	memset(&c, 0, sizeof(c));
	syn_put(&c, s.d, 8192);
	syn_set32(&c, 0x48 + 32 + 0x20, 0x04000000);	/* LogFileMode: compressed */
	syn_set16(&c, 0x2C, 3);				/* format: plain LZ77 */
	for (size_t b = 8192; b < s.n; b += 8192) {
		uint32_t saved = le32(s.d + b + 4);
		uint8_t *packed = malloc(2 * saved + 64);
		size_t plen = lz77_encode(s.d + b + 0x48, saved - 0x48, packed);
		size_t h = c.n;
		syn_put(&c, s.d + b, 0x48);
		syn_put(&c, packed, plen);
		syn_set32(&c, h, (uint32_t)(0x48 + plen));
		syn_set16(&c, h + 0x34, 0x0060);
		free(packed);
	}
	assert_true(c.n < s.n);
	/* both give the same events and payloads */
	struct pmu_etl *r1 = open_syn(&s, "plain", PMU_ETL_ORDER_FILE, NULL);
	struct probs p;
	struct pmu_etl *r2 = open_syn(&c, "packed", PMU_ETL_ORDER_FILE, &p);
	struct pmu_etl_event e1, e2;
	int a, b;
	unsigned n = 0;
	assert_true(pmu_etl_header(r2)->compressed);
	while ((a = pmu_etl_next(r1, &e1)) > 0 && (b = pmu_etl_next(r2, &e2)) > 0) {
		assert_int_equal(e1.raw_time, e2.raw_time);
		assert_int_equal(e1.payload_size, e2.payload_size);
		if (n++)	/* the log-file headers differ in LogFileMode */
			assert_memory_equal(e1.payload, e2.payload, e1.payload_size);
	}
	assert_int_equal(pmu_etl_next(r2, &e2), 0);
	assert_int_equal(n, 12);
	assert_int_equal(p.n, 0);
	struct pmu_etl_stats st;
	assert_int_equal(pmu_etl_stats(r2, &st, sizeof(st)), 0);
	assert_int_equal(st.compressed_buffers, 2);
	/* an older caller's struct ended before bytes_padding: not written */
	memset(&st, 0xa5, sizeof(st));
	assert_int_equal(pmu_etl_stats(r2, &st, offsetof(struct pmu_etl_stats, bytes_padding)), 0);
	assert_int_equal(st.compressed_buffers, 2);
	assert_int_equal(st.bytes_padding, 0xa5a5a5a5a5a5a5a5ull);
	assert_int_equal(pmu_etl_stats(r2, &st, 0), PMU_EINVAL);
	pmu_etl_close(r1);
	pmu_etl_close(r2);

	/* a SavedOffset beyond the logger's buffer size (8192) is corruption:
	 * reported, and the buffer is not inflated */
	size_t b2 = 8192 + le32(c.d + 8192);
	syn_set32(&c, b2 + 4, 8 << 20);
	r2 = open_syn(&c, "packbig", PMU_ETL_ORDER_FILE, &p);
	n = 0;
	while (pmu_etl_next(r2, &e2) > 0)
		n++;
	assert_int_equal(n, 11);
	assert_int_equal(p.n, 1);
	assert_non_null(strstr(p.last, "buffer 2 at offset"));
	assert_non_null(strstr(p.last, "SavedOffset 8388608 of a compressed buffer exceeds the "
				       "log-file header's 8192-byte buffers"));
	pmu_etl_close(r2);
	free(s.d);
	free(c.d);
}

/* header buffer + 4 buffers of 3 samples each */
static void four_buffers(struct syn *s)
{
	static const unsigned t[] = { 1, 2, 3 };

	syn_begin(s, 1024, 8, 1);
	for (int i = 0; i < 4; i++)
		cpu_buffer(s, 0, t, 3);
}

static unsigned count_events(struct pmu_etl *r, struct pmu_etl_stats *st)
{
	struct pmu_etl_event ev;
	unsigned n = 0;

	while (pmu_etl_next(r, &ev) > 0)
		n++;
	pmu_etl_stats(r, st, sizeof(*st));
	return n;
}

static void test_corrupt_buffer_size(void **state)
{
	struct syn s;
	struct probs p;
	struct pmu_etl_stats st;
	(void)state;

	four_buffers(&s);
	syn_set32(&s, 2 * 1024, 3);	/* buffer 2: BufferSize 3 */
	for (int order = 0; order < 2; order++) {
		struct pmu_etl *r = open_syn(&s, "bufsize", order, &p);
		assert_int_equal(count_events(r, &st), 1 + 3 * 3);
		assert_int_equal(p.n, 1);
		assert_non_null(strstr(p.last, "buffer 2 at offset 0x800"));
		assert_non_null(strstr(p.last, "WMI_BUFFER_HEADER"));
		assert_int_equal(st.bytes_skipped, 1024);
		assert_int_equal(st.problems, 1);
		pmu_etl_close(r);
	}
	free(s.d);
}

static void test_corrupt_record(void **state)
{
	struct syn s;
	struct probs p;
	struct pmu_etl_stats st;
	(void)state;

	four_buffers(&s);
	/* buffer 1, second record: size larger than the data left */
	size_t rec = 1024 + 0x48 + 32;
	syn_set16(&s, rec + 4, 900);
	struct pmu_etl *r = open_syn(&s, "recsize", PMU_ETL_ORDER_TIME, &p);
	assert_int_equal(count_events(r, &st), 1 + 1 + 3 * 3);
	assert_int_equal(p.n, 1);
	assert_non_null(strstr(p.last, "buffer 1 at offset 0x400, record at +0x68"));
	assert_non_null(strstr(p.last, "PERFINFO64"));
	assert_int_equal(st.bytes_skipped, 2 * 32);
	pmu_etl_close(r);

	/* a marker that is no trace header */
	syn_set32(&s, rec, 0);
	r = open_syn(&s, "marker", PMU_ETL_ORDER_TIME, &p);
	assert_int_equal(count_events(r, &st), 1 + 1 + 3 * 3);
	assert_non_null(strstr(p.last, "not a trace header"));
	pmu_etl_close(r);
	free(s.d);
}

static void test_truncated(void **state)
{
	struct syn s;
	struct probs p;
	struct pmu_etl_stats st;
	(void)state;

	four_buffers(&s);
	s.n = 4 * 1024 + 0x48 + 40;	/* last buffer: one record and a half */
	struct pmu_etl *r = open_syn(&s, "trunc", PMU_ETL_ORDER_TIME, &p);
	assert_int_equal(count_events(r, &st), 1 + 3 * 3 + 1);
	assert_true(p.n >= 1);
	assert_non_null(strstr(p.all, "buffer 4 at offset 0x1000"));
	assert_non_null(strstr(p.all, "truncated"));
	pmu_etl_close(r);
	s.n = 4 * 1024 + 20;	/* too short even for a buffer header */
	r = open_syn(&s, "trunc2", PMU_ETL_ORDER_FILE, &p);
	assert_int_equal(count_events(r, &st), 1 + 3 * 3);
	assert_non_null(strstr(p.last, "too short for a 72-byte WMI_BUFFER_HEADER"));
	assert_int_equal(st.bytes_skipped, 20);
	pmu_etl_close(r);
	free(s.d);
}

/* Random damage never crashes or hangs the reader. */
static void test_random_damage(void **state)
{
	struct syn s;
	struct pmu_etl_stats st;
	(void)state;

	syn_begin(&s, 4096, 8, 2);
	kernel64(&s);
	uint8_t *orig = malloc(s.n);
	memcpy(orig, s.d, s.n);
	srand(1234);
	for (int it = 0; it < 300; it++) {
		memcpy(s.d, orig, s.n);
		int k = 1 + rand() % 16;
		for (int j = 0; j < k; j++)
			s.d[0x48 + rand() % (s.n - 0x48)] = (uint8_t)rand();
		PMU_OPTS(pmu_etl_opts, o, .order = it & 1);
		struct pmu_etl *r;
		char *path = syn_write(&s, "damage");
		if (pmu_etl_open(path, &o, &r) == 0) {
			assert_true(count_events(r, &st) < 64);
			pmu_etl_close(r);
		}
		unlink(path);
	}
	free(orig);
	free(s.d);
}

static void test_lz77_bounds(void **state)
{
	uint8_t out[64];
	/* a match reaching before the output start stops the decoder */
	static const uint8_t bad[] = { 0, 0, 0, 0x80, 0xF8, 0x00 };
	static const uint8_t lit[] = { 0, 0, 0, 0, 'a', 'b', 'c' };
	(void)state;

	assert_int_equal(pmuk_etl_lz77(bad, sizeof(bad), out, sizeof(out)), 0);
	assert_int_equal(pmuk_etl_lz77(lit, sizeof(lit), out, sizeof(out)), 3);
	assert_memory_equal(out, "abc", 3);
	assert_int_equal(pmuk_etl_lz77(lit, 2, out, sizeof(out)), 0);
}

/* [MS-XCA] plain LZ77 as the specification spells it, one byte at a time. */
static size_t lz77_reference(const uint8_t *in, size_t n, uint8_t *out, size_t cap)
{
	size_t ip = 0, op = 0, half = 0;
	uint32_t flags = 0;
	int count = 0;

	for (;;) {
		if (!count) {
			if (ip + 4 > n)
				return op;
			flags = le32(in + ip);
			ip += 4;
			count = 32;
		}
		count--;
		if (!(flags & (1u << count))) {
			if (ip >= n || op >= cap)
				return op;
			out[op++] = in[ip++];
			continue;
		}
		if (ip + 2 > n)
			return op;
		uint32_t m = le16(in + ip);
		ip += 2;
		uint64_t len = m & 7, dist = (m >> 3) + 1;
		if (len == 7) {
			if (!half) {
				if (ip >= n)
					return op;
				len = in[ip] & 15;
				half = ++ip;
			} else {
				len = in[half - 1] >> 4;
				half = 0;
			}
			if (len == 15) {
				if (ip >= n)
					return op;
				len = in[ip++];
				if (len == 255) {
					if (ip + 2 > n)
						return op;
					len = le16(in + ip);
					ip += 2;
					if (!len) {
						if (ip + 4 > n)
							return op;
						len = le32(in + ip);
						ip += 4;
					}
					len -= 22;	/* wraps below 22: the copy stops at cap */
				}
				len += 15;
			}
			len += 7;
		}
		len += 3;
		if (dist > op)
			return op;
		for (uint64_t i = 0; i < len && op < cap; i++, op++)
			out[op] = out[op - dist];
		if (op >= cap)
			return op;
	}
}

/* A random well-formed stream: literals and matches of every length form
 * (including u32 lengths far past the output), distances within what was
 * written, often short (overlapping copies). Returns its size. */
static size_t lz77_random(uint8_t *in, size_t cap)
{
	size_t n = 0, op = 0, nib = 0;
	int pending = 0;

	while (n + 4 + 32 * 10 <= cap) {
		size_t flag_at = n;
		uint32_t flags = 0;
		n += 4;
		for (int bit = 31; bit >= 0; bit--) {
			if (!op || rand() % 3 == 0) {
				in[n++] = (uint8_t)rand();
				op++;
				continue;
			}
			flags |= 1u << bit;
			size_t lim = rand() % 2 ? 16 : 8192, dist = 1 + (size_t)rand() % (op < lim ? op : lim);
			uint64_t len;
			int form = rand() % 6;
			if (form == 0)
				len = 3 + (uint64_t)(rand() % 7);
			else if (form == 1)
				len = 10 + (uint64_t)(rand() % 15);
			else if (form == 2)
				len = 25 + (uint64_t)(rand() % 255);
			else if (form == 3)
				len = 3 + 0x100 + (uint64_t)(rand() % 3000);
			else if (form == 4)
				len = 3 + 0x10000 + (uint64_t)(rand() % 5000);
			else
				len = 3 + 0xFFFFFF00u + (uint64_t)(rand() % 0xFF);
			uint32_t code = len < 10 ? (uint32_t)(len - 3) : 7;
			uint32_t m = (uint32_t)((dist - 1) << 3 | code);
			in[n++] = (uint8_t)m, in[n++] = (uint8_t)(m >> 8);
			if (code == 7) {
				uint32_t x = len < 25 ? (uint32_t)(len - 10) : 15;
				if (!pending) {
					nib = n;
					in[n++] = (uint8_t)x;
				} else {
					in[nib] |= (uint8_t)(x << 4);
				}
				pending = !pending;
				if (x == 15) {
					if (len < 280) {
						in[n++] = (uint8_t)(len - 25);
					} else {
						in[n++] = 255;
						uint64_t v = len - 3;
						if (v < 0x10000) {
							in[n++] = (uint8_t)v, in[n++] = (uint8_t)(v >> 8);
						} else {
							in[n++] = 0, in[n++] = 0;
							syn_u32_at(in, n, (uint32_t)v);
							n += 4;
						}
					}
				}
			}
			op += (size_t)len;
		}
		syn_u32_at(in, flag_at, flags);
	}
	return n;
}

/* The decoder against the reference on random streams, well-formed and
 * damaged, into buffers of exactly the announced size so that ASan sees any
 * write past them. */
static void test_lz77_differential(void **state)
{
	static uint8_t in[4096];
	(void)state;

	srand(77);
	for (int it = 0; it < 4000; it++) {
		size_t n = lz77_random(in, 4 + 32 * 10 + (size_t)rand() % (sizeof(in) - 4 - 32 * 10));
		if (it & 1)	/* damage */
			for (int k = rand() % 8; k >= 0; k--)
				in[(size_t)rand() % n] = (uint8_t)rand();
		size_t cap = 1 + (size_t)rand() % (it % 4 < 2 ? 20000 : 600);
		uint8_t *a = malloc(cap), *b = malloc(cap);
		assert_non_null(a);
		assert_non_null(b);
		size_t ga = pmuk_etl_lz77(in, n, a, cap), gb = lz77_reference(in, n, b, cap);
		assert_int_equal(ga, gb);
		assert_memory_equal(a, b, ga);
		free(a);
		free(b);
	}
}

static void test_guid(void **state)
{
	struct pmu_guid g, h;
	char buf[40];
	(void)state;

	assert_int_equal(pmu_guid_parse("3d6fa8d1-fe05-11d0-9dda-00c04fd7ba7c", &g), 0);
	assert_int_equal(g.d1, 0x3d6fa8d1);
	assert_int_equal(g.d4[7], 0x7c);
	assert_int_equal(pmu_guid_format(&g, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "3d6fa8d1-fe05-11d0-9dda-00c04fd7ba7c");
	assert_string_equal(pmu_etl_provider_name(&g), "Thread");
	assert_int_equal(pmu_guid_parse("{3D6FA8D1-FE05-11D0-9DDA-00C04FD7BA7C}", &h), 0);
	assert_memory_equal(&g, &h, sizeof(g));
	assert_int_equal(pmu_etl_provider_lookup("thread", &h), 0);
	assert_memory_equal(&g, &h, sizeof(g));
	assert_int_equal(pmu_guid_parse("3d6fa8d1-fe05", &h), PMU_EPARSE);
	assert_int_equal(pmu_guid_parse("3d6fa8d1-fe05-11d0-9dda-00c04fd7ba7cff", &h), PMU_EPARSE);
	assert_int_equal(pmu_etl_provider_lookup("NoSuchProvider", &h), PMU_ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kernel_events_64),
		cmocka_unit_test(test_kernel_events_32),
		cmocka_unit_test(test_time_order),
		cmocka_unit_test(test_time_order_many_cpus),
		cmocka_unit_test(test_time_order_256_buffers),
		cmocka_unit_test(test_clock_types),
		cmocka_unit_test(test_compressed),
		cmocka_unit_test(test_corrupt_buffer_size),
		cmocka_unit_test(test_corrupt_record),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_random_damage),
		cmocka_unit_test(test_lz77_bounds),
		cmocka_unit_test(test_lz77_differential),
		cmocka_unit_test(test_guid),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
