# lagc_generate(TARGET tgt MODELS a.lag b.lag [HEADER_ONLY] [OUTPUT_DIR dir] [OPTIONS ...])
#
# One custom command per model, depending on the model and on the lagc executable (so a
# rebuilt compiler regenerates), its outputs added to TARGET's sources and the output
# directory to its include path. Modelled on protobuf_generate.
function(lagc_generate)
  cmake_parse_arguments(arg "HEADER_ONLY" "TARGET;OUTPUT_DIR" "MODELS;OPTIONS" ${ARGN})
  if(NOT arg_TARGET)
    message(SEND_ERROR "lagc_generate: TARGET is required")
    return()
  endif()
  if(NOT TARGET ${arg_TARGET})
    message(SEND_ERROR "lagc_generate: '${arg_TARGET}' is not a target")
    return()
  endif()
  if(NOT arg_MODELS)
    message(SEND_ERROR "lagc_generate: MODELS is required (one or more .lag files)")
    return()
  endif()
  if(arg_UNPARSED_ARGUMENTS)
    message(SEND_ERROR "lagc_generate: unknown arguments: ${arg_UNPARSED_ARGUMENTS}")
    return()
  endif()
  if(TARGET lagc::lagc)
    set(lagc_exe lagc::lagc)
  elseif(TARGET lagc)
    set(lagc_exe lagc)
  else()
    message(SEND_ERROR "lagc_generate: no lagc executable (find_package(lagc) first)")
    return()
  endif()
  if(NOT arg_OUTPUT_DIR)
    set(arg_OUTPUT_DIR ${CMAKE_CURRENT_BINARY_DIR}/lagc_generated)
  endif()
  file(MAKE_DIRECTORY ${arg_OUTPUT_DIR})

  foreach(model IN LISTS arg_MODELS)
    get_filename_component(abs ${model} ABSOLUTE BASE_DIR ${CMAKE_CURRENT_SOURCE_DIR})
    get_filename_component(name ${model} NAME_WE)
    file(RELATIVE_PATH rel ${CMAKE_CURRENT_SOURCE_DIR} ${abs})
    if(arg_HEADER_ONLY)
      set(outputs ${arg_OUTPUT_DIR}/${name}.hpp)
      set(primary ${arg_OUTPUT_DIR}/${name}.hpp)
    else()
      set(outputs ${arg_OUTPUT_DIR}/${name}.cpp ${arg_OUTPUT_DIR}/${name}.hpp)
      set(primary ${arg_OUTPUT_DIR}/${name}.cpp)
    endif()
    add_custom_command(
      OUTPUT ${outputs}
      COMMAND ${lagc_exe} ${rel} -o ${primary} ${arg_OPTIONS}
      # lagc leaves unchanged files untouched; touching them keeps make from rerunning it.
      COMMAND ${CMAKE_COMMAND} -E touch_nocreate ${outputs}
      DEPENDS ${abs} ${lagc_exe}
      WORKING_DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR}
      COMMENT "lagc ${rel}"
      VERBATIM)
    target_sources(${arg_TARGET} PRIVATE ${outputs})
  endforeach()
  target_include_directories(${arg_TARGET} PUBLIC ${arg_OUTPUT_DIR})
endfunction()
