/* SPDX-License-Identifier: MIT */
/* perf_event fds held by other processes: /proc/PID/fd/N links that read
 * "anon_inode:[perf_event]" (linux/expo_holders.h). */
#include "linux/expo_holders.h"
#include "core/error.h"
#include "core/sysroot.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char perf_link[] = "anon_inode:[perf_event]";

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* perf_event fds of process pid. */
static unsigned count_fds(const char *proc, long pid)
{
	char path[600], link[sizeof(perf_link) + 1];
	struct dirent *d;
	unsigned n = 0;
	DIR *fds;

	if (snprintf(path, sizeof(path), "%s/%ld/fd", proc, pid) >= (int)sizeof(path))
		return 0;
	if (!(fds = opendir(path)))
		return 0;
	while ((d = readdir(fds))) {
		ssize_t len = readlinkat(dirfd(fds), d->d_name, link, sizeof(link));

		n += len == (ssize_t)sizeof(perf_link) - 1 && !memcmp(link, perf_link, (size_t)len);
	}
	closedir(fds);
	return n;
}

/* Keeps the HOLDERS_MAX with most fds: a new one replaces the smallest. */
static void keep(struct pmuk_holders *h, const char *proc, int pid, unsigned fds)
{
	struct pmuk_holder *slot = h->n < HOLDERS_MAX ? &h->h[h->n] : NULL;
	char path[600];

	for (size_t i = 0; !slot && i < HOLDERS_MAX; i++)
		if (h->h[i].fds < fds && (!slot || h->h[i].fds < slot->fds))
			slot = &h->h[i];
	if (!slot || h->n >= HOLDERS_MAX)
		h->omitted++;
	if (!slot)
		return;
	if (h->n < HOLDERS_MAX)
		h->n++;
	slot->pid = pid;
	slot->fds = fds;
	if (snprintf(path, sizeof(path), "%s/%d/comm", proc, pid) >= (int)sizeof(path) ||
	    pmuk_read_text(path, slot->comm, sizeof(slot->comm)) <= 0)
		snprintf(slot->comm, sizeof(slot->comm), "?");
}

static int by_pid(const void *a, const void *b)
{
	const struct pmuk_holder *x = a, *y = b;

	return (x->pid > y->pid) - (x->pid < y->pid);
}

void pmuk_holders_update(struct pmuk_holders *h)
{
	double t = now();
	char proc[512];
	struct dirent *d;
	int self = (int)getpid();
	DIR *dir;

	if (h->at > 0 && t - h->at < HOLDERS_TTL_S)
		return;
	h->at = t;
	h->n = h->omitted = 0;
	if (pmuk_path(proc, sizeof(proc), "/proc") || !(dir = opendir(proc))) {
		pmuk_clear_detail();
		return;
	}
	while ((d = readdir(dir))) {
		char *end;
		long pid = strtol(d->d_name, &end, 10);
		unsigned fds;

		if (*end || end == d->d_name || pid <= 0 || pid == self)
			continue;
		if ((fds = count_fds(proc, pid)))
			keep(h, proc, (int)pid, fds);
	}
	closedir(dir);
	if (h->n)  /* no holders: h->h may be NULL, and qsort of NULL is undefined */
		qsort(h->h, h->n, sizeof(*h->h), by_pid);
}
