/* SPDX-License-Identifier: MIT */
#ifndef PMUKIT_CAPS_H
#define PMUKIT_CAPS_H
/* PLACEHOLDER: being written. */
#endif
