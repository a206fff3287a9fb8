/* SPDX-License-Identifier: MIT */
#ifndef PMUK_CORE_ETW_MACHINE_H
#define PMUK_CORE_ETW_MACHINE_H

/* The machine-wide ETW settings (TraceSampledProfileIntervalInfo and
 * TraceProfileSourceConfigInfo): documented to take 0 as the TraceId, and still in
 * force after the process exits. Each is read (TraceQueryInformation) before it is
 * set, and pmuk_etw_machine_restore puts the values read back. The Win32 calls go
 * through a table, so the sequence is the same code on Windows and in a test:
 *
 *   struct pmuk_etw_machine m = { 0 };
 *   pmuk_etw_machine_interval(&ops, &m, PMUK_PROFILE_TIME, 10000);
 *   ...
 *   pmuk_etw_machine_restore(&ops, &m);   on every exit path */

#include "core/etw_config.h"

#include <stddef.h>
#include <stdint.h>

/* Win32 error codes the sequences tell apart (winerror.h). */
#define PMUK_W32_INVALID_FUNCTION 1u
#define PMUK_W32_ACCESS_DENIED 5u
#define PMUK_W32_NOT_SUPPORTED 50u
#define PMUK_W32_INVALID_PARAMETER 87u
#define PMUK_W32_CALL_NOT_IMPLEMENTED 120u
#define PMUK_W32_BUSY 170u

struct pmuk_etw_ops {
	void *ctx;
	/* TraceQueryInformation(0, cls, buf, len, &ret): a Win32 error, 0 on success. */
	uint32_t (*query)(void *ctx, uint32_t cls, void *buf, uint32_t len, uint32_t *ret);
	/* TraceSetInformation(trace_id, cls, buf, len): a Win32 error, 0 on success. */
	uint32_t (*set)(void *ctx, uint64_t trace_id, uint32_t cls, const void *buf,
			uint32_t len);
	const char *wine;        /* the Wine version, NULL on Windows */
};

#define PMUK_ETW_MACHINE_MAX (PMUK_ETW_MAX_IDS + 1)

struct pmuk_etw_machine {
	size_t n;                                /* intervals set */
	uint32_t source[PMUK_ETW_MACHINE_MAX];
	uint32_t prev[PMUK_ETW_MACHINE_MAX];     /* 0: could not be read (not restored) */
	int sources_set;                         /* TraceProfileSourceConfigInfo was set */
	size_t nprev_sources;                    /* what the query answered, if it did */
	int prev_sources_known;
	uint32_t prev_sources[PMUK_ETW_MAX_IDS];
	size_t unrestorable;                     /* settings set whose old value is unknown */
};

/* Reads the interval of source, then sets it (TraceId 0). */
int pmuk_etw_machine_interval(const struct pmuk_etw_ops *ops, struct pmuk_etw_machine *m,
			      uint32_t source, uint32_t interval);
/* Reads the profile-source configuration, then sets ids (TraceId 0). */
int pmuk_etw_machine_sources(const struct pmuk_etw_ops *ops, struct pmuk_etw_machine *m,
			     const uint32_t *ids, size_t n);
/* Sets back what was read, newest first; forgets it (a second call does nothing).
 * The first failure is returned, the others are still tried. */
int pmuk_etw_machine_restore(const struct pmuk_etw_ops *ops, struct pmuk_etw_machine *m);

/* The error of TraceSetInformation(what) answering Win32 error e, with a sentence
 * that names the cause: a refused interval is an interval outside the source's
 * range, refused counters (TracePmcCounterListInfo, TraceProfileSourceConfigInfo)
 * too many or unknown to this CPU. wine: the Wine version, or NULL. */
int pmuk_etw_set_error(uint32_t e, uint32_t info_class, const char *what, const char *wine);

/* The end of a real-time session with a consumer thread (ProcessTrace): stop the
 * session, wait for the consumer to drain what was buffered and return, and only
 * then CloseTrace; CloseTrace first makes ProcessTrace return early and drops the
 * buffers not yet delivered, so the final read missed the last interval. */
struct pmuk_etw_finish_ops {
	void *ctx;
	int (*stop)(void *ctx);                   /* ControlTrace(STOP) */
	int (*join)(void *ctx, unsigned timeout_ms); /* 0 when the consumer ended */
	void (*close)(void *ctx);                 /* CloseTrace of the consumer */
};
/* 0, or -1 when the consumer did not end even after CloseTrace (its state must then
 * be leaked, not freed). The stop's own error does not stop the rest. */
int pmuk_etw_consumer_finish(const struct pmuk_etw_finish_ops *ops);

#endif
