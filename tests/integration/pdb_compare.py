#!/usr/bin/env python3
"""pmukit addr2line (text) against llvm-symbolizer on a PE + PDB and on its DWARF twin.

usage: pdb_compare.py ADDRS PMUKIT_OUT LLVM_PDB_OUT LLVM_DWARF_OUT
       pdb_compare.py --bench ADDRS PMUKIT_OUT LLVM_PDB_OUT [LLVM_DWARF_OUT]
           (the agreement in figures; exit 0 unless the answers do not line up)
The twin is the same sources built with -gdwarf: same code (the caller checks),
debug information whose meaning is unambiguous. Checked on every address:
  - the chain of function names (inlined calls, then the function) is the one
    llvm-symbolizer reads from the PDB;
  - the function's file:line is llvm-symbolizer's (PDB), or where they differ,
    the DWARF twin's (two rows at one address: llvm-symbolizer takes the first);
  - each inlined frame's file:line is the DWARF twin's where it has one (not 0):
    llvm-symbolizer 14 reads inline-site line annotations one range late.
Exits 1 on any disagreement or when nothing was compared."""
import json
import re
import sys


def pmukit(path):
    out = []
    for line in open(path):
        if line.startswith("0x"):
            out.append([])
            continue
        m = re.match(r"  (\S+?)(\+0x[0-9a-f]+)? at (.*?):(\d+)(:\d+)?( \(inlined\))?$", line)
        if m:
            f = "" if m.group(3) == "??" else m.group(3)
            out[-1].append((m.group(1), f.replace("\\", "/").rsplit("/", 1)[-1],
                            int(m.group(4))))
    return out


def llvm(path, n):
    """--output-style=JSON: one line per address."""
    out = []
    for line in open(path):
        if not line.strip():
            continue
        for entry in (lambda v: v if isinstance(v, list) else [v])(json.loads(line)):
            out.append([(f["FunctionName"], f["FileName"].replace("\\", "/").rsplit("/", 1)[-1],
                         f["Line"]) for f in entry.get("Symbol", []) if f["FunctionName"]])
    return out[:n]


def names(chain):
    return [f[0] for f in chain]


def bench():
    """Agreement figures only: functions and the function's line against
    llvm-symbolizer (PDB); inlined frames' lines against the DWARF twin when given."""
    addrs = open(sys.argv[2]).read().split()
    a, b = pmukit(sys.argv[3]), llvm(sys.argv[4], len(addrs))
    n = len(addrs)
    if len(a) != n or len(b) != n:
        print("answer counts differ: %d addresses, pmukit %d, llvm-symbolizer %d"
              % (n, len(a), len(b)))
        return 1
    fn = sum(names(a[i]) == names(b[i]) for i in range(n))
    outer = sum(names(a[i]) == names(b[i]) and a[i][-1:] == b[i][-1:] for i in range(n))
    print("agreement with llvm-symbolizer (PDB) on %d addresses: functions and inline "
          "chains %.2f%%, the function's file:line %.2f%%" % (n, 100.0 * fn / n,
                                                             100.0 * outer / n))
    if len(sys.argv) > 5:
        d = llvm(sys.argv[5], n)
        same = checked = vs_llvm = 0
        for i in range(n):
            if names(d[i]) != names(a[i]):
                continue
            for x, y, z in zip(a[i][:-1], d[i][:-1], b[i][:-1]):
                if y[2]:
                    checked += 1
                    same += x == y
                    vs_llvm += z == y
        print("inlined frames' file:line against the DWARF twin: pmukit %.2f%%, "
              "llvm-symbolizer %.2f%% (of %d frames)" % (100.0 * same / max(checked, 1),
                                                         100.0 * vs_llvm / max(checked, 1),
                                                         checked))
    return 0


def main():
    if sys.argv[1] == "--bench":
        return bench()
    addrs = open(sys.argv[1]).read().split()
    a = pmukit(sys.argv[2])
    b, d = llvm(sys.argv[3], len(addrs)), llvm(sys.argv[4], len(addrs))
    if not len(a) == len(b) == len(d) == len(addrs):
        print("answer counts differ: %d addresses, pmukit %d, llvm-symbolizer %d and %d"
              % (len(addrs), len(a), len(b), len(d)))
        return 1
    bad, named, inl, inl_lines, extra = [], 0, 0, 0, 0
    for i, addr in enumerate(addrs):
        if not b[i]:
            extra += bool(a[i])     # pmukit names it by its public symbol
            continue
        named += 1
        inl += len(b[i]) > 1
        if names(a[i]) != names(b[i]):
            bad.append((addr, "functions", a[i], b[i]))
            continue
        if a[i][-1] != b[i][-1] and (names(d[i]) != names(a[i]) or a[i][-1] != d[i][-1]):
            bad.append((addr, "function's line", a[i], b[i], d[i]))
        if names(d[i]) != names(a[i]):
            continue
        for x, y in zip(a[i][:-1], d[i][:-1]):
            if y[2]:
                inl_lines += 1
                if x != y:
                    bad.append((addr, "inlined frame's line", a[i], d[i]))
    print("%d addresses: llvm-symbolizer names %d (%d in inlined code); pmukit agrees on "
          "%d (functions, lines; %d inlined-frame lines checked against DWARF), and names "
          "%d more by public symbols" % (len(addrs), named, inl, named - len(bad), inl_lines,
                                         extra))
    for x in bad[:10]:
        print("  %s: %s differ: %s" % (x[0], x[1], x[2:]))
    return 1 if bad or not named or not inl_lines else 0


sys.exit(main())
