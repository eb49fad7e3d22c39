# lib-counters.sh, sourced by t155-t158 after lib-runtime.sh's rt_setup and tap_plan:
# samples/ctrpages.c built as $P ($T/ctrpages), and the helpers that read its counters.
P=$T/ctrpages
# page faults the hooks' first touches of their tables may add to a caller's own: a new call site and
# callee touch the site hash's head, a site, an arc, a function time and the arc's counters, five pages,
# each of which can fault twice (a read maps the zero page, the write then copies it: seen in enter_as
# then spy_arcs_insert on one head, spy_fstat_get on one function time), as ASLR places them: 10; as
# many shadow pages under AddressSanitizer; under ThreadSanitizer a page's first touch by the sanitized
# hooks also faults up to 4 pages of its shadow. (8 held in 3 of 4 runs, 9 the others.)
HOOKS=10
case ${SPY_SAN_FLAGS:-} in *address*) HOOKS=20 ;; esac
[ -z "$SPY_TSAN" ] || HOOKS=$((10 * (1 + 4)))

# ctr_build N: the first point, ctrpages built; if it is not, the N points after it fail and the test ends
ctr_build() {
	local i
	check "samples/ctrpages.c builds" rt_cc "$P" "$CC" "$SAMPLES/ctrpages.c" && return 0
	for ((i = 0; i < $1; i++)); do not_ok "not built"; done
	tap_done
}

# ctr FILE CALLER CALLEE EVENT FIELD: FIELD (incl, self) of the arcs CALLER -> CALLEE for EVENT,
# summed (CALLER '*': any), "none" where there is no such arc
ctr() {
	rt_dump "$1" | awk -v cr="$2" -v ce="$3" -v ev="$4" -v k="$5" '
		function val(key,   i) { for (i = 2; i <= NF; i++) if (index($i, key "=") == 1) return substr($i, length(key) + 2) }
		$1 == "arcctr" && (cr == "*" || val("caller") == cr) && val("callee") == ce && val("event") == ev { s += val(k); n++ }
		END { print n ? s : "none" }'
}

# is DESC ACTUAL WANT: one comparison, said
is() {
	echo "$1: $2 (want $3)"
	[ "$2" = "$3" ]
}
