# tests/fuzz/lib.sh: what run.sh (libFuzzer) and afl.sh (AFL++) share: the harnesses' sources, read from
# their first line, and their build, each source compiled once for all the harnesses of a run.
#
# A harness tests/fuzz/fuzz-NAME.c starts with a line naming what it links, as the unit tests do:
#   /* fuzz: spinprof/*.c !spinprof/main.c tests/fuzz/spy-mutate.c spinprof/profile.proto -lz */
# where a source may be a pattern, a .proto (compiled by protoc-c into the run's gen/ directory, as the
# GNUmakefile does for spinprof/out-pprof.c), and !PATH leaves a file out. A -D word is a flag every
# source of the run is compiled with (the harnesses of one run must agree: -DGMON_ISAL, spinprof's reader).
#
#   fuzz_harnesses [NAME...]         the harnesses' names: those given, else every tests/fuzz/fuzz-*.c
#   fuzz_sources HARNESS             its sources (absolute) and libraries, one a line; a missing source
#                                    as "missing PATH"
#   fuzz_build DIR CC FLAGS HARNESS...  build each harness into DIR/HARNESS with CC and FLAGS (an array's
#                                    name), its objects in DIR/obj (each source once, two at a time,
#                                    kept from run to run while no source, header or flag changed);
#                                    prints "built NAME", "skip NAME missing: WHAT", "skip NAME WHY"
#                                    or "fail NAME LOG"; with FUZZ_DEADLINE (date +%s) it starts no
#                                    compiler after it, and what it could not build is skipped, said why
# needs SPY_SRC.

fuzz_harnesses() {
	local f
	if [ $# -gt 0 ]; then
		printf '%s\n' "$@"
		return
	fi
	for f in "$SPY_SRC"/tests/fuzz/fuzz-*.c; do
		basename "$f" .c
	done
}

fuzz_sources() {
	local - words w f skip=() s keep
	set -f # the patterns are expanded below, in $SPY_SRC
	words=$(sed -n '1s|^[[:space:]]*/\*[[:space:]]*fuzz:\(.*\)\*/.*$|\1|p' "$SPY_SRC/tests/fuzz/$1.c")
	for w in $words; do
		case $w in '!'*) skip+=("$SPY_SRC/${w#!}") ;; esac
	done
	for w in $words; do
		case $w in
		'!'*) ;;
		-*) echo "$w" ;;
		*'*'*)
			set +f
			for f in "$SPY_SRC"/$w; do
				keep=1
				for s in "${skip[@]}"; do [ "$f" = "$s" ] && keep=0; done
				[ $keep = 1 ] && [ -f "$f" ] && echo "$f"
			done
			set -f
			;;
		*) if [ -f "$SPY_SRC/$w" ]; then echo "$SPY_SRC/$w"; else echo "missing $w"; fi ;;
		esac
	done
}

# the object of source $1 in directory $2
fuzz_obj() {
	local rel=${1#"$SPY_SRC"/}
	echo "$2/$(echo "${rel%.*}" | tr '/' '_').o"
}

fuzz_build() {
	local dir=$1 cc=$2 flagsname=$3 h w s o missing libs srcs all=() incs=() protos=() ok=() defs=()
	local -n _fz_flags=$flagsname
	shift 3
	mkdir -p "$dir/obj" "$dir/gen"
	# the sources of every harness, the .protos made into C first
	for h in "$@"; do
		while read -r w; do
			case $w in
			*.proto) protos+=("$w") ;;
			-D*) defs+=("$w") ;;
			/*) all+=("$w") ;;
			esac
		done < <(fuzz_sources "$h")
	done
	mapfile -t defs < <(printf '%s\n' "${defs[@]}" | sort -u | grep .)
	for w in $(printf '%s\n' "${protos[@]}" | sort -u); do
		if protoc-c --proto_path="$(dirname "$w")" --c_out="$dir/gen" "$w" >"$dir/gen/protoc.log" 2>&1; then
			all+=("$dir/gen/$(basename "$w" .proto).pb-c.c")
		fi
	done
	mapfile -t all < <(printf '%s\n' "${all[@]}" | sort -u)
	for s in "${all[@]}"; do incs+=("-I$(dirname "$s")"); done
	mapfile -t incs < <(printf '%s\n' "${incs[@]}" "-I$SPY_SRC/common" "-I$SPY_SRC/tests/fuzz" | sort -u)
	# each source once, two at a time; a source newer than its object, or flags changed, rebuilds it
	local sig
	sig=$(printf '%s ' "$cc" "${_fz_flags[@]}" "${defs[@]}" "${incs[@]}")
	[ "$(cat "$dir/obj/flags" 2>/dev/null)" = "$sig" ] || { rm -f "$dir"/obj/*.o; echo "$sig" >"$dir/obj/flags"; }
	local running=0 late=
	for s in "${all[@]}"; do
		o=$(fuzz_obj "$s" "$dir/obj")
		# headers change too: an object older than a header of the tree is rebuilt
		if [ -f "$o" ] && ! [ "$s" -nt "$o" ] && [ -z "$(find "$SPY_SRC/common" "$SPY_SRC/spinprof" \
			"$SPY_SRC/tests/fuzz" -name '*.h' -newer "$o" -print -quit)" ]; then
			continue
		fi
		if [ -n "${FUZZ_DEADLINE:-}" ] && [ "$(date +%s)" -ge "$FUZZ_DEADLINE" ]; then
			late=1
			break
		fi
		("$cc" "${_fz_flags[@]}" "${defs[@]}" "${incs[@]}" -c "$s" -o "$o" >"$o.log" 2>&1 || rm -f "$o") &
		running=$((running + 1))
		if [ $running -ge 2 ]; then
			wait -n
			running=$((running - 1))
		fi
	done
	wait
	for h in "$@"; do
		srcs=() libs=() missing=
		while read -r w; do
			case $w in
			missing\ *) missing="$missing ${w#missing }" ;;
			-D*) ;;
			-*) libs+=("$w") ;;
			*.proto)
				s=$dir/gen/$(basename "$w" .proto).pb-c.c
				if [ -f "$s" ]; then srcs+=("$s"); else missing="$missing protoc-c"; fi
				;;
			*) srcs+=("$w") ;;
			esac
		done < <(fuzz_sources "$h")
		if [ -n "$missing" ]; then
			echo "skip $h missing:$missing"
			continue
		fi
		o=()
		for s in "${srcs[@]}"; do o+=("$(fuzz_obj "$s" "$dir/obj")"); done
		if [ -n "$late" ] || { [ -n "${FUZZ_DEADLINE:-}" ] && [ "$(date +%s)" -ge "$FUZZ_DEADLINE" ]; }; then
			late=1
			echo "skip $h the build ran out of time on a busy machine (its objects are kept for the next run)"
			continue
		fi
		if "$cc" "${_fz_flags[@]}" "${defs[@]}" "${incs[@]}" "$SPY_SRC/tests/fuzz/$h.c" "${o[@]}" -o "$dir/$h" "${libs[@]}" \
			>"$dir/$h.build.log" 2>&1; then
			echo "built $h"
		else
			for s in "${srcs[@]}"; do
				o=$(fuzz_obj "$s" "$dir/obj")
				[ -f "$o" ] || cat "$o.log" >>"$dir/$h.build.log"
			done
			echo "fail $h $dir/$h.build.log"
		fi
	done
}
