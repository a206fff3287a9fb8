/* SPDX-License-Identifier: MIT */
/* The record decoder on records laid out byte by byte per the perf_event ABI:
 * every sample_type combination, call chains, sample_id_all trailers, truncation. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <pmukit/error.h>

#include "linux/sample_decode.h"
#include "perf_records.h"

/* Every combination of the fixed-size sample fields, in ABI order. */
static void test_sample_combinations(void **state)
{
	static const uint64_t bits[] = {
		PERF_SAMPLE_IDENTIFIER, PERF_SAMPLE_IP, PERF_SAMPLE_TID, PERF_SAMPLE_TIME,
		PERF_SAMPLE_ADDR, PERF_SAMPLE_ID, PERF_SAMPLE_STREAM_ID, PERF_SAMPLE_CPU,
		PERF_SAMPLE_PERIOD,
	};
	const size_t nb = sizeof(bits) / sizeof(bits[0]);

	(void)state;
	for (unsigned m = 0; m < (1u << nb); m++) {
		struct pmuk_sample_fmt fmt = { 0 };
		struct pmu_record pr;
		struct rec r;
		size_t size;

		for (size_t b = 0; b < nb; b++)
			if (m & (1u << b))
				fmt.sample_type |= bits[b];
		rec_start(&r);
		if (m & 1)
			put64(&r, 0x1d);            /* identifier */
		if (m & 2)
			put64(&r, 0xffffffff81000010ull);
		if (m & 4)
			put32(&r, 100, 101);
		if (m & 8)
			put64(&r, 5000000000ull);
		if (m & 16)
			put64(&r, 0x7ffd0000);
		if (m & 32)
			put64(&r, 0x1d);            /* id, same as identifier */
		if (m & 64)
			put64(&r, 0x5e);
		if (m & 128)
			put32(&r, 3, 0);
		if (m & 256)
			put64(&r, 250000);
		size = rec_end(&r, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_KERNEL);
		assert_int_equal(pmuk_decode_record(&fmt, r.w, size, &pr), 0);
		assert_int_equal(pr.kind, PMU_RECORD_SAMPLE);
		assert_int_equal(pr.cpumode, PMU_CPUMODE_KERNEL);
		assert_int_equal(pr.sample.ip, m & 2 ? 0xffffffff81000010ull : 0);
		assert_int_equal(pr.pid, m & 4 ? 100 : -1);
		assert_int_equal(pr.tid, m & 4 ? 101 : -1);
		assert_int_equal(pr.time, m & 8 ? 5000000000ull : 0);
		assert_int_equal(pr.sample.addr, m & 16 ? 0x7ffd0000 : 0);
		assert_int_equal(pr.id, m & 33 ? 0x1d : 0);
		assert_int_equal(pr.stream_id, m & 64 ? 0x5e : 0);
		assert_int_equal(pr.cpu, m & 128 ? 3 : -1);
		assert_int_equal(pr.sample.period, m & 256 ? 250000 : 0);
		assert_int_equal(!!(pr.has & PMU_HAS_IP), !!(m & 2));
		assert_int_equal(!!(pr.has & PMU_HAS_CPU), !!(m & 128));
		assert_int_equal(!!(pr.has & PMU_HAS_ID), !!(m & 33));
		/* each shorter record is rejected */
		for (size_t cut = 8; cut < size; cut += 8)
			assert_int_equal(pmuk_decode_record(&fmt, r.w, cut, &pr), PMU_EFORMAT);
	}
}

static void test_callchain(void **state)
{
	struct pmuk_sample_fmt fmt = { .sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_CALLCHAIN |
					PERF_SAMPLE_PERIOD };
	struct pmu_record pr;
	struct rec r;
	size_t size;

	(void)state;
	rec_start(&r);
	put64(&r, 0xffffffff81000100ull);
	put64(&r, 999);        /* period comes before the chain */
	put64(&r, 7);
	put64(&r, PERF_CONTEXT_KERNEL);
	put64(&r, 0xffffffff81000100ull);
	put64(&r, 0xffffffff81000200ull);
	put64(&r, PERF_CONTEXT_USER);
	put64(&r, 0x401000);
	put64(&r, 0x401100);
	put64(&r, 0x401200);
	size = rec_end(&r, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_KERNEL);
	assert_int_equal(pmuk_decode_record(&fmt, r.w, size, &pr), 0);
	assert_true(pr.has & PMU_HAS_CALLCHAIN);
	assert_int_equal(pr.sample.nr_callchain, 5);
	assert_int_equal(pr.sample.nr_kernel_frames, 2);
	assert_int_equal(pr.sample.callchain[0], 0xffffffff81000100ull);
	assert_int_equal(pr.sample.callchain[1], 0xffffffff81000200ull);
	assert_int_equal(pr.sample.callchain[2], 0x401000);
	assert_int_equal(pr.sample.callchain[4], 0x401200);
	assert_int_equal(pr.sample.period, 999);

	/* user only */
	rec_start(&r);
	put64(&r, 0x401000);
	put64(&r, 1);
	put64(&r, 3);
	put64(&r, PERF_CONTEXT_USER);
	put64(&r, 0x401000);
	put64(&r, 0x402000);
	size = rec_end(&r, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
	assert_int_equal(pmuk_decode_record(&fmt, r.w, size, &pr), 0);
	assert_int_equal(pr.sample.nr_callchain, 2);
	assert_int_equal(pr.sample.nr_kernel_frames, 0);
	assert_int_equal(pr.sample.callchain[1], 0x402000);

	/* nr larger than the record */
	rec_start(&r);
	put64(&r, 0x401000);
	put64(&r, 1);
	put64(&r, 1000);
	size = rec_end(&r, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
	assert_int_equal(pmuk_decode_record(&fmt, r.w, size, &pr), PMU_EFORMAT);
	assert_non_null(strstr(pmu_error_detail(), "does not match sample_type 0x"));
}

/* READ (group), RAW and BRANCH_STACK are stepped over; the fields after them land. */
static void test_sample_skips(void **state)
{
	struct pmuk_sample_fmt fmt = {
		.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_READ | PERF_SAMPLE_RAW |
			       PERF_SAMPLE_BRANCH_STACK | PERF_SAMPLE_WEIGHT | PERF_SAMPLE_DATA_SRC |
			       PERF_SAMPLE_PHYS_ADDR,
		.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_ID | PERF_FORMAT_TOTAL_TIME_ENABLED,
	};
	struct pmu_record pr;
	struct rec r;
	size_t size;

	(void)state;
	rec_start(&r);
	put64(&r, 0x1234);
	put64(&r, 2);          /* read: nr */
	put64(&r, 1000);       /* time_enabled */
	put64(&r, 11); put64(&r, 1);
	put64(&r, 22); put64(&r, 2);
	put32(&r, 12, 0xaaaa); /* raw: u32 size 12 + 12 bytes = 16 */
	put64(&r, 0xbbbbbbbb);
	put64(&r, 2);          /* branch stack: nr */
	put64(&r, 0x10); put64(&r, 0x20); put64(&r, 0);
	put64(&r, 0x30); put64(&r, 0x40); put64(&r, 1);
	put64(&r, 77);         /* weight */
	put64(&r, 0x1000142);  /* data_src */
	put64(&r, 0xdead000);  /* phys_addr */
	size = rec_end(&r, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER | PERF_RECORD_MISC_EXACT_IP);
	assert_int_equal(pmuk_decode_record(&fmt, r.w, size, &pr), 0);
	assert_int_equal(pr.sample.ip, 0x1234);
	assert_int_equal(pr.sample.exact_ip, 1);
	assert_int_equal(pr.sample.nr_branches, 2);
	assert_int_equal(pr.sample.branches[1].from, 0x30);
	assert_int_equal(pr.sample.branches[1].to, 0x40);
	assert_int_equal(pr.sample.weight, 77);
	assert_int_equal(pr.sample.data_src, 0x1000142);
	assert_int_equal(pr.sample.phys_addr, 0xdead000);
	assert_true(pr.has & PMU_HAS_DATA_SRC);
	assert_true(pr.has & PMU_HAS_BRANCH_STACK);
	for (size_t cut = 8; cut < size; cut += 8)
		assert_int_equal(pmuk_decode_record(&fmt, r.w, cut, &pr), PMU_EFORMAT);
}

/* The fields after the branch stack, in the order perf_output_sample() writes them
 * (CGROUP and the page sizes before AUX, unlike the header's comment). */
static void test_sample_tail_fields(void **state)
{
	struct pmuk_sample_fmt fmt = {
		.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER |
			       (1ull << 24) /* WEIGHT_STRUCT */ | PERF_SAMPLE_DATA_SRC |
			       PERF_SAMPLE_TRANSACTION | PERF_SAMPLE_REGS_INTR |
			       PERF_SAMPLE_PHYS_ADDR | (1ull << 21) /* CGROUP */ |
			       (1ull << 22) /* DATA_PAGE_SIZE */ | (1ull << 23) /* CODE_PAGE_SIZE */ |
			       (1ull << 20) /* AUX */,
		.regs_user = 0x7,      /* three registers */
		.regs_intr = 0x30,     /* two, but abi NONE: none follow */
	};
	struct pmu_record pr;
	struct rec r;
	size_t size;

	(void)state;
	rec_start(&r);
	put64(&r, 0x401000);
	put64(&r, 2);          /* regs_user: abi 64-bit */
	put64(&r, 0xa1); put64(&r, 0xa2); put64(&r, 0xa3);
	put64(&r, 16);         /* stack_user: size */
	put64(&r, 0x1111); put64(&r, 0x2222);
	put64(&r, 12);         /* dyn_size */
	put64(&r, (7ull << 48) | (9ull << 32) | 250); /* weight: var3, var2, var1 = 250 */
	put64(&r, 0x1000142);  /* data_src */
	put64(&r, 0x55);       /* transaction */
	put64(&r, 0);          /* regs_intr: abi NONE */
	put64(&r, 0xbeef000);  /* phys_addr */
	put64(&r, 77);         /* cgroup id */
	put64(&r, 4096);       /* data_page_size */
	put64(&r, 2 << 20);    /* code_page_size */
	put64(&r, 8);          /* aux: size */
	put64(&r, 0xaaaa);
	size = rec_end(&r, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
	assert_int_equal(pmuk_decode_record(&fmt, r.w, size, &pr), 0);
	assert_int_equal(pr.sample.ip, 0x401000);
	assert_int_equal(pr.sample.weight, 250);
	assert_int_equal(pr.sample.data_src, 0x1000142);
	assert_int_equal(pr.sample.phys_addr, 0xbeef000);
	assert_true(pr.has & PMU_HAS_WEIGHT);
	assert_true(pr.has & PMU_HAS_PHYS_ADDR);
	for (size_t cut = 8; cut < size; cut += 8)
		assert_int_equal(pmuk_decode_record(&fmt, r.w, cut, &pr), PMU_EFORMAT);
	/* a word more than the format accounts for: not this format */
	put64(&r, 0);
	size = rec_end(&r, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
	assert_int_equal(pmuk_decode_record(&fmt, r.w, size, &pr), PMU_EFORMAT);
	assert_non_null(strstr(pmu_error_detail(), "another format"));

	/* an empty user stack has no dyn_size; no user regs (kernel thread); plain WEIGHT */
	fmt.sample_type = PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER | PERF_SAMPLE_WEIGHT |
			  PERF_SAMPLE_DATA_SRC;
	rec_start(&r);
	put64(&r, 0);          /* regs_user: abi NONE */
	put64(&r, 0);          /* stack_user: size 0 */
	put64(&r, (1ull << 40) | 5);
	put64(&r, 0x42);
	size = rec_end(&r, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_KERNEL);
	assert_int_equal(pmuk_decode_record(&fmt, r.w, size, &pr), 0);
	assert_int_equal(pr.sample.weight, (1ull << 40) | 5);
	assert_int_equal(pr.sample.data_src, 0x42);

	/* sample_type bits newer than the decoder are refused, not misread */
	fmt.sample_type = PERF_SAMPLE_IP | (1ull << 25);
	rec_start(&r);
	put64(&r, 0x401000);
	put64(&r, 1);
	size = rec_end(&r, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
	assert_int_equal(pmuk_decode_record(&fmt, r.w, size, &pr), PMU_EFORMAT);
	assert_non_null(strstr(pmu_error_detail(), "does not know (0x2000000)"));
}

/* READ without PERF_FORMAT_GROUP: {value, enabled, running, id, lost}. */
static void test_sample_read_single(void **state)
{
	struct pmuk_sample_fmt fmt = {
		.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_READ | PERF_SAMPLE_CALLCHAIN,
		.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING |
			       PERF_FORMAT_ID | (1u << 4) /* LOST */,
	};
	struct pmu_record pr;
	struct rec r;
	size_t size;

	(void)state;
	rec_start(&r);
	put32(&r, 7, 8);
	put64(&r, 123456); put64(&r, 1000); put64(&r, 900); put64(&r, 0x42); put64(&r, 3);
	put64(&r, 2);          /* callchain nr */
	put64(&r, 0x401000); put64(&r, 0x402000);
	size = rec_end(&r, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
	assert_int_equal(pmuk_decode_record(&fmt, r.w, size, &pr), 0);
	assert_int_equal(pr.tid, 8);
	assert_int_equal(pr.sample.nr_callchain, 2);
	assert_int_equal(pr.sample.callchain[1], 0x402000);
	/* GROUP with LOST: {nr, enabled, running, {value, id, lost}[nr]} */
	fmt.read_format |= PERF_FORMAT_GROUP;
	rec_start(&r);
	put32(&r, 7, 8);
	put64(&r, 2); put64(&r, 1000); put64(&r, 900);
	put64(&r, 11); put64(&r, 1); put64(&r, 0);
	put64(&r, 22); put64(&r, 2); put64(&r, 5);
	put64(&r, 1);
	put64(&r, 0x403000);
	size = rec_end(&r, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
	assert_int_equal(pmuk_decode_record(&fmt, r.w, size, &pr), 0);
	assert_int_equal(pr.sample.nr_callchain, 1);
	assert_int_equal(pr.sample.callchain[0], 0x403000);
}

/* branch_sample_type HW_INDEX puts hw_idx after nr -- but only when the PMU saved a
 * stack: a sample without one is a bare nr = 0 (perf_output_sample()). COUNTERS
 * appends one u64 per entry. */
static void test_branch_hw_index(void **state)
{
	struct pmuk_sample_fmt fmt = {
		.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_BRANCH_STACK | PERF_SAMPLE_WEIGHT |
			       PERF_SAMPLE_DATA_SRC,
		.branch_sample_type = PERF_SAMPLE_BRANCH_ANY | (1u << 17) /* HW_INDEX */,
	};
	struct pmu_record pr;
	struct rec r;
	size_t size;

	(void)state;
	/* two entries after hw_idx */
	rec_start(&r);
	put64(&r, 0x401000);
	put64(&r, 2);
	put64(&r, 31);         /* hw_idx */
	put64(&r, 0x10); put64(&r, 0x20); put64(&r, 0);
	put64(&r, 0x30); put64(&r, 0x40); put64(&r, 0);
	put64(&r, 66);         /* weight */
	put64(&r, 0x99);       /* data_src */
	size = rec_end(&r, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
	assert_int_equal(pmuk_decode_record(&fmt, r.w, size, &pr), 0);
	assert_int_equal(pr.sample.nr_branches, 2);
	assert_int_equal(pr.sample.branches[0].from, 0x10);
	assert_int_equal(pr.sample.branches[1].to, 0x40);
	assert_int_equal(pr.sample.weight, 66);
	assert_int_equal(pr.sample.data_src, 0x99);

	/* an empty stack the PMU saved: nr = 0, hw_idx = -1 */
	rec_start(&r);
	put64(&r, 0x401000);
	put64(&r, 0);
	put64(&r, (uint64_t)-1);
	put64(&r, 66);
	put64(&r, 0x99);
	size = rec_end(&r, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
	assert_int_equal(pmuk_decode_record(&fmt, r.w, size, &pr), 0);
	assert_int_equal(pr.sample.nr_branches, 0);
	assert_int_equal(pr.sample.weight, 66);
	assert_int_equal(pr.sample.data_src, 0x99);

	/* no stack saved at all: a bare nr = 0, no hw_idx */
	rec_start(&r);
	put64(&r, 0x401000);
	put64(&r, 0);
	put64(&r, 66);
	put64(&r, 0x99);
	size = rec_end(&r, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
	assert_int_equal(pmuk_decode_record(&fmt, r.w, size, &pr), 0);
	assert_int_equal(pr.sample.nr_branches, 0);
	assert_int_equal(pr.sample.weight, 66);
	assert_int_equal(pr.sample.data_src, 0x99);
	/* ... and as the last field */
	fmt.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_BRANCH_STACK;
	rec_start(&r);
	put64(&r, 0x401000);
	put64(&r, 0);
	size = rec_end(&r, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
	assert_int_equal(pmuk_decode_record(&fmt, r.w, size, &pr), 0);
	assert_int_equal(pr.sample.nr_branches, 0);

	/* COUNTERS: {from, to, flags}[nr] then counters[nr] */
	fmt.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_BRANCH_STACK | PERF_SAMPLE_WEIGHT;
	fmt.branch_sample_type = PERF_SAMPLE_BRANCH_ANY | (1u << 19) /* COUNTERS */;
	rec_start(&r);
	put64(&r, 0x401000);
	put64(&r, 1);
	put64(&r, 0x50); put64(&r, 0x60); put64(&r, 0);
	put64(&r, 0x3);        /* counters[0] */
	put64(&r, 44);
	size = rec_end(&r, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
	assert_int_equal(pmuk_decode_record(&fmt, r.w, size, &pr), 0);
	assert_int_equal(pr.sample.nr_branches, 1);
	assert_int_equal(pr.sample.branches[0].to, 0x60);
	assert_int_equal(pr.sample.weight, 44);
}

/* sample_id_all trailer: TID, TIME, ID, CPU, IDENTIFIER */
static const struct pmuk_sample_fmt trailer_fmt = {
	.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
		       PERF_SAMPLE_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD,
	.sample_id_all = 1,
};

static void put_trailer(struct rec *r)
{
	put32(r, 300, 301);
	put64(r, 7777);
	put64(r, 0x42);
	put32(r, 1, 0);
	put64(r, 0x42);
}

static void check_trailer(const struct pmu_record *pr, int body_tid)
{
	if (!body_tid) {
		assert_int_equal(pr->pid, 300);
		assert_int_equal(pr->tid, 301);
	}
	assert_int_equal(pr->cpu, 1);
	assert_int_equal(pr->id, 0x42);
	assert_true(pr->has & PMU_HAS_CPU);
}

static void test_side_records(void **state)
{
	struct pmu_record pr;
	struct rec r;
	size_t size;

	(void)state;
	/* LOST {id, lost} */
	rec_start(&r);
	put64(&r, 0x42);
	put64(&r, 17);
	put_trailer(&r);
	size = rec_end(&r, PERF_RECORD_LOST, 0);
	assert_int_equal(pmuk_decode_record(&trailer_fmt, r.w, size, &pr), 0);
	assert_int_equal(pr.kind, PMU_RECORD_LOST);
	assert_int_equal(pr.lost.count, 17);
	assert_int_equal(pr.lost.samples, 0);
	assert_int_equal(pr.time, 7777);
	check_trailer(&pr, 0);
	for (size_t cut = 8; cut < size; cut += 8)
		assert_int_equal(pmuk_decode_record(&trailer_fmt, r.w, cut, &pr), PMU_EFORMAT);

	/* LOST_SAMPLES {lost} */
	rec_start(&r);
	put64(&r, 5);
	put_trailer(&r);
	size = rec_end(&r, 13, 0);
	assert_int_equal(pmuk_decode_record(&trailer_fmt, r.w, size, &pr), 0);
	assert_int_equal(pr.kind, PMU_RECORD_LOST);
	assert_int_equal(pr.lost.samples, 1);
	assert_int_equal(pr.lost.count, 5);
	check_trailer(&pr, 0);

	/* THROTTLE / UNTHROTTLE {time, id, stream_id} */
	for (int un = 0; un < 2; un++) {
		rec_start(&r);
		put64(&r, 8888);
		put64(&r, 0x42);
		put64(&r, 0x43);
		put_trailer(&r);
		size = rec_end(&r, un ? PERF_RECORD_UNTHROTTLE : PERF_RECORD_THROTTLE, 0);
		assert_int_equal(pmuk_decode_record(&trailer_fmt, r.w, size, &pr), 0);
		assert_int_equal(pr.kind, un ? PMU_RECORD_UNTHROTTLE : PMU_RECORD_THROTTLE);
		assert_int_equal(pr.time, 8888);
		assert_int_equal(pr.stream_id, 0x43);
		check_trailer(&pr, 0);
	}

	/* COMM {pid, tid, comm[]} with exec */
	rec_start(&r);
	put32(&r, 500, 501);
	putstr(&r, "spinner-thread");
	put_trailer(&r);
	size = rec_end(&r, PERF_RECORD_COMM, PERF_RECORD_MISC_COMM_EXEC);
	assert_int_equal(pmuk_decode_record(&trailer_fmt, r.w, size, &pr), 0);
	assert_int_equal(pr.kind, PMU_RECORD_COMM);
	assert_string_equal(pr.comm.name, "spinner-thread");
	assert_int_equal(pr.comm.exec, 1);
	assert_int_equal(pr.pid, 500);
	assert_int_equal(pr.tid, 501);
	check_trailer(&pr, 1);
	/* no room for the name */
	rec_start(&r);
	put32(&r, 500, 501);
	put_trailer(&r);
	size = rec_end(&r, PERF_RECORD_COMM, 0);
	assert_int_equal(pmuk_decode_record(&trailer_fmt, r.w, size, &pr), PMU_EFORMAT);

	/* FORK {pid, ppid, tid, ptid, time} */
	rec_start(&r);
	put32(&r, 600, 1);
	put32(&r, 601, 2);
	put64(&r, 9999);
	put_trailer(&r);
	size = rec_end(&r, PERF_RECORD_FORK, 0);
	assert_int_equal(pmuk_decode_record(&trailer_fmt, r.w, size, &pr), 0);
	assert_int_equal(pr.kind, PMU_RECORD_FORK);
	assert_int_equal(pr.pid, 600);
	assert_int_equal(pr.task.ppid, 1);
	assert_int_equal(pr.tid, 601);
	assert_int_equal(pr.task.ptid, 2);
	assert_int_equal(pr.time, 9999);
	size = rec_end(&r, PERF_RECORD_EXIT, 0);
	assert_int_equal(pmuk_decode_record(&trailer_fmt, r.w, size, &pr), 0);
	assert_int_equal(pr.kind, PMU_RECORD_EXIT);

	/* SWITCH_CPU_WIDE {next_prev_pid, next_prev_tid}, out + preempt */
	rec_start(&r);
	put32(&r, 700, 701);
	put_trailer(&r);
	size = rec_end(&r, 15, PERF_RECORD_MISC_SWITCH_OUT | (1 << 14));
	assert_int_equal(pmuk_decode_record(&trailer_fmt, r.w, size, &pr), 0);
	assert_int_equal(pr.kind, PMU_RECORD_SWITCH);
	assert_int_equal(pr.sw.out, 1);
	assert_int_equal(pr.sw.preempt, 1);
	assert_int_equal(pr.sw.other_pid, 700);
	assert_int_equal(pr.sw.other_tid, 701);

	/* SWITCH (per thread): no body, only the trailer */
	rec_start(&r);
	put_trailer(&r);
	size = rec_end(&r, 14, 0);
	assert_int_equal(pmuk_decode_record(&trailer_fmt, r.w, size, &pr), 0);
	assert_int_equal(pr.kind, PMU_RECORD_SWITCH);
	assert_int_equal(pr.sw.out, 0);
	assert_int_equal(pr.sw.other_pid, -1);
	assert_int_equal(pr.time, 7777);
	check_trailer(&pr, 0);
	assert_int_equal(pmuk_decode_record(&trailer_fmt, r.w, size - 8, &pr), PMU_EFORMAT);
	assert_non_null(strstr(pmu_error_detail(), "sample_id trailer"));

	/* kinds outside the model are skipped, not errors */
	rec_start(&r);
	put64(&r, 1);
	size = rec_end(&r, 17 /* KSYMBOL */, 0);
	assert_int_equal(pmuk_decode_record(&trailer_fmt, r.w, size, &pr), 1);
}

static void test_mmap2(void **state)
{
	struct pmu_record pr;
	struct rec r;
	size_t size;

	(void)state;
	/* {pid, tid, addr, len, pgoff, maj, min, ino, ino_generation, prot, flags, filename} */
	rec_start(&r);
	put32(&r, 800, 801);
	put64(&r, 0x7f0000000000ull);
	put64(&r, 0x21000);
	put64(&r, 0x1000);
	put32(&r, 8, 1);
	put64(&r, 123456);
	put64(&r, 3);
	put32(&r, 5 /* PROT_READ|PROT_EXEC */, 2 /* MAP_PRIVATE */);
	putstr(&r, "/usr/lib/x86_64-linux-gnu/libc.so.6");
	put_trailer(&r);
	size = rec_end(&r, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER);
	assert_int_equal(pmuk_decode_record(&trailer_fmt, r.w, size, &pr), 0);
	assert_int_equal(pr.kind, PMU_RECORD_MMAP);
	assert_int_equal(pr.pid, 800);
	assert_int_equal(pr.tid, 801);
	assert_int_equal(pr.mmap.start, 0x7f0000000000ull);
	assert_int_equal(pr.mmap.len, 0x21000);
	assert_int_equal(pr.mmap.pgoff, 0x1000);
	assert_int_equal(pr.mmap.maj, 8);
	assert_int_equal(pr.mmap.min, 1);
	assert_int_equal(pr.mmap.ino, 123456);
	assert_int_equal(pr.mmap.ino_generation, 3);
	assert_int_equal(pr.mmap.prot, 5);
	assert_int_equal(pr.mmap.flags, 2);
	assert_int_equal(pr.mmap.build_id_size, 0);
	assert_string_equal(pr.mmap.path, "/usr/lib/x86_64-linux-gnu/libc.so.6");
	assert_int_equal(pr.cpumode, PMU_CPUMODE_USER);
	assert_int_equal(pr.time, 7777);
	check_trailer(&pr, 1);

	/* the build-id variant of the union */
	rec_start(&r);
	put32(&r, 800, 801);
	put64(&r, 0x400000);
	put64(&r, 0x1000);
	put64(&r, 0);
	{
		unsigned char u[24] = { 20, 0, 0, 0 };

		for (int i = 0; i < 20; i++)
			u[4 + i] = (unsigned char)(0xa0 + i);
		memcpy(&r.w[r.n], u, 24);
		r.n += 3;
	}
	put32(&r, 5, 2);
	putstr(&r, "/bin/true");
	put_trailer(&r);
	size = rec_end(&r, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER | (1 << 14));
	assert_int_equal(pmuk_decode_record(&trailer_fmt, r.w, size, &pr), 0);
	assert_int_equal(pr.mmap.build_id_size, 20);
	assert_int_equal(pr.mmap.build_id[0], 0xa0);
	assert_int_equal(pr.mmap.build_id[19], 0xb3);
	assert_int_equal(pr.mmap.maj, 0);
	assert_string_equal(pr.mmap.path, "/bin/true");
	for (size_t cut = 8; cut < size - 16; cut += 8)
		assert_int_equal(pmuk_decode_record(&trailer_fmt, r.w, cut, &pr), PMU_EFORMAT);

	/* an unterminated path is cut, never read past the record */
	rec_start(&r);
	put32(&r, 1, 1);
	put64(&r, 0x400000);
	put64(&r, 0x1000);
	put64(&r, 0);
	memcpy(&r.w[r.n++], "ABCDEFGH", 8);
	size = rec_end(&r, PERF_RECORD_MMAP, 0);
	assert_int_equal(pmuk_decode_record(&(struct pmuk_sample_fmt){ 0 }, r.w, size, &pr), 0);
	assert_string_equal(pr.mmap.path, "ABCDEFG");
}

/* The ext variant: raw payload, user registers and stack, transaction, page
 * sizes, in the kernel's order; the plain entry point leaves ext alone. */
static void test_sample_ext(void **state)
{
	struct pmuk_sample_fmt fmt = {
		.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_RAW | PERF_SAMPLE_REGS_USER |
			       PERF_SAMPLE_STACK_USER | PERF_SAMPLE_TRANSACTION |
			       PERF_SAMPLE_DATA_PAGE_SIZE | PERF_SAMPLE_CODE_PAGE_SIZE,
		.regs_user = 0x7,   /* three registers */
	};
	struct pmu_sample_ext x;
	struct pmu_record pr;
	struct rec r;
	size_t size;

	(void)state;
	rec_start(&r);
	put64(&r, 0x401000);
	put32(&r, 12, 0x64636261);            /* raw: u32 size 12, "abcd" ... */
	put64(&r, 0x6867666500000000ull | 0); /* ... 8 more payload bytes */
	put64(&r, 2);                         /* regs abi 64 */
	put64(&r, 0x11);
	put64(&r, 0x22);
	put64(&r, 0x33);
	put64(&r, 16);                        /* stack: size 16 */
	put64(&r, 0xaaaaaaaaaaaaaaaaull);
	put64(&r, 0xbbbbbbbbbbbbbbbbull);
	put64(&r, 8);                         /* dyn_size */
	put64(&r, 0x5);                       /* transaction */
	put64(&r, 4096);                      /* data page size */
	put64(&r, 2 << 20);                   /* code page size */
	size = rec_end(&r, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
	assert_int_equal(pmuk_decode_record_ext(&fmt, r.w, size, &pr, &x), 0);
	assert_true(pr.has & PMU_HAS_RAW);
	assert_true(pr.has & PMU_HAS_REGS_USER);
	assert_true(pr.has & PMU_HAS_STACK_USER);
	assert_ptr_equal(pr.sample.ext, &x);
	assert_int_equal(x.sz, sizeof(x));
	assert_int_equal(x.raw_size, 12);
	assert_memory_equal(x.raw, "abcd", 4);
	assert_int_equal(x.regs_abi, 2);
	assert_int_equal(x.nr_regs, 3);
	assert_int_equal(x.regs_mask, 0x7);
	assert_int_equal(x.regs[2], 0x33);
	assert_int_equal(x.stack_size, 8);
	assert_int_equal(x.stack[0], 0xaa);
	assert_int_equal(x.transaction, 5);
	assert_int_equal(x.data_page_size, 4096);
	assert_int_equal(x.code_page_size, 2 << 20);

	/* the old entry point: same record, no ext bits */
	assert_int_equal(pmuk_decode_record(&fmt, r.w, size, &pr), 0);
	assert_false(pr.has & (PMU_HAS_RAW | PMU_HAS_REGS_USER | PMU_HAS_STACK_USER));

	/* a kernel thread: regs abi 0, no registers follow */
	rec_start(&r);
	put64(&r, 0xffffffff81000000ull);
	put32(&r, 4, 0);                      /* raw: 4 bytes */
	put64(&r, 0);                         /* abi none */
	put64(&r, 0);                         /* stack size 0: no dyn_size */
	put64(&r, 0);
	put64(&r, 0);
	put64(&r, 0);
	size = rec_end(&r, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_KERNEL);
	assert_int_equal(pmuk_decode_record_ext(&fmt, r.w, size, &pr, &x), 0);
	assert_int_equal(x.nr_regs, 0);
	assert_int_equal(x.regs_abi, 0);
	assert_int_equal(x.stack_size, 0);
	assert_int_equal(x.raw_size, 4);
	/* each shorter record is refused */
	for (size_t cut = 8; cut < size; cut += 8)
		assert_int_equal(pmuk_decode_record_ext(&fmt, r.w, cut, &pr, &x), PMU_EFORMAT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sample_combinations),
		cmocka_unit_test(test_callchain),
		cmocka_unit_test(test_sample_skips),
		cmocka_unit_test(test_sample_tail_fields),
		cmocka_unit_test(test_sample_read_single),
		cmocka_unit_test(test_branch_hw_index),
		cmocka_unit_test(test_side_records),
		cmocka_unit_test(test_mmap2),
		cmocka_unit_test(test_sample_ext),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
