/* SPDX-License-Identifier: MIT */
/* core/osthread.h on POSIX threads or the Win32 primitives. */
#include "core/osthread.h"

#include <stdlib.h>

#ifdef _WIN32
void pmuk_lock(pmuk_lock_t *l)
{
	AcquireSRWLockExclusive(l);
}

void pmuk_unlock(pmuk_lock_t *l)
{
	ReleaseSRWLockExclusive(l);
}

static BOOL CALLBACK once_cb(PINIT_ONCE o, PVOID fn, PVOID *ctx)
{
	(void)o;
	(void)ctx;
	((void (*)(void))fn)();
	return TRUE;
}

void pmuk_once(pmuk_once_t *o, void (*fn)(void))
{
	/* a function pointer passes through PVOID on every Windows ABI */
	InitOnceExecuteOnce(o, once_cb, (PVOID)fn, NULL);
}

/* FLS callbacks run at thread exit and at FlsFree, with the value; only one key is
 * needed, so one destructor slot suffices. */
static void (*fls_destructor)(void *);
static DWORD fls_key = FLS_OUT_OF_INDEXES;

static VOID WINAPI fls_cb(PVOID v)
{
	if (v && fls_destructor)
		fls_destructor(v);
}

/* At exit, or when pmukit.dll is unloaded (its CRT runs the DLL's atexit list
 * then): the FLS slot goes back to the process, which has but a few. */
static void fls_release(void)
{
	if (fls_key != FLS_OUT_OF_INDEXES)
		FlsFree(fls_key);
	fls_key = FLS_OUT_OF_INDEXES;
}

int pmuk_tkey_create(pmuk_tkey_t *k, void (*destructor)(void *))
{
	if (fls_key != FLS_OUT_OF_INDEXES)
		return -1;
	*k = FlsAlloc(fls_cb);
	if (*k == FLS_OUT_OF_INDEXES)
		return -1;
	fls_destructor = destructor;
	fls_key = *k;
	if (atexit(fls_release)) {
		fls_release();
		return -1;
	}
	return 0;
}

void pmuk_tkey_set(pmuk_tkey_t k, const void *v)
{
	FlsSetValue(k, (PVOID)v);
}

int pmuk_thread_id(void)
{
	return (int)GetCurrentThreadId();
}
#else
#include <unistd.h>

void pmuk_lock(pmuk_lock_t *l)
{
	pthread_mutex_lock(l);
}

void pmuk_unlock(pmuk_lock_t *l)
{
	pthread_mutex_unlock(l);
}

void pmuk_once(pmuk_once_t *o, void (*fn)(void))
{
	pthread_once(o, fn);
}

int pmuk_tkey_create(pmuk_tkey_t *k, void (*destructor)(void *))
{
	return pthread_key_create(k, destructor);
}

void pmuk_tkey_set(pmuk_tkey_t k, const void *v)
{
	pthread_setspecific(k, v);
}

int pmuk_thread_id(void)
{
	return (int)gettid();
}

unsigned pmuk_fork_count;
static pthread_once_t fork_once = PTHREAD_ONCE_INIT;

static void forked(void)
{
	pmuk_fork_count++;
}

static void watch_forks(void)
{
	pthread_atfork(NULL, NULL, forked);
}

void pmuk_fork_watch(void)
{
	pthread_once(&fork_once, watch_forks);
}
#endif
