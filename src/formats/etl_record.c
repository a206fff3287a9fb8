/* SPDX-License-Identifier: MIT */
/* Event records inside a buffer (all header kinds), the log-file header and
 * the conversion of raw timestamps to ns. */
#include "formats/etl_int.h"
#include "core/error.h"

/* Seconds between 1601-01-01 and 1970-01-01, in 100 ns FILETIME ticks. */
#define FILETIME_UNIX_EPOCH 116444736000000000LL

static const char *const header_names[32] = {
	[ETL_HDR_SYSTEM32] = "SYSTEM32", [ETL_HDR_SYSTEM64] = "SYSTEM64",
	[ETL_HDR_COMPACT32] = "COMPACT32", [ETL_HDR_COMPACT64] = "COMPACT64",
	[ETL_HDR_FULL32] = "FULL_HEADER32", [ETL_HDR_INSTANCE32] = "INSTANCE32",
	[ETL_HDR_ERROR] = "ERROR", [ETL_HDR_MESSAGE] = "MESSAGE",
	[ETL_HDR_PERFINFO32] = "PERFINFO32", [ETL_HDR_PERFINFO64] = "PERFINFO64",
	[ETL_HDR_EVENT32] = "EVENT_HEADER32", [ETL_HDR_EVENT64] = "EVENT_HEADER64",
	[ETL_HDR_FULL64] = "FULL_HEADER64", [ETL_HDR_INSTANCE64] = "INSTANCE64",
};

/* ns since 1970 of a FILETIME, saturated to the int64 range (years
 * 1678..2262): corrupt headers must not overflow. */
static int64_t filetime_ns(uint64_t ft)
{
	const int64_t lim = INT64_MAX / 100;
	int64_t d = ft > (uint64_t)INT64_MAX ? lim : (int64_t)ft - FILETIME_UNIX_EPOCH;

	if (d > lim)
		d = lim;
	if (d < -lim)
		d = -lim;
	return d * 100;
}

/* base + or - d, saturated. */
static int64_t add_ns(int64_t base, uint64_t d, int neg)
{
	if (neg)
		return d > (uint64_t)base - (uint64_t)INT64_MIN ? INT64_MIN : (int64_t)((uint64_t)base - d);
	return d > (uint64_t)INT64_MAX - (uint64_t)base ? INT64_MAX : (int64_t)((uint64_t)base + d);
}

int64_t pmu_etl_time_ns(const struct pmu_etl *r, uint64_t raw)
{
	const struct pmu_etl_header *h = &r->hdr;
	uint64_t f = h->tick_freq, d, s, rem;
	int neg = raw < h->header_raw_time;

	if (!f)
		return h->start_ns;
	d = neg ? h->header_raw_time - raw : raw - h->header_raw_time;
	/* most clocks tick at a divisor of 1 GHz (10 MHz QPC): no division */
	if (r->ns_per_tick && d < (UINT64_C(1) << 56) / r->ns_per_tick)
		return add_ns(h->start_ns, d * r->ns_per_tick, neg);
	s = d / f;
	rem = d % f;
	if (s > (uint64_t)INT64_MAX / 1000000000u)
		return neg ? INT64_MIN : INT64_MAX;
	/* rem * 1e9 fits 64 bits for clocks up to 18 GHz; beyond (corrupt) use a double */
	d = s * 1000000000u + (rem < UINT64_MAX / 1000000000u ? rem * 1000000000u / f :
			       (uint64_t)((double)rem / (double)f * 1e9));
	return add_ns(h->start_ns, d, neg);
}

static size_t utf16_field(const uint8_t *p, size_t n, char *out, size_t outsz)
{
	size_t used = pmuk_utf16_to_utf8(p, n, out, outsz);
	return used ? used : n;
}

int pmuk_etl_parse_logfile_header(const uint8_t *p, size_t n, unsigned psz,
				  struct pmu_etl_header *h)
{
	size_t fixed = psz == 8 ? 0x118 : 0x110;
	size_t tz = 0x38 + 2 * psz;	/* TIME_ZONE_INFORMATION */

	if (n < fixed)
		return PMU_EFORMAT;
	memset(h, 0, sizeof(*h));
	h->buffer_size = le32(p);
	h->os_major = p[4];
	h->os_minor = p[5];
	h->layout_major = p[6];
	h->layout_minor = p[7];
	h->os_build = le32(p + 0x08);
	h->cpus = le32(p + 0x0C);
	h->end_filetime = le64(p + 0x10);
	h->timer_resolution = le32(p + 0x18);
	h->log_file_mode = le32(p + 0x20);
	h->buffers_written = le32(p + 0x24);
	h->pointer_size = le32(p + 0x2C);
	h->events_lost = le32(p + 0x30);
	h->cpu_mhz = le32(p + 0x34);
	/* 172 bytes of time zone, then 4 bytes of padding to 8-byte alignment */
	size_t q = tz + 172 + 4;
	h->boot_filetime = le64(p + q);
	h->perf_freq = le64(p + q + 8);
	h->start_filetime = le64(p + q + 16);
	h->clock_type = le32(p + q + 24);
	h->buffers_lost = le32(p + q + 28);
	h->compressed = !!(h->log_file_mode & ETL_COMPRESSED_MODE);
	switch (h->clock_type) {
	case PMU_ETL_CLOCK_SYSTEMTIME: h->tick_freq = 10000000; break;
	case PMU_ETL_CLOCK_CPUCYCLES: h->tick_freq = (uint64_t)h->cpu_mhz * 1000000; break;
	default: h->tick_freq = h->perf_freq; break;
	}
	h->start_ns = filetime_ns(h->start_filetime);
	h->end_ns = h->end_filetime ? filetime_ns(h->end_filetime) : 0;
	size_t used = utf16_field(p + fixed, n - fixed, h->logger_name, sizeof(h->logger_name));
	utf16_field(p + fixed + used, n - fixed - used, h->log_file_name, sizeof(h->log_file_name));
	return 0;
}

static void kernel_fields(struct pmu_etl_event *ev, const uint8_t *p, uint16_t ver)
{
	uint16_t hook = le16(p + 6);

	ev->kind = PMU_ETL_KERNEL;
	ev->group = hook >> 8;
	ev->opcode = hook & 0xFF;
	ev->version = ver & ETL_VER_VERSION;
	pmuk_etl_group_guid(ev->group, ev->opcode, &ev->provider);
}

/* EVENT_HEADER extended items: {u16 size (8-aligned), u16 type, u16 more-flag, u16 len}. */
static int ext_items(struct pmu_etl_event *ev, const uint8_t *p, size_t n, size_t *used)
{
	size_t off = 0;

	for (;;) {
		if (off + 8 > n)
			return -1;
		uint16_t size = le16(p + off), more = le16(p + off + 4), len = le16(p + off + 6);
		if (size < 8 + len || off + size > n || size == 0)
			return -1;
		if (ev->n_ext < PMU_ETL_MAX_EXT) {
			struct pmu_etl_ext *x = &ev->ext[ev->n_ext++];
			x->type = le16(p + off + 2);
			x->size = len;
			x->data = p + off + 8;
		}
		off += (size + 7u) & ~7u;
		if (!(more & 1))
			break;
	}
	*used = off < n ? off : n;
	return 0;
}

/* The fixed header's size for each header type. */
static size_t header_size(unsigned type)
{
	switch (type) {
	case ETL_HDR_SYSTEM32: case ETL_HDR_SYSTEM64: return ETL_SYSTEM_HDR;
	case ETL_HDR_COMPACT32: case ETL_HDR_COMPACT64: return ETL_COMPACT_HDR;
	case ETL_HDR_PERFINFO32: case ETL_HDR_PERFINFO64: return ETL_PERFINFO_HDR;
	case ETL_HDR_FULL32: case ETL_HDR_FULL64: return ETL_FULL_HDR;
	case ETL_HDR_INSTANCE32: case ETL_HDR_INSTANCE64: return ETL_INSTANCE_HDR;
	case ETL_HDR_EVENT32: case ETL_HDR_EVENT64: return ETL_EVENT_HDR;
	default: return ETL_OTHER_HDR;
	}
}

static int is_32bit_header(unsigned type)
{
	return type == ETL_HDR_SYSTEM32 || type == ETL_HDR_COMPACT32 ||
	       type == ETL_HDR_PERFINFO32 || type == ETL_HDR_FULL32 ||
	       type == ETL_HDR_INSTANCE32 || type == ETL_HDR_EVENT32;
}

/* Fills ev from the record's start (s->pos) and checks its size; 0 (the rest of the
 * buffer skipped, a problem said) when there is no record to read. *size and *hdr:
 * the record's size and its fixed header's. */
static int record_start(struct pmu_etl *r, struct etl_stream *s, struct pmu_etl_event *ev,
			size_t *size, size_t *hdr)
{
	size_t pos = s->pos, left;
	const uint8_t *p = s->data + pos;
	uint32_t marker;
	unsigned type;
	int kernel;

	if (pos + 4 > s->end || (marker = le32(p)) == ETL_MARKER_END)
		return 0;
	left = s->end - pos;
	type = p[2];
	if (!(p[3] & ETL_MARKER_TRACE_HEADER) || !type || type > ETL_HDR_MAX || !header_names[type]) {
		pmuk_etl_problem(r, left, "buffer %u at offset 0x%llx, record at +0x%zx: marker "
				 "0x%08x is not a trace header (flag 0x80, known header type "
				 "expected); skipped the %zu bytes left in the buffer",
				 s->buf_index, (unsigned long long)s->buf_off, pos, marker, left);
		s->pos = s->end;
		return 0;
	}
	memset(ev, 0, offsetof(struct pmu_etl_event, pmc));
	ev->n_ext = 0;
	ev->has_pebs = 0;
	ev->header_type = type;
	ev->cpu = s->buf_cpu;
	ev->buffer = s->buf_index;
	ev->offset = s->buf_off;
	ev->record_offset = (uint32_t)pos;
	ev->pid = ev->tid = PMU_ETL_NO_ID;
	*hdr = header_size(type);
	kernel = type <= ETL_HDR_COMPACT64 || type == ETL_HDR_PERFINFO32 ||
		 type == ETL_HDR_PERFINFO64;
	*size = kernel ? (left >= 6 ? le16(p + 4) : 0) : (marker & 0xFFFF);
	if (*size < *hdr || *size > left || left < *hdr) {
		pmuk_etl_problem(r, left, "buffer %u at offset 0x%llx, record at +0x%zx: size %zu %s "
				 "(%s header of %zu bytes, %zu bytes left); skipped them",
				 s->buf_index, (unsigned long long)s->buf_off, pos, *size,
				 *size > left ? "runs past the end of the buffer's data" :
				 "is smaller than its header", header_names[type], *hdr, left);
		s->pos = s->end;
		return 0;
	}
	ev->pointer_size = is_32bit_header(type) ? 4 : 8;
	return 1;
}

/* SYSTEM, COMPACT and PERFINFO headers: ids, time and the PEBS/PMC items the
 * version word announces (*hdr grows by them); 0 when they do not fit. */
static int kernel_header(struct pmu_etl *r, struct etl_stream *s, struct pmu_etl_event *ev,
			 size_t size, size_t *hdr)
{
	const uint8_t *p = s->data + s->pos, *x;
	uint16_t ver = le16(p);
	size_t extra = ((ver & ETL_VER_PEBS_INDEX) ? 8 : 0) +
		       8 * ((ver >> ETL_VER_PMC_SHIFT) & ETL_VER_PMC_MASK);

	kernel_fields(ev, p, ver);
	if (ev->header_type <= ETL_HDR_COMPACT64) {	/* SYSTEM and COMPACT have TID/PID */
		ev->tid = le32(p + 8);
		ev->pid = le32(p + 12);
		ev->raw_time = le64(p + 16);
	} else {
		ev->raw_time = le64(p + 8);
	}
	if (*hdr + extra > size) {
		pmuk_etl_problem(r, s->end - s->pos, "buffer %u at offset 0x%llx, record at "
				 "+0x%zx: version word 0x%04x announces %zu bytes of PEBS/PMC "
				 "items, more than the %zu-byte record holds", s->buf_index,
				 (unsigned long long)s->buf_off, s->pos, ver, extra, size);
		s->pos = s->end;
		return 0;
	}
	x = p + *hdr;
	if (ver & ETL_VER_PEBS_INDEX) {
		ev->has_pebs = 1;
		ev->pebs_index = le64(x);
		x += 8;
	}
	ev->n_pmc = (ver >> ETL_VER_PMC_SHIFT) & ETL_VER_PMC_MASK;
	for (unsigned i = 0; i < ev->n_pmc; i++)
		ev->pmc[i] = le64(x + 8 * i);
	*hdr += extra;
	return 1;
}

/* EVENT_HEADER's fields and extended data items (*hdr grows by them); 0 when the
 * items do not fit. */
static int event_header(struct pmu_etl *r, struct etl_stream *s, struct pmu_etl_event *ev,
			size_t size, size_t *hdr)
{
	const uint8_t *p = s->data + s->pos;
	size_t used;

	ev->kind = PMU_ETL_EVENT;
	ev->flags = le16(p + 4);
	ev->id = le16(p + 40);
	ev->version = p[42];
	ev->level = p[44];
	ev->opcode = p[45];
	ev->task = le16(p + 46);
	ev->keywords = le64(p + 48);
	if (ev->flags & ETL_EH_32_BIT_HEADER)
		ev->pointer_size = 4;
	else if (ev->flags & ETL_EH_64_BIT_HEADER)
		ev->pointer_size = 8;
	if (!(ev->flags & ETL_EH_EXTENDED_INFO))
		return 1;
	if (ext_items(ev, p + *hdr, size - *hdr, &used)) {
		pmuk_etl_problem(r, s->end - s->pos, "buffer %u at offset 0x%llx, record at "
				 "+0x%zx: EVENT_HEADER extended data items do not fit the "
				 "%zu-byte record", s->buf_index, (unsigned long long)s->buf_off,
				 s->pos, size);
		s->pos = s->end;
		return 0;
	}
	*hdr += used;
	return 1;
}

/* The headers of providers (FULL, INSTANCE, EVENT): ids, time, the provider GUID. */
static int provider_header(struct pmu_etl *r, struct etl_stream *s, struct pmu_etl_event *ev,
			   size_t size, size_t *hdr)
{
	const uint8_t *p = s->data + s->pos;
	unsigned type = ev->header_type;

	ev->tid = le32(p + 8);
	ev->pid = le32(p + 12);
	ev->raw_time = le64(p + 16);
	pmuk_guid_load(&ev->provider, p + 24);
	if (type == ETL_HDR_EVENT32 || type == ETL_HDR_EVENT64)
		return event_header(r, s, ev, size, hdr);
	ev->kind = type == ETL_HDR_FULL32 || type == ETL_HDR_FULL64 ? PMU_ETL_FULL :
		   PMU_ETL_INSTANCE;
	ev->opcode = p[4];
	ev->level = p[5];
	ev->version = le16(p + 6);
	return 1;
}

int pmuk_etl_parse_record(struct pmu_etl *r, struct etl_stream *s, struct pmu_etl_event *ev)
{
	const uint8_t *p = s->data + s->pos;
	size_t size, hdr;
	unsigned type;

	if (!record_start(r, s, ev, &size, &hdr))
		return 0;
	type = ev->header_type;
	if (type <= ETL_HDR_COMPACT64 || type == ETL_HDR_PERFINFO32 || type == ETL_HDR_PERFINFO64) {
		if (!kernel_header(r, s, ev, size, &hdr))
			return 0;
	} else if (type == ETL_HDR_MESSAGE) {
		ev->kind = PMU_ETL_MESSAGE;
		ev->id = le16(p + 4);
	} else if (type == ETL_HDR_ERROR) {
		ev->kind = PMU_ETL_OTHER;
	} else if (!provider_header(r, s, ev, size, &hdr)) {
		return 0;
	}
	ev->payload = p + hdr;
	ev->payload_size = size - hdr;
	ev->time_ns = pmu_etl_time_ns(r, ev->raw_time);
	s->pos += (size + 7) & ~(size_t)7;
	return 1;
}
