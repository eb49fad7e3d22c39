/* unit: runtime/env.c */
/* The runtime's environment: defaults, every accepted value, and every bad one costing exactly one
 * stderr line that names the variable and the value, with the default kept; SPYRT_OUT's expansion. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "spyrt.h"

/* Load env (NULL-terminated) with stderr captured into err; returns the number of lines. */
static int load(struct spy_config *cfg, char **env, char *err, size_t sz)
{
	FILE *tmp = tmpfile();
	int saved = dup(2), lines = 0;
	size_t n;

	assert_non_null(tmp);
	fflush(stderr);
	dup2(fileno(tmp), 2);
	spy_env_load(cfg, env);
	dup2(saved, 2);
	close(saved);
	rewind(tmp);
	n = fread(err, 1, sz - 1, tmp);
	err[n] = 0;
	fclose(tmp);
	for (size_t i = 0; i < n; i++)
		lines += err[i] == '\n';
	return lines;
}

static void release(struct spy_config *c)
{
	free(c->out);
	free(c->start);
	free(c->stop);
	free(c->target);
}

static void test_defaults(void **state)
{
	char *env[] = { "HOME=/root", "PATH=/bin", NULL }, err[1024];
	struct spy_config c;

	(void)state;
	assert_int_equal(load(&c, env, err, sizeof(err)), 0);
	assert_string_equal(c.out, "gmon.out");
	assert_int_equal(c.out_has_pid, 0);
	assert_int_equal(c.out_named, 0);
	assert_int_equal(c.mode, SPY_MODE_TIME);
	assert_int_equal(c.arcs, SPY_ARCS_DEFAULT);
	assert_null(c.start);
	assert_null(c.stop);
	assert_int_equal(c.off, 0);
	assert_int_equal(c.ready, 0);
	assert_int_equal(c.watch, GMON_WATCH_CPU); /* sampling on, as gprof */
	assert_null(c.target);
	assert_int_equal(c.hz, 1000);
	assert_int_equal(c.divisor, 1);
	release(&c);
}

static void test_good_values(void **state)
{
	char *env[] = {
		"SPYRT_OUT=/tmp/prof.%p.%%", "SPYRT_MODE=arcs", "SPYRT_ARCS=50000", "SPYRT_START=main",
		"SPYRT_STOP=_Z4stopv",       "SPYRT_OFF=1",     "SPYRT_READY=1",    NULL
	};
	char err[1024];
	struct spy_config c;

	(void)state;
	assert_int_equal(load(&c, env, err, sizeof(err)), 0);
	assert_string_equal(c.out, "/tmp/prof.%p.%%");
	assert_int_equal(c.out_has_pid, 1);
	assert_int_equal(c.out_named, 1);
	assert_int_equal(c.mode, SPY_MODE_ARCS);
	assert_int_equal(c.arcs, 50000);
	assert_string_equal(c.start, "main");
	assert_string_equal(c.stop, "_Z4stopv");
	assert_int_equal(c.off, 1);
	assert_int_equal(c.ready, 1);
	release(&c);
	{
		/* every watch name, the limits of the numbers */
		static const struct {
			const char *v;
			uint32_t watch;
		} w[] = { { "SPYRT_WATCH=none", GMON_WATCH_NONE },
			  { "SPYRT_WATCH=cpu", GMON_WATCH_CPU },
			  { "SPYRT_WATCH=wall", GMON_WATCH_WALL },
			  { "SPYRT_WATCH=alloc", GMON_WATCH_ALLOC },
			  { "SPYRT_WATCH=allocbytes", GMON_WATCH_ALLOCBYTES },
			  { "SPYRT_WATCH=faults", GMON_WATCH_FAULTS } };

		for (size_t i = 0; i < sizeof(w) / sizeof(w[0]); i++) {
			char *e3[] = { (char *)w[i].v, "SPYRT_HZ=1", "SPYRT_DIVISOR=1000000000", NULL };

			assert_int_equal(load(&c, e3, err, sizeof(err)), 0);
			assert_int_equal(c.watch, w[i].watch);
			assert_null(c.target);
			assert_int_equal(c.hz, 1);
			assert_int_equal(c.divisor, 1000000000);
			release(&c);
		}
	}
	{
		char *e4[] = { "SPYRT_WATCH=calls:_Z3fooi", "SPYRT_HZ=100000", "SPYRT_DIVISOR=7", NULL };

		assert_int_equal(load(&c, e4, err, sizeof(err)), 0);
		assert_int_equal(c.watch, GMON_WATCH_CALLS);
		assert_string_equal(c.target, "_Z3fooi");
		assert_int_equal(c.hz, 100000);
		assert_int_equal(c.divisor, 7);
		release(&c);
	}
	{
		char *e2[] = { "SPYRT_MODE=count", "SPYRT_OFF=0", NULL };

		assert_int_equal(load(&c, e2, err, sizeof(err)), 0);
		assert_int_equal(c.mode, SPY_MODE_COUNT);
		assert_int_equal(c.off, 0);
		release(&c);
	}
}

/* One bad variable: one line naming it and its value, and the default. */
static void bad(const char *var, const char *want_in_line)
{
	char *env[] = { (char *)var, NULL }, err[1024], name[64], value[256];
	struct spy_config c, def;
	char *none[] = { NULL };
	const char *eq = strchr(var, '=');

	snprintf(name, sizeof(name), "%.*s", (int)(eq - var), var);
	snprintf(value, sizeof(value), "'%s'", eq + 1);
	if (load(&c, env, err, sizeof(err)) != 1)
		fail_msg("%s: want one line, got: %s", var, err);
	if (!strstr(err, name) || (eq[1] && !strstr(err, value)) || !strstr(err, want_in_line))
		fail_msg("%s: the line does not say %s, %s and '%s': %s", var, name, value, want_in_line,
			 err);
	load(&def, none, err, sizeof(err));
	assert_string_equal(c.out, def.out);
	assert_int_equal(c.mode, def.mode);
	assert_int_equal(c.arcs, def.arcs);
	assert_int_equal(c.off, def.off);
	assert_int_equal(c.ready, def.ready);
	assert_null(c.start);
	assert_null(c.stop);
	assert_int_equal(c.watch, def.watch);
	assert_null(c.target);
	assert_int_equal(c.hz, def.hz);
	assert_int_equal(c.divisor, def.divisor);
	release(&c);
	release(&def);
}

static void test_bad_values(void **state)
{
	(void)state;
	bad("SPYRT_MODE=fast", "using time");
	bad("SPYRT_MODE=", "using time");
	bad("SPYRT_MODE=TIME", "using time");
	bad("SPYRT_ARCS=12x", "using 10000");
	bad("SPYRT_ARCS=-5", "using 10000");
	bad("SPYRT_ARCS=10", "using 10000");
	bad("SPYRT_ARCS=99999999999999999999", "using 10000");
	bad("SPYRT_ARCS=", "using 10000");
	bad("SPYRT_OFF=2", "using 0");
	bad("SPYRT_OFF=yes", "using 0");
	bad("SPYRT_READY=", "using 0");
	bad("SPYRT_OUT=", "is empty; using gmon.out");
	bad("SPYRT_OUT=/tmp/dir/", "names a directory");
	bad("SPYRT_OUT=prof.%d", "% not followed by p");
	bad("SPYRT_OUT=prof.%", "% not followed by p");
	bad("SPYRT_START=", "not a function name");
	bad("SPYRT_STOP=two words", "not a function name");
	bad("SPYRT_MODES=time", "unknown variable");
	bad("SPYRT_WATCH=gpu", "using cpu");
	bad("SPYRT_WATCH=", "using cpu");
	bad("SPYRT_WATCH=CPU", "using cpu");
	bad("SPYRT_WATCH=calls", "using cpu");
	bad("SPYRT_WATCH=calls:", "using cpu");
	bad("SPYRT_WATCH=calls:a b", "using cpu");
	bad("SPYRT_HZ=0", "using 1000");
	bad("SPYRT_HZ=100001", "using 1000");
	bad("SPYRT_HZ=1k", "using 1000");
	bad("SPYRT_HZ=-5", "using 1000");
	bad("SPYRT_HZ=", "using 1000");
	bad("SPYRT_HZ=99999999999999999999", "using 1000");
	bad("SPYRT_DIVISOR=0", "using 1");
	bad("SPYRT_DIVISOR=2.5", "using 1");
	bad("SPYRT_DIVISOR=1000000001", "using 1");
	bad("SPYRT_DIVISOR=", "using 1");
}

static void test_out_path(void **state)
{
	struct spy_config c = { .out = "prof.%p.out", .out_has_pid = 1 };
	char buf[64];

	(void)state;
	assert_int_equal(spy_out_path(&c, buf, sizeof(buf), 42, 0), 0);
	assert_string_equal(buf, "prof.42.out");
	assert_int_equal(spy_out_path(&c, buf, sizeof(buf), 42, 1), 0);
	assert_string_equal(buf, "prof.42.out"); /* %p already tells a child's file apart */
	c.out = "gmon.out";
	c.out_has_pid = 0;
	assert_int_equal(spy_out_path(&c, buf, sizeof(buf), 42, 0), 0);
	assert_string_equal(buf, "gmon.out");
	assert_int_equal(spy_out_path(&c, buf, sizeof(buf), 77, 1), 0);
	assert_string_equal(buf, "gmon.out.77");
	c.out = "a%%b";
	assert_int_equal(spy_out_path(&c, buf, sizeof(buf), 1, 0), 0);
	assert_string_equal(buf, "a%b");
	c.out = "%p%p%p%p%p%p%p%p";
	c.out_has_pid = 1;
	assert_int_equal(spy_out_path(&c, buf, 16, 123456, 0), -1);
}

/* AT_SECURE (a setuid program): no variable is read, one line says so when one was there */
static void test_secure(void **state)
{
	char *env[] = { "HOME=/root", "SPYRT_OUT=/etc/passwd", "SPYRT_MODE=arcs", NULL };
	char *plain[] = { "HOME=/root", NULL }, err[1024], **got;
	struct spy_config c;
	FILE *tmp;
	int saved = dup(2);
	size_t n;

	(void)state;
	assert_ptr_equal(spy_env_trusted(env, 0), env);
	assert_int_equal(spy_caller.secure, 0);
	tmp = tmpfile();
	assert_non_null(tmp);
	fflush(stderr);
	dup2(fileno(tmp), 2);
	got = spy_env_trusted(env, 1);
	dup2(saved, 2);
	rewind(tmp);
	n = fread(err, 1, sizeof(err) - 1, tmp);
	err[n] = 0;
	fclose(tmp);
	assert_non_null(got);
	assert_null(got[0]);
	assert_int_equal(spy_caller.secure, 1);
	assert_int_equal(spy_caller.uid, getuid());
	assert_int_equal(spy_caller.gid, getgid());
	assert_non_null(strstr(err, "every SPYRT_ variable is ignored"));
	assert_non_null(strchr(err, '\n'));
	assert_string_equal(strchr(err, '\n'), "\n"); /* one line */
	/* what the runtime then loads: the defaults, gmon.out not named */
	assert_int_equal(load(&c, got, err, sizeof(err)), 0);
	assert_string_equal(c.out, "gmon.out");
	assert_int_equal(c.out_named, 0);
	assert_int_equal(c.mode, SPY_MODE_TIME);
	release(&c);
	/* nothing to ignore: nothing said */
	tmp = tmpfile();
	assert_non_null(tmp);
	dup2(fileno(tmp), 2);
	got = spy_env_trusted(plain, 1);
	dup2(saved, 2);
	close(saved);
	assert_null(got[0]);
	fseek(tmp, 0, SEEK_END);
	assert_int_equal(ftell(tmp), 0);
	fclose(tmp);
	spy_caller.secure = 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),   cmocka_unit_test(test_good_values),
		cmocka_unit_test(test_bad_values), cmocka_unit_test(test_out_path),
		cmocka_unit_test(test_secure),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
