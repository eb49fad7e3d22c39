#!/usr/bin/env python3
"""bench/realprog2.py: the comparing half of bench/realprog2.sh (issue 23).

usage: realprog2.py PROG DIR        (sqlite3, ninja or memcached)
       realprog2.py grep DIR

DIR holds what bench/realprog2.sh wrote for PROG:
  cg/callgrind.out*      callgrind on the plain build, the smaller workload (--separate-threads=yes,
                         --demangle=no)
  dump-MODE.txt          spinprof --dump of spy's run on that same workload, MODE count, arcs, arcs2
                         (mode arcs again) and time
  flat-time.txt          spinprof -b -p --no-demangle of mode time's run on the whole workload
  perf.txt               perf script -F tid,ip,sym,dso --no-demangle of perf record -g on the plain
                         build, the whole workload
  cpu.txt                "KEY VALUE" lines: plain_cpu (user + sys, the median of three) and the other
                         runs' times, binary (the plain build's path)
For grep: report.txt (spinprof's default report of mode time), perf.txt and cpu.txt.

Prints, per program, the three comparisons of issue 23 with "met" or "missed" on each goal line.
"""

import collections
import os
import re
import subprocess
import sys

SPONT = "<spontaneous>"
VARIOUS = "<various>"
AMBIG = "<ambiguous>"
CLONE = re.compile(r"\.(part|isra|constprop|cold|lto_priv|localalias)\.\d+")

# glibc's regular expression matcher and compiler (posix/regexec.c, regcomp.c, regex_internal.c)
GLIBC_REGEX = re.compile(
    r"^(__)?(re_[a-z_0-9]+|regexec|regcomp|check_(matching|halt_state_context|halt_node_context|"
    r"subexp_matching_top|arrival[a-z_]*|dst_limits[a-z_]*|node_accept[a-z_]*|subexp_limits)|"
    r"transit_state[a-z_]*|build_trtable|sift_[a-z_]+|get_subexp[a-z_]*|match_ctx_[a-z_]+|set_regs|"
    r"proceed_next_node|prune_impossible_nodes|merge_state_[a-z_]+|expand_bkref_cache|"
    r"find_recover_state|group_nodes_into_DFAstates|add_epsilon_src_nodes|update_cur_sifted_state|"
    r"search_cur_bkref_entry|update_regs|pop_fail_stack|push_fail_stack|clean_state_log_if_needed|"
    r"extend_buffers|build_wcs_[a-z_]+|build_upper_buffer|get_subexp_sub|peek_token|parse[a-z_]*|"
    r"calc_eclosure[a-z_]*|calc_first|calc_next|link_nfa_nodes|optimize_subexps|lower_subexps?|"
    r"duplicate_node[a-z_]*|create_initial_state|analyze|preorder|postorder)(\.[a-z]+\.\d+)?$"
)


def undump(s):
    """a word of spinprof --dump: \\xNN back to its byte"""
    return re.sub(r"\\x([0-9a-f]{2})", lambda m: chr(int(m.group(1), 16)), s)


_dem = {}


def demangle(names):
    """demangled names for display (c++filt), kept"""
    todo = [n for n in names if n not in _dem and n.startswith("_Z")]
    if todo:
        try:
            out = subprocess.run(["c++filt"], input="\n".join(todo) + "\n", capture_output=True, text=True,
                                 check=True).stdout.split("\n")
            for n, d in zip(todo, out):
                _dem[n] = d
        except (OSError, subprocess.CalledProcessError):
            pass
    return {n: _dem.get(n, n) for n in names}


def show(name, width=46):
    d = demangle([name])[name]
    # a C++ name without its parameters when it is too long: the last parenthesis and its match
    d = d.replace("(anonymous namespace)::", "")
    if len(d) > width and (d.endswith(")") or re.search(r"\) (const|\[clone [^]]*\])$", d)):
        end = d.rindex(")")
        depth = 0
        for i in range(end, -1, -1):
            depth += {")": 1, "(": -1}.get(d[i], 0)
            if depth == 0:
                if i > 0:
                    d = d[:i] + "()" + d[end + 1:]
                break
    return d if len(d) <= width else d[: width - 1] + "…"


def pct(a, b):
    return 100.0 * a / b if b else 0.0


def goal(ok, text):
    print("  goal %-7s %s" % ("met:" if ok else "missed:", text))


# ---------------------------------------------------------------------------------------------------------
# spy


class Spy:
    """one spinprof --dump: its functions (name -> count), arcs ((caller, callee) -> count, threads summed)"""

    def __init__(self, path):
        self.funcs = {}
        self.arcs = collections.Counter()
        self.sites = collections.defaultdict(set)  # (caller, callee) -> site modules
        self.mode = "?"
        self.main_module = None
        self.threads = 0
        with open(path, errors="replace") as f:
            for line in f:
                kind, _, rest = line.partition(" ")
                if kind == "header":
                    self.mode = re.search(r"\bmode=(\S+)", rest).group(1)
                elif kind == "module":
                    if re.search(r"\bflags=\S*\bmain\b", rest):
                        self.main_module = re.search(r"\bid=(\d+)", rest).group(1)
                elif kind == "func":
                    name = undump(rest.split(" ", 1)[0])
                    kv = dict(w.split("=", 1) for w in rest.split()[1:] if "=" in w)
                    if self.main_module is None or kv.get("module") == self.main_module:
                        self.funcs[name] = self.funcs.get(name, 0) + int(kv["count"])
                elif kind == "thread":
                    self.threads += 1
                elif kind == "arc":
                    kv = dict(w.split("=", 1) for w in rest.split() if "=" in w)
                    key = (undump(kv["caller"]), undump(kv["callee"]))
                    self.arcs[key] += int(kv["count"])
                    self.sites[key].add(kv.get("site_module", "-1"))


# ---------------------------------------------------------------------------------------------------------
# callgrind


def read_callgrind(path, binary):
    """the call arcs of one callgrind.out file: {(caller, callee): calls}; a function of the program is
    named by its name, one elsewhere NAME@OBJECT (the object's base name)"""
    arcs = collections.Counter()
    names = {"ob": {}, "fl": {}, "fn": {}}
    kindmap = {"ob": "ob", "cob": "ob", "fl": "fl", "fi": "fl", "fe": "fl", "cfi": "fl", "cfl": "fl",
               "fn": "fn", "cfn": "fn"}
    binbase = os.path.realpath(binary)
    ob = cob = fn = cfn = None

    def name_of(kind, val):
        m = re.match(r"^\((\d+)\)(?: (.*))?$", val)
        if m:
            if m.group(2) is not None:
                names[kind][m.group(1)] = m.group(2)
            return names[kind].get(m.group(1), val)
        return val

    def key(obj, f):
        f = re.sub(r"'\d+$", "", f)  # callgrind's recursion levels (--separate-recs)
        if obj is None or os.path.realpath(obj) == binbase:
            return f
        return f + "@" + os.path.basename(obj)

    pending = None
    with open(path, errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            if pending is not None:
                # the cost line after calls=: nothing of it is needed
                pending = None
                continue
            m = re.match(r"^(c?ob|fl|fi|fe|cfi|cfl|c?fn)=(.*)$", line)
            if m:
                k, v = m.group(1), name_of(kindmap[m.group(1)], m.group(2))
                if k == "ob":
                    ob = v
                elif k == "cob":
                    cob = v
                elif k == "fn":
                    fn = v
                    cob = None
                elif k == "cfn":
                    cfn = v
                continue
            if line.startswith("calls="):
                n = int(line[6:].split()[0])
                arcs[(key(ob, fn), key(cob if cob is not None else ob, cfn))] += n
                cob = None
                pending = True
    return arcs


def resolve(cg_threads, instr):
    """callgrind's arcs as spy means them: a call into an instrumented function from code without hooks
    counts for the nearest instrumented function on the stack (<spontaneous> when there is none). Per
    thread, through callgrind's graph: when every path up from the calling code reaches the same one,
    it is that one; else the calls stay <ambiguous>. Returns (arcs, via, ambiguous): arcs {(caller,
    callee): calls}, via {(caller, callee): set of code without hooks passed}, ambiguous {callee: calls}."""
    out = collections.Counter()
    via = collections.defaultdict(set)
    ambiguous = collections.Counter()
    for arcs in cg_threads:
        callers = collections.defaultdict(set)
        for (a, b) in arcs:
            callers[b].add(a)
        memo = {}

        def ancestors(x):
            if x in memo:
                return memo[x]
            seen, found, todo = {x}, set(), [x]
            while todo:
                y = todo.pop()
                if not callers[y]:
                    found.add(SPONT)
                for c in callers[y]:
                    if c in instr:
                        found.add(c)
                    elif c not in seen:
                        seen.add(c)
                        todo.append(c)
            memo[x] = found
            return found

        for (a, b), n in arcs.items():
            if b not in instr:
                continue
            if a in instr:
                out[(a, b)] += n
                continue
            anc = ancestors(a)
            if len(anc) == 1:
                c = next(iter(anc))
                out[(c, b)] += n
                via[(c, b)].add(a)
            else:
                ambiguous[b] += n
                via[(AMBIG, b)].add(a)
    return out, via, ambiguous


# ---------------------------------------------------------------------------------------------------------
# the arcs


def prepare(instr, cg_threads, more=False, plain_syms=None):
    """callgrind's arcs in spy's names (aliases and clones mapped), resolved (see resolve); the calls into
    each function; the functions both know"""
    instr = set(instr)
    cg_names = set()
    for arcs in cg_threads:
        for (a, b) in arcs:
            cg_names.add(a)
            cg_names.add(b)
    mapping = map_names(instr, cg_names, plain_syms)
    if mapping:
        inv = {v: k for k, v in mapping.items()}
        cg_threads = [collections.Counter({(inv.get(a, a), inv.get(b, b)): n for (a, b), n in t.items()})
                      for t in cg_threads]
        cg_names = {inv.get(n, n) for n in cg_names}
    resolved, via, ambiguous = resolve(cg_threads, instr)
    cg_total = collections.Counter()
    for arcs in cg_threads:
        for (a, b), n in arcs.items():
            cg_total[b] += n
    both = instr & cg_names
    if more:
        return resolved, via, ambiguous, cg_total, both, mapping, cg_names
    return resolved, via, ambiguous, cg_total, both


# a C++ constructor's or destructor's two symbols at one address (complete and base object: C1 and C2,
# D1 and D2): spy names one, callgrind and perf may name the other
XTOR = re.compile(r"(?<=[0-9A-Za-z_])([CD])[12](?=E|I)")


def canon(name):
    """a name as the tools may all name it: constructors and destructors as one"""
    return XTOR.sub(r"\1*", name)


def map_names(spy_names, cg_names, plain_syms=None):
    """spy's name -> callgrind's, where they differ: two symbols at one address of the plain build (GCC's
    identical code folding makes one function of two; a constructor's C1 and C2), a constructor or
    destructor named by its other symbol, or a clone by its suffix on one side only (one candidate,
    after taking those off both)"""
    mapping = {}
    spy_names = set(spy_names)
    if plain_syms:
        at = collections.defaultdict(set)
        for n, addr in plain_syms.items():
            at[addr].add(n)
        for n in sorted(spy_names):
            if n in cg_names or n not in plain_syms:
                continue
            cands = (at[plain_syms[n]] & set(cg_names)) - spy_names - set(mapping.values())
            if len(cands) == 1:
                mapping[n] = next(iter(cands))
    for strip in (canon, lambda n: CLONE.sub("", canon(n))):
        cg_base = collections.defaultdict(set)
        for n in cg_names:
            cg_base[strip(n)].add(n)
        taken = set(mapping.values())
        for n in sorted(spy_names):
            if n in cg_names or n in mapping:
                continue
            cands = cg_base.get(strip(n), set()) - spy_names - taken
            if len(cands) == 1:
                mapping[n] = next(iter(cands))
                taken |= cands
    return mapping


def varying(runs):
    """the functions whose call count is not the same in every one of RUNS (spy's runs of one workload:
    a count is exact in every mode, so one that differs depends on the run's timing, as the calls of a
    thread that wakes on a timer do)"""
    names = set()
    for r in runs:
        names |= set(r.funcs)
    return {f for f in names if len({r.funcs.get(f, 0) for r in runs}) > 1}


def compare_arcs(outdir, spy, spy2, cg, via, ambiguous, cg_names, varies=frozenset(), plain_syms=None,
                 show_first=8):
    """prints spy's arcs against callgrind's; returns (equal, compared, those that vary run to run)"""
    # the functions both know: spy's instrumented ones that callgrind saw in the plain build (the two
    # builds may inline differently); the arcs of the others are left out and counted
    instr = set(spy.funcs)
    known = instr & set(cg_names)
    keys = set()
    left_out = set()
    for (a, b) in list(spy.arcs) + list(cg):
        if b in instr and (a in instr or a == SPONT):
            if b in known and (a in known or a == SPONT):
                keys.add((a, b))
            else:
                left_out.add((a, b))
    various = collections.Counter()
    for (a, b), n in spy.arcs.items():
        if a == VARIOUS:
            various[b] += n
    spy_in = collections.Counter()
    cg_in = collections.Counter()
    for (a, b), n in spy.arcs.items():
        spy_in[b] += n
    for (a, b), n in cg.items():
        cg_in[b] += n
    cg_callers = collections.defaultdict(set)
    cg_callees = collections.defaultdict(set)
    for (a, b) in cg:
        cg_callers[b].add(a)
        cg_callees[a].add(b)

    equal = 0
    classes = collections.Counter()
    rows = []
    for k in sorted(keys):
        s, c = spy.arcs.get(k, 0), cg.get(k, 0)
        if s == c:
            equal += 1
            continue
        a, b = k
        kind = "different" if s and c else ("only spy" if s else "only callgrind")
        # an arc callgrind has too, of a function whose calls differ between spy's runs (an arc only
        # spy has is judged below: a caller that is not on the stack stays a defect)
        if (b in varies or a in varies) and c:
            why = "varies run to run (%s's calls: spy's runs differ)" % show(b if b in varies else a, 30)
        elif c and spy2 is not None and spy2.arcs.get(k, 0) != s:
            why = "varies run to run (%d, then %d)" % (s, spy2.arcs.get(k, 0))
        elif ambiguous.get(b):
            why = "callgrind cannot split %s's calls from code without hooks among its callers" % show(b, 30)
        elif s and not c and a == SPONT:
            why = "spy: <spontaneous>, callgrind: called by an instrumented function"
        elif s and a != SPONT and b not in cg_callees.get(a, set()) and not cg_callees.get(a):
            why = "spy: a caller that calls nothing in callgrind (a leaf: it had returned)"
        elif s and a != SPONT and a not in cg_callers[b]:
            why = "spy: a caller that never calls it in callgrind (not on the stack)"
        elif not s and various.get(b):
            why = "spy: <various> (mode arcs did not name the caller)"
        elif via.get(k) and all("@" not in v for v in via[k]):
            why = "through a function of the plain build that spy's build lacks (callgrind: via %s)" % ", ".join(
                sorted(show(v, 28) for v in via[k])[:2])
        elif via.get(k):
            why = "called from code without hooks (callgrind: via %s)%s" % (", ".join(
                sorted(show(v, 28) for v in via[k])[:2]),
                ", spy gave the calls to another caller" if not s and spy_in[b] == cg_in[b] else "")
        elif spy_in[b] != cg_in[b]:
            why = "spy counts the function's calls differently (spy %d, callgrind %d in all)" % (spy_in[b], cg_in[b])
        else:
            why = "calls given to another caller (the function's total equal)"
        classes[(kind, why.split(" (")[0] if "varies" in why or "differently" in why else why)] += 1
        rows.append((kind, a, b, s, c, why))
    n = len(keys)
    nvary = sum(1 for r in rows if r[5].startswith("varies"))
    print("  %s: %d arcs between functions both know (and <spontaneous>), in either; %d equal "
          "(%.2f %%), %d different, %d only in spy, %d only in callgrind%s" % (
              spy.mode, n, equal, pct(equal, n), sum(1 for r in rows if r[0] == "different"),
              sum(1 for r in rows if r[0] == "only spy"), sum(1 for r in rows if r[0] == "only callgrind"),
              "; %d of the differences vary run to run" % nvary if nvary else ""))
    if left_out:
        only = sorted({f for k in left_out for f in k if f != SPONT and f not in known})
        absent = [f for f in only if plain_syms is not None and f not in plain_syms]
        unseen = [f for f in only if f not in absent]
        print("    left out: %d arcs of spy's that touch functions callgrind never saw called%s%s" % (
            len(left_out),
            "; not in the plain build (the two builds inline differently): " + ", ".join(
                show(f, 30) for f in absent[:3]) if absent else "",
            "; in the plain build, callgrind saw no call to them (as of a signal handler, which the "
            "kernel enters): " + ", ".join(
                show(f, 30) for f in unseen[:3]) if unseen else ""))
    if various:
        print("    spy's <various> callers: %d arcs, %d calls (into %s)" % (
            len(various), sum(various.values()), ", ".join(show(x, 30) for x, _ in various.most_common(3))))
    for (kind, why), cnt in sorted(classes.items(), key=lambda x: -x[1]):
        print("    %5d %-15s %s" % (cnt, kind, why))
    # the first differences, the biggest first; all of them in OUTDIR/arcs-MODE.txt
    rows.sort(key=lambda r: (-abs(r[3] - r[4]), r[1], r[2]))
    if outdir and rows:
        path = os.path.join(outdir, "arcs-%s.txt" % spy.mode)
        with open(path, "w") as f:
            for kind, a, b, s, c, why in rows:
                f.write("%s\t%s\t%d\t%d\t%s\t%s\n" % (a, b, s, c, kind, why))
        print("    every difference: %s (caller, callee, spy, callgrind, kind, why)" % path)
    for kind, a, b, s, c, why in rows[:show_first]:
        print("      %-30s -> %-30s spy %9d  callgrind %9d  %s" % (show(a, 30), show(b, 30), s, c, why))
    return equal, n, nvary


def compare_counts(spy, cg_total, names_both, varies=frozenset()):
    """spy's call count per function against callgrind's calls into it"""
    eq = diff = var = 0
    first = []
    for f in sorted(names_both):
        s, c = spy.funcs.get(f, 0), cg_total.get(f, 0)
        if s == c:
            eq += 1
        elif f in varies:
            var += 1
        else:
            diff += 1
            first.append((abs(s - c), f, s, c))
    first.sort(reverse=True)
    line = "  %-5s calls per function: %d of %d equal callgrind's" % (spy.mode, eq, eq + diff + var)
    if var:
        line += ", %d others vary run to run" % var
    if first:
        line += "; different: " + ", ".join("%s spy %d cg %d" % (show(f, 28), s, c) for _, f, s, c in first[:3])
    print(line)


# ---------------------------------------------------------------------------------------------------------
# perf and the flat profile


def read_perf(path, binary):
    """samples per function, a sample in the kernel counted for the user-space function below it:
    ({key: samples}, total, kernel samples); key NAME for the program's, NAME [LIB] for others"""
    binbase = os.path.basename(os.path.realpath(binary))
    counts = collections.Counter()
    total = kernel = 0
    frames = []

    def flush():
        nonlocal total, kernel
        if not frames:
            return
        total += 1
        if frames[0][1] == "[kernel.kallsyms]":
            kernel += 1
        for sym, dso in frames:
            if dso == "[kernel.kallsyms]":
                continue
            base = os.path.basename(dso.strip("()"))
            counts[sym if base == binbase else "%s [%s]" % (sym, base)] += 1
            return
        counts["[kernel]"] += 1

    with open(path, errors="replace") as f:
        for line in f:
            if line.startswith("\t"):
                m = re.match(r"^\s+[0-9a-f]+ (.*) \((.*)\)$", line.rstrip("\n"))
                if m:
                    sym = re.sub(r"\+0x[0-9a-f]+$", "", m.group(1))
                    frames.append((sym, m.group(2)))
            elif line.strip():
                flush()
                frames = []
        flush()
    return counts, total, kernel


def read_flat(path):
    """the flat profile's rows: [(name, % time, self seconds, cumulative seconds)]"""
    rows = []
    with open(path, errors="replace") as f:
        for line in f:
            w = line.split()
            if len(w) < 4:
                continue
            try:
                p, cum, selfs = float(w[0]), float(w[1]), float(w[2])
            except ValueError:
                continue
            i = 3
            while i < len(w) and re.match(r"^[0-9.]+$", w[i]):
                i += 1
            name = " ".join(w[i:])
            name = re.sub(r"\s*\[\d+\]$", "", name)
            name = re.sub(r"\s*<cycle \d+>$", "", name)
            if name:
                rows.append((name, p, selfs, cum))
    return rows


def base(key):
    """a function's name without a library's [LIB]"""
    return re.sub(r" \[[^\]]*\]$", "", key)


def norm_name(key):
    """a function's name as perf's and spy's are compared: without [LIB], a constructor's or destructor's
    symbols as one, without glibc's internal __GI_ and __libc_ prefixes and leading underscores
    (glibc's aliases of one function: perf's __libc_sendmsg is spy's sendmsg, __GI___libc_write __write)"""
    n = canon(re.sub(r"@.*$", "", re.sub(r"^__GI_", "", base(key)))).lstrip("_")
    return re.sub(r"^libc_", "", n)


def compare_top(flat, perf, perf_total, kernel, plain_syms=None):
    # one name for the symbols at one address of the program (perf names one, spy may name another)
    at = collections.defaultdict(list)
    for n, addr in (plain_syms or {}).items():
        at[addr].append(n)
    rep = {n: min(at[addr]) for n, addr in (plain_syms or {}).items()}

    def norm(key):
        return norm_name(rep.get(key, key))

    spy_top = [r[0] for r in flat[:10]]
    perf_top = [k for k, _ in perf.most_common(10)]
    spy_share = {}
    spy_rank = {}
    for i, r in enumerate(flat):
        spy_share.setdefault(norm(r[0]), r[1])
        spy_rank.setdefault(norm(r[0]), i + 1)
    perf_norm = [norm(k) for k in perf_top]
    spy_norm = [norm(k) for k in spy_top]
    only_spy = [k for k in spy_top if norm(k) not in perf_norm]
    only_perf = [k for k in perf_top if norm(k) not in spy_norm]
    print("  perf: %d samples, %.1f %% of them in the kernel (counted for the user-space function below)" % (
        perf_total, pct(kernel, perf_total)))
    print("  %-3s %-44s %7s  %-7s %7s %s" % ("#", "perf's top ten (self)", "perf %", "spy #", "spy %", "spy/perf"))
    within = 0
    for i, k in enumerate(perf_top):
        p = pct(perf[k], perf_total)
        s = spy_share.get(norm(k))
        ok = s is not None and abs(s - p) <= 0.25 * p
        within += ok
        print("  %-3d %-44s %7.2f  %-7s %7s %s" % (
            i + 1, show(k, 44), p, spy_rank.get(norm(k), "-"), "%.2f" % s if s is not None else "-",
            ("%.2f" % (s / p) if s is not None and p else "-") + ("" if ok else "  (outside a quarter)")))
    print("  spy's top ten (mode time, self): " + ", ".join(
        "%s %.1f%%" % (show(r[0], 30), r[1]) for r in flat[:10]))
    goal(len(only_spy) <= 1, "the same set within one: %d of spy's ten not in perf's (%s); %d of perf's not in "
         "spy's (%s)" % (len(only_spy), ", ".join(show(n, 26) for n in only_spy) or "none", len(only_perf),
                         ", ".join(show(n, 26) for n in only_perf) or "none"))
    goal(within == len(perf_top), "each share within a quarter of perf's: %d of %d" % (within, len(perf_top)))


def plain_symbols(binary):
    """the function symbols of the plain build (nm): {name: address}, or None"""
    try:
        out = subprocess.run(["nm", binary], capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    return {w[2]: w[0] for w in (line.split() for line in out.split("\n")) if len(w) == 3 and w[1] in "tTwW"}


def read_kv(path):
    kv = {}
    with open(path) as f:
        for line in f:
            k, _, v = line.strip().partition(" ")
            kv[k] = v
    return kv


# ---------------------------------------------------------------------------------------------------------


def program(prog, d):
    kv = read_kv(os.path.join(d, "cpu.txt"))
    binary = kv["binary"]
    print()
    print("=== %s ===" % prog)
    print("  runs (whole workload, user + sys CPU, wall): plain %.2f s CPU %.2f s wall; count %s s / %s s; "
          "arcs %s s / %s s; time %s s / %s s; perf record %s s / %s s; callgrind (smaller workload) %s s wall" % (
              float(kv["plain_cpu"]), float(kv["plain_wall"]), kv["count_cpu"], kv["count_wall"],
              kv["arcs_cpu"], kv["arcs_wall"], kv["time_cpu"], kv["time_wall"], kv["perf_cpu"], kv["perf_wall"],
              kv["callgrind_wall"]))
    cgdir = os.path.join(d, "cg")
    cg_threads = [read_callgrind(os.path.join(cgdir, f), binary) for f in sorted(os.listdir(cgdir))
                  if re.match(r"^callgrind\.out(-\d+)?$", f)]
    spy = {m: Spy(os.path.join(d, "dump-%s.txt" % m)) for m in ("count", "arcs", "arcs2", "time", "time2")}
    instr = set(spy["time"].funcs) | set(spy["arcs"].funcs) | set(spy["count"].funcs)
    psyms = plain_symbols(binary)
    resolved, via, ambiguous, cg_total, both, mapping, cg_names = prepare(instr, cg_threads, True, psyms)
    called = {f for f in instr if spy["time"].funcs.get(f) or spy["arcs"].funcs.get(f)}
    unknown = sorted(f for f in called if f not in cg_names)
    print("  functions: %d instrumented, %d of them called in the smaller workload, %d of those known to "
          "callgrind; %d threads in callgrind's run" % (len(instr), len(called), len(both & called), len(cg_threads)))
    if mapping:
        print("  names mapped, spy's -> callgrind's (one function, two symbols): %d: %s%s" % (
            len(mapping), ", ".join("%s -> %s" % (k, v) for k, v in sorted(mapping.items())[:3]),
            " ..." if len(mapping) > 3 else ""))
    lacking = sorted(f for f in cg_names if "@" not in f and f not in instr and cg_total.get(f)
                     and not f.startswith("0x") and f != "(below main)")
    if lacking:
        print("  functions of the plain build (callgrind) that spy's build lacks: %d called (%s)" % (
            len(lacking), ", ".join(show(f, 30) for f in lacking[:6])))
    if unknown:
        print("  called in spy, unknown to callgrind: %d (%s)" % (len(unknown), ", ".join(show(f, 30) for f in unknown[:5])))
    if ambiguous:
        print("  callgrind: calls from code without hooks it cannot give to one instrumented caller: %d calls into %s" % (
            sum(ambiguous.values()), ", ".join("%s (%d, via %s)" % (show(b, 30), n, ", ".join(
                sorted(show(v, 24) for v in via[(AMBIG, b)])[:2])) for b, n in ambiguous.most_common(4))))
    print(" 1. arcs against callgrind's (the smaller workload, threads summed)")
    varies = varying(spy.values())
    if varies:
        print("  %d functions' call counts differ between spy's runs of the same workload (timing: %s)" % (
            len(varies), ", ".join(show(f, 24) for f in sorted(varies)[:4])))
    for m in ("count", "arcs", "time"):
        compare_counts(spy[m], cg_total, both, varies)
    res = {}
    for m in ("arcs", "time"):
        res[m] = compare_arcs(d, spy[m], spy[m + "2"], resolved, via, ambiguous, cg_names, varies, psyms)
    for m in ("arcs", "time"):
        eq, n, nvary = res[m]
        n -= nvary
        goal(n and eq >= 0.995 * n, "mode %s: %d of %d arcs equal callgrind's (%.2f %%; goal 99.5 %%)%s" % (
            m, eq, n, pct(eq, n), "; %d more, whose counts vary run to run, not counted" % nvary if nvary else ""))

    print(" 2. mode time's top ten by self time against perf's (the whole workload)")
    flat = read_flat(os.path.join(d, "flat-time.txt"))
    perf, ptotal, kernel = read_perf(os.path.join(d, "perf.txt"), binary)
    compare_top(flat, perf, ptotal, kernel, psyms)

    print(" 3. mode time's self seconds against the plain build's CPU time")
    total = flat[-1][3] if flat else 0.0
    cpu = float(kv["plain_cpu"])
    goal(abs(total - cpu) <= 0.25 * cpu, "self seconds add up to %.2f s; the plain build took %.2f s of CPU "
         "(user + sys, median of 3): %.2f times (goal within 25 %%)" % (total, cpu, total / cpu if cpu else 0))


def grep_case(d):
    kv = read_kv(os.path.join(d, "cpu.txt"))
    print()
    print("=== grep (regex with a back-reference, mode time) ===")
    print("  runs: plain %.2f s CPU %.2f s wall; time %s s CPU %s s wall" % (
        float(kv["plain_cpu"]), float(kv["plain_wall"]), kv["time_cpu"], kv["time_wall"]))
    with open(os.path.join(d, "report.txt"), errors="replace") as f:
        lines = f.read().split("\n")
    try:
        start = lines.index("Flat profile:")
    except ValueError:
        print("  the default report has no flat profile")
        goal(False, "a glibc regex function among the flat profile's first ten lines")
        return
    head = []
    rows = []
    for line in lines[start + 1:]:
        if not rows and not re.match(r"^\s*[0-9.]+\s", line):
            if line.strip():
                head.append(line)
            continue
        if not line.strip() or len(rows) == 10:
            break
        rows.append(line)
    print("  the default report's flat profile, its first ten lines (spinprof PROFILE):")
    for line in head[-2:] + rows:
        print("    " + line)
    found = [r for r in read_flat_lines(rows) if GLIBC_REGEX.match(base(r))]
    perf, ptotal, _ = read_perf(os.path.join(d, "perf.txt"), kv["binary"])
    print("  perf's first five (plain build): " + ", ".join(
        "%s %.1f%%" % (show(k, 40), pct(n, ptotal)) for k, n in perf.most_common(5)))
    goal(bool(found), "a glibc regex function among them: %s" % (", ".join(found) if found else "none"))


def read_flat_lines(rows):
    out = []
    for line in rows:
        w = line.split()
        i = 0
        while i < len(w) and re.match(r"^[0-9.]+$", w[i]):
            i += 1
        name = re.sub(r"\s*\[\d+\]$", "", " ".join(w[i:]))
        out.append(name)
    return out


def arcs_only(binary, cgdir, dumps):
    """realprog2.py arcs BINARY CGDIR DUMP [DUMP2]: only the comparison of arcs (and calls per function) of
    one spy profile's dump with callgrind's files in CGDIR; DUMP2, the same program's second run, tells
    what varies run to run"""
    cg_threads = [read_callgrind(os.path.join(cgdir, f), binary) for f in sorted(os.listdir(cgdir))
                  if re.match(r"^callgrind\.out(-\d+)?$", f)]
    spy = Spy(dumps[0])
    spy2 = Spy(dumps[1]) if len(dumps) > 1 else None
    varies = varying([spy, spy2]) if spy2 else set()
    psyms = plain_symbols(binary)
    resolved, via, ambiguous, cg_total, both, _, cg_names = prepare(spy.funcs, cg_threads, True, psyms)
    compare_counts(spy, cg_total, both, varies)
    compare_arcs(None, spy, spy2, resolved, via, ambiguous, cg_names, varies, psyms)


def main():
    if len(sys.argv) >= 5 and sys.argv[1] == "arcs":
        arcs_only(sys.argv[2], sys.argv[3], sys.argv[4:])
        return
    if len(sys.argv) != 3:
        sys.stderr.write("usage: realprog2.py PROG DIR | realprog2.py arcs BINARY CGDIR DUMP [DUMP2]\n")
        sys.exit(2)
    if sys.argv[1] == "grep":
        grep_case(sys.argv[2])
    else:
        program(sys.argv[1], sys.argv[2])


if __name__ == "__main__":
    main()
