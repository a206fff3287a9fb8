/* SPDX-License-Identifier: MIT */
/* libpfm4 through dlopen (see linux/pfm_dl.h for why). */
#include "linux/pfm_dl.h"

#ifdef PMUKIT_HAVE_PFM
#include <dlfcn.h>
#include <stdio.h>

/* The ABI of <perfmon/pfmlib.h> (LIBPFM_VERSION 4): the soname's major. */
#define PFM_SONAME "libpfm.so.4"

struct pmuk_pfm_api pmuk_pfm;

static int sym(void *h, const char *name, void *fn, char *buf, size_t size)
{
	void *p = dlsym(h, name);

	if (!p) {
		snprintf(buf, size, "%s has no %s: %s", PFM_SONAME, name, dlerror());
		return -1;
	}
	*(void **)fn = p;  /* POSIX: a function pointer converts through void * */
	return 0;
}

int pmuk_pfm_load(char *buf, size_t size)
{
	struct pmuk_pfm_api api;
	void *h = dlopen(PFM_SONAME, RTLD_NOW | RTLD_LOCAL);

	if (!h) {
		snprintf(buf, size, "cannot load %s (Debian: apt install libpfm4): %s",
			 PFM_SONAME, dlerror());
		return -1;
	}
	if (sym(h, "pfm_initialize", &api.initialize, buf, size) ||
	    sym(h, "pfm_strerror", &api.strerror, buf, size) ||
	    sym(h, "pfm_get_pmu_info", &api.get_pmu_info, buf, size) ||
	    sym(h, "pfm_get_event_next", &api.get_event_next, buf, size) ||
	    sym(h, "pfm_get_event_info", &api.get_event_info, buf, size) ||
	    sym(h, "pfm_get_os_event_encoding", &api.get_os_event_encoding, buf, size)) {
		dlclose(h);
		return -1;
	}
	pmuk_pfm = api;  /* kept loaded for the life of the process */
	return 0;
}
#endif
