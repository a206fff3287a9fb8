/* SPDX-License-Identifier: MIT */
#ifndef PMUKIT_JSON_H
#define PMUKIT_JSON_H

/* One rule for JSON: every object that has a JSON form has
 *	int pmu_<object>_write_json(const <object> *obj, FILE *f, unsigned flags);
 * (pmu_caps_write_json, pmu_topology_write_json, pmu_regions_write_json) beside its
 * pmu_<object>_write_text, writing one JSON document. flags is an OR of the bits
 * below; a bit this library does not know is PMU_EINVAL (a newer caller's request
 * is refused rather than dropped). What else a writer needs (a row limit, a sort
 * order) is the object's setting or an opts struct, never a parameter more. */

enum pmu_json_flags {
	/* Indented, one member a line, for people; 0: the whole document on one line
	 * (JSON Lines, for tools that read a line at a time). */
	PMU_JSON_PRETTY = 1u << 0,
};

#endif
