/* SPDX-License-Identifier: MIT */
/* The merge step after a Windows recording: this machine's volume mapping
 * (QueryDosDeviceW of every drive letter) and Windows directory handed to the
 * portable merge (src/formats/etl_merge.c), the merged copy put in the
 * recording's place. */
#include "windows/win.h"
#include "core/error.h"
#include "core/opts.h"
#include "formats/etl_merge.h"

#include <stdio.h>
#include <string.h>

struct volumes {
	char nt[27][300], dos[27][300];
	struct pmuk_etl_volume v[27];
	size_t n;
	char windir[300];
};

static void utf8(const WCHAR *w, char *out, int size)
{
	if (!WideCharToMultiByte(CP_UTF8, 0, w, -1, out, size, NULL, NULL))
		out[0] = '\0';
}

/* "\Device\HarddiskVolume3\" -> "C:\" for every drive letter with a device,
 * and "\SystemRoot\" -> the Windows directory. */
static void volumes_of_this_machine(struct volumes *vs)
{
	WCHAR drive[3] = L"A:", dev[260], win[260];

	for (WCHAR c = L'A'; c <= L'Z' && vs->n < 26; c++) {
		drive[0] = c;
		if (!QueryDosDeviceW(drive, dev, 260))
			continue;
		utf8(dev, vs->nt[vs->n], 290);
		snprintf(vs->dos[vs->n], sizeof(vs->dos[0]), "%c:\\", (char)c);
		strcat(vs->nt[vs->n], "\\");
		vs->v[vs->n] = (struct pmuk_etl_volume){ vs->nt[vs->n], vs->dos[vs->n] };
		vs->n++;
	}
	UINT n = GetWindowsDirectoryW(win, 260);
	if (n && n < 258) {
		utf8(win, vs->windir, 290);
		strcat(vs->windir, "\\");
		vs->v[vs->n++] = (struct pmuk_etl_volume){ "\\SystemRoot\\", vs->windir };
	}
}

int pmuk_etl_merge_recording(const char *path, struct pmuk_etl_merge_stats *st)
{
	struct volumes vs;
	WCHAR wfrom[MAX_PATH * 2], wto[MAX_PATH * 2];
	char tmp[MAX_PATH * 2];
	int err;

	memset(&vs, 0, sizeof(vs));
	volumes_of_this_machine(&vs);
	PMU_OPTS(pmuk_etl_merge_opts, o, .volumes = vs.v, .n_volumes = vs.n,
		 .windows_dir = vs.windir[0] ? vs.windir : NULL);
	snprintf(tmp, sizeof(tmp), "%s.merging", path);
	if ((err = pmuk_etl_merge(path, tmp, &o, st)))
		return err;
	if (!MultiByteToWideChar(CP_UTF8, 0, tmp, -1, wfrom, MAX_PATH * 2) ||
	    !MultiByteToWideChar(CP_UTF8, 0, path, -1, wto, MAX_PATH * 2) ||
	    !MoveFileExW(wfrom, wto, MOVEFILE_REPLACE_EXISTING))
		return pmuk_fail(PMU_EIO, "the merged trace %s could not replace %s (error %lu); "
				 "both are left", tmp, path, GetLastError());
	return 0;
}
