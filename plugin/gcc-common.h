/* The GCC headers the plugin needs, in the order GCC wants them, and the few
 * helpers that hide differences between GCC versions. Only GCC 12 is tested. */
#ifndef SPYINSTR_GCC_COMMON_H
#define SPYINSTR_GCC_COMMON_H

#include "gcc-plugin.h"
#include "config.h"
#include "system.h"
#include "coretypes.h"
#include "tm.h"
#include "target.h"
#include "backend.h"
#include "tree.h"
#include "gimple.h"
#include "cfghooks.h"
#include "tree-pass.h"
#include "ssa.h"
#include "cgraph.h"
#include "context.h"
#include "diagnostic-core.h"
#include "stringpool.h"
#include "attribs.h"
#include "fold-const.h"
#include "stor-layout.h"
#include "varasm.h"
#include "output.h"
#include "gimple-iterator.h"
#include "gimplify.h"
#include "gimple-builder.h"
#include "tree-cfg.h"
#include "tree-eh.h"
#include "gimple-walk.h"
#include "gimple-low.h"
#include "file-prefix-map.h"
#include "tree-into-ssa.h"
#include "tree-ssa-operands.h"
#include "tree-ssanames.h"
#include "tree-dfa.h"
#include "tree-inline.h"
#include "cfgloop.h"
#include "ipa-utils.h"
#include "ggc.h"
#include "langhooks.h"
#include "print-tree.h"
#include "builtins.h"
#include "toplev.h"
#include "opts.h"
#include "gtype-desc.h"

#if BUILDING_GCC_VERSION < 12000 && !defined(SPYINSTR_ANY_GCC)
#error "spyinstr is written and tested for GCC 12"
#endif

#endif
