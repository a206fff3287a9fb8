/* SPDX-License-Identifier: MIT */
/* TraceLogging self-describing events: the event schema travels in an
 * EVENT_HEADER extended item (type 11) as a u16 size, tag bytes, the event
 * name and per field {name, in-type [, out-type [, tags]] [, count]}; the
 * provider name in item type 12 (provider traits). */
#include "formats/etl_int.h"
#include "core/error.h"
#include "core/utf8.h"

#include <inttypes.h>

#define EXT_SCHEMA_TL 11
#define EXT_PROV_TRAITS 12

enum {
	IN_UNICODESTRING = 1, IN_ANSISTRING, IN_INT8, IN_UINT8, IN_INT16, IN_UINT16,
	IN_INT32, IN_UINT32, IN_INT64, IN_UINT64, IN_FLOAT, IN_DOUBLE, IN_BOOL32,
	IN_BINARY, IN_GUID, IN_POINTER, IN_FILETIME, IN_SYSTEMTIME, IN_SID,
	IN_HEXINT32, IN_HEXINT64, IN_COUNTEDSTRING, IN_COUNTEDANSISTRING, IN_STRUCT,
	IN_COUNTEDBINARY,
};
#define IN_TYPE_MASK 0x1F
#define IN_CCOUNT 0x20
#define IN_VCOUNT 0x40
#define IN_CUSTOM 0x60
#define CHAIN 0x80
enum { OUT_STRING = 2, OUT_BOOLEAN = 3, OUT_HEX = 4 };	/* TlgOut display types */

static const char *const type_names[32] = {
	"null", "unicodestring", "ansistring", "int8", "uint8", "int16", "uint16",
	"int32", "uint32", "int64", "uint64", "float", "double", "bool32", "binary",
	"guid", "pointer", "filetime", "systemtime", "sid", "hexint32", "hexint64",
	"countedstring", "countedansistring", "struct", "countedbinary",
};

static size_t cstr(const uint8_t *p, size_t n, char *out, size_t outsz)
{
	size_t i = 0;

	while (i < n && p[i])
		i++;
	if (i == n)
		return 0;
	size_t k = i < outsz - 1 ? i : pmuk_utf8_whole((const char *)p, outsz - 1);
	memcpy(out, p, k);
	out[k] = '\0';
	return i + 1;
}

static void append(char *out, size_t outsz, const char *s)
{
	size_t o = strlen(out), n = strlen(s);

	if (o + n >= outsz)
		n = o + 1 < outsz ? pmuk_utf8_whole(s, outsz - o - 1) : 0;
	memcpy(out + o, s, n);
	out[o + n] = '\0';
}

/* An integer of in-type t that the out-type shows as a boolean, a character
 * (TraceLoggingBoolean, TraceLoggingChar/WChar) or hex: its size, or 0 when
 * the plain rendering applies. */
static size_t display(unsigned t, unsigned out, const uint8_t *p, size_t n, char *v, size_t vsz)
{
	size_t size = t == IN_INT8 || t == IN_UINT8 ? 1 : t == IN_INT16 || t == IN_UINT16 ? 2 :
		      t == IN_INT32 || t == IN_UINT32 ? 4 : t == IN_INT64 || t == IN_UINT64 ? 8 : 0;
	uint64_t x;

	if (!size || n < size || (out != OUT_STRING && out != OUT_BOOLEAN && out != OUT_HEX))
		return 0;
	x = size == 1 ? p[0] : size == 2 ? le16(p) : size == 4 ? le32(p) : le64(p);
	if (out == OUT_BOOLEAN) {
		snprintf(v, vsz, "%s", x ? "true" : "false");
	} else if (out == OUT_HEX) {
		snprintf(v, vsz, "0x%" PRIx64, x);
	} else if (size == 1) {	/* an ANSI character: Latin-1 as the strings */
		uint8_t c[2] = { p[0], 0 };
		pmuk_etl_ansi(c, 2, v, vsz);
	} else if (size == 2) {	/* a UTF-16 code unit */
		uint8_t c[4] = { p[0], p[1], 0, 0 };
		pmuk_utf16_to_utf8(c, 4, v, vsz);
	} else {
		return 0;
	}
	return size;
}

/* Integers, floats, BOOL32 and FILETIME of in-type t: its size, or 0 when n is short. */
static size_t number(unsigned t, const uint8_t *p, size_t n, char *v, size_t vsz)
{
	switch (t) {
	case IN_INT8: case IN_UINT8:
		if (n < 1)
			return 0;
		snprintf(v, vsz, "%d", t == IN_INT8 ? (int)(int8_t)p[0] : (int)p[0]);
		return 1;
	case IN_INT16: case IN_UINT16:
		if (n < 2)
			return 0;
		snprintf(v, vsz, "%d", t == IN_INT16 ? (int)(int16_t)le16(p) : (int)le16(p));
		return 2;
	case IN_INT32: case IN_UINT32: case IN_HEXINT32: case IN_BOOL32: case IN_FLOAT:
		if (n < 4)
			return 0;
		if (t == IN_INT32)
			snprintf(v, vsz, "%" PRId32, (int32_t)le32(p));
		else if (t == IN_UINT32)
			snprintf(v, vsz, "%" PRIu32, le32(p));
		else if (t == IN_HEXINT32)
			snprintf(v, vsz, "0x%" PRIx32, le32(p));
		else if (t == IN_BOOL32)
			snprintf(v, vsz, "%s", le32(p) ? "true" : "false");
		else {
			union { uint32_t u; float f; } c = { .u = le32(p) };
			snprintf(v, vsz, "%g", (double)c.f);
		}
		return 4;
	default:	/* INT64, UINT64, HEXINT64, DOUBLE, FILETIME */
		if (n < 8)
			return 0;
		if (t == IN_INT64)
			snprintf(v, vsz, "%" PRId64, (int64_t)le64(p));
		else if (t == IN_HEXINT64)
			snprintf(v, vsz, "0x%" PRIx64, le64(p));
		else if (t == IN_DOUBLE) {
			union { uint64_t u; double d; } c = { .u = le64(p) };
			snprintf(v, vsz, "%g", c.d);
		} else
			snprintf(v, vsz, "%" PRIu64, le64(p));
		return 8;
	}
}

/* A SID as S-revision-authority-subauthorities: its size, or 0 when n is short. */
static size_t sid(const uint8_t *p, size_t n, char *v, size_t vsz)
{
	uint64_t auth = 0;
	size_t size;

	if (n < 8 || n < (size = 8 + 4 * (size_t)p[1]))
		return 0;
	for (int i = 2; i < 8; i++)
		auth = auth << 8 | p[i];
	snprintf(v, vsz, "S-%u-%" PRIu64, p[0], auth);
	for (unsigned i = 0; i < p[1]; i++) {
		char s[16];
		snprintf(s, sizeof(s), "-%" PRIu32, le32(p + 8 + 4 * i));
		append(v, vsz, s);
	}
	return size;
}

/* BINARY and the COUNTED types: a u16 length, then strings or bytes (shown in hex). */
static size_t counted(unsigned t, const uint8_t *p, size_t n, char *v, size_t vsz)
{
	size_t size;

	if (n < 2 || n - 2 < le16(p))
		return 0;
	size = 2 + (size_t)le16(p);
	if (t == IN_COUNTEDSTRING) {
		pmuk_utf16_to_utf8(p + 2, size - 2, v, vsz);
	} else if (t == IN_COUNTEDANSISTRING) {
		pmuk_etl_ansi(p + 2, size - 2, v, vsz);
	} else {
		for (size_t i = 2; i < size && 2 * (i - 2) + 3 < vsz; i++)
			snprintf(v + 2 * (i - 2), 3, "%02x", p[i]);
	}
	return size;
}

/* Renders one element of in-type t, out-type o at p (n bytes left); returns
 * its size or 0. */
static size_t element(unsigned t, unsigned o, const uint8_t *p, size_t n, unsigned psz,
		      char *out, size_t outsz)
{
	char v[160];
	size_t size = display(t, o, p, n, v, sizeof(v));

	if (size) {
		append(out, outsz, v);
		return size;
	}
	v[0] = '\0';
	switch (t) {
	case IN_UNICODESTRING:
		size = pmuk_utf16_to_utf8(p, n, v, sizeof(v));
		break;
	case IN_ANSISTRING:
		size = pmuk_etl_ansi(p, n, v, sizeof(v));
		break;
	case IN_INT8: case IN_UINT8: case IN_INT16: case IN_UINT16:
	case IN_INT32: case IN_UINT32: case IN_HEXINT32: case IN_BOOL32: case IN_FLOAT:
	case IN_INT64: case IN_UINT64: case IN_HEXINT64: case IN_DOUBLE: case IN_FILETIME:
		size = number(t, p, n, v, sizeof(v));
		break;
	case IN_POINTER:
		if (n >= psz && (size = psz))
			snprintf(v, sizeof(v), "0x%" PRIx64, leptr(p, psz));
		break;
	case IN_GUID:
		if (n >= 16 && (size = 16)) {
			struct pmu_guid g;
			pmuk_guid_load(&g, p);
			pmu_guid_format(&g, v, sizeof(v));
		}
		break;
	case IN_SYSTEMTIME:	/* year, month, weekday, day, hour, min, sec, ms */
		if (n >= 16 && (size = 16))
			snprintf(v, sizeof(v), "%04u-%02u-%02u %02u:%02u:%02u.%03u", le16(p),
				 le16(p + 2), le16(p + 6), le16(p + 8), le16(p + 10), le16(p + 12),
				 le16(p + 14));
		break;
	case IN_SID:
		size = sid(p, n, v, sizeof(v));
		break;
	case IN_BINARY: case IN_COUNTEDSTRING: case IN_COUNTEDANSISTRING: case IN_COUNTEDBINARY:
		size = counted(t, p, n, v, sizeof(v));
		break;
	default:
		break;
	}
	if (size)
		append(out, outsz, v);
	return size;
}

/* The schema item (type 11) and the provider's name from its traits (type 12). */
static const uint8_t *find_schema(const struct pmu_etl_event *ev, size_t *mn,
				  struct pmu_etl_tl_event *o)
{
	const uint8_t *m = NULL;

	for (unsigned k = 0; k < ev->n_ext; k++) {
		if (ev->ext[k].type == EXT_SCHEMA_TL) {
			m = ev->ext[k].data;
			*mn = ev->ext[k].size;
		} else if (ev->ext[k].type == EXT_PROV_TRAITS && ev->ext[k].size > 2) {
			cstr(ev->ext[k].data + 2, ev->ext[k].size - 2, o->provider_name,
			     sizeof(o->provider_name));
		}
	}
	return m;
}

/* One field's schema at m + *i: name, in-type, out-type and tags, a constant count
 * or custom-serialisation bytes (after which *pay is NULL: no values can be
 * decoded). *in: the in-type byte; *count: the constant count, else 1. 0, or -1
 * when the schema is cut short. */
static int field_schema(const uint8_t *m, size_t mn, size_t *i, struct pmu_etl_tl_field *f,
			unsigned *in, unsigned *count, const uint8_t **pay)
{
	size_t used;
	unsigned out = 0, t;

	if (!(used = cstr(m + *i, mn - *i, f->name, sizeof(f->name))) || *i + used >= mn)
		return -1;
	*i += used;
	*in = m[(*i)++];
	*count = 1;
	if (*in & CHAIN) {
		if (*i >= mn)
			return -1;
		out = m[(*i)++];
		if (out & CHAIN) {	/* field tags */
			while (*i < mn && (m[*i] & CHAIN))
				(*i)++;
			(*i)++;
		}
	}
	t = *in & IN_TYPE_MASK;
	f->in_type = t;
	f->out_type = out & 0x7F;
	f->type_name = type_names[t] ? type_names[t] : "unknown";
	if ((*in & 0x60) == IN_CCOUNT) {
		if (*i + 2 > mn)
			return -1;
		*count = le16(m + *i);
		*i += 2;
	} else if ((*in & 0x60) == IN_CUSTOM) {
		if (*i + 2 > mn || *i + 2 + le16(m + *i) > mn)
			return -1;
		*i += 2 + le16(m + *i);
		*pay = NULL;	/* custom serialisation: values not decodable */
	}
	return 0;
}

/* Field f's values from the payload at *pay (*pn bytes left), comma-separated; a
 * variable count comes first. *pay becomes NULL once a value cannot be sized. */
static void field_values(struct pmu_etl_tl_field *f, unsigned in, unsigned count, unsigned psz,
			 const uint8_t **pay, size_t *pn)
{
	if ((in & 0x60) == IN_VCOUNT) {
		if (*pn < 2) {
			*pay = NULL;
			return;
		}
		count = le16(*pay);
		*pay += 2;
		*pn -= 2;
	}
	f->count = count;
	for (unsigned e = 0; e < count; e++) {
		if (e)
			append(f->value, sizeof(f->value), ",");
		size_t s = element(f->in_type, f->out_type, *pay, *pn, psz, f->value,
				   sizeof(f->value));
		if (!s) {
			*pay = NULL;	/* cannot size this one: stop decoding values */
			return;
		}
		*pay += s;
		*pn -= s;
	}
}

int pmu_etl_decode_tracelogging(const struct pmu_etl_event *ev, struct pmu_etl_tl_event *o)
{
	const uint8_t *m, *pay = ev->payload;
	size_t mn = 0, pn = ev->payload_size, i, used;
	unsigned struct_left = 0, in, count;

	memset(o, 0, sizeof(*o));
	if (!(m = find_schema(ev, &mn, o)))
		return pmuk_fail(PMU_EINVAL, "the event carries no TraceLogging schema");
	if (mn < 3)
		goto corrupt;
	if (le16(m) < mn)
		mn = le16(m);
	for (i = 2; i < mn && (m[i] & CHAIN); i++)
		;
	i++;	/* last tag byte */
	if (i >= mn || !(used = cstr(m + i, mn - i, o->event_name, sizeof(o->event_name))))
		goto corrupt;
	i += used;
	while (i < mn) {
		struct pmu_etl_tl_field dummy, *f = o->n_fields < 32 ? &o->fields[o->n_fields] : &dummy;

		memset(f, 0, sizeof(*f));
		if (field_schema(m, mn, &i, f, &in, &count, &pay))
			goto corrupt;
		if (o->n_fields < 32)
			o->n_fields++;
		if (f->in_type == IN_STRUCT) {
			f->count = f->out_type;	/* member count */
			struct_left = f->out_type;
			continue;
		}
		if (struct_left)
			struct_left--;
		if (pay)
			field_values(f, in, count, ev->pointer_size, &pay, &pn);
	}
	return 0;
corrupt:
	return pmuk_fail(PMU_EFORMAT, "TraceLogging schema of event %u is truncated or malformed", ev->id);
}
