/* SPDX-License-Identifier: MIT */
/* Wine detection, the real OS version, run-time lookups and Win32 error text. */
#include "windows/win.h"

#include <stdio.h>
#include <string.h>

typedef const char *(CDECL *wine_version_fn)(void);
typedef LONG (WINAPI *rtl_version_fn)(OSVERSIONINFOW *);

const char *pmuk_wine_version(void)
{
	HMODULE ntdll = GetModuleHandleW(L"ntdll.dll");
	wine_version_fn fn;

	/* GetProcAddress on other names is no Wine test: some stubs resolve and abort. */
	fn = ntdll ? (wine_version_fn)(void (*)(void))GetProcAddress(ntdll, "wine_get_version")
		   : NULL;
	return fn ? fn() : NULL;
}

void pmuk_win_version(struct pmuk_win_version *v)
{
	HMODULE ntdll = GetModuleHandleW(L"ntdll.dll");
	OSVERSIONINFOW vi = { .dwOSVersionInfoSize = sizeof(vi) };
	rtl_version_fn fn;

	memset(v, 0, sizeof(*v));
	fn = ntdll ? (rtl_version_fn)(void (*)(void))GetProcAddress(ntdll, "RtlGetVersion") : NULL;
	if (fn && fn(&vi) == 0) {
		v->major = vi.dwMajorVersion;
		v->minor = vi.dwMinorVersion;
		v->build = vi.dwBuildNumber;
	}
}

int pmuk_win_at_least(DWORD major, DWORD minor, DWORD build)
{
	struct pmuk_win_version v;

	pmuk_win_version(&v);
	if (v.major != major)
		return v.major > major;
	if (v.minor != minor)
		return v.minor > minor;
	return v.build >= build;
}

FARPROC pmuk_win_proc(const wchar_t *dll, const char *name)
{
	HMODULE m = GetModuleHandleW(dll);

	if (!m)
		m = LoadLibraryExW(dll, NULL, LOAD_LIBRARY_SEARCH_SYSTEM32);
	return m ? GetProcAddress(m, name) : NULL;
}

const char *pmuk_win_strerror(DWORD code)
{
	static _Thread_local char buf[256];
	DWORD n;

	n = FormatMessageA(FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS, NULL, code,
			   0, buf, sizeof(buf), NULL);
	while (n && (buf[n - 1] == '\n' || buf[n - 1] == '\r' || buf[n - 1] == '.'))
		buf[--n] = '\0';
	if (!n)
		snprintf(buf, sizeof(buf), "Win32 error %lu", (unsigned long)code);
	return buf;
}
