/* SPDX-License-Identifier: MIT */
/* pmukit exporter's server on Linux: libmicrohttpd with a thread pool, a
 * connection limit, an idle timeout (slowloris) and a per-connection memory
 * limit (oversized headers get 431). The listening socket is bound here first so
 * a port in use is said plainly at start. */
#include "exporter_http.h"

#include <pmukit/pmukit.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#ifndef PMUKIT_HAVE_MHD
int exp_serve(struct exp_app *a, const struct exp_listen *l)
{
	(void)a;
	(void)l;
	fprintf(stderr, "pmukit exporter: this pmukit was built without libmicrohttpd "
		"(libmicrohttpd-dev): it cannot serve HTTP; --once still prints a scrape\n");
	return 1;
}
#else
#include <microhttpd.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

static int wake[2] = { -1, -1 };  /* the main thread waits on wake[0] */

static void wake_main(void)
{
	char c = 1;
	ssize_t n = write(wake[1], &c, 1);  /* the pipe is non-blocking: a full one is awake */

	(void)n;
}

static void on_signal(int sig)
{
	(void)sig;
	wake_main();
}

static enum MHD_Result send_reply(struct MHD_Connection *c, const struct exp_reply *r)
{
	struct MHD_Response *resp = MHD_create_response_from_buffer(
		r->len, (void *)r->body, MHD_RESPMEM_MUST_COPY);
	enum MHD_Result ret;

	if (!resp)
		return MHD_NO;
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, r->type);
	if (r->encoding)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_ENCODING, r->encoding);
	if (r->allow)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_ALLOW, r->allow);
	MHD_add_response_header(resp, MHD_HTTP_HEADER_VARY, "Accept, Accept-Encoding");
	ret = MHD_queue_response(c, (unsigned)r->status, resp);
	MHD_destroy_response(resp);
	return ret;
}

/* A GET with a body: refused before it is read. */
static int has_body(struct MHD_Connection *c)
{
	const char *cl = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
						     MHD_HTTP_HEADER_CONTENT_LENGTH);
	const char *te = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
						     MHD_HTTP_HEADER_TRANSFER_ENCODING);

	return (cl && strtoull(cl, NULL, 10) > EXP_MAX_BODY_BYTES) || te;
}

static enum MHD_Result add_len(void *cls, enum MHD_ValueKind kind, const char *key,
				 const char *value)
{
	(void)kind;
	*(size_t *)cls += strlen(key) + (value ? strlen(value) : 0) + 4;  /* ": " CRLF */
	return MHD_YES;
}

/* The request line and headers past EXP_MAX_HEADER_BYTES: 431 from here. The
 * connection's memory limit (4x) is only the backstop: near it libmicrohttpd
 * 0.9.75 may close the connection without a reply. */
static int headers_too_large(struct MHD_Connection *c, const char *url)
{
	size_t n = strlen(url) + 16;

	MHD_get_connection_values(c, MHD_HEADER_KIND, add_len, &n);
	return n > EXP_MAX_HEADER_BYTES;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
				  const char *method, const char *version,
				  const char *upload_data, size_t *upload_data_size, void **ctx)
{
	struct exp_app *a = cls;
	struct exp_reply r;
	enum MHD_Result ret;

	(void)version;
	(void)upload_data;
	(void)upload_data_size;
	(void)ctx;
	if (headers_too_large(c, url)) {
		exp_app_error(a, 431, "request headers past 8192 bytes", &r);
		return send_reply(c, &r);
	}
	if ((!strcmp(method, "GET") || !strcmp(method, "HEAD")) && has_body(c)) {
		exp_app_error(a, 413, "a GET or HEAD with a body", &r);
		return send_reply(c, &r);
	}
	exp_app_route(a, method, url,
		      MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT),
		      MHD_lookup_connection_value(c, MHD_HEADER_KIND,
						  MHD_HTTP_HEADER_ACCEPT_ENCODING), &r);
	ret = send_reply(c, &r);  /* copies the body: the lock is held only this long */
	exp_app_done(a, &r);
	return ret;
}

static void on_completed(void *cls, struct MHD_Connection *c, void **ctx,
			 enum MHD_RequestTerminationCode toe)
{
	struct exp_app *a = cls;

	(void)c;
	(void)ctx;
	if (toe == MHD_REQUEST_TERMINATED_TIMEOUT_REACHED)
		exp_app_log_once(a, "client timed out", "a connection idle for "
				 "10 s was closed (a slow or stuck client)");
	else if (toe == MHD_REQUEST_TERMINATED_CLIENT_ABORT)
		exp_app_log_once(a, "client went away", "a client closed its connection "
				 "before the response was sent");
	else if (toe == MHD_REQUEST_TERMINATED_READ_ERROR)
		exp_app_log_once(a, "bad request", "a request could not be read (too "
				 "large, malformed, or the connection broke)");
	if (toe != MHD_REQUEST_TERMINATED_DAEMON_SHUTDOWN && exp_app_finished(a))
		wake_main();
}

/* libmicrohttpd's own messages: each format once. */
static void on_log(void *cls, const char *fmt, va_list ap)
{
	char msg[512];
	size_t n;

	vsnprintf(msg, sizeof(msg), fmt, ap);
	n = strlen(msg);
	while (n && msg[n - 1] == '\n')
		msg[--n] = 0;
	exp_app_say_once(cls, fmt, msg);
}

/* Binds and listens; a port in use or an address not on this host is said here. */
static int bind_listen(const struct exp_listen *l)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM, .ai_flags = AI_PASSIVE };
	struct addrinfo *ai;
	int fd, one = 1, rc, e;

	rc = getaddrinfo(l->host[0] ? l->host : NULL, l->port, &hints, &ai);
	if (rc) {
		fprintf(stderr, "pmukit exporter: --listen %s:%s: %s\n", l->host, l->port,
			gai_strerror(rc));
		return -1;
	}
	fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd >= 0) {
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (bind(fd, ai->ai_addr, ai->ai_addrlen) || listen(fd, 128)) {
			e = errno;
			close(fd);
			fd = -1;
			errno = e;
		}
	}
	freeaddrinfo(ai);
	if (fd < 0)
		fprintf(stderr, "pmukit exporter: cannot listen on %s:%s: %s%s\n", l->host,
			l->port, strerror(errno), errno == EADDRINUSE ? " (another program "
			"holds this port: stop it, or choose another with --listen)" : "");
	return fd;
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	long n;

	if (f && !fseek(f, 0, SEEK_END) && (n = ftell(f)) > 0 && !fseek(f, 0, SEEK_SET) &&
	    (buf = calloc(1, (size_t)n + 1)) && fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	if (f)
		fclose(f);
	if (!buf)
		fprintf(stderr, "pmukit exporter: cannot read %s: %s\n", path, strerror(errno));
	return buf;
}

static struct MHD_Daemon *start(struct exp_app *a, int fd, const char *key, const char *cert)
{
	unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_AUTO | MHD_USE_ERROR_LOG;
	struct MHD_OptionItem tls[] = {
		{ MHD_OPTION_HTTPS_MEM_KEY, 0, (void *)key },
		{ MHD_OPTION_HTTPS_MEM_CERT, 0, (void *)cert },
		{ MHD_OPTION_END, 0, NULL },
	};

	if (key)
		flags |= MHD_USE_TLS;
	return MHD_start_daemon(flags, 0, NULL, NULL, on_request, a,
		MHD_OPTION_EXTERNAL_LOGGER, on_log, a,  /* first, so it gets every message */
		MHD_OPTION_LISTEN_SOCKET, fd,
		MHD_OPTION_THREAD_POOL_SIZE, (unsigned)2,
		MHD_OPTION_CONNECTION_LIMIT, (unsigned)EXP_MAX_CONNECTIONS,
		MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)EXP_TIMEOUT_S,
		/* the read buffer: headers past it get libmicrohttpd's own 431 */
		MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)(4 * EXP_MAX_HEADER_BYTES),
		MHD_OPTION_NOTIFY_COMPLETED, on_completed, a,
		MHD_OPTION_ARRAY, key ? tls : tls + 2,
		MHD_OPTION_END);
}

static int run(struct exp_app *a, const struct exp_listen *l, int fd, const char *key,
	       const char *cert)
{
	struct sigaction sa = { .sa_handler = on_signal }, ign = { .sa_handler = SIG_IGN };
	struct MHD_Daemon *d;
	char c;

	sigemptyset(&sa.sa_mask);
	sigaction(SIGPIPE, &ign, NULL);
	if (pipe2(wake, O_CLOEXEC | O_NONBLOCK))
		return fprintf(stderr, "pmukit exporter: pipe: %s\n", strerror(errno)), 1;
	if (!(d = start(a, fd, key, cert))) {
		fprintf(stderr, "pmukit exporter: libmicrohttpd did not start on %s:%s "
			"(see the message above)\n", l->host, l->port);
		close(fd);
		return 1;
	}
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	fprintf(stderr, "pmukit exporter: listening on %s://%s%s%s:%s/metrics\n",
		key ? "https" : "http", strchr(l->host, ':') ? "[" : "",
		l->host[0] ? l->host : "0.0.0.0", strchr(l->host, ':') ? "]" : "", l->port);
	struct pollfd p = { .fd = wake[0], .events = POLLIN };
	while (poll(&p, 1, -1) < 0 && errno == EINTR)
		;
	while (read(wake[0], &c, 1) == 1)
		;
	MHD_stop_daemon(d);  /* waits for the requests in flight; closes fd */
	fprintf(stderr, "pmukit exporter: stopped after %lu requests\n", exp_app_requests(a));
	return 0;
}

int exp_serve(struct exp_app *a, const struct exp_listen *l)
{
	char *key = NULL, *cert = NULL;
	int fd, status = 1;

	if (l->tls_key && !MHD_is_feature_supported(MHD_FEATURE_TLS)) {
		fprintf(stderr, "pmukit exporter: this libmicrohttpd has no TLS support\n");
		return 1;
	}
	if (l->tls_key && (!(key = slurp(l->tls_key)) || !(cert = slurp(l->tls_cert))))
		goto out;
	if ((fd = bind_listen(l)) >= 0)
		status = run(a, l, fd, key, cert);
out:
	free(key);
	free(cert);
	return status;
}
#endif
