# One INTERFACE target carries the warning flags (and, behind options, -Werror and the
# sanitizers) so every pipeplan target gets the same ones and third-party code gets none.
add_library(pipeplan_warnings INTERFACE)
add_library(pipeplan::warnings ALIAS pipeplan_warnings)
set(pipeplan_warning_flags
  -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wsign-conversion
  -Wnon-virtual-dtor -Wold-style-cast -Woverloaded-virtual
  -Wimplicit-fallthrough
  # Our structs give every member a default; leaving trailing ones out of a braced initializer
  # (an Op's overlap fields, say) is how they are meant to be used.
  -Wno-missing-field-initializers)
if(PIPEPLAN_WERROR)
  list(APPEND pipeplan_warning_flags -Werror)
endif()
# C++ sources only: CUDA files (pipeplan-gpu's kernels) go through nvcc, which has its own flags.
target_compile_options(pipeplan_warnings INTERFACE "$<$<COMPILE_LANGUAGE:CXX>:${pipeplan_warning_flags}>")
if(PIPEPLAN_SANITIZE OR PIPEPLAN_FUZZ)
  target_compile_options(pipeplan_warnings INTERFACE
    -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer)
  target_link_options(pipeplan_warnings INTERFACE -fsanitize=address,undefined)
endif()
# libFuzzer is guided by coverage: without this the library's branches are invisible to it and
# it mutates blindly. The tests built beside the fuzzers link the same instrumented library; the
# sanitizer runtime supplies the coverage hooks' defaults.
if(PIPEPLAN_FUZZ)
  target_compile_options(pipeplan_warnings INTERFACE -fsanitize=fuzzer-no-link)
endif()
# GCC 12 reports false -Wrestrict errors inside std::string's operator+ at -O2 (GCC bug 105329,
# fixed in 13); the warning says nothing about our code there.
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
  target_compile_options(pipeplan_warnings INTERFACE -Wno-restrict)
endif()
