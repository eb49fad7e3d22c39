#!/bin/bash
# t143: what another user plants where root's program writes its profile (issue 24). A FIFO named
# gmon.out, made by uid 65534 and held open for reading, would have received the whole profile: it is
# replaced by a regular file and its reader gets nothing, under the default name and named by
# SPYRT_OUT alike. A symlink that uid 65534 put at the named path, to a FIFO of root's with a reader,
# is replaced, not followed. Under the default name, which nobody named, even root's own FIFO and a
# symlink to /dev/null are replaced. A FIFO, device or symlink of root's named by SPYRT_OUT is still
# written into (t125).
. "$(dirname "$0")/lib-runtime.sh"
[ "$(id -u)" -eq 0 ] || tap_skip_all "not root: cannot make files of another user"
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
check "the program builds" rt_cc "$D" "$CC" "$T/d.c"
mkdir -p "$T/w"
chmod 1777 "$T/w" # as /tmp

# planted FIFO [OWNER] [ENV...]: a FIFO at FIFO (made by OWNER, default 65534) is held open for
# reading and writing by this shell while the program runs in $T/w with ENV; then the FIFO must not
# have received anything (the first line read after a marker is the marker), FIFO must be a regular
# file with the profile, and the program quiet with status 0.
planted() {
	local fifo=$1 owner=${2:-65534} line err rc
	shift 2
	cd "$T/w" || return 1
	rm -f "$fifo"
	mkfifo -m 666 "$fifo" && chown "$owner:$owner" "$fifo" || return 1
	exec 3<>"$fifo"
	err=$(env "$@" timeout 20 "$D" 2>&1 3>&-)
	rc=$?
	echo END >&3
	IFS= read -r -t 5 line <&3 2>/dev/null
	exec 3>&-
	[ "$line" = END ] || { echo "the FIFO's reader got the profile"; return 1; }
	[ $rc -eq 0 ] && [ -z "$err" ] || { echo "status $rc: $err"; return 1; }
	[ -f "$fifo" ] && [ ! -L "$fifo" ] && grep -qx 'func f 300' <(rt_facts "$fifo") || { ls -la; return 1; }
	[ -z "$(ls -A | grep '\.tmp')" ] || { ls -la; return 1; }
}
check "another user's FIFO named gmon.out: replaced by the profile, its reader gets nothing" \
	planted "$T/w/gmon.out" 65534 SPYRT_MODE=arcs
check "another user's FIFO named by SPYRT_OUT: replaced the same way" \
	planted "$T/w/their.fifo" 65534 SPYRT_MODE=arcs SPYRT_OUT="$T/w/their.fifo"
check "root's own FIFO under the default name (nobody named it): replaced" \
	planted "$T/w/gmon.out" 0 SPYRT_MODE=arcs

# a symlink of uid 65534's, at the path root names, to a FIFO of root's that has a reader
their_link() {
	local line err rc
	cd "$T/w" || return 1
	rm -f root.fifo link.out
	mkfifo root.fifo || return 1
	ln -s "$T/w/root.fifo" link.out && chown -h 65534:65534 link.out || return 1
	exec 3<>root.fifo
	err=$(SPYRT_MODE=arcs SPYRT_OUT=$T/w/link.out timeout 20 "$D" 2>&1 3>&-)
	rc=$?
	echo END >&3
	IFS= read -r -t 5 line <&3 2>/dev/null
	exec 3>&-
	[ "$line" = END ] || { echo "the link was followed: the FIFO's reader got the profile"; return 1; }
	[ $rc -eq 0 ] && [ -z "$err" ] && [ -f link.out ] && [ ! -L link.out ] && [ -p root.fifo ] &&
		grep -qx 'func f 300' <(rt_facts link.out) || { echo "status $rc: $err"; ls -la; return 1; }
}
check "another user's symlink at the named path, to root's FIFO: replaced, not followed" their_link

default_link() {
	local err
	cd "$T/w" || return 1
	rm -f gmon.out
	ln -s /dev/null gmon.out || return 1
	err=$(SPYRT_MODE=arcs "$D" 2>&1) && [ -z "$err" ] && [ -f gmon.out ] && [ ! -L gmon.out ] &&
		grep -qx 'func f 300' <(rt_facts gmon.out) && [ -c /dev/null ] || { echo "$err"; ls -la; return 1; }
}
check "a symlink to /dev/null under the default name: replaced, /dev/null untouched" default_link

# root's own, named: still written into (the rest of these cases is t125's)
own_named() {
	local got err
	cd "$T/w" || return 1
	rm -f mine.fifo
	mkfifo mine.fifo || return 1
	exec 3<>mine.fifo
	err=$(SPYRT_MODE=arcs SPYRT_OUT=$T/w/mine.fifo timeout 20 "$D" 2>&1 3>&-)
	# what the FIFO holds, read without waiting for more (this shell is a writer too)
	dd bs=1M count=1 iflag=nonblock status=none <&3 >got
	exec 3>&-
	[ -z "$err" ] && [ -p mine.fifo ] && grep -qx 'func f 300' <(rt_facts got) || { echo "$err"; ls -la; return 1; }
}
check "root's own FIFO named by SPYRT_OUT: written into, stays a FIFO" own_named
tap_done
