/* Names for any address of any module through elfutils' libdwfl: the module's .symtab and .dynsym,
 * its separate debug file found by build-id or debuglink (/usr/lib/debug; debuginfod only where
 * DEBUGINFOD_URLS configures it, as elfutils does), and the inlined functions at an address. */
#ifndef SPINPROF_MODSYM_H
#define SPINPROF_MODSYM_H

#include <stddef.h>
#include <stdint.h>

struct modsym;

/* Open the ELF file path for lookups by file address; when build_id_len is not 0 the file must
 * carry that build-id. NULL when it cannot be read or is not the one that ran. */
struct modsym *modsym_open(const char *path, const uint8_t *build_id, uint32_t build_id_len);
/* Close s (NULL is fine). */
void modsym_close(struct modsym *s);
/* The name of the function holding file address a (owned by s) and its start in *start; NULL
 * when no symbol holds it. */
const char *modsym_func(struct modsym *s, uint64_t a, uint64_t *start);
/* The source file and line of file address a from the debug information; 0 when known. */
int modsym_src(struct modsym *s, uint64_t a, const char **file, unsigned *line);
/* The innermost function inlined at file address a, and the file and line it was inlined at;
 * 0 when a is in inlined code. */
int modsym_inline(struct modsym *s, uint64_t a, const char **name, const char **file, unsigned *line);

#endif
