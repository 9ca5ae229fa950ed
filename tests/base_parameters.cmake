# --regressor base (issue 50): the UR5 and the Panda in linear parameters, the three-link arm
# with friction and rotor inertia, and the planar two-link arm, each with
# inverse_dynamics_regressor_base and base_parameters; the three-link arm in C99 as well.
# test_base_parameters checks the counts against the stacked regressor's rank, Yb pib = Y pi,
# the UR5's groupings against the grouping rules, and identification on noisy torques.
set(base_dir ${CMAKE_CURRENT_BINARY_DIR}/base_parameters)
set(base_headers)
foreach(entry IN ITEMS robots/ur5.urdf:ur5_base:linear robots/panda.urdf:panda_base:linear
                       ../examples/base_parameters/three_link_friction.lag:three_link_base:- ../models/two_link_identification.lag:two_link_base:-)
  string(REPLACE ":" ";" entry ${entry})
  list(GET entry 0 file)
  list(GET entry 1 id)
  list(GET entry 2 form)
  set(form_option)
  if(NOT form STREQUAL "-")
    set(form_option --inertial-parameters ${form})
  endif()
  add_custom_command(
    OUTPUT ${base_dir}/${id}.hpp
    COMMAND ${CMAKE_COMMAND} -E make_directory ${base_dir}
    COMMAND lagc ${CMAKE_CURRENT_SOURCE_DIR}/${file} -o ${base_dir}/${id}.hpp -w --namespace ${id} ${form_option} --regressor base
    DEPENDS lagc ${CMAKE_CURRENT_SOURCE_DIR}/${file}
    COMMENT "lagc ${file} --regressor base" VERBATIM)
  list(APPEND base_headers ${base_dir}/${id}.hpp)
endforeach()
add_custom_command(
  OUTPUT ${base_dir}/three_link_c.c ${base_dir}/three_link_c.h
  COMMAND ${CMAKE_COMMAND} -E make_directory ${base_dir}
  COMMAND lagc ${CMAKE_CURRENT_SOURCE_DIR}/../examples/base_parameters/three_link_friction.lag -o ${base_dir}/three_link_c.c -w --namespace three_link_c
          --regressor base
  DEPENDS lagc ${CMAKE_CURRENT_SOURCE_DIR}/../examples/base_parameters/three_link_friction.lag
  COMMENT "lagc three_link_friction.lag -o three_link_c.c --regressor base" VERBATIM)
add_library(base_parameters_c STATIC ${base_dir}/three_link_c.c)
set_target_properties(base_parameters_c PROPERTIES C_STANDARD 99 C_EXTENSIONS OFF)
target_compile_options(base_parameters_c PRIVATE -Wall -Wextra -Wpedantic -Werror)
add_executable(test_base_parameters test_base_parameters.cpp ${base_headers})
target_include_directories(test_base_parameters PRIVATE ${base_dir})
target_link_libraries(test_base_parameters PRIVATE base_parameters_c GTest::gtest_main)
gtest_discover_tests(test_base_parameters)

# examples/base_parameters: the three-link arm identified by its base parameters from noisy
# torques; every estimate must lie within 4.5 standard deviations of base_parameters(truth).
add_executable(base_parameters_example ${PROJECT_SOURCE_DIR}/examples/base_parameters/main.cpp)
lagc_generate(TARGET base_parameters_example MODELS ${PROJECT_SOURCE_DIR}/examples/base_parameters/three_link_friction.lag
              OUTPUT_DIR ${CMAKE_CURRENT_BINARY_DIR}/generated_base_parameters OPTIONS --regressor base)
set_target_properties(base_parameters_example PROPERTIES CXX_STANDARD 17 CXX_EXTENSIONS OFF)
target_compile_options(base_parameters_example PRIVATE -Wall -Wextra -Wpedantic -Werror)
add_test(NAME base_parameters_example COMMAND base_parameters_example)
set_tests_properties(base_parameters_example PROPERTIES PASS_REGULAR_EXPRESSION "\nidentified\n")
