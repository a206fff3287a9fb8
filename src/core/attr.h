/* SPDX-License-Identifier: MIT */
#ifndef PMUK_CORE_ATTR_H
#define PMUK_CORE_ATTR_H

/* printf-style format checking. mingw-w64's GCC takes "printf" to mean the MSVCRT
 * dialect (no %zu); the Windows build uses the C99 printf of mingw-w64
 * (__USE_MINGW_ANSI_STDIO), which GCC calls gnu_printf. */
#if defined(__MINGW32__) && !defined(__clang__)
#define PMUK_PRINTF(fmt, args) __attribute__((format(gnu_printf, fmt, args)))
#else
#define PMUK_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#endif

#endif
