/* SPDX-License-Identifier: MIT */
/* What each request to pmukit exporter gets: the routes, the format and gzip the
 * scraper asked for, one scrape at a time, each kind of failure logged once. */
#include "exporter_http.h"
#include "exporter_self.h"

#include "core/error.h"
#include "core/expo.h"

#include <pmukit/pmukit.h>
#include <pmukit/exporter.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef _WIN32
#include <windows.h>
#else
#include <pthread.h>
#include <strings.h>
#endif
#ifdef PMUKIT_HAVE_ZLIB
#include <zlib.h>
#endif

#define MAX_KINDS 32

struct exp_app {
#ifdef _WIN32
	SRWLOCK lock;
#else
	pthread_mutex_t lock;
#endif
	struct pmu_exporter *e;
	unsigned long max_requests, requests;
	double start;            /* epoch seconds: process_start_time_seconds */
	unsigned char *gz;
	size_t gz_cap;
#ifdef PMUKIT_HAVE_ZLIB
	z_stream z;
	int z_ready;
#endif
	char *kinds[MAX_KINDS];  /* the failure kinds already logged */
	size_t nkinds;
};

static void lock(struct exp_app *a)
{
#ifdef _WIN32
	AcquireSRWLockExclusive(&a->lock);
#else
	pthread_mutex_lock(&a->lock);
#endif
}

static void unlock(struct exp_app *a)
{
#ifdef _WIN32
	ReleaseSRWLockExclusive(&a->lock);
#else
	pthread_mutex_unlock(&a->lock);
#endif
}

int exp_app_new(struct pmu_exporter *e, unsigned long max_requests, struct exp_app **out)
{
	struct exp_app *a = calloc(1, sizeof(*a));

	*out = NULL;
	if (!a)
		return PMU_ENOMEM;
#ifdef _WIN32
	InitializeSRWLock(&a->lock);
#else
	pthread_mutex_init(&a->lock, NULL);
#endif
	a->e = e;
	a->max_requests = max_requests;
	a->start = (double)time(NULL);
	*out = a;
	return 0;
}

void exp_app_free(struct exp_app *a)
{
	if (!a)
		return;
	for (size_t i = 0; i < a->nkinds; i++)
		free(a->kinds[i]);
	free(a->gz);
#ifdef PMUKIT_HAVE_ZLIB
	if (a->z_ready)
		deflateEnd(&a->z);
#endif
#ifndef _WIN32
	pthread_mutex_destroy(&a->lock);
#endif
	free(a);
}

/* Logs msg the first time key is seen; a client repeating the same mistake every
 * second does not fill the log. Called with the lock held. */
static void say_once_locked(struct exp_app *a, const char *key, const char *msg)
{
	for (size_t i = 0; i < a->nkinds; i++)
		if (!strcmp(a->kinds[i], key))
			return;
	if (a->nkinds < MAX_KINDS && (a->kinds[a->nkinds] = strdup(key)))
		a->nkinds++;
	fprintf(stderr, "pmukit exporter: %s (further ones not logged)\n", msg);
}

static void log_once_locked(struct exp_app *a, const char *kind, const char *detail)
{
	char msg[768];

	snprintf(msg, sizeof(msg), "%s: %s", kind, detail);
	say_once_locked(a, kind, msg);
}

void exp_app_log_once(struct exp_app *a, const char *kind, const char *detail)
{
	lock(a);
	log_once_locked(a, kind, detail);
	unlock(a);
}

void exp_app_say_once(struct exp_app *a, const char *key, const char *msg)
{
	lock(a);
	say_once_locked(a, key, msg);
	unlock(a);
}

/* Whether a comma-separated header (Accept, Accept-Encoding) lists token with a
 * q above 0. The token is matched case-insensitively up to its parameters. */
static int accepts(const char *h, const char *token)
{
	size_t n = strlen(token);

	for (const char *p = h; p && *p;) {
		while (*p == ' ' || *p == '\t' || *p == ',')
			p++;
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		if (len >= n && !strncasecmp(p, token, n) &&
		    (len == n || p[n] == ';' || p[n] == ' ' || p[n] == '\t')) {
			const char *q = p + n;
			int zero = 0;
			while ((q = strchr(q, ';')) && q < p + len) {
				q++;
				while (*q == ' ')
					q++;
				if ((*q == 'q' || *q == 'Q') && q[1] == '=')
					zero = strtod(q + 2, NULL) <= 0.0;
			}
			if (!zero)
				return 1;
		}
		p = end;
	}
	return 0;
}

static void set(struct exp_reply *r, int status, const char *type, const char *body)
{
	memset(r, 0, sizeof(*r));
	r->status = status;
	r->type = type;
	r->body = body;
	r->len = strlen(body);
}

static const char home[] =
	"<!DOCTYPE html>\n<html><head><title>pmukit exporter</title></head><body>\n"
	"<h1>pmukit exporter</h1>\n<p><a href=\"/metrics\">Metrics</a></p>\n</body></html>\n";

#ifdef PMUKIT_HAVE_ZLIB
/* The gzip stream, made once and reset per scrape: deflateInit's ~100 KiB of
 * tables are not allocated and zeroed again each time. windowBits 13 + 16 (the
 * gzip wrapper) and memLevel 7: exposition text repeats within a few lines,
 * so a small window compresses it about as well at less than half the memory.
 * Level 1: the fastest level keeps most of the gain at a fraction of the CPU. */
static int gz_start(struct exp_app *a)
{
	if (a->z_ready)
		return deflateReset(&a->z) == Z_OK ? 0 : -1;
	memset(&a->z, 0, sizeof(a->z));
	if (deflateInit2(&a->z, Z_BEST_SPEED, Z_DEFLATED, 13 + 16, 7, Z_DEFAULT_STRATEGY) != Z_OK)
		return -1;
	a->z_ready = 1;
	return 0;
}

/* Room for more output: the buffer grows as the stream needs, not to
 * deflateBound (compressed text is a tenth of it or less). */
static int gz_room(struct exp_app *a)
{
	size_t used = a->z.total_out, cap = a->gz_cap ? 2 * a->gz_cap : 16384;
	unsigned char *p = realloc(a->gz, cap);

	if (!p)
		return -1;
	a->gz = p;
	a->gz_cap = cap;
	a->z.next_out = a->gz + used;
	a->z.avail_out = (uInt)(cap - used);
	return 0;
}
#endif

#ifdef PMUKIT_HAVE_ZLIB
/* Runs deflate over what is in a->z, growing a->gz as needed: until the input
 * is taken (Z_NO_FLUSH), or the stream is complete (Z_FINISH). */
static int gz_deflate(struct exp_app *a, int flush)
{
	for (;;) {
		int rc;

		if (!a->z.avail_out && gz_room(a))
			return pmuk_fail(PMU_ENOMEM, "out of memory compressing the scrape");
		rc = deflate(&a->z, flush);
		if (rc == Z_STREAM_END || (flush == Z_NO_FLUSH && !a->z.avail_in && a->z.avail_out))
			return 0;
		if (rc != Z_OK && !(rc == Z_BUF_ERROR && !a->z.avail_out))
			return pmuk_fail(PMU_EIO, "zlib's deflate failed (error %d) compressing "
					 "the scrape", rc);
	}
}

/* Each piece of the rendered text, straight into the gzip stream. */
static int gz_sink(void *ctx, const char *p, size_t n)
{
	struct exp_app *a = ctx;

	a->z.next_in = (unsigned char *)p;  /* zlib's API is not const */
	a->z.avail_in = (uInt)n;            /* a piece: PMUK_EXPO_PIECE and a line */
	return gz_deflate(a, Z_NO_FLUSH);
}

/* The set streamed through gzip into a->gz: the uncompressed text (half a
 * megabyte on a 256-CPU host) is never whole in memory. 1 when the scraper
 * does not take gzip or zlib cannot start: the caller sends it as it is. */
static int render_gzip(struct exp_app *a, struct pmu_mset *ms, enum pmu_expo_format fmt,
		       const char *accept_encoding, struct exp_reply *r, int *err)
{
	if (!accept_encoding || !(accepts(accept_encoding, "gzip") ||
				  accepts(accept_encoding, "*")))
		return 1;
	if (gz_start(a)) {
		log_once_locked(a, "gzip", "zlib could not start (no memory); sent uncompressed");
		return 1;
	}
	a->z.next_out = a->gz;
	a->z.avail_out = (uInt)a->gz_cap;
	if (!(*err = pmuk_mset_render_sink(ms, fmt, gz_sink, a)))
		*err = gz_deflate(a, Z_FINISH);
	r->body = a->gz;
	r->len = a->z.total_out;
	r->encoding = "gzip";
	return 0;
}
#else
static int render_gzip(struct exp_app *a, struct pmu_mset *ms, enum pmu_expo_format fmt,
		       const char *accept_encoding, struct exp_reply *r, int *err)
{
	(void)a;
	(void)ms;
	(void)fmt;
	(void)accept_encoding;
	(void)r;
	(void)err;
	return 1;
}
#endif

static void metrics(struct exp_app *a, const char *accept, const char *accept_encoding,
		    struct exp_reply *r)
{
	enum pmu_expo_format fmt = accept && accepts(accept, "application/openmetrics-text")
		? PMU_EXPO_OPENMETRICS : PMU_EXPO_TEXT;
	struct pmu_mset *ms;
	const char *text;
	size_t len;
	int err;

	memset(r, 0, sizeof(*r));
	if (!(err = pmuk_exporter_collect(a->e, &ms)))
		err = exp_self_metrics(ms, a->start);
	if (!err && render_gzip(a, ms, fmt, accept_encoding, r, &err) &&
	    !(err = pmu_mset_render(ms, fmt, &text, &len))) {
		r->body = text;
		r->len = len;
	}
	if (err) {
		char why[512];
		snprintf(why, sizeof(why), "%s: %s", pmu_strerror(err), pmu_error_detail());
		log_once_locked(a, "scrape failed (500)", why);
		return set(r, 500, "text/plain; charset=utf-8", "scrape failed; see the "
			   "exporter's log\n");
	}
	r->status = 200;
	r->type = pmu_exporter_content_type(fmt);
}

void exp_app_route(struct exp_app *a, const char *method, const char *path,
		   const char *accept, const char *accept_encoding, struct exp_reply *r)
{
	int head = !strcmp(method, "HEAD");
	size_t plen = strcspn(path, "?");  /* a query string is ignored */

	lock(a);
	if (!head && strcmp(method, "GET")) {
		log_once_locked(a, "method not allowed (405)", method);
		set(r, 405, "text/plain; charset=utf-8", "method not allowed: GET or HEAD\n");
		r->allow = "GET, HEAD";
	} else if (plen == 8 && !strncmp(path, "/metrics", 8)) {
		metrics(a, accept, accept_encoding, r);
	} else if (plen == 1 && path[0] == '/') {
		set(r, 200, "text/html; charset=utf-8", home);
	} else if (plen == 10 && !strncmp(path, "/-/healthy", 10)) {
		set(r, 200, "text/plain; charset=utf-8", "OK\n");
	} else {
		log_once_locked(a, "not found (404)", path);
		set(r, 404, "text/plain; charset=utf-8", "not found: try /metrics\n");
	}
}

void exp_app_done(struct exp_app *a, struct exp_reply *r)
{
	(void)r;
	unlock(a);
}

void exp_app_error(struct exp_app *a, int status, const char *why, struct exp_reply *r)
{
	char kind[64];
	const char *body = status == 431 ? "request header fields too large\n"
		: status == 413 ? "request body too large: GET takes none\n"
		: status == 408 ? "request timeout\n"
		: status == 503 ? "server out of memory\n" : "bad request\n";

	snprintf(kind, sizeof(kind), "request refused (%d)", status);
	exp_app_log_once(a, kind, why);
	set(r, status, "text/plain; charset=utf-8", body);
}

int exp_app_finished(struct exp_app *a)
{
	lock(a);
	int done = a->max_requests && ++a->requests >= a->max_requests;
	if (!a->max_requests)
		a->requests++;
	unlock(a);
	return done;
}

unsigned long exp_app_requests(struct exp_app *a)
{
	lock(a);
	unsigned long n = a->requests;
	unlock(a);
	return n;
}

int exp_listen_parse(const char *s, struct exp_listen *l)
{
	const char *colon = strrchr(s, ':'), *host = s;
	size_t hlen;

	memset(l, 0, sizeof(*l));
	if (!colon || !colon[1] || strlen(colon + 1) >= sizeof(l->port))
		return PMU_EINVAL;
	hlen = (size_t)(colon - s);
	if (hlen >= 2 && s[0] == '[' && s[hlen - 1] == ']') {  /* [::1]:9464 */
		host++;
		hlen -= 2;
	} else if (memchr(s, ':', hlen)) {
		return PMU_EINVAL;  /* an IPv6 address needs its brackets */
	}
	if (hlen >= sizeof(l->host))
		return PMU_EINVAL;
	memcpy(l->host, host, hlen);
	strcpy(l->port, colon + 1);
	for (const char *p = l->port; *p; p++)
		if (*p < '0' || *p > '9')
			return PMU_EINVAL;
	return atol(l->port) <= 65535 ? 0 : PMU_EINVAL;
}
