/* A minimal protobuf reader for the tests of the pprof writer: the fields of
 * a message, varints and length-delimited bytes (all profile.proto uses).
 * Include after <cmocka.h>. */
#ifndef PMUKIT_TEST_PB_READ_H
#define PMUKIT_TEST_PB_READ_H

#include <stdint.h>

struct pbm {
	const uint8_t *p, *end;
};

static inline uint64_t pb_varint(struct pbm *m)
{
	uint64_t v = 0;

	for (int s = 0; m->p < m->end && s < 64; s += 7) {
		uint8_t b = *m->p++;
		v |= (uint64_t)(b & 0x7f) << s;
		if (!(b & 0x80))
			return v;
	}
	fail_msg("truncated varint");
	return 0;
}

/* The next field of m: its number, and its value (a varint's; sub NULL) or
 * its bytes' length and the bytes as sub. */
static inline uint32_t pb_field(struct pbm *m, uint64_t *v, struct pbm *sub)
{
	uint64_t tag = pb_varint(m);

	*v = pb_varint(m);
	sub->p = sub->end = NULL;
	if ((tag & 7) == 2) {
		assert_true(*v <= (uint64_t)(m->end - m->p));
		*sub = (struct pbm){ m->p, m->p + *v };
		m->p += *v;
	} else {
		assert_int_equal(tag & 7, 0);
	}
	return (uint32_t)(tag >> 3);
}

#endif
