/* SPDX-License-Identifier: MIT */
/* The record source's front: sniffs the format, checks arguments, hands out
 * what the backend filled in. */
#include "formats/trace_int.h"
#include "core/error.h"
#include "core/file.h"
#include "core/opts.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char *const format_names[] = {
	[PMU_TRACE_PERF_FILE] = "perf.data",
	[PMU_TRACE_PERF_PIPE] = "perf.data (pipe)",
	[PMU_TRACE_ETL] = ".etl",
};

const char *pmu_trace_format_name(enum pmu_trace_format f)
{
	if ((unsigned)f >= sizeof(format_names) / sizeof(format_names[0]))
		return "unknown";
	return format_names[f];
}

void pmuk_trace_warn(struct pmu_trace *t, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	if (!t->o.warn)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	t->o.warn(msg, t->o.warn_ctx);
}

void pmuk_trace_count(struct pmu_trace *t, const struct pmu_record *rec)
{
	t->st.records++;
	if (rec->kind == PMU_RECORD_SAMPLE)
		t->st.samples++;
	else if (rec->kind == PMU_RECORD_THROTTLE)
		t->st.throttles++;
	else if (rec->kind == PMU_RECORD_LOST && rec->lost.samples)
		t->st.lost_samples += rec->lost.count;
	else if (rec->kind == PMU_RECORD_LOST)
		t->st.lost += rec->lost.count;
}

/* An .etl starts with a WMI_BUFFER_HEADER (BufferType 4: header) whose first
 * record is a SYSTEM32/64 trace header. */
static int is_etl(const unsigned char *b, size_t n)
{
	return n >= 0x50 && (b[0x36] | b[0x37] << 8) == 4 && (b[0x4A] == 1 || b[0x4A] == 2) &&
	       b[0x4B] == 0xC0;
}

/* perf.data: "PERFILE2" then the header's size, 104 in a file, 16 in a pipe
 * (either byte order: perf writes the host's). 1 file, 2 pipe, 0 not perf.data. */
static int perf_kind(const unsigned char *b, size_t n)
{
	uint64_t size = 0;

	if (n < 16 || (memcmp(b, "PERFILE2", 8) && memcmp(b, "2ELIFREP", 8)))
		return 0;
	for (int i = 0; i < 8; i++)
		size |= (uint64_t)b[8 + i] << (8 * i);
	if (size == 16 || size == 16ull << 56)
		return 2;
	return 1;
}

static int open_file(struct pmu_trace *t, const char *path)
{
	unsigned char b[0x50];
	struct stat st;
	size_t n;
	FILE *f;
	int kind;

	if (!strcmp(path, "-"))
		return pmuk_trace_open_perf(t, path, stdin, 1);
	if (!(f = pmuk_fopen(path, "rb")))
		return pmuk_fail(errno == ENOENT ? PMU_ENOENT :
				 errno == EACCES || errno == EPERM ? PMU_EPERM : PMU_EIO,
				 "cannot open %s: %s", path, strerror(errno));
	if (fstat(fileno(f), &st) || !(S_ISREG(st.st_mode) || S_ISFIFO(st.st_mode))) {
		fclose(f);
		return pmuk_fail(PMU_EINVAL, "%s is not a regular file (a %s): a recording is one",
				 path, S_ISDIR(st.st_mode) ? "directory" : "device or socket");
	}
	/* a FIFO cannot be rewound after sniffing; only perf's pipe mode streams */
	if (S_ISFIFO(st.st_mode))
		return pmuk_trace_open_perf(t, path, f, 1);
	n = fread(b, 1, sizeof(b), f);
	if ((kind = perf_kind(b, n))) {
		rewind(f);
		return pmuk_trace_open_perf(t, path, f, kind == 2);
	}
	fclose(f);
	if (is_etl(b, n))
		return pmuk_trace_open_etl(t, path);
	if (n < 16)
		return pmuk_fail(PMU_EFORMAT, "%s: %zu bytes, too short for a recording "
				 "(perf.data starts with a 104-byte header)", path, n);
	return pmuk_fail(PMU_EFORMAT, "%s is neither perf.data (no PERFILE2 magic) nor a "
			 "Windows .etl trace", path);
}

int pmu_trace_open(const char *path, const struct pmu_trace_opts *opts, struct pmu_trace **out)
{
	struct pmu_trace *t;
	int err;

	if (!out)
		return pmuk_fail(PMU_EINVAL, "pmu_trace_open: out is NULL");
	*out = NULL;
	if (!path || !*path)
		return pmuk_fail(PMU_EINVAL, "pmu_trace_open: no path");
	if (!(t = calloc(1, sizeof(*t))))
		return PMU_ENOMEM;
	if ((err = PMUK_OPTS_LOAD(t->o, opts, pmu_trace_opts)) < 0) {
		free(t);
		return err;
	}
	t->info.hostname = t->info.os_release = t->info.arch = t->info.cpu_desc = "";
	t->info.cpuid = t->info.cmdline = t->info.version = "";
	t->info.clockid = -1;
	if ((err = open_file(t, path))) {
		pmu_trace_close(t);
		return err;
	}
	*out = t;
	return 0;
}

int pmu_trace_read(struct pmu_trace *t, pmu_record_fn cb, void *ctx)
{
	if (!t || !cb)
		return pmuk_fail(PMU_EINVAL, "pmu_trace_read: %s is NULL", t ? "cb" : "trace");
	if (t->read_called)
		return pmuk_fail(PMU_EINVAL, "pmu_trace_read: a recording is read once; open "
				 "it again to read it again");
	t->read_called = 1;
	return t->ops->read(t, cb, ctx);
}

const struct pmu_trace_info *pmu_trace_info(const struct pmu_trace *t)
{
	return t ? &t->info : NULL;
}

size_t pmu_trace_event_count(const struct pmu_trace *t)
{
	return t ? t->nr_events : 0;
}

const struct pmu_trace_event *pmu_trace_event(const struct pmu_trace *t, size_t i)
{
	return t && i < t->nr_events ? &t->events[i] : NULL;
}

size_t pmu_trace_pmc_count(const struct pmu_trace *t)
{
	return t ? t->nr_pmc : 0;
}

const char *pmu_trace_pmc_name(const struct pmu_trace *t, size_t i)
{
	return t && i < t->nr_pmc ? t->pmc_names[i] : NULL;
}

size_t pmu_trace_build_id_count(const struct pmu_trace *t)
{
	return t ? t->nr_build_ids : 0;
}

const struct pmu_trace_build_id *pmu_trace_build_id(const struct pmu_trace *t, size_t i)
{
	return t && i < t->nr_build_ids ? &t->build_ids[i] : NULL;
}

int pmu_trace_stats(const struct pmu_trace *t, struct pmu_trace_stats *out, size_t size)
{
	if (!t)
		return pmuk_fail(PMU_EINVAL, "pmu_trace_stats: trace is NULL");
	return PMUK_COPY_OUT(out, size, t->st, pmu_trace_stats);
}

void pmu_trace_close(struct pmu_trace *t)
{
	if (!t)
		return;
	pmuk_trace_tp_free(t);
	if (t->ops)
		t->ops->close(t);
	free(t);
}
