/* SPDX-License-Identifier: MIT */
/* pmukit numa --maps: each mapping of /proc/PID/maps, every page of it queried in
 * batches (pmu_memory_query), counted per node and per reason there is no node. */
#include "numa_maps.h"
#include "cmd.h"

#include <stdio.h>

#ifdef _WIN32
int numa_maps_run(int pid, size_t max_pages, int json)
{
	(void)max_pages;
	(void)json;
	fprintf(stderr, "pmukit numa: --maps reads /proc/%d/maps, which Windows does not have; "
		"give the addresses to query instead (pmukit numa -p %d ADDR...)\n", pid, pid);
	return 1;
}
#else
#include "core/grow.h"
#include "core/json.h"

#include <pmukit/pmukit.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { MAX_NODES = 64, BATCH = 4096 };

struct mapping {
	uint64_t start, end;
	char perms[8];
	char name[256];
	uint64_t pages, queried, stride;
	uint64_t on[MAX_NODES];
	uint64_t absent, unmapped, other; /* other: no permission, gone, node >= MAX_NODES */
};

struct summary {
	struct mapping *m;
	size_t n, cap;
	uint64_t page;
	int gone, denied;
	struct mapping total;
	unsigned char col[MAX_NODES]; /* nodes shown as columns */
};

/* One line of /proc/PID/maps: "start-end perms offset dev inode [path]". */
static int parse_line(const char *line, struct mapping *m)
{
	char path[256] = "";
	unsigned long long s, e;
	int at = 0;

	memset(m, 0, sizeof(*m));
	if (sscanf(line, "%llx-%llx %7s %*s %*s %*s %n", &s, &e, m->perms, &at) < 3)
		return -1;
	snprintf(path, sizeof(path), "%s", line + at);
	path[strcspn(path, "\n")] = '\0';
	m->start = s;
	m->end = e;
	snprintf(m->name, sizeof(m->name), "%s", path[0] ? path : "[anon]");
	return 0;
}

static void count(struct summary *s, struct mapping *m, const struct pmu_page_node *a, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (a[i].state == PMU_PAGE_ON_NODE && a[i].node >= 0 && a[i].node < MAX_NODES)
			m->on[a[i].node]++, s->col[a[i].node] = 1;
		else if (a[i].state == PMU_PAGE_NOT_PRESENT)
			m->absent++;
		else if (a[i].state == PMU_PAGE_NOT_MAPPED)
			m->unmapped++;
		else
			m->other++;
		s->gone |= a[i].state == PMU_PAGE_PROCESS_GONE;
		s->denied |= a[i].state == PMU_PAGE_NO_PERMISSION;
	}
}

/* Every page of m (every stride-th when it is larger than max pages), in batches. */
static int query_mapping(int pid, struct summary *s, struct mapping *m, size_t max)
{
	static uint64_t addrs[BATCH];
	static struct pmu_page_node ans[BATCH];

	m->pages = (m->end - m->start) / s->page;
	m->stride = m->pages > max ? (m->pages + max - 1) / max : 1;
	for (uint64_t p = 0; p < m->pages;) {
		size_t k = 0;
		int err;

		for (; k < BATCH && p < m->pages; k++, p += m->stride)
			addrs[k] = m->start + p * s->page;
		if ((err = pmu_memory_query(pid, addrs, k, ans)) != 0)
			return tool_error("numa", "querying the pages", err);
		count(s, m, ans, k);
		m->queried += k;
	}
	return 0;
}

static void add_total(struct mapping *t, const struct mapping *m)
{
	t->pages += m->pages;
	t->queried += m->queried;
	for (int i = 0; i < MAX_NODES; i++)
		t->on[i] += m->on[i];
	t->absent += m->absent;
	t->unmapped += m->unmapped;
	t->other += m->other;
}

static int read_maps(int pid, struct summary *s, size_t max)
{
	char path[64], line[4096];
	FILE *f;
	int err = 0;

	snprintf(path, sizeof(path), "/proc/%d/maps", pid ? pid : (int)getpid());
	if (!(f = fopen(path, "r"))) {
		fprintf(stderr, "pmukit numa: cannot read %s: %s%s\n", path, strerror(errno),
			errno == ENOENT ? " (no such process: did it exit?)" : "");
		return 1;
	}
	while (!err && fgets(line, sizeof(line), f)) {
		struct mapping m;

		if (parse_line(line, &m)) {
			fprintf(stderr, "pmukit numa: %s has a line it does not parse: %s", path, line);
			err = 1;
		} else if (pmuk_grow((void **)&s->m, &s->cap, s->n + 1, sizeof(m))) {
			fprintf(stderr, "pmukit numa: out of memory reading %s\n", path);
			err = 1;
		} else if (!(err = query_mapping(pid, s, &m, max))) {
			s->m[s->n++] = m;
			add_total(&s->total, &m);
		}
	}
	fclose(f);
	return err;
}

/* Columns: the nodes of this host's topology, and any node a page was found on. */
static void node_columns(struct summary *s)
{
	struct pmu_topology *t;

	if (pmu_topology_load(&t))
		return;
	for (size_t i = 0; i < pmu_topology_node_count(t); i++) {
		int id = pmu_topology_node(t, i)->id;

		if (id >= 0 && id < MAX_NODES)
			s->col[id] = 1;
	}
	pmu_topology_free(t);
}

static void text_row(const struct summary *s, const struct mapping *m, const char *range)
{
	printf("%-33s %9" PRIu64, range, m->pages);
	for (int i = 0; i < MAX_NODES; i++)
		if (s->col[i])
			printf(" %9" PRIu64, m->on[i]);
	printf(" %9" PRIu64 " %9" PRIu64 " %7" PRIu64 "  %s", m->absent, m->unmapped, m->other,
	       m->name);
	if (m->stride > 1)
		printf(" (sampled: 1 page in %" PRIu64 ", %" PRIu64 " queried)", m->stride,
		       m->queried);
	printf("\n");
}

static void write_text(int pid, const struct summary *s)
{
	char range[40], hdr[16];

	printf("pid %d: %zu mappings, %" PRIu64 " pages of %" PRIu64 " KiB\n", pid, s->n,
	       s->total.pages, s->page / 1024);
	printf("%-33s %9s", "mapping", "pages");
	for (int i = 0; i < MAX_NODES; i++)
		if (s->col[i])
			snprintf(hdr, sizeof(hdr), "node%d", i), printf(" %9s", hdr);
	printf(" %9s %9s %7s  %s\n", "absent", "unmapped", "other", "name");
	for (size_t i = 0; i < s->n; i++) {
		snprintf(range, sizeof(range), "%012" PRIx64 "-%012" PRIx64, s->m[i].start,
			 s->m[i].end);
		text_row(s, &s->m[i], range);
	}
	text_row(s, &s->total, "total");
	printf("(absent: mapped, not in memory; unmapped: nothing or the zero page there; "
	       "other: no permission or process gone)\n");
}

static void json_mapping(struct pmuk_json *j, const char *key, const struct summary *s,
			 const struct mapping *m)
{
	char hex[24];

	pmuk_json_obj_begin(j, key);
	if (m != &s->total) {
		snprintf(hex, sizeof(hex), "0x%" PRIx64, m->start);
		pmuk_json_str(j, "start", hex);
		snprintf(hex, sizeof(hex), "0x%" PRIx64, m->end);
		pmuk_json_str(j, "end", hex);
		pmuk_json_str(j, "perms", m->perms);
		pmuk_json_str(j, "name", m->name);
	}
	pmuk_json_uint(j, "pages", m->pages);
	pmuk_json_uint(j, "queried", m->queried);
	pmuk_json_bool(j, "sampled", m->stride > 1);
	pmuk_json_arr_begin(j, "nodes");
	for (int i = 0; i < MAX_NODES; i++) {
		if (!s->col[i])
			continue;
		pmuk_json_obj_begin(j, NULL);
		pmuk_json_int(j, "node", i);
		pmuk_json_uint(j, "pages", m->on[i]);
		pmuk_json_obj_end(j);
	}
	pmuk_json_arr_end(j);
	pmuk_json_uint(j, "not_present", m->absent);
	pmuk_json_uint(j, "not_mapped", m->unmapped);
	pmuk_json_uint(j, "other", m->other);
	pmuk_json_obj_end(j);
}

static void write_json(int pid, const struct summary *s)
{
	struct pmuk_json j;

	pmuk_json_init(&j, stdout, 1);
	pmuk_json_obj_begin(&j, NULL);
	pmuk_json_int(&j, "pid", pid);
	pmuk_json_uint(&j, "page_size", s->page);
	pmuk_json_arr_begin(&j, "mappings");
	for (size_t i = 0; i < s->n; i++)
		json_mapping(&j, NULL, s, &s->m[i]);
	pmuk_json_arr_end(&j);
	json_mapping(&j, "total", s, &s->total);
	pmuk_json_obj_end(&j);
	pmuk_json_finish(&j);
}

int numa_maps_run(int pid, size_t max_pages, int json)
{
	struct summary s = { .page = (uint64_t)sysconf(_SC_PAGESIZE) };
	int err;

	s.total.stride = 1;
	err = read_maps(pid, &s, max_pages);
	if (!err && s.gone) {
		fprintf(stderr, "pmukit numa: process %d exited while its pages were queried\n", pid);
		err = 1;
	} else if (!err && s.denied) {
		fprintf(stderr, "pmukit numa: may not inspect the pages of process %d: another "
			"user's process needs root or CAP_SYS_NICE\n", pid);
		err = 1;
	}
	if (!err) {
		node_columns(&s);
		if (json)
			write_json(pid, &s);
		else
			write_text(pid, &s);
		err = tool_flush_stdout("numa", "the mappings");
	}
	free(s.m);
	return err;
}
#endif
