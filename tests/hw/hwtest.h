/* SPDX-License-Identifier: MIT */
#ifndef PMUKIT_HWTEST_H
#define PMUKIT_HWTEST_H

/* Hardware tests: pmukit against a real PMU (natively, or the emulated Arm PMUv3 of
 * the QEMU guest of `make hwtest`). Plain C, no cmocka, so it cross-builds.
 * Output, one line per case: "ok - NAME", "FAIL - NAME: why", "skip - NAME: why";
 * "# ..." lines are diagnostics; the last line is "N passed, N failed, N skipped". */

#include <stddef.h>
#include <stdint.h>

#include <pmukit/pmukit.h>

/* Exactly 2 user instructions per iteration (a decrement and a branch back), plus a
 * fixed entry/exit cost; [known_loop, known_loop_end) holds the whole function. */
void known_loop(uint64_t n);
extern const char known_loop_end[];
/* 1 where known_loop is the hand-written loop (aarch64, x86-64). */
extern const int hw_loop_exact;

/* Run-wide facts. */
struct hw_env {
	int exact;            /* HWTEST_EXACT=1: QEMU -icount shift=0, counts are exact */
	const char *pmukit;   /* the pmukit command */
	const char *self;     /* this program, as a workload: SELF --loop N */
	struct pmu_device core;
	int counters;         /* gp + fixed counters of the core PMU, -1 when unknown */
};
extern struct hw_env hw;

/* Results: exactly one per case. Each returns 0 so a case can `return hw_fail(...)`. */
int hw_ok(const char *name);
int hw_fail(const char *name, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int hw_skip(const char *name, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void hw_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* |got - want| <= rel * want (+ abs); always exact (tolerance 0) when hw.exact. */
int hw_near(uint64_t got, uint64_t want, double rel, uint64_t abs);

/* Opens spec through the library (pmu_event_parse + pmu_counters_open). On failure
 * returns the error and leaves pmu_error_detail() explaining it. */
int hw_counters(const char *spec, const struct pmu_target *t, const struct pmu_counters_opts *o,
		struct pmu_counters **out);
/* "{cycles,instructions}:u" style spec of n events alternating first/second name,
 * each in its own group (braced = 0) or all in one group (braced = 1). */
void hw_spec_repeat(char *buf, size_t size, size_t n, const char *a, const char *b, int braced);

/* Runs argv (stdin /dev/null, stderr appended to out after stdout) and returns its
 * exit status (-1 when it could not run or died by a signal). */
int hw_run(char *const argv[], char *out, size_t size);

/* Writes v to a /proc/sys or /sys file; 0 on success. Reads an int; -1 when absent. */
int hw_sysctl_write(const char *path, const char *v);
int hw_sysctl_read(const char *path);

/* A small read-only JSON tree, enough to check the command's --json output. */
enum hj_type { HJ_NULL, HJ_BOOL, HJ_NUM, HJ_STR, HJ_ARR, HJ_OBJ };
struct hj {
	enum hj_type type;
	char *key;            /* member name inside an object */
	char *str;            /* HJ_STR */
	double num;           /* HJ_NUM, HJ_BOOL */
	struct hj *kids;      /* HJ_ARR, HJ_OBJ */
	size_t n;
};
/* Parses the first JSON value of text; NULL when it is not valid JSON. */
struct hj *hj_parse(const char *text);
void hj_free(struct hj *v);
/* Member key of an object (NULL when absent or v is not an object). */
const struct hj *hj_get(const struct hj *v, const char *key);
/* The string of member key, or NULL. */
const char *hj_str(const struct hj *v, const char *key);

/* The cases, in run order (one file per area). */
void hw_test_count(void);      /* hw_count.c: exact counts, groups, multiplexing, budget */
void hw_test_pinned(void);     /* hw_pinned.c: pinned events losing counters */
void hw_test_userread(void);   /* hw_userread.c: mmap-page reads vs read() */
void hw_test_sampling(void);   /* hw_sample.c: overflow sampling on cycles */
void hw_test_command(void);    /* hw_command.c: pmukit stat / caps in this environment */
void hw_test_record(void);     /* hw_record.c: pmukit record -g, report of the hot loop */

/* The NUMA cases (`pmukit_hwtest --numa`, the 2-node boot; list in hwtest_main.c). */
int hw_numa_pmu(void);         /* hw_numa.c: the emulated PMU counts exactly on each CPU */
int hw_numa_place(void);       /* hw_numa.c: mbind / first touch -> query, numa, topo */
int hw_numa_record(void);      /* hw_numa_record.c: record -e page-faults -d, --sort node */

#endif
