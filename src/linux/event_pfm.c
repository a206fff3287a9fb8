/* SPDX-License-Identifier: MIT */
/* Names resolved outside the generic tables: libpfm4 event names and tracepoints. */
#include "linux/event_resolve.h"
#include "linux/pmu_sysfs.h"
#include "core/error.h"
#include "core/sysroot.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>

#ifdef PMUKIT_HAVE_PFM
#include <perfmon/pfmlib_perf_event.h>
#endif

#define TRACEFS_DIR "/sys/kernel/tracing"

/* errno of pmukit's own attempt to mount tracefs; 0 when none was made. */
static int mount_errno;

static int tracefs_find(char *buf, size_t n, int *denied)
{
	static const char *const roots[] = { TRACEFS_DIR, "/sys/kernel/debug/tracing" };
	struct stat st;

	for (size_t i = 0; i < sizeof(roots) / sizeof(roots[0]); i++) {
		/* A mounted tracefs always has events/header_page. */
		if (pmuk_path(buf, n, "%s/events/header_page", roots[i]))
			continue;
		if (!stat(buf, &st))
			return pmuk_path(buf, n, "%s/events", roots[i]);
		*denied |= errno == EACCES;
	}
	return PMU_ENOENT;
}

/* perf's habit: when tracefs is not mounted, mount it where it belongs (root may).
 * Only on the live host (no sysroot), and tried once per process. */
static int tracefs_mount(void)
{
	static int tried;

	if (*pmu_sysroot() || tried++)
		return -1;
	if (!mount("nodev", TRACEFS_DIR, "tracefs", 0, NULL))
		return 0;
	mount_errno = errno ? errno : EPERM;
	return -1;
}

int pmuk_tracefs_events(char *buf, size_t n)
{
	int denied = 0;

	if (!tracefs_find(buf, n, &denied))
		return 0;
	if (!denied && !tracefs_mount() && !tracefs_find(buf, n, &denied))
		return 0;
	return denied ? PMU_EPERM : PMU_ENOENT;
}

const char *pmuk_tracefs_hint(int err)
{
	if (err == PMU_EPERM)
		return PMUK_TRACEFS_PERM_HINT;
	switch (mount_errno) {
	case 0:
		return PMUK_TRACEFS_HINT;
	case EPERM:
	case EACCES:
		/* at most 159 bytes: it is also a listing's reason */
		return "tracefs is not mounted and only root may mount it: run pmukit as root "
		       "(it mounts tracefs), or as root: mount -t tracefs nodev " TRACEFS_DIR;
	case ENODEV:
		return "this kernel has no tracefs (built without CONFIG_TRACING): boot a kernel "
		       "with CONFIG_FTRACE and CONFIG_EVENT_TRACING";
	default:
		return "tracefs is not mounted and mounting it at " TRACEFS_DIR " failed: mount "
		       "it with 'mount -t tracefs nodev " TRACEFS_DIR "'";
	}
}

static int tp_part(const char *s, size_t n)
{
	if (!n || n > 64)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '_' && s[i] != '-' && s[i] != '.')
			return 0;
	return 1;
}

/* looks_like: 0 not tracepoint-shaped, 1 the subsystem exists, 2 tracefs is not mounted,
 * 3 tracepoint-shaped but the subsystem does not exist, 4 tracefs is not readable. */
int pmuk_resolve_tracepoint(const char *name, struct pmu_event *ev, int *looks_like)
{
	const char *colon = strchr(name, ':');
	char dir[PATH_MAX], path[PATH_MAX];
	uint64_t id;
	int ret;

	*looks_like = 0;
	if (!colon || !tp_part(name, colon - name) || !tp_part(colon + 1, strlen(colon + 1)))
		return PMU_ENOENT;
	if ((ret = pmuk_tracefs_events(dir, sizeof(dir)))) {
		*looks_like = ret == PMU_EPERM ? 4 : 2;
		return PMU_ENOENT;
	}
	if (snprintf(path, sizeof(path), "%s/%.*s", dir, (int)(colon - name), name) >= (int)sizeof(path))
		return PMU_ENOENT;
	*looks_like = pmuk_exists(path) ? 1 : 3;
	if (snprintf(path, sizeof(path), "%s/%.*s/%s/id", dir, (int)(colon - name), name,
		     colon + 1) >= (int)sizeof(path))
		return PMU_ENOENT;
	ret = pmuk_read_u64(path, &id);
	if (ret == PMU_EPERM)
		return pmuk_fail(PMU_EPERM, "cannot read %s: tracepoint ids need read access to "
				 "tracefs (run as root or adjust its permissions)", path);
	if (ret)
		return PMU_ENOENT;
	memset(ev, 0, sizeof(*ev));
	snprintf(ev->name, sizeof(ev->name), "%s", name);
	strcpy(ev->pmu, "tracepoint");
	ev->type = PERF_TYPE_TRACEPOINT;
	ev->config = id;
	return 0;
}

#ifdef PMUKIT_HAVE_PFM
static int pfm_encode(const char *name, struct perf_event_attr *attr)
{
	pfm_perf_encode_arg_t arg;

	memset(attr, 0, sizeof(*attr));
	memset(&arg, 0, sizeof(arg));
	attr->size = sizeof(*attr);
	arg.attr = attr;
	arg.size = sizeof(arg);
	/* User and kernel by default, as perf counts: a name that restricts the levels
	 * itself ("...:u", "...:k=1") shows as exclude_user or exclude_kernel. */
	return pmuk_pfm.get_os_event_encoding(name, PFM_PLM0 | PFM_PLM3, PFM_OS_PERF_EVENT_EXT, &arg);
}

int pmuk_resolve_pfm(struct pmuk_rctx *c, const struct pmuk_ev_term *t, struct pmuk_cand *k)
{
	const char *name = t->text, *colon;
	struct pmu_event *ev = &k->ev;
	const struct pmu_device *dev;
	struct perf_event_attr attr;
	char alt[PMUK_EV_TEXT_MAX], *dot;
	int ret;

	if (!pmuk_pfm_ready())
		return PMU_ENOENT;
	ret = pfm_encode(name, &attr);
	if (ret == PFM_ERR_NOTFOUND) {
		/* perf-style "inst_retired.any" is libpfm4's "inst_retired:any". */
		snprintf(alt, sizeof(alt), "%s", name);
		if ((dot = strchr(alt, '.')) && !strchr(alt, ':')) {
			*dot = ':';
			name = alt;
			ret = pfm_encode(alt, &attr);
		}
	}
	if (ret == PFM_ERR_NOTFOUND)
		return PMU_ENOENT;
	if (ret != PFM_SUCCESS) {
		colon = strchr(name, ':');
		colon = colon && colon[1] == ':' ? strchr(colon + 2, ':') : colon;
		return pmuk_fail(PMU_EINVAL, "libpfm4 cannot encode '%s' at position %d: %s (see "
				 "'pmukit list %.*s'; libpfm4's showevtinfo lists its unit masks)",
				 name, t->pos, pmuk_pfm.strerror(ret),
				 colon ? (int)(colon - name) : (int)strlen(name), name);
	}
	memset(k, 0, sizeof(*k));
	snprintf(ev->name, sizeof(ev->name), "%s", t->text);
	ev->type = attr.type;
	ev->config = attr.config;
	ev->config1 = attr.config1;
	ev->config2 = attr.config2;
	if (attr.exclude_user || attr.exclude_kernel)
		k->plm = (attr.exclude_user ? 0 : PMUK_PLM_USER) |
			 (attr.exclude_kernel ? 0 : PMUK_PLM_KERNEL) |
			 (attr.exclude_hv ? 0 : PMUK_PLM_HV);
	k->precise = attr.precise_ip;
	/* By type first: on hybrid hosts cpu_core's type is 4, PERF_TYPE_RAW itself. */
	if (attr.type == PERF_TYPE_SOFTWARE)
		strcpy(ev->pmu, "software");
	else if (attr.type == PERF_TYPE_TRACEPOINT)
		strcpy(ev->pmu, "tracepoint");
	else if ((dev = pmuk_rctx_pmu_by_type(c, attr.type)))
		snprintf(ev->pmu, sizeof(ev->pmu), "%s", dev->name);
	else if (attr.type <= PERF_TYPE_RAW && c->ncores)
		snprintf(ev->pmu, sizeof(ev->pmu), "%s", c->cores[0]->name);
	else
		strcpy(ev->pmu, "cpu");
	k->hw = !pmuk_pmu_is_software(ev->pmu, ev->type);
	return 0;
}
#else
int pmuk_resolve_pfm(struct pmuk_rctx *c, const struct pmuk_ev_term *t, struct pmuk_cand *k)
{
	(void)c;
	(void)t;
	(void)k;
	return PMU_ENOENT;
}
#endif
