/* SPDX-License-Identifier: MIT */
/* Tracepoint payloads by name: placeholder until the decoder lands (issue 10). */
#include "formats/trace_int.h"
#include "core/error.h"

void pmuk_trace_tp_free(struct pmu_trace *t)
{
	(void)t;
}

int pmu_trace_tp_fields(struct pmu_trace *t, const struct pmu_record *rec, pmu_tp_field_fn fn,
			void *ctx)
{
	(void)t;
	(void)rec;
	(void)fn;
	(void)ctx;
	return pmuk_fail(PMU_ENOTSUP, "tracepoint decoding is not built yet");
}

int pmu_trace_tp_format(struct pmu_trace *t, const struct pmu_record *rec, char *buf, size_t size)
{
	(void)t;
	(void)rec;
	(void)buf;
	(void)size;
	return pmuk_fail(PMU_ENOTSUP, "tracepoint decoding is not built yet");
}
