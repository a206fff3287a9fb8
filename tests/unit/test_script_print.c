/* SPDX-License-Identifier: MIT */
/* The one perf-script printer (core/script.h): each expected line below is a
 * line Debian's perf 6.1 `perf script` printed for a recording made on this
 * machine (call chain, one-line ip, tracepoint, addr with -F, pid/tid, padded
 * event names, --ns), with the sample's values put in by hand. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/script.h"

#define BASE (PMUK_SF_COMM | PMUK_SF_TID | PMUK_SF_TIME | PMUK_SF_EVENT)
#define IPSYM (PMUK_SF_IP | PMUK_SF_SYM | PMUK_SF_SYMOFF | PMUK_SF_DSO)

static char *print(const struct pmuk_script_sample *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	pmuk_script_print(f, s);
	fclose(f);
	return buf;
}

static void expect(const struct pmuk_script_sample *s, const char *want)
{
	char *got = print(s);

	assert_string_equal(got, want);
	free(got);
}

static void test_call_chain(void **state)
{
	struct pmuk_script_frame fr[] = {
		{ .ip = 0x99eb, .dso = "/usr/bin/dash" },
		{ .ip = 0x167145, .sym = "__strcmp_evex", .symoff = 0x25,
		  .dso = "/usr/lib/x86_64-linux-gnu/libc.so.6" },
		{ .ip = 0x55a97c60abd8 },
	};
	struct pmuk_script_sample s = {
		.fields = BASE | IPSYM | PMUK_SF_PERIOD, .comm = "sh", .tid = 27918,
		.time = 9210895773123ull, .period = 1001001, .event = "cpu-clock",
		.event_width = 9, .frames = fr, .nframes = 3, .callchain = 1,
	};
	(void)state;

	expect(&s, "sh 27918  9210.895773:    1001001 cpu-clock: \n"
		   "\t            99eb [unknown] (/usr/bin/dash)\n"
		   "\t          167145 __strcmp_evex+0x25 (/usr/lib/x86_64-linux-gnu/libc.so.6)\n"
		   "\t    55a97c60abd8 [unknown] ([unknown])\n"
		   "\n");
	/* -F -dso,-period */
	s.fields &= ~(PMUK_SF_DSO | PMUK_SF_PERIOD);
	s.nframes = 1;
	expect(&s, "sh 27918  9210.895773: cpu-clock: \n\t            99eb [unknown]\n\n");
}

static void test_one_line(void **state)
{
	struct pmuk_script_frame ip = { .ip = 0xffffffff8175336aull, .sym = "elf_load",
					.symoff = 0x28a, .dso = "[kernel.kallsyms]" };
	struct pmuk_script_frame addr = { .ip = 0x560ec55e85c0ull, .sym = "__progname",
					  .dso = "/usr/bin/ls" };
	struct pmuk_script_sample s = {
		.fields = BASE | IPSYM | PMUK_SF_PERIOD, .comm = "ls", .tid = 28263,
		.time = 9213402434999ull, .period = 1, .event = "page-faults", .event_width = 11,
		.frames = &ip, .nframes = 1,
	};
	(void)state;

	expect(&s, "              ls 28263  9213.402434:          1 page-faults:  ffffffff8175336a "
		   "elf_load+0x28a ([kernel.kallsyms])\n");
	/* -F comm,tid,addr,ip,sym,dso: no offsets, addr first */
	s.fields = PMUK_SF_COMM | PMUK_SF_TID | PMUK_SF_ADDR | PMUK_SF_IP | PMUK_SF_SYM |
		   PMUK_SF_DSO;
	s.addr = &addr;
	expect(&s, "              ls 28263     560ec55e85c0 __progname (/usr/bin/ls) "
		   "ffffffff8175336a elf_load ([kernel.kallsyms])\n");
}

static void test_tracepoint(void **state)
{
	struct pmuk_script_sample s = {
		.fields = BASE | PMUK_SF_CPU | PMUK_SF_TRACE, .comm = "migration/0", .tid = 18,
		.cpu = 0, .time = 9212144110000ull, .event = "sched:sched_wakeup",
		.event_width = 18, .trace = "comm=perf pid=28063 prio=120 target_cpu=001",
	};
	(void)state;

	expect(&s, "     migration/0    18 [000]  9212.144110: sched:sched_wakeup: "
		   "comm=perf pid=28063 prio=120 target_cpu=001\n");
	/* --ns */
	s.nanosecs = 1;
	expect(&s, "     migration/0    18 [000]  9212.144110000: sched:sched_wakeup: "
		   "comm=perf pid=28063 prio=120 target_cpu=001\n");
}

/* Names right-aligned to the longest of the recording; pid/tid as %5d/%-5d. */
static void test_widths(void **state)
{
	struct pmuk_script_frame ip = { .ip = 0x7f36aa4ea8a8ull,
					.dso = "/usr/lib/x86_64-linux-gnu/libbfd-2.40-system.so" };
	struct pmuk_script_sample s = {
		.fields = BASE | IPSYM | PMUK_SF_PERIOD | PMUK_SF_CPU, .comm = "ld", .pid = 10199,
		.tid = 10199, .time = 9662124312000ull, .period = 250000, .event = "cpu-clock",
		.event_width = 18, .frames = &ip, .nframes = 1,
	};
	(void)state;

	expect(&s, "              ld 10199 [000]  9662.124312:     250000          cpu-clock:  "
		   "    7f36aa4ea8a8 [unknown] (/usr/lib/x86_64-linux-gnu/libbfd-2.40-system.so)\n");
	s.fields = PMUK_SF_COMM | PMUK_SF_PID | PMUK_SF_TID;
	s.tid = 7;
	expect(&s, "              ld 10199/7     \n");
}

/* The report's variant: modules without spaces or parentheses (speedscope),
 * no control characters anywhere. */
static void test_clean(void **state)
{
	struct pmuk_script_frame fr = { .ip = 0x10, .sym = "f\tg",
					.dso = "C:\\Program Files (x86)\\a.dll" };
	struct pmuk_script_sample s = {
		.fields = BASE | PMUK_SF_IP | PMUK_SF_SYM | PMUK_SF_DSO, .comm = "a\nb",
		.time = 1500000, .event = "my event", .frames = &fr, .nframes = 1,
		.callchain = 1, .clean_dso = 1,
	};
	(void)state;

	expect(&s, "a b     0     0.001500: my_event: \n"
		   "\t              10 f g (C:\\Program_Files__x86_\\a.dll)\n\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_call_chain),
		cmocka_unit_test(test_one_line),
		cmocka_unit_test(test_tracepoint),
		cmocka_unit_test(test_widths),
		cmocka_unit_test(test_clean),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
