/* SPDX-License-Identifier: MIT */
/* Decoded fields of one .etl event as text (key=value) or JSON members. */
#include "etl_print.h"

#include <inttypes.h>
#include <string.h>

static void kv_u(struct etl_out *o, const char *k, uint64_t v)
{
	if (o->json)
		pmuk_json_uint(o->j, k, v);
	else
		fprintf(o->f, " %s=%" PRIu64, k, v);
}

static void kv_i(struct etl_out *o, const char *k, int64_t v)
{
	if (o->json)
		pmuk_json_int(o->j, k, v);
	else
		fprintf(o->f, " %s=%" PRId64, k, v);
}

static void kv_x(struct etl_out *o, const char *k, uint64_t v)
{
	char b[24];

	snprintf(b, sizeof(b), "0x%" PRIx64, v);
	if (o->json)
		pmuk_json_str(o->j, k, b);
	else
		fprintf(o->f, " %s=%s", k, b);
}

/* Text values are quoted; quotes, backslashes and control characters
 * escaped, so one event stays one line (TraceLogging messages end in \n). */
static void kv_s(struct etl_out *o, const char *k, const char *v)
{
	if (o->json) {
		pmuk_json_str(o->j, k, v);
		return;
	}
	fprintf(o->f, " %s=\"", k);
	for (const unsigned char *p = (const unsigned char *)v; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(o->f, "\\%c", *p);
		else if (*p == '\n')
			fputs("\\n", o->f);
		else if (*p < 0x20 || *p == 0x7F)
			fprintf(o->f, "\\x%02x", *p);
		else
			fputc(*p, o->f);
	}
	fputc('"', o->f);
}

static void frames(struct etl_out *o, const uint64_t *f, unsigned n)
{
	char b[24];

	if (o->json) {
		pmuk_json_arr_begin(o->j, "frames");
		for (unsigned i = 0; i < n; i++) {
			snprintf(b, sizeof(b), "0x%" PRIx64, f[i]);
			pmuk_json_str(o->j, NULL, b);
		}
		pmuk_json_arr_end(o->j);
		return;
	}
	fprintf(o->f, " frames=%u", n);
	for (unsigned i = 0; i < n; i++)
		fprintf(o->f, "%s%" PRIx64, i ? "," : " [", f[i]);
	if (n)
		fputc(']', o->f);
}

/* Thread, thread name and process events; 1 when ev is one of them. */
static int task_fields(struct etl_out *o, const struct pmu_etl_event *ev)
{
	union {
		struct pmu_etl_thread_ev t;
		struct pmu_etl_thread_name_ev tn;
		struct pmu_etl_process_ev p;
	} u;

	if (!pmu_etl_decode_thread(ev, &u.t)) {
		kv_u(o, "process_id", u.t.pid);
		kv_u(o, "thread_id", u.t.tid);
		kv_x(o, "win32_start_addr", u.t.win32_start_addr);
		kv_u(o, "base_priority", u.t.base_priority);
		kv_s(o, "thread_name", u.t.name);
	} else if (!pmu_etl_decode_thread_set_name(ev, &u.tn)) {
		kv_u(o, "process_id", u.tn.pid);
		kv_u(o, "thread_id", u.tn.tid);
		kv_s(o, "thread_name", u.tn.name);
	} else if (!pmu_etl_decode_process(ev, &u.p)) {
		kv_u(o, "process_id", u.p.pid);
		kv_u(o, "parent_id", u.p.ppid);
		kv_u(o, "session_id", u.p.session);
		kv_i(o, "exit_status", u.p.exit_status);
		kv_s(o, "image", u.p.image);
		kv_s(o, "command_line", u.p.command_line);
	} else {
		return 0;
	}
	return 1;
}

/* Image load/unload, image identity (RSDS: the PDB) and volume mapping events;
 * 1 when ev is one. */
static int image_fields(struct etl_out *o, const struct pmu_etl_event *ev)
{
	union {
		struct pmu_etl_image_ev i;
		struct pmu_etl_imageid_ev id;
		struct pmu_etl_sysconfig_paths_ev sp;
	} u;
	char g[40];

	if (!pmu_etl_decode_image(ev, &u.i)) {
		kv_x(o, "base", u.i.base);
		kv_x(o, "size", u.i.size);
		kv_u(o, "process_id", u.i.pid);
		kv_x(o, "checksum", u.i.checksum);
		kv_x(o, "time_date_stamp", u.i.time_date_stamp);
		kv_s(o, "file_name", u.i.file_name);
		return 1;
	}
	if (!pmu_etl_decode_sysconfig_paths(ev, &u.sp)) {
		kv_s(o, u.sp.opcode == 35 ? "nt_path" : "system_directory", u.sp.first);
		kv_s(o, u.sp.opcode == 35 ? "dos_path" : "windows_directory", u.sp.second);
		return 1;
	}
	if (pmu_etl_decode_imageid_rsds(ev, &u.id))
		return 0;
	kv_x(o, "image_base", u.id.image_base);
	kv_u(o, "process_id", u.id.pid);
	if (u.id.opcode == 36) {
		pmu_guid_format(&u.id.pdb_guid, g, sizeof(g));
		kv_s(o, "pdb_guid", g);
		kv_u(o, "pdb_age", u.id.pdb_age);
		kv_s(o, "pdb_file", u.id.file_name);
	} else {
		kv_x(o, "image_size", u.id.image_size);
		kv_x(o, "time_date_stamp", u.id.time_date_stamp);
		kv_s(o, "file_name", u.id.file_name);
	}
	return 1;
}

/* Context switches and ready-thread events; 1 when ev is one of them. */
static int sched_fields(struct etl_out *o, const struct pmu_etl_event *ev)
{
	union {
		struct pmu_etl_cswitch_ev cs;
		struct pmu_etl_readythread_ev rt;
	} u;

	if (!pmu_etl_decode_cswitch(ev, &u.cs)) {
		kv_u(o, "new_thread_id", u.cs.new_tid);
		kv_u(o, "old_thread_id", u.cs.old_tid);
		kv_i(o, "new_priority", u.cs.new_priority);
		kv_i(o, "old_priority", u.cs.old_priority);
		kv_i(o, "old_wait_reason", u.cs.old_wait_reason);
		kv_i(o, "old_state", u.cs.old_state);
		kv_u(o, "new_wait_time", u.cs.new_wait_time);
	} else if (!pmu_etl_decode_readythread(ev, &u.rt)) {
		kv_u(o, "thread_id", u.rt.tid);
		kv_i(o, "adjust_reason", u.rt.adjust_reason);
		kv_i(o, "adjust_increment", u.rt.adjust_increment);
	} else {
		return 0;
	}
	return 1;
}

/* Timer and PMC samples and the PMC counter names; 1 when ev is one of them. */
static int sample_fields(struct etl_out *o, const struct pmu_etl_event *ev)
{
	union {
		struct pmu_etl_sample_ev s;
		struct pmu_etl_pmc_sample_ev ps;
		struct pmu_etl_pmc_counters_ev pc;
	} u;
	char k[24];

	if (!pmu_etl_decode_sampled_profile(ev, &u.s)) {
		kv_x(o, "ip", u.s.ip);
		kv_u(o, "thread_id", u.s.tid);
		kv_u(o, "count", u.s.count);
		kv_u(o, "priority", u.s.priority);
		kv_u(o, "dpc", (uint64_t)u.s.dpc);
		kv_u(o, "isr", (uint64_t)u.s.isr);
	} else if (!pmu_etl_decode_pmc_profile(ev, &u.ps)) {
		kv_x(o, "ip", u.ps.ip);
		kv_u(o, "thread_id", u.ps.tid);
		kv_u(o, "profile_source", u.ps.source);
	} else if (!pmu_etl_decode_pmc_counters(ev, &u.pc)) {
		kv_u(o, "counter_count", u.pc.count);
		for (unsigned i = 0; i < u.pc.count && i < PMU_ETL_MAX_COUNTERS; i++) {
			snprintf(k, sizeof(k), "counter%u", i);
			kv_s(o, k, u.pc.names[i]);
		}
	} else {
		return 0;
	}
	return 1;
}

/* Stack walks, stack keys and LBR branches; 1 when ev is one of them. */
static int stack_fields(struct etl_out *o, const struct pmu_etl_event *ev)
{
	union {
		struct pmu_etl_stack_ev sw;
		struct pmu_etl_stack_key_ev sk;
		struct pmu_etl_lbr_ev lbr;
	} u;
	char k[24];

	if (!pmu_etl_decode_stackwalk(ev, &u.sw)) {
		kv_u(o, "event_time", u.sw.event_time);
		kv_u(o, "stack_process", u.sw.pid);
		kv_u(o, "stack_thread", u.sw.tid);
		frames(o, u.sw.frames, u.sw.n_frames);
	} else if (!pmu_etl_decode_stack_key(ev, &u.sk)) {
		kv_x(o, "stack_key", u.sk.key);
		if (u.sk.definition) {
			frames(o, u.sk.frames, u.sk.n_frames);
		} else {
			kv_u(o, "event_time", u.sk.event_time);
			kv_u(o, "stack_process", u.sk.pid);
			kv_u(o, "stack_thread", u.sk.tid);
		}
	} else if (!pmu_etl_decode_lbr(ev, &u.lbr)) {
		kv_u(o, "thread_id", u.lbr.tid);
		kv_x(o, "filters", u.lbr.filters);
		kv_u(o, "branches", u.lbr.n);
		for (unsigned i = 0; i < u.lbr.n && i < 4; i++) {
			snprintf(k, sizeof(k), "from%u", i);
			kv_x(o, k, u.lbr.branch[i].from);
			snprintf(k, sizeof(k), "to%u", i);
			kv_x(o, k, u.lbr.branch[i].to);
		}
	} else {
		return 0;
	}
	return 1;
}

/* Each decoder is tried, in this order; exactly one accepts a given event, or none.
 * Then the PMC values the record's header carried. */
static void kernel_fields(struct etl_out *o, const struct pmu_etl_event *ev)
{
	char k[16];

	if (!task_fields(o, ev) && !image_fields(o, ev) && !sched_fields(o, ev) &&
	    !sample_fields(o, ev))
		stack_fields(o, ev);
	for (unsigned i = 0; i < ev->n_pmc; i++) {
		snprintf(k, sizeof(k), "pmc%u", i);
		kv_u(o, k, ev->pmc[i]);
	}
}

/* CLR method and module events (JIT and ready-to-run code); 1 when ev is one. */
static int clr_fields(struct etl_out *o, const struct pmu_etl_event *ev)
{
	union {
		struct pmu_etl_clr_method_ev m;
		struct pmu_etl_clr_module_ev mod;
	} u;
	char g[40];

	if (!pmu_etl_decode_clr_method(ev, &u.m)) {
		kv_x(o, "method_id", u.m.method_id);
		kv_x(o, "module_id", u.m.module_id);
		kv_x(o, "start", u.m.start);
		kv_x(o, "size", u.m.size);
		kv_x(o, "token", u.m.token);
		kv_x(o, "flags", u.m.flags);
		kv_s(o, "namespace", u.m.ns);
		kv_s(o, "name", u.m.name);
		kv_s(o, "signature", u.m.signature);
		return 1;
	}
	if (pmu_etl_decode_clr_module(ev, &u.mod))
		return 0;
	kv_x(o, "module_id", u.mod.module_id);
	kv_x(o, "assembly_id", u.mod.assembly_id);
	kv_x(o, "flags", u.mod.flags);
	kv_s(o, "il_path", u.mod.il_path);
	kv_s(o, "native_path", u.mod.native_path);
	if (u.mod.has_pdb) {
		pmu_guid_format(&u.mod.managed_pdb_guid, g, sizeof(g));
		kv_s(o, "managed_pdb_guid", g);
		kv_u(o, "managed_pdb_age", u.mod.managed_pdb_age);
		kv_s(o, "managed_pdb", u.mod.managed_pdb);
		pmu_guid_format(&u.mod.native_pdb_guid, g, sizeof(g));
		kv_s(o, "native_pdb_guid", g);
		kv_u(o, "native_pdb_age", u.mod.native_pdb_age);
		kv_s(o, "native_pdb", u.mod.native_pdb);
	}
	return 1;
}

static void tracelogging_fields(struct etl_out *o, const struct pmu_etl_event *ev)
{
	struct pmu_etl_tl_event tl;

	if (pmu_etl_decode_tracelogging(ev, &tl))
		return;
	kv_s(o, "event_name", tl.event_name);
	if (tl.provider_name[0])
		kv_s(o, "provider_name", tl.provider_name);
	for (unsigned i = 0; i < tl.n_fields; i++) {
		const struct pmu_etl_tl_field *f = &tl.fields[i];
		if (f->in_type != 24)
			kv_s(o, f->name, f->value);
	}
}

void etl_print_fields(struct etl_out *o, const struct pmu_etl_event *ev)
{
	if (o->json)
		pmuk_json_obj_begin(o->j, "fields");
	if (ev->kind == PMU_ETL_KERNEL || ev->kind == PMU_ETL_FULL)
		kernel_fields(o, ev);
	else if (ev->kind == PMU_ETL_EVENT && !clr_fields(o, ev))
		tracelogging_fields(o, ev);
	if (o->json)
		pmuk_json_obj_end(o->j);
}

const char *etl_kind_name(unsigned kind)
{
	static const char *const k[] = { "kernel", "full", "instance", "event", "message", "other" };

	return kind < sizeof(k) / sizeof(k[0]) ? k[kind] : "other";
}
