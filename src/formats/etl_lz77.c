/* SPDX-License-Identifier: MIT */
/* Plain LZ77 ("XPRESS", compression format 3) used for compressed .etl
 * buffers, written from the description in [MS-XCA]: 32-bit flag words,
 * MSB first; bit 0 = literal byte, bit 1 = u16 match (distance = (m >> 3) + 1,
 * length code m & 7 with nibble / byte / u16 / u32 extensions). */
#include "formats/etl_int.h"

size_t pmuk_etl_lz77(const uint8_t *in, size_t in_len, uint8_t *out, size_t out_len)
{
	size_t ip = 0, op = 0;
	size_t nibble_at = SIZE_MAX;	/* input byte whose high nibble is pending */
	uint32_t flags = 0;
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
		uint32_t m = le16(in + ip);
		ip += 2;
		size_t dist = (m >> 3) + 1;
		uint64_t len = m & 7;	/* 64 bits: a u32 length + 3 must not wrap */
		if (len == 7) {
			uint32_t n;
			if (nibble_at == SIZE_MAX) {
				if (ip >= in_len)
					break;
				nibble_at = ip++;
				n = in[nibble_at] & 15;
			} else {
				n = in[nibble_at] >> 4;
				nibble_at = SIZE_MAX;
			}
			len = 7 + n;
			if (n == 15) {
				if (ip >= in_len)
					break;
				uint32_t b = in[ip++];
				len = 7 + 15 + b;
				if (b == 255) {
					if (ip + 2 > in_len)
						break;
					uint32_t v = le16(in + ip);
					ip += 2;
					if (v == 0) {
						if (ip + 4 > in_len)
							break;
						v = le32(in + ip);
						ip += 4;
					}
					/* the u16/u32 form carries the full length minus 3 */
					len = v;
				}
			}
		}
		len += 3;
		if (dist > op)
			break;	/* reference before the start: corrupt */
		if (len > out_len - op)
			len = out_len - op;
		uint8_t *d = out + op;
		const uint8_t *src = d - dist;
		op += (size_t)len;
		if (dist >= 8 && out_len - op >= 8) {
			/* 8 bytes at a time, writing up to 7 bytes past the match that
			 * later output overwrites; with dist >= 8 every chunk's source
			 * is complete before it is read, overlapping or not */
			do {
				memcpy(d, src, 8);
				d += 8;
				src += 8;
			} while (d < out + op);
		} else if (dist == 1) {
			memset(d, *src, (size_t)len);
		} else {	/* overlapping: the copy repeats the last dist bytes */
			while (d < out + op)
				*d++ = *src++;
		}
	}
	return op;
}
