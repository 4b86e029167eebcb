# No process-wide state below app/: in kernels/, pipeline/, decode/ and media/, no `static` object
# and no object at namespace scope (a registry, a mutex, a cache, a counter, a once_flag), because
# every per-device or per-process resource belongs to the GPU runtime of an entry point
# (pipeline/gpu_runtime.hpp) or to the object that uses it. A line that must be one (a test hook,
# FFmpeg's own once-per-process registration) says why on the same line after
# "// process-wide:", and holds no GPU resource. Run as a test (cmake -P), on the tree and on a
# fixture that breaks the rule (-DVF_LAYERS_ROOT=DIR).
cmake_policy(SET CMP0007 NEW)
if(NOT DEFINED VF_LAYERS_ROOT)
  set(VF_LAYERS_ROOT "${CMAKE_CURRENT_LIST_DIR}/..")
endif()
get_filename_component(VF_LAYERS_ROOT "${VF_LAYERS_ROOT}" ABSOLUTE)

# A static object (not a function, not a constant), or an object declared at column 0 (namespace
# scope) with a `;` and no `(`; `<SEMI>` stands for `;` (CMake lists split on it).
set(vf_static_object "^[ \t]*static[ \t]+(thread_local[ \t]+)?(std::|[A-Z])[^(]*(<SEMI>|=|{)")
set(vf_namespace_object "^(std::[A-Za-z_:<>, 0-9*]+|[A-Z][A-Za-z_:<>, 0-9]*[*&]?)[ \t]+[*&]?[a-z_][A-Za-z_0-9]*[^(]*<SEMI>")
set(vf_static_findings "")
foreach(layer kernels pipeline decode media)
  file(GLOB_RECURSE vf_files "${VF_LAYERS_ROOT}/${layer}/*.cpp" "${VF_LAYERS_ROOT}/${layer}/*.hpp"
       "${VF_LAYERS_ROOT}/${layer}/*.cu" "${VF_LAYERS_ROOT}/${layer}/*.cuh")
  foreach(file IN LISTS vf_files)
    file(READ "${file}" text)
    string(REPLACE ";" "<SEMI>" text "${text}")
    string(REPLACE "[" "<LB>" text "${text}")
    string(REPLACE "]" "<RB>" text "${text}")
    string(REPLACE "\n" ";" lines "${text}")
    file(RELATIVE_PATH rel "${VF_LAYERS_ROOT}" "${file}")
    set(number 0)
    foreach(line IN LISTS lines)
      math(EXPR number "${number} + 1")
      if(line MATCHES "// process-wide:" OR line MATCHES "^[ \t]*//")
        continue()
      endif()
      if(line MATCHES "${vf_static_object}" OR line MATCHES "${vf_namespace_object}" OR line MATCHES "std::call_once")
        string(REPLACE "<SEMI>" "" shown "${line}")
        string(REPLACE "<LB>" "[" shown "${shown}")
        string(REPLACE "<RB>" "]" shown "${shown}")
        string(STRIP "${shown}" shown)
        list(APPEND vf_static_findings "${rel}:${number}: ${shown}")
      endif()
    endforeach()
  endforeach()
endforeach()
if(vf_static_findings)
  list(JOIN vf_static_findings "\n  " vf_static_text)
  message(FATAL_ERROR "process-wide state below app/ (owned by a GPU runtime or an object instead, "
                      "docs/architecture.md, Who owns GPU state):\n  ${vf_static_text}")
endif()
