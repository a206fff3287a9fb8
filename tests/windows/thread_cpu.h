/* SPDX-License-Identifier: MIT */
/* The calling thread's CPU time, for the Windows test programs to spin against. */
#ifndef PMUKIT_TEST_THREAD_CPU_H
#define PMUKIT_TEST_THREAD_CPU_H

#include <windows.h>

/* user + kernel time of the calling thread in ms (100 ns FILETIME units) */
static inline double cpu_ms(void)
{
	FILETIME a, b, k, u;
	ULARGE_INTEGER kk, uu;

	GetThreadTimes(GetCurrentThread(), &a, &b, &k, &u);
	kk.LowPart = k.dwLowDateTime, kk.HighPart = k.dwHighDateTime;
	uu.LowPart = u.dwLowDateTime, uu.HighPart = u.dwHighDateTime;
	return (double)(kk.QuadPart + uu.QuadPart) / 1e4;
}

#endif
