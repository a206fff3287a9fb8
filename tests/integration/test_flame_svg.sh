#!/bin/bash
# The SVG flame graph of a report, read back by a real browser: headless
# Chromium runs the page's script, and the DOM it dumps must hold exactly the
# frames of the report's own collapsed stacks (paths, sample counts, the ones
# narrower than 0.1 px left out and counted), zoomed and searched as the URL
# asks (#zoom=, #search=, ?search=). Made from a real .etl recording through
# the record source, from 100,000 synthetic stacks with C++ names, and from a
# live recording of the helper itself.
set -u
. "$(dirname "$0")/lib.sh"

HELPER=${BUILDDIR:?}/tests/report_write
CHECK="python3 $(dirname "$0")/flame_check.py"
F=../shared/fixtures/etl/perfview-net452-x64-compressed.etl
[ -r "$F" ] || skip "the .etl fixtures (../shared/fixtures/etl) are absent"
command -v chromium >/dev/null || skip "no chromium to load the SVG in (Debian package chromium)"
[ -x "$HELPER" ] || fail "no helper $HELPER"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The DOM after the page's script ran, for URL tail $2 of file $1.
dom() {
	timeout 60 chromium --headless --no-sandbox --disable-gpu --dump-dom "file://$1$2" \
		2>"$tmp/chromium.err"
}

# 1. the written SVG against the collapsed stacks of the same report
mkdir -p "$tmp/a" "$tmp/b" "$tmp/syn"
"$HELPER" "$F" "$tmp/a" || fail "report_write $F"
svg=$tmp/a/flame.svg
check "svg: well-formed, frames = collapsed tree" $CHECK static "$tmp/a/collapsed.txt" "$svg"
refs=$( (grep -oE '(href|src)=|url\(|@import' "$svg"; grep -oE 'https?://[^" ]*' "$svg" |
	grep -vx 'http://www.w3.org/2000/svg') | wc -l)
check_eq "svg: self-contained (no external references)" 0 "$refs"
"$HELPER" "$F" "$tmp/b" && cmp -s "$svg" "$tmp/b/flame.svg"
check "svg: the same report gives the same bytes" test $? -eq 0

# 2. loaded in Chromium: the script kept every frame
dom "$svg" "" >"$tmp/dom0.svg"
check "chromium: script ran, every frame shown" $CHECK loaded "$tmp/a/collapsed.txt" "$tmp/dom0.svg"

# 3. zoom from the URL: by frame id (the widest frame three levels up) and by name
read -r zid zname < <(python3 - "$svg" <<'EOF'
import sys, xml.etree.ElementTree as ET
NS = '{http://www.w3.org/2000/svg}'
g = [g for g in ET.parse(sys.argv[1]).getroot().iter(NS + 'g') if g.get('data-n')]
base = max(int(x[1].get('y')) for x in g)
d3 = [x for x in g if int(x[1].get('y')) == base - 3 * 16]
z = max(d3, key=lambda x: int(x.get('data-n')))
d2 = [x for x in g if int(x[1].get('y')) == base - 2 * 16]
print(z.get('id'), max(d2, key=lambda x: int(x.get('data-n')))[0].text.rsplit(' (', 1)[0])
EOF
)
dom "$svg" "#zoom=$zid" >"$tmp/dom1.svg"
check "chromium #zoom=$zid: subtree scaled, callers full width, rest hidden" \
	$CHECK zoom "$tmp/a/collapsed.txt" "$tmp/dom1.svg" "$zid"
dom "$svg" "#zoom=$(python3 -c 'import sys,urllib.parse; print(urllib.parse.quote(sys.argv[1]))' "$zname")" \
	>"$tmp/dom2.svg"
check "chromium #zoom=NAME ($zname)" $CHECK zoom "$tmp/a/collapsed.txt" "$tmp/dom2.svg" "$zname"

# 4. search from the URL: matched frames and the share of samples under them
dom "$svg" "#search=ntdll" >"$tmp/dom3.svg"
check "chromium #search=ntdll: matches and matched share" \
	$CHECK search "$tmp/a/collapsed.txt" "$tmp/dom3.svg" ntdll
dom "$svg" "?search=clr%5C.dll%21&zoom=$zid" >"$tmp/dom4.svg"
check "chromium ?search=clr\\.dll!&zoom=: both" \
	$CHECK search "$tmp/a/collapsed.txt" "$tmp/dom4.svg" 'clr\.dll!' "$zid"

# 5. 100,000 distinct stacks, C++ names with < > & " and a process named synth<&>
start=$(date +%s%N)
"$HELPER" --synthetic 100000 "$tmp/syn" || fail "report_write --synthetic"
ms=$((($(date +%s%N) - start) / 1000000))
syn=$tmp/syn/flame.svg
bytes=$(stat -c %s "$syn")
echo "# 100000 stacks: all outputs written in $ms ms, flame.svg $bytes bytes," \
	"$(grep -o 'data-frames="[0-9]*" data-omitted="[0-9]*"' "$syn")"
check "synthetic: 100000 distinct stacks" test "$(wc -l <"$tmp/syn/collapsed.txt")" -eq 100000
check "synthetic: frames = collapsed tree" $CHECK static "$tmp/syn/collapsed.txt" "$syn"
check "synthetic: flame graph under 2 MB" test "$bytes" -lt 2000000
check "synthetic: C++ names escaped" grep -q 'operator&amp;&amp;(&quot;' "$syn"
check "synthetic: process name escaped" grep -q '<title>synth&lt;&amp;&gt; (' "$syn"
dom "$syn" "#search=operator%26%26" >"$tmp/dom5.svg"
check "chromium, 100000 stacks: search operator&&" \
	$CHECK search "$tmp/syn/collapsed.txt" "$tmp/dom5.svg" 'operator&&'

# 6. this process sampled: real ELF modules, names from the live symbolizer
mkdir -p "$tmp/live"
"$HELPER" --live 1000 "$tmp/live"
case $? in
0) check "live: frames = collapsed tree" $CHECK static "$tmp/live/collapsed.txt" "$tmp/live/flame.svg"
   dom "$tmp/live/flame.svg" "#search=%5Ehot_%7C%21hot_" >"$tmp/dom7.svg"
   check "chromium, live: search ^hot_|!hot_" \
	$CHECK search "$tmp/live/collapsed.txt" "$tmp/dom7.svg" '^hot_|!hot_' ;;
77) echo "# live part not run: this host cannot sample (said above)" ;;
*) fail "report_write --live" ;;
esac

# 7. a report without samples still makes a page that loads
mkdir -p "$tmp/empty"
"$HELPER" --synthetic 0 "$tmp/empty" || fail "report_write --synthetic 0"
dom "$tmp/empty/flame.svg" "" >"$tmp/dom6.svg"
check "no samples: page loads, data-total 0" \
	grep -q 'data-total="0".*data-state="ready"' "$tmp/dom6.svg"

# 8. the command itself on real perf.data, recorded by pmukit record -g and by
# perf record -g: pmukit report --format svg loaded in Chromium holds the
# command's own folded stacks, and hot is found by search
cli() {	# LABEL PERF.DATA
	local d=$tmp/cli-$1
	mkdir -p "$d"
	"$PMUKIT" report -i "$2" --format svg -o "$d/flame.svg" 2>"$d/err" &&
	"$PMUKIT" report -i "$2" --format collapsed >"$d/collapsed.txt" 2>>"$d/err" ||
		{ fail "$1: pmukit report: $(head -1 "$d/err")"; return; }
	check "$1: the command's SVG: frames = its collapsed tree" $CHECK static "$d/collapsed.txt" "$d/flame.svg"
	check "$1: the kernel is [kernel.kallsyms] in the SVG" bash -c "! grep -q 'kallsyms\]_' '$d/flame.svg'"
	dom "$d/flame.svg" "" >"$d/dom0.svg"
	check "$1: chromium: script ran, every frame shown" $CHECK loaded "$d/collapsed.txt" "$d/dom0.svg"
	dom "$d/flame.svg" "#search=%21hot%24" >"$d/dom1.svg"
	check "$1: chromium #search=!hot\$: matches and matched share" \
		$CHECK search "$d/collapsed.txt" "$d/dom1.svg" '!hot$'
	check "$1: hot is more than half the samples" py "
import sys
n=h=0
for l in open(sys.argv[1]):
    s,c=l.rsplit(' ',1); n+=int(c); h+=int(c)*s.endswith('!hot')
assert n and h>0.5*n, (h,n)" "$d/collapsed.txt"
}
if command -v cc >/dev/null; then
	hot_warm_recordings "$tmp" cli
else
	echo "# no C compiler: the command's SVG of a recording made here is not checked"
fi

finish
