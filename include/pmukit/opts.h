/* SPDX-License-Identifier: MIT */
#ifndef PMUKIT_OPTS_H
#define PMUKIT_OPTS_H

/* Options structs that can grow.
 *
 * Every struct pmu_*_opts (and struct pmu_symbolizer_module) starts with
 * size_t sz, the struct's size as the caller was compiled. New fields are only
 * ever appended, and a zero field always means "the default", so:
 *
 *  - opts NULL: every default.
 *  - sz smaller than this library's struct (a caller built against an older
 *    pmukit): accepted; the fields it lacks take their defaults.
 *  - sz larger (a caller built against a newer pmukit, run with this one):
 *    accepted when every byte this library does not know is zero; otherwise
 *    PMU_EINVAL, pmu_error_detail() naming the struct and the offset of the
 *    first such byte, rather than losing the newer option silently. Trailing
 *    padding counts as unknown: a later field may live there.
 *  - sz 0 (or anything below sizeof(size_t)): PMU_EINVAL. A struct whose sz
 *    was forgotten is a mistake, not "no options"; pass NULL for that.
 *
 * PMU_OPTS declares the struct zero-filled with sz set, and takes designated
 * initializers for the rest:
 *
 *	PMU_OPTS(pmu_counters_opts, o, .start_disabled = 1);
 *	err = pmu_counters_open(events, &target, &o, &c);
 *
 * A partial initializer zero-fills the rest of the struct, padding included,
 * with GCC and Clang; a struct filled some other way should be memset to 0
 * first.
 *
 * Value structs (no sz) grow one of three ways, each header saying which:
 *
 *  - Filled once per call with a handle's totals (pmu_etl_stats,
 *    pmu_sampler_stats, pmu_report_summary, pmu_recording_stats): fields are
 *    appended. The caller passes sizeof its struct; the library writes that
 *    many bytes, zeros for fields newer than itself.
 *  - Owned by the library and handed out by pointer (pmu_etl_header, the
 *    topology items, pmu_cap, pmu_cap_fact, pmu_caps_host, pmu_report_module):
 *    fields are appended. Read them through the pointer (copying sizeof your
 *    struct is fine); never step from one to the next by pointer arithmetic.
 *  - Frozen: arrays the caller sizes (pmu_reading, pmu_frame, pmu_device),
 *    arrays handed out whole (pmu_event_info), one item per call
 *    (pmu_cpustat_cpu, pmu_idle_state, pmu_report_row, pmu_etl_stat,
 *    pmu_etl_event and the pmu_etl_*_ev decoded events, pmu_module_id) and
 *    inputs without sz (pmu_target; pmu_record, which pmu_report_record takes):
 *    the array stride or the bytes read are the caller's sizeof, so these
 *    never change size. A field more means a new struct name and function. */

#define PMU_OPTS(TYPE, ...) PMU_OPTS_DECL_(TYPE, __VA_ARGS__, )
/* The extra empty argument keeps PMU_OPTS(type, name) valid C11: the variadic
 * part of PMU_OPTS_DECL_ is never empty. */
#define PMU_OPTS_DECL_(TYPE, NAME, ...) \
	struct TYPE NAME = { .sz = sizeof(struct TYPE), __VA_ARGS__ }

#endif
