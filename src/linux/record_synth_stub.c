/* SPDX-License-Identifier: MIT */
/* Stand-ins for linux/synth.h, buildid.h and tracing_data.h until their bodies
 * (branch i10-synth) are merged; this file goes away then. */
#include "linux/buildid.h"
#include "linux/synth.h"
#include "linux/tracing_data.h"
#include "core/error.h"

int pmuk_synth_process(int32_t pid, pmuk_synth_fn fn, void *ctx)
{
	(void)pid, (void)fn, (void)ctx;
	return PMU_ENOTSUP;
}

int pmuk_synth_all(pmuk_synth_fn fn, void *ctx)
{
	(void)fn, (void)ctx;
	return PMU_ENOTSUP;
}

int pmuk_synth_kernel(pmuk_synth_fn fn, void *ctx)
{
	(void)fn, (void)ctx;
	return PMU_ENOTSUP;
}

int pmuk_build_id_of_file(const char *path, uint8_t id[20], size_t *len)
{
	(void)path, (void)id, (void)len;
	return PMU_ENOTSUP;
}

int pmuk_build_id_kernel(uint8_t id[20], size_t *len)
{
	(void)id, (void)len;
	return PMU_ENOTSUP;
}

int pmuk_build_id_module(const char *name, uint8_t id[20], size_t *len)
{
	(void)name, (void)id, (void)len;
	return PMU_ENOTSUP;
}

int pmuk_tracing_data(const char *const *tracepoints, size_t n, void **blob, size_t *size)
{
	(void)tracepoints, (void)n, (void)blob, (void)size;
	return pmuk_fail(PMU_ENOTSUP, "tracepoint formats are not stored yet");
}
