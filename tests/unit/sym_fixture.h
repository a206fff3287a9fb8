/* SPDX-License-Identifier: MIT */
#ifndef PMUK_TEST_SYM_FIXTURE_H
#define PMUK_TEST_SYM_FIXTURE_H

/* Known inline code for test_symbols.c: sym_outer() (there) inlines sym_middle(), which
 * inlines sym_inner(), which calls sym_probe() to record an address inside the
 * innermost inlined body. always_inline: the chain exists at -O0 too. The markers
 * SYM-... name lines the tests look up (marker_line, below) in this file. Shared by
 * test_symbols.c and test_report_sym.c, with self_build_id (test_symbols_rec.c too);
 * include it after <stdint.h>, <stdio.h>, <string.h> and <cmocka.h>. */

void sym_probe(void);

static inline __attribute__((always_inline)) int sym_inner(int x)
{
	sym_probe(); /* SYM-INNER-CALL */
	return x * 3;
}

static inline __attribute__((always_inline)) int sym_middle(int x)
{
	return sym_inner(x + 1) + 1; /* SYM-MIDDLE-CALL */
}

#ifdef PMUKIT_SOURCE_DIR   /* the cmocka tests; not tests/windows/sym_target.c */
/* The line of marker in tests/unit/file (for the includer's cmocka tests). */
static inline unsigned marker_line(const char *file, const char *marker)
{
	char path[1024], line[512];
	unsigned n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/tests/unit/%s", PMUKIT_SOURCE_DIR, file);
	f = fopen(path, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		n++;
		if (strstr(line, marker) && !strstr(line, "SYM-... ")) {
			fclose(f);
			return n;
		}
	}
	fclose(f);
	fail_msg("marker %s not in %s", marker, path);
	return 0;
}
#endif

#ifdef __linux__
#include <elf.h>
#include <link.h>

struct sym_build_id {
	uint8_t id[20];
	size_t size;
};

static int sym_build_id_note(struct dl_phdr_info *info, size_t size, void *ctx)
{
	struct sym_build_id *b = ctx;

	(void)size;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		const uint8_t *p = (const uint8_t *)(info->dlpi_addr + ph->p_vaddr);
		const uint8_t *end = p + ph->p_memsz;

		if (ph->p_type != PT_NOTE)
			continue;
		while (p + sizeof(ElfW(Nhdr)) <= end) {
			const ElfW(Nhdr) *nh = (const ElfW(Nhdr) *)p;
			const uint8_t *desc = p + sizeof(*nh) + ((nh->n_namesz + 3) & ~3u);

			if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 &&
			    !memcmp(p + sizeof(*nh), "GNU", 4) && nh->n_descsz <= 20) {
				memcpy(b->id, desc, nh->n_descsz);
				b->size = nh->n_descsz;
				return 1;
			}
			p = desc + ((nh->n_descsz + 3) & ~3u);
		}
	}
	return 1;   /* the first object is the executable */
}

/* The GNU build-id of this test executable into id; its size (0: it has none). */
static inline size_t self_build_id(uint8_t id[20])
{
	struct sym_build_id b = { .size = 0 };

	dl_iterate_phdr(sym_build_id_note, &b);
	memcpy(id, b.id, b.size);
	return b.size;
}
#endif

#endif
