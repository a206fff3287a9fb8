/* SPDX-License-Identifier: MIT */
#ifndef PMUK_LINUX_SAMPLE_DECODE_H
#define PMUK_LINUX_SAMPLE_DECODE_H

/* The live sampler's view of the record decoder (formats/perf_decode.h), plus
 * the step from a kernel perf_event_attr to its format. */

#include <linux/perf_event.h>
#include <string.h>

#include "formats/perf_decode.h"

static inline void pmuk_sample_fmt_of(const struct perf_event_attr *a, struct pmuk_sample_fmt *f)
{
	memset(f, 0, sizeof(*f));
	f->sample_type = a->sample_type;
	f->read_format = a->read_format;
	f->branch_sample_type = a->branch_sample_type;
	f->regs_user = a->sample_regs_user;
	f->regs_intr = a->sample_regs_intr;
	f->sample_id_all = a->sample_id_all;
}

#endif
