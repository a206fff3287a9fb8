/* SPDX-License-Identifier: MIT */
/* Provider GUIDs (kernel groups and a few well-known providers) and the
 * per provider/id/opcode/version event counts. */
#include "formats/etl_int.h"
#include "core/error.h"
#include "core/grow.h"

#include <stdlib.h>
#include <strings.h>

struct provider {
	int group;                /* kernel hook group, -1 for other providers */
	const char *name;
	struct pmu_guid guid;
};

static const struct provider providers[] = {
	{ 0, "EventTrace", { 0x68fdd900, 0x4a3e, 0x11d1, { 0x84, 0xf4, 0x00, 0x00, 0xf8, 0x04, 0x64, 0xe3 } } },
	{ 1, "DiskIo", { 0x3d6fa8d4, 0xfe05, 0x11d0, { 0x9d, 0xda, 0x00, 0xc0, 0x4f, 0xd7, 0xba, 0x7c } } },
	{ 2, "PageFault", { 0x3d6fa8d3, 0xfe05, 0x11d0, { 0x9d, 0xda, 0x00, 0xc0, 0x4f, 0xd7, 0xba, 0x7c } } },
	{ 3, "Process", { 0x3d6fa8d0, 0xfe05, 0x11d0, { 0x9d, 0xda, 0x00, 0xc0, 0x4f, 0xd7, 0xba, 0x7c } } },
	{ 4, "FileIo", { 0x90cbdc39, 0x4a3e, 0x11d1, { 0x84, 0xf4, 0x00, 0x00, 0xf8, 0x04, 0x64, 0xe3 } } },
	{ 5, "Thread", { 0x3d6fa8d1, 0xfe05, 0x11d0, { 0x9d, 0xda, 0x00, 0xc0, 0x4f, 0xd7, 0xba, 0x7c } } },
	{ 6, "TcpIp", { 0x9a280ac0, 0xc8e0, 0x11d1, { 0x84, 0xe2, 0x00, 0xc0, 0x4f, 0xb9, 0x98, 0xa2 } } },
	{ 8, "UdpIp", { 0xbf3a50c5, 0xa9c9, 0x4988, { 0xa0, 0x05, 0x2d, 0xf0, 0xb7, 0xc8, 0x0f, 0x80 } } },
	{ 9, "Registry", { 0xae53722e, 0xc863, 0x11d2, { 0x86, 0x59, 0x00, 0xc0, 0x4f, 0xa3, 0x21, 0xa1 } } },
	{ 11, "SystemConfig", { 0x01853a65, 0x418f, 0x4f36, { 0xae, 0xfc, 0xdc, 0x0f, 0x1d, 0x2f, 0xd2, 0x35 } } },
	{ 12, "LastBranchRecord", { 0x99134383, 0x5248, 0x43fc, { 0x83, 0x4b, 0x52, 0x94, 0x54, 0xe7, 0x5d, 0xf3 } } },
	{ 15, "PerfInfo", { 0xce1dbfb4, 0x137e, 0x4da6, { 0x87, 0xb0, 0x3f, 0x59, 0xaa, 0x10, 0x2c, 0xbc } } },
	{ 20, "Image", { 0x2cb15d1d, 0x5fc1, 0x11d2, { 0xab, 0xe1, 0x00, 0xa0, 0xc9, 0x11, 0xf5, 0x18 } } },
	{ 24, "StackWalk", { 0xdef2fe46, 0x7bd6, 0x4b80, { 0xbd, 0x94, 0xf5, 0x7f, 0xe2, 0x0d, 0x0c, 0xe3 } } },
	{ 26, "ALPC", { 0x45d8cccd, 0x539f, 0x4b72, { 0xa8, 0xb7, 0x5c, 0x68, 0x31, 0x42, 0x60, 0x9a } } },
	{ 27, "SplitIo", { 0xd837ca92, 0x12b9, 0x44a5, { 0xad, 0x6a, 0x3a, 0x65, 0xb3, 0x57, 0x8a, 0xa8 } } },
	{ -1, "ImageID", { 0xb3e675d7, 0x2554, 0x4f18, { 0x83, 0x0b, 0x27, 0x62, 0x73, 0x25, 0x60, 0xde } } },
	{ -1, "SysConfigEx", { 0x9b79ee91, 0xb5fd, 0x41c0, { 0xa2, 0x43, 0x42, 0x48, 0xe2, 0x66, 0xe9, 0xd0 } } },
	{ -1, "DotNETRuntime", { 0xe13c0d23, 0xccbc, 0x4e12, { 0x93, 0x1b, 0xd9, 0xcc, 0x2e, 0xee, 0x27, 0xe4 } } },
	{ -1, "DotNETRuntimeRundown", { 0xa669021c, 0xc450, 0x4609, { 0xa0, 0x35, 0x5a, 0xf5, 0x9a, 0xf4, 0xdf, 0x18 } } },
	{ -1, "DotNETRuntimePrivate", { 0x763fd754, 0x7086, 0x4dfe, { 0x95, 0xeb, 0xc0, 0x1a, 0x46, 0xfa, 0xf4, 0xca } } },
};
#define N_PROVIDERS (sizeof(providers) / sizeof(providers[0]))

/* group -> index + 1 in providers[] */
static const unsigned char group_slot[256] = {
	[0x00] = 1, [0x01] = 2, [0x02] = 3, [0x03] = 4, [0x04] = 5, [0x05] = 6, [0x06] = 7,
	[0x08] = 8, [0x09] = 9, [0x0B] = 10, [0x0C] = 11, [0x0F] = 12, [0x14] = 13,
	[0x18] = 14, [0x1A] = 15, [0x1B] = 16,
};

void pmuk_etl_group_guid(unsigned group, unsigned opcode, struct pmu_guid *out)
{
	/* image load is logged in the Process group as type 10 */
	if (group == PMU_ETL_GROUP_PROCESS && opcode == 10)
		group = PMU_ETL_GROUP_IMAGE;
	unsigned slot = group_slot[group & 0xFF];
	if (slot) {
		*out = providers[slot - 1].guid;
		return;
	}
	/* unknown group: a GUID that still keeps groups apart */
	memset(out, 0, sizeof(*out));
	out->d4[7] = (uint8_t)group;
}

int pmuk_etl_is_group(const struct pmu_etl_event *ev, unsigned group)
{
	struct pmu_guid g;

	pmuk_etl_group_guid(group, 0, &g);
	return !memcmp(&ev->provider, &g, sizeof(g));
}

const char *pmu_etl_provider_name(const struct pmu_guid *g)
{
	for (size_t i = 0; i < N_PROVIDERS; i++)
		if (!memcmp(&providers[i].guid, g, sizeof(*g)))
			return providers[i].name;
	return NULL;
}

int pmu_etl_provider_lookup(const char *name, struct pmu_guid *g)
{
	for (size_t i = 0; i < N_PROVIDERS; i++)
		if (!strcasecmp(providers[i].name, name)) {
			*g = providers[i].guid;
			return 0;
		}
	return pmuk_fail(PMU_ENOENT, "no provider named '%s' is known; give its GUID", name);
}

static int same_key(const struct pmu_etl_stat *s, const struct pmu_etl_event *ev)
{
	return s->id == ev->id && s->opcode == ev->opcode && s->version == ev->version &&
	       s->kind == (unsigned)ev->kind && !memcmp(&s->provider, &ev->provider, sizeof(s->provider));
}

static size_t key_hash(const struct pmu_etl_event *ev)
{
	uint64_t h = ev->provider.d1 ^ (uint64_t)ev->provider.d2 << 32 ^ (uint64_t)ev->provider.d4[7] << 48;
	h ^= (uint64_t)ev->id * 0x9E3779B97F4A7C15ull ^ (uint64_t)ev->opcode << 20 ^
	     (uint64_t)ev->version << 28 ^ (uint64_t)ev->kind << 36;
	h *= 0xFF51AFD7ED558CCDull;
	return (size_t)(h ^ h >> 29);
}

static int stat_eq(const void *key, uint32_t id, const void *ctx)
{
	return same_key(&((const struct pmu_etl_stat *)ctx)[id], key);
}

void pmuk_etl_stat_add(struct pmu_etl *r, const struct pmu_etl_event *ev)
{
	if (r->stat_last >= 0 && same_key(&r->stats[r->stat_last], ev)) {
		r->stats[r->stat_last].count++;
		return;
	}
	uint64_t h = key_hash(ev);
	uint32_t j = pmuk_index_find(&r->stat_ix, h, stat_eq, ev, r->stats);
	if (j == PMUK_INDEX_NONE) {
		if (pmuk_grow((void **)&r->stats, &r->stat_cap, r->stat_ix.n + 1, sizeof(*r->stats)) ||
		    (j = pmuk_index_add(&r->stat_ix, h)) == PMUK_INDEX_NONE)
			return;
		r->stats[j] = (struct pmu_etl_stat){ .provider = ev->provider, .kind = ev->kind,
						     .id = ev->id, .opcode = ev->opcode,
						     .version = ev->version };
	}
	r->stats[j].count++;
	r->stat_last = (int)j;
}

void pmuk_etl_stats_free(struct pmu_etl *r)
{
	free(r->stats);
	pmuk_index_free(&r->stat_ix);
	free(r->sorted);
	r->stats = NULL;
	r->sorted = NULL;
}

static int cmp_stat(const void *a, const void *b)
{
	const struct pmu_etl_stat *x = a, *y = b;
	const struct pmu_guid *g = &x->provider, *h = &y->provider;

	/* the order of the GUIDs' text form */
	if (g->d1 != h->d1)
		return g->d1 < h->d1 ? -1 : 1;
	if (g->d2 != h->d2)
		return g->d2 < h->d2 ? -1 : 1;
	if (g->d3 != h->d3)
		return g->d3 < h->d3 ? -1 : 1;
	int c = memcmp(g->d4, h->d4, sizeof(g->d4));
	if (c)
		return c;
	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	if (x->opcode != y->opcode)
		return x->opcode < y->opcode ? -1 : 1;
	if (x->version != y->version)
		return x->version < y->version ? -1 : 1;
	return (int)x->kind - (int)y->kind;
}

size_t pmu_etl_stat_count(const struct pmu_etl *r)
{
	return r->stat_ix.n;
}

int pmu_etl_stat_at(const struct pmu_etl *r, size_t i, struct pmu_etl_stat *out)
{
	/* the sorted copy is a private cache, rebuilt when asked for entry 0 */
	struct pmu_etl *w = (struct pmu_etl *)r;

	if (i >= r->stat_ix.n)
		return pmuk_fail(PMU_EINVAL, "statistics entry %zu of %zu requested", i, r->stat_ix.n);
	if (i == 0 || w->sorted_n != w->stat_ix.n) {
		struct pmu_etl_stat *n = realloc(w->sorted, w->stat_ix.n * sizeof(*n));
		if (!n)
			return pmuk_fail(PMU_ENOMEM, "no memory to sort .etl statistics");
		w->sorted = n;
		w->sorted_n = w->stat_ix.n;
		memcpy(n, w->stats, w->sorted_n * sizeof(*n));
		qsort(n, w->sorted_n, sizeof(*n), cmp_stat);
	}
	*out = w->sorted[i];
	return 0;
}
