/* SPDX-License-Identifier: MIT */
/* pmukit report --header-only: the recording's metadata (pmu_trace_info,
 * its events and their attributes) in perf's "# key : value"
 * layout, or as JSON. */
#include "report_header.h"
#include "core/json.h"
#include "core/le.h"

#include <inttypes.h>
#include <pmukit/trace.h>
#include <string.h>

/* PERF_SAMPLE_* and PERF_FORMAT_* bits by number, as perf names them. */
static const char *const sample_bits[] = {
	"IP", "TID", "TIME", "ADDR", "READ", "CALLCHAIN", "ID", "CPU", "PERIOD", "STREAM_ID",
	"RAW", "BRANCH_STACK", "REGS_USER", "STACK_USER", "WEIGHT", "DATA_SRC", "IDENTIFIER",
	"TRANSACTION", "REGS_INTR", "PHYS_ADDR", "AUX", "CGROUP", "DATA_PAGE_SIZE",
	"CODE_PAGE_SIZE", "WEIGHT_STRUCT",
};
static const char *const read_bits[] = { "TOTAL_TIME_ENABLED", "TOTAL_TIME_RUNNING", "ID",
					 "GROUP", "LOST" };
/* The flag bits of perf_event_attr (the u64 at byte 40), in order; precise_ip
 * takes two bits and is printed on its own. */
static const char *const attr_flags[] = {
	"disabled", "inherit", "pinned", "exclusive", "exclude_user", "exclude_kernel",
	"exclude_hv", "exclude_idle", "mmap", "comm", "freq", "inherit_stat", "enable_on_exec",
	"task", "watermark", NULL, NULL, "mmap_data", "sample_id_all", "exclude_host",
	"exclude_guest", "exclude_callchain_kernel", "exclude_callchain_user", "mmap2",
	"comm_exec", "use_clockid", "context_switch", "write_backward", "namespaces", "ksymbol",
	"bpf_event", "aux_output", "cgroup", "text_poke", "build_id", "inherit_thread",
	"remove_on_exec", "sigtrap",
};
#define N(a) (sizeof(a) / sizeof((a)[0]))

/* "IP|TID|TIME" of the set bits of v. */
static void bit_names(char *buf, size_t size, uint64_t v, const char *const *names, size_t n)
{
	size_t at = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < 64 && at < size; i++)
		if (v >> i & 1)
			at += (size_t)snprintf(buf + at, size - at, "%s%s", at ? "|" : "",
					       i < n ? names[i] : "?");
}

static void text_event(FILE *f, const struct pmu_trace_event *e)
{
	char st[400], rf[200];

	bit_names(st, sizeof(st), e->sample_type, sample_bits, N(sample_bits));
	bit_names(rf, sizeof(rf), e->read_format, read_bits, N(read_bits));
	fprintf(f, "# event : name = %s", e->name ? e->name : "");
	if (e->nr_ids) {
		fprintf(f, ", , id = {");
		for (size_t i = 0; i < e->nr_ids; i++)
			fprintf(f, "%s %" PRIu64, i ? "," : "", e->ids[i]);
		fprintf(f, " }");
	}
	fprintf(f, ", type = %" PRIu32 ", size = %" PRIu32, e->type, e->attr_size);
	if (e->config)
		fprintf(f, ", config = %#" PRIx64, e->config);
	fprintf(f, ", { sample_period, sample_freq } = %" PRIu64, e->period);
	if (*st)
		fprintf(f, ", sample_type = %s", st);
	if (*rf)
		fprintf(f, ", read_format = %s", rf);
	if (e->attr && e->attr_size >= 48) {
		uint64_t flags = pmuk_le64((const uint8_t *)e->attr + 40);
		for (size_t i = 0; i < N(attr_flags); i++)
			if (attr_flags[i] && (flags >> i & 1))
				fprintf(f, ", %s = 1", attr_flags[i]);
	}
	if (e->precise_ip)
		fprintf(f, ", precise_ip = %d", e->precise_ip);
	if (e->clockid >= 0)
		fprintf(f, ", clockid = %d", e->clockid);
	fputc('\n', f);
}

static void text_time(FILE *f, const char *what, uint64_t ns)
{
	fprintf(f, "# %s : %" PRIu64 ".%06" PRIu64 "\n", what, ns / 1000000000u,
		ns % 1000000000u / 1000u);
}

/* "# key : value", left out when the recording does not say. */
static void text_str(FILE *f, const char *key, const char *v)
{
	if (v && *v)
		fprintf(f, "# %s : %s\n", key, v);
}

static void text_header(const struct pmu_trace *t, FILE *f)
{
	const struct pmu_trace_info *in = pmu_trace_info(t);

	fprintf(f, "# ========\n");
	fprintf(f, "# format : %s%s\n", pmu_trace_format_name(in->format),
		in->compressed ? " (compressed records)" : "");
	if (in->data_size)
		fprintf(f, "# data size : %" PRIu64 "\n", in->data_size);
	text_str(f, "hostname", in->hostname);
	text_str(f, "os release", in->os_release);
	text_str(f, "perf version", in->version);
	text_str(f, "arch", in->arch);
	if (in->nr_cpus_online || in->nr_cpus_avail)
		fprintf(f, "# nrcpus online : %" PRIu32 "\n# nrcpus avail : %" PRIu32 "\n",
			in->nr_cpus_online, in->nr_cpus_avail);
	text_str(f, "cpudesc", in->cpu_desc);
	text_str(f, "cpuid", in->cpuid);
	if (in->total_mem_kb)
		fprintf(f, "# total memory : %" PRIu64 " kB\n", in->total_mem_kb);
	text_str(f, "cmdline", in->cmdline);
	for (size_t i = 0; i < pmu_trace_event_count(t); i++)
		text_event(f, pmu_trace_event(t, i));
	if (in->clockid >= 0)
		fprintf(f, "# clockid : %d\n", in->clockid);
	if (in->first_sample_time || in->last_sample_time) {
		text_time(f, "time of first sample", in->first_sample_time);
		text_time(f, "time of last sample", in->last_sample_time);
		fprintf(f, "# sample duration : %10.3f ms\n",
			(double)(in->last_sample_time - in->first_sample_time) / 1e6);
	}
	if (pmu_trace_build_id_count(t))
		fprintf(f, "# build ids : %zu\n", pmu_trace_build_id_count(t));
	fprintf(f, "# ========\n#\n");
}

static void json_event(struct pmuk_json *j, const struct pmu_trace_event *e)
{
	char st[400], rf[200];

	bit_names(st, sizeof(st), e->sample_type, sample_bits, N(sample_bits));
	bit_names(rf, sizeof(rf), e->read_format, read_bits, N(read_bits));
	pmuk_json_obj_begin(j, NULL);
	pmuk_json_str(j, "name", e->name);
	pmuk_json_uint(j, "type", e->type);
	pmuk_json_uint(j, "config", e->config);
	pmuk_json_uint(j, e->freq ? "sample_freq" : "sample_period", e->period);
	pmuk_json_str(j, "sample_type", st);
	pmuk_json_str(j, "read_format", rf);
	pmuk_json_int(j, "precise_ip", e->precise_ip);
	pmuk_json_bool(j, "exclude_user", e->exclude_user);
	pmuk_json_bool(j, "exclude_kernel", e->exclude_kernel);
	pmuk_json_int(j, "clockid", e->clockid);
	pmuk_json_arr_begin(j, "ids");
	for (size_t i = 0; i < e->nr_ids; i++)
		pmuk_json_uint(j, NULL, e->ids[i]);
	pmuk_json_arr_end(j);
	pmuk_json_obj_end(j);
}

static void json_header(const struct pmu_trace *t, FILE *f)
{
	const struct pmu_trace_info *in = pmu_trace_info(t);
	struct pmuk_json j;

	pmuk_json_init(&j, f, 1);
	pmuk_json_obj_begin(&j, NULL);
	pmuk_json_str(&j, "format", pmu_trace_format_name(in->format));
	pmuk_json_str(&j, "hostname", in->hostname);
	pmuk_json_str(&j, "os_release", in->os_release);
	pmuk_json_str(&j, "arch", in->arch);
	pmuk_json_str(&j, "cpu_desc", in->cpu_desc);
	pmuk_json_str(&j, "cpuid", in->cpuid);
	pmuk_json_str(&j, "cmdline", in->cmdline);
	pmuk_json_str(&j, "version", in->version);
	pmuk_json_uint(&j, "nr_cpus_online", in->nr_cpus_online);
	pmuk_json_uint(&j, "nr_cpus_avail", in->nr_cpus_avail);
	pmuk_json_uint(&j, "total_mem_kb", in->total_mem_kb);
	pmuk_json_int(&j, "clockid", in->clockid);
	pmuk_json_uint(&j, "first_sample_time", in->first_sample_time);
	pmuk_json_uint(&j, "last_sample_time", in->last_sample_time);
	pmuk_json_uint(&j, "data_size", in->data_size);
	pmuk_json_bool(&j, "compressed", in->compressed);
	pmuk_json_arr_begin(&j, "events");
	for (size_t i = 0; i < pmu_trace_event_count(t); i++)
		json_event(&j, pmu_trace_event(t, i));
	pmuk_json_arr_end(&j);
	pmuk_json_uint(&j, "build_ids", pmu_trace_build_id_count(t));
	pmuk_json_obj_end(&j);
	pmuk_json_finish(&j);
}

int report_write_header(const struct pmu_trace *t, FILE *f, int json)
{
	if (json)
		json_header(t, f);
	else
		text_header(t, f);
	return ferror(f) ? -1 : 0;
}

void report_warn_losses(const char *cmd, const char *path, const struct pmu_trace *t)
{
	struct pmu_trace_stats st;

	if (pmu_trace_stats(t, &st, sizeof(st)))
		return;
	if (st.lost || st.lost_samples)
		fprintf(stderr, "pmukit %s: warning: %s: %" PRIu64 " samples (LOST_SAMPLES) and %"
			PRIu64 " records (LOST) lost while recording: the output lacks them; "
			"record with a bigger -m or a lower -F\n", cmd, path, st.lost_samples, st.lost);
	if (st.bytes_skipped)
		fprintf(stderr, "pmukit %s: warning: %s: %" PRIu64 " bytes of damaged records "
			"skipped: the output lacks what they held\n", cmd, path, st.bytes_skipped);
}
