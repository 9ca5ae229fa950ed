# Installs lagc to a temporary prefix and builds examples/embedded_controller against it
# with find_package(lagc) and lagc_generate(), then runs the controller; with PYTHON (one
# that has numpy), imports the installed Python package from PREFIX/lib/python3/dist-packages
# and calls a compiled model (tests/python/check_installed.py).
# Usage: cmake -DBUILD_DIR=... -DSOURCE_DIR=... -DWORK_DIR=... [-DPYTHON=...] -P installed_package.cmake
file(REMOVE_RECURSE ${WORK_DIR})
function(step what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (${rc}):\n${out}\n${err}")
  endif()
  message(STATUS "${what}: ok")
  set(last_output "${out}" PARENT_SCOPE)
endfunction()
step("install lagc" ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${WORK_DIR}/prefix)
if(NOT EXISTS ${WORK_DIR}/prefix/bin/lagc)
  message(FATAL_ERROR "lagc was not installed")
endif()
step("configure the example" ${CMAKE_COMMAND} -S ${SOURCE_DIR}/examples/embedded_controller -B ${WORK_DIR}/build
     -DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix -DCMAKE_BUILD_TYPE=Release)
step("build the example" ${CMAKE_COMMAND} --build ${WORK_DIR}/build)
step("run the controller" ${WORK_DIR}/build/controller)
message(STATUS "${last_output}")
if(PYTHON)
  set(site ${WORK_DIR}/prefix/lib/python3/dist-packages)
  execute_process(COMMAND ${CMAKE_COMMAND} -E env --unset=LAGC_EXECUTABLE PYTHONPATH=${site}
                          LAGC_CACHE_DIR=${WORK_DIR}/python_cache PYTHONDONTWRITEBYTECODE=1
                          ${PYTHON} ${SOURCE_DIR}/tests/python/check_installed.py ${site}
                          ${WORK_DIR}/prefix/bin/lagc ${SOURCE_DIR}/models/cart_pendulum.lag
                  WORKING_DIRECTORY ${WORK_DIR} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(rc EQUAL 77)
    message(STATUS "import lagc: ${PYTHON} has no numpy, skipped")
  elseif(NOT rc EQUAL 0)
    message(FATAL_ERROR "import lagc from the installed prefix failed (${rc}):\n${out}\n${err}")
  else()
    message(STATUS "${out}")
  endif()
endif()
