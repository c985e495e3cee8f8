/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * The addresses of functions named in the process: the ELF symbol tables
 * (.symtab, else .dynsym) of the objects loaded when called, read from
 * their files. Normal context only (opens and maps files).
 */
#ifndef UST_FUNC_SYMBOLS_H
#define UST_FUNC_SYMBOLS_H

#include <stddef.h>
#include <stdint.h>

/* Calls found(addr, arg) for every function named name in a loaded
 * object; returns how many were found. */
size_t ust_func_symbols_find(const char *name, void (*found)(uintptr_t addr, void *arg),
			     void *arg);

#endif
