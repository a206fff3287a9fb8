/* SPDX-License-Identifier: MIT */
/* The recording-mode symbolizer's DWARF read-ahead thread (dw_prefetch.c) seen
 * from its users: what it reads, and what closing a symbolizer costs. libdwfl's
 * find_debuginfo callback is wrapped to count (and slow down) the images the
 * worker reads. */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include <pmukit/error.h>
#include <pmukit/symbols.h>
#include <pmukit/trace.h>

#ifdef PMUKIT_HAVE_DW
#include "linux/symbols_dw.h"
#include "perf_synth.h"
#include "self_maps.h"

#include <elfutils/libdwelf.h>
#include <fcntl.h>
#include <unistd.h>

static atomic_int looked_up, refuse_threads, threads_made;

/* The library's pthread_create calls land here: refused on demand (as when
 * RLIMIT_NPROC or memory runs out), else counted and made. */
int pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*fn)(void *), void *arg)
{
	static int (*real)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);

	if (atomic_load(&refuse_threads))
		return EAGAIN;
	if (!real)
		*(void **)&real = dlsym(RTLD_NEXT, "pthread_create");
	atomic_fetch_add(&threads_made, 1);
	return real(t, a, fn, arg);
}

__attribute__((noinline)) int prefetch_target(int x)
{
	return x * 3 + 1;
}

/* libdwfl's own lookup, after 30 ms: each image read takes long enough that a
 * close right after the mappings finds nearly all of them still queued. */
static int slow_find_debuginfo(Dwfl_Module *m, void **ud, const char *name, Dwarf_Addr a,
			       const char *file, const char *link, GElf_Word crc, char **out)
{
	struct timespec ts = { 0, 30 * 1000 * 1000 };

	atomic_fetch_add(&looked_up, 1);
	nanosleep(&ts, NULL);
	return dwfl_standard_find_debuginfo(m, ud, name, a, file, link, crc, out);
}

/* The executable mappings of distinct shared libraries of this process (their
 * debug files are looked for apart: they are stripped) as MMAP records of pid
 * 77; how many, up to max. */
static size_t lib_maps(struct pmu_record *r, char (*path)[4096], size_t max)
{
	FILE *f = fopen("/proc/self/maps", "r");
	size_t n = 0;

	assert_non_null(f);
	while (n < max && next_exec_map(f, 77, path[n], &r[n]))
		n += strstr(path[n], ".so") != NULL;
	fclose(f);
	return n;
}

/* Closing a symbolizer reads no more debug files: images still queued for the
 * worker are dropped, only the one being read is waited for. */
static void test_close_drops_queue(void **state)
{
	PMU_OPTS(pmu_symbolizer_opts, o, .offline = 1);
	static char path[8][4096];
	struct pmu_record r[8];
	struct pmu_symbolizer *s;
	size_t n = lib_maps(r, path, 8);

	(void)state;
	if (n < 4)
		skip();   /* a static build: too few shared libraries mapped to queue */
	assert_int_equal(pmu_symbolizer_open(&o, &s), 0);
	((struct pmuk_dw *)s->backend)->cb.find_debuginfo = slow_find_debuginfo;
	atomic_store(&looked_up, 0);
	assert_int_equal(pmu_symbolizer_add_mmap(s, &r[0]), 0);
	/* the worker busy with the first image (up to 5 s on a loaded machine) */
	for (int i = 0; i < 1000 && !atomic_load(&looked_up); i++)
		nanosleep(&(struct timespec){ 0, 5 * 1000 * 1000 }, NULL);
	assert_int_equal(atomic_load(&looked_up), 1);
	for (size_t i = 1; i < n; i++)
		assert_int_equal(pmu_symbolizer_add_mmap(s, &r[i]), 0);
	pmu_symbolizer_close(s);
	fprintf(stderr, "close: %d debug-file lookups for %zu images queued\n",
		atomic_load(&looked_up), n);
	/* libdwfl looks twice per image (DWARF, then symbol table): the image
	 * under way when close began, and the next one if the worker took it
	 * before close did */
	assert_true(atomic_load(&looked_up) <= 4);
}

/* With debuginfod on, nothing is read ahead: the worker would fetch the debug
 * files of every mapped image over the network, sampled or not. */
static void test_no_read_ahead_with_debuginfod(void **state)
{
	PMU_OPTS(pmu_symbolizer_opts, o, .offline = 1);
	static char path[8][4096];
	struct pmu_record r[8];
	struct pmu_symbolizer *s;
	size_t n = lib_maps(r, path, 8);

	(void)state;
	if (!n)
		skip();   /* a static build: no shared library mapped */
	setenv("DEBUGINFOD_URLS", "http://127.0.0.1:9", 1);
	assert_int_equal(pmu_symbolizer_open(&o, &s), 0);
	unsetenv("DEBUGINFOD_URLS");
	((struct pmuk_dw *)s->backend)->cb.find_debuginfo = slow_find_debuginfo;
	atomic_store(&looked_up, 0);
	atomic_store(&threads_made, 0);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(pmu_symbolizer_add_mmap(s, &r[i]), 0);
	pmu_symbolizer_close(s);
	assert_int_equal(atomic_load(&threads_made), 0);
	assert_int_equal(atomic_load(&looked_up), 0);
}

/* Debug-file lookups made by the worker (any thread but the test's), per image
 * of paths[0..npaths). */
static pthread_t test_thread;
static char (*paths)[4096];
static size_t npaths;
static atomic_int ahead[9];

static int counting_find_debuginfo(Dwfl_Module *m, void **ud, const char *name,
				   Dwarf_Addr a, const char *file, const char *link,
				   GElf_Word crc, char **out)
{
	for (size_t i = 0; i < npaths && !pthread_equal(pthread_self(), test_thread); i++)
		if (!strcmp(name, paths[i]))
			atomic_fetch_add(&ahead[i], 1);
	return dwfl_standard_find_debuginfo(m, ud, name, a, file, link, crc, out);
}

/* The worker's lookups for the images after the first. */
static int ahead_others(void)
{
	int n = 0;

	for (size_t i = 1; i < npaths; i++)
		n += atomic_load(&ahead[i]);
	return n;
}

/* The GNU build-id of the ELF file at path into id: its size, 0 when none. */
static uint8_t file_build_id(const char *path, uint8_t id[20])
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf *e;
	const void *p;
	ssize_t n = 0;

	if (fd < 0)
		return 0;
	elf_version(EV_CURRENT);
	if ((e = elf_begin(fd, ELF_C_READ_MMAP, NULL))) {
		n = dwelf_elf_gnu_build_id(e, &p);
		if (n > 0 && n <= 20)
			memcpy(id, p, (size_t)n);
		elf_end(e);
	}
	close(fd);
	return n > 0 && n <= 20 ? (uint8_t)n : 0;
}

/* A perf.data file of one event (with user stacks of 8 KiB when stacks) and no
 * records; with a build-id table listing path (pid -1, as perf writes the
 * host's) when path is not NULL. */
static void write_recording(const char *file, const char *path, const uint8_t *id, uint8_t idn,
			    int stacks)
{
	struct pfile f;
	struct pbuf out;
	uint8_t e[36 + 4096] = { 0 };
	int32_t pid = -1;
	uint32_t stack_size = 8192;
	uint64_t regs = 0xff0fff;

	memset(&f, 0, sizeof(f));
	attr_make(f.attrs[0], PERF_ATYPE_SW, 0, PERF_ST_IP | PERF_ST_TID |
		  (stacks ? PERF_ST_REGS_USER | PERF_ST_STACK_USER : 0), 0);
	if (stacks) {
		memcpy(f.attrs[0] + PERF_ATTR_REGS_USER, &regs, 8);
		memcpy(f.attrs[0] + PERF_ATTR_STACK_USER, &stack_size, 4);
	}
	f.nr_attrs = 1;
	f.ids[0][0] = 7;
	f.nr_ids[0] = 1;
	if (path) {
		size_t len = (36 + strlen(path) + 1 + 7) / 8 * 8;
		struct perf_rec_header h = { 0, PERF_REC_MISC_USER |
					     PERF_REC_MISC_BUILD_ID_SIZE, (uint16_t)len };

		memcpy(e, &h, sizeof(h));
		memcpy(e + 8, &pid, 4);
		memcpy(e + 12, id, idn);
		e[32] = idn;
		strcpy((char *)e + 36, path);
		f.has_feat[HEADER_BUILD_ID] = 1;
		pb_put(&f.feat[HEADER_BUILD_ID], e, len);
	}
	pfile_build(&f, &out);
	assert_int_equal(pb_write(&out, file), 0);
	free(out.b);
	pfile_free(&f);
}

/* Maps r[0..n) into a symbolizer opened on the recording `file` (with symfs, or
 * NULL), lets its worker
 * finish, names the middle of every mapping into name[]: the worker's lookups
 * are counted in ahead[]. */
static void read_ahead_run(const char *file, const struct pmu_record *r, size_t n,
			   char (*name)[256], const char *symfs)
{
	PMU_OPTS(pmu_symbolizer_opts, o, .offline = 1, .symfs = symfs);
	struct pmu_symbolizer *s;
	struct pmu_trace *t;
	struct pmuk_dw_prefetch *pf;
	struct pmu_frame fr[8];
	size_t k;
	int idle = 0;

	assert_int_equal(pmu_trace_open(file, NULL, &t), 0);
	o.trace = t;
	assert_int_equal(pmu_symbolizer_open(&o, &s), 0);
	pmu_trace_close(t);   /* the list was copied */
	((struct pmuk_dw *)s->backend)->cb.find_debuginfo = counting_find_debuginfo;
	for (size_t i = 0; i < npaths; i++)
		atomic_store(&ahead[i], 0);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(pmu_symbolizer_add_mmap(s, &r[i]), 0);
	/* the queue drained (up to 10 s on a loaded machine); the job still
	 * running, if any, is waited for by the lookups below, last one first */
	pf = &((struct pmuk_dw *)s->backend)->prefetch;
	for (int i = 0; i < 2000 && !idle; i++) {
		pthread_mutex_lock(&pf->lock);
		idle = !pf->head;
		pthread_mutex_unlock(&pf->lock);
		if (!idle)
			nanosleep(&(struct timespec){ 0, 5 * 1000 * 1000 }, NULL);
	}
	assert_true(idle);
	for (size_t i = n; i-- > 0;) {
		uint64_t at = r[i].mmap.start + r[i].mmap.len / 2;

		assert_int_equal(pmu_symbolizer_resolve_pid(s, 77, at, fr, 8, &k), 0);
		snprintf(name[i], 256, "%s", fr[k - 1].function ? fr[k - 1].function : "-");
	}
	pmu_symbolizer_close(s);
}

/* Whether the distribution's debug file of build-id id is installed. */
static int debug_file_installed(const uint8_t *id, uint8_t idn)
{
	char f[128] = "/usr/lib/debug/.build-id/";
	size_t k = strlen(f);

	for (uint8_t i = 0; i < idn; i++) {
		k += (size_t)snprintf(f + k, sizeof(f) - k, "%02x", id[i]);
		if (i == 0)
			f[k++] = '/';
	}
	snprintf(f + k, sizeof(f) - k, ".debug");
	return idn && !access(f, F_OK);
}

/* A recording that lists the images with samples (perf.data's build-id table)
 * has only those read ahead, and those with a debug file installed (libc's,
 * libc6-dbg: costly to read late if a call chain asks); the others are read
 * when asked, named the same as when every image is read ahead (a recording
 * without the table, or with user stacks to unwind). */
static void test_read_ahead_sampled_only(void **state)
{
	static char path[9][4096], name[2][9][256];
	static uint8_t id[9][20];
	char file[3][64];
	struct pmu_record r[9];
	size_t n = lib_maps(r, path, 8), unlisted_named = 0, no_debug = 0;
	int fd;

	(void)state;
	if (n < 3)
		skip();   /* a static build: too few shared libraries mapped */
	/* libc too (its debug file read ahead when libc6-dbg is there) */
	if (self_map((uintptr_t)&qsort, 77, path[n], &r[n])) {
		size_t i;

		for (i = 0; i < n && strcmp(path[i], path[n]); i++)
			;
		n += i == n;   /* unless among them */
	}
	for (size_t i = 0; i < n; i++) {   /* the ids perf's table puts on MMAP records */
		r[i].mmap.build_id_size = file_build_id(path[i], id[i]);
		memcpy(r[i].mmap.build_id, id[i], sizeof(id[i]));
		r[i].mmap.build_id_kind = PMU_BUILD_ID_BYTES;
	}
	for (int k = 0; k < 3; k++) {
		snprintf(file[k], sizeof(file[k]), "/tmp/pmukit-ahead-XXXXXX");
		assert_true((fd = mkstemp(file[k])) >= 0);
		close(fd);
	}
	test_thread = pthread_self();
	paths = path;
	npaths = n;
	write_recording(file[0], NULL, NULL, 0, 0);
	write_recording(file[1], path[0], id[0], r[0].mmap.build_id_size, 0);
	write_recording(file[2], path[0], id[0], r[0].mmap.build_id_size, 1);
	read_ahead_run(file[0], r, n, name[0], NULL);
	fprintf(stderr, "no table: the worker looked %d times for the %zu images after the "
		"first\n", ahead_others(), n - 1);
	/* the counting works: without a table every image is read ahead */
	assert_true(ahead_others() > 0);
	read_ahead_run(file[1], r, n, name[1], NULL);
	for (size_t i = 1; i < n; i++) {
		int debug = debug_file_installed(id[i], r[i].mmap.build_id_size);

		fprintf(stderr, "%s listed: %s (%s) looked for %d times\n", path[0], path[i],
			debug ? "debug file installed" : "no debug file", atomic_load(&ahead[i]));
		assert_int_equal(atomic_load(&ahead[i]) > 0, debug);
		no_debug += !debug;
	}
	assert_true(no_debug > 0);   /* some image was left out */
	for (size_t i = 0; i < n; i++) {
		assert_string_equal(name[0][i], name[1][i]);
		unlisted_named += i > 0 && strcmp(name[1][i], "-");
	}
	assert_true(unlisted_named > 0);   /* names from images not read ahead */
	/* user stacks to unwind (--call-graph dwarf) go through images the
	 * table does not list: every image is read ahead again */
	read_ahead_run(file[2], r, n, name[1], NULL);
	fprintf(stderr, "with user stacks: the worker looked %d times for the others\n",
		ahead_others());
	assert_true(ahead_others() > 0);
	for (int k = 0; k < 3; k++)
		unlink(file[k]);
}

/* --symfs DIR: libdwfl still looks for separate debug files along its debuginfo
 * path (/usr/lib/debug/.build-id), not under DIR; an unlisted image whose debug
 * file is installed there is read ahead all the same, else that file (libc6-dbg's
 * 10 MB) is inflated late on the caller's thread. */
static void test_read_ahead_debug_file_with_symfs(void **state)
{
	static char path[1][4096], name[1][256];
	static const uint8_t other[20] = { 1, 2, 3 };
	char file[64] = "/tmp/pmukit-ahead-XXXXXX", symfs[64] = "/tmp/pmukit-symfs-XXXXXX";
	struct pmu_record r[1];
	uint8_t id[20];
	int fd;

	(void)state;
	/* getpid: libc's own, where ASan intercepts qsort */
	if (!self_map((uintptr_t)&getpid, 77, path[0], &r[0]))
		skip();   /* a static build: no libc mapped */
	r[0].mmap.build_id_size = file_build_id(path[0], id);
	memcpy(r[0].mmap.build_id, id, sizeof(id));
	r[0].mmap.build_id_kind = PMU_BUILD_ID_BYTES;
	if (!debug_file_installed(id, r[0].mmap.build_id_size)) {
		fprintf(stderr, "skipped: no debug file of %s installed (libc6-dbg)\n", path[0]);
		skip();
	}
	assert_true((fd = mkstemp(file)) >= 0);
	close(fd);
	assert_non_null(mkdtemp(symfs));   /* empty: the files are found at their paths */
	write_recording(file, "/usr/bin/sampled-only", other, 20, 0);   /* libc unlisted */
	test_thread = pthread_self();
	paths = path;
	npaths = 1;
	atomic_store(&ahead[0], 0);
	read_ahead_run(file, r, 1, name, symfs);
	fprintf(stderr, "--symfs %s: libc (debug file installed) looked for %d times by the "
		"worker, named %s\n", symfs, atomic_load(&ahead[0]), name[0]);
	unlink(file);
	rmdir(symfs);
	assert_true(atomic_load(&ahead[0]) > 0);
}

static uint64_t kallsyms_addr(const char *name)
{
	char line[512], sym[256], type;
	unsigned long long a;
	uint64_t found = 0;
	FILE *f = fopen("/proc/kallsyms", "r");

	while (f && !found && fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx %c %255s", &a, &type, sym) == 3 && !strcmp(sym, name) &&
		    (type == 'T' || type == 't'))
			found = a;
	if (f)
		fclose(f);
	return found;
}

/* This program's, libc's and the kernel's mappings into s; the addresses to name
 * (0: none). */
static void add_three(struct pmu_symbolizer *s, uint64_t at[3])
{
	static char self[4096], libc[4096];
	uint64_t text = kallsyms_addr("_text");
	struct pmu_record r;

	at[0] = (uintptr_t)&prefetch_target;
	at[1] = (uintptr_t)&qsort + 4;
	at[2] = text ? kallsyms_addr("schedule") + 4 : 0;
	assert_true(self_map(at[0], 77, self, &r));
	assert_int_equal(pmu_symbolizer_add_mmap(s, &r), 0);
	if (self_map(at[1], 77, libc, &r))
		pmu_symbolizer_add_mmap(s, &r);
	if (text && at[2] > 4) {
		r = (struct pmu_record){ .kind = PMU_RECORD_MMAP, .pid = -1, .tid = -1 };
		r.mmap = (struct pmu_mmap){ .start = text, .len = UINT64_MAX - text,
					    .pgoff = text, .path = "[kernel.kallsyms]_text" };
		assert_int_equal(pmu_symbolizer_add_mmap(s, &r), 0);
	}
}

/* The innermost function naming addr in process 77 (or the kernel), or "-". */
static const char *name_of(struct pmu_symbolizer *s, uint64_t addr, char *buf, size_t size)
{
	struct pmu_frame f[8];
	size_t n;

	if (!addr || pmu_symbolizer_resolve_pid(s, 77, addr, f, 8, &n) || !f[0].function)
		return "-";
	snprintf(buf, size, "%s", f[0].function);
	return buf;
}

/* No thread to be had (pthread_create fails): every read is done by the lookup
 * itself, and every name is there as with the threads. */
static void test_no_threads_same_names(void **state)
{
	PMU_OPTS(pmu_symbolizer_opts, o, .offline = 1);
	struct pmu_symbolizer *s[2];
	char a[256], b[256];
	uint64_t at[3];

	(void)state;
	for (int k = 0; k < 2; k++) {
		atomic_store(&refuse_threads, k == 0);
		atomic_store(&threads_made, 0);
		assert_int_equal(pmu_symbolizer_open(&o, &s[k]), 0);
		add_three(s[k], at);
		/* with threads: the DWARF worker, and the kallsyms reader when readable */
		assert_int_equal(atomic_load(&threads_made) > 0, k == 1);
	}
	atomic_store(&refuse_threads, 0);
	assert_string_equal(name_of(s[0], at[0], a, sizeof(a)), "prefetch_target");
	for (int i = 0; i < 3; i++) {
		name_of(s[0], at[i], a, sizeof(a));
		assert_string_equal(a, name_of(s[1], at[i], b, sizeof(b)));
		fprintf(stderr, "without threads: %s\n", a);
	}
	if (at[2])   /* kallsyms readable here (root): the kernel named too */
		assert_string_equal(name_of(s[0], at[2], a, sizeof(a)), "schedule");
	pmu_symbolizer_close(s[0]);
	pmu_symbolizer_close(s[1]);
}

struct handoff {
	struct pmu_symbolizer *s;
	uint64_t at[3];
	char name[3][256];
};

static void *adder(void *arg)
{
	struct handoff *h = arg;

	add_three(h->s, h->at);
	return NULL;
}

static void *resolver(void *arg)
{
	struct handoff *h = arg;

	for (int i = 0; i < 3; i++)
		name_of(h->s, h->at[i], h->name[i], sizeof(h->name[i]));
	return NULL;
}

static void *closer(void *arg)
{
	pmu_symbolizer_close(((struct handoff *)arg)->s);
	return NULL;
}

/* One thread at a time, not always the same one (as symbols.h allows): one of
 * the caller's threads adds the mappings, another names the addresses (the
 * read-ahead begun for the first is waited for by the second), a third closes. */
static void test_caller_threads(void **state)
{
	PMU_OPTS(pmu_symbolizer_opts, o, .offline = 1);
	struct handoff h = { 0 };
	pthread_t t;

	(void)state;
	assert_int_equal(pmu_symbolizer_open(&o, &h.s), 0);
	assert_int_equal(pthread_create(&t, NULL, adder, &h), 0);
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_int_equal(pthread_create(&t, NULL, resolver, &h), 0);
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_string_equal(h.name[0], "prefetch_target");
	if (h.at[2])
		assert_string_equal(h.name[2], "schedule");
	assert_int_equal(pthread_create(&t, NULL, closer, &h), 0);
	assert_int_equal(pthread_join(t, NULL), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_close_drops_queue),
		cmocka_unit_test(test_no_read_ahead_with_debuginfod),
		cmocka_unit_test(test_no_threads_same_names),
		cmocka_unit_test(test_caller_threads),
		cmocka_unit_test(test_read_ahead_sampled_only),
		cmocka_unit_test(test_read_ahead_debug_file_with_symfs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

#else

int main(void)
{
	printf("skipped: this pmukit is built without libdw: no read-ahead thread\n");
	return 77;
}

#endif
