/* SPDX-License-Identifier: MIT */
/* The capability matrix: its front (pmu_caps_probe), model and writers; OS-independent. */
#include "core/caps_model.h"
#include "core/grow.h"
#include "core/error.h"
#include "core/json.h"
#include "core/os_int.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define REASON_MAX 768
#define KEY_MAX 48
#define VALUE_MAX 320
#define EXPLAIN_MAX 384

struct cap_slot {
	struct pmu_cap pub;
	char reason[REASON_MAX];
	char remedy[REASON_MAX];
};

struct fact_slot {
	struct pmu_cap_fact pub;
	char key[KEY_MAX];
	char value[VALUE_MAX];
	char explanation[EXPLAIN_MAX];
};

struct pmu_caps {
	struct cap_slot caps[PMU_CONCERN_MAX];
	struct fact_slot **facts;
	size_t nfacts, capfacts;
	struct pmu_caps_host host;
	char os[16];
	char kernel[128];
	char arch[32];
	char hypervisor[64];
	int failed;
};

static const char *const concern_names[PMU_CONCERN_MAX + 1] = {
	[PMU_CONCERN_HOST] = "host",
	[PMU_CONCERN_COUNTING] = "scalar counting",
	[PMU_CONCERN_SAMPLING] = "overflow/IP sampling + stacks",
	[PMU_CONCERN_PRECISE] = "precise data-source sampling",
	[PMU_CONCERN_SYMBOLS] = "code-space decode",
	[PMU_CONCERN_TRACING] = "event space & tracing",
	[PMU_CONCERN_TOPOLOGY] = "NUMA & topology",
	[PMU_CONCERN_EVENTS] = "event naming & encoding",
	[PMU_CONCERN_OSCOUNTERS] = "OS CPU counters",
};

static const char *const status_names[] = {
	[PMU_CAP_AVAILABLE] = "available",
	[PMU_CAP_LIMITED] = "limited",
	[PMU_CAP_UNAVAILABLE] = "unavailable",
};

const char *pmu_cap_status_name(enum pmu_cap_status status)
{
	if ((unsigned)status >= sizeof(status_names) / sizeof(status_names[0]))
		return "unknown";
	return status_names[status];
}

static void copy(char *dst, size_t size, const char *src)
{
	snprintf(dst, size, "%s", src ? src : "");
}

struct pmu_caps *pmuk_caps_new(const char *os)
{
	struct pmu_caps *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	for (int i = 0; i < PMU_CONCERN_MAX; i++) {
		struct cap_slot *s = &c->caps[i];

		s->pub.id = i + 1;
		s->pub.name = concern_names[i + 1];
		s->pub.status = PMU_CAP_AVAILABLE;
		s->pub.reason = s->reason;
		s->pub.remedy = s->remedy;
	}
	copy(c->os, sizeof(c->os), os);
	c->host.os = c->os;
	c->host.kernel = c->kernel;
	c->host.arch = c->arch;
	c->host.hypervisor = c->hypervisor;
	return c;
}

static struct cap_slot *slot(struct pmu_caps *c, int id)
{
	if (!c || id < 1 || id > PMU_CONCERN_MAX)
		return NULL;
	return &c->caps[id - 1];
}

/* Appends "; " + formatted text to buf (or just the text when buf is empty). */
static void append(char *buf, size_t size, const char *fmt, va_list ap)
{
	size_t n = strlen(buf);

	if (n && n + 2 < size) {
		memcpy(buf + n, "; ", 3);
		n += 2;
	}
	if (n < size)
		vsnprintf(buf + n, size - n, fmt, ap);
}

void pmuk_caps_set(struct pmu_caps *c, enum pmu_concern id, enum pmu_cap_status st,
		   const char *fmt, ...)
{
	struct cap_slot *s = slot(c, id);
	va_list ap;

	if (!s)
		return;
	s->pub.status = st;
	va_start(ap, fmt);
	vsnprintf(s->reason, sizeof(s->reason), fmt, ap);
	va_end(ap);
}

void pmuk_caps_limit(struct pmu_caps *c, enum pmu_concern id, const char *fmt, ...)
{
	struct cap_slot *s = slot(c, id);
	va_list ap;

	if (!s)
		return;
	if (s->pub.status == PMU_CAP_AVAILABLE)
		s->pub.status = PMU_CAP_LIMITED;
	va_start(ap, fmt);
	append(s->reason, sizeof(s->reason), fmt, ap);
	va_end(ap);
}

void pmuk_caps_note(struct pmu_caps *c, enum pmu_concern id, const char *fmt, ...)
{
	struct cap_slot *s = slot(c, id);
	va_list ap;

	if (!s)
		return;
	va_start(ap, fmt);
	append(s->reason, sizeof(s->reason), fmt, ap);
	va_end(ap);
}

void pmuk_caps_remedy(struct pmu_caps *c, enum pmu_concern id, const char *fmt, ...)
{
	struct cap_slot *s = slot(c, id);
	va_list ap;

	if (!s)
		return;
	va_start(ap, fmt);
	append(s->remedy, sizeof(s->remedy), fmt, ap);
	va_end(ap);
}

void pmuk_caps_fact(struct pmu_caps *c, enum pmu_concern concern, const char *key,
		    const char *explanation,
		    const char *value_fmt, ...)
{
	struct fact_slot *f;
	va_list ap;

	if (!c)
		return;
	if (pmuk_grow((void **)&c->facts, &c->capfacts, c->nfacts + 1, sizeof(*c->facts))) {
		c->failed = 1;
		return;
	}
	f = calloc(1, sizeof(*f));
	if (!f) {
		c->failed = 1;
		return;
	}
	copy(f->key, sizeof(f->key), key);
	copy(f->explanation, sizeof(f->explanation), explanation);
	va_start(ap, value_fmt);
	vsnprintf(f->value, sizeof(f->value), value_fmt, ap);
	va_end(ap);
	f->pub.concern = concern;
	f->pub.key = f->key;
	f->pub.value = f->value;
	f->pub.explanation = f->explanation;
	c->facts[c->nfacts++] = f;
}

void pmuk_caps_host_set(struct pmu_caps *c, const char *kernel, const char *arch, int vm,
			const char *hypervisor)
{
	copy(c->kernel, sizeof(c->kernel), kernel);
	copy(c->arch, sizeof(c->arch), arch);
	copy(c->hypervisor, sizeof(c->hypervisor), hypervisor);
	c->host.vm = vm;
}

int pmuk_caps_failed(const struct pmu_caps *c)
{
	return c->failed ? pmuk_fail(PMU_ENOMEM, "out of memory while building the capability matrix")
			 : 0;
}

/* The front: the OS backend (src/linux/caps_linux.c, src/windows/caps_win.c) builds
 * the matrix with the pmuk_caps_* setters above. */
int pmu_caps_probe(struct pmu_caps **out)
{
	if (!out)
		return pmuk_fail(PMU_EINVAL, "pmu_caps_probe needs somewhere to store the matrix");
	*out = NULL;
	return pmuk_os_caps_probe(out);
}

void pmu_caps_free(struct pmu_caps *caps)
{
	if (!caps)
		return;
	for (size_t i = 0; i < caps->nfacts; i++)
		free(caps->facts[i]);
	free(caps->facts);
	free(caps);
}

const struct pmu_cap *pmu_caps_get(const struct pmu_caps *caps, int id)
{
	if (!caps || id < 1 || id > PMU_CONCERN_MAX)
		return NULL;
	return &caps->caps[id - 1].pub;
}

size_t pmu_caps_fact_count(const struct pmu_caps *caps)
{
	return caps ? caps->nfacts : 0;
}

const struct pmu_cap_fact *pmu_caps_fact_get(const struct pmu_caps *caps, size_t i)
{
	if (!caps || i >= caps->nfacts)
		return NULL;
	return &caps->facts[i]->pub;
}

const struct pmu_cap_fact *pmu_caps_fact_find(const struct pmu_caps *caps, const char *key)
{
	if (!caps || !key)
		return NULL;
	for (size_t i = 0; i < caps->nfacts; i++)
		if (!strcmp(caps->facts[i]->key, key))
			return &caps->facts[i]->pub;
	return NULL;
}

const struct pmu_caps_host *pmu_caps_host(const struct pmu_caps *caps)
{
	return caps ? &caps->host : NULL;
}

static void host_line(const struct pmu_caps *c, FILE *f)
{
	const struct pmu_caps_host *h = &c->host;

	fprintf(f, "host: %s %s %s, ", h->os, h->kernel[0] ? h->kernel : "(release unknown)",
		h->arch[0] ? h->arch : "(arch unknown)");
	if (!h->vm)
		fprintf(f, "no hypervisor detected\n");
	else if (h->hypervisor[0])
		fprintf(f, "virtual machine (%s)\n", h->hypervisor);
	else
		fprintf(f, "virtual machine (hypervisor not named)\n");
}

int pmu_caps_write_text(const struct pmu_caps *caps, FILE *f)
{
	int any = 0;

	if (!caps || !f)
		return pmuk_fail(PMU_EINVAL, "pmu_caps_write_text needs a matrix and a stream");
	host_line(caps, f);
	fprintf(f, "\n %-2s %-30s %-12s %s\n", "#", "concern", "status", "reason");
	for (int i = 0; i < PMU_CONCERN_MAX; i++) {
		const struct pmu_cap *p = &caps->caps[i].pub;

		fprintf(f, " %-2d %-30s %-12s %s\n", p->id, p->name, pmu_cap_status_name(p->status),
			p->reason);
	}
	for (int i = 0; i < PMU_CONCERN_MAX; i++) {
		const struct pmu_cap *p = &caps->caps[i].pub;

		if (!p->remedy[0])
			continue;
		if (!any++)
			fprintf(f, "\nwhat to do:\n");
		fprintf(f, " %-2d %s: %s\n", p->id, p->name, p->remedy);
	}
	fprintf(f, "\nfacts:\n");
	for (int id = 0; id <= PMU_CONCERN_MAX; id++) {
		int header = 0;

		for (size_t i = 0; i < caps->nfacts; i++) {
			const struct pmu_cap_fact *x = &caps->facts[i]->pub;

			if (x->concern != id)
				continue;
			if (!header++)
				fprintf(f, " [%d %s]\n", id, concern_names[id]);
			fprintf(f, "   %s: %s", x->key, x->value);
			if (x->explanation[0])
				fprintf(f, "  -- %s", x->explanation);
			fputc('\n', f);
		}
	}
	return ferror(f) ? pmuk_fail(PMU_EIO, "writing the capability matrix failed") : 0;
}

int pmu_caps_write_json(const struct pmu_caps *caps, FILE *f, unsigned flags)
{
	struct pmuk_json j;
	int err;

	if (!caps)
		return pmuk_fail(PMU_EINVAL, "pmu_caps_write_json needs a matrix");
	if ((err = pmuk_json_open(&j, f, flags, "pmu_caps_write_json")))
		return err;
	pmuk_json_obj_begin(&j, NULL);
	pmuk_json_obj_begin(&j, "host");
	pmuk_json_str(&j, "os", caps->host.os);
	pmuk_json_str(&j, "kernel", caps->host.kernel);
	pmuk_json_str(&j, "arch", caps->host.arch);
	pmuk_json_bool(&j, "vm", caps->host.vm);
	pmuk_json_str(&j, "hypervisor", caps->host.hypervisor);
	pmuk_json_obj_end(&j);
	pmuk_json_arr_begin(&j, "concerns");
	for (int i = 0; i < PMU_CONCERN_MAX; i++) {
		const struct pmu_cap *p = &caps->caps[i].pub;

		pmuk_json_obj_begin(&j, NULL);
		pmuk_json_int(&j, "id", p->id);
		pmuk_json_str(&j, "name", p->name);
		pmuk_json_str(&j, "status", pmu_cap_status_name(p->status));
		pmuk_json_str(&j, "reason", p->reason);
		pmuk_json_str(&j, "remedy", p->remedy);
		pmuk_json_obj_end(&j);
	}
	pmuk_json_arr_end(&j);
	pmuk_json_arr_begin(&j, "facts");
	for (size_t i = 0; i < caps->nfacts; i++) {
		const struct pmu_cap_fact *x = &caps->facts[i]->pub;

		pmuk_json_obj_begin(&j, NULL);
		pmuk_json_int(&j, "concern", x->concern);
		pmuk_json_str(&j, "key", x->key);
		pmuk_json_str(&j, "value", x->value);
		pmuk_json_str(&j, "explanation", x->explanation);
		pmuk_json_obj_end(&j);
	}
	pmuk_json_arr_end(&j);
	pmuk_json_obj_end(&j);
	pmuk_json_finish(&j);
	return ferror(f) ? pmuk_fail(PMU_EIO, "writing the capability matrix failed") : 0;
}
