# Runs two commands that each write a JSON result and compares the determinism-contract
# members with json_compare. Arguments (-D):
#   COMPARE   json_compare executable
#   WORKDIR   folder for the two JSON files
#   A, B      commands, as "|"-separated argument lists; the JSON path is appended as
#             "--json FILE"
#   A_ENV, B_ENV  optional "|"-separated NAME=VALUE pairs for each command
#   MEMBERS   optional comma-separated members to compare (default: json_compare's)
#   PACKETS   optional: both commands also write "--packets FILE.csv", which must be equal
#             byte for byte
function(run_side cmd env out)
  string(REPLACE "|" ";" argv "${cmd}")
  set(envargs "")
  if(env)
    string(REPLACE "|" ";" envargs "${env}")
  endif()
  set(csv "")
  if(PACKETS)
    string(REPLACE ".json" ".csv" csvfile "${out}")
    set(csv --packets ${csvfile})
  endif()
  execute_process(COMMAND ${CMAKE_COMMAND} -E env ${envargs} ${argv} --json ${out} ${csv}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE so ERROR_VARIABLE se)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "command failed (${rc}): ${argv}\n${so}\n${se}")
  endif()
endfunction()

file(MAKE_DIRECTORY ${WORKDIR})
file(REMOVE ${WORKDIR}/a.json ${WORKDIR}/b.json ${WORKDIR}/a.csv ${WORKDIR}/b.csv)
run_side("${A}" "${A_ENV}" ${WORKDIR}/a.json)
run_side("${B}" "${B_ENV}" ${WORKDIR}/b.json)
set(members "")
if(MEMBERS)
  set(members --members ${MEMBERS})
endif()
execute_process(COMMAND ${COMPARE} ${members} ${WORKDIR}/a.json ${WORKDIR}/b.json
                RESULT_VARIABLE rc OUTPUT_VARIABLE so ERROR_VARIABLE se)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "results differ:\n${so}${se}\nA: ${A}\nB: ${B}")
endif()
if(PACKETS)
  execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${WORKDIR}/a.csv ${WORKDIR}/b.csv
                  RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "packet records differ: ${WORKDIR}/a.csv ${WORKDIR}/b.csv\nA: ${A}\nB: ${B}")
  endif()
endif()
message(STATUS "identical: ${A} | ${B}")
