/* SPDX-License-Identifier: MIT */
#ifndef PMUK_LINUX_SAMPLER_H
#define PMUK_LINUX_SAMPLER_H

/* pmuk_sampler_open_events() and the backend interface live in core/sampler_int.h. */
#include "core/sampler_int.h"

#endif
