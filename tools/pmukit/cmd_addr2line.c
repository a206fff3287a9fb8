/* SPDX-License-Identifier: MIT */
/* pmukit addr2line: addresses -> function, file:line:column and the inlined calls,
 * of a live process (-p) or of a file (-e, addresses as linked unless --base). */
#include "cmd.h"
#include "core/json.h"
#include "core/file.h"
#include "core/num.h"

#include <getopt.h>
#include <ctype.h>
#include <inttypes.h>
#include <limits.h>
#include <pmukit/pmukit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FRAMES 32

static void usage(FILE *f)
{
	fprintf(f, "usage: pmukit addr2line (-p PID | -e FILE [--base ADDR]) [--no-inline] "
		   "[--symbol-path PATH] [--json] [ADDR...]\n\n"
		   "Resolves each address (hex, 0x optional; read from stdin, separated by any\n"
		   "blanks, when none is given) to its function, source file:line:column and the\n"
		   "functions inlined there, innermost first, as 'addr2line -f -i' does.\n\n"
		   "  -p, --pid PID      addresses in a running process (0: pmukit itself)\n"
		   "  -e, --exe FILE     addresses in FILE as linked (what addr2line -e takes)\n"
		   "      --base ADDR    FILE's first byte is loaded at ADDR (PE: the image base)\n"
		   "      --build-id HEX the identity a recording saw (ELF: the build-id; PE: the\n"
		   "                     PDB GUID as stored + Age, little-endian): a FILE that\n"
		   "                     differs is stale and gives module + offset only\n"
		   "  -s, --no-inline    one frame per address: the function owning the code\n"
		   "      --symbol-path PATH  where PE images' PDBs are searched (_NT_SYMBOL_PATH\n"
		   "                     syntax: DIR;srv*CACHE*SERVER;cache*DIR; network servers\n"
		   "                     are not contacted), then the image's recorded PDB path\n"
		   "                     and its directory; default $_NT_SYMBOL_PATH. PE images\n"
		   "                     are read through their PDB on every OS\n"
		   "  -j, --json         {\"addresses\": [{address, module, module_offset,\n"
		   "                     frames: [{function, file, line, column, symbol_offset,\n"
		   "                     inlined}], error}]}\n"
		   "  -h, --help         this text\n\n"
		   "Exit status: 0 when every address lies in a module, 1 otherwise, 2 on bad\n"
		   "usage.\n");
}

static void print_text(uint64_t addr, const struct pmu_frame *f, size_t n)
{
	const char *mod = n ? f[0].module : NULL;

	printf("0x%" PRIx64 " %s+0x%" PRIx64 "%s\n", addr, mod ? mod : "??",
	       n ? f[0].module_offset : 0, !n ? "" : f[0].flags & PMU_FRAME_STALE ?
	       " (stale: not the file the recording saw, no symbols)" :
	       f[0].flags & PMU_FRAME_NOFILE ? " (file unreadable, no symbols)" : "");
	for (size_t i = 0; i < n; i++) {
		if (!f[i].function && !f[i].file)
			continue;
		printf("  %s", f[i].function ? f[i].function : "??");
		if (f[i].function && f[i].symbol_offset)
			printf("+0x%" PRIx64, f[i].symbol_offset);
		printf(" at %s:%u", f[i].file ? f[i].file : "??", f[i].line);
		if (f[i].column)
			printf(":%u", f[i].column);
		printf("%s\n", f[i].flags & PMU_FRAME_INLINED ? " (inlined)" : "");
	}
}

static void print_json(struct pmuk_json *j, uint64_t addr, const struct pmu_frame *f,
		       size_t n, const char *error)
{
	pmuk_json_obj_begin(j, NULL);
	pmuk_json_uint(j, "address", addr);
	pmuk_json_str(j, "module", n ? f[0].module : NULL);
	if (n)
		pmuk_json_uint(j, "module_offset", f[0].module_offset);
	else
		pmuk_json_null(j, "module_offset");
	pmuk_json_bool(j, "stale", n && (f[0].flags & PMU_FRAME_STALE));
	pmuk_json_arr_begin(j, "frames");
	for (size_t i = 0; i < n; i++) {
		if (!f[i].function && !f[i].file)
			continue;
		pmuk_json_obj_begin(j, NULL);
		pmuk_json_str(j, "function", f[i].function);
		pmuk_json_str(j, "file", f[i].file);
		pmuk_json_uint(j, "line", f[i].line);
		pmuk_json_uint(j, "column", f[i].column);
		pmuk_json_uint(j, "symbol_offset", f[i].symbol_offset);
		pmuk_json_bool(j, "inlined", (f[i].flags & PMU_FRAME_INLINED) != 0);
		pmuk_json_obj_end(j);
	}
	pmuk_json_arr_end(j);
	pmuk_json_str(j, "error", error);
	pmuk_json_obj_end(j);
}

static int parse_hex_bytes(const char *s, uint8_t *out, uint8_t *n)
{
	size_t len = strlen(s);

	if (len % 2 || len == 0 || len > 40)
		return -1;
	for (size_t i = 0; i < len; i += 2) {
		char byte[3] = { s[i], s[i + 1], 0 };
		uint64_t v;

		if (pmuk_parse_u64(byte, 16, &v))
			return -1;
		out[i / 2] = (uint8_t)v;
	}
	*n = (uint8_t)(len / 2);
	return 0;
}

/* PE images carry PDB GUID+Age identities, the rest ELF build-ids. */
static int is_pe(const char *path)
{
	char magic[2] = { 0 };
	FILE *f = pmuk_fopen(path, "rb");

	if (f) {
		if (fread(magic, 1, 2, f) != 2)
			magic[0] = 0;
		fclose(f);
	}
	return magic[0] == 'M' && magic[1] == 'Z';
}

/* Hex, 0x optional; more than 64 bits is an error, not UINT64_MAX. */
static int parse_addr(const char *s, uint64_t *out)
{
	return pmuk_parse_u64(s, 16, out);
}

/* The next blank-separated word of f, as GNU addr2line's callers (and
 * llvm-symbolizer) write them: several per line, blanks anywhere. A word too
 * long for buf is kept whole in meaning: its start, marked by *cut. 0 at EOF. */
static int read_word(FILE *f, char *buf, size_t size, int *cut)
{
	size_t n = 0;
	int c;

	while ((c = getc(f)) != EOF && isspace(c))
		;
	*cut = 0;
	for (; c != EOF && !isspace(c); c = getc(f)) {
		if (n + 1 < size)
			buf[n++] = (char)c;
		else
			*cut = 1;
	}
	buf[n] = 0;
	return n > 0;
}

/* Resolves one address; 1 when it lies in no module. */
static int one(struct pmu_symbolizer *s, const char *arg, struct pmuk_json *j)
{
	struct pmu_frame f[MAX_FRAMES];
	uint64_t addr;
	size_t n = 0;
	int err;

	if (parse_addr(arg, &addr)) {
		fprintf(stderr, "pmukit addr2line: '%s' is not a hex address of at most 64 "
			"bits\n", arg);
		if (j)
			print_json(j, 0, f, 0, "not a hex address");
		return 1;
	}
	err = pmu_symbolizer_resolve(s, addr, f, MAX_FRAMES, &n);
	if (j)
		print_json(j, addr, f, n, err ? pmu_error_detail() : NULL);
	else if (err)
		printf("0x%" PRIx64 " ??: %s\n", addr, pmu_error_detail());
	else
		print_text(addr, f, n);
	return err != 0;
}

struct a2l_args {
	struct pmu_symbolizer_opts *o;
	const char *exe;
	uint64_t base;
	uint8_t id[20], idn;
	int pid, json;
};

static const struct option longopts[] = {
	{ "pid", required_argument, NULL, 'p' }, { "exe", required_argument, NULL, 'e' },
	{ "base", required_argument, NULL, 'b' }, { "no-inline", no_argument, NULL, 's' },
	{ "build-id", required_argument, NULL, 'B' },
	{ "symbol-path", required_argument, NULL, 'S' },
	{ "json", no_argument, NULL, 'j' }, { "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* One option with its value optarg; 0 to go on, else the exit status. */
static int take_option(int opt, char **argv, struct a2l_args *a)
{
	long v;

	switch (opt) {
	case 'p':
		if (pmuk_parse_long(optarg, 10, 0, INT_MAX, &v)) {
			fprintf(stderr, "pmukit addr2line: -p '%s' is not a process id "
				"(0 to %d)\n", optarg, INT_MAX);
			return 2;
		}
		a->pid = (int)v;
		return 0;
	case 'e':
		a->exe = optarg;
		return 0;
	case 'b':
		if (parse_addr(optarg, &a->base)) {
			fprintf(stderr, "pmukit addr2line: --base '%s' is not a hex address\n",
				optarg);
			return 2;
		}
		return 0;
	case 'B':
		if (parse_hex_bytes(optarg, a->id, &a->idn)) {
			fprintf(stderr, "pmukit addr2line: --build-id '%s' is not 1 to 20 hex "
				"bytes\n", optarg);
			return 2;
		}
		return 0;
	case 'S':
		a->o->symbol_path = optarg;
		return 0;
	case 's':
		a->o->no_inline = 1;
		return 0;
	case 'j':
		a->json = 1;
		return 0;
	default:
		tool_bad_option(argv, opt, longopts);
		usage(stderr);
		return 2;
	}
}

/* Options go before or after the addresses (getopt_long permutes); -1 to go on,
 * else the exit status. */
static int parse_args(int argc, char **argv, struct a2l_args *a)
{
	int opt, rc;

	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":p:e:sjh", longopts, NULL)) != -1) {
		if (opt == 'h') {
			usage(stdout);
			return 0;
		}
		if ((rc = take_option(opt, argv, a)))
			return rc;
	}
	if ((a->pid >= 0) == (a->exe != NULL)) {
		fprintf(stderr, "pmukit addr2line: give either -p PID or -e FILE\n");
		usage(stderr);
		return 2;
	}
	return -1;
}

/* -e FILE: the one module, loaded at --base; 0 or the exit status (after closing s).
 * A FILE that cannot be read is said, and each address then says it is unknown. */
static int add_exe(struct pmu_symbolizer *s, const struct a2l_args *a)
{
	PMU_OPTS(pmu_symbolizer_module, m, .path = a->exe, .start = a->base,
		 .build_id = a->id, .build_id_size = a->idn);
	int err;

	m.build_id_kind = a->idn && is_pe(a->exe);   /* PMU_BUILD_ID_PDB : _BYTES */

	err = pmu_symbolizer_add_module(s, &m);
	if (err == PMU_EINVAL || err == PMU_ENOMEM) {
		pmu_symbolizer_close(s);
		return tool_error("addr2line", a->exe, err);
	}
	if (err)
		fprintf(stderr, "pmukit addr2line: %s: %s\n", a->exe, pmu_error_detail());
	return 0;
}

/* The addresses of argv, or of stdin when there are none; 1 when one lies in no
 * module. */
static int resolve_all(struct pmu_symbolizer *s, int argc, char **argv, struct pmuk_json *j)
{
	char word[64];
	int bad = 0, cut;

	if (j) {
		pmuk_json_init(j, stdout, 1);
		pmuk_json_obj_begin(j, NULL);
		pmuk_json_arr_begin(j, "addresses");
	}
	if (argc > 0) {
		for (int i = 0; i < argc; i++)
			bad |= one(s, argv[i], j);
	} else {
		while (read_word(stdin, word, sizeof(word), &cut)) {
			if (cut)	/* no address is that long: say which word */
				strcpy(word + sizeof(word) - 4, "...");
			bad |= one(s, word, j);
		}
	}
	if (j) {
		pmuk_json_arr_end(j);
		pmuk_json_obj_end(j);
		pmuk_json_finish(j);
	}
	return bad;
}

int cmd_addr2line(int argc, char **argv)
{
	PMU_OPTS(pmu_symbolizer_opts, o);
	struct a2l_args a = { .o = &o, .pid = -1 };
	struct pmuk_json json;
	struct pmu_symbolizer *s;
	int err, bad;

	if ((err = parse_args(argc, argv, &a)) >= 0)
		return err;
	o.pid = a.pid > 0 ? a.pid : 0;
	o.offline = a.exe != NULL;
	if ((err = pmu_symbolizer_open(&o, &s)))
		return tool_error("addr2line", a.exe ? "opening a symbolizer" :
				  "reading the process's modules", err);
	if (a.exe && (err = add_exe(s, &a)))
		return err;
	bad = resolve_all(s, argc - optind, argv + optind, a.json ? &json : NULL);
	pmu_symbolizer_close(s);
	if (fflush(stdout))
		return tool_error("addr2line", "writing the output", PMU_EIO);
	return bad;
}
