/* SPDX-License-Identifier: MIT */
/* CLR (.NET) method and module events of the runtime and rundown providers:
 * what names JIT-compiled and ready-to-run code. Layouts from the CLR's ETW
 * manifest (ClrEtwAll.man): fixed fields, then NUL-terminated UTF-16 strings,
 * then the fields later versions appended. */
#include "core/error.h"
#include "core/guid.h"
#include "core/utf8.h"
#include "formats/etl_int.h"

static const struct pmu_guid clr_runtime = { 0xe13c0d23, 0xccbc, 0x4e12,
	{ 0x93, 0x1b, 0xd9, 0xcc, 0x2e, 0xee, 0x27, 0xe4 } };
static const struct pmu_guid clr_rundown = { 0xa669021c, 0xc450, 0x4609,
	{ 0xa0, 0x35, 0x5a, 0xf5, 0x9a, 0xf4, 0xdf, 0x18 } };

/* 1 runtime, 2 rundown, 0 neither (or no manifest event). */
int pmuk_etl_clr_provider(const struct pmu_etl_event *ev)
{
	if (ev->kind != PMU_ETL_EVENT)
		return 0;
	if (!memcmp(&ev->provider, &clr_runtime, sizeof(clr_runtime)))
		return 1;
	return memcmp(&ev->provider, &clr_rundown, sizeof(clr_rundown)) ? 0 : 2;
}

static int short_payload(const struct pmu_etl_event *ev, const char *what, size_t at)
{
	return pmuk_fail(PMU_EFORMAT, "CLR %s event (id %u, version %u): its %zu-byte payload "
			 "ends before byte %zu (a string without its NUL or a field cut off)",
			 what, ev->id, ev->version, ev->payload_size, at);
}

/* The UTF-16 string at *at into out; 0, or -1 when it has no NUL. */
static int str16(const struct pmu_etl_event *ev, size_t *at, char *out, size_t size)
{
	size_t used = *at < ev->payload_size ?
		pmuk_utf16_to_utf8(ev->payload + *at, ev->payload_size - *at, out, size) : 0;

	if (!used)
		return -1;
	*at += used;
	return 0;
}

int pmu_etl_decode_clr_method(const struct pmu_etl_event *ev, struct pmu_etl_clr_method_ev *o)
{
	const uint8_t *p = ev->payload;
	int prov = pmuk_etl_clr_provider(ev);
	size_t at = 36;

	if (!prov || (ev->id != 143 && ev->id != 144))
		return pmuk_fail(PMU_EINVAL, "the event is no CLR MethodLoad/UnloadVerbose or "
				 "MethodDCStart/DCEndVerbose event");
	memset(o, 0, sizeof(*o));
	o->id = ev->id;
	o->rundown = prov == 2;
	o->unload = prov == 1 && ev->id == 144;
	if (ev->payload_size < at)
		return short_payload(ev, "method", at);
	o->method_id = le64(p);
	o->module_id = le64(p + 8);
	o->start = le64(p + 16);
	o->size = le32(p + 24);
	o->token = le32(p + 28);
	o->flags = le32(p + 32);
	if (str16(ev, &at, o->ns, sizeof(o->ns)) || str16(ev, &at, o->name, sizeof(o->name)) ||
	    str16(ev, &at, o->signature, sizeof(o->signature)))
		return short_payload(ev, "method", at + 2);
	if (ev->version >= 1) {
		if (ev->payload_size < at + 2)
			return short_payload(ev, "method", at + 2);
		o->clr_instance = le16(p + at);
		at += 2;
	}
	if (ev->version >= 2) {
		if (ev->payload_size < at + 8)
			return short_payload(ev, "method", at + 8);
		o->rejit_id = le64(p + at);
	}
	return 0;
}

/* Version 2's PDB identities: GUID, Age, build path, for the IL then the native image. */
static int module_pdbs(const struct pmu_etl_event *ev, size_t at, struct pmu_etl_clr_module_ev *o)
{
	const uint8_t *p = ev->payload;

	for (int native = 0; native < 2; native++) {
		if (ev->payload_size < at + 20)
			return short_payload(ev, "module", at + 20);
		pmuk_guid_load(native ? &o->native_pdb_guid : &o->managed_pdb_guid, p + at);
		*(native ? &o->native_pdb_age : &o->managed_pdb_age) = le32(p + at + 16);
		at += 20;
		if (str16(ev, &at, native ? o->native_pdb : o->managed_pdb, sizeof(o->native_pdb)))
			return short_payload(ev, "module", at + 2);
	}
	o->has_pdb = 1;
	return 0;
}

int pmu_etl_decode_clr_module(const struct pmu_etl_event *ev, struct pmu_etl_clr_module_ev *o)
{
	int prov = pmuk_etl_clr_provider(ev);
	size_t at = 24;

	if (!prov || (prov == 1 && ev->id != 152 && ev->id != 153) ||
	    (prov == 2 && ev->id != 153 && ev->id != 154))
		return pmuk_fail(PMU_EINVAL, "the event is no CLR ModuleLoad/Unload or "
				 "ModuleDCStart/DCEnd event");
	memset(o, 0, sizeof(*o));
	o->id = ev->id;
	o->rundown = prov == 2;
	if (ev->payload_size < at)
		return short_payload(ev, "module", at);
	o->module_id = le64(ev->payload);
	o->assembly_id = le64(ev->payload + 8);
	o->flags = le32(ev->payload + 16);
	if (str16(ev, &at, o->il_path, sizeof(o->il_path)) ||
	    str16(ev, &at, o->native_path, sizeof(o->native_path)))
		return short_payload(ev, "module", at + 2);
	if (ev->version >= 1) {
		if (ev->payload_size < at + 2)
			return short_payload(ev, "module", at + 2);
		o->clr_instance = le16(ev->payload + at);
		at += 2;
	}
	return ev->version >= 2 ? module_pdbs(ev, at, o) : 0;
}
