/* SPDX-License-Identifier: MIT */
/* report --sort node,data_object,sym: one pass over the recording. Each sample
 * with a data address is looked up in record -d's answers (the page's node, or
 * why there is none), named by its data object and (with sym) by the function
 * of its ip, and counted in three tables: the rows of the sort keys, and local
 * vs remote per thread and per object. */
#include "core/report_node_int.h"
#include "core/error.h"
#include "core/grow.h"

#include <pmukit/error.h>
#include <pmukit/symbols.h>
#include <pmukit/topology.h>
#include <pmukit/trace.h>
#include <stdlib.h>
#include <string.h>

/* One key of a --sort list: its bit, 0 when it is not ours. */
static unsigned key_bit(const char *k, size_t n)
{
	static const struct { const char *name; unsigned bit; } keys[] = {
		{ "node", NR_NODE }, { "data_object", NR_OBJ }, { "sym", NR_SYM },
		{ "symbol", NR_SYM }, { "tid", NR_TID }, { "comm", NR_COMM },
	};

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (strlen(keys[i].name) == n && !strncmp(k, keys[i].name, n))
			return keys[i].bit;
	return 0;
}

static int parse_keys(const char *sort, unsigned *keys)
{
	*keys = 0;
	for (const char *k = sort; *k;) {
		size_t n = strcspn(k, ",");
		unsigned bit = key_bit(k, n);

		if (!bit)
			return pmuk_fail(PMU_EINVAL, "'%.*s' does not combine with node/data_object: "
					 "those rows take node, data_object, sym, tid and comm", (int)n, k);
		*keys |= bit;
		k += n + (k[n] == ',');
	}
	return 0;
}

int pmuk_sort_wants_node(const char *sort)
{
	for (const char *k = sort; k && *k;) {
		size_t n = strcspn(k, ",");

		if (key_bit(k, n) & (NR_NODE | NR_OBJ))
			return 1;
		k += n + (k[n] == ',');
	}
	return 0;
}

static const char *comm_of(struct nr_report *r, int32_t tid)
{
	for (size_t i = r->ncomm; i-- > 0;)
		if (r->comm[i].tid == tid)
			return r->comm[i].name;
	return "";
}

/* name: a COMM's, or (fork) the parent thread's, which the new thread keeps */
static int on_comm(struct nr_report *r, int32_t tid, const char *name)
{
	struct nr_comm c = { tid, "" };

	snprintf(c.name, sizeof(c.name), "%s", name);  /* name may be in r->comm, which moves */
	if (pmuk_grow((void **)&r->comm, &r->capcomm, r->ncomm + 1, sizeof(*r->comm)) < 0)
		return pmuk_fail(PMU_ENOMEM, "out of memory for thread names");
	r->comm[r->ncomm++] = c;
	return 0;
}

static char *function_of(struct nr_report *r, const struct pmu_record *rec)
{
	struct pmu_frame fr[8];
	size_t n = 0;
	char buf[512];

	if (!r->sym || pmu_symbolizer_resolve_pid(r->sym, rec->pid, rec->sample.ip, fr, 8, &n) ||
	    !n || !fr[n - 1].function)
		snprintf(buf, sizeof(buf), "0x%llx", (unsigned long long)rec->sample.ip);
	else
		snprintf(buf, sizeof(buf), "%s", fr[n - 1].function);
	return strdup(buf);
}

/* The row key of the sample in table t (keys: which parts). */
static int count_in(struct nr_report *r, struct nr_table *t, unsigned keys,
		    const struct pmu_record *rec, const struct pmuk_node_feat_entry *e,
		    const char *obj, const char *module, const struct nr_hit *h)
{
	char key[1024], *sym = NULL;
	struct nr_row *row;
	int created;

	if (keys & NR_SYM && !(sym = function_of(r, rec)))
		return pmuk_fail(PMU_ENOMEM, "out of memory naming functions");
	/* the module too: same-named variables of two modules are two objects */
	snprintf(key, sizeof(key), "%d:%u\x1f%s\x1f%s\x1f%s\x1f%s\x1f%d",
		 keys & NR_NODE ? h->page_node : 0,
		 keys & NR_NODE && e ? e->state : 0, keys & NR_OBJ ? obj : "",
		 keys & NR_OBJ ? module : "",
		 keys & NR_SYM ? sym : "", keys & NR_COMM ? h->comm : "",
		 keys & NR_TID ? rec->tid : 0);
	if (!(row = pmuk_nr_row(t, key, &created))) {
		free(sym);
		return pmuk_fail(PMU_ENOMEM, "out of memory for the node report's rows");
	}
	if (created) {
		row->node = h->page_node;
		row->answered = e != NULL;
		row->state = e ? e->state : PMU_PAGE_UNKNOWN;
		row->obj = strdup(obj);
		row->module = strdup(module);
		row->comm = strdup(h->comm);
		row->sym = sym;
		sym = NULL;
		row->pid = rec->pid;
		row->tid = rec->tid;
		if (!row->obj || !row->module || !row->comm)
			return pmuk_fail(PMU_ENOMEM, "out of memory for the node report's rows");
	}
	free(sym);
	pmuk_nr_count(row, h);
	return 0;
}

static int on_sample(struct nr_report *r, const struct pmu_record *rec)
{
	const struct pmuk_node_feat_entry *e;
	const char *obj, *module;
	struct nr_hit h;
	int err;

	r->samples++;
	if (!(rec->has & PMU_HAS_ADDR))
		return 0;
	r->with_addr++;
	e = pmuk_nodefile_find(&r->nf, rec->pid, rec->sample.addr);
	h.period = rec->has & PMU_HAS_PERIOD && rec->sample.period ? rec->sample.period : 1;
	if (!(rec->has & PMU_HAS_PERIOD) && rec->event >= 0 && (size_t)rec->event < r->nevents &&
	    r->fixed_period[rec->event])
		h.period = r->fixed_period[rec->event];  /* -c N without PERIOD in the samples */
	h.weight = rec->has & PMU_HAS_WEIGHT ? rec->sample.weight : 0;
	h.page_node = e && e->source != PMUK_NODE_SRC_NONE ? e->node : -1;
	h.cpu_node = rec->has & PMU_HAS_CPU ? pmuk_nodefile_cpu_node(&r->nf, rec->cpu) : -1;
	h.comm = comm_of(r, rec->tid);  /* r->comm does not move while a sample is counted */
	r->period += h.period;
	if (r->mono && e && e->source == PMUK_NODE_SRC_QUERY && rec->has & PMU_HAS_TIME &&
	    e->time >= rec->time) {
		r->lag_n++;
		r->lag_sum += e->time - rec->time;
		if (e->time - rec->time > r->lag_max)
			r->lag_max = e->time - rec->time;
	}
	if (h.page_node < 0)
		r->no_answer++;
	obj = pmuk_dobj_name(r->dobj, rec->pid, rec->sample.addr, &module);
	if ((err = count_in(r, &r->rows, r->keys, rec, e, obj, module, &h)) < 0 ||
	    (err = count_in(r, &r->threads, NR_TID | NR_COMM, rec, e, obj, module, &h)) < 0)
		return err;
	return count_in(r, &r->objects, NR_OBJ, rec, e, obj, module, &h);
}

static int on_record(const struct pmu_record *rec, void *ctx)
{
	struct nr_report *r = ctx;
	int err = pmuk_dobj_record(r->dobj, rec);

	if (err < 0)
		return err;
	if (r->sym && rec->kind == PMU_RECORD_MMAP)
		pmu_symbolizer_add_mmap(r->sym, rec);  /* a file without symbols: its addresses */
	if (r->sym && rec->kind == PMU_RECORD_FORK)
		pmu_symbolizer_add_fork(r->sym, rec);
	if (rec->kind == PMU_RECORD_FORK)
		return on_comm(r, rec->tid, comm_of(r, rec->task.ptid));
	if (rec->kind == PMU_RECORD_COMM)
		return on_comm(r, rec->tid, rec->comm.name);
	return rec->kind == PMU_RECORD_SAMPLE ? on_sample(r, rec) : 0;
}

static int run(struct nr_report *r)
{
	PMU_OPTS(pmu_symbolizer_opts, so, .offline = 1);
	struct pmu_trace *t = NULL;
	int err;

	if ((err = pmuk_nodefile_load(r->a->path, &r->nf)) < 0 ||
	    (err = pmuk_dobj_new(&r->dobj)) < 0 ||
	    (err = pmuk_dobj_set_symfs(r->dobj, r->a->symfs)) < 0 ||
	    (err = pmu_trace_open(r->a->path, NULL, &t)) < 0)
		return err;
	if (pmu_trace_event_count(t))
		snprintf(r->event, sizeof(r->event), "%s", pmu_trace_event(t, 0)->name);
	r->nevents = pmu_trace_event_count(t);
	r->mono = pmu_trace_info(t)->clockid == 1;  /* CLOCK_MONOTONIC: pmukit record's */
	if (!(r->fixed_period = calloc(r->nevents + 1, sizeof(*r->fixed_period)))) {
		pmu_trace_close(t);
		return pmuk_fail(PMU_ENOMEM, "out of memory for the events");
	}
	for (size_t i = 0; i < r->nevents; i++)
		if (!pmu_trace_event(t, i)->freq)
			r->fixed_period[i] = pmu_trace_event(t, i)->period;
	so.trace = t;   /* only the sampled images are read ahead */
	if ((r->keys & NR_SYM) && !r->a->no_symbols && pmu_symbolizer_open(&so, &r->sym) < 0)
		r->sym = NULL;  /* functions are then named by address */
	err = pmu_trace_read(t, on_record, r);
	pmu_trace_close(t);
	return err;
}

int pmuk_node_report(const struct pmuk_node_report_args *a)
{
	struct nr_report r;
	int err;

	memset(&r, 0, sizeof(r));
	r.a = a;
	if ((err = parse_keys(a->sort, &r.keys)) == 0 && (err = run(&r)) == 0) {
		pmuk_nr_sort(&r.rows);
		pmuk_nr_sort(&r.threads);
		pmuk_nr_sort(&r.objects);
		if (a->json)
			pmuk_nr_json(&r, a->f);
		else
			pmuk_nr_text(&r, a->f);
	}
	pmuk_nr_free(&r.rows);
	pmuk_nr_free(&r.threads);
	pmuk_nr_free(&r.objects);
	pmuk_nodefile_free(&r.nf);
	pmuk_dobj_free(r.dobj);
	if (r.sym)
		pmu_symbolizer_close(r.sym);
	free(r.comm);
	free(r.fixed_period);
	return err;
}
