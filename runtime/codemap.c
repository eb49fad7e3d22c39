/* Which function's code holds an address: a call site names its caller by the code that made the call,
 * not by the shadow stack, which in mode arcs (no exit hooks) may still hold a callee that returned.
 * Each instrumented module's .eh_frame_hdr search table (PT_GNU_EH_FRAME, sorted by address, in
 * memory since the module was loaded) leads to the FDE around the address: the function's entry and
 * length, split parts (.cold) included as parts of their own. Modules enter at registration (under
 * spy_lock) and leave at unregistration; readers take no lock. */
#include "spyrt.h"

#include <elf.h>
#include <link.h>
#include <string.h>

/* DWARF pointer encodings (the LSB's .eh_frame_hdr and .eh_frame) */
enum {
	PE_ABSPTR = 0x00,
	PE_UDATA2 = 0x02,
	PE_UDATA4 = 0x03,
	PE_UDATA8 = 0x04,
	PE_SDATA2 = 0x0a,
	PE_SDATA4 = 0x0b,
	PE_SDATA8 = 0x0c,
	PE_PCREL = 0x10,
	PE_DATAREL = 0x30,
	PE_OMIT = 0xff,
};

#define CODEMAP_MAX 256

/* One instrumented module's code range and its search table: n pairs of 32-bit offsets from hdr
 * (function entry, FDE), sorted by entry. */
struct codemap {
	uint64_t lo, hi;
	const uint8_t *hdr;
	const int32_t *table;
	uint32_t n;
	uint32_t live; /* 0 once unregistered: its range may be another module's next */
};

static struct codemap maps[CODEMAP_MAX];
static uint32_t nmaps;

/* A value of format enc & 0x0f at *p, which moves past it; 0 with *ok = 0 for formats not handled. */
static uint64_t read_fmt(const uint8_t **p, uint8_t enc, int *ok)
{
	const uint8_t *q = *p;
	uint64_t v = 0;

	switch (enc & 0x0f) {
	case PE_ABSPTR:
	case PE_UDATA8:
	case PE_SDATA8:
		memcpy(&v, q, 8);
		*p = q + 8;
		break;
	case PE_UDATA4: {
		uint32_t u;

		memcpy(&u, q, 4);
		v = u;
		*p = q + 4;
		break;
	}
	case PE_SDATA4: {
		int32_t s;

		memcpy(&s, q, 4);
		v = (uint64_t)(int64_t)s;
		*p = q + 4;
		break;
	}
	case PE_UDATA2: {
		uint16_t u;

		memcpy(&u, q, 2);
		v = u;
		*p = q + 2;
		break;
	}
	case PE_SDATA2: {
		int16_t s;

		memcpy(&s, q, 2);
		v = (uint64_t)(int64_t)s;
		*p = q + 2;
		break;
	}
	default:
		*ok = 0;
	}
	return v;
}

/* A pointer of encoding enc at *p: its format, then relative to where it sits (pcrel) or to base
 * (datarel). */
static uint64_t read_ptr(const uint8_t **p, uint8_t enc, uint64_t base, int *ok)
{
	uint64_t at = (uint64_t)(uintptr_t)*p, v = read_fmt(p, enc, ok);

	switch (enc & 0x70) {
	case 0:
		return v;
	case PE_PCREL:
		return v + at;
	case PE_DATAREL:
		return v + base;
	}
	*ok = 0;
	return 0;
}

static uint64_t uleb(const uint8_t **p)
{
	uint64_t v = 0;
	unsigned shift = 0;
	uint8_t b;

	do {
		b = *(*p)++;
		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
	} while (b & 0x80);
	return v;
}

/* The pointer encoding of the FDEs of the CIE at cie (its 'R' augmentation), PE_ABSPTR without one,
 * or PE_OMIT when the CIE cannot be read. */
static uint8_t cie_fde_enc(const uint8_t *cie)
{
	uint32_t len;
	const uint8_t *p = cie + 8, *aug;
	uint8_t version;

	memcpy(&len, cie, 4);
	if (len == 0 || len == 0xffffffffu)
		return PE_OMIT;
	version = *p++;
	aug = p;
	p += strlen((const char *)aug) + 1;
	if (aug[0] == 'e' && aug[1] == 'h')
		p += sizeof(void *);
	uleb(&p); /* code alignment */
	uleb(&p); /* data alignment (signed: only skipped) */
	if (version == 1)
		p++;
	else
		uleb(&p); /* return address register */
	if (aug[0] != 'z')
		return PE_ABSPTR;
	uleb(&p); /* augmentation data's length */
	for (const char *a = (const char *)aug + 1; *a; a++) {
		int ok = 1;

		switch (*a) {
		case 'R':
			return *p;
		case 'L':
			p++;
			break;
		case 'P': {
			uint8_t penc = *p++;

			read_fmt(&p, penc, &ok);
			if (!ok)
				return PE_OMIT;
			break;
		}
		case 'S':
		case 'B':
		case 'G':
			break;
		default:
			return PE_OMIT;
		}
	}
	return PE_ABSPTR;
}

/* The function whose FDE at fde covers pc: its entry, or 0. */
static uint64_t fde_covers(const uint8_t *fde, uint64_t pc)
{
	uint32_t len, cie_off;
	const uint8_t *p = fde + 8;
	uint64_t start, range;
	uint8_t enc;
	int ok = 1;

	memcpy(&len, fde, 4);
	memcpy(&cie_off, fde + 4, 4);
	if (len == 0 || len == 0xffffffffu || cie_off == 0)
		return 0;
	enc = cie_fde_enc(fde + 4 - cie_off);
	if (enc == PE_OMIT)
		return 0;
	start = read_ptr(&p, enc, 0, &ok);
	range = read_fmt(&p, enc, &ok);
	return ok && pc >= start && pc - start < range ? start : 0;
}

struct add_arg {
	uint64_t addr;
	struct codemap m;
	int found;
};

static int add_cb(struct dl_phdr_info *info, size_t size, void *data)
{
	struct add_arg *a = data;
	const ElfW(Phdr) *eh = NULL;
	int has = 0;

	(void)size;
	a->m.lo = UINT64_MAX;
	a->m.hi = 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uint64_t lo = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type == PT_LOAD && a->addr >= lo && a->addr - lo < ph->p_memsz)
			has = 1;
		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X)) {
			a->m.lo = lo < a->m.lo ? lo : a->m.lo;
			a->m.hi = lo + ph->p_memsz > a->m.hi ? lo + ph->p_memsz : a->m.hi;
		}
		if (ph->p_type == PT_GNU_EH_FRAME)
			eh = ph;
	}
	if (!has)
		return 0;
	a->found = 1;
	/* its code's range, even without a search table to name functions by (spy_codemap_holds) */
	a->m.live = a->m.lo < a->m.hi;
	if (eh && a->m.lo < a->m.hi) {
		const uint8_t *h = (const uint8_t *)(uintptr_t)(info->dlpi_addr + eh->p_vaddr), *p = h + 4;
		int ok = 1;
		uint64_t n;

		/* version 1; the table's entries as 32-bit offsets from the header, the linkers' choice */
		if (h[0] != 1 || h[3] != (PE_DATAREL | PE_SDATA4))
			return 1;
		read_ptr(&p, h[1], (uint64_t)(uintptr_t)h, &ok);
		n = read_ptr(&p, h[2], (uint64_t)(uintptr_t)h, &ok);
		if (!ok || !n || n > UINT32_MAX)
			return 1;
		a->m.hdr = h;
		a->m.table = (const int32_t *)(const void *)p;
		a->m.n = (uint32_t)n;
	}
	return 1;
}

/* A module's code that has no entry (past CODEMAP_MAX): spy_codemap_holds says yes to every address. */
static uint32_t maps_lost;

void spy_codemap_add(const void *addr)
{
	struct add_arg a;
	uint32_t n = nmaps;

	memset(&a, 0, sizeof(a));
	a.addr = (uint64_t)(uintptr_t)addr;
	/* every unit of a module registers: the module's entry is made once */
	for (uint32_t i = 0; i < n; i++)
		if (maps[i].live && a.addr >= maps[i].lo && a.addr < maps[i].hi)
			return;
	dl_iterate_phdr(add_cb, &a);
	if (!a.found || !a.m.live)
		return;
	/* a module loaded again where it was: its entry, made anew while readers skip it */
	for (uint32_t i = 0; i < n; i++)
		if (!maps[i].live && maps[i].lo == a.m.lo && maps[i].hi == a.m.hi) {
			a.m.live = 0;
			maps[i] = a.m;
			__atomic_store_n(&maps[i].live, 1, __ATOMIC_RELEASE);
			return;
		}
	/* past the limit a module's calls take the shadow stack's word for their caller, as before */
	if (n == CODEMAP_MAX) {
		__atomic_store_n(&maps_lost, 1, __ATOMIC_RELEASE);
		return;
	}
	maps[n] = a.m;
	__atomic_store_n(&nmaps, n + 1, __ATOMIC_RELEASE);
}

void spy_codemap_drop(const void *addr)
{
	uint64_t pc = (uint64_t)(uintptr_t)addr;

	for (uint32_t i = 0; i < nmaps; i++)
		if (maps[i].live && pc >= maps[i].lo && pc < maps[i].hi)
			__atomic_store_n(&maps[i].live, 0, __ATOMIC_RELEASE);
}

uint64_t spy_codemap_func(uint64_t pc)
{
	uint32_t n = __atomic_load_n(&nmaps, __ATOMIC_ACQUIRE);

	for (uint32_t i = 0; i < n; i++) {
		const struct codemap *m = &maps[i];
		uint64_t h = (uint64_t)(uintptr_t)m->hdr;
		uint32_t lo = 0, hi = m->n;

		if (!__atomic_load_n(&m->live, __ATOMIC_ACQUIRE) || pc < m->lo || pc >= m->hi)
			continue;
		if (!m->n) /* no search table */
			return 0;
		/* the last entry at or before pc */
		while (hi - lo > 1) {
			uint32_t mid = lo + (hi - lo) / 2;

			if (h + (uint64_t)(int64_t)m->table[2 * mid] <= pc)
				lo = mid;
			else
				hi = mid;
		}
		if (h + (uint64_t)(int64_t)m->table[2 * lo] > pc)
			return 0;
		return fde_covers((const uint8_t *)(uintptr_t)(h + (uint64_t)(int64_t)m->table[2 * lo + 1]),
				  pc);
	}
	return 0;
}

int spy_codemap_holds(uint64_t pc)
{
	uint32_t n = __atomic_load_n(&nmaps, __ATOMIC_ACQUIRE);

	if (__atomic_load_n(&maps_lost, __ATOMIC_ACQUIRE))
		return 1;
	for (uint32_t i = 0; i < n; i++)
		if (__atomic_load_n(&maps[i].live, __ATOMIC_ACQUIRE) && pc >= maps[i].lo && pc < maps[i].hi)
			return 1;
	return 0;
}
