/* SPDX-License-Identifier: MIT */
/* One worker thread per symbolizer reading images' DWARF ahead of their first
 * lookup (dw_prefetch.h says why and what makes it safe). */
#include "linux/dw_prefetch.h"

#ifdef PMUKIT_HAVE_DW

#include <elfutils/libdw.h>
#include <libelf.h>
#include <signal.h>
#include <stddef.h>
#include <stdlib.h>

static void elf_init(void)
{
	elf_version(EV_CURRENT);
}

void pmuk_dw_elf_init(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, elf_init);
}

void pmuk_dw_prefetch_init(struct pmuk_dw_prefetch *pf)
{
	pmuk_dw_elf_init();
	*pf = (struct pmuk_dw_prefetch){ 0 };
	/* With debuginfod on, reading ahead would fetch the debug files of every
	 * mapped image over the network, sampled or not: lookups read them then. */
	const char *urls = getenv("DEBUGINFOD_URLS");
	pf->failed = urls && *urls;
	pthread_mutex_init(&pf->lock, NULL);
	pthread_cond_init(&pf->cond, NULL);
}

/* What a lookup reads first: the debug file (found, opened, its sections
 * inflated by dwarf_begin_elf) and the symbol table. Errors stay in libdwfl's
 * module, where the lookup finds them as it would have. */
static void load(Dwfl_Module *dm)
{
	Dwarf_Addr bias;

	dwfl_module_getdwarf(dm, &bias);
	dwfl_module_getsymtab(dm);
}

static void *worker(void *arg)
{
	struct pmuk_dw_prefetch *pf = arg;
	struct pmuk_dw_job *job;

	pthread_mutex_lock(&pf->lock);
	for (;;) {
		while (!pf->quit && !pf->head)
			pthread_cond_wait(&pf->cond, &pf->lock);
		if (pf->quit)
			break;
		job = pf->head;
		if (!(pf->head = job->next))
			pf->tail = NULL;
		job->state = PMUK_PF_RUNNING;
		pthread_mutex_unlock(&pf->lock);
		load(job->dm);
		pthread_mutex_lock(&pf->lock);
		job->state = PMUK_PF_NONE;   /* the caller's again */
		pthread_cond_broadcast(&pf->cond);
	}
	pthread_mutex_unlock(&pf->lock);
	return NULL;
}

void pmuk_dw_prefetch_add(struct pmuk_dw_prefetch *pf, struct pmuk_dw_job *job,
			  Dwfl_Module *dm)
{
	*job = (struct pmuk_dw_job){ .dm = dm, .state = PMUK_PF_NONE };
	pthread_mutex_lock(&pf->lock);
	if (!pf->started && !pf->failed) {
		/* the first image: start the worker (without one, lookups read as
		 * before), with every signal blocked: they stay the caller's */
		sigset_t all, old;

		sigfillset(&all);
		pthread_sigmask(SIG_SETMASK, &all, &old);
		if (pthread_create(&pf->thread, NULL, worker, pf))
			pf->failed = 1;
		else
			pf->started = 1;
		pthread_sigmask(SIG_SETMASK, &old, NULL);
	}
	if (pf->started && !pf->quit) {
		job->state = PMUK_PF_QUEUED;
		if (pf->tail)
			pf->tail->next = job;
		else
			pf->head = job;
		pf->tail = job;
		pthread_cond_signal(&pf->cond);
	}
	pthread_mutex_unlock(&pf->lock);
}

void pmuk_dw_prefetch_wait(struct pmuk_dw_prefetch *pf, struct pmuk_dw_job *job)
{
	struct pmuk_dw_job **pp, *prev = NULL;

	pthread_mutex_lock(&pf->lock);
	if (job->state == PMUK_PF_QUEUED) {
		/* not started: the caller reads it when (and if) it needs it */
		for (pp = &pf->head; *pp != job; prev = *pp, pp = &(*pp)->next)
			;
		*pp = job->next;
		if (pf->tail == job)
			pf->tail = prev;
		job->state = PMUK_PF_NONE;
	}
	while (job->state == PMUK_PF_RUNNING)
		pthread_cond_wait(&pf->cond, &pf->lock);
	pthread_mutex_unlock(&pf->lock);
}

void pmuk_dw_prefetch_quit(struct pmuk_dw_prefetch *pf)
{
	pthread_mutex_lock(&pf->lock);
	pf->quit = 1;
	for (struct pmuk_dw_job *j = pf->head; j; j = j->next)
		j->state = PMUK_PF_NONE;
	pf->head = pf->tail = NULL;
	pthread_cond_broadcast(&pf->cond);
	pthread_mutex_unlock(&pf->lock);
}

void pmuk_dw_prefetch_stop(struct pmuk_dw_prefetch *pf)
{
	pthread_mutex_lock(&pf->lock);
	pf->quit = 1;
	pthread_cond_broadcast(&pf->cond);
	pthread_mutex_unlock(&pf->lock);
	if (pf->started)
		pthread_join(pf->thread, NULL);
	pf->started = 0;
	pthread_cond_destroy(&pf->cond);
	pthread_mutex_destroy(&pf->lock);
}

#endif
