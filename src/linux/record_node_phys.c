/* SPDX-License-Identifier: MIT */
/* Physical address -> node: each node lists its memory blocks in sysfs
 * (nodeN/memoryM), blocks being block_size_bytes long (hex), so the node of a
 * PHYS_ADDR is the owner of block phys / block_size. */
#include "linux/record_node.h"
#include "core/error.h"
#include "core/grow.h"
#include "core/num.h"
#include "core/sysroot.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#define MAX_BLOCKS (1u << 24)   /* 2 PiB of 128 MiB blocks: more is a broken tree */

static int set_block(struct pmuk_phys_nodes *m, size_t *cap, uint64_t block, int node)
{
	size_t old = m->nblocks;

	if (block >= MAX_BLOCKS)
		return pmuk_fail(PMU_EFORMAT, "memory block %llu is past the %u blocks pmukit "
				 "maps: the sysfs tree is not the kernel's",
				 (unsigned long long)block, MAX_BLOCKS);
	if (block >= old) {
		if (pmuk_grow((void **)&m->node, cap, block + 1, sizeof(*m->node)) < 0)
			return pmuk_fail(PMU_ENOMEM, "out of memory mapping memory blocks to nodes");
		for (size_t i = old; i <= block; i++)
			m->node[i] = -1;
		m->nblocks = block + 1;
	}
	m->node[block] = node;
	return 0;
}

/* The memoryM entries of node directory dir. */
static int node_blocks(struct pmuk_phys_nodes *m, size_t *cap, const char *dir, int node)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	uint64_t block;
	int err = 0;

	if (!d)
		return 0;
	while (!err && (de = readdir(d)))
		if (!strncmp(de->d_name, "memory", 6) && de->d_name[6] &&
		    pmuk_parse_u64(de->d_name + 6, 10, &block) == 0)
			err = set_block(m, cap, block, node);
	closedir(d);
	return err;
}

int pmuk_phys_nodes_load(struct pmuk_phys_nodes *m)
{
	char path[4096], text[64];
	size_t cap = 0;
	struct dirent *de;
	DIR *d;
	long node;
	int err = 0;

	memset(m, 0, sizeof(*m));
	if (pmuk_path(path, sizeof(path), "/sys/devices/system/memory/block_size_bytes") < 0 ||
	    pmuk_read_text(path, text, sizeof(text)) < 0 ||
	    pmuk_parse_u64(text, 16, &m->block_size) || !m->block_size) {
		m->block_size = 0;
		return pmuk_fail(PMU_ENOENT, "no /sys/devices/system/memory/block_size_bytes: "
				 "physical addresses cannot be mapped to nodes here (a kernel "
				 "without CONFIG_MEMORY_HOTPLUG?)");
	}
	if (pmuk_path(path, sizeof(path), "/sys/devices/system/node") < 0 || !(d = opendir(path))) {
		m->block_size = 0;
		return pmuk_fail(PMU_ENOENT, "no /sys/devices/system/node: the kernel shows no "
				 "NUMA nodes (CONFIG_NUMA off?)");
	}
	while (!err && (de = readdir(d))) {
		if (strncmp(de->d_name, "node", 4) ||
		    pmuk_parse_long(de->d_name + 4, 10, 0, INT32_MAX, &node))
			continue;
		if (pmuk_path(path, sizeof(path), "/sys/devices/system/node/%s", de->d_name) == 0)
			err = node_blocks(m, &cap, path, (int)node);
	}
	closedir(d);
	if (err)
		pmuk_phys_nodes_free(m);
	return err;
}

int pmuk_phys_node(const struct pmuk_phys_nodes *m, uint64_t phys)
{
	uint64_t b;

	if (!m->block_size)
		return -1;
	b = phys / m->block_size;
	return b < m->nblocks ? m->node[b] : -1;
}

void pmuk_phys_nodes_free(struct pmuk_phys_nodes *m)
{
	free(m->node);
	memset(m, 0, sizeof(*m));
}
