# floors.cmake: one build target per floor (docs/architecture.md).
#
# mcb_floor(NAME SOURCES files... SEES floors... USES floors...) makes
#   mcb_NAME        an OBJECT library of the floor's sources, compiled with
#                   one include root, floors/NAME/ in the build tree, that
#                   holds a link to each folder the floor SEES and nothing
#                   else: `#include "harness/runner.h"` in a solver is a
#                   compile error ("No such file or directory");
#   mcb_NAME_links  a shared library of the same objects linked with
#                   --no-undefined against the _links libraries of the
#                   floors it USES only (and the outside libraries): a call
#                   into a floor it may not use is a link error
#                   ("undefined reference"). Built with everything, used by
#                   nothing: it exists to fail.
# The static library mcb (libmcbench.a) is every floor's objects together,
# compiled once.
set(MCB_FLOORS_DIR ${CMAKE_BINARY_DIR}/floors)

# A folder of links to the folders a floor sees: its only include root.
function(mcb_floor_root name)
  set(root ${MCB_FLOORS_DIR}/${name})
  file(REMOVE_RECURSE ${root})
  file(MAKE_DIRECTORY ${root})
  foreach(f ${ARGN})
    file(CREATE_LINK ${CMAKE_SOURCE_DIR}/${f} ${root}/${f} SYMBOLIC)
  endforeach()
endfunction()

# The outside libraries every floor may link (the floors' own order is
# what the _links libraries check).
set(MCB_OUTSIDE_LIBS ${HDF5_C_LIBRARIES} FCLIB::fclib ${SPQR_LIB} ${CHOLMOD_LIB} ${KLU_LIB}
  ${UMFPACK_LIB} ${AMD_LIB} ${SUITESPARSECONFIG_LIB} OpenMP::OpenMP_C ${MATH_LIB})
set(MCB_OUTSIDE_INCLUDES ${SUITESPARSE_INCLUDE_DIR} ${HDF5_INCLUDE_DIRS})

# The compile settings of floor `name` on target `tgt` (also used by the
# planted probes of tests/floors, which must fail exactly as a floor would).
function(mcb_floor_settings tgt name)
  target_include_directories(${tgt} PRIVATE ${MCB_FLOORS_DIR}/${name})
  target_include_directories(${tgt} SYSTEM PRIVATE ${MCB_OUTSIDE_INCLUDES} ${MCB_FLOOR_${name}_SYSTEM})
  target_link_libraries(${tgt} PRIVATE OpenMP::OpenMP_C FCLIB::fclib)
  set_target_properties(${tgt} PROPERTIES POSITION_INDEPENDENT_CODE ON)
  if(MCB_HAVE_NO_SEMANTIC_INTERPOSITION)
    target_compile_options(${tgt} PRIVATE $<$<COMPILE_LANGUAGE:C>:-fno-semantic-interposition>)
  endif()
endfunction()

# The link check of floor `name` on shared library `tgt`.
function(mcb_floor_link_check tgt)
  target_link_libraries(${tgt} PRIVATE ${ARGN} ${MCB_OUTSIDE_LIBS})
  target_link_options(${tgt} PRIVATE -Wl,--no-undefined)
  set_target_properties(${tgt} PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${MCB_FLOORS_DIR})
endfunction()

function(mcb_floor name)
  cmake_parse_arguments(F "" "" "SOURCES;SEES;USES;SYSTEM;LIBS" ${ARGN})
  mcb_floor_root(${name} ${F_SEES})
  set(MCB_FLOOR_${name}_SYSTEM ${F_SYSTEM} CACHE INTERNAL "")
  set(MCB_FLOOR_${name}_LIBS ${F_LIBS} CACHE INTERNAL "")
  add_library(mcb_${name} OBJECT ${F_SOURCES})
  mcb_floor_settings(mcb_${name} ${name})
  target_link_libraries(mcb_${name} PRIVATE ${F_LIBS}) # their include paths
  set(uses "")
  foreach(u ${F_USES})
    list(APPEND uses mcb_${u}_links)
  endforeach()
  set(MCB_FLOOR_${name}_USES ${uses} CACHE INTERNAL "")
  if(MCB_FLOOR_LINK_CHECKS)
    add_library(mcb_${name}_links SHARED $<TARGET_OBJECTS:mcb_${name}>)
    mcb_floor_link_check(mcb_${name}_links ${uses} ${F_LIBS})
  endif()
endfunction()
