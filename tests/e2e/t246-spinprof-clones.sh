#!/bin/bash
# t246: GCC's clones are functions in every view of a spy profile (issue 23, item 5). samples/clones.c
# at -O2 has work.part.0 (ipa-split), sum.constprop.0.isra.0 (IPA-SRA; sum.constprop.0 under AddressSanitizer) and hot's loop in hot.cold, each
# doing a known share of the work; gprof's symbol filter drops .part and .isra names and would put their
# PCs in the symbol before them (frame_dummy), and hot.cold's in rare. Built in modes count, arcs and
# time and run with CPU sampling; the reference is independent of spinprof: each sample's PC (from
# `spinprof --dump`) placed in the binary's sized function symbols by nm, a NAME.cold's ticks given to
# NAME. Checked per mode: the Spy report's procedures (json's samples) have exactly those ticks, and in
# mode count the flat profile's self ticks (json's functions, mode count has no stacks: the PC says)
# too; no frame_dummy, rare or hot.cold carries a tick.
. "$(dirname "$0")/lib-spinprof.sh"
. "$(dirname "$0")/lib-runtime.sh"

[ -x "$SPINPROF" ] || tap_skip_all "no spinprof"
command -v python3 >/dev/null || tap_skip_all "no python3 (in mk/deps.sh)"
command -v nm >/dev/null || tap_skip_all "no nm (binutils)"
rt_setup

P=$T/clones
N=${SPY_CLONES_N:-4000}
tap_plan 7

build() {
	rt_cc "$P" "$CC" "$SAMPLES/clones.c" || return 1
	local want
	for want in 'work\.part\.' 'sum\.\(.*isra\|constprop\)' 'hot\.cold'; do
		nm "$P" | grep -q " t $want" || { echo "gcc made no clone matching $want"; return 1; }
	done
}
if ! check "samples/clones.c builds with work.part.N, sum.*.isra.N and hot.cold" build; then
	for _ in 1 2 3 4 5 6; do not_ok "no clones to profile"; done
	tap_done
fi

# expected PROG: PROG.out's ticks per function, each stack's weight in ticks at its PC's sized symbol
# of PROG, NAME.cold as NAME (PROG.syms: the symbols)
expected() {
	nm -S --defined-only "$1" | awk 'NF == 4 && $3 ~ /^[tTwW]$/ { print $1, $2, $4 }' >"$1.syms"
	"$SPINPROF" --dump "$1.out" >"$1.dump" || return 1
	python3 - "$1.syms" "$1.dump" <<'PY'
import sys
syms = []
for line in open(sys.argv[1]):
    a, s, n = line.split()
    syms.append((int(a, 16), int(a, 16) + int(s, 16), n))
base = None
period = None
ticks = {}
for line in open(sys.argv[2]):
    w = line.split()
    kv = dict(x.split("=", 1) for x in w[1:] if "=" in x)
    if w[0] == "module" and "main" in kv.get("flags", ""):
        base = int(kv["base"], 16)
    elif w[0] == "sampling":
        period = 1e9 / int(kv["hz"])
    elif w[0] == "stack" and "runtime" not in kv["flags"]:
        pc = int(kv["pc"], 16)
        if pc == 0 or pc < base:
            continue
        for lo, hi, n in syms:
            if lo <= pc - base < hi:
                if n.endswith(".cold"):
                    n = n[:-5]
                ticks[n] = ticks.get(n, 0) + int(kv["weight"]) / period
for n, t in sorted(ticks.items()):
    print(n, round(t, 6))
PY
}

# got JSON WHAT: the json's ticks per name, of its functions (flat) or of its samples' procedures
got() {
	python3 - "$1" "$2" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
rows = d["functions"] if sys.argv[2] == "flat" else d["samples"]["procedures"]
for x in sorted(rows, key=lambda x: x["name"]):
    if x["self"] > 0:
        print(x["name"], round(x["self"], 6))
PY
}

# same WANT GOT: the functions of the program (those nm knows, $SYMS) with ticks in either, equal
same() {
	awk 'FNR == NR { w[$1] = $2; next } { g[$1] = $2 }
		function off(a, b) { return a - b > 0.001 || b - a > 0.001 }
		END { for (n in w) if (!(n in g) || off(g[n], w[n])) { print n ": " (n in g ? g[n] : 0) " ticks, want " w[n]; bad++ }
		      for (n in g) if (!(n in w) && system("grep -q \" " n "$\" '"$SYMS"'") == 0) { print n ": " g[n] " ticks, want 0"; bad++ }
		      exit bad != 0 }' "$1" "$2"
}

run_mode() {
	local m=$1
	rt_cc "$P-$m" "$CC" "-fplugin-arg-spyinstr-mode=$m" "$SAMPLES/clones.c" || return 1
	RT_ENV="SPYRT_WATCH=cpu" rt_run "$P-$m" "$N" || return 1
	expected "$P-$m" >"$P-$m.want" || return 1
	[ -s "$P-$m.want" ] || { echo "no sample in the program's code"; return 1; }
	sp_export json "$P-$m.json" "$P-$m.out" || return 1
}

for m in count arcs time; do
	SYMS=$P-$m.syms
	if ! check "mode $m: built, run with CPU samples, read" run_mode "$m"; then
		not_ok "mode $m: nothing to compare"
		continue
	fi
	if [ "$m" = count ]; then
		check "mode $m: the flat profile's and the Spy report's ticks are the clones' (nm's ranges, .cold to its function)" \
			eval 'got "$P-$m.json" flat >"$P-$m.flat" && same "$P-$m.want" "$P-$m.flat" &&
				got "$P-$m.json" procs >"$P-$m.procs" && same "$P-$m.want" "$P-$m.procs"'
	else
		check "mode $m: the Spy report's ticks are the clones' (nm's ranges, .cold to its function)" \
			eval 'got "$P-$m.json" procs >"$P-$m.procs" && same "$P-$m.want" "$P-$m.procs"'
	fi
done
tap_done
