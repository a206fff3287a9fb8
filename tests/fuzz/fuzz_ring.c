/* SPDX-License-Identifier: MIT */
/* libFuzzer entry: any bytes as a perf ring must drain and decode cleanly.
 * Input: six u64 (data_head, data_tail, sample_type -- bit 63 sets sample_id_all --,
 * read_format, branch_sample_type, sample_regs_user), then the data area, zero
 * padded to a power of two. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "linux/ring.h"
#include "linux/sample_decode.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define HDR 48

static volatile uint64_t sink;

static int on_rec(void *rec, size_t size, void *ctx)
{
	const struct pmuk_sample_fmt *f = ctx;
	struct pmu_record r;

	if (pmuk_decode_record(f, rec, size, &r) != 0)
		return 0;
	/* touch what the pointers promise, so the sanitizers check them */
	if (r.kind == PMU_RECORD_SAMPLE) {
		for (uint32_t i = 0; i < r.sample.nr_callchain; i++)
			sink += r.sample.callchain[i];
		for (uint32_t i = 0; i < r.sample.nr_branches; i++)
			sink += r.sample.branches[i].from + r.sample.branches[i].to;
		if (r.sample.nr_kernel_frames > r.sample.nr_callchain)
			abort();
	} else if (r.kind == PMU_RECORD_MMAP) {
		sink += strlen(r.mmap.path);
	} else if (r.kind == PMU_RECORD_COMM) {
		sink += strnlen(r.comm.name, sizeof(r.comm.name));
		if (r.comm.name[sizeof(r.comm.name) - 1])
			abort();
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct perf_event_mmap_page *page;
	struct pmuk_sample_fmt f = { 0 };
	uint64_t v[6], area = 8, *bounce;
	unsigned char *ring;
	struct pmuk_ring r;

	if (size < HDR)
		return 0;
	memcpy(v, data, HDR);
	data += HDR;
	size -= HDR;
	while (area < size && area < 65536)
		area *= 2;
	page = calloc(1, sizeof(*page));
	ring = calloc(1, area);
	bounce = malloc(PMUK_RING_BOUNCE);
	if (!page || !ring || !bounce)
		goto out;
	memcpy(ring, data, size < area ? size : area);
	page->data_head = v[0];
	page->data_tail = v[1];
	/* bits past the known fields are refused before decoding: keep the rest */
	f.sample_type = v[2] & ((1ull << 25) - 1);
	f.sample_id_all = (int)(v[2] >> 63);
	f.read_format = v[3];
	f.branch_sample_type = v[4];
	f.regs_user = v[5];
	f.regs_intr = v[5] >> 7;
	if (pmuk_ring_init(&r, page, ring, area, bounce) < 0)
		abort();
	/* a drain always ends, and leaves nothing behind but an error */
	for (int i = 0; i < 2; i++)
		pmuk_ring_drain(&r, on_rec, &f);
	if (page->data_tail != page->data_head)
		abort();
out:
	free(page);
	free(ring);
	free(bounce);
	return 0;
}
