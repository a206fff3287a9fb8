/* SPDX-License-Identifier: MIT */
/* The node features of a perf.data, read from its feature table (one section
 * per bit set in adds_features, in bit order, after the data): pmukit's
 * PMUK_FEAT_NODES and perf's HEADER_NUMA_TOPOLOGY. File mode only: pmukit
 * record writes files; perf's pipe mode carries no pmukit answers. */
#include "core/report_node.h"
#include "core/cpulist.h"
#include "core/error.h"

#include <stdlib.h>
#include <string.h>

#define MAX_BODY (1ull << 30)

static int cmp_entry(const void *a, const void *b)
{
	const struct pmuk_node_feat_entry *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return (x->page > y->page) - (x->page < y->page);
}

int pmuk_nodefile_parse_nodes(struct pmuk_nodefile *nf, const uint8_t *p, size_t n)
{
	struct pmuk_node_feat_head h;

	if (n < sizeof(h))
		return pmuk_fail(PMU_EFORMAT, "the node answers section is %zu bytes, shorter than "
				 "its %zu-byte head", n, sizeof(h));
	memcpy(&h, p, sizeof(h));
	if (memcmp(h.magic, PMUK_NODES_MAGIC, 8) || h.version != 1 ||
	    h.entry_size != sizeof(*nf->e) || !h.page_size || (h.page_size & (h.page_size - 1)))
		return pmuk_fail(PMU_EFORMAT, "the node answers section is not version 1 of "
				 "pmukit's layout (a newer pmukit wrote it?)");
	if (h.n > (n - sizeof(h)) / sizeof(*nf->e))
		return pmuk_fail(PMU_EFORMAT, "the node answers section says %llu answers; %zu "
				 "bytes hold fewer (a truncated file)", (unsigned long long)h.n, n);
	free(nf->e);
	nf->e = malloc(h.n ? h.n * sizeof(*nf->e) : 1);
	if (!nf->e)
		return pmuk_fail(PMU_ENOMEM, "out of memory for %llu node answers",
				 (unsigned long long)h.n);
	memcpy(nf->e, p + sizeof(h), h.n * sizeof(*nf->e));
	nf->n = h.n;
	if (nf->n)
		qsort(nf->e, nf->n, sizeof(*nf->e), cmp_entry);
	nf->h = h;
	nf->have_answers = 1;
	return 0;
}

/* perf's header string: u32 length, then that many bytes (NUL-padded). */
static int take(const uint8_t **p, const uint8_t *end, void *out, size_t n)
{
	if ((size_t)(end - *p) < n)
		return -1;
	if (out)
		memcpy(out, *p, n);
	*p += n;
	return 0;
}

static int numa_node(struct pmuk_nodefile *nf, const uint8_t **p, const uint8_t *end)
{
	uint32_t id, len;
	char list[4096];
	int *cpus = NULL;
	size_t ncpus = 0;

	if (take(p, end, &id, 4) || take(p, end, NULL, 16) || take(p, end, &len, 4) ||
	    (size_t)(end - *p) < len)
		return -1;
	snprintf(list, sizeof(list), "%.*s", (int)strnlen((const char *)*p, len), (const char *)*p);
	*p += len;
	if (list[0] && pmuk_cpulist_parse(list, &cpus, &ncpus) < 0)
		return -1;
	for (size_t i = 0; i < ncpus; i++) {
		size_t c = (size_t)cpus[i];

		if (cpus[i] < 0 || c > 65535)
			continue;
		if (c >= nf->ncpu) {
			int32_t *m = realloc(nf->cpu_node, (c + 1) * sizeof(*m));

			if (!m) {
				free(cpus);
				return -1;
			}
			for (size_t k = nf->ncpu; k <= c; k++)
				m[k] = -1;
			nf->cpu_node = m;
			nf->ncpu = c + 1;
		}
		nf->cpu_node[c] = (int32_t)id;
	}
	free(cpus);
	return 0;
}

int pmuk_nodefile_parse_numa(struct pmuk_nodefile *nf, const uint8_t *p, size_t n)
{
	const uint8_t *end = p + n;
	uint32_t nr;

	if (take(&p, end, &nr, 4) || nr > n / 24)
		return pmuk_fail(PMU_EFORMAT, "the NUMA_TOPOLOGY feature (%zu bytes) is damaged", n);
	for (uint32_t i = 0; i < nr; i++)
		if (numa_node(nf, &p, end) < 0)
			return pmuk_fail(PMU_EFORMAT, "the NUMA_TOPOLOGY feature: node %u of %u is "
					 "damaged (or out of memory)", i, nr);
	nf->nnodes = nr;
	return 0;
}

static int read_at(FILE *f, uint64_t off, void *p, size_t n)
{
	return fseek(f, (long)off, SEEK_SET) || fread(p, 1, n, f) != n ? -1 : 0;
}

/* Body of section sec into a buffer; parse it. */
static int section(struct pmuk_nodefile *nf, FILE *f, int feat, const struct perf_file_section *s)
{
	uint8_t *p;
	long end;
	int err;

	/* the file's size first: a damaged size is a damaged file, not a lack of memory */
	if (fseek(f, 0, SEEK_END) || (end = ftell(f)) < 0 || s->offset > (uint64_t)end ||
	    s->size > (uint64_t)end - s->offset)
		return pmuk_fail(PMU_EFORMAT, "header feature %d says %llu bytes at offset %llu, "
				 "past the end of the file", feat, (unsigned long long)s->size,
				 (unsigned long long)s->offset);
	if (s->size > MAX_BODY || !(p = malloc(s->size ? s->size : 1)))
		return pmuk_fail(PMU_ENOMEM, "header feature %d of %llu bytes does not fit in "
				 "memory", feat, (unsigned long long)s->size);
	if (read_at(f, s->offset, p, s->size)) {
		free(p);
		return pmuk_fail(PMU_EIO, "cannot read header feature %d (%llu bytes at offset "
				 "%llu)", feat, (unsigned long long)s->size,
				 (unsigned long long)s->offset);
	}
	err = feat == PMUK_FEAT_NODES ? pmuk_nodefile_parse_nodes(nf, p, s->size) :
	      pmuk_nodefile_parse_numa(nf, p, s->size);
	free(p);
	return err;
}

static int load(struct pmuk_nodefile *nf, FILE *f, const char *path)
{
	struct perf_file_header h;
	struct perf_file_section s;
	uint64_t at;
	int err = 0;

	/* pipe mode, the other byte order, .etl: no pmukit answers in them (the
	 * report says the nodes are unknown; the records are read elsewhere) */
	if (read_at(f, 0, &h, sizeof(h)) || h.magic != PERF_FILE_MAGIC || h.size != sizeof(h))
		return 0;
	at = h.data.offset + h.data.size;
	for (int feat = 1; feat < PERF_FEAT_BITS && !err; feat++) {
		if (!((h.adds_features[feat / 64] >> (feat % 64)) & 1))
			continue;
		if (read_at(f, at, &s, sizeof(s)))
			return pmuk_fail(PMU_EFORMAT, "%s: the header feature table ends early at "
					 "offset %llu (a truncated file)", path,
					 (unsigned long long)at);
		at += sizeof(s);
		if (feat == PMUK_FEAT_NODES || feat == HEADER_NUMA_TOPOLOGY)
			err = section(nf, f, feat, &s);
	}
	return err;
}

int pmuk_nodefile_load(const char *path, struct pmuk_nodefile *nf)
{
	FILE *f = fopen(path, "rb");
	int err;

	memset(nf, 0, sizeof(*nf));
	if (!f)
		return pmuk_fail(PMU_ENOENT, "cannot open %s to read its node answers", path);
	err = load(nf, f, path);
	fclose(f);
	if (err)
		pmuk_nodefile_free(nf);
	return err;
}

const struct pmuk_node_feat_entry *pmuk_nodefile_find(const struct pmuk_nodefile *nf,
						     int32_t pid, uint64_t addr)
{
	struct pmuk_node_feat_entry key = { 0 };

	if (!nf->n)
		return NULL;
	key.pid = pid;
	key.page = addr & ~(nf->h.page_size - 1);
	return bsearch(&key, nf->e, nf->n, sizeof(key), cmp_entry);
}

int pmuk_nodefile_cpu_node(const struct pmuk_nodefile *nf, int32_t cpu)
{
	return cpu >= 0 && (size_t)cpu < nf->ncpu ? nf->cpu_node[cpu] : -1;
}

void pmuk_nodefile_free(struct pmuk_nodefile *nf)
{
	free(nf->e);
	free(nf->cpu_node);
	memset(nf, 0, sizeof(*nf));
}
