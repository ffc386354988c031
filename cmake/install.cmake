# install.cmake: mcbench as an installed package.
#
# `cmake --install BUILD --prefix P` puts in place:
#   P/bin/mcbench
#   P/lib/libmcbench.a           the static library (target mcb, exported as
#                                mcbench::mcbench_static)
#   P/lib/libmcbench.so.ABI...   the shared library, SOVERSION = MCB_ABI_VERSION
#                                (exported as mcbench::mcbench)
#   P/include/mcbench/FLOOR/*.h  the public headers (MCB_PUBLIC_HEADERS: the
#                                closed set the solver interface, the problem
#                                model and the metrics need; docs/api.md), by
#                                floor as in the source tree: code includes
#                                <mcbench/solvers/solver.h>, and the headers
#                                find each other through P/include/mcbench,
#                                which mcbench.pc and the CMake targets add
#   P/lib/pkgconfig/mcbench.pc   relocatable (prefix from ${pcfiledir})
#   P/lib/cmake/mcbench/         mcbenchConfig.cmake, its version file and the
#                                exported targets
# Each object is compiled once, position independent (the floors'
# object libraries, cmake/floors.cmake), and the shared library is linked
# from the whole archive. -fno-semantic-interposition keeps PIC from costing
# the solvers anything in the (statically linked) mcbench binary: calls
# inside a file stay direct and inlinable.
# Included from the top CMakeLists.txt after the targets mcb and mcbench.
if(MCB_FUZZ)
  return() # the fuzzing build (clang, readers only) installs nothing
endif()
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)
include(CheckCCompilerFlag)

# the ABI version is the header's (solvers/solver.h), never a second copy
file(STRINGS ${CMAKE_CURRENT_SOURCE_DIR}/solvers/solver.h _mcb_abi_line
     REGEX "^#define MCB_ABI_VERSION [0-9]+")
string(REGEX REPLACE "^#define MCB_ABI_VERSION ([0-9]+).*$" "\\1" MCB_ABI_VERSION "${_mcb_abi_line}")
if(NOT MCB_ABI_VERSION MATCHES "^[0-9]+$")
  message(FATAL_ERROR "mcbench: no '#define MCB_ABI_VERSION N' in solvers/solver.h")
endif()

set(MCB_PUBLIC_HEADERS
  lib/mcb_error.h
  lib/mcb_sparse.h
  lib/mcb_problem.h
  lib/mcb_io.h
  lib/mcb_vocab.h
  solvers/solver.h
  solvers/batch.h
  metrics/metrics.h)

# A sanitized build's library needs the sanitizer runtime in whatever links
# it: the installed targets and mcbench.pc carry the flags.
set(MCB_SANITIZER_LINK "")
if(MCB_SANITIZE)
  list(APPEND MCB_SANITIZER_LINK -fsanitize=address,undefined)
endif()
string(REGEX MATCHALL "-fsanitize=[^ ]+" _mcb_san "${CMAKE_C_FLAGS}")
list(APPEND MCB_SANITIZER_LINK ${_mcb_san})
list(REMOVE_DUPLICATES MCB_SANITIZER_LINK)

set_target_properties(mcb PROPERTIES OUTPUT_NAME mcbench EXPORT_NAME mcbench_static)
target_include_directories(mcb INTERFACE $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>
  $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}/mcbench>)
if(MCB_SANITIZER_LINK)
  target_link_options(mcb INTERFACE "$<INSTALL_INTERFACE:${MCB_SANITIZER_LINK}>")
endif()
set(MCB_EXPORTED mcb)

if(MCB_SHARED)
  add_library(mcbench_shared SHARED ${CMAKE_CURRENT_SOURCE_DIR}/cmake/shared.c
    $<TARGET_OBJECTS:mcb_cli>)
  # the Python host of --plugin FILE.py loads this library (harness/cli/python_host.c)
  target_compile_definitions(mcb_cli PRIVATE MCB_BUILD_LIBRARY="$<TARGET_FILE:mcbench_shared>")
  if(CMAKE_VERSION VERSION_GREATER_EQUAL 3.24)
    target_link_libraries(mcbench_shared PRIVATE "$<LINK_LIBRARY:WHOLE_ARCHIVE,mcb>")
  else()
    target_link_libraries(mcbench_shared PRIVATE -Wl,--whole-archive mcb -Wl,--no-whole-archive)
  endif()
  set_target_properties(mcbench_shared PROPERTIES
    OUTPUT_NAME mcbench EXPORT_NAME mcbench
    VERSION ${MCB_ABI_VERSION}.${PROJECT_VERSION_MINOR}.${PROJECT_VERSION_PATCH}
    SOVERSION ${MCB_ABI_VERSION})
  target_include_directories(mcbench_shared INTERFACE
    "$<BUILD_INTERFACE:${CMAKE_CURRENT_SOURCE_DIR}>"
    $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}> $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}/mcbench>)
  if(MCB_SANITIZER_LINK)
    target_link_options(mcbench_shared INTERFACE "$<INSTALL_INTERFACE:${MCB_SANITIZER_LINK}>")
  endif()
  list(APPEND MCB_EXPORTED mcbench_shared)
endif()

install(TARGETS mcbench RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS ${MCB_EXPORTED} EXPORT mcbenchTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
foreach(_h ${MCB_PUBLIC_HEADERS})
  get_filename_component(_d ${_h} DIRECTORY)
  install(FILES ${CMAKE_CURRENT_SOURCE_DIR}/${_h} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/mcbench/${_d})
endforeach()

# --- the CMake package: find_package(mcbench) -------------------------------
set(MCB_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/mcbench)
install(EXPORT mcbenchTargets NAMESPACE mcbench:: DESTINATION ${MCB_CMAKE_DIR})
set(MCB_CONFIG_HAVE_MPI 0)
if(MCB_HAVE_MPI)
  set(MCB_CONFIG_HAVE_MPI 1)
endif()
set(MCB_CONFIG_HAVE_CUDA 0)
if(MCB_HAVE_CUDA)
  set(MCB_CONFIG_HAVE_CUDA 1)
endif()
configure_package_config_file(${CMAKE_CURRENT_SOURCE_DIR}/cmake/mcbenchConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/mcbenchConfig.cmake INSTALL_DESTINATION ${MCB_CMAKE_DIR})
# 0.x: a minor version may change the API (docs/api.md, "Versions")
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/mcbenchConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/mcbenchConfig.cmake
  ${CMAKE_CURRENT_BINARY_DIR}/mcbenchConfigVersion.cmake DESTINATION ${MCB_CMAKE_DIR})

# --- mcbench.pc: the dependencies with a .pc file of their own are
# Requires.private, the others Libs.private (the static library's link line)
set(MCB_PC_REQUIRES "")
set(MCB_PC_LIBS ${SPQR_LIB} ${CHOLMOD_LIB} ${KLU_LIB} ${UMFPACK_LIB} ${AMD_LIB} ${SUITESPARSECONFIG_LIB})
foreach(_pc hdf5 fclib)
  pkg_check_modules(MCB_PC_${_pc} QUIET ${_pc})
  if(MCB_PC_${_pc}_FOUND)
    list(APPEND MCB_PC_REQUIRES ${_pc})
  endif()
endforeach()
if(NOT MCB_PC_hdf5_FOUND)
  list(APPEND MCB_PC_LIBS ${HDF5_C_LIBRARIES})
endif()
pkg_check_modules(MCB_PC_yaml QUIET yaml-0.1)
if(MCB_PC_yaml_FOUND)
  list(APPEND MCB_PC_REQUIRES yaml-0.1)
else()
  list(APPEND MCB_PC_LIBS ${YAML_LIB})
endif()
if(NOT MCB_PC_fclib_FOUND)
  list(APPEND MCB_PC_LIBS $<TARGET_LINKER_FILE:FCLIB::fclib>)
endif()
if(MCB_HAVE_MPI)
  list(APPEND MCB_PC_LIBS ${MPI_C_LIBRARIES})
endif()
if(MCB_HAVE_SICONOS)
  list(APPEND MCB_PC_LIBS ${SICONOS_NUMERICS_LIB})
endif()
if(MCB_HAVE_MUJOCO)
  list(APPEND MCB_PC_LIBS ${MUJOCO_LIB})
endif()
if(MCB_HAVE_CUDA)
  list(APPEND MCB_PC_LIBS ${CUDA_cudart_static_LIBRARY} -lstdc++ -lrt -lpthread -ldl)
endif()
list(APPEND MCB_PC_LIBS ${OpenMP_C_FLAGS} ${MATH_LIB})
list(JOIN MCB_PC_REQUIRES ", " MCB_PC_REQUIRES)
list(JOIN MCB_PC_LIBS " " MCB_PC_LIBS)
list(JOIN MCB_SANITIZER_LINK " " MCB_PC_SANITIZER)
file(RELATIVE_PATH MCB_PC_PREFIX "/p/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/p")
string(REGEX REPLACE "/$" "" MCB_PC_PREFIX "${MCB_PC_PREFIX}")
configure_file(${CMAKE_CURRENT_SOURCE_DIR}/cmake/mcbench.pc.in
  ${CMAKE_CURRENT_BINARY_DIR}/mcbench.pc.cfg @ONLY)
file(GENERATE OUTPUT ${CMAKE_CURRENT_BINARY_DIR}/mcbench.pc
  INPUT ${CMAKE_CURRENT_BINARY_DIR}/mcbench.pc.cfg)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/mcbench.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
