# lib-folded.sh: the helpers of t270-t273, which source it:
#   fl_setup                 work dir $T, the runtime, $SPINPROF (skip all without them)
#   fl_build NAME OUT        build samples/NAME.c with the plugin against libspyrt
#   fl_dump_folded FILE [TARGET]  the dump's stacks folded (TARGET: calls:TARGET's function, appended)
. "$(dirname "${BASH_SOURCE[0]}")/lib-spinprof.sh"
. "$(dirname "${BASH_SOURCE[0]}")/lib-runtime.sh"

fl_setup() {
	[ -x "$SPINPROF" ] || tap_skip_all "no spinprof"
	rt_setup
}

fl_build() {
	rt_sample "$1" "$2"
}

# The stacks of the runtime's records as folded lines: each stack's frames (innermost first, NAME@SITE)
# reversed, the PC's function not known to the dump, so only calls:TARGET stacks (whose PC is TARGET's
# call) fold completely: TARGET appended when the innermost frame is not TARGET.
fl_dump_folded() {
	"$SPINPROF" --dump "$1" | awk -v target="${2:-}" '
		$1 == "stack" {
			c = 0; fr = ""
			for (i = 2; i <= NF; i++) {
				if (index($i, "count=") == 1) c = substr($i, 7)
				if (index($i, "frames=") == 1) fr = substr($i, 8)
			}
			n = split(fr, f, ",")
			path = ""
			for (i = n; i >= 1; i--) {
				sub(/@.*/, "", f[i])
				path = path (path == "" ? "" : ";") f[i]
			}
			if (target != "" && f[1] != target)
				path = path (path == "" ? "" : ";") target
			w[path] += c
		}
		END { for (p in w) print p, w[p] }' | LC_ALL=C sort
}
