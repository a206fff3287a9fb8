/* SPDX-License-Identifier: MIT */
/* pmuk_etw_follow: which CSwitch slices ETW PMC counting credits to its target, fed
 * a recorded sequence of kernel Process/Thread events (V4/V3 payloads, 64-bit) as
 * the real-time consumer sees them (issue 13 item 6: Process/Start ParentId). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <pmukit/error.h>
#include <pmukit/etl.h>
#include "core/etw_config.h"
#include "core/etw_follow.h"

enum { PROC, THREAD, SWITCH, LOOKUP };

/* One step of the sequence: a Process or Thread event (opcode, pid, ppid or tid),
 * or a CSwitch whose OldThreadId is a and whose slice is the command's when
 * tree_counts (the truth of the scenario, written from its story below). */
struct step {
	int what;
	unsigned opcode;
	uint32_t a, b;
	int tree_counts;
};

static uint8_t buf[128];

static void put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* Process V4, 64-bit: UniqueProcessKey, ProcessId, ParentId, SessionId, ExitStatus,
 * DirectoryTableBase, Flags, UserSID (4 zero bytes), ImageFileName, CommandLine,
 * PackageFullName, ApplicationId. */
static void process_ev(struct pmu_etl_event *ev, unsigned opcode, uint32_t pid, uint32_t ppid)
{
	memset(ev, 0, sizeof(*ev));
	memset(buf, 0, sizeof(buf));
	ev->provider = pmuk_etw_process_guid;
	ev->group = PMU_ETL_GROUP_PROCESS;
	ev->opcode = opcode;
	ev->version = 4;
	ev->pointer_size = 8;
	put32(buf + 8, pid);
	put32(buf + 12, ppid);
	memcpy(buf + 40, "cmd.exe", 8);
	ev->payload = buf;
	ev->payload_size = 48 + 6;  /* three empty UTF-16 strings */
}

/* Thread V3, 64-bit: ProcessId, TThreadId, seven pointers, 4 + 4 bytes. */
static void thread_ev(struct pmu_etl_event *ev, unsigned opcode, uint32_t pid, uint32_t tid)
{
	memset(ev, 0, sizeof(*ev));
	memset(buf, 0, sizeof(buf));
	ev->provider = pmuk_etw_thread_guid;
	ev->group = PMU_ETL_GROUP_THREAD;
	ev->opcode = opcode;
	ev->version = 3;
	ev->pointer_size = 8;
	put32(buf, pid);
	put32(buf + 4, tid);
	ev->payload = buf;
	ev->payload_size = 72;
}

/* cmd /c build.bat as pmukit stat runs it: cmd (pid 100, thread 101) was started
 * before the session (rundown), an unrelated service (500/501) runs meanwhile. */
static const struct step story[] = {
	{ PROC, 3, 100, 90, 0 }, { THREAD, 3, 100, 101, 0 },
	{ PROC, 3, 500, 4, 0 }, { THREAD, 3, 500, 501, 0 },
	{ SWITCH, 0, 101, 0, 1 }, { SWITCH, 0, 501, 0, 0 }, { SWITCH, 0, 0, 0, 0 },
	/* cmd starts cl (200), which starts a compiler pass (300) */
	{ PROC, 1, 200, 100, 0 }, { THREAD, 1, 200, 201, 0 }, { SWITCH, 0, 201, 0, 1 },
	{ PROC, 1, 300, 200, 0 }, { THREAD, 1, 300, 301, 0 }, { SWITCH, 0, 301, 0, 1 },
	/* rundown end lists live processes: nobody leaves */
	{ PROC, 4, 300, 200, 0 }, { SWITCH, 0, 301, 0, 1 },
	/* cl exits: its last thread switches out after Thread/End and Process/End */
	{ THREAD, 2, 200, 201, 0 }, { PROC, 2, 200, 100, 0 }, { SWITCH, 0, 201, 0, 1 },
	/* the service reuses pid 200 and thread id 201; its child is not the build's */
	{ PROC, 1, 200, 500, 0 }, { THREAD, 1, 200, 201, 0 }, { SWITCH, 0, 201, 0, 0 },
	{ PROC, 1, 600, 200, 0 }, { THREAD, 1, 600, 601, 0 }, { SWITCH, 0, 601, 0, 0 },
	/* the pass (300) lives on after its parent ended and starts link (700) */
	{ PROC, 1, 700, 300, 0 }, { THREAD, 1, 700, 701, 0 }, { SWITCH, 0, 701, 0, 1 },
	/* a thread the session never announced: the consumer looks its process up */
	{ LOOKUP, 0, 777, 300, 1 }, { SWITCH, 0, 101, 0, 1 },
};

/* Runs the story; returns the number of credited switches, and checks each one
 * against want(step). */
static int run(enum pmuk_follow_kind kind, uint32_t id, int (*want)(const struct step *))
{
	struct pmuk_etw_follow *f;
	struct pmu_etl_event ev;
	int credited = 0;

	assert_int_equal(pmuk_etw_follow_new(kind, id, &f), 0);
	for (size_t i = 0; i < sizeof(story) / sizeof(story[0]); i++) {
		const struct step *s = &story[i];

		switch (s->what) {
		case PROC:
			process_ev(&ev, s->opcode, s->a, s->b);
			assert_int_equal(pmuk_etw_follow_event(f, &ev), 0);
			break;
		case THREAD:
			thread_ev(&ev, s->opcode, s->a, s->b);
			assert_int_equal(pmuk_etw_follow_event(f, &ev), 0);
			break;
		case LOOKUP:
			assert_int_equal(pmuk_etw_follow_switch(f, s->a),
					 kind == PMUK_FOLLOW_THREAD ? 0 : -1);
			assert_int_equal(pmuk_etw_follow_thread(f, s->a, s->b), 0);
			assert_int_equal(pmuk_etw_follow_switch(f, s->a),
					 kind == PMUK_FOLLOW_TREE);
			break;
		default: {
			int got = pmuk_etw_follow_switch(f, s->a);

			print_message("step %zu: switch of %u -> %d\n", i, s->a, got);
			assert_int_equal(got, want(s));
			credited += got;
		}
		}
	}
	if (kind == PMUK_FOLLOW_TREE)  /* 100, 200, 300, 700 */
		assert_int_equal(pmuk_etw_follow_processes(f), 4);
	pmuk_etw_follow_free(f);
	return credited;
}

static int want_tree(const struct step *s) { return s->tree_counts; }
static int want_cmd(const struct step *s) { return s->a == 101; }

static void test_tree_follows_children(void **state)
{
	(void)state;
	assert_int_equal(run(PMUK_FOLLOW_TREE, 100, want_tree), 7);
}

/* stat -p without inherit, and a thread target: the children are not theirs. */
static void test_process_and_thread_only(void **state)
{
	(void)state;
	assert_int_equal(run(PMUK_FOLLOW_PROCESS, 100, want_cmd), 2);
	assert_int_equal(run(PMUK_FOLLOW_THREAD, 101, want_cmd), 2);
}

/* A damaged Process payload is an error, not a crash nor a silent member. */
static void test_short_payload(void **state)
{
	struct pmuk_etw_follow *f;
	struct pmu_etl_event ev;

	(void)state;
	assert_int_equal(pmuk_etw_follow_new(PMUK_FOLLOW_TREE, 100, &f), 0);
	process_ev(&ev, 1, 200, 100);
	ev.payload_size = 12;
	assert_int_not_equal(pmuk_etw_follow_event(f, &ev), 0);
	thread_ev(&ev, 1, 200, 201);
	assert_int_equal(pmuk_etw_follow_event(f, &ev), 0);
	assert_int_equal(pmuk_etw_follow_switch(f, 201), 0);
	pmuk_etw_follow_free(f);
}

/* Events of other groups and opcodes (CSwitch itself, image loads) change nothing. */
static void test_other_events(void **state)
{
	struct pmuk_etw_follow *f;
	struct pmu_etl_event ev;

	(void)state;
	assert_int_equal(pmuk_etw_follow_new(PMUK_FOLLOW_TREE, 100, &f), 0);
	thread_ev(&ev, 36, 100, 101);  /* CSwitch: NewThreadId 100, OldThreadId 101 */
	assert_int_equal(pmuk_etw_follow_event(f, &ev), 0);
	assert_int_equal(pmuk_etw_follow_switch(f, 101), -1);
	process_ev(&ev, 1, 200, 100);
	ev.provider = pmuk_etw_perfinfo_guid;
	assert_int_equal(pmuk_etw_follow_event(f, &ev), 0);
	assert_int_equal(pmuk_etw_follow_processes(f), 1);
	pmuk_etw_follow_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tree_follows_children),
		cmocka_unit_test(test_process_and_thread_only),
		cmocka_unit_test(test_short_payload),
		cmocka_unit_test(test_other_events),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
