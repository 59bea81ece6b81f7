# Turns every file under SHADER_DIR into a string in OUTPUT (a C++ source), so the binary carries
# its GLSL and runs from any working folder. Called by the build; see CMakeLists.txt.
file(GLOB shader_files RELATIVE ${SHADER_DIR} ${SHADER_DIR}/*)
list(SORT shader_files)
set(entries "")
foreach(name IN LISTS shader_files)
  file(READ ${SHADER_DIR}/${name} text)
  string(APPEND entries "    {\"${name}\", R\"nbody_glsl(${text})nbody_glsl\"},\n")
endforeach()
file(WRITE ${OUTPUT}.tmp
"// Generated from shaders/ by tools/embed_shaders.cmake. Do not edit.\n"
"#include <map>\n#include <string_view>\n\n"
"namespace nbody::gl {\n"
"const std::map<std::string_view, std::string_view>& embeddedShaderSources() {\n"
"  static const std::map<std::string_view, std::string_view> sources{\n${entries}  };\n"
"  return sources;\n}\n}  // namespace nbody::gl\n")
file(COPY_FILE ${OUTPUT}.tmp ${OUTPUT} ONLY_IF_DIFFERENT)
