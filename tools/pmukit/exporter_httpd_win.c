/* SPDX-License-Identifier: MIT */
/* pmukit exporter's server on Windows: Winsock (ws2_32, a system DLL), a thread
 * per connection up to EXP_MAX_CONNECTIONS (more are closed at once), each with a
 * receive and send timeout so a slow client holds only its own thread, for at most
 * EXP_TIMEOUT_S; one request per connection (Connection: close). With --tls-cert
 * and --tls-key the same request and reply go through Schannel (exporter_tls_win.c),
 * whose deadline also bounds a slow handshake. As a service
 * (exp_service), the Service Control Manager's stop sets the same stop flag as
 * Ctrl-C does. */
#include "exporter_http.h"
#include "exporter_tls_win.h"

#include <winsock2.h>
#include <ws2tcpip.h>
#include <windows.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static volatile LONG stop, active;
static struct exp_tls *tls;  /* the credentials with --tls-cert/--tls-key, else NULL */

struct conn {
	struct exp_app *a;
	SOCKET s;
	struct exp_tls_conn *tls;  /* the connection's TLS once its handshake is done */
	ULONGLONG deadline;        /* GetTickCount64: the request's end, however it trickles */
};

/* The service's status, when run by the Service Control Manager (svc set). The
 * control handler (dispatcher thread) and ServiceMain both report: svc_lock. */
static SERVICE_STATUS_HANDLE svc;
static SRWLOCK svc_lock = SRWLOCK_INIT;
/* how long a stop may take: the connections in flight end within their timeout */
#define SVC_STOP_WAIT_MS ((EXP_TIMEOUT_S + 5) * 1000)

static BOOL WINAPI on_ctrl(DWORD type)
{
	(void)type;  /* Ctrl-C, Ctrl-Break, console close, logoff, shutdown */
	InterlockedExchange(&stop, 1);
	return TRUE;
}

/* A failure (client gone) ends the reply. */
static void send_all(struct conn *c, const char *p, size_t n)
{
	if (c->tls)
		exp_tls_send(c->tls, p, n);
	else
		exp_raw_send(c->s, p, n);
}

/* Each recv waits only until the connection's deadline: a timeout per recv would let
 * a client sending a byte every 9 s hold its thread for hours (TLS: exp_tls_recv). */
static int conn_recv(struct conn *c, char *p, int n)
{
	if (c->tls)
		return exp_tls_recv(c->tls, p, n);
	return exp_raw_recv(c->s, c->deadline, p, (size_t)n);
}

static void reply(struct conn *c, const struct exp_reply *r, int head)
{
	char h[512];
	int n = snprintf(h, sizeof(h), "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu"
			 "\r\nConnection: close\r\nVary: Accept, Accept-Encoding\r\n%s%s%s%s%s%s\r\n",
			 r->status, r->status == 200 ? "OK" : "Error", r->type, r->len,
			 r->encoding ? "Content-Encoding: " : "", r->encoding ? r->encoding : "",
			 r->encoding ? "\r\n" : "", r->allow ? "Allow: " : "",
			 r->allow ? r->allow : "", r->allow ? "\r\n" : "");
	send_all(c, h, (size_t)n);
	if (!head)
		send_all(c, r->body, r->len);
}

/* The value of header name in the request head hdr (lines after the request
 * line), copied into out (cut to its size); NULL when absent. */
static const char *header(const char *hdr, const char *name, char *out, size_t size)
{
	size_t n = strlen(name);

	for (const char *p = strstr(hdr, "\r\n"); p; p = strstr(p, "\r\n")) {
		p += 2;
		if (!_strnicmp(p, name, n) && p[n] == ':') {
			const char *v = p + n + 1;
			while (*v == ' ' || *v == '\t')
				v++;
			size_t len = strcspn(v, "\r\n");
			if (len >= size)
				len = size - 1;
			memcpy(out, v, len);
			out[len] = 0;
			return out;
		}
	}
	return NULL;
}

/* Reads a request's head and answers it. */
static void serve_one(struct conn *c)
{
	struct exp_app *a = c->a;
	char buf[EXP_MAX_HEADER_BYTES + 1] = "";
	char method[16], path[2048], *end = NULL, cl[32], acc[1024], enc[256];
	struct exp_reply r;
	size_t len = 0;
	int k;

	while (len < EXP_MAX_HEADER_BYTES && !(end = strstr(buf, "\r\n\r\n"))) {
		if ((k = conn_recv(c, buf + len, (int)(EXP_MAX_HEADER_BYTES - len))) <= 0)
			return exp_app_log_once(a, "client timed out or went away",
						"a connection closed, or its request not complete "
						"10 s after it opened (or, over TLS, a record that "
						"did not decrypt)");
		len += (size_t)k;
		buf[len] = 0;
	}
	if (!end) {
		exp_app_error(a, 431, "request headers past 8192 bytes", &r);
		return reply(c, &r, 0);
	}
	end[2] = 0;
	if (sscanf(buf, "%15s %2047s", method, path) != 2) {
		exp_app_error(a, 400, "a request line that did not parse", &r);
		return reply(c, &r, 0);
	}
	if ((header(buf, "Content-Length", cl, sizeof(cl)) && atol(cl) > EXP_MAX_BODY_BYTES) ||
	    header(buf, "Transfer-Encoding", cl, sizeof(cl))) {
		exp_app_error(a, 413, "a request with a body", &r);
		return reply(c, &r, 0);
	}
	exp_app_route(a, method, path, header(buf, "Accept", acc, sizeof(acc)),
		      header(buf, "Accept-Encoding", enc, sizeof(enc)), &r);
	/* a copy, so a slow reader does not hold the scrape lock while it is sent */
	void *copy = malloc(r.len ? r.len : 1);
	if (copy)
		memcpy(copy, r.body, r.len);
	exp_app_done(a, &r);
	if (!copy) {
		exp_app_error(a, 503, "no memory for a response", &r);
		return reply(c, &r, 0);
	}
	r.body = copy;
	reply(c, &r, !strcmp(method, "HEAD"));
	free(copy);
}

/* A client that spoke plain HTTP to the HTTPS port gets a plain 400 saying so. The
 * request it sent is read first: closing a socket with unread bytes resets the
 * connection, and the client would see that instead of the reply. */
static void plain_to_tls(struct conn *c)
{
	static const char body[] = "this port serves HTTPS: use https://\n";
	struct exp_reply r = { .status = 400, .type = "text/plain; charset=utf-8",
			       .body = body, .len = sizeof(body) - 1 };
	char junk[EXP_MAX_HEADER_BYTES];

	recv(c->s, junk, sizeof(junk), 0);
	exp_app_log_once(c->a, "plain HTTP on the HTTPS port", "a client sent an http:// request "
			 "to the port serving https:// (answered 400)");
	reply(c, &r, 0);
}

/* The TLS handshake, then the request; a failed handshake is logged once per kind. */
static void serve_tls(struct conn *c)
{
	char kind[96], detail[256];

	switch (exp_tls_accept(tls, c->s, EXP_TIMEOUT_S * 1000, &c->tls, kind, sizeof(kind),
			       detail, sizeof(detail))) {
	case EXP_TLS_OK:
		serve_one(c);
		exp_tls_close(c->tls);
		break;
	case EXP_TLS_PLAIN:
		plain_to_tls(c);
		break;
	case EXP_TLS_FAILED:
		exp_app_log_once(c->a, kind, detail);
		break;
	}
}

static DWORD WINAPI conn_thread(void *p)
{
	struct conn *c = p;

	if (tls)
		serve_tls(c);
	else
		serve_one(c);
	shutdown(c->s, SD_SEND);
	closesocket(c->s);
	if (exp_app_finished(c->a))
		InterlockedExchange(&stop, 1);
	free(c);
	InterlockedDecrement(&active);
	return 0;
}

/* Hands a connection to its own thread, or closes it when too many are open. */
static void dispatch(struct exp_app *a, SOCKET s)
{
	DWORD ms = EXP_TIMEOUT_S * 1000;
	struct conn *c = NULL;
	HANDLE t = NULL;

	setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, (const char *)&ms, sizeof(ms));
	setsockopt(s, SOL_SOCKET, SO_SNDTIMEO, (const char *)&ms, sizeof(ms));
	if (InterlockedIncrement(&active) <= EXP_MAX_CONNECTIONS && (c = malloc(sizeof(*c)))) {
		c->a = a;
		c->s = s;
		c->tls = NULL;
		c->deadline = GetTickCount64() + EXP_TIMEOUT_S * 1000;
		t = CreateThread(NULL, 64 * 1024, conn_thread, c, 0, NULL);
	}
	if (t) {
		CloseHandle(t);
		return;
	}
	exp_app_log_once(a, "connection refused", "more than 64 connections at once");
	free(c);
	closesocket(s);
	InterlockedDecrement(&active);
}

static SOCKET bind_listen(const struct exp_listen *l)
{
	struct addrinfo hints = { .ai_flags = AI_PASSIVE, .ai_socktype = SOCK_STREAM }, *ai;
	SOCKET s = INVALID_SOCKET;
	BOOL excl = TRUE;
	int rc = getaddrinfo(l->host[0] ? l->host : NULL, l->port, &hints, &ai);

	if (rc) {
		fprintf(stderr, "pmukit exporter: --listen %s:%s: error %d\n", l->host, l->port, rc);
		return INVALID_SOCKET;
	}
	s = socket(ai->ai_family, SOCK_STREAM, IPPROTO_TCP);
	/* exclusive: Windows would otherwise let a second server share the port */
	if (s != INVALID_SOCKET)
		setsockopt(s, SOL_SOCKET, SO_EXCLUSIVEADDRUSE, (const char *)&excl, sizeof(excl));
	if (s != INVALID_SOCKET && (bind(s, ai->ai_addr, (int)ai->ai_addrlen) || listen(s, 64))) {
		rc = WSAGetLastError();
		closesocket(s);
		s = INVALID_SOCKET;
		fprintf(stderr, "pmukit exporter: cannot listen on %s:%s: Winsock error %d%s\n",
			l->host, l->port, rc, rc == WSAEADDRINUSE ? " (another program holds this "
			"port: stop it, or choose another with --listen)" : "");
	}
	freeaddrinfo(ai);
	return s;
}

/* Tells the SCM the service's state; exit_status (body's) becomes the
 * service-specific exit code. A stop once pending is not undone by RUNNING, and
 * nothing follows STOPPED (the process may be ended at any time after it). */
static void svc_report(DWORD state, int exit_status, DWORD wait_ms)
{
	static SERVICE_STATUS st = { .dwServiceType = SERVICE_WIN32_OWN_PROCESS };

	AcquireSRWLockExclusive(&svc_lock);
	if (svc && st.dwCurrentState != SERVICE_STOPPED &&
	    !(state == SERVICE_RUNNING && st.dwCurrentState == SERVICE_STOP_PENDING)) {
		st.dwCurrentState = state;
		st.dwControlsAccepted = state == SERVICE_RUNNING ?
			SERVICE_ACCEPT_STOP | SERVICE_ACCEPT_SHUTDOWN : 0;
		st.dwWin32ExitCode = exit_status ? ERROR_SERVICE_SPECIFIC_ERROR : NO_ERROR;
		st.dwServiceSpecificExitCode = (DWORD)exit_status;
		st.dwWaitHint = wait_ms;
		st.dwCheckPoint = state == SERVICE_RUNNING || state == SERVICE_STOPPED ? 0 :
				  st.dwCheckPoint + 1;
		SetServiceStatus(svc, &st);
	}
	ReleaseSRWLockExclusive(&svc_lock);
}

static DWORD WINAPI svc_control(DWORD ctrl, DWORD type, void *data, void *ctx)
{
	(void)type, (void)data, (void)ctx;
	switch (ctrl) {
	case SERVICE_CONTROL_STOP:
	case SERVICE_CONTROL_SHUTDOWN:
		/* STOP_PENDING first: once stop is set the server loop may end and
		 * ServiceMain report STOPPED, which nothing may follow */
		svc_report(SERVICE_STOP_PENDING, 0, SVC_STOP_WAIT_MS);
		InterlockedExchange(&stop, 1);
		return NO_ERROR;
	case SERVICE_CONTROL_INTERROGATE:
		return NO_ERROR;
	}
	return ERROR_CALL_NOT_IMPLEMENTED;
}

static struct {
	const char *name;
	int (*body)(int argc, char **argv);
	int argc;
	char **argv;
	int status;
} svc_run;

/* ServiceMain: args[0] is the name the SCM started us under (sc create's), which
 * may differ from --service NAME; the options are the command line's. */
static void WINAPI svc_main(DWORD n, LPWSTR *args)
{
	SERVICE_STATUS_HANDLE h = RegisterServiceCtrlHandlerExW(n && args ? args[0] : L"",
								svc_control, NULL);

	if (!h) {
		fprintf(stderr, "pmukit exporter: --service %s: RegisterServiceCtrlHandlerExW "
			"failed with error %lu\n", svc_run.name, GetLastError());
		svc_run.status = 1;
		return;
	}
	AcquireSRWLockExclusive(&svc_lock);
	svc = h;
	ReleaseSRWLockExclusive(&svc_lock);
	svc_report(SERVICE_START_PENDING, 0, 30000);
	svc_run.status = svc_run.body(svc_run.argc, svc_run.argv);
	if (svc_run.status)
		fprintf(stderr, "pmukit exporter: service %s stops with exit code %d\n",
			svc_run.name, svc_run.status);
	fflush(stderr);
	svc_report(SERVICE_STOPPED, svc_run.status, 0);
}

int exp_service(const char *name, int (*body)(int argc, char **argv), int argc, char **argv)
{
	/* own process: the SCM ignores the table's name, so any will do */
	SERVICE_TABLE_ENTRYW table[] = { { L"pmukit-exporter", svc_main }, { NULL, NULL } };

	svc_run.name = name;
	svc_run.body = body;
	svc_run.argc = argc;
	svc_run.argv = argv;
	if (StartServiceCtrlDispatcherW(table))
		return svc_run.status;  /* svc_main has run and reported STOPPED */
	DWORD e = GetLastError();
	if (e == ERROR_FAILED_SERVICE_CONTROLLER_CONNECT)
		fprintf(stderr, "pmukit exporter: --service: this process was not started by the "
			"Service Control Manager (ERROR_FAILED_SERVICE_CONTROLLER_CONNECT): run it "
			"through sc create/start, e.g. sc create %s binPath= \"C:\\...\\pmukit.exe "
			"exporter --service --listen 127.0.0.1:9464\" then sc start %s; or leave out "
			"--service to serve from this console\n", name, name);
	else
		fprintf(stderr, "pmukit exporter: --service %s: StartServiceCtrlDispatcherW failed "
			"with error %lu\n", name, e);
	return 1;
}

int exp_serve(struct exp_app *a, const struct exp_listen *l)
{
	WSADATA wsa;
	SOCKET ls;

	if (l->tls_key && exp_tls_new(l->tls_cert, l->tls_key, &tls))
		return 1;
	if (WSAStartup(MAKEWORD(2, 2), &wsa))
		return fprintf(stderr, "pmukit exporter: WSAStartup failed\n"), exp_tls_free(tls), 1;
	if ((ls = bind_listen(l)) == INVALID_SOCKET)
		return WSACleanup(), exp_tls_free(tls), 1;
	/* a service gets its stop from the SCM; a console handler would also stop it
	 * at a user's logoff */
	if (!svc)
		SetConsoleCtrlHandler(on_ctrl, TRUE);
	fprintf(stderr, "pmukit exporter: listening on http%s://%s:%s/metrics\n", tls ? "s" : "",
		l->host[0] ? l->host : "0.0.0.0", l->port);
	svc_report(SERVICE_RUNNING, 0, 0);
	while (!stop) {
		fd_set rd;
		struct timeval tv = { 0, 200000 };  /* to see stop */
		FD_ZERO(&rd);
		FD_SET(ls, &rd);
		if (select(0, &rd, NULL, NULL, &tv) <= 0)
			continue;
		SOCKET c = accept(ls, NULL, NULL);
		if (c != INVALID_SOCKET)
			dispatch(a, c);
	}
	closesocket(ls);
	/* the connections in flight end within their timeouts */
	for (int i = 0; active && i < (EXP_TIMEOUT_S + 2) * 10; i++)
		Sleep(100);
	WSACleanup();
	/* the credentials and the key container go; a connection still sending (each
	 * send has its own timeout) keeps them, and the process ends soon after */
	if (!active)
		exp_tls_free(tls);
	fprintf(stderr, "pmukit exporter: stopped after %lu requests\n", exp_app_requests(a));
	return 0;
}
