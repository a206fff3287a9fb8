/* SPDX-License-Identifier: MIT */
/* The header features of a recording, gathered from the host at its end: what
 * `perf report --header-only` shows (host, OS release, version, arch, CPUs,
 * CPU description and id, memory, command line, events, sample times, clock),
 * the build-ids of the modules samples hit, and the tracepoint formats. */
#include "linux/record_int.h"
#include "linux/buildid.h"
#include "linux/tracing_data.h"
#include "core/error.h"
#include "core/sysroot.h"

#include <pmukit/version.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

static int feature(struct pmu_recording *r, int feat, struct pmuk_pw_buf *b)
{
	int err = b->err ? pmuk_fail(PMU_ENOMEM, "out of memory building header feature %d",
				    feat) : pmuk_pw_feature(r->w, feat, b->p, b->n);

	pmuk_pw_buf_free(b);
	return err;
}

static int string_feature(struct pmu_recording *r, int feat, const char *s)
{
	struct pmuk_pw_buf b = { 0 };

	pmuk_pw_str(&b, s);
	return feature(r, feat, &b);
}

/* The value of the first "key<blanks>: value" line of /proc/cpuinfo ("" if none). */
static void cpuinfo(const char *text, const char *key, char *out, size_t size)
{
	size_t kl = strlen(key);

	out[0] = 0;
	for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		const char *c = strchr(l, ':'), *nl = strchr(l, '\n');

		if (strncmp(l, key, kl) || !c || (nl && c > nl) || strspn(l + kl, " \t") != (size_t)(c - l - kl))
			continue;
		c += 1 + strspn(c + 1, " \t");
		snprintf(out, size, "%.*s", nl ? (int)(nl - c) : (int)strlen(c), c);
		return;
	}
}

/* CPUDESC and CPUID as perf spells them: x86 "GenuineIntel,6,85,4", arm64 MIDR. */
static int cpu_features(struct pmu_recording *r, const struct utsname *u)
{
	static char text[65536];
	char desc[256], vendor[64], fam[16], model[16], step[16], id[128];
	uint64_t midr;
	int err;

	if (pmuk_read_text("/proc/cpuinfo", text, sizeof(text)) < 0)
		text[0] = 0;
	cpuinfo(text, "model name", desc, sizeof(desc));
	if ((err = string_feature(r, HEADER_CPUDESC, desc[0] ? desc : u->machine)) < 0)
		return err;
	cpuinfo(text, "vendor_id", vendor, sizeof(vendor));
	cpuinfo(text, "cpu family", fam, sizeof(fam));
	cpuinfo(text, "model", model, sizeof(model));
	cpuinfo(text, "stepping", step, sizeof(step));
	if (vendor[0])
		snprintf(id, sizeof(id), "%s,%s,%s,%s", vendor, fam, model, step);
	else if (pmuk_read_u64("/sys/devices/system/cpu/cpu0/regs/identification/midr_el1",
			       &midr) == 0)
		snprintf(id, sizeof(id), "0x%016llx", (unsigned long long)midr);
	else
		return 0;
	return string_feature(r, HEADER_CPUID, id);
}

static int host_features(struct pmu_recording *r)
{
	struct pmuk_pw_buf b = { 0 };
	struct utsname u;
	char text[4096], *p;
	long conf = sysconf(_SC_NPROCESSORS_CONF), onl = sysconf(_SC_NPROCESSORS_ONLN);
	int err;

	if (uname(&u) < 0)
		return pmuk_fail(PMU_EIO, "uname failed naming the host of %s", r->path);
	if ((err = string_feature(r, HEADER_HOSTNAME, u.nodename)) < 0 ||
	    (err = string_feature(r, HEADER_OSRELEASE, u.release)) < 0 ||
	    (err = string_feature(r, HEADER_VERSION, pmu_version())) < 0 ||
	    (err = string_feature(r, HEADER_ARCH, u.machine)) < 0 ||
	    (err = cpu_features(r, &u)) < 0)
		return err;
	pmuk_pwf_nrcpus(&b, (uint32_t)(conf > 0 ? conf : 1), (uint32_t)(onl > 0 ? onl : 1));
	if ((err = feature(r, HEADER_NRCPUS, &b)) < 0)
		return err;
	if (pmuk_read_text("/proc/meminfo", text, sizeof(text)) >= 0 &&
	    (p = strstr(text, "MemTotal:"))) {
		pmuk_pw_u64(&b, strtoull(p + 9, NULL, 10));
		if ((err = feature(r, HEADER_TOTAL_MEM, &b)) < 0)
			return err;
	}
	return 0;
}

/* The command line of this process, as perf stores its own. */
static int cmdline_feature(struct pmu_recording *r)
{
	struct pmuk_pw_buf b = { 0 };
	char buf[8192];
	const char *argv[256];
	size_t argc = 0, n = 0;
	FILE *f = fopen("/proc/self/cmdline", "rb");

	if (f) {
		n = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
	}
	buf[n] = 0;
	for (size_t i = 0; i < n && argc < 256; i += strlen(buf + i) + 1)
		argv[argc++] = buf + i;
	pmuk_pwf_cmdline(&b, argv, argc);
	return feature(r, HEADER_CMDLINE, &b);
}

static int event_features(struct pmu_recording *r)
{
	struct pmuk_pw_buf b = { 0 };
	size_t max = pmuk_sampler_units(r->s);
	uint64_t *ids = calloc(max ? max : 1, sizeof(*ids));
	struct timespec res;

	if (!ids)
		return pmuk_fail(PMU_ENOMEM, "out of memory describing the events");
	pmuk_pwf_event_desc_begin(&b, (uint32_t)r->nev, sizeof(struct perf_event_attr));
	for (size_t e = 0; e < r->nev; e++) {
		size_t n = pmuk_sampler_ids(r->s, e, ids, max);

		pmuk_pwf_event_desc(&b, pmuk_sampler_attr(r->s, e), sizeof(struct perf_event_attr),
				    r->ev[e].name, ids, n);
	}
	free(ids);
	int err = feature(r, HEADER_EVENT_DESC, &b);

	if (err < 0)
		return err;
	pmuk_pw_u64(&b, r->first_time);
	pmuk_pw_u64(&b, r->last_time);
	if ((err = feature(r, HEADER_SAMPLE_TIME, &b)) < 0)
		return err;
	if (clock_getres(CLOCK_MONOTONIC, &res) < 0)
		res = (struct timespec){ 0, 1 };
	pmuk_pw_u64(&b, (uint64_t)res.tv_sec * 1000000000u + (uint64_t)res.tv_nsec);
	return feature(r, HEADER_CLOCKID, &b);
}

/* A hit module's build-id when its mapping did not carry one: read from the
 * file, /sys/kernel/notes or /sys/module. 0 when there is none to read. */
static size_t build_id_of(struct rec_dso *d)
{
	const char *base = strrchr(d->path, '/');
	char name[256];
	size_t len = 0;
	int err;

	if (d->build_id_size)
		return d->build_id_size;
	if (!strncmp(d->path, "[kernel.kallsyms]", 17))
		err = pmuk_build_id_kernel(d->build_id, &len);
	else if (d->kernel) {
		snprintf(name, sizeof(name), "%s", d->path[0] == '[' ? d->path + 1 :
			 base ? base + 1 : d->path);
		name[strcspn(name, "].")] = 0;
		for (char *c = name; *c; c++)
			*c = *c == '-' ? '_' : *c;
		err = pmuk_build_id_module(name, d->build_id, &len);
	} else if (d->path[0] == '/')
		err = pmuk_build_id_of_file(d->path, d->build_id, &len);
	else
		return 0;
	d->build_id_size = err == 0 ? (uint8_t)len : 0;
	return d->build_id_size;
}

/* Whether module i's path and build-id are an earlier hit module's: a mapping
 * whose record carried no build-id (the kernel could not read the note then)
 * gets the file's at the end, often the same as another mapping's. */
static int listed(const struct rec_maps *m, size_t i)
{
	const struct rec_dso *d = &m->dso[i];

	for (size_t j = 0; j < i; j++)
		if (m->dso[j].hit && m->dso[j].build_id_size == d->build_id_size &&
		    !memcmp(m->dso[j].build_id, d->build_id, d->build_id_size) &&
		    !strcmp(m->dso[j].path, d->path))
			return 1;
	return 0;
}

static int build_id_feature(struct pmu_recording *r)
{
	struct pmuk_pw_buf b = { 0 };

	for (size_t i = 0; i < r->maps.ndso; i++) {
		struct rec_dso *d = &r->maps.dso[i];

		/* perf names the kernel's dso [kernel.kallsyms], not its map's _text */
		if (d->hit && build_id_of(d) && !listed(&r->maps, i))
			pmuk_pwf_build_id(&b, d->kernel ? PERF_REC_MISC_KERNEL : PERF_REC_MISC_USER, -1,
					  d->build_id, d->build_id_size,
					  strncmp(d->path, "[kernel.kallsyms]", 17) ? d->path :
					  "[kernel.kallsyms]");
	}
	return feature(r, HEADER_BUILD_ID, &b);
}

/* The nodes with their CPUs (perf's layout), and -d's page answers. */
static int node_features(struct pmu_recording *r)
{
	struct pmuk_pw_buf b = { 0 };
	int err = pmuk_numa_topology_body(&b);

	if (!err && b.n)
		err = feature(r, HEADER_NUMA_TOPOLOGY, &b);  /* frees b */
	pmuk_pw_buf_free(&b);
	if (err < 0 || !r->nodes.on)
		return err;
	pmuk_rec_nodes_body(&r->nodes, &b);
	return feature(r, PMUK_FEAT_NODES, &b);
}

/* "sys:name" of each tracepoint, modifiers dropped. */
int pmuk_rec_tracing(struct pmu_recording *r)
{
	char (*names)[128] = calloc(r->nev, sizeof(*names));
	const char **list = calloc(r->nev, sizeof(*list));
	size_t n = 0, size = 0;
	void *blob = NULL;
	int err;

	if (!names || !list) {
		free(names);
		free(list);
		return pmuk_fail(PMU_ENOMEM, "out of memory listing the tracepoints");
	}
	for (size_t e = 0; e < r->nev; e++) {
		char *c;

		if (r->ev[e].type != PERF_TYPE_TRACEPOINT)
			continue;
		snprintf(names[n], sizeof(names[n]), "%s", r->ev[e].name);
		if ((c = strchr(names[n], ':')) && (c = strchr(c + 1, ':')))
			*c = 0;
		list[n] = names[n];
		n++;
	}
	err = pmuk_tracing_data(list, n, &blob, &size);
	if (!err)
		err = pmuk_pw_feature(r->w, HEADER_TRACING_DATA, blob, size);
	free(blob);
	free(names);
	free(list);
	return err;
}

int pmuk_rec_features(struct pmu_recording *r)
{
	int err;

	if ((err = host_features(r)) < 0 || (err = cmdline_feature(r)) < 0 ||
	    (err = event_features(r)) < 0)
		return err;
	/* an empty section whose presence tells perf report the samples have branch stacks */
	if (r->o.branches && (err = pmuk_pw_feature(r->w, HEADER_BRANCH_STACK, NULL, 0)) < 0)
		return err;
	if ((err = node_features(r)) < 0)
		return err;
	return build_id_feature(r);
}
