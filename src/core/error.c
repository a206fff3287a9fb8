/* SPDX-License-Identifier: MIT */
#include "core/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static _Thread_local char detail[1024];
/* A sentence not written yet (pmuk_fail_later): written on the first ask. */
static _Thread_local pmuk_detail_fn later_fn;
static _Thread_local _Alignas(16) unsigned char later_args[PMUK_DETAIL_ARGS];
static pmu_log_fn log_fn;
static void *log_ctx;

static const char *const phrases[] = {
	[0] = "success",
	[-PMU_EINVAL] = "invalid argument",
	[-PMU_ENOMEM] = "out of memory",
	[-PMU_ENOTSUP] = "not supported on this host",
	[-PMU_EPERM] = "permission denied",
	[-PMU_ENOENT] = "no such event, PMU or file",
	[-PMU_EPARSE] = "event specification does not parse",
	[-PMU_EBUDGET] = "not enough hardware counters",
	[-PMU_EBUSY] = "resource busy",
	[-PMU_ESRCH] = "no such process or thread",
	[-PMU_EIO] = "system call failed",
	[-PMU_EFORMAT] = "corrupt or truncated input",
	[-PMU_ERANGE] = "buffer too small",
};

const char *pmu_strerror(int err)
{
	if (err > 0 || -err >= (int)(sizeof(phrases) / sizeof(phrases[0])))
		return "unknown error";
	return phrases[-err];
}

const char *pmu_error_detail(void)
{
	if (later_fn) {
		pmuk_detail_fn fn = later_fn;

		later_fn = NULL;
		fn(detail, sizeof(detail), later_args);
	}
	return detail[0] ? detail : "no detail recorded";
}

int pmuk_fail(int err, const char *fmt, ...)
{
	char text[sizeof(detail)];
	va_list ap;

	/* Formatted aside first: callers may pass pmu_error_detail() as an argument. */
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	memcpy(detail, text, sizeof(detail));
	later_fn = NULL;
	return err;
}

int pmuk_fail_later(int err, pmuk_detail_fn fn, const void *args, size_t argsize)
{
	if (argsize > sizeof(later_args))
		argsize = sizeof(later_args);   /* a caller's bug: PMUK_DETAIL_ARGS says */
	memcpy(later_args, args, argsize);
	later_fn = fn;
	return err;
}

int pmuk_fail_reasons(int err, const char *const *why, size_t n)
{
	char text[sizeof(detail)] = "";
	size_t o = 0, k;

	for (size_t i = 0; i < n && o + 1 < sizeof(text); i++) {
		for (k = 0; why[i] && k < i && (!why[k] || strcmp(why[k], why[i])); k++)
			;
		if (why[i] && k == i)
			o += (size_t)snprintf(text + o, sizeof(text) - o, "%s%s", o ? "; " : "",
					      why[i]);
	}
	memcpy(detail, text, sizeof(detail));
	later_fn = NULL;
	return err;
}

void pmuk_clear_detail(void)
{
	later_fn = NULL;
	detail[0] = '\0';
}

void pmu_log_set(pmu_log_fn fn, void *ctx)
{
	log_fn = fn;
	log_ctx = ctx;
}

void pmuk_log(enum pmu_log_level level, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	if (!log_fn)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	log_fn(level, msg, log_ctx);
}
