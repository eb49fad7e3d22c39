/* ELF symbols through libelf, picked as GNU gprof picks its function symbols (so that GNU-mode
 * reports number and name the same functions), source lines and demangling through libbfd. */
#define PACKAGE "spinprof"
#define PACKAGE_VERSION "0.1"
#define _GNU_SOURCE /* qsort_r */
#include <bfd.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "linkmap.h"
#include "prof.h"
#include "sorted.h"
#include "symtab.h"

int symtab_is_elf(const char *path)
{
	char magic[4], err[128];
	int fd = gmon_open_regular(path, err, sizeof(err));
	if (fd < 0)
		return 0;
	ssize_t n = read(fd, magic, 4);
	close(fd);
	return n == 4 && memcmp(magic, "\177ELF", 4) == 0;
}

/*
 * gprof's core_sym_class for a local symbol's name: no '$'; a '.' only as clone or nested function
 * suffixes made of digits (".clone.N", ".constprop.N", ".N"). And as gprof reads it (binutils 2.40):
 * a name that ends in such a suffix is not where its scan stops, which steps over the name's NUL and
 * goes on into the next string of the string table, so that do_slabs_free_chunked.constprop.0 is
 * dropped when memory_release.part.0 follows it there (memcached 1.6.18 built with -pg) while
 * server_socket.constprop.0, followed by listen_conn, is kept. The scan here does the same up to
 * end, the end of the string table, where gprof reads on past the table; there it stops.
 */
static int local_name_ok(const char *name, const char *end)
{
	if (!name[0])
		return 0;
	for (; name < end && *name; ++name) {
		if (*name == '$')
			return 0;
		while (*name == '.') {
			int digit_seen = 0;
			if (strnlen(name, (size_t)(end - name)) > 7 && strncmp(name, ".clone.", 7) == 0)
				name += 6;
			else if (strnlen(name, (size_t)(end - name)) > 11 &&
				 strncmp(name, ".constprop.", 11) == 0)
				name += 10;
			for (name++; name < end && *name; name++) {
				if (digit_seen && *name == '.')
					break;
				else if (isdigit((unsigned char)*name))
					digit_seen = 1;
				else
					return 0;
			}
			if (name >= end)
				return 1;
		}
	}
	return 1;
}

static void read_build_id(struct symtab *t, Elf *elf)
{
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		if (!d)
			continue;
		size_t off = 0, name_off, desc_off;
		GElf_Nhdr nh;
		while ((off = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0) {
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
			    memcmp((char *)d->d_buf + name_off, "GNU", 4) == 0 &&
			    nh.n_descsz <= sizeof(t->build_id)) {
				memcpy(t->build_id, (char *)d->d_buf + desc_off, nh.n_descsz);
				t->build_id_len = nh.n_descsz;
				return;
			}
		}
	}
}

static Elf *open_elf(const char *path, int *fdp, char *err, size_t errsz)
{
	elf_version(EV_CURRENT);
	/* a module path recorded in a profile may name a FIFO or a device: never opened */
	int fd = gmon_open_regular(path, err, errsz);
	if (fd < 0)
		return NULL;
	Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		snprintf(err, errsz, "not an ELF file");
		if (elf)
			elf_end(elf);
		close(fd);
		return NULL;
	}
	*fdp = fd;
	return elf;
}

int symtab_load_build_id(struct symtab *t, const char *path)
{
	char err[128];
	int fd;
	Elf *elf = open_elf(path, &fd, err, sizeof(err));
	if (!elf)
		return -1;
	read_build_id(t, elf);
	elf_end(elf);
	close(fd);
	return 0;
}

/* The class gprof gives a symbol: 'T' (global, weak), 't' (local), 0 (not a function); with all, a
 * local's name is not filtered (GCC's clones: spy records them as functions). */
static int sym_class(Elf *elf, const GElf_Sym *s, const char *name, const char *end, int all)
{
	int type = GELF_ST_TYPE(s->st_info), bind = GELF_ST_BIND(s->st_info);
	if (s->st_shndx == SHN_UNDEF || s->st_shndx == SHN_COMMON || type == STT_SECTION ||
	    type == STT_FILE || type == STT_GNU_IFUNC)
		return 0;
	if (bind == STB_WEAK)
		return type == STT_OBJECT ? 0 : 'T';
	if (s->st_shndx == SHN_ABS || s->st_shndx >= SHN_LORESERVE)
		return 0;
	GElf_Shdr sh;
	Elf_Scn *scn = elf_getscn(elf, s->st_shndx);
	if (!scn || !gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_EXECINSTR))
		return 0;
	if (bind == STB_GLOBAL || bind == STB_GNU_UNIQUE)
		return bind == STB_GLOBAL ? 'T' : 0;
	if ((all ? !name[0] : !local_name_ok(name, end)) || strncmp(name, "__gnu_compiled", 14) == 0)
		return 0;
	return 't';
}

static int sym_addr_cmp(const void *a, const void *b)
{
	const struct symtab_sym *x = a, *y = b;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* gprof's symtab_finalize: sort, fold symbols of one address, close each range at the next. */
/* gprof's order for symtab_finalize (cmp_addr): by address, functions first, then globals, then as
 * the symbol table lists them (glibc's qsort there is a stable merge sort) */
static int sym_gnu_cmp(const void *a, const void *b)
{
	const struct symtab_sym *x = a, *y = b;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->is_func != y->is_func)
		return y->is_func - x->is_func;
	if (x->is_static != y->is_static)
		return x->is_static - y->is_static;
	return (x->order > y->order) - (x->order < y->order);
}

/* Of two symbols at one address, src takes prev's place: a global over a static, a function over
 * a label, then gprof's rule of the leading underscores (GNU mode: two static functions at one
 * address, such as GCC's identical-code folding makes of sqlite's fts3HashMalloc and
 * sqlite3Fts3MallocZero, keep the first of the symbol table, as gprof does) or spy's, the shorter
 * name. */
static int sym_better(const struct symtab *t, const struct symtab_sym *src, const struct symtab_sym *prev)
{
	if (!src->is_static && prev->is_static)
		return 1;
	if (src->is_static != prev->is_static || src->is_func != prev->is_func)
		return src->is_static == prev->is_static && src->is_func && !prev->is_func;
	if (t->all_funcs)
		return strlen(src->name) < strlen(prev->name);
	return (src->name[0] != '_' && prev->name[0] == '_') ||
	       (src->name[0] && src->name[1] != '_' && prev->name[0] && prev->name[1] == '_');
}

static void finalize(struct symtab *t)
{
	qsort(t->items, t->nr, sizeof(*t->items), t->all_funcs ? sym_addr_cmp : sym_gnu_cmp);
	size_t dst = 0;
	for (size_t i = 0; i < t->nr; i++) {
		struct symtab_sym *src = &t->items[i];
		if (dst > 0 && t->items[dst - 1].addr == src->addr) {
			struct symtab_sym *prev = &t->items[dst - 1];
			if (sym_better(t, src, prev)) {
				free(prev->name);
				*prev = *src;
			} else {
				free(src->name);
			}
			continue;
		}
		if (dst > 0)
			t->items[dst - 1].end = src->addr;
		t->items[dst++] = *src;
	}
	t->nr = dst;
	if (dst > 0) {
		struct symtab_sym *last = &t->items[dst - 1];
		last->end = t->text_hi > last->addr ? t->text_hi : last->addr;
	}
}

/* gprof's -S (core_create_syms_from): the symbols of a file of lines "ADDR TYPE NAME", as nm prints
 * them; the lines of type T (global) and t (static) are functions, every other line is skipped.
 * Returns 0, or -1 with the reason in err. */
static int load_external(struct symtab *t, char *err, size_t errsz)
{
	char buf[1024], addr[1024], name[1024], type;
	int fd = gmon_open_regular(t->ext_syms, err, errsz);
	FILE *f = fd >= 0 ? fdopen(fd, "r") : NULL;
	if (!f) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	uint32_t order = 0;
	while (fgets(buf, sizeof(buf) - 1, f)) {
		if (sscanf(buf, "%1023s %c %1023s", addr, &type, name) != 3 || (type != 't' && type != 'T'))
			continue;
		unsigned long long a = 0;
		if (sscanf(addr, "%llx", &a) != 1)
			a = 0;
		GROW(t->items, t->nr, t->alloc);
		struct symtab_sym *y = &t->items[t->nr++];
		memset(y, 0, sizeof(*y));
		y->addr = a;
		y->name = xstrdup(name);
		y->is_static = type == 't';
		y->is_func = y->in_code = 1;
		y->order = order++;
	}
	int bad = ferror(f);
	fclose(f);
	if (bad || t->nr == 0) {
		snprintf(err, errsz, "%s", bad ? "read error" : "no symbols (lines ADDR T NAME)");
		return -1;
	}
	finalize(t);
	return 0;
}

/* The length of name without GCC's suffix of a split-off cold part (".cold", ".cold.N"), or 0 when
 * it has none. */
static size_t cold_base(const char *name)
{
	const char *c = strstr(name, ".cold");
	while (c) {
		const char *e = c + 5;
		if (*e == '.' && isdigit((unsigned char)e[1]))
			for (e++; isdigit((unsigned char)*e); e++)
				;
		if (!*e && c > name)
			return (size_t)(c - name);
		c = strstr(c + 1, ".cold");
	}
	return 0;
}

/* the symbols of the table (arg) by name */
static int name_order_cmp(const void *a, const void *b, void *arg)
{
	const struct symtab *t = arg;
	const struct symtab_sym *x = &t->items[*(const uint32_t *)a];
	const struct symtab_sym *y = &t->items[*(const uint32_t *)b];
	return strcmp(x->name, y->name);
}

/* Each cold part's owner: the function of its name less the suffix, a local of the same source
 * file (two files may both have a static foo and foo.cold), else a global. GCC moves a function's
 * unlikely code there; its samples are the function's. */
static void find_owners(struct symtab *t)
{
	uint32_t *by_name = xmalloc((t->nr + 1) * sizeof(uint32_t));
	size_t n = 0;
	for (size_t i = 0; i < t->nr; i++)
		by_name[n++] = (uint32_t)i;
	qsort_r(by_name, n, sizeof(uint32_t), name_order_cmp, t);
	for (size_t i = 0; i < t->nr; i++) {
		struct symtab_sym *y = &t->items[i];
		size_t len = cold_base(y->name);
		if (!len)
			continue;
		/* the first name not below the base: the names equal to it come first of those that
		 * start with it */
		size_t lo = 0, hi = n;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (strncmp(t->items[by_name[mid]].name, y->name, len) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		uint32_t global = 0, local = 0;
		for (size_t k = lo; k < n; k++) {
			const struct symtab_sym *o = &t->items[by_name[k]];
			if (strncmp(o->name, y->name, len) != 0 || o->name[len] != 0)
				break;
			if (o->file_no == UINT32_MAX)
				global = by_name[k] + 1;
			else if (o->file_no == y->file_no)
				local = by_name[k] + 1;
		}
		y->owner = local ? local : global;
	}
	free(by_name);
}

int symtab_load(struct symtab *t, const char *path, char *err, size_t errsz)
{
	int fd;
	Elf *elf = open_elf(path, &fd, err, errsz);
	if (!elf)
		return -1;
	t->path = xstrdup(path);
	read_build_id(t, elf);
	size_t shstrndx;
	Elf_Scn *scn = NULL;
	if (elf_getshdrstrndx(elf, &shstrndx) == 0) {
		while ((scn = elf_nextscn(elf, scn))) {
			GElf_Shdr sh;
			if (!gelf_getshdr(scn, &sh))
				continue;
			const char *n = elf_strptr(elf, shstrndx, sh.sh_name);
			if (n && strcmp(n, ".text") == 0) {
				t->text_lo = sh.sh_addr;
				t->text_hi = sh.sh_addr + sh.sh_size;
				Elf_Data *d = t->want_text && sh.sh_type == SHT_PROGBITS ?
						      elf_getdata(scn, NULL) :
						      NULL;
				if (d && d->d_buf && d->d_size == sh.sh_size) {
					free(t->text);
					t->text = xmalloc(d->d_size + 1);
					memcpy(t->text, d->d_buf, d->d_size);
				}
			}
		}
	}
	if (t->ext_syms) {
		elf_end(elf);
		close(fd);
		return load_external(t, err, errsz);
	}
	scn = NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !sh.sh_entsize)
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		if (!d)
			continue;
		size_t n = sh.sh_size / sh.sh_entsize;
		uint32_t file_no = 0;
		/* the string table's end, for gprof's scan past a name (local_name_ok) */
		Elf_Scn *strscn = elf_getscn(elf, sh.sh_link);
		Elf_Data *sd = strscn ? elf_getdata(strscn, NULL) : NULL;
		for (size_t i = 1; i < n; i++) {
			GElf_Sym s;
			if (!gelf_getsym(d, (int)i, &s))
				continue;
			if (GELF_ST_TYPE(s.st_info) == STT_FILE)
				file_no++;
			const char *name = elf_strptr(elf, sh.sh_link, s.st_name);
			if (!name)
				continue;
			const char *end = name + strlen(name) + 1; /* where the table is not one buffer */
			if (sd && sd->d_buf && name >= (const char *)sd->d_buf &&
			    name < (const char *)sd->d_buf + sd->d_size)
				end = (const char *)sd->d_buf + sd->d_size;
			int c = sym_class(elf, &s, name, end, t->all_funcs);
			/* -D, as gprof's core_sym_class: only local symbols must be functions */
			if (!c || (c == 't' && t->no_static) ||
			    (c == 't' && t->only_funcs && GELF_ST_TYPE(s.st_info) != STT_FUNC))
				continue;
			GROW(t->items, t->nr, t->alloc);
			struct symtab_sym *y = &t->items[t->nr++];
			y->addr = s.st_value;
			y->end = 0;
			y->name = xstrdup(name);
			y->is_static = c == 't';
			y->is_func = GELF_ST_TYPE(s.st_info) == STT_FUNC;
			y->order = (uint32_t)i;
			GElf_Shdr ssh;
			Elf_Scn *sscn = s.st_shndx < SHN_LORESERVE ? elf_getscn(elf, s.st_shndx) : NULL;
			y->in_code = sscn && gelf_getshdr(sscn, &ssh) && (ssh.sh_flags & SHF_EXECINSTR);
			y->sec_end = sscn && gelf_getshdr(sscn, &ssh) ? ssh.sh_addr + ssh.sh_size : 0;
			y->mapped = 0;
			y->file_no = GELF_ST_BIND(s.st_info) == STB_LOCAL ? file_no : UINT32_MAX;
			y->owner = 0;
		}
	}
	elf_end(elf);
	close(fd);
	if (t->map) {
		/* gprof's -R: a function of the map stands for its object file if it is the first of
		 * its run of lines, and is no symbol otherwise */
		size_t dst = 0;
		for (size_t i = 0; i < t->nr; i++) {
			struct symtab_sym *y = &t->items[i];
			const struct linkmap_ent *e = linkmap_find(t->map, y->name);
			if (e && !e->first) {
				free(y->name);
				continue;
			}
			if (e) {
				free(y->name);
				y->name = xstrdup(e->file);
				y->mapped = 1;
			}
			t->items[dst++] = *y;
		}
		t->nr = dst;
	}
	if (t->nr == 0) {
		snprintf(err, errsz, "no symbols");
		return -1;
	}
	finalize(t);
	if (t->all_funcs)
		find_owners(t);
	return 0;
}

int symtab_load_module(struct symtab *t, const struct gmon_module *m)
{
	char err[128];

	t->all_funcs = 1;
	if (!m->path[0] || symtab_load(t, m->path, err, sizeof(err)) < 0)
		return -1;
	if (m->build_id_len &&
	    (t->build_id_len != m->build_id_len || memcmp(t->build_id, m->build_id, m->build_id_len) != 0))
		return -1;
	return 0;
}

const struct symtab_sym *symtab_at(const struct symtab *t, uint64_t fa)
{
	size_t lo = sorted_upper(t->items, t->nr, sizeof(*t->items), offsetof(struct symtab_sym, addr), fa);
	const struct symtab_sym *y = lo > 0 ? &t->items[lo - 1] : NULL;
	return y && fa < y->end && (!y->sec_end || fa < y->sec_end) ? y : NULL;
}

const struct symtab_sym *symtab_owner(const struct symtab *t, const struct symtab_sym *y)
{
	return y && y->owner ? &t->items[y->owner - 1] : y;
}

void symtab_release(struct symtab *t)
{
	for (size_t i = 0; i < t->nr; i++)
		free(t->items[i].name);
	free(t->items);
	free(t->text);
	free(t->bsyms);
	if (t->bfd)
		bfd_close(t->bfd);
	free(t->path);
	memset(t, 0, sizeof(*t));
}

static int open_bfd(struct symtab *t)
{
	if (t->bfd || t->bfd_failed)
		return t->bfd ? 0 : -1;
	t->bfd_failed = 1;
	bfd_init();
	/* through a descriptor of a regular file: the path might name something else by now */
	char err[128];
	int fd = gmon_open_regular(t->path, err, sizeof(err));
	if (fd < 0)
		return -1;
	bfd *abfd = bfd_fdopenr(t->path, NULL, fd); /* owns fd from here, failing or not */
	if (!abfd)
		return -1;
	if (!bfd_check_format(abfd, bfd_object)) {
		bfd_close(abfd);
		return -1;
	}
	long sz = bfd_get_symtab_upper_bound(abfd);
	asymbol **syms = xmalloc(sz > 0 ? (size_t)sz : sizeof(asymbol *));
	if (sz <= 0 || bfd_canonicalize_symtab(abfd, syms) < 0)
		syms[0] = NULL;
	t->bfd = abfd;
	t->bsyms = syms;
	t->bfd_failed = 0;
	return 0;
}

int symtab_src(struct symtab *t, uint64_t addr, const char **file, unsigned *line)
{
	if (!t->path || open_bfd(t) < 0)
		return -1;
	bfd *abfd = t->bfd;
	for (asection *s = abfd->sections; s; s = s->next) {
		bfd_vma vma = bfd_section_vma(s);
		if (!(bfd_section_flags(s) & SEC_CODE) || addr < vma || addr >= vma + bfd_section_size(s))
			continue;
		const char *fn = NULL, *func = NULL;
		unsigned l = 0;
		if (bfd_find_nearest_line(abfd, s, t->bsyms, addr - vma, &fn, &func, &l) && fn && func && l) {
			*file = fn;
			*line = l;
			return 0;
		}
		return -1;
	}
	return -1;
}

/* gprof's core_create_line_syms: walking .text a byte at a time, a symbol wherever the function,
 * file or line of bfd_find_nearest_line changes, static as its function; the functions keep their
 * addresses (finalize prefers them to lines). */
int symtab_add_lines(struct symtab *t)
{
	if (!t->path || open_bfd(t) < 0)
		return -1;
	bfd *abfd = t->bfd;
	asection *sec = bfd_get_section_by_name(abfd, ".text");
	if (!sec)
		return -1;
	bfd_vma vma = bfd_section_vma(sec), hi = vma + bfd_section_size(sec);
	/* gprof -l keeps no function symbol of a data section (a weak data_start) */
	size_t nfuncs = 0;
	for (size_t i = 0; i < t->nr; i++)
		if (t->items[i].in_code)
			t->items[nfuncs++] = t->items[i];
		else
			free(t->items[i].name);
	t->nr = nfuncs;
	char *pfile = NULL, *pfunc = NULL; /* copies: bfd's strings need not outlive the next call */
	unsigned pline = 0;
	int pstatic = 0;
	for (bfd_vma a = vma; a < hi; a++) {
		const char *file = NULL, *func = NULL;
		unsigned line = 0;
		if (!bfd_find_nearest_line(abfd, sec, t->bsyms, a - vma, &file, &func, &line) || !file ||
		    !func || !line)
			continue;
		if (pfunc && line == pline && strcmp(func, pfunc) == 0 && strcmp(file, pfile) == 0)
			continue;
		int is_static = 0;
		if (pfunc && strcmp(func, pfunc) == 0 && strcmp(file, pfile) == 0) {
			is_static = pstatic;
		} else {
			/* the function holding a, among the functions (sorted) */
			size_t lo = sorted_upper(t->items, nfuncs, sizeof(*t->items),
						 offsetof(struct symtab_sym, addr), a);
			if (lo > 0 && a < t->items[lo - 1].end)
				is_static = t->items[lo - 1].is_static;
		}
		GROW(t->items, t->nr, t->alloc);
		struct symtab_sym *y = &t->items[t->nr++];
		memset(y, 0, sizeof(*y));
		y->addr = a;
		y->order = UINT32_MAX;
		y->name = xstrdup(func);
		y->is_static = is_static;
		free(pfile);
		free(pfunc);
		pfile = xstrdup(file);
		pfunc = xstrdup(func);
		pline = line;
		pstatic = is_static;
	}
	free(pfile);
	free(pfunc);
	finalize(t);
	return 0;
}

char *symtab_demangle(const char *name)
{
	return bfd_demangle(NULL, name, 1 | 2 /* DMGL_PARAMS | DMGL_ANSI */);
}
