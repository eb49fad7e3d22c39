#!/bin/bash
# t227: spinprof -R MAP with a spy profile: the functions grouped into the object files the map
# names them in, the calls between two files summed and sorted by count, then gprof's placement. By
# construction: main.o's main calls a.o's fa 1000 times, fa calls b.o's fb 1000 times, fb calls c.o's
# fc 500 times, d.o's fd is never called, and the map also names e.o (whose fe is not in the program);
# linked d.o c.o b.o a.o main.o (so the address order is not the answer). gprof's placement chains
# main.o a.o b.o along the two heaviest arcs (2000 of the 2500 calls); b -> c is in the last 1 % (the
# running sum reaches 2500/2500), so c.o and d.o follow by address: d.o c.o; then e.o, which stands
# for no function of the program: main.o a.o b.o d.o c.o e.o. -p with -R prints the flat profile
# first; a bad map is one line and status 2.
. "$(dirname "$0")/lib-spinprof.sh"
. "$(dirname "$0")/lib-runtime.sh"

[ -x "$SPINPROF" ] || tap_skip_all "no spinprof"
command -v nm >/dev/null || tap_skip_all "no nm"
rt_setup

tap_plan 4

D=$T/r
mkdir -p "$D"
cat >"$D/main.c" <<'EOS'
void fa(int k);
int main(void) { for (int i = 0; i < 1000; i++) fa(i); return 0; }
EOS
cat >"$D/a.c" <<'EOS'
void fb(int k);
void fa(int k) { fb(k); }
EOS
cat >"$D/b.c" <<'EOS'
void fc(int k);
void fb(int k) { if (k % 2) fc(k); }
EOS
cat >"$D/c.c" <<'EOS'
volatile int sc;
void fc(int k) { sc += k; }
EOS
cat >"$D/d.c" <<'EOS'
volatile int sd;
void fd(int k) { sd += k; }
EOS

build() {
	local x
	for x in main a b c d; do
		# shellcheck disable=SC2086
		$CC -fplugin="$SPY_PLUGIN" -O1 -g $SPY_SAN_FLAGS -c "$D/$x.c" -o "$D/$x.o" >"$D/cc.log" 2>&1 ||
			{ head "$D/cc.log"; return 1; }
	done
	# shellcheck disable=SC2086
	(cd "$D" && $CC $SPY_SAN_FLAGS d.o c.o b.o a.o main.o -o prog -L"$RT_DIR" -lspyrt -Wl,-rpath,"$RT_DIR" \
		-lpthread -ldl) >"$D/ld.log" 2>&1 || { head "$D/ld.log"; return 1; }
	rt_run "$D/prog" || return 1
	(cd "$D" && nm -A main.o a.o b.o c.o d.o | grep ' T ' >map && echo "e.o:0000000000000000 T fe" >>map)
	# the construction holds: the calls as planned
	"$SPINPROF" -b -p "$D/prog.out" >"$D/flat.txt" || return 1
	local fn want got
	for fn in fa:1000 fb:1000 fc:500; do
		want=${fn#*:}
		got=$(awk -v f="${fn%:*}" 'NF >= 7 && $NF == f { print $4 }' "$D/flat.txt")
		[ "$got" = "$want" ] || { echo "${fn%:*}: $got calls, want $want"; cat "$D/flat.txt"; return 1; }
	done
}
if sp_check "five objects build with the plugin, run, calls as planned" build; then
	order() {
		local got
		got=$("$SPINPROF" -R "$D/map" "$D/prog.out" | tr '\n' ' ')
		[ "$got" = "main.o a.o b.o d.o c.o e.o " ] || { echo "got: $got"; return 1; }
	}
	check "-R: main.o a.o b.o (chained), d.o c.o (by address), e.o (no function)" order
	withp() {
		"$SPINPROF" -b -p -R "$D/map" "$D/prog.out" >"$D/pr.txt" || return 1
		grep -q '^Flat profile:' "$D/pr.txt" &&
			[ "$(tail -n 6 "$D/pr.txt" | tr '\n' ' ')" = "main.o a.o b.o d.o c.o e.o " ]
	}
	check "-p -R: the flat profile, then the order" withp
else
	not_ok "not built"
	not_ok "not built"
fi
bad() {
	local out st
	echo "no colon" >"$D/badmap"
	out=$("$SPINPROF" -R "$D/badmap" "$D/prog.out" 2>&1)
	st=$?
	[ $st = 2 ] && [ "$(wc -l <<<"$out")" = 1 ] && [[ $out == "spinprof: $D/badmap: "* ]] ||
		{ echo "status $st: $out"; return 1; }
}
check "a map line without ':': one line naming the map, status 2" bad
tap_done
