/* SPDX-License-Identifier: MIT */
/* DWARF unwinding of a sample the way --call-graph dwarf records one, without the
 * recorder: this file is built -O2 -fomit-frame-pointer (tests/CMakeLists.txt), so
 * no frame pointer chain exists; unw_c() captures its own user registers (perf_regs
 * order, inline asm) and copies the stack from its sp, the test builds MMAP records
 * from /proc/self/maps and a sample record carrying both, and
 * pmu_symbolizer_unwind + pmu_symbolizer_resolve_pid must give unw_c, unw_b, unw_a,
 * test_unwind in that order. x86_64 only (the capture is x86_64 asm); skips (77)
 * without libdw. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <pmukit/error.h>
#include <pmukit/symbols.h>

#if defined(__clang__)
#define KEEP __attribute__((noinline))
#else
#define KEEP __attribute__((noinline, noipa))
#endif

#define PERF_REGS 24           /* AX .. R15 of perf_regs (x86_64) */
#define STACK_MAX 16384

static uint64_t regs[PERF_REGS];
static uint8_t stack_copy[STACK_MAX];
static uint64_t stack_len;
static volatile int sink;

/* The end of the mapping holding addr in /proc/self/maps (0 if none). */
KEEP static uint64_t mapping_end(uint64_t addr)
{
	char line[8192];
	unsigned long long a, b;
	uint64_t end = 0;
	FILE *f = fopen("/proc/self/maps", "r");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx-%llx", &a, &b) == 2 && addr >= a && addr < b)
			end = b;
	if (f)
		fclose(f);
	return end;
}

/* The raw stack, redzones of AddressSanitizer builds included. */
KEEP __attribute__((no_sanitize("address"))) static void copy_stack(uint8_t *dst,
								   uintptr_t src, size_t n)
{
	const volatile uint8_t *p = (const volatile uint8_t *)src;

	for (size_t i = 0; i < n; i++)
		dst[i] = p[i];
}

KEEP int unw_c(int x)
{
#if defined(__x86_64__)
	uint64_t *r = regs, end;

	__asm__ volatile("movq %%rax, 0(%0)\n\t"
			 "movq %%rbx, 8(%0)\n\t"
			 "movq %%rcx, 16(%0)\n\t"
			 "movq %%rdx, 24(%0)\n\t"
			 "movq %%rsi, 32(%0)\n\t"
			 "movq %%rdi, 40(%0)\n\t"
			 "movq %%rbp, 48(%0)\n\t"
			 "movq %%rsp, 56(%0)\n\t"
			 "leaq 0(%%rip), %%rax\n\t"
			 "movq %%rax, 64(%0)\n\t"
			 "movq %%r8, 128(%0)\n\t"
			 "movq %%r9, 136(%0)\n\t"
			 "movq %%r10, 144(%0)\n\t"
			 "movq %%r11, 152(%0)\n\t"
			 "movq %%r12, 160(%0)\n\t"
			 "movq %%r13, 168(%0)\n\t"
			 "movq %%r14, 176(%0)\n\t"
			 "movq %%r15, 184(%0)\n\t"
			 : : "r"(r) : "rax", "memory");
	/* The stack above sp stays as it was: what runs now lives below it. */
	end = mapping_end(regs[7]);
	stack_len = end - regs[7] < STACK_MAX ? end - regs[7] : STACK_MAX;
	copy_stack(stack_copy, (uintptr_t)regs[7], stack_len);
#endif
	sink = x;
	return x + 3;
}

KEEP int unw_b(int x)
{
	return unw_c(x * 2) + 1;
}

KEEP int unw_a(int x)
{
	return unw_b(x + 5) * 3;
}

/* MMAP records of this process's executable mappings of files. */
static void add_mappings(struct pmu_symbolizer *s)
{
	char line[8192], perm[8], path[4096];
	unsigned long long a, b, off;
	FILE *f = fopen("/proc/self/maps", "r");
	int added = 0;

	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		struct pmu_record r = { .kind = PMU_RECORD_MMAP, .pid = getpid(), .tid = getpid() };

		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %4095s", &a, &b, perm, &off, path) != 5 ||
		    perm[2] != 'x' || path[0] != '/')
			continue;
		r.mmap = (struct pmu_mmap){ .start = a, .len = b - a, .pgoff = off, .path = path };
		pmu_symbolizer_add_mmap(s, &r);   /* a file without symbols is no failure here */
		added++;
	}
	fclose(f);
	assert_true(added > 0);
}

static const char *name_at(struct pmu_symbolizer *s, uint64_t addr)
{
	struct pmu_frame f[16];
	size_t n;

	if (pmu_symbolizer_resolve_pid(s, getpid(), addr, f, 16, &n))
		return "(unresolved)";
	return f[n - 1].function ? f[n - 1].function : "(no name)";
}

static void test_unwind(void **state)
{
	PMU_OPTS(pmu_symbolizer_opts, o, .offline = 1);
	struct pmu_sample_ext ext = { .sz = sizeof(ext) };
	struct pmu_record r = { .kind = PMU_RECORD_SAMPLE,
				.has = PMU_HAS_TID | PMU_HAS_IP | PMU_HAS_REGS_USER |
				       PMU_HAS_STACK_USER };
	uint64_t packed[PERF_REGS], ips[64];
	const char *want[] = { "unw_c", "unw_b", "unw_a", "test_unwind" };
	struct pmu_symbolizer *s;
	size_t n = 0;
	int err;

	(void)state;
#if !defined(__x86_64__)
	skip();   /* the register capture is x86_64 assembly */
#endif
	assert_int_equal(unw_a(1), ((1 + 5) * 2 + 3 + 1) * 3);
	assert_true(stack_len > 64);
	if ((err = pmu_symbolizer_open(&o, &s)) == PMU_ENOTSUP) {
		fprintf(stderr, "skip: %s\n", pmu_error_detail());
		skip();
	}
	assert_int_equal(err, 0);
	add_mappings(s);
	/* perf's default x86_64 user set: AX..IP, then R8..R15 (no flags, segments) */
	for (int i = 0; i < PERF_REGS; i++)
		if (i <= 8 || i >= 16) {
			ext.regs_mask |= 1ull << i;
			packed[ext.nr_regs++] = regs[i];
		}
	ext.regs_abi = 2;   /* PERF_SAMPLE_REGS_ABI_64 */
	ext.regs = packed;
	ext.stack = stack_copy;
	ext.stack_size = stack_len;
	r.pid = getpid();
	r.tid = (int32_t)syscall(SYS_gettid);
	r.sample.ip = regs[8];
	r.sample.ext = &ext;
	err = pmu_symbolizer_unwind(s, &r, ips, 64, &n);
	if (err)
		fprintf(stderr, "unwind: %s\n", pmu_error_detail());
	assert_int_equal(err, 0);
	for (size_t i = 0; i < n; i++)
		fprintf(stderr, "  #%zu 0x%llx %s\n", i, (unsigned long long)ips[i],
			name_at(s, i ? ips[i] - 1 : ips[i]));
	assert_true(n >= 4);
	assert_int_equal(ips[0], regs[8]);
	for (size_t i = 0; i < 4; i++)
		assert_string_equal(name_at(s, i ? ips[i] - 1 : ips[i]), want[i]);
	/* again: the process's unwinder is reused */
	memset(ips, 0, sizeof(ips));
	assert_int_equal(pmu_symbolizer_unwind(s, &r, ips, 64, &n), 0);
	assert_true(n >= 4);
	for (size_t i = 0; i < 4; i++)
		assert_string_equal(name_at(s, i ? ips[i] - 1 : ips[i]), want[i]);
	/* room for two addresses: the innermost two */
	assert_int_equal(pmu_symbolizer_unwind(s, &r, ips, 2, &n), 0);
	assert_int_equal(n, 2);
	assert_string_equal(name_at(s, ips[1] - 1), "unw_b");
	/* an empty stack copy (the kernel could not read it): the sampled pc, and
	 * what the registers alone give, no crash */
	ext.stack_size = 0;
	assert_int_equal(pmu_symbolizer_unwind(s, &r, ips, 64, &n), 0);
	assert_true(n >= 1 && n < 4);
	assert_int_equal(ips[0], regs[8]);
	/* a garbage stack: the walk ends, bounded */
	static uint8_t junk[4096];
	memset(junk, 0xa5, sizeof(junk));
	ext.stack = junk;
	ext.stack_size = sizeof(junk);
	assert_int_equal(pmu_symbolizer_unwind(s, &r, ips, 64, &n), 0);
	assert_true(n >= 1 && n <= 64);
	ext.stack = stack_copy;
	ext.stack_size = stack_len;
	/* a kernel thread's sample: no user registers (regs_abi 0) */
	ext.regs_abi = 0;
	assert_int_equal(pmu_symbolizer_unwind(s, &r, ips, 64, &n), PMU_EINVAL);
	ext.regs_abi = 2;
	/* registers without the stack pointer */
	uint64_t mask = ext.regs_mask;
	ext.regs_mask &= ~(1ull << 7);
	ext.nr_regs--;
	assert_int_equal(pmu_symbolizer_unwind(s, &r, ips, 64, &n), PMU_EINVAL);
	ext.regs_mask = mask;
	ext.nr_regs++;
	/* a process no MMAP record mapped */
	r.pid = 0x3ffffff0;
	assert_int_equal(pmu_symbolizer_unwind(s, &r, ips, 64, &n), PMU_ENOENT);
	r.pid = getpid();
	/* a sample without a stack copy cannot be unwound */
	r.has &= ~(uint32_t)PMU_HAS_STACK_USER;
	assert_int_equal(pmu_symbolizer_unwind(s, &r, ips, 64, &n), PMU_EINVAL);
	assert_int_equal(n, 0);
	pmu_symbolizer_close(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unwind),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
