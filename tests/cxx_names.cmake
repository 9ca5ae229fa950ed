# Every name that <cmath> (and g++'s built-ins) takes on this machine is refused by lagc where it would break the
# generated code: each identifier of <cmath> (c++17 and gnu++17) is compiled as a namespace
# and as a struct field; those that fail must be listed in src/common/reserved_names.inc (macros
# among cmath_macros, other names in either list), and a model with every failing field
# name as a parameter gets one error per name.
# Usage: cmake -DCXX=... -DLAGC=... -DSOURCE_DIR=... -DWORK_DIR=... -P cxx_names.cmake
cmake_minimum_required(VERSION 3.20)
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})
file(WRITE ${WORK_DIR}/include.cpp "#include <cmath>\n")
set(identifiers)
foreach(std c++17 gnu++17)
  execute_process(COMMAND ${CXX} -std=${std} -E -dD ${WORK_DIR}/include.cpp OUTPUT_VARIABLE text RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "cannot preprocess <cmath> with ${CXX}")
  endif()
  string(REGEX MATCHALL "[A-Za-z][A-Za-z0-9_]*" words "${text}")
  list(APPEND identifiers ${words})
endforeach()
# And the functions g++ knows as built-ins with no header at all (C90's <stdio.h>, <string.h>,
# <ctype.h>, <stdlib.h>): a namespace of such a name does not compile either (model puts).
list(APPEND identifiers abort abs calloc exit fprintf fputc fputs free fscanf isalnum isalpha iscntrl isdigit
     isgraph islower isprint ispunct isspace isupper isxdigit labs malloc memchr memcmp memcpy memmove memset
     printf putchar puts realloc scanf snprintf sprintf sscanf strcat strchr strcmp strcpy strcspn strlen
     strncat strncmp strncpy strpbrk strrchr strspn strstr tolower toupper vfprintf vprintf vsnprintf vsprintf)
list(REMOVE_DUPLICATES identifiers)
list(SORT identifiers)
list(LENGTH identifiers count)

# One probe file per use; line k + 2 holds identifier k.
set(namespaces "#include <cmath>\n")
set(fields "#include <cmath>\n")
set(k 0)
foreach(name IN LISTS identifiers)
  string(APPEND namespaces "namespace ${name} { inline constexpr int probe_ = 0; }\n")
  string(APPEND fields "struct lagc_probe_${k} { double ${name} = 1.0; };\n")
  math(EXPR k "${k} + 1")
endforeach()
file(WRITE ${WORK_DIR}/namespaces.cpp "${namespaces}")
file(WRITE ${WORK_DIR}/fields.cpp "${fields}")

function(failing file out)
  set(lines)
  foreach(std c++17 gnu++17)
    execute_process(COMMAND ${CXX} -std=${std} -fsyntax-only -fmax-errors=0 ${WORK_DIR}/${file}
                    ERROR_VARIABLE errors OUTPUT_QUIET RESULT_VARIABLE rc)
    string(REGEX MATCHALL "${file}:[0-9]+" hits "${errors}")
    foreach(h IN LISTS hits)
      string(REGEX REPLACE ".*:" "" n "${h}")
      math(EXPR index "${n} - 2")
      if(index GREATER_EQUAL 0)
        list(GET identifiers ${index} name)
        list(APPEND lines ${name})
      endif()
    endforeach()
  endforeach()
  list(REMOVE_DUPLICATES lines)
  set(${out} ${lines} PARENT_SCOPE)
endfunction()
failing(namespaces.cpp bad_namespaces)
failing(fields.cpp bad_fields)

set(keywords alignas alignof and and_eq asm auto bitand bitor bool break case catch char char8_t char16_t
    char32_t class compl concept const consteval constexpr constinit const_cast continue co_await co_return
    co_yield decltype default delete do double dynamic_cast else enum explicit export extern false float for
    friend goto if inline int long mutable namespace new noexcept not not_eq nullptr operator or or_eq private
    protected public register reinterpret_cast requires return short signed sizeof static static_assert
    static_cast struct switch template this thread_local throw true try typedef typeid typename union unsigned
    using virtual void volatile wchar_t while xor xor_eq typeof)
file(READ ${SOURCE_DIR}/src/common/reserved_names.inc inc)
string(FIND "${inc}" "cmath_globals" split)
string(SUBSTRING "${inc}" 0 ${split} macro_part)
string(REGEX MATCHALL "\"[A-Za-z0-9_]+\"" listed "${inc}")
string(REGEX MATCHALL "\"[A-Za-z0-9_]+\"" listed_macros "${macro_part}")
string(REPLACE "\"" "" listed "${listed}")
string(REPLACE "\"" "" listed_macros "${listed_macros}")

set(missing)
foreach(name IN LISTS bad_namespaces)
  if(NOT name IN_LIST listed AND NOT name IN_LIST keywords)
    list(APPEND missing "${name} (namespace)")
  endif()
endforeach()
set(field_names)
foreach(name IN LISTS bad_fields)
  if(name IN_LIST keywords)
    continue()
  endif()
  list(APPEND field_names ${name})
  if(NOT name IN_LIST listed_macros)
    list(APPEND missing "${name} (field)")
  endif()
endforeach()
if(missing)
  message(FATAL_ERROR "names that break generated C++ on this machine but that lagc accepts; add them to "
                      "src/common/reserved_names.inc: ${missing}")
endif()

# End to end: every failing field name as a parameter is one error.
string(REPLACE ";" ", " parameter_list "${field_names}")
file(WRITE ${WORK_DIR}/fields.lag "model m\nparameter ${parameter_list}\ncoordinate x\nkinetic 0.5*der(x)^2\n")
execute_process(COMMAND ${LAGC} ${WORK_DIR}/fields.lag -o ${WORK_DIR}/fields.hpp --max-diagnostics 0 RESULT_VARIABLE rc
                ERROR_VARIABLE err)
string(REGEX MATCHALL "error: '[A-Za-z0-9_]+' is a macro that <cmath> defines" errors "${err}")
list(LENGTH errors error_count)
list(LENGTH field_names field_count)
if(NOT rc EQUAL 1 OR NOT error_count EQUAL field_count)
  message(FATAL_ERROR "expected ${field_count} macro errors, got ${error_count} (exit ${rc})")
endif()
list(LENGTH bad_namespaces ns_count)
message(STATUS "cxx_names: ${count} identifiers of <cmath> probed; ${ns_count} break a namespace, ${field_count} a field; all refused")
