# tools/check_layering.cmake on made-up trees: a downward include passes, an upward one (gl/
# including engines/, app/run/ including app/commands/) and an unknown room (a room the layering
# does not know, a file directly in src/app/) fail, naming the file. Run by ctest with
#   cmake -DCHECK=tools/check_layering.cmake -DSCRATCH=dir -P layering_test.cmake

# A tree of two files: `upper` includes `lower`, and `lower` holds `header_line`.
function(write_tree root upper lower header_line)
  file(REMOVE_RECURSE ${root})
  file(WRITE ${root}/${upper} "#pragma once\n#include \"${lower}\"\n")
  file(WRITE ${root}/${lower} "#pragma once\n${header_line}\n")
endfunction()

function(expect_check root should_pass what named)
  execute_process(COMMAND ${CMAKE_COMMAND} -DSOURCE_DIR=${root} -DSTAMP=${root}/stamp -P ${CHECK}
                  RESULT_VARIABLE result ERROR_VARIABLE errors)
  if(should_pass AND NOT result EQUAL 0)
    message(FATAL_ERROR "${what}: refused:\n${errors}")
  elseif(NOT should_pass AND result EQUAL 0)
    message(FATAL_ERROR "${what}: accepted")
  elseif(NOT should_pass AND NOT errors MATCHES "${named}")
    message(FATAL_ERROR "${what}: the refusal does not name ${named}:\n${errors}")
  endif()
  message(STATUS "ok: ${what}")
endfunction()

set(engines engines/engine.h gl/objects.h)
write_tree(${SCRATCH}/down ${engines} "#include <vector>")
expect_check(${SCRATCH}/down TRUE "engines/ including gl/" "")
write_tree(${SCRATCH}/up ${engines} "#include \"engines/engine.h\"")
expect_check(${SCRATCH}/up FALSE "gl/ including engines/" "gl/objects.h")
write_tree(${SCRATCH}/unknown ${engines} "#include \"gadgets/gadget.h\"")
expect_check(${SCRATCH}/unknown FALSE "gl/ including a room the layering does not know" "gl/objects.h")

set(app app/commands/command.h app/run/output_plan.h)
write_tree(${SCRATCH}/app-down ${app} "#include \"engines/engine.h\"")
expect_check(${SCRATCH}/app-down TRUE "app/commands/ including app/run/, app/run/ including engines/" "")
write_tree(${SCRATCH}/app-up ${app} "#include \"app/window/window_app.h\"")
expect_check(${SCRATCH}/app-up FALSE "app/run/ including app/window/" "app/run/output_plan.h")
write_tree(${SCRATCH}/app-flat app/commands/command.h app/output_plan.h "")
expect_check(${SCRATCH}/app-flat FALSE "a file directly in app/, in no room" "app/output_plan.h")
