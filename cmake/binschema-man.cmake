# Makes the man page binschema.1 from the program's own help, at build time:
#   cmake -DCLI=<binschema> -DOUT=<binschema.1> -DVERSION=<x.y.z> -P binschema-man.cmake
# Sections: NAME (the help's first line), SYNOPSIS, DESCRIPTION (`help`),
# COMMANDS (`help COMMAND` for each command `help` lists), so the page says
# what the program says.

foreach(v CLI OUT VERSION)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "binschema-man.cmake: -D${v}=... is required")
  endif()
endforeach()

function(run_help out_var)
  execute_process(COMMAND ${CLI} help ${ARGN} OUTPUT_VARIABLE text ERROR_VARIABLE err RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${CLI} help ${ARGN} failed (${rc}): ${err}")
  endif()
  set(${out_var} "${text}" PARENT_SCOPE)
endfunction()

# Text for a no-fill block: backslashes, and dots or quotes at a line's start,
# would be read as roff requests otherwise.
function(roff out_var text)
  string(REPLACE "\\" "\\e" text "${text}")
  string(REPLACE "-" "\\-" text "${text}")
  string(REGEX REPLACE "(^|\n)([.'])" "\\1\\\\&\\2" text "${text}")
  string(REGEX REPLACE "\n+$" "" text "${text}")
  set(${out_var} "${text}" PARENT_SCOPE)
endfunction()

run_help(main)
string(REGEX MATCH "^([^:\n]+): ([^\n]*)" first "${main}")
set(program "${CMAKE_MATCH_1}")
set(summary "${CMAKE_MATCH_2}")
if(NOT program)
  message(FATAL_ERROR "binschema-man.cmake: the help does not start with 'PROGRAM: summary'")
endif()
string(REGEX MATCH "Subcommands:\n(  [^\n]+\n)+" block "${main}")
string(REGEX MATCHALL "\n  [a-z][a-z0-9-]*" names "${block}")
if(NOT names)
  message(FATAL_ERROR "binschema-man.cmake: no commands found in the help")
endif()
string(TOUPPER "${program}" upper)
string(REPLACE "-" "\\-" rprogram "${program}")
roff(summary_r "${summary}")
roff(main_r "${main}")

set(page ".\\\" Generated from `${program} help` by cmake/binschema-man.cmake; do not edit.
.TH ${upper} 1 \"\" \"${rprogram} ${VERSION}\" \"User Commands\"
.SH NAME
${rprogram} \\- ${summary_r}
.SH SYNOPSIS
.B ${rprogram}
\\fICOMMAND\\fR [\\fIOPTIONS\\fR] [\\fIARGUMENTS\\fR]
.br
.B ${rprogram}
\\fB\\-\\-version\\fR | \\fB\\-\\-help\\fR | \\fBhelp\\fR [\\fICOMMAND\\fR]
.SH DESCRIPTION
.nf
${main_r}
.fi
.SH COMMANDS
")
foreach(n ${names})
  string(STRIP "${n}" name)
  run_help(text ${name})
  roff(text_r "${text}")
  string(APPEND page ".SS \"${rprogram} ${name}\"\n.nf\n${text_r}\n.fi\n")
endforeach()
string(APPEND page ".SH VERSION\n${rprogram} ${VERSION}\n")
file(WRITE "${OUT}.tmp" "${page}")
file(RENAME "${OUT}.tmp" "${OUT}")
