# Writes pmukit.1 from the built command's own help, so the page and --help cannot
# disagree: SYNOPSIS is `pmukit --help`, then one subsection per verb (the verbs its
# help lists) with `pmukit VERB --help`, verbatim (cmake -P, see cmake/install.cmake).
#   -DPMUKIT=<built pmukit> -DOUT=<pmukit.1>
function(run_help out)
  execute_process(COMMAND ${PMUKIT} ${ARGN} --help OUTPUT_VARIABLE text RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0 OR text STREQUAL "")
    message(FATAL_ERROR "pmukit-man: '${PMUKIT} ${ARGN} --help' failed (${rc})")
  endif()
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

# Text -> no-fill roff: backslashes and minus signs escaped, control characters at a
# line start (. and ') neutralised with \&. Regexes, not lists: help text has ; and [.
function(roff_verbatim out text)
  string(REGEX REPLACE "\n$" "" text "${text}")
  string(REPLACE "\\" "\\e" text "${text}")
  string(REPLACE "-" "\\-" text "${text}")
  # (CMake's ^ also matches where a search resumes, so lines are found by their \n.)
  string(REGEX REPLACE "\n([.'])" "\n\\\\&\\1" text "\n${text}")
  set(${out} ".nf${text}\n.fi\n" PARENT_SCOPE)
endfunction()

run_help(main)
execute_process(COMMAND ${PMUKIT} --version OUTPUT_VARIABLE version OUTPUT_STRIP_TRAILING_WHITESPACE)
# The verbs: the lines after "verbs:" up to the first blank line, "  NAME summary".
string(REGEX MATCH "verbs:\n(  [a-z0-9]+[^\n]*\n)+" block "${main}")
string(REGEX MATCHALL "\n  [a-z0-9]+" names "${block}")
if(NOT names)
  message(FATAL_ERROR "pmukit-man: no verbs in '${PMUKIT} --help'")
endif()

roff_verbatim(page_main "${main}")
set(page ".\\\" Generated from '${version} --help' and each 'pmukit VERB --help'; do not edit.
.TH PMUKIT 1 \"\" \"${version}\" \"pmukit manual\"
.SH NAME
pmukit \\- acquire CPU performance data: counters, samples, topology, OS CPU time
.SH SYNOPSIS
${page_main}.SH VERBS
")
foreach(n IN LISTS names)
  string(STRIP "${n}" verb)
  run_help(text ${verb})
  roff_verbatim(body "${text}")
  string(APPEND page ".SS pmukit ${verb}\n${body}")
endforeach()
string(APPEND page ".SH VERSION
This page documents ${version}.
.SH SEE ALSO
.BR perf (1),
.BR perf\\-stat (1),
.BR perf\\-list (1)
")
file(WRITE ${OUT}.tmp "${page}")
file(RENAME ${OUT}.tmp ${OUT})
