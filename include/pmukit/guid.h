/* SPDX-License-Identifier: MIT */
#ifndef PMUKIT_GUID_H
#define PMUKIT_GUID_H

/* The one GUID type of the API: .etl providers, ETW events and PE/PDB module
 * identities (<pmukit/etl.h>, <pmukit/symbols.h>). */

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A GUID as its four fields, as Windows declares it; files store d1, d2 and d3
 * little-endian, then the 8 bytes of d4. */
struct pmu_guid {
	uint32_t d1;
	uint16_t d2, d3;
	uint8_t d4[8];
};

/* Bytes pmu_guid_format writes, with its NUL. */
#define PMU_GUID_STRLEN 37

/* "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" (lower-case hex) into buf of size bytes;
 * 0, or PMU_ERANGE when size < PMU_GUID_STRLEN (buf then untouched); PMU_EINVAL
 * when g or buf is NULL. */
int pmu_guid_format(const struct pmu_guid *g, char *buf, size_t size);
/* Parses that form (either case, braces optional); 0 or PMU_EPARSE. */
int pmu_guid_parse(const char *s, struct pmu_guid *g);

#ifdef __cplusplus
}
#endif

#endif
