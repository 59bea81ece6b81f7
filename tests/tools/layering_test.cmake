# tools/check_layering.cmake on made-up trees: a downward include passes, an upward one (gl/
# including engines/) and an unknown room fail, naming the file. Run by ctest with
#   cmake -DCHECK=tools/check_layering.cmake -DSCRATCH=dir -P layering_test.cmake
function(write_tree root header_line)
  file(REMOVE_RECURSE ${root})
  file(WRITE ${root}/engines/engine.h "#pragma once\n#include \"gl/objects.h\"\n")
  file(WRITE ${root}/gl/objects.h "#pragma once\n${header_line}\n")
endfunction()

function(expect_check root should_pass what)
  execute_process(COMMAND ${CMAKE_COMMAND} -DSOURCE_DIR=${root} -DSTAMP=${root}/stamp -P ${CHECK}
                  RESULT_VARIABLE result ERROR_VARIABLE errors)
  if(should_pass AND NOT result EQUAL 0)
    message(FATAL_ERROR "${what}: refused:\n${errors}")
  elseif(NOT should_pass AND result EQUAL 0)
    message(FATAL_ERROR "${what}: accepted")
  elseif(NOT should_pass AND NOT errors MATCHES "gl/objects.h")
    message(FATAL_ERROR "${what}: the refusal does not name the file:\n${errors}")
  endif()
  message(STATUS "ok: ${what}")
endfunction()

write_tree(${SCRATCH}/down "#include <vector>")
expect_check(${SCRATCH}/down TRUE "engines/ including gl/")
write_tree(${SCRATCH}/up "#include \"engines/engine.h\"")
expect_check(${SCRATCH}/up FALSE "gl/ including engines/")
write_tree(${SCRATCH}/unknown "#include \"gadgets/gadget.h\"")
expect_check(${SCRATCH}/unknown FALSE "gl/ including a room the layering does not know")
