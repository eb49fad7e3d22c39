#!/bin/bash
# t141: a setuid-root program built with spy, run by another user with umask 000 (issue 24): every
# SPYRT_ variable is ignored, which one stderr line says, so SPYRT_OUT neither replaces a root-owned
# file nor creates one in a root-only directory; gmon.out goes to the current directory, made with the
# caller's rights (owned by the caller; in a directory the caller cannot write, nothing but one line);
# spy_dump(path) too; the program's ids and capabilities are the same after a write as before. With
# file capabilities (cap_dac_override) instead of setuid, the capability does not make the file.
# Needs root (CI runs as root) and a mount where the setuid bit takes effect; skipped otherwise.
. "$(dirname "$0")/lib-runtime.sh"
[ "$(id -u)" -eq 0 ] || tap_skip_all "not root: cannot make a setuid-root program or run as another user"
command -v setpriv >/dev/null || tap_skip_all "no setpriv (util-linux)"
rt_setup
tap_plan 9

U=65534
as_user() { setpriv --reuid=$U --regid=$U --clear-groups -- "$@"; }

# the work directory: $S (root's, 0711) holds the program, a root-owned file, a root-only directory,
# a directory of the user's and one the user may enter but not write
chmod 711 "$T"
S=$T/s
mkdir -p "$S/bin" "$S/private" "$S/user" "$S/ro"
chmod 711 "$S"
chmod 755 "$S/bin" "$S/ro"
chmod 700 "$S/private"
chown $U:$U "$S/user"

cat >"$T/su.c" <<'EOC'
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "spy.h"
#include "sample.h"
NOINL int f(int x) { BARRIER(); return x + 1; }
/* the ids and effective capabilities, as /proc/self/status says them */
static void creds(char *out, size_t sz)
{
	char line[256];
	FILE *s = fopen("/proc/self/status", "r");
	size_t o = 0;

	out[0] = 0;
	while (s && fgets(line, sizeof(line), s))
		if ((!strncmp(line, "Uid:", 4) || !strncmp(line, "Gid:", 4) || !strncmp(line, "CapEff:", 7)) &&
		    o + strlen(line) < sz)
			o += (size_t)sprintf(out + o, "%s", line);
	if (s)
		fclose(s);
}
int main(int argc, char **argv)
{
	char before[1024], after[1024];
	int s = 0;

	printf("euid=%d\n", (int)geteuid());
	for (int i = 0; i < 300; i++)
		s += f(i);
	if (argc > 1) {
		creds(before, sizeof(before));
		if (spy_dump(argv[1]))
			printf("spy_dump failed\n");
		creds(after, sizeof(after));
		if (strcmp(before, after)) {
			printf("changed by the write:\n%s---\n%s", before, after);
			return 3;
		}
	}
	return s == 0;
}
EOC
P=$S/bin/su
# libspyrt.a: the dynamic loader ignores LD_LIBRARY_PATH in a setuid program
check "the program builds, setuid root" eval 'rt_cc_static "$P" "$CC" "$T/su.c" && chown root:root "$P" && chmod 4755 "$P"'

reason=
euid=$(cd "$S/user" && as_user "$P" 2>/dev/null | head -n 1)
[ "$euid" = euid=0 ] || reason="the setuid bit takes no effect here ($euid: a nosuid mount?)"
if [ -n "$reason" ]; then
	for i in $(seq $((tap_n + 1)) 9); do ok "point $i # SKIP $reason"; done
	tap_done
fi

# run_as DIR ENV...: the program as the user in DIR with umask 000; stderr in $T/err, status in $rc
run_as() {
	local dir=$1
	shift
	(cd "$dir" && umask 000 && env "$@" setpriv --reuid=$U --regid=$U --clear-groups -- "$P" "${ARGS[@]}") \
		>"$T/out" 2>"$T/err"
	rc=$?
}
one_line() {
	[ "$(grep -c . "$T/err")" -eq 1 ] && grep -q "$1" "$T/err" || { echo "stderr:"; cat "$T/err"; return 1; }
}
mine() {
	[ -f "$1" ] && [ "$(stat -c %u:%g "$1")" = $U:$U ] && grep -qx 'func f 300' <(rt_facts "$1") ||
		{ ls -la "$(dirname "$1")"; return 1; }
}

root_file() {
	local was
	echo "root's own" >"$S/rootfile"
	chmod 644 "$S/rootfile"
	was=$(stat -c '%i %u %a %s' "$S/rootfile")
	rm -f "$S/user/gmon.out"
	ARGS=()
	run_as "$S/user" SPYRT_OUT="$S/rootfile" SPYRT_MODE=arcs
	[ $rc -eq 0 ] || { echo "status $rc"; cat "$T/err"; return 1; }
	[ "$(stat -c '%i %u %a %s' "$S/rootfile")" = "$was" ] && [ "$(cat "$S/rootfile")" = "root's own" ] ||
		{ echo "root's file changed: $was, now $(stat -c '%i %u %a %s' "$S/rootfile")"; return 1; }
	one_line "every SPYRT_ variable is ignored" && mine "$S/user/gmon.out"
}
check "SPYRT_OUT naming a root-owned file: the file is untouched, one line says SPYRT_ is ignored, gmon.out is the caller's" root_file

private_dir() {
	rm -f "$S/user/gmon.out"
	ARGS=()
	run_as "$S/user" SPYRT_OUT="$S/private/new.out"
	[ $rc -eq 0 ] && [ -z "$(ls -A "$S/private")" ] || { ls -la "$S/private"; return 1; }
	one_line "every SPYRT_ variable is ignored" && mine "$S/user/gmon.out"
}
check "SPYRT_OUT into a root-only directory creates nothing there; gmon.out is the caller's" private_dir

quiet() {
	rm -f "$S/user/gmon.out"
	ARGS=()
	run_as "$S/user"
	[ $rc -eq 0 ] && [ ! -s "$T/err" ] && mine "$S/user/gmon.out" || { cat "$T/err"; return 1; }
}
check "no SPYRT_ variable: nothing on stderr, gmon.out is the caller's" quiet

unwritable() {
	ARGS=()
	run_as "$S/ro"
	[ $rc -eq 0 ] && [ -z "$(ls -A "$S/ro")" ] || { echo "status $rc"; ls -la "$S/ro"; return 1; }
	# the name resolved against the directory the program started in (t149)
	one_line "cannot write profile '$S/ro/gmon.out'.*Permission denied"
}
check "in a directory the caller cannot write (root's 0755): nothing made there, one line" unwritable

dumped() {
	rm -f "$S/user/mid.out" "$S/user/gmon.out"
	ARGS=("$S/user/mid.out")
	run_as "$S/user"
	[ $rc -eq 0 ] && [ ! -s "$T/err" ] || { echo "status $rc"; cat "$T/out" "$T/err"; return 1; }
	mine "$S/user/mid.out" && mine "$S/user/gmon.out"
}
check "spy_dump(path) is the caller's file too; the program's ids and capabilities are as before it" dumped

dump_refused() {
	local was
	was=$(stat -c '%i %u %a %s' "$S/rootfile")
	ARGS=("$S/rootfile")
	run_as "$S/user"
	[ $rc -eq 0 ] && grep -qx 'spy_dump failed' "$T/out" || { echo "status $rc"; cat "$T/out"; return 1; }
	[ "$(stat -c '%i %u %a %s' "$S/rootfile")" = "$was" ] && [ "$(cat "$S/rootfile")" = "root's own" ] &&
		one_line "cannot write profile '$S/rootfile'.*Permission denied"
}
check "spy_dump(path) over a root-owned file in root's directory: refused, one line, the file untouched" dump_refused

# the file a forked child writes (gmon.out.PID) under the same rules: covered by the same code path

# file capabilities: no setuid; cap_dac_override would let the process write anywhere
fcaps() {
	local C=$S/bin/sucap
	cp "$P" "$C" && chmod 755 "$C" && setcap cap_dac_override+ep "$C" 2>"$T/err" || return 2
	ARGS=()
	(cd "$S/ro" && SPYRT_OUT="$S/private/cap.out" setpriv --reuid=$U --regid=$U --clear-groups -- "$C") \
		>"$T/out" 2>"$T/err"
	rc=$?
	[ $rc -eq 0 ] && [ -z "$(ls -A "$S/ro")" ] && [ -z "$(ls -A "$S/private")" ] ||
		{ echo "status $rc"; cat "$T/err"; ls -la "$S/ro" "$S/private"; return 1; }
	grep -q "every SPYRT_ variable is ignored" "$T/err" &&
		grep -q "cannot write profile '$S/ro/gmon.out'.*Permission denied" "$T/err" && [ "$(grep -c . "$T/err")" -eq 2 ] ||
		{ cat "$T/err"; return 1; }
}
if ! command -v setcap >/dev/null; then
	ok "file capabilities # SKIP no setcap (libcap2-bin, in mk/deps.sh)"
else
	fcaps >"$T/fcaps.log" 2>&1
	case $? in
	0) ok "with cap_dac_override instead of setuid: SPYRT_ ignored, nothing made where the caller cannot write" ;;
	2) ok "file capabilities # SKIP setcap failed here: $(head -n 1 "$T/err")" ;;
	*) not_ok "with cap_dac_override instead of setuid: SPYRT_ ignored, nothing made where the caller cannot write"
	   diag <"$T/fcaps.log" ;;
	esac
fi

# and the program was never broken: the same program run plainly by root obeys SPYRT_OUT
plain() {
	(cd "$S/ro" && SPYRT_OUT="$S/plain.out" "$P" >/dev/null) 2>"$T/err" && [ ! -s "$T/err" ] &&
		grep -qx 'func f 300' <(rt_facts "$S/plain.out")
}
check "run by root itself (no AT_SECURE), the same program obeys SPYRT_OUT" plain
tap_done
