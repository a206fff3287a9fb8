/* SPDX-License-Identifier: MIT */
/* The tracing data perf stores with tracepoint recordings (HEADER_TRACING_DATA, or
 * PERF_RECORD_HEADER_TRACING_DATA in pipe mode): tracefs's header and format files,
 * so a reader decodes tracepoint payloads by field name on any machine. Layout as
 * perf 6.1 writes it (tools/perf/util/trace-event-info.c), in the host's byte order:
 *   "\027\010\104tracing" "0.6\0" endian(u8: 1 big) sizeof(long)(u8) page_size(u32)
 *   "header_page\0" u64 size, bytes   "header_event\0" u64 size, bytes
 *   u32 n, n x (u64 size, bytes)                    formats of ftrace:* events
 *   u32 nsys, nsys x ("system\0", u32 n, n x (u64 size, bytes))
 *   u32 size, kallsyms (empty, as perf 6.1 writes it)
 *   u32 size, printk_formats        u64 size, saved_cmdlines */
#include "linux/tracing_data.h"
#include "linux/event_resolve.h"
#include "core/error.h"
#include "formats/perf_write.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef PMUKIT_HAVE_TRACEFS
#include <tracefs.h>


/* One requested tracepoint, split; rank orders it as tracefs lists it (perf does). */
struct tp {
	char sys[128], name[128];
	long sys_rank, rank;
};

/* The perf.data writer's byte buffer, its sticky error said at once. */
static int put(struct pmuk_pw_buf *b, const void *p, size_t n)
{
	pmuk_pw_put(b, p, n);
	return b->err ? pmuk_fail(PMU_ENOMEM, "out of memory building the tracing data") : 0;
}

static int put_u32(struct pmuk_pw_buf *b, uint32_t v)
{
	return put(b, &v, 4);
}

static int put_u64(struct pmuk_pw_buf *b, uint64_t v)
{
	return put(b, &v, 8);
}

/* A tracefs file (they report no size; libtracefs reads them to the end) preceded
 * by its size in szlen bytes. */
static int put_file(struct pmuk_pw_buf *b, const char *rel, const char *sys, const char *ev,
		    size_t szlen, int optional)
{
	int size = 0, err;
	char *text = sys ? tracefs_event_file_read(NULL, sys, ev, rel, &size)
			 : tracefs_instance_file_read(NULL, rel, &size);

	if (!text && size <= 0) {
		char *path = sys ? tracefs_event_get_file(NULL, sys, ev, rel)
				 : tracefs_instance_get_file(NULL, rel);
		int missing = !path || access(path, R_OK);

		tracefs_put_tracing_file(path);
		if (missing && !optional)
			return pmuk_fail(errno == EACCES ? PMU_EPERM : PMU_ENOENT, "cannot read "
					 "%s%s%s%s%s from tracefs at %s: %s", sys ? sys : "",
					 sys ? "/" : "", ev ? ev : "", ev ? "/" : "", rel,
					 tracefs_tracing_dir(), strerror(errno));
		size = 0; /* an empty file (saved_cmdlines before any tracing) */
	}
	err = szlen == 8 ? put_u64(b, (uint64_t)size) : put_u32(b, (uint32_t)size);
	if (!err && size > 0)
		err = put(b, text, (size_t)size);
	free(text);
	return err;
}

static int tp_parse(const char *spec, struct tp *t)
{
	const char *colon = spec ? strchr(spec, ':') : NULL;
	size_t ns = colon ? (size_t)(colon - spec) : 0, ne = colon ? strlen(colon + 1) : 0;

	if (!colon || !ns || !ne || ns >= sizeof(t->sys) || ne >= sizeof(t->name) ||
	    strchr(colon + 1, ':') || memchr(spec, '/', ns) || strchr(colon + 1, '/'))
		return pmuk_fail(PMU_EINVAL, "'%s' is not a tracepoint name (system:event, as "
				 "'pmukit list tracepoint' shows them)", spec ? spec : "(null)");
	memcpy(t->sys, spec, ns);
	t->sys[ns] = '\0';
	memcpy(t->name, colon + 1, ne + 1);
	t->sys_rank = t->rank = -1;
	return 0;
}

/* Ranks the tracepoints by their position in tracefs's directory listings, the
 * order perf writes systems and formats in. */
static int rank_entries(const char *dir, struct tp *tps, size_t n, const char *sys)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	long pos = 0;

	if (!d)
		return pmuk_fail(errno == EACCES ? PMU_EPERM : PMU_ENOENT, "cannot list %s: %s",
				 dir, strerror(errno));
	while ((e = readdir(d))) {
		pos++;
		for (size_t i = 0; i < n; i++) {
			if (!sys && !strcmp(tps[i].sys, e->d_name))
				tps[i].sys_rank = pos;
			else if (sys && !strcmp(tps[i].sys, sys) && !strcmp(tps[i].name, e->d_name))
				tps[i].rank = pos;
		}
	}
	closedir(d);
	return 0;
}

static int tp_cmp(const void *a, const void *b)
{
	const struct tp *x = a, *y = b;

	if (x->sys_rank != y->sys_rank)
		return (x->sys_rank > y->sys_rank) - (x->sys_rank < y->sys_rank);
	return (x->rank > y->rank) - (x->rank < y->rank);
}

static int tp_rank(const char *events, struct tp *tps, size_t n)
{
	char dir[PATH_MAX];
	int err = rank_entries(events, tps, n, NULL);

	for (size_t i = 0; i < n && !err; i++) {
		if (tps[i].sys_rank < 0)
			return pmuk_fail(PMU_ENOENT, "no tracepoint system '%s' in %s ('pmukit list "
					 "tracepoint' shows them)", tps[i].sys, events);
		if (tps[i].rank >= 0)
			continue;
		if (snprintf(dir, sizeof(dir), "%s/%s", events, tps[i].sys) >= (int)sizeof(dir))
			return pmuk_fail(PMU_ERANGE, "tracefs path too long for %s", tps[i].sys);
		err = rank_entries(dir, tps, n, tps[i].sys);
		if (!err && tps[i].rank < 0)
			return pmuk_fail(PMU_ENOENT, "no tracepoint %s:%s in %s ('pmukit list "
					 "tracepoint %s:*' shows that system's)", tps[i].sys,
					 tps[i].name, dir, tps[i].sys);
	}
	if (!err && n > 1)
		qsort(tps, n, sizeof(*tps), tp_cmp);
	return err;
}

/* The format files of tps[from..to) (one system, sorted), after their count. */
static int put_system(struct pmuk_pw_buf *b, const struct tp *tps, size_t from, size_t to)
{
	uint32_t count = 0;
	int err = 0;

	for (size_t i = from; i < to; i++)
		count += i == from || tp_cmp(&tps[i], &tps[i - 1]);
	err = put_u32(b, count);
	for (size_t i = from; i < to && !err; i++)
		if (i == from || tp_cmp(&tps[i], &tps[i - 1])) /* each once */
			err = put_file(b, "format", tps[i].sys, tps[i].name, 8, 0);
	return err;
}

static int put_header(struct pmuk_pw_buf *b)
{
	static const uint8_t magic[10] = { 23, 8, 68, 't', 'r', 'a', 'c', 'i', 'n', 'g' };
	const uint16_t one = 1;
	uint8_t endian = *(const uint8_t *)&one == 0, lsize = (uint8_t)sizeof(long);
	long page = sysconf(_SC_PAGESIZE);
	int err = put(b, magic, sizeof(magic));

	if (!err)
		err = put(b, "0.6", 4);
	if (!err)
		err = put(b, &endian, 1);
	if (!err)
		err = put(b, &lsize, 1);
	if (!err)
		err = put_u32(b, (uint32_t)(page > 0 ? page : 4096));
	if (!err)
		err = put(b, "header_page", 12);
	if (!err)
		err = put_file(b, "events/header_page", NULL, NULL, 8, 0);
	if (!err)
		err = put(b, "header_event", 13);
	if (!err)
		err = put_file(b, "events/header_event", NULL, NULL, 8, 0);
	return err;
}

/* The ftrace section (formats of ftrace:* events), then every other system's. */
static int put_events(struct pmuk_pw_buf *b, const struct tp *tps, size_t n)
{
	size_t i = 0, j, nsys = 0, fi = n, fj = n;
	int err = 0;

	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && tps[j].sys_rank == tps[i].sys_rank; j++)
			;
		if (!strcmp(tps[i].sys, "ftrace"))
			fi = i, fj = j;
		else
			nsys++;
	}
	err = fi < n ? put_system(b, tps, fi, fj) : put_u32(b, 0);
	if (!err)
		err = put_u32(b, (uint32_t)nsys);
	for (i = 0; i < n && !err; i = j) {
		for (j = i + 1; j < n && tps[j].sys_rank == tps[i].sys_rank; j++)
			;
		if (i == fi)
			continue;
		err = put(b, tps[i].sys, strlen(tps[i].sys) + 1);
		if (!err)
			err = put_system(b, tps, i, j);
	}
	return err;
}

static int put_tail(struct pmuk_pw_buf *b)
{
	/* perf 6.1 stores no kallsyms here (the kernel's symbols come from elsewhere) */
	int err = put_u32(b, 0);

	if (!err)
		err = put_file(b, "printk_formats", NULL, NULL, 4, 1);
	if (!err)
		err = put_file(b, "saved_cmdlines", NULL, NULL, 8, 1);
	return err;
}

/* Points libtracefs at the tracefs pmukit uses (mounting it when root, as perf). */
static int find_tracefs(char *events, size_t size)
{
	char dir[PATH_MAX];
	int err = pmuk_tracefs_events(events, size);

	if (err)
		return pmuk_fail(err == PMU_EPERM ? err : PMU_ENOENT, "%s", pmuk_tracefs_hint(err));
	snprintf(dir, sizeof(dir), "%s", events);
	*strrchr(dir, '/') = '\0'; /* .../events -> the tracing directory */
	if (tracefs_set_tracing_dir(dir))
		return pmuk_fail(PMU_ENOMEM, "out of memory pointing libtracefs at %s", dir);
	return 0;
}

int pmuk_tracing_data(const char *const *tracepoints, size_t n, void **blob, size_t *size)
{
	char events[PATH_MAX];
	struct pmuk_pw_buf b = { 0 };
	struct tp *tps;
	int err = 0;

	if (!tracepoints || !n || !blob || !size)
		return pmuk_fail(PMU_EINVAL, "pmuk_tracing_data needs at least one tracepoint and "
				 "somewhere to put the data");
	tps = calloc(n, sizeof(*tps));
	if (!tps)
		return pmuk_fail(PMU_ENOMEM, "out of memory for %zu tracepoints", n);
	for (size_t i = 0; i < n && !err; i++)
		err = tp_parse(tracepoints[i], &tps[i]);
	if (!err)
		err = find_tracefs(events, sizeof(events));
	if (!err)
		err = tp_rank(events, tps, n);
	if (!err)
		err = put_header(&b);
	if (!err)
		err = put_events(&b, tps, n);
	if (!err)
		err = put_tail(&b);
	free(tps);
	if (err) {
		free(b.p);
		return err;
	}
	*blob = b.p;
	*size = b.n;
	return 0;
}
#else
int pmuk_tracing_data(const char *const *tracepoints, size_t n, void **blob, size_t *size)
{
	(void)tracepoints;
	(void)n;
	(void)blob;
	(void)size;
	return pmuk_fail(PMU_ENOTSUP, "pmukit was built without libtracefs, so it cannot store "
			 "tracepoint formats: install libtracefs-dev and rebuild");
}
#endif
