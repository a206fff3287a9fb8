/* SPDX-License-Identifier: MIT */
#ifndef PMUKIT_TOOL_ETL_PRINT_H
#define PMUKIT_TOOL_ETL_PRINT_H

#include <pmukit/etl.h>
#include <stdio.h>

#include "core/json.h"

/* Where decoded fields go: " key=value" text on f, or members of the open JSON object. */
struct etl_out {
	int json;
	FILE *f;
	struct pmuk_json *j;
};

/* The decoded payload of ev: kernel events through the pmu_etl_decode_* decoders,
 * TraceLogging events through their schema (JSON: a "fields" object). */
void etl_print_fields(struct etl_out *o, const struct pmu_etl_event *ev);
const char *etl_kind_name(unsigned kind);

#endif
