# Turns the viewer page of `nbody serve` (INPUT, assets/serve/viewer.html) into a C++ source
# (OUTPUT) that returns it whole, so the server reads no file and runs from any folder. Called by
# the build; see CMakeLists.txt and src/serve/viewer_page.h.
file(READ ${INPUT} page)
string(FIND "${page}" ")nbody_page\"" clash)
if(NOT clash EQUAL -1)
  message(FATAL_ERROR "${INPUT} holds )nbody_page\", which ends the string it is embedded in")
endif()
file(WRITE ${OUTPUT}.tmp
"// Generated from assets/serve/viewer.html by tools/embed_viewer_page.cmake. Do not edit.\n"
"#include \"serve/viewer_page.h\"\n\n"
"namespace nbody {\n"
"std::string_view viewerPageTemplate() {\n"
"  return R\"nbody_page(${page})nbody_page\";\n}\n}  // namespace nbody\n")
file(COPY_FILE ${OUTPUT}.tmp ${OUTPUT} ONLY_IF_DIFFERENT)
