/* SPDX-License-Identifier: MIT */
/* Records the recorder builds itself: those linux/synth.h synthesizes from /proc
 * (COMM and MMAP2 of what ran before the start, the kernel's and the modules'
 * MMAPs) and LOST_SAMPLES at the end, each with the sample_id trailer the attrs
 * ask for (sample_id_all), then written and tracked like the kernel's records. */
#include "linux/record_int.h"
#include "linux/synth.h"
#include "core/error.h"

#include <string.h>
#include <unistd.h>

/* sample_id: {pid, tid} {time} {id} {stream_id} {cpu, res} {identifier}, each
 * present when sample_type has it (the order of the kernel's __perf_event_header__init_id). */
static size_t trailer(const struct pmu_recording *r, int32_t pid, int32_t tid, uint64_t time,
		      uint64_t id, uint8_t *out)
{
	uint64_t st = r->fmt[0].sample_type;
	uint32_t cpu[2] = { 0, 0 };
	int32_t t[2] = { pid, tid };
	size_t n = 0;

	if (st & PERF_SAMPLE_TID)
		memcpy(out + n, t, 8), n += 8;
	if (st & PERF_SAMPLE_TIME)
		memcpy(out + n, &time, 8), n += 8;
	if (st & PERF_SAMPLE_ID)
		memcpy(out + n, &id, 8), n += 8;
	if (st & PERF_SAMPLE_STREAM_ID)
		memcpy(out + n, &id, 8), n += 8;
	if (st & PERF_SAMPLE_CPU)
		memcpy(out + n, cpu, 8), n += 8;
	if (st & PERF_SAMPLE_IDENTIFIER)
		memcpy(out + n, &id, 8), n += 8;
	return n;
}

int pmuk_rec_emit(struct pmu_recording *r, uint32_t type, uint16_t misc, const void *body,
		  size_t size, int32_t pid, int32_t tid, uint64_t time, uint64_t id)
{
	uint64_t buf[8192]; /* 64 KiB: the largest record a header can size */
	struct perf_event_header *h = (void *)buf;
	size_t padded = (size + 7) & ~(size_t)7, n;

	if (sizeof(*h) + padded + 48 > 65535)
		return pmuk_fail(PMU_EINVAL, "a synthesized record of %zu bytes is too large", size);
	memcpy(buf + 1, body, size);
	memset((uint8_t *)(buf + 1) + size, 0, padded - size);
	n = sizeof(*h) + padded;
	n += trailer(r, pid, tid, time, id ? id : r->trailer_id, (uint8_t *)buf + n);
	*h = (struct perf_event_header){ type, misc, (uint16_t)n };
	return pmuk_rec_on_record(buf, n, r);
}

static int on_synth(uint32_t type, uint16_t misc, const void *body, size_t size, int32_t pid,
		    int32_t tid, void *ctx)
{
	return pmuk_rec_emit(ctx, type, misc, body, size, pid, tid, 0, 0);
}

static int synth_pids(struct pmu_recording *r, const struct pmu_target *t, unsigned flags)
{
	const int *pids = t->pids ? t->pids : &t->pid;
	size_t n = t->pids ? t->npids : 1;
	int err = 0;

	if (t->kind == PMU_TARGET_SELF)
		return pmuk_synth_process(getpid(), flags, on_synth, r);
	for (size_t i = 0; i < n && err >= 0; i++) {
		err = pmuk_synth_process(pids[i], flags, on_synth, r);
		if (err == PMU_ESRCH)
			err = 0; /* exited since the open: its own records said what it did */
	}
	return err;
}

int pmuk_rec_synth(struct pmu_recording *r, const struct pmu_target *t)
{
	int err = pmuk_synth_kernel(on_synth, r);

	if (err == PMUK_SYNTH_KPTR_HIDDEN)
		pmuk_rec_note(r, "kernel addresses are hidden from this user "
			      "(kernel.kptr_restrict): kernel samples will not be named; "
			      "sysctl -w kernel.kptr_restrict=0 to name them");
	else if (err < 0 && err != PMU_ENOTSUP)
		return err;
	/* the attrs ask for data mmaps then (mmap_data): the mappings made before
	 * the start too, or DWARF unwinding stops at the leaf lacking .eh_frame_hdr */
	unsigned flags = r->o.data_addr || r->o.stack_user ? PMUK_SYNTH_DATA : 0;

	err = t->kind == PMU_TARGET_CPUS ? pmuk_synth_all(flags, on_synth, r) :
					   synth_pids(r, t, flags);
	return err == PMU_ENOTSUP ? 0 : err;
}
