# lagc ROBOT --tree (issue 49): the text on standard output, exit 0, equal to the file beside
# the robot (ROBOT's stem .tree: deterministic); --tree dot read by Graphviz's dot where it
# is installed, else checked for its shape (a digraph, a node per body and the world, an edge
# per body); the option's misuses are usage errors (exit 2).
# Usage: cmake -DLAGC=... -DSOURCE_DIR=... -P tree.cmake
set(failures 0)
macro(fail what)
  message(SEND_ERROR "tree: ${what}")
  math(EXPR failures "${failures} + 1")
endmacro()
foreach(robot actuated_arm.xml gripper.urdf)
  string(REGEX REPLACE "\\.[a-z]+$" ".tree" expected_file ${robot})
  execute_process(COMMAND ${LAGC} tests/robots/${robot} --tree WORKING_DIRECTORY ${SOURCE_DIR}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  file(READ ${SOURCE_DIR}/tests/robots/${expected_file} expected)
  if(NOT rc EQUAL 0)
    fail("${robot} --tree exits ${rc}: ${err}")
  elseif(NOT out STREQUAL expected)
    fail("${robot} --tree prints\n${out}\nnot tests/robots/${expected_file}:\n${expected}")
  endif()
  execute_process(COMMAND ${LAGC} tests/robots/${robot} --tree dot WORKING_DIRECTORY ${SOURCE_DIR}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE dot ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    fail("${robot} --tree dot exits ${rc}: ${err}")
  endif()
  string(REPLACE "[" "(" plain "${dot}") # a "[" in a list item joins it to the next
  string(REGEX MATCHALL "\n  b[0-9]+ .label=" nodes "${plain}")
  string(REGEX MATCHALL " -> b[0-9]+ .(label|style=dashed)" edges "${plain}") # not the dotted couplings
  string(REGEX MATCHALL "\n *body '" bodies "${out}")
  list(LENGTH nodes n_nodes)
  list(LENGTH edges n_edges)
  list(LENGTH bodies n_bodies)
  if(NOT dot MATCHES "^digraph \"[^\"]*\" {\n.*\n}\n$" OR NOT n_nodes EQUAL n_bodies OR NOT n_edges EQUAL n_bodies
     OR NOT dot MATCHES "\n  world \\[")
    fail("${robot} --tree dot is not a digraph with the world, ${n_bodies} bodies and as many edges:\n${dot}")
  endif()
  find_program(DOT dot)
  file(MAKE_DIRECTORY ${WORK_DIR})
  if(DOT)
    file(WRITE ${WORK_DIR}/${robot}.dot "${dot}")
    execute_process(COMMAND ${DOT} -Tsvg ${WORK_DIR}/${robot}.dot -o ${WORK_DIR}/${robot}.svg RESULT_VARIABLE rc ERROR_VARIABLE err)
    if(NOT rc EQUAL 0)
      fail("Graphviz's dot cannot read ${robot}'s --tree dot: ${err}")
    endif()
  endif()
endforeach()
foreach(misuse "${SOURCE_DIR}/tests/robots/gripper.urdf;--tree;-o;x.cpp" "${SOURCE_DIR}/models/simple_pendulum.lag;--tree"
        "${SOURCE_DIR}/models/simple_pendulum.lag;--inputs;actuators;-o;x.cpp" "${SOURCE_DIR}/tests/robots/arm7.xml;--inputs;motors;-o;x.cpp")
  execute_process(COMMAND ${LAGC} ${misuse} WORKING_DIRECTORY ${WORK_DIR} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 2 OR NOT err MATCHES "error")
    fail("lagc ${misuse} is a usage error (exit 2), not ${rc}: ${err}")
  endif()
endforeach()
if(failures GREATER 0)
  message(FATAL_ERROR "tree: ${failures} failed")
endif()
