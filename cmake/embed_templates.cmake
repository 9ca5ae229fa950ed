# Writes a C++ source holding every template file as a raw string literal, so the
# installed lagc is one self-contained executable, each named by its path under BASE
# (templates/): "control.tpl", "c/control.tpl". Run as: cmake -DOUTPUT=... -DBASE=... -DINPUTS=a;b -P
set(content "// Generated from templates/ by cmake/embed_templates.cmake. DO NOT EDIT.\n")
string(APPEND content "#include \"emit/templates.hpp\"\n\nnamespace lagc {\n\n")
string(APPEND content "std::vector<template_file> const& template_files() {\n")
string(APPEND content "    static std::vector<template_file> const files = {\n")
foreach(input IN LISTS INPUTS)
  file(RELATIVE_PATH name "${BASE}" "${input}")
  file(READ "${input}" text)
  string(APPEND content "        {\"${name}\", R\"lagc_tpl(${text})lagc_tpl\"},\n")
endforeach()
string(APPEND content "    };\n    return files;\n}\n\n} // namespace lagc\n")
# Rewrite only on change, so builds do not churn.
if(EXISTS "${OUTPUT}")
  file(READ "${OUTPUT}" old)
  if(old STREQUAL content)
    return()
  endif()
endif()
file(WRITE "${OUTPUT}" "${content}")
