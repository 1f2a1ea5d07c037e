# SPDX-License-Identifier: Apache-2.0
# Installs the library, its headers, the CMake package (find_package(xpose CONFIG), with the dist
# component when xpose::dist is built) and a pkg-config file. docs/install.md is the user's view.
include(CMakePackageConfigHelpers)
set(xpose_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/xpose)

install(TARGETS xpose EXPORT xposeTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(FILES include/xpose/xpose.hpp include/xpose/export.hpp ${PROJECT_BINARY_DIR}/include/xpose/version.hpp
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/xpose)
install(EXPORT xposeTargets NAMESPACE xpose:: DESTINATION ${xpose_cmake_dir})
if(TARGET xpose_dist)
  install(TARGETS xpose_dist EXPORT xposeDistTargets
          ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
          LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
          RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  install(FILES include/xpose/dist.hpp DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/xpose)
  install(EXPORT xposeDistTargets NAMESPACE xpose:: DESTINATION ${xpose_cmake_dir})
  install(FILES cmake/xposeNCCL.cmake DESTINATION ${xpose_cmake_dir})
endif()

if(XPOSE_HAVE_CUDA AND XPOSE_LIBRARY_TYPE STREQUAL "STATIC")
  set(XPOSE_STATIC_WITH_CUDA ON)
else()
  set(XPOSE_STATIC_WITH_CUDA OFF)
endif()
configure_package_config_file(cmake/xposeConfig.cmake.in ${PROJECT_BINARY_DIR}/xposeConfig.cmake
                              INSTALL_DESTINATION ${xpose_cmake_dir})
# 0.x releases promise nothing across minor versions.
if(PROJECT_VERSION_MAJOR EQUAL 0)
  set(xpose_compatibility SameMinorVersion)
else()
  set(xpose_compatibility SameMajorVersion)
endif()
write_basic_package_version_file(${PROJECT_BINARY_DIR}/xposeConfigVersion.cmake
                                 COMPATIBILITY ${xpose_compatibility})
install(FILES ${PROJECT_BINARY_DIR}/xposeConfig.cmake ${PROJECT_BINARY_DIR}/xposeConfigVersion.cmake
        DESTINATION ${xpose_cmake_dir})

# pkg-config: paths relative to the .pc file, so that the install can move (cmake --install --prefix).
set(xpose_pc_dir ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
file(RELATIVE_PATH XPOSE_PC_PREFIX_FROM_PCDIR /prefix/${xpose_pc_dir} /prefix)
string(REGEX REPLACE "/$" "" XPOSE_PC_PREFIX_FROM_PCDIR "${XPOSE_PC_PREFIX_FROM_PCDIR}")
foreach(kind LIBDIR INCLUDEDIR)
  if(IS_ABSOLUTE "${CMAKE_INSTALL_${kind}}")
    set(XPOSE_PC_${kind} "${CMAKE_INSTALL_${kind}}")
  else()
    set(XPOSE_PC_${kind} "\${prefix}/${CMAKE_INSTALL_${kind}}")
  endif()
endforeach()
# What a static libxpose needs in the final link (pkg-config --static); a shared one has it inside.
set(XPOSE_PC_LIBS_PRIVATE "-pthread")
if(XPOSE_STATIC_WITH_CUDA)
  string(PREPEND XPOSE_PC_LIBS_PRIVATE "-L${CUDAToolkit_LIBRARY_DIR} -lcudart_static -ldl -lrt ")
endif()
configure_file(cmake/xpose.pc.in ${PROJECT_BINARY_DIR}/xpose.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/xpose.pc DESTINATION ${xpose_pc_dir})

if(TARGET xpose_cli)
  install(TARGETS xpose_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()
