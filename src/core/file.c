/* SPDX-License-Identifier: MIT */
/* The one way pmukit opens a file by name: UTF-8 paths on every OS. */
#include "core/file.h"
#include "core/error.h"
#include "core/utf8.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#ifdef _WIN32
#include <wchar.h>
#endif

FILE *pmuk_fopen(const char *path, const char *mode)
{
#ifdef _WIN32
	_Static_assert(sizeof(wchar_t) == sizeof(uint16_t), "UTF-16 wchar_t");
	uint16_t *wpath = NULL, *wmode = NULL;
	FILE *f = NULL;
	int err;

	if ((err = pmuk_utf8_to_utf16(path, &wpath)) || (err = pmuk_utf8_to_utf16(mode, &wmode))) {
		pmuk_clear_detail();
		free(wpath);
		errno = err == PMU_ENOMEM ? ENOMEM : EILSEQ;
		return NULL;
	}
	f = _wfopen((const wchar_t *)wpath, (const wchar_t *)wmode);
	err = errno;
	free(wpath);
	free(wmode);
	errno = err;
	return f;
#else
	return fopen(path, mode);
#endif
}

const char *pmuk_path_base(const char *path)
{
	const char *b = path;

	for (const char *p = path; *p; p++)
		if (*p == '/' || *p == '\\')
			b = p + 1;
	return b;
}
