/* SPDX-License-Identifier: MIT */
/* record -d's node attribution on a machine with two nodes (the 2-node guest of
 * `make hwtest`: CPU 0 on node 0, CPU 1 on node 1). numa_touch binds
 * numa_global_a and numa_static_b to node 0 and its heap buffer to node 1, runs
 * on CPU 0 and touches numa_static_b from a thread pinned to CPU 1; each page's
 * first touch is one page fault. pmukit record -e page-faults -c 1 -d, then
 * report --sort node,data_object --json must say:
 *   numa_global_a  64 faults  node 0  local  (CPU 0 -> node 0)
 *   numa_static_b  32 faults  node 0  remote (the thread on CPU 1 -> node 0)
 *   [heap]         16 faults  node 1  remote (CPU 0 -> node 1)
 * and, per thread, the pinned thread's 32 faults on numa_static_b remote. The workload is
 * NUMA_TOUCH, else numa_touch next to pmukit, else /bin/numa_touch. */
#include "hwtest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int hw_numa_record(void);

static char out[1 << 18];

static const char *workload(void)
{
	static char path[4096];
	const char *env = getenv("NUMA_TOUCH"), *slash = strrchr(hw.pmukit, '/');

	if (env && *env)
		return env;
	if (slash) {
		snprintf(path, sizeof(path), "%.*s/numa_touch", (int)(slash - hw.pmukit), hw.pmukit);
		if (access(path, X_OK) == 0)
			return path;
	}
	return access("/bin/numa_touch", X_OK) == 0 ? "/bin/numa_touch" : NULL;
}

static const struct hj *row_of(const struct hj *rows, const char *obj)
{
	for (size_t i = 0; rows && rows->type == HJ_ARR && i < rows->n; i++) {
		const char *o = hj_str(&rows->kids[i], "data_object");

		if (o && !strcmp(o, obj))
			return &rows->kids[i];
	}
	return NULL;
}

static double num(const struct hj *v, const char *key)
{
	const struct hj *n = hj_get(v, key);

	return n && n->type == HJ_NUM ? n->num : -1;
}

/* One buffer's row: its faults, its node, and all of them local or remote. */
static int check_row(const char *name, const struct hj *rows, const char *obj, int pages,
		     int node, int remote)
{
	const struct hj *r = row_of(rows, obj);

	if (!r)
		return hw_fail(name, "no row for %s in the report", obj);
	if (num(r, "samples") != pages || num(r, "node") != node ||
	    num(r, remote ? "remote" : "local") != pages)
		return hw_fail(name, "%s: %.0f faults on node %.0f, %.0f local, %.0f remote; "
			       "expected %d faults on node %d, all %s", obj, num(r, "samples"),
			       num(r, "node"), num(r, "local"), num(r, "remote"), pages, node,
			       remote ? "remote" : "local");
	return 1;
}

/* The thread pinned to CPU 1 (numa_touch's thread that is not the main one):
 * its numa_static_b faults are its remote ones, exactly (its own stack pages are
 * first touched on CPU 1, so they are local). The main thread's other faults
 * (page-cache pages of the libraries) may be on either node: not counted. */
static int check_threads(const char *name, const struct hj *threads)
{
	for (size_t i = 0; threads && threads->type == HJ_ARR && i < threads->n; i++) {
		const struct hj *t = &threads->kids[i];
		const char *comm = hj_str(t, "comm");

		if (!comm || strcmp(comm, "numa_touch") || num(t, "tid") == num(t, "pid"))
			continue;
		if (num(t, "remote") != 32)
			return hw_fail(name, "the thread on CPU 1 (tid %.0f): %.0f remote faults, "
				       "%.0f local; expected its 32 faults on numa_static_b (node 0) "
				       "remote", num(t, "tid"), num(t, "remote"), num(t, "local"));
		return 1;
	}
	return hw_fail(name, "no row for numa_touch's second thread in the threads section");
}

static int check_report(const char *name, const char *file)
{
	char *argv[] = { (char *)hw.pmukit, "report", "-i", (char *)file, "--sort",
			 "node,data_object", "--json", NULL };
	int rc = hw_run(argv, out, sizeof(out)), ok;
	struct hj *doc;
	const struct hj *rows;

	if (rc != 0)
		return hw_fail(name, "pmukit report exited with %d: %.400s", rc, out);
	if (!(doc = hj_parse(out)))
		return hw_fail(name, "report --json is not JSON: %.200s", out);
	rows = hj_get(doc, "rows");
	ok = check_row(name, rows, "numa_global_a", 64, 0, 0) &&
	     check_row(name, rows, "numa_static_b", 32, 0, 1) &&
	     check_row(name, rows, "[heap]", 16, 1, 1) &&
	     check_threads(name, hj_get(doc, "threads"));
	hj_free(doc);
	return ok ? hw_ok(name) : 0;
}

int hw_numa_record(void)
{
	const char *name = "numa_record", *w = workload();
	const char *file = "/tmp/numa.data";
	char *argv[] = { (char *)hw.pmukit, "record", "-e", "page-faults", "-c", "1", "-d", "-o",
			 (char *)file, "--", NULL, "-m", "0,0,1", "-c", "0", "-T", "1", NULL };
	int rc;

	if (access("/sys/devices/system/node/node1", F_OK) != 0)
		return hw_skip(name, "one NUMA node here (no /sys/devices/system/node/node1): the "
			       "2-node guest of `make hwtest` runs this case");
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		return hw_skip(name, "one CPU online: the case pins a thread to CPU 1");
	if (!w)
		return hw_skip(name, "numa_touch not found (NUMA_TOUCH, next to pmukit, /bin)");
	argv[10] = (char *)w;
	hw_note("%s: %s record -e page-faults -c 1 -d -- %s -m 0,0,1 -c 0 -T 1", name,
		hw.pmukit, w);
	rc = hw_run(argv, out, sizeof(out));
	if (rc != 0)
		return hw_fail(name, "pmukit record exited with %d: %.400s", rc, out);
	return check_report(name, file);
}
