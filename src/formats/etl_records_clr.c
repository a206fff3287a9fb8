/* SPDX-License-Identifier: MIT */
/* .NET code of .etl recordings as SYMBOL records: the CLR's method events
 * name the JIT-compiled (and ready-to-run) code of each process. The rundown
 * provider lists, at the trace's start or end, the methods alive then: those
 * not loaded during the trace are named from the start, as are those a
 * MethodUnloadVerbose ends without a load (a trace with the end rundown only);
 * the runtime's MethodLoad/UnloadVerbose events bound the others in time. */
#include "core/file.h"
#include "core/error.h"
#include "core/grow.h"
#include "formats/etl_int.h"
#include "formats/etl_records_int.h"

#include <stdio.h>
#include <stdlib.h>

/* "Namespace.Type.Method(arguments)": the signature's parameter list, without
 * its calling convention and return type. JIT helpers ("@NewObject") have the
 * namespace and signature "NULL". */
void pmuk_er_clr_name(const struct pmu_etl_clr_method_ev *m, char *buf, size_t size)
{
	const char *args = strchr(m->signature, '(');
	int ns = m->ns[0] && strcmp(m->ns, "NULL");

	snprintf(buf, size, "%s%s%s%s", ns ? m->ns : "", ns ? "." : "", m->name, args ? args : "");
}

static int add_module(struct er_clr *c, uint32_t pid, const struct pmu_etl_clr_module_ev *mod)
{
	const char *path = mod->il_path[0] ? mod->il_path : mod->native_path;

	if (pmuk_grow((void **)&c->mod, &c->cap_mod, c->n_mod + 1, sizeof(*c->mod)))
		return pmuk_fail(PMU_ENOMEM, "no memory for %zu .NET modules", c->n_mod + 1);
	c->mod[c->n_mod] = (struct er_clr_module){ pid, mod->module_id, strdup(pmuk_path_base(path)) };
	if (!c->mod[c->n_mod++].name)
		return pmuk_fail(PMU_ENOMEM, "no memory for a .NET module name");
	return 0;
}

static int add_method(struct er_clr *c, uint32_t pid, const struct pmu_etl_clr_method_ev *m)
{
	char name[1400];

	int loaded = !m->rundown && !m->unload;

	if (!m->size)
		return 0;
	if (pmuk_grow((void **)&c->m, &c->cap_m, c->n_m + 1, sizeof(*c->m)))
		return pmuk_fail(PMU_ENOMEM, "no memory for %zu .NET methods", c->n_m + 1);
	pmuk_er_clr_name(m, name, sizeof(name));
	c->m[c->n_m] = (struct er_clr_method){ pid, loaded, m->method_id, m->module_id,
					       m->start, m->size, NULL };
	/* the loaded ones are decoded again when their time comes; an unload
	 * lists, as a rundown does, code that was alive before it */
	if (!loaded && !(c->m[c->n_m].name = strdup(name)))
		return pmuk_fail(PMU_ENOMEM, "no memory for a .NET method name");
	c->n_m++;
	return 0;
}

int pmuk_er_clr_collect(struct er_clr *c, const struct pmu_etl_event *ev)
{
	union {
		struct pmu_etl_clr_method_ev m;
		struct pmu_etl_clr_module_ev mod;
	} u;

	/* by id before decoding: the runtime provider's GC, JIT and exception events
	 * are most of its events, and a decoder formats an error for each */
	if (ev->pid == PMU_ETL_NO_ID || !pmuk_etl_clr_provider(ev))
		return 0;
	if (ev->id == 143 || ev->id == 144)
		return pmu_etl_decode_clr_method(ev, &u.m) ? 0 : add_method(c, ev->pid, &u.m);
	if (ev->id >= 152 && ev->id <= 154)
		return pmu_etl_decode_clr_module(ev, &u.mod) ? 0 : add_module(c, ev->pid, &u.mod);
	return 0;
}

static int cmp_module(const void *a, const void *b)
{
	const struct er_clr_module *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return (x->module_id > y->module_id) - (x->module_id < y->module_id);
}

/* By process, method and code address (a method has one range per code
 * version: tiered or re-JIT'ed code), the loaded (during the trace) after the
 * listed. */
static int cmp_method(const void *a, const void *b)
{
	const struct er_clr_method *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->method_id != y->method_id)
		return x->method_id < y->method_id ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return (x->loaded > y->loaded) - (x->loaded < y->loaded);
}

void pmuk_er_clr_finish(struct er_clr *c)
{
	if (c->n_mod)
		qsort(c->mod, c->n_mod, sizeof(*c->mod), cmp_module);
	if (c->n_m)
		qsort(c->m, c->n_m, sizeof(*c->m), cmp_method);
}

const char *pmuk_er_clr_module(const struct er_clr *c, uint32_t pid, uint64_t module_id)
{
	size_t lo = 0, hi = c->n_mod;
	struct er_clr_module key = { pid, module_id, NULL };

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int d = cmp_module(&c->mod[mid], &key);
		if (!d)
			return c->mod[mid].name[0] ? c->mod[mid].name : "[.NET]";
		if (d < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return "[.NET]";
}

static void push_symbol(struct pmuk_etl_records *a, uint32_t pid, uint64_t start, uint64_t len,
			const char *name, const char *module, const struct pmu_etl_event *ev)
{
	struct qent *e = pmuk_er_push(a, PMU_RECORD_SYMBOL, (int32_t)pid, -1, ev);

	if (!e)
		return;
	e->rec.has = PMU_HAS_TIME;
	e->rec.symbol.start = start;
	e->rec.symbol.len = len;
	if (name && (!(e->str = strdup(name)) || !(e->str2 = strdup(module))))
		a->err = pmuk_fail(PMU_ENOMEM, "no memory for a .NET method name");
	a->st.jit_methods += name != NULL;
}

/* The methods alive before the trace (listed by a rundown, never loaded
 * during it), named from its start. */
void pmuk_er_clr_announce(struct pmuk_etl_records *a)
{
	const struct er_clr *c = &a->tab.clr;

	for (size_t i = 0; i < c->n_m && !a->err; i++) {
		const struct er_clr_method *m = &c->m[i];
		/* the same code loaded later, or listed again; another code
		 * version of the method (its tier-0 code) still runs */
		int same = i + 1 < c->n_m && m[1].pid == m->pid && m[1].method_id == m->method_id &&
			   m[1].start == m->start;
		if (m->loaded || same)
			continue;
		push_symbol(a, m->pid, m->start, m->size, m->name,
			    pmuk_er_clr_module(c, m->pid, m->module_id), NULL);
	}
}

/* A runtime MethodLoad/UnloadVerbose event: the range from now on, or no more. */
void pmuk_er_clr_event(struct pmuk_etl_records *a, const struct pmu_etl_event *ev)
{
	struct pmu_etl_clr_method_ev *m = &a->u.clr;
	char name[1400];

	if (ev->pid == PMU_ETL_NO_ID || pmuk_etl_clr_provider(ev) != 1 ||
	    (ev->id != 143 && ev->id != 144) || pmu_etl_decode_clr_method(ev, m) || !m->size)
		return;
	if (m->unload) {
		push_symbol(a, ev->pid, m->start, m->size, NULL, NULL, ev);
		return;
	}
	pmuk_er_clr_name(m, name, sizeof(name));
	push_symbol(a, ev->pid, m->start, m->size, name,
		    pmuk_er_clr_module(&a->tab.clr, ev->pid, m->module_id), ev);
}

/* A process's end ends its .NET code (no unload events come then): a process
 * that reuses the pid later in the trace has none of it. */
void pmuk_er_clr_exit(struct pmuk_etl_records *a, uint32_t pid, const struct pmu_etl_event *ev)
{
	const struct er_clr *c = &a->tab.clr;
	size_t lo = 0, hi = c->n_m;

	while (lo < hi) {	/* the first method of pid, by the sort of finish */
		size_t mid = (lo + hi) / 2;
		if (c->m[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < c->n_m && c->m[lo].pid == pid)
		push_symbol(a, pid, 0, UINT64_MAX, NULL, NULL, ev);
}

void pmuk_er_clr_free(struct er_clr *c)
{
	for (size_t i = 0; i < c->n_m; i++)
		free(c->m[i].name);
	for (size_t i = 0; i < c->n_mod; i++)
		free(c->mod[i].name);
	free(c->m);
	free(c->mod);
	memset(c, 0, sizeof(*c));
}
