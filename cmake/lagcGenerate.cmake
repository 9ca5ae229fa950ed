# lagc_generate(TARGET tgt MODELS a.lag b.lag [HEADER_ONLY] [OUTPUT_DIR dir] [OPTIONS ...])
#
# Generates C++ from each model and adds it to TARGET (sources, and the output directory
# to its include path). Modelled on protobuf_generate, with three differences that matter
# to builds:
# - one lagc run per model, output directory and option set, whatever the generator and
#   however many targets use it: the command belongs to a custom target of its own that
#   every user of the files depends on;
# - the command's output is a stamp file and the generated files are its byproducts, and
#   lagc rewrites only files whose text changes: a comment-only edit of a model runs lagc
#   but recompiles nothing;
# - the options are checked when CMake configures, not when the build fails.
#
# The lagc executable, first found: the variable LAGC_EXECUTABLE (a path, e.g. given with
# -DLAGC_EXECUTABLE=...), the imported target lagc::lagc (find_package(lagc)), the target
# lagc (lagc built in the same tree: add_subdirectory or FetchContent), a lagc on the PATH.
include_guard(GLOBAL)

# The options lagc takes, and whether each takes a value (checked at configure time).
set(_lagc_flag_options --template --fold-parameters --stats --c-api --no-shared-parts)
set(_lagc_value_options --scalar --namespace --split --reuse-above --max-terms --max-coordinates --max-operations)

function(_lagc_check_options header_only options)
  set(expect_value "")
  foreach(option IN LISTS options)
    if(expect_value)
      if(expect_value STREQUAL "--scalar" AND NOT option MATCHES "^(float|double)$")
        message(FATAL_ERROR "lagc_generate: --scalar takes float or double, not '${option}'")
      endif()
      set(expect_value "")
    elseif(option IN_LIST _lagc_value_options)
      set(expect_value ${option})
    elseif(NOT option IN_LIST _lagc_flag_options)
      message(FATAL_ERROR "lagc_generate: unknown lagc option '${option}' in OPTIONS "
                          "(lagc takes ${_lagc_flag_options} and ${_lagc_value_options} VALUE)")
    endif()
  endforeach()
  if(expect_value)
    message(FATAL_ERROR "lagc_generate: ${expect_value} in OPTIONS needs a value")
  endif()
  if("--template" IN_LIST options AND NOT header_only)
    message(FATAL_ERROR "lagc_generate: OPTIONS --template writes one header: add HEADER_ONLY")
  endif()
  if("--c-api" IN_LIST options AND header_only)
    message(FATAL_ERROR "lagc_generate: OPTIONS --c-api writes a .cpp with C wrappers: remove HEADER_ONLY")
  endif()
endfunction()

function(_lagc_executable out)
  if(LAGC_EXECUTABLE)
    set(${out} ${LAGC_EXECUTABLE} PARENT_SCOPE)
  elseif(TARGET lagc::lagc)
    set(${out} lagc::lagc PARENT_SCOPE)
  elseif(TARGET lagc)
    set(${out} lagc PARENT_SCOPE)
  else()
    find_program(LAGC_EXECUTABLE lagc)
    if(NOT LAGC_EXECUTABLE)
      message(FATAL_ERROR "lagc_generate: no lagc executable: use find_package(lagc), add lagc to this build "
                          "(add_subdirectory or FetchContent), or set LAGC_EXECUTABLE to its path")
    endif()
    set(${out} ${LAGC_EXECUTABLE} PARENT_SCOPE)
  endif()
endfunction()

function(lagc_generate)
  cmake_parse_arguments(arg "HEADER_ONLY" "TARGET;OUTPUT_DIR" "MODELS;OPTIONS" ${ARGN})
  if(NOT arg_TARGET)
    message(FATAL_ERROR "lagc_generate: TARGET is required")
  endif()
  if(NOT TARGET ${arg_TARGET})
    message(FATAL_ERROR "lagc_generate: '${arg_TARGET}' is not a target")
  endif()
  if(NOT arg_MODELS)
    message(FATAL_ERROR "lagc_generate: MODELS is required (one or more .lag files)")
  endif()
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "lagc_generate: unknown arguments: ${arg_UNPARSED_ARGUMENTS}")
  endif()
  _lagc_check_options("${arg_HEADER_ONLY}" "${arg_OPTIONS}")
  _lagc_executable(lagc_exe)
  if(NOT arg_OUTPUT_DIR)
    set(arg_OUTPUT_DIR ${CMAKE_CURRENT_BINARY_DIR}/lagc_generated)
  endif()
  get_filename_component(arg_OUTPUT_DIR ${arg_OUTPUT_DIR} ABSOLUTE BASE_DIR ${CMAKE_CURRENT_BINARY_DIR})
  file(MAKE_DIRECTORY ${arg_OUTPUT_DIR})

  foreach(model IN LISTS arg_MODELS)
    get_filename_component(abs ${model} ABSOLUTE BASE_DIR ${CMAKE_CURRENT_SOURCE_DIR})
    if(NOT EXISTS ${abs})
      message(FATAL_ERROR "lagc_generate: no model '${abs}'")
    endif()
    get_filename_component(name ${model} NAME_WE)
    file(RELATIVE_PATH rel ${CMAKE_CURRENT_SOURCE_DIR} ${abs})
    if(arg_HEADER_ONLY)
      set(outputs ${arg_OUTPUT_DIR}/${name}.hpp)
      set(primary ${arg_OUTPUT_DIR}/${name}.hpp)
    else()
      set(outputs ${arg_OUTPUT_DIR}/${name}.cpp ${arg_OUTPUT_DIR}/${name}.hpp)
      set(primary ${arg_OUTPUT_DIR}/${name}.cpp)
      if("--c-api" IN_LIST arg_OPTIONS)
        list(APPEND outputs ${arg_OUTPUT_DIR}/${name}.h)
      endif()
    endif()
    # One generating target per model, output directory and option set.
    string(SHA1 key "${abs}|${arg_OUTPUT_DIR}|${arg_HEADER_ONLY}|${arg_OPTIONS}")
    string(SUBSTRING ${key} 0 10 key)
    set(generator lagc_${name}_${key})
    if(NOT TARGET ${generator})
      set(stamp ${arg_OUTPUT_DIR}/.${name}.${key}.stamp)
      add_custom_command(
        OUTPUT ${stamp}
        BYPRODUCTS ${outputs}
        COMMAND ${lagc_exe} ${rel} -o ${primary} ${arg_OPTIONS}
        COMMAND ${CMAKE_COMMAND} -E touch ${stamp}
        DEPENDS ${abs} ${lagc_exe}
        WORKING_DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR}
        COMMENT "lagc ${rel}"
        VERBATIM)
      add_custom_target(${generator} DEPENDS ${stamp})
    endif()
    set_source_files_properties(${outputs} TARGET_DIRECTORY ${arg_TARGET} PROPERTIES GENERATED TRUE)
    target_sources(${arg_TARGET} PRIVATE ${outputs})
    add_dependencies(${arg_TARGET} ${generator})
  endforeach()
  target_include_directories(${arg_TARGET} PUBLIC ${arg_OUTPUT_DIR})
endfunction()
