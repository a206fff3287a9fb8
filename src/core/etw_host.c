/* SPDX-License-Identifier: MIT */
/* Host decisions of the Windows backend, OS-neutral (core/etw_host.h). */
#include "core/etw_host.h"
#include "core/etw_config.h"
#include "core/error.h"
#include "core/le.h"

#include <stdio.h>
#include <string.h>

/* Decimal digits at *s up to a terminator in stop; 0 when none or too large. */
static int digits(const char **s, uint32_t *v, const char *stop)
{
	uint64_t x = 0;
	const char *p = *s;

	if (*p < '0' || *p > '9')
		return 0;
	for (; *p >= '0' && *p <= '9'; p++)
		if ((x = x * 10 + (uint64_t)(*p - '0')) > UINT32_MAX)
			return 0;
	if (!strchr(stop, *p))
		return 0;
	*s = p;
	*v = (uint32_t)x;
	return 1;
}

int pmuk_etw_session_name_pid(const char *name, uint32_t *pid)
{
	const char *p = name;
	uint32_t n;

	if (!name || strncmp(name, PMUK_ETW_NAME_PREFIX, strlen(PMUK_ETW_NAME_PREFIX)))
		return 0;
	p += strlen(PMUK_ETW_NAME_PREFIX);
	if (!digits(&p, pid, "-"))  /* "-" or the final NUL (strchr finds it) */
		return 0;
	if (!*p)
		return 1;
	p++;
	return digits(&p, &n, "") && !*p;
}

int pmuk_etw_sweep_decide(const char *name, uint32_t self_pid, int (*alive)(uint32_t pid,
			  void *ctx), void *ctx)
{
	uint32_t pid;

	if (!pmuk_etw_session_name_pid(name, &pid) || pid == self_pid)
		return 0;
	return alive(pid, ctx) == 0;
}

static const char *const hv_names[][2] = {
	{ "KVMKVMKVM", "KVM" }, { "Microsoft Hv", "Hyper-V" }, { "VMwareVMware", "VMware" },
	{ "XenVMMXenVMM", "Xen" }, { "TCGTCGTCGTCG", "QEMU TCG" }, { "VBoxVBoxVBox", "VirtualBox" },
};

static void signature(const struct pmuk_cpuid_hv *c, char sig[13])
{
	memcpy(sig, c->hv_sig, 12);
	sig[12] = '\0';
}

int pmuk_cpuid_hv_wants_features(const struct pmuk_cpuid_hv *c)
{
	char sig[13];

	signature(c, sig);
	return (c->leaf1_ecx >> 31 & 1) && !strcmp(sig, "Microsoft Hv") &&
	       c->hv_max >= 0x40000003u;
}

void pmuk_cpuid_hv_decode(const struct pmuk_cpuid_hv *c, struct pmuk_hv_verdict *v)
{
	char sig[13];

	memset(v, 0, sizeof(*v));
	if (!(c->leaf1_ecx >> 31 & 1))
		return;
	signature(c, sig);
	snprintf(v->name, sizeof(v->name), "%s", sig);
	for (size_t i = 0; i < sizeof(hv_names) / sizeof(hv_names[0]); i++)
		if (!strcmp(sig, hv_names[i][0]))
			snprintf(v->name, sizeof(v->name), "%s", hv_names[i][1]);
	v->root = pmuk_cpuid_hv_wants_features(c) && (c->hv_features_ebx & 1);
	v->vm = !v->root;
	if (v->root)
		snprintf(v->name, sizeof(v->name), "Hyper-V root partition");
}

int pmuk_etw_owners_parse(const void *buf, size_t len, uint32_t *ncounters, uint32_t *held,
			  char *list, size_t list_len)
{
	const uint8_t *p = buf;
	size_t o = 0;
	uint32_t n;

	*ncounters = *held = 0;
	if (list_len)
		list[0] = '\0';
	if (len < 8)
		return pmuk_fail(PMU_EFORMAT, "a %zu-byte PMC ownership status is shorter than "
				 "its 8-byte head", len);
	n = pmuk_le32(p + 4);
	if (n > (len - 8) / 12)
		return pmuk_fail(PMU_EFORMAT, "the PMC ownership status names %u counters but "
				 "its %zu bytes hold %zu", n, len, (len - 8) / 12);
	*ncounters = n;
	for (uint32_t i = 0; i < n; i++) {
		const uint8_t *w = p + 8 + 12 * i;
		uint32_t type = pmuk_le32(w);

		if (!type)
			continue;
		(*held)++;
		if (o < list_len) {
			int k = snprintf(list + o, list_len - o, "%scounter %u: %s %u (source %u)",
					 o ? ", " : "", i, type == 1 ? "untagged owner" :
					 "owner tag", pmuk_le32(w + 8), pmuk_le32(w + 4));

			o = k < 0 ? list_len : o + (size_t)k;
		}
	}
	return 0;
}

int pmuk_etw_pmc_decide(size_t n, int sampling, int max_query, int held)
{
	int budget = pmuk_etw_pmc_budget(sampling, max_query);
	int err = pmuk_etw_pmc_check(n, sampling, max_query);

	if (err || held <= 0)
		return err;
	if (n + (size_t)held > (size_t)budget)
		return pmuk_fail(PMU_EBUSY, "%zu hardware counters asked for, but %d of the %d "
				 "an ETW session gets are held by another profiler "
				 "(TracePmcCounterOwners); wait for it to end or ask for %d", n,
				 held, budget, budget > held ? budget - held : 0);
	return 0;
}

uint32_t pmuk_hcp_read_flags(uint32_t enable_flags, uint64_t hw_counters)
{
	return (enable_flags & 1u) | (hw_counters ? 2u : 0u);
}
