/* SPDX-License-Identifier: MIT */
/* Names of events a perf.data does not name (no HEADER_EVENT_DESC): perf's
 * generic names from attr type and config; tracepoints by their id through the
 * format files of the tracing data. */
#include "formats/perf_read_int.h"
#include "core/cursor.h"
#include "core/grow.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const hw_names[] = {
	"cycles", "instructions", "cache-references", "cache-misses", "branches",
	"branch-misses", "bus-cycles", "stalled-cycles-frontend", "stalled-cycles-backend",
	"ref-cycles",
};
static const char *const sw_names[] = {
	"cpu-clock", "task-clock", "page-faults", "context-switches", "cpu-migrations",
	"minor-faults", "major-faults", "alignment-faults", "emulation-faults", "dummy",
	"bpf-output", "cgroup-switches",
};
static const char *const cache_names[] = { "L1-dcache", "L1-icache", "LLC", "dTLB", "iTLB",
					   "branch", "node" };
static const char *const cache_ops[][2] = { { "loads", "load-misses" },
					    { "stores", "store-misses" },
					    { "prefetches", "prefetch-misses" } };

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

static const char *tp_name(const struct perf_src *s, uint64_t id)
{
	for (size_t i = 0; i < s->nr_tps; i++)
		if (s->tps[i].id == id)
			return s->tps[i].name;
	return NULL;
}

static const char *pmu_name(const struct perf_src *s, uint32_t type)
{
	for (size_t i = 0; i < s->nr_pmus; i++)
		if (s->pmus[i].type == type)
			return s->pmus[i].name;
	return NULL;
}

/* perf 6.1's modifier suffix (evsel__add_modifiers): the privilege levels
 * kept when any is excluded, p per precise level, H and G when exclude_guest
 * is what levels or precision make the default (later perfs print H/G only
 * when one is excluded). */
static void modifiers(const uint8_t *attr, char *buf, size_t size)
{
	uint64_t fl;
	char m[16];
	size_t n = 0;
	int levels, guest_default = 0;

	memcpy(&fl, attr + PERF_ATTR_FLAGS, sizeof(fl));
	levels = !!(fl & (PERF_AF_EXCLUDE_KERNEL | PERF_AF_EXCLUDE_USER | PERF_AF_EXCLUDE_HV));
	if (levels) {
		if (!(fl & PERF_AF_EXCLUDE_KERNEL))
			m[n++] = 'k';
		if (!(fl & PERF_AF_EXCLUDE_USER))
			m[n++] = 'u';
		if (!(fl & PERF_AF_EXCLUDE_HV))
			m[n++] = 'h';
		guest_default = 1;
	}
	for (uint64_t p = (fl >> PERF_AF_PRECISE_SHIFT) & 3; p; p--) {
		m[n++] = 'p';
		guest_default = 1;
	}
	if ((fl & PERF_AF_EXCLUDE_HOST) || !!(fl & PERF_AF_EXCLUDE_GUEST) == guest_default) {
		if (!(fl & PERF_AF_EXCLUDE_HOST))
			m[n++] = 'H';
		if (!(fl & PERF_AF_EXCLUDE_GUEST))
			m[n++] = 'G';
	}
	m[n] = 0;
	if (n && strlen(buf) + n + 2 <= size)
		strcat(strcat(buf, ":"), m);
}

char *perf_event_name(const struct perf_src *s, const struct perf_ev *e)
{
	uint32_t type;
	uint64_t config;
	char buf[128];
	const char *n = NULL;

	memcpy(&type, e->attr + PERF_ATTR_TYPE, sizeof(type));
	memcpy(&config, e->attr + PERF_ATTR_CONFIG, sizeof(config));
	if (type == PERF_ATYPE_HW && config < NELEM(hw_names))
		n = hw_names[config];
	else if (type == PERF_ATYPE_SW && config < NELEM(sw_names))
		n = sw_names[config];
	else if (type == PERF_ATYPE_TP)
		n = tp_name(s, config);
	if (n)
		snprintf(buf, sizeof(buf), "%s", n);
	else if (type == PERF_ATYPE_HW_CACHE && (config & 0xff) < NELEM(cache_names) &&
		 ((config >> 8) & 0xff) < NELEM(cache_ops) && ((config >> 16) & 0xff) < 2)
		snprintf(buf, sizeof(buf), "%s-%s", cache_names[config & 0xff],
			 cache_ops[(config >> 8) & 0xff][(config >> 16) & 0xff]);
	else if (type == PERF_ATYPE_TP)
		snprintf(buf, sizeof(buf), "tracepoint:%llu", (unsigned long long)config);
	else if (type == PERF_ATYPE_RAW)
		snprintf(buf, sizeof(buf), "r%llx", (unsigned long long)config);
	else if ((n = pmu_name(s, type)))
		snprintf(buf, sizeof(buf), "%.64s/config=0x%llx/", n, (unsigned long long)config);
	else
		snprintf(buf, sizeof(buf), "type%u/config=0x%llx/", type,
			 (unsigned long long)config);
	/* a tracepoint's name is sys:name, a modifier after it reads the same */
	modifiers(e->attr, buf, sizeof(buf));
	return strdup(buf);
}

/* The tracing data is in the file's byte order: the host's here. */

static const char *tstr(struct pmuk_cursor *c)
{
	const char *s = (const char *)c->p;
	const void *nul = memchr(c->p, 0, c->left);

	if (!nul || pmuk_cursor_take(c, NULL, (size_t)((const uint8_t *)nul - c->p) + 1))
		return NULL;
	return s;
}

/* "name: NAME" and "ID: N" of one format file. */
static void add_format(struct perf_src *s, const char *sys, const char *fmt, size_t n)
{
	char name[128] = "", *end;
	const char *p;
	unsigned long long id;

	for (p = fmt; p && p < fmt + n; p = memchr(p, '\n', (size_t)(fmt + n - p)), p = p ? p + 1 : p) {
		size_t left = (size_t)(fmt + n - p);

		if (left > 6 && !strncmp(p, "name: ", 6)) {
			size_t k = 0;
			for (p += 6; k + 1 < sizeof(name) && p < fmt + n && *p != '\n'; p++)
				name[k++] = *p;
			name[k] = 0;
		} else if (left > 4 && !strncmp(p, "ID: ", 4) && name[0]) {
			char num[24] = "";
			size_t k = 0;
			for (p += 4; k + 1 < sizeof(num) && p < fmt + n && *p != '\n'; p++)
				num[k++] = *p;
			id = strtoull(num, &end, 10);
			if (end == num)
				return;
			if (pmuk_grow((void **)&s->tps, &s->cap_tps, s->nr_tps + 1, sizeof(*s->tps)))
				return;
			char full[256];
			snprintf(full, sizeof(full), "%s:%s", sys, name);
			if ((s->tps[s->nr_tps].name = strdup(full)))
				s->tps[s->nr_tps++].id = id;
			return;
		}
	}
}

/* The tracing data (tools/perf/util/trace-event-read.c): magic, version,
 * endianness, long and page size, header_page, header_event, ftrace formats,
 * then per system its event formats. Only the ids are taken here. */
void perf_tracing_ids(struct perf_src *s)
{
	struct pmuk_cursor c = { s->tracing, s->tracing_size };
	uint32_t nr, nsys, u32;
	uint64_t sz;
	uint8_t b[3];

	/* magic "\027\010\104tracing", version, endian, long size, page size */
	if (!c.p || pmuk_cursor_take(&c, NULL, 10) || !tstr(&c) || pmuk_cursor_take(&c, b, 2) ||
	    pmuk_cursor_take(&c, &u32, 4))
		return;
	for (int i = 0; i < 2; i++)   /* header_page, header_event */
		if (!tstr(&c) || pmuk_cursor_take(&c, &sz, 8) || sz > c.left ||
		    pmuk_cursor_take(&c, NULL, (size_t)sz))
			return;
	if (pmuk_cursor_take(&c, &nr, 4))
		return;
	for (uint32_t i = 0; i < nr; i++)
		if (pmuk_cursor_take(&c, &sz, 8) || sz > c.left ||
		    pmuk_cursor_take(&c, NULL, (size_t)sz))
			return;
	if (pmuk_cursor_take(&c, &nsys, 4))
		return;
	for (uint32_t i = 0; i < nsys; i++) {
		const char *sys = tstr(&c);

		if (!sys || pmuk_cursor_take(&c, &nr, 4))
			return;
		for (uint32_t j = 0; j < nr; j++) {
			if (pmuk_cursor_take(&c, &sz, 8) || sz > c.left)
				return;
			add_format(s, sys, (const char *)c.p, (size_t)sz);
			pmuk_cursor_take(&c, NULL, (size_t)sz);
		}
	}
}
