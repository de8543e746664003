# The package tests (ctest runs this script):
#   cmake -DMODE=install|subdirectory -DSOURCE=<binschema source> -DBUILD=<binschema build>
#         [-DJOBS=2] [-DCXX=<compiler of the subdirectory build>] -P run.cmake
# In a fresh temporary folder, outside both the source and the build tree:
#   install   `cmake --install BUILD` to a prefix there, check what landed,
#             then build the consumer project (this folder's CMakeLists.txt,
#             mytiny.yaml, roundtrip.cpp, copied there) with find_package(binschema);
#   subdirectory  build the consumer with add_subdirectory(SOURCE) instead.
# Then run its C++ round trip; its schema_info, which loads a schema from
# text through binschema::schema; and (install) its own CLI (binschema_add_cli)
# on a file of its own format: encode, decode, encode again, byte for byte.
# The subdirectory build configures that CLI but does not build it (below).
# The folder is removed when everything passed and kept (named) otherwise.
cmake_minimum_required(VERSION 3.20)
foreach(v MODE SOURCE BUILD)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "run.cmake: -D${v}=... is required")
  endif()
endforeach()
if(NOT DEFINED JOBS)
  set(JOBS 2)
endif()

if(DEFINED ENV{TMPDIR} AND IS_DIRECTORY "$ENV{TMPDIR}")
  set(tmp_root "$ENV{TMPDIR}")
else()
  set(tmp_root /tmp)
endif()
string(RANDOM LENGTH 8 tag)
set(work "${tmp_root}/binschema-package-${MODE}-${tag}")
file(MAKE_DIRECTORY "${work}/src")
message(STATUS "work folder: ${work}")
string(TIMESTAMP t0 "%s")

function(fail what)
  message(FATAL_ERROR "package test (${MODE}) FAILED: ${what}\n(work folder kept: ${work})")
endfunction()

# The test passed: its time (and `note`) printed, the work folder removed.
function(passed note)
  string(TIMESTAMP t1 "%s")
  math(EXPR seconds "${t1} - ${t0}")
  message(STATUS "package test (${MODE}) passed in ${seconds} s${note}")
  file(REMOVE_RECURSE "${work}")
endfunction()

# Runs a command; fails the test with its output when it exits non-zero.
function(step name)
  execute_process(COMMAND ${ARGN} WORKING_DIRECTORY "${work}" RESULT_VARIABLE rc
                  OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    fail("${name} (exit ${rc})\n${out}\n${err}")
  endif()
  set(step_out "${out}" PARENT_SCOPE)
endfunction()

set(here "${CMAKE_CURRENT_LIST_DIR}")
foreach(f CMakeLists.txt mytiny.yaml roundtrip.cpp schema_info.cpp)
  file(COPY "${here}/${f}" DESTINATION "${work}/src")
endforeach()

# Build type None (no flags: -O0 without -g): the consumer's own code and
# generated format compile in about half the time of an optimized build, and
# what is checked here is the package, not the optimizer.
set(configure_args -S "${work}/src" -B "${work}/build" -DCMAKE_BUILD_TYPE=None)
if(MODE STREQUAL "install")
  set(prefix "${work}/prefix")
  step("cmake --install" ${CMAKE_COMMAND} --install "${BUILD}" --prefix "${prefix}")
  foreach(f bin/binschema bin/binschema-gen lib/libbinschema_runtime.a lib/libbinschema_cli.a
            lib/libformat_baev.a include/binschema/format.h include/binschema/formats/baev.h include/binschema/formats/baev_text.h
            lib/libbinschema_schema.a include/binschema/schema.h
            share/binschema/schemas/baev.yaml lib/cmake/binschema/binschemaConfig.cmake
            lib/cmake/binschema/binschemaConfigVersion.cmake lib/cmake/binschema/binschema-functions.cmake
            lib/pkgconfig/binschema-runtime.pc share/man/man1/binschema.1
            share/bash-completion/completions/binschema share/zsh/site-functions/_binschema)
    if(NOT EXISTS "${prefix}/${f}")
      fail("not installed: ${f}")
    endif()
  endforeach()
  step("installed binschema --version" "${prefix}/bin/binschema" --version)
  if(NOT step_out MATCHES "^binschema [0-9]+\\.[0-9]+\\.[0-9]+\n$")
    fail("installed binschema --version printed '${step_out}'")
  endif()
  # pkg-config, where there is one, finds the runtime in the prefix.
  find_program(PKG_CONFIG pkg-config)
  if(PKG_CONFIG)
    set(ENV{PKG_CONFIG_PATH} "${prefix}/lib/pkgconfig")
    step("pkg-config" ${PKG_CONFIG} --cflags --libs binschema-runtime)
    if(NOT step_out MATCHES "-lbinschema_runtime")
      fail("pkg-config --cflags --libs binschema-runtime printed '${step_out}'")
    endif()
    # The .pc file is relocatable: its paths lead into this prefix.
    step("pkg-config includedir" ${PKG_CONFIG} --variable=includedir binschema-runtime)
    string(STRIP "${step_out}" includedir)
    step("pkg-config libdir" ${PKG_CONFIG} --variable=libdir binschema-runtime)
    string(STRIP "${step_out}" libdir)
    if(NOT EXISTS "${includedir}/binschema/format.h" OR NOT EXISTS "${libdir}/libbinschema_runtime.a")
      fail("pkg-config's includedir '${includedir}' or libdir '${libdir}' is not the installed runtime's")
    endif()
  else()
    message(STATUS "pkg-config not found: the .pc file was installed but not tried")
  endif()
  list(APPEND configure_args "-DCMAKE_PREFIX_PATH=${prefix}")
elseif(MODE STREQUAL "subdirectory")
  # This builds binschema-gen, the runtime, the schema loader and BAEV from
  # source, with build type None as above (-g would add a quarter: the
  # engine's encode.cpp compiled in 11.6 s, 14.5 s with -g).
  list(APPEND configure_args "-DBINSCHEMA_SOURCE=${SOURCE}")
  # With the compiler ctest names (tests/CMakeLists.txt: BINSCHEMA_TEST_CXX,
  # clang++ where there is one): binschema built by another compiler than its own build's.
  if(CXX)
    list(APPEND configure_args "-DCMAKE_CXX_COMPILER=${CXX}")
  endif()
else()
  fail("MODE must be install or subdirectory")
endif()

step("configure the consumer" ${CMAKE_COMMAND} ${configure_args})
# Configuring wires every target of the consumer, its CLI (mytool) included:
# a binschema:: name that is not a target fails there, in both modes. The
# subdirectory build then builds what the C++ API needs and leaves mytool out:
# it would compile the run-time engine and the CLI library from source, about
# half of this test's time (105 s -> 59 s without). The install test builds
# and runs mytool against the installed CLI library.
if(MODE STREQUAL "subdirectory")
  step("build the consumer" ${CMAKE_COMMAND} --build "${work}/build" -j${JOBS} --target roundtrip schema_info)
else()
  step("build the consumer" ${CMAKE_COMMAND} --build "${work}/build" -j${JOBS})
endif()
step("roundtrip (C++ API)" "${work}/build/roundtrip")
step("schema_info (binschema::schema)" "${work}/build/schema_info")
set(want "probe, root Head
Head.count: scalar at 0, the count of values
Head.flags: scalar at 2
Head.values: inline array at 4
probe.yaml:10:9: unknown type 'u33'
")
if(NOT step_out STREQUAL want)
  fail("schema_info printed\n${step_out}instead of\n${want}")
endif()

if(MODE STREQUAL "subdirectory")
  passed(" (mytool configured, not built)")
  return()
endif()

set(tool "${work}/build/mytool")
step("mytool formats" "${tool}" formats)
if(NOT step_out MATCHES "(^|\n)mytiny\t" OR NOT step_out MATCHES "(^|\n)baev\t")
  fail("mytool formats does not list mytiny and baev:\n${step_out}")
endif()
file(WRITE "${work}/sample.yaml" "format: mytiny\nversion: 1\npoints:\n  - {x: 1, y: -2}\n  - {x: 300, y: 4}\nname: corner\n")
step("mytool encode" "${tool}" encode sample.yaml -o a.mytn)
file(SIZE "${work}/a.mytn" size)
if(NOT size EQUAL 24)
  fail("a.mytn is ${size} bytes, not 24")
endif()
step("mytool decode" "${tool}" decode a.mytn -o b.yaml)
step("mytool encode again" "${tool}" encode b.yaml -o c.mytn)
step("same bytes" ${CMAKE_COMMAND} -E compare_files a.mytn c.mytn)

passed("")
