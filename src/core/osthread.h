/* SPDX-License-Identifier: MIT */
/* The few thread primitives OS-neutral code needs: a statically initialised lock,
 * run-once, a thread-local key whose destructor runs at thread exit, the thread id,
 * and a fork generation. pthread on POSIX; SRWLOCK, InitOnceExecuteOnce, FlsAlloc
 * and GetCurrentThreadId on Windows (no winpthread). */
#ifndef PMUK_CORE_OSTHREAD_H
#define PMUK_CORE_OSTHREAD_H

#ifdef _WIN32
#include <windows.h>

typedef SRWLOCK pmuk_lock_t;
#define PMUK_LOCK_INIT SRWLOCK_INIT
typedef INIT_ONCE pmuk_once_t;
#define PMUK_ONCE_INIT INIT_ONCE_STATIC_INIT
typedef DWORD pmuk_tkey_t;
#else
#include <pthread.h>

typedef pthread_mutex_t pmuk_lock_t;
#define PMUK_LOCK_INIT PTHREAD_MUTEX_INITIALIZER
typedef pthread_once_t pmuk_once_t;
#define PMUK_ONCE_INIT PTHREAD_ONCE_INIT
typedef pthread_key_t pmuk_tkey_t;
#endif

void pmuk_lock(pmuk_lock_t *l);
void pmuk_unlock(pmuk_lock_t *l);
void pmuk_once(pmuk_once_t *o, void (*fn)(void));
/* 0 on success; destructor(value) runs when a thread with a non-NULL value exits.
 * Windows: one key per process (FLS slots are few), freed at exit or DLL unload. */
int pmuk_tkey_create(pmuk_tkey_t *k, void (*destructor)(void *));
void pmuk_tkey_set(pmuk_tkey_t k, const void *v);
int pmuk_thread_id(void);

/* Bumped in the child of every fork() once pmuk_fork_watch() ran (POSIX): per-thread
 * state a child inherits belongs to its parent. Windows has no fork: always 0. */
#ifdef _WIN32
#define pmuk_fork_count 0u
static inline void pmuk_fork_watch(void) {}
#else
extern unsigned pmuk_fork_count;
void pmuk_fork_watch(void); /* starts counting forks (once) */
#endif

#endif
