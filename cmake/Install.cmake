# Installing Tether and packaging it (included last by the top CMakeLists.txt).
#
#   cmake --install build [--prefix DIR]   tether, tether-worker, the libraries
#                                          with their headers, the models, docs
#   find_package(Tether CONFIG)            Tether::context  libtether
#                                          Tether::trace    the tracer, started by
#                                                           TETHER_TRACE=<path>
#                                          Tether::gtest    the GoogleTest helper
#                                          Tether::scope_api  tether/trace/scope.h
#                                          Tether::gtest_main GoogleTest's main, each
#                                                           TEST a scope for its threads
#   pkg-config tether                      the same as Tether::trace
#   cpack -G DEB (in the build dir)        tether_<version>_<arch>.deb
#
# test/install/ installs into a temporary prefix and builds a project against
# it both ways. docs/install.md is the user's page.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(TETHER_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/Tether)

# Tether::trace = the tracer library plus its start-up object, linked whole:
# nothing refers to the object, and a plain archive member would be dropped
# with its TETHER_TRACE initialiser.
add_library(tether_trace_package INTERFACE)
set_target_properties(tether_trace_package PROPERTIES EXPORT_NAME trace)
# (CMake 3.25 does not rename a target inside $<LINK_LIBRARY> on export.)
target_link_libraries(tether_trace_package INTERFACE tether_trace
  "$<LINK_LIBRARY:WHOLE_ARCHIVE,$<BUILD_INTERFACE:tether_trace_start>$<INSTALL_INTERFACE:Tether::trace_start>>")

# tether_trace_writer: the archive the tracer and the thread shim are made of
# (its headers are internal and not installed).
install(TARGETS tether_io tether_context tether_trace tether_trace_writer tether_trace_start
                tether_trace_package tether_scope_api
  EXPORT TetherTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT dev
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY lib/context/include/ lib/trace/include/
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT dev FILES_MATCHING PATTERN "*.hpp")
install(DIRECTORY lib/scope_abi/include/
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT dev FILES_MATCHING PATTERN "*.h")
# Tether::threads_wrap: the threads' recording for programs that cannot be
# preloaded (static binaries), linked with -Wl,--wrap (lib/threads).
install(TARGETS tether_threads_wrap EXPORT TetherTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT dev)

install(EXPORT TetherTargets NAMESPACE Tether::
  DESTINATION ${TETHER_INSTALL_CMAKEDIR} COMPONENT dev)
# Tether::gtest_main needs GTest::gtest: its own export set, which
# TetherConfig.cmake loads only when GoogleTest is found.
install(TARGETS tether_gtest_main tether_gtest_headers EXPORT TetherGtestTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT dev)
install(DIRECTORY lib/gtest/include/
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT dev FILES_MATCHING PATTERN "*.hpp")
install(EXPORT TetherGtestTargets NAMESPACE Tether::
  DESTINATION ${TETHER_INSTALL_CMAKEDIR} COMPONENT dev)
configure_package_config_file(cmake/TetherConfig.cmake.in
  ${PROJECT_BINARY_DIR}/TetherConfig.cmake
  INSTALL_DESTINATION ${TETHER_INSTALL_CMAKEDIR}
  PATH_VARS CMAKE_INSTALL_DATADIR)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/TetherConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/TetherConfig.cmake ${PROJECT_BINARY_DIR}/TetherConfigVersion.cmake
  DESTINATION ${TETHER_INSTALL_CMAKEDIR} COMPONENT dev)

# tether.pc, relocatable: the prefix is found from the file's own place, so
# the same file serves `cmake --install --prefix DIR` and the .deb (/usr).
file(RELATIVE_PATH TETHER_PC_TO_PREFIX
  ${CMAKE_INSTALL_FULL_LIBDIR}/pkgconfig ${CMAKE_INSTALL_PREFIX})
string(REGEX REPLACE "/$" "" TETHER_PC_TO_PREFIX "${TETHER_PC_TO_PREFIX}")
configure_file(cmake/tether.pc.in ${PROJECT_BINARY_DIR}/tether.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/tether.pc
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig COMPONENT dev)

# The programs, the API models (also built into `tether check`, installed so
# that --model can start from a copy) and the documentation.
install(TARGETS tether tether-worker RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT bin)
# The thread shim and the LLVM part of the tool (the checker, the thread
# symbolizer) go where `tether` looks for them: ../lib from the tool.
install(TARGETS tether_threads LIBRARY DESTINATION lib COMPONENT bin)
if(TARGET tether_llvm)
  install(TARGETS tether_llvm LIBRARY DESTINATION lib COMPONENT bin)
endif()
# The clang-tidy plugin: `clang-tidy-16 --load=PREFIX/lib/tether/libTetherTidy.so`
# (/usr/lib/tether/ from the .deb: a program's private plugins live in
# /usr/lib/<package>/ on Debian). It resolves clang-tidy's symbols from the
# clang-tidy executable that loads it, so it needs no RPATH of its own.
if(TARGET TetherTidy)
  install(TARGETS TetherTidy LIBRARY DESTINATION lib/tether COMPONENT bin)
endif()
install(DIRECTORY lib/check/models/ DESTINATION ${CMAKE_INSTALL_DATADIR}/tether/models
  COMPONENT bin FILES_MATCHING PATTERN "*.json")
install(FILES README.md DESTINATION ${CMAKE_INSTALL_DOCDIR} COMPONENT bin)
install(DIRECTORY docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR} COMPONENT bin
  PATTERN "demo.sh" EXCLUDE)

# CPack: one .deb with everything, installed under /usr. dpkg-shlibdeps
# derives the shared-library dependencies (libclang-cpp16, libLLVM-16,
# yaml-cpp, hiredis, ...) from the binaries themselves.
set(CPACK_PACKAGE_NAME tether)
set(CPACK_PACKAGE_VENDOR "Tether")
set(CPACK_PACKAGE_CONTACT "Tether maintainers <tether@example.org>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
  "Go-style contexts for C++20, a tracer for zombie tasks and a Clang checker")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "graphviz, bubblewrap, pkg-config")
include(CPack)
