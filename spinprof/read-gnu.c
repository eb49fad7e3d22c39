/* GNU mode: glibc's gmon.out (histogram and arc records) for a `gcc -pg` program, with the
 * program's symbols, turned into self time and calls per function exactly as gprof does. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "read.h"
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
	struct gnu_hist *items;
	size_t nr, alloc;
	uint32_t rate;
	double scale; /* gprof's hist_scale: UNITs per bin */
	char dim[16];
	char abbrev;
};

int read_whole(const char *path, uint8_t **buf, size_t *len, char *err, size_t errsz)
{
	int fd = open(path, O_RDONLY);
	if (fd < 0) {
		snprintf(err, errsz, "%s", strerror(errno));
		return -1;
	}
	struct stat st;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		int dir = errno = 0, e = errno;
		if (fstat(fd, &st) == 0)
			dir = S_ISDIR(st.st_mode);
		else
			e = errno;
		snprintf(err, errsz, "%s", e ? strerror(e) : dir ? "is a directory" : "not a regular file");
		close(fd);
		return -1;
	}
	size_t n = (size_t)st.st_size, got = 0;
	uint8_t *b = xmalloc(n + 1);
	while (got < n) {
		ssize_t r = read(fd, b + got, n - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			snprintf(err, errsz, "%s", r < 0 ? strerror(errno) : "file shrank while read");
			free(b);
			close(fd);
			return -1;
		}
		got += (size_t)r;
	}
	close(fd);
	if (n == 0) {
		snprintf(err, errsz, "empty file");
		free(b);
		return -1;
	}
	*buf = b;
	*len = n;
	return 0;
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

/* Parse one file; arcs are appended to *arcs. Returns 0 or -1 with err. */
static int parse_file(struct gnu_data *g, const uint8_t *b, size_t len, struct gnu_arc **arcs, size_t *narcs,
		      size_t *aalloc, char *err, size_t errsz)
{
	if (len < 20 || memcmp(b, "gmon", 4) != 0) {
		snprintf(err, errsz,
			 len < 4 || memcmp(b, "gmon", 4) ? "not a gmon.out file (bad magic)" :
							   "truncated header");
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
	/* room for as many arcs as the file could hold (21 bytes each): growing by copies cost more */
	if (*narcs + len / 21 + 1 > *aalloc) {
		*aalloc = *narcs + len / 21 + 1;
		*arcs = xrealloc(*arcs, *aalloc * sizeof(**arcs));
	}
	size_t off = 20;
	while (off < len) {
		uint8_t tag = b[off++];
		if (tag == GNU_TAG_TIME_HIST) {
			if (len - off < 40) {
				snprintf(err, errsz, "truncated histogram record at offset %zu", off - 1);
				return -1;
			}
			uint64_t lo = le(b + off, 8), hi = le(b + off + 8, 8);
			uint32_t nbins = (uint32_t)le(b + off + 16, 4), rate = (uint32_t)le(b + off + 20, 4);
			char dim[16] = { 0 };
			memcpy(dim, b + off + 24, 15);
			char abbrev = (char)b[off + 39];
			off += 40;
			if (hi < lo || nbins == 0 || (len - off) / 2 < nbins) {
				snprintf(err, errsz, "bad or truncated histogram record at offset %zu",
					 off - 41);
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
			struct gnu_hist *h = NULL;
			for (size_t i = 0; i < g->nr; i++)
				if (g->items[i].lowpc == lo && g->items[i].highpc == hi &&
				    g->items[i].nbins == nbins)
					h = &g->items[i];
			if (!h) {
				for (size_t i = 0; i < g->nr; i++)
					if (lo < g->items[i].highpc && g->items[i].lowpc < hi) {
						snprintf(err, errsz, "overlapping histogram records");
						return -1;
					}
				GROW(g->items, g->nr, g->alloc);
				h = &g->items[g->nr++];
				h->lowpc = lo;
				h->highpc = hi;
				h->nbins = nbins;
				h->samples = xcalloc(nbins, sizeof(double));
			}
			for (uint32_t i = 0; i < nbins; i++)
				h->samples[i] += (double)le(b + off + 2 * (size_t)i, 2);
			off += 2 * (size_t)nbins;
		} else if (tag == GNU_TAG_CG_ARC) {
			if (len - off < 20) {
				snprintf(err, errsz, "truncated arc record at offset %zu", off - 1);
				return -1;
			}
			GROW(*arcs, *narcs, *aalloc);
			struct gnu_arc *a = &(*arcs)[(*narcs)++];
			a->from = le(b + off, 8);
			a->self = le(b + off + 8, 8);
			a->count = le(b + off + 16, 4);
			off += 20;
		} else if (tag == GNU_TAG_BB_COUNT) {
			if (len - off < 4) {
				snprintf(err, errsz, "truncated basic-block record at offset %zu", off - 1);
				return -1;
			}
			uint64_t n = le(b + off, 4);
			off += 4;
			if ((len - off) / 16 < n) {
				snprintf(err, errsz, "truncated basic-block record at offset %zu", off - 5);
				return -1;
			}
			off += 16 * (size_t)n;
		} else {
			snprintf(err, errsz, "unknown record tag %u at offset %zu", tag, off - 1);
			return -1;
		}
	}
	return 0;
}

/* gprof's hist_assign_samples_1: each bin's count credited to the symbols it overlaps. */
static void assign_samples(struct prof *p, const struct gnu_data *g, const struct gnu_hist *h)
{
	uint64_t lowpc = h->lowpc / GNU_UNIT;
	size_t j = 1;
	for (uint32_t i = 0; i < h->nbins; ++i) {
		double count = h->samples[i];
		if (count == 0)
			continue;
		uint64_t bin_lo = lowpc + (uint64_t)(g->scale * i);
		uint64_t bin_hi = lowpc + (uint64_t)(g->scale * (i + 1));
		p->total_time += count;
		for (j = j - 1; j < p->nsyms; ++j) {
			uint64_t sym_lo = p->items[j].addr / GNU_UNIT;
			uint64_t sym_hi = j + 1 < p->nsyms ? p->items[j + 1].addr / GNU_UNIT :
							     (p->items[j].end + GNU_UNIT - 1) / GNU_UNIT;
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
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (lk->addr[mid] <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return PROF_NONE;
	size_t i = lo - 1;
	return pc < lk->end[i] || (lk->end[i] == lk->addr[i] && pc == lk->addr[i]) ? (uint32_t)i : PROF_NONE;
}

int read_gnu(struct prof *p, const char *prog, char **paths, int n, const struct read_opts *o)
{
	char err[256];
	struct symtab t = { 0 };
	if (symtab_load(&t, prog, err, sizeof(err)) < 0) {
		fprintf(stderr, "spinprof: %s: %s\n", prog, err);
		symtab_release(&t);
		return -1;
	}
	struct gnu_data g = { 0 };
	struct gnu_arc *arcs = NULL;
	size_t narcs = 0, aalloc = 0;
	int rc = 0;
	for (int i = 0; i < n && rc == 0; i++) {
		uint8_t *buf;
		size_t len;
		if (read_whole(paths[i], &buf, &len, err, sizeof(err)) < 0 ||
		    (rc = parse_file(&g, buf, len, &arcs, &narcs, &aalloc, err, sizeof(err)), free(buf), rc) <
			    0) {
			fprintf(stderr, "spinprof: %s: %s\n", paths[i], err);
			rc = -1;
		}
	}
	if (rc == 0) {
		p->kind = PROF_GNU;
		p->hz = g.rate ? g.rate : 100;
		p->granularity = (long)g.scale * GNU_UNIT;
		for (size_t i = 0; i < t.nr; i++) {
			const struct symtab_sym *s = &t.items[i];
			char *dm = o->demangle ? symtab_demangle(s->name) : NULL;
			uint32_t k = prof_add_func(p, dm ? dm : s->name, s->addr, s->end);
			free(dm);
			p->items[k].is_static = s->is_static;
			p->items[k].is_func = s->is_func;
			const char *file;
			unsigned line;
			if (s->is_static && symtab_src(&t, s->addr, &file, &line) == 0) {
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
		prof_drop_arc_hash(p);
	}
	for (size_t i = 0; i < g.nr; i++)
		free(g.items[i].samples);
	free(g.items);
	free(arcs);
	symtab_release(&t);
	return rc;
}
