# Wine smoke part (sourced by smoke.sh): page -> NUMA node through QueryWorkingSetEx
# (windows-notes.md: Wine answers Valid=1 Node=0 for a touched page).
if run count_pages count_pages.exe && tr -d '\r' <"$OUT/count_pages.out" | grep -qx 'touched: 0' &&
	tr -d '\r' <"$OUT/count_pages.out" | grep -qx 'untouched: -1'; then
	pass "pmu_memory_nodes: touched page on node 0, untouched page not resident"
else
	fail memnode "see $OUT/count_pages.*"
fi
