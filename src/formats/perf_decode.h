/* SPDX-License-Identifier: MIT */
#ifndef PMUK_FORMATS_PERF_DECODE_H
#define PMUK_FORMATS_PERF_DECODE_H

/* perf_event records (PERF_RECORD_*) into the portable struct pmu_record: the
 * live sampler's rings and perf.data files share this decoder, so it uses the
 * facts of perf_file.h rather than <linux/perf_event.h> and builds on every OS. */

#include <stddef.h>
#include <stdint.h>

#include <pmukit/sampling.h>

/* What decoding needs from the perf_event_attr the records came from. */
struct pmuk_sample_fmt {
	uint64_t sample_type;
	uint64_t read_format;
	uint64_t branch_sample_type;
	uint64_t regs_user;     /* sample_regs_user mask */
	uint64_t regs_intr;     /* sample_regs_intr mask */
	int sample_id_all;
};

/* Decodes one record: rec starts with its perf_event_header, is 8-byte aligned,
 * size bytes long and writable (call chains are compacted in place; pointers in
 * out point into rec). Returns 0 when out holds a record of the model, 1 for a
 * kind outside the model (out untouched beyond its header fields), PMU_EFORMAT
 * when the record is shorter than its kind and the format say, or a sample is
 * not exactly as long as its sample_type says (the kernel sizes samples exactly). */
int pmuk_decode_record(const struct pmuk_sample_fmt *f, void *rec, size_t size,
		       struct pmu_record *out);

/* The same, also filling ext (raw payload, user registers and stack,
 * transaction, page sizes: PMU_HAS_RAW/_REGS_USER/_STACK_USER) and pointing
 * out->sample.ext at it. ext NULL: as pmuk_decode_record. */
int pmuk_decode_record_ext(const struct pmuk_sample_fmt *f, void *rec, size_t size,
			   struct pmu_record *out, struct pmu_sample_ext *ext);

#endif
