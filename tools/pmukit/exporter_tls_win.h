/* SPDX-License-Identifier: MIT */
#ifndef PMUKIT_TOOL_EXPORTER_TLS_WIN_H
#define PMUKIT_TOOL_EXPORTER_TLS_WIN_H

/* HTTPS for pmukit exporter on Windows with system DLLs only: Schannel through
 * SSPI (secur32) for the protocol, crypt32 and a CryptoAPI/NCrypt key container
 * for the PEM pair --tls-cert/--tls-key name (the same files as on Linux).
 * exporter_tlskey_win.c turns the files into a certificate context with its key;
 * exporter_tls_win.c runs the connections. */

#ifndef SECURITY_WIN32
#define SECURITY_WIN32
#endif
#include <winsock2.h>
#include <windows.h>
#include <wincrypt.h>
#include <ncrypt.h>
#include <security.h>
#include <stddef.h>

/* secur32, crypt32 and ncrypt, loaded from System32 only when --tls-cert is given:
 * linked as imports they load in every pmukit.exe process, and crypt32 brings
 * user32 with it (Wine's does), which stops the console handler's logoff and
 * shutdown events (tests/windows/smoke_etw_guard.sh). The CryptoAPI calls are
 * advapi32's, linked already. */
#define EXP_TLS_FN(name) __typeof__(&name) name
struct exp_tls_dlls {
	PSecurityFunctionTableW sspi;  /* InitSecurityInterfaceW's: every SSPI call */
	EXP_TLS_FN(CryptStringToBinaryA);
	EXP_TLS_FN(CryptDecodeObjectEx);
	EXP_TLS_FN(CryptExportPublicKeyInfo);
	EXP_TLS_FN(CertCreateCertificateContext);
	EXP_TLS_FN(CertFreeCertificateContext);
	EXP_TLS_FN(CertComparePublicKeyInfo);
	EXP_TLS_FN(CertSetCertificateContextProperty);
	EXP_TLS_FN(NCryptOpenStorageProvider);
	EXP_TLS_FN(NCryptImportKey);
	EXP_TLS_FN(NCryptOpenKey);
	EXP_TLS_FN(NCryptDeleteKey);
	EXP_TLS_FN(NCryptFreeObject);
	EXP_TLS_FN(NCryptEnumKeys);    /* these two may be NULL: only for the sweep */
	EXP_TLS_FN(NCryptFreeBuffer);  /* of a killed exporter's keys */
};
#undef EXP_TLS_FN
extern struct exp_tls_dlls exp_tls_dll;
/* Fills exp_tls_dll (once): 0, or 1 after a sentence on stderr. */
int exp_tls_dlls_load(void);
/* "pmukit exporter: " and the sentence on stderr; returns 1 (the exit status). */
int exp_tls_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The certificate, its private key imported under a name of this process (Schannel
 * finds a key by container name, not by handle). */
struct exp_tls_key;
/* Parses the PEM certificate and key (PKCS#8 "PRIVATE KEY", PKCS#1 "RSA PRIVATE
 * KEY", SEC1 "EC PRIVATE KEY"), imports the key and checks that it belongs to the
 * certificate. 0, or 1 after writing one sentence to stderr. */
int exp_tls_key_load(const char *cert_path, const char *key_path, struct exp_tls_key **out);
PCCERT_CONTEXT exp_tls_key_cert(const struct exp_tls_key *k);
/* Frees the certificate and deletes the key container. A killed exporter leaves its
 * container (a copy of the private key); exp_tls_key_load deletes those of pmukit
 * exporters no longer running. */
void exp_tls_key_free(struct exp_tls_key *k);

/* Plain socket I/O, also the plain HTTP server's (exporter_httpd_win.c): a recv of
 * up to n bytes that waits no later than deadline (GetTickCount64), -1 past it;
 * sending all n bytes, 0 or -1 when the client went away. */
int exp_raw_recv(SOCKET s, ULONGLONG deadline, char *p, size_t n);
int exp_raw_send(SOCKET s, const char *p, size_t n);

/* Server credentials: loaded once at start-up. 0, or 1 after one sentence on
 * stderr. A Schannel that cannot act as a server (Wine 8.0) is said once, at
 * start-up, as a warning: each handshake then fails as a kind of its own. */
struct exp_tls;
int exp_tls_new(const char *cert_path, const char *key_path, struct exp_tls **out);
void exp_tls_free(struct exp_tls *t);

/* One TLS connection over a connected socket. The whole handshake, and each
 * later read, ends by the deadline timeout_ms from exp_tls_accept (a slow or
 * silent client holds its thread no longer than a plain one). */
struct exp_tls_conn;
enum exp_tls_accepted {
	EXP_TLS_OK,
	EXP_TLS_PLAIN,   /* the client spoke plain HTTP: nothing sent; answer it in plain */
	EXP_TLS_FAILED,  /* kind and detail say why (log once per kind); nothing to answer */
};
enum exp_tls_accepted exp_tls_accept(struct exp_tls *t, SOCKET s, unsigned timeout_ms,
				     struct exp_tls_conn **out, char *kind, size_t ksize,
				     char *detail, size_t size);
/* Up to len bytes of the request: > 0, 0 at the client's end (or close_notify),
 * < 0 on a timeout or an error. */
int exp_tls_recv(struct exp_tls_conn *c, char *buf, int len);
/* Encrypts and sends all n bytes: 0, or -1 when the client went away. */
int exp_tls_send(struct exp_tls_conn *c, const void *p, size_t n);
/* Sends close_notify and frees c (the socket stays the caller's). */
void exp_tls_close(struct exp_tls_conn *c);

#endif
