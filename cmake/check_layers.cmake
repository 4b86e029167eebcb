# Includes only point down: a file may include headers of its own layer and of the layers below
# it, never of one above, and decode/ and encode/ (side by side) never each other's. Included by
# CMakeLists.txt, so a wrong include fails the configure step; also run as a test, alone
# (cmake -DVF_LAYERS_ROOT=DIR -P cmake/check_layers.cmake), to check any tree.
#   common < media < kernels < config < decode, encode < pipeline < app, bench < python, gst
# bench/ (the benchmarks, their own programs) and app/ sit side by side: neither includes the other,
# so no benchmark is linked into vfilter. python/ (the module) and gst/ (the GStreamer element)
# sit on app/, side by side.
# Inside app/ the parts are layered too: run/ (the single run) < serve/ < cli/ (the command line),
# and serve's previews (preview/) and fleet (fleet/) sit below its control API (http/). GStreamer
# builds on the single run alone; Python on the single run and serve's stream entries (config).
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

# Folders (a path's beginning) that may not include headers under another: "FROM|INCLUDED".
set(vf_part_rules
  "app/run/|app/serve/" "app/run/|app/cli/" "app/serve/|app/cli/"
  "app/serve/preview/|app/serve/http/" "app/serve/fleet/|app/serve/http/"
  "gst/|app/serve/" "gst/|app/cli/" "python/|app/cli/")

set(vf_layer_violations "")
foreach(layer common media kernels config decode encode pipeline app bench python gst)
  file(GLOB_RECURSE vf_layer_files "${VF_LAYERS_ROOT}/${layer}/*.cpp" "${VF_LAYERS_ROOT}/${layer}/*.hpp"
       "${VF_LAYERS_ROOT}/${layer}/*.cu" "${VF_LAYERS_ROOT}/${layer}/*.cuh")
  foreach(file IN LISTS vf_layer_files)
    file(STRINGS "${file}" vf_layer_includes REGEX "^[ \t]*#[ \t]*include[ \t]*\"[a-z_]+/")
    file(RELATIVE_PATH rel "${VF_LAYERS_ROOT}" "${file}")
    foreach(line IN LISTS vf_layer_includes)
      string(REGEX REPLACE "^[ \t]*#[ \t]*include[ \t]*\"([^\"]*)\".*" "\\1" included "${line}")
      foreach(rule IN LISTS vf_part_rules)
        string(REPLACE "|" ";" rule "${rule}")
        list(GET rule 0 from)
        list(GET rule 1 to)
        string(FIND "${rel}" "${from}" at_from)
        string(FIND "${included}" "${to}" at_to)
        if(at_from EQUAL 0 AND at_to EQUAL 0)
          list(APPEND vf_layer_violations "${rel} (${from}) includes ${to}: ${line}")
        endif()
      endforeach()
      string(REGEX REPLACE "^[ \t]*#[ \t]*include[ \t]*\"([a-z_]+)/.*" "\\1" target "${line}")
      if(NOT DEFINED vf_layer_rank_${target} OR target STREQUAL layer)
        continue()
      endif()
      if(${vf_layer_rank_${target}} GREATER_EQUAL ${vf_layer_rank_${layer}})
        list(APPEND vf_layer_violations "${rel} (${layer}/) includes ${target}/: ${line}")
      endif()
    endforeach()
  endforeach()
endforeach()
if(vf_layer_violations)
  list(JOIN vf_layer_violations "\n  " vf_layer_text)
  message(FATAL_ERROR "includes that point up a layer (docs/architecture.md, Layers):\n  ${vf_layer_text}")
endif()
