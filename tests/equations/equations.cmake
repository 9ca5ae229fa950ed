# lagc --equations (tests/equations/README.md): the printed M and h of every seed model read
# back and compared with the seeds' closed forms; two runs byte-identical; bad use refused;
# the .tex compiled by pdflatex where it is installed.
add_executable(test_equations equations/test_equations.cpp)
target_link_libraries(test_equations PRIVATE lagc_core GTest::gtest_main)
target_include_directories(test_equations PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/equations)
target_compile_definitions(test_equations PRIVATE LAGC_SOURCE_DIR="${PROJECT_SOURCE_DIR}"
                           LAGC_BINARY="$<TARGET_FILE:lagc>")
add_dependencies(test_equations lagc)
gtest_discover_tests(test_equations)
foreach(check determinism bad_use pdflatex)
  add_test(NAME equations_${check}
           COMMAND ${CMAKE_COMMAND} -DLAGC=$<TARGET_FILE:lagc> -DSOURCE_DIR=${PROJECT_SOURCE_DIR}
                   -DWORK_DIR=${CMAKE_CURRENT_BINARY_DIR}/equations_${check} -DCHECK=${check}
                   -P ${CMAKE_CURRENT_SOURCE_DIR}/equations/run_checks.cmake)
endforeach()
set_tests_properties(equations_pdflatex PROPERTIES SKIP_REGULAR_EXPRESSION "SKIP: pdflatex is not installed")
