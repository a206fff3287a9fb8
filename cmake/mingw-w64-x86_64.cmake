# Cross toolchain for 64-bit Windows with Debian's gcc-mingw-w64-x86-64 (used by
# `make windows`):
#   cmake -DCMAKE_TOOLCHAIN_FILE=cmake/mingw-w64-x86_64.cmake -DBUILD_TESTING=OFF ...
# Only the mingw-w64 sysroot is searched, so the host's libpfm4 and hwloc are not
# found; the build links Windows system DLLs only (see the WIN32 branch of CMakeLists.txt).
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR x86_64)

set(PMUKIT_CROSS_TRIPLE x86_64-w64-mingw32)
set(CMAKE_C_COMPILER ${PMUKIT_CROSS_TRIPLE}-gcc)
set(CMAKE_RC_COMPILER ${PMUKIT_CROSS_TRIPLE}-windres)

set(CMAKE_FIND_ROOT_PATH /usr/${PMUKIT_CROSS_TRIPLE})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

set(ENV{PKG_CONFIG_LIBDIR} /usr/${PMUKIT_CROSS_TRIPLE}/lib/pkgconfig)
set(ENV{PKG_CONFIG_PATH} "")

# Run the Windows programs CMake builds (try_run, tests) under Wine.
set(CMAKE_CROSSCOMPILING_EMULATOR /usr/lib/wine/wine64)
