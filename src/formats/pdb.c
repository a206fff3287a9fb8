/* SPDX-License-Identifier: MIT */
/* The PDB reader's entry points: opening (MSF, info, DBI, procedures and publics
 * read at once; line tables and the IPI stream on first use) and address lookup. */
#include "formats/pdb_int.h"
#include "core/bsearch.h"
#include "core/error.h"
#include "core/file.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int load(struct pmuk_pdb *p)
{
	int err = pmuk_pdb_msf(p);

	if (!err)
		err = pmuk_pdb_info(p);
	if (!err)
		err = pmuk_pdb_dbi(p);
	return err;
}

static int finish(struct pmuk_pdb *p, struct pmuk_pdb **out)
{
	int err = load(p);

	if (err) {
		pmuk_pdb_close(p);
		return err;
	}
	*out = p;
	return 0;
}

int pmuk_pdb_open_mem(const void *buf, size_t len, struct pmuk_pdb **out)
{
	struct pmuk_pdb *p = calloc(1, sizeof(*p));

	*out = NULL;
	if (!p || !(p->file = malloc(len ? len : 1))) {
		free(p);
		return pmuk_fail(PMU_ENOMEM, "out of memory reading a PDB of %zu bytes", len);
	}
	memcpy(p->file, buf, len);
	p->size = len;
	return finish(p, out);
}

/* The size of f, or -1: 64 bits on Windows too, whose long (ftell) has 32. */
static long long file_size(FILE *f)
{
#ifdef _WIN32
	long long n = _fseeki64(f, 0, SEEK_END) ? -1 : _ftelli64(f);

	return n < 0 || _fseeki64(f, 0, SEEK_SET) ? -1 : n;
#else
	long long n = fseeko(f, 0, SEEK_END) ? -1 : (long long)ftello(f);

	return n < 0 || fseeko(f, 0, SEEK_SET) ? -1 : n;
#endif
}

int pmuk_pdb_open(const char *path, struct pmuk_pdb **out)
{
	struct pmuk_pdb *p;
	FILE *fp = pmuk_fopen(path, "rb");	/* UTF-8 paths on Windows too */
	long long n;

	*out = NULL;
	if (!fp)
		return pmuk_fail(PMU_ENOENT, "cannot open %s: %s", path, strerror(errno));
	if ((n = file_size(fp)) < 0 || (unsigned long long)n >= SIZE_MAX) {
		fclose(fp);
		return pmuk_fail(PMU_ENOENT, "cannot read %s: %s", path, strerror(errno));
	}
	if (!(p = calloc(1, sizeof(*p))) || !(p->file = malloc((size_t)n + 1))) {
		fclose(fp);
		free(p);
		return pmuk_fail(PMU_ENOMEM, "out of memory reading %s (%lld bytes)", path, n);
	}
	p->size = fread(p->file, 1, (size_t)n, fp);
	fclose(fp);
	if (p->size != (size_t)n) {
		pmuk_pdb_close(p);
		return pmuk_fail(PMU_ENOENT, "cannot read %s: short read", path);
	}
	return finish(p, out);
}

void pmuk_pdb_close(struct pmuk_pdb *p)
{
	if (!p)
		return;
	for (uint32_t i = 0; i < p->nmods; i++) {
		free(p->mods[i].s.p);
		free(p->mods[i].lines);
		free(p->mods[i].inl);
	}
	free(p->mods);
	free(p->contribs);
	free(p->procs);
	free(p->pubs);
	free(p->sec);
	free(p->names.p);
	free(p->symrec.p);
	free(p->ipi.p);
	free(p->ipi_off);
	free(p->ssize);
	free(p->sblocks);
	free(p->dir);
	free(p->file);
	free(p);
}

void pmuk_pdb_identity(const struct pmuk_pdb *p, struct pmu_guid *guid, uint32_t *age)
{
	*guid = p->guid;
	*age = p->age;
}

static int section_of(const struct pmuk_pdb *p, uint64_t rva)
{
	for (uint32_t i = 0; i < p->nsec; i++)
		if (rva >= p->sec[i].rva && rva - p->sec[i].rva < p->sec[i].size)
			return (int)i;
	return -1;
}

/* The line of rva in module m's table, no row before start counting. */
static void line_at(const struct pmuk_pdb *p, const struct pdb_module *m, uint32_t rva,
		    uint64_t start, struct pmuk_pdb_frame *f)
{
	size_t i = PMUK_BSEARCH_UPPER(m->lines, m->nlines, rva, rva);

	if (i && m->lines[i - 1].rva >= start) {
		f->line = m->lines[i - 1].line;
		f->file = pmuk_pdb_file(p, m, m->lines[i - 1].file);
	}
}

/* An address in no procedure: the public symbol before it in its section, and the
 * line of the module whose section contribution holds it (assembly, CRT code). */
static int public_at(struct pmuk_pdb *p, uint32_t rva, struct pmuk_pdb_frame *f)
{
	size_t i = PMUK_BSEARCH_UPPER(p->pubs, p->npubs, rva, rva);
	int sec = section_of(p, rva), err;
	struct pdb_module *m;

	if (!i || sec < 0 || section_of(p, p->pubs[i - 1].rva) != sec)
		return 0;
	*f = (struct pmuk_pdb_frame){ .function = p->pubs[i - 1].name,
				      .start = (uint32_t)p->pubs[i - 1].rva };
	if (!(m = pmuk_pdb_contrib_mod(p, rva)))
		return 1;
	if ((err = pmuk_pdb_mod_lines(p, m)))
		return err;
	line_at(p, m, rva, p->pubs[i - 1].rva, f);
	return 1;
}

/* The public name at the procedure's address (the linkage name: Itanium names are
 * demangled by the symbolizer), else its own. MSVC-decorated names ('?') have no
 * demangler here: the record's own name (ns::K::get) is what DbgHelp gives too. */
static const char *proc_name(const struct pmuk_pdb *p, const struct pdb_proc *pr)
{
	size_t i = PMUK_BSEARCH_UPPER(p->pubs, p->npubs, rva, pr->rva);

	if (!i || p->pubs[i - 1].rva != pr->rva || p->pubs[i - 1].name[0] == '?')
		return pr->name;
	return p->pubs[i - 1].name;
}

int pmuk_pdb_lookup(struct pmuk_pdb *p, uint32_t rva, struct pmuk_pdb_frame *f, int max)
{
	size_t i = PMUK_BSEARCH_UPPER(p->procs, p->nprocs, rva, rva);
	const struct pdb_proc *pr;
	struct pdb_module *m;
	int k = 0, err;

	if (max < 1)
		return 0;
	if (!i || rva - p->procs[i - 1].rva >= p->procs[i - 1].len)
		return public_at(p, rva, f);
	pr = &p->procs[i - 1];
	m = &p->mods[pr->mod];
	if ((err = pmuk_pdb_mod_lines(p, m)))
		return err;
	if ((k = pmuk_pdb_inlines(p, pr, rva, f, max - 1)) < 0)
		return k;
	f[k] = (struct pmuk_pdb_frame){ .function = proc_name(p, pr), .start = (uint32_t)pr->rva };
	line_at(p, m, rva, pr->rva, &f[k]);
	return k + 1;
}
