/* SPDX-License-Identifier: MIT */
/* The PEM pair of --tls-cert/--tls-key as Schannel wants it: a certificate context
 * whose CERT_KEY_PROV_INFO names a key container holding the private key. RSA keys
 * and EC keys go to the NCrypt software key storage provider; RSA keys to a CryptoAPI
 * container (MS_ENH_RSA_AES_PROV) where NCrypt cannot take them (Wine). The container
 * is named after this process and deleted at exit: Schannel opens the key by name,
 * so an ephemeral (verify-context) key would not do. */
#include "exporter_tls_win.h"

#include "core/file.h"

#include <ncrypt.h>
#include <bcrypt.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PEM_MAX_BYTES (1 << 20)

struct exp_tls_key {
	PCCERT_CONTEXT cert;
	WCHAR name[64];
	int made;    /* the container exists: delete it */
	int ncrypt;  /* the key is NCrypt's, else CryptoAPI's */
};

/* The DER of the first PEM block in path whose label ends in suffix
 * ("CERTIFICATE", "PRIVATE KEY"); its label goes to label. NULL after a sentence. */
static BYTE *pem_read(const char *opt, const char *path, const char *suffix, char *label,
		      size_t lsize, DWORD *n)
{
	FILE *f = pmuk_fopen(path, "rb");
	char *text = f ? calloc(1, PEM_MAX_BYTES + 1) : NULL, *p;
	size_t len = text ? fread(text, 1, PEM_MAX_BYTES, f) : 0;
	BYTE *der = NULL;

	if (f)
		fclose(f);
	if (!text) {
		exp_tls_say("%s %s: cannot read it (%s)", opt, path,
			    f ? "no memory" : strerror(errno));
		return NULL;
	}
	if (len == PEM_MAX_BYTES) {
		exp_tls_say("%s %s: larger than 1 MiB, which no PEM certificate or key is", opt,
			    path);
		return free(text), NULL;
	}
	/* the text is searched as a C string: a NUL ends it early */
	if (memchr(text, 0, len)) {
		exp_tls_say("%s %s: it holds NUL bytes, as a UTF-16 file (Windows PowerShell 5's > "
			    "and Out-File write one) or a binary DER file does; give the PEM text in "
			    "ASCII (Out-File -Encoding ascii, or openssl's -out FILE)", opt, path);
		return free(text), NULL;
	}
	for (p = strstr(text, "-----BEGIN "); p; p = strstr(p + 1, "-----BEGIN ")) {
		const char *l = p + 11, *e = strstr(l, "-----");
		size_t ln = e ? (size_t)(e - l) : 0, sn = strlen(suffix);
		if (ln >= sn && ln < lsize && !memcmp(l + ln - sn, suffix, sn)) {
			memcpy(label, l, ln);
			label[ln] = 0;
			break;
		}
	}
	*n = 0;
	DWORD left = p ? (DWORD)(len - (size_t)(p - text)) : 0, fmt = CRYPT_STRING_BASE64HEADER;
	if (p && exp_tls_dll.CryptStringToBinaryA(p, left, fmt, NULL, n, NULL, NULL) &&
	    (der = malloc(*n)) &&
	    !exp_tls_dll.CryptStringToBinaryA(p, left, fmt, der, n, NULL, NULL)) {
		free(der);
		der = NULL;
	}
	if (!der)
		exp_tls_say("%s %s: no PEM block \"-----BEGIN ...%s-----\" that decodes in it (%s); "
			    "give the PEM file (as openssl req -x509 -newkey rsa:2048 -nodes "
			    "writes it)", opt, path, suffix, p ? "its base64 does not decode" :
			    len ? "no such block" : "the file is empty");
	free(text);
	return der;
}

/* One DER element in [p, end): its tag and contents. For the PKCS#8 envelope only,
 * where crypt32 has no decoder (Wine 8.0: CryptDecodeObjectEx(PKCS_PRIVATE_KEY_INFO)
 * fails with ERROR_FILE_NOT_FOUND). 0 when malformed. */
static int der_next(const BYTE **p, const BYTE *end, BYTE *tag, const BYTE **c, DWORD *n)
{
	size_t len, i = 2;

	if (end - *p < 2)
		return 0;
	*tag = (*p)[0];
	len = (*p)[1];
	if (len & 0x80) {
		size_t k = len & 0x7f;
		if (k < 1 || k > 3 || (size_t)(end - *p) < 2 + k)
			return 0;
		for (len = 0; k; k--)
			len = len << 8 | (*p)[i++];
	}
	if ((size_t)(end - *p) - i < len)
		return 0;
	*c = *p + i;
	*n = (DWORD)len;
	*p = *c + len;
	return 1;
}

/* PKCS#8 PrivateKeyInfo: SEQUENCE { INTEGER, SEQUENCE { OID, params }, OCTET STRING } */
static int pkcs8_split(const BYTE *der, DWORD n, CRYPT_PRIVATE_KEY_INFO *out, char *oid)
{
	static const BYTE rsa[] = { 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01 };
	static const BYTE ec[] = { 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01 };
	const BYTE *p = der, *end = der + n, *seq, *alg, *o, *v;
	DWORD sn, an, on, vn;
	BYTE tag;

	if (!der_next(&p, end, &tag, &seq, &sn) || tag != 0x30)
		return 0;
	p = seq;
	end = seq + sn;
	if (!der_next(&p, end, &tag, &v, &vn) || tag != 0x02 ||
	    !der_next(&p, end, &tag, &alg, &an) || tag != 0x30)
		return 0;
	const BYTE *q = alg;
	if (!der_next(&q, alg + an, &tag, &o, &on) || tag != 0x06)
		return 0;
	out->Algorithm.Parameters.pbData = (BYTE *)q;
	out->Algorithm.Parameters.cbData = (DWORD)(alg + an - q);
	strcpy(oid, on == sizeof(rsa) && !memcmp(o, rsa, on) ? szOID_RSA_RSA :
		    on == sizeof(ec) && !memcmp(o, ec, on) ? szOID_ECC_PUBLIC_KEY : "another OID");
	out->Algorithm.pszObjId = oid;
	return der_next(&p, end, &tag, &v, &vn) && tag == 0x04 &&
	       (out->PrivateKey.pbData = (BYTE *)v, out->PrivateKey.cbData = vn, 1);
}

static void *decode(LPCSTR type, const BYTE *der, DWORD n, DWORD *size)
{
	void *out = NULL;

	if (!exp_tls_dll.CryptDecodeObjectEx(X509_ASN_ENCODING | PKCS_7_ASN_ENCODING, type, der,
					     n, CRYPT_DECODE_ALLOC_FLAG, NULL, &out, size))
		return NULL;
	return out;
}

/* Checks that the imported key is the certificate's (its public half), then names
 * the container in the certificate's CERT_KEY_PROV_INFO for Schannel. */
static int bind_key(struct exp_tls_key *k, const char *cert_path, const char *key_path,
		    HCRYPTPROV_OR_NCRYPT_KEY_HANDLE h, DWORD spec, CRYPT_KEY_PROV_INFO *info)
{
	CERT_PUBLIC_KEY_INFO *pub = NULL;
	DWORD n = 0, x509 = X509_ASN_ENCODING;
	int ok = exp_tls_dll.CryptExportPublicKeyInfo(h, spec, x509, NULL, &n) &&
		 (pub = malloc(n)) && exp_tls_dll.CryptExportPublicKeyInfo(h, spec, x509, pub, &n);

	if (!ok) {
		free(pub);
		return exp_tls_say("--tls-key %s: cannot read back the public half of the imported "
				   "key (CryptExportPublicKeyInfo error 0x%lx)", key_path,
				   GetLastError());
	}
	ok = exp_tls_dll.CertComparePublicKeyInfo(x509, &k->cert->pCertInfo->SubjectPublicKeyInfo,
						  pub);
	free(pub);
	if (!ok)
		return exp_tls_say("--tls-key %s does not belong to --tls-cert %s (their public "
				   "keys differ): give the key the certificate was made for",
				   key_path, cert_path);
	if (!exp_tls_dll.CertSetCertificateContextProperty(k->cert, CERT_KEY_PROV_INFO_PROP_ID, 0,
							   info))
		return exp_tls_say("--tls-cert %s: cannot bind the key to it "
				   "(CertSetCertificateContextProperty error 0x%lx)", cert_path,
				   GetLastError());
	return 0;
}

/* Imports blob (of NCrypt's type) as a key of the software key storage provider
 * named k->name, and binds it: 0, 1 after a sentence, or -1 with *st when the
 * provider is missing or refuses the blob (nothing said). */
static int import_ncrypt(struct exp_tls_key *k, const char *cert_path, const char *key_path,
			 LPCWSTR type, BYTE *blob, DWORD n, SECURITY_STATUS *st)
{
	CRYPT_KEY_PROV_INFO info = { k->name, MS_KEY_STORAGE_PROVIDER, 0, 0, 0, NULL, 0 };
	NCryptBuffer nb = { (DWORD)(wcslen(k->name) + 1) * sizeof(WCHAR),
			    NCRYPTBUFFER_PKCS_KEY_NAME, k->name };
	NCryptBufferDesc desc = { NCRYPTBUFFER_VERSION, 1, &nb };
	NCRYPT_PROV_HANDLE prov = 0;
	NCRYPT_KEY_HANDLE key = 0;
	int rc = -1;

	if (!(*st = exp_tls_dll.NCryptOpenStorageProvider(&prov, MS_KEY_STORAGE_PROVIDER, 0)) &&
	    !(*st = exp_tls_dll.NCryptImportKey(prov, 0, type, &desc, &key, blob, n, 0))) {
		k->made = k->ncrypt = 1;
		rc = bind_key(k, cert_path, key_path, key, CERT_NCRYPT_KEY_SPEC, &info);
	}
	if (key)
		exp_tls_dll.NCryptFreeObject(key);
	if (prov)
		exp_tls_dll.NCryptFreeObject(prov);
	return rc;
}

/* CryptoAPI's container, where NCrypt cannot take the key (Wine 8.0's
 * NCryptImportKey returns NTE_NOT_SUPPORTED). */
static int import_capi(struct exp_tls_key *k, const char *cert_path, const char *key_path,
		       BYTE *blob, DWORD n, SECURITY_STATUS nst)
{
	CRYPT_KEY_PROV_INFO info = { k->name, MS_ENH_RSA_AES_PROV_W, PROV_RSA_AES, 0, 0, NULL,
				     AT_KEYEXCHANGE };
	HCRYPTPROV prov = 0;
	HCRYPTKEY key = 0;
	int rc = 1;

	if (!CryptAcquireContextW(&prov, k->name, MS_ENH_RSA_AES_PROV_W, PROV_RSA_AES,
				  CRYPT_NEWKEYSET))
		exp_tls_say("--tls-key %s: neither NCrypt (status 0x%lx) nor CryptoAPI "
			    "(CryptAcquireContext error 0x%lx) makes a key container for it",
			    key_path, (unsigned long)nst, GetLastError());
	else if (k->made = 1, !CryptImportKey(prov, blob, n, 0, 0, &key))
		exp_tls_say("--tls-key %s: the key container refuses the RSA key (NCrypt status "
			    "0x%lx, CryptImportKey error 0x%lx)", key_path, (unsigned long)nst,
			    GetLastError());
	else
		rc = bind_key(k, cert_path, key_path, prov, AT_KEYEXCHANGE, &info);
	if (key)
		CryptDestroyKey(key);
	if (prov)
		CryptReleaseContext(prov, 0);
	return rc;
}

/* RSA: NCrypt first (its keys sign RSA-PSS, which TLS 1.3 needs), CryptoAPI when
 * NCrypt cannot; both take the PRIVATEKEYBLOB crypt32 decodes PKCS#1 into. */
static int import_rsa(struct exp_tls_key *k, const char *cert_path, const char *key_path,
		      const BYTE *der, DWORD n)
{
	DWORD bn;
	BLOBHEADER *blob = decode(PKCS_RSA_PRIVATE_KEY, der, n, &bn);
	SECURITY_STATUS st;
	int rc;

	if (!blob)
		return exp_tls_say("--tls-key %s: its RSA private key does not decode "
				   "(CryptDecodeObjectEx error 0x%lx)", key_path, GetLastError());
	blob->aiKeyAlg = CALG_RSA_KEYX;  /* Schannel both signs and decrypts with it */
	rc = import_ncrypt(k, cert_path, key_path, LEGACY_RSAPRIVATE_BLOB, (BYTE *)blob, bn, &st);
	if (rc < 0)
		rc = import_capi(k, cert_path, key_path, (BYTE *)blob, bn, st);
	SecureZeroMemory(blob, bn);
	LocalFree(blob);
	return rc;
}

/* The curve's BCRYPT magic and coordinate size, 0 when NCrypt's software provider
 * has no such named curve here. */
static DWORD ec_curve(const char *oid, DWORD *size)
{
	if (oid && !strcmp(oid, szOID_ECC_CURVE_P256))
		return *size = 32, BCRYPT_ECDSA_PRIVATE_P256_MAGIC;
	if (oid && !strcmp(oid, szOID_ECC_CURVE_P384))
		return *size = 48, BCRYPT_ECDSA_PRIVATE_P384_MAGIC;
	if (oid && !strcmp(oid, szOID_ECC_CURVE_P521))
		return *size = 66, BCRYPT_ECDSA_PRIVATE_P521_MAGIC;
	return 0;
}

/* BCRYPT_ECCPRIVATE_BLOB: the header, X, Y (from the uncompressed public point
 * 04 || X || Y) and d, each size bytes. */
static BYTE *ec_blob(const CRYPT_ECC_PRIVATE_KEY_INFO *ec, DWORD magic, DWORD size, DWORD *n)
{
	const CRYPT_BIT_BLOB *pub = &ec->PublicKey;
	BCRYPT_ECCKEY_BLOB *b;

	if (pub->cbData != 1 + 2 * size || pub->pbData[0] != 4 || ec->PrivateKey.cbData > size ||
	    !(b = calloc(1, sizeof(*b) + 3 * size)))
		return NULL;
	b->dwMagic = magic;
	b->cbKey = size;
	memcpy(b + 1, pub->pbData + 1, 2 * size);
	memcpy((BYTE *)(b + 1) + 3 * size - ec->PrivateKey.cbData, ec->PrivateKey.pbData,
	       ec->PrivateKey.cbData);
	*n = sizeof(*b) + 3 * size;
	return (BYTE *)b;
}

static int import_ec(struct exp_tls_key *k, const char *cert_path, const char *key_path,
		     const BYTE *der, DWORD n, const CRYPT_OBJID_BLOB *params)
{
	DWORD sz, size = 0, magic, bn = 0;
	CRYPT_ECC_PRIVATE_KEY_INFO *ec = decode(X509_ECC_PRIVATE_KEY, der, n, &sz);
	LPSTR *param_oid = NULL;
	BYTE *blob = NULL;
	SECURITY_STATUS st;
	int rc = 1;

	if (!ec) {
		DWORD e = GetLastError();
		return exp_tls_say("--tls-key %s: its EC private key does not decode "
				   "(CryptDecodeObjectEx error 0x%lx%s); an RSA key does: openssl "
				   "req -x509 -newkey rsa:2048", key_path, e,
				   e == ERROR_FILE_NOT_FOUND ? ": this crypt32 has no "
				   "X509_ECC_PRIVATE_KEY decoder, as Wine 8.0's" : "");
	}
	/* PKCS#8 carries the curve in the algorithm's parameters, SEC1 in the key */
	if ((!ec->szCurveOid || !*ec->szCurveOid) && params && params->cbData)
		param_oid = decode(X509_OBJECT_IDENTIFIER, params->pbData, params->cbData, &sz);
	magic = ec_curve(param_oid ? *param_oid : ec->szCurveOid, &size);
	if (!magic || !(blob = ec_blob(ec, magic, size, &bn)))
		exp_tls_say("--tls-key %s: an EC key on a curve other than P-256, P-384 or P-521, "
			    "or without its public point; make one with openssl ecparam -name "
			    "prime256v1 -genkey", key_path);
	else if ((rc = import_ncrypt(k, cert_path, key_path, BCRYPT_ECCPRIVATE_BLOB, blob, bn,
				     &st)) < 0)
		rc = exp_tls_say("--tls-key %s: NCrypt's software key storage refuses the EC key "
				 "(status 0x%lx)", key_path, (unsigned long)st);
	if (blob)
		SecureZeroMemory(blob, bn);
	free(blob);
	SecureZeroMemory(ec->PrivateKey.pbData, ec->PrivateKey.cbData);
	LocalFree(ec);
	LocalFree(param_oid);
	return rc;
}

static int import_key(struct exp_tls_key *k, const char *cert_path, const char *key_path)
{
	char label[64], oid[32];
	DWORD n, sz;
	BYTE *der = pem_read("--tls-key", key_path, "PRIVATE KEY", label, sizeof(label), &n);
	CRYPT_PRIVATE_KEY_INFO *p8 = NULL, split;
	int rc = 1;

	if (!der)
		return 1;
	if (!strcmp(label, "RSA PRIVATE KEY")) {
		rc = import_rsa(k, cert_path, key_path, der, n);
	} else if (!strcmp(label, "EC PRIVATE KEY")) {
		rc = import_ec(k, cert_path, key_path, der, n, NULL);
	} else if (strcmp(label, "PRIVATE KEY")) {
		exp_tls_say("--tls-key %s: its \"%s\" is not supported; give an unencrypted key "
			    "(openssl pkey -in %s -out plain.pem)", key_path, label, key_path);
	} else if (!(p8 = decode(PKCS_PRIVATE_KEY_INFO, der, n, &sz)) &&
		   !pkcs8_split(der, n, &split, oid)) {
		exp_tls_say("--tls-key %s: its PKCS#8 \"PRIVATE KEY\" does not decode", key_path);
	} else {
		const CRYPT_PRIVATE_KEY_INFO *i = p8 ? p8 : &split;
		const char *alg = i->Algorithm.pszObjId;
		const CRYPT_DER_BLOB *key = &i->PrivateKey;
		if (!strcmp(alg, szOID_RSA_RSA))
			rc = import_rsa(k, cert_path, key_path, key->pbData, key->cbData);
		else if (!strcmp(alg, szOID_ECC_PUBLIC_KEY))
			rc = import_ec(k, cert_path, key_path, key->pbData, key->cbData,
				       &i->Algorithm.Parameters);
		else
			exp_tls_say("--tls-key %s: its key's algorithm (%s) is neither RSA nor EC, "
				    "the ones this exporter imports", key_path, alg);
	}
	if (p8) {
		SecureZeroMemory(p8->PrivateKey.pbData, p8->PrivateKey.cbData);
		LocalFree(p8);
	}
	SecureZeroMemory(der, n);
	free(der);
	return rc;
}

/* Whether the process that named a container "pmukit-exporter-PID-TICK" has ended.
 * Another user's process, or another one with its PID now, keeps the container. */
static int stale(const WCHAR *name)
{
	unsigned long pid;
	HANDLE h;
	int gone;

	if (swscanf(name, L"pmukit-exporter-%lu-", &pid) != 1 || pid == GetCurrentProcessId())
		return 0;
	if (!(h = OpenProcess(SYNCHRONIZE, FALSE, pid)))
		return GetLastError() == ERROR_INVALID_PARAMETER;  /* no such process */
	gone = WaitForSingleObject(h, 0) == WAIT_OBJECT_0;
	CloseHandle(h);
	return gone;
}

/* Deletes the CryptoAPI container name (it and its key). */
static void delete_capi(const WCHAR *name)
{
	HCRYPTPROV prov;

	CryptAcquireContextW(&prov, name, MS_ENH_RSA_AES_PROV_W, PROV_RSA_AES, CRYPT_DELETEKEYSET);
}

/* Deletes the key name of NCrypt's provider prov. */
static void delete_ncrypt(NCRYPT_PROV_HANDLE prov, const WCHAR *name)
{
	NCRYPT_KEY_HANDLE key;

	if (!exp_tls_dll.NCryptOpenKey(prov, &key, name, 0, 0))
		exp_tls_dll.NCryptDeleteKey(key, 0);  /* frees key too */
}

#define SWEEP_MAX 32

/* CryptoAPI's containers of ended exporters: listed first, then deleted (deleting
 * would upset the listing). */
static void sweep_capi(void)
{
	WCHAR found[SWEEP_MAX][64];
	char name[256];
	HCRYPTPROV prov;
	DWORD n, flag = CRYPT_FIRST;
	int k = 0;

	if (!CryptAcquireContextW(&prov, NULL, MS_ENH_RSA_AES_PROV_W, PROV_RSA_AES,
				  CRYPT_VERIFYCONTEXT))
		return;
	for (; k < SWEEP_MAX; flag = CRYPT_NEXT) {
		n = sizeof(name);
		if (!CryptGetProvParam(prov, PP_ENUMCONTAINERS, (BYTE *)name, &n, flag))
			break;
		if (MultiByteToWideChar(CP_ACP, 0, name, -1, found[k], 64) && stale(found[k]))
			k++;
	}
	CryptReleaseContext(prov, 0);
	while (k--)
		delete_capi(found[k]);
}

/* NCrypt's keys of ended exporters, where the provider lists its keys. */
static void sweep_ncrypt(void)
{
	NCRYPT_PROV_HANDLE prov;
	NCryptKeyName *kn;
	void *state = NULL;
	WCHAR found[SWEEP_MAX][64];
	int k = 0;

	if (!exp_tls_dll.NCryptEnumKeys || !exp_tls_dll.NCryptFreeBuffer ||
	    exp_tls_dll.NCryptOpenStorageProvider(&prov, MS_KEY_STORAGE_PROVIDER, 0))
		return;
	while (k < SWEEP_MAX && !exp_tls_dll.NCryptEnumKeys(prov, NULL, &kn, &state, 0)) {
		if (wcslen(kn->pszName) < 64 && stale(kn->pszName))
			wcscpy(found[k++], kn->pszName);
		exp_tls_dll.NCryptFreeBuffer(kn);
	}
	if (state)
		exp_tls_dll.NCryptFreeBuffer(state);
	while (k--)
		delete_ncrypt(prov, found[k]);
	exp_tls_dll.NCryptFreeObject(prov);
}

int exp_tls_key_load(const char *cert_path, const char *key_path, struct exp_tls_key **out)
{
	struct exp_tls_key *k = calloc(1, sizeof(*k));
	char label[64];
	DWORD n;
	BYTE *der;

	if (!k)
		return exp_tls_say("no memory for the TLS credentials");
	sweep_capi();
	sweep_ncrypt();
	swprintf(k->name, sizeof(k->name) / sizeof(WCHAR), L"pmukit-exporter-%lu-%llu",
		 GetCurrentProcessId(), (unsigned long long)GetTickCount64());
	if (!(der = pem_read("--tls-cert", cert_path, "CERTIFICATE", label, sizeof(label), &n)))
		return exp_tls_key_free(k), 1;
	k->cert = exp_tls_dll.CertCreateCertificateContext(X509_ASN_ENCODING, der, n);
	free(der);
	if (!k->cert) {
		exp_tls_say("--tls-cert %s: its \"%s\" is not an X.509 certificate "
		    "(CertCreateCertificateContext error 0x%lx)", cert_path, label, GetLastError());
		return exp_tls_key_free(k), 1;
	}
	if (import_key(k, cert_path, key_path))
		return exp_tls_key_free(k), 1;
	*out = k;
	return 0;
}

PCCERT_CONTEXT exp_tls_key_cert(const struct exp_tls_key *k)
{
	return k->cert;
}

void exp_tls_key_free(struct exp_tls_key *k)
{
	NCRYPT_PROV_HANDLE np;

	if (!k)
		return;
	if (k->made && !k->ncrypt)
		delete_capi(k->name);
	if (k->made && k->ncrypt &&
	    !exp_tls_dll.NCryptOpenStorageProvider(&np, MS_KEY_STORAGE_PROVIDER, 0)) {
		delete_ncrypt(np, k->name);
		exp_tls_dll.NCryptFreeObject(np);
	}
	if (k->cert)
		exp_tls_dll.CertFreeCertificateContext(k->cert);
	free(k);
}
