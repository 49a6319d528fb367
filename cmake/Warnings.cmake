# One INTERFACE target carries the warning flags (and, behind options, -Werror and the
# sanitizers) so every pipeplan target gets the same ones and third-party code gets none.
add_library(pipeplan_warnings INTERFACE)
add_library(pipeplan::warnings ALIAS pipeplan_warnings)
target_compile_options(pipeplan_warnings INTERFACE
  -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wsign-conversion
  -Wnon-virtual-dtor -Wold-style-cast -Woverloaded-virtual -Wnull-dereference
  -Wimplicit-fallthrough)
if(PIPEPLAN_WERROR)
  target_compile_options(pipeplan_warnings INTERFACE -Werror)
endif()
if(PIPEPLAN_SANITIZE)
  target_compile_options(pipeplan_warnings INTERFACE
    -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer)
  target_link_options(pipeplan_warnings INTERFACE -fsanitize=address,undefined)
endif()
