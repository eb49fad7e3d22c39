/* unit: plugin/options.c */
/* The plugin's option parser and its include/exclude decision. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "../../plugin/options.h"
#include "spy-abi.h"

static int set(struct spy_options *o, const char *key, const char *value, char *err)
{
	return spy_options_set(o, key, value, err, 256);
}

static void test_defaults(void **state)
{
	struct spy_options o;

	(void)state;
	spy_options_init(&o);
	assert_int_equal(o.mode, SPY_MODE_TIME);
	assert_int_equal(o.verbose, 0);
	assert_true(spy_options_want(&o, "f", "f", "a.c"));
	spy_options_release(&o);
}

static void test_modes(void **state)
{
	static const struct {
		const char *value;
		int mode;
	} ok[] = { { "count", SPY_MODE_COUNT }, { "arcs", SPY_MODE_ARCS }, { "time", SPY_MODE_TIME } };
	struct spy_options o;
	char err[256] = "";

	(void)state;
	spy_options_init(&o);
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		assert_int_equal(set(&o, "mode", ok[i].value, err), 0);
		assert_int_equal(o.mode, ok[i].mode);
		assert_string_equal(spy_mode_name(o.mode), ok[i].value);
	}
	assert_int_equal(set(&o, "mode", "fast", err), -1);
	assert_non_null(strstr(err, "'fast'"));
	assert_non_null(strstr(err, "mode"));
	assert_int_equal(set(&o, "mode", NULL, err), -1);
	assert_int_equal(set(&o, "mode", "", err), -1);
	assert_int_equal(o.mode, SPY_MODE_TIME); /* a bad value changes nothing */
	assert_null(spy_mode_name(7));
	assert_null(spy_mode_name(-1));
	spy_options_release(&o);
}

static void test_unknown_key(void **state)
{
	struct spy_options o;
	char err[256] = "";

	(void)state;
	spy_options_init(&o);
	assert_int_equal(set(&o, "exclude-functions", "a", err), -1);
	assert_non_null(strstr(err, "unknown option 'exclude-functions'"));
	assert_int_equal(set(&o, "verbose", "yes", err), -1);
	assert_non_null(strstr(err, "'yes'"));
	assert_int_equal(set(&o, "verbose", NULL, err), 0);
	assert_int_equal(o.verbose, 1);
	assert_int_equal(set(&o, "verbose", "0", err), 0);
	assert_int_equal(o.verbose, 0);
	spy_options_release(&o);
}

static void test_lists(void **state)
{
	struct spy_options o;
	char err[256] = "";

	(void)state;
	spy_options_init(&o);
	assert_int_equal(set(&o, "exclude-function", "a,b*,c", err), 0);
	assert_int_equal(o.exclude_function.nr, 3);
	assert_string_equal(o.exclude_function.items[1], "b*");
	assert_int_equal(set(&o, "exclude-function", "d", err), 0); /* repeats add up */
	assert_int_equal(o.exclude_function.nr, 4);
	assert_int_equal(set(&o, "exclude-function", "x,,y", err), -1);
	assert_non_null(strstr(err, "empty item"));
	assert_int_equal(set(&o, "exclude-function", "x,", err), -1);
	assert_int_equal(set(&o, "include-function", NULL, err), -1);
	assert_non_null(strstr(err, "needs a value"));
	assert_int_equal(set(&o, "exclude-file", "", err), -1);
	spy_options_release(&o);
}

static void test_want(void **state)
{
	struct spy_options o;
	char err[256] = "";

	(void)state;
	spy_options_init(&o);
	assert_int_equal(set(&o, "exclude-function", "skip*,_ZN3Foo3barEv", err), 0);
	assert_int_equal(set(&o, "exclude-file", "/vendor/", err), 0);
	assert_false(spy_options_want(&o, "skipme", "skipme", "a.c"));
	assert_false(spy_options_want(&o, "skip.constprop", "skip.constprop.0", "a.c")); /* clone */
	assert_false(spy_options_want(&o, "bar", "_ZN3Foo3barEv", "a.cc"));              /* by mangled name */
	assert_false(spy_options_want(&o, "f", "f", "src/vendor/z.c"));
	assert_true(spy_options_want(&o, "f", "f", "src/vendors.c"));
	assert_true(spy_options_want(&o, "bar", "_ZN3Baz3barEv", "a.cc"));
	assert_true(spy_options_want(&o, NULL, "anon", NULL));

	assert_int_equal(set(&o, "include-function", "hot_*", err), 0);
	assert_true(spy_options_want(&o, "hot_loop", "hot_loop", "a.c"));
	assert_true(spy_options_want(&o, "hot_loop.part", "hot_loop.part.0", "a.c"));
	assert_false(spy_options_want(&o, "cold", "cold", "a.c"));
	assert_false(spy_options_want(&o, "hot_x", "hot_x", "lib/vendor/y.c")); /* exclusion wins */
	spy_options_release(&o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),    cmocka_unit_test(test_modes),
		cmocka_unit_test(test_unknown_key), cmocka_unit_test(test_lists),
		cmocka_unit_test(test_want),
	};

	return cmocka_run_group_tests_name("plugin-options", tests, NULL, NULL);
}
