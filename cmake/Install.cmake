# `cmake --install`: the library's layers (static, position-independent), its headers under
# include/pipeplan/ with the umbrella pipeplan/pipeplan.hpp, and a CMake package, so another
# project writes find_package(pipeplan) and target_link_libraries(app PRIVATE pipeplan::pipeplan).
# tests/consumer/ is such a project; the ctest case install_consumer builds it against an install.
include(CMakePackageConfigHelpers)

get_property(pipeplan_layer_targets GLOBAL PROPERTY pipeplan_layers)
install(TARGETS ${pipeplan_layer_targets} pipeplan_lib EXPORT pipeplanTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/lib/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/pipeplan
        FILES_MATCHING PATTERN "*.hpp")
set(pipeplan_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/pipeplan)
install(EXPORT pipeplanTargets NAMESPACE pipeplan:: DESTINATION ${pipeplan_cmake_dir})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/pipeplanConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/pipeplanConfig.cmake INSTALL_DESTINATION ${pipeplan_cmake_dir})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/pipeplanConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/pipeplanConfig.cmake ${PROJECT_BINARY_DIR}/pipeplanConfigVersion.cmake
        DESTINATION ${pipeplan_cmake_dir})
