/* SPDX-License-Identifier: MIT */
/* pmukit script's view of the recorded machine, as perf script keeps it: each
 * thread's name (COMM, inherited at FORK) and each process's mappings (MMAP,
 * copied at FORK, a newer mapping replacing what it overlaps), so a sample's
 * addresses get their module and the offset perf prints. */
#ifndef PMUKIT_TOOL_SCRIPT_H
#define PMUKIT_TOOL_SCRIPT_H

#include "core/hash.h"

#include <pmukit/sampling.h>
#include <stddef.h>
#include <stdint.h>

struct sc_map {
	uint64_t start, end, pgoff;
	const char *dso;         /* the name perf prints, shared by the pieces of a map */
	int kernel;              /* kernel or module: addresses print absolute */
	int identity;            /* anonymous memory, stack, heap: ip is its own offset */
};

struct sc_maps {                 /* one address space, sorted, not overlapping */
	int32_t pid;             /* -1: the kernel's */
	struct sc_map *v;
	size_t n, cap;
};

struct sc_thread {
	int32_t tid, pid;
	char *comm;              /* NULL: never named */
};

struct sc_state {
	struct sc_thread *threads;
	size_t n_threads, cap_threads;
	struct pmuk_index thread_ix;
	struct sc_maps *procs;
	size_t n_procs, cap_procs;
	struct pmuk_index proc_ix;
	struct sc_maps kernel;
	char **names;            /* every dso name, freed at the end */
	/* Unnamed threads take their process's name (.etl names processes; perf
	 * names every thread, at its COMM or FORK). */
	int process_names;
	size_t n_names, cap_names;
};

/* COMM, FORK and MMAP records; 0 or PMU_ENOMEM. */
int sc_track(struct sc_state *s, const struct pmu_record *rec);
/* The name perf prints for thread tid of process pid ("swapper" for 0, ":tid"
 * when never named), into buf when it has to make one. */
const char *sc_comm(const struct sc_state *s, int32_t pid, int32_t tid, char *buf, size_t size);
/* The mapping holding addr in process pid (kernel: the kernel's), or NULL. */
const struct sc_map *sc_find(const struct sc_state *s, int32_t pid, int kernel, uint64_t addr);
void sc_free(struct sc_state *s);

#endif
