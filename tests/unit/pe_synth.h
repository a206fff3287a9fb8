/* SPDX-License-Identifier: MIT */
#ifndef PMUKIT_TEST_PE_SYNTH_H
#define PMUKIT_TEST_PE_SYNTH_H

/* A minimal PE32 / PE32+ image with one section holding a debug directory and a
 * CodeView RSDS record, built byte by byte (layout facts: src/formats/pe_rsds.c).
 * File layout: headers 0-0x1ff, section .rdata at file 0x200 = RVA 0x1000.
 * Mapped layout (as a loader maps it): the section at offset 0x1000. */
#include <stdint.h>
#include <string.h>

#define PE_SYNTH_SIZE 0x1400

static inline void pe_w16(uint8_t *p, unsigned v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static inline void pe_w32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* Writes the image into img (PE_SYNTH_SIZE bytes); returns its length. */
static inline size_t pe_synth(uint8_t *img, int pe32plus, int mapped, const uint8_t guid[16],
			      uint32_t age, const char *pdb)
{
	const uint32_t lfanew = 0x40, sec_rva = 0x1000, sec_file = mapped ? 0x1000 : 0x200;
	unsigned optsize = pe32plus ? 240 : 224, dirs = pe32plus ? 112 : 96;
	uint8_t *nt = img + lfanew, *opt = nt + 24, *sh = opt + optsize;
	uint8_t *dbg = img + sec_file, *cv = dbg + 28;
	size_t plen = strlen(pdb) + 1;

	memset(img, 0, PE_SYNTH_SIZE);
	img[0] = 'M';
	img[1] = 'Z';
	pe_w32(img + 0x3c, lfanew);
	memcpy(nt, "PE\0\0", 4);
	pe_w16(nt + 4, pe32plus ? 0x8664 : 0x14c);   /* Machine */
	pe_w16(nt + 4 + 2, 1);                        /* NumberOfSections */
	pe_w16(nt + 4 + 16, optsize);                 /* SizeOfOptionalHeader */
	pe_w16(opt, pe32plus ? 0x20b : 0x10b);
	pe_w32(opt + 60, 0x200);                      /* SizeOfHeaders */
	pe_w32(opt + dirs - 4, 16);                   /* NumberOfRvaAndSizes */
	pe_w32(opt + dirs + 8 * 6, sec_rva);          /* debug directory RVA */
	pe_w32(opt + dirs + 8 * 6 + 4, 28);           /* one entry */
	memcpy(sh, ".rdata\0\0", 8);
	pe_w32(sh + 8, 0x100);                        /* VirtualSize */
	pe_w32(sh + 12, sec_rva);
	pe_w32(sh + 16, 0x200);                       /* SizeOfRawData */
	pe_w32(sh + 20, 0x200);                       /* PointerToRawData (file) */
	pe_w32(dbg + 12, 2);                          /* IMAGE_DEBUG_TYPE_CODEVIEW */
	pe_w32(dbg + 16, (uint32_t)(24 + plen));
	pe_w32(dbg + 20, sec_rva + 28);               /* AddressOfRawData */
	pe_w32(dbg + 24, 0x200 + 28);                 /* PointerToRawData */
	memcpy(cv, "RSDS", 4);
	memcpy(cv + 4, guid, 16);
	pe_w32(cv + 20, age);
	memcpy(cv + 24, pdb, plen);
	return mapped ? 0x1200 : 0x400;
}

#endif
