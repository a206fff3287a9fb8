/* SPDX-License-Identifier: MIT */
/* libFuzzer target for the perf.data reader: any bytes as a file, opened
 * through the record source (file or pipe mode by its header) and read to the
 * end, touching everything a record and the metadata point at. Seeds:
 * tests/fuzz/seeds/fuzz_perf_read/ (small files of perf record: file mode,
 * pipe mode, -z; and the crafted files of test_perf_read and
 * test_perf_read_damage, written there when
 * PMUKIT_PERF_SEED_DIR is set; pmukit_record_d.data: record -d's node answers and
 * NUMA_TOPOLOGY). */
#include <pmukit/trace.h>
#include "core/report_node.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile uint64_t sink;

static void touch(const void *p, size_t n)
{
	const uint8_t *b = p;

	for (size_t i = 0; i < n; i++)
		sink += b[i];
}

static int on_record(const struct pmu_record *r, void *ctx)
{
	(void)ctx;
	if (r->kind == PMU_RECORD_SAMPLE) {
		const struct pmu_sample *s = &r->sample;
		touch(s->callchain, (size_t)s->nr_callchain * 8);
		touch(s->branches, (size_t)s->nr_branches * sizeof(*s->branches));
		if (s->nr_kernel_frames > s->nr_callchain)
			abort();
		if ((r->has & (PMU_HAS_RAW | PMU_HAS_REGS_USER | PMU_HAS_STACK_USER)) && s->ext) {
			touch(s->ext->raw, s->ext->raw_size);
			touch(s->ext->regs, (size_t)s->ext->nr_regs * 8);
			touch(s->ext->stack, (size_t)s->ext->stack_size);
		}
	} else if (r->kind == PMU_RECORD_MMAP) {
		sink += strlen(r->mmap.path);
		if (r->mmap.build_id_size > sizeof(r->mmap.build_id))
			abort();
	} else if (r->kind == PMU_RECORD_COMM) {
		if (r->comm.name[sizeof(r->comm.name) - 1])
			abort();
	}
	return 0;
}

static void touch_meta(struct pmu_trace *t)
{
	const struct pmu_trace_info *in = pmu_trace_info(t);

	sink += strlen(in->hostname) + strlen(in->os_release) + strlen(in->arch) +
		strlen(in->cpu_desc) + strlen(in->cpuid) + strlen(in->cmdline) + strlen(in->version);
	touch(in->tracing_data, in->tracing_data_size);
	for (size_t i = 0; i < pmu_trace_event_count(t); i++) {
		const struct pmu_trace_event *e = pmu_trace_event(t, i);
		sink += strlen(e->name);
		touch(e->attr, e->attr_size);
		touch(e->ids, e->nr_ids * 8);
	}
	for (size_t i = 0; i < pmu_trace_build_id_count(t); i++)
		sink += strlen(pmu_trace_build_id(t, i)->path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char path[64];
	struct pmu_trace_stats st;
	struct pmu_trace *t;

	if (!path[0])
		snprintf(path, sizeof(path), "/tmp/fuzz_perf_read_%d.data", (int)getpid());
	FILE *f = fopen(path, "wb");
	if (!f)
		abort();
	if (size && fwrite(data, 1, size, f) != size)
		abort();
	fclose(f);
	/* report --sort node's reader of pmukit's node answers and NUMA_TOPOLOGY */
	struct pmuk_nodefile nf;
	if (pmuk_nodefile_load(path, &nf) == 0)
		pmuk_nodefile_free(&nf);
	PMU_OPTS(pmu_trace_opts, o, .reorder_window_ns = size & 1 ? 1000 : 0);
	if (pmu_trace_open(path, &o, &t))
		return 0;
	touch_meta(t);
	pmu_trace_read(t, on_record, NULL);
	touch_meta(t);   /* pipe mode: features and events may have come with the data */
	pmu_trace_stats(t, &st, sizeof(st));
	pmu_trace_close(t);
	return 0;
}
