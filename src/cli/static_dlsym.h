/*
 * Symbol lookup for the statically linked bmk-x64 (`make static`).
 *
 * LuaJIT resolves ffi.C.name with dlsym(RTLD_DEFAULT, "name"), which
 * finds nothing in a static executable. The static link wraps dlsym
 * (ld --wrap=dlsym): RTLD_DEFAULT lookups are answered from a table of
 * every global symbol of libbmkcore.a plus a fixed list of C library
 * functions (build-aux/symtab.sh); other handles (ffi.load) go to the
 * real dlsym.
 */
#ifndef STATIC_DLSYM_H
#define STATIC_DLSYM_H

typedef struct {
  const char *name;
  void *addr;
} static_sym_t;

/* Sorted by strcmp(name) (generated: static_symtab.c). */
extern const static_sym_t static_syms[];
extern const unsigned static_nsyms;

/* The dlsym every reference in the static link resolves to: see above.
   Thread-safe (read-only table). */
void *__wrap_dlsym(void *handle, const char *name);

#endif
