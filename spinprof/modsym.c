/* Names for the addresses of modules spy did not instrument (libc and other libraries), which the
 * gprof-style symbols of symtab.c leave unnamed: libdwfl reads .symtab, .dynsym and separate debug
 * files, the way perf and eu-addr2line name them. */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "modsym.h"
#include "prof.h"

struct modsym {
	Dwfl *dwfl;
	Dwfl_Module *mod;
	GElf_Addr bias; /* module address = file address + bias */
};

static char *debuginfo_path; /* libdwfl's default: beside the file, .debug/, /usr/lib/debug */

static const Dwfl_Callbacks callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
	.debuginfo_path = &debuginfo_path,
};

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
	if (!dwfl_module_getelf(mod, &s->bias)) {
		modsym_close(s);
		return NULL;
	}
	return s;
}

void modsym_close(struct modsym *s)
{
	if (!s)
		return;
	dwfl_end(s->dwfl);
	free(s);
}

const char *modsym_func(struct modsym *s, uint64_t a, uint64_t *start)
{
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
