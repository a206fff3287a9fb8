/* SPDX-License-Identifier: MIT */
/* Plain LZ77 ("XPRESS", compression format 3) used for compressed .etl
 * buffers, written from the description in [MS-XCA]: 32-bit flag words,
 * MSB first; bit 0 = literal byte, bit 1 = u16 match (distance = (m >> 3) + 1,
 * length code m & 7 with nibble / byte / u16 / u32 extensions). */
#include "formats/etl_int.h"

/* The length of the match whose u16 is m: 3 + its length code and the code's
 * nibble / byte / u16 / u32 extensions, which *ip and *nibble_at step over. 0
 * when the input ends inside them. */
static inline uint64_t match_length(const uint8_t *in, size_t in_len, size_t *ip,
				    size_t *nibble_at, uint32_t m)
{
	uint64_t len = m & 7;	/* 64 bits: a u32 length + 3 must not wrap */
	uint32_t n, b, v;

	if (len < 7)
		return len + 3;
	if (*nibble_at == SIZE_MAX) {
		if (*ip >= in_len)
			return 0;
		*nibble_at = (*ip)++;
		n = in[*nibble_at] & 15;
	} else {
		n = in[*nibble_at] >> 4;
		*nibble_at = SIZE_MAX;
	}
	if (n < 15)
		return 7 + n + 3;
	if (*ip >= in_len)
		return 0;
	b = in[(*ip)++];
	if (b < 255)
		return 7 + 15 + b + 3;
	if (*ip + 2 > in_len)
		return 0;
	v = le16(in + *ip);
	*ip += 2;
	if (v == 0) {
		if (*ip + 4 > in_len)
			return 0;
		v = le32(in + *ip);
		*ip += 4;
	}
	return (uint64_t)v + 3;	/* the u16/u32 form carries the full length minus 3 */
}

/* Copies the match: len bytes from dist back (dist <= op) to out + op. */
static inline void copy_match(uint8_t *out, size_t op, size_t len, size_t out_len, size_t dist)
{
	uint8_t *d = out + op, *end = d + len;
	const uint8_t *src = d - dist;

	if (dist >= 8 && out_len - (op + len) >= 8) {
		/* 8 bytes at a time, writing up to 7 bytes past the match that
		 * later output overwrites; with dist >= 8 every chunk's source
		 * is complete before it is read, overlapping or not */
		do {
			memcpy(d, src, 8);
			d += 8;
			src += 8;
		} while (d < end);
	} else if (dist == 1) {
		memset(d, *src, len);
	} else {	/* overlapping: the copy repeats the last dist bytes */
		while (d < end)
			*d++ = *src++;
	}
}

size_t pmuk_etl_lz77(const uint8_t *in, size_t in_len, uint8_t *out, size_t out_len)
{
	size_t ip = 0, op = 0, dist;
	size_t nibble_at = SIZE_MAX;	/* input byte whose high nibble is pending */
	uint32_t flags = 0, m;
	uint64_t len;
	int nflags = 0;

	while (op < out_len) {
		if (nflags == 0) {
			if (ip + 4 > in_len)
				break;
			flags = le32(in + ip);
			ip += 4;
			nflags = 32;
		}
		nflags--;
		if (!(flags & (1u << nflags))) {
			if (ip >= in_len)
				break;
			out[op++] = in[ip++];
			continue;
		}
		if (ip + 2 > in_len)
			break;
		m = le16(in + ip);
		ip += 2;
		dist = (m >> 3) + 1;
		if (!(len = match_length(in, in_len, &ip, &nibble_at, m)))
			break;
		if (dist > op)
			break;	/* reference before the start: corrupt */
		if (len > out_len - op)
			len = out_len - op;
		copy_match(out, op, (size_t)len, out_len, dist);
		op += (size_t)len;
	}
	return op;
}
