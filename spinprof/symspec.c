/* gprof's symspecs, parsed and matched as its sym_ids.c does: a table is "empty" when no function
 * matched any of its specs (not when no spec was given), and a FROM/TO spec is an arc filter. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "symspec.h"

static void pat_free(struct symspec_pat *m)
{
	free(m->file);
	free(m->name);
}

/* gprof's parse_spec: FILE:(FUNC|LINE); without a colon a FILE if it has a dot, a LINE if it
 * starts with a digit, else a FUNC. gprof compares only the last component of a file's path, so a
 * spec's file with a '/' names no file. */
static void parse_pat(struct symspec_pat *m, const char *spec)
{
	const char *colon = strrchr(spec, ':'), *rest = spec;
	memset(m, 0, sizeof(*m));
	if (colon) {
		if (colon > spec)
			m->file = strndup(spec, (size_t)(colon - spec));
		rest = colon + 1;
	} else if (strchr(spec, '.')) {
		m->file = xstrdup(spec);
		rest = "";
	}
	if (!m->file && !colon && !spec[0])
		return;
	if (rest[0] && isdigit((unsigned char)rest[0]))
		m->line = (uint32_t)strtoul(rest, NULL, 10); /* gprof: atoi */
	else if (rest[0])
		m->name = xstrdup(rest);
	if (m->file && strchr(m->file, '/'))
		m->no_file = 1;
}

void symspecs_add(struct symspecs *s, const char *spec, enum symspec_table table)
{
	GROW(s->items, s->nr, s->alloc);
	struct symspec *x = &s->items[s->nr++];
	memset(x, 0, sizeof(*x));
	x->table = table;
	char *copy = xstrdup(spec), *slash = strchr(copy, '/');
	if (slash) {
		*slash = '\0';
		parse_pat(&x->right, slash + 1);
		x->has_right = 1;
	}
	parse_pat(&x->left, copy);
	free(copy);
}

int symspecs_need_source(const struct symspecs *s)
{
	for (size_t i = 0; i < s->nr; i++) {
		const struct symspec *x = &s->items[i];
		if (x->left.file || x->left.line || x->right.file || x->right.line)
			return 1;
	}
	return 0;
}

static int pat_match(const struct symspec_pat *m, const struct prof_func *f)
{
	if (m->no_file)
		return 0;
	if (m->file) {
		if (!f->file)
			return 0;
		const char *base = strrchr(f->file, '/');
		if (strcmp(m->file, base ? base + 1 : f->file) != 0)
			return 0;
	}
	if (m->line && m->line != f->line)
		return 0;
	return !m->name || strcmp(m->name, prof_key(f)) == 0;
}

/* The arc parent -> child is in table t: some FROM/TO spec of t matches both ends. */
static int arc_in(const struct symspecs *s, enum symspec_table t, const struct prof_func *parent,
		  const struct prof_func *child)
{
	for (size_t i = 0; i < s->nr; i++) {
		const struct symspec *x = &s->items[i];
		if (x->table == t && x->has_right && pat_match(&x->left, parent) &&
		    pat_match(&x->right, child))
			return 1;
	}
	return 0;
}

int symspecs_in_flat(const struct prof *p, const struct prof_func *f)
{
	if (f->spec & (1u << SYMSPEC_INCL_FLAT))
		return 1;
	return !(p->spec_used & (1u << SYMSPEC_INCL_FLAT)) && !(f->spec & (1u << SYMSPEC_EXCL_FLAT));
}

int symspecs_in(const struct prof *p, const struct prof_func *f, enum symspec_table incl,
		enum symspec_table excl)
{
	if (f->spec & (1u << incl))
		return 1;
	return !(p->spec_used & (1u << incl)) && !(f->spec & (1u << excl));
}

void symspecs_apply(const struct symspecs *s, struct prof *p)
{
	if (s->nr == 0)
		return;
	for (size_t i = 0; i < p->nsyms; i++) {
		struct prof_func *f = &p->items[i];
		char first = prof_key(f)[0];
		for (size_t k = 0; k < s->nr; k++) {
			const struct symspec *x = &s->items[k];
			const struct symspec_pat *m = &x->left;
			/* a bare name whose first byte differs, the common case (gprof's six default
			 * exclusions are tried on every function), needs no call */
			if (m->name && !m->file && !m->line && !m->no_file && m->name[0] != first)
				continue;
			/* an arc spec's left side fills its table too, as in gprof */
			if (pat_match(m, f)) {
				f->spec |= 1u << x->table;
				p->spec_used |= 1u << x->table;
			}
		}
	}
	/* gprof's cg_tally: an arc counts when in INCL_ARCS, or that table is empty and it is not in
	 * EXCL_ARCS; one left out takes its calls with it */
	int incl = (p->spec_used & (1u << SYMSPEC_INCL_ARCS)) != 0;
	int excl = (p->spec_used & (1u << SYMSPEC_EXCL_ARCS)) != 0;
	if (incl || excl) {
		size_t dst = 0;
		for (size_t i = 0; i < p->narcs; i++) {
			struct prof_arc *a = &p->arcs[i];
			struct prof_func *parent = &p->items[a->parent], *child = &p->items[a->child];
			int keep = incl ? arc_in(s, SYMSPEC_INCL_ARCS, parent, child) :
					  !arc_in(s, SYMSPEC_EXCL_ARCS, parent, child);
			if (!keep) {
				child->ncalls -= a->count < child->ncalls ? a->count : child->ncalls;
				continue;
			}
			if (p->arc_off)
				p->arc_off[dst] = p->arc_off[i];
			p->arcs[dst++] = *a;
		}
		p->narcs = dst;
		prof_drop_arc_hash(p);
	}
	/* gprof's hist_assign_samples credits only the flat profile's functions, and takes what it
	 * does not credit off the total; a spy profile's measured times stay whole (the flat profile
	 * shows its functions' share of theirs) */
	if (p->kind == PROF_GNU && (p->spec_used & (1u << SYMSPEC_INCL_FLAT | 1u << SYMSPEC_EXCL_FLAT))) {
		for (size_t i = 0; i < p->nsyms; i++) {
			struct prof_func *f = &p->items[i];
			if (!symspecs_in_flat(p, f)) {
				p->total_time -= f->time;
				f->time = 0;
			}
		}
	}
}

void symspecs_release(struct symspecs *s)
{
	for (size_t i = 0; i < s->nr; i++) {
		pat_free(&s->items[i].left);
		pat_free(&s->items[i].right);
	}
	free(s->items);
	memset(s, 0, sizeof(*s));
}

/* One side's copies: one per run of consecutive matching functions, chained last run first. */
static uint32_t side_copies(const struct symspec_pat *m, const struct prof *p, struct symspec_copies *c)
{
	uint32_t first = PROF_NONE;
	size_t prev = (size_t)-1;
	for (size_t i = 0; i < p->nsyms; i++) {
		if (!pat_match(m, &p->items[i]))
			continue;
		if (prev == (size_t)-1 || prev + 1 != i) {
			size_t na = c->alloc;
			GROW(c->sym, c->n, c->alloc);
			if (c->alloc != na)
				c->next = xrealloc(c->next, c->alloc * sizeof(*c->next));
			c->sym[c->n] = (uint32_t)i;
			c->next[c->n] = first;
			first = (uint32_t)c->n++;
		}
		prev = i;
	}
	return first;
}

void symspecs_copies(const struct symspecs *s, const struct prof *p, struct symspec_copies *c)
{
	for (size_t k = s->nr; k-- > 0;) {
		const struct symspec *x = &s->items[k];
		if (!x->has_right)
			continue;
		uint32_t left = side_copies(&x->left, p, c), right = side_copies(&x->right, p, c);
		for (uint32_t l = left; l != PROF_NONE; l = c->next[l])
			for (uint32_t r = right; r != PROF_NONE; r = c->next[r]) {
				size_t na = c->arcs_alloc;
				GROW(c->from, c->narcs, c->arcs_alloc);
				if (c->arcs_alloc != na)
					c->to = xrealloc(c->to, c->arcs_alloc * sizeof(*c->to));
				c->from[c->narcs] = l;
				c->to[c->narcs++] = r;
			}
	}
}

void symspec_copies_release(struct symspec_copies *c)
{
	free(c->sym);
	free(c->next);
	free(c->from);
	free(c->to);
	memset(c, 0, sizeof(*c));
}
