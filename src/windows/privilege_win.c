/* SPDX-License-Identifier: MIT */
/* What the caller's token allows: ETW kernel sessions need an administrator, a member
 * of Performance Log Users or LocalSystem; PMC sessions also SeSystemProfilePrivilege. */
#include "windows/win.h"
#include "core/error.h"

#include <stdlib.h>
#include <string.h>

static int member(WELL_KNOWN_SID_TYPE type)
{
	BYTE sid[SECURITY_MAX_SID_SIZE];
	DWORD size = sizeof(sid);
	BOOL is = FALSE;

	if (!CreateWellKnownSid(type, NULL, sid, &size))
		return 0;
	return CheckTokenMembership(NULL, sid, &is) && is;
}

/* Looks privilege name up in the token: *present, *enabled. */
static void privilege(HANDLE tok, const wchar_t *name, int *present, int *enabled)
{
	TOKEN_PRIVILEGES *tp;
	DWORD len = 0;
	LUID luid;

	*present = *enabled = 0;
	if (!LookupPrivilegeValueW(NULL, name, &luid))
		return;
	GetTokenInformation(tok, TokenPrivileges, NULL, 0, &len);
	if (!len || !(tp = malloc(len)))
		return;
	if (GetTokenInformation(tok, TokenPrivileges, tp, len, &len))
		for (DWORD i = 0; i < tp->PrivilegeCount; i++) {
			LUID_AND_ATTRIBUTES *a = &tp->Privileges[i];

			if (a->Luid.LowPart != luid.LowPart || a->Luid.HighPart != luid.HighPart)
				continue;
			*present = 1;
			/* ENABLED_BY_DEFAULT says how the token started, not whether the
			 * privilege is on now (AdjustTokenPrivileges may have turned it off). */
			*enabled = !!(a->Attributes & SE_PRIVILEGE_ENABLED);
		}
	free(tp);
}

int pmuk_win_privileges(struct pmuk_win_priv *p)
{
	TOKEN_ELEVATION el = { 0 };
	HANDLE tok;
	DWORD len;
	int debug_on;

	memset(p, 0, sizeof(*p));
	if (!OpenProcessToken(GetCurrentProcess(), TOKEN_QUERY, &tok))
		return pmuk_fail(PMU_EIO, "OpenProcessToken failed: %s",
				 pmuk_win_strerror(GetLastError()));
	if (GetTokenInformation(tok, TokenElevation, &el, sizeof(el), &len))
		p->elevated = !!el.TokenIsElevated;
	p->admin = member(WinBuiltinAdministratorsSid);
	p->perflog = member(WinBuiltinPerfLoggingUsersSid);
	privilege(tok, SE_SYSTEM_PROFILE_NAME, &p->profile_present, &p->profile_enabled);
	privilege(tok, SE_DEBUG_NAME, &p->debug_present, &debug_on);
	CloseHandle(tok);
	return 0;
}
