/* SPDX-License-Identifier: MIT */
#ifndef PMUKIT_TOOL_EXPORTER_HTTP_H
#define PMUKIT_TOOL_EXPORTER_HTTP_H

/* pmukit exporter's HTTP side, kept in the command: the library renders metrics
 * and knows nothing of HTTP. exporter_app.c decides what each request gets (routes,
 * content negotiation, gzip, the scrape lock, logging each kind of failure once);
 * exporter_httpd_mhd.c (libmicrohttpd, Linux) and exporter_httpd_win.c (Winsock)
 * move the bytes. */

#include <stddef.h>

struct pmu_exporter;

/* Limits against slow, many or large clients (none of them grows memory). */
#define EXP_MAX_CONNECTIONS 64
#define EXP_MAX_HEADER_BYTES 8192   /* request line + headers; more is 431 */
#define EXP_MAX_BODY_BYTES 0        /* GET carries no body; one is 413 */
#define EXP_TIMEOUT_S 10            /* idle connection (slowloris) */

struct exp_app;

struct exp_reply {
	int status;
	const char *type;      /* Content-Type */
	const char *encoding;  /* Content-Encoding, or NULL */
	const char *allow;     /* Allow (for 405), or NULL */
	const void *body;
	size_t len;
};

int exp_app_new(struct pmu_exporter *e, unsigned long max_requests, struct exp_app **out);
void exp_app_free(struct exp_app *a);

/* What a request gets. accept and accept_encoding may be NULL. Takes the app's
 * lock: the reply (its body may be the scrape's buffer) holds until
 * exp_app_done, which the server calls once it has copied or sent it. */
void exp_app_route(struct exp_app *a, const char *method, const char *path,
		   const char *accept, const char *accept_encoding, struct exp_reply *r);
void exp_app_done(struct exp_app *a, struct exp_reply *r);

/* A reply the server makes itself (413, 431, 400): logs its kind once and fills r
 * with the canned body. No lock is held after it. */
void exp_app_error(struct exp_app *a, int status, const char *why, struct exp_reply *r);
/* A failure outside a reply (a client gone mid-response, the server library's own
 * messages): logged once per distinct kind. */
void exp_app_log_once(struct exp_app *a, const char *kind, const char *detail);
/* msg logged the first time key is seen (the server library's messages, keyed by
 * their format). */
void exp_app_say_once(struct exp_app *a, const char *key, const char *msg);

/* Counts a finished request; 1 when --max-requests is reached. */
int exp_app_finished(struct exp_app *a);
unsigned long exp_app_requests(struct exp_app *a);

/* The listen address "HOST:PORT", "[V6]:PORT" or ":PORT" (all interfaces). */
struct exp_listen {
	char host[256];
	char port[16];
	const char *tls_cert, *tls_key;  /* PEM files, or NULL */
};
int exp_listen_parse(const char *s, struct exp_listen *l);

/* Serves until SIGTERM/SIGINT (Ctrl-C, console close), a service stop or
 * max_requests. Writes "listening on URL" to stderr once bound (and, as a
 * service, reports SERVICE_RUNNING then). Returns the exit status. */
int exp_serve(struct exp_app *a, const struct exp_listen *l);

#ifdef _WIN32
/* Windows: runs body(argc, argv) as the service name under the Service Control
 * Manager, which stops it with SERVICE_CONTROL_STOP or _SHUTDOWN; body's status
 * becomes the service's exit code. Started from a console instead: 1, with a
 * sentence saying to go through sc create/start. */
int exp_service(const char *name, int (*body)(int argc, char **argv), int argc, char **argv);
#endif

#endif
