#!/bin/bash
# t144: the temporary file of the atomic write (issue 24). Another user who makes the 100 names the
# old writer would try (gmon.out.tmpPID.0 to .99) beforehand no longer costs the profile, on a file
# system with O_TMPFILE or without (tests/e2e/writetrap.c's seccomp filter answers O_TMPFILE with
# EOPNOTSUPP, as NFS does): the new file has no name while written, and where it needs one, a random
# name. A program killed (SIGKILL) while the temporary file is open (writetrap stops it at its first
# write and kills it) leaves nothing behind; without O_TMPFILE, the named temporary it then uses has
# 64 random bits in its name and no pid.
. "$(dirname "$0")/lib-runtime.sh"
rt_setup
tap_plan 7

cat >"$T/d.c" <<'EOC'
#include "sample.h"
NOINL int f(int x) { BARRIER(); return x + 1; }
int main(void)
{
	int s = 0;
	for (int i = 0; i < 300; i++)
		s += f(i);
	return s == 0;
}
EOC
D=$T/d
WT=$T/writetrap
check "the program and writetrap build" eval 'rt_cc "$D" "$CC" "$T/d.c" && $CC -O2 "$SPY_SRC/tests/e2e/writetrap.c" -o "$WT"'
mkdir -p "$T/w"

# taken [WRAP...]: in a fresh $T/w, a subshell makes the 100 names for its own pid, then becomes the
# program (exec keeps the pid), through WRAP if given
taken() {
	local err rc
	rm -rf "$T/w" && mkdir "$T/w" && cd "$T/w" || return 1
	err=$( (for i in $(seq 0 99); do : >"gmon.out.tmp$BASHPID.$i"; done
		chown 65534:65534 gmon.out.tmp*
		exec "$@" "$D") 2>&1)
	rc=$?
	[ $rc -eq 0 ] && [ -z "$err" ] || { echo "status $rc: $err"; return 1; }
	grep -qx 'func f 300' <(rt_facts gmon.out) && [ "$(ls -A | grep -c '^gmon\.out\.tmp[0-9]*\.[0-9]*$')" -eq 100 ] &&
		[ "$(ls -A | wc -l)" -eq 101 ] || { ls -la | head; return 1; }
}
check "the 100 temporary names of the old writer taken beforehand: the profile is written" taken

# probe: can writetrap filter and trace here?
"$WT" notmpfile true 2>"$T/wt.err"
filter=$?
"$WT" kill "$D" >/dev/null 2>>"$T/wt.err"
trace=$?
why() { echo "writetrap cannot $1 here: $(tail -n 1 "$T/wt.err")"; }

if [ $filter -eq 77 ]; then
	ok "the same without O_TMPFILE # SKIP $(why filter)"
else
	check "the same without O_TMPFILE (a named temporary of a random name)" taken "$WT" notmpfile
fi

# killed [WRAP...]: the program killed at the first write into its new file, in $T/w that holds an
# old gmon.out; prints writetrap's line (the descriptor's target) on success (run in $(...): the
# caller changes to $T/w itself)
killed() {
	local line
	rm -rf "$T/w" && mkdir "$T/w" && cd "$T/w" || return 1
	echo old >gmon.out
	line=$("$@" "$WT" kill "$D") || { echo "writetrap: $line"; return 1; }
	echo "$line"
}

kill_tmpfile() {
	local line
	line=$(killed) && cd "$T/w" || { echo "$line"; return 1; }
	[ "$(ls -A)" = gmon.out ] && [ "$(cat gmon.out)" = old ] || { echo "$line; left:"; ls -la; return 1; }
	# O_TMPFILE: the file open has no name ("/dir/#INODE (deleted)")
	grep -q "^fd [0-9]*: $T/w/#[0-9]* (deleted)$" <<<"$line" || { echo "not an O_TMPFILE file: $line"; return 1; }
}
kill_fallback() {
	local line name
	line=$(killed "$WT" notmpfile) && cd "$T/w" || { echo "$line"; return 1; }
	name=${line#*: $T/w/}
	# a random name, not made of the pid
	[[ $name =~ ^gmon\.out\.tmp[0-9a-f]{16}$ ]] || { echo "not a random temporary name: $line"; return 1; }
	[ "$(ls -A | sort | tr '\n' ' ')" = "gmon.out $name " ] && [ "$(cat gmon.out)" = old ] || { ls -la; return 1; }
	rm -f "$name"
}
twice_different() {
	local a b
	a=$(killed "$WT" notmpfile) && b=$(killed "$WT" notmpfile) || return 1
	[ "${a#*: }" != "${b#*: }" ] || { echo "the same name twice: $a"; return 1; }
}
if [ $trace -eq 77 ] || [ $filter -eq 77 ]; then
	ok "killed while its new file is open: nothing left # SKIP $(why trace)"
	ok "without O_TMPFILE, the temporary name is random # SKIP $(why trace)"
	ok "... and different each time # SKIP $(why trace)"
else
	check "killed (SIGKILL) while its new file is open: nothing left behind, the old gmon.out whole" kill_tmpfile
	check "without O_TMPFILE the named temporary (what a kill leaves there) has a random name, no pid" kill_fallback
	check "... a different one each run" twice_different
fi

plain_fallback() {
	local err
	rm -rf "$T/w" && mkdir "$T/w" && cd "$T/w" || return 1
	echo old >gmon.out
	err=$("$WT" notmpfile "$D" 2>&1) && [ -z "$err" ] && grep -qx 'func f 300' <(rt_facts gmon.out) &&
		[ "$(ls -A)" = gmon.out ] || { echo "$err"; ls -la; return 1; }
}
if [ $filter -eq 77 ]; then
	ok "without O_TMPFILE the old file is replaced # SKIP $(why filter)"
else
	check "without O_TMPFILE the old file is replaced, nothing else left" plain_fallback
fi
tap_done
