/* SPDX-License-Identifier: MIT */
/* _NT_SYMBOL_PATH parsing and the places a PDB is looked for (core/sympath.h). */
#include "core/file.h"
#include "core/sympath.h"
#include "core/error.h"
#include "core/grow.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int word_is(const char *w, size_t n, const char *lit)
{
	size_t i;

	for (i = 0; i < n && lit[i]; i++)
		if (tolower((unsigned char)w[i]) != lit[i])
			return 0;
	return i == n && !lit[i];
}

static int is_remote(const char *w, size_t n)
{
	return (n >= 7 && word_is(w, 7, "http://")) || (n >= 8 && word_is(w, 8, "https://"));
}

static int add_dir(struct pmuk_sympath *sp, const char *w, size_t n)
{
	char *d;

	if (!n)
		return 0;
	if (is_remote(w, n)) {
		sp->remote++;
		return 0;
	}
	if (pmuk_grow((void **)&sp->dirs, &sp->cap, sp->n + 1, sizeof(*sp->dirs)) ||
	    !(d = malloc(n + 1)))
		return pmuk_fail(PMU_ENOMEM, "out of memory parsing a symbol path");
	memcpy(d, w, n);
	d[n] = 0;
	sp->dirs[sp->n++] = d;
	return 0;
}

/* One ';'-separated entry: its '*'-separated words after a srv/symsrv/cache keyword
 * (and symsrv's DLL name) are directories or servers; else it is one directory. */
static int entry(struct pmuk_sympath *sp, const char *e, size_t n)
{
	const char *star = memchr(e, '*', n), *w;
	int skip = 0, err = 0;

	if (!star)
		return add_dir(sp, e, n);
	if (word_is(e, (size_t)(star - e), "symsrv"))
		skip = 1;	/* the DLL's name */
	else if (!word_is(e, (size_t)(star - e), "srv") &&
		 !word_is(e, (size_t)(star - e), "cache"))
		return add_dir(sp, e, n);	/* a directory with a '*' in its name */
	for (w = star + 1; w <= e + n && !err;) {
		const char *end = memchr(w, '*', (size_t)(e + n - w));

		if (!end)
			end = e + n;
		if (skip)
			skip = 0;
		else
			err = add_dir(sp, w, (size_t)(end - w));
		w = end + 1;
	}
	return err;
}

int pmuk_sympath_parse(const char *spec, struct pmuk_sympath *out)
{
	*out = (struct pmuk_sympath){ 0 };
	while (spec && *spec) {
		const char *end = strchr(spec, ';');
		size_t n = end ? (size_t)(end - spec) : strlen(spec);
		int err;

		while (n && isspace((unsigned char)*spec)) {
			spec++;
			n--;
		}
		while (n && isspace((unsigned char)spec[n - 1]))
			n--;
		if ((err = entry(out, spec, n))) {
			pmuk_sympath_free(out);
			return err;
		}
		spec = end ? end + 1 : NULL;
	}
	return 0;
}

void pmuk_sympath_free(struct pmuk_sympath *sp)
{
	for (size_t i = 0; i < sp->n; i++)
		free(sp->dirs[i]);
	free(sp->dirs);
	*sp = (struct pmuk_sympath){ 0 };
}

static int put(size_t size, int n)
{
	return n < 0 || (size_t)n >= size ? PMU_ERANGE : 0;
}

int pmuk_sympath_candidate(const struct pmuk_sympath *sp, const struct pmu_module_id *id,
			   const char *image, size_t i, char *buf, size_t size)
{
	const char *name = pmuk_path_base(id->pdb);
	char key[48];

	if (!*name)
		return PMU_ENOENT;
	if (i < 2 * sp->n) {
		const char *d = sp->dirs[i / 2];

		if (i % 2)
			return put(size, snprintf(buf, size, "%s/%s", d, name));
		pmu_module_id_symstore_key(id, key, sizeof(key));
		return put(size, snprintf(buf, size, "%s/%s/%s/%s", d, name, key, name));
	}
	i -= 2 * sp->n;
	if (i == 0)
		return put(size, snprintf(buf, size, "%s", id->pdb));
	if (i == 1 && image) {
		const char *b = pmuk_path_base(image);

		return put(size, snprintf(buf, size, "%.*s%s", (int)(b - image), image,
					       name));
	}
	return PMU_ENOENT;
}
