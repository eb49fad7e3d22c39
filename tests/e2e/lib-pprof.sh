# lib-pprof.sh: the helpers of t282 and t283, which source it:
#   pp_go_setup             Go's pprof with GOPATH, GOCACHE in $T, or skip all (no go, none installable)
#   pp ARG...               go tool pprof ARG... (stderr into $T/pprof.err)
#   pp_top FILE FUNC COL    the flat (COL 1) or cum (COL 4) value of FUNC in FILE (a -top -unit= listing)
. "$(dirname "${BASH_SOURCE[0]}")/lib-spinprof.sh"
. "$(dirname "${BASH_SOURCE[0]}")/lib-runtime.sh"

pp_go_setup() {
	if ! command -v go >/dev/null 2>&1; then
		# mk/deps.sh lists golang-go; a machine without it gets it here when it can
		if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
			DEBIAN_FRONTEND=noninteractive apt-get install -y -qq golang-go >"$T/apt.log" 2>&1
		fi
		command -v go >/dev/null 2>&1 || tap_skip_all "no go (golang-go) and it cannot be installed here"
	fi
	export GOPATH=$T/go GOCACHE=$T/gocache PPROF_TMPDIR=$T/pprof HOME=$T GOFLAGS= GOTOOLCHAIN=local
	mkdir -p "$GOPATH" "$GOCACHE" "$PPROF_TMPDIR"
}

pp() {
	go tool pprof "$@" 2>>"$T/pprof.err"
}

pp_top() {
	awk -v f="$2" -v c="$3" '$6 == f && NF == 6 { v = $c; sub(/%$/, "", v); print v; exit }' "$1"
}
