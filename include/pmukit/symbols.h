/* SPDX-License-Identifier: MIT */
#ifndef PMUKIT_SYMBOLS_H
#define PMUKIT_SYMBOLS_H

/* Concern 4: code-space decode. Module identity: on Windows the build-id analog is
 * the PDB GUID + Age of the CodeView RSDS record in a PE image's debug directory;
 * a symbol server stores the PDB under <pdb name>/<GUID><Age>/<pdb name>. */

#include <pmukit/opts.h>
#include <pmukit/guid.h>
#include <pmukit/sampling.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Frozen (pmukit/opts.h): never changes size; a field more is a new struct. */
struct pmu_module_id {
	struct pmu_guid guid;  /* the PDB's; pmu_guid_format spells it */
	uint32_t age;
	char pdb[260];         /* PDB path as the linker wrote it (UTF-8), truncated to fit */
};

/* Reads the RSDS record of a PE/COFF image (PE32 or PE32+) laid out as a file.
 * PMU_ENOENT when the image has no CodeView RSDS entry, PMU_EFORMAT when it is
 * corrupt or not a PE image (the detail says what and where). */
int pmu_module_id_from_pe(const void *image, size_t len, struct pmu_module_id *out);
int pmu_module_id_from_pe_file(const char *path, struct pmu_module_id *out);

/* The symbol-server key: the GUID's 32 hex digits without dashes, then Age in hex
 * ("1B4E28BA2FA111D2883F0016D3CCA4271"); size >= 41. */
int pmu_module_id_symstore_key(const struct pmu_module_id *id, char *buf, size_t size);

/* The symbolizer: addresses -> function, source file:line:column and the chain of
 * inlined calls, for a live process (pid, 0 = this process) or offline, from the
 * module maps of a recording (a perf.data MMAP record, an .etl image load).
 * Linux reads ELF/DWARF with elfutils libdwfl; Windows uses DbgHelp. One thread at a
 * time per symbolizer (DbgHelp is single-threaded for the whole process). On Linux a
 * recording-mode symbolizer reads ahead on threads of its own (each image's debug
 * information from its first mapping on; when opts.trace says which images got
 * samples, those and the ones with a debug file installed; none when
 * DEBUGINFOD_URLS is set;
 * /proc/kallsyms from the first kernel mapping on; every signal blocked); a lookup
 * waits for what it needs, pmu_symbolizer_close() for the reads under way (those
 * not begun are dropped).
 * A child of fork() must not use nor close a recording-mode symbolizer opened
 * before the fork (its threads are not in the child): exec or _exit. */

struct pmu_symbolizer;
struct pmu_trace;

struct pmu_symbolizer_opts {
	size_t sz;             /* sizeof(struct pmu_symbolizer_opts) */
	int pid;               /* live: whose modules (0: this process); offline: ignored */
	int offline;           /* modules come only from pmu_symbolizer_add_module() */
	int no_inline;         /* one frame per address: the function the code belongs to */
	/* Where separate debug files and PDBs are searched (Linux: a debuginfo path
	 * like "-/usr/lib/debug:.debug", Windows: a symbol path); NULL: the default. */
	const char *debug_path;
	int no_demangle;       /* keep C++ and Rust names as the linker spelled them */
	/* Recording mode: perf's build-id cache, searched as DIR/.build-id/xx/rest/elf
	 * when a module's recorded file is missing or rebuilt; NULL: $HOME/.debug. */
	const char *buildid_dir;
	/* Recording mode: a recorded file /a/b is looked for as SYMFS/a/b first (perf
	 * report --symfs: the recording's root file system copied or mounted here);
	 * NULL: where the recording says. */
	const char *symfs;
	/* PE modules, on every OS: where their PDBs are searched, in _NT_SYMBOL_PATH
	 * syntax (directories, symbol stores name.pdb/GUIDAGE/name.pdb, srv*DIR*... and
	 * cache*DIR entries: their local directories; network servers are not
	 * contacted), then the PDB path the image records, then the image's directory.
	 * NULL: $_NT_SYMBOL_PATH. A PDB whose GUID+Age is not the image's is refused. */
	const char *symbol_path;
	/* Frames without source positions (file NULL, line and column 0; functions
	 * and inlined calls as always): the line tables are not read, which is most
	 * of the cost of naming code with DWARF. For callers that show no lines. */
	int no_lines;
	/* Recording mode: the recording the mappings come from (pmukit/trace.h). When
	 * it lists the modules that got samples (perf.data's build-id table, file
	 * mode: pmu_trace_build_id), only the images it lists (path and build-id)
	 * have their debug information read ahead, and those with a separate debug
	 * file installed (in DIR/.build-id for each DIR of debug_path, by default
	 * /usr/lib/debug, not under symfs: costly to read late when a call chain
	 * asks for them); the others are read when first asked for, with the same
	 * result. The list is copied now: the recording may close
	 * first. NULL, a recording without the list (pipe mode, .etl) or one with
	 * user stacks to unwind (--call-graph dwarf: unwinding asks for images no
	 * sample lies in): every image is read ahead. */
	const struct pmu_trace *trace;
};
#define pmu_symbolizer_opts__last_field trace /* see pmukit/opts.h */

/* A module of an offline symbolizer: a mapping of a file, as a recording saw it. */
struct pmu_symbolizer_module {
	size_t sz;             /* sizeof(struct pmu_symbolizer_module) */
	const char *path;      /* the file as mapped; it is read now */
	uint64_t start;        /* first mapped address */
	uint64_t len;          /* mapping length; 0: the whole image, its first byte at
				* start, or where it was linked when start is 0 (the
				* addresses addr2line -e takes) */
	uint64_t pgoff;        /* file offset mapped at start (0 for a whole image) */
	/* The identity the recording saw (sampling.h struct pmu_mmap: build_id,
	 * build_id_size, build_id_kind); size 0: do not check. */
	const uint8_t *build_id;
	uint8_t build_id_size;
	uint8_t build_id_kind; /* enum pmu_build_id_kind */
};
#define pmu_symbolizer_module__last_field build_id_kind /* see pmukit/opts.h */

enum pmu_frame_flags {
	PMU_FRAME_INLINED = 1, /* inlined into the next frame, which holds its call site */
	PMU_FRAME_STALE = 2,   /* the module's file is not the one recorded: no symbols */
	PMU_FRAME_NOFILE = 4,  /* the module's file is missing or unreadable: no symbols */
};

/* Frozen (pmukit/opts.h): never changes size; a field more is a new struct. */
/* One frame; the strings stay valid until pmu_symbolizer_close(). */
struct pmu_frame {
	const char *function;  /* NULL when unknown */
	const char *file;      /* source file; NULL when unknown */
	unsigned line;         /* 0 when unknown */
	unsigned column;       /* 0 when unknown */
	const char *module;    /* path of the module holding the address */
	uint64_t module_offset;/* the address as the file sees it (ELF: link-time address,
				* what addr2line -e takes; PE: the RVA) */
	uint64_t symbol_offset;/* address - start of the function (or inlined instance) */
	unsigned flags;        /* enum pmu_frame_flags */
};

int pmu_symbolizer_open(const struct pmu_symbolizer_opts *opts, struct pmu_symbolizer **out);

/* Offline symbolizers: registers a module mapping. The module is registered in every
 * case except PMU_EINVAL/PMU_ENOMEM; the other failures say why its addresses
 * resolve to module + offset only: PMU_ENOENT (file missing or unreadable),
 * PMU_EFORMAT (stale: the file's build-id or PDB GUID+Age is not the recorded one,
 * its PDB's GUID+Age is not the image's, or the file is no image this OS reads),
 * PMU_ENOTSUP (an ELF file on Windows). A PE image is read through its PDB on every
 * OS (opts.symbol_path); one not on disk whose PDB identity was recorded
 * (build_id_kind PMU_BUILD_ID_PDB) through the PDB that identity names, placed as
 * mapped. Mappings of one file at one load address are merged. */
int pmu_symbolizer_add_module(struct pmu_symbolizer *s, const struct pmu_symbolizer_module *m);

/* Resolves addr into frames[0..*n), innermost first: the inlined functions, each
 * with its own source position, then the function they were inlined into (frames
 * before the last carry PMU_FRAME_INLINED). Frames past max are dropped (the
 * outermost function is always kept). PMU_ENOENT when no module holds the address
 * (*n = 0); an address in a module without symbols gives one frame with function
 * NULL and the module offset. */
int pmu_symbolizer_resolve(struct pmu_symbolizer *s, uint64_t addr, struct pmu_frame *frames,
			   size_t max, size_t *n);

/* Recordings: many processes at once (an offline symbolizer). Modules come from
 * the recording's MMAP records (pmukit/sampling.h), each in its process; pid -1
 * (the kernel and its modules) is mapped in every process. A mapping laid over an
 * older one of the same process replaces that part of it. Each distinct file
 * (path + build-id) is read once, whatever the number of processes mapping it:
 * the file at its path when its build-id is the recorded one (or none was
 * recorded), else buildid_dir/.build-id/xx/rest/elf, else
 * /usr/lib/debug/.build-id/xx/rest.debug. Kernel mappings ("[kernel.kallsyms]",
 * "[module]", a .ko path) are named through /proc/kallsyms when the running
 * kernel's build-id is the recorded one, else (the kernel itself) through the
 * copy in buildid_dir/[kernel.kallsyms]/ID/kallsyms (perf's build-id cache); the
 * file is read from the first kernel mapping on (the first kernel address resolved
 * waits for it). "[vdso]" is read from
 * buildid_dir/.build-id/xx/rest/vdso (perf's copy), else from this process's
 * own vDSO when its build-id is the recorded one (or none was recorded); PLT
 * stubs are named "name@plt" as perf names them. PE images (build-id kind
 * PMU_BUILD_ID_PDB: an .etl's image loads) are named through the PDB their recorded
 * GUID+Age and PDB path (pmu_mmap.debug_path) name, found along opts.symbol_path,
 * whether or not the image is on disk; without it their frames carry
 * PMU_FRAME_NOFILE (PMU_ENOENT). Anonymous executable memory (//anon,
 * [anon:...], /memfd:...) and addresses in no mapping are named through
 * /tmp/perf-PID.map when it exists (JIT compilers write it).
 * The mapping is registered in every case except PMU_EINVAL/PMU_ENOMEM; the first
 * mapping of a file without symbols says why once: PMU_ENOENT (missing, or
 * kallsyms hides its addresses), PMU_EFORMAT (stale: another build-id), and its
 * frames carry PMU_FRAME_NOFILE or PMU_FRAME_STALE. Records other than MMAP are
 * PMU_EINVAL. */
int pmu_symbolizer_add_mmap(struct pmu_symbolizer *s, const struct pmu_record *mmap);
/* A FORK record of the recording: a new process starts with a copy of its
 * parent's mappings (until it execs, its frames are the parent's code); a new
 * thread shares its process's. Records other than FORK are PMU_EINVAL. */
int pmu_symbolizer_add_fork(struct pmu_symbolizer *s, const struct pmu_record *fork);
/* A SYMBOL record of the recording (code it names itself: .NET JIT methods):
 * from now on addresses of [start, start + len) in process pid resolve to that
 * function and module, before any mapping (a newer range replaces what it
 * overlaps); name NULL removes the range. A process given one never reads this
 * machine's /tmp/perf-PID.map. Records other than SYMBOL are PMU_EINVAL. */
int pmu_symbolizer_add_symbol(struct pmu_symbolizer *s, const struct pmu_record *sym);
/* pmu_symbolizer_resolve in the address space of process pid, naming frames as
 * perf report does: the function holding the code by the symbol table (perf's
 * choice among aliases at one address: global over local over weak, fewer
 * leading underscores, the longer name; "read", not DWARF's "__GI___libc_read")
 * where a symbol holds it, C++ and Rust names without parameters ("ns::f");
 * inlined calls and source positions from DWARF. PMU_ENOENT when no mapping of pid or of the
 * kernel, and no perf-PID.map entry, holds addr. */
int pmu_symbolizer_resolve_pid(struct pmu_symbolizer *s, int32_t pid, uint64_t addr,
			       struct pmu_frame *frames, size_t max, size_t *n);
/* DWARF unwinding (Linux: elfutils) of a sample that carries user registers and
 * a copy of the user stack (PMU_HAS_REGS_USER, PMU_HAS_STACK_USER), through the
 * modules of its process (its MMAP records): return addresses, innermost first
 * (the sampled ip first), into ips[0..*n); resolve ips[i] - 1 for i > 0 to name
 * the call rather than what follows it. x86_64 and arm64 samples (by the modules'
 * ELF machine); PMU_ENOTSUP on other arches and on Windows; PMU_EINVAL for a
 * sample without PMU_HAS_REGS_USER and PMU_HAS_STACK_USER. */
int pmu_symbolizer_unwind(struct pmu_symbolizer *s, const struct pmu_record *sample,
			  uint64_t *ips, size_t max, size_t *n);

void pmu_symbolizer_close(struct pmu_symbolizer *s);

#ifdef __cplusplus
}
#endif
#endif
