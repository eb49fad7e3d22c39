/* Names for the addresses of modules spy did not instrument (libc and other libraries), which the
 * gprof-style symbols of symtab.c leave unnamed: libdwfl reads .symtab, .dynsym and separate debug
 * files, the way perf and eu-addr2line name them. The PLT entries, under no symbol, get the names
 * objdump -d and perf give them, NAME@plt, made here from the module's relocations. */
#include <dwarf.h>
#include <elf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "modsym.h"
#include "prof.h"
#include "sorted.h"

/* One PLT entry [addr, end) (file addresses) and its name, "memcpy@plt". */
struct modsym_plt {
	uint64_t addr, end;
	char *name;
};

struct modsym {
	Dwfl *dwfl;
	Dwfl_Module *mod;
	GElf_Addr bias;         /* module address = file address + bias */
	struct modsym_plt *plt; /* by address */
	size_t nplt, plt_alloc;
};

static char *debuginfo_path; /* libdwfl's default: beside the file, .debug/, /usr/lib/debug */

static const Dwfl_Callbacks callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
	.debuginfo_path = &debuginfo_path,
};

/* A dynamic relocation that fills a GOT slot with a function's address: JUMP_SLOT and GLOB_DAT name
 * their symbol, IRELATIVE (libc's calls of its own ifuncs) only the ifunc resolver's address. */
struct plt_rel {
	uint64_t slot, addend;
	uint32_t type, sym;
	size_t symtab; /* the section of the relocation's symbols */
};

static int plt_rel_cmp(const void *a, const void *b)
{
	const struct plt_rel *x = a, *y = b;
	return x->slot < y->slot ? -1 : x->slot > y->slot;
}

/* The relocations of every allocated SHT_RELA section (.rela.plt, .rela.dyn), by slot. */
static struct plt_rel *plt_rels(Elf *elf, size_t *nr)
{
	struct plt_rel *r = NULL;
	size_t n = 0, alloc = 0;
	size_t size = gelf_fsize(elf, ELF_T_RELA, 1, EV_CURRENT);
	Elf_Scn *scn = NULL;
	while (size && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_RELA || !(sh.sh_flags & SHF_ALLOC) ||
		    !(d = elf_getdata(scn, NULL)))
			continue;
		for (size_t i = 0; i < d->d_size / size && i < INT32_MAX; i++) {
			GElf_Rela ra;
			if (!gelf_getrela(d, (int)i, &ra))
				break;
			uint32_t type = (uint32_t)GELF_R_TYPE(ra.r_info);
			if (type != R_X86_64_JUMP_SLOT && type != R_X86_64_GLOB_DAT &&
			    type != R_X86_64_IRELATIVE)
				continue;
			GROW(r, n, alloc);
			r[n++] = (struct plt_rel){ ra.r_offset, (uint64_t)ra.r_addend, type,
						   (uint32_t)GELF_R_SYM(ra.r_info), sh.sh_link };
		}
	}
	if (n)
		qsort(r, n, sizeof(*r), plt_rel_cmp);
	*nr = n;
	return r;
}

/* The GOT slot an x86-64 PLT entry at addr jumps through: "jmp *disp(%rip)" (ff 25 disp32), after
 * bnd (f2), endbr64 (f3 0f 1e fa) or both; 0 when the entry does not start so (PLT0, the lazy
 * binding stubs of the IBT layout's .plt, which objdump leaves unnamed too). */
static uint64_t plt_slot(const unsigned char *e, size_t size, uint64_t addr)
{
	static const unsigned char endbr64[4] = { 0xf3, 0x0f, 0x1e, 0xfa };
	size_t k = size >= 4 && memcmp(e, endbr64, 4) == 0 ? 4 : 0;
	if (k < size && e[k] == 0xf2)
		k++;
	if (k + 6 > size || e[k] != 0xff || e[k + 1] != 0x25)
		return 0;
	uint32_t disp = (uint32_t)e[k + 2] | (uint32_t)e[k + 3] << 8 | (uint32_t)e[k + 4] << 16 |
			(uint32_t)e[k + 5] << 24;
	return addr + k + 6 + (uint64_t)(int64_t)(int32_t)disp;
}

/* An IRELATIVE entry waiting for the name of the ifunc at its addend. */
struct plt_want {
	uint64_t addend;
	size_t plt;
	int rank;
	const char *name;
};

static int plt_want_cmp(const void *a, const void *b)
{
	const struct plt_want *x = a, *y = b;
	return x->addend < y->addend ? -1 : x->addend > y->addend;
}

static int plt_cmp(const void *a, const void *b)
{
	const struct modsym_plt *x = a, *y = b;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* "NAME@plt" of the n first bytes of name. */
static char *plt_name(const char *name, size_t n)
{
	char *s = xmalloc(n + sizeof("@plt"));
	memcpy(s, name, n);
	memcpy(s + n, "@plt", sizeof("@plt"));
	return s;
}

/* How well symbol y names an ifunc: an ifunc before a function, then global, weak, local; 0: not at all. */
static int plt_rank(const GElf_Sym *y)
{
	int type = GELF_ST_TYPE(y->st_info), bind = GELF_ST_BIND(y->st_info);
	if (y->st_shndx == SHN_UNDEF || (type != STT_GNU_IFUNC && type != STT_FUNC))
		return 0;
	return (type == STT_GNU_IFUNC ? 4 : 0) + (bind == STB_GLOBAL ? 3 : bind == STB_WEAK ? 2 : 1);
}

/* Offer name, of rank rank, to the entries waiting for the ifunc at value (w by addend; the first
 * offered of the best rank stays). */
static void plt_offer(struct plt_want *w, size_t nw, uint64_t value, int rank, const char *name)
{
	size_t lo = sorted_lower(w, nw, sizeof(*w), offsetof(struct plt_want, addend), value);
	for (; rank && name && name[0] && lo < nw && w[lo].addend == value; lo++)
		if (rank > w[lo].rank) {
			w[lo].rank = rank;
			w[lo].name = name;
		}
}

/* Name the IRELATIVE entries after the ifunc whose resolver their addend is: the best .dynsym symbol
 * there (the module's own, whatever debug files the machine has), else the best of libdwfl's
 * symbols (.symtab or a separate debug file's; without a version, "memcpy@@GLIBC_2.14"), else
 * objdump's "*ABS*+0xADDR@plt". */
static void plt_ifuncs(struct modsym *s, Elf *elf, Elf_Scn *dynsym, struct plt_want *w, size_t nw)
{
	GElf_Shdr sh;
	Elf_Data *d;
	GElf_Sym y;
	qsort(w, nw, sizeof(*w), plt_want_cmp);
	if (dynsym && gelf_getshdr(dynsym, &sh) && sh.sh_entsize && (d = elf_getdata(dynsym, NULL)))
		for (size_t i = 1; i < sh.sh_size / sh.sh_entsize && i < INT32_MAX; i++)
			if (gelf_getsym(d, (int)i, &y) && plt_rank(&y))
				plt_offer(w, nw, y.st_value, plt_rank(&y),
					  elf_strptr(elf, sh.sh_link, y.st_name));
	size_t unnamed = 0;
	for (size_t i = 0; i < nw; i++) {
		unnamed += !w[i].name;
		if (w[i].name)
			s->plt[w[i].plt].name = plt_name(w[i].name, strlen(w[i].name));
	}
	int n = unnamed ? dwfl_module_getsymtab(s->mod) : 0;
	for (int i = 1; i < n; i++) {
		GElf_Addr addr;
		const char *name = dwfl_module_getsym_info(s->mod, i, &y, &addr, NULL, NULL, NULL);
		if (name && plt_rank(&y))
			plt_offer(w, nw, addr - s->bias, plt_rank(&y), name);
	}
	for (size_t i = 0; i < nw; i++) {
		char buf[64];
		const char *name = w[i].name;
		if (s->plt[w[i].plt].name)
			continue;
		if (!name) {
			snprintf(buf, sizeof(buf), "*ABS*+0x%" PRIx64, w[i].addend);
			name = buf;
		}
		s->plt[w[i].plt].name = plt_name(name, strcspn(name, "@"));
	}
}

/* The entries of the x86-64 PLT sections, as objdump -d and perf name them: each jumps through a GOT
 * slot, and the relocation of that slot names the function, "realloc@plt" (or for an ifunc of the
 * module's own, "memcpy@plt"). Other machines' PLTs stay unnamed. */
static void plt_load(struct modsym *s, Elf *elf)
{
	static const struct {
		const char *name;
		size_t entsize; /* when sh_entsize does not say 8 or 16 */
	} secs[] = { { ".plt", 16 }, { ".plt.sec", 16 }, { ".plt.got", 8 }, { ".plt.bnd", 8 } };
	GElf_Ehdr eh;
	size_t shstrndx, nrel;
	if (!gelf_getehdr(elf, &eh) || eh.e_machine != EM_X86_64 || elf_getshdrstrndx(elf, &shstrndx) != 0)
		return;
	struct plt_rel *rels = plt_rels(elf, &nrel);
	struct plt_want *want = NULL;
	size_t nwant = 0, want_alloc = 0;
	Elf_Scn *scn = NULL, *dynsym = NULL;
	while (nrel && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_DYNSYM)
			dynsym = scn;
		const char *n = elf_strptr(elf, shstrndx, sh.sh_name);
		size_t k = 0;
		while (n && k < sizeof(secs) / sizeof(secs[0]) && strcmp(n, secs[k].name) != 0)
			k++;
		if (!n || k == sizeof(secs) / sizeof(secs[0]) || sh.sh_type != SHT_PROGBITS ||
		    !(sh.sh_flags & SHF_EXECINSTR) || !(d = elf_getdata(scn, NULL)) || !d->d_buf)
			continue;
		size_t es = sh.sh_entsize == 8 || sh.sh_entsize == 16 ? sh.sh_entsize : secs[k].entsize;
		for (size_t off = 0; off + es <= d->d_size; off += es) {
			uint64_t addr = sh.sh_addr + off;
			uint64_t slot = plt_slot((const unsigned char *)d->d_buf + off, es, addr);
			size_t lo =
				sorted_lower(rels, nrel, sizeof(*rels), offsetof(struct plt_rel, slot), slot);
			if (!slot || lo == nrel || rels[lo].slot != slot)
				continue;
			const struct plt_rel *r = &rels[lo];
			char *name = NULL;
			if (r->sym) {
				GElf_Shdr ysh;
				GElf_Sym y;
				Elf_Scn *ys = elf_getscn(elf, r->symtab);
				Elf_Data *yd = ys && gelf_getshdr(ys, &ysh) ? elf_getdata(ys, NULL) : NULL;
				const char *yn =
					yd && r->sym < INT32_MAX && gelf_getsym(yd, (int)r->sym, &y) ?
						elf_strptr(elf, ysh.sh_link, y.st_name) :
						NULL;
				if (!yn || !yn[0])
					continue;
				name = plt_name(yn, strlen(yn));
			} else if (r->type == R_X86_64_IRELATIVE) {
				GROW(want, nwant, want_alloc);
				want[nwant++] = (struct plt_want){ r->addend, s->nplt, 0, NULL };
			} else {
				continue;
			}
			GROW(s->plt, s->nplt, s->plt_alloc);
			s->plt[s->nplt++] = (struct modsym_plt){ addr, addr + es, name };
		}
	}
	if (nwant)
		plt_ifuncs(s, elf, dynsym, want, nwant);
	if (s->nplt)
		qsort(s->plt, s->nplt, sizeof(*s->plt), plt_cmp);
	free(want);
	free(rels);
}

struct modsym *modsym_open(const char *path, const uint8_t *build_id, uint32_t build_id_len)
{
	char err[128];
	if (!path || !path[0])
		return NULL;
	/* through a descriptor of a regular file: the path might name a device or a fifo */
	int fd = gmon_open_regular(path, err, sizeof(err));
	if (fd < 0)
		return NULL;
	Dwfl *dwfl = dwfl_begin(&callbacks);
	if (!dwfl) {
		close(fd);
		return NULL;
	}
	/* at base 0: file addresses, whatever the run's load address was */
	Dwfl_Module *mod = dwfl_report_elf(dwfl, path, path, fd, 0, false); /* owns fd from here */
	dwfl_report_end(dwfl, NULL, NULL);
	const unsigned char *bits;
	GElf_Addr vaddr;
	int n = mod ? dwfl_module_build_id(mod, &bits, &vaddr) : -1;
	if (!mod || (build_id_len && (n != (int)build_id_len || memcmp(bits, build_id, build_id_len) != 0))) {
		dwfl_end(dwfl);
		return NULL;
	}
	struct modsym *s = xcalloc(1, sizeof(*s));
	s->dwfl = dwfl;
	s->mod = mod;
	Elf *elf = dwfl_module_getelf(mod, &s->bias);
	if (!elf) {
		modsym_close(s);
		return NULL;
	}
	plt_load(s, elf);
	return s;
}

void modsym_close(struct modsym *s)
{
	if (!s)
		return;
	dwfl_end(s->dwfl);
	for (size_t i = 0; i < s->nplt; i++)
		free(s->plt[i].name);
	free(s->plt);
	free(s);
}

const char *modsym_func(struct modsym *s, uint64_t a, uint64_t *start)
{
	/* the PLT first: libdwfl may give the nearest symbol below an entry */
	size_t lo = sorted_upper(s->plt, s->nplt, sizeof(*s->plt), offsetof(struct modsym_plt, addr), a);
	if (lo > 0 && a < s->plt[lo - 1].end) {
		*start = s->plt[lo - 1].addr;
		return s->plt[lo - 1].name;
	}
	GElf_Off off;
	GElf_Sym sym;
	const char *name = dwfl_module_addrinfo(s->mod, a + s->bias, &off, &sym, NULL, NULL, NULL);
	if (!name || !name[0])
		return NULL;
	*start = a - off;
	return name;
}

int modsym_src(struct modsym *s, uint64_t a, const char **file, unsigned *line)
{
	Dwfl_Line *l = dwfl_module_getsrc(s->mod, a + s->bias);
	int ln = 0;
	const char *f = l ? dwfl_lineinfo(l, NULL, &ln, NULL, NULL, NULL) : NULL;
	if (!f || ln <= 0)
		return -1;
	*file = f;
	*line = (unsigned)ln;
	return 0;
}

int modsym_inline(struct modsym *s, uint64_t a, const char **name, const char **file, unsigned *line)
{
	Dwarf_Addr cu_bias;
	Dwarf_Die *cu = dwfl_module_addrdie(s->mod, a + s->bias, &cu_bias);
	Dwarf_Die *scopes = NULL;
	int n = cu ? dwarf_getscopes(cu, a + s->bias - cu_bias, &scopes) : -1;
	int rc = -1;
	for (int i = 0; i < n; i++) {
		if (dwarf_tag(&scopes[i]) == DW_TAG_subprogram)
			break;
		if (dwarf_tag(&scopes[i]) != DW_TAG_inlined_subroutine)
			continue;
		Dwarf_Attribute at;
		Dwarf_Word fi, ln;
		Dwarf_Files *files;
		const char *nm = dwarf_diename(&scopes[i]);
		if (!nm) {
			/* the name is on the abstract origin */
			Dwarf_Die origin;
			if (dwarf_attr(&scopes[i], DW_AT_abstract_origin, &at) &&
			    dwarf_formref_die(&at, &origin))
				nm = dwarf_diename(&origin);
		}
		if (!nm || dwarf_formudata(dwarf_attr(&scopes[i], DW_AT_call_file, &at), &fi) != 0 ||
		    dwarf_formudata(dwarf_attr(&scopes[i], DW_AT_call_line, &at), &ln) != 0 ||
		    dwarf_getsrcfiles(cu, &files, NULL) != 0)
			break;
		const char *f = dwarf_filesrc(files, fi, NULL, NULL);
		if (!f)
			break;
		*name = nm;
		*file = f;
		*line = (unsigned)ln;
		rc = 0;
		break;
	}
	free(scopes);
	return rc;
}
