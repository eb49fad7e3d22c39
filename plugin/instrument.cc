/* The plugin's pass (before "optimized", once per emitted body): it inserts
 * the add-one counter and the entry hook, the exit hook before every return,
 * the tail hook before every tail call and the catch hook after every C++
 * catch, and emits the function's record into the spy_funcs section. */
#include "gcc-common.h"
#include "spyinstr.h"
#include "spy-abi.h"

#define SPY_CXA_BEGIN_CATCH "__cxa_begin_catch"
#define SPY_START_SYMBOL "__start_" SPY_FUNCS_SECTION
#define SPY_STOP_SYMBOL "__stop_" SPY_FUNCS_SECTION
/* Registration runs before every constructor a program may write (101 and
 * up) and unregistration after every such destructor. */
#define SPY_CDTOR_PRIORITY MAX_RESERVED_INIT_PRIORITY

static tree spy_enter_decl;
static tree spy_exit_decl;
static tree spy_slow_decl;
static tree spy_catch_decl;
static tree spy_arc_decl;
static tree spy_arc_miss_decl;
static tree spy_tail_decl;
static tree spy_counts_decl;
static tree spy_register_decl;
static tree spy_unregister_decl;
static tree spy_start_decl;
static tree spy_stop_decl;
static tree spy_node_decl;
static tree spy_node_type;

const struct ggc_root_tab spy_ggc_roots[] = {
	{ &spy_enter_decl, 1, sizeof(spy_enter_decl), gt_ggc_mx_tree_node, gt_pch_nx_tree_node },
	{ &spy_exit_decl, 1, sizeof(spy_exit_decl), gt_ggc_mx_tree_node, gt_pch_nx_tree_node },
	{ &spy_slow_decl, 1, sizeof(spy_slow_decl), gt_ggc_mx_tree_node, gt_pch_nx_tree_node },
	{ &spy_catch_decl, 1, sizeof(spy_catch_decl), gt_ggc_mx_tree_node, gt_pch_nx_tree_node },
	{ &spy_arc_decl, 1, sizeof(spy_arc_decl), gt_ggc_mx_tree_node, gt_pch_nx_tree_node },
	{ &spy_arc_miss_decl, 1, sizeof(spy_arc_miss_decl), gt_ggc_mx_tree_node, gt_pch_nx_tree_node },
	{ &spy_node_decl, 1, sizeof(spy_node_decl), gt_ggc_mx_tree_node, gt_pch_nx_tree_node },
	{ &spy_node_type, 1, sizeof(spy_node_type), gt_ggc_mx_tree_node, gt_pch_nx_tree_node },
	{ &spy_tail_decl, 1, sizeof(spy_tail_decl), gt_ggc_mx_tree_node, gt_pch_nx_tree_node },
	{ &spy_counts_decl, 1, sizeof(spy_counts_decl), gt_ggc_mx_tree_node, gt_pch_nx_tree_node },
	{ &spy_register_decl, 1, sizeof(spy_register_decl), gt_ggc_mx_tree_node, gt_pch_nx_tree_node },
	{ &spy_unregister_decl, 1, sizeof(spy_unregister_decl), gt_ggc_mx_tree_node, gt_pch_nx_tree_node },
	{ &spy_start_decl, 1, sizeof(spy_start_decl), gt_ggc_mx_tree_node, gt_pch_nx_tree_node },
	{ &spy_stop_decl, 1, sizeof(spy_stop_decl), gt_ggc_mx_tree_node, gt_pch_nx_tree_node },
	LAST_GGC_ROOT_TAB
};

/* Records emitted into this assembler file; a unit without any gets no
 * constructor (the linker would not define __start_spy_funcs for it). */
static unsigned spy_records;
static unsigned spy_slot_seq;

static tree spy_runtime_fn(const char *name, tree type)
{
	tree decl = build_fn_decl(name, type);

	/* The hooks neither throw nor call back into this unit. */
	TREE_NOTHROW(decl) = 1;
	DECL_ATTRIBUTES(decl) = tree_cons(get_identifier("leaf"), NULL_TREE, DECL_ATTRIBUTES(decl));
	/* Called through the GOT, not a PLT stub: in a PIE or shared object linked with libspyrt.so
	 * that is one indirect call instead of a call and a jump; a static link relaxes it to a direct
	 * call. */
	DECL_ATTRIBUTES(decl) = tree_cons(get_identifier("noplt"), NULL_TREE, DECL_ATTRIBUTES(decl));
	return decl;
}

static tree spy_linker_symbol(const char *name)
{
	tree decl = build_decl(UNKNOWN_LOCATION, VAR_DECL, get_identifier(name), char_type_node);

	DECL_EXTERNAL(decl) = 1;
	TREE_PUBLIC(decl) = 1;
	DECL_ARTIFICIAL(decl) = 1;
	/* Hidden: each module must see its own section bounds. */
	DECL_VISIBILITY(decl) = VISIBILITY_HIDDEN;
	DECL_VISIBILITY_SPECIFIED(decl) = 1;
	return decl;
}

void spy_build_decls(void)
{
	tree u64p;

	if (spy_enter_decl)
		return;
	u64p = build_pointer_type(uint64_type_node);
	/* ABI 5: the hooks of mode time take the function's CFA, so that the runtime keys its frame by
	 * the slot of its return address, which a tail call keeps and a sibling call reuses */
	spy_enter_decl = spy_runtime_fn(SPY_ENTRY_SYMBOL,
					build_function_type_list(void_type_node, ptr_type_node, ptr_type_node,
								 ptr_type_node, NULL_TREE));
	spy_exit_decl =
		spy_runtime_fn(SPY_LEAVE_SYMBOL, build_function_type_list(void_type_node, ptr_type_node,
									  ptr_type_node, NULL_TREE));
	spy_tail_decl = spy_runtime_fn(SPY_TAIL_SYMBOL,
				       build_function_type_list(void_type_node, ptr_type_node, ptr_type_node,
								ptr_type_node, NULL_TREE));
	spy_slow_decl = spy_runtime_fn(SPY_COUNTS_SLOW_SYMBOL, build_function_type_list(u64p, NULL_TREE));
	spy_catch_decl =
		spy_runtime_fn(SPY_CATCH_SYMBOL, build_function_type_list(void_type_node, NULL_TREE));
	spy_arc_decl = spy_runtime_fn(SPY_ARC_SYMBOL, build_function_type_list(void_type_node, ptr_type_node,
									       ptr_type_node, NULL_TREE));
	spy_arc_miss_decl =
		spy_runtime_fn(SPY_ARC_MISS_SYMBOL, build_function_type_list(void_type_node, ptr_type_node,
									     ptr_type_node, u64p, NULL_TREE));
	spy_register_decl = spy_runtime_fn(
		SPY_REGISTER_SYMBOL, build_function_type_list(void_type_node, ptr_type_node, ptr_type_node,
							      uint32_type_node, ptr_type_node, NULL_TREE));
	spy_unregister_decl =
		spy_runtime_fn(SPY_UNREGISTER_SYMBOL, build_function_type_list(void_type_node, ptr_type_node,
									       ptr_type_node, NULL_TREE));

	spy_counts_decl = build_decl(UNKNOWN_LOCATION, VAR_DECL, get_identifier(SPY_COUNTS_SYMBOL), u64p);
	DECL_EXTERNAL(spy_counts_decl) = 1;
	TREE_PUBLIC(spy_counts_decl) = 1;
	DECL_ARTIFICIAL(spy_counts_decl) = 1;
	set_decl_tls_model(spy_counts_decl, TLS_MODEL_INITIAL_EXEC);

	spy_node_decl = spy_runtime_fn("__spy_node",
				       build_function_type_list(void_type_node, ptr_type_node, NULL_TREE));

	spy_start_decl = spy_linker_symbol(SPY_START_SYMBOL);
	spy_stop_decl = spy_linker_symbol(SPY_STOP_SYMBOL);
}

static const char *spy_asm_name(tree fn)
{
	return targetm.strip_name_encoding(IDENTIFIER_POINTER(DECL_ASSEMBLER_NAME(fn)));
}

static bool spy_calls_decl(function *fun, tree decl)
{
	basic_block bb;

	FOR_EACH_BB_FN(bb, fun)
		for (gimple_stmt_iterator gsi = gsi_start_bb(bb); !gsi_end_p(gsi); gsi_next(&gsi))
			if (is_gimple_call(gsi_stmt(gsi)) && gimple_call_fndecl(gsi_stmt(gsi)) == decl)
				return true;
	return false;
}

/* An ifunc resolver runs while the dynamic linker relocates, before any
 * constructor; so does a target_clones dispatcher. */
static bool spy_is_ifunc_resolver(tree fn)
{
	cgraph_node *node = cgraph_node::get(fn);
	ipa_ref *ref;

	if (!node)
		return false;
	FOR_EACH_ALIAS(node, ref)
	if (ref->referring->ifunc_resolver)
		return true;
	return false;
}

/* Whether fn is to be instrumented at all: attributes, then options. */
static bool spy_want(function *fun)
{
	tree fn = fun->decl;
	tree attrs = DECL_ATTRIBUTES(fn);
	const char *asmname = spy_asm_name(fn);

	if (lookup_attribute("no_instrument_function", attrs) || lookup_attribute("naked", attrs) ||
	    lookup_attribute("spy_noinstr", attrs) || lookup_attribute("ifunc", attrs))
		return false;
	if (!strncmp(asmname, "__spy_", 6) || spy_is_ifunc_resolver(fn))
		return false;
	/* Constructors the implementation makes for itself in its reserved
	 * priorities (the sanitizers' at 99) run before any registration. */
	if (DECL_ARTIFICIAL(fn) &&
	    ((DECL_STATIC_CONSTRUCTOR(fn) && decl_init_priority_lookup(fn) <= MAX_RESERVED_INIT_PRIORITY) ||
	     (DECL_STATIC_DESTRUCTOR(fn) && decl_fini_priority_lookup(fn) <= MAX_RESERVED_INIT_PRIORITY)))
		return false;
	/* Our own registration constructor and destructor. */
	if (DECL_ARTIFICIAL(fn) && fun->cfg &&
	    (spy_calls_decl(fun, spy_register_decl) || spy_calls_decl(fun, spy_unregister_decl)))
		return false;
	return spy_options_want(&spy_opts, DECL_NAME(fn) ? IDENTIFIER_POINTER(DECL_NAME(fn)) : NULL, asmname,
				DECL_SOURCE_FILE(fn));
}

/* ---- The pass ---------------------------------------------------------- */

static tree spy_self(tree fn)
{
	tree addr = build_fold_addr_expr(fn);

	/* A nested function's address must not make a trampoline. */
	if (DECL_STATIC_CHAIN(fn) || decl_function_context(fn))
		TREE_NO_TRAMPOLINE(addr) = 1;
	return addr;
}

/* "cfa = __builtin_dwarf_cfa ();" added to seq: the function's canonical frame address, the
 * same at every point of its body, and the same for a function it tail-calls. */
static tree spy_cfa(gimple_seq *seq)
{
	tree cfa = make_ssa_name(ptr_type_node);
	gcall *call = gimple_build_call(builtin_decl_explicit(BUILT_IN_DWARF_CFA), 0);

	gimple_call_set_lhs(call, cfa);
	gimple_seq_add_stmt(seq, call);
	return cfa;
}

/* "__spy_leave (&fn, __builtin_dwarf_cfa ());" */
static gimple_seq spy_exit_call(tree fn, location_t loc)
{
	gimple_seq seq = NULL;
	tree cfa = spy_cfa(&seq);
	gcall *call = gimple_build_call(spy_exit_decl, 2, spy_self(fn), cfa);

	gimple_set_location(call, loc);
	gimple_seq_add_stmt(&seq, call);
	return seq;
}

/* "__spy_tail (&fn, callee, __builtin_dwarf_cfa ());" before the tail call t: the call stays a
 * jump, and fn stays the caller of what it jumps to until that returns (ABI 5). callee is the
 * address called, direct or not; the hook's own return address is the call site in fn. */
/* A built-in or internal function (memcpy, memset): it has no hooks, and it may expand inline, so
 * that fn returns with no jump; either way the runtime keeps fn's frame until its caller's next hook
 * (as for any tail call into code without hooks), so that the built-in's time is fn's. Its address
 * is not taken (some have none): the tail hook gets 0 for the callee. */
static bool spy_tail_builtin(gimple *t)
{
	tree decl = gimple_call_fndecl(t);

	return gimple_call_internal_p(t) || (decl && fndecl_built_in_p(decl));
}

static gimple_seq spy_tail_call(tree fn, gimple *t, location_t loc)
{
	gimple_seq seq = NULL;
	tree callee = gimple_call_fn(t), p, cfa;
	gcall *call;

	if (spy_tail_builtin(t))
		callee = null_pointer_node;
	else if (!callee || TREE_CODE(callee) == OBJ_TYPE_REF)
		callee = callee ? OBJ_TYPE_REF_EXPR(callee) : null_pointer_node;
	/* a nested function's address, as its own hooks take it: no trampoline */
	if (TREE_CODE(callee) == ADDR_EXPR && TREE_CODE(TREE_OPERAND(callee, 0)) == FUNCTION_DECL)
		callee = spy_self(TREE_OPERAND(callee, 0));
	p = make_ssa_name(ptr_type_node);
	gimple_seq_add_stmt(&seq, gimple_build_assign(p, NOP_EXPR, unshare_expr(callee)));
	cfa = spy_cfa(&seq);
	call = gimple_build_call(spy_tail_decl, 3, spy_self(fn), p, cfa);
	gimple_set_location(call, loc);
	gimple_seq_add_stmt(&seq, call);
	return seq;
}

/* Insert HOOK (a sequence) before stmt, or at the end of bb (which must end
 * without a control statement) when stmt is NULL. The calls are not guarded
 * (they were until ABI 3): a test and a branch around each hook made blocks
 * that cost the compiler a tenth more time. In the runtime's count mode the
 * hooks return at their first test. */
static void spy_insert_hook(basic_block bb, gimple *stmt, gimple_seq hook)
{
	gimple_stmt_iterator gsi;

	if (stmt) {
		gsi = gsi_for_stmt(stmt);
		gsi_insert_seq_before(&gsi, hook, GSI_SAME_STMT);
	} else {
		gsi = gsi_last_bb(bb);
		gsi_insert_seq_after(&gsi, hook, GSI_NEW_STMT);
	}
}

/* A call of __cxa_begin_catch, by name: under LTO the decl is another
 * object than the front end's. */
static bool spy_is_begin_catch(gimple *stmt)
{
	tree decl;

	if (!is_gimple_call(stmt) || !(decl = gimple_call_fndecl(stmt)) || !DECL_NAME(decl))
		return false;
	return !strcmp(IDENTIFIER_POINTER(DECL_NAME(decl)), SPY_CXA_BEGIN_CATCH);
}

/*
 * "__spy_catch ();" after every "__cxa_begin_catch (...)": by then the
 * exception has unwound every frame below this function's, and the runtime
 * ends their calls. One call per handler, where an exit hook on the
 * exception's way out of each function (an EH cleanup, until ABI 4) gave
 * every function with a call that may throw a landing pad of its own.
 */
static void spy_insert_catches(function *fun)
{
	auto_vec<gimple *> catches;
	basic_block bb;

	FOR_EACH_BB_FN(bb, fun)
		for (gimple_stmt_iterator gsi = gsi_start_bb(bb); !gsi_end_p(gsi); gsi_next(&gsi))
			if (spy_is_begin_catch(gsi_stmt(gsi)))
				catches.safe_push(gsi_stmt(gsi));
	/* Inserting while walking the blocks would disturb the walk. */
	for (gimple *stmt : catches) {
		gcall *call = gimple_build_call(spy_catch_decl, 0);

		gimple_set_location(call, gimple_location(stmt));
		gimple_set_block(call, gimple_block(stmt));
		if (stmt_ends_bb_p(stmt)) {
			/* __cxa_begin_catch is nothrow, so this is only defensive */
			if (single_succ_p(gimple_bb(stmt)))
				gsi_insert_on_edge_immediate(single_succ_edge(gimple_bb(stmt)), call);
		} else {
			gimple_stmt_iterator gsi = gsi_for_stmt(stmt);

			gsi_insert_after(&gsi, call, GSI_NEW_STMT);
		}
	}
}

/* Whether expand will turn a call the tail-call pass marked into a jump: on
 * x86-64 only when every argument goes in registers and the result does not
 * come back in memory. A hook before a marked call that stays a call would pop
 * the frame while it still runs, so doubtful calls lose the mark instead. */
static bool spy_sibcall_sure(gcall *call)
{
	tree fntype = gimple_call_fntype(call);
	unsigned ints = 0, sses = 0;

	if (!fntype || stdarg_p(fntype) || aggregate_value_p(TREE_TYPE(fntype), fntype))
		return false;
	for (unsigned i = 0; i < gimple_call_num_args(call); i++) {
		tree type = TREE_TYPE(gimple_call_arg(call, i));
		HOST_WIDE_INT size = int_size_in_bytes(type);

		if (AGGREGATE_TYPE_P(type) || TREE_CODE(type) == COMPLEX_TYPE) {
			if (TREE_ADDRESSABLE(type)) {
				ints++; /* passed by invisible reference */
				continue;
			}
			if (size <= 0 || size > 16)
				return false;
			ints += (size + 7) / 8; /* counted as integer words: never too few */
		} else if (FLOAT_TYPE_P(type) || VECTOR_TYPE_P(type)) {
			if (size > 16)
				return false;
			sses++;
		} else {
			ints += size > 8 ? 2 : 1;
		}
	}
	return ints <= 6 && sses <= 8;
}

enum spy_scan {
	SPY_SCAN_EMPTY,
	SPY_SCAN_REAL,
	SPY_SCAN_TAIL
};

/* Statements that do nothing at run time. */
static bool spy_inert(gimple *stmt)
{
	return is_gimple_debug(stmt) || gimple_clobber_p(stmt) || gimple_code(stmt) == GIMPLE_LABEL ||
	       gimple_code(stmt) == GIMPLE_NOP || gimple_code(stmt) == GIMPLE_PREDICT;
}

/* Look backwards from before stmt (or from the block's end) for the last
 * statement that does something: a tail call, or anything else. */
static enum spy_scan spy_scan_back(basic_block bb, gimple *from, gimple **call)
{
	gimple_stmt_iterator gsi = from ? gsi_for_stmt(from) : gsi_last_bb(bb);

	if (from)
		gsi_prev(&gsi);
	for (; !gsi_end_p(gsi); gsi_prev(&gsi)) {
		gimple *stmt = gsi_stmt(gsi);

		if (spy_inert(stmt))
			continue;
		/* Copies, also of a struct result into the returned variable:
		 * the tail-call pass accepts them after a tail call, and expand
		 * drops them with the return when the call becomes a jump. */
		if (gimple_assign_single_p(stmt) && !gimple_has_volatile_ops(stmt) &&
		    (TREE_CODE(gimple_assign_rhs1(stmt)) == SSA_NAME || DECL_P(gimple_assign_rhs1(stmt)) ||
		     is_gimple_min_invariant(gimple_assign_rhs1(stmt))))
			continue;
		if (is_gimple_call(stmt) && gimple_call_tail_p(as_a<gcall *>(stmt))) {
			if (!spy_sibcall_sure(as_a<gcall *>(stmt))) {
				gimple_call_set_tail(as_a<gcall *>(stmt), false);
				return SPY_SCAN_REAL;
			}
			*call = stmt;
			return SPY_SCAN_TAIL;
		}
		return SPY_SCAN_REAL;
	}
	return SPY_SCAN_EMPTY;
}

/* The paths into bb, which does nothing before its end: the tail calls that
 * end some of them, and the edges of the others. The tail-call pass looks
 * through such blocks (a clobber at the end of a scope, a merge of results),
 * and so must we. */
static void spy_collect_paths(function *fun, basic_block bb, int depth, hash_set<basic_block> *seen,
			      auto_vec<gimple *> *tails, auto_vec<edge> *plain)
{
	edge e;
	edge_iterator ei;

	FOR_EACH_EDGE(e, ei, bb->preds) {
		gimple *call = NULL;

		if (e->src == ENTRY_BLOCK_PTR_FOR_FN(fun) || !single_succ_p(e->src) || seen->add(e->src)) {
			plain->safe_push(e);
			continue;
		}
		switch (spy_scan_back(e->src, NULL, &call)) {
		case SPY_SCAN_TAIL:
			tails->safe_push(call);
			break;
		case SPY_SCAN_EMPTY:
			if (depth < 8) {
				spy_collect_paths(fun, e->src, depth + 1, seen, tails, plain);
				break;
			}
			/* fall through */
		case SPY_SCAN_REAL:
			plain->safe_push(e);
			break;
		}
	}
}

/* Whether stmt may stand on a path between a tail call and its return that
 * the tail call's own return skips: nothing with an effect, or a copy of a
 * register or a constant into a register (which spy_tail_value follows). */
static bool spy_skippable(gimple *stmt)
{
	tree rhs;

	if (spy_inert(stmt))
		return true;
	if (!gimple_assign_single_p(stmt) || TREE_CODE(gimple_assign_lhs(stmt)) != SSA_NAME)
		return false;
	rhs = gimple_assign_rhs1(stmt);
	return TREE_CODE(rhs) == SSA_NAME || is_gimple_min_invariant(rhs);
}

/* The value that the path from tail call t to ret returns, as seen at the end
 * of t's block, or error_mark_node when the path does more than merge and copy. */
static tree spy_tail_value(gimple *t, basic_block ret_bb, greturn *ret)
{
	auto_vec<edge, 16> path;
	tree v = gimple_return_retval(ret);
	edge e;

	if (!single_succ_p(gimple_bb(t)))
		return error_mark_node;
	for (e = single_succ_edge(gimple_bb(t));; e = single_succ_edge(e->dest)) {
		path.safe_push(e);
		if (e->dest == ret_bb)
			break;
		if (path.length() > 16 || !single_succ_p(e->dest))
			return error_mark_node;
	}
	for (unsigned i = path.length(); i-- > 0;) {
		basic_block d = path[i]->dest;

		for (gimple_stmt_iterator gsi = gsi_start_bb(d); !gsi_end_p(gsi); gsi_next(&gsi))
			if (gsi_stmt(gsi) != ret && !spy_skippable(gsi_stmt(gsi)))
				return error_mark_node;
		/* copies and merges inside d, back to what enters it along path[i] */
		while (v && TREE_CODE(v) == SSA_NAME && gimple_bb(SSA_NAME_DEF_STMT(v)) == d) {
			gimple *def = SSA_NAME_DEF_STMT(v);

			if (gphi *phi = dyn_cast<gphi *>(def)) {
				v = PHI_ARG_DEF_FROM_EDGE(phi, path[i]);
				break;
			}
			v = gimple_assign_rhs1(def);
		}
	}
	return v;
}

/*
 * Give each tail call in tails a return of its own, right after it, instead of
 * the path it shares with plain returns into ret: then one exit hook before ret
 * serves every plain path, rather than one on each (a function with a case per
 * token and one tail call would get a hook per case, each a call that every
 * later pass of the compiler analyses). All or nothing; false when a path does
 * more than merge and copy values.
 */
static bool spy_detach_tails(basic_block ret_bb, greturn *ret, const auto_vec<gimple *> &tails)
{
	auto_vec<tree> vals;

	for (gimple *t : tails) {
		tree v = spy_tail_value(t, ret_bb, ret);

		if (v == error_mark_node)
			return false;
		vals.safe_push(v);
	}
	for (unsigned i = 0; i < tails.length(); i++) {
		basic_block b = gimple_bb(tails[i]);
		greturn *r = gimple_build_return(vals[i]);
		gimple_stmt_iterator gsi = gsi_last_bb(b);
		edge e;

		gimple_set_location(r, gimple_location(ret));
		remove_edge(single_succ_edge(b));
		gsi_insert_after(&gsi, r, GSI_NEW_STMT);
		e = make_edge(b, EXIT_BLOCK_PTR_FOR_FN(cfun), 0);
		e->probability = profile_probability::always();
	}
	delete_unreachable_blocks();
	return true;
}

/* The exit hook before the return ret, or before the tail calls that make the
 * return unreachable: code after a tail call is dropped when it becomes a
 * jump, and a hook both before a tail call and before the return would run
 * twice if the sibcall could not be made after all. */
static void spy_insert_exit(function *fun, basic_block bb, greturn *ret)
{
	tree fn = fun->decl;
	location_t loc = gimple_location(ret);
	gimple *call = NULL;
	auto_vec<edge> plain;
	auto_vec<gimple *> tails;
	hash_set<basic_block> seen;

	switch (spy_scan_back(bb, ret, &call)) {
	case SPY_SCAN_TAIL:
		spy_insert_hook(gimple_bb(call), call, spy_tail_call(fn, call, loc));
		return;
	case SPY_SCAN_REAL:
		break;
	case SPY_SCAN_EMPTY:
		seen.add(bb);
		spy_collect_paths(fun, bb, 0, &seen, &tails, &plain);
		if (tails.is_empty())
			break;
		for (gimple *t : tails)
			spy_insert_hook(gimple_bb(t), t, spy_tail_call(fn, t, loc));
		/* with plain paths too, those alone reach ret once the tail calls return on their own */
		if (!plain.is_empty() && spy_detach_tails(bb, ret, tails))
			break;
		for (edge p : plain)
			spy_insert_hook(split_edge(p), NULL, spy_exit_call(fn, loc));
		return;
	}
	spy_insert_hook(bb, ret, spy_exit_call(fn, loc));
}

static void spy_insert_exits(function *fun)
{
	auto_vec<std::pair<basic_block, greturn *>> rets;
	edge e;
	edge_iterator ei;

	FOR_EACH_EDGE(e, ei, EXIT_BLOCK_PTR_FOR_FN(fun)->preds) {
		gimple_stmt_iterator gsi = gsi_last_nondebug_bb(e->src);

		if (!gsi_end_p(gsi))
			if (greturn *ret = dyn_cast<greturn *>(gsi_stmt(gsi)))
				rets.safe_push(std::make_pair(e->src, ret));
	}
	for (auto &r : rets)
		spy_insert_exit(fun, r.first, r.second);
}

/* The function's counter slot: a static the runtime fills in at
 * registration, read by the counter and named by the record. */
static tree spy_make_slot(tree fn)
{
	char name[32];
	tree var;

	snprintf(name, sizeof(name), "__spy_slot.%u", spy_slot_seq++);
	var = build_decl(DECL_SOURCE_LOCATION(fn), VAR_DECL, get_identifier(name), uint64_type_node);
	TREE_STATIC(var) = 1;
	TREE_PUBLIC(var) = 0;
	DECL_ARTIFICIAL(var) = 1;
	DECL_IGNORED_P(var) = 1;
	DECL_PRESERVE_P(var) = 1;
	TREE_USED(var) = 1;
	TREE_ADDRESSABLE(var) = 1;
	DECL_INITIAL(var) = build_int_cst(uint64_type_node, 0);
	SET_DECL_ALIGN(var, 64);
	varpool_node::finalize_decl(var);
	return var;
}

static tree spy_assign(gimple_seq *seq, tree type, enum tree_code code, tree a, tree b = NULL_TREE)
{
	tree lhs = make_ssa_name(type);

	gimple_seq_add_stmt(seq,
			    b ? gimple_build_assign(lhs, code, a, b) : gimple_build_assign(lhs, code, a));
	return lhs;
}

static tree spy_load(gimple_seq *seq, tree type, tree ref)
{
	tree lhs = make_ssa_name(type);

	gimple_seq_add_stmt(seq, gimple_build_assign(lhs, ref));
	return lhs;
}

/* "__spy_enter (&fn, __builtin_return_address (0));" at the end of bb. */
/* x86-64 with 64-bit pointers (not x32): where the asm counter and __spy_arc apply. */
static bool spy_target_x86_64_lp64(void)
{
#ifdef TARGET_X32
	return TARGET_64BIT && !TARGET_X32;
#else
	return false;
#endif
}

/* Whether mode=arcs gets its one hook, __spy_arc: on x86-64 (LP64), where the return address lies
 * just below the CFA. Elsewhere it gets the entry and exit hooks, as mode=time does. */
static bool spy_arc_hook_p(void)
{
	return spy_opts.mode == SPY_MODE_ARCS && spy_target_x86_64_lp64();
}

static void spy_insert_enter(function *fun, basic_block bb)
{
	tree ra = make_ssa_name(ptr_type_node);
	gcall *call, *enter;
	gimple_seq hook = NULL;

	if (spy_arc_hook_p()) {
		/* "__spy_arc (&fn, __builtin_dwarf_cfa ());": the runtime reads the
		 * return address below the CFA, and tells a returned call's frame by
		 * it, since no exit hook says so */
		call = gimple_build_call(builtin_decl_explicit(BUILT_IN_DWARF_CFA), 0);
		enter = gimple_build_call(spy_arc_decl, 2, spy_self(fun->decl), ra);
	} else {
		/* "__spy_entry (&fn, __builtin_return_address (0), __builtin_dwarf_cfa ());" */
		call = gimple_build_call(builtin_decl_explicit(BUILT_IN_RETURN_ADDRESS), 1,
					 integer_zero_node);
		gimple_call_set_lhs(call, ra);
		gimple_seq_add_stmt(&hook, call);
		enter = gimple_build_call(spy_enter_decl, 3, spy_self(fun->decl), ra, spy_cfa(&hook));
		gimple_seq_add_stmt(&hook, enter);
		spy_insert_hook(bb, NULL, hook);
		return;
	}

	gimple_call_set_lhs(call, ra);
	gimple_seq_add_stmt(&hook, call);
	gimple_seq_add_stmt(&hook, enter);
	spy_insert_hook(bb, NULL, hook);
}

/* mode=arcs: "__spy_tail (...)" before every call that is to become a jump, which __spy_arc would
 * otherwise take for a call from fn's own caller. */
static void spy_insert_arc_tails(function *fun)
{
	auto_vec<gimple *> tails;
	basic_block bb;

	FOR_EACH_BB_FN(bb, fun)
		for (gimple_stmt_iterator gsi = gsi_start_bb(bb); !gsi_end_p(gsi); gsi_next(&gsi))
			if (is_gimple_call(gsi_stmt(gsi)) && gimple_call_tail_p(as_a<gcall *>(gsi_stmt(gsi))))
				tails.safe_push(gsi_stmt(gsi));
	/* Inserting while walking the blocks would disturb the walk. */
	for (gimple *t : tails) {
		if (!spy_sibcall_sure(as_a<gcall *>(t))) {
			gimple_call_set_tail(as_a<gcall *>(t), false);
			continue;
		}
		if (spy_tail_builtin(t))
			continue;
		spy_insert_hook(gimple_bb(t), t, spy_tail_call(fun->decl, t, gimple_location(t)));
	}
}

/*
 * ABI 7: in code for an executable (-fPIE or not PIC, where GCC itself takes a TLS variable defined in
 * the program as local-exec), the inline code reads the thread's state from a copy of its own,
 * SPY_THREAD_EXE_SYMBOL, that every unit defines in one COMDAT group (the linker keeps one) and
 * registers (the fourth argument of __spy_register_unit); the runtime writes the copy whenever it
 * sets the thread's state. One %fs-relative load instead of loading the variable's offset from the
 * GOT first: a symbol defined in libspyrt.so has no offset known at link time. Its first value, in
 * every new thread, points at a word that is not zero, so the inline code misses until the runtime
 * writes it.
 */
static bool spy_thread_exe_p(void)
{
	return flag_pie || !flag_pic;
}

static bool spy_thread_exe_emitted;

static void spy_emit_thread_exe(void)
{
	FILE *f = asm_out_file;
	const char *sym = SPY_THREAD_EXE_SYMBOL;

	if (spy_thread_exe_emitted)
		return;
	spy_thread_exe_emitted = true;
	fprintf(f, "\t.pushsection .tdata.%s,\"awTG\",@progbits,%s,comdat\n", sym, sym);
	fprintf(f, "\t.balign 16\n\t.globl %s\n\t.hidden %s\n\t.type %s, @object\n\t.size %s, 8\n", sym, sym,
		sym, sym);
	fprintf(f, "%s:\n\t.quad .Lspy_held_%s\n", sym, sym);
	/* the slab pointer's copy, next to it: NULL until the runtime writes it */
	fprintf(f, "\t.globl %s\n\t.hidden %s\n\t.type %s, @object\n\t.size %s, 8\n%s:\n\t.quad 0\n",
		SPY_COUNTS_EXE_SYMBOL, SPY_COUNTS_EXE_SYMBOL, SPY_COUNTS_EXE_SYMBOL, SPY_COUNTS_EXE_SYMBOL,
		SPY_COUNTS_EXE_SYMBOL);
	fprintf(f, "\t.section .rodata.%s,\"aG\",@progbits,%s,comdat\n", sym, sym);
	fprintf(f, "\t.balign 8\n.Lspy_held_%s:\n\t.long 1, 0\n\t.popsection\n", sym);
}

/* The counter as the one asm statement of spy-abi.h, where the target allows it: x86-64 with
 * %fs-relative TLS, and not the large code models (whose TLS sequences differ). */
static gimple *spy_count_asm(tree slot)
{
#ifdef TARGET_X32
	static const char tmpl[] = "movq " SPY_COUNTS_SYMBOL "@gottpoff(%%rip), %0\n\t"
				   "movq %%fs:(%0), %0\n\t"
				   "testq %0, %0\n\t"
				   "jnz 1f\n\t"
				   "lea -128(%%rsp), %%rsp\n\t"
				   "call " SPY_COUNTS_SLOW_ALL_SYMBOL "@PLT\n\t"
				   "lea 128(%%rsp), %%rsp\n"
				   "1:\tmovq %2, %1\n\t"
				   "addq $1, (%0,%1,8)";
	/* ABI 7, code for an executable: the program's own copy of the slab pointer, local-exec */
	static const char tmpl_exe[] = "movq %%fs:" SPY_COUNTS_EXE_SYMBOL "@tpoff, %0\n\t"
				       "testq %0, %0\n\t"
				       "jnz 1f\n\t"
				       "lea -128(%%rsp), %%rsp\n\t"
				       "call " SPY_COUNTS_SLOW_IN_SYMBOL "@PLT\n\t"
				       "lea 128(%%rsp), %%rsp\n"
				       "1:\tmovq %2, %1\n\t"
				       "addq $1, (%0,%1,8)";
	bool exe;
	vec<tree, va_gc> *in = NULL, *out = NULL, *clobbers = NULL;
	tree p = make_ssa_name(ptr_type_node), i = make_ssa_name(uint64_type_node);
	gasm *stmt;

	if (!spy_target_x86_64_lp64() || ix86_cmodel == CM_LARGE || ix86_cmodel == CM_LARGE_PIC ||
	    !TARGET_TLS_DIRECT_SEG_REFS)
		return NULL;
	vec_safe_push(out, build_tree_list(build_tree_list(NULL_TREE, build_string(4, "=&a")), p));
	vec_safe_push(out, build_tree_list(build_tree_list(NULL_TREE, build_string(4, "=&r")), i));
	vec_safe_push(in, build_tree_list(build_tree_list(NULL_TREE, build_string(2, "m")), slot));
	vec_safe_push(clobbers, build_tree_list(NULL_TREE, build_string(3, "cc")));
	exe = spy_thread_exe_p();
	if (exe)
		spy_emit_thread_exe();
	stmt = gimple_build_asm_vec(ggc_strdup(exe ? tmpl_exe : tmpl), in, out, clobbers, NULL);
	gimple_asm_set_volatile(stmt, true);
	SSA_NAME_DEF_STMT(p) = stmt;
	SSA_NAME_DEF_STMT(i) = stmt;
	return stmt;
#else
	(void)slot;
	return NULL;
#endif
}

#define SPY_STR2(x) #x
#define SPY_STR(x) SPY_STR2(x)

/*
 * ABI 6, mode=arcs: the counter and __spy_arc's common case as one asm goto statement (spy-abi.h),
 * which falls through when it counted and pushed the call and jumps to miss_label (whose block calls
 * __spy_arc_miss, which counts the call too) for anything else. Operands: %0 the thread, %1 the new
 * frame (the top one below it), %2 the cache entry's way, %3 the depth, %4 the key (cfa - 7, the
 * return address at -1 from it), %5 scratch, %6 the slot, %8 &fn, %l9 the miss. Stores in __spy_arc's order: the counts,
 * the depth without the dropped frames, the frame, the depth with it. NULL where the target has no
 * such asm (as spy_count_asm).
 */
static bool spy_arc_inline_p(void)
{
#ifdef TARGET_X32
	return spy_target_x86_64_lp64() && ix86_cmodel != CM_LARGE && ix86_cmodel != CM_LARGE_PIC &&
	       TARGET_TLS_DIRECT_SEG_REFS;
#else
	return false;
#endif
}

static gasm *spy_arc_asm(tree slot, tree key, tree self, tree miss_label)
{
#ifdef TARGET_X32
	/* clang-format off */
	/* the thread: the executable's own copy, local-exec (one load), else libspyrt's, initial-exec */
	static const char head_exe[] = "movq %%fs:" SPY_THREAD_EXE_SYMBOL "@tpoff, %0\n\t";
	static const char head_ie[] = "movq " SPY_THREAD_SYMBOL "@gottpoff(%%rip), %0\n\t"
				      "movq %%fs:(%0), %0\n\t";
	static const char tmpl[] =
		"cmpl $0, " SPY_STR(SPY_T_HELD) "(%0)\n\t"
		"jne %l9\n\t"
		"movq %6, %2\n\t"
		"shlq $" SPY_STR(SPY_ACACHE_SHIFT) ", %2\n\t"
		"addq " SPY_STR(SPY_T_ACACHE) "(%0), %2\n\t"
		"movq -1(%4), %5\n\t" /* the call site */
		"cmpq %5, (%2)\n\t"
		"je 3f\n\t"
		"addq $" SPY_STR(SPY_ACACHE_WAY) ", %2\n\t"
		"cmpq %5, (%2)\n\t"
		"jne %l9\n"
		"3:\tmovl " SPY_STR(SPY_T_DEPTH) "(%0), %k3\n\t"
		"movq %3, %1\n\t"
		"shlq $" SPY_STR(SPY_FRAME_SHIFT) ", %1\n\t"
		"addq " SPY_STR(SPY_T_STACK) "(%0), %1\n\t" /* the new frame; the top one below it */
		/* drop the frames of returned calls: at or below the key, and lazy */
		"cmpq %4, -(1 << " SPY_STR(SPY_FRAME_SHIFT) ") + " SPY_STR(SPY_FRAME_SP) "(%1)\n\t"
		"ja 2f\n"
		"1:\ttestb $1, -(1 << " SPY_STR(SPY_FRAME_SHIFT) ") + " SPY_STR(SPY_FRAME_SP) "(%1)\n\t"
		"jz %l9\n\t"
		"subq $(1 << " SPY_STR(SPY_FRAME_SHIFT) "), %1\n\t"
		"subl $1, %k3\n\t"
		"cmpq %4, -(1 << " SPY_STR(SPY_FRAME_SHIFT) ") + " SPY_STR(SPY_FRAME_SP) "(%1)\n\t"
		"jbe 1b\n\t"
		/* the depth without the dropped frames, before the new frame is written (a signal's
		 * sample reads the stack); when none was dropped the depth stands as it is */
		"movl %k3, " SPY_STR(SPY_T_DEPTH) "(%0)\n"
		/* the same depth as the cache's: stored from there, no chain through t->depth */
		"2:\tcmpl 24(%2), %k3\n\t"
		"jne 4f\n\t"
		"movl 24(%2), %k3\n"
		"4:\tcmpl " SPY_STR(SPY_T_STACK_MAX) "(%0), %k3\n\t"
		"jae %l9\n\t"
		"movq -(1 << " SPY_STR(SPY_FRAME_SHIFT) ") + " SPY_STR(SPY_FRAME_SELF) "(%1), %5\n\t"
		"cmpq %5, 8(%2)\n\t"
		"jne %l9\n\t"
		"movq 16(%2), %5\n\t"
		"addq $1, (%5)\n\t" /* the arc */
		"movq " SPY_STR(SPY_T_COUNTS) "(%0), %2\n\t"
		"movq %6, %5\n\t"
		"addq $1, (%2,%5,8)\n\t" /* the counter */
		"movq %4, " SPY_STR(SPY_FRAME_SP) "(%1)\n\t"
		"movq %8, " SPY_STR(SPY_FRAME_SELF) "(%1)\n\t"
		"movq -1(%4), %5\n\t"
		"movq %5, " SPY_STR(SPY_FRAME_SITE) "(%1)\n\t"
		"addl $1, %k3\n\t"
		"movl %k3, " SPY_STR(SPY_T_DEPTH) "(%0)";
	/* clang-format on */
	static const char *const outs[] = { "=&r", "=&r", "=&r", "=&r", "=r", "=&r" };
	vec<tree, va_gc> *in = NULL, *out = NULL, *clobbers = NULL, *labels = NULL;
	gasm *stmt;
	char *text;
	bool exe;

	if (!spy_arc_inline_p())
		return NULL;
	for (unsigned i = 0; i < ARRAY_SIZE(outs); i++) {
		tree v = make_ssa_name(i == 4 ? ptr_type_node : uint64_type_node);

		vec_safe_push(
			out,
			build_tree_list(
				build_tree_list(NULL_TREE, build_string(strlen(outs[i]) + 1, outs[i])), v));
	}
	vec_safe_push(in, build_tree_list(build_tree_list(NULL_TREE, build_string(2, "m")), slot));
	vec_safe_push(in, build_tree_list(build_tree_list(NULL_TREE, build_string(2, "4")), key));
	vec_safe_push(in, build_tree_list(build_tree_list(NULL_TREE, build_string(2, "r")), self));
	vec_safe_push(labels, build_tree_list(NULL_TREE, miss_label));
	exe = spy_thread_exe_p();
	if (exe)
		spy_emit_thread_exe();
	text = concat(exe ? head_exe : head_ie, tmpl, NULL);
	stmt = gimple_build_asm_vec(ggc_strdup(text), in, out, clobbers, labels);
	free(text);
	gimple_asm_set_volatile(stmt, true);
	for (unsigned i = 0; i < gimple_asm_noutputs(stmt); i++)
		SSA_NAME_DEF_STMT(TREE_VALUE(gimple_asm_output_op(stmt, i))) = stmt;
	return stmt;
#else
	(void)slot;
	(void)key;
	(void)self;
	(void)miss_label;
	return NULL;
#endif
}

/*
 * mode=arcs, ABI 6, at the end of bb (the entry), the counter included:
 *	cfa = __builtin_dwarf_cfa (); asm goto (<spy_arc_asm>) : ... : miss);
 *	...
 *	miss: __spy_arc_miss (&fn, cfa, &slot);
 * false where spy_arc_asm has no asm (the caller inserts __spy_arc then).
 */
static bool spy_insert_arc_inline(function *fun, basic_block bb, tree slot)
{
	tree lab, cfa, key, self;
	gimple_seq seq = NULL;
	gimple_stmt_iterator gsi;
	basic_block slow_bb, join_bb;
	edge to_slow, to_join;
	gasm *arc;

	if (!spy_arc_inline_p())
		return false;
	lab = create_artificial_label(UNKNOWN_LOCATION);
	TREE_USED(lab) = 1;
	cfa = spy_cfa(&seq);
	/* the key, (cfa - 8) | 1, as cfa - 7 (the CFA is 8-aligned): the compiler folds it into the
	 * CFA's own computation */
	key = make_ssa_name(ptr_type_node);
	gimple_seq_add_stmt(&seq, gimple_build_assign(key, POINTER_PLUS_EXPR, cfa, size_int(-7)));
	self = make_ssa_name(ptr_type_node);
	gimple_seq_add_stmt(&seq, gimple_build_assign(self, spy_self(fun->decl)));
	arc = spy_arc_asm(slot, key, self, lab);
	gimple_seq_add_stmt(&seq, arc);
	gsi = gsi_last_bb(bb);
	if (gsi_end_p(gsi))
		gsi_insert_seq_before(&gsi, seq, GSI_NEW_STMT);
	else
		gsi_insert_seq_after(&gsi, seq, GSI_NEW_STMT);

	/* asm goto: falls through on a hit, jumps to the label's block on a miss */
	to_join = split_block(bb, arc);
	join_bb = to_join->dest;
	slow_bb = split_edge(to_join);
	to_slow = single_succ_edge(bb);
	to_slow->flags &= ~EDGE_FALLTHRU;
	to_slow->probability = profile_probability::unlikely();
	to_join = make_edge(bb, join_bb, EDGE_FALLTHRU);
	to_join->probability = to_slow->probability.invert();
	slow_bb->count = bb->count.apply_probability(to_slow->probability);

	TREE_ADDRESSABLE(slot) = 1;
	gsi = gsi_start_bb(slow_bb);
	gsi_insert_after(&gsi, gimple_build_label(lab), GSI_NEW_STMT);
	gsi_insert_after(&gsi, gimple_build_call(spy_arc_miss_decl, 3, self, cfa, build_fold_addr_expr(slot)),
			 GSI_NEW_STMT);
	return true;
}

/* At entry:
 *	p = __spy_counts; if (p == 0) p = __spy_counts_slow ();
 *	p[slot] += 1;
 *	__spy_enter (&fn, __builtin_return_address (0));
 * with the first two lines as one asm statement where spy_count_asm can.
 */
static void spy_insert_entry(function *fun, tree slot, bool hooks)
{
	tree u64 = uint64_type_node, u64p = build_pointer_type(uint64_type_node);
	basic_block cond_bb, slow_bb, join_bb;
	edge to_slow, to_join, slow_out;
	gimple_stmt_iterator gsi;
	gimple_seq seq = NULL;
	tree p0, p1, p, off, addr, old, inc;
	gcall *slow;
	gcond *cond;
	gphi *phi;
	gimple *count;

	cond_bb = split_edge(single_succ_edge(ENTRY_BLOCK_PTR_FOR_FN(fun)));
	/* mode=arcs, ABI 6: the counter is part of the arc's asm */
	if (hooks && spy_arc_hook_p() && spy_insert_arc_inline(fun, cond_bb, slot))
		return;
	if ((count = spy_count_asm(slot))) {
		gsi = gsi_start_bb(cond_bb);
		gsi_insert_after(&gsi, count, GSI_NEW_STMT);
		if (hooks)
			spy_insert_enter(fun, cond_bb);
		return;
	}
	gsi = gsi_start_bb(cond_bb);
	p0 = make_ssa_name(u64p);
	/* The TLS model lives in the variable's symbol-table node, which
	 * is dropped while nothing references it: set it again at each use. */
	set_decl_tls_model(spy_counts_decl, TLS_MODEL_INITIAL_EXEC);
	gsi_insert_after(&gsi, gimple_build_assign(p0, spy_counts_decl), GSI_NEW_STMT);
	cond = gimple_build_cond(EQ_EXPR, p0, build_int_cst(u64p, 0), NULL_TREE, NULL_TREE);
	gsi_insert_after(&gsi, cond, GSI_NEW_STMT);

	to_join = split_block(cond_bb, cond);
	join_bb = to_join->dest;
	slow_bb = split_edge(to_join);
	to_slow = single_succ_edge(cond_bb);
	to_slow->flags = (to_slow->flags & ~EDGE_FALLTHRU) | EDGE_TRUE_VALUE;
	to_slow->probability = profile_probability::very_unlikely();
	to_join = make_edge(cond_bb, join_bb, EDGE_FALSE_VALUE);
	to_join->probability = to_slow->probability.invert();
	slow_bb->count = cond_bb->count.apply_probability(to_slow->probability);
	slow_out = single_succ_edge(slow_bb);

	p1 = make_ssa_name(u64p);
	slow = gimple_build_call(spy_slow_decl, 0);
	gimple_call_set_lhs(slow, p1);
	gsi = gsi_start_bb(slow_bb);
	gsi_insert_after(&gsi, slow, GSI_NEW_STMT);

	p = make_ssa_name(u64p);
	phi = create_phi_node(p, join_bb);
	add_phi_arg(phi, p0, to_join, UNKNOWN_LOCATION);
	add_phi_arg(phi, p1, slow_out, UNKNOWN_LOCATION);

	off = spy_load(&seq, u64, slot);
	off = spy_assign(&seq, sizetype, NOP_EXPR, off);
	off = spy_assign(&seq, sizetype, MULT_EXPR, off, size_int(8));
	addr = spy_assign(&seq, u64p, POINTER_PLUS_EXPR, p, off);
	/* Alias set zero: the slab is nobody's object. */
	old = spy_load(&seq, u64, build2(MEM_REF, u64, addr, build_int_cst(ptr_type_node, 0)));
	inc = spy_assign(&seq, u64, PLUS_EXPR, old, build_int_cst(u64, 1));
	gimple_seq_add_stmt(
		&seq, gimple_build_assign(build2(MEM_REF, u64, addr, build_int_cst(ptr_type_node, 0)), inc));
	gsi = gsi_start_bb(join_bb);
	gsi_insert_seq_before(&gsi, seq, GSI_SAME_STMT);
	if (hooks)
		spy_insert_enter(fun, join_bb);
}

/* A string for the assembler's .string directive. */
static void spy_output_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			fprintf(f, "\\%03o", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

/* The record goes into the function's COMDAT group, so it is kept or dropped
 * with the body; this is written as assembly because a variable placed in the
 * group fails GCC's own checking. */
static void spy_emit_record(function *fun, tree slot, unsigned flags)
{
	tree fn = fun->decl;
	cgraph_node *node = cgraph_node::get(fn);
	const char *group = NULL;
	FILE *f = asm_out_file;
	unsigned n = spy_records++;

	if (node && node->get_comdat_group())
		group = targetm.strip_name_encoding(IDENTIFIER_POINTER(node->get_comdat_group_id()));
	if (group)
		flags |= SPY_FUNC_COMDAT;
	if (node && node->clone_of)
		flags |= SPY_FUNC_CLONE;

	if (group)
		fprintf(f, "\t.pushsection %s,\"awG\",@progbits,%s,comdat\n", SPY_FUNCS_SECTION, group);
	else
		fprintf(f, "\t.pushsection %s,\"aw\",@progbits\n", SPY_FUNCS_SECTION);
	fputs("\t.balign 8\n\t.quad\t", f);
	assemble_name(f, IDENTIFIER_POINTER(DECL_ASSEMBLER_NAME(fn)));
	fprintf(f, "\n\t.quad\t.Lspy_name%u\n\t.quad\t.Lspy_file%u\n\t.quad\t", n, n);
	assemble_name(f, IDENTIFIER_POINTER(DECL_ASSEMBLER_NAME(slot)));
	fprintf(f, "\n\t.long\t%d\n\t.long\t%u\n\t.quad\t0\n", DECL_SOURCE_LINE(fn), flags);
	/* Mergeable: the file name is the same for most records of a unit. */
	if (group)
		fprintf(f, "\t.section .rodata.spy_str,\"aMSG\",@progbits,1,%s,comdat\n", group);
	else
		fputs("\t.section .rodata.spy_str,\"aMS\",@progbits,1\n", f);
	fprintf(f, ".Lspy_name%u:\n\t.string\t", n);
	spy_output_string(f, spy_asm_name(fn));
	fprintf(f, "\n.Lspy_file%u:\n\t.string\t", n);
	/* As __FILE__ would be: -ffile-prefix-map keeps build paths out. */
	spy_output_string(f, DECL_SOURCE_FILE(fn) ? remap_macro_filename(DECL_SOURCE_FILE(fn)) : "");
	fputs("\n\t.popsection\n", f);
}

/* ---- Nodes (node=FILE:LINE[=NAME]) ------------------------------------ */

/* struct spy_node_site of spy.h: name, file, line, and the runtime's id. */
static tree spy_node_site_type(void)
{
	tree cptr, f[4];
	static const char *const names[] = { "name", "file", "line", "id" };

	if (spy_node_type)
		return spy_node_type;
	cptr = build_pointer_type(build_qualified_type(char_type_node, TYPE_QUAL_CONST));
	spy_node_type = make_node(RECORD_TYPE);
	for (int i = 0; i < 4; i++) {
		f[i] = build_decl(UNKNOWN_LOCATION, FIELD_DECL, get_identifier(names[i]),
				  i < 2 ? cptr : unsigned_type_node);
		DECL_CONTEXT(f[i]) = spy_node_type;
		if (i)
			DECL_CHAIN(f[i - 1]) = f[i];
	}
	TYPE_FIELDS(spy_node_type) = f[0];
	layout_type(spy_node_type);
	return spy_node_type;
}

static tree spy_string(const char *s)
{
	return build_string_literal(strlen(s) + 1, s);
}

/* A static site for node n, placed at loc. */
static tree spy_node_site(const struct spy_node_opt *n, location_t loc)
{
	static unsigned seq;
	char name[32];
	tree type = spy_node_site_type(), var, f = TYPE_FIELDS(type);
	vec<constructor_elt, va_gc> *v = NULL;
	expanded_location x = expand_location(loc);

	snprintf(name, sizeof(name), "__spy_node.%u", seq++);
	var = build_decl(loc, VAR_DECL, get_identifier(name), type);
	TREE_STATIC(var) = 1;
	TREE_PUBLIC(var) = 0;
	DECL_ARTIFICIAL(var) = 1;
	DECL_IGNORED_P(var) = 1;
	TREE_USED(var) = 1;
	TREE_ADDRESSABLE(var) = 1;
	CONSTRUCTOR_APPEND_ELT(v, f, spy_string(n->name));
	f = DECL_CHAIN(f);
	CONSTRUCTOR_APPEND_ELT(v, f, spy_string(x.file ? remap_macro_filename(x.file) : ""));
	f = DECL_CHAIN(f);
	CONSTRUCTOR_APPEND_ELT(v, f, build_int_cst(unsigned_type_node, n->line));
	f = DECL_CHAIN(f);
	CONSTRUCTOR_APPEND_ELT(v, f, build_int_cst(unsigned_type_node, 0));
	DECL_INITIAL(var) = build_constructor(type, v);
	varpool_node::finalize_decl(var);
	return var;
}

/* Put "__spy_node (&site)" before the first statement of each node's line in fun. Returns whether
 * any was placed. */
static bool spy_insert_nodes(function *fun)
{
	bool any = false;

	for (size_t i = 0; i < spy_opts.nnodes; i++) {
		struct spy_node_opt *n = &spy_opts.nodes[i];
		gimple *first = NULL;
		basic_block bb;

		FOR_EACH_BB_FN(bb, fun) {
			for (gimple_stmt_iterator gsi = gsi_start_bb(bb); !gsi_end_p(gsi); gsi_next(&gsi)) {
				gimple *stmt = gsi_stmt(gsi);
				location_t loc = gimple_location(stmt);
				expanded_location x;

				if (is_gimple_debug(stmt) || gimple_code(stmt) == GIMPLE_LABEL ||
				    loc == UNKNOWN_LOCATION)
					continue;
				x = expand_location(loc);
				if (x.line == (int)n->line && x.file &&
				    spy_node_file_match(n->file, x.file)) {
					first = stmt;
					break;
				}
			}
			if (first)
				break;
		}
		if (!first)
			continue;
		gimple_stmt_iterator gsi = gsi_for_stmt(first);
		gcall *call = gimple_build_call(
			spy_node_decl, 1, build_fold_addr_expr(spy_node_site(n, gimple_location(first))));

		gimple_set_location(call, gimple_location(first));
		gsi_insert_before(&gsi, call, GSI_SAME_STMT);
		n->placed = 1;
		any = true;
		if (spy_opts.verbose)
			inform(gimple_location(first), "spyinstr: node %qs", n->name);
	}
	return any;
}

namespace {
const pass_data spy_nodes_data = {
	GIMPLE_PASS, "spy_nodes", OPTGROUP_NONE, TV_NONE, PROP_cfg, 0, 0, 0, 0,
};

/* Early, right after the CFG is built and before any optimisation: the node's call is then an
 * ordinary call that inlining, unrolling and the rest copy or keep as they do the line's own code,
 * so it runs exactly as often as the line does. */
class spy_nodes_pass : public gimple_opt_pass {
      public:
	spy_nodes_pass(gcc::context *ctxt) : gimple_opt_pass(spy_nodes_data, ctxt)
	{
	}
	bool gate(function *) final override
	{
		return spy_opts.nnodes > 0;
	}
	unsigned int execute(function *fun) final override
	{
		spy_build_decls();
		spy_insert_nodes(fun);
		return 0;
	}
};
} // namespace

opt_pass *spy_make_nodes_pass(gcc::context *ctxt)
{
	return new spy_nodes_pass(ctxt);
}

static unsigned int spy_instrument_execute(function *fun)
{
	bool want, hooks;
	tree slot;

	spy_build_decls();
	want = spy_want(fun);
	if (!want)
		return 0;
	hooks = spy_opts.mode != SPY_MODE_COUNT;

	free_dominance_info(CDI_DOMINATORS);
	free_dominance_info(CDI_POST_DOMINATORS);
	/* mode=arcs: the one hook, as with mcount */
	if (hooks && !spy_arc_hook_p()) {
		spy_insert_exits(fun);
		spy_insert_catches(fun);
	} else if (hooks) {
		spy_insert_arc_tails(fun);
	}
	slot = spy_make_slot(fun->decl);
	spy_insert_entry(fun, slot, hooks);
	spy_emit_record(fun, slot, hooks ? SPY_FUNC_HOOKS : 0);
	if (spy_opts.verbose)
		inform(DECL_SOURCE_LOCATION(fun->decl), "spyinstr: instrumented %qs (%s)",
		       spy_asm_name(fun->decl), spy_mode_name(spy_opts.mode));

	if (current_loops)
		loops_state_set(LOOPS_NEED_FIXUP);
	free_dominance_info(CDI_DOMINATORS);
	mark_virtual_operands_for_renaming(fun);
	cgraph_edge::rebuild_edges();
	return TODO_update_ssa;
}

namespace {
const pass_data spy_instrument_data = {
	GIMPLE_PASS, "spy_instrument", OPTGROUP_NONE, TV_NONE, PROP_ssa | PROP_cfg, 0, 0, 0, 0,
};

class spy_instrument_pass : public gimple_opt_pass {
      public:
	spy_instrument_pass(gcc::context *ctxt) : gimple_opt_pass(spy_instrument_data, ctxt)
	{
	}
	unsigned int execute(function *fun) final override
	{
		return spy_instrument_execute(fun);
	}
};
} // namespace

opt_pass *spy_make_instrument_pass(gcc::context *ctxt)
{
	return new spy_instrument_pass(ctxt);
}

/* ---- Registration ---------------------------------------------------- */

void spy_finish_unit(void *, void *)
{
	tree begin, end, body, exe;

	/* a node on a line of this unit's own file that has no code is a mistake worth stopping for
	 * (a node in a header is left alone: another unit may place it) */
	for (size_t i = 0; i < spy_opts.nnodes; i++)
		if (!spy_opts.nodes[i].placed && main_input_filename &&
		    spy_node_file_match(spy_opts.nodes[i].file, main_input_filename))
			error("spyinstr: node=%s:%u: line %u of %s has no code (nothing runs there to mark)",
			      spy_opts.nodes[i].file, spy_opts.nodes[i].line, spy_opts.nodes[i].line,
			      main_input_filename);

	if (!spy_records || seen_error())
		return;
	begin = build_fold_addr_expr(spy_start_decl);
	end = build_fold_addr_expr(spy_stop_decl);
	exe = null_pointer_node;
	if (spy_thread_exe_emitted) {
		tree var = build_decl(UNKNOWN_LOCATION, VAR_DECL, get_identifier(SPY_THREAD_EXE_SYMBOL),
				      ptr_type_node);

		DECL_EXTERNAL(var) = 1;
		TREE_PUBLIC(var) = 1;
		DECL_ARTIFICIAL(var) = 1;
		DECL_VISIBILITY(var) = VISIBILITY_HIDDEN;
		DECL_VISIBILITY_SPECIFIED(var) = 1;
		set_decl_tls_model(var, TLS_MODEL_LOCAL_EXEC);
		exe = build_fold_addr_expr(var);
	}
	body = build_call_expr(spy_register_decl, 4, begin, end,
			       build_int_cst(uint32_type_node, SPY_UNIT_TAG(spy_opts.mode)), exe);
	cgraph_build_static_cdtor('I', body, SPY_CDTOR_PRIORITY);
	body = build_call_expr(spy_unregister_decl, 2, begin, end);
	cgraph_build_static_cdtor('D', body, SPY_CDTOR_PRIORITY);
}

static struct attribute_spec spy_noinstr_attr = {
	"spy_noinstr", 0, 0, true, false, false, false, NULL, NULL,
};

void spy_register_attributes(void *, void *)
{
	register_attribute(&spy_noinstr_attr);
}
