/* SPDX-License-Identifier: MIT */
/* The node report as text (perf report's look: "#" header lines, one row per
 * key, then local vs remote per thread and per object) and as JSON. */
#include "core/report_node_int.h"
#include "core/file.h"
#include "core/json.h"

#include <pmukit/topology.h>
#include <string.h>

/* Distinct pages without a node, per reason. */
static void reasons(const struct nr_report *r, uint64_t by_state[PMU_PAGE_UNKNOWN + 1])
{
	memset(by_state, 0, (PMU_PAGE_UNKNOWN + 1) * sizeof(*by_state));
	for (size_t i = 0; i < r->nf.n; i++)
		if (r->nf.e[i].source == PMUK_NODE_SRC_NONE)
			by_state[r->nf.e[i].state <= PMU_PAGE_UNKNOWN ? r->nf.e[i].state :
				 PMU_PAGE_UNKNOWN]++;
}

static const char *method(const struct nr_report *r)
{
	const struct pmuk_node_feat_head *h = &r->nf.h;

	if (!r->nf.have_answers)
		return "none";
	if (h->by_phys && h->by_query)
		return "phys_addr+query";
	return h->by_phys ? "phys_addr" : h->by_query ? "query" : "none";
}

static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0;
}

static void text_head(const struct nr_report *r, FILE *f)
{
	const struct pmuk_node_feat_head *h = &r->nf.h;
	uint64_t why[PMU_PAGE_UNKNOWN + 1];

	fprintf(f, "# %llu samples of %s, %llu with a data address (period %llu)\n",
		(unsigned long long)r->samples, r->event[0] ? r->event : "?",
		(unsigned long long)r->with_addr, (unsigned long long)r->period);
	if (!r->nf.have_answers) {
		fprintf(f, "# no node answers in %s: it was not recorded by pmukit record -d, so "
			"every page's node is unknown\n", r->a->path);
	} else {
		fprintf(f, "# node answers (method %s): %llu pages from PHYS_ADDR, %llu by "
			"querying the live process (%llu move_pages batches, %.3f ms); %llu "
			"pages without an answer", method(r), (unsigned long long)h->by_phys,
			(unsigned long long)h->by_query, (unsigned long long)h->batches,
			(double)h->query_ns / 1e6, (unsigned long long)h->unanswered);
		reasons(r, why);
		for (int s = 0; s <= PMU_PAGE_UNKNOWN; s++)
			if (why[s])
				fprintf(f, ", %llu %s", (unsigned long long)why[s],
					pmu_page_state_name((enum pmu_page_state)s));
		if (h->dropped)
			fprintf(f, "; %llu samples past the answer table's cap", (unsigned long long)h->dropped);
		fprintf(f, "\n# samples on pages without a node: %llu\n", (unsigned long long)r->no_answer);
		if (r->lag_n)
			fprintf(f, "# queried answers came %.3f ms on average (at most %.3f ms) after "
				"the samples before them\n", (double)r->lag_sum / (double)r->lag_n / 1e6,
				(double)r->lag_max / 1e6);
	}
	fprintf(f, "# CPU -> node: %s\n#\n", r->nf.ncpu ? "NUMA_TOPOLOGY of the recording" :
		"unknown (no NUMA_TOPOLOGY): local/remote unknown");
}

static void node_cell(const struct nr_row *row, char *buf, size_t n)
{
	if (row->node >= 0)
		snprintf(buf, n, "%d", row->node);
	else
		snprintf(buf, n, "? (%s)", row->answered ?
			 pmu_page_state_name((enum pmu_page_state)row->state) : "no answer");
}

/* A variable with its module's file name (as the sample report names modules):
 * two modules may use one name. */
static void obj_cell(const struct nr_row *w, FILE *f)
{
	if (w->module[0] && strcmp(w->obj, w->module))
		fprintf(f, "%s (%s)", w->obj, pmuk_path_base(w->module));
	else
		fputs(w->obj, f);
}

static void text_rows(const struct nr_report *r, FILE *f)
{
	size_t lim = r->a->limit && r->a->limit < r->rows.n ? r->a->limit : r->rows.n;
	char node[64];

	fprintf(f, "# %8s %8s %10s %8s %8s %8s  %s%s%s%s%s\n", "Overhead", "Samples", "Period",
		"Weight", "Local%", "Remote%", r->keys & NR_NODE ? "Node  " : "",
		r->keys & NR_OBJ ? "Data object  " : "", r->keys & NR_SYM ? "Symbol  " : "",
		r->keys & NR_COMM ? "Command  " : "", r->keys & NR_TID ? "Tid" : "");
	for (size_t i = 0; i < lim; i++) {
		const struct nr_row *w = &r->rows.rows[i];

		node_cell(w, node, sizeof(node));
		fprintf(f, "  %7.2f%% %8llu %10llu %8llu %7.2f%% %7.2f%%", pct(w->period, r->period),
			(unsigned long long)w->samples, (unsigned long long)w->period,
			(unsigned long long)w->weight, pct(w->local, w->period), pct(w->remote, w->period));
		if (r->keys & NR_NODE)
			fprintf(f, "  %s", node);
		if (r->keys & NR_OBJ)
			fputs("  ", f), obj_cell(w, f);
		if (r->keys & NR_SYM)
			fprintf(f, "  %s", w->sym ? w->sym : "");
		if (r->keys & NR_COMM)
			fprintf(f, "  %s", w->comm);
		if (r->keys & NR_TID)
			fprintf(f, "  %d", w->tid);
		fputc('\n', f);
	}
}

static void text_locality(const struct nr_table *t, const char *title, int thread, FILE *f)
{
	fprintf(f, "\n# Local vs remote per %s (period: CPU's node = page's node)\n", title);
	fprintf(f, "# %10s %10s %10s  %s\n", "Local", "Remote", "Unknown", title);
	for (size_t i = 0; i < t->n; i++) {
		const struct nr_row *w = &t->rows[i];

		fprintf(f, "  %10llu %10llu %10llu  ", (unsigned long long)w->local,
			(unsigned long long)w->remote, (unsigned long long)w->unknown);
		if (thread)
			fprintf(f, "%s %d/%d\n", w->comm, w->pid, w->tid);
		else
			obj_cell(w, f), fputc('\n', f);
	}
}

void pmuk_nr_text(struct nr_report *r, FILE *f)
{
	text_head(r, f);
	text_rows(r, f);
	text_locality(&r->threads, "thread", 1, f);
	text_locality(&r->objects, "data object", 0, f);
}

static void json_row(struct pmuk_json *j, const struct nr_report *r, const struct nr_row *w,
		     unsigned keys)
{
	pmuk_json_obj_begin(j, NULL);
	if (keys & NR_NODE) {
		pmuk_json_int(j, "node", w->node);
		pmuk_json_str(j, "node_state", w->answered ?
			      pmu_page_state_name((enum pmu_page_state)w->state) : "no answer");
	}
	if (keys & NR_OBJ) {
		pmuk_json_str(j, "data_object", w->obj);
		pmuk_json_str(j, "module", w->module);
	}
	if (keys & NR_SYM)
		pmuk_json_str(j, "symbol", w->sym);
	if (keys & (NR_TID | NR_COMM)) {
		pmuk_json_str(j, "comm", w->comm);
		pmuk_json_int(j, "pid", w->pid);
		pmuk_json_int(j, "tid", w->tid);
	}
	pmuk_json_uint(j, "samples", w->samples);
	pmuk_json_uint(j, "period", w->period);
	pmuk_json_double(j, "percent", pct(w->period, r->period));
	pmuk_json_uint(j, "weight", w->weight);
	pmuk_json_uint(j, "local", w->local);
	pmuk_json_uint(j, "remote", w->remote);
	pmuk_json_uint(j, "unknown", w->unknown);
	pmuk_json_obj_end(j);
}

static void json_answers(struct pmuk_json *j, const struct nr_report *r)
{
	const struct pmuk_node_feat_head *h = &r->nf.h;
	uint64_t why[PMU_PAGE_UNKNOWN + 1];

	pmuk_json_obj_begin(j, "node_answers");
	pmuk_json_bool(j, "recorded", r->nf.have_answers);
	pmuk_json_str(j, "method", method(r));
	pmuk_json_uint(j, "pages", r->nf.n);
	pmuk_json_uint(j, "by_phys_addr", h->by_phys);
	pmuk_json_uint(j, "by_query", h->by_query);
	pmuk_json_uint(j, "unanswered", h->unanswered);
	pmuk_json_uint(j, "dropped", h->dropped);
	pmuk_json_uint(j, "batches", h->batches);
	pmuk_json_uint(j, "query_ns", h->query_ns);
	pmuk_json_uint(j, "samples_without_node", r->no_answer);
	pmuk_json_uint(j, "answer_lag_samples", r->lag_n);
	pmuk_json_uint(j, "answer_lag_mean_ns", r->lag_n ? r->lag_sum / r->lag_n : 0);
	pmuk_json_uint(j, "answer_lag_max_ns", r->lag_max);
	reasons(r, why);
	pmuk_json_obj_begin(j, "unanswered_by_reason");
	for (int s = 0; s <= PMU_PAGE_UNKNOWN; s++)
		if (why[s])
			pmuk_json_uint(j, pmu_page_state_name((enum pmu_page_state)s), why[s]);
	pmuk_json_obj_end(j);
	pmuk_json_obj_end(j);
}

void pmuk_nr_json(struct nr_report *r, FILE *f)
{
	size_t lim = r->a->limit && r->a->limit < r->rows.n ? r->a->limit : r->rows.n;
	struct pmuk_json j;

	pmuk_json_init(&j, f, 1);
	pmuk_json_obj_begin(&j, NULL);
	pmuk_json_str(&j, "event", r->event);
	pmuk_json_uint(&j, "samples", r->samples);
	pmuk_json_uint(&j, "samples_with_addr", r->with_addr);
	pmuk_json_uint(&j, "period", r->period);
	pmuk_json_bool(&j, "cpu_nodes_known", r->nf.ncpu > 0);
	json_answers(&j, r);
	pmuk_json_arr_begin(&j, "rows");
	for (size_t i = 0; i < lim; i++)
		json_row(&j, r, &r->rows.rows[i], r->keys);
	pmuk_json_arr_end(&j);
	pmuk_json_arr_begin(&j, "threads");
	for (size_t i = 0; i < r->threads.n; i++)
		json_row(&j, r, &r->threads.rows[i], NR_TID | NR_COMM);
	pmuk_json_arr_end(&j);
	pmuk_json_arr_begin(&j, "objects");
	for (size_t i = 0; i < r->objects.n; i++)
		json_row(&j, r, &r->objects.rows[i], NR_OBJ);
	pmuk_json_arr_end(&j);
	pmuk_json_obj_end(&j);
	pmuk_json_finish(&j);
}
