/* SPDX-License-Identifier: MIT */
/* pmukit exporter's HTTPS on Windows: Schannel through SSPI (secur32.dll). The
 * credentials are acquired once; each connection runs AcceptSecurityContext until
 * the handshake is done, then DecryptMessage/EncryptMessage move the request and
 * the reply, and ApplyControlToken(SCHANNEL_SHUTDOWN) makes its close_notify. One
 * deadline bounds the handshake and the request, however slowly a client trickles. */
#define SECURITY_WIN32
#define SCHANNEL_USE_BLACKLISTS  /* declares SCH_CREDENTIALS */
#include "exporter_tls_win.h"

#include <subauth.h>  /* UNICODE_STRING, which SCH_CREDENTIALS' parameters use */
#include <security.h>
#include <schannel.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* a TLS record: 16 KiB of data plus header, padding and MAC; a ClientHello fits too */
#define RAW_MAX (16384 + 2048 + 512)
#define ASC_FLAGS (ASC_REQ_SEQUENCE_DETECT | ASC_REQ_REPLAY_DETECT | ASC_REQ_CONFIDENTIALITY | \
		   ASC_REQ_EXTENDED_ERROR | ASC_REQ_ALLOCATE_MEMORY | ASC_REQ_STREAM)
#define TLS_HANDSHAKE_RECORD 22  /* the content type a ClientHello comes in */

struct exp_tls {
	struct exp_tls_key *key;
	CredHandle cred;
	int have_cred;
};

struct exp_tls_conn {
	struct exp_tls *t;
	SOCKET s;
	CtxtHandle ctx;
	int have_ctx, ready;  /* a context; its handshake done */
	ULONGLONG deadline;  /* GetTickCount64 */
	SecPkgContext_StreamSizes sizes;
	size_t rawn, plainn, plainoff;
	char *out;           /* a record being encrypted: header, message, trailer */
	char raw[RAW_MAX];   /* received, not yet decrypted */
	char plain[RAW_MAX]; /* decrypted, not yet read */
};

struct exp_tls_dlls exp_tls_dll;

static const SecurityFunctionTableW *sspi(void)
{
	return exp_tls_dll.sspi;
}

/* The names of the statuses a handshake ends with, for the log. */
static const char *status_name(SECURITY_STATUS st)
{
	switch (st) {
	case SEC_E_UNSUPPORTED_FUNCTION:
		return "SEC_E_UNSUPPORTED_FUNCTION: this Schannel cannot act as a server";
	case SEC_E_ALGORITHM_MISMATCH:
		return "SEC_E_ALGORITHM_MISMATCH: no protocol version or cipher suite in common";
	case SEC_E_INVALID_TOKEN:
		return "SEC_E_INVALID_TOKEN: the client's handshake did not parse";
	case SEC_E_ILLEGAL_MESSAGE:
		return "SEC_E_ILLEGAL_MESSAGE: the client sent an unexpected handshake message";
	case SEC_E_NO_CREDENTIALS:
		return "SEC_E_NO_CREDENTIALS: Schannel cannot reach the private key";
	case SEC_E_INTERNAL_ERROR:
		return "SEC_E_INTERNAL_ERROR";
	case SEC_E_DECRYPT_FAILURE:
		return "SEC_E_DECRYPT_FAILURE";
	}
	return "see the SSPI documentation";
}

int exp_tls_say(const char *fmt, ...)
{
	va_list ap;

	fputs("pmukit exporter: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return 1;
}

static HMODULE system_dll(const wchar_t *name)
{
	HMODULE h = LoadLibraryExW(name, NULL, LOAD_LIBRARY_SEARCH_SYSTEM32);

	if (!h)
		exp_tls_say("--tls-cert: cannot load %ls from System32 (error %lu), which HTTPS "
			    "needs", name, GetLastError());
	return h;
}

/* GetProcAddress into the pointer of the function's own type */
#define LOAD(dll, name) (exp_tls_dll.name = (__typeof__(exp_tls_dll.name))(void (*)(void)) \
			 GetProcAddress(dll, #name))

int exp_tls_dlls_load(void)
{
	HMODULE sec = system_dll(L"secur32.dll"), c32 = sec ? system_dll(L"crypt32.dll") : NULL;
	HMODULE nc = c32 ? system_dll(L"ncrypt.dll") : NULL;
	INIT_SECURITY_INTERFACE_W init;

	if (!nc)
		return 1;
	init = (INIT_SECURITY_INTERFACE_W)(void (*)(void))GetProcAddress(sec,
									 "InitSecurityInterfaceW");
	if (!init || !(exp_tls_dll.sspi = init()) || !LOAD(c32, CryptStringToBinaryA) ||
	    !LOAD(c32, CryptDecodeObjectEx) || !LOAD(c32, CryptExportPublicKeyInfo) ||
	    !LOAD(c32, CertCreateCertificateContext) || !LOAD(c32, CertFreeCertificateContext) ||
	    !LOAD(c32, CertComparePublicKeyInfo) || !LOAD(c32, CertSetCertificateContextProperty) ||
	    !LOAD(nc, NCryptOpenStorageProvider) || !LOAD(nc, NCryptImportKey) ||
	    !LOAD(nc, NCryptOpenKey) || !LOAD(nc, NCryptDeleteKey) || !LOAD(nc, NCryptFreeObject))
		return exp_tls_say("--tls-cert: secur32, crypt32 or ncrypt here lacks a function "
				   "HTTPS needs (Windows 7 or later has them all)");
	LOAD(nc, NCryptEnumKeys);
	LOAD(nc, NCryptFreeBuffer);
	return 0;
}

/* Whether this Schannel can be a server at all: Wine 8.0's has no
 * AcceptSecurityContext (SEC_E_UNSUPPORTED_FUNCTION whatever the input); a real
 * one answers an empty token with an incomplete-message or invalid-token status. */
static SECURITY_STATUS server_probe(struct exp_tls *t)
{
	char none = 0;
	SecBuffer in[2] = { { 0, SECBUFFER_TOKEN, &none }, { 0, SECBUFFER_EMPTY, NULL } };
	SecBuffer out = { 0, SECBUFFER_TOKEN, NULL };
	SecBufferDesc ind = { SECBUFFER_VERSION, 2, in }, outd = { SECBUFFER_VERSION, 1, &out };
	CtxtHandle ctx = { 0, 0 };
	ULONG attr;
	SECURITY_STATUS st = sspi()->AcceptSecurityContext(&t->cred, NULL, &ind, ASC_FLAGS, 0,
							   &ctx, &outd, &attr, NULL);

	if (out.pvBuffer)
		sspi()->FreeContextBuffer(out.pvBuffer);
	if (st == SEC_E_OK || st == SEC_I_CONTINUE_NEEDED)
		sspi()->DeleteSecurityContext(&ctx);
	return st;
}

int exp_tls_new(const char *cert_path, const char *key_path, struct exp_tls **out)
{
	struct exp_tls *t = calloc(1, sizeof(*t));
	PCCERT_CONTEXT cert;
	SECURITY_STATUS st;

	if (!t)
		return exp_tls_say("no memory for the TLS credentials");
	if (exp_tls_dlls_load())
		return free(t), 1;
	if (exp_tls_key_load(cert_path, key_path, &t->key))
		return free(t), 1;
	cert = exp_tls_key_cert(t->key);
	/* SCH_CREDENTIALS (Windows 10 1809 on, with TLS 1.3); SCHANNEL_CRED before it */
	SCH_CREDENTIALS sch = { .dwVersion = SCH_CREDENTIALS_VERSION, .cCreds = 1,
				.paCred = &cert, .dwFlags = SCH_USE_STRONG_CRYPTO };
	SCHANNEL_CRED old = { .dwVersion = SCHANNEL_CRED_VERSION, .cCreds = 1, .paCred = &cert,
			      .dwFlags = SCH_USE_STRONG_CRYPTO };
	st = sspi()->AcquireCredentialsHandleW(NULL, UNISP_NAME_W, SECPKG_CRED_INBOUND, NULL, &sch,
					       NULL, NULL, &t->cred, NULL);
	if (st != SEC_E_OK)
		st = sspi()->AcquireCredentialsHandleW(NULL, UNISP_NAME_W, SECPKG_CRED_INBOUND, NULL,
						       &old, NULL, NULL, &t->cred, NULL);
	if (st != SEC_E_OK) {
		exp_tls_say("--tls-cert %s: Schannel refuses it with its key as server credentials "
			    "(AcquireCredentialsHandle status 0x%lx, %s)", cert_path,
			    (unsigned long)st, status_name(st));
		return exp_tls_free(t), 1;
	}
	t->have_cred = 1;
	if ((st = server_probe(t)) == SEC_E_UNSUPPORTED_FUNCTION)
		exp_tls_say("warning: this system's Schannel cannot act as a TLS server "
			    "(AcceptSecurityContext returns SEC_E_UNSUPPORTED_FUNCTION 0x%lx, as "
			    "Wine 8.0's does): every HTTPS handshake will fail here; serve plain HTTP "
			    "or put a TLS proxy in front", (unsigned long)st);
	*out = t;
	return 0;
}

void exp_tls_free(struct exp_tls *t)
{
	if (!t)
		return;
	if (t->have_cred)
		sspi()->FreeCredentialsHandle(&t->cred);
	exp_tls_key_free(t->key);
	free(t);
}

int exp_raw_recv(SOCKET s, ULONGLONG deadline, char *p, size_t n)
{
	ULONGLONG now = GetTickCount64();
	DWORD ms;

	if (now >= deadline || !n)
		return -1;
	ms = (DWORD)(deadline - now);
	setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, (const char *)&ms, sizeof(ms));
	return recv(s, p, n > INT_MAX ? INT_MAX : (int)n, 0);
}

/* recv bounded by the connection's deadline. */
static int raw_recv(struct exp_tls_conn *c, char *p, size_t n)
{
	return exp_raw_recv(c->s, c->deadline, p, n);
}

int exp_raw_send(SOCKET s, const char *p, size_t n)
{
	while (n) {
		int k = send(s, p, n > 65536 ? 65536 : (int)n, 0);
		if (k <= 0)
			return -1;
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

/* What a handshake left unread (SECBUFFER_EXTRA, at the end of raw) moves to the
 * front; the rest was consumed. */
static void keep_extra(struct exp_tls_conn *c, const SecBuffer *b)
{
	size_t n = b->BufferType == SECBUFFER_EXTRA ? b->cbBuffer : 0;

	memmove(c->raw, c->raw + c->rawn - n, n);
	c->rawn = n;
}

/* One AcceptSecurityContext step over what raw holds; its token (the next flight,
 * or an alert on failure) is sent. */
static SECURITY_STATUS handshake_step(struct exp_tls_conn *c)
{
	SecBuffer in[2] = { { (ULONG)c->rawn, SECBUFFER_TOKEN, c->raw },
			    { 0, SECBUFFER_EMPTY, NULL } };
	SecBuffer out = { 0, SECBUFFER_TOKEN, NULL };
	SecBufferDesc ind = { SECBUFFER_VERSION, 2, in }, outd = { SECBUFFER_VERSION, 1, &out };
	CtxtHandle *ctx = c->have_ctx ? &c->ctx : NULL, *new_ctx = c->have_ctx ? NULL : &c->ctx;
	ULONG attr;
	SECURITY_STATUS st = sspi()->AcceptSecurityContext(&c->t->cred, ctx, &ind, ASC_FLAGS, 0,
							   new_ctx, &outd, &attr, NULL);

	if (st == SEC_E_OK || st == SEC_I_CONTINUE_NEEDED)
		c->have_ctx = 1;
	if (out.pvBuffer) {
		if (out.cbBuffer && exp_raw_send(c->s, out.pvBuffer, out.cbBuffer) &&
		    (st == SEC_E_OK || st == SEC_I_CONTINUE_NEEDED))
			st = SEC_E_CONTEXT_EXPIRED;  /* the client went away */
		sspi()->FreeContextBuffer(out.pvBuffer);
	}
	if (st == SEC_E_OK || st == SEC_I_CONTINUE_NEEDED)
		keep_extra(c, &in[1]);
	return st;
}

/* The handshake over c, from the bytes raw already holds. 0, or fills kind/detail. */
static int handshake(struct exp_tls_conn *c, char *kind, size_t ksize, char *detail, size_t size)
{
	SECURITY_STATUS st;

	for (;;) {
		if (c->rawn) {
			st = handshake_step(c);
			if (st == SEC_E_OK)
				break;
			if (st != SEC_E_INCOMPLETE_MESSAGE && st != SEC_I_CONTINUE_NEEDED) {
				snprintf(kind, ksize, "TLS handshake failed (status 0x%lx)",
					 (unsigned long)st);
				snprintf(detail, size, "AcceptSecurityContext: %s",
					 status_name(st));
				return 1;
			}
			if (st == SEC_I_CONTINUE_NEEDED && c->rawn)
				continue;  /* the client's next flight came with this one */
		}
		int k = c->rawn < RAW_MAX ? raw_recv(c, c->raw + c->rawn, RAW_MAX - c->rawn) : -1;
		if (k <= 0) {
			snprintf(kind, ksize, "TLS client timed out or went away");
			snprintf(detail, size, "a connection closed, idle, or still in its "
				 "handshake after 10 s (or a handshake message past %d bytes)",
				 RAW_MAX);
			return 1;
		}
		c->rawn += (size_t)k;
	}
	/* again after a renegotiation: its cipher may have other sizes */
	const SecPkgContext_StreamSizes *z = &c->sizes;
	free(c->out);
	c->out = NULL;
	st = sspi()->QueryContextAttributesW(&c->ctx, SECPKG_ATTR_STREAM_SIZES, &c->sizes);
	if (st != SEC_E_OK || !z->cbMaximumMessage ||
	    !(c->out = malloc((size_t)z->cbHeader + z->cbMaximumMessage + z->cbTrailer))) {
		c->ready = 0;  /* nothing to encrypt with */
		snprintf(kind, ksize, "TLS stream sizes unknown");
		snprintf(detail, size, "QueryContextAttributes(SECPKG_ATTR_STREAM_SIZES) status "
			 "0x%lx", (unsigned long)st);
		return 1;
	}
	c->ready = 1;
	return 0;
}

enum exp_tls_accepted exp_tls_accept(struct exp_tls *t, SOCKET s, unsigned timeout_ms,
				     struct exp_tls_conn **out, char *kind, size_t ksize,
				     char *detail, size_t size)
{
	struct exp_tls_conn *c = calloc(1, sizeof(*c));
	int k;

	*out = NULL;
	if (!c) {
		snprintf(kind, ksize, "no memory for a TLS connection");
		snprintf(detail, size, "the connection was closed");
		return EXP_TLS_FAILED;
	}
	c->t = t;
	c->s = s;
	c->deadline = GetTickCount64() + timeout_ms;
	/* a TLS client opens with a handshake record; an HTTP one with its method */
	if ((k = raw_recv(c, c->raw, 1)) == 1 && c->raw[0] != TLS_HANDSHAKE_RECORD) {
		free(c);
		return EXP_TLS_PLAIN;
	}
	c->rawn = k > 0 ? 1 : 0;
	if (handshake(c, kind, ksize, detail, size)) {
		exp_tls_close(c);
		return EXP_TLS_FAILED;
	}
	*out = c;
	return EXP_TLS_OK;
}

/* Decrypts the record at the front of raw into plain: 1 when done (plain may
 * still be empty), 0 when more bytes are needed, -1 on an error, 2 at close_notify,
 * 3 at a post-handshake message (a TLS 1.3 KeyUpdate, a renegotiation), which
 * SECBUFFER_EXTRA leaves at the front of raw for AcceptSecurityContext. */
static int decrypt(struct exp_tls_conn *c)
{
	SecBuffer b[4] = { { (ULONG)c->rawn, SECBUFFER_DATA, c->raw }, { 0, SECBUFFER_EMPTY, NULL },
			   { 0, SECBUFFER_EMPTY, NULL }, { 0, SECBUFFER_EMPTY, NULL } };
	SecBufferDesc d = { SECBUFFER_VERSION, 4, b };
	SECURITY_STATUS st = sspi()->DecryptMessage(&c->ctx, &d, 0, NULL);
	size_t extra = 0;

	if (st == SEC_E_INCOMPLETE_MESSAGE)
		return 0;
	if (st == SEC_I_CONTEXT_EXPIRED)
		return 2;
	if (st != SEC_E_OK && st != SEC_I_RENEGOTIATE)
		return -1;  /* a bad record */
	for (int i = 0; i < 4; i++) {
		if (b[i].BufferType == SECBUFFER_DATA && b[i].cbBuffer <= sizeof(c->plain)) {
			memcpy(c->plain, b[i].pvBuffer, b[i].cbBuffer);
			c->plainn = b[i].cbBuffer;
			c->plainoff = 0;
		}
		if (b[i].BufferType == SECBUFFER_EXTRA)
			extra = b[i].cbBuffer;
	}
	memmove(c->raw, c->raw + c->rawn - extra, extra);
	c->rawn = extra;
	return st == SEC_I_RENEGOTIATE ? 3 : 1;
}

int exp_tls_recv(struct exp_tls_conn *c, char *buf, int len)
{
	for (;;) {
		if (c->plainn) {
			size_t n = c->plainn < (size_t)len ? c->plainn : (size_t)len;
			memcpy(buf, c->plain + c->plainoff, n);
			c->plainoff += n;
			c->plainn -= n;
			return (int)n;
		}
		char kind[96], detail[256];
		int r = c->rawn ? decrypt(c) : 0;
		if (r == 1)
			continue;
		/* Microsoft: AcceptSecurityContext takes SECBUFFER_EXTRA, then "proceed as
		 * though ... creating a new connection"; the same deadline bounds it */
		if (r == 3 && !handshake(c, kind, sizeof(kind), detail, sizeof(detail)))
			continue;
		if (r)
			return r == 2 ? 0 : -1;
		int k = c->rawn < RAW_MAX ? raw_recv(c, c->raw + c->rawn, RAW_MAX - c->rawn) : -1;
		if (k <= 0)
			return k;
		c->rawn += (size_t)k;
	}
}

int exp_tls_send(struct exp_tls_conn *c, const void *p, size_t n)
{
	const SecPkgContext_StreamSizes *z = &c->sizes;

	if (!c->ready)
		return -1;
	while (n) {
		size_t m = n < z->cbMaximumMessage ? n : z->cbMaximumMessage;
		char *data = c->out + z->cbHeader;
		SecBuffer b[4] = { { z->cbHeader, SECBUFFER_STREAM_HEADER, c->out },
				   { (ULONG)m, SECBUFFER_DATA, data },
				   { z->cbTrailer, SECBUFFER_STREAM_TRAILER, data + m },
				   { 0, SECBUFFER_EMPTY, NULL } };
		SecBufferDesc d = { SECBUFFER_VERSION, 4, b };
		memcpy(data, p, m);
		if (sspi()->EncryptMessage(&c->ctx, 0, &d, 0) != SEC_E_OK ||
		    exp_raw_send(c->s, c->out, (size_t)b[0].cbBuffer + b[1].cbBuffer + b[2].cbBuffer))
			return -1;
		p = (const char *)p + m;
		n -= m;
	}
	return 0;
}

void exp_tls_close(struct exp_tls_conn *c)
{
	DWORD type = SCHANNEL_SHUTDOWN;
	SecBuffer tb = { sizeof(type), SECBUFFER_TOKEN, &type }, ob = { 0, SECBUFFER_TOKEN, NULL };
	SecBufferDesc td = { SECBUFFER_VERSION, 1, &tb }, od = { SECBUFFER_VERSION, 1, &ob };
	ULONG attr;

	if (!c)
		return;
	if (c->ready && sspi()->ApplyControlToken(&c->ctx, &td) == SEC_E_OK) {
		/* the next AcceptSecurityContext makes the close_notify alert */
		sspi()->AcceptSecurityContext(&c->t->cred, &c->ctx, NULL, ASC_FLAGS, 0, NULL, &od,
					      &attr, NULL);
		if (ob.pvBuffer) {
			exp_raw_send(c->s, ob.pvBuffer, ob.cbBuffer);
			sspi()->FreeContextBuffer(ob.pvBuffer);
		}
	}
	if (c->have_ctx)
		sspi()->DeleteSecurityContext(&c->ctx);
	free(c->out);
	free(c);
}
