/* SPDX-License-Identifier: MIT */
/* Synthesized COMM and MMAP2 records of processes that ran before a recording
 * started, read from /proc as perf record does, so their samples get names. */
#include "linux/synth.h"
#include "linux/buildid.h"
#include "core/error.h"
#include "core/grow.h"
#include "core/hash.h"
#include "core/num.h"
#include "core/sysroot.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stddef.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define COMM_MAX 16 /* TASK_COMM_LEN */
#define MMAP2_FIXED 64 /* pid..flags of PERF_RECORD_MMAP2, before the file name */

/* Build-ids already read during one walk, keyed by the mapped file's device and
 * inode, so synth_all opens libc once and not once per process. */
struct bid_entry {
	uint32_t maj, min;
	uint64_t ino;
	uint8_t id[20];
	uint8_t len; /* 0: the file has none or could not be read */
};

struct synth {
	pmuk_synth_fn fn;
	void *ctx;
	struct bid_entry *bids;
	size_t nbids, capbids;
	struct pmuk_index bid_ix;
	unsigned flags;  /* PMUK_SYNTH_* */
	int stopped; /* the callback returned nonzero: pass its value on untouched */
};

struct maps_line {
	uint64_t start, end, pgoff, ino;
	uint32_t maj, min, prot, flags;
	const char *path;
};

static void put32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, 4); /* records are in the host's byte order, as the kernel writes them */
}

static void put64(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, 8);
}

static int emit(struct synth *s, uint32_t type, uint16_t misc, const void *body, size_t size,
		int32_t pid, int32_t tid)
{
	int ret = s->fn(type, misc, body, size, pid, tid, s->ctx);

	s->stopped = ret != 0;
	return ret;
}

static size_t pad8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

/* The error for a /proc file that could not be opened: gone, or not ours to read. */
static int proc_error(int err, const char *path, int32_t pid)
{
	if (err == EACCES || err == EPERM)
		return pmuk_fail(PMU_EPERM, "cannot read %s: process %d belongs to another user; "
				 "run as root (or as its owner)", path, (int)pid);
	return pmuk_fail(PMU_ESRCH, "process %d exited or does not exist (%s: %s)", (int)pid,
			 path, strerror(err));
}


/* The thread group of pid (pid may name any thread of it). */
static int read_tgid(int32_t pid, int32_t *tgid)
{
	char path[PATH_MAX], line[256];
	FILE *f;
	long v;
	int found = 0;

	if (pmuk_path(path, sizeof(path), "/proc/%d/status", (int)pid))
		return pmuk_fail(PMU_ERANGE, "the sysroot path is too long for /proc");
	f = pmuk_fopen(path, "r");
	if (!f)
		return proc_error(errno, path, pid);
	while (!found && fgets(line, sizeof(line), f)) {
		char *nl = strchr(line, '\n');

		if (nl)
			*nl = '\0';
		if (!strncmp(line, "Tgid:", 5)) {
			const char *p = line + 5;

			while (*p == ' ' || *p == '\t')
				p++;
			found = !pmuk_parse_long(p, 10, 1, INT32_MAX, &v);
		}
	}
	fclose(f);
	if (!found)
		return pmuk_fail(PMU_ESRCH, "process %d exited while its status was read, or %s "
				 "has no Tgid line", (int)pid, path);
	*tgid = (int32_t)v;
	return 0;
}

/* PERF_RECORD_COMM: pid, tid, the name NUL-padded to a multiple of 8 bytes. */
static int emit_comm(struct synth *s, int32_t pid, int32_t tid)
{
	char path[PATH_MAX], name[COMM_MAX + 1];
	uint8_t body[8 + COMM_MAX + 8] = { 0 };
	size_t n;
	FILE *f;

	if (pmuk_path(path, sizeof(path), "/proc/%d/task/%d/comm", (int)pid, (int)tid))
		return pmuk_fail(PMU_ERANGE, "the sysroot path is too long for /proc");
	f = pmuk_fopen(path, "r");
	if (!f)
		return proc_error(errno, path, pid);
	n = fread(name, 1, COMM_MAX, f); /* not pmuk_read_text: a name may end in blanks */
	fclose(f);
	if (n && name[n - 1] == '\n')
		n--;
	if (n > COMM_MAX - 1)
		n = COMM_MAX - 1;
	put32(body, (uint32_t)pid);
	put32(body + 4, (uint32_t)tid);
	memcpy(body + 8, name, n);
	return emit(s, PERF_RECORD_COMM, 0, body, 8 + pad8(n + 1), pid, tid);
}

static int tid_cmp(const void *a, const void *b)
{
	int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;

	return (x > y) - (x < y);
}

/* The numeric entries of a /proc directory, sorted. PMU_ESRCH when it is gone. */
static int list_ids(const char *path, int32_t pid, int32_t **ids, size_t *n)
{
	DIR *d = opendir(path);
	struct dirent *e;
	size_t cap = 0;
	long v;

	*ids = NULL;
	*n = 0;
	if (!d)
		return proc_error(errno, path, pid);
	while ((e = readdir(d))) {
		if (!isdigit((unsigned char)e->d_name[0]) ||
		    pmuk_parse_long(e->d_name, 10, 1, INT32_MAX, &v))
			continue;
		if (pmuk_grow((void **)ids, &cap, *n + 1, sizeof(**ids))) {
			closedir(d);
			free(*ids);
			*ids = NULL;
			return pmuk_fail(PMU_ENOMEM, "out of memory listing %s", path);
		}
		(*ids)[(*n)++] = (int32_t)v;
	}
	closedir(d);
	if (*n > 1)
		qsort(*ids, *n, sizeof(**ids), tid_cmp);
	return 0;
}

/* COMM of the group leader first (perf keys a process's maps to it), then of every
 * other thread; threads that exit meanwhile are skipped. */
static int emit_comms(struct synth *s, int32_t pid)
{
	char path[PATH_MAX];
	int32_t *tids;
	size_t n;
	int err;

	if ((err = emit_comm(s, pid, pid)))
		return err;
	if (pmuk_path(path, sizeof(path), "/proc/%d/task", (int)pid))
		return pmuk_fail(PMU_ERANGE, "the sysroot path is too long for /proc");
	if ((err = list_ids(path, pid, &tids, &n)))
		return err == PMU_ENOMEM ? err : 0; /* gone after its comm was read */
	for (size_t i = 0; i < n && !err; i++) {
		if (tids[i] == pid)
			continue;
		err = emit_comm(s, pid, tids[i]);
		if (err == PMU_ESRCH && !s->stopped)
			err = 0;
	}
	free(tids);
	return err;
}

/* One line of /proc/PID/maps: "start-end perms offset maj:min inode   path". */
static int parse_maps_line(char *line, struct maps_line *m)
{
	char perms[8];
	int at = -1;
	size_t n = strlen(line);

	if (n && line[n - 1] == '\n')
		line[--n] = '\0';
	if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64 " %x:%x %" SCNu64 "%n",
		   &m->start, &m->end, perms, &m->pgoff, &m->maj, &m->min, &m->ino, &at) != 7 ||
	    at < 0 || strlen(perms) != 4 || m->end < m->start)
		return -1;
	m->prot = (perms[0] == 'r' ? PROT_READ : 0) | (perms[1] == 'w' ? PROT_WRITE : 0) |
		  (perms[2] == 'x' ? PROT_EXEC : 0);
	m->flags = perms[3] == 's' ? MAP_SHARED : MAP_PRIVATE;
	m->path = line + at;
	while (*m->path == ' ' || *m->path == '\t')
		m->path++;
	if (!*m->path)
		m->path = "//anon"; /* perf's name for anonymous executable memory (JIT code) */
	return 0;
}

static int bid_eq(const void *key, uint32_t id, const void *ctx)
{
	const struct bid_entry *k = key, *e = (const struct bid_entry *)ctx + id;

	return k->maj == e->maj && k->min == e->min && k->ino == e->ino;
}

/* The build-id of a mapped file: through /proc/PID/map_files (the very file mapped,
 * even if deleted or replaced since; root only), else its path. Remembered by
 * device and inode. 0 when it has none or cannot be read: perf then keeps the
 * device/inode form of the record too. */
static size_t mapped_build_id(struct synth *s, int32_t pid, const struct maps_line *m,
			      uint8_t id[20])
{
	struct bid_entry key = { .maj = m->maj, .min = m->min, .ino = m->ino };
	uint64_t h = pmuk_hash_bytes(&key, offsetof(struct bid_entry, id), 0x6275696c64ull);
	uint32_t i = pmuk_index_find(&s->bid_ix, h, bid_eq, &key, s->bids);
	char path[PATH_MAX];
	size_t len = 0;

	if (i != PMUK_INDEX_NONE) {
		memcpy(id, s->bids[i].id, 20);
		return s->bids[i].len;
	}
	if (pmuk_path(path, sizeof(path), "/proc/%d/map_files/%" PRIx64 "-%" PRIx64, (int)pid,
		      m->start, m->end) || pmuk_build_id_of_file(path, id, &len))
		if (pmuk_build_id_of_file(m->path, id, &len))
			len = 0;
	pmuk_clear_detail(); /* a file without a build-id is not a failure of the walk */
	if (pmuk_grow((void **)&s->bids, &s->capbids, s->nbids + 1, sizeof(*s->bids)) ||
	    (i = pmuk_index_add(&s->bid_ix, h)) == PMUK_INDEX_NONE)
		return len; /* not remembered: read again next time */
	key.len = (uint8_t)len;
	memcpy(key.id, id, 20);
	s->bids[s->nbids++] = key;
	return len;
}

/* PERF_RECORD_MMAP2: pid, tid, start, len, pgoff, then maj, min, ino, ino_generation
 * or (misc PERF_RECORD_MISC_MMAP_BUILD_ID) build_id_size, 3 reserved bytes,
 * build_id[20]; prot, flags, the file name NUL-padded to a multiple of 8. */
static int emit_mmap2(struct synth *s, int32_t pid, const struct maps_line *m)
{
	uint8_t body[MMAP2_FIXED + PATH_MAX + 8] = { 0 }, id[20] = { 0 };
	size_t n = strlen(m->path), idlen = 0;
	uint16_t misc = PERF_RECORD_MISC_USER;

	if (!(m->prot & PROT_EXEC))
		misc |= PERF_RECORD_MISC_MMAP_DATA;
	if (n >= PATH_MAX)
		n = PATH_MAX - 1;
	if (m->ino && m->path[0] == '/')
		idlen = mapped_build_id(s, pid, m, id);
	put32(body, (uint32_t)pid);
	put32(body + 4, (uint32_t)pid);
	put64(body + 8, m->start);
	put64(body + 16, m->end - m->start);
	put64(body + 24, m->pgoff);
	if (idlen) {
		misc |= PERF_RECORD_MISC_MMAP_BUILD_ID;
		body[32] = (uint8_t)idlen;
		memcpy(body + 36, id, idlen);
	} else {
		put32(body + 32, m->maj);
		put32(body + 36, m->min);
		put64(body + 40, m->ino);
	}
	put32(body + 56, m->prot);
	put32(body + 60, m->flags);
	memcpy(body + MMAP2_FIXED, m->path, n);
	return emit(s, PERF_RECORD_MMAP2, misc, body, MMAP2_FIXED + pad8(n + 1), pid, pid);
}

/* MMAP2 of every executable mapping, as perf synthesizes them: files, //anon
 * (JIT code), [vdso] and [vsyscall]; with PMUK_SYNTH_DATA every readable one. */
static int emit_maps(struct synth *s, int32_t pid)
{
	char path[PATH_MAX], *line = NULL;
	size_t cap = 0;
	struct maps_line m;
	FILE *f;
	int err = 0;

	if (pmuk_path(path, sizeof(path), "/proc/%d/maps", (int)pid))
		return pmuk_fail(PMU_ERANGE, "the sysroot path is too long for /proc");
	f = pmuk_fopen(path, "r");
	if (!f)
		return proc_error(errno, path, pid);
	while (!err && getline(&line, &cap, f) > 0)
		if (!parse_maps_line(line, &m) && ((m.prot & PROT_EXEC) ||
		    ((s->flags & PMUK_SYNTH_DATA) && (m.prot & PROT_READ))))
			err = emit_mmap2(s, pid, &m);
	/* a read error mid-way is the process exiting: what was read stands */
	free(line);
	fclose(f);
	return err;
}

/* leaders_only: skip pid when it is not a thread group leader (its leader is
 * listed on its own). */
static int synth_one(struct synth *s, int32_t pid, int leaders_only)
{
	int32_t tgid;
	int err;

	if ((err = read_tgid(pid, &tgid)))
		return err;
	if (leaders_only && tgid != pid)
		return 0;
	if ((err = emit_comms(s, tgid)))
		return err;
	return emit_maps(s, tgid);
}

static void synth_done(struct synth *s)
{
	free(s->bids);
	pmuk_index_free(&s->bid_ix);
}

int pmuk_synth_process(int32_t pid, unsigned flags, pmuk_synth_fn fn, void *ctx)
{
	struct synth s = { .fn = fn, .ctx = ctx, .flags = flags };
	int err;

	if (!fn || pid <= 0)
		return pmuk_fail(PMU_EINVAL, "pmuk_synth_process needs a process id above 0 and a "
				 "callback (got pid %d)", (int)pid);
	err = synth_one(&s, pid, 0);
	synth_done(&s);
	return err;
}

/* Every process in /proc. Those that exit meanwhile are skipped, as are those this
 * user may not read (counted and logged once: their samples stay unnamed). */
int pmuk_synth_all(unsigned flags, pmuk_synth_fn fn, void *ctx)
{
	struct synth s = { .fn = fn, .ctx = ctx, .flags = flags };
	char path[PATH_MAX];
	size_t n, denied = 0;
	int32_t *pids;
	int err;

	if (!fn)
		return pmuk_fail(PMU_EINVAL, "pmuk_synth_all needs a callback");
	if (pmuk_path(path, sizeof(path), "/proc"))
		return pmuk_fail(PMU_ERANGE, "the sysroot path is too long for /proc");
	if ((err = list_ids(path, 0, &pids, &n)))
		return err == PMU_ENOMEM ? err : pmuk_fail(PMU_ENOENT, "cannot list %s: is proc "
							    "mounted? (mount -t proc proc /proc)", path);
	for (size_t i = 0; i < n && !err; i++) {
		err = synth_one(&s, pids[i], 1);
		if (s.stopped)
			break;
		denied += err == PMU_EPERM;
		if (err == PMU_ESRCH || err == PMU_EPERM)
			err = 0;
	}
	if (denied)
		pmuk_log(PMU_LOG_WARN, "%zu processes could not be read from /proc (another "
			 "user's): run as root to name their samples", denied);
	free(pids);
	synth_done(&s);
	return err;
}
