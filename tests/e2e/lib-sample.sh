# lib-sample.sh: the helpers of the t11*-runtime-sample-*.sh scripts, which source it:
#   samp_line FILE KEY       KEY= of the dump's sampling line
#   stacks_with FILE FUNC [FLAG]  sum of count= (weight= with SAMP_FIELD=weight) over the stacks whose
#                            frames name FUNC (and whose flags contain FLAG; FLAG "-" means none)
#   inner_sum FILE FUNC      the same over stacks whose innermost frame is FUNC
. "$(dirname "${BASH_SOURCE[0]}")/lib-runtime.sh"

samp_line() {
	rt_get "$1" sampling "$2"
}

stacks_with() {
	rt_dump "$1" | awk -v f="$2" -v flag="${3:-}" -v field="${SAMP_FIELD:-count}" '
		$1 == "stack" {
			c = 0; fr = ""; fl = ""
			for (i = 2; i <= NF; i++) {
				if (index($i, field "=") == 1) c = substr($i, length(field) + 2)
				if (index($i, "frames=") == 1) fr = "," substr($i, 8)
				if (index($i, "flags=") == 1) fl = substr($i, 7)
			}
			if (flag == "-" && fl != "") next
			if (flag != "" && flag != "-" && index(fl, flag) == 0) next
			if (index(fr, "," f "@")) n += c
		}
		END { printf "%.0f\n", n }'
}

inner_sum() {
	rt_dump "$1" | awk -v f="$2" -v field="${SAMP_FIELD:-count}" '
		$1 == "stack" {
			c = 0; fr = ""
			for (i = 2; i <= NF; i++) {
				if (index($i, field "=") == 1) c = substr($i, length(field) + 2)
				if (index($i, "frames=") == 1) fr = substr($i, 8)
			}
			if (index(fr, f "@") == 1) n += c
		}
		END { printf "%.0f\n", n }'
}

# within A B PCT: A is within PCT percent of B
within() {
	awk -v a="$1" -v b="$2" -v p="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(b > 0 && d * 100 <= p * b) }'
}
