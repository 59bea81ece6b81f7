# The web build (tools/web.sh): CMakeLists.txt includes this under Emscripten's toolchain
# (emcmake) in place of the desktop build. It makes nbody.html, nbody.js and nbody.wasm in the
# build folder: the fragment engine, the scenes, the point sprites and the panel on WebGL2 (OpenGL
# ES 3.0, gl/level.h's subset), from the same sources as the desktop's, less what needs compute
# shaders, EGL, MPI, HDF5, FFmpeg or a server. The sources go into one static library, so the
# program links only what the web's main reaches.
#   NBODY_IMGUI_SOURCE_DIR, NBODY_ZLIB_SOURCE_DIR: Dear ImGui's and zlib's sources (Debian's source
#   packages; tools/web.sh fetches them), which Debian ships for the desktop only.
set(NBODY_IMGUI_SOURCE_DIR "" CACHE PATH "Dear ImGui's sources (imgui.cpp, backends/)")
set(NBODY_ZLIB_SOURCE_DIR "" CACHE PATH "zlib's sources (crc32.c)")
foreach(needed IN ITEMS IMGUI:imgui.cpp ZLIB:crc32.c)
  string(REPLACE ":" ";" needed ${needed})
  list(GET needed 0 name)
  list(GET needed 1 file)
  if(NOT EXISTS ${NBODY_${name}_SOURCE_DIR}/${file})
    message(FATAL_ERROR "NBODY_${name}_SOURCE_DIR (${NBODY_${name}_SOURCE_DIR}) holds no ${file}: "
                        "tools/web.sh fetches Debian's sources")
  endif()
endforeach()

# Exceptions: the engines and the options report through them. JavaScript's exception handling,
# which every browser with WebGL2 has.
set(NBODY_WEB_FLAGS -fexceptions)
set(NBODY_WEB_LINK_FLAGS -fexceptions -sUSE_GLFW=3 -sMIN_WEBGL_VERSION=2 -sMAX_WEBGL_VERSION=2
    -sALLOW_MEMORY_GROWTH=1 -sFORCE_FILESYSTEM=1 -sEXPORTED_RUNTIME_METHODS=[FS,addRunDependency,removeRunDependency,allocateUTF8] -sENVIRONMENT=web)

# The libraries the desktop takes from Debian's packages: header-only ones from their folders
# (an include folder of links, so that no other /usr/include header is seen), Dear ImGui built.
set(NBODY_WEB_INCLUDE ${CMAKE_BINARY_DIR}/include)
file(MAKE_DIRECTORY ${NBODY_WEB_INCLUDE})
foreach(header IN ITEMS glm nlohmann CLI stb)
  file(CREATE_LINK /usr/include/${header} ${NBODY_WEB_INCLUDE}/${header} SYMBOLIC)
endforeach()
# The code includes <glad/gl.h>; on the web Emscripten's own ES 3.0 header declares the calls.
# Written only where the text changed (file(CONFIGURE)), so a new configure recompiles nothing.
file(CONFIGURE OUTPUT ${NBODY_WEB_INCLUDE}/glad/gl.h CONTENT
     "#pragma once\n// The web build's GL: Emscripten's OpenGL ES 3.0 (tools/web.cmake).\n\
#include <GLES3/gl3.h>\n#define GL_GLEXT_PROTOTYPES 1\n#include <GLES2/gl2ext.h>\n")
# zlib's CRC-32, which the PNG reader checks chunks with.
add_library(zlib_checksums STATIC ${NBODY_ZLIB_SOURCE_DIR}/crc32.c)
target_include_directories(zlib_checksums SYSTEM PUBLIC ${NBODY_ZLIB_SOURCE_DIR})

# stb's image reader and writer (the desktop links Debian's libstb, native only).
set(NBODY_STB_IMPLEMENTATION ${CMAKE_BINARY_DIR}/generated/stb_implementation.c)
file(CONFIGURE OUTPUT ${NBODY_STB_IMPLEMENTATION} CONTENT
     "#define STB_IMAGE_IMPLEMENTATION\n#define STB_IMAGE_WRITE_IMPLEMENTATION\n\
#include <stb_image.h>\n#include <stb_image_write.h>\n")
add_library(imgui STATIC ${NBODY_STB_IMPLEMENTATION} ${NBODY_IMGUI_SOURCE_DIR}/imgui.cpp ${NBODY_IMGUI_SOURCE_DIR}/imgui_draw.cpp
            ${NBODY_IMGUI_SOURCE_DIR}/imgui_tables.cpp ${NBODY_IMGUI_SOURCE_DIR}/imgui_widgets.cpp
            ${NBODY_IMGUI_SOURCE_DIR}/misc/cpp/imgui_stdlib.cpp
            ${NBODY_IMGUI_SOURCE_DIR}/backends/imgui_impl_glfw.cpp
            ${NBODY_IMGUI_SOURCE_DIR}/backends/imgui_impl_opengl3.cpp)
target_include_directories(imgui SYSTEM PUBLIC ${NBODY_WEB_INCLUDE}/stb ${NBODY_IMGUI_SOURCE_DIR} ${NBODY_IMGUI_SOURCE_DIR}/backends
                           ${NBODY_IMGUI_SOURCE_DIR}/misc/cpp)
target_compile_definitions(imgui PUBLIC IMGUI_IMPL_OPENGL_ES3 IMGUI_DISABLE_FILE_FUNCTIONS)
target_compile_options(imgui PRIVATE ${NBODY_WEB_FLAGS})

# The rooms' sources, less what the web cannot have: the compute and tree engines (what else needs
# compute shaders compiles through gl/desktop_calls.h and is never reached), EGL, MPI (the web runs
# one process: parallel/ranks_alone.cpp), HDF5, FFmpeg, a server, and the desktop's commands.
set(NBODY_WEB_ROOMS physics parallel io gl engines engines/tree diagnostics render app/run app/live app/window
    app/web)
set(NBODY_WEB_LEFT_OUT parallel/ranks.cpp io/gadget_hdf5.cpp io/video_writer.cpp gl/egl_context.cpp
    engines/compute_engine.cpp engines/compute_passes.cpp
    engines/tree_engine.cpp app/run/collision_watch.cpp
    app/run/engine_session.cpp app/window/served_front_end.cpp app/window/served_input.cpp
    app/web/web_main.cpp)
set(NBODY_WEB_SOURCES ${NBODY_EMBEDDED_SHADERS})
foreach(room IN LISTS NBODY_WEB_ROOMS)
  file(GLOB sources CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/src/${room}/*.cpp)
  list(APPEND NBODY_WEB_SOURCES ${sources})
endforeach()
foreach(left IN LISTS NBODY_WEB_LEFT_OUT)
  list(REMOVE_ITEM NBODY_WEB_SOURCES ${CMAKE_SOURCE_DIR}/src/${left})
endforeach()
list(APPEND NBODY_WEB_SOURCES ${CMAKE_SOURCE_DIR}/src/parallel/ranks_alone.cpp
     ${CMAKE_SOURCE_DIR}/src/io/gadget_hdf5_absent.cpp ${CMAKE_SOURCE_DIR}/src/io/video_writer_absent.cpp)
list(REMOVE_DUPLICATES NBODY_WEB_SOURCES)

add_library(nbody_web_rooms STATIC ${NBODY_WEB_SOURCES})
target_include_directories(nbody_web_rooms PUBLIC ${CMAKE_SOURCE_DIR}/src ${CMAKE_SOURCE_DIR}/shaders)
target_include_directories(nbody_web_rooms SYSTEM PUBLIC ${NBODY_WEB_INCLUDE})
target_compile_options(nbody_web_rooms PUBLIC ${NBODY_WEB_FLAGS})
target_link_libraries(nbody_web_rooms PUBLIC imgui zlib_checksums)
nbody_warnings(nbody_web_rooms)

add_executable(nbody_page ${CMAKE_SOURCE_DIR}/src/app/web/web_main.cpp)
# MinSizeRel (tools/web.sh): the page weighs 1.7 MB, not 2.1. nbody.js (Debian's emcc fails to minify a page it makes): the page is ours, copied beside it.
set_target_properties(nbody_page PROPERTIES OUTPUT_NAME nbody SUFFIX .js)
configure_file(${CMAKE_SOURCE_DIR}/assets/web/nbody.html ${CMAKE_BINARY_DIR}/nbody.html COPYONLY)
target_link_libraries(nbody_page PRIVATE nbody_web_rooms)
target_link_options(nbody_page PRIVATE ${NBODY_WEB_LINK_FLAGS})
nbody_warnings(nbody_page)
