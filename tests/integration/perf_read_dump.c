/* SPDX-License-Identifier: MIT */
/* Reads a recording through pmu_trace and prints what test_perf_read.sh
 * compares with perf's own view of the same file: "key value" lines. */
#include <pmukit/pmukit.h>
#include <pmukit/trace.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct tally {
	uint64_t kinds[PMU_RECORD_KIND_COUNT];
	uint64_t *per_event;
	size_t nr_events;
	uint64_t backwards, last_time, with_addr, with_raw, mmap_bid, kernel_mmap_pid;
	uint64_t with_callchain, with_regs, with_stack;
};

static int on_record(const struct pmu_record *r, void *ctx)
{
	struct tally *t = ctx;

	t->kinds[r->kind]++;
	if ((r->has & PMU_HAS_TIME) && r->time) {   /* time 0: perf's synthesized records */
		if (r->time < t->last_time)
			t->backwards++;
		t->last_time = r->time;
	}
	if (r->kind == PMU_RECORD_SAMPLE) {
		if (r->event >= 0 && (size_t)r->event < t->nr_events)
			t->per_event[r->event]++;
		t->with_addr += !!(r->has & PMU_HAS_ADDR);
		t->with_callchain += !!(r->has & PMU_HAS_CALLCHAIN);
		if ((r->has & PMU_HAS_RAW) && r->sample.ext && r->sample.ext->raw_size)
			t->with_raw++;
		if ((r->has & PMU_HAS_REGS_USER) && r->sample.ext->nr_regs &&
		    r->sample.ext->regs_abi)
			t->with_regs++;
		if ((r->has & PMU_HAS_STACK_USER) && r->sample.ext->stack_size)
			t->with_stack++;
	}
	if (r->kind == PMU_RECORD_MMAP) {
		t->mmap_bid += r->mmap.build_id_size != 0;
		if (!strncmp(r->mmap.path, "[kernel.kallsyms]", 17) && r->pid == -1)
			t->kernel_mmap_pid++;
	}
	return 0;
}

static void warn(const char *msg, void *ctx)
{
	(void)ctx;
	fprintf(stderr, "warning: %s\n", msg);
}

int main(int argc, char **argv)
{
	PMU_OPTS(pmu_trace_opts, o, .warn = warn);
	struct tally t = { 0 };
	struct pmu_trace_stats st;
	struct pmu_trace *tr;
	const struct pmu_trace_info *in;
	int err;

	if (argc != 2) {
		fprintf(stderr, "usage: perf_read_dump FILE\n");
		return 2;
	}
	if ((err = pmu_trace_open(argv[1], &o, &tr))) {
		fprintf(stderr, "open: %s: %s\n", pmu_strerror(err), pmu_error_detail());
		return 1;
	}
	t.nr_events = pmu_trace_event_count(tr);
	t.per_event = calloc(t.nr_events + 1, sizeof(*t.per_event));
	err = pmu_trace_read(tr, on_record, &t);
	in = pmu_trace_info(tr);
	pmu_trace_stats(tr, &st, sizeof(st));
	printf("format %s\nhostname %s\nos_release %s\narch %s\nversion %s\n",
	       pmu_trace_format_name(in->format), in->hostname, in->os_release, in->arch,
	       in->version);
	printf("nrcpus_online %u\nnrcpus_avail %u\ntotal_mem %llu\ncompressed %d\n",
	       in->nr_cpus_online, in->nr_cpus_avail, (unsigned long long)in->total_mem_kb,
	       in->compressed);
	printf("cmdline %s\ncpudesc %s\ntracing_data %zu\nbuild_ids %zu\n", in->cmdline,
	       in->cpu_desc, in->tracing_data_size, pmu_trace_build_id_count(tr));
	for (size_t i = 0; i < pmu_trace_build_id_count(tr); i++) {
		const struct pmu_trace_build_id *b = pmu_trace_build_id(tr, i);

		printf("build_id ");
		for (unsigned k = 0; k < b->build_id_size; k++)
			printf("%02x", b->build_id[k]);
		printf(" %s\n", b->path);
	}
	printf("events %zu\n", t.nr_events);
	for (size_t i = 0; i < t.nr_events; i++)
		printf("event %s %llu\n", pmu_trace_event(tr, i)->name,
		       (unsigned long long)t.per_event[i]);
	for (int k = 0; k < PMU_RECORD_KIND_COUNT; k++)
		printf("kind_%s %llu\n", pmu_record_kind_name((enum pmu_record_kind)k),
		       (unsigned long long)t.kinds[k]);
	printf("samples %llu\nlost %llu\nlost_samples %llu\nthrottles %llu\nskipped %llu\n"
	       "bytes_skipped %llu\nout_of_order %llu\nbackwards %llu\n",
	       (unsigned long long)st.samples, (unsigned long long)st.lost,
	       (unsigned long long)st.lost_samples, (unsigned long long)st.throttles,
	       (unsigned long long)st.skipped, (unsigned long long)st.bytes_skipped,
	       (unsigned long long)st.out_of_order, (unsigned long long)t.backwards);
	printf("with_addr %llu\nwith_raw %llu\nwith_callchain %llu\nwith_regs %llu\n"
	       "with_stack %llu\nmmap_build_ids %llu\nkernel_mmaps_pid_minus_1 %llu\n",
	       (unsigned long long)t.with_addr, (unsigned long long)t.with_raw,
	       (unsigned long long)t.with_callchain, (unsigned long long)t.with_regs,
	       (unsigned long long)t.with_stack,
	       (unsigned long long)t.mmap_bid, (unsigned long long)t.kernel_mmap_pid);
	printf("read %d\n", err);
	if (err)
		fprintf(stderr, "read: %s: %s\n", pmu_strerror(err), pmu_error_detail());
	pmu_trace_close(tr);
	free(t.per_event);
	return err ? 1 : 0;
}
