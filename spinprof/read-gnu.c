/* GNU mode: glibc's gmon.out (histogram and arc records) for a `gcc -pg` program, with the
 * program's symbols, turned into self time and calls per function exactly as gprof does. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "esc.h"
#include "read.h"
#include "sorted.h"
#include "symspec.h"
#include "symtab.h"

#define GNU_TAG_TIME_HIST 0
#define GNU_TAG_CG_ARC 1
#define GNU_TAG_BB_COUNT 2
#define GNU_UNIT 2 /* gprof's sizeof(UNIT): histogram addresses are in 2-byte units */

struct gnu_hist {
	uint64_t lowpc, highpc;
	uint32_t nbins;
	double *samples;
};

struct gnu_data {
	struct gnu_hist *items; /* in the order first read */
	size_t nr, alloc;
	/* items by (lowpc, highpc, nbins): open addressing, index + 1, hsize slots (a power of 2) */
	uint32_t *hidx;
	size_t hsize;
	uint32_t rate;
	double scale; /* gprof's hist_scale: UNITs per bin */
	char dim[16];
	char abbrev;
	unsigned nhist, narcs, nbb; /* records of the last file read (gprof's -i) */
};

/* A glibc gmon.out read in pieces, its header first: a file that is no profile costs its header,
 * and memory follows what the records hold, never the file's size. */
struct gnu_in {
	int fd;
	uint64_t size, at; /* the file's length; the offset of buf[0] */
	size_t pos, len;   /* buf[pos, len) is read and not yet taken */
	uint8_t buf[1 << 16];
};

static uint64_t gnu_left(const struct gnu_in *in)
{
	return in->size - in->at - in->pos;
}

/* The next n bytes (n <= sizeof(buf), n <= gnu_left), or NULL with the reason in err. */
static const uint8_t *gnu_take(struct gnu_in *in, size_t n, char *err, size_t errsz)
{
	if (in->len - in->pos < n) {
		size_t keep = in->len - in->pos, want = sizeof(in->buf) - keep;
		if (want > in->size - in->at - in->len)
			want = (size_t)(in->size - in->at - in->len);
		memmove(in->buf, in->buf + in->pos, keep);
		in->at += in->pos;
		in->pos = 0;
		in->len = keep;
		while (in->len - in->pos < n) {
			ssize_t r = pread(in->fd, in->buf + in->len, want, (off_t)(in->at + in->len));
			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0) {
				snprintf(err, errsz, "%s",
					 r < 0 ? strerror(errno) : "the file shrank while it was read");
				return NULL;
			}
			in->len += (size_t)r;
			want -= (size_t)r;
		}
	}
	in->pos += n;
	return in->buf + in->pos - n;
}

/* Skip n bytes (n <= gnu_left). */
static void gnu_skip(struct gnu_in *in, uint64_t n)
{
	if (n <= in->len - in->pos) {
		in->pos += (size_t)n;
		return;
	}
	in->at += in->pos + n;
	in->pos = in->len = 0;
}

static uint64_t le(const uint8_t *p, int n)
{
	uint64_t v = 0;
	for (int i = n - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

struct gnu_arc {
	uint64_t from, self, count;
};

static size_t hist_slot(const struct gnu_data *g, uint64_t lo, uint64_t hi, uint32_t nbins)
{
	uint64_t h = ((lo * 0x9e3779b97f4a7c15ull) ^ hi) * 0xff51afd7ed558ccdull ^ nbins;
	size_t i = (size_t)(h ^ h >> 29) & (g->hsize - 1);
	while (g->hidx[i]) {
		const struct gnu_hist *e = &g->items[g->hidx[i] - 1];
		if (e->lowpc == lo && e->highpc == hi && e->nbins == nbins)
			break;
		i = (i + 1) & (g->hsize - 1);
	}
	return i;
}

/* The record of this range and size read before, else NULL: one look-up, however many records. */
static struct gnu_hist *hist_find(struct gnu_data *g, uint64_t lo, uint64_t hi, uint32_t nbins)
{
	if (!g->hsize)
		return NULL;
	size_t i = hist_slot(g, lo, hi, nbins);
	return g->hidx[i] ? &g->items[g->hidx[i] - 1] : NULL;
}

/* items[nr - 1], just added, into the index (grown at half full). */
static void hist_index(struct gnu_data *g)
{
	if (2 * g->nr > g->hsize) {
		free(g->hidx);
		g->hsize = g->hsize ? 2 * g->hsize : 1024;
		g->hidx = xcalloc(g->hsize, sizeof(*g->hidx));
		for (size_t k = 0; k < g->nr; k++) {
			const struct gnu_hist *e = &g->items[k];
			g->hidx[hist_slot(g, e->lowpc, e->highpc, e->nbins)] = (uint32_t)k + 1;
		}
		return;
	}
	const struct gnu_hist *e = &g->items[g->nr - 1];
	g->hidx[hist_slot(g, e->lowpc, e->highpc, e->nbins)] = (uint32_t)g->nr;
}

static int hist_lo_cmp(const void *a, const void *b)
{
	const struct gnu_hist *x = *(const struct gnu_hist *const *)a,
			      *y = *(const struct gnu_hist *const *)b;
	if (x->lowpc != y->lowpc)
		return x->lowpc < y->lowpc ? -1 : 1;
	return (x->highpc > y->highpc) - (x->highpc < y->highpc);
}

/* The records by address (lowpc, then highpc): malloc'ed, g->nr of them. */
static const struct gnu_hist **hist_sorted(const struct gnu_data *g)
{
	const struct gnu_hist **v = xmalloc((g->nr + 1) * sizeof(*v));
	for (size_t i = 0; i < g->nr; i++)
		v[i] = &g->items[i];
	qsort(v, g->nr, sizeof(*v), hist_lo_cmp);
	return v;
}

/* Two records of different ranges that share an address (gprof: "overlapping histogram records"):
 * by address, a record overlaps an earlier one when it starts below the highest end before it (an
 * empty range [lo, lo) sorts first among those at lo, which do not reach past lo). */
static int hist_overlap(const struct gnu_data *g)
{
	const struct gnu_hist **v = hist_sorted(g);
	uint64_t maxhi = 0;
	int bad = 0;
	for (size_t i = 0; i < g->nr && !bad; i++) {
		bad = i > 0 && v[i]->lowpc < maxhi;
		if (v[i]->highpc > maxhi)
			maxhi = v[i]->highpc;
	}
	free(v);
	return bad;
}

/* Parse one file; arcs are appended to *arcs. Returns 0 or -1 with err. */
static int parse_file(struct gnu_data *g, struct gnu_in *in, struct gnu_arc **arcs, size_t *narcs,
		      size_t *aalloc, char *err, size_t errsz)
{
	const uint8_t *b = in->size >= 4 ? gnu_take(in, in->size < 20 ? 4 : 20, err, errsz) : NULL;
	if (in->size >= 4 && !b)
		return -1;
	if (in->size < 20 || memcmp(b, "gmon", 4) != 0) {
		snprintf(err, errsz,
			 !b || memcmp(b, "gmon", 4) ? "not a gmon.out file (bad magic)" : "truncated header");
		return -1;
	}
	uint32_t version = (uint32_t)le(b + 4, 4);
	if (version == GMON_SPY_VERSION) {
		snprintf(err, errsz, "a spy profile, not glibc's gmon.out (give it without the program)");
		return -1;
	}
	if (version != 1) {
		snprintf(err, errsz, "unsupported gmon.out version %u", version);
		return -1;
	}
	/* room for the arcs the file could hold (21 bytes each), up to a million: the array grows
	 * beyond, by doubling (a big block's realloc moves no bytes) */
	size_t room = in->size / 21 < (1u << 20) ? (size_t)(in->size / 21) : 1u << 20;
	if (*narcs + room + 1 > *aalloc) {
		*aalloc = *narcs + room + 1;
		*arcs = xrealloc(*arcs, *aalloc * sizeof(**arcs));
	}
	while (gnu_left(in) > 0) {
		uint64_t off = in->at + in->pos;
		if (!(b = gnu_take(in, 1, err, errsz)))
			return -1;
		uint8_t tag = *b;
		g->nhist += tag == GNU_TAG_TIME_HIST;
		g->narcs += tag == GNU_TAG_CG_ARC;
		g->nbb += tag == GNU_TAG_BB_COUNT;
		if (tag == GNU_TAG_TIME_HIST) {
			if (gnu_left(in) < 40) {
				snprintf(err, errsz, "truncated histogram record at offset %" PRIu64, off);
				return -1;
			}
			if (!(b = gnu_take(in, 40, err, errsz)))
				return -1;
			uint64_t lo = le(b, 8), hi = le(b + 8, 8);
			uint32_t nbins = (uint32_t)le(b + 16, 4), rate = (uint32_t)le(b + 20, 4);
			char dim[16] = { 0 };
			memcpy(dim, b + 24, 15);
			char abbrev = (char)b[39];
			if (hi < lo || nbins == 0 || gnu_left(in) / 2 < nbins) {
				snprintf(err, errsz, "bad or truncated histogram record at offset %" PRIu64,
					 off);
				return -1;
			}
			double scale = (double)((hi - lo) / GNU_UNIT) / nbins;
			if (g->nr == 0) {
				g->rate = rate;
				g->scale = scale;
				memcpy(g->dim, dim, 16);
				g->abbrev = abbrev;
			} else if (memcmp(g->dim, dim, 15) != 0 || g->abbrev != abbrev ||
				   (g->scale - scale > 0.000001 || scale - g->scale > 0.000001)) {
				snprintf(err, errsz,
					 "histogram differs from the first one's (scale or unit)");
				return -1;
			}
			/* the same range again (a second file, or a record repeated) adds up; one that
			 * overlaps another is refused once the file is read (hist_overlap) */
			struct gnu_hist *h = hist_find(g, lo, hi, nbins);
			if (!h) {
				GROW(g->items, g->nr, g->alloc);
				h = &g->items[g->nr++];
				h->lowpc = lo;
				h->highpc = hi;
				h->nbins = nbins;
				h->samples = xcalloc(nbins, sizeof(double));
				hist_index(g);
			}
			for (uint32_t i = 0; i < nbins;) {
				uint32_t k =
					nbins - i < sizeof(in->buf) / 2 ? nbins - i : sizeof(in->buf) / 2;
				if (!(b = gnu_take(in, 2 * (size_t)k, err, errsz)))
					return -1;
				for (uint32_t j = 0; j < k; j++, i++)
					h->samples[i] += (double)le(b + 2 * (size_t)j, 2);
			}
		} else if (tag == GNU_TAG_CG_ARC) {
			if (gnu_left(in) < 20) {
				snprintf(err, errsz, "truncated arc record at offset %" PRIu64, off);
				return -1;
			}
			if (!(b = gnu_take(in, 20, err, errsz)))
				return -1;
			GROW(*arcs, *narcs, *aalloc);
			struct gnu_arc *a = &(*arcs)[(*narcs)++];
			a->from = le(b, 8);
			a->self = le(b + 8, 8);
			a->count = le(b + 16, 4);
		} else if (tag == GNU_TAG_BB_COUNT) {
			if (gnu_left(in) < 4) {
				snprintf(err, errsz, "truncated basic-block record at offset %" PRIu64, off);
				return -1;
			}
			if (!(b = gnu_take(in, 4, err, errsz)))
				return -1;
			uint64_t n = le(b, 4);
			if (gnu_left(in) / 16 < n) {
				snprintf(err, errsz, "truncated basic-block record at offset %" PRIu64, off);
				return -1;
			}
			gnu_skip(in, 16 * n);
		} else {
			snprintf(err, errsz, "unknown record tag %u at offset %" PRIu64, tag, off);
			return -1;
		}
	}
	if (hist_overlap(g)) {
		snprintf(err, errsz, "overlapping histogram records");
		return -1;
	}
	return 0;
}

/* Symbol j's end in UNITs, as gprof's hist_assign_samples_1 takes it: the next symbol's start. */
static uint64_t sym_hi_unit(const struct prof *p, size_t j)
{
	return j + 1 < p->nsyms ? p->items[j + 1].addr / GNU_UNIT :
				  (p->items[j].end + GNU_UNIT - 1) / GNU_UNIT;
}

/* gprof's hist_assign_samples_1: each bin's count credited to the symbols it overlaps. gprof walks
 * the symbols from the first for each record (N records of a bin each cost N times the symbols); the
 * walk here starts at the first symbol that ends past the record's first bin, found by bisection:
 * the symbols it skips are the ones gprof's walk passed over without a credit. */
static void assign_samples(struct prof *p, const struct gnu_data *g, const struct gnu_hist *h)
{
	uint64_t lowpc = h->lowpc / GNU_UNIT;
	size_t j = 1, lo = 0, hi = p->nsyms;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (sym_hi_unit(p, mid) <= lowpc)
			lo = mid + 1;
		else
			hi = mid;
	}
	j = lo + 1;
	for (uint32_t i = 0; i < h->nbins; ++i) {
		double count = h->samples[i];
		if (count == 0)
			continue;
		uint64_t bin_lo = lowpc + prof_u64(g->scale * i);
		uint64_t bin_hi = lowpc + prof_u64(g->scale * (i + 1));
		p->total_time += count;
		for (j = j - 1; j < p->nsyms; ++j) {
			uint64_t sym_lo = p->items[j].addr / GNU_UNIT;
			uint64_t sym_hi = sym_hi_unit(p, j);
			if (bin_hi < sym_lo)
				break;
			if (bin_lo >= sym_hi)
				continue;
			uint64_t top = bin_hi < sym_hi ? bin_hi : sym_hi;
			uint64_t bot = bin_lo > sym_lo ? bin_lo : sym_lo;
			if (top > bot)
				p->items[j].time += (double)(top - bot) * count / g->scale;
		}
		if (j == 0)
			j = 1;
	}
}

/* prof_lookup over packed copies of the functions' addresses, ends and kinds, with a bucket index
 * over the address range: two million lookups for a million arcs, each a short search. */
struct gnu_lookup {
	uint64_t *addr, *end;
	unsigned char *is_func;
	size_t n;
	uint32_t *start; /* [b]: the first function in bucket b or later; [nb] = n */
	size_t nb;
	int shift;
};

static void lookup_init(struct gnu_lookup *lk, const struct prof *p)
{
	size_t n = lk->n = p->nsyms;
	lk->addr = xmalloc((n + 1) * sizeof(uint64_t));
	lk->end = xmalloc((n + 1) * sizeof(uint64_t));
	lk->is_func = xmalloc(n + 1);
	for (size_t i = 0; i < n; i++) {
		lk->addr[i] = p->items[i].addr;
		lk->end[i] = p->items[i].end;
		lk->is_func[i] = p->items[i].is_func;
	}
	uint64_t range = n ? lk->addr[n - 1] - lk->addr[0] : 0;
	lk->shift = 0;
	while ((range >> lk->shift) > 2 * (uint64_t)n)
		lk->shift++;
	lk->nb = (size_t)(range >> lk->shift) + 1;
	lk->start = xmalloc((lk->nb + 1) * sizeof(uint32_t));
	size_t i = 0;
	for (size_t b = 0; b < lk->nb; b++) {
		while (i < n && ((lk->addr[i] - lk->addr[0]) >> lk->shift) < b)
			i++;
		lk->start[b] = (uint32_t)i;
	}
	lk->start[lk->nb] = (uint32_t)n;
}

static void lookup_release(struct gnu_lookup *lk)
{
	free(lk->addr);
	free(lk->end);
	free(lk->is_func);
	free(lk->start);
}

/* Same answer as prof_lookup. */
static uint32_t lookup(const struct gnu_lookup *lk, uint64_t pc)
{
	if (lk->n == 0 || pc < lk->addr[0])
		return PROF_NONE;
	/* lo: the first function above pc; all before the bucket of pc are at or below it */
	uint64_t b = (pc - lk->addr[0]) >> lk->shift;
	size_t lo, hi;
	if (b >= lk->nb) {
		lo = hi = lk->n;
	} else {
		lo = lk->start[b];
		hi = lk->start[b + 1];
	}
	lo += sorted_upper(lk->addr + lo, hi - lo, sizeof(*lk->addr), 0, pc);
	if (lo == 0)
		return PROF_NONE;
	size_t i = lo - 1;
	return pc < lk->end[i] || (lk->end[i] == lk->addr[i] && pc == lk->addr[i]) ? (uint32_t)i : PROF_NONE;
}

/* Some record's range holds a: the records by address do not overlap, so the one below a is the one. */
static int in_hist(const struct gnu_hist *const *v, size_t n, uint64_t a)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (v[mid]->lowpc <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo > 0 && a < v[lo - 1]->highpc;
}

/* gprof's -c for x86 (i386_find_call): every byte 0xe8 of a function's code read as a call rel32,
 * an arc of count 0 to the function that starts at its target. As gprof, the offset is taken
 * unsigned (a call backwards lands beyond the program and is not found), the target must be in a
 * histogram's range, and the scan goes on inside the bytes of a call it found. */
static void static_calls(struct prof *p, const struct symtab *t, const struct gnu_data *g)
{
	if (!t->text)
		return;
	const struct gnu_hist **byaddr = hist_sorted(g);
	for (size_t i = 0; i < p->nsyms; i++) {
		uint64_t lo = p->items[i].addr,
			 hi = i + 1 < p->nsyms ? p->items[i + 1].addr : p->items[i].end;
		if (lo < t->text_lo)
			lo = t->text_lo;
		if (hi > t->text_hi - 4)
			hi = t->text_hi - 4;
		for (uint64_t pc = lo; pc < hi; pc++) {
			const uint8_t *b = t->text + (pc - t->text_lo);
			if (b[0] != 0xe8)
				continue;
			uint64_t dest = (uint64_t)(uint32_t)le(b + 1, 4) + pc + 5;
			if (!in_hist(byaddr, g->nr, (uint32_t)dest))
				continue;
			uint32_t child = prof_lookup(p, dest);
			if (child != PROF_NONE && p->items[child].addr == dest)
				prof_add_arc(p, (uint32_t)i, child, 0);
		}
	}
	free(byaddr);
}

/* gprof's -i: what the file holds, in gprof's words. */
static void file_info(const char *path, const struct gnu_data *g)
{
	printf("File `%s' (version 1) contains:\n", esc_text(path));
	printf(g->nhist == 1 ? "\t%u histogram record\n" : "\t%u histogram records\n", g->nhist);
	printf(g->narcs == 1 ? "\t%u call-graph record\n" : "\t%u call-graph records\n", g->narcs);
	printf(g->nbb == 1 ? "\t%u basic-block count record\n" : "\t%u basic-block count records\n", g->nbb);
}

/* -l: a symbol's name as gprof prints it at line granularity, "NAME (FILE:LINE @ ADDR)" with FILE's
 * base name (-L: its path), or NAME alone where there is no line; with at 0 (--inline-file-names) "NAME (FILE:LINE)". */
static void line_name(struct prof *p, uint32_t k, struct symtab *t, const struct symtab_sym *s,
		      const struct read_opts *o, int at)
{
	int demangle = o->demangle;
	const char *file;
	unsigned line;
	char *dm = demangle ? symtab_demangle(s->name) : NULL;
	if (symtab_src(t, s->addr, &file, &line) < 0) {
		prof_set_name(&p->items[k], s->name, dm);
		return;
	}
	const char *base = strrchr(file, '/'); /* -L: the whole path, as gprof's print_path */
	base = base && !o->full_path ? base + 1 : file;
	size_t n = strlen(s->name) + strlen(base) + (dm ? strlen(dm) : 0) + 64;
	char *raw = xmalloc(n), *shown = dm ? xmalloc(n) : NULL;
	if (at) {
		snprintf(raw, n, "%s (%s:%u @ %llx)", s->name, base, line, (unsigned long long)s->addr);
		if (dm)
			snprintf(shown, n, "%s (%s:%u @ %llx)", dm, base, line, (unsigned long long)s->addr);
	} else {
		snprintf(raw, n, "%s (%s:%u)", s->name, base, line);
		if (dm)
			snprintf(shown, n, "%s (%s:%u)", dm, base, line);
	}
	free(dm);
	prof_set_name(&p->items[k], raw, shown);
	free(raw);
	/* sorted as gprof sorts them: on the symbol's name, then by address */
	free(p->items[k].key);
	p->items[k].key = xstrdup(s->name);
}

/* Append n bytes (n <= 8) of v, little-endian, to buf at *len. */
static void put_le(uint8_t *buf, size_t *len, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		buf[(*len)++] = (uint8_t)(v >> 8 * i);
}

/* gprof -s: the summed profile as gprof's gmon_out_write writes it, from the line symbols' model
 * (gprof's --sum implies --line): the header (its spare bytes zero, as glibc's; gprof leaves them
 * uninitialized), each histogram record as read (bins summed, 16 bits each), then the arcs, a
 * record per (calling line, called function), by caller address and, for one caller, last
 * seen first (gprof prepends to a symbol's children), counts summed to 32 bits. */
static int write_sum(const char *path, const struct prof *p, const struct gnu_data *g)
{
	size_t size = 20;
	for (size_t i = 0; i < g->nr; i++)
		size += 41 + 2 * (size_t)g->items[i].nbins;
	size += 21 * p->narcs;
	uint8_t *buf = xmalloc(size);
	size_t len = 0;
	memcpy(buf, "gmon", 4);
	len = 4;
	put_le(buf, &len, 1, 4);
	memset(buf + len, 0, 12); /* spare */
	len += 12;
	for (size_t i = 0; i < g->nr; i++) {
		const struct gnu_hist *h = &g->items[i];
		put_le(buf, &len, GNU_TAG_TIME_HIST, 1);
		put_le(buf, &len, h->lowpc, 8);
		put_le(buf, &len, h->highpc, 8);
		put_le(buf, &len, h->nbins, 4);
		put_le(buf, &len, g->rate, 4);
		memcpy(buf + len, g->dim, 15);
		len += 15;
		buf[len++] = (uint8_t)g->abbrev;
		for (uint32_t k = 0; k < h->nbins; k++)
			put_le(buf, &len, (uint64_t)h->samples[k], 2);
	}
	/* arcs by caller; within one, latest first: a counting sort on the callers, filled backwards */
	uint32_t *first = xcalloc(p->nsyms + 1, sizeof(uint32_t)),
		 *order = xmalloc((p->narcs + 1) * sizeof(uint32_t));
	for (size_t i = 0; i < p->narcs; i++)
		first[p->arcs[i].parent + 1]++;
	for (size_t k = 0; k < p->nsyms; k++)
		first[k + 1] += first[k];
	for (size_t i = p->narcs; i-- > 0;)
		order[first[p->arcs[i].parent]++] = (uint32_t)i;
	for (size_t j = 0; j < p->narcs; j++) {
		const struct prof_arc *a = &p->arcs[order[j]];
		put_le(buf, &len, GNU_TAG_CG_ARC, 1);
		put_le(buf, &len, p->items[a->parent].addr, 8);
		put_le(buf, &len, p->items[a->child].addr, 8);
		put_le(buf, &len, a->count, 4);
	}
	free(first);
	free(order);
	char err[256];
	/* gmon.sum, a fixed name: whatever is there is replaced, never written into (flags 0) */
	int rc = gmon_write_file(path, buf, len, 0, err, sizeof(err));
	free(buf);
	if (rc < 0)
		esc_msg("spinprof: %s: %s\n", path, err);
	return rc;
}

int read_gnu(struct prof *p, const char *prog, char **paths, int n, const struct read_opts *o)
{
	char err[256];
	struct symtab t = { .no_static = o->no_static,
			    .only_funcs = o->only_funcs,
			    .want_text = o->static_calls,
			    .ext_syms = o->ext_syms,
			    .map = o->map };
	prof_reading(prog);
	if (symtab_load(&t, prog, err, sizeof(err)) < 0) {
		/* the program was read (t.path) when what failed is -S's file */
		esc_msg("spinprof: %s: %s\n", o->ext_syms && t.path ? o->ext_syms : prog, err);
		symtab_release(&t);
		return -1;
	}
	/* gprof: an external symbol table has no lines, -l or not */
	if (o->lines && !o->ext_syms && symtab_add_lines(&t) < 0) {
		esc_msg("spinprof: %s: no line information for -l\n", prog);
		symtab_release(&t);
		return -1;
	}
	struct gnu_data g = { 0 };
	struct gnu_arc *arcs = NULL;
	size_t narcs = 0, aalloc = 0;
	int rc = 0;
	for (int i = 0; i < n && rc == 0; i++) {
		static struct gnu_in in; /* its buffer is big; spinprof reads one file at a time */
		struct stat st;
		prof_reading(paths[i]);
		in.fd = gmon_open_regular(paths[i], err, sizeof(err));
		rc = in.fd < 0 ? -1 : 0;
		if (rc == 0 && fstat(in.fd, &st) < 0) {
			snprintf(err, sizeof(err), "%s", strerror(errno));
			rc = -1;
		} else if (rc == 0 && st.st_size == 0) {
			snprintf(err, sizeof(err), "empty file");
			rc = -1;
		} else if (rc == 0) {
			in.size = (uint64_t)st.st_size;
			in.at = in.pos = in.len = 0;
			g.nhist = g.narcs = g.nbb = 0;
			rc = parse_file(&g, &in, &arcs, &narcs, &aalloc, err, sizeof(err));
			if (rc == 0 && o->file_info)
				file_info(paths[i], &g);
		}
		if (in.fd >= 0)
			close(in.fd);
		if (rc < 0)
			esc_msg("spinprof: %s: %s\n", paths[i], err);
	}
	prof_reading(NULL);
	if (rc == 0) {
		p->kind = PROF_GNU;
		p->lines = o->lines;
		p->hz = g.rate ? g.rate : 100;
		/* gprof's (long)scale * 2, kept in range: a histogram's range may be absurd */
		p->granularity = g.scale < 1e18 ? (long)g.scale * GNU_UNIT : LONG_MAX;
		for (size_t i = 0; i < t.nr; i++) {
			const struct symtab_sym *s = &t.items[i];
			uint32_t k = prof_add_func(p, NULL, s->addr, s->end);
			/* -S: gprof knows no symbol's source */
			int src = !o->ext_syms;
			if ((o->lines || o->inline_names) && src)
				line_name(p, k, &t, s, o, o->lines);
			else
				prof_set_name(&p->items[k], s->name,
					      o->demangle ? symtab_demangle(s->name) : NULL);
			p->items[k].is_static = s->is_static;
			p->items[k].is_func = s->is_func;
			p->items[k].mapped = s->mapped;
			const char *file;
			unsigned line;
			if (src && o->sources && symtab_src(&t, s->addr, &file, &line) == 0) {
				p->items[k].src = xstrdup(file);
				p->items[k].src_line = line;
			}
			p->items[k].src_order = s->order;
			/* a static function's file, for the index (-l's names have it already), and every
			 * function's when a symspec names files or lines */
			if (src && ((s->is_static && !o->lines) || o->need_source) &&
			    symtab_src(&t, s->addr, &file, &line) == 0) {
				p->items[k].file = xstrdup(file);
				p->items[k].line = line;
			}
		}
		for (size_t i = 0; i < g.nr; i++)
			assign_samples(p, &g, &g.items[i]);
		/* Each arc's ends first (binary searches over packed addresses), then the arcs added,
		 * each one's hash slot loaded a little ahead. */
		struct gnu_lookup lk;
		lookup_init(&lk, p);
		uint32_t *ends = xmalloc((2 * narcs + 1) * sizeof(uint32_t));
		for (size_t i = 0; i < narcs; i++) {
			uint32_t parent = lookup(&lk, arcs[i].from), child = lookup(&lk, arcs[i].self);
			if (parent != PROF_NONE && child != PROF_NONE) {
				while (child > 0 && !lk.is_func[child])
					--child;
				if (!lk.is_func[child])
					parent = PROF_NONE;
			}
			ends[2 * i] = parent;
			ends[2 * i + 1] = child;
		}
		lookup_release(&lk);
		prof_reserve_arcs(p, narcs, 1);
		for (size_t i = 0; i < narcs; i++) {
			uint32_t parent = ends[2 * i], child = ends[2 * i + 1];
			if (i + 8 < narcs && ends[2 * i + 16] != PROF_NONE && ends[2 * i + 17] != PROF_NONE)
				prof_arc_prefetch(p, ends[2 * i + 16], ends[2 * i + 17]);
			if (parent == PROF_NONE || child == PROF_NONE)
				continue;
			p->items[child].ncalls += arcs[i].count;
			prof_add_arc(p, parent, child, arcs[i].count);
		}
		free(ends);
		/* gprof writes the sum before -c's arcs are added, without the arcs its symspecs leave
		 * out (cg_tally never adds them); applying them again later changes nothing */
		if (o->sum_path && o->specs)
			symspecs_apply(o->specs, p);
		if (o->sum_path && write_sum(o->sum_path, p, &g) < 0)
			rc = -1;
		if (o->static_calls)
			static_calls(p, &t, &g);
		prof_drop_arc_hash(p);
	}
	for (size_t i = 0; i < g.nr; i++)
		free(g.items[i].samples);
	free(g.items);
	free(g.hidx);
	free(arcs);
	symtab_release(&t);
	return rc;
}
