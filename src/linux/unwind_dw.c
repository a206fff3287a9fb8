/* SPDX-License-Identifier: MIT */
/* DWARF unwinding of recorded samples (--call-graph dwarf) with elfutils' unwinder:
 * each process gets a Dwfl holding its file mappings at their recorded addresses,
 * attached once with callbacks that read the current sample: its user registers
 * (perf_regs numbering, mapped to DWARF's) start the walk, its copy of the user
 * stack answers stack reads, and the module files answer reads of their data. */
#include "core/symbols_int.h"
#include "core/error.h"

#include <stdlib.h>

#ifdef PMUKIT_HAVE_DW

#include <elf.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <string.h>

struct unwinder {
	Dwfl *dwfl;
	int machine;                /* EM_X86_64, EM_AARCH64 */
	const struct pmu_record *r; /* the sample being unwound */
	uint64_t sp;
	uint64_t *ips;
	size_t max, n;
};

/* perf_regs index of each DWARF register, the pc last. */
static const int x86_64_regs[17] = { 0, 3, 2, 1, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23, 8 };

/* The sample's value of perf register i; 0 when it was not recorded. */
static int user_reg(const struct pmu_sample_ext *x, int i, uint64_t *v)
{
	uint64_t below;

	if (i >= 64 || !(x->regs_mask >> i & 1))
		return 0;
	below = i ? x->regs_mask & ((1ull << i) - 1) : 0;
	if ((uint32_t)__builtin_popcountll(below) >= x->nr_regs)
		return 0;
	*v = x->regs[__builtin_popcountll(below)];
	return 1;
}

static pid_t next_thread(Dwfl *dwfl, void *arg, void **thread_arg)
{
	struct unwinder *u = arg;

	(void)dwfl;
	if (*thread_arg)
		return 0;
	*thread_arg = u;
	return u->r->tid > 0 ? u->r->tid : 1;
}

static bool get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_arg)
{
	(void)dwfl;
	(void)tid;
	*thread_arg = arg;
	return true;
}

/* A word of a module's file (its read-only data, e.g. a jump table). */
static bool file_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *out)
{
	Dwfl_Module *dm = dwfl_addrmodule(dwfl, addr);
	Dwarf_Addr bias;
	GElf_Phdr ph;
	size_t nph;
	Elf *elf;

	if (!dm || !(elf = dwfl_module_getelf(dm, &bias)) || elf_getphdrnum(elf, &nph))
		return false;
	addr -= bias;
	for (size_t i = 0; i < nph; i++) {
		Elf_Data *d;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD ||
		    addr < ph.p_vaddr || addr + 8 > ph.p_vaddr + ph.p_filesz)
			continue;
		d = elf_getdata_rawchunk(elf, (int64_t)(ph.p_offset + addr - ph.p_vaddr), 8,
					 ELF_T_BYTE);
		if (!d)
			return false;
		memcpy(out, d->d_buf, 8);
		return true;
	}
	return false;
}

static bool memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *out, void *arg)
{
	struct unwinder *u = arg;
	const struct pmu_sample_ext *x = u->r->sample.ext;

	if (addr >= u->sp && addr - u->sp <= x->stack_size && x->stack_size - (addr - u->sp) >= 8) {
		memcpy(out, x->stack + (addr - u->sp), 8);
		return true;
	}
	return file_read(dwfl, addr, out);
}

static bool set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	struct unwinder *u = arg;
	const struct pmu_sample_ext *x = u->r->sample.ext;
	Dwarf_Word v;
	uint64_t pc;

	if (u->machine == EM_X86_64) {
		for (int i = 0; i < 16; i++)
			if (user_reg(x, x86_64_regs[i], &v) && !dwfl_thread_state_registers(thread, i, 1, &v))
				return false;
		if (!user_reg(x, 8, &pc))
			return false;
	} else {
		for (int i = 0; i < 32; i++)
			if (user_reg(x, i, &v) && !dwfl_thread_state_registers(thread, i, 1, &v))
				return false;
		if (!user_reg(x, 32, &pc))
			return false;
	}
	dwfl_thread_state_register_pc(thread, pc);
	return true;
}

static const Dwfl_Thread_Callbacks callbacks = {
	.next_thread = next_thread,
	.get_thread = get_thread,
	.memory_read = memory_read,
	.set_initial_registers = set_initial_registers,
};

static int frame_cb(Dwfl_Frame *state, void *arg)
{
	struct unwinder *u = arg;
	Dwarf_Addr pc;
	bool activation;

	if (!dwfl_frame_pc(state, &pc, &activation) || !pc)
		return DWARF_CB_ABORT;
	if (u->n && u->ips[u->n - 1] == pc && activation)
		return DWARF_CB_ABORT;   /* no progress */
	u->ips[u->n++] = pc;
	return u->n < u->max ? DWARF_CB_OK : DWARF_CB_ABORT;
}

/* The file mappings of p as a Dwfl, attached to the callbacks. */
static int build(struct pmu_symbolizer *s, struct pmuk_sym_proc *p, struct unwinder *u)
{
	static const Dwfl_Callbacks cb = {
		.find_elf = dwfl_build_id_find_elf,
		.find_debuginfo = dwfl_standard_find_debuginfo,
		.section_address = dwfl_offline_section_address,
	};
	GElf_Ehdr eh;
	Dwarf_Addr bias;
	Elf *elf = NULL;

	if (!(u->dwfl = dwfl_begin(&cb)))
		return pmuk_fail(PMU_ENOMEM, "libdwfl: %s", dwfl_errmsg(-1));
	dwfl_report_begin(u->dwfl);
	for (size_t i = 0; i < p->nmaps; i++) {
		const struct pmuk_sym_map *m = &p->maps[i];
		const struct pmuk_sym_image *img = &s->imgs[m->img];
		Dwfl_Module *dm;
		size_t j;

		if (img->kind != PMUK_SYM_FILE || img->state || !img->file)
			continue;
		for (j = 0; j < i && !(p->maps[j].img == m->img && p->maps[j].bias == m->bias); j++)
			;
		if (j < i)
			continue;   /* another mapping of the same load */
		dm = dwfl_report_elf(u->dwfl, img->path, img->file, -1, m->bias, true);
		if (dm && !elf)
			elf = dwfl_module_getelf(dm, &bias);
	}
	dwfl_report_end(u->dwfl, NULL, NULL);
	if (!elf || !gelf_getehdr(elf, &eh))
		return pmuk_fail(PMU_ENOENT, "process %d maps no readable ELF file: nothing to "
				 "unwind with", (int)p->pid);
	u->machine = eh.e_machine;
	if (u->machine != EM_X86_64 && u->machine != EM_AARCH64)
		return pmuk_fail(PMU_ENOTSUP, "DWARF unwinding of recorded samples knows the "
				 "registers of x86_64 and arm64 only (ELF machine %d)", u->machine);
	if (!dwfl_attach_state(u->dwfl, elf, p->pid > 0 ? p->pid : 1, &callbacks, u))
		return pmuk_fail(PMU_EIO, "libdwfl cannot unwind process %d: %s", (int)p->pid,
				 dwfl_errmsg(-1));
	return 0;
}

void pmuk_sym_backend_unwind_free(struct pmu_symbolizer *s, struct pmuk_sym_proc *p)
{
	struct unwinder *u = p->unwind;

	(void)s;
	if (!u)
		return;
	if (u->dwfl)
		dwfl_end(u->dwfl);
	free(u);
	p->unwind = NULL;
}

int pmuk_sym_backend_unwind(struct pmu_symbolizer *s, struct pmuk_sym_proc *p,
			    const struct pmu_record *r, uint64_t *ips, size_t max, size_t *n)
{
	struct unwinder *u;
	int err;

	if (p->unwind_stale)
		pmuk_sym_backend_unwind_free(s, p);
	p->unwind_stale = 0;
	if (!(u = p->unwind)) {
		if (!(u = calloc(1, sizeof(*u))))
			return pmuk_fail(PMU_ENOMEM, "out of memory unwinding");
		p->unwind = u;
		if ((err = build(s, p, u))) {
			dwfl_end(u->dwfl);
			u->dwfl = NULL;
			return err;
		}
	}
	if (!u->dwfl)
		return pmuk_fail(PMU_ENOTSUP, "process %d cannot be unwound (said when its first "
				 "sample was)", (int)p->pid);
	*u = (struct unwinder){ .dwfl = u->dwfl, .machine = u->machine, .r = r, .ips = ips,
				.max = max };
	if (!user_reg(r->sample.ext, u->machine == EM_X86_64 ? 7 : 31, &u->sp))
		return pmuk_fail(PMU_EINVAL, "the sample's user registers lack the stack pointer");
	/* An error at the end of the stack is how some walks end: keep what came. */
	dwfl_getthread_frames(u->dwfl, r->tid > 0 ? r->tid : 1, frame_cb, u);
	*n = u->n;
	if (!u->n)
		return pmuk_fail(PMU_EFORMAT, "the sample's registers give no instruction "
				 "pointer to start from");
	return 0;
}

#else /* !PMUKIT_HAVE_DW */

void pmuk_sym_backend_unwind_free(struct pmu_symbolizer *s, struct pmuk_sym_proc *p)
{
	(void)s;
	(void)p;
}

int pmuk_sym_backend_unwind(struct pmu_symbolizer *s, struct pmuk_sym_proc *p,
			    const struct pmu_record *r, uint64_t *ips, size_t max, size_t *n)
{
	(void)s;
	(void)p;
	(void)r;
	(void)ips;
	(void)max;
	(void)n;
	return pmuk_fail(PMU_ENOTSUP, "this pmukit was built without elfutils libdw, so it "
			 "cannot unwind: rebuild with libdw-dev installed");
}

#endif
