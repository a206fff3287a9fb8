/* SPDX-License-Identifier: MIT */
/* libFuzzer target for the .etl reader: any bytes as a file, read to the end
 * with every decoder applied to every event, then through the record adapter
 * into a report with every writer. Seeds: tests/fuzz/seeds/fuzz_etl/
 * (synthetic files written by test_etl_synth and test_etl_records with
 * PMUKIT_ETL_SEED_DIR set; the ones over 64 KiB left out);
 * ../shared/fixtures/etl makes a good extra corpus directory. */
#include "formats/etl_records.h"

#include <pmukit/etl.h>
#include <pmukit/report.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static void decode_all(const struct pmu_etl_event *ev)
{
	static union {
		struct pmu_etl_thread_ev t;
		struct pmu_etl_thread_name_ev tn;
		struct pmu_etl_process_ev p;
		struct pmu_etl_image_ev i;
		struct pmu_etl_imageid_ev id;
		struct pmu_etl_cswitch_ev cs;
		struct pmu_etl_readythread_ev rt;
		struct pmu_etl_sample_ev s;
		struct pmu_etl_pmc_sample_ev ps;
		struct pmu_etl_pmc_counters_ev pc;
		struct pmu_etl_stack_ev sw;
		struct pmu_etl_stack_key_ev sk;
		struct pmu_etl_lbr_ev lbr;
		struct pmu_etl_tl_event tl;
		struct pmu_etl_clr_method_ev cm;
		struct pmu_etl_clr_module_ev cmod;
		struct pmu_etl_sysconfig_paths_ev sp;
	} u;

	pmu_etl_decode_thread(ev, &u.t);
	pmu_etl_decode_thread_set_name(ev, &u.tn);
	pmu_etl_decode_process(ev, &u.p);
	pmu_etl_decode_image(ev, &u.i);
	pmu_etl_decode_imageid_rsds(ev, &u.id);
	pmu_etl_decode_cswitch(ev, &u.cs);
	pmu_etl_decode_readythread(ev, &u.rt);
	pmu_etl_decode_sampled_profile(ev, &u.s);
	pmu_etl_decode_pmc_profile(ev, &u.ps);
	pmu_etl_decode_pmc_counters(ev, &u.pc);
	pmu_etl_decode_stackwalk(ev, &u.sw);
	pmu_etl_decode_stack_key(ev, &u.sk);
	pmu_etl_decode_lbr(ev, &u.lbr);
	pmu_etl_decode_tracelogging(ev, &u.tl);
	pmu_etl_decode_clr_method(ev, &u.cm);
	pmu_etl_decode_clr_module(ev, &u.cmod);
	pmu_etl_decode_sysconfig_paths(ev, &u.sp);
}

/* The same file as pmu_record stream, into a report written every way
 * (text by each sort, JSON, folded stacks, SVG, pprof). */
static void report_all(const char *path, FILE *out)
{
	PMU_OPTS(pmuk_etl_records_opts, ao, .stack_window_ns = 1000);
	struct pmuk_etl_records *a;
	struct pmu_report *rep;

	if (pmuk_etl_records_open(path, &ao, &a))
		return;
	PMU_OPTS(pmu_report_opts, ro, .script = out);

	pmuk_etl_records_report_opts(a, &ro);
	if (!pmu_report_new(&ro, &rep)) {
		pmuk_etl_records_read(a, pmu_report_record, rep);
		for (int by = PMU_REPORT_SYM; by <= PMU_REPORT_CPU; by++)
			pmu_report_write_text(rep, out, (enum pmu_report_sort)by, 0);
		pmu_report_write_json(rep, out, 0);
		pmu_report_write_collapsed(rep, out);
		pmu_report_write_svg(rep, out, "fuzz");
		pmu_report_write_pprof(rep, out);
		pmu_report_free(rep);
	}
	pmuk_etl_records_close(a);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char path[64];
	static FILE *out;
	struct pmu_etl_event ev;
	struct pmu_etl_thread t;
	struct pmu_etl_stat st;
	struct pmu_etl *r;

	if (!path[0])
		snprintf(path, sizeof(path), "/tmp/fuzz_etl_%d.etl", (int)getpid());
	FILE *f = fopen(path, "wb");
	if (!f)
		abort();
	if (size && fwrite(data, 1, size, f) != size)
		abort();
	fclose(f);
	for (int order = 0; order < 2; order++) {
		PMU_OPTS(pmu_etl_opts, o, .order = order);
		if (pmu_etl_open(path, &o, &r))
			break;
		while (pmu_etl_next(r, &ev) > 0)
			decode_all(&ev);
		for (size_t i = 0; i < pmu_etl_thread_count(r); i++)
			pmu_etl_thread_at(r, i, &t);
		for (size_t i = 0; i < pmu_etl_stat_count(r); i++)
			pmu_etl_stat_at(r, i, &st);
		pmu_etl_close(r);
	}
	if (!out && !(out = fopen("/dev/null", "w")))
		abort();
	report_all(path, out);
	return 0;
}
