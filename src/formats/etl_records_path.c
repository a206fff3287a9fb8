/* SPDX-License-Identifier: MIT */
/* Image paths as the user knows them: the kernel logs NT paths
 * ("\Device\HarddiskVolume2\Windows\...", "\SystemRoot\system32\..."), the
 * trace's SysConfigEx VolumeMapping events say which drive letter each volume
 * had, its SystemPaths event which drive Windows is on (kernel paths without
 * a device, "\Windows\...", are on that drive). */
#include "core/error.h"
#include "core/grow.h"
#include "formats/etl_int.h"
#include "formats/etl_records_int.h"

#include <stdio.h>
#include <stdlib.h>

int pmuk_er_volume_collect(struct er_tables *t, const struct pmu_etl_event *ev)
{
	struct pmu_etl_sysconfig_paths_ev p;

	if (pmu_etl_decode_sysconfig_paths(ev, &p))
		return 0;
	if (p.opcode == 33) {	/* "C:\Windows\": the system drive */
		if (p.second[0] && p.second[1] == ':')
			snprintf(t->sysdrive, sizeof(t->sysdrive), "%c:", p.second[0]);
		return 0;
	}
	/* device prefixes with a drive or directory; not the network ones ("\\") */
	if (p.first[0] != '\\' || !p.second[0] || p.second[0] == '\\')
		return 0;
	if (pmuk_grow((void **)&t->vol, &t->cap_vol, t->n_vol + 1, sizeof(*t->vol)))
		return pmuk_fail(PMU_ENOMEM, "no memory for %zu volume mappings", t->n_vol + 1);
	t->vol[t->n_vol].nt = strdup(p.first);	/* freed with the tables */
	t->vol[t->n_vol].dos = strdup(p.second);
	if (!t->vol[t->n_vol].nt || !t->vol[t->n_vol++].dos)
		return pmuk_fail(PMU_ENOMEM, "no memory for a volume mapping");
	return 0;
}

/* Length of prefix when s starts with it, ignoring ASCII case (NT paths are
 * case-insensitive), else 0. */
static size_t prefix(const char *s, const char *prefix)
{
	size_t n = 0;

	for (; prefix[n]; n++) {
		char a = s[n], b = prefix[n];
		if (a >= 'A' && a <= 'Z')
			a = (char)(a - 'A' + 'a');
		if (b >= 'A' && b <= 'Z')
			b = (char)(b - 'A' + 'a');
		if (a != b)
			return 0;
	}
	return n;
}

void pmuk_etl_map_path(const struct pmuk_etl_volume *v, size_t nv, const char *sysdrive,
		       const char *in, char *out, size_t size)
{
	size_t best = 0, n;
	const char *dos = NULL;

	/* whole components only: "\Device\HarddiskVolume1" is no prefix of volume 10 */
	for (size_t i = 0; i < nv; i++)
		if ((n = prefix(in, v[i].nt)) > best &&
		    (v[i].nt[n - 1] == '\\' || in[n] == '\\' || !in[n]))
			best = n, dos = v[i].dos;
	if (dos)
		snprintf(out, size, "%s%s", dos, in + best);
	else if ((n = prefix(in, "\\??\\")) && in[n] && in[n + 1] == ':')
		snprintf(out, size, "%s", in + n);
	else if (in[0] == '\\' && in[1] != '\\' && sysdrive[0] && !prefix(in, "\\Device\\") &&
		 !prefix(in, "\\SystemRoot\\"))
		snprintf(out, size, "%s%s", sysdrive, in);
	else
		snprintf(out, size, "%s", in);
}

void pmuk_er_path(const struct er_tables *t, const char *in, char *out, size_t size)
{
	pmuk_etl_map_path(t->vol, t->n_vol, t->sysdrive, in, out, size);
}

void pmuk_er_volumes_free(struct er_tables *t)
{
	for (size_t i = 0; i < t->n_vol; i++)
		free((char *)t->vol[i].nt), free((char *)t->vol[i].dos);
	free(t->vol);
	t->vol = NULL;
	t->n_vol = t->cap_vol = 0;
}
