/* Symbols of an ELF file, chosen and trimmed as GNU gprof chooses them, and the ELF build-id. */
#ifndef SPINPROF_SYMTAB_H
#define SPINPROF_SYMTAB_H

#include <stddef.h>
#include <stdint.h>

struct symtab_sym {
	uint64_t addr, end; /* file addresses, [addr, end) */
	uint64_t sec_end;   /* the end of its section, 0 if unknown: gprof's ranges run past it (_init's
			     * over .plt), spy's sampled PCs do not */
	char *name;
	unsigned is_static : 1, is_func : 1, in_code : 1; /* in_code: its section is executable */
	unsigned mapped : 1; /* -R: named after its object file (the map's first function of it) */
	uint32_t order;      /* its index in the ELF symbol table (line symbols: after all of them) */
	uint32_t file_no;    /* a local symbol's STT_FILE group (its source file), UINT32_MAX global */
	uint32_t owner;      /* with all_funcs, a split part (NAME.cold): the index + 1 of the function
			      * it belongs to; else 0 */
};

struct symtab {
	struct symtab_sym *items;
	size_t nr, alloc;
	uint64_t text_lo, text_hi; /* the .text section */
	uint8_t build_id[64];
	uint32_t build_id_len;
	void *bfd;   /* opened on first symtab_src() */
	void *bsyms; /* its symbols */
	int bfd_failed;
	char *path;
	int no_static, only_funcs; /* set before symtab_load: gprof's -a and -D */
	int all_funcs; /* set before symtab_load: every function symbol, GCC's clones (.part.N, .isra.N,
			* .cold) too, which gprof's filter drops; a .cold part gets its owner (spy) */
	int want_text; /* set before symtab_load: keep the .text section's bytes */
	const char *ext_syms;      /* set before symtab_load: gprof's -S, the symbols from this file */
	const struct linkmap *map; /* set before symtab_load: gprof's -R, functions named by object */
	uint8_t *text;             /* then [text_lo, text_hi)'s bytes, or NULL */
};

/* 1 when path is a readable ELF file, 0 otherwise. */
int symtab_is_elf(const char *path);
/* Read path's symbol table as gprof's core_create_function_syms and symtab_finalize do
 * (sorted by address, duplicates folded). Returns 0, or -1 with the reason in err. */
int symtab_load(struct symtab *t, const char *path, char *err, size_t errsz);
struct gmon_module;
/* Read the binary of a profile's module when it is there and is the one that ran (its build-id, if
 * the profile has one, matches), with all_funcs: a spy profile's functions are the plugin's, clones
 * included. Returns 0, or -1 (t then holds nothing to use). */
int symtab_load_module(struct symtab *t, const struct gmon_module *m);
/* Only the build-id (t->build_id). Returns 0 or -1. */
int symtab_load_build_id(struct symtab *t, const char *path);
/* Free what t owns. */
void symtab_release(struct symtab *t);
/* The symbol whose range holds file address fa and whose section holds it too (a PC past a
 * symbol's section, a PLT entry after _init's .init, is in none of its code), or NULL. */
const struct symtab_sym *symtab_at(const struct symtab *t, uint64_t fa);
/* The function y's code belongs to: its owner for a split .cold part (all_funcs), else y. */
const struct symtab_sym *symtab_owner(const struct symtab *t, const struct symtab_sym *y);
/* Source file and line of a file address via libbfd; 0 when known. */
int symtab_src(struct symtab *t, uint64_t addr, const char **file, unsigned *line);
/* Add gprof's line symbols (-l): one wherever the source line changes in .text. Returns 0 or -1. */
int symtab_add_lines(struct symtab *t);
/* A malloc()ed demangled name, or NULL when name is not mangled. */
char *symtab_demangle(const char *name);

#endif
