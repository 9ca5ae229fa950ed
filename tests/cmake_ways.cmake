# lagc in a user's build, three ways, with the Unix Makefiles generator:
#  - "executable": include(lagcGenerate.cmake) and -DLAGC_EXECUTABLE=path (what the tutorial's
#    include line needs);
#  - "subproject": add_subdirectory(lagc source) (FetchContent does the same);
#  - "package": find_package(lagc) from an installed prefix (installed_package.cmake).
# Each builds tests/cmake_user and runs its program. On the first: lagc runs once for a model
# two targets share; a comment-only edit of the model reruns lagc but rebuilds no object; and
# OPTIONS --template without HEADER_ONLY (or an unknown option) fails at configure time.
# Usage: cmake -DLAGC=... -DBUILD_DIR=... -DSOURCE_DIR=... -DWORK_DIR=... [-DWAYS=...] -P cmake_ways.cmake
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})
if(NOT WAYS)
  set(WAYS executable subproject package)
endif()
function(run what out)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE o ERROR_VARIABLE e)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (${rc}):\n${o}\n${e}")
  endif()
  set(${out} "${o}${e}" PARENT_SCOPE)
endfunction()
function(count_matches text pattern out)
  string(REGEX MATCHALL "${pattern}" hits "${text}")
  list(LENGTH hits n)
  set(${out} ${n} PARENT_SCOPE)
endfunction()

foreach(way IN LISTS WAYS)
  set(project ${WORK_DIR}/${way}/src)
  set(build ${WORK_DIR}/${way}/build)
  file(COPY ${SOURCE_DIR}/tests/cmake_user/ DESTINATION ${project})
  set(extra)
  if(way STREQUAL "package")
    run("install lagc" ignored ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${WORK_DIR}/prefix)
    list(APPEND extra -DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix)
  endif()
  run("${way}: configure" ignored ${CMAKE_COMMAND} -S ${project} -B ${build} -G "Unix Makefiles"
      -DCMAKE_BUILD_TYPE=Release -DLAGC_WAY=${way} -DLAGC_SOURCE_DIR=${SOURCE_DIR} -DLAGC_EXECUTABLE=${LAGC} ${extra})
  run("${way}: build" output ${CMAKE_COMMAND} --build ${build} -j 2)
  run("${way}: run" printed ${build}/app)
  if(NOT printed MATCHES "qdd = -")
    message(FATAL_ERROR "${way}: the program printed '${printed}'")
  endif()
  count_matches("${output}" "lagc model\\.lag" runs)
  if(NOT runs EQUAL 1)
    message(FATAL_ERROR "${way}: lagc ran ${runs} times for one model shared by two targets:\n${output}")
  endif()
  message(STATUS "${way}: builds and runs; lagc ran once for the shared model")
  if(way STREQUAL "executable")
    # A comment-only edit: lagc runs again, writes nothing new, nothing is recompiled.
    file(APPEND ${project}/model.lag "# a comment\n")
    run("${way}: rebuild" output ${CMAKE_COMMAND} --build ${build} -j 2)
    count_matches("${output}" "lagc model\\.lag" runs)
    count_matches("${output}" "Building CXX object" compiled)
    if(NOT runs EQUAL 1 OR NOT compiled EQUAL 0)
      message(FATAL_ERROR "comment-only edit: lagc ran ${runs} times, ${compiled} objects rebuilt:\n${output}")
    endif()
    message(STATUS "${way}: a comment-only edit reruns lagc and rebuilds no object")
    # A real edit rebuilds.
    file(READ ${project}/model.lag text)
    string(REPLACE "l = 0.5" "l = 0.6" text "${text}")
    file(WRITE ${project}/model.lag "${text}")
    run("${way}: rebuild after a change" output ${CMAKE_COMMAND} --build ${build} -j 2)
    count_matches("${output}" "Building CXX object" compiled)
    if(compiled EQUAL 0)
      message(FATAL_ERROR "a changed model rebuilt nothing:\n${output}")
    endif()
    # Option mistakes at configure time.
    foreach(bad "--template" "--frobnicate" "--scalar;quad")
      execute_process(COMMAND ${CMAKE_COMMAND} -S ${project} -B ${WORK_DIR}/bad -G "Unix Makefiles"
                              -DLAGC_WAY=executable -DLAGC_SOURCE_DIR=${SOURCE_DIR} -DLAGC_EXECUTABLE=${LAGC}
                              "-DLAGC_EXTRA=OPTIONS;${bad}"
                      RESULT_VARIABLE rc OUTPUT_VARIABLE o ERROR_VARIABLE e)
      if(rc EQUAL 0 OR NOT e MATCHES "lagc_generate: ")
        message(FATAL_ERROR "OPTIONS ${bad} was not refused at configure time (${rc}):\n${e}")
      endif()
      file(REMOVE_RECURSE ${WORK_DIR}/bad)
    endforeach()
    message(STATUS "${way}: OPTIONS mistakes are configure errors")
  endif()
endforeach()
message(STATUS "cmake_ways: all passed")
