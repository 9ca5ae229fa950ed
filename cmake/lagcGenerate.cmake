# lagc_generate(TARGET tgt MODELS a.lag b.lag [HEADER_ONLY | C] [OUTPUT_DIR dir] [OPTIONS ...])
#
# OPTIONS --translation-units N adds NAME.2.cpp ... NAME.N.cpp to TARGET's sources: a large
# robot's code compiles in N parallel jobs (make -jN, Ninja).
# Generates C++ from each model (C99 with C: NAME.c and NAME.h) and adds it to TARGET
# (sources, and the output directory to its include path). Modelled on protobuf_generate, with three differences that matter
# to builds:
# - one lagc run per model, output directory and option set, whatever the generator and
#   however many targets use it: the command belongs to a custom target of its own that
#   every user of the files depends on;
# - the command's output is a stamp file and the generated files are its byproducts, and
#   lagc rewrites only files whose text changes: a comment-only edit of a model runs lagc
#   but recompiles nothing;
# - the options are checked when CMake configures, not when the build fails.
#
# - outputs are keyed by model and options: without OUTPUT_DIR, a model generated with
#   OPTIONS (or HEADER_ONLY) goes to a directory of its own under lagc_generated/, and two
#   models or option sets that would write the same file are a configure error naming both;
# - a generated file deleted after a build is made again, with every generator (a check
#   before each build removes the stamp when an output is missing).
# Any file name lagc takes works (spaces, '$', quotes, a leading '-', non-ASCII): the model's
# path comes after `--`, and the generating target's name is made a C identifier; a name
# with '#' (which CMake cannot generate) or ';' (which a CMake list splits) is a configure
# error naming the file.
#
# The lagc executable, first found: the variable LAGC_EXECUTABLE (a path, e.g. given with
# -DLAGC_EXECUTABLE=...), the imported target lagc::lagc (find_package(lagc)), the target
# lagc (lagc built in the same tree: add_subdirectory or FetchContent), a lagc on the PATH.

# Run as a script (cmake -DLAGC_CHECK_STAMP=... -DLAGC_CHECK_OUTPUTS=... -P lagcGenerate.cmake):
# removes the stamp when one of the outputs is missing, so that the build makes them again.
if(CMAKE_SCRIPT_MODE_FILE AND DEFINED LAGC_CHECK_STAMP)
  foreach(output IN LISTS LAGC_CHECK_OUTPUTS)
    if(NOT EXISTS "${output}")
      file(REMOVE "${LAGC_CHECK_STAMP}")
      break()
    endif()
  endforeach()
  return()
endif()
include_guard(GLOBAL)

# The options lagc takes, and whether each takes a value (checked at configure time).
set(_lagc_flag_options --template --fold-parameters --stats --c-api --no-shared-parts --progress -w -Werror)
set(_lagc_value_options --scalar --namespace --split --reuse-above --max-terms --max-coordinates --max-operations
    --max-derivation --max-diagnostics --regressor-parameters --inertial-parameters --regressor --functions
    --translation-units)

function(_lagc_check_options header_only options)
  set(expect_value "")
  foreach(option IN LISTS options)
    if(expect_value)
      if(expect_value STREQUAL "--scalar" AND NOT option MATCHES "^(float|double)$")
        message(FATAL_ERROR "lagc_generate: --scalar takes float or double, not '${option}'")
      endif()
      if(expect_value STREQUAL "--inertial-parameters" AND NOT option MATCHES "^(com|linear)$")
        message(FATAL_ERROR "lagc_generate: --inertial-parameters takes com or linear, not '${option}'")
      endif()
      if(expect_value STREQUAL "--translation-units" AND NOT option MATCHES "^[1-9][0-9]?$")
        message(FATAL_ERROR "lagc_generate: --translation-units takes a number from 1 to 64, not '${option}'")
      endif()
      if(expect_value STREQUAL "--regressor" AND NOT option MATCHES "^(base|full)$")
        message(FATAL_ERROR "lagc_generate: --regressor takes base or full, not '${option}'")
      endif()
      set(expect_value "")
    elseif(option IN_LIST _lagc_value_options)
      set(expect_value ${option})
    elseif(NOT option IN_LIST _lagc_flag_options AND NOT option MATCHES "^-W[a-z-]+$")
      message(FATAL_ERROR "lagc_generate: unknown lagc option '${option}' in OPTIONS "
                          "(lagc takes ${_lagc_flag_options}, -WNAME, -Wno-NAME and ${_lagc_value_options} VALUE)")
    endif()
  endforeach()
  if(expect_value)
    message(FATAL_ERROR "lagc_generate: ${expect_value} in OPTIONS needs a value")
  endif()
  if("--template" IN_LIST options AND NOT header_only)
    message(FATAL_ERROR "lagc_generate: OPTIONS --template writes one header: add HEADER_ONLY")
  endif()
  if("--translation-units" IN_LIST options AND header_only)
    message(FATAL_ERROR "lagc_generate: OPTIONS --translation-units cuts a .cpp into files: remove HEADER_ONLY")
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
  # PARSE_ARGV keeps an escaped ';' in a model's path (a\;b.lag) inside its element.
  cmake_parse_arguments(PARSE_ARGV 0 arg "HEADER_ONLY;C" "TARGET;OUTPUT_DIR" "MODELS;OPTIONS")
  if(arg_C AND "--translation-units" IN_LIST arg_OPTIONS)
    message(FATAL_ERROR "lagc_generate: OPTIONS --translation-units cuts a C++ source into files: remove C")
  endif()
  if(arg_C AND arg_HEADER_ONLY)
    message(FATAL_ERROR "lagc_generate: C writes NAME.c and NAME.h: remove HEADER_ONLY")
  endif()
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
  # The option set's key: outputs of one model under two option sets never share a file.
  string(SHA1 options_key "${arg_HEADER_ONLY}|${arg_C}|${arg_OPTIONS}")
  string(SUBSTRING ${options_key} 0 10 options_key)
  if(NOT arg_OUTPUT_DIR)
    set(arg_OUTPUT_DIR ${CMAKE_CURRENT_BINARY_DIR}/lagc_generated)
    if(arg_HEADER_ONLY OR arg_C OR arg_OPTIONS)
      set(arg_OUTPUT_DIR ${arg_OUTPUT_DIR}/${options_key})
    endif()
  endif()
  get_filename_component(arg_OUTPUT_DIR ${arg_OUTPUT_DIR} ABSOLUTE BASE_DIR ${CMAKE_CURRENT_BINARY_DIR})
  file(MAKE_DIRECTORY ${arg_OUTPUT_DIR})

  foreach(model IN LISTS arg_MODELS)
    if(model MATCHES ";")
      message(FATAL_ERROR "lagc_generate: CMake lists cannot hold a file name with ';' (${model}): rename the model, "
                          "or run lagc on it outside lagc_generate")
    endif()
    get_filename_component(abs ${model} ABSOLUTE BASE_DIR ${CMAKE_CURRENT_SOURCE_DIR})
    if(NOT EXISTS ${abs})
      message(FATAL_ERROR "lagc_generate: no model '${abs}'")
    endif()
    # Up to the last dot: arm.v1.lag and arm.v2.lag are two models.
    get_filename_component(name ${model} NAME_WLE)
    if(name MATCHES "#")
      message(FATAL_ERROR "lagc_generate: CMake cannot generate files whose names hold '#' (${abs}): rename the "
                          "model, or run lagc on it outside lagc_generate")
    endif()
    file(RELATIVE_PATH rel ${CMAKE_CURRENT_SOURCE_DIR} ${abs})
    if(arg_C)
      set(outputs ${arg_OUTPUT_DIR}/${name}.c ${arg_OUTPUT_DIR}/${name}.h)
      set(primary ${arg_OUTPUT_DIR}/${name}.c)
    elseif(arg_HEADER_ONLY)
      set(outputs ${arg_OUTPUT_DIR}/${name}.hpp)
      set(primary ${arg_OUTPUT_DIR}/${name}.hpp)
    else()
      set(outputs ${arg_OUTPUT_DIR}/${name}.cpp ${arg_OUTPUT_DIR}/${name}.hpp)
      set(primary ${arg_OUTPUT_DIR}/${name}.cpp)
      # --translation-units N: NAME.2.cpp ... NAME.N.cpp besides, compiled in parallel.
      list(FIND arg_OPTIONS --translation-units at)
      if(at GREATER -1)
        math(EXPR at "${at} + 1")
        list(GET arg_OPTIONS ${at} units)
        if(units GREATER 1)
          foreach(k RANGE 2 ${units})
            list(APPEND outputs ${arg_OUTPUT_DIR}/${name}.${k}.cpp)
          endforeach()
        endif()
      endif()
      if("--c-api" IN_LIST arg_OPTIONS)
        list(APPEND outputs ${arg_OUTPUT_DIR}/${name}.h)
      endif()
    endif()
    # One generating target per model, output directory and option set.
    string(SHA1 key "${abs}|${arg_OUTPUT_DIR}|${arg_HEADER_ONLY}|${arg_C}|${arg_OPTIONS}")
    string(SUBSTRING ${key} 0 10 key)
    foreach(output IN LISTS outputs)
      string(SHA1 slot "${output}")
      get_property(owner GLOBAL PROPERTY _lagc_output_${slot})
      if(owner AND NOT owner STREQUAL key)
        get_property(owner_text GLOBAL PROPERTY _lagc_output_${slot}_text)
        message(FATAL_ERROR "lagc_generate: ${output} would be written from ${abs} (target ${arg_TARGET}, "
                            "options '${arg_OPTIONS}') and from ${owner_text}: give one of them another OUTPUT_DIR "
                            "(or rename one model)")
      endif()
      set_property(GLOBAL PROPERTY _lagc_output_${slot} ${key})
      set_property(GLOBAL PROPERTY _lagc_output_${slot}_text "${abs} (target ${arg_TARGET}, options '${arg_OPTIONS}')")
    endforeach()
    string(MAKE_C_IDENTIFIER "${name}" identifier)
    set(generator lagc_${identifier}_${key})
    if(NOT TARGET ${generator})
      set(stamp ${arg_OUTPUT_DIR}/.${identifier}.${key}.stamp)
      add_custom_command(
        OUTPUT ${stamp}
        BYPRODUCTS ${outputs}
        COMMAND ${lagc_exe} -o ${primary} ${arg_OPTIONS} -- ${rel}
        COMMAND ${CMAKE_COMMAND} -E touch ${stamp}
        DEPENDS ${abs} ${lagc_exe}
        WORKING_DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR}
        COMMENT "lagc ${rel}"
        VERBATIM)
      add_custom_target(${generator} DEPENDS ${stamp})
      # Before each build: an output deleted since the last one removes the stamp (Unix
      # Makefiles do not look at byproducts; Ninja does, and this costs it nothing more).
      add_custom_target(${generator}_outputs
        COMMAND ${CMAKE_COMMAND} -DLAGC_CHECK_STAMP=${stamp} "-DLAGC_CHECK_OUTPUTS=${outputs}"
                -P ${CMAKE_CURRENT_FUNCTION_LIST_FILE}
        VERBATIM)
      add_dependencies(${generator} ${generator}_outputs)
    endif()
    set_source_files_properties(${outputs} TARGET_DIRECTORY ${arg_TARGET} PROPERTIES GENERATED TRUE)
    target_sources(${arg_TARGET} PRIVATE ${outputs})
    add_dependencies(${arg_TARGET} ${generator})
  endforeach()
  target_include_directories(${arg_TARGET} PUBLIC ${arg_OUTPUT_DIR})
endfunction()
