/* SPDX-License-Identifier: MIT */
/* C++ (Itanium ABI, "_Z...") and Rust (legacy "_ZN...17h<hash>E" and v0 "_R...")
 * names demangled with libiberty, the GNU toolchain's demangler: DMGL_PARAMS |
 * DMGL_ANSI (recordings: no options, as perf report), automatic style, which tries Rust before C++ as legacy Rust names are
 * valid C++ ones too. Each mangled name is demangled once: the result is kept by
 * the address of the name's interned copy (a module's own strings may go away). */
#include "core/symbols_int.h"
#include "core/grow.h"
#include "core/hash.h"

#include <stdlib.h>
#include <string.h>

#ifdef PMUKIT_HAVE_IBERTY
#include <libiberty/demangle.h>

static int ptr_eq(const void *key, uint32_t id, const void *ctx)
{
	const struct pmu_symbolizer *s = ctx;

	return s->dm[id].in == key && s->dm[id].params == !s->perf_names;
}

/* cplus_demangle of name; a suffix from '@' on ("@plt" of a PLT stub, a symbol
 * version) is kept after the demangled name, as perf shows them, where libiberty
 * would drop it. */
static char *demangle(const char *name, int flags)
{
	const char *at = strchr(name, '@');
	char *base, *d, *out;
	size_t n;

	if (!at)
		return cplus_demangle(name, flags);
	n = (size_t)(at - name);
	if (!(base = malloc(n + 1)))
		return NULL;
	memcpy(base, name, n);
	base[n] = 0;
	d = cplus_demangle(base, flags);
	free(base);
	if (!d || !(out = malloc(strlen(d) + strlen(at) + 1))) {
		free(d);
		return NULL;
	}
	strcpy(out, d);
	strcat(out, at);
	free(d);
	return out;
}

const char *pmuk_sym_demangle(struct pmu_symbolizer *s, const char *name)
{
	uint64_t h;
	uint32_t id;
	const char *out = name;
	char *d;

	if (name[0] != '_' || (name[1] != 'Z' && name[1] != 'R'))
		return name;
	if (!(name = pmuk_sym_intern(s, name, strlen(name))))
		return out;
	h = pmuk_hash_u64((uint64_t)(uintptr_t)name ^ (uint64_t)!s->perf_names);
	if ((id = pmuk_index_find(&s->dmix, h, ptr_eq, name, s)) != PMUK_INDEX_NONE)
		return s->dm[id].out;
	/* perf report prints C++ names without parameters (DMGL_NO_OPTS) */
	if ((d = demangle(name, s->perf_names ? DMGL_NO_OPTS : DMGL_PARAMS | DMGL_ANSI))) {
		out = pmuk_sym_intern(s, d, strlen(d));
		free(d);
		if (!out)
			return name;
	}
	/* Without memory for the cache the next lookup demangles again. */
	if (pmuk_grow((void **)&s->dm, &s->dm_cap, s->dmix.n + 1, sizeof(*s->dm)))
		return out;
	if ((id = pmuk_index_add(&s->dmix, h)) != PMUK_INDEX_NONE)
		s->dm[id] = (struct pmuk_sym_dm){ name, out, !s->perf_names };
	return out;
}

#else

const char *pmuk_sym_demangle(struct pmu_symbolizer *s, const char *name)
{
	(void)s;
	return name;
}

#endif
