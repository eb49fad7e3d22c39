/* What passes.cc (options, registration) and instrument.cc (the passes) share. */
#ifndef SPYINSTR_H
#define SPYINSTR_H

#include "options.h"

extern struct spy_options spy_opts;

/* Build the runtime's declarations, once the compiler has its type nodes. */
void spy_build_decls(void);
/* The GC roots of the trees the plugin keeps between functions. */
extern const struct ggc_root_tab spy_ggc_roots[];
/* The pass: counter, hooks and records, before "optimized". */
opt_pass *spy_make_instrument_pass(gcc::context *ctxt);
/* PLUGIN_FINISH_UNIT: the unit's registration constructor and destructor. */
void spy_finish_unit(void *gcc_data, void *user_data);
opt_pass *spy_make_nodes_pass(gcc::context *ctxt);
/* PLUGIN_ATTRIBUTES: the spy_noinstr attribute. */
void spy_register_attributes(void *gcc_data, void *user_data);

#endif
