/* SPDX-License-Identifier: MIT */
/* PMU devices as the kernel lists them under /sys/bus/event_source/devices. */
#include "linux/pmu_sysfs.h"
#include "core/grow.h"
#include "core/error.h"
#include "core/os_int.h"
#include "core/sysroot.h"

#include <dirent.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#ifdef PMUKIT_HAVE_PFM
#include <perfmon/pfmlib.h>
#endif

#define DEVICES "/sys/bus/event_source/devices"

const char *pmuk_pmu_devices_dir(void)
{
	return DEVICES;
}

#ifdef PMUKIT_HAVE_PFM
static pthread_once_t pfm_once = PTHREAD_ONCE_INIT;
static int pfm_ok;
static char pfm_why[512];  /* why not, set once with pfm_ok */

/* libpfm4 is loaded here, on first use (linux/pfm_dl.h). */
static void pfm_init_once(void)
{
	int ret;

	if (pmuk_pfm_load(pfm_why, sizeof(pfm_why))) {
		pmuk_log(PMU_LOG_WARN, "libpfm4 not loaded: %s", pfm_why);
		return;
	}
	ret = pmuk_pfm.initialize();
	pfm_ok = ret == PFM_SUCCESS;
	if (!pfm_ok) {
		snprintf(pfm_why, sizeof(pfm_why), "pfm_initialize failed: %s",
			 pmuk_pfm.strerror(ret));
		pmuk_log(PMU_LOG_WARN, "libpfm4 initialisation failed: %s", pmuk_pfm.strerror(ret));
	}
}

int pmuk_pfm_ready(void)
{
	pthread_once(&pfm_once, pfm_init_once);
	return pfm_ok;
}

const char *pmuk_pfm_why(void)
{
	return pmuk_pfm_ready() ? NULL : pfm_why;
}

int pmuk_pfm_pmu_info(pfm_pmu_t p, pfm_pmu_info_t *pi)
{
	memset(pi, 0, sizeof(*pi));
	pi->size = sizeof(*pi);
	return pmuk_pfm.get_pmu_info(p, pi) == PFM_SUCCESS;
}

static int pfm_is_atom(const pfm_pmu_info_t *pi)
{
	static const char *const atomish[] = { "atom", "grt", "cmt", "gracemont", "crestmont", "tremont" };

	for (size_t i = 0; i < sizeof(atomish) / sizeof(atomish[0]); i++)
		if (strcasestr(pi->name, atomish[i]) || (pi->desc && strcasestr(pi->desc, atomish[i])))
			return 1;
	return 0;
}

/* Counter budget from libpfm4's present core PMU. On hybrid parts libpfm4 lists one
 * PMU per core type; cpu_atom takes the Atom-like one, every other core PMU the rest. */
static void pfm_counters(const char *name, int *gp, int *fixed)
{
	int want_atom = !strcmp(name, "cpu_atom"), found = 0;
	pfm_pmu_info_t pi;
	pfm_pmu_t p;

	if (!pmuk_pfm_ready())
		return;
	pfm_for_all_pmus(p) {
		if (!pmuk_pfm_pmu_info(p, &pi) || !pi.is_present ||
		    pi.type != PFM_PMU_TYPE_CORE)
			continue;
		if (found && pfm_is_atom(&pi) != want_atom)
			continue;
		*gp = pi.num_cntrs;
		*fixed = pi.num_fixed_cntrs;
		found = 1;
		if (pfm_is_atom(&pi) == want_atom)
			return;
	}
}
#else
int pmuk_pfm_ready(void)
{
	return 0;
}

const char *pmuk_pfm_why(void)
{
	return NULL;
}

static void pfm_counters(const char *name, int *gp, int *fixed)
{
	(void)name;
	(void)gp;
	(void)fixed;
}
#endif

/* perf's rule: "cpu" (and s390 "cpum_cf"), or any PMU with a cpus file
 * (cpu_core/cpu_atom on hybrid x86, armv8_pmuv3_0, arm_cortex_a53, ...). */
static int pmu_is_core(const char *name)
{
	char path[PATH_MAX];

	if (!strcmp(name, "cpu") || !strcmp(name, "cpum_cf"))
		return 1;
	if (pmuk_path(path, sizeof(path), DEVICES "/%s/cpus", name))
		return 0;
	return pmuk_exists(path);
}

static int pmu_read(const char *name, struct pmu_device *d)
{
	char path[PATH_MAX];
	uint64_t type;

	if (strlen(name) >= sizeof(d->name))
		return PMU_ERANGE;
	if (pmuk_path(path, sizeof(path), DEVICES "/%s/type", name) || pmuk_read_u64(path, &type) ||
	    type > UINT32_MAX)
		return PMU_ENOENT;
	memset(d, 0, sizeof(*d));
	strcpy(d->name, name);
	d->type = (uint32_t)type;
	d->is_core = pmu_is_core(name);
	d->gp_counters = -1;
	d->fixed_counters = -1;
	/* cpus: the CPUs a core PMU serves; cpumask: where an uncore PMU is opened. */
	if (!pmuk_path(path, sizeof(path), DEVICES "/%s/cpus", name) &&
	    pmuk_read_text(path, d->cpus, sizeof(d->cpus)) < 0)
		d->cpus[0] = '\0';
	if (!d->cpus[0] && !pmuk_path(path, sizeof(path), DEVICES "/%s/cpumask", name) &&
	    pmuk_read_text(path, d->cpus, sizeof(d->cpus)) < 0)
		d->cpus[0] = '\0';
	return 0;
}

/* The counter budget is asked of libpfm4 only for what pmu_device_lookup and
 * pmu_device_core_list return: the scan behind every event name does not load it
 * (2 MB in a process that names only generic events, pmukit exporter's pmu
 * collector on every host with a core PMU). */
static void budget(struct pmu_device *d)
{
	if (d->is_core && d->gp_counters < 0)
		pfm_counters(d->name, &d->gp_counters, &d->fixed_counters);
}

static int dev_cmp(const void *a, const void *b)
{
	return strcmp(((const struct pmu_device *)a)->name, ((const struct pmu_device *)b)->name);
}

static int scan(struct pmu_device **out, int *n)
{
	struct pmu_device *v = NULL;
	char path[PATH_MAX];
	struct dirent *de;
	size_t cnt = 0, cap = 0;
	DIR *d;

	*out = NULL;
	*n = 0;
	if (pmuk_path(path, sizeof(path), DEVICES))
		return PMU_ERANGE;
	d = opendir(path);
	if (!d)
		return 0; /* no perf_event support at all: no PMUs */
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if (pmuk_grow((void **)&v, &cap, cnt + 1, sizeof(*v))) {
			closedir(d);
			free(v);
			return pmuk_fail(PMU_ENOMEM, "out of memory listing PMUs");
		}
		if (!pmu_read(de->d_name, &v[cnt]))
			cnt++;
	}
	closedir(d);
	if (cnt)
		qsort(v, cnt, sizeof(*v), dev_cmp);
	*out = v;
	*n = (int)cnt;
	return 0;
}

/* The PMU list is read once per sysroot: without this every pmu_event_parse()
 * re-read /sys (19 files for "cycles"). It is read again when the sysroot changes
 * or the devices directory does (a fixture tree gaining or losing a PMU). Like
 * perf, a PMU the kernel registers later (module load) is seen by a new process. */
static struct {
	pthread_mutex_t lock;
	char root[4096];      /* as long as pmu_sysroot() may be */
	struct stat st;       /* of the devices directory; all 0 when absent */
	struct pmu_device *v;
	int n, valid;
} scan_cache = { .lock = PTHREAD_MUTEX_INITIALIZER };

static int same_dir(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino && a->st_nlink == b->st_nlink &&
	       a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec &&
	       a->st_ctim.tv_sec == b->st_ctim.tv_sec && a->st_ctim.tv_nsec == b->st_ctim.tv_nsec;
}

int pmuk_pmu_scan(struct pmu_device **out, int *n)
{
	const char *root = pmu_sysroot();
	char path[PATH_MAX];
	struct stat st;
	int ret = 0;

	*out = NULL;
	*n = 0;
	if (pmuk_path(path, sizeof(path), DEVICES))
		return PMU_ERANGE;
	memset(&st, 0, sizeof(st));
	if (stat(path, &st))
		memset(&st, 0, sizeof(st));
	pthread_mutex_lock(&scan_cache.lock);
	if (!scan_cache.valid || strcmp(scan_cache.root, root) || !same_dir(&scan_cache.st, &st)) {
		struct pmu_device *v;
		int cnt;

		scan_cache.valid = 0;
		ret = scan(&v, &cnt);
		if (!ret) {
			free(scan_cache.v);
			scan_cache.v = v;
			scan_cache.n = cnt;
			snprintf(scan_cache.root, sizeof(scan_cache.root), "%s", root);
			scan_cache.st = st;
			scan_cache.valid = 1;
		}
	}
	if (scan_cache.valid && scan_cache.n) {
		*out = malloc(scan_cache.n * sizeof(**out));
		if (*out) {
			memcpy(*out, scan_cache.v, scan_cache.n * sizeof(**out));
			*n = scan_cache.n;
		} else {
			ret = pmuk_fail(PMU_ENOMEM, "out of memory listing PMUs");
		}
	}
	pthread_mutex_unlock(&scan_cache.lock);
	return ret;
}

/* PMUs whose events the kernel schedules in the software context (task_ctx_nr ==
 * perf_sw_context): such an event may join a group of hardware events, as perf's
 * perf_pmu__is_software() also knows them. */
int pmuk_pmu_is_software(const char *name, uint32_t type)
{
	static const char *const sw[] = { "software", "tracepoint", "breakpoint", "msr", "kprobe",
					  "uprobe" };

	if (type == PERF_TYPE_SOFTWARE || type == PERF_TYPE_TRACEPOINT ||
	    type == PERF_TYPE_BREAKPOINT)
		return 1;
	if (type == PERF_TYPE_HARDWARE || type == PERF_TYPE_HW_CACHE || type == PERF_TYPE_RAW)
		return 0;
	for (size_t i = 0; name && i < sizeof(sw) / sizeof(sw[0]); i++)
		if (!strcmp(name, sw[i]))
			return 1;
	return 0;
}

int pmuk_os_device_lookup(const char *name, struct pmu_device *out)
{
	if (strchr(name, '/') || !strcmp(name, ".") || !strcmp(name, "..") || pmu_read(name, out))
		return pmuk_fail(PMU_ENOENT, "no PMU named '%s' in %s", name, DEVICES);
	budget(out);
	return 0;
}

int pmuk_os_device_core_list(struct pmu_device *out, int max)
{
	struct pmu_device *v;
	int n, ret, cnt = 0;

	ret = pmuk_pmu_scan(&v, &n);
	if (ret)
		return ret;
	for (int i = 0; i < n; i++) {
		if (!v[i].is_core)
			continue;
		if (out && cnt < max) {
			out[cnt] = v[i];
			budget(&out[cnt]);
		}
		cnt++;
	}
	free(v);
	return cnt;
}

static int parse_u(const char **s, unsigned *v)
{
	char *end;
	unsigned long x;

	if (**s < '0' || **s > '9') /* strtoul would take spaces and signs */
		return -1;
	x = strtoul(*s, &end, 10);
	if (x > 63)
		return -1;
	*v = (unsigned)x;
	*s = end;
	return 0;
}

int pmuk_format_parse(const char *text, struct pmuk_format *f)
{
	static const char *const words[PMUK_CONFIG_WORDS] = { "config", "config1", "config2",
							      "config3" };
	const char *s = text;
	unsigned lo, hi;

	f->mask = 0;
	f->word = -1;
	for (int w = 0; w < PMUK_CONFIG_WORDS; w++) {
		size_t l = strlen(words[w]);

		if (!strncmp(s, words[w], l) && s[l] == ':') {
			f->word = w;
			s += l + 1;
			break;
		}
	}
	if (f->word < 0)
		return PMU_EFORMAT;
	for (;;) {
		if (parse_u(&s, &lo))
			return PMU_EFORMAT;
		hi = lo;
		if (*s == '-' && (s++, parse_u(&s, &hi) || hi < lo))
			return PMU_EFORMAT;
		for (unsigned b = lo; b <= hi; b++)
			f->mask |= 1ULL << b;
		if (*s != ',')
			break;
		s++;
	}
	return *s && *s != '\n' ? PMU_EFORMAT : 0;
}

int pmuk_format_apply(const struct pmuk_format *f, uint64_t val, uint64_t cfg[PMUK_CONFIG_WORDS])
{
	int bits = __builtin_popcountll(f->mask), k = 0;

	if (bits < 64 && (val >> bits))
		return PMU_ERANGE;
	for (int b = 0; b < 64; b++) {
		if (!(f->mask >> b & 1))
			continue;
		cfg[f->word] &= ~(1ULL << b);
		if (val >> k & 1)
			cfg[f->word] |= 1ULL << b;
		k++;
	}
	return 0;
}

int pmuk_pmu_formats(const char *pmu, struct pmuk_format **out, int *n)
{
	struct pmuk_format *v = NULL;
	char path[PATH_MAX], text[256];
	struct dirent *de;
	size_t cnt = 0, cap = 0;
	DIR *d;

	*out = NULL;
	*n = 0;
	if (pmuk_path(path, sizeof(path), DEVICES "/%s/format", pmu))
		return PMU_ERANGE;
	d = opendir(path);
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		struct pmuk_format f;

		if (de->d_name[0] == '.' || strlen(de->d_name) >= sizeof(f.name))
			continue;
		if (pmuk_path(path, sizeof(path), DEVICES "/%s/format/%s", pmu, de->d_name) ||
		    pmuk_read_text(path, text, sizeof(text)) < 0 || pmuk_format_parse(text, &f)) {
			pmuk_log(PMU_LOG_WARN, "%s: ignoring unreadable format '%s'", pmu, de->d_name);
			continue;
		}
		strcpy(f.name, de->d_name);
		if (pmuk_grow((void **)&v, &cap, cnt + 1, sizeof(*v))) {
			closedir(d);
			free(v);
			return pmuk_fail(PMU_ENOMEM, "out of memory reading PMU formats");
		}
		v[cnt++] = f;
	}
	closedir(d);
	*out = v;
	*n = (int)cnt;
	return 0;
}

int pmuk_pmu_alias(const char *pmu, const char *alias, char *buf, size_t n)
{
	char path[PATH_MAX];
	int ret;

	if (strchr(alias, '/') || alias[0] == '.')
		return PMU_ENOENT;
	if (pmuk_path(path, sizeof(path), DEVICES "/%s/events/%s", pmu, alias))
		return PMU_ENOENT;
	ret = pmuk_read_text(path, buf, n);
	return ret < 0 ? ret : 0;
}

/* Companion files describing an alias, not events themselves. */
static int alias_meta(const char *name)
{
	static const char *const sfx[] = { ".scale", ".unit", ".per-pkg", ".snapshot" };
	size_t len = strlen(name);

	for (size_t i = 0; i < sizeof(sfx) / sizeof(sfx[0]); i++) {
		size_t l = strlen(sfx[i]);

		if (len > l && !strcmp(name + len - l, sfx[i]))
			return 1;
	}
	return 0;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(a, b);
}

int pmuk_pmu_alias_names(const char *pmu, char (**out)[64], int *n)
{
	char (*v)[64] = NULL;
	char path[PATH_MAX];
	struct dirent *de;
	size_t cnt = 0, cap = 0;
	DIR *d;

	*out = NULL;
	*n = 0;
	if (pmuk_path(path, sizeof(path), DEVICES "/%s/events", pmu))
		return PMU_ERANGE;
	d = opendir(path);
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' || alias_meta(de->d_name) || strlen(de->d_name) >= 64)
			continue;
		if (pmuk_grow((void **)&v, &cap, cnt + 1, sizeof(*v))) {
			closedir(d);
			free(v);
			return pmuk_fail(PMU_ENOMEM, "out of memory listing PMU events");
		}
		strcpy(v[cnt++], de->d_name);
	}
	closedir(d);
	if (cnt)
		qsort(v, cnt, sizeof(*v), name_cmp);
	*out = v;
	*n = (int)cnt;
	return 0;
}
