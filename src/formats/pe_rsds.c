/* SPDX-License-Identifier: MIT */
/* PE/COFF CodeView RSDS module identity (the build-id of Windows binaries).
 *
 * Layout facts (PE/COFF specification; little-endian; offsets in bytes):
 *   IMAGE_DOS_HEADER: "MZ" @0, e_lfanew (u32) @0x3c -> the NT headers.
 *   NT headers: "PE\0\0" @0, IMAGE_FILE_HEADER @4 (20 bytes: NumberOfSections u16 @2,
 *     SizeOfOptionalHeader u16 @16), optional header @24.
 *   Optional header: Magic u16 @0 (0x10b PE32, 0x20b PE32+), SizeOfHeaders u32 @60,
 *     NumberOfRvaAndSizes u32 @92 (PE32) / @108 (PE32+), then the data directories
 *     {u32 VirtualAddress; u32 Size} @96 / @112; IMAGE_DIRECTORY_ENTRY_DEBUG is 6.
 *   Section headers (40 bytes each) follow the optional header: VirtualSize u32 @8,
 *     VirtualAddress u32 @12, SizeOfRawData u32 @16, PointerToRawData u32 @20.
 *   IMAGE_DEBUG_DIRECTORY (28 bytes): Type u32 @12 (2 = CODEVIEW), SizeOfData u32 @16,
 *     AddressOfRawData u32 @20 (RVA), PointerToRawData u32 @24 (file offset).
 *   CodeView RSDS: "RSDS" @0, GUID (16 bytes) @4, Age u32 @20, PDB path (UTF-8, NUL) @24. */
#include "formats/pe_rsds.h"
#include "core/error.h"
#include "core/file.h"
#include "core/guid.h"
#include "core/le.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#define DEBUG_DIR_ENTRY 6
#define DEBUG_DIR_SIZE 28
#define SECTION_SIZE 40
#define CODEVIEW 2
#define RSDS_HEAD 24
#define MAX_SECTIONS 96   /* the PE loader's limit */
#define MAX_DEBUG_ENTRIES 64

/* The image, in memory or behind a FILE. */
struct src {
	const uint8_t *buf;
	FILE *f;
	uint64_t len;
	const char *what;  /* for messages: "the image", a path */
};

static int rd(struct src *s, uint64_t off, void *dst, size_t n, const char *field)
{
	if (off > s->len || n > s->len - off)
		return pmuk_fail(PMU_EFORMAT, "%s: the %s at byte %llu (%zu bytes) lies past "
				 "the end of the %llu-byte image", s->what, field,
				 (unsigned long long)off, n, (unsigned long long)s->len);
	if (s->buf) {
		memcpy(dst, s->buf + off, n);
		return 0;
	}
	if (off > 0x7fffffffull || fseek(s->f, (long)off, SEEK_SET) || fread(dst, 1, n, s->f) != n)
		return pmuk_fail(PMU_EIO, "%s: reading the %s at byte %llu failed", s->what,
				 field, (unsigned long long)off);
	return 0;
}

struct pe {
	uint64_t sections;     /* file offset of the section table */
	unsigned nsections;
	uint32_t size_of_headers;
	uint32_t debug_rva, debug_size;
};

static int read_headers(struct src *s, struct pe *pe)
{
	uint8_t dos[64], nt[24], opt[112 + 8 * (DEBUG_DIR_ENTRY + 1)];
	uint32_t lfanew, ndirs;
	uint16_t magic, optsize;
	size_t dirs_at;
	int err;

	if ((err = rd(s, 0, dos, sizeof(dos), "DOS header")))
		return err;
	if (dos[0] != 'M' || dos[1] != 'Z')
		return pmuk_fail(PMU_EFORMAT, "%s is not a PE image (no MZ signature)", s->what);
	lfanew = pmuk_le32(dos + 0x3c);
	if ((err = rd(s, lfanew, nt, sizeof(nt), "PE header (e_lfanew)")))
		return err;
	if (memcmp(nt, "PE\0\0", 4))
		return pmuk_fail(PMU_EFORMAT, "%s: e_lfanew (%u) does not point at a PE "
				 "signature", s->what, lfanew);
	pe->nsections = pmuk_le16(nt + 4 + 2);
	optsize = pmuk_le16(nt + 4 + 16);
	if (pe->nsections > MAX_SECTIONS)
		return pmuk_fail(PMU_EFORMAT, "%s: %u sections, more than a PE image may have",
				 s->what, pe->nsections);
	if (optsize < 2 || (err = rd(s, (uint64_t)lfanew + 24, opt, 2, "optional header")))
		return err ? err : pmuk_fail(PMU_EFORMAT, "%s has no optional header", s->what);
	magic = pmuk_le16(opt);
	if (magic != 0x10b && magic != 0x20b)
		return pmuk_fail(PMU_EFORMAT, "%s: optional header magic 0x%x is neither PE32 "
				 "(0x10b) nor PE32+ (0x20b)", s->what, magic);
	dirs_at = magic == 0x10b ? 96 : 112;
	pe->sections = (uint64_t)lfanew + 24 + optsize;
	pe->debug_rva = pe->debug_size = 0;
	if (optsize < dirs_at)
		return pmuk_fail(PMU_EFORMAT, "%s: the optional header (%u bytes) is too short "
				 "for its data directories", s->what, optsize);
	if ((err = rd(s, (uint64_t)lfanew + 24, opt, dirs_at, "optional header")))
		return err;
	pe->size_of_headers = pmuk_le32(opt + 60);
	ndirs = pmuk_le32(opt + dirs_at - 4);
	if (ndirs <= DEBUG_DIR_ENTRY || optsize < dirs_at + 8 * (DEBUG_DIR_ENTRY + 1))
		return 0;  /* no debug directory slot */
	if ((err = rd(s, (uint64_t)lfanew + 24 + dirs_at + 8 * DEBUG_DIR_ENTRY, opt, 8,
		      "debug data directory")))
		return err;
	pe->debug_rva = pmuk_le32(opt);
	pe->debug_size = pmuk_le32(opt + 4);
	return 0;
}

/* File offset of n bytes at rva, through the section table. */
static int rva_to_off(struct src *s, const struct pe *pe, uint32_t rva, uint32_t n,
		      uint64_t *off, const char *field)
{
	uint8_t sh[SECTION_SIZE];
	int err;

	if (rva < pe->size_of_headers && (uint64_t)rva + n <= pe->size_of_headers) {
		*off = rva;
		return 0;
	}
	for (unsigned i = 0; i < pe->nsections; i++) {
		uint32_t va, raw, ptr;

		if ((err = rd(s, pe->sections + (uint64_t)i * SECTION_SIZE, sh, sizeof(sh),
			      "section table")))
			return err;
		va = pmuk_le32(sh + 12);
		raw = pmuk_le32(sh + 16);
		ptr = pmuk_le32(sh + 20);
		if (rva >= va && (uint64_t)rva + n <= (uint64_t)va + raw) {
			*off = (uint64_t)ptr + (rva - va);
			return 0;
		}
	}
	return pmuk_fail(PMU_EFORMAT, "%s: the %s (RVA 0x%x, %u bytes) lies in no section's "
			 "file data", s->what, field, rva, n);
}

static int read_rsds(struct src *s, uint64_t off, uint32_t size, struct pmu_module_id *out)
{
	uint8_t head[RSDS_HEAD];
	size_t plen;
	int err;

	if (size < RSDS_HEAD)
		return 1;  /* too small to be RSDS: look further */
	if ((err = rd(s, off, head, sizeof(head), "CodeView record")))
		return err;
	if (memcmp(head, "RSDS", 4))
		return 1;  /* NB10 (old PDB 2.0) or another format */
	pmuk_guid_load(&out->guid, head + 4);
	out->age = pmuk_le32(head + 20);
	plen = size - RSDS_HEAD;
	if (plen > sizeof(out->pdb) - 1)
		plen = sizeof(out->pdb) - 1;
	if ((err = rd(s, off + RSDS_HEAD, out->pdb, plen, "PDB path")))
		return err;
	out->pdb[plen] = '\0';   /* the stored NUL, or a truncation */
	return 0;
}

static int module_id(struct src *s, enum pmuk_pe_layout layout, struct pmu_module_id *out)
{
	struct pe pe;
	uint64_t dir;
	size_t n;
	int err;

	memset(out, 0, sizeof(*out));
	if ((err = read_headers(s, &pe)))
		return err;
	if (!pe.debug_rva || !pe.debug_size)
		return pmuk_fail(PMU_ENOENT, "%s has no debug directory, so no PDB GUID/Age "
				 "(link with a PDB, or with -Wl,--build-id under mingw)", s->what);
	if (pe.debug_size % DEBUG_DIR_SIZE)
		return pmuk_fail(PMU_EFORMAT, "%s: the debug directory size %u is not a "
				 "multiple of %d", s->what, pe.debug_size, DEBUG_DIR_SIZE);
	n = pe.debug_size / DEBUG_DIR_SIZE;
	if (n > MAX_DEBUG_ENTRIES)
		return pmuk_fail(PMU_EFORMAT, "%s: %zu debug directory entries", s->what, n);
	if (layout == PMUK_PE_MAPPED)
		dir = pe.debug_rva;
	else if ((err = rva_to_off(s, &pe, pe.debug_rva, pe.debug_size, &dir,
				   "debug directory")))
		return err;
	for (size_t i = 0; i < n; i++) {
		uint8_t e[DEBUG_DIR_SIZE];
		uint32_t size, rva, ptr;
		uint64_t at;

		if ((err = rd(s, dir + i * DEBUG_DIR_SIZE, e, sizeof(e), "debug directory")))
			return err;
		if (pmuk_le32(e + 12) != CODEVIEW)
			continue;
		size = pmuk_le32(e + 16);
		rva = pmuk_le32(e + 20);
		ptr = pmuk_le32(e + 24);
		if (layout == PMUK_PE_MAPPED) {
			if (!rva)
				continue;  /* not mapped */
			at = rva;
		} else if (ptr) {
			at = ptr;
		} else if ((err = rva_to_off(s, &pe, rva, size, &at, "CodeView record"))) {
			return err;
		}
		err = read_rsds(s, at, size, out);
		if (err <= 0)
			return err;
	}
	memset(out, 0, sizeof(*out));
	return pmuk_fail(PMU_ENOENT, "%s has no CodeView RSDS debug entry (no PDB GUID/Age)",
			 s->what);
}

int pmuk_pe_module_id(const uint8_t *image, size_t len, enum pmuk_pe_layout layout,
		      struct pmu_module_id *out)
{
	struct src s = { .buf = image, .len = len, .what = "the PE image" };

	if (!image && len)
		return pmuk_fail(PMU_EINVAL, "no image given");
	return module_id(&s, layout, out);
}

int pmu_module_id_from_pe(const void *image, size_t len, struct pmu_module_id *out)
{
	return pmuk_pe_module_id(image, len, PMUK_PE_FILE, out);
}

int pmu_module_id_from_pe_file(const char *path, struct pmu_module_id *out)
{
	struct src s = { .what = path };
	long end;
	int err;

	memset(out, 0, sizeof(*out));
	s.f = pmuk_fopen(path, "rb");
	if (!s.f)
		return pmuk_fail(errno == ENOENT ? PMU_ENOENT : errno == EACCES ? PMU_EPERM
			: PMU_EIO, "cannot open %s: %s", path, strerror(errno));
	if (fseek(s.f, 0, SEEK_END) || (end = ftell(s.f)) < 0) {
		fclose(s.f);
		return pmuk_fail(PMU_EIO, "cannot find the size of %s", path);
	}
	s.len = (uint64_t)end;
	err = module_id(&s, PMUK_PE_FILE, out);
	fclose(s.f);
	return err;
}

int pmu_module_id_symstore_key(const struct pmu_module_id *id, char *buf, size_t size)
{
	const struct pmu_guid *g = &id->guid;
	char age[9];

	snprintf(age, sizeof(age), "%X", (unsigned)id->age);
	if (size < 33 + strlen(age))
		return pmuk_fail(PMU_ERANGE, "the symbol-server key needs %zu bytes, %zu given",
				 33 + strlen(age), size);
	snprintf(buf, size, "%08X%04X%04X%02X%02X%02X%02X%02X%02X%02X%02X%s",
		 (unsigned)g->d1, (unsigned)g->d2, (unsigned)g->d3, g->d4[0], g->d4[1],
		 g->d4[2], g->d4[3], g->d4[4], g->d4[5], g->d4[6], g->d4[7], age);
	return 0;
}
