# Closed loops from MJCF <equality> (issue 49, tests/loops/README.md): each robot file and the
# hand-written gripper through lagc, built with the bundled four-bar's golden output, and
# compared (test_loops.cpp).
set(loops_out ${CMAKE_CURRENT_BINARY_DIR}/loops)
set(loops_sources)
foreach(pair "four_bar.xml:fb_robot" "slider_crank.xml:sc_robot" "gripper_2f85.xml:grip_robot" "gripper_2f85.lag:grip_hand"
    "weld.xml:weld_robot" "weld_fixed.xml:weld_ref" "couplings.xml:couplings")
  string(REPLACE ":" ";" pair "${pair}")
  list(GET pair 0 file)
  list(GET pair 1 ns)
  add_custom_command(
    OUTPUT ${loops_out}/${ns}.cpp ${loops_out}/${ns}.hpp
    COMMAND ${CMAKE_COMMAND} -E make_directory ${loops_out}
    COMMAND lagc ${CMAKE_CURRENT_SOURCE_DIR}/loops/${file} -o ${loops_out}/${ns}.cpp -w --namespace ${ns}
    DEPENDS lagc ${CMAKE_CURRENT_SOURCE_DIR}/loops/${file}
    COMMENT "lagc loops/${file}" VERBATIM)
  list(APPEND loops_sources ${loops_out}/${ns}.cpp)
endforeach()
add_executable(test_loops loops/test_loops.cpp ${loops_sources} ${PROJECT_SOURCE_DIR}/generated/four_bar.cpp)
target_include_directories(test_loops PRIVATE ${loops_out} ${PROJECT_SOURCE_DIR}/generated)
target_link_libraries(test_loops PRIVATE GTest::gtest_main)
gtest_discover_tests(test_loops)

# The reader's text: constraints written, rows left out, notes, errors at their lines.
add_executable(test_equality_import loops/test_equality_import.cpp)
target_link_libraries(test_equality_import PRIVATE lagc_core GTest::gtest_main)
gtest_discover_tests(test_equality_import)

# Against MuJoCo where it is installed (libmujoco-dev): the same loops (its efc_pos zero at
# lagc's projected states) and its accelerations approaching lagc's as its equalities stiffen.
find_path(LAGC_MUJOCO_INCLUDE mujoco/mujoco.h)
find_library(LAGC_MUJOCO_LIBRARY mujoco)
if(LAGC_MUJOCO_INCLUDE AND LAGC_MUJOCO_LIBRARY)
  foreach(pair "four_bar.xml:fb_robot" "slider_crank.xml:sc_robot" "gripper_2f85.xml:grip_robot" "couplings.xml:couplings")
    string(REPLACE ":" ";" pair "${pair}")
    list(GET pair 0 file)
    list(GET pair 1 ns)
    add_executable(loops_mujoco_check_${ns} loops/loops_mujoco_check.cpp ${loops_out}/${ns}.cpp)
    target_include_directories(loops_mujoco_check_${ns} PRIVATE ${loops_out} ${LAGC_MUJOCO_INCLUDE})
    target_compile_definitions(loops_mujoco_check_${ns} PRIVATE LAGC_MODEL=${ns} "LAGC_HEADER=\"${ns}.hpp\"")
    target_link_libraries(loops_mujoco_check_${ns} PRIVATE ${LAGC_MUJOCO_LIBRARY})
    add_test(NAME loops_against_mujoco_${ns} COMMAND loops_mujoco_check_${ns} ${CMAKE_CURRENT_SOURCE_DIR}/loops/${file})
  endforeach()
endif()
