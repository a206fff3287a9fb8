/* SPDX-License-Identifier: MIT */
/* A Windows test program for the Wine smoke tests (smoke_tls_loop.sh): the PEM and
 * DER reading of the exporter's --tls-cert/--tls-key (tools/pmukit/
 * exporter_tlskey_win.c) on truncated and hostile input. The DER reader unwraps
 * PKCS#8 where crypt32 cannot (Wine 8.0); every input is placed right before a
 * no-access page, so a read past its end faults instead of passing unseen.
 *   tls_der DIR   DIR: a directory for the PEM files it writes
 * The file under test is included to reach its static reader. One "ok NAME" or
 * "not ok NAME: why" a line; the exit status is the number of failures. */
#include "exporter_tls_win.c"
#include "exporter_tlskey_win.c"
#include "tls_check.h"

/* SEQUENCE { INTEGER 0, SEQUENCE { OID rsaEncryption, NULL }, OCTET STRING aabbcc } */
static const BYTE good[] = { 0x30, 0x17, 0x02, 0x01, 0x00, 0x30, 0x0d, 0x06, 0x09, 0x2a, 0x86,
			     0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01, 0x05, 0x00, 0x04, 0x03,
			     0xaa, 0xbb, 0xcc };
static BYTE *page;  /* two pages: the input ends where the second, no-access, begins */
static DWORD page_size;

static const BYTE *guarded(const BYTE *src, size_t n)
{
	BYTE *p = page + page_size - n;

	memcpy(p, src, n);
	return p;
}

/* pkcs8_split on n bytes ending at the guard: its result, the key in bounds */
static int split(const BYTE *src, size_t n, CRYPT_PRIVATE_KEY_INFO *i)
{
	const BYTE *p = guarded(src, n);
	char oid[32];
	int ok = pkcs8_split(p, (DWORD)n, i, oid);

	if (ok && (i->PrivateKey.pbData < p || i->PrivateKey.pbData + i->PrivateKey.cbData > p + n ||
		   i->Algorithm.Parameters.pbData + i->Algorithm.Parameters.cbData > p + n))
		return -1;
	return ok;
}

static void t_good_and_truncated(void)
{
	CRYPT_PRIVATE_KEY_INFO i;
	int bad = 0;

	check(split(good, sizeof(good), &i) == 1 && !strcmp(i.Algorithm.pszObjId, szOID_RSA_RSA) &&
	      i.PrivateKey.cbData == 3 && i.PrivateKey.pbData[0] == 0xaa &&
	      i.Algorithm.Parameters.cbData == 2, "pkcs8-rsa", "the well-formed key did not split");
	for (size_t n = 0; n < sizeof(good); n++)
		bad += split(good, n, &i) != 0;
	check(!bad, "pkcs8-every-truncation-refused", "a truncated key was accepted");
}

/* the outer length in long form: 1, 2 and 3 length bytes are read, 4 and the
 * indefinite form (0x80, not DER) are refused, as is a length past the input */
static void t_lengths(void)
{
	BYTE b[64];
	CRYPT_PRIVATE_KEY_INFO i;
	int k, r[5];

	for (k = 1; k <= 4; k++) {
		b[0] = 0x30, b[1] = (BYTE)(0x80 | k);
		memset(b + 2, 0, (size_t)k);
		b[1 + k] = sizeof(good) - 2;
		memcpy(b + 2 + k, good + 2, sizeof(good) - 2);
		r[k] = split(b, 2 + (size_t)k + sizeof(good) - 2, &i);
	}
	check(r[1] == 1 && r[2] == 1 && r[3] == 1 && r[4] == 0, "der-long-form-lengths",
	      "1-3 length bytes should read, 4 be refused");
	memcpy(b, good, sizeof(good));
	b[1] = 0x80;
	r[0] = split(b, sizeof(good), &i);
	b[1] = 0x83, b[2] = b[3] = b[4] = 0xff;
	r[1] = split(b, sizeof(good), &i);
	memcpy(b, good, sizeof(good));
	b[6] = 0x7f;  /* the algorithm's SEQUENCE past the outer one */
	r[2] = split(b, sizeof(good), &i);
	memcpy(b, good, sizeof(good));
	b[21] = 0x04;  /* the key's OCTET STRING past the end */
	r[3] = split(b, sizeof(good), &i);
	memcpy(b, good, sizeof(good));
	b[20] = 0x03;  /* a BIT STRING where the key's OCTET STRING belongs */
	r[4] = split(b, sizeof(good), &i);
	check(!r[0] && !r[1] && !r[2] && !r[3] && !r[4], "der-hostile-lengths-and-tags",
	      "an indefinite length, a 16 MiB length, an inner element past its outer one, "
	      "a key past the end or a wrong tag was accepted");
}

/* 20000 random corruptions (xorshift, fixed seed): none reads out of bounds (the
 * guard page would fault) nor points the key outside the input. */
static void t_fuzz(void)
{
	unsigned x = 2463534242u;
	CRYPT_PRIVATE_KEY_INFO i;
	BYTE b[sizeof(good)];
	int outside = 0, accepted = 0;

	for (int round = 0; round < 20000; round++) {
		memcpy(b, good, sizeof(good));
		for (int f = 0; f < 3; f++) {
			x ^= x << 13, x ^= x >> 17, x ^= x << 5;
			b[x % sizeof(good)] = (BYTE)(x >> 8);
		}
		x ^= x << 13, x ^= x >> 17, x ^= x << 5;
		int r = split(b, x % 4 ? sizeof(good) : 1 + x / 7 % sizeof(good), &i);
		outside += r < 0;
		accepted += r > 0;
	}
	char why[96];
	snprintf(why, sizeof(why), "%d of 20000 corruptions put the key outside the input", outside);
	check(!outside, "der-fuzz-in-bounds", why);
	printf("# der-fuzz: %d of 20000 corrupted keys still split\n", accepted);
}

static int refusals;  /* each should have said one sentence on stderr */

static void put_file(const char *path, const char *text, size_t n)
{
	FILE *f = fopen(path, "wb");

	fwrite(text, 1, n, f);
	fclose(f);
}

/* pem_read of text written to DIR/name: the DER, label, size; NULL counted */
static BYTE *pem(const char *dir, const char *name, const char *text, size_t n, char *label,
		 DWORD *dn)
{
	char path[MAX_PATH];
	BYTE *der;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (text)
		put_file(path, text, n);
	label[0] = 0;
	der = pem_read("--tls-key", path, "PRIVATE KEY", label, 64, dn);
	refusals += !der;
	return der;
}

#define PEM_GOOD "-----BEGIN PRIVATE KEY-----\nMBcCAQAwDQYJKoZIhvcNAQEBBQAEA6q7zA==\n" \
		 "-----END PRIVATE KEY-----\n"

static void t_pem(const char *dir)
{
	static char big[PEM_MAX_BYTES + 16];
	static const char *const bad[][2] = {
		{ "empty.pem", "" },
		{ "none.pem", "hello\n" },
		{ "nodash.pem", "-----BEGIN PRIVATE KEY\nMBcCAQAw\n" },
		{ "longlabel.pem", "-----BEGIN XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX"
				   "XXX PRIVATE KEY-----\nMBcC\n-----END PRIVATE KEY-----\n" },
		{ "garbage.pem", "-----BEGIN PRIVATE KEY-----\n!!!!\n-----END PRIVATE KEY-----\n" },
		{ "zerobyte.pem", "\0" PEM_GOOD },
	};
	char label[64], why[160];
	DWORD n;
	BYTE *der;
	int wrong = 0;

	const char *two = "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n" PEM_GOOD;
	const char *noend = "-----BEGIN PRIVATE KEY-----\nMBcCAQAwDQYJKoZIhvcNAQEBBQAEA6q7zA==\n";

	der = pem(dir, "good.pem", two, strlen(two), label, &n);
	check(der && n == sizeof(good) && !memcmp(der, good, n) && !strcmp(label, "PRIVATE KEY"),
	      "pem-good-after-another-block", "the key block did not decode to its DER");
	free(der);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		size_t len = i == 5 ? sizeof(PEM_GOOD) : strlen(bad[i][1]);
		if ((der = pem(dir, bad[i][0], bad[i][1], len, label, &n)))
			printf("# %s read as %lu bytes\n", bad[i][0], n), wrong++;
		free(der);
	}
	/* Windows PowerShell 5's > and Out-File write UTF-16LE with a BOM */
	static char utf16[2 + 2 * sizeof(PEM_GOOD)] = { (char)0xff, (char)0xfe };
	for (size_t i = 0; i < sizeof(PEM_GOOD) - 1; i++)
		utf16[2 + 2 * i] = PEM_GOOD[i];
	wrong += !!(der = pem(dir, "utf16.pem", utf16, sizeof(utf16) - 2, label, &n));
	free(der);
	memset(big, 'A', sizeof(big));
	memcpy(big, PEM_GOOD, sizeof(PEM_GOOD) - 1);
	wrong += !!(der = pem(dir, "big.pem", big, sizeof(big), label, &n));
	free(der);
	wrong += !!(der = pem(dir, "missing.pem", NULL, 0, label, &n));
	free(der);
	snprintf(why, sizeof(why), "%d of 9 bad files read as a key", wrong);
	check(!wrong, "pem-bad-files-refused", why);
	/* no END line: crypt32 may decode it or not; either way no more than the key */
	der = pem(dir, "noend.pem", noend, strlen(noend), label, &n);
	check(!der || (n == sizeof(good) && !memcmp(der, good, n)), "pem-no-end-line",
	      "read as something other than the key");
	free(der);
}

/* base64 of n bytes into out (NUL-ended), for the PEM files below */
static void b64(const BYTE *p, size_t n, char *out)
{
	static const char a[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

	for (size_t i = 0; i < n; i += 3, out += 4) {
		unsigned v = (unsigned)p[i] << 16 | (i + 1 < n ? p[i + 1] << 8 : 0) |
			     (i + 2 < n ? p[i + 2] : 0);
		out[0] = a[v >> 18], out[1] = a[v >> 12 & 63];
		out[2] = i + 1 < n ? a[v >> 6 & 63] : '=';
		out[3] = i + 2 < n ? a[v & 63] : '=';
	}
	*out = 0;
}

/* exp_tls_key_load end to end with a real certificate (CERT, from openssl) and
 * PKCS#8 keys that are truncated, or whole around a key that is no RSA key: each
 * refused with exit-worthy 1, no key container left behind (not counted here:
 * Wine's stores are the smoke script's to look at). */
static void t_key_load(const char *dir, const char *cert)
{
	char path[MAX_PATH], text[256], enc[64];
	struct exp_tls_key *k = NULL;
	int accepted = 0;

	for (size_t n = 1; n <= sizeof(good); n++) {
		b64(good, n, enc);
		snprintf(text, sizeof(text), "-----BEGIN PRIVATE KEY-----\n%s\n"
			 "-----END PRIVATE KEY-----\n", enc);
		snprintf(path, sizeof(path), "%s/trunc%zu.pem", dir, n);
		put_file(path, text, strlen(text));
		if (!exp_tls_key_load(cert, path, &k))
			accepted++, exp_tls_key_free(k);
		refusals++;
	}
	check(!accepted, "key-load-hostile-pkcs8", "a truncated or empty key was accepted");
}

int main(int argc, char **argv)
{
	SYSTEM_INFO si;

	if (argc < 2)
		return fputs("usage: tls_der DIR [CERT.pem]\n", stderr), 2;
	GetSystemInfo(&si);
	page_size = si.dwPageSize;
	page = VirtualAlloc(NULL, 2 * page_size, MEM_COMMIT | MEM_RESERVE, PAGE_READWRITE);
	DWORD old;
	if (!page || !VirtualProtect(page + page_size, page_size, PAGE_NOACCESS, &old))
		return puts("not ok guard-page"), 1;
	t_good_and_truncated();
	t_lengths();
	t_fuzz();
	if (exp_tls_dlls_load())
		return puts("not ok dlls: secur32, crypt32 or ncrypt did not load"), 1;
	t_pem(argv[1]);
	if (argc > 2)
		t_key_load(argv[1], argv[2]);
	else
		puts("# key-load skipped: no certificate given");
	printf("# refusals %d\n%d failed\n", refusals, fails);
	return fails;
}
