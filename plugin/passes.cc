/* spyinstr-passes.so: loaded by spyinstr.so once it has checked the GCC
 * version. Parses -fplugin-arg-spyinstr-KEY=VALUE and registers the passes of
 * instrument.cc with their callbacks. */
#include "gcc-common.h"
#include "spyinstr.h"
#include "spy-abi.h"

struct spy_options spy_opts;

static struct plugin_info spy_plugin_info = {
	.version = "1",
	.help = "add-one counters and entry/exit hooks for the spy profiler\n"
		"  mode=count|arcs|time          what to insert (default time)\n"
		"  exclude-function=PAT[,PAT]     skip functions matching shell patterns\n"
		"  include-function=PAT[,PAT]     instrument only these\n"
		"  exclude-file=SUBSTR[,SUBSTR]   skip functions whose source path contains one\n"
		"  node=FILE:LINE[=NAME][,...]    a node (Mesa) before the first statement of each line\n"
		"  verbose                        one line per instrumented function\n",
};

static void spy_register_passes(const char *name)
{
	struct register_pass_info instrument = {
		.pass = spy_make_instrument_pass(g),
		/* After IPA inlining and the tail-call pass, once per emitted
		 * body: only out-of-line functions get counted, as with -pg, and
		 * the tail-call flags are final. */
		.reference_pass_name = "optimized",
		.ref_pass_instance_number = 1,
		.pos_op = PASS_POS_INSERT_BEFORE,
	};

	struct register_pass_info nodes = {
		.pass = spy_make_nodes_pass(g),
		.reference_pass_name = "cfg",
		.ref_pass_instance_number = 1,
		.pos_op = PASS_POS_INSERT_AFTER,
	};

	register_callback(name, PLUGIN_PASS_MANAGER_SETUP, NULL, &instrument);
	register_callback(name, PLUGIN_PASS_MANAGER_SETUP, NULL, &nodes);
}

/* The value of the nth -fplugin-arg-BASE-KEY=VALUE as the command line has it, or cut when it is not
 * found there. */
static const char *spy_whole_value(const char *base, const char *key, int nth, const char *cut)
{
	char prefix[256];
	size_t n;

	snprintf(prefix, sizeof(prefix), "-fplugin-arg-%s-%s=", base, key);
	n = strlen(prefix);
	for (unsigned i = 0; i < save_decoded_options_count; i++) {
		const char *text = save_decoded_options[i].orig_option_with_args_text;

		if (text && !strncmp(text, prefix, n) && nth-- == 0)
			return text + n;
	}
	return cut;
}

extern "C" __attribute__((visibility("default"))) int spy_passes_init(struct plugin_name_args *info,
								      struct plugin_gcc_version *)
{
	char err[512];

	spy_options_init(&spy_opts);
	for (int i = 0, nth = 0; i < info->argc; i++) {
		const char *value = info->argv[i].value;

		/* GCC 12 cuts a plugin argument's value by one character for each '=' in it
		 * (node=FILE:LINE=NAME): the option as written on the command line has it whole */
		if (!strcmp(info->argv[i].key, "node"))
			value = spy_whole_value(info->base_name, "node", nth++, value);
		if (spy_options_set(&spy_opts, info->argv[i].key, value, err, sizeof(err)) < 0) {
			error("spyinstr: %s", err);
			return 1;
		}
	}

	register_callback(info->base_name, PLUGIN_INFO, NULL, &spy_plugin_info);
	register_callback(info->base_name, PLUGIN_ATTRIBUTES, spy_register_attributes, NULL);
	register_callback(info->base_name, PLUGIN_REGISTER_GGC_ROOTS, NULL, (void *)spy_ggc_roots);
	register_callback(info->base_name, PLUGIN_FINISH_UNIT, spy_finish_unit, NULL);
	spy_register_passes(info->base_name);
	return 0;
}
