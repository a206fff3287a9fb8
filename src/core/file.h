/* SPDX-License-Identifier: MIT */
#ifndef PMUK_CORE_FILE_H
#define PMUK_CORE_FILE_H

#include <stdio.h>

/* fopen of a UTF-8 path. On Windows the ANSI fopen would read it in the code page
 * (C:\Users\Zoë\x.etl becomes another name): _wfopen of the path converted with
 * pmuk_utf8_to_utf16. A path that is not UTF-8 fails with errno EILSEQ; otherwise
 * errno is fopen's. Elsewhere plain fopen. */
FILE *pmuk_fopen(const char *path, const char *mode);
/* The last component of a path with / or \ separators (a recording made on
 * Windows is read on Linux and the other way round). */
const char *pmuk_path_base(const char *path);

#endif
