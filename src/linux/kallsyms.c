/* SPDX-License-Identifier: MIT */
/* Kernel frames of recordings: the copy perf's build-id cache keeps of the
 * recorded kernel's kallsyms when it is of the recording's boot (its reference
 * symbol, _text, where the recording saw it), else /proc/kallsyms when the running
 * kernel (and each module) is the one recorded, by build-id (/sys/kernel/notes,
 * /sys/module/NAME/notes/.note.gnu.build-id), else another kernel's copy from the
 * cache. A file of another boot is read slid by the reference symbol's move
 * (KASLR). The symbol of an address is the text symbol at or below it, of the
 * same module. Whether the addresses are shown is checked with the first kernel
 * mapping, which starts a thread reading the file; the first kernel address waits
 * for it. */
#include "core/bsearch.h"
#include "core/symbols_int.h"
#include "core/error.h"
#include "core/grow.h"
#include "linux/buildid.h"
#include "linux/kallsyms.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* 0 when the running kernel (or module) is img's, else why not; *want, *have:
 * the recorded and running build-ids. */
static int same_kernel(const struct pmuk_sym_image *img, char *want, char *have,
		       char *path, size_t size)
{
	uint8_t id[20];
	char name[80];
	size_t n = 0;

	if (!img->idn)
		return 0;
	if (img->kmod) {
		snprintf(name, sizeof(name), "%.*s", (int)strlen(img->kmod) - 2, img->kmod + 1);
		snprintf(path, size, "/sys/module/%s/notes/.note.gnu.build-id", name);
		if (pmuk_build_id_module(name, id, &n))
			n = 0;
	} else {
		snprintf(path, size, "/sys/kernel/notes");
		if (pmuk_build_id_kernel(id, &n))
			n = 0;
	}
	if (n == img->idn && !memcmp(id, img->id, n))
		return 0;
	pmuk_sym_hex(img->id, img->idn, want);
	if (n)
		pmuk_sym_hex(id, n, have);
	return n ? PMU_EFORMAT : PMU_ENOENT;
}

static int by_addr(const void *a, const void *b)
{
	const struct pmuk_sym_ksym *x = a, *y = b;

	return (x->addr > y->addr) - (x->addr < y->addr);
}

/* Hex digits of p into *v; the first character after them. */
static char *hex(char *p, uint64_t *v)
{
	uint64_t x = 0;
	int d;

	for (;; p++) {
		if (*p >= '0' && *p <= '9')
			d = *p - '0';
		else if ((*p | 0x20) >= 'a' && (*p | 0x20) <= 'f')
			d = (*p | 0x20) - 'a' + 10;
		else
			break;
		x = x << 4 | (uint64_t)d;
	}
	*v = x;
	return p;
}

int pmuk_kallsyms_head(const char *path, const char *ref, uint64_t *first, uint64_t *at,
		       int *found)
{
	char line[512], *t, *name;
	uint64_t addr;
	int text = 0;
	FILE *f = fopen(path, "r");

	*first = 0;
	*found = 0;
	if (!f)
		return PMU_ENOENT;
	/* the per-CPU variables before the first text symbol are many on some
	 * kernels: the 1000 lines counted from it */
	for (int i = 0; i < 1000 && (!text || (ref[0] && !*found)) && fgets(line, sizeof(line), f);
	     i += text) {
		t = hex(line, &addr);
		if (t == line || t[0] != ' ' || !t[1] || t[2] != ' ')
			continue;
		if (!text && strchr("tTwW", t[1])) {
			text = 1;
			*first = addr;
		}
		name = t + 3;
		name[strcspn(name, "\t\n")] = 0;
		if (ref[0] && !*found && !strcmp(name, ref)) {
			*found = 1;
			*at = addr;
		}
	}
	fclose(f);
	return 0;
}

int pmuk_kallsyms_fits(const char *path, const char *ref, uint64_t ref_addr)
{
	uint64_t first, at = 0;
	struct stat st;
	char last = 0;
	int found, fd;

	if (!ref[0] || stat(path, &st) || !S_ISREG(st.st_mode) ||
	    pmuk_kallsyms_head(path, ref, &first, &at, &found) || !first || !found ||
	    at != ref_addr)
		return 0;
	/* cut short (a crash or a full disk while it was written): its last symbol
	 * would name every address above it */
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return 0;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size < 1 ||
	    pread(fd, &last, 1, st.st_size - 1) != 1)
		last = 0;
	close(fd);
	return last == '\n';
}

void pmuk_kallsyms_cache_path(const char *dir, const char *hexid, char *out, size_t size)
{
	const char *home = getenv("HOME");

	if (dir)
		snprintf(out, size, "%s/[kernel.kallsyms]/%s/kallsyms", dir, hexid);
	else
		snprintf(out, size, "%s/.debug/[kernel.kallsyms]/%s/kallsyms",
			 home ? home : "/root", hexid);
}

/* The build-id cache's copy of the recorded kernel's kallsyms into out; 0 when
 * it is a readable regular file (a FIFO would block the open for ever). */
static int cache_path(struct pmu_symbolizer *s, const char *want, char *out, size_t size)
{
	struct stat st;

	pmuk_kallsyms_cache_path(s->buildid_dir, want, out, size);
	return stat(out, &st) || !S_ISREG(st.st_mode) || access(out, R_OK) ? PMU_ENOENT : 0;
}

/* The kallsyms of img: the build-id cache's copy from the recording's boot (its
 * reference symbol where the recording saw it: read rather than /proc/kallsyms,
 * which the kernel formats line by line as it is read, tens of milliseconds of
 * system time, and right after a reboot too), else /proc/kallsyms for the running
 * kernel, else the cache's copy of another kernel's. */
static int kallsyms_path(struct pmu_symbolizer *s, const struct pmuk_sym_image *img,
			 char *out, size_t size)
{
	char want[41], have[41] = "none", notes[160];
	int err;

	if (!img->kmod && img->idn) {
		pmuk_sym_hex(img->id, img->idn, want);
		if (!cache_path(s, want, out, size) &&
		    pmuk_kallsyms_fits(out, s->kernel.ref, s->kernel.ref_addr))
			return 0;
	}
	if (!(err = same_kernel(img, want, have, notes, sizeof(notes)))) {
		snprintf(out, size, "/proc/kallsyms");
		return 0;
	}
	if (!img->kmod && !cache_path(s, want, out, size))
		return 0;
	return pmuk_fail(err, "%s: the recording saw build-id %s but %s gives %s (another "
			 "kernel, or the module is not loaded)%s%s: its addresses resolve to "
			 "module + offset only", img->path, want, notes, have,
			 img->kmod ? "" : " and the build-id cache has no ", img->kmod ? "" : out);
}

/* The file read ahead: the kernel formats each of its ~100k-200k lines as it is
 * read (tens of milliseconds of system time), so a thread reads and parses it from
 * the first kernel mapping on, while the recording's other records are read; the
 * first kernel address waits for it. The reader touches nothing of the
 * symbolizer: module names point into its buffer until load() interns them. */
struct reader {
	pthread_t thread;
	atomic_int cancel;      /* the symbolizer closes: stop reading */
	const char *path;       /* interned before the thread starts */
	char *buf;              /* the file's text, lines cut in place */
	size_t len;             /* its bytes; of a NUL among them, the first */
	size_t nul;
	struct pmuk_sym_ksym *v;    /* its text symbols, sorted */
	size_t n;
	int err;                /* 0, PMU_ENOENT (unreadable), PMU_ENOMEM, PMU_EIO (cancelled),
				 * PMU_EFORMAT (a NUL byte) */
};

/* The whole file into r->buf: a cache's copy in one read of its size, procfs
 * files (no size) to the end in large reads; 0 or PMU_E*. */
static int slurp(struct reader *r)
{
	size_t cap = 0, n = 0;
	ssize_t got;
	struct stat st;
	int fd = open(r->path, O_RDONLY | O_CLOEXEC), err = 0;

	if (fd < 0)
		return PMU_ENOENT;
	/* one more byte than the size: the read that finds the end needs no room */
	if (!fstat(fd, &st) && S_ISREG(st.st_mode) && st.st_size > 0 &&
	    (uint64_t)st.st_size < SIZE_MAX / 2 && (r->buf = malloc((size_t)st.st_size + 2)))
		cap = (size_t)st.st_size + 2;
	for (;;) {
		if (atomic_load(&r->cancel)) {
			err = PMU_EIO;   /* nobody waits for the answer */
			break;
		}
		if (cap - n < 2 && pmuk_grow((void **)&r->buf, &cap, n + (256u << 10) + 1, 1)) {
			err = PMU_ENOMEM;
			break;
		}
		got = read(fd, r->buf + n, cap - n - 1);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0) {
			err = got < 0 ? PMU_ENOENT : 0;
			break;
		}
		n += (size_t)got;
	}
	close(fd);
	if (!err)
		r->buf[n] = 0;
	r->len = n;
	return err;
}

/* One "ffffffff81000000 T _text\t[module]" line at p, cut in place; the next
 * line. *k filled and *text set when it is a text symbol (kmod pointing into the
 * line). */
static char *parse_line(char *p, struct pmuk_sym_ksym *k, int *text)
{
	char *end = strchr(p, '\n'), *name, *mod;

	if (end)
		*end++ = 0;
	else
		end = p + strlen(p);
	*text = 0;
	name = hex(p, &k->addr);
	if (name == p || name[0] != ' ' || !name[1] || name[2] != ' ' || !strchr("tTwW", name[1]))
		return end;
	name += 3;
	k->name = name;
	k->kmod = NULL;
	if ((mod = strchr(name, '\t'))) {
		*mod++ = 0;
		k->kmod = mod;
	}
	*text = 1;
	return end;
}

/* Room for every line of r->buf (one symbol at most each), allocated once: no
 * regrowth of a table of ~100k-200k entries. 0 or PMU_ENOMEM. */
static int size_table(struct reader *r)
{
	size_t lines = 1;

	for (const char *p = r->buf; (p = strchr(p, '\n')); p++)
		lines++;
	r->v = malloc(lines * sizeof(*r->v));
	return r->v ? 0 : PMU_ENOMEM;
}

/* Every text symbol of the file, sorted; the names point into r->buf. */
static void *read_all(void *arg)
{
	struct reader *r = arg;
	char *p;
	int text;

	if ((r->err = slurp(r)))
		return NULL;
	/* text has none: blocks a crash left unwritten (zeros) would end the parse
	 * there, the last symbol before them naming the addresses after */
	if ((p = memchr(r->buf, 0, r->len))) {
		r->nul = (size_t)(p - r->buf);
		r->err = PMU_EFORMAT;
		return NULL;
	}
	if ((r->err = size_table(r)))
		return NULL;
	for (p = r->buf; *p && !atomic_load(&r->cancel);) {
		p = parse_line(p, &r->v[r->n], &text);
		r->n += (size_t)text;
	}
	/* the kernel lists its text symbols in address order: sort only when not */
	for (size_t i = 1; i < r->n; i++)
		if (r->v[i].addr < r->v[i - 1].addr) {
			qsort(r->v, r->n, sizeof(*r->v), by_addr);
			break;
		}
	return NULL;
}

/* The reader of the kernel's file started (none when no thread can be had:
 * load() reads the file itself). */
static void read_ahead(struct pmu_symbolizer *s)
{
	struct reader *r = calloc(1, sizeof(*r));
	sigset_t all, old;
	int err;

	if (!r)
		return;
	r->path = s->kernel.path;
	atomic_init(&r->cancel, 0);
	sigfillset(&all);   /* signals stay the caller's threads' */
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = pthread_create(&r->thread, NULL, read_all, r);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err) {
		free(r);
		return;
	}
	s->kernel.reader = r;
}

/* The reader's buffers freed. */
static void reader_free(struct reader *r)
{
	free(r->buf);
	free(r->v);
}

/* The module names of the reader's symbols interned: a module's symbols are
 * consecutive, one lookup for each run. 0 or PMU_ENOMEM. */
static int intern_kmods(struct pmu_symbolizer *s, struct reader *r)
{
	const char *raw = NULL, *in = NULL;

	for (size_t i = 0; i < r->n; i++) {
		if (!r->v[i].kmod)
			continue;
		if (!raw || strcmp(raw, r->v[i].kmod)) {
			raw = r->v[i].kmod;
			if (!(in = pmuk_sym_intern(s, raw, strlen(raw))))
				return PMU_ENOMEM;
		}
		r->v[i].kmod = in;
	}
	return 0;
}

/* What reader r read into t, its module names interned; else its buffers freed
 * (what was read is dropped: addresses stay unnamed). 0 or why not. */
static int take(struct pmu_symbolizer *s, struct reader *r, struct pmuk_sym_ktab *t)
{
	int err = r->err ? r->err : intern_kmods(s, r);

	if (err) {
		reader_free(r);
		return err;
	}
	*t = (struct pmuk_sym_ktab){ .buf = r->buf, .v = r->v, .n = r->n };
	return 0;
}

/* Every text symbol of the kernel's kallsyms, sorted, from the reader (or read
 * now); the names point into the file's text, kept. 0 or why not. */
static int load(struct pmu_symbolizer *s)
{
	struct pmuk_sym_kernel *k = &s->kernel;
	struct reader own = { .path = k->path }, *r = k->reader ? k->reader : &own;
	size_t nul;
	int err;

	if (k->reader)
		pthread_join(r->thread, NULL);
	else
		read_all(r);
	k->reader = NULL;
	nul = r->nul;
	err = take(s, r, &k->all);
	if (r != &own)
		free(r);
	if (!err)
		return 0;
	if (err == PMU_ENOENT)
		return pmuk_fail(PMU_ENOENT, "cannot read %s: kernel addresses resolve to "
				 "module + offset only", k->path);
	if (err == PMU_EFORMAT)
		return pmuk_fail(PMU_EFORMAT, "%s has a NUL byte at byte %zu: it is damaged, "
				 "and kernel addresses resolve to module + offset only; delete it "
				 "(pmukit record or perf record writes a new one)", k->path, nul);
	return pmuk_fail(PMU_ENOMEM, "out of memory reading %s", k->path);
}

/* The running kernel's symbols into k->mods for module frames when k->path is a
 * build-id cache's copy (struct pmuk_sym_kernel); said once when unreadable. */
static void load_modules(struct pmu_symbolizer *s)
{
	struct reader r = { .path = "/proc/kallsyms" };
	int err;

	atomic_init(&r.cancel, 0);
	read_all(&r);
	err = take(s, &r, &s->kernel.mods);
	if (err == PMU_ENOMEM)
		pmuk_fail(PMU_ENOMEM, "out of memory reading /proc/kallsyms for the modules' "
			  "symbols: module addresses resolve to module + offset only");
	else if (err)
		pmuk_fail(PMU_ENOENT, "cannot read /proc/kallsyms for the modules' symbols: "
			  "module addresses resolve to module + offset only");
}

/* Whether the addresses are shown: the first text symbol's is not 0 (the
 * percpu symbols before it are 0 when shown too); the slide of the file's
 * addresses from the recording's. 0 or why not. */
static int probe(struct pmu_symbolizer *s)
{
	struct pmuk_sym_kernel *k = &s->kernel;
	uint64_t first, at = 0;
	int found;

	if (pmuk_kallsyms_head(k->path, k->ref, &first, &at, &found))
		return pmuk_fail(PMU_ENOENT, "cannot read %s: kernel addresses resolve to "
				 "module + offset only", k->path);
	if (!first)
		return pmuk_fail(PMU_ENOENT, "%s shows every address as 0 (kernel.kptr_restrict "
				 "hides them from this user): kernel frames resolve to module + "
				 "offset only; run as root with CAP_SYSLOG or set sysctl "
				 "kernel.kptr_restrict=0", k->path);
	if (found)
		k->slide = (int64_t)(at - k->ref_addr);
	return 0;
}

/* The reference symbol of the recording's kernel map ("[kernel.kallsyms]_text"
 * starting at pgoff = _text's address, as perf record and pmukit record write
 * it); none when the path names none or the address was hidden. */
static void recorded_ref(struct pmuk_sym_kernel *k, const struct pmu_mmap *mm)
{
	const char *sym = mm->path + 17;

	if (mm->pgoff && sym[0] && strlen(sym) < sizeof(k->ref)) {
		snprintf(k->ref, sizeof(k->ref), "%s", sym);
		k->ref_addr = mm->pgoff;
	}
}

/* The slide of k->path from the reference symbol recorded after the file was
 * chosen. */
static void late_slide(struct pmuk_sym_kernel *k)
{
	uint64_t first, at = 0;
	int found;

	if (!pmuk_kallsyms_head(k->path, k->ref, &first, &at, &found) && found)
		k->slide = (int64_t)(at - k->ref_addr);
}

/* A module of a recording made in another boot: its load address then is
 * unknown here. */
static int moved_module(const struct pmuk_sym_kernel *k, const struct pmuk_sym_image *img)
{
	return pmuk_fail(PMU_EFORMAT, "%s: the kernel was booted again since the recording "
			 "(%s was at %#llx then, %#llx in %s): modules load elsewhere at each "
			 "boot, so their addresses resolve to module + offset only", img->path,
			 k->ref, (unsigned long long)k->ref_addr,
			 (unsigned long long)(k->ref_addr + (uint64_t)k->slide), k->path);
}

/* Whether /proc/kallsyms is of the recording's boot (k->proc_boot). */
static int proc_boot(const struct pmuk_sym_kernel *k)
{
	uint64_t first, at = 0;
	int found;

	pmuk_kallsyms_head("/proc/kallsyms", k->ref, &first, &at, &found);
	if (first && found && at == k->ref_addr)
		return 1;
	return found ? -1 : -2;
}

/* 0 when module img can be named: by /proc/kallsyms (kallsyms_path matched its
 * build-id), which must then be of the recording's boot; else why not. */
static int module_ok(struct pmuk_sym_kernel *k, const struct pmuk_sym_image *img)
{
	if (k->state || !img->kmod)
		return k->state;
	if (!k->copy)
		return k->slide ? moved_module(k, img) : 0;
	if (!k->ref[0])
		return pmuk_fail(PMU_EFORMAT, "%s: modules are named from /proc/kallsyms only (a "
				 "build-id cache's copy holds them where they were when it was "
				 "written), and the recording's kernel map names no reference "
				 "symbol to tell its boot: the module's addresses resolve to module "
				 "+ offset only", img->path);
	if (!k->proc_boot)
		k->proc_boot = proc_boot(k);
	if (k->proc_boot > 0)
		return 0;
	return pmuk_fail(PMU_EFORMAT, "%s: modules are named from /proc/kallsyms only (a build-id "
			 "cache's copy holds them where they were when it was written), and the "
			 "running kernel is not of the recording's boot (%s at %#llx then, %s "
			 "now): the module's addresses resolve to module + offset only",
			 img->path, k->ref, (unsigned long long)k->ref_addr,
			 k->proc_boot == -1 ? "elsewhere" : "not in /proc/kallsyms");
}

int pmuk_sym_kernel_image(struct pmu_symbolizer *s, struct pmuk_sym_image *img,
			  const struct pmu_mmap *mm, int *told)
{
	struct pmuk_sym_kernel *k = &s->kernel;
	char path[4200];
	int err;

	*told = 0;
	if (!img->kmod && !k->ref[0]) {
		recorded_ref(k, mm);
		/* the file was chosen with a module's map, before the kernel's: the
		 * slide is still the kernel map's to say */
		if (k->probed && !k->state && k->ref[0])
			late_slide(k);
	}
	if ((err = kallsyms_path(s, img, path, sizeof(path))))
		return err;
	if (k->probed) {
		*told = k->state != 0;  /* with the first kernel mapping */
		return module_ok(k, img);
	}
	/* Read from now on by a thread, so that the first kernel address finds it
	 * (nearly) ready; a recording without kernel samples stops it at close. */
	k->probed = 1;
	if (!(k->path = pmuk_sym_intern(s, path, strlen(path))))
		return k->state = pmuk_fail(PMU_ENOMEM, "out of memory");
	k->copy = strcmp(path, "/proc/kallsyms") != 0;
	if (!(k->state = probe(s)))
		read_ahead(s);
	return module_ok(k, img);
}

void pmuk_sym_kernel_resolve(struct pmu_symbolizer *s, const struct pmuk_sym_image *img,
			     const struct pmuk_sym_map *m, uint64_t addr)
{
	struct pmuk_sym_kernel *k = &s->kernel;
	struct pmu_frame *f = &s->chain[0];
	/* the file's address of it: modules are not named when the boot differs */
	uint64_t at = img->kmod ? addr : addr + (uint64_t)k->slide;
	const struct pmuk_sym_ktab *t;
	const struct pmuk_sym_ksym *v;
	size_t lo;

	*f = (struct pmu_frame){ .module = img->name,
				 .module_offset = addr - m->bias };
	if (!k->loaded) {
		k->loaded = 1;
		if (load(s))
			return;   /* said once; the frames stay module + offset */
	}
	if (img->kmod && k->slide)
		return;   /* another boot: modules load elsewhere at each (module_ok) */
	if (img->kmod && k->copy && !k->mods_loaded) {
		k->mods_loaded = 1;
		load_modules(s);
	}
	t = img->kmod && k->copy ? &k->mods : &k->all;
	v = t->v;
	lo = v ? PMUK_BSEARCH_UPPER(v, t->n, addr, at) : 0;
	/* The nearest symbol below of the same module (kernel and modules interleave
	 * in kallsyms' address order only by accident), inside the mapping. */
	while (lo-- > 0 && v[lo].addr >= m->start + (at - addr)) {
		/* past a module's symbol, the part of the kernel's map stretched
		 * beyond the recorded end (pmu_symbolizer_add_mmap) is no longer
		 * kernel code: unnamed */
		if (v[lo].kmod && !img->kmod && addr >= m->recorded_end)
			return;
		if (v[lo].kmod != img->kmod)
			continue;
		/* past the end of init text: modules, BPF, trampolines the file does
		 * not list (a copy written before they were), not the kernel's */
		if (!img->kmod && !strcmp(v[lo].name, "_einittext"))
			return;
		f->function = v[lo].name;
		f->symbol_offset = at - v[lo].addr;
		return;
	}
}

void pmuk_sym_kernel_free(struct pmu_symbolizer *s)
{
	struct reader *r = s->kernel.reader;

	if (r) {	/* never needed: stop it between two reads */
		atomic_store(&r->cancel, 1);
		pthread_join(r->thread, NULL);
		reader_free(r);
		free(r);
	}
	free(s->kernel.all.v);
	free(s->kernel.all.buf);
	free(s->kernel.mods.v);
	free(s->kernel.mods.buf);
	s->kernel = (struct pmuk_sym_kernel){ 0 };
}
