# The Debian package: cpack -G DEB builds it, its dependencies are declared, and (as root)
# apt-get install ./lagc_*.deb installs it, after which a user project finds it with a
# plain find_package(lagc) and builds, and Debian's /usr/bin/python3 imports lagc from
# /usr/lib/python3/dist-packages and calls a model (tests/python/check_installed.py, when
# python3-numpy is there); the package is removed again at the end.
# Usage: cmake -DBUILD_DIR=... -DSOURCE_DIR=... -DWORK_DIR=... -P debian_package.cmake
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})
function(run what out)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE o ERROR_VARIABLE e)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (${rc}):\n${o}\n${e}")
  endif()
  set(${out} "${o}${e}" PARENT_SCOPE)
endfunction()
run("cpack" ignored cpack -G DEB --config ${BUILD_DIR}/CPackConfig.cmake -B ${WORK_DIR})
file(GLOB debs ${WORK_DIR}/lagc_*.deb)
list(LENGTH debs count)
if(NOT count EQUAL 1)
  message(FATAL_ERROR "expected one lagc_*.deb in ${WORK_DIR}, found: ${debs}")
endif()
run("dpkg-deb -I" info dpkg-deb -I ${debs})
if(NOT info MATCHES "Depends:[^\n]*libginac" OR NOT info MATCHES "Depends:[^\n]*libfmt"
   OR NOT info MATCHES "Recommends:[^\n]*python3-numpy")
  message(FATAL_ERROR "the package does not declare its libraries:\n${info}")
endif()
run("dpkg-deb -c" contents dpkg-deb -c ${debs})
foreach(file ./usr/bin/lagc lagcConfig.cmake lagcGenerate.cmake ./usr/lib/python3/dist-packages/lagc/__init__.py
             ./usr/lib/python3/dist-packages/lagc/_shim.py)
  string(FIND "${contents}" "${file}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "the package has no ${file}:\n${contents}")
  endif()
endforeach()
message(STATUS "debian package: built, declares its dependencies, holds lagc and its CMake package")

execute_process(COMMAND id -u OUTPUT_VARIABLE uid OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT uid STREQUAL "0")
  message(STATUS "debian package: not root, so not installed here (CI runs as root)")
  return()
endif()
run("apt-get install ./lagc.deb" ignored env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends ${debs})
file(COPY ${SOURCE_DIR}/tests/cmake_user/ DESTINATION ${WORK_DIR}/user)
set(result 0)
execute_process(COMMAND ${CMAKE_COMMAND} -S ${WORK_DIR}/user -B ${WORK_DIR}/user-build -DLAGC_WAY=package
                RESULT_VARIABLE rc1 OUTPUT_VARIABLE o1 ERROR_VARIABLE e1)
if(rc1 EQUAL 0)
  execute_process(COMMAND ${CMAKE_COMMAND} --build ${WORK_DIR}/user-build RESULT_VARIABLE rc2 OUTPUT_VARIABLE o2 ERROR_VARIABLE e2)
  if(rc2 EQUAL 0)
    execute_process(COMMAND ${WORK_DIR}/user-build/app RESULT_VARIABLE rc3 OUTPUT_VARIABLE o3)
  endif()
endif()
# Debian's python3, from outside the source tree, nothing on PYTHONPATH: the installed package.
execute_process(COMMAND env -u PYTHONPATH -u LAGC_EXECUTABLE LAGC_CACHE_DIR=${WORK_DIR}/python_cache
                        /usr/bin/python3 ${SOURCE_DIR}/tests/python/check_installed.py /usr/lib/python3/dist-packages
                        /usr/bin/lagc ${SOURCE_DIR}/models/cart_pendulum.lag
                WORKING_DIRECTORY ${WORK_DIR} RESULT_VARIABLE rc4 OUTPUT_VARIABLE o4 ERROR_VARIABLE e4)
execute_process(COMMAND env DEBIAN_FRONTEND=noninteractive apt-get remove -y -qq lagc OUTPUT_QUIET ERROR_QUIET)
if(NOT rc1 EQUAL 0 OR NOT rc2 EQUAL 0 OR NOT rc3 EQUAL 0)
  message(FATAL_ERROR "a user project with the installed package failed:\n${o1}\n${e1}\n${o2}\n${e2}\n${o3}")
endif()
if(rc4 EQUAL 77)
  message(STATUS "debian package: /usr/bin/python3 has no numpy, import lagc not tried")
elseif(NOT rc4 EQUAL 0)
  message(FATAL_ERROR "import lagc from the installed package failed (${rc4}):\n${o4}\n${e4}")
else()
  message(STATUS "debian package: ${o4}")
endif()
message(STATUS "debian package: installed with apt-get, a user project found it and ran (${o3}), removed again")
