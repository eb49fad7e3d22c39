/* The Nodes and Legs sections (Mesa's node table and leg table) and their histograms, as text bars. */
#include <inttypes.h>
#include <string.h>

#include "esc.h"
#include "nodes.h"
#include "print-nodes.h"

static const char *const track_names[] = { "none", "successor", "all" };

static void print_hist(FILE *f, const struct nm_hist *nh, const char *unit)
{
	const struct gmon_nhist *h = &nh->h;
	uint64_t most = h->under > h->over ? h->under : h->over, n = h->under + h->over;
	uint32_t lo = 0, hi = 0;
	int any = 0;

	for (uint32_t i = 0; i < h->nbuckets; i++) {
		n += h->buckets[i];
		if (h->buckets[i] > most)
			most = h->buckets[i];
		if (h->buckets[i]) {
			if (!any)
				lo = i;
			hi = i;
			any = 1;
		}
	}
	if (h->kind == GMON_NHIST_LOG)
		fprintf(f, "  logarithmic: bucket of value >> %" PRIu64 " by its bits; %" PRIu64 " %s\n",
			h->scale, n, unit);
	else
		fprintf(f,
			"  linear: base %" PRIu64 ", scale %" PRIu64 ", %" PRIu32 " buckets; %" PRIu64
			" %s\n",
			h->base, h->scale, h->nbuckets, n, unit);
	if (nh->mixed)
		fputs("  (records with a histogram of another shape are left out)\n", f);
	/* systemtap's @hist_log: a blank bucket either side of the ones used */
	if (any) {
		lo = lo ? lo - 1 : 0;
		hi = hi + 1 < h->nbuckets ? hi + 1 : hi;
		/* no bucket past 2^63 (the decoder refuses counts there) */
		if (h->kind == GMON_NHIST_LOG && hi > 64 - h->scale)
			hi = (uint32_t)(64 - h->scale);
	}
	fprintf(f, "  %20s |%-50s %s\n", "value", "", "count");
	if (h->kind == GMON_NHIST_LINEAR)
		fprintf(f, "  %20s |%-50.*s %" PRIu64 "\n", "under", (int)(most ? h->under * 50 / most : 0),
			"@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@", h->under);
	for (uint32_t i = lo; any && i <= hi; i++) {
		uint64_t v;

		if (h->kind == GMON_NHIST_LOG)
			v = i ? (uint64_t)1 << (i - 1 + h->scale) : 0;
		else
			v = h->base + (uint64_t)i * h->scale;
		fprintf(f, "  %20" PRIu64 " |%-50.*s %" PRIu64 "\n", v,
			(int)(most ? h->buckets[i] * 50 / most : 0),
			"@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@", h->buckets[i]);
	}
	fprintf(f, "  %20s |%-50.*s %" PRIu64 "\n", "over", (int)(most ? h->over * 50 / most : 0),
		"@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@", h->over);
}

void print_nodes(FILE *f, const struct prof *p, int brief)
{
	struct nodes_model m;
	double run_ns = p->duration_s * 1e9;

	if (nodes_model_build(&m, p))
		return;
	fputs("\f\nNodes\n\n", f);
	if (!brief)
		fputs("A node is a point of the program's own choosing (SPY_NODE, SPY_NODE_VALUE, the plugin's\n"
		      "node=FILE:LINE); hits are its passes in all threads, values what SPY_NODE_VALUE gave.\n\n",
		      f);
	fprintf(f, "%-24s %12s %12s %14s %12s %12s %12s  %s\n", "node", "hits", "values", "sum", "average",
		"min", "max", "where");
	for (size_t i = 0; i < m.nnodes; i++) {
		const struct nm_node *n = &m.nodes[i];

		fprintf(f, "%-24s %12" PRIu64, esc_text(n->name), n->hits);
		if (n->nvalues)
			fprintf(f, " %12" PRIu64 " %14" PRIu64 " %12.2f %12" PRIu64 " %12" PRIu64, n->nvalues,
				n->sum, (double)n->sum / (double)n->nvalues, n->min, n->max);
		else
			fprintf(f, " %12s %14s %12s %12s %12s", "", "", "", "", "");
		if (n->file[0])
			fprintf(f, "  %s:%" PRIu32, esc_text(n->file), n->line);
		fputc('\n', f);
	}
	if (m.dropped)
		fprintf(f, "\n%" PRIu64 " node passes not recorded: the node or leg table was full\n",
			m.dropped);

	fputs("\nLegs\n\n", f);
	if (!brief)
		fprintf(f,
			"A leg is the code run from its from node to its to node, timed in elapsed time. Tracking:\n"
			"%s; adding: %s%s. A leg belongs to the thread that last passed its from node; an opening\n"
			"lost (the from node passed again first, or the to node passed in another thread) counts\n"
			"as ignored. %% run: the leg's time over the run's elapsed time.\n\n",
			m.track <= GMON_TRACK_ALL ? track_names[m.track] : "?",
			m.add == GMON_ADD_SUCCESSOR ? "successor" : "none",
			m.thread_only ? "; one thread only (SPYRT_LEG_THREAD)" : "");
	if (!m.nlegs) {
		fputs("no legs: name them with SPYRT_LEGS=FROM>TO, or SPYRT_LEG_ADD=successor\n", f);
	} else {
		fprintf(f, "%-36s %10s %12s %12s %12s %12s %7s %8s\n", "leg", "count", "total ms",
			"average us", "min us", "max us", "% run", "ignored");
		for (size_t i = 0; i < m.nlegs; i++) {
			const struct nm_leg *l = &m.legs[i];
			char name[512];

			snprintf(name, sizeof(name), "%s -> %s", m.nodes[l->from].name, m.nodes[l->to].name);
			fprintf(f, "%-36s %10" PRIu64 " %12.3f", esc_text(name), l->count,
				(double)l->total_ns / 1e6);
			if (l->count)
				fprintf(f, " %12.3f %12.3f %12.3f",
					(double)l->total_ns / (double)l->count / 1e3, (double)l->min_ns / 1e3,
					(double)l->max_ns / 1e3);
			else
				fprintf(f, " %12s %12s %12s", "-", "-", "-");
			fprintf(f, " %7.2f %8" PRIu64 "%s\n",
				run_ns > 0 ? 100.0 * (double)l->total_ns / run_ns : 0.0, l->ignored,
				l->open ? "  (open at the end)" : "");
		}
	}
	for (size_t i = 0; i < m.nnodes; i++)
		if (m.nodes[i].hist.h.kind) {
			fprintf(f, "\nHistogram of node %s's values\n", esc_text(m.nodes[i].name));
			print_hist(f, &m.nodes[i].hist, "values");
		}
	for (size_t i = 0; i < m.nlegs; i++)
		if (m.legs[i].hist.h.kind) {
			fprintf(f, "\nHistogram of leg %s -> %s, in nanoseconds\n",
				esc_text(m.nodes[m.legs[i].from].name), esc_text(m.nodes[m.legs[i].to].name));
			print_hist(f, &m.legs[i].hist, "legs");
		}
	nodes_model_release(&m);
}
