/* SPDX-License-Identifier: MIT */
#ifndef PMUK_TEST_SYM_FIXTURE_H
#define PMUK_TEST_SYM_FIXTURE_H

/* Known inline code for test_symbols.c: sym_outer() (there) inlines sym_middle(), which
 * inlines sym_inner(), which calls sym_probe() to record an address inside the
 * innermost inlined body. always_inline: the chain exists at -O0 too. The markers
 * SYM-... name lines the tests look up (marker_line, below) in this file. Shared by
 * test_symbols.c and test_report_sym.c, with self_build_id and the running kernel's
 * symbols and build-id (test_symbols_rec.c, test_sym_kallsyms.c too);
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
#include <sys/stat.h>

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

/* text written as perf's build-id cache's kallsyms of kernel id under dir
 * (dir/[kernel.kallsyms]/HEXID/kallsyms, directories made where missing). */
static inline void sym_kallsyms_cache(const char *dir, const uint8_t *id, size_t idn,
				      const char *text)
{
	char path[4400], hexid[41];
	FILE *f;

	for (size_t i = 0; i < idn && i < 20; i++)
		snprintf(hexid + 2 * i, 3, "%02x", id[i]);
	hexid[2 * (idn < 20 ? idn : 20)] = 0;
	mkdir(dir, 0700);
	snprintf(path, sizeof(path), "%s/[kernel.kallsyms]", dir);
	mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/[kernel.kallsyms]/%s", dir, hexid);
	mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/[kernel.kallsyms]/%s/kallsyms", dir, hexid);
	assert_non_null(f = fopen(path, "w"));
	fputs(text, f);
	fclose(f);
}

/* The running kernel's text symbol name's address, or 0 (hidden, or none). */
static inline uint64_t sym_kallsyms_addr(const char *name)
{
	char line[512], sym[256], type;
	unsigned long long a;
	uint64_t found = 0;
	FILE *f = fopen("/proc/kallsyms", "r");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx %c %255s", &a, &type, sym) == 3 && !strcmp(sym, name) &&
		    (type == 'T' || type == 't')) {
			found = a;
			break;
		}
	if (f)
		fclose(f);
	return found;
}

/* The running kernel's build-id (/sys/kernel/notes) into id; its size, 0: none. */
static inline size_t sym_kernel_build_id(uint8_t *id)
{
	uint8_t buf[4096];
	size_t len, off = 0;
	FILE *f = fopen("/sys/kernel/notes", "rb");

	if (!f)
		return 0;
	len = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	while (off + 12 <= len) {
		uint32_t nsz, dsz, type;

		memcpy(&nsz, buf + off, 4);
		memcpy(&dsz, buf + off + 4, 4);
		memcpy(&type, buf + off + 8, 4);
		if (type == NT_GNU_BUILD_ID && nsz == 4 && dsz <= 20) {
			memcpy(id, buf + off + 12 + 4, dsz);
			return dsz;
		}
		off += 12 + ((nsz + 3) & ~3u) + ((dsz + 3) & ~3u);
	}
	return 0;
}
#endif

#endif
