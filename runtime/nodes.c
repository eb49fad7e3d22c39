/*
 * Nodes and legs, as Mesa's performance tool had them: a node is a point the program passes
 * (SPY_NODE in the source, or the plugin's node=FILE:LINE), a leg the code run between a from node
 * and a to node. Each thread counts its node hits and times its legs in a table of its own, so a hit
 * takes no lock; only a node's first hit (its registration) and a leg's creation do.
 *
 * Mesa's rules for several threads: a leg's owner is the thread that last passed its from node, and
 * only the owner's pass of the to node closes it; a from node passed again before the to node, or a
 * to node passed in a thread that does not own the leg, loses that opening, which is counted as
 * ignored. Tracking (SPYRT_LEG_TRACK) is none, successor (only the leg from the thread's last node to
 * this one) or all (every leg of the table that this node ends or starts, the default); adding
 * (SPYRT_LEG_ADD) is none (only the legs SPYRT_LEGS names, the default) or successor (also a new leg
 * from the thread's last node to this one). SPYRT_LEGS=from>to,... names legs; "*" at either end
 * adds, as successor adding would, the legs that match. Histograms (SPYRT_HIST) are kept for a node
 * of its values (SPY_NODE_VALUE) or for a leg of its times in nanoseconds.
 */
#include "spyrt.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "spy.h"

#define NODES_MAX 256
#define LEGS_MAX 1024
#define HISTS_MAX 32
#define PATS_MAX 64
#define SITE_DROPPED UINT32_MAX /* a site whose node found the table full */

struct node_def {
	char *name, *file;
	uint32_t line;
	int hist;                    /* index into hists, or -1 */
	uint32_t from_head, to_head; /* the legs it starts and ends: index + 1, 0 none */
};

struct leg_def {
	uint32_t from, to;
	int hist;
	uint32_t next_from, next_to; /* the next leg of the same from node, of the same to node */
	uint32_t owner;              /* the tid of the thread that opened it, 0 none */
};

struct hist_spec {
	int leg; /* 0 a node's, 1 a leg's */
	char *a, *b;
	uint32_t kind, nbuckets;
	uint64_t base, scale;
};

struct leg_pat {
	char *from, *to; /* "*" matches any node */
};

/* One thread's tables. A histogram's row holds under, over, then the buckets. */
struct nodes_thr {
	struct nodes_thr *next;
	uint32_t tid;
	uint32_t last; /* the last node it passed, index + 1 */
	uint64_t last_ns;
	uint64_t dropped;
	struct {
		uint64_t hits, nvalues, sum, min, max;
	} node[NODES_MAX];
	struct {
		uint64_t count, total, min, max, ignored, start;
	} leg[LEGS_MAX];
	uint64_t hist[HISTS_MAX][GMON_NHIST_MAX + 2];
};

static pthread_mutex_t nodes_lock = PTHREAD_MUTEX_INITIALIZER;
static struct node_def nodes[NODES_MAX];
static uint32_t nnodes; /* published with release once a node is complete */
static struct leg_def legs[LEGS_MAX];
static uint32_t nlegs;
static struct hist_spec hists[HISTS_MAX];
static uint32_t nhists;
static struct leg_pat pats[PATS_MAX];
static uint32_t npats;
static uint32_t track = GMON_TRACK_ALL, add_mode = GMON_ADD_NONE;
static int only_set; /* SPYRT_LEG_THREAD */
static pid_t only_tid;
static char only_name[16];
static struct nodes_thr *thr_list;
static struct nodes_thr not_tracked; /* the table of threads SPYRT_LEG_THREAD leaves out */
static SPY_TLS struct nodes_thr *tls_nodes;
/* Node time: CLOCK_MONOTONIC nanoseconds, read as time stamps scaled by ns_mult (ns per cycle <<
 * 32) from the start-up pair (spy_start_tsc, spy_start_mono_ns) once the rate is known: a stated
 * one, or else one measured over the run's first 10 ms; until then by clock_gettime, which costs
 * 5 to 20 times more on a virtual machine. */
static uint64_t ns_mult;
static uint64_t stated_hz; /* spy_tsc_stated_hz(), once */
static int stated_looked;
#define NODE_RATE_NS 10000000u

/* ---- environment ---- */

/* A node name as SPYRT_LEGS and SPYRT_HIST spell it: no blank, comma, colon or '>'. */
static int name_ok(const char *s, size_t n)
{
	if (!n || n > 255)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (s[i] <= ' ' || s[i] == ',' || s[i] == ':' || s[i] == '>' || s[i] == 127)
			return 0;
	return 1;
}

/* "from>to" into a and b (malloc()ed); 0, or -1 when it is not one. */
static int parse_leg(const char *s, size_t n, char **a, char **b)
{
	const char *gt = memchr(s, '>', n);

	if (!gt || !name_ok(s, (size_t)(gt - s)) || !name_ok(gt + 1, n - (size_t)(gt - s) - 1))
		return -1;
	*a = strndup(s, (size_t)(gt - s));
	*b = strndup(gt + 1, n - (size_t)(gt - s) - 1);
	if (!*a || !*b) {
		free(*a);
		free(*b);
		return -1;
	}
	return 0;
}

static int parse_u64(const char *s, uint64_t *v)
{
	char *end;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	*v = strtoull(s, &end, 10);
	return errno || *end ? -1 : 0;
}

static void free_pats(void)
{
	for (uint32_t i = 0; i < npats; i++) {
		free(pats[i].from);
		free(pats[i].to);
	}
	npats = 0;
}

static void free_hists(void)
{
	for (uint32_t i = 0; i < nhists; i++) {
		free(hists[i].a);
		free(hists[i].b);
	}
	nhists = 0;
}

static void legs_env(const char *v)
{
	for (const char *s = v; *s;) {
		size_t n = strcspn(s, ",");

		if (npats == PATS_MAX || parse_leg(s, n, &pats[npats].from, &pats[npats].to)) {
			spy_warn(
				"spy: SPYRT_LEGS='%s' is not a list of at most %d legs FROM>TO (a node name or *); "
				"using none",
				v, PATS_MAX);
			free_pats();
			return;
		}
		npats++;
		s += n;
		s += *s == ',';
	}
}

/* One SPYRT_HIST item: node:NAME:linear:BASE:SCALE:BUCKETS, node:NAME:log[:SCALE], and the same
 * with leg:FROM>TO. Returns 0, or -1 when it is not one. */
static int hist_item(char *it, struct hist_spec *h)
{
	char *f[7];
	int nf = 0;

	for (char *s = it; nf < 7;) {
		f[nf++] = s;
		s = strchr(s, ':');
		if (!s)
			break;
		*s++ = 0;
	}
	if (nf < 3)
		return -1;
	memset(h, 0, sizeof(*h));
	if (!strcmp(f[0], "leg")) {
		h->leg = 1;
		if (parse_leg(f[1], strlen(f[1]), &h->a, &h->b))
			return -1;
		if (!strcmp(h->a, "*") || !strcmp(h->b, "*"))
			return -1;
	} else if (!strcmp(f[0], "node")) {
		if (!name_ok(f[1], strlen(f[1])) || !strcmp(f[1], "*") || !(h->a = strdup(f[1])))
			return -1;
	} else {
		return -1;
	}
	if (!strcmp(f[2], "log") && (nf == 3 || nf == 4)) {
		h->kind = GMON_NHIST_LOG;
		h->nbuckets = GMON_NHIST_MAX;
		if (nf == 4 && (parse_u64(f[3], &h->scale) || h->scale > 63))
			return -1;
		return 0;
	}
	if (!strcmp(f[2], "linear") && nf == 6) {
		uint64_t nb;

		h->kind = GMON_NHIST_LINEAR;
		if (parse_u64(f[3], &h->base) || parse_u64(f[4], &h->scale) || !h->scale ||
		    parse_u64(f[5], &nb) || !nb || nb > GMON_NHIST_MAX)
			return -1;
		h->nbuckets = (uint32_t)nb;
		return 0;
	}
	return -1;
}

static void hist_env(const char *v)
{
	char *copy = strdup(v);

	if (!copy)
		return;
	for (char *s = copy; *s;) {
		size_t n = strcspn(s, ",");
		int last = !s[n];

		s[n] = 0;
		if (nhists == HISTS_MAX || hist_item(s, &hists[nhists])) {
			if (nhists < HISTS_MAX) {
				free(hists[nhists].a);
				free(hists[nhists].b);
			}
			spy_warn(
				"spy: SPYRT_HIST='%s' is not a list of at most %d histograms "
				"node:NAME:linear:BASE:SCALE:BUCKETS (1 to %d buckets), node:NAME:log[:SHIFT], "
				"leg:FROM>TO:linear:... or leg:FROM>TO:log[:SHIFT]; using none",
				v, HISTS_MAX, GMON_NHIST_MAX);
			free_hists();
			break;
		}
		/* one histogram per node or leg: a second one for the same would be dropped unseen */
		int dup = 0;

		for (uint32_t i = 0; i < nhists && !dup; i++)
			dup = hists[i].leg == hists[nhists].leg && !strcmp(hists[i].a, hists[nhists].a) &&
			      (!hists[i].leg || !strcmp(hists[i].b, hists[nhists].b));
		if (dup) {
			spy_warn("spy: SPYRT_HIST has a second histogram for %s %s%s%s; keeping the first",
				 hists[nhists].leg ? "leg" : "node", hists[nhists].a,
				 hists[nhists].leg ? ">" : "", hists[nhists].leg ? hists[nhists].b : "");
			free(hists[nhists].a);
			free(hists[nhists].b);
			memset(&hists[nhists], 0, sizeof(hists[nhists]));
		} else {
			nhists++;
		}
		if (last)
			break;
		s += n + 1;
	}
	free(copy);
}

static int find_node(const char *name);
static int new_node(const char *name, const char *file, uint32_t line);

void spy_nodes_env(char **env)
{
	const char *v;

	v = spy_env_get(env, "SPYRT_LEGS");
	if (v)
		legs_env(v);
	v = spy_env_get(env, "SPYRT_LEG_ADD");
	if (v) {
		if (!strcmp(v, "successor"))
			add_mode = GMON_ADD_SUCCESSOR;
		else if (strcmp(v, "none"))
			spy_warn("spy: SPYRT_LEG_ADD='%s' is not none or successor; using none", v);
	}
	v = spy_env_get(env, "SPYRT_LEG_TRACK");
	if (v) {
		if (!strcmp(v, "none"))
			track = GMON_TRACK_NONE;
		else if (!strcmp(v, "successor"))
			track = GMON_TRACK_SUCCESSOR;
		else if (strcmp(v, "all"))
			spy_warn("spy: SPYRT_LEG_TRACK='%s' is not none, successor or all; using all", v);
	}
	v = spy_env_get(env, "SPYRT_LEG_THREAD");
	if (v) {
		uint64_t tid;

		if (!parse_u64(v, &tid) && tid > 0 && tid <= INT32_MAX) {
			only_set = 1;
			only_tid = (pid_t)tid;
		} else if (*v && strlen(v) < sizeof(only_name) && !(*v >= '0' && *v <= '9')) {
			only_set = 1;
			strcpy(only_name, v);
		} else {
			spy_warn(
				"spy: SPYRT_LEG_THREAD='%s' is not a thread id or a thread name of at most 15 "
				"bytes; tracking every thread",
				v);
		}
	}
	v = spy_env_get(env, "SPYRT_HIST");
	if (v)
		hist_env(v);
	/* the nodes SPYRT_LEGS names exist from the start, so that their legs are open from the first
	 * pass of their from nodes */
	for (uint32_t p = 0; p < npats; p++)
		for (int e = 0; e < 2; e++) {
			const char *name = e ? pats[p].to : pats[p].from;

			if (strcmp(name, "*") && find_node(name) < 0 && new_node(name, "", 0) < 0)
				spy_note_error("more than %d nodes: node %.64s not recorded", NODES_MAX,
					       name);
		}
}

/* ---- the tables ---- */

static int hist_for(int leg, const char *a, const char *b)
{
	for (uint32_t i = 0; i < nhists; i++)
		if (hists[i].leg == leg && !strcmp(hists[i].a, a) && (!leg || !strcmp(hists[i].b, b)))
			return (int)i;
	return -1;
}

static int find_node(const char *name)
{
	for (uint32_t i = 0; i < nnodes; i++)
		if (!strcmp(nodes[i].name, name))
			return (int)i;
	return -1;
}

/* The leg from node a to node b, or -1; lock-free (the lists only grow, published with release). */
static int find_leg(uint32_t a, uint32_t b)
{
	for (uint32_t l = __atomic_load_n(&nodes[a].from_head, __ATOMIC_ACQUIRE); l;
	     l = __atomic_load_n(&legs[l - 1].next_from, __ATOMIC_ACQUIRE))
		if (legs[l - 1].to == b)
			return (int)(l - 1);
	return -1;
}

/* Add the leg a -> b (nodes_lock held); its index, or -1 when the table is full. */
static int add_leg_locked(uint32_t a, uint32_t b)
{
	int l = find_leg(a, b);
	struct leg_def *d;

	if (l >= 0)
		return l;
	if (nlegs == LEGS_MAX)
		return -1;
	d = &legs[nlegs];
	d->from = a;
	d->to = b;
	d->hist = hist_for(1, nodes[a].name, nodes[b].name);
	d->owner = 0;
	d->next_from = nodes[a].from_head;
	d->next_to = nodes[b].to_head;
	nlegs++;
	__atomic_store_n(&nodes[a].from_head, nlegs, __ATOMIC_RELEASE);
	__atomic_store_n(&nodes[b].to_head, nlegs, __ATOMIC_RELEASE);
	return (int)nlegs - 1;
}

/* A new node (nodes_lock held): its index, or -1 when the table is full or memory ran out. The
 * legs SPYRT_LEGS names whose two nodes are then known are added. */
static int new_node(const char *name, const char *file, uint32_t line)
{
	struct node_def *d = &nodes[nnodes];
	int i;

	if (nnodes == NODES_MAX)
		return -1;
	d->name = strdup(name);
	d->file = strdup(file);
	d->line = line;
	d->hist = hist_for(0, name, NULL);
	d->from_head = d->to_head = 0;
	if (!d->name || !d->file) {
		free(d->name);
		free(d->file);
		return -1;
	}
	i = (int)nnodes;
	__atomic_store_n(&nnodes, nnodes + 1, __ATOMIC_RELEASE);
	for (uint32_t p = 0; p < npats; p++) {
		int a = strcmp(pats[p].from, "*") ? find_node(pats[p].from) : -1;
		int b = strcmp(pats[p].to, "*") ? find_node(pats[p].to) : -1;

		if (a >= 0 && b >= 0 && (a == i || b == i) && add_leg_locked((uint32_t)a, (uint32_t)b) < 0)
			spy_note_error("more than %d legs: leg %.64s>%.64s not recorded", LEGS_MAX,
				       pats[p].from, pats[p].to);
	}
	return i;
}

/* The node of a site met for the first time: its index + 1, or SITE_DROPPED. */
static uint32_t register_site(struct spy_node_site *site)
{
	SPY_KEEP_ERRNO;
	uint32_t id;
	int i;

	pthread_mutex_lock(&nodes_lock);
	id = __atomic_load_n(&site->id, __ATOMIC_ACQUIRE);
	if (id)
		goto out;
	i = site->name && name_ok(site->name, strlen(site->name)) ? find_node(site->name) : -2;
	if (i >= 0 && !nodes[i].file[0] && site->file && site->file[0]) {
		/* named first by SPYRT_LEGS: where it is comes with its first pass */
		char *file = strdup(site->file);

		if (file) {
			free(nodes[i].file);
			nodes[i].file = file;
			nodes[i].line = site->line;
		}
	}
	if (i == -1)
		i = new_node(site->name, site->file ? site->file : "", site->line);
	if (i < 0) {
		if (i == -2)
			spy_note_error(
				"a node named '%.64s' (no blank, comma, colon or '>' allowed) not recorded",
				site->name ? site->name : "(null)");
		else
			spy_note_error("more than %d nodes: node %.64s and later ones not recorded",
				       NODES_MAX, site->name);
		id = SITE_DROPPED;
		__atomic_store_n(&site->id, id, __ATOMIC_RELEASE);
		goto out;
	}
	id = (uint32_t)i + 1;
	__atomic_store_n(&site->id, id, __ATOMIC_RELEASE);
out:
	pthread_mutex_unlock(&nodes_lock);
	return id;
}

static int pat_matches(uint32_t a, uint32_t b)
{
	for (uint32_t p = 0; p < npats; p++)
		if ((!strcmp(pats[p].from, "*") || !strcmp(pats[p].from, nodes[a].name)) &&
		    (!strcmp(pats[p].to, "*") || !strcmp(pats[p].to, nodes[b].name)))
			return 1;
	return 0;
}

static int add_leg(uint32_t a, uint32_t b)
{
	int l;

	pthread_mutex_lock(&nodes_lock);
	l = add_leg_locked(a, b);
	pthread_mutex_unlock(&nodes_lock);
	return l;
}

static void hist_add(uint64_t *row, const struct hist_spec *h, uint64_t v)
{
	uint64_t b;

	if (h->kind == GMON_NHIST_LOG) {
		v >>= h->scale;
		b = v ? 64 - (uint64_t)__builtin_clzll(v) : 0;
		row[b < h->nbuckets ? 2 + b : 1]++;
		return;
	}
	if (v < h->base) {
		row[0]++;
		return;
	}
	b = (v - h->base) / h->scale;
	row[b < h->nbuckets ? 2 + b : 1]++;
}

static void leg_record(struct nodes_thr *n, uint32_t l, uint64_t d)
{
	if (!n->leg[l].count || d < n->leg[l].min)
		n->leg[l].min = d;
	if (d > n->leg[l].max)
		n->leg[l].max = d;
	n->leg[l].count++;
	n->leg[l].total += d;
	if (legs[l].hist >= 0)
		hist_add(n->hist[legs[l].hist], &hists[legs[l].hist], d);
}

static void leg_open(struct nodes_thr *n, uint32_t l, uint64_t now)
{
	/* an opening of its own or of another thread's not yet closed is lost */
	if (__atomic_exchange_n(&legs[l].owner, n->tid, __ATOMIC_ACQ_REL))
		n->leg[l].ignored++;
	n->leg[l].start = now;
}

static void leg_close(struct nodes_thr *n, uint32_t l, uint64_t now)
{
	uint32_t o = __atomic_load_n(&legs[l].owner, __ATOMIC_ACQUIRE);

	if (o == n->tid) {
		if (__atomic_compare_exchange_n(&legs[l].owner, &o, 0, 0, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
			leg_record(n, l, now - n->leg[l].start);
	} else if (o) {
		n->leg[l].ignored++; /* another thread's leg: not ours to close */
	}
}

static void track_legs(struct nodes_thr *n, uint32_t id, uint64_t now)
{
	uint32_t prev = n->last;
	int l = -1;

	if (prev) {
		l = find_leg(prev - 1, id);
		if (l < 0 && (add_mode == GMON_ADD_SUCCESSOR || pat_matches(prev - 1, id))) {
			l = add_leg(prev - 1, id);
			if (l < 0)
				n->dropped++;
			else if (track == GMON_TRACK_ALL)
				leg_open(n, (uint32_t)l,
					 n->last_ns); /* born open: its from node was the last */
		}
		if (track == GMON_TRACK_SUCCESSOR && l >= 0)
			leg_record(n, (uint32_t)l, now - n->last_ns);
	}
	if (track != GMON_TRACK_ALL)
		return;
	for (uint32_t k = __atomic_load_n(&nodes[id].to_head, __ATOMIC_ACQUIRE); k;
	     k = __atomic_load_n(&legs[k - 1].next_to, __ATOMIC_ACQUIRE))
		leg_close(n, k - 1, now);
	for (uint32_t k = __atomic_load_n(&nodes[id].from_head, __ATOMIC_ACQUIRE); k;
	     k = __atomic_load_n(&legs[k - 1].next_from, __ATOMIC_ACQUIRE))
		leg_open(n, k - 1, now);
}

static struct nodes_thr *attach(void)
{
	SPY_KEEP_ERRNO;
	pid_t tid = (pid_t)syscall(SYS_gettid);
	struct nodes_thr *n;

	spy_init();
	if (only_set) {
		char name[16] = "";

		pthread_getname_np(pthread_self(), name, sizeof(name));
		if (only_tid ? tid != only_tid : strcmp(name, only_name)) {
			tls_nodes = &not_tracked;
			return &not_tracked;
		}
	}
	/* mmap, not malloc: the program's allocator may be watched (SPYRT_WATCH=alloc) */
	n = mmap(NULL, sizeof(*n), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (n == MAP_FAILED) {
		spy_note_error("no memory for a thread's node tables (%zu bytes)", sizeof(*n));
		tls_nodes = &not_tracked;
		return &not_tracked;
	}
	n->tid = (uint32_t)tid;
	pthread_mutex_lock(&nodes_lock);
	n->next = thr_list;
	thr_list = n;
	pthread_mutex_unlock(&nodes_lock);
	tls_nodes = n;
	return n;
}

static __attribute__((noinline)) uint64_t node_clock(void)
{
	SPY_KEEP_ERRNO;
	uint64_t c, ns, hz;

	spy_tsc_pair(&c, &ns);
	if (!spy_tsc_invariant() || c <= spy_start_tsc || ns <= spy_start_mono_ns)
		return ns;
	if (!__atomic_load_n(&stated_looked, __ATOMIC_ACQUIRE)) {
		__atomic_store_n(&stated_hz, spy_tsc_stated_hz(), __ATOMIC_RELAXED);
		__atomic_store_n(&stated_looked, 1, __ATOMIC_RELEASE);
	}
	hz = __atomic_load_n(&stated_hz, __ATOMIC_RELAXED);
	if (!hz && ns - spy_start_mono_ns >= NODE_RATE_NS)
		hz = (uint64_t)((unsigned __int128)(c - spy_start_tsc) * 1000000000u /
				(ns - spy_start_mono_ns));
	if (hz)
		__atomic_store_n(&ns_mult, (uint64_t)(((unsigned __int128)1000000000u << 32) / hz),
				 __ATOMIC_RELAXED);
	return ns;
}

static inline uint64_t node_now(void)
{
	uint64_t m = __atomic_load_n(&ns_mult, __ATOMIC_RELAXED);

	if (likely(m))
		return spy_start_mono_ns +
		       (uint64_t)(((unsigned __int128)(spy_cycles() - spy_start_tsc) * m) >> 32);
	return node_clock();
}

static void node_hit(struct spy_node_site *site, int has_value, uint64_t value)
{
	struct nodes_thr *n = tls_nodes;
	uint32_t id;
	uint64_t now;

	if (unlikely(!n))
		n = attach();
	if (n == &not_tracked || !(__atomic_load_n(&spy_ctl, __ATOMIC_RELAXED) & SPY_CTL_ON))
		return;
	id = __atomic_load_n(&site->id, __ATOMIC_ACQUIRE);
	if (unlikely(!id))
		id = register_site(site);
	if (id == SITE_DROPPED) {
		n->dropped++;
		return;
	}
	id--;
	now = node_now();
	n->node[id].hits++;
	if (has_value) {
		if (!n->node[id].nvalues || value < n->node[id].min)
			n->node[id].min = value;
		if (value > n->node[id].max)
			n->node[id].max = value;
		n->node[id].nvalues++;
		n->node[id].sum += value;
		if (nodes[id].hist >= 0)
			hist_add(n->hist[nodes[id].hist], &hists[nodes[id].hist], value);
	}
	if (track != GMON_TRACK_NONE)
		track_legs(n, id, now);
	n->last = id + 1;
	n->last_ns = now;
}

SPY_EXPORT void __spy_node(struct spy_node_site *site)
{
	node_hit(site, 0, 0);
}

SPY_EXPORT void __spy_node_value(struct spy_node_site *site, unsigned long long value)
{
	node_hit(site, 1, value);
}

/* ---- reset and writing ---- */

int spy_nodes_passed(void)
{
	return __atomic_load_n(&thr_list, __ATOMIC_ACQUIRE) != NULL;
}

void spy_nodes_reset(void)
{
	pthread_mutex_lock(&nodes_lock);
	for (struct nodes_thr *n = thr_list; n; n = n->next) {
		struct nodes_thr *next = n->next;
		uint32_t tid = n->tid;

		memset(n, 0, sizeof(*n));
		n->next = next;
		n->tid = tid;
	}
	for (uint32_t l = 0; l < nlegs; l++)
		__atomic_store_n(&legs[l].owner, 0, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&nodes_lock);
}

/* A forked child: its one thread has the id of none of the parent's. */
void spy_nodes_forked(void)
{
	struct nodes_thr *n = tls_nodes;

	pthread_mutex_init(&nodes_lock, NULL); /* another thread may have held it at the fork */
	spy_nodes_reset();
	if (n && n != &not_tracked)
		n->tid = (uint32_t)syscall(SYS_gettid);
}

static int copy_hist(struct gmon_nhist *g, int spec, const uint64_t *row)
{
	const struct hist_spec *h;

	if (spec < 0)
		return 0;
	h = &hists[spec];
	g->kind = h->kind;
	g->nbuckets = h->nbuckets;
	g->base = h->base;
	g->scale = h->scale;
	g->under = row[0];
	g->over = row[1];
	g->buckets = malloc(h->nbuckets * sizeof(*g->buckets));
	if (!g->buckets) {
		g->kind = 0;
		g->nbuckets = 0;
		return -1;
	}
	memcpy(g->buckets, row + 2, h->nbuckets * sizeof(*g->buckets));
	return 0;
}

/* One NODES record per thread that passed a node; the first one lists every leg of the table, the
 * others those their thread used. Called while the file is built (threads held). */
int spy_nodes_collect(struct gmon_profile *p)
{
	uint32_t nn, nl, nthr = 0;
	int rc = 0, first = 1;

	pthread_mutex_lock(&nodes_lock);
	nn = nnodes;
	nl = nlegs;
	for (struct nodes_thr *n = thr_list; n; n = n->next)
		nthr++;
	if (!nthr || !nn)
		goto out;
	p->nodesets = calloc(nthr, sizeof(*p->nodesets));
	if (!p->nodesets) {
		rc = -1;
		goto out;
	}
	/* oldest first: the list is pushed at its head */
	for (uint32_t k = nthr; k-- > 0;) {
		struct nodes_thr *n = thr_list;
		struct gmon_nodes *g;
		uint32_t j = 0;

		for (uint32_t s = 0; s < k; s++)
			n = n->next;
		g = &p->nodesets[p->nnodesets++];
		g->tid = n->tid;
		g->track = track;
		g->add = add_mode;
		g->flags = only_set ? GMON_NODES_THREAD_ONLY : 0;
		g->dropped = n->dropped;
		g->nodes = calloc(nn, sizeof(*g->nodes));
		g->legs = calloc(nl ? nl : 1, sizeof(*g->legs));
		if (!g->nodes || !g->legs) {
			rc = -1;
			continue;
		}
		g->nnodes = nn;
		for (uint32_t i = 0; i < nn; i++) {
			struct gmon_node *d = &g->nodes[i];

			d->name = strdup(nodes[i].name);
			d->file = strdup(nodes[i].file);
			d->line = nodes[i].line;
			d->hits = n->node[i].hits;
			d->nvalues = n->node[i].nvalues;
			d->value_sum = n->node[i].sum;
			d->value_min = n->node[i].min;
			d->value_max = n->node[i].max;
			if (!d->name || !d->file ||
			    copy_hist(&d->hist, nodes[i].hist,
				      n->hist[nodes[i].hist < 0 ? 0 : nodes[i].hist]))
				rc = -1;
		}
		for (uint32_t l = 0; l < nl; l++) {
			int open = __atomic_load_n(&legs[l].owner, __ATOMIC_RELAXED) == n->tid;
			struct gmon_leg *d;

			if (!first && !n->leg[l].count && !n->leg[l].ignored && !open)
				continue;
			d = &g->legs[j++];
			d->from = legs[l].from;
			d->to = legs[l].to;
			d->count = n->leg[l].count;
			d->total_ns = n->leg[l].total;
			d->min_ns = n->leg[l].min;
			d->max_ns = n->leg[l].max;
			d->ignored = n->leg[l].ignored;
			d->open = (uint64_t)open;
			if (copy_hist(&d->hist, legs[l].hist, n->hist[legs[l].hist < 0 ? 0 : legs[l].hist]))
				rc = -1;
		}
		g->nlegs = j;
		first = 0;
	}
out:
	pthread_mutex_unlock(&nodes_lock);
	return rc;
}
