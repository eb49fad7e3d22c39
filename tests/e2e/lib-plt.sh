# tests/e2e/lib-plt.sh: the names binutils give the entries of a module's PLT, the reference for the
# NAME@plt procedures of spinprof (spinprof/modsym.c) in t231 and t303.
#
# plt_names FILE [DEBUG]: one line "ADDR NAME" per PLT entry of ELF file FILE, ADDR its file address
# (16 hex digits), NAME objdump -d's label <NAME@plt>; objdump's "*ABS*+0xADDR@plt" (an IRELATIVE
# entry: a call of the module's own ifunc, libc's memcpy, strlen...) becomes the ifunc whose resolver is
# at ADDR as readelf -s lists them, "memcpy@plt": from FILE's .dynsym, else from DEBUG's .symtab (FILE's
# separate debug file, if given and there), an IFUNC before a FUNC, then GLOBAL, WEAK, LOCAL, then the
# first; without its version ("memcpy@@GLIBC_2.14" is memcpy). Then "ADDR [BASE]" (BASE: FILE's base
# name) for each 16-byte slot of .plt objdump labels no NAME@plt (PLT0, the IBT layout's lazy binding
# stubs): time there is the module's. Sorted by ADDR.
plt_names() {
	local file=$1 debug=${2:-}
	{
		readelf -W --dyn-syms "$file" 2>/dev/null | awk '$1 ~ /^[0-9]+:$/ { print "sym 1", $0 }'
		if [ -n "$debug" ] && [ -f "$debug" ]; then
			readelf -W -s "$debug" 2>/dev/null | awk -v q="'" '
				/^Symbol table / { on = index($0, q ".symtab" q) > 0; next }
				on && $1 ~ /^[0-9]+:$/ { print "sym 2", $0 }'
		fi
		readelf -SW "$file" 2>/dev/null | sed 's/^ *\[ *[0-9]*\]//' | awk '$1 == ".plt" { print "plt", $3, $5 }'
		objdump -d --no-show-raw-insn "$file" | awk '/^[0-9a-f]+ <.*@plt>:$/ {
			l = $0; sub(/^[0-9a-f]+ </, "", l); sub(/@plt>:$/, "", l); print "label", $1, l }'
	} | awk -v base="[${file##*/}]" '
		function hex(s,  i, v) { s = tolower(s); sub(/^0x/, "", s); v = 0
			for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
			return v }
		# readelf -s fields after "sym SRC": NUM: VALUE SIZE TYPE BIND VIS NDX NAME
		$1 == "sym" && ($6 == "IFUNC" || $6 == "FUNC") && $9 != "UND" {
			v = hex($4); r = ($2 == 1 ? 100 : 0) + ($6 == "IFUNC" ? 10 : 0) + ($7 == "GLOBAL" ? 3 : $7 == "WEAK" ? 2 : 1)
			if (!(v in rank) || r > rank[v]) { rank[v] = r; nm = $10; sub(/@.*/, "", nm); best[v] = nm }
			next }
		$1 == "plt" { plt_lo = hex($2); plt_hi = plt_lo + hex($3); next }
		$1 == "label" { n = $3
			if (n ~ /^\*ABS\*\+0x[0-9a-f]+$/ && (hex(substr(n, 7)) in best)) n = best[hex(substr(n, 7))]
			labelled[hex($2)] = 1; print $2, n "@plt" }
		END { for (a = plt_lo; a < plt_hi; a += 16) if (!(a in labelled)) printf "%016x %s\n", a, base }' | sort
}
