#!/bin/bash
# t292: every output escapes the strings spinprof did not write itself (common/esc.c). samples/nodes.c
# runs in mode time (traces, nodes, legs, histograms, named threads) and sampled (mode arcs, cpu); each
# profile is rewritten by tests/e2e/spyevil.c with hostile strings in every name it holds (function,
# file, module, thread, node and counter names, argv, the tool, the runtime's error, the triggers):
# markup, quotes, entities, terminal escape sequences (set the title, clear the screen, C1 CSI),
# newlines, tabs, CR, broken UTF-8 (invalid bytes, overlong, surrogate, past U+10FFFF), U+FFFE, ';'.
# Then every format's real consumer takes the output: xmllint (svg, icicle; html parsed as HTML,
# whose tags must be spinprof's own: no <img>, no third <script>), dot -Tsvg then xmllint, python's
# json (strict UTF-8) for json and chrome, callgrind_annotate (and every line of the file is one of
# callgrind's), the folded lines keep their form, go tool pprof -raw reads the pprof and prints UTF-8;
# and the text report in every layout and section (header, flat profile, call graph, index, Spy
# report, threads, -T, -d, -r, -C, -l, --stopwatch, --trace, --dump, --diff, -i) and every message on
# stderr are UTF-8 with no control byte but tab, newline and form feed, no C1 control, no raw ESC.
. "$(dirname "$0")/lib-spinprof.sh"
. "$(dirname "$0")/lib-runtime.sh"

[ -x "$SPINPROF" ] || tap_skip_all "no spinprof"
rt_setup

tap_plan 10
P=$T/nodes
cat >"$T/check.py" <<'EOF'
import html.parser, json, re, sys

def text_ok(path, data):
    """UTF-8, no control byte but \\t \\n \\f, no DEL, no C1 control, no U+FFFE/U+FFFF"""
    try:
        s = data.decode('utf-8')
    except UnicodeDecodeError as e:
        return '%s: not UTF-8 at byte %d: %r' % (path, e.start, data[max(0, e.start - 30):e.start + 10])
    for i, c in enumerate(s):
        o = ord(c)
        if (o < 0x20 and c not in '\t\n\f') or 0x7f <= o < 0xa0 or o in (0xfffe, 0xffff):
            return '%s: U+%04X at %d: %r' % (path, o, i, s[max(0, i - 30):i + 10])
    return None

def main():
    kind, path = sys.argv[1], sys.argv[2]
    data = open(path, 'rb').read()
    if kind == 'text':
        err = text_ok(path, data)
        if err:
            sys.exit(err)
    elif kind == 'json':
        json.loads(data.decode('utf-8'))
    elif kind == 'folded':
        err = text_ok(path, data)
        if err:
            sys.exit(err)
        for n, line in enumerate(data.decode().split('\n')[:-1]):
            if not re.fullmatch(r'[^\t\f]+ [0-9]+(\.[0-9]+)?', line):
                sys.exit('%s: line %d is not "frame;...;frame WEIGHT": %r' % (path, n + 1, line))
    elif kind == 'callgrind':
        err = text_ok(path, data)
        if err:
            sys.exit(err)
        form = re.compile(r'(#.*|(version|creator|pid|cmd|positions|event|events|summary|totals): .*'
                          r'|(fl|fi|fe|fn|cfi|cfl|cfn|ob|cob)=\([0-9]+\)( .+)?|calls=[0-9]+ [0-9]+'
                          r'|[0-9]+( [0-9]+)*|)')
        for n, line in enumerate(data.decode().split('\n')):
            if not form.fullmatch(line):
                sys.exit('%s: line %d is none of callgrind\'s: %r' % (path, n + 1, line))
    elif kind == 'html':
        # the tags spinprof writes; a name's markup would add others (img) or a third script
        ours = set('html head meta title style body h1 h2 h3 nav a p table thead tbody tr th td div b i '
                   'ul li span details summary button pre svg rect text g script'.split())
        tags = []
        class P(html.parser.HTMLParser):
            def handle_starttag(self, tag, attrs):
                tags.append(tag)
        P().feed(data.decode('utf-8'))
        bad = sorted(set(tags) - ours)
        if bad or tags.count('script') != 2:
            sys.exit('%s: tags %s, %d scripts' % (path, bad, tags.count('script')))
        err = text_ok(path, data.replace(b'\r', b''))
        if err:
            sys.exit(err)
main()
EOF

prepare() {
	rt_sample nodes "$P" -lpthread || return 1
	RT_ENV="SPYRT_MODE=time SPYRT_TRACE=rec,pinger SPYRT_LEGS=start>end,rin>rout,ping>pong SPYRT_HIST=node:mid:linear:0:1:8,leg:start>end:log:10" \
		rt_run "$P" || return 1
	mv "$P.out" "$T/time.real"
	RT_ENV="SPYRT_MODE=arcs SPYRT_WATCH=cpu SPYRT_HZ=20000" rt_run "$P" || return 1
	mv "$P.out" "$T/cpu.real"
	# shellcheck disable=SC2086
	$CC -O2 -g $SPY_SAN_FLAGS -I"$SPY_SRC/common" "$SPY_SRC/tests/e2e/spyevil.c" "$GMON_IO" \
		-o "$T/spyevil" -lz || return 1
	"$T/spyevil" "$T/time.real" "$T/time.out" && "$T/spyevil" "$T/cpu.real" "$T/cpu.out" || return 1
	[ "$(rt_get "$T/cpu.out" sampling taken)" -gt 0 ] 2>/dev/null || { echo "no cpu samples"; return 1; }
}
if ! check "samples/nodes.c runs in mode time and sampled; spyevil makes every string of both hostile" prepare; then
	echo "Bail out! no profiles to test"
	exit 1
fi

# text OUT ARGS...: spinprof ARGS, its stdout in OUT and stderr in OUT.err (status 0 or 2), both clean
text() {
	local out=$1
	shift
	local rc
	"$SPINPROF" "$@" >"$out" 2>"$out.err"
	rc=$?
	case $rc in 0 | 2) ;; *) echo "spinprof $*: status $rc"; cat "$out.err"; return 1 ;; esac
	python3 "$T/check.py" text "$out" && python3 "$T/check.py" text "$out.err"
}

cd "$T" || exit 1
reports() {
	local p n=0
	for p in time cpu; do
		text r$((n++)) $p.out || return 1
		text r$((n++)) -b -z -T $p.out || return 1
		text r$((n++)) -d -i --inline-file-names -L $p.out || return 1
		text r$((n++)) -r -C -z $p.out || return 1
		text r$((n++)) --spy --cutoff=0 $p.out || return 1
		text r$((n++)) --threads $p.out || return 1
		text r$((n++)) --dump $p.out || return 1
		text r$((n++)) -s $p.out $p.out || return 1
		text r$((n++)) --dump gmon.sum || return 1
	done
	text r$((n++)) --stopwatch time.out || return 1
	text r$((n++)) --trace time.out || return 1
	text r$((n++)) -l cpu.out || return 1
	text r$((n++)) --diff time.out cpu.out || return 1
	text r$((n++)) -d --format=folded cpu.out || return 1
	# what the names became is there to see: the header's tool, error and argv (the first strings
	# spyevil makes), then names of every kind somewhere (which name gets which string depends on how
	# many modules and functions the run had: under ASan its library is one more)
	grep -qF 'spy profile: 1 file, <script>alert(1)</script>_0' r0 &&
		grep -qF 'runtime error: \x1b]0;PWNED-TITLE\x07_1' r0 &&
		grep -qF 'command line: \x1b[2J\x1b[Hclear_2' r0 &&
		cat r? r?? | grep -qF 'bad\xff\xfeutf8\xc0\xaf\xed\xa0\x80\xf4\x90\x80\x80_' &&
		cat r? r?? | grep -qF 'c1\xc2\x9b31mred\x9b0m\x85_' &&
		cat r? r?? | grep -qF 'new\x0aline\x09and\x09tab\x0dcr_' &&
		grep -qF 'binary missing' r0.err || { echo "the escaped strings are not in the report"; return 1; }
}
check "the text report, every section and layout, --dump, --diff, -s, -l and their stderr: no raw control, C1 or broken UTF-8" reports

messages() {
	local bad=$'\e]0;title\a<b>\xff\n'
	printf 'junk' >"$bad.out"
	text m0 "$bad.out" && text m1 "./no$bad" && text m2 --format="x$bad" time.out &&
		text m3 --cutoff="$bad" time.out && text m4 -w "$bad" time.out && text m5 --dump "$bad.out" &&
		text m6 --stopwatch="$bad" time.out || return 1
	[ "$(cat m0.err m1.err m2.err m3.err m4.err m5.err m6.err | grep -cv 'binary missing')" = 7 ] ||
		{ cat m*.err; return 1; }
	grep -qF '\x1b]0;title\x07<b>\xff\x0a.out:' m0.err || { cat m0.err; return 1; }
	# the formats' own messages: the warning of the missing binary, its path escaped
	local f
	for f in callgrind dot json pprof chrome folded svg icicle html; do
		text m-$f --format=$f -o /dev/null cpu.out || return 1
		[ "$(cat m-$f.err)" = 'spinprof: warning: /nonexistent/spyevil/new\x0aline\x09and\x09tab\x0dcr_3: binary missing; using the names recorded in the profile' ] ||
			{ cat m-$f.err; return 1; }
	done
}
check "messages on stderr (options, files, --format) escape the paths, options and names they quote, one line each" messages

command -v xmllint >/dev/null && XL=1 || XL=
# need TOOL DESC FUNC: check DESC FUNC, or a skip when TOOL is not installed (mk/deps.sh installs each)
need() {
	if command -v "$1" >/dev/null; then
		check "$2" "$3"
	else
		ok "$2 # SKIP no $1"
	fi
}
fmt() { # fmt FORMAT PROFILE: spinprof --format=FORMAT -o PROFILE.FORMAT (its stderr: messages, above)
	"$SPINPROF" --format="$1" -o "${2%.out}.$1" "$2" 2>"${2%.out}.$1.err" || { cat "${2%.out}.$1.err"; return 1; }
}

xml() {
	local p
	for p in time cpu; do
		fmt svg $p.out && fmt icicle $p.out && xmllint --noout $p.svg $p.icicle || return 1
		python3 "$T/check.py" text $p.svg || return 1
	done
}
need xmllint "svg, icicle: xmllint accepts them" xml

page() {
	local p
	for p in time cpu; do
		fmt html $p.out || return 1
		python3 "$T/check.py" html $p.html || return 1
		if [ -n "$XL" ]; then # HTML 4's parser: HTML5's and SVG's tags are unknown to it, nothing else
			xmllint --html --noout $p.html 2>$p.html.xl
			! grep 'error :' $p.html.xl | grep -v -E 'Tag (nav|details|summary|svg|g|rect|text) invalid$' ||
				return 1
		fi
		! grep -F -e '<script>alert' -e '<img' $p.html || return 1
	done
}
check "html: only spinprof's own tags (no <img>, two scripts), xmllint --html sees nothing else, no name's markup" page

graph() {
	local p
	for p in time cpu; do
		fmt dot $p.out || return 1
		dot -Tsvg $p.dot >$p.dot.svg 2>$p.dot.err || { cat $p.dot.err; return 1; }
		[ ! -s $p.dot.err ] || { cat $p.dot.err; return 1; }
		[ -z "$XL" ] || xmllint --noout $p.dot.svg || return 1
	done
}
need dot "dot: dot -Tsvg reads it without a warning, xmllint accepts what it draws" graph

jsons() {
	local p
	for p in time cpu; do
		fmt json $p.out && fmt chrome $p.out || return 1
		python3 "$T/check.py" json $p.json && python3 "$T/check.py" json $p.chrome || return 1
	done
	# JSON keeps the strings: a control as \u00XX, the rest as it was (the header's are spyevil's first)
	python3 -c 'import json, re, sys
d = json.load(open("time.json"))
h = d["header"]
assert h["tool"] == "<script>alert(1)</script>_0", h["tool"]
assert h["error"] == "\x1b]0;PWNED-TITLE\x07_1", h["error"]
assert h["argv"][0] == "\x1b[2J\x1b[Hclear_2", h["argv"]
# every function is named by one of the strings of spyevil.c as JSON gives it back (a byte of broken
# UTF-8 as the Latin-1 character of its value), then _N
evil = ["<script>alert(1)</script>", "\x1b]0;PWNED-TITLE\x07", "\x1b[2J\x1b[Hclear", "new\nline\tand\ttab\rcr",
        b"bad\xff\xfeutf8\xc0\xaf\xed\xa0\x80\xf4\x90\x80\x80".decode("latin-1"), "c1\x9b31mred\x9b0m\x85",
        "semi;colon \"quote\x27 &lt; &bogus; &#60; \\N back\\slash", "<img src=x onerror=alert(2)>",
        "bell\x07\x08\x7f\x1bc", "\ufffe\uffff<!-- -->]]>"]
def ours(n):
    return n.rsplit("_", 1)[0] in evil and n.rsplit("_", 1)[1].isdigit()
names = [f["name"] for f in d["functions"] if f["name"] and f.get("instrumented", True)]
assert len(names) >= 5 and all(ours(n) for n in names), names
# code without hooks (librows.c): "[MODULE]" or "NAME [MODULE]", the module one of the strings too
for f in d["functions"]:
    if f.get("instrumented", True) is False:
        m = re.fullmatch(r"(?s)(?:(.*) )?\[(.*)\]", f["name"])
        assert m and ours(m.group(2)), f["name"]'
}
check "json, chrome: python's json reads them as strict UTF-8; the names are there, escaped for JSON" jsons

callgrind() {
	local p
	for p in time cpu; do
		fmt callgrind $p.out || return 1
		python3 "$T/check.py" callgrind $p.callgrind || return 1
		callgrind_annotate --threshold=100 $p.callgrind >$p.ann 2>$p.ann.err || { cat $p.ann.err; return 1; }
		[ ! -s $p.ann.err ] || { cat $p.ann.err; return 1; }
		python3 "$T/check.py" text $p.ann || return 1
	done
}
need callgrind_annotate "callgrind: every line one of the format's, callgrind_annotate reads it without a warning" callgrind

folded() {
	local p
	for p in time cpu; do
		fmt folded $p.out && python3 "$T/check.py" folded $p.folded || return 1
	done
}
check "folded: one stack a line, frame;...;frame WEIGHT, nothing raw" folded

pprof_raw() {
	export GOPATH=$T/go GOCACHE=$T/gocache PPROF_TMPDIR=$T/pprof HOME=$T GOFLAGS= GOTOOLCHAIN=local
	mkdir -p "$GOPATH" "$GOCACHE" "$PPROF_TMPDIR"
	local p
	for p in time cpu; do
		fmt pprof $p.out || return 1
		go tool pprof -raw $p.pprof >$p.raw 2>$p.raw.err || { cat $p.raw.err; return 1; }
		python3 "$T/check.py" text $p.raw || return 1
	done
	grep -qF 'bad\xff\xfeutf8' time.raw || { echo "the names are not in pprof's -raw"; return 1; }
}
need go "pprof: go tool pprof -raw reads it, every string UTF-8 with no control" pprof_raw

tap_done
