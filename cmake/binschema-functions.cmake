# CMake functions for projects that use binschema, whether it came in through
# find_package(binschema), add_subdirectory() or FetchContent. Included by
# binschema's own CMakeLists.txt and by the installed binschemaConfig.cmake.
#
#   binschema_add_format(<target> <schema.yaml> [NO_CLI] [OUTPUT_DIR <dir>])
#     Generates <name>.h (the models and the binary API), <name>_text.h (their
#     text binding: to_text, from_text), <name>.cpp and <name>.md (and
#     <name>.schema.json, <name>.ksy) from the
#     schema at build time (again whenever the schema or binschema-gen changes) and builds a static library <target>
#     from them, linked to binschema::runtime. <name> is the schema file's name
#     without extension; it must equal the schema's `format:` (binschema-gen
#     says so when it does not). Hooks, where the schema names some, are
#     compiled from <name>.hooks.cpp beside the schema. The files go to
#     OUTPUT_DIR, else binschema's own generated/ folder for binschema's
#     formats, else <current binary dir>/binschema_generated.
#
#   binschema_add_cli(<target> FORMATS <format targets>...)
#     An executable <target> with the whole `binschema` command line (decode,
#     encode, batch, info, hash, ...) over exactly the formats listed, e.g.
#     binschema_add_cli(mytool FORMATS format_mine binschema::baev).
#     Needs binschema::cli (built when CLI11 is available).

include_guard(GLOBAL)

function(binschema_add_format target schema)
  cmake_parse_arguments(arg "NO_CLI" "OUTPUT_DIR" "" ${ARGN})
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "binschema_add_format(${target}): unexpected arguments: ${arg_UNPARSED_ARGUMENTS}")
  endif()
  get_filename_component(schema_abs ${schema} ABSOLUTE)
  get_filename_component(name ${schema} NAME_WE)
  if(NOT EXISTS ${schema_abs})
    message(FATAL_ERROR "binschema_add_format(${target}): no such schema: ${schema_abs}")
  endif()
  if(arg_OUTPUT_DIR)
    get_filename_component(out ${arg_OUTPUT_DIR} ABSOLUTE BASE_DIR ${CMAKE_CURRENT_BINARY_DIR})
  elseif(BINSCHEMA_GENERATED_DIR)
    set(out ${BINSCHEMA_GENERATED_DIR})
  else()
    set(out ${CMAKE_CURRENT_BINARY_DIR}/binschema_generated)
  endif()

  # The generator: binschema's own target when it is part of this build, the
  # imported one from an installed package otherwise.
  if(TARGET binschema-gen)
    set(gen binschema-gen)
  elseif(TARGET binschema::gen)
    set(gen binschema::gen)
  else()
    message(FATAL_ERROR "binschema_add_format(${target}): binschema-gen is unknown here; "
                        "call find_package(binschema) or add_subdirectory(<binschema>) first")
  endif()

  # A name list beside the schema (names: NAME.names.txt) is an input too.
  get_filename_component(names_dir ${schema_abs} DIRECTORY)
  set(names_file "")
  if(EXISTS ${names_dir}/${name}.names.txt)
    set(names_file ${names_dir}/${name}.names.txt)
  endif()
  add_custom_command(
    OUTPUT ${out}/${name}.h ${out}/${name}_text.h ${out}/${name}.cpp ${out}/${name}.md ${out}/${name}.schema.json ${out}/${name}.ksy
    COMMAND ${gen} ${schema_abs} --out ${out} --name ${name} --emit all
    DEPENDS ${gen} ${schema_abs} ${names_file}
    COMMENT "binschema-gen ${name}"
    VERBATIM)
  # Hand-written hooks, where the schema names some, sit beside it.
  get_filename_component(schema_dir ${schema_abs} DIRECTORY)
  set(hooks "")
  if(EXISTS ${schema_dir}/${name}.hooks.cpp)
    set(hooks ${schema_dir}/${name}.hooks.cpp)
  endif()
  # A hooks file added later (or a schema that starts naming hooks) re-runs
  # CMake, which then builds it: the schema and its folder (whose time
  # changes when a file is added) are configure dependencies.
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${schema_abs} ${schema_dir})
  add_library(${target} STATIC ${out}/${name}.cpp ${out}/${name}.h ${out}/${name}_text.h ${hooks})
  target_include_directories(${target} PUBLIC $<BUILD_INTERFACE:${out}>)
  target_link_libraries(${target} PUBLIC binschema::runtime)
  target_compile_features(${target} PUBLIC cxx_std_20)
  # The format's name (its C++ namespace), read by binschema_add_cli and
  # carried into the installed package.
  set_target_properties(${target} PROPERTIES BINSCHEMA_FORMAT ${name} EXPORT_PROPERTIES BINSCHEMA_FORMAT)
  if(NOT arg_NO_CLI)
    set_property(GLOBAL APPEND PROPERTY BINSCHEMA_FORMATS ${name})
    set_property(GLOBAL APPEND PROPERTY BINSCHEMA_FORMAT_TARGETS ${target})
  endif()
endfunction()

function(binschema_add_cli target)
  cmake_parse_arguments(arg "" "" "FORMATS" ${ARGN})
  if(arg_UNPARSED_ARGUMENTS OR NOT arg_FORMATS)
    message(FATAL_ERROR "usage: binschema_add_cli(<target> FORMATS <format targets>...)")
  endif()
  if(NOT TARGET binschema::cli)
    message(FATAL_ERROR "binschema_add_cli(${target}): binschema::cli is not available "
                        "(binschema was built without CLI11; install libcli11-dev and rebuild it)")
  endif()
  set(includes "")
  set(entries "")
  foreach(t ${arg_FORMATS})
    if(NOT TARGET ${t})
      message(FATAL_ERROR "binschema_add_cli(${target}): ${t} is not a target")
    endif()
    get_target_property(name ${t} BINSCHEMA_FORMAT)
    if(NOT name)
      message(FATAL_ERROR "binschema_add_cli(${target}): ${t} was not made by binschema_add_format")
    endif()
    string(APPEND includes "#include \"${name}.h\"\n")
    string(APPEND entries "      &binschema::${name}::format(),\n")
  endforeach()
  set(src ${CMAKE_CURRENT_BINARY_DIR}/${target}_main.cpp)
  file(CONFIGURE OUTPUT ${src} CONTENT
"// Generated by binschema_add_cli(${target}): the formats built into this program.
#include \"binschema/format.h\"
${includes}
namespace binschema {
const std::vector<const Format*>& all_formats() {
  static const std::vector<const Format*> list{
${entries}  };
  return list;
}
namespace cli {
int run(int argc, char** argv, const char* program);
}
}  // namespace binschema

int main(int argc, char** argv) { return binschema::cli::run(argc, argv, \"${target}\"); }
")
  add_executable(${target} ${src})
  target_link_libraries(${target} PRIVATE binschema::cli ${arg_FORMATS})
endfunction()
