/* SPDX-License-Identifier: MIT */
#ifndef PMUKIT_TOPOLOGY_H
#define PMUKIT_TOPOLOGY_H
/* PLACEHOLDER: being written. */
#endif
