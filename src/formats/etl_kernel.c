/* SPDX-License-Identifier: MIT */
/* Payload decoders of the NT kernel logger events. P is the pointer size of
 * the event (its header type), never the file's: WOW64 files mix both. */
#include "formats/etl_int.h"
#include "core/error.h"

size_t pmuk_etl_ansi(const uint8_t *p, size_t n, char *out, size_t outsz)
{
	size_t i, o = 0;
	int full = 0;

	for (i = 0; i < n && p[i]; i++)
		if (outsz)	/* bytes >= 0x80: code page unknown, keep them as Latin-1 */
			pmuk_utf8_put(out, outsz, &o, p[i], &full);
	if (outsz)
		out[o] = '\0';
	return i < n ? i + 1 : 0;
}

static int too_short(const struct pmu_etl_event *ev, const char *what, size_t need)
{
	return pmuk_fail(PMU_EFORMAT, "%s event (opcode %u, version %u) payload is %zu bytes, "
			 "needs %zu", what, ev->opcode, ev->version, ev->payload_size, need);
}

static int not_this(const char *what)
{
	return pmuk_fail(PMU_EINVAL, "the event is not a %s event", what);
}

int pmu_etl_decode_thread(const struct pmu_etl_event *ev, struct pmu_etl_thread_ev *o)
{
	const uint8_t *p = ev->payload;
	size_t n = ev->payload_size, P = ev->pointer_size;

	if (!pmuk_etl_is_group(ev, PMU_ETL_GROUP_THREAD) || ev->opcode < 1 || ev->opcode > 4)
		return not_this("thread start/end/rundown");
	memset(o, 0, sizeof(*o));
	o->opcode = ev->opcode;
	if (ev->version < 2) {	/* V1: ProcessId, TThreadId, then other fields */
		if (n < 8)
			return too_short(ev, "Thread", 8);
		o->pid = le32(p);
		o->tid = le32(p + 4);
		return 0;
	}
	size_t fixed = (ev->version == 2 ? 12 : 16) + 7 * P;
	if (n < fixed)
		return too_short(ev, "Thread", fixed);
	o->pid = le32(p);
	o->tid = le32(p + 4);
	o->stack_base = leptr(p + 8, P);
	o->stack_limit = leptr(p + 8 + P, P);
	o->user_stack_base = leptr(p + 8 + 2 * P, P);
	o->user_stack_limit = leptr(p + 8 + 3 * P, P);
	o->start_addr = leptr(p + 8 + 4 * P, P);
	o->win32_start_addr = leptr(p + 8 + 5 * P, P);
	o->teb_base = leptr(p + 8 + 6 * P, P);
	o->sub_process_tag = le32(p + 8 + 7 * P);
	if (ev->version >= 3) {
		o->base_priority = p[12 + 7 * P];
		o->page_priority = p[13 + 7 * P];
		o->io_priority = p[14 + 7 * P];
		o->thread_flags = p[15 + 7 * P];
		/* V3 does not declare it, but newer kernels append the name */
		if (n > fixed) {
			pmuk_utf16_to_utf8(p + fixed, n - fixed, o->name, sizeof(o->name));
			o->has_name = o->name[0] != '\0';
		}
	}
	return 0;
}

int pmu_etl_decode_thread_set_name(const struct pmu_etl_event *ev, struct pmu_etl_thread_name_ev *o)
{
	if (!pmuk_etl_is_group(ev, PMU_ETL_GROUP_THREAD) || ev->opcode != 72)
		return not_this("ThreadSetName");
	if (ev->payload_size < 8)
		return too_short(ev, "ThreadSetName", 8);
	o->pid = le32(ev->payload);
	o->tid = le32(ev->payload + 4);
	pmuk_utf16_to_utf8(ev->payload + 8, ev->payload_size - 8, o->name, sizeof(o->name));
	return 0;
}

int pmu_etl_decode_process(const struct pmu_etl_event *ev, struct pmu_etl_process_ev *o)
{
	const uint8_t *p = ev->payload;
	size_t n = ev->payload_size, P = ev->pointer_size, off;
	unsigned v = ev->version;

	if (!pmuk_etl_is_group(ev, PMU_ETL_GROUP_PROCESS) ||
	    !((ev->opcode >= 1 && ev->opcode <= 4) || ev->opcode == 39))
		return not_this("process start/end/rundown/defunct");
	if (v < 2)
		return pmuk_fail(PMU_ENOTSUP, "Process event version %u predates the layouts pmukit "
				 "decodes (2 to 5)", v);
	memset(o, 0, sizeof(*o));
	o->opcode = ev->opcode;
	off = P + 16 + (v >= 3 ? P : 0) + (v >= 4 ? 4 : 0);
	if (n < off + 4)
		return too_short(ev, "Process", off + 4);
	o->unique_key = leptr(p, P);
	o->pid = le32(p + P);
	o->ppid = le32(p + P + 4);
	o->session = le32(p + P + 8);
	o->exit_status = (int32_t)le32(p + P + 12);
	if (v >= 3)
		o->directory_table_base = leptr(p + P + 16, P);
	if (v >= 4)
		o->flags = le32(p + 2 * P + 16);
	/* UserSID: 4 zero bytes, or TOKEN_USER (2 pointers) + SID */
	size_t sid = 4;
	if (le32(p + off)) {
		size_t s = off + 2 * P;
		if (n < s + 8)
			return too_short(ev, "Process (SID)", s + 8);
		sid = 2 * P + 8 + 4 * (size_t)p[s + 1];
	}
	if (n < off + sid)
		return too_short(ev, "Process (SID)", off + sid);
	o->sid_size = (uint32_t)sid;
	off += sid;
	size_t u = pmuk_etl_ansi(p + off, n - off, o->image, sizeof(o->image));
	off = u ? off + u : n;
	u = pmuk_utf16_to_utf8(p + off, n - off, o->command_line, sizeof(o->command_line));
	off = u ? off + u : n;
	if (v >= 4) {
		u = pmuk_utf16_to_utf8(p + off, n - off, o->package_name, sizeof(o->package_name));
		off = u ? off + u : n;
		u = pmuk_utf16_to_utf8(p + off, n - off, o->application_id, sizeof(o->application_id));
		off = u ? off + u : n;
	}
	if (v >= 5 && off + 8 <= n)
		o->exit_time = le64(p + off);
	return 0;
}

int pmu_etl_decode_image(const struct pmu_etl_event *ev, struct pmu_etl_image_ev *o)
{
	const uint8_t *p = ev->payload;
	size_t n = ev->payload_size, P = ev->pointer_size;
	unsigned op = ev->opcode;

	if (!pmuk_etl_is_group(ev, PMU_ETL_GROUP_IMAGE) || !(op == 10 || (op >= 2 && op <= 4)))
		return not_this("image load/unload/rundown");
	if (ev->version < 2)
		return pmuk_fail(PMU_ENOTSUP, "Image event version %u predates the layouts pmukit "
				 "decodes (2, 3)", ev->version);
	size_t fixed = 3 * P + 32;
	if (n < fixed)
		return too_short(ev, "Image", fixed);
	memset(o, 0, sizeof(*o));
	o->opcode = op;
	o->base = leptr(p, P);
	o->size = leptr(p + P, P);
	o->pid = le32(p + 2 * P);
	o->checksum = le32(p + 2 * P + 4);
	o->time_date_stamp = le32(p + 2 * P + 8);
	if (ev->version >= 3) {
		o->signature_level = p[2 * P + 12];
		o->signature_type = p[2 * P + 13];
	}
	o->default_base = leptr(p + 2 * P + 16, P);
	pmuk_utf16_to_utf8(p + fixed, n - fixed, o->file_name, sizeof(o->file_name));
	return 0;
}

int pmu_etl_decode_imageid_rsds(const struct pmu_etl_event *ev, struct pmu_etl_imageid_ev *o)
{
	static const struct pmu_guid imageid = { 0xb3e675d7, 0x2554, 0x4f18,
		{ 0x83, 0x0b, 0x27, 0x62, 0x73, 0x25, 0x60, 0xde } };
	const uint8_t *p = ev->payload;
	size_t n = ev->payload_size, P = ev->pointer_size;

	if (memcmp(&ev->provider, &imageid, sizeof(imageid)) || (ev->opcode != 0 && ev->opcode != 36))
		return not_this("ImageID / DbgID_RSDS");
	memset(o, 0, sizeof(*o));
	o->opcode = ev->opcode;
	if (ev->opcode == 0) {
		if (n < 2 * P + 8)
			return too_short(ev, "ImageID", 2 * P + 8);
		o->image_base = leptr(p, P);
		o->image_size = leptr(p + P, P);
		o->pid = le32(p + 2 * P);
		o->time_date_stamp = le32(p + 2 * P + 4);
		pmuk_utf16_to_utf8(p + 2 * P + 8, n - 2 * P - 8, o->file_name, sizeof(o->file_name));
		return 0;
	}
	if (n < P + 24)
		return too_short(ev, "DbgID_RSDS", P + 24);
	o->image_base = leptr(p, P);
	o->pid = le32(p + P);
	pmuk_guid_load(&o->pdb_guid, p + P + 4);
	o->pdb_age = le32(p + P + 20);
	pmuk_etl_ansi(p + P + 24, n - P - 24, o->file_name, sizeof(o->file_name));
	return 0;
}

int pmu_etl_decode_cswitch(const struct pmu_etl_event *ev, struct pmu_etl_cswitch_ev *o)
{
	const uint8_t *p = ev->payload;

	if (!pmuk_etl_is_group(ev, PMU_ETL_GROUP_THREAD) || ev->opcode != 36)
		return not_this("CSwitch");
	if (ev->payload_size < 24)
		return too_short(ev, "CSwitch", 24);
	o->new_tid = le32(p);
	o->old_tid = le32(p + 4);
	o->new_priority = (int8_t)p[8];
	o->old_priority = (int8_t)p[9];
	o->previous_cstate = p[10];
	o->old_wait_reason = (int8_t)p[12];
	o->old_wait_mode = (int8_t)p[13];
	o->old_state = (int8_t)p[14];
	o->old_wait_ideal_processor = (int8_t)p[15];
	o->new_wait_time = le32(p + 16);
	return 0;
}

int pmu_etl_decode_readythread(const struct pmu_etl_event *ev, struct pmu_etl_readythread_ev *o)
{
	const uint8_t *p = ev->payload;

	if (!pmuk_etl_is_group(ev, PMU_ETL_GROUP_THREAD) || ev->opcode != 50)
		return not_this("ReadyThread");
	if (ev->payload_size < 8)
		return too_short(ev, "ReadyThread", 8);
	o->tid = le32(p);
	o->adjust_reason = (int8_t)p[4];
	o->adjust_increment = (int8_t)p[5];
	o->flag = (int8_t)p[6];
	return 0;
}

int pmu_etl_decode_sampled_profile(const struct pmu_etl_event *ev, struct pmu_etl_sample_ev *o)
{
	const uint8_t *p = ev->payload;
	size_t P = ev->pointer_size;

	if (!pmuk_etl_is_group(ev, PMU_ETL_GROUP_PERFINFO) || ev->opcode != 46)
		return not_this("SampledProfile");
	if (ev->payload_size < P + 8)
		return too_short(ev, "SampledProfile", P + 8);
	o->ip = leptr(p, P);
	o->tid = le32(p + P);
	o->count = le16(p + P + 4);
	o->flags = p[P + 6];
	o->dpc = o->flags & 1;
	o->isr = (o->flags >> 1) & 1;
	o->priority = o->flags >> 3;
	o->rank = p[P + 7];
	return 0;
}

int pmu_etl_decode_pmc_profile(const struct pmu_etl_event *ev, struct pmu_etl_pmc_sample_ev *o)
{
	const uint8_t *p = ev->payload;
	size_t P = ev->pointer_size;

	if (!pmuk_etl_is_group(ev, PMU_ETL_GROUP_PERFINFO) || ev->opcode != 47)
		return not_this("PmcCounterProfile");
	if (ev->payload_size < P + 6)
		return too_short(ev, "PmcCounterProfile", P + 6);
	o->ip = leptr(p, P);
	o->tid = le32(p + P);
	o->source = le16(p + P + 4);
	return 0;
}

int pmu_etl_decode_pmc_counters(const struct pmu_etl_event *ev, struct pmu_etl_pmc_counters_ev *o)
{
	const uint8_t *p = ev->payload;
	size_t n = ev->payload_size, off = 4;

	if (!pmuk_etl_is_group(ev, PMU_ETL_GROUP_PERFINFO) || ev->opcode != 48)
		return not_this("PmcCounterConfig");
	if (n < 4)
		return too_short(ev, "PmcCounterConfig", 4);
	memset(o, 0, sizeof(*o));
	o->count = le32(p);
	for (uint32_t i = 0; i < o->count && i < PMU_ETL_MAX_COUNTERS; i++) {
		size_t u = pmuk_utf16_to_utf8(p + off, n - off, o->names[i], sizeof(o->names[i]));
		if (!u)
			return too_short(ev, "PmcCounterConfig (names)", n + 2);
		off += u;
	}
	return 0;
}

int pmu_etl_decode_stackwalk(const struct pmu_etl_event *ev, struct pmu_etl_stack_ev *o)
{
	const uint8_t *p = ev->payload;
	size_t P = ev->pointer_size;

	if (!pmuk_etl_is_group(ev, PMU_ETL_GROUP_STACKWALK) || ev->opcode != 32)
		return not_this("StackWalk");
	if (ev->payload_size < 16)
		return too_short(ev, "StackWalk", 16);
	o->event_time = le64(p);
	o->pid = le32(p + 8);
	o->tid = le32(p + 12);
	size_t n = (ev->payload_size - 16) / P;
	o->n_frames = (unsigned)(n < PMU_ETL_MAX_FRAMES ? n : PMU_ETL_MAX_FRAMES);
	for (unsigned i = 0; i < o->n_frames; i++)
		o->frames[i] = leptr(p + 16 + i * P, P);
	return 0;
}

int pmu_etl_decode_stack_key(const struct pmu_etl_event *ev, struct pmu_etl_stack_key_ev *o)
{
	const uint8_t *p = ev->payload;
	size_t P = ev->pointer_size, n = ev->payload_size;
	unsigned op = ev->opcode;

	if (!pmuk_etl_is_group(ev, PMU_ETL_GROUP_STACKWALK) || op < 34 || op > 38)
		return not_this("StackWalk key");
	memset(o, 0, offsetof(struct pmu_etl_stack_key_ev, frames));
	o->opcode = op;
	if (op >= 37) {
		if (n < 16 + P)
			return too_short(ev, "StackKey", 16 + P);
		o->user = op == 38;
		o->event_time = le64(p);
		o->pid = le32(p + 8);
		o->tid = le32(p + 12);
		o->key = leptr(p + 16, P);
		return 0;
	}
	if (n < P)
		return too_short(ev, "StackKey definition", P);
	o->definition = 1;
	o->key = leptr(p, P);
	size_t k = (n - P) / P;
	o->n_frames = (unsigned)(k < PMU_ETL_MAX_FRAMES ? k : PMU_ETL_MAX_FRAMES);
	for (unsigned i = 0; i < o->n_frames; i++)
		o->frames[i] = leptr(p + P + i * P, P);
	return 0;
}

int pmu_etl_decode_lbr(const struct pmu_etl_event *ev, struct pmu_etl_lbr_ev *o)
{
	const uint8_t *p = ev->payload;
	size_t P = ev->pointer_size, n = ev->payload_size;
	size_t hdr = P == 8 ? 24 : 20;

	if (!pmuk_etl_is_group(ev, PMU_ETL_GROUP_LBR) || ev->opcode != 32)
		return not_this("LBR sample");
	if (n < hdr)
		return too_short(ev, "LBR", hdr);
	o->time = le64(p);
	o->pid = le32(p + 8);
	o->tid = le32(p + 12);
	o->filters = le32(p + 16);
	size_t k = (n - hdr) / (3 * P);
	o->n = (unsigned)(k < PMU_ETL_MAX_LBR ? k : PMU_ETL_MAX_LBR);
	for (unsigned i = 0; i < o->n; i++) {
		o->branch[i].from = leptr(p + hdr + i * 3 * P, P);
		o->branch[i].to = leptr(p + hdr + i * 3 * P + P, P);
	}
	return 0;
}
