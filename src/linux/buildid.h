/* SPDX-License-Identifier: MIT */
#ifndef PMUK_LINUX_BUILDID_H
#define PMUK_LINUX_BUILDID_H

#include <stddef.h>
#include <stdint.h>

/* GNU build-ids (NT_GNU_BUILD_ID notes), at most 20 bytes; *len gets the length.
 * 0, PMU_ENOENT when the file/note is absent, or another negative PMU_E* code. */
int pmuk_build_id_of_file(const char *path, uint8_t id[20], size_t *len);
/* The running kernel's, from /sys/kernel/notes. */
int pmuk_build_id_kernel(uint8_t id[20], size_t *len);
/* A loaded module's, from /sys/module/NAME/notes/.note.gnu.build-id. */
int pmuk_build_id_module(const char *name, uint8_t id[20], size_t *len);

#endif
