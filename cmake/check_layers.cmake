# Includes only point down: a file may include headers of its own layer and of the layers below
# it, never of one above, and decode/ and encode/ (side by side) never each other's. Included by
# CMakeLists.txt, so a wrong include fails the configure step; also run as a test, alone
# (cmake -DVF_LAYERS_ROOT=DIR -P cmake/check_layers.cmake), to check any tree.
#   common < media < kernels < config < decode, encode < pipeline < app, bench < python, gst
# bench/ (the benchmarks, their own programs) and app/ sit side by side: neither includes the other,
# so no benchmark is linked into vfilter. python/ (the module) and gst/ (the GStreamer element)
# sit on app/, side by side.
set(vf_layer_rank_common 0)
set(vf_layer_rank_media 1)
set(vf_layer_rank_kernels 2)
set(vf_layer_rank_config 3)
set(vf_layer_rank_decode 4)
set(vf_layer_rank_encode 4)
set(vf_layer_rank_pipeline 5)
set(vf_layer_rank_app 6)
set(vf_layer_rank_bench 6)
set(vf_layer_rank_python 7)
set(vf_layer_rank_gst 7)
if(NOT DEFINED VF_LAYERS_ROOT)
  set(VF_LAYERS_ROOT "${CMAKE_CURRENT_LIST_DIR}/..")
endif()
get_filename_component(VF_LAYERS_ROOT "${VF_LAYERS_ROOT}" ABSOLUTE)

set(vf_layer_violations "")
foreach(layer common media kernels config decode encode pipeline app bench python gst)
  file(GLOB_RECURSE vf_layer_files "${VF_LAYERS_ROOT}/${layer}/*.cpp" "${VF_LAYERS_ROOT}/${layer}/*.hpp"
       "${VF_LAYERS_ROOT}/${layer}/*.cu" "${VF_LAYERS_ROOT}/${layer}/*.cuh")
  foreach(file IN LISTS vf_layer_files)
    file(STRINGS "${file}" vf_layer_includes REGEX "^[ \t]*#[ \t]*include[ \t]*\"[a-z_]+/")
    foreach(line IN LISTS vf_layer_includes)
      string(REGEX REPLACE "^[ \t]*#[ \t]*include[ \t]*\"([a-z_]+)/.*" "\\1" target "${line}")
      if(NOT DEFINED vf_layer_rank_${target} OR target STREQUAL layer)
        continue()
      endif()
      if(${vf_layer_rank_${target}} GREATER_EQUAL ${vf_layer_rank_${layer}})
        file(RELATIVE_PATH rel "${VF_LAYERS_ROOT}" "${file}")
        list(APPEND vf_layer_violations "${rel} (${layer}/) includes ${target}/: ${line}")
      endif()
    endforeach()
  endforeach()
endforeach()
if(vf_layer_violations)
  list(JOIN vf_layer_violations "\n  " vf_layer_text)
  message(FATAL_ERROR "includes that point up a layer (docs/architecture.md, Layers):\n  ${vf_layer_text}")
endif()
