# tests/e2e/lib-debsrc.sh: for the real builds (t3*): fetch a Debian source package as bench/compile.sh
# does, through a private apt configuration (deb-src of this machine's release; the system's sources
# and lists are untouched), and compare what two builds of it found and linked.

# debsrc_fetch PKG WORKDIR: apt-get source PKG under WORKDIR; sets DEBSRC to the unpacked tree. When the
# source cannot be fetched (no apt-get, no network, no mirror) the whole test is skipped with the reason.
debsrc_fetch() {
	local pkg=$1 w=$2 codename apt
	command -v apt-get >/dev/null || tap_skip_all "no apt-get: cannot fetch Debian's $pkg source"
	command -v dpkg-source >/dev/null || tap_skip_all "no dpkg-source (make deps installs dpkg-dev)"
	mkdir -p "$w/apt/lists/partial" "$w/apt/cache/archives/partial" "$w/src"
	codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-bookworm}")
	echo "deb-src http://deb.debian.org/debian $codename main" >"$w/apt/sources.list"
	apt=(-o Dir::Etc::SourceList="$w/apt/sources.list" -o Dir::Etc::SourceParts=/nonexistent
		-o Dir::State::Lists="$w/apt/lists" -o Dir::Cache="$w/apt/cache")
	if ! timeout 300 apt-get "${apt[@]}" update >"$w/apt.log" 2>&1 ||
		! (cd "$w/src" && timeout 300 apt-get "${apt[@]}" source "$pkg") >>"$w/apt.log" 2>&1; then
		tap_skip_all "cannot fetch Debian's $pkg source: $(grep -v '^ *$' "$w/apt.log" | tail -n 1)"
	fi
	DEBSRC=$(find "$w/src" -mindepth 1 -maxdepth 1 -type d | head -n 1)
	[ -n "$DEBSRC" ] || tap_skip_all "apt-get source $pkg unpacked nothing"
}

# needed_libs BINARY: its NEEDED entries, one a line, sorted, without libspyrt
needed_libs() {
	readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | grep -v '^libspyrt\.so$' | sort
}

# same_libs PLAIN SPY: the same libraries linked apart from libspyrt, which SPY needs
same_libs() {
	diff <(needed_libs "$1") <(needed_libs "$2") >/dev/null ||
		{ echo "NEEDED differ (plain < > spy):"; diff <(needed_libs "$1") <(needed_libs "$2"); return 1; }
	readelf -d "$2" | grep -q 'NEEDED.*\[libspyrt\.so\]' || { echo "$2 does not need libspyrt.so"; return 1; }
}

# pmake ARG...: make for the package, without the variables of a make that runs this test
pmake() {
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make "$@"
}
