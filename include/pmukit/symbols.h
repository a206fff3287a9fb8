/* SPDX-License-Identifier: MIT */
#ifndef PMUKIT_SYMBOLS_H
#define PMUKIT_SYMBOLS_H

/* Concern 4: code-space decode. Module identity: on Windows the build-id analog is
 * the PDB GUID + Age of the CodeView RSDS record in a PE image's debug directory;
 * a symbol server stores the PDB under <pdb name>/<GUID><Age>/<pdb name>. */

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct pmu_module_id {
	uint8_t guid[16];      /* as stored: Data1 (LE u32), Data2 (LE u16), Data3 (LE u16), Data4[8] */
	uint32_t age;
	char pdb[260];         /* PDB path as the linker wrote it (UTF-8), truncated to fit */
};

/* Reads the RSDS record of a PE/COFF image (PE32 or PE32+) laid out as a file.
 * PMU_ENOENT when the image has no CodeView RSDS entry, PMU_EFORMAT when it is
 * corrupt or not a PE image (the detail says what and where). */
int pmu_module_id_from_pe(const void *image, size_t len, struct pmu_module_id *out);
int pmu_module_id_from_pe_file(const char *path, struct pmu_module_id *out);

/* "1B4E28BA-2FA1-11D2-883F-0016D3CCA427" (Windows' mixed-endian GUID spelling);
 * size >= 37. PMU_ERANGE when buf is too small. */
int pmu_module_id_guid_string(const struct pmu_module_id *id, char *buf, size_t size);
/* The symbol-server key: the GUID's 32 hex digits without dashes, then Age in hex
 * ("1B4E28BA2FA111D2883F0016D3CCA4271"); size >= 41. */
int pmu_module_id_symstore_key(const struct pmu_module_id *id, char *buf, size_t size);

#ifdef __cplusplus
}
#endif
#endif
