#!/bin/bash
# The man page says what --help says: rendered, its SYNOPSIS is exactly `pmukit --help`
# and each VERBS subsection exactly `pmukit VERB --help`, for every verb --help lists.
set -u
. "$(dirname "$0")/lib.sh"
page=$BUILDDIR/pmukit.1
command -v groff >/dev/null || skip "groff is not installed (scripts/deps.sh installs groff-base)"
check "the build generated $page" test -s "$page"

# No page breaks, no line wrap, no overstrike: man's layout puts section headings in
# column 0, subsection headings in column 3 and text in column 7.
rendered=$(groff -man -Tutf8 -rcR=1 -rLL=300n -P-cbou "$page" 2>&1)
check "groff renders the page without warnings" test -z "$(grep -E '^(groff|troff|grotty):' <<<"$rendered")"

out=$(mktemp -d); trap 'rm -rf "$out"' EXIT
PAGE_TEXT=$rendered OUT=$out py '
import os, re
sec = sub = None
parts = {}
for line in os.environ["PAGE_TEXT"].split("\n"):
    if re.match(r"^\S", line):
        sec, sub = line.strip(), None
    elif re.match(r"^   \S", line):
        sub = line.strip()
    elif sec == "SYNOPSIS" or (sec == "VERBS" and sub):
        key = "main" if sec == "SYNOPSIS" else sub.replace("pmukit ", "")
        parts.setdefault(key, []).append(line[7:])
for key, lines in parts.items():
    while lines and not lines[-1]:
        lines.pop()
    open(os.path.join(os.environ["OUT"], key + ".page"), "w").write("\n".join(lines) + "\n")
'

"$PMUKIT" --help >"$out/main.help"
check "SYNOPSIS is pmukit --help" diff -u "$out/main.help" "$out/main.page"
verbs=$(sed -n '/^verbs:/,/^$/s/^  \([a-z0-9]*\) .*/\1/p' "$out/main.help")
check "pmukit --help lists verbs" test -n "$verbs"
for v in $verbs; do
	"$PMUKIT" "$v" --help >"$out/$v.help"
	check "the page has a subsection for $v" test -f "$out/$v.page"
	[ -f "$out/$v.page" ] && check "its text is pmukit $v --help" diff -u "$out/$v.help" "$out/$v.page"
done
finish
