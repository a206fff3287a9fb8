/* SPDX-License-Identifier: MIT */
/* The header features of record -d's node answers: pmukit's PMUK_FEAT_NODES
 * and perf's HEADER_NUMA_TOPOLOGY (tools/perf/util/header.c write_numa_topology:
 * u32 nr, then per node u32 id, u64 MemTotal kB, u64 MemFree kB, the cpulist as
 * a header string), which tells the node of each sample's CPU offline. */
#include "linux/record_node.h"
#include "core/error.h"
#include "core/num.h"
#include "core/sysroot.h"
#include "formats/perf_write.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>

void pmuk_rec_nodes_body(const struct pmuk_rec_nodes *n, struct pmuk_pw_buf *b)
{
	struct pmuk_node_feat_head h = n->h;

	memcpy(h.magic, PMUK_NODES_MAGIC, sizeof(h.magic));
	h.version = 1;
	h.entry_size = sizeof(struct pmuk_node_feat_entry);
	h.n = n->n;
	h.page_size = n->page_size;
	pmuk_pw_put(b, &h, sizeof(h));
	pmuk_pw_put(b, n->e, n->n * sizeof(*n->e));
}

/* "Node 0 MemTotal:  1234 kB" -> 1234 */
static uint64_t meminfo_kb(const char *text, const char *key)
{
	const char *p = strstr(text, key);

	return p ? strtoull(p + strlen(key), NULL, 10) : 0;
}

static int cmp_long(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;

	return (x > y) - (x < y);
}

/* The ids of the online nodes, sorted, into ids[] (at most max). */
static size_t node_ids(long *ids, size_t max)
{
	char path[4096];
	struct dirent *de;
	size_t n = 0;
	DIR *d;

	if (pmuk_path(path, sizeof(path), "/sys/devices/system/node") < 0 || !(d = opendir(path)))
		return 0;
	while (n < max && (de = readdir(d)))
		if (!strncmp(de->d_name, "node", 4) &&
		    pmuk_parse_long(de->d_name + 4, 10, 0, INT32_MAX, &ids[n]) == 0)
			n++;
	closedir(d);
	qsort(ids, n, sizeof(*ids), cmp_long);
	return n;
}

int pmuk_numa_topology_body(struct pmuk_pw_buf *b)
{
	static char text[8192];
	char path[4096], cpus[4096];
	long ids[1024];
	size_t n = node_ids(ids, 1024);

	if (!n)
		return 0;
	pmuk_pw_u32(b, (uint32_t)n);
	for (size_t i = 0; i < n; i++) {
		if (pmuk_path(path, sizeof(path), "/sys/devices/system/node/node%ld/meminfo", ids[i]) < 0 ||
		    pmuk_read_text(path, text, sizeof(text)) < 0)
			text[0] = 0;
		if (pmuk_path(path, sizeof(path), "/sys/devices/system/node/node%ld/cpulist", ids[i]) < 0 ||
		    pmuk_read_text(path, cpus, sizeof(cpus)) < 0)
			cpus[0] = 0;
		pmuk_pw_u32(b, (uint32_t)ids[i]);
		pmuk_pw_u64(b, meminfo_kb(text, "MemTotal:"));
		pmuk_pw_u64(b, meminfo_kb(text, "MemFree:"));
		pmuk_pw_str(b, cpus);
	}
	return b->err ? pmuk_fail(PMU_ENOMEM, "out of memory describing the NUMA nodes") : 0;
}
