/* SPDX-License-Identifier: MIT */
/* Synthesized MMAP records of the kernel and its loaded modules, as perf record
 * writes them, so kernel samples get names. */
#include "linux/synth.h"
#include "core/error.h"
#include "core/grow.h"
#include "core/num.h"
#include "core/sysroot.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MMAP_FIXED 32 /* pid, tid, start, len, pgoff of PERF_RECORD_MMAP */
#define KERNEL_MAP_NAME "[kernel.kallsyms]"

struct kmod {
	uint64_t start, size;
	char name[64];
};

static void put32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

static void put64(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, 8);
}

/* PERF_RECORD_MMAP of the host kernel's address space: pid -1, tid 0, misc KERNEL. */
static int emit_kmap(pmuk_synth_fn fn, void *ctx, uint64_t start, uint64_t len,
		     uint64_t pgoff, const char *name)
{
	uint8_t body[MMAP_FIXED + PATH_MAX + 8] = { 0 };
	size_t n = strlen(name);

	if (n >= PATH_MAX)
		n = PATH_MAX - 1;
	put32(body, (uint32_t)-1);
	put32(body + 4, 0);
	put64(body + 8, start);
	put64(body + 16, len);
	put64(body + 24, pgoff);
	memcpy(body + MMAP_FIXED, name, n);
	return fn(PERF_RECORD_MMAP, PERF_RECORD_MISC_KERNEL, body,
		  MMAP_FIXED + ((n + 1 + 7) & ~(size_t)7), -1, 0, ctx);
}

/* _text (else _stext, as perf falls back) and _etext from /proc/kallsyms. */
static int kernel_text(uint64_t *text, uint64_t *etext, const char **name)
{
	char path[PATH_MAX], line[512], sym[256], type;
	uint64_t addr, stext = 0;
	int have_text = 0, have_stext = 0, have_etext = 0;
	FILE *f;

	if (pmuk_path(path, sizeof(path), "/proc/kallsyms"))
		return pmuk_fail(PMU_ERANGE, "the sysroot path is too long for /proc/kallsyms");
	f = pmuk_fopen(path, "r");
	if (!f)
		return pmuk_fail(errno == EACCES ? PMU_EPERM : PMU_ENOENT, "cannot read %s (%s): "
				 "kernel samples cannot be named; is /proc mounted, and the kernel "
				 "built with CONFIG_KALLSYMS?", path, strerror(errno));
	while (!(have_text && have_etext) && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%" SCNx64 " %c %255s", &addr, &type, sym) != 3)
			continue;
		if (!have_text && !strcmp(sym, "_text"))
			have_text = 1, *text = addr;
		else if (!have_stext && !strcmp(sym, "_stext"))
			have_stext = 1, stext = addr;
		else if (!have_etext && !strcmp(sym, "_etext"))
			have_etext = 1, *etext = addr;
	}
	fclose(f);
	*name = have_text ? "_text" : "_stext";
	if (!have_text && !have_stext)
		return pmuk_fail(PMU_ENOENT, "%s lists neither _text nor _stext: kernel samples "
				 "cannot be named", path);
	if (!have_text)
		*text = stext;
	if (!have_etext || *etext <= *text)
		*etext = UINT64_MAX; /* perf's open-ended kernel map */
	return 0;
}

static int hidden(const char *what)
{
	pmuk_fail(PMU_EPERM, "%s shows zero addresses because kernel.kptr_restrict hides them "
		  "from this user, so kernel samples cannot be named (as perf: 'Couldn't record "
		  "kernel reference relocation symbol'): run as root, or as root: sysctl "
		  "kernel.kptr_restrict=0", what);
	return PMUK_SYNTH_KPTR_HIDDEN;
}

/* "name size refs deps state 0xaddress [(taints)]" */
static int parse_module(const char *line, struct kmod *m)
{
	char addr[32];
	long long size;

	if (sscanf(line, "%63s %lld %*s %*s %*s %31s", m->name, &size, addr) != 3 || size < 0 ||
	    strncmp(addr, "0x", 2) || pmuk_parse_u64(addr, 0, &m->start))
		return -1;
	m->size = (uint64_t)size;
	return 0;
}

static int kmod_cmp(const void *a, const void *b)
{
	const struct kmod *x = a, *y = b;

	return (x->start > y->start) - (x->start < y->start);
}

/* The loaded modules, by address; none when the kernel has no module support. */
static int read_modules(struct kmod **mods, size_t *n)
{
	char path[PATH_MAX], line[1024];
	size_t cap = 0;
	struct kmod m;
	FILE *f;

	*mods = NULL;
	*n = 0;
	if (pmuk_path(path, sizeof(path), "/proc/modules"))
		return pmuk_fail(PMU_ERANGE, "the sysroot path is too long for /proc/modules");
	f = pmuk_fopen(path, "r");
	if (!f)
		return errno == ENOENT ? 0 : pmuk_fail(PMU_EPERM, "cannot read %s (%s): samples "
						       "in modules cannot be named; run as root",
						       path, strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		if (parse_module(line, &m))
			continue;
		if (pmuk_grow((void **)mods, &cap, *n + 1, sizeof(**mods))) {
			fclose(f);
			free(*mods);
			*mods = NULL;
			return pmuk_fail(PMU_ENOMEM, "out of memory reading %s", path);
		}
		(*mods)[(*n)++] = m;
	}
	fclose(f);
	if (*n > 1)
		qsort(*mods, *n, sizeof(**mods), kmod_cmp);
	return 0;
}

/* The module name a modules.dep entry ("kernel/fs/ext4/ext4.ko.xz") is loaded as: the
 * base name without .ko and its compression suffix, '-' read as '_'. */
static void dep_key(const char *rel, size_t len, char *key, size_t size)
{
	const char *base = rel, *ko;
	size_t n;

	for (size_t i = 0; i < len; i++)
		if (rel[i] == '/')
			base = rel + i + 1;
	n = (size_t)(rel + len - base);
	ko = memmem(base, n, ".ko", 3);
	if (ko)
		n = (size_t)(ko - base);
	if (n >= size)
		n = size - 1;
	for (size_t i = 0; i < n; i++)
		key[i] = base[i] == '-' ? '_' : base[i];
	key[n] = '\0';
}

/* Each module's file from /lib/modules/RELEASE/modules.dep, as perf names module maps;
 * paths[i] stays NULL ("[name]" then) for modules it does not list. */
static void module_paths(const struct kmod *mods, size_t n, char **paths)
{
	char rel[256], path[PATH_MAX], key[64], *line = NULL;
	size_t cap = 0;
	FILE *f;

	if (pmuk_path(path, sizeof(path), "/proc/sys/kernel/osrelease") ||
	    pmuk_read_text(path, rel, sizeof(rel)) <= 0 ||
	    pmuk_path(path, sizeof(path), "/lib/modules/%s/modules.dep", rel) ||
	    !(f = pmuk_fopen(path, "r")))
		return;
	while (getline(&line, &cap, f) > 0) {
		char *colon = strchr(line, ':');

		if (!colon || colon == line)
			continue;
		dep_key(line, (size_t)(colon - line), key, sizeof(key));
		for (size_t i = 0; i < n; i++) {
			if (paths[i] || strcmp(mods[i].name, key))
				continue;
			*colon = '\0';
			if (line[0] == '/')
				paths[i] = strdup(line);
			else if (asprintf(&paths[i], "/lib/modules/%s/%s", rel, line) < 0)
				paths[i] = NULL;
			break;
		}
	}
	free(line);
	fclose(f);
}

static int emit_modules(pmuk_synth_fn fn, void *ctx)
{
	struct kmod *mods;
	char **paths, name[80];
	size_t n;
	int err = read_modules(&mods, &n);

	if (err || !n)
		return err;
	if (mods[n - 1].start == 0) {
		free(mods);
		return hidden("/proc/modules");
	}
	paths = calloc(n, sizeof(*paths));
	if (!paths) {
		free(mods);
		return pmuk_fail(PMU_ENOMEM, "out of memory naming %zu kernel modules", n);
	}
	module_paths(mods, n, paths);
	for (size_t i = 0; i < n && !err; i++) {
		snprintf(name, sizeof(name), "[%s]", mods[i].name);
		err = emit_kmap(fn, ctx, mods[i].start, mods[i].size, 0, paths[i] ? paths[i] : name);
	}
	for (size_t i = 0; i < n; i++)
		free(paths[i]);
	free(paths);
	free(mods);
	return err;
}

int pmuk_synth_kernel(pmuk_synth_fn fn, void *ctx)
{
	uint64_t text, etext;
	const char *sym;
	char name[64];
	int err;

	if (!fn)
		return pmuk_fail(PMU_EINVAL, "pmuk_synth_kernel needs a callback");
	if ((err = kernel_text(&text, &etext, &sym)))
		return err;
	if (!text)
		return hidden("/proc/kallsyms");
	/* perf's reference relocation symbol: the map starts at _text, pgoff holds its
	 * address so a relocated (KASLR) kernel is matched with its vmlinux */
	snprintf(name, sizeof(name), KERNEL_MAP_NAME "%s", sym);
	if ((err = emit_kmap(fn, ctx, text, etext - text, text, name)))
		return err;
	return emit_modules(fn, ctx);
}
