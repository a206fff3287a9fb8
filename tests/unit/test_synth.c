/* SPDX-License-Identifier: MIT */
/* Synthesized records of live processes (this one, a child, all of /proc), of the
 * kernel (compared with /proc/kallsyms and with what perf 6.1 synthesizes), and of
 * crafted sysroot trees (maps lines of every shape, modules, hidden addresses). */
#include <inttypes.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include <linux/perf_event.h>

#include "core/error.h"
#include "linux/synth.h"

struct rec {
	uint32_t type;
	uint16_t misc;
	size_t size;
	int32_t pid, tid;
	uint8_t *body;
};

struct recs {
	struct rec *v;
	size_t n, cap;
	size_t stop_after; /* 0: never stop */
};

static int collect(uint32_t type, uint16_t misc, const void *body, size_t size, int32_t pid,
		   int32_t tid, void *ctx)
{
	struct recs *r = ctx;

	if (r->n == r->cap) {
		r->cap = r->cap ? 2 * r->cap : 64;
		r->v = realloc(r->v, r->cap * sizeof(*r->v));
		assert_non_null(r->v);
	}
	r->v[r->n] = (struct rec){ type, misc, size, pid, tid, malloc(size) };
	assert_non_null(r->v[r->n].body);
	memcpy(r->v[r->n].body, body, size);
	r->n++;
	return r->stop_after && r->n >= r->stop_after ? 42 : 0;
}

static void recs_free(struct recs *r)
{
	for (size_t i = 0; i < r->n; i++)
		free(r->v[i].body);
	free(r->v);
	memset(r, 0, sizeof(*r));
}

static uint32_t u32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static uint64_t u64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

/* Every record's shape: size a multiple of 8, the name NUL-terminated inside it. */
static void check_shape(const struct rec *r)
{
	size_t fixed = r->type == PERF_RECORD_COMM ? 8 : r->type == PERF_RECORD_MMAP ? 32 : 64;

	assert_true(r->type == PERF_RECORD_COMM || r->type == PERF_RECORD_MMAP ||
		    r->type == PERF_RECORD_MMAP2);
	assert_int_equal(r->size % 8, 0);
	assert_true(r->size > fixed);
	assert_non_null(memchr(r->body + fixed, '\0', r->size - fixed));
	assert_int_equal(r->size - fixed, (strlen((const char *)r->body + fixed) + 8) & ~(size_t)7);
	assert_int_equal((int32_t)u32(r->body), r->pid);
	assert_int_equal((int32_t)u32(r->body + 4), r->tid);
}

static const char *name_of(const struct rec *r)
{
	size_t fixed = r->type == PERF_RECORD_COMM ? 8 : r->type == PERF_RECORD_MMAP ? 32 : 64;

	return (const char *)r->body + fixed;
}

static const struct rec *find(const struct recs *r, uint32_t type, int32_t tid, const char *name)
{
	for (size_t i = 0; i < r->n; i++)
		if (r->v[i].type == type && (tid < 0 || r->v[i].tid == tid) &&
		    (!name || !strcmp(name_of(&r->v[i]), name)))
			return &r->v[i];
	return NULL;
}

static void hex(const uint8_t *id, size_t n, char *out)
{
	for (size_t i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", id[i]);
	out[2 * n] = '\0';
}

/* The build-id readelf -n prints for a file ("" when none). */
static void readelf_build_id(const char *path, char *out, size_t size)
{
	char cmd[4200], line[512];
	FILE *p;

	out[0] = '\0';
	snprintf(cmd, sizeof(cmd), "readelf -n '%s' 2>/dev/null", path);
	p = popen(cmd, "r");
	if (!p)
		return;
	while (fgets(line, sizeof(line), p)) {
		const char *at = strstr(line, "Build ID:");

		if (at && sscanf(at + 9, " %127[0-9a-f]", out) == 1 && strlen(out) < size)
			break;
		out[0] = '\0';
	}
	pclose(p);
}

/* The maps line of this process's mapping of `path` that is executable. */
static int exec_line(int32_t pid, const char *path, uint64_t *start, uint64_t *end,
		     uint64_t *pgoff)
{
	char file[64], line[4400], perms[8], name[4097];
	FILE *f;
	int found = 0;

	snprintf(file, sizeof(file), "/proc/%d/maps", (int)pid);
	f = fopen(file, "r");
	assert_non_null(f);
	while (!found && fgets(line, sizeof(line), f))
		found = sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64 " %*s %*s %4096s",
			       start, end, perms, pgoff, name) == 5 && perms[2] == 'x' &&
			!strcmp(name, path);
	fclose(f);
	return found;
}

/* An executable file mapping: in the build-id form with readelf's build-id, its
 * range and offset those of the maps line. */
static void check_file_map(const struct recs *r, int32_t pid, const char *path)
{
	const struct rec *m = find(r, PERF_RECORD_MMAP2, pid, path);
	uint64_t start, end, pgoff;
	char want[128], have[41];

	assert_non_null(m);
	assert_true(exec_line(pid, path, &start, &end, &pgoff));
	assert_int_equal(u64(m->body + 8), start);
	assert_int_equal(u64(m->body + 16), end - start);
	assert_int_equal(u64(m->body + 24), pgoff);
	assert_int_equal(u32(m->body + 56) & PROT_EXEC, PROT_EXEC);
	assert_int_equal(u32(m->body + 60), MAP_PRIVATE);
	readelf_build_id(path, want, sizeof(want));
	if (!want[0]) {
		assert_int_equal(m->misc, PERF_RECORD_MISC_USER);
		return; /* no readelf, or a file without a build-id */
	}
	assert_int_equal(m->misc, PERF_RECORD_MISC_USER | PERF_RECORD_MISC_MMAP_BUILD_ID);
	assert_true(m->body[32] > 0 && m->body[32] <= 20);
	assert_int_equal(m->body[33] | m->body[34] | m->body[35], 0);
	hex(m->body + 36, m->body[32], have);
	assert_string_equal(have, want);
}

static const char *libc_path(int32_t pid, char *buf, size_t size)
{
	char file[64], line[4400];
	FILE *f;

	snprintf(file, sizeof(file), "/proc/%d/maps", (int)pid);
	f = fopen(file, "r");
	assert_non_null(f);
	buf[0] = '\0';
	while (!buf[0] && fgets(line, sizeof(line), f)) {
		char *p = strchr(line, '/');

		if (p && strstr(p, "/libc.so") && strstr(line, " r-xp ")) {
			p[strcspn(p, "\n")] = '\0';
			snprintf(buf, size, "%s", p);
		}
	}
	fclose(f);
	return buf[0] ? buf : NULL;
}

static pthread_mutex_t park = PTHREAD_MUTEX_INITIALIZER;

static void *worker(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&park);   /* held by the test until it is done */
	pthread_mutex_unlock(&park);
	return NULL;
}

static void test_self(void **state)
{
	struct recs r = { 0 };
	pthread_t t;
	char exe[4096], libc[4096];
	const struct rec *c;
	int32_t me = getpid();
	ssize_t n;

	(void)state;
	assert_int_equal(prctl(PR_SET_NAME, "synth-main", 0, 0, 0), 0);
	pthread_mutex_lock(&park);
	assert_int_equal(pthread_create(&t, NULL, worker, NULL), 0);
	assert_int_equal(pthread_setname_np(t, "synth-worker"), 0);
	assert_int_equal(pmuk_synth_process(me, 0, collect, &r), 0);
	pthread_mutex_unlock(&park);
	pthread_join(t, NULL);

	for (size_t i = 0; i < r.n; i++) {
		check_shape(&r.v[i]);
		assert_int_equal(r.v[i].pid, me);
	}
	/* the leader's COMM first, then the worker's, then the mappings */
	assert_int_equal(r.v[0].type, PERF_RECORD_COMM);
	assert_int_equal(r.v[0].tid, me);
	assert_string_equal(name_of(&r.v[0]), "synth-main");
	c = find(&r, PERF_RECORD_COMM, -1, "synth-worker");
	assert_non_null(c);
	assert_true(c->tid != me && c->tid > 0);
	assert_int_equal(r.v[1].type, PERF_RECORD_COMM);
	assert_int_equal(r.v[2].type, PERF_RECORD_MMAP2);

	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	assert_true(n > 0);
	exe[n] = '\0';
	check_file_map(&r, me, exe);
	if (libc_path(me, libc, sizeof(libc)))
		check_file_map(&r, me, libc);
	c = find(&r, PERF_RECORD_MMAP2, me, "[vdso]");
	if (c) /* no build-id form for [vdso]: it is not a file */
		assert_int_equal(c->misc, PERF_RECORD_MISC_USER);
	recs_free(&r);
}

/* A process that is not the caller, named by pid; then gone: PMU_ESRCH. */
static void test_child(void **state)
{
	struct recs r = { 0 };
	char exe[4096] = "", path[64], libc[4096];
	int status;
	pid_t pid;
	ssize_t n;

	(void)state;
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		execlp("sleep", "sleep", "30", (char *)NULL);
		_exit(127);
	}
	/* wait for the exec and for the dynamic loader to map libc (machine is loaded) */
	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	for (int i = 0; i < 1000; i++) {
		n = readlink(path, exe, sizeof(exe) - 1);
		exe[n > 0 ? n : 0] = '\0';
		if (strstr(exe, "sleep") && libc_path(pid, libc, sizeof(libc)))
			break;
		usleep(10000);
	}
	assert_non_null(strstr(exe, "sleep"));
	assert_int_equal(pmuk_synth_process(pid, 0, collect, &r), 0);
	assert_int_equal(r.v[0].type, PERF_RECORD_COMM);
	assert_int_equal(r.v[0].pid, pid);
	assert_string_equal(name_of(&r.v[0]), "sleep");
	check_file_map(&r, pid, exe);
	if (libc_path(pid, libc, sizeof(libc)))
		check_file_map(&r, pid, libc);
	recs_free(&r);

	kill(pid, SIGKILL);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_int_equal(pmuk_synth_process(pid, 0, collect, &r), PMU_ESRCH);
	assert_non_null(strstr(pmu_error_detail(), "exited"));
	assert_int_equal(r.n, 0);
	assert_int_equal(pmuk_synth_process(0, 0, collect, &r), PMU_EINVAL);
}

static void test_all(void **state)
{
	struct recs r = { 0 };
	int32_t me = getpid();

	(void)state;
	assert_int_equal(pmuk_synth_all(0, collect, &r), 0);
	assert_non_null(find(&r, PERF_RECORD_COMM, 1, NULL));
	assert_non_null(find(&r, PERF_RECORD_COMM, me, NULL));
	assert_non_null(find(&r, PERF_RECORD_MMAP2, me, NULL));
	for (size_t i = 0; i < r.n; i++)
		check_shape(&r.v[i]);
	recs_free(&r);

	/* a callback's nonzero return stops the walk and comes back as is */
	r.stop_after = 3;
	assert_int_equal(pmuk_synth_all(0, collect, &r), 42);
	assert_int_equal(r.n, 3);
	recs_free(&r);
}

/* _text and _etext as /proc/kallsyms lists them. */
static int kallsyms_text(uint64_t *text, uint64_t *etext)
{
	char line[512], sym[256], type;
	uint64_t addr;
	int got = 0;
	FILE *f = fopen("/proc/kallsyms", "r");

	if (!f)
		return 0;
	while (got != 3 && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%" SCNx64 " %c %255s", &addr, &type, sym) != 3)
			continue;
		if (!strcmp(sym, "_text"))
			*text = addr, got |= 1;
		else if (!strcmp(sym, "_etext"))
			*etext = addr, got |= 2;
	}
	fclose(f);
	return got == 3;
}

static size_t count_lines(const char *path)
{
	char line[1024];
	size_t n = 0;
	FILE *f = fopen(path, "r");

	if (!f)
		return 0; /* a kernel without module support has no /proc/modules */
	while (fgets(line, sizeof(line), f))
		n++;
	fclose(f);
	return n;
}

static void test_kernel(void **state)
{
	struct recs r = { 0 };
	uint64_t text = 0, etext = 0;
	const struct rec *k;
	int ret = pmuk_synth_kernel(collect, &r);

	(void)state;
	assert_true(kallsyms_text(&text, &etext));
	if (ret == PMUK_SYNTH_KPTR_HIDDEN) {
		assert_int_equal(text, 0);
		assert_int_equal(r.n, 0);
		assert_non_null(strstr(pmu_error_detail(), "kptr_restrict"));
		skip(); /* this user may not see kernel addresses */
	}
	assert_int_equal(ret, 0);
	assert_int_equal(r.n, 1 + count_lines("/proc/modules"));
	k = &r.v[0];
	check_shape(k);
	assert_int_equal(k->type, PERF_RECORD_MMAP);
	assert_int_equal(k->misc, PERF_RECORD_MISC_KERNEL);
	assert_int_equal(k->pid, -1);
	assert_int_equal(k->tid, 0);
	assert_string_equal(name_of(k), "[kernel.kallsyms]_text");
	assert_int_equal(u64(k->body + 8), text);
	assert_int_equal(u64(k->body + 16), etext - text);
	assert_int_equal(u64(k->body + 24), text);
	for (size_t i = 1; i < r.n; i++) {
		check_shape(&r.v[i]);
		assert_int_equal(r.v[i].type, PERF_RECORD_MMAP);
		assert_int_equal(r.v[i].misc, PERF_RECORD_MISC_KERNEL);
		assert_true(u64(r.v[i].body + 8) >= u64(r.v[i - 1].body + 8) || i == 1);
	}
	recs_free(&r);
}

/* The kernel map perf 6.1 synthesizes for a system-wide recording: same numbers. */
static void test_kernel_vs_perf(void **state)
{
	char dir[] = "/tmp/pmukit-synth-XXXXXX", cmd[600], line[1024];
	uint64_t start = 0, len = 0, pgoff = 0;
	struct recs r = { 0 };
	int found = 0;
	FILE *p;

	(void)state;
	if (pmuk_synth_kernel(collect, &r) != 0)
		skip(); /* kernel addresses are hidden from this user */
	assert_non_null(mkdtemp(dir));
	snprintf(cmd, sizeof(cmd), "perf record -q -a -e cpu-clock -o %s/perf.data -- sleep 0.05 "
		 ">/dev/null 2>&1 && perf script -i %s/perf.data --show-mmap-events 2>/dev/null",
		 dir, dir);
	p = popen(cmd, "r");
	assert_non_null(p);
	while (fgets(line, sizeof(line), p)) {
		const char *at = strstr(line, "PERF_RECORD_MMAP -1/0: [");

		if (!found && at && strstr(line, "[kernel.kallsyms]_text"))
			found = sscanf(at + 24, "0x%" SCNx64 "(0x%" SCNx64 ") @ 0x%" SCNx64, &start,
				       &len, &pgoff) == 3;
	}
	pclose(p);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
	if (!found) {
		recs_free(&r);
		skip(); /* no perf (Debian linux-perf), or it may not record system-wide here */
	}
	assert_int_equal(u64(r.v[0].body + 8), start);
	assert_int_equal(u64(r.v[0].body + 16), len);
	assert_int_equal(u64(r.v[0].body + 24), pgoff);
	recs_free(&r);
}

static char root[64];

static void put_file(const char *rel, const char *text)
{
	char path[512], cmd[600];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname '%s')\"", path);
	assert_int_equal(system(cmd), 0);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static int tree_setup(void **state)
{
	(void)state;
	snprintf(root, sizeof(root), "/tmp/pmukit-synthroot-XXXXXX");
	if (!mkdtemp(root))
		return -1;
	put_file("proc/kallsyms", "ffffffff81000000 T _stext\nffffffff81000000 T _text\n"
		 "ffffffff81001000 t helper\nffffffff82000000 T _etext\n");
	put_file("proc/modules", "snd_hda_intel 61440 2 - Live 0xffffffffc0300000\n"
		 "ext4 1015808 1 - Live 0xffffffffc0100000 (E)\n"
		 "mystery 4096 0 - Loading 0xffffffffc0500000 (OE)\n");
	put_file("proc/sys/kernel/osrelease", "9.9.9-test\n");
	put_file("lib/modules/9.9.9-test/modules.dep",
		 "kernel/fs/ext4/ext4.ko.xz: kernel/lib/crc16.ko.xz\n"
		 "kernel/sound/pci/hda/snd-hda-intel.ko: kernel/sound/core/snd.ko\n"
		 "kernel/lib/crc16.ko.xz:\n");
	put_file("proc/4242/status", "Name:\tfixture\nUmask:\t0022\nTgid:\t4242\nPid:\t4242\n");
	put_file("proc/4242/task/4242/comm", "fixture\n");
	put_file("proc/4242/task/4243/comm", "helper thread\n");
	put_file("proc/4243/status", "Name:\thelper thread\nTgid:\t4242\nPid:\t4243\n");
	put_file("proc/4242/maps",
		 "00400000-00452000 r-xp 00000000 08:02 173521                     "
		 "/usr/bin/pmukit-no-such-file\n"
		 "00651000-00652000 r--p 00051000 08:02 173521                     "
		 "/usr/bin/pmukit-no-such-file\n"
		 "7f0000000000-7f0000010000 rwxp 00000000 00:00 0 \n"
		 "7f0000020000-7f0000030000 r-xs 00001000 00:05 99                 "
		 "/tmp/with space (deleted)\n"
		 "this line is garbage\n"
		 "7ffd00000000-7ffd00002000 r-xp 00000000 00:00 0                  [vdso]\n");
	put_file("proc/5000/.keep", ""); /* a process that exited: no status any more */
	return pmu_sysroot_set(root);
}

static int tree_teardown(void **state)
{
	char cmd[128];

	(void)state;
	pmu_sysroot_set("");
	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	return system(cmd);
}

static void expect_mmap2(const struct rec *m, uint64_t start, uint64_t len, uint64_t pgoff,
			 uint32_t maj, uint32_t min, uint64_t ino, uint32_t prot, uint32_t flags,
			 const char *name)
{
	check_shape(m);
	assert_int_equal(m->type, PERF_RECORD_MMAP2);
	assert_int_equal(m->misc, PERF_RECORD_MISC_USER);
	assert_int_equal(m->pid, 4242);
	assert_int_equal(m->tid, 4242);
	assert_int_equal(u64(m->body + 8), start);
	assert_int_equal(u64(m->body + 16), len);
	assert_int_equal(u64(m->body + 24), pgoff);
	assert_int_equal(u32(m->body + 32), maj);
	assert_int_equal(u32(m->body + 36), min);
	assert_int_equal(u64(m->body + 40), ino);
	assert_int_equal(u64(m->body + 48), 0); /* ino_generation */
	assert_int_equal(u32(m->body + 56), prot);
	assert_int_equal(u32(m->body + 60), flags);
	assert_string_equal(name_of(m), name);
}

/* Every shape of maps line; a thread id stands for its process. */
static void test_tree_process(void **state)
{
	struct recs r = { 0 };

	(void)state;
	assert_int_equal(pmuk_synth_process(4243, 0, collect, &r), 0);
	assert_int_equal(r.n, 6);
	assert_int_equal(r.v[0].type, PERF_RECORD_COMM);
	assert_int_equal(r.v[0].tid, 4242);
	assert_string_equal(name_of(&r.v[0]), "fixture");
	assert_int_equal(r.v[1].tid, 4243);
	assert_int_equal(r.v[1].pid, 4242);
	assert_string_equal(name_of(&r.v[1]), "helper thread");
	expect_mmap2(&r.v[2], 0x400000, 0x52000, 0, 8, 2, 173521, PROT_READ | PROT_EXEC,
		     MAP_PRIVATE, "/usr/bin/pmukit-no-such-file");
	expect_mmap2(&r.v[3], 0x7f0000000000, 0x10000, 0, 0, 0, 0,
		     PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE, "//anon");
	expect_mmap2(&r.v[4], 0x7f0000020000, 0x10000, 0x1000, 0, 5, 99, PROT_READ | PROT_EXEC,
		     MAP_SHARED, "/tmp/with space (deleted)");
	expect_mmap2(&r.v[5], 0x7ffd00000000, 0x2000, 0, 0, 0, 0, PROT_READ | PROT_EXEC,
		     MAP_PRIVATE, "[vdso]");
	recs_free(&r);
	assert_int_equal(pmuk_synth_process(5000, 0, collect, &r), PMU_ESRCH);
	assert_int_equal(r.n, 0);
}

/* PMUK_SYNTH_DATA: the readable data mapping too (the r--p segment a DWARF
 * unwinder finds .eh_frame_hdr in), marked MMAP_DATA, in maps order. */
static void test_tree_data(void **state)
{
	struct recs r = { 0 };
	const struct rec *d;

	(void)state;
	assert_int_equal(pmuk_synth_process(4242, PMUK_SYNTH_DATA, collect, &r), 0);
	assert_int_equal(r.n, 7);
	assert_int_equal(r.v[2].misc, PERF_RECORD_MISC_USER);
	d = &r.v[3];
	check_shape(d);
	assert_int_equal(d->type, PERF_RECORD_MMAP2);
	assert_int_equal(d->misc, PERF_RECORD_MISC_USER | PERF_RECORD_MISC_MMAP_DATA);
	assert_int_equal(u64(d->body + 8), 0x651000);
	assert_int_equal(u64(d->body + 16), 0x1000);
	assert_int_equal(u64(d->body + 24), 0x51000);
	assert_int_equal(u32(d->body + 56), PROT_READ);
	assert_string_equal(name_of(d), "/usr/bin/pmukit-no-such-file");
	for (size_t i = 4; i < r.n; i++)
		assert_int_equal(r.v[i].misc, PERF_RECORD_MISC_USER);
	recs_free(&r);
	assert_int_equal(pmuk_synth_all(PMUK_SYNTH_DATA, collect, &r), 0);
	assert_int_equal(r.n, 7);
	recs_free(&r);
}

/* A vanished process is skipped; a thread's own /proc entry adds nothing. */
static void test_tree_all(void **state)
{
	struct recs r = { 0 };

	(void)state;
	assert_int_equal(pmuk_synth_all(0, collect, &r), 0);
	assert_int_equal(r.n, 6);
	assert_string_equal(name_of(&r.v[0]), "fixture");
	recs_free(&r);
}

static void expect_kmap(const struct rec *m, uint64_t start, uint64_t len, uint64_t pgoff,
			const char *name)
{
	check_shape(m);
	assert_int_equal(m->type, PERF_RECORD_MMAP);
	assert_int_equal(m->misc, PERF_RECORD_MISC_KERNEL);
	assert_int_equal(m->pid, -1);
	assert_int_equal(m->tid, 0);
	assert_int_equal(u64(m->body + 8), start);
	assert_int_equal(u64(m->body + 16), len);
	assert_int_equal(u64(m->body + 24), pgoff);
	assert_string_equal(name_of(m), name);
}

/* The kernel, then the modules by address, named through modules.dep. */
static void test_tree_kernel(void **state)
{
	struct recs r = { 0 };

	(void)state;
	assert_int_equal(pmuk_synth_kernel(collect, &r), 0);
	assert_int_equal(r.n, 4);
	expect_kmap(&r.v[0], 0xffffffff81000000, 0x1000000, 0xffffffff81000000,
		    "[kernel.kallsyms]_text");
	expect_kmap(&r.v[1], 0xffffffffc0100000, 1015808, 0,
		    "/lib/modules/9.9.9-test/kernel/fs/ext4/ext4.ko.xz");
	expect_kmap(&r.v[2], 0xffffffffc0300000, 61440, 0,
		    "/lib/modules/9.9.9-test/kernel/sound/pci/hda/snd-hda-intel.ko");
	expect_kmap(&r.v[3], 0xffffffffc0500000, 4096, 0, "[mystery]");
	recs_free(&r);

	/* kptr_restrict: zero addresses, no records (as perf), said in the detail */
	put_file("proc/kallsyms", "0000000000000000 T _stext\n0000000000000000 T _text\n"
		 "0000000000000000 T _etext\n");
	assert_int_equal(pmuk_synth_kernel(collect, &r), PMUK_SYNTH_KPTR_HIDDEN);
	assert_int_equal(r.n, 0);
	assert_non_null(strstr(pmu_error_detail(), "kptr_restrict"));
}

int main(void)
{
	const struct CMUnitTest live[] = {
		cmocka_unit_test(test_self),
		cmocka_unit_test(test_child),
		cmocka_unit_test(test_all),
		cmocka_unit_test(test_kernel),
		cmocka_unit_test(test_kernel_vs_perf),
	};
	const struct CMUnitTest tree[] = {
		cmocka_unit_test(test_tree_process),
		cmocka_unit_test(test_tree_data),
		cmocka_unit_test(test_tree_all),
		cmocka_unit_test(test_tree_kernel),
	};

	return cmocka_run_group_tests(live, NULL, NULL) |
	       cmocka_run_group_tests(tree, tree_setup, tree_teardown);
}
