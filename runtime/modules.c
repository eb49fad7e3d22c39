/* The module map: every object whose code appears in the profile (path, build-id from its PT_NOTE,
 * load bias, executable range), found with dl_iterate_phdr. Instrumented modules enter it when they
 * register, so a module dlclose'd before the end is still described; the others when the file is
 * written. Callers hold spy_lock. */
#include "spyrt.h"

#include <elf.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct spy_module *spy_modules;
uint32_t spy_nmodules, spy_modules_alloc;

/* The file /proc/self/maps names for the mapping that holds addr (malloc'ed), or NULL: the path the
 * loader resolved, where dl_iterate_phdr gives the name dlopen was called with ("./libx.so", relative
 * to a directory the program may have left since). */
static char *maps_path_of(uint64_t addr)
{
	size_t cap = PATH_MAX + 128, len = 0;
	char *line = malloc(cap), *path = NULL;
	int fd = line ? open("/proc/self/maps", O_RDONLY | O_CLOEXEC) : -1;
	ssize_t r;

	if (fd < 0) {
		free(line);
		return NULL;
	}
	/* one line at a time in line[0, len); a line longer than cap is skipped */
	while (!path && (r = read(fd, line + len, cap - 1 - len)) > 0) {
		char *nl, *p;

		len += (size_t)r;
		line[len] = 0;
		p = line;
		while (!path && (nl = memchr(p, '\n', len - (size_t)(p - line)))) {
			unsigned long long lo, hi;
			char *slash;

			*nl = 0;
			if (sscanf(p, "%llx-%llx", &lo, &hi) == 2 && addr >= lo && addr < hi &&
			    (slash = strchr(p, '/')))
				path = strdup(slash);
			p = nl + 1;
		}
		len -= (size_t)(p - line);
		memmove(line, p, len);
		if (len == cap - 1)
			len = 0;
	}
	close(fd);
	free(line);
	return path;
}

static void module_fill(struct spy_module *m, struct dl_phdr_info *info, int first)
{
	memset(m, 0, sizeof(*m));
	m->base = info->dlpi_addr;
	m->text_lo = UINT64_MAX;
	if (info->dlpi_name && info->dlpi_name[0]) {
		m->path = strdup(info->dlpi_name);
		if (!strncmp(info->dlpi_name, "linux-vdso", 10) ||
		    !strncmp(info->dlpi_name, "linux-gate", 10))
			m->flags |= GMON_MOD_VDSO;
	} else if (first) {
		/* on the heap: the writer's stack and a constructor's are no place for 4 KiB */
		char *exe = malloc(PATH_MAX);
		ssize_t n = exe ? readlink("/proc/self/exe", exe, PATH_MAX - 1) : -1;

		if (exe) {
			exe[n > 0 ? n : 0] = 0;
			m->path = realloc(exe, strlen(exe) + 1);
			if (!m->path)
				m->path = exe;
		}
		m->flags |= GMON_MOD_MAIN;
	}
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uint64_t lo = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X)) {
			if (lo < m->text_lo)
				m->text_lo = lo;
			if (lo + ph->p_memsz > m->text_hi)
				m->text_hi = lo + ph->p_memsz;
		} else if (ph->p_type == PT_NOTE && !m->build_id_len) {
			/* notes are 4-aligned, or 8-aligned in a segment aligned so */
			size_t align = ph->p_align == 8 ? 8 : 4, off = 0;
			const uint8_t *p = (const uint8_t *)(uintptr_t)lo;

			while (off + sizeof(ElfW(Nhdr)) <= ph->p_filesz) {
				const ElfW(Nhdr) *nh = (const void *)(p + off);
				size_t name = off + sizeof(*nh),
				       desc = name + ((nh->n_namesz + align - 1) & ~(align - 1));

				if (desc + nh->n_descsz > ph->p_filesz)
					break;
				if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 &&
				    !memcmp(p + name, "GNU", 4) && nh->n_descsz <= sizeof(m->build_id)) {
					memcpy(m->build_id, p + desc, nh->n_descsz);
					m->build_id_len = nh->n_descsz;
					break;
				}
				off = desc + ((nh->n_descsz + align - 1) & ~(align - 1));
			}
		}
	}
	if (m->text_lo > m->text_hi)
		m->text_lo = m->text_hi = 0;
	/* a relative name (dlopen("./libx.so")): the file the loader mapped, wherever spinprof runs */
	if (m->path && m->path[0] != '/' && !(m->flags & GMON_MOD_VDSO) && m->text_hi) {
		char *abs = maps_path_of(m->text_lo);

		if (abs) {
			free(m->path);
			m->path = abs;
		}
	}
}

/* Paths are malloc'ed, or NULL when that failed (then read as ""). */
const char *spy_module_path(const struct spy_module *m)
{
	return m->path ? m->path : "";
}

/* The entry of the object described by info, added when new: the same file (path and build-id) at the
 * same place. One moved at its dlclose (loads.c) is it, loaded again: its registration moves it back. */
static uint32_t module_add(struct dl_phdr_info *info, int first)
{
	struct spy_module m;

	module_fill(&m, info, first);
	for (uint32_t i = 0; i < spy_nmodules; i++) {
		const struct spy_module *e = &spy_modules[i];

		if (e->base == m.base && !strcmp(spy_module_path(e), spy_module_path(&m)) &&
		    e->build_id_len == m.build_id_len && !memcmp(e->build_id, m.build_id, m.build_id_len)) {
			free(m.path);
			return i;
		}
	}
	if (spy_nmodules == spy_modules_alloc) {
		uint32_t n = spy_modules_alloc ? 2 * spy_modules_alloc : 16;
		struct spy_module *p = realloc(spy_modules, n * sizeof(*p));

		if (!p) {
			spy_note_error("out of memory in the module map");
			free(m.path);
			return UINT32_MAX;
		}
		spy_modules = p;
		spy_modules_alloc = n;
	}
	spy_modules[spy_nmodules] = m;
	return spy_nmodules++;
}

struct find_arg {
	uintptr_t addr;
	uint32_t found;
	int index;
};

static int find_cb(struct dl_phdr_info *info, size_t size, void *data)
{
	struct find_arg *f = data;
	int first = f->index++ == 0;

	(void)size;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type == PT_LOAD && f->addr >= lo && f->addr < lo + ph->p_memsz) {
			f->found = module_add(info, first);
			return 1;
		}
	}
	return 0;
}

uint32_t spy_module_of(const void *addr)
{
	struct find_arg f = { (uintptr_t)addr, UINT32_MAX, 0 };

	dl_iterate_phdr(find_cb, &f);
	return f.found;
}

static int scan_cb(struct dl_phdr_info *info, size_t size, void *data)
{
	int *index = data;
	uint32_t i = module_add(info, (*index)++ == 0);

	(void)size;
	if (i != UINT32_MAX)
		spy_modules[i].flags &= ~(uint32_t)GMON_MOD_CLOSED;
	return 0;
}

void spy_modules_scan(void)
{
	int index = 0;

	/* whatever the scan does not meet again has been unloaded */
	for (uint32_t i = 0; i < spy_nmodules; i++)
		spy_modules[i].flags |= GMON_MOD_CLOSED;
	dl_iterate_phdr(scan_cb, &index);
}
