# Command-line checks of lagc --equations (tests/equations/README.md). Usage:
#   cmake -DLAGC=... -DSOURCE_DIR=... -DWORK_DIR=... -DCHECK=determinism|bad_use|pdflatex -P run_checks.cmake
# pdflatex: prints "SKIP: …" and stops where pdflatex is not installed (the test skips).
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})
set(inputs models/cart_pendulum.lag models/double_pendulum_cartesian.lag models/spinning_top.lag models/chain10_rel.lag
           tests/robots/arm7.urdf tests/robots/ur5.urdf)

function(run_lagc input output)
  execute_process(COMMAND ${LAGC} ${input} --equations -o ${output} WORKING_DIRECTORY ${SOURCE_DIR}
                  RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "lagc ${input} --equations -o ${output} failed (${rc}): ${err}")
  endif()
endfunction()

if(CHECK STREQUAL "determinism")
  # Two processes, each format: the same bytes.
  foreach(input IN LISTS inputs)
    get_filename_component(name ${input} NAME)
    foreach(ext md tex)
      run_lagc(${input} ${WORK_DIR}/a_${name}.${ext})
      run_lagc(${input} ${WORK_DIR}/b_${name}.${ext})
      file(SHA256 ${WORK_DIR}/a_${name}.${ext} a)
      file(SHA256 ${WORK_DIR}/b_${name}.${ext} b)
      if(NOT a STREQUAL b)
        message(FATAL_ERROR "${input}: two runs of --equations wrote different .${ext} files")
      endif()
    endforeach()
  endforeach()
  # A robot file's document shows its tree and bodies; a 7-joint arm's names its shared parts.
  file(READ ${WORK_DIR}/a_arm7.urdf.md arm)
  foreach(want "## Kinematic tree and bodies" "| link7 | link6 | j7 (revolute about (0, 0, 1)) | 1.2 |"
               "## Shared subexpressions" "s_{1} = ")
    string(FIND "${arm}" "${want}" at)
    if(at EQUAL -1)
      message(FATAL_ERROR "arm7.urdf's document lacks '${want}'")
    endif()
  endforeach()
  message(STATUS "equations determinism: ${inputs}, .md and .tex, identical over two processes")
elseif(CHECK STREQUAL "bad_use")
  # An -o name that is neither .md, .tex nor -: a usage error, nothing written.
  foreach(output x.cpp x.txt x.md.bak x)
    execute_process(COMMAND ${LAGC} models/cart_pendulum.lag --equations -o ${WORK_DIR}/${output}
                    WORKING_DIRECTORY ${SOURCE_DIR} RESULT_VARIABLE rc ERROR_VARIABLE err)
    if(rc EQUAL 0 OR NOT err MATCHES "--equations writes NAME.md, NAME.tex or -" OR EXISTS ${WORK_DIR}/${output})
      message(FATAL_ERROR "-o ${output}: status ${rc}, message '${err}'")
    endif()
  endforeach()
  # A model with an error: its file:line:col: error, a non-zero status, no document (not even
  # a half-written one), and a document from an earlier run left as it was.
  file(WRITE ${WORK_DIR}/broken.lag "model broken\ncoordinate x\nkinetic 0.5 * m * der(x)^2\n")
  file(WRITE ${WORK_DIR}/earlier.md "earlier\n")
  foreach(output broken.md broken.tex earlier.md)
    execute_process(COMMAND ${LAGC} ${WORK_DIR}/broken.lag --equations -o ${WORK_DIR}/${output}
                    RESULT_VARIABLE rc ERROR_VARIABLE err)
    if(rc EQUAL 0 OR NOT err MATCHES "broken.lag:3:[0-9]+: error:")
      message(FATAL_ERROR "broken.lag -o ${output}: status ${rc}, message '${err}'")
    endif()
  endforeach()
  file(READ ${WORK_DIR}/earlier.md earlier)
  file(GLOB left ${WORK_DIR}/broken.* ${WORK_DIR}/*.tmp* ${WORK_DIR}/.*)
  if(NOT earlier STREQUAL "earlier\n" OR NOT left STREQUAL "${WORK_DIR}/broken.lag")
    message(FATAL_ERROR "a failed run left files: ${left}; earlier.md: '${earlier}'")
  endif()
  message(STATUS "equations bad use: refused with a message, nothing written")
elseif(CHECK STREQUAL "pdflatex")
  find_program(PDFLATEX pdflatex)
  if(NOT PDFLATEX)
    message(STATUS "SKIP: pdflatex is not installed (Debian: texlive-latex-base texlive-latex-recommended)")
    return() # ctest: SKIP_REGULAR_EXPRESSION
  endif()
  foreach(input models/double_pendulum_cartesian.lag models/bead_on_hoop.lag tests/robots/arm7.urdf)
    get_filename_component(name ${input} NAME_WE)
    run_lagc(${input} ${WORK_DIR}/${name}.tex)
    execute_process(COMMAND ${PDFLATEX} -interaction=nonstopmode -halt-on-error ${name}.tex
                    WORKING_DIRECTORY ${WORK_DIR} RESULT_VARIABLE rc OUTPUT_VARIABLE out)
    if(NOT rc EQUAL 0 OR NOT EXISTS ${WORK_DIR}/${name}.pdf)
      string(REGEX MATCH "![^\n]*\n[^\n]*\n[^\n]*" first "${out}")
      message(FATAL_ERROR "pdflatex ${name}.tex failed (${rc}): ${first}")
    endif()
  endforeach()
  message(STATUS "equations pdflatex: the .tex of three models compiled")
endif()
