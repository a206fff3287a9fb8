/* SPDX-License-Identifier: MIT */
/* PERF_REC_* decoding. Field order follows the comments on enum
 * perf_event_type in <linux/perf_event.h>; every read is bounds-checked because
 * the bytes may come from a corrupt ring or a file. */
#include "formats/perf_decode.h"
#include "formats/perf_file.h"
#include "core/cursor.h"
#include "core/error.h"

#include <string.h>

/* The record is the caller's writable copy: call chains are compacted and
 * strings terminated in place, through c->p with its const cast away. */
static int take_u64(struct pmuk_cursor *c, uint64_t *v)
{
	return pmuk_cursor_take(c, v, sizeof(*v));
}

/* {u32 a, b} as two signed ids (pid/tid, cpu/res). */
static int take_pair(struct pmuk_cursor *c, int32_t *a, int32_t *b)
{
	uint32_t v[2];

	if (pmuk_cursor_take(c, v, sizeof(v)) < 0)
		return -1;
	*a = (int32_t)v[0];
	if (b)
		*b = (int32_t)v[1];
	return 0;
}

static int bad(const struct perf_rec_header *h, const char *what, size_t size)
{
	return pmuk_fail(PMU_EFORMAT, "perf record type %u (%zu bytes) is too short for its %s",
			 h->type, size, what);
}

/* struct read_format: only skipped, PMU values are not part of the model yet. */
static int skip_read(const struct pmuk_sample_fmt *f, struct pmuk_cursor *c)
{
	uint64_t per = 1 + !!(f->read_format & PERF_RF_ID) + !!(f->read_format & PERF_RF_LOST);
	uint64_t times = !!(f->read_format & PERF_RF_TOTAL_TIME_ENABLED) +
			 !!(f->read_format & PERF_RF_TOTAL_TIME_RUNNING);
	uint64_t nr = 1;

	if ((f->read_format & PERF_RF_GROUP) && take_u64(c, &nr) < 0)
		return -1;
	if (nr > c->left / 8 / per)
		return -1;
	return pmuk_cursor_take(c, NULL, (times + nr * per) * 8);
}

/* {u64 abi; u64 regs[weight(mask)]}: no registers when abi is 0 (a kernel thread). */
static int take_regs(struct pmuk_cursor *c, uint64_t mask, struct pmu_sample_ext *x)
{
	uint64_t abi;
	size_t n = (size_t)__builtin_popcountll(mask);

	if (take_u64(c, &abi) < 0)
		return -1;
	if (x) {
		x->regs_abi = abi;
		x->regs_mask = mask;
		x->nr_regs = abi ? (uint32_t)n : 0;
		x->regs = (const uint64_t *)(void *)c->p;
	}
	return abi ? pmuk_cursor_take(c, NULL, 8 * n) : 0;
}

/* Drops the PERF_CONTEXT_* markers in place; leading kernel/hv frames are counted. */
static void compact_callchain(uint64_t *ips, uint64_t nr, int kernel, struct pmu_sample *s)
{
	uint32_t n = 0, nk = 0;

	for (uint64_t i = 0; i < nr; i++) {
		uint64_t ip;

		memcpy(&ip, &ips[i], sizeof(ip));
		if (ip >= PERF_CTX_MAX) {
			kernel = ip == PERF_CTX_KERNEL || ip == PERF_CTX_HV ||
				 ip == PERF_CTX_GUEST_KERNEL;
			continue;
		}
		if (kernel && nk == n)
			nk++;
		ips[n++] = ip;
	}
	s->callchain = ips;
	s->nr_callchain = n;
	s->nr_kernel_frames = nk;
}

/* {u64 size; char data[size]; u64 dyn_size}, no dyn_size when size is 0. */
static int take_stack(struct pmuk_cursor *c, struct pmu_sample_ext *x)
{
	uint64_t v, dyn = 0;
	const unsigned char *data;

	if (take_u64(c, &v) < 0 || (v & 7))
		return -1;
	data = c->p;
	if (pmuk_cursor_take(c, NULL, v) < 0 || (v && take_u64(c, &dyn) < 0))
		return -1;
	if (x) {
		x->stack = data;
		x->stack_size = dyn < v ? dyn : v;
	}
	return 0;
}

/* The fields after the branch stack. The kernel sizes a sample exactly, so bytes
 * left over mean the record does not have the format we were told. */
static int decode_tail(const struct pmuk_sample_fmt *f, struct pmuk_cursor *c, struct pmu_sample *s,
		       struct pmu_sample_ext *x)
{
	uint64_t st = f->sample_type, v;
	uint64_t *tx = x ? &x->transaction : NULL, *dps = x ? &x->data_page_size : NULL;
	uint64_t *cps = x ? &x->code_page_size : NULL;

	if ((st & PERF_ST_REGS_USER) && take_regs(c, f->regs_user, x) < 0)
		return -1;
	if ((st & PERF_ST_STACK_USER) && take_stack(c, x) < 0)
		return -1;
	if (st & (PERF_ST_WEIGHT | PERF_ST_WEIGHT_STRUCT)) {
		if (take_u64(c, &s->weight) < 0)
			return -1;
		/* WEIGHT_STRUCT: var1_dw is the low 32 bits of the union on either byte order */
		if (st & PERF_ST_WEIGHT_STRUCT)
			s->weight = (uint32_t)s->weight;
	}
	if ((st & PERF_ST_DATA_SRC) && take_u64(c, &s->data_src) < 0)
		return -1;
	if ((st & PERF_ST_TRANSACTION) && pmuk_cursor_take(c, tx, 8) < 0)
		return -1;
	if ((st & PERF_ST_REGS_INTR) && take_regs(c, f->regs_intr, NULL) < 0)
		return -1;
	if ((st & PERF_ST_PHYS_ADDR) && take_u64(c, &s->phys_addr) < 0)
		return -1;
	/* The kernel writes CGROUP, the page sizes, then AUX (perf_output_sample());
	 * the comment in <linux/perf_event.h> lists AUX first and omits CGROUP. */
	if ((st & PERF_ST_CGROUP) && take_u64(c, NULL) < 0)
		return -1;
	if ((st & PERF_ST_DATA_PAGE_SIZE) && pmuk_cursor_take(c, dps, 8) < 0)
		return -1;
	if ((st & PERF_ST_CODE_PAGE_SIZE) && pmuk_cursor_take(c, cps, 8) < 0)
		return -1;
	if ((st & PERF_ST_AUX) && (take_u64(c, &v) < 0 || pmuk_cursor_take(c, NULL, v) < 0))
		return -1;
	return c->left ? -1 : 0;
}

/* {u64 nr; u64 hw_idx (HW_INDEX); {from, to, flags}[nr]; u64 counters[nr] (COUNTERS)}
 * and everything after it. */
static int decode_branches(const struct pmuk_sample_fmt *f, struct pmuk_cursor *c,
			   struct pmu_sample *s, struct pmu_sample_ext *x)
{
	uint64_t nr;

	if (take_u64(c, &nr) < 0 || nr > c->left / sizeof(struct pmu_branch))
		return -1;
	if (nr == 0 && (f->branch_sample_type & PERF_BS_HW_INDEX)) {
		/* The kernel writes hw_idx only when the PMU saved a branch stack; a
		 * sample without one carries a bare nr = 0. The rest decoding to the
		 * exact end tells which of the two this is. */
		struct pmuk_cursor with = *c;

		if (take_u64(&with, NULL) == 0 && decode_tail(f, &with, s, x) == 0) {
			*c = with;
			return 0;
		}
		return decode_tail(f, c, s, x);
	}
	if ((f->branch_sample_type & PERF_BS_HW_INDEX) && take_u64(c, NULL) < 0)
		return -1;
	s->branches = (const struct pmu_branch *)(void *)c->p;
	s->nr_branches = (uint32_t)nr;
	if (pmuk_cursor_take(c, NULL, nr * sizeof(struct pmu_branch)) < 0)
		return -1;
	if ((f->branch_sample_type & PERF_BS_COUNTERS) && pmuk_cursor_take(c, NULL, nr * 8) < 0)
		return -1;
	return decode_tail(f, c, s, x);
}

/* The PMU_HAS_* bits a sample of this sample_type carries (ext ones aside). */
static uint32_t sample_has(uint64_t st)
{
	return (st & PERF_ST_IP ? PMU_HAS_IP : 0) |
	       (st & PERF_ST_TID ? PMU_HAS_TID : 0) |
	       (st & PERF_ST_TIME ? PMU_HAS_TIME : 0) |
	       (st & PERF_ST_ADDR ? PMU_HAS_ADDR : 0) |
	       (st & (PERF_ST_ID | PERF_ST_IDENTIFIER) ? PMU_HAS_ID : 0) |
	       (st & PERF_ST_STREAM_ID ? PMU_HAS_STREAM_ID : 0) |
	       (st & PERF_ST_CPU ? PMU_HAS_CPU : 0) |
	       (st & PERF_ST_PERIOD ? PMU_HAS_PERIOD : 0) |
	       (st & PERF_ST_CALLCHAIN ? PMU_HAS_CALLCHAIN : 0) |
	       (st & PERF_ST_BRANCH_STACK ? PMU_HAS_BRANCH_STACK : 0) |
	       (st & (PERF_ST_WEIGHT | PERF_ST_WEIGHT_STRUCT) ? PMU_HAS_WEIGHT : 0) |
	       (st & PERF_ST_DATA_SRC ? PMU_HAS_DATA_SRC : 0) |
	       (st & PERF_ST_PHYS_ADDR ? PMU_HAS_PHYS_ADDR : 0);
}

static int decode_sample(const struct pmuk_sample_fmt *f, const struct perf_rec_header *h,
			 struct pmuk_cursor *c, struct pmu_record *r, struct pmu_sample_ext *x)
{
	uint64_t st = f->sample_type, nr;
	struct pmu_sample *s = &r->sample;
	uint32_t raw;
	int ret;

	r->kind = PMU_RECORD_SAMPLE;
	s->exact_ip = !!(h->misc & PERF_REC_MISC_EXACT_IP);
	if ((st & PERF_ST_IDENTIFIER) && take_u64(c, &r->id) < 0)
		return -1;
	if ((st & PERF_ST_IP) && take_u64(c, &s->ip) < 0)
		return -1;
	if ((st & PERF_ST_TID) && take_pair(c, &r->pid, &r->tid) < 0)
		return -1;
	if ((st & PERF_ST_TIME) && take_u64(c, &r->time) < 0)
		return -1;
	if ((st & PERF_ST_ADDR) && take_u64(c, &s->addr) < 0)
		return -1;
	if ((st & PERF_ST_ID) && take_u64(c, &r->id) < 0)
		return -1;
	if ((st & PERF_ST_STREAM_ID) && take_u64(c, &r->stream_id) < 0)
		return -1;
	if ((st & PERF_ST_CPU) && take_pair(c, &r->cpu, NULL) < 0)
		return -1;
	if ((st & PERF_ST_PERIOD) && take_u64(c, &s->period) < 0)
		return -1;
	if ((st & PERF_ST_READ) && skip_read(f, c) < 0)
		return -1;
	if (st & PERF_ST_CALLCHAIN) {
		uint64_t *ips;

		if (take_u64(c, &nr) < 0 || nr > c->left / 8)
			return -1;
		ips = (uint64_t *)(void *)c->p;
		pmuk_cursor_take(c, NULL, nr * 8);
		compact_callchain(ips, nr, (h->misc & PERF_REC_MISC_CPUMODE_MASK) ==
				  PERF_REC_MISC_KERNEL, s);
	}
	if (st & PERF_ST_RAW) {
		/* {u32 size; char data[size]} padded so the next field stays 8-byte aligned */
		if (pmuk_cursor_take(c, &raw, sizeof(raw)) < 0 || ((raw + 4) & 7))
			return -1;
		if (x) {
			x->raw = c->p;
			x->raw_size = raw;
		}
		if (pmuk_cursor_take(c, NULL, raw) < 0)
			return -1;
	}
	ret = st & PERF_ST_BRANCH_STACK ? decode_branches(f, c, s, x) : decode_tail(f, c, s, x);
	if (ret < 0)
		return -1;
	r->has |= sample_has(st);
	if (x) {
		s->ext = x;
		r->has |= (st & PERF_ST_RAW ? PMU_HAS_RAW : 0) |
			  (st & PERF_ST_REGS_USER ? PMU_HAS_REGS_USER : 0) |
			  (st & PERF_ST_STACK_USER ? PMU_HAS_STACK_USER : 0);
	}
	return 0;
}

/* The sample_id trailer of non-sample records (attr.sample_id_all). */
static size_t trailer_size(const struct pmuk_sample_fmt *f)
{
	const uint64_t bits = PERF_ST_TID | PERF_ST_TIME | PERF_ST_ID |
			      PERF_ST_STREAM_ID | PERF_ST_CPU | PERF_ST_IDENTIFIER;

	return f->sample_id_all ? 8 * (size_t)__builtin_popcountll(f->sample_type & bits) : 0;
}

static void decode_trailer(const struct pmuk_sample_fmt *f, struct pmuk_cursor *c,
			   struct pmu_record *r)
{
	uint64_t st = f->sample_type;

	/* trailer_size() was checked against the record size: these cannot fail */
	if (st & PERF_ST_TID) {
		take_pair(c, &r->pid, &r->tid);
		r->has |= PMU_HAS_TID;
	}
	if (st & PERF_ST_TIME) {
		take_u64(c, &r->time);
		r->has |= PMU_HAS_TIME;
	}
	if (st & PERF_ST_ID) {
		take_u64(c, &r->id);
		r->has |= PMU_HAS_ID;
	}
	if (st & PERF_ST_STREAM_ID) {
		take_u64(c, &r->stream_id);
		r->has |= PMU_HAS_STREAM_ID;
	}
	if (st & PERF_ST_CPU) {
		take_pair(c, &r->cpu, NULL);
		r->has |= PMU_HAS_CPU;
	}
	if (st & PERF_ST_IDENTIFIER) {
		take_u64(c, &r->id);
		r->has |= PMU_HAS_ID;
	}
}

/* A NUL-terminated string filling the rest of the body (padded to 8 bytes). */
static const char *body_string(struct pmuk_cursor *c)
{
	char *s = (char *)c->p;

	if (c->left == 0)
		return NULL;
	if (!memchr(s, '\0', c->left))
		s[c->left - 1] = '\0';
	return s;
}

static int decode_mmap(const struct perf_rec_header *h, struct pmuk_cursor *c, struct pmu_record *r)
{
	struct pmu_mmap *m = &r->mmap;
	uint8_t bid[4];
	uint32_t dev[2];

	if (take_pair(c, &r->pid, &r->tid) < 0 || take_u64(c, &m->start) < 0 ||
	    take_u64(c, &m->len) < 0 || take_u64(c, &m->pgoff) < 0)
		return -1;
	if (h->type == PERF_REC_MMAP2) {
		if (c->left < 32)
			return -1;
		if (h->misc & PERF_REC_MISC_MMAP_BUILD_ID) {
			/* {u8 build_id_size, u8 res, u16 res, u8 build_id[20]} */
			pmuk_cursor_take(c, bid, sizeof(bid));
			pmuk_cursor_take(c, m->build_id, sizeof(m->build_id));
			m->build_id_size = bid[0] > 20 ? 20 : bid[0];
		} else {
			pmuk_cursor_take(c, dev, sizeof(dev));
			m->maj = dev[0];
			m->min = dev[1];
			take_u64(c, &m->ino);
			take_u64(c, &m->ino_generation);
		}
		pmuk_cursor_take(c, &m->prot, sizeof(m->prot));
		pmuk_cursor_take(c, &m->flags, sizeof(m->flags));
	}
	m->data = !!(h->misc & PERF_REC_MISC_MMAP_DATA);
	r->kind = PMU_RECORD_MMAP;
	r->has |= PMU_HAS_TID;
	return (m->path = body_string(c)) ? 0 : -1;
}

static int decode_body(const struct perf_rec_header *h, struct pmuk_cursor *c, struct pmu_record *r)
{
	int32_t pid;
	const char *s;

	switch (h->type) {
	case PERF_REC_MMAP:
	case PERF_REC_MMAP2:
		return decode_mmap(h, c, r);
	case PERF_REC_LOST:
		r->kind = PMU_RECORD_LOST;
		r->has |= PMU_HAS_ID;
		return take_u64(c, &r->id) < 0 || take_u64(c, &r->lost.count) < 0 ? -1 : 0;
	case PERF_REC_LOST_SAMPLES:
		r->kind = PMU_RECORD_LOST;
		r->lost.samples = 1;
		return take_u64(c, &r->lost.count);
	case PERF_REC_COMM:
		r->kind = PMU_RECORD_COMM;
		r->comm.exec = !!(h->misc & PERF_REC_MISC_COMM_EXEC);
		r->has |= PMU_HAS_TID;
		if (take_pair(c, &r->pid, &r->tid) < 0 || !(s = body_string(c)))
			return -1;
		memcpy(r->comm.name, s, strnlen(s, sizeof(r->comm.name) - 1));
		return 0;
	case PERF_REC_FORK:
	case PERF_REC_EXIT:
		r->kind = h->type == PERF_REC_FORK ? PMU_RECORD_FORK : PMU_RECORD_EXIT;
		r->has |= PMU_HAS_TID | PMU_HAS_TIME;
		return take_pair(c, &r->pid, &r->task.ppid) < 0 ||
		       take_pair(c, &r->tid, &r->task.ptid) < 0 || take_u64(c, &r->time) < 0 ? -1 : 0;
	case PERF_REC_THROTTLE:
	case PERF_REC_UNTHROTTLE:
		r->kind = h->type == PERF_REC_THROTTLE ? PMU_RECORD_THROTTLE : PMU_RECORD_UNTHROTTLE;
		r->has |= PMU_HAS_TIME | PMU_HAS_ID | PMU_HAS_STREAM_ID;
		return take_u64(c, &r->time) < 0 || take_u64(c, &r->id) < 0 ||
		       take_u64(c, &r->stream_id) < 0 ? -1 : 0;
	case PERF_REC_SWITCH:
	case PERF_REC_SWITCH_CPU_WIDE:
		r->kind = PMU_RECORD_SWITCH;
		r->sw.out = !!(h->misc & PERF_REC_MISC_SWITCH_OUT);
		r->sw.preempt = r->sw.out && (h->misc & PERF_REC_MISC_SWITCH_OUT_PREEMPT);
		r->sw.other_pid = r->sw.other_tid = -1;
		if (h->type == PERF_REC_SWITCH)
			return 0;
		if (take_pair(c, &pid, &r->sw.other_tid) < 0)
			return -1;
		r->sw.other_pid = pid;
		return 0;
	default:
		return 1;
	}
}

static int in_model(uint32_t type)
{
	switch (type) {
	case PERF_REC_MMAP: case PERF_REC_MMAP2: case PERF_REC_LOST:
	case PERF_REC_LOST_SAMPLES: case PERF_REC_COMM: case PERF_REC_FORK:
	case PERF_REC_EXIT: case PERF_REC_THROTTLE: case PERF_REC_UNTHROTTLE:
	case PERF_REC_SWITCH: case PERF_REC_SWITCH_CPU_WIDE:
		return 1;
	default:
		return 0;
	}
}

static const char *type_name(uint32_t type)
{
	switch (type) {
	case PERF_REC_MMAP: case PERF_REC_MMAP2: return "mapping fields";
	case PERF_REC_COMM: return "thread name";
	default: return "fields";
	}
}

int pmuk_decode_record(const struct pmuk_sample_fmt *f, void *rec, size_t size,
		       struct pmu_record *out)
{
	return pmuk_decode_record_ext(f, rec, size, out, NULL);
}

int pmuk_decode_record_ext(const struct pmuk_sample_fmt *f, void *rec, size_t size,
			   struct pmu_record *out, struct pmu_sample_ext *ext)
{
	struct perf_rec_header h;
	struct pmuk_cursor c = { (const uint8_t *)rec + sizeof(h), 0 };
	size_t tsz = trailer_size(f);
	int ret;

	if (size < sizeof(h))
		return pmuk_fail(PMU_EFORMAT, "perf record of %zu bytes is shorter than its header",
				 size);
	memcpy(&h, rec, sizeof(h));
	memset(out, 0, sizeof(*out));
	out->pid = out->tid = out->cpu = out->event = -1;
	out->cpumode = (h.misc & PERF_REC_MISC_CPUMODE_MASK) <= PERF_REC_MISC_GUEST_USER ?
		       (enum pmu_cpumode)(h.misc & PERF_REC_MISC_CPUMODE_MASK) : PMU_CPUMODE_UNKNOWN;
	c.left = size - sizeof(h);
	if (h.type == PERF_REC_SAMPLE) {
		if (f->sample_type & ~PERF_ST_KNOWN)
			return pmuk_fail(PMU_EFORMAT, "perf sample_type 0x%llx has fields this decoder "
					 "does not know (0x%llx): their layout is newer than pmukit",
					 (unsigned long long)f->sample_type,
					 (unsigned long long)(f->sample_type & ~PERF_ST_KNOWN));
		if (ext) {
			memset(ext, 0, sizeof(*ext));
			ext->sz = sizeof(*ext);
		}
		if (decode_sample(f, &h, &c, out, ext) < 0)
			return pmuk_fail(PMU_EFORMAT, "perf sample record of %zu bytes does not match "
					 "sample_type 0x%llx (read_format 0x%llx, branch_sample_type "
					 "0x%llx): it is cut short or was written with another format",
					 size, (unsigned long long)f->sample_type,
					 (unsigned long long)f->read_format,
					 (unsigned long long)f->branch_sample_type);
		return 0;
	}
	if (!in_model(h.type))
		return 1;
	if (c.left < tsz)
		return bad(&h, "sample_id trailer", size);
	if (tsz) {
		struct pmuk_cursor t = { c.p + c.left - tsz, tsz };

		decode_trailer(f, &t, out);
		c.left -= tsz;
	}
	ret = decode_body(&h, &c, out);
	if (ret < 0)
		return bad(&h, type_name(h.type), size);
	return ret;
}
