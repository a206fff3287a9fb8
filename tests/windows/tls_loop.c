/* SPDX-License-Identifier: MIT */
/* A Windows test program for the Wine smoke tests (smoke_tls_loop.sh): the exporter's
 * TLS connection loop (tools/pmukit/exporter_tls_win.c) over a real loopback socket,
 * with a scripted SSPI table in place of Schannel, which Wine 8.0 cannot run as a
 * server (AcceptSecurityContext: SEC_E_UNSUPPORTED_FUNCTION).
 *
 * The fake tests our buffer handling, not TLS: it answers with the statuses and
 * buffers Microsoft documents for Schannel (SEC_E_INCOMPLETE_MESSAGE with
 * SECBUFFER_MISSING, SECBUFFER_EXTRA for unread bytes, header/data/trailer after
 * DecryptMessage, a trailer shorter than cbTrailer after EncryptMessage,
 * SEC_I_CONTEXT_EXPIRED at close_notify, ASC_RET_ALLOCATED_MEMORY tokens). Its
 * records are TLS-shaped: type, 3, 3, a 16-bit length, then the payload; its
 * "cipher" is XOR 0x5a with a trailer whose last byte is its length.
 *
 * The file under test is included so the test reaches its opaque struct exp_tls;
 * exp_tls_dll.sspi is the table it calls through. One "ok NAME" or "not ok NAME:
 * why" a line; the exit status is the number of failures. */
#include "exporter_tls_win.c"
#include "exporter_tlskey_win.c"
#include "tls_check.h"

#define HDR 5
#define TRAILER_MAX 16
#define XOR 0x5a

/* ---- the fake Schannel ---- */

static struct {
	ULONG max_msg;              /* cbMaximumMessage */
	LONG tokens, tokens_freed;  /* ASC output buffers */
	LONG ctx_made, ctx_deleted;
	LONG incomplete_hs, incomplete_rec, extra_hs, encrypts;
	ULONG biggest_encrypt;      /* the largest SECBUFFER_DATA EncryptMessage got */
	LONG bad_encrypt;           /* buffers not laid out as documented */
	int stage, shutdown;        /* 0 before ClientHello, 1 after, 2 done */
	int post_handshake;         /* post-handshake messages AcceptSecurityContext took */
} fk;

static ULONG rec_len(const BYTE *p)
{
	return (ULONG)p[3] << 8 | p[4];
}

static void *token(BYTE type, const char *payload, ULONG *n)
{
	size_t m = strlen(payload);
	BYTE *t = malloc(HDR + m);

	t[0] = type, t[1] = 3, t[2] = 3, t[3] = (BYTE)(m >> 8), t[4] = (BYTE)m;
	memcpy(t + HDR, payload, m);
	*n = (ULONG)(HDR + m);
	InterlockedIncrement(&fk.tokens);
	return t;
}

static SECURITY_STATUS SEC_ENTRY f_free(void *p)
{
	InterlockedIncrement(&fk.tokens_freed);
	free(p);
	return SEC_E_OK;
}

/* close_notify after ApplyControlToken, else one handshake record per call */
static SECURITY_STATUS SEC_ENTRY f_accept(PCredHandle cred, PCtxtHandle ctx, PSecBufferDesc in,
					  ULONG req, ULONG rep, PCtxtHandle nctx,
					  PSecBufferDesc out, ULONG *attr, PTimeStamp ts)
{
	SecBuffer *o = &out->pBuffers[0];
	(void)cred, (void)rep, (void)ts;

	if (!(req & ASC_REQ_ALLOCATE_MEMORY) || o->BufferType != SECBUFFER_TOKEN)
		return SEC_E_INVALID_PARAMETER;
	*attr = ASC_RET_ALLOCATED_MEMORY;
	if (!in)
		return fk.shutdown && ctx ? (o->pvBuffer = token(21, "\1\1", &o->cbBuffer), SEC_E_OK)
					  : SEC_E_INVALID_TOKEN;
	SecBuffer *t = &in->pBuffers[0], *x = &in->pBuffers[1];
	const BYTE *p = t->pvBuffer;
	if (t->BufferType != SECBUFFER_TOKEN || x->BufferType != SECBUFFER_EMPTY ||
	    (fk.stage == 0) != (ctx == NULL))
		return SEC_E_INVALID_PARAMETER;
	if (t->cbBuffer < HDR || t->cbBuffer < HDR + rec_len(p)) {
		x->BufferType = SECBUFFER_MISSING;
		x->cbBuffer = t->cbBuffer < HDR ? HDR - t->cbBuffer : HDR + rec_len(p) - t->cbBuffer;
		InterlockedIncrement(&fk.incomplete_hs);
		return SEC_E_INCOMPLETE_MESSAGE;
	}
	ULONG used = HDR + rec_len(p);
	if (fk.stage == 2 && p[0] == 22 && rec_len(p) == 2 && !memcmp(p + HDR, "KU", 2)) {
		if (t->cbBuffer > used)  /* a post-handshake message: nothing to answer */
			*x = (SecBuffer){ t->cbBuffer - used, SECBUFFER_EXTRA, NULL };
		fk.post_handshake++;
		return SEC_E_OK;
	}
	if (p[0] != 22 || (fk.stage == 0 && (rec_len(p) != 2 || memcmp(p + HDR, "CH", 2))) ||
	    (fk.stage == 1 && (rec_len(p) != 3 || memcmp(p + HDR, "FIN", 3)))) {
		o->pvBuffer = token(21, "\2\50", &o->cbBuffer);  /* ASC_REQ_EXTENDED_ERROR */
		return SEC_E_ILLEGAL_MESSAGE;
	}
	if (t->cbBuffer > used) {
		x->BufferType = SECBUFFER_EXTRA;
		x->cbBuffer = t->cbBuffer - used;
		InterlockedIncrement(&fk.extra_hs);
	}
	if (fk.stage++ == 0) {
		nctx->dwLower = nctx->dwUpper = 7;
		InterlockedIncrement(&fk.ctx_made);
		o->pvBuffer = token(22, "SH", &o->cbBuffer);
		return SEC_I_CONTINUE_NEEDED;
	}
	o->pvBuffer = token(22, "SF", &o->cbBuffer);
	return SEC_E_OK;
}

static SECURITY_STATUS SEC_ENTRY f_query(PCtxtHandle ctx, ULONG attr, void *buf)
{
	SecPkgContext_StreamSizes z = { HDR, TRAILER_MAX, fk.max_msg, 4, 16 };

	if (attr != SECPKG_ATTR_STREAM_SIZES || fk.stage != 2 || ctx->dwLower != 7)
		return SEC_E_UNSUPPORTED_FUNCTION;
	memcpy(buf, &z, sizeof(z));
	return SEC_E_OK;
}

/* The trailer: n - 1 bytes of 0xee and n itself, n from 4 to TRAILER_MAX by the
 * data's size (a block cipher's padding varies, so cbTrailer is a maximum). */
static ULONG trailer_put(BYTE *t, ULONG m)
{
	ULONG n = 4 + m % (TRAILER_MAX - 3);

	memset(t, 0xee, n - 1);
	t[n - 1] = (BYTE)n;
	return n;
}

static SECURITY_STATUS SEC_ENTRY f_encrypt(PCtxtHandle ctx, ULONG qop, PSecBufferDesc d, ULONG seq)
{
	SecBuffer *b = d->pBuffers;
	(void)ctx, (void)qop, (void)seq;

	InterlockedIncrement(&fk.encrypts);
	if (d->cBuffers != 4 || b[0].BufferType != SECBUFFER_STREAM_HEADER || b[0].cbBuffer < HDR ||
	    b[1].BufferType != SECBUFFER_DATA || b[2].BufferType != SECBUFFER_STREAM_TRAILER ||
	    b[2].cbBuffer < TRAILER_MAX || b[3].BufferType != SECBUFFER_EMPTY) {
		InterlockedIncrement(&fk.bad_encrypt);
		return SEC_E_INVALID_TOKEN;
	}
	if (b[1].cbBuffer > fk.biggest_encrypt)
		fk.biggest_encrypt = b[1].cbBuffer;
	if (b[1].cbBuffer > fk.max_msg)
		return SEC_E_BUFFER_TOO_SMALL;  /* one record holds at most cbMaximumMessage */
	BYTE *h = b[0].pvBuffer, *m = b[1].pvBuffer, *t = b[2].pvBuffer;
	for (ULONG i = 0; i < b[1].cbBuffer; i++)
		m[i] ^= XOR;
	b[2].cbBuffer = trailer_put(t, b[1].cbBuffer);
	ULONG len = b[1].cbBuffer + b[2].cbBuffer;
	h[0] = 23, h[1] = 3, h[2] = 3, h[3] = (BYTE)(len >> 8), h[4] = (BYTE)len;
	b[0].cbBuffer = HDR;
	return SEC_E_OK;
}

static SECURITY_STATUS SEC_ENTRY f_decrypt(PCtxtHandle ctx, PSecBufferDesc d, ULONG seq, ULONG *qop)
{
	SecBuffer *b = d->pBuffers;
	BYTE *p = b[0].pvBuffer;
	(void)ctx, (void)seq, (void)qop;

	if (d->cBuffers != 4 || b[0].BufferType != SECBUFFER_DATA)
		return SEC_E_INVALID_TOKEN;
	for (int i = 1; i < 4; i++)
		if (b[i].BufferType != SECBUFFER_EMPTY)
			return SEC_E_INVALID_TOKEN;
	ULONG have = b[0].cbBuffer, len = have >= HDR ? rec_len(p) : 0;
	if (have < HDR || have < HDR + len) {
		b[0].BufferType = SECBUFFER_MISSING;
		b[0].cbBuffer = have < HDR ? HDR - have : HDR + len - have;
		InterlockedIncrement(&fk.incomplete_rec);
		return SEC_E_INCOMPLETE_MESSAGE;
	}
	if (p[0] == 21)
		return SEC_I_CONTEXT_EXPIRED;  /* the client's close_notify */
	if (p[0] == 22) {  /* TLS 1.3 KeyUpdate, a renegotiation: for AcceptSecurityContext */
		b[0] = (SecBuffer){ HDR, SECBUFFER_STREAM_HEADER, p };
		b[1] = (SecBuffer){ 0, SECBUFFER_DATA, p + HDR };
		b[3] = (SecBuffer){ have, SECBUFFER_EXTRA, p };
		return SEC_I_RENEGOTIATE;
	}
	ULONG tn = len ? p[HDR + len - 1] : 0;
	if (p[0] != 23 || tn < 4 || tn > TRAILER_MAX || tn > len)
		return SEC_E_DECRYPT_FAILURE;
	ULONG n = len - tn;
	for (ULONG i = 0; i < n; i++)
		p[HDR + i] ^= XOR;
	b[0] = (SecBuffer){ HDR, SECBUFFER_STREAM_HEADER, p };
	b[1] = (SecBuffer){ n, SECBUFFER_DATA, p + HDR };
	b[2] = (SecBuffer){ tn, SECBUFFER_STREAM_TRAILER, p + HDR + n };
	if (have > HDR + len)
		b[3] = (SecBuffer){ have - HDR - len, SECBUFFER_EXTRA, p + HDR + len };
	return SEC_E_OK;
}

static SECURITY_STATUS SEC_ENTRY f_control(PCtxtHandle ctx, PSecBufferDesc d)
{
	const SecBuffer *b = d->pBuffers;

	if (ctx->dwLower != 7 || d->cBuffers != 1 || b->BufferType != SECBUFFER_TOKEN ||
	    b->cbBuffer != sizeof(DWORD) || *(DWORD *)b->pvBuffer != SCHANNEL_SHUTDOWN)
		return SEC_E_INVALID_TOKEN;
	fk.shutdown = 1;
	return SEC_E_OK;
}

static SECURITY_STATUS SEC_ENTRY f_delete(PCtxtHandle ctx)
{
	if (ctx->dwLower != 7)
		return SEC_E_INVALID_HANDLE;
	InterlockedIncrement(&fk.ctx_deleted);
	ctx->dwLower = 0;
	return SEC_E_OK;
}

static SecurityFunctionTableW fake = {
	.AcceptSecurityContext = f_accept, .QueryContextAttributesW = f_query,
	.EncryptMessage = f_encrypt, .DecryptMessage = f_decrypt, .ApplyControlToken = f_control,
	.DeleteSecurityContext = f_delete, .FreeContextBuffer = f_free,
};

/* ---- the server side: the exporter's calls, in a thread ---- */

struct server {
	SOCKET s;
	unsigned timeout_ms;
	size_t reply_len;            /* bytes of reply after the request's head */
	enum exp_tls_accepted acc;
	char kind[96], detail[256];
	char req[4096];
	int reqn, last;              /* bytes of request; exp_tls_recv's last result */
	int sent;                    /* exp_tls_send's result */
	ULONGLONG ms;                /* from accept to the end of the request */
};

static DWORD WINAPI server_thread(void *arg)
{
	static struct exp_tls t;  /* no credentials: the fake takes any */
	struct server *v = arg;
	struct exp_tls_conn *c;
	ULONGLONG t0 = GetTickCount64();

	v->acc = exp_tls_accept(&t, v->s, v->timeout_ms, &c, v->kind, sizeof(v->kind), v->detail,
				sizeof(v->detail));
	if (v->acc == EXP_TLS_OK) {
		while (v->reqn < (int)sizeof(v->req) - 1 && !strstr(v->req, "\r\n\r\n")) {
			if ((v->last = exp_tls_recv(c, v->req + v->reqn,
						    (int)sizeof(v->req) - 1 - v->reqn)) <= 0)
				break;
			v->reqn += v->last;
		}
		v->ms = GetTickCount64() - t0;
		if (strstr(v->req, "\r\n\r\n")) {
			char *r = malloc(v->reply_len);
			for (size_t i = 0; i < v->reply_len; i++)
				r[i] = (char)('a' + i % 26);
			v->sent = exp_tls_send(c, r, v->reply_len);
			free(r);
		}
		exp_tls_close(c);
	}
	v->ms = v->ms ? v->ms : GetTickCount64() - t0;
	shutdown(v->s, SD_SEND);
	closesocket(v->s);
	return 0;
}

/* ---- the client side: scripted bytes over the socket ---- */

/* A connected pair over loopback: *cli for the script, *srv for the server. */
static int pair(SOCKET *cli, SOCKET *srv)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	int n = sizeof(a);
	SOCKET l = socket(AF_INET, SOCK_STREAM, IPPROTO_TCP);

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (l == INVALID_SOCKET || bind(l, (struct sockaddr *)&a, sizeof(a)) || listen(l, 1) ||
	    getsockname(l, (struct sockaddr *)&a, &n))
		return -1;
	*cli = socket(AF_INET, SOCK_STREAM, IPPROTO_TCP);
	if (connect(*cli, (struct sockaddr *)&a, sizeof(a)) ||
	    (*srv = accept(l, NULL, NULL)) == INVALID_SOCKET)
		return -1;
	closesocket(l);
	return 0;
}

/* A record into p: type, version, length, payload (XORed for application data,
 * with its trailer). Its size. */
static size_t rec(BYTE *p, BYTE type, const char *payload, size_t n)
{
	size_t len = n;

	memcpy(p + HDR, payload, n);
	if (type == 23) {
		for (size_t i = 0; i < n; i++)
			p[HDR + i] ^= XOR;
		len += trailer_put(p + HDR + n, (ULONG)n);
	}
	p[0] = type, p[1] = 3, p[2] = 3, p[3] = (BYTE)(len >> 8), p[4] = (BYTE)len;
	return HDR + len;
}

static void put(SOCKET s, const BYTE *p, size_t n)
{
	while (n) {
		int k = send(s, (const char *)p, (int)n, 0);
		if (k <= 0)
			return;
		p += k;
		n -= (size_t)k;
	}
}

/* What the server sent, to its end (30 s at most), read as records. */
struct got {
	int records, handshakes, alerts, app, close_notify_last, malformed;
	size_t plain, biggest;
	int plain_ok;  /* the reply's bytes are the server's pattern */
};

static void drain(SOCKET s, struct got *g)
{
	static BYTE buf[1 << 20];
	DWORD ms = 30000;
	size_t n = 0, off = 0;
	int k;

	memset(g, 0, sizeof(*g));
	g->plain_ok = 1;
	setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, (const char *)&ms, sizeof(ms));
	while (n < sizeof(buf) && (k = recv(s, (char *)buf + n, (int)(sizeof(buf) - n), 0)) > 0)
		n += (size_t)k;
	while (off + HDR <= n && off + HDR + rec_len(buf + off) <= n) {
		BYTE *p = buf + off;
		ULONG len = rec_len(p);
		g->records++;
		g->close_notify_last = p[0] == 21 && len == 2 && p[HDR] == 1 && p[HDR + 1] == 1;
		g->handshakes += p[0] == 22;
		g->alerts += p[0] == 21;
		if (p[0] == 23) {
			ULONG tn = len ? p[HDR + len - 1] : 0, m = len - tn;
			if (tn < 4 || tn > len)
				g->malformed++;
			for (ULONG i = 0; tn <= len && i < m; i++, g->plain++)
				if ((char)(p[HDR + i] ^ XOR) != (char)('a' + g->plain % 26))
					g->plain_ok = 0;
			g->app++;
			g->biggest = m > g->biggest ? m : g->biggest;
		}
		off += HDR + len;
	}
	g->malformed += off != n;
}

struct run {
	struct server v;
	SOCKET cli;
	HANDLE th;
	struct got g;
	BYTE buf[65536];
};

static int start(struct run *r, unsigned timeout_ms, size_t reply_len, ULONG max_msg)
{
	memset(&fk, 0, sizeof(fk));
	fk.max_msg = max_msg;
	memset(&r->v, 0, sizeof(r->v));
	r->v.timeout_ms = timeout_ms;
	r->v.reply_len = reply_len;
	if (pair(&r->cli, &r->v.s))
		return -1;
	r->th = CreateThread(NULL, 0, server_thread, &r->v, 0, NULL);
	return r->th ? 0 : -1;
}

/* reads what the server sent to its end, then waits for its thread */
static void finish(struct run *r)
{
	drain(r->cli, &r->g);
	WaitForSingleObject(r->th, 60000);
	CloseHandle(r->th);
	closesocket(r->cli);
}

/* ClientHello, then (once the server had it) Finished: the handshake in two flights */
static void handshake_ok(struct run *r)
{
	put(r->cli, r->buf, rec(r->buf, 22, "CH", 2));
	Sleep(100);
	put(r->cli, r->buf, rec(r->buf, 22, "FIN", 3));
}

/* what every connection owes: tokens freed, the context deleted, documented buffers */
static int balanced(const char *name)
{
	char why[160];

	snprintf(why, sizeof(why), "tokens %ld made, %ld freed; contexts %ld made, %ld deleted; "
		 "%ld EncryptMessage calls with undocumented buffers", fk.tokens, fk.tokens_freed,
		 fk.ctx_made, fk.ctx_deleted, fk.bad_encrypt);
	check(fk.tokens == fk.tokens_freed && fk.ctx_made == fk.ctx_deleted && !fk.bad_encrypt,
	      name, why);
	return 0;
}

static const char *describe(const struct run *r)
{
	static char why[600];

	snprintf(why, sizeof(why), "accept %d (%s; %s), request %d bytes, last recv %d, send %d, "
		 "%llu ms; client got %d records (%d handshake, %d alert, %d data, largest %zu "
		 "bytes, %zu reply bytes%s%s, %d malformed); fake: %ld incomplete handshakes, %ld "
		 "extra, %ld incomplete records, %ld encrypts, largest %lu", r->v.acc, r->v.kind,
		 r->v.detail, r->v.reqn, r->v.last, r->v.sent, r->v.ms, r->g.records,
		 r->g.handshakes, r->g.alerts, r->g.app, r->g.biggest, r->g.plain,
		 r->g.plain_ok ? "" : " NOT the pattern", r->g.close_notify_last ?
		 ", close_notify last" : "", r->g.malformed, fk.incomplete_hs, fk.extra_hs,
		 fk.incomplete_rec, fk.encrypts, fk.biggest_encrypt);
	return why;
}

#define REQ1 "GET /metr"
#define REQ2 "ics HTTP/1.1\r\nHost: x\r\n\r\n"

/* ClientHello split over two recv()s; Finished and the request's first record in
 * one segment (SECBUFFER_EXTRA after SEC_E_OK); the request's rest in a second
 * record; a reply of 40 cbMaximumMessage records; close_notify. */
static void t_flow(void)
{
	static struct run r;
	size_t n;

	if (start(&r, 10000, 40000, 1000))
		return check(0, "flow", "no loopback socket pair");
	n = rec(r.buf, 22, "CH", 2);
	put(r.cli, r.buf, 3);
	Sleep(300);
	put(r.cli, r.buf + 3, n - 3);
	Sleep(100);
	n = rec(r.buf, 22, "FIN", 3);
	n += rec(r.buf + n, 23, REQ1, strlen(REQ1));
	put(r.cli, r.buf, n);
	Sleep(100);
	put(r.cli, r.buf, rec(r.buf, 23, REQ2, strlen(REQ2)));
	finish(&r);
	check(r.v.acc == EXP_TLS_OK && fk.incomplete_hs >= 2, "flow-clienthello-split",
	      describe(&r));
	check(fk.extra_hs >= 1 && r.v.reqn == (int)strlen(REQ1 REQ2) &&
	      !strcmp(r.v.req, REQ1 REQ2), "flow-extra-then-second-record", describe(&r));
	check(r.v.sent == 0 && r.g.app == 40 && r.g.biggest == 1000 && r.g.plain == 40000 &&
	      r.g.plain_ok && !r.g.malformed && fk.biggest_encrypt <= 1000,
	      "flow-reply-split-by-cbMaximumMessage", describe(&r));
	check(r.g.handshakes == 2 && r.g.close_notify_last && r.g.alerts == 1, "flow-close-notify",
	      describe(&r));
	balanced("flow-handles");
}

/* Both flights and the request in one segment, the request one byte a record. */
static void t_small_records(void)
{
	static struct run r;
	const char *req = REQ1 REQ2;
	size_t n;

	if (start(&r, 10000, 100, 16384))
		return check(0, "small-records", "no loopback socket pair");
	n = rec(r.buf, 22, "CH", 2);
	n += rec(r.buf + n, 22, "FIN", 3);
	for (const char *p = req; *p; p++)
		n += rec(r.buf + n, 23, p, 1);
	put(r.cli, r.buf, n);
	finish(&r);
	check(r.v.acc == EXP_TLS_OK && fk.extra_hs >= 2 && !strcmp(r.v.req, req) &&
	      r.g.plain == 100 && r.g.app == 1 && r.g.plain_ok && r.g.close_notify_last,
	      "small-records", describe(&r));
	balanced("small-records-handles");
}

/* A record header claiming 65535 bytes, then 20000 bytes: more than the server
 * buffers. During the handshake and after it: a clean failure, nothing overrun. */
static void t_oversized(int after_handshake)
{
	static struct run r;
	const char *name = after_handshake ? "oversized-record" : "oversized-clienthello";

	if (start(&r, 10000, 100, 16384))
		return check(0, name, "no loopback socket pair");
	if (after_handshake)
		handshake_ok(&r);
	memset(r.buf, 'x', sizeof(r.buf));
	r.buf[0] = after_handshake ? 23 : 22, r.buf[1] = 3, r.buf[2] = 3;
	r.buf[3] = r.buf[4] = 0xff;
	put(r.cli, r.buf, 5 + 20000);
	finish(&r);
	if (after_handshake)
		check(r.v.acc == EXP_TLS_OK && r.v.last < 0 && r.v.ms < 5000 && !r.g.app &&
		      r.g.close_notify_last, name, describe(&r));
	else
		check(r.v.acc == EXP_TLS_FAILED && r.v.ms < 5000 && !fk.ctx_made &&
		      strstr(r.v.kind, "went away"), name, describe(&r));
	balanced(after_handshake ? "oversized-record-handles" : "oversized-clienthello-handles");
}

/* One byte each 200 ms: the deadline (1.5 s) bounds the whole handshake or request,
 * not each recv. */
static void t_trickle(int after_handshake)
{
	static struct run r;
	const char *name = after_handshake ? "deadline-request" : "deadline-handshake";
	size_t n;

	if (start(&r, 1500, 100, 16384))
		return check(0, name, "no loopback socket pair");
	if (after_handshake)
		handshake_ok(&r);
	n = after_handshake ? rec(r.buf, 23, "GET / HTTP/1.1\r\nX: y\r\n", 22) : 5 + 100;
	if (!after_handshake)
		r.buf[0] = 22, r.buf[1] = 3, r.buf[2] = 3, r.buf[3] = 0, r.buf[4] = 100;
	for (size_t i = 0; i < n && WaitForSingleObject(r.th, 200) == WAIT_TIMEOUT; i++)
		put(r.cli, r.buf + i, 1);
	finish(&r);
	/* tolerant: the machine is loaded, but a per-recv timeout would take n * 200 ms */
	check((after_handshake ? r.v.acc == EXP_TLS_OK && r.v.last < 0 && !r.g.app
			       : r.v.acc == EXP_TLS_FAILED) && r.v.ms >= 1400 && r.v.ms < 4000,
	      name, describe(&r));
	balanced(after_handshake ? "deadline-request-handles" : "deadline-handshake-handles");
}

/* The client's close_notify ends the request (exp_tls_recv 0); a tampered record
 * fails it (< 0); a refused ClientHello sends the alert token and fails. */
static void t_ends(void)
{
	static struct run r;

	if (start(&r, 10000, 100, 16384))
		return check(0, "client-close-notify", "no loopback socket pair");
	handshake_ok(&r);
	put(r.cli, r.buf, rec(r.buf, 21, "\1\0", 2));
	finish(&r);
	check(r.v.acc == EXP_TLS_OK && r.v.last == 0 && !r.g.app && r.g.close_notify_last,
	      "client-close-notify", describe(&r));
	balanced("client-close-notify-handles");

	if (start(&r, 10000, 100, 16384))
		return check(0, "tampered-record", "no loopback socket pair");
	handshake_ok(&r);
	size_t n = rec(r.buf, 23, "GET", 3);
	r.buf[n - 1] = 0;  /* its trailer no longer checks */
	put(r.cli, r.buf, n);
	finish(&r);
	check(r.v.acc == EXP_TLS_OK && r.v.last < 0 && !r.g.app, "tampered-record", describe(&r));
	balanced("tampered-record-handles");

	if (start(&r, 10000, 100, 16384))
		return check(0, "handshake-refused", "no loopback socket pair");
	put(r.cli, r.buf, rec(r.buf, 22, "XX", 2));
	finish(&r);
	check(r.v.acc == EXP_TLS_FAILED && strstr(r.v.kind, "0x80090326") && r.g.alerts == 1 &&
	      !r.g.handshakes, "handshake-refused-alert-sent", describe(&r));
	balanced("handshake-refused-handles");

	/* refused in the second flight: the context made by the first is deleted */
	if (start(&r, 10000, 100, 16384))
		return check(0, "handshake-refused-late", "no loopback socket pair");
	put(r.cli, r.buf, rec(r.buf, 22, "CH", 2));
	Sleep(100);
	put(r.cli, r.buf, rec(r.buf, 22, "XX", 2));
	finish(&r);
	check(r.v.acc == EXP_TLS_FAILED && fk.ctx_made == 1 && r.g.handshakes == 1 &&
	      r.g.alerts == 1, "handshake-refused-late", describe(&r));
	balanced("handshake-refused-late-handles");

	/* DecryptMessage's SEC_I_RENEGOTIATE (a TLS 1.3 KeyUpdate): its SECBUFFER_EXTRA
	 * goes to AcceptSecurityContext, then the request goes on */
	if (start(&r, 10000, 100, 16384))
		return check(0, "post-handshake-message", "no loopback socket pair");
	handshake_ok(&r);
	size_t k = rec(r.buf, 23, REQ1, strlen(REQ1));
	k += rec(r.buf + k, 22, "KU", 2);
	k += rec(r.buf + k, 23, REQ2, strlen(REQ2));
	put(r.cli, r.buf, k);
	finish(&r);
	check(r.v.acc == EXP_TLS_OK && fk.post_handshake == 1 && !strcmp(r.v.req, REQ1 REQ2) &&
	      r.g.plain == 100 && r.g.close_notify_last, "post-handshake-message", describe(&r));
	balanced("post-handshake-message-handles");

	if (start(&r, 10000, 100, 16384))
		return check(0, "plain-http", "no loopback socket pair");
	put(r.cli, (const BYTE *)"GET / HTTP/1.1\r\n\r\n", 18);
	shutdown(r.cli, SD_SEND);
	finish(&r);
	check(r.v.acc == EXP_TLS_PLAIN && !r.g.records && !fk.tokens, "plain-http", describe(&r));
}

int main(void)
{
	WSADATA wsa;

	if (WSAStartup(MAKEWORD(2, 2), &wsa))
		return puts("not ok wsastartup"), 1;
	exp_tls_dll.sspi = &fake;
	t_flow();
	t_small_records();
	t_oversized(0);
	t_oversized(1);
	t_trickle(0);
	t_trickle(1);
	t_ends();
	printf("%d failed\n", fails);
	WSACleanup();
	return fails;
}
