/* SPDX-License-Identifier: MIT */
/* linux/dw_symtab.h: the sorted tables that stand in for dwfl_module_addrinfo's
 * linear search. Checked against libdwfl itself on the modules of this very
 * process (the test binary, libc, libdw, libelf, cmocka, ...): at 4,000
 * addresses across each, wherever pmuk_symtab_label claims to know the answer
 * it must be libdwfl's, name and offset. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#ifdef PMUKIT_HAVE_DW
#include "linux/dw_symtab.h"

struct sweep {
	struct pmuk_symtabs tabs;
	size_t compared, labels, modules;
};

static int each_module(Dwfl_Module *dm, void **user, const char *name, Dwarf_Addr lo,
		       void *arg)
{
	struct sweep *s = arg;
	Dwarf_Addr hi;

	(void)user;
	(void)name;
	dwfl_module_info(dm, NULL, NULL, &hi, NULL, NULL, NULL, NULL);
	if (dwfl_module_getsymtab(dm) <= 0 || hi <= lo)
		return DWARF_CB_OK;
	s->modules++;
	for (Dwarf_Addr a = lo; a < hi; a += (hi - lo) / 4000 + 1) {
		GElf_Off off = 0, off2 = 0;
		GElf_Sym sym;
		int none, known;
		if (pmuk_symtab_find(&s->tabs, dm, a, &off, &none) || none)
			continue;	/* a sized function holds it, or nothing can */
		const char *ours = pmuk_symtab_label(&s->tabs, dm, a, &off, &known);
		if (!known)
			continue;
		const char *theirs = dwfl_module_addrinfo(dm, a, &off2, &sym, NULL, NULL, NULL);
		s->compared++;
		s->labels += ours != NULL;
		if (!ours != !theirs || (ours && (strcmp(ours, theirs) || off != off2)))
			fail_msg("%s at 0x%llx: table says %s+0x%llx, libdwfl %s+0x%llx", name,
				 (unsigned long long)a, ours ? ours : "(none)",
				 (unsigned long long)off, theirs ? theirs : "(none)",
				 (unsigned long long)off2);
	}
	return DWARF_CB_OK;
}

static void test_label_as_libdwfl(void **state)
{
	static char *debuginfo_path;
	Dwfl_Callbacks cb = { .find_elf = dwfl_linux_proc_find_elf,
			      .find_debuginfo = dwfl_standard_find_debuginfo,
			      .debuginfo_path = &debuginfo_path };
	struct sweep s = { 0 };
	Dwfl *dwfl = dwfl_begin(&cb);

	(void)state;
	assert_non_null(dwfl);
	dwfl_report_begin(dwfl);
	assert_int_equal(dwfl_linux_proc_report(dwfl, getpid()), 0);
	assert_int_equal(dwfl_report_end(dwfl, NULL, NULL), 0);
	assert_int_equal(dwfl_getmodules(dwfl, each_module, &s, 0), 0);
	print_message("%zu modules, %zu addresses answered by the table (%zu with a label)\n",
		      s.modules, s.compared, s.labels);
	/* the libraries' gaps between sized functions (PLT, startup code, labels
	 * of assembly) are common: a sweep that answers none tests nothing */
	assert_true(s.modules >= 3);
	assert_true(s.compared >= 100);
	pmuk_symtabs_clear(&s.tabs);
	dwfl_end(dwfl);
}
#endif

int main(void)
{
#ifdef PMUKIT_HAVE_DW
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_label_as_libdwfl),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
#else
	printf("skipped: built without libdw (elfutils)\n");
	return 77;
#endif
}
