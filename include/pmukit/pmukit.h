/* SPDX-License-Identifier: MIT */
#ifndef PMUKIT_PMUKIT_H
#define PMUKIT_PMUKIT_H

/* The umbrella header: one header per concern. */
#include <pmukit/version.h>
#include <pmukit/error.h>
#include <pmukit/guid.h>
#include <pmukit/events.h>
#include <pmukit/opts.h>
#include <pmukit/json.h>
#include <pmukit/counting.h>
#include <pmukit/metrics.h>
#include <pmukit/sampling.h>
#include <pmukit/report.h>
#include <pmukit/trace.h>
#include <pmukit/etl.h>
#include <pmukit/symbols.h>
#include <pmukit/recording.h>
#include <pmukit/oscounters.h>
#include <pmukit/command.h>
#include <pmukit/topology.h>
#include <pmukit/caps.h>
#include <pmukit/exporter.h>

#endif
