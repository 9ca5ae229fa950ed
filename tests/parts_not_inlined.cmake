# A split function's parts stay functions of their own at -O2 (LAGC_PART_NOINLINE): GCC
# inlines a static function called once, which rebuilt the one long function the split
# is there to avoid (10-joint arm: 6 of 48 parts inlined, g++ 9% slower).
# Usage: cmake -DCXX=... -DNM=... -DSOURCE=generated/ur5_like.cpp -DINCLUDE=generated -DWORK_DIR=... -P parts_not_inlined.cmake
file(MAKE_DIRECTORY ${WORK_DIR})
file(READ ${SOURCE} text)
string(REGEX MATCHALL "void [a-z_]+_part[0-9]+\\(" defined "${text}")
list(LENGTH defined expected)
if(expected LESS 4)
  message(FATAL_ERROR "${SOURCE} defines ${expected} parts; the test needs a model with split functions")
endif()
execute_process(COMMAND ${CXX} -std=c++17 -O2 -I${INCLUDE} -c ${SOURCE} -o ${WORK_DIR}/parts.o
                RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "compiling ${SOURCE} failed:\n${err}")
endif()
execute_process(COMMAND ${NM} -C ${WORK_DIR}/parts.o OUTPUT_VARIABLE symbols RESULT_VARIABLE rc)
string(REGEX MATCHALL "[a-z_]+_part[0-9]+\\(" present "${symbols}")
list(REMOVE_DUPLICATES present)
list(LENGTH present found)
if(NOT found EQUAL expected)
  message(FATAL_ERROR "${found} of the ${expected} parts in ${SOURCE} are functions in the object file")
endif()
message(STATUS "all ${expected} parts of ${SOURCE} stay functions at -O2")
