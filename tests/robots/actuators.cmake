# Actuators and keyframes of robot files (issue 49): actuated_arm.xml made with --inputs
# actuators and with joint inputs, keyframes_free.xml, and actuators_check.cpp comparing them
# with hand computations (always) and with MuJoCo (where it is installed, as the
# robot_against_mujoco_* tests). Included by tests/CMakeLists.txt after LAGC_MUJOCO_* are found.
set(actuators_out ${CMAKE_CURRENT_BINARY_DIR}/robots/actuators)
set(actuators_robots ${CMAKE_CURRENT_SOURCE_DIR}/robots)
add_custom_command(
  OUTPUT ${actuators_out}/actuated.cpp ${actuators_out}/actuated.hpp ${actuators_out}/jointed.cpp
         ${actuators_out}/jointed.hpp ${actuators_out}/free_keys.cpp ${actuators_out}/free_keys.hpp
  COMMAND ${CMAKE_COMMAND} -E make_directory ${actuators_out}
  COMMAND lagc ${actuators_robots}/actuated_arm.xml --inputs actuators -o ${actuators_out}/actuated.cpp -w --namespace actuated
  COMMAND lagc ${actuators_robots}/actuated_arm.xml -o ${actuators_out}/jointed.cpp -w --namespace jointed
  COMMAND lagc ${actuators_robots}/keyframes_free.xml -o ${actuators_out}/free_keys.cpp -w --namespace free_keys
  DEPENDS lagc ${actuators_robots}/actuated_arm.xml ${actuators_robots}/keyframes_free.xml
  COMMENT "lagc actuated_arm.xml, keyframes_free.xml" VERBATIM)
add_executable(actuators_check robots/actuators_check.cpp ${actuators_out}/actuated.cpp ${actuators_out}/jointed.cpp
               ${actuators_out}/free_keys.cpp)
target_include_directories(actuators_check PRIVATE ${actuators_out})
add_test(NAME robot_actuators_keyframes COMMAND actuators_check)
if(LAGC_MUJOCO_INCLUDE AND LAGC_MUJOCO_LIBRARY)
  target_include_directories(actuators_check PRIVATE ${LAGC_MUJOCO_INCLUDE})
  target_compile_definitions(actuators_check PRIVATE LAGC_WITH_MUJOCO)
  target_link_libraries(actuators_check PRIVATE ${LAGC_MUJOCO_LIBRARY})
  add_test(NAME robot_against_mujoco_actuators_keyframes
           COMMAND actuators_check --mujoco ${actuators_robots}/actuated_arm.xml ${actuators_robots}/keyframes_free.xml)
endif()
# --tree: the text against tests/robots/*.tree, the DOT read by Graphviz where installed.
add_test(NAME robot_tree
         COMMAND ${CMAKE_COMMAND} -DLAGC=$<TARGET_FILE:lagc> -DSOURCE_DIR=${PROJECT_SOURCE_DIR}
                 -DWORK_DIR=${CMAKE_CURRENT_BINARY_DIR}/robot_tree -P ${CMAKE_CURRENT_SOURCE_DIR}/robots/tree.cmake)
