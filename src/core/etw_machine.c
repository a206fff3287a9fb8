/* SPDX-License-Identifier: MIT */
/* Machine-wide ETW settings: read, set with TraceId 0, restore. The query of
 * TraceSampledProfileIntervalInfo takes a TRACE_PROFILE_INTERVAL with Source filled
 * in and answers its Interval; TraceProfileSourceConfigInfo answers ULONG ids where
 * the OS supports querying it (not documented as queryable: then unknown). */
#include "core/etw_machine.h"
#include "core/error.h"
#include "core/le.h"

#include <string.h>

int pmuk_etw_set_error(uint32_t e, uint32_t info_class, const char *what, const char *wine)
{
	int counters = info_class == PMUK_TRACE_PMC_COUNTER_LIST_INFO ||
		       info_class == PMUK_TRACE_PROFILE_SOURCE_CONFIG_INFO;

	if (wine && e == PMUK_W32_CALL_NOT_IMPLEMENTED)
		return pmuk_fail(PMU_ENOTSUP, "Wine %s has no ETW kernel sessions: StartTraceW "
				 "returned success with a fake handle, and TraceSetInformation(%s) "
				 "returned ERROR_CALL_NOT_IMPLEMENTED (120)", wine, what);
	switch (e) {
	case PMUK_W32_NOT_SUPPORTED:
	case PMUK_W32_INVALID_FUNCTION:
	case PMUK_W32_CALL_NOT_IMPLEMENTED:
		return pmuk_fail(PMU_ENOTSUP, "TraceSetInformation(%s): this Windows does not "
				 "support it (Win32 error %u)", what, e);
	case PMUK_W32_BUSY:
		return pmuk_fail(PMU_EBUSY, "TraceSetInformation(%s): the counters are in use by "
				 "another session or profiler (PMCs are single-tenant)", what);
	case PMUK_W32_ACCESS_DENIED:
		return pmuk_fail(PMU_EPERM, "TraceSetInformation(%s): access denied (run from an "
				 "elevated prompt with SeSystemProfilePrivilege)", what);
	case PMUK_W32_INVALID_PARAMETER:
		if (info_class == PMUK_TRACE_SAMPLED_PROFILE_INTERVAL_INFO)
			return pmuk_fail(PMU_EINVAL, "TraceSetInformation(%s) refused the "
					 "sampling interval: it is outside the range the profile "
					 "source takes (see its MinInterval/MaxInterval in 'pmukit "
					 "list'); choose another -F or -c", what);
		return pmuk_fail(PMU_EINVAL, "TraceSetInformation(%s) refused the configuration%s",
				 what, counters ? " (too many counters, or a profile source this "
				 "CPU lacks)" : "");
	default:
		return pmuk_fail(PMU_EIO, "TraceSetInformation(%s) failed: Win32 error %u", what,
				 e);
	}
}

static int set_block(const struct pmuk_etw_ops *ops, const struct pmuk_etw_block *b,
		     const char *what)
{
	uint32_t e = ops->set(ops->ctx, 0, b->info_class, b->data, (uint32_t)b->len);

	return e ? pmuk_etw_set_error(e, b->info_class, what, ops->wine) : 0;
}

int pmuk_etw_machine_interval(const struct pmuk_etw_ops *ops, struct pmuk_etw_machine *m,
			      uint32_t source, uint32_t interval)
{
	struct pmuk_etw_block b;
	uint8_t q[8] = { 0 };
	uint32_t ret = 0, prev = 0;
	int err;

	if (m->n == PMUK_ETW_MACHINE_MAX)
		return pmuk_fail(PMU_EINVAL, "more than %d profile intervals in one session",
				 PMUK_ETW_MACHINE_MAX);
	if ((err = pmuk_etw_profile_interval(&b, source, interval)))
		return err;
	memcpy(q, b.data, 4);  /* Source in, Interval out */
	if (!ops->query(ops->ctx, PMUK_TRACE_SAMPLED_PROFILE_INTERVAL_INFO, q, sizeof(q), &ret) &&
	    ret >= 8)
		prev = pmuk_le32(q + 4);
	if ((err = set_block(ops, &b, "TraceSampledProfileIntervalInfo")))
		return err;
	m->source[m->n] = source;
	m->prev[m->n++] = prev;
	if (!prev)
		m->unrestorable++;
	return 0;
}

int pmuk_etw_machine_sources(const struct pmuk_etw_ops *ops, struct pmuk_etw_machine *m,
			     const uint32_t *ids, size_t n)
{
	uint8_t q[4 * PMUK_ETW_MAX_IDS];
	struct pmuk_etw_block b;
	uint32_t ret = 0;
	int err;

	if ((err = pmuk_etw_source_ids(&b, PMUK_TRACE_PROFILE_SOURCE_CONFIG_INFO, ids, n)))
		return err;
	if (!m->sources_set) {
		memset(q, 0, sizeof(q));
		m->prev_sources_known = !ops->query(ops->ctx, PMUK_TRACE_PROFILE_SOURCE_CONFIG_INFO,
						    q, sizeof(q), &ret) && ret <= sizeof(q);
		m->nprev_sources = m->prev_sources_known ? ret / 4 : 0;
		for (size_t i = 0; i < m->nprev_sources; i++)
			m->prev_sources[i] = pmuk_le32(q + 4 * i);
	}
	if ((err = set_block(ops, &b, "TraceProfileSourceConfigInfo")))
		return err;
	if (!m->sources_set && (!m->prev_sources_known || !m->nprev_sources))
		m->unrestorable++;
	m->sources_set = 1;
	return 0;
}

int pmuk_etw_machine_restore(const struct pmuk_etw_ops *ops, struct pmuk_etw_machine *m)
{
	struct pmuk_etw_block b;
	int first = 0, err;

	if (m->sources_set && m->prev_sources_known && m->nprev_sources) {
		err = pmuk_etw_source_ids(&b, PMUK_TRACE_PROFILE_SOURCE_CONFIG_INFO,
					  m->prev_sources, m->nprev_sources);
		if (!err)
			err = set_block(ops, &b, "TraceProfileSourceConfigInfo (restore)");
		first = first ? first : err;
	}
	while (m->n) {
		m->n--;
		if (!m->prev[m->n])
			continue;
		err = pmuk_etw_profile_interval(&b, m->source[m->n], m->prev[m->n]);
		if (!err)
			err = set_block(ops, &b, "TraceSampledProfileIntervalInfo (restore)");
		first = first ? first : err;
	}
	memset(m, 0, sizeof(*m));
	return first;
}

int pmuk_etw_consumer_finish(const struct pmuk_etw_finish_ops *ops)
{
	ops->stop(ops->ctx);
	if (ops->join(ops->ctx, 5000)) {
		/* No end of the stream came: CloseTrace makes ProcessTrace return. */
		ops->close(ops->ctx);
		return ops->join(ops->ctx, 30000) ? -1 : 0;
	}
	ops->close(ops->ctx);
	return 0;
}
