# `cmake --install` (GNUInstallDirs): headers, libpmukit.so + libpmukit.a (pmukit.dll,
# its import library and libpmukit.a on Windows), the pmukit command, its man page,
# pmukit.pc and the CMake package (find_package(pmukit) -> pmukit::pmukit).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(FILES ${PMUKIT_PUBLIC_HEADERS} ${PROJECT_BINARY_DIR}/include/pmukit/version.h
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/pmukit COMPONENT dev)
target_include_directories(pmukit PUBLIC $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
install(TARGETS pmukit EXPORT pmukitTargets
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} NAMELINK_COMPONENT dev
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT dev)
install(TARGETS pmukit_static ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT dev)
install(TARGETS pmukit_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(FILES ${PROJECT_SOURCE_DIR}/LICENSE DESTINATION ${CMAKE_INSTALL_DOCDIR})

# pmukit.pc finds its prefix from its own place (${pcfiledir}) when the install dirs
# are relative, so `cmake --install --prefix DIR` of a configured tree still works.
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}" OR IS_ABSOLUTE "${CMAKE_INSTALL_INCLUDEDIR}")
  set(PMUKIT_PC_PREFIX "${CMAKE_INSTALL_PREFIX}")
  set(PMUKIT_PC_LIBDIR "${CMAKE_INSTALL_FULL_LIBDIR}")
  set(PMUKIT_PC_INCLUDEDIR "${CMAKE_INSTALL_FULL_INCLUDEDIR}")
else()
  file(RELATIVE_PATH up "/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/")
  string(REGEX REPLACE "/$" "" up "${up}")
  set(PMUKIT_PC_PREFIX "\${pcfiledir}/${up}")
  set(PMUKIT_PC_LIBDIR "\${prefix}/${CMAKE_INSTALL_LIBDIR}")
  set(PMUKIT_PC_INCLUDEDIR "\${prefix}/${CMAKE_INSTALL_INCLUDEDIR}")
endif()
configure_file(${PROJECT_SOURCE_DIR}/cmake/pmukit.pc.in ${PROJECT_BINARY_DIR}/pmukit.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/pmukit.pc
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig COMPONENT dev)

set(PMUKIT_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/pmukit)
install(EXPORT pmukitTargets NAMESPACE pmukit:: DESTINATION ${PMUKIT_CMAKE_DIR} COMPONENT dev)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/pmukitConfig.cmake.in
  ${PROJECT_BINARY_DIR}/pmukitConfig.cmake INSTALL_DESTINATION ${PMUKIT_CMAKE_DIR})
# 0.x: a new minor version may break the API, so only the same major.minor matches.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/pmukitConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/pmukitConfig.cmake ${PROJECT_BINARY_DIR}/pmukitConfigVersion.cmake
  DESTINATION ${PMUKIT_CMAKE_DIR} COMPONENT dev)
