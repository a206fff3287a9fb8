/* SPDX-License-Identifier: MIT */
/* The tracepoint format files a recording decodes with. perf.data carries them
 * in its HEADER_TRACING_DATA feature (perf's trace-event-read.c layout):
 *
 *   23 8 68 "tracing"  version "0.6\0"  endian u8 (1: big)  long size u8
 *   page size u32
 *   "header_page\0" u64 size, bytes      "header_event\0" u64 size, bytes
 *   ftrace formats: u32 count, each u64 size + format file
 *   event formats:  u32 systems, each "system\0" u32 count, each u64 size + file
 *   kallsyms: u32 size + text           printk formats: u32 size + text
 *   (version >= 0.6) saved cmdlines: u64 size + text
 *
 * numbers in the recording machine's byte order. Without it, this machine's
 * tracefs (libtracefs) stands in. */
#include "formats/trace_tp_int.h"
#include "core/error.h"
#include "core/le.h"

#ifdef PMUKIT_HAVE_TRACEEVENT
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#ifdef PMUKIT_HAVE_TRACEFS
#include <tracefs.h>
#endif

struct cur {
	const uint8_t *p;
	size_t n, off;
	int big;
	const char *what;        /* what is being read, for the error */
	int err;
};

static const uint8_t *take(struct cur *c, size_t n, const char *what)
{
	const uint8_t *p;

	if (c->err)
		return NULL;
	if (n > c->n - c->off) {
		c->err = pmuk_fail(PMU_EFORMAT, "tracing data: %s at byte %zu needs %zu bytes, "
				   "%zu are left (the section is truncated or corrupt)",
				   what, c->off, n, c->n - c->off);
		return NULL;
	}
	p = c->p + c->off;
	c->off += n;
	return p;
}

static uint64_t num(struct cur *c, size_t n, const char *what)
{
	const uint8_t *p = take(c, n, what);
	uint64_t v = 0;

	if (!p)
		return 0;
	if (!c->big)
		return n == 4 ? pmuk_le32(p) : pmuk_le64(p);
	for (size_t i = 0; i < n; i++)
		v = v << 8 | p[i];
	return v;
}

static const char *cstr(struct cur *c, const char *what)
{
	const uint8_t *p = c->err ? NULL : memchr(c->p + c->off, 0, c->n - c->off);

	if (!p && !c->err)
		c->err = pmuk_fail(PMU_EFORMAT, "tracing data: %s at byte %zu has no end (no NUL "
				   "before the end of the section)", what, c->off);
	if (!p)
		return NULL;
	return (const char *)take(c, (size_t)(p - (c->p + c->off)) + 1, what);
}

/* A block as a NUL-terminated copy (libtraceevent wants char * and text). */
static char *block(struct cur *c, uint64_t size, const char *what)
{
	const uint8_t *p = size <= c->n - c->off ? take(c, (size_t)size, what) :
			   take(c, SIZE_MAX, what);
	char *s;

	if (!p)
		return NULL;
	if (!(s = malloc((size_t)size + 1))) {
		c->err = pmuk_fail(PMU_ENOMEM, "tracing data: no memory for %s", what);
		return NULL;
	}
	memcpy(s, p, (size_t)size);
	s[size] = 0;
	return s;
}

static void parse_format(struct pmu_trace *t, struct tep_handle *tep, struct cur *c,
			 const char *sys)
{
	uint64_t size = num(c, 8, "a format file's size");
	char *buf = block(c, size, "a format file");

	if (buf && tep_parse_event(tep, buf, (unsigned long)size, sys))
		pmuk_trace_warn(t, "a tracepoint format of system %s does not parse; its "
				"events print undecoded", sys);
	free(buf);
}

static void parse_header(struct tep_handle *tep, struct cur *c, int long_size)
{
	const uint8_t *tag = take(c, 12, "the header_page tag");
	char *buf;
	uint64_t size;

	if (tag && memcmp(tag, "header_page", 12))
		c->err = pmuk_fail(PMU_EFORMAT, "tracing data: no header_page at byte %zu",
				   c->off - 12);
	size = num(c, 8, "the header_page size");
	if (!(buf = block(c, size, "the header_page")))
		return;
	/* The commit field of the page is a kernel long: trust it over the byte. */
	if (!tep_parse_header_page(tep, buf, (unsigned long)size, long_size))
		tep_set_long_size(tep, tep_get_header_page_size(tep));
	free(buf);
	tag = take(c, 13, "the header_event tag");
	if (tag && memcmp(tag, "header_event", 13))
		c->err = pmuk_fail(PMU_EFORMAT, "tracing data: no header_event at byte %zu",
				   c->off - 13);
	size = num(c, 8, "the header_event size");
	take(c, size <= c->n - c->off ? (size_t)size : SIZE_MAX, "the header_event");
}

static void parse_formats(struct pmu_trace *t, struct tep_handle *tep, struct cur *c)
{
	uint64_t n = num(c, 4, "the count of ftrace formats");

	for (uint64_t i = 0; i < n && !c->err; i++)
		parse_format(t, tep, c, "ftrace");
	n = num(c, 4, "the count of event systems");
	for (uint64_t i = 0; i < n && !c->err; i++) {
		const char *sys = cstr(c, "a system name");
		uint64_t m = num(c, 4, "the count of a system's formats");

		for (uint64_t j = 0; j < m && !c->err; j++)
			parse_format(t, tep, c, sys);
	}
}

/* kallsyms, printk formats and saved cmdlines: text tables for %pS, %s of
 * printk strings and pid names. */
static void parse_tables(struct tep_handle *tep, struct cur *c, double version)
{
	char *buf = block(c, num(c, 4, "the kallsyms size"), "kallsyms");

	if (buf && *buf)
		tep_parse_kallsyms(tep, buf);
	free(buf);
	buf = block(c, num(c, 4, "the printk formats size"), "the printk formats");
	if (buf && *buf)
		tep_parse_printk_formats(tep, buf);
	free(buf);
	if (version < 0.6 || c->err)
		return;
	buf = block(c, num(c, 8, "the saved cmdlines size"), "the saved cmdlines");
	if (buf && *buf)
		tep_parse_saved_cmdlines(tep, buf);
	free(buf);
}

int pmuk_tp_parse_tracing_data(struct pmu_trace *t, const void *data, size_t size,
			       struct tep_handle **out)
{
	static const uint8_t magic[10] = { 23, 8, 68, 't', 'r', 'a', 'c', 'i', 'n', 'g' };
	struct cur c = { .p = data, .n = size };
	const uint8_t *m = take(&c, sizeof(magic), "the magic");
	const char *version;
	struct tep_handle *tep;
	int long_size;
	double v;

	*out = NULL;
	if (m && memcmp(m, magic, sizeof(magic)))
		return pmuk_fail(PMU_EFORMAT, "tracing data: no \"\\027\\010Dtracing\" magic at "
				 "its start: not perf's tracing data");
	version = cstr(&c, "the version");
	m = take(&c, 2, "the byte order and long size");
	if (!m)
		return c.err;
	c.big = m[0] != 0;
	long_size = m[1];
	v = strtod(version, NULL);
	if (!(tep = tep_alloc()))
		return pmuk_fail(PMU_ENOMEM, "tracing data: no memory for the event parser");
	tep_set_file_bigendian(tep, c.big ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	tep_set_long_size(tep, long_size);
	tep_set_page_size(tep, (int)num(&c, 4, "the page size"));
	parse_header(tep, &c, long_size);
	parse_formats(t, tep, &c);
	parse_tables(tep, &c, v);
	if (c.err) {
		tep_free(tep);
		return c.err;
	}
	*out = tep;
	return 0;
}

/* The systems of the recording's tracepoint events ("sched" of sched:sched_switch). */
static char **tp_systems(const struct pmu_trace *t)
{
	char **sys = calloc(t->nr_events + 1, sizeof(*sys));
	size_t n = 0;

	for (size_t i = 0; sys && i < t->nr_events; i++) {
		const char *name = t->events[i].name, *colon = name ? strchr(name, ':') : NULL;
		size_t len = colon ? (size_t)(colon - name) : 0;
		int dup = 0;

		if (t->events[i].type != 2 || !len) /* PERF_TYPE_TRACEPOINT */
			continue;
		for (size_t j = 0; j < n && !dup; j++)
			dup = strlen(sys[j]) == len && !memcmp(sys[j], name, len);
		if (!dup && (sys[n] = strndup(name, len)))
			n++;
	}
	return sys;
}

#ifdef PMUKIT_HAVE_TRACEFS
/* Whether every system is one of this machine's (a directory under events/). */
static int all_known(const char *dir, char **sys)
{
	char path[512];
	struct stat st;

	for (size_t i = 0; sys[i]; i++) {
		snprintf(path, sizeof(path), "%s/events/%s", dir, sys[i]);
		if (stat(path, &st) || !S_ISDIR(st.st_mode))
			return 0;
	}
	return 1;
}
#endif

int pmuk_tp_load_local(struct pmu_trace *t, struct tep_handle **out)
{
#ifdef PMUKIT_HAVE_TRACEFS
	const char *dir = tracefs_tracing_dir();
	char **sys;

	*out = NULL;
	if (!dir)
		return pmuk_fail(PMU_ENOENT, "the recording carries no tracepoint formats and "
				 "tracefs is not mounted here: mount it (mount -t tracefs nodev "
				 "/sys/kernel/tracing) to decode with this machine's formats");
	if (!(sys = tp_systems(t)))
		return pmuk_fail(PMU_ENOMEM, "no memory for the tracepoint systems");
	/* Events the recording does not name by system (its event descriptions
	 * lost): every system's formats, found by id. */
	*out = all_known(dir, sys) ? tracefs_local_events_system(dir, (const char *const *)sys) :
				     tracefs_local_events(dir);
	for (size_t i = 0; sys[i]; i++)
		free(sys[i]);
	free(sys);
	if (!*out)
		return pmuk_fail(PMU_EIO, "cannot read the tracepoint formats under %s/events "
				 "(reading them needs root or a readable tracefs)", dir);
	pmuk_trace_warn(t, "the recording carries no tracepoint formats: decoding with this "
			"machine's (%s/events), which may differ from the recording machine's", dir);
	return 0;
#else
	(void)t;
	*out = NULL;
	return pmuk_fail(PMU_ENOTSUP, "the recording carries no tracepoint formats and pmukit "
			 "was built without libtracefs to read this machine's");
#endif
}
#else
typedef int pmuk_tp_load_unused; /* C11 wants something in a translation unit */
#endif
