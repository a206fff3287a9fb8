/* SPDX-License-Identifier: MIT */
/* For smoke_symbols.sh: prints its pid, its load base, its preferred ImageBase and
 * the addresses of known code: sym_outer(), and a return address inside sym_inner()
 * inlined into sym_middle() inlined into sym_outer() (tests/unit/sym_fixture.h), then
 * waits until the file named by argv[1] exists (at most argv[2] seconds) so that
 * `pmukit.exe addr2line -p PID` can read it live. */
#include <windows.h>
#include <fcntl.h>
#include <io.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "../unit/sym_fixture.h"

static volatile uintptr_t probe_ra;

__attribute__((noinline)) void sym_probe(void)
{
	probe_ra = (uintptr_t)__builtin_return_address(0);
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) int sym_outer(int x)
{
	return sym_middle(x) * 2; /* SYM-OUTER-CALL */
}

int main(int argc, char **argv)
{
	const unsigned char *base = (const unsigned char *)GetModuleHandleW(NULL);
	const IMAGE_NT_HEADERS *nt = (const IMAGE_NT_HEADERS *)(base +
					((const IMAGE_DOS_HEADER *)base)->e_lfanew);
	int waited = 0, limit = argc > 2 ? atoi(argv[2]) * 20 : 200;

	_setmode(_fileno(stdout), _O_BINARY);   /* \n, not \r\n: the shell reads it */
	sym_outer(1);
	printf("pid %lu\nbase 0x%llx\nimagebase 0x%llx\nsym_outer 0x%llx\nprobe 0x%llx\n",
	       (unsigned long)GetCurrentProcessId(), (unsigned long long)(uintptr_t)base,
	       (unsigned long long)nt->OptionalHeader.ImageBase,
	       (unsigned long long)(uintptr_t)&sym_outer,
	       (unsigned long long)(probe_ra - 1));
	printf("ready\n");
	fflush(stdout);
	while (argc > 1 && GetFileAttributesA(argv[1]) == INVALID_FILE_ATTRIBUTES &&
	       waited++ < limit)
		Sleep(50);
	return 0;
}
