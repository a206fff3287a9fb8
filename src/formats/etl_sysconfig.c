/* SPDX-License-Identifier: MIT */
/* KernelTraceControl's SysConfigEx paths: how the kernel's NT paths of images
 * ("\Device\HarddiskVolume2\...", "\SystemRoot\...") read as drive letters.
 * Layout as the files show it: two NUL-terminated UTF-16 strings. */
#include "core/error.h"
#include "core/utf8.h"
#include "formats/etl_int.h"

static const struct pmu_guid sysconfig_ex = { 0x9b79ee91, 0xb5fd, 0x41c0,
	{ 0xa2, 0x43, 0x42, 0x48, 0xe2, 0x66, 0xe9, 0xd0 } };

int pmu_etl_decode_sysconfig_paths(const struct pmu_etl_event *ev,
				   struct pmu_etl_sysconfig_paths_ev *o)
{
	size_t a, b;

	if (memcmp(&ev->provider, &sysconfig_ex, sizeof(sysconfig_ex)) ||
	    (ev->opcode != 33 && ev->opcode != 35) || ev->kind == PMU_ETL_EVENT)
		return pmuk_fail(PMU_EINVAL, "the event is no SysConfigEx VolumeMapping or "
				 "SystemPaths event");
	memset(o, 0, sizeof(*o));
	o->opcode = ev->opcode;
	a = pmuk_utf16_to_utf8(ev->payload, ev->payload_size, o->first, sizeof(o->first));
	b = a ? pmuk_utf16_to_utf8(ev->payload + a, ev->payload_size - a, o->second,
				   sizeof(o->second)) : 0;
	if (!b)
		return pmuk_fail(PMU_EFORMAT, "SysConfigEx %s event: its %zu-byte payload does not "
				 "hold two NUL-terminated UTF-16 paths",
				 ev->opcode == 35 ? "VolumeMapping" : "SystemPaths",
				 ev->payload_size);
	return 0;
}
