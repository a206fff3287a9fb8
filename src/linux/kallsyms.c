/* SPDX-License-Identifier: MIT */
/* Kernel frames of recordings: /proc/kallsyms names them when the running kernel
 * (and each module) is the one recorded, by build-id (/sys/kernel/notes,
 * /sys/module/NAME/notes/.note.gnu.build-id), or another kernel's from the copy in
 * perf's build-id cache. The symbol of an address is the text symbol at or below
 * it, of the same module. Whether the addresses are shown is checked with the
 * first kernel mapping, which starts a thread reading the file; the first kernel
 * address waits for it. */
#include "core/bsearch.h"
#include "core/symbols_int.h"
#include "core/error.h"
#include "core/grow.h"
#include "core/num.h"
#include "linux/buildid.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

/* The kallsyms of img: /proc/kallsyms for the running kernel, else the copy
 * perf's build-id cache keeps of another kernel's (DIR/[kernel.kallsyms]/ID/
 * kallsyms, written by perf record and perf buildid-cache). */
static int kallsyms_path(struct pmu_symbolizer *s, const struct pmuk_sym_image *img,
			 char *out, size_t size)
{
	char want[41], have[41] = "none", notes[160];
	const char *home = getenv("HOME");
	int err = same_kernel(img, want, have, notes, sizeof(notes));

	if (!err) {
		snprintf(out, size, "/proc/kallsyms");
		return 0;
	}
	if (!img->kmod) {
		if (s->buildid_dir)
			snprintf(out, size, "%s/[kernel.kallsyms]/%s/kallsyms", s->buildid_dir,
				 want);
		else
			snprintf(out, size, "%s/.debug/[kernel.kallsyms]/%s/kallsyms",
				 home ? home : "/root", want);
		if (!access(out, R_OK))
			return 0;
	}
	return pmuk_fail(err, "%s: the recording saw build-id %s but %s gives %s (another "
			 "kernel, or the module is not loaded)%s%s: its addresses resolve to "
			 "module + offset only", img->path, want, notes, have,
			 img->kmod ? "" : " and the build-id cache has no ", img->kmod ? "" : out);
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
	struct pmuk_sym_ksym *v;    /* its text symbols, sorted */
	size_t n;
	int err;                /* 0, PMU_ENOENT (unreadable), PMU_ENOMEM, PMU_EIO (cancelled) */
};

/* The whole file into r->buf (procfs files have no size: read to the end, in
 * large reads); 0 or PMU_E*. */
static int slurp(struct reader *r)
{
	size_t cap = 0, n = 0;
	ssize_t got;
	int fd = open(r->path, O_RDONLY | O_CLOEXEC), err = 0;

	if (fd < 0)
		return PMU_ENOENT;
	for (;;) {
		if (atomic_load(&r->cancel)) {
			err = PMU_EIO;   /* nobody waits for the answer */
			break;
		}
		if (pmuk_grow((void **)&r->buf, &cap, n + (256u << 10) + 1, 1)) {
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

/* Every text symbol of the file, sorted; the names point into r->buf. */
static void *read_all(void *arg)
{
	struct reader *r = arg;
	size_t cap = 0;
	char *p;
	int text;

	if ((r->err = slurp(r)))
		return NULL;
	for (p = r->buf; *p && !atomic_load(&r->cancel);) {
		if (pmuk_grow((void **)&r->v, &cap, r->n + 1, sizeof(*r->v))) {
			r->err = PMU_ENOMEM;
			return NULL;
		}
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

/* Every text symbol of the kernel's kallsyms, sorted, from the reader (or read
 * now); the names point into the file's text, kept. 0 or why not. */
static int load(struct pmu_symbolizer *s)
{
	struct pmuk_sym_kernel *k = &s->kernel;
	struct reader own = { .path = k->path }, *r = k->reader ? k->reader : &own;
	int err;

	if (k->reader)
		pthread_join(r->thread, NULL);
	else
		read_all(r);
	k->reader = NULL;
	if (!(err = r->err) && !(err = intern_kmods(s, r))) {
		k->buf = r->buf;
		k->v = r->v;
		k->n = r->n;
	} else {
		reader_free(r);   /* what was read is dropped: addresses stay unnamed */
	}
	if (r != &own)
		free(r);
	if (!err)
		return 0;
	if (err == PMU_ENOENT)
		return pmuk_fail(PMU_ENOENT, "cannot read %s: kernel addresses resolve to "
				 "module + offset only", k->path);
	return pmuk_fail(PMU_ENOMEM, "out of memory reading %s", k->path);
}

/* Whether the addresses are shown: the first text symbol's is not 0 (the
 * percpu symbols before it are 0 when shown too). 0 or why not. */
static int probe(struct pmu_symbolizer *s)
{
	const char *path = s->kernel.path;
	char line[512], *t;
	uint64_t addr = 0;
	int found = 0;
	FILE *f = fopen(path, "r");

	if (!f)
		return pmuk_fail(PMU_ENOENT, "cannot read %s: kernel addresses resolve to "
				 "module + offset only", path);
	while (!found && fgets(line, sizeof(line), f)) {
		t = hex(line, &addr);
		found = t != line && t[0] == ' ' && t[1] && strchr("tTwW", t[1]);
	}
	fclose(f);
	if (found && addr)
		return 0;
	return pmuk_fail(PMU_ENOENT, "%s shows every address as 0 (kernel.kptr_restrict hides "
			 "them from this user): kernel frames resolve to module + offset "
			 "only; run as root with CAP_SYSLOG or set sysctl "
			 "kernel.kptr_restrict=0", path);
}

int pmuk_sym_kernel_image(struct pmu_symbolizer *s, struct pmuk_sym_image *img, int *told)
{
	struct pmuk_sym_kernel *k = &s->kernel;
	char path[4200];
	int err;

	*told = 0;
	if ((err = kallsyms_path(s, img, path, sizeof(path))))
		return err;
	if (k->probed) {
		*told = k->state != 0;  /* with the first kernel mapping */
		return k->state;
	}
	/* Read from now on by a thread, so that the first kernel address finds it
	 * (nearly) ready; a recording without kernel samples stops it at close. */
	k->probed = 1;
	if (!(k->path = pmuk_sym_intern(s, path, strlen(path))))
		return k->state = pmuk_fail(PMU_ENOMEM, "out of memory");
	if (!(k->state = probe(s)))
		read_ahead(s);
	return k->state;
}

void pmuk_sym_kernel_resolve(struct pmu_symbolizer *s, const struct pmuk_sym_image *img,
			     const struct pmuk_sym_map *m, uint64_t addr)
{
	struct pmuk_sym_kernel *k = &s->kernel;
	struct pmu_frame *f = &s->chain[0];
	size_t lo;

	*f = (struct pmu_frame){ .module = img->name,
				 .module_offset = addr - m->bias };
	if (!k->loaded) {
		k->loaded = 1;
		if (load(s))
			return;   /* said once; the frames stay module + offset */
	}
	lo = PMUK_BSEARCH_UPPER(k->v, k->n, addr, addr);
	/* The nearest symbol below of the same module (kernel and modules interleave
	 * in kallsyms' address order only by accident), inside the mapping. */
	while (lo-- > 0 && k->v[lo].addr >= m->start) {
		/* past a module's symbol, the part of the kernel's map stretched
		 * beyond the recorded end (pmu_symbolizer_add_mmap) is no longer
		 * kernel code: unnamed */
		if (k->v[lo].kmod && !img->kmod && addr >= m->recorded_end)
			return;
		if (k->v[lo].kmod != img->kmod)
			continue;
		f->function = k->v[lo].name;
		f->symbol_offset = addr - k->v[lo].addr;
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
	free(s->kernel.v);
	free(s->kernel.buf);
	s->kernel = (struct pmuk_sym_kernel){ 0 };
}
