/* Dominators of a call graph with a virtual root, and the Spy's layout of the dominator tree:
 * each node once, under its immediate dominator, siblings grouped into disjoint sets. */
#ifndef SPINPROF_DOM_H
#define SPINPROF_DOM_H

#include <stddef.h>
#include <stdint.h>

#define DOM_NONE UINT32_MAX

/* A directed graph in compressed rows; node 0 is the virtual root. */
struct dom_graph {
	uint32_t n;
	uint32_t *succ0, *succ; /* successors of v: succ[succ0[v] .. succ0[v + 1]) */
	uint32_t *pred0, *pred; /* predecessors, the same way */
};

/*
 * Build g over n nodes (n >= 1) from nedges pairs edges[2i] -> edges[2i+1]. Every node is made
 * reachable from the root: the root gets an edge to each node without a predecessor (other than
 * itself), then to each node still unreachable (an island of recursion nobody calls), taken in
 * order[] (n entries, any permutation; NULL: by number), so the caller picks which member of an
 * island sits at its top. Duplicate edges and self loops are kept; edges to 0 are ignored.
 */
void dom_graph_build(struct dom_graph *g, uint32_t n, const uint32_t *edges, size_t nedges,
		     const uint32_t *order);
/* Free what g owns. */
void dom_graph_release(struct dom_graph *g);
/* 1 when g has an edge from -> to. */
int dom_has_edge(const struct dom_graph *g, uint32_t from, uint32_t to);

/* The immediate dominator of every node, by Cooper, Harvey and Kennedy's iterative algorithm over
 * a reverse postorder found without recursion; idom[0] is 0. Caller frees. */
uint32_t *dom_idom(const struct dom_graph *g);

/* One printed line of the tree, in print order (preorder, siblings by set, then heaviest first). */
struct dom_row {
	uint32_t node;
	uint32_t depth;        /* 0: a child of the root */
	uint32_t parent;       /* its immediate dominator (0: the root) */
	uint32_t set;          /* siblings with the same set never reach one another */
	char enter;            /* '!' same set as the previous sibling, '.' otherwise */
	char lead;             /* toward the next sibling: '!' same set, '.' another set, ' ' none */
	unsigned indirect : 1; /* its parent is not the root and does not call it directly */
};

/*
 * Lay out the dominator tree: the rows of every node with show[v] set, and of every node above a
 * shown one (so the indentation never lies), each exactly once. Siblings are split into disjoint
 * sets first-fit in order of weight (heaviest first), searching reachability inside their
 * parent's subtree (any path between two siblings stays there); once *budget edge visits are
 * spent, further siblings each get a set of their own, which is still true. Returns the number of
 * rows (*rows malloc()ed, caller frees).
 */
size_t dom_layout(const struct dom_graph *g, const uint32_t *idom, const double *weight,
		  const unsigned char *show, uint64_t *budget, struct dom_row **rows);

#endif
