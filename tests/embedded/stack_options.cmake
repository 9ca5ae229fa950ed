# --max-stack and --target mcu from the command line, and --stats printing the header's
# figures. Usage: cmake -DLAGC=... -DSOURCE_DIR=... -DWORK_DIR=... -P stack_options.cmake
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})
set(failures 0)
macro(fail what)
  message(SEND_ERROR "stack options: ${what}")
  math(EXPR failures "${failures} + 1")
endmacro()

# --stats: each function's figure, the one the header states.
execute_process(COMMAND ${LAGC} models/ur5_like.lag -o ${WORK_DIR}/ur5.cpp --scalar float --stats
                WORKING_DIRECTORY ${SOURCE_DIR} RESULT_VARIABLE rc ERROR_VARIABLE err)
file(READ ${WORK_DIR}/ur5.hpp header)
string(REGEX MATCHALL "lagc: [a-z_0-9]+ +stack: [0-9]+ bytes" lines "${err}")
list(LENGTH lines count)
if(NOT rc EQUAL 0 OR count LESS 15)
  fail("--stats prints each function's stack (${count} lines, exit ${rc}):\n${err}")
endif()
foreach(line IN LISTS lines)
  string(REGEX REPLACE "lagc: ([a-z_0-9]+) +stack: ([0-9]+) bytes" "\\1;\\2" pair "${line}")
  list(GET pair 0 name)
  list(GET pair 1 bytes)
  string(FIND "${header}" "inline constexpr unsigned long ${name} = ${bytes};" at)
  if(at EQUAL -1)
    fail("--stats says ${name} needs ${bytes} bytes, the header does not")
  endif()
endforeach()

# A budget no form meets: exit 1, naming the function.
execute_process(COMMAND ${LAGC} models/ur5_like.lag -o ${WORK_DIR}/tight.cpp --scalar float --max-stack 1000
                WORKING_DIRECTORY ${SOURCE_DIR} RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 1 OR NOT err MATCHES "error: --max-stack 1,000: 'radau_step' needs [0-9,]+ bytes of stack")
  fail("--max-stack 1000 exits 1 naming radau_step (exit ${rc}):\n${err}")
endif()
if(EXISTS ${WORK_DIR}/tight.cpp)
  fail("--max-stack that fails writes no file")
endif()
execute_process(COMMAND ${LAGC} models/ur5_like.lag -o ${WORK_DIR}/x.cpp --max-stack 10
                WORKING_DIRECTORY ${SOURCE_DIR} RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 2 OR NOT err MATCHES "--max-stack takes a number of bytes from 64")
  fail("--max-stack 10 is a usage error (exit ${rc}):\n${err}")
endif()

# --target mcu: the errno guard; another target is a usage error.
execute_process(COMMAND ${LAGC} models/cart_pendulum.lag -o ${WORK_DIR}/mcu.cpp --scalar float --target mcu
                WORKING_DIRECTORY ${SOURCE_DIR} RESULT_VARIABLE rc ERROR_VARIABLE err)
file(READ ${WORK_DIR}/mcu.cpp source)
if(NOT rc EQUAL 0 OR NOT source MATCHES "#error \"lagc --target mcu: compile with -fno-math-errno")
  fail("--target mcu writes the errno guard (exit ${rc}):\n${err}")
endif()
execute_process(COMMAND ${LAGC} models/cart_pendulum.lag -o ${WORK_DIR}/x.cpp --target avr
                WORKING_DIRECTORY ${SOURCE_DIR} RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 2 OR NOT err MATCHES "--target takes mcu, not 'avr'")
  fail("--target avr is a usage error (exit ${rc}):\n${err}")
endif()
if(failures GREATER 0)
  message(FATAL_ERROR "${failures} stack option checks failed")
endif()
message(STATUS "--stats, --max-stack and --target mcu behave")
