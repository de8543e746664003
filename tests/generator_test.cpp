// Tests of the schema compiler: every class of schema error is reported with
// the schema's file:line:col, and the code generated for the test schema
// tests/schemas/tiny.yaml (big-endian, u32 pointers, struct-relative
// pointers, optional targets, unions, derived hashes) reads and writes
// correctly. The golden comparison of generated/ is the ctest
// `generated_is_current`.
#define BOOST_TEST_MODULE generator_test
#include <boost/test/unit_test.hpp>

#include <filesystem>
#include <fstream>

#include "binschema/hash.h"
#include "binschema/error.h"
#include "binschema/reader.h"
#include "code_writer.h"
#include "generate.h"
#include "shapes_text.h"
#include "tiny_text.h"

namespace fs = std::filesystem;
using binschema::gen::SchemaError;

namespace {

// Writes `text` to a schema file and returns the error message loading it
// gives ("" when it loads).
std::string schema_error(const std::string& text) {
  fs::path p = fs::temp_directory_path() / "binschema_generator_test.yaml";
  std::ofstream(p) << text;
  try {
    auto s = binschema::gen::load_schema(p.string());
    binschema::gen::generate_cpp(*s);
    binschema::gen::generate_markdown(*s);
  } catch (const SchemaError& e) {
    std::string m = e.what();
    return m.substr(m.find(".yaml:") + 6);  // keep "line:col: message"
  }
  return "";
}

const char* kHead =
    "format: t\n"
    "endian: little\n"
    "root: A\n"
    "types:\n"
    "  A:\n"
    "    fields:\n";

}  // namespace

BOOST_AUTO_TEST_SUITE(schema_errors)

BOOST_AUTO_TEST_CASE(valid_schema_loads) {
  BOOST_TEST(schema_error(std::string(kHead) + "      - {name: x, type: u32}\n") == "");
}

// load_schema_text: a schema from memory, its messages under the name it is
// given; load_schema reads a file into it.
BOOST_AUTO_TEST_CASE(a_schema_loads_from_text_under_its_name) {
  namespace gen = binschema::gen;
  const std::string text = std::string(kHead) + "      - {name: n, type: u16}\n      - {name: xs, type: \"u8[]\", count: n}\n";
  const auto s = gen::load_schema_text(text, "mem.yaml");
  BOOST_TEST(s->file == "mem.yaml");
  BOOST_TEST(s->root == "A");
  BOOST_TEST(gen::field_kind_name(s->find("A")->field("xs")->kind) == std::string("inline array"));
  BOOST_TEST(s->find("A")->field("n")->resolved.count_for == "xs");
  // The same text from a file: the same model, the same C++ but for the name.
  fs::path p = fs::temp_directory_path() / "mem.yaml";
  std::ofstream(p) << text;
  const auto f = gen::load_schema(p.string());
  BOOST_TEST(f->file == p.string());
  f->file = "mem.yaml";
  BOOST_TEST(gen::generate_cpp(*f).source == gen::generate_cpp(*s).source);
  auto error = [](const std::string& t) {
    try {
      gen::load_schema_text(t, "mem.yaml");
    } catch (const SchemaError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  BOOST_TEST(error(std::string(kHead) + "      - {name: x, type: u33}\n") == "mem.yaml:7:9: unknown type 'u33'");
  BOOST_TEST(error("format: t\nroot: [A\n") == "mem.yaml:3:1: end of sequence flow not found");
  BOOST_TEST(error("") == "mem.yaml:0:0: a schema is a map (format:, root:, types:, ...)");
  try {
    gen::load_schema((fs::temp_directory_path() / "no-such-schema.yaml").string());
    BOOST_FAIL("a missing file loaded");
  } catch (const SchemaError& e) {
    BOOST_TEST(e.what() == (fs::temp_directory_path() / "no-such-schema.yaml").string() + ":0:0: cannot read the schema file");
  }
}

BOOST_AUTO_TEST_CASE(unknown_key) {
  BOOST_TEST(schema_error(std::string(kHead) + "      - {name: x, type: u32, cuont: 3}\n").rfind(
                 "7:30: unknown key 'cuont'", 0) == 0);
  BOOST_TEST(schema_error("format: t\nendian: little\nroot: A\nsizes: 3\ntypes: {A: {fields: [{name: x, type: u8}]}}\n")
                 .rfind("4:1: unknown key 'sizes'", 0) == 0);
}

// share: equal: on pointers to structs or arrays and union cases that point to a struct only.
BOOST_AUTO_TEST_CASE(share_equal_where_it_applies) {
  const std::string why = "share: equal is for a pointer to a struct or an array (ptr:) that its struct places, or a union case "
                          "that points to a struct (block pools store equal blocks once with shared: true)";
  BOOST_TEST(schema_error(std::string(kHead) + "      - {name: x, type: u32, share: equal}\n") == "7:37: " + why);
  BOOST_TEST(schema_error(std::string(kHead) + "      - {name: x, type: B, ptr: u32, share: yes}\n  B:\n    fields: [{name: y, type: u8}]\n") ==
             "7:45: share is 'equal' (a fresh write stores equal targets once)");
  BOOST_TEST(schema_error(std::string(kHead) + "      - {name: x, type: B, ptr: u32, share: equal}\n  B:\n    fields: [{name: y, type: u8}]\n") == "");
  BOOST_TEST(schema_error(std::string(kHead) +
                          "      - {name: n, type: u32}\n"
                          "      - {name: xs, type: \"B[]\", ptr: u32, elem_ptr: u32, count: n, share: equal}\n"
                          "  B:\n    fields: [{name: y, type: u8}]\n") == "8:75: " + why);
  BOOST_TEST(schema_error(std::string(kHead) +
                          "      - {name: k, type: u8}\n"
                          "      - name: u\n        type: union\n        tag: k\n        cases:\n"
                          "          - {value: 0, name: a, type: u32, share: equal}\n") == "12:51: " + why);
}

BOOST_AUTO_TEST_CASE(unknown_type) {
  BOOST_TEST(schema_error(std::string(kHead) + "      - {name: x, type: Missing}\n") ==
             "7:9: unknown type 'Missing'");
}

BOOST_AUTO_TEST_CASE(count_naming_no_field) {
  BOOST_TEST(schema_error(std::string(kHead) +
                          "      - {name: n, type: u32}\n"
                          "      - {name: xs, type: \"u32[]\", ptr: u64, count: m}\n") ==
             "8:52: count names no field 'm' in A");
}

BOOST_AUTO_TEST_CASE(size_that_does_not_add_up) {
  BOOST_TEST(schema_error("format: t\nendian: little\nroot: A\ntypes:\n  A:\n    size: 0x10\n    fields:\n"
                          "      - {name: x, type: u32}\n      - {name: y, type: u64}\n") ==
             "6:11: size: 0x10 declared but the fields of 'A' add up to 0xc");
}

BOOST_AUTO_TEST_CASE(other_errors_carry_locations) {
  BOOST_TEST(schema_error(std::string(kHead) + "      - {name: x, type: u32, derive: \"count(\"}\n").rfind("7:38: in expression", 0) == 0);
  BOOST_TEST(schema_error(std::string(kHead) + "      - {name: x, type: string, ptr: u64, pool: nope}\n") ==
             "7:9: unknown pool 'nope'");
  BOOST_TEST(schema_error(std::string(kHead) + "      - {name: x, type: u32}\n    layout: [y]\n") ==
             "8:14: layout names no pointer field 'y' of A");
  BOOST_TEST(schema_error(std::string(kHead) + "      - {name: x, type: u32}\n      - {name: x, type: u8}\n") ==
             "8:9: field 'x' is defined twice");
  BOOST_TEST(schema_error("format: t\nendian: little\nroot: B\ntypes: {A: {fields: [{name: x, type: u8}]}}\n") ==
             "3:7: root names no struct 'B'");
  BOOST_TEST(schema_error(std::string(kHead) + "      - {name: x, type: u32, derive: \"size(nowhere)\"}\n") ==
             "7:38: size() takes a region or pool name");
  BOOST_TEST(schema_error("format: t\nendian: little\nroot: A\ntypes:\n  A:\n    fields: [{name: x, type: u8\n") != "");
}

// ---- Reviewer findings: each was a crash, C++ that did not compile, or a
// file that did not read back; now a schema error at the offending line.

const char* kPoolHead =
    "format: t\n"
    "endian: little\n"
    "root: A\n"
    "pools: {p: {}}\n"
    "types:\n"
    "  A:\n"
    "    fields:\n";

BOOST_AUTO_TEST_CASE(pointer_to_a_primitive_or_chars) {  // the generator crashed
  BOOST_TEST(schema_error(std::string(kHead) + "      - {name: x, type: u32, ptr: u32}\n").rfind(
                 "7:9: ptr: to a single primitive or char[N] is not supported", 0) == 0);
  BOOST_TEST(schema_error(std::string(kHead) + "      - {name: x, type: \"char[4]\", ptr: u32}\n").rfind(
                 "7:9: ptr: to a single primitive or char[N] is not supported", 0) == 0);
}

BOOST_AUTO_TEST_CASE(elem_ptr_on_primitives) {  // the generator crashed
  BOOST_TEST(schema_error(std::string(kHead) + "      - {name: n, type: u32}\n"
                          "      - {name: x, type: \"u32[]\", ptr: u32, elem_ptr: u32, count: n}\n") ==
             "8:9: elem_ptr: is for arrays of structs or strings");
}

BOOST_AUTO_TEST_CASE(reserved_or_const_array) {
  BOOST_TEST(schema_error(std::string(kHead) + "      - {name: x, type: \"u8[4]\", reserved: true}\n") ==
             "7:44: const: and reserved: are for a single integer or char[N] field, not an array");
}

BOOST_AUTO_TEST_CASE(default_on_a_string) {
  BOOST_TEST(schema_error(std::string(kPoolHead) + "      - {name: x, type: string, ptr: u32, pool: p, default: abc}\n") ==
             "8:61: default: is for primitive and char[N] fields");
}

BOOST_AUTO_TEST_CASE(derive_using_a_later_or_late_field) {
  BOOST_TEST(schema_error(std::string(kHead) + "      - {name: a, type: u32, derive: \"b + 1\"}\n"
                          "      - {name: b, type: u32, derive: \"2\"}\n") ==
             "7:38: derive: cannot use 'b': a derive: can only use derived fields declared before it");
  BOOST_TEST(schema_error(std::string(kHead) + "      - {name: a, type: u32, derive: \"file_size()\"}\n"
                          "      - {name: b, type: u32, derive: \"a + 1\"}\n") ==
             "8:38: derive: cannot use 'a': it is late (known only once the file is laid out)");
  // Earlier, non-late derived fields are fine.
  BOOST_TEST(schema_error(std::string(kHead) + "      - {name: a, type: u32, derive: \"2\"}\n"
                          "      - {name: b, type: u32, derive: \"a + 1\"}\n") == "");
}

BOOST_AUTO_TEST_CASE(union_tag_in_derive_or_if) {
  const std::string u = std::string(kHead) + "      - {name: k, type: u8}\n"
                        "      - {name: u, type: union, tag: k, cases: [{value: 1, name: a, type: u32}]}\n";
  BOOST_TEST(schema_error(u + "      - {name: d, type: u32, derive: \"k\"}\n") ==
             "9:38: derive: cannot use 'k': it is the tag of union 'u'");
  BOOST_TEST(schema_error(u + "      - {name: d, type: u32, if: \"k == 1\"}\n") ==
             "9:34: if: cannot use 'k': it is the tag of union 'u'");
}

BOOST_AUTO_TEST_CASE(union_tag_float_or_after_the_union) {
  BOOST_TEST(schema_error(std::string(kHead) + "      - {name: k, type: f32}\n"
                          "      - {name: u, type: union, tag: k, cases: [{value: 1, name: a, type: u32}]}\n") ==
             "7:9: a union tag is an integer field");
  BOOST_TEST(schema_error(std::string(kHead) +
                          "      - {name: u, type: union, tag: k, cases: [{value: 1, name: a, type: u32}]}\n"
                          "      - {name: k, type: u8}\n") ==
             "7:9: tag field 'k' of union 'u' must be declared before it");
}

BOOST_AUTO_TEST_CASE(union_case_pointing_to_an_array) {
  BOOST_TEST(schema_error(std::string(kHead) + "      - {name: k, type: u8}\n      - {name: n, type: u32}\n"
                          "      - {name: u, type: union, tag: k, cases: [{value: 1, name: a, type: \"u32[]\", ptr: u32, count: n}]}\n")
                 .rfind("9:48: a union case cannot point to an array", 0) == 0);
}

BOOST_AUTO_TEST_CASE(names_that_are_not_cpp) {
  BOOST_TEST(schema_error("format: t\nendian: little\nroot: A\ntypes:\n  V:\n    fields: [{name: x, type: u8}]\n"
                          "  A:\n    fields: [{name: v, type: V}]\n") ==
             "5:3: 'V' is reserved for the generated code: rename the struct");
  BOOST_TEST(schema_error("format: t\nendian: little\nroot: A\ntypes:\n  Self:\n    fields: [{name: x, type: u8}]\n"
                          "  A:\n    fields: [{name: v, type: u8}]\n") ==
             "5:3: 'Self' is reserved for the generated code: rename the struct");
  BOOST_TEST(schema_error("format: my-fmt\nendian: little\nroot: A\ntypes:\n  A:\n    fields: [{name: x, type: u8}]\n") ==
             "1:9: format 'my-fmt' is not a C++ identifier (letters, digits, _)");
}

BOOST_AUTO_TEST_CASE(version_field_naming_no_field) {
  const std::string head = "format: t\nendian: little\nroot: A\nversion_fields: [";
  const std::string types = "]\ntypes:\n  A:\n    fields: [{name: x, type: u8}, {name: b, type: B, ptr: u32}]\n"
                            "  B:\n    fields: [{name: v, type: u16}]\n";
  BOOST_TEST(schema_error(head + "ver" + types) == "4:18: version_fields: 'ver': 'ver' is no single model field of A");
  BOOST_TEST(schema_error(head + "b.w" + types) == "4:18: version_fields: 'b.w': 'w' is no single model field of B");
  BOOST_TEST(schema_error(head + "x.v" + types) == "4:18: version_fields: 'x.v': 'x' is not a struct that is always present");
  BOOST_TEST(schema_error(head + "x, b.v" + types) == "");
}

BOOST_AUTO_TEST_CASE(pooled_string_relative_to_its_struct) {  // wrote absolute, read relative
  BOOST_TEST(schema_error(std::string(kPoolHead) + "      - {name: x, type: string, ptr: u32, pool: p, base: struct}\n") ==
             "8:9: base: struct on a pooled string needs a scoped pool (scope: A)");
}

BOOST_AUTO_TEST_CASE(shared_scoped_pool) {  // the reader refused the file
  BOOST_TEST(schema_error("format: t\nendian: little\nroot: A\npools: {p: {scope: A}}\ntypes:\n  A:\n"
                          "    fields: [{name: x, type: u8}]\n")
                 .rfind("4:20: a scoped pool needs shared: false", 0) == 0);
}

BOOST_AUTO_TEST_CASE(char_const_that_cannot_read_back) {
  BOOST_TEST(schema_error(std::string(kHead) + "      - {name: x, type: \"char[4]\", const: \"A\\\\0B\"}\n").rfind(
                 "7:43: a char[N] const cannot have text after a NUL", 0) == 0);
  BOOST_TEST(schema_error(std::string(kHead) + "      - {name: x, type: \"char[2]\", const: ABC}\n") ==
             "7:43: const 'ABC' is longer than char[2]");
  // Trailing NULs are padding (tests/schemas/tiny.yaml's magic is "TNY\0").
  BOOST_TEST(schema_error(std::string(kHead) + "      - {name: x, type: \"char[4]\", const: \"AB\\\\0\"}\n") == "");
}

BOOST_AUTO_TEST_CASE(pointer_key_value) {  // "yes" used to mean false
  BOOST_TEST(schema_error(std::string(kHead) + "      - {name: x, type: u32, derive: \"1\", pointer: yes}\n") ==
             "7:52: pointer is 'true' or 'false'");
}

BOOST_AUTO_TEST_CASE(leading_zero_integer) {  // 010 was octal 8
  BOOST_TEST(schema_error(std::string(kHead) + "      - {name: x, type: u32, const: 010}\n").rfind(
                 "7:37: '010' has a leading 0", 0) == 0);
  BOOST_TEST(schema_error(std::string(kHead) + "      - {name: x, type: u32, const: 0}\n") == "");
  BOOST_TEST(schema_error(std::string(kHead) + "      - {name: x, type: u32, const: 0x10}\n") == "");
}

BOOST_AUTO_TEST_CASE(functions_the_writer_cannot_evaluate) {
  BOOST_TEST(schema_error(std::string(kHead) + "      - {name: x, type: u32, derive: \"until(4)\"}\n") ==
             "7:38: until() is only known when reading (count:, size:); derive: cannot use it");
  BOOST_TEST(schema_error(std::string(kHead) + "      - {name: k, type: \"u32[2]\"}\n"
                          "      - {name: x, type: u32, if: \"count(k)\"}\n") ==
             "8:34: if: cannot use count(): an if: is evaluated both when reading and when writing");
}

BOOST_AUTO_TEST_CASE(pool_placed_twice_names_the_pool) {
  // Detecting a struct written twice needs the whole write graph; the
  // encoder's message at least says which pool and which layout.
  fs::path p = fs::temp_directory_path() / "binschema_generator_test.yaml";
  std::ofstream(p) << "format: t\nendian: little\nroot: A\npools: {names: {}}\ntypes:\n  A:\n"
                      "    fields: [{name: x, type: string, ptr: u32, pool: names}]\n    layout: [pool names]\n";
  auto cpp = binschema::gen::generate_cpp(*binschema::gen::load_schema(p.string()));
  BOOST_TEST(cpp.source.find("pool 'names' placed twice: the layout of A places it, so A must be written exactly once") !=
             std::string::npos);
}

BOOST_AUTO_TEST_CASE(names_hooks_union_counts_and_self_are_checked) {
  BOOST_TEST(schema_error(std::string(kHead) + "      - {name: my-field, type: u8}\n") ==
             "7:16: field name 'my-field' is not a C++ identifier (letters, digits, _)");
  BOOST_TEST(schema_error("format: t\nendian: little\nroot: A\nhooks: [{name: h, on: A}, {name: h, on: A}]\n"
                          "types:\n  A:\n    fields: [{name: x, type: u8}]\n") == "4:27: hook 'h' is listed twice");
  BOOST_TEST(schema_error(std::string(kHead) + "      - {name: k, type: u8}\n      - {name: n, type: u32}\n"
                          "      - {name: u, type: union, tag: k, cases: [{value: 1, name: a, type: \"u32[]\", count: n}]}\n") ==
             "9:90: a union case's count must be a derived field (for instance derive: items(UNION))");
  const std::string self_head = "format: t\nendian: little\nroot: A\ntypes:\n"
                                "  B:\n    fields:\n      - {name: p, type: C, ptr: u64}\n    layout: [p, self]\n"
                                "  C:\n    size: 1\n    fields: [{name: x, type: u8}]\n";
  BOOST_TEST(schema_error(self_head + "  A:\n    fields: [{name: b, type: B}]\n") ==
             "13:14: 'b' holds B inline or in a plain array, but its layout uses self: point to it (ptr:, or elem_ptr: for arrays)");
  BOOST_TEST(schema_error(self_head + "  A:\n    fields: [{name: b, type: B, ptr: u64}]\n") == "");
  BOOST_TEST(schema_error("format: t\nendian: little\nroot: A\ntypes:\n"
                          "  E:\n    size: 8\n    fields: [{name: p, type: C, ptr: u64}]\n"
                          "  C:\n    size: 1\n    fields: [{name: x, type: u8}]\n"
                          "  B:\n    fields:\n      - {name: es, type: \"E[]\", ptr: u64, count: 1}\n    layout: [children es, self]\n"
                          "  A:\n    fields: [{name: b, type: B, ptr: u64}]\n") ==
             "11:3: children es comes before self, so 'shallow es' must follow self");
}

BOOST_AUTO_TEST_CASE(leading_zeros_in_expressions_and_defaults) {
  BOOST_TEST(schema_error(std::string(kHead) + "      - {name: xs, type: \"u8[]\", count: \"010\"}\n")
                 .find("'010' has a leading 0") != std::string::npos);
  BOOST_TEST(schema_error(std::string(kHead) + "      - {name: n, type: u8, default: 010}\n").find("leading") != std::string::npos);
  BOOST_TEST(schema_error(std::string(kHead) + "      - {name: n, type: u16, default: 0xFFFF}\n") == "");
}

BOOST_AUTO_TEST_CASE(constants_and_relocation_tables_are_checked) {
  BOOST_TEST(schema_error(std::string(kHead) + "      - {name: a, type: u8, const: 300}\n") == "7:9: const: 300 does not fit in u8");
  BOOST_TEST(schema_error(std::string(kHead) + "      - {name: a, type: s8, const: -129}\n") == "7:9: const: -129 does not fit in s8");
  BOOST_TEST(schema_error(std::string(kHead) + "      - {name: a, type: s8, const: -128}\n") == "");
  const std::string relt = "format: t\nendian: little\nroot: A\nrelocation_table: {kind: relt, data_end: \"nope + 1\"}\n"
                           "types:\n  A:\n    fields:\n      - {name: x, type: u32}\n";
  BOOST_TEST(schema_error(relt) == "4:42: 'nope' names no field of A");
  BOOST_TEST(schema_error("format: t\nendian: little\nroot: A\nrelocation_table: {kind: relt}\n"
                          "types:\n  A:\n    fields:\n      - {name: x, type: u32}\n")
                 .rfind("4:19: missing key 'data_end'", 0) == 0);
  BOOST_TEST(schema_error(std::string(kHead) +
                          "      - {name: n, type: u32}\n"
                          "      - {name: s, type: \"string[]\", ptr: u64, elem_ptr: u64, inline: pascal16, count: n}\n") ==
             "8:9: a pointer to an array of pointers to strings is not supported by schema v1");
}

// ---- The schema features of commit adf712b (context:, block pools, tag_shift,
// string bit fields, FIELD.BIT, count(a.b), ...); tests/features_test.cpp
// checks the code generated for them.

const char* kTop = "format: t\nendian: little\nroot: A\n";
// A struct B to point to.
const char* kB = "  B:\n    fields: [{name: v, type: u32}]\n";

BOOST_AUTO_TEST_CASE(context_names_root_integer_or_pointer_fields) {
  const std::string a = "types:\n  A:\n    fields:\n      - {name: x, type: u32}\n";
  BOOST_TEST(schema_error(std::string(kTop) + "context: [nope]\n" + a) ==
             "4:10: context: 'nope' is not an integer or pointer field of the root A");
  BOOST_TEST(schema_error(std::string(kTop) + "context: [x, xs]\n" + a + "      - {name: xs, type: \"u32[]\", count: x}\n") ==
             "4:10: context: 'xs' is not an integer or pointer field of the root A");
  BOOST_TEST(schema_error(std::string(kTop) + "context: [x]\n" + a) == "");
  // Without context:, a nested struct cannot name a root field.
  BOOST_TEST(schema_error(std::string(kTop) + "types:\n  A:\n    fields:\n      - {name: c, type: C}\n"
                          "      - {name: version, type: u32}\n"
                          "  C:\n    fields: [{name: v, type: u32, if: \"version > 1\"}]\n") ==
             "10:39: 'version' names no field of C");
}

BOOST_AUTO_TEST_CASE(context_pointer_only_on_the_read_side) {
  const std::string head = std::string(kTop) + "context: [b]\ntypes:\n  A:\n    fields:\n"
                           "      - {name: b, type: B, ptr: u32}\n      - {name: c, type: C}\n" + kB;
  BOOST_TEST(schema_error(head + "  C:\n    fields: [{name: v, type: u32, derive: \"b + 1\"}]\n") ==
             "13:43: derive: cannot use 'b': a pointer in context: is only known when reading (count:, size:)");
  BOOST_TEST(schema_error(head + "  C:\n    fields: [{name: v, type: u32, if: \"b > 4\"}]\n") ==
             "13:39: if: cannot use 'b': a pointer in context: is only known when reading (count:, size:)");
  BOOST_TEST(schema_error(head + "  C:\n    fields: [{name: v, type: \"u8[]\", count: \"b - 8\"}]\n") == "");
}

BOOST_AUTO_TEST_CASE(pool_base_is_a_root_integer_field) {
  const std::string a = "types:\n  A:\n    fields:\n      - {name: x, type: string, ptr: u32, pool: s}\n";
  BOOST_TEST(schema_error(std::string(kTop) + "pools:\n  s: {base: nope}\n" + a) ==
             "5:3: pool 's': base: 'nope' is not an integer field of the root A");
  BOOST_TEST(schema_error(std::string(kTop) + "pools:\n  s: {base: x}\n" + a) ==
             "5:3: pool 's': base: 'x' is not an integer field of the root A");
  BOOST_TEST(schema_error(std::string(kTop) + "pools:\n  s: {scope: A, shared: false, base: x}\n"
                          "types:\n  A:\n    fields:\n      - {name: x, type: u32}\n") ==
             "5:38: base: is for pools that are not scoped");
}

BOOST_AUTO_TEST_CASE(block_pools_are_checked) {
  const std::string x = "types:\n  A:\n    fields:\n      - {name: x, type: u32}\n";
  BOOST_TEST(schema_error(std::string(kTop) + "pools:\n  g: {kind: block}\n" + x) ==
             "5:6: a shared block pool needs type: (the struct whose equal blocks are stored once)");
  BOOST_TEST(schema_error(std::string(kTop) + "pools:\n  g: {kind: block, type: B, order: sorted}\n" + x + kB) ==
             "5:36: order: is for string pools, not block pools");
  BOOST_TEST(schema_error(std::string(kTop) + "pools:\n  s: {type: B}\n" + x + kB) ==
             "5:13: type: is for block pools (kind: block)");
  const std::string g = std::string(kTop) + "pools:\n  g: {kind: block, type: B}\ntypes:\n  A:\n    fields:\n";
  BOOST_TEST(schema_error(g + "      - {name: b, type: B, pool: g}\n" + kB) ==
             "9:9: a block pool holds structs: the field is a pointer to one struct (ptr:, type: a struct)");
  BOOST_TEST(schema_error(g + "      - {name: c, type: C, ptr: u32, pool: g}\n" + kB +
                          "  C:\n    fields: [{name: v, type: u32}]\n") ==
             "9:9: block pool 'g' holds B, not C");
  BOOST_TEST(schema_error(g + "      - {name: b, type: B, ptr: u32, pool: g}\n" + kB) == "");
}

BOOST_AUTO_TEST_CASE(null_value_needs_a_nullable_pointer) {
  BOOST_TEST(schema_error(std::string(kHead) + "      - {name: b, type: B, ptr: u32, null_value: 0xffffffff}\n" + kB) ==
             "7:50: null_value: is the stored value of an absent target (a nullable: true pointer)");
  BOOST_TEST(schema_error(std::string(kHead) +
                          "      - {name: b, type: B, ptr: u32, nullable: true, null_value: 0xffffffff}\n" + kB) == "");
}

BOOST_AUTO_TEST_CASE(tag_shift_unions_are_checked) {
  const std::string u = std::string(kHead) + "      - name: u\n        type: union\n        tag_shift: 24\n"
                        "        cases:\n          - {value: 1, name: a, type: B, ptr: u32}\n";
  BOOST_TEST(schema_error(u + "          - {value: 2, name: n, type: u32}\n" + kB) ==
             "12:13: with tag_shift:, every case is a pointer to a struct (ptr:)");
  BOOST_TEST(schema_error(u + "          - {value: 0x100, name: b, type: B, ptr: u32}\n" + kB) ==
             "12:13: case value 256 does not fit above bit 24 of the pointer");
  BOOST_TEST(schema_error(u + "          - {value: 0xff, name: b, type: B, ptr: u32}\n" + kB) == "");
  BOOST_TEST(schema_error(std::string(kHead) +
                          "      - {name: u, type: union, tag_shift: 32, cases: [{value: 1, name: a, type: B, ptr: u32}]}\n" + kB) ==
             "7:55: case value 1 does not fit above bit 32 of the pointer");
  BOOST_TEST(schema_error(std::string(kHead) +
                          "      - {name: u, type: union, tag_shift: 64, cases: [{value: 1, name: a, type: B, ptr: u32}]}\n" + kB) ==
             "7:43: tag_shift is the first bit of the tag in the pointer word (1-63)");
  BOOST_TEST(schema_error(std::string(kHead) + "      - {name: k, type: u8}\n"
                          "      - {name: u, type: union, tag: k, tag_shift: 24, cases: [{value: 1, name: a, type: B, ptr: u32}]}\n" + kB) ==
             "8:9: a union needs cases: and either tag: (the field holding the tag) or tag_shift: (the tag is in its pointers)");
  BOOST_TEST(schema_error(std::string(kHead) + "      - {name: k, type: u8}\n"
                          "      - {name: u, type: union, tag: k, cases: [{value: 1, name: a, type: B, ptr: u32, nullable: true}]}\n" + kB) ==
             "8:48: a union case that points to a struct is never null (no nullable:)");
}

BOOST_AUTO_TEST_CASE(string_bit_fields_are_checked) {
  BOOST_TEST(schema_error(std::string(kHead) +
                          "      - {name: w, type: u32, bits: [{name: s, bits: 16, type: string}, {name: k, bits: 16}]}\n") ==
             "7:37: a string bit field names its pool: pool: NAME (the bits hold its offset)");
  BOOST_TEST(schema_error(std::string(kTop) + "pools:\n  g: {kind: block, type: B}\ntypes:\n  A:\n    fields:\n"
                          "      - {name: w, type: u32, bits: [{name: s, bits: 16, type: string, pool: g}, {name: k, bits: 16}]}\n" + kB) ==
             "9:37: 'g' is no string pool (that is not scoped)");
  const std::string s = std::string(kTop) + "pools:\n  s: {}\ntypes:\n  A:\n    fields:\n";
  BOOST_TEST(schema_error(s + "      - {name: w, type: u32, bits: [{name: s, bits: 16, type: string, pool: s, default: x}, {name: k, bits: 16}]}\n") ==
             "9:89: a string bit field has no default");
  // The bits hold an offset from the pool's start (the writer wrote that, the
  // reader took it for a file offset).
  BOOST_TEST(schema_error(s + "      - {name: w, type: u32, bits: [{name: s, bits: 16, type: string, pool: s}, {name: k, bits: 16}]}\n")
                 .rfind("9:37: a string bit field needs a pool with base:", 0) == 0);
  BOOST_TEST(schema_error(std::string(kHead) +
                          "      - {name: w, type: u32, bits: [{name: s, bits: 16, type: float}, {name: k, bits: 16}]}\n") ==
             "7:63: a bit field's type is bool or string (or left out for an integer)");
  BOOST_TEST(schema_error(std::string(kHead) +
                          "      - {name: w, type: u32, bits: [{name: s, bits: 1, type: bool, default: yes}, {name: k, bits: 31}]}\n") ==
             "7:77: a bool bit field's default is true or false");
}

BOOST_AUTO_TEST_CASE(field_dot_bit_names_a_bit_field) {
  BOOST_TEST(schema_error(std::string(kHead) + "      - {name: w, type: u32, bits: [{name: a, bits: 16}, {name: k, bits: 16}]}\n"
                          "      - {name: x, type: u32, if: \"w.zz == 1\"}\n") ==
             "8:34: 'w.zz': w has no bit field 'zz'");
  BOOST_TEST(schema_error(std::string(kHead) + "      - {name: w, type: u32}\n      - {name: x, type: u32, if: \"w.a == 1\"}\n") ==
             "8:34: 'w.a': 'w' is no bits: field of A");
  BOOST_TEST(schema_error(std::string(kTop) + "pools:\n  s: {base: o}\ntypes:\n  A:\n    fields:\n"
                          "      - {name: o, type: u32, derive: start(s)}\n"
                          "      - {name: w, type: u32, bits: [{name: s, bits: 16, type: string, pool: s}, {name: k, bits: 16}]}\n"
                          "      - {name: x, type: u32, if: \"w.s\"}\n") ==
             "11:34: 'w.s' is a string, not a number");
  BOOST_TEST(schema_error(std::string(kHead) + "      - {name: w, type: u32, bits: [{name: a, bits: 16}, {name: k, bits: 16}]}\n"
                          "      - {name: x, type: u32, if: \"w.k == 1\"}\n") == "");
}

BOOST_AUTO_TEST_CASE(count_of_a_path_and_other_functions) {
  BOOST_TEST(schema_error(std::string(kHead) + "      - {name: n, type: u32}\n      - {name: bs, type: \"C[]\", count: n}\n"
                          "      - {name: m, type: u32, derive: \"count(bs.xs)\"}\n"
                          "  C:\n    fields:\n      - {name: k, type: u32}\n      - {name: xs, type: \"u32[]\", count: k}\n") ==
             "9:38: count(bs.xs): each step but the last is a single struct field that is always present");
  BOOST_TEST(schema_error(std::string(kHead) + "      - {name: b, type: C}\n      - {name: m, type: u32, derive: \"count(b.k)\"}\n"
                          "  C:\n    fields:\n      - {name: k, type: u32}\n") ==
             "8:38: count(b.k): the last step is no array");
  BOOST_TEST(schema_error(std::string(kHead) + "      - {name: x, type: u32}\n      - {name: h, type: u32, derive: \"murmur3(stem(x))\"}\n") ==
             "8:38: murmur3() takes a string field, stem(FIELD) or extension(FIELD)");
  BOOST_TEST(schema_error(std::string(kHead) + "      - {name: n, type: u32}\n      - {name: xs, type: \"u8[]\", count: \"max(n)\"}\n") ==
             "8:41: max() takes 2 argument(s)");
}

// Function names are resolved once, when an expression is parsed (expr.cpp):
// an unknown one is refused at the expression, wherever it stands in it.
BOOST_AUTO_TEST_CASE(functions_are_resolved_when_parsed) {
  using binschema::gen::Fn;
  const binschema::gen::Loc at{"x.yaml", 3, 7};
  const auto e = binschema::gen::parse_expr("size(r) + (file_size() ? count(a) : max(xs, v))", at);
  BOOST_TEST(e.args[0].calls(Fn::Size));
  BOOST_TEST(e.args[1].args[0].calls(Fn::FileSize));
  BOOST_TEST(e.args[1].args[1].calls(Fn::Count));
  BOOST_TEST(e.args[1].args[2].calls(Fn::Max));
  BOOST_TEST((e.args[1].args[2].args[0].kind == binschema::gen::Expr::Ident));  // a name, not a call
  BOOST_TEST(binschema::gen::parse_expr("murmur3(extension(p))", at).args[0].calls(Fn::Extension));
  try {
    binschema::gen::parse_expr("1 + (2 * crc64(a))", at);
    BOOST_FAIL("crc64() was accepted");
  } catch (const SchemaError& x) {
    BOOST_TEST(x.what() == std::string("x.yaml:3:7: unknown function 'crc64'"));
  }
  BOOST_TEST(schema_error(std::string(kHead) + "      - {name: x, type: u32}\n      - {name: h, type: u32, derive: \"x + crc64(x)\"}\n") ==
             "8:38: unknown function 'crc64'");
  BOOST_TEST(schema_error(std::string(kHead) + "      - {name: x, type: u32}\n      - {name: h, type: u32, derive: \"stem(x)\"}\n") ==
             "8:38: stem() is only an argument of fnv1a32(), murmur3() or crc32()");
  BOOST_TEST(schema_error(std::string(kHead) + "      - {name: x, type: u32}\n      - {name: h, type: u32, derive: \"1 + extension(x)\"}\n") ==
             "8:38: extension() is only an argument of fnv1a32(), murmur3() or crc32()");
}

// AAMP's keys (issue 25): ptr: u16, scale:, points_to: FIELD, sections, hash_of: crc32.
BOOST_AUTO_TEST_CASE(scale_points_to_sections) {
  const std::string b = "  B:\n    fields:\n      - {name: n, type: u32}\n      - {name: v, type: \"u32[]\", count: n}\n";
  const std::string u = "      - name: u\n        type: union\n        tag_shift: 24\n        cases:\n";
  // What aamp.yaml does.
  BOOST_TEST(schema_error("format: t\nendian: little\nroot: A\nsections:\n  s: {doc: S.}\ntypes:\n  A:\n    fields:\n" + u +
                          "          - {value: 1, name: a, type: B, ptr: u32, base: struct, scale: 4, points_to: v, section: s}\n"
                          "      - {name: bs, type: \"B[]\", ptr: u16, scale: 4, base: struct, count: 2}\n"
                          "      - {name: h, type: u32, hash_of: crc32}\n"
                          "    layout: [pool s]\n" + b) == "");
  BOOST_TEST(schema_error(std::string(kHead) + "      - {name: x, type: u32, scale: 4}\n") ==
             "7:37: scale: is for a pointer to a struct or an array (ptr:), a case of a tag_shift: union, or a string bit field");
  BOOST_TEST(schema_error(std::string(kHead) + "      - {name: x, type: B, ptr: u32, scale: 3}\n" + b) ==
             "7:45: scale: 3 is not a power of two of at least 2");
  BOOST_TEST(schema_error(std::string(kHead) + "      - {name: x, type: B, ptr: u24}\n" + b) == "7:33: pointer width is u16, u32 or u64");
  BOOST_TEST(schema_error(std::string(kHead) + "      - {name: x, type: B, ptr: u32, points_to: v}\n" + b) ==
             "7:49: points_to: FIELD is for a case of a tag_shift: union that points to a struct (the pointer holds where FIELD of it is)");
  BOOST_TEST(schema_error(std::string(kHead) + u + "          - {value: 1, name: a, type: B, ptr: u32, points_to: w}\n" + b) ==
             "11:63: points_to: 'w' is no field of B at a fixed offset");
  BOOST_TEST(schema_error(std::string(kHead) + "      - {name: x, type: B, ptr: u32, section: s}\n" + b) ==
             "7:9: section: names no section 's' (sections: at the top)");
  BOOST_TEST(schema_error("format: t\nendian: little\nroot: A\nsections:\n  s: {doc: S.}\ntypes:\n  A:\n    fields:\n"
                          "      - {name: x, type: B, ptr: u32}\n" + b) ==
             "5:3: section 's' is placed by no layout (`pool s` in one)");
  BOOST_TEST(schema_error("format: t\nendian: little\nroot: A\nsections:\n  s: {doc: S.}\ntypes:\n  A:\n    fields:\n"
                          "      - {name: x, type: u32, if: \"1\"}\n      - {name: y, type: B, ptr: u32, section: s}\n    layout: [pool s]\n" + b) ==
             "10:9: section: is for a pointer to a struct or an array of structs at a fixed offset (no if:, elem_ptr:, sort:), "
             "or a case of a tag_shift: union");
  BOOST_TEST(schema_error(std::string(kHead) + "      - {name: h, type: u32, hash_of: crc64}\n") ==
             "7:39: hash_of is 'fnv1a32', 'murmur3' or 'crc32' (the hash of a name)");
}

// has(F): whether a nullable: true pointer holds its target, on the write side
// (ASB's selectors count their optional default child).
BOOST_AUTO_TEST_CASE(has_takes_a_nullable_pointer_to_a_struct) {
  const std::string c = "  C:\n    size: 4\n    fields:\n      - {name: v, type: u32}\n";
  // What ASB's selectors do: a count over an array and an optional target, which is stored only when the count says so.
  BOOST_TEST(schema_error(std::string(kHead) +
                          "      - {name: n, type: u32, derive: \"count(xs) != 0 || has(d) ? count(xs) + 1 : 0\"}\n"
                          "      - {name: xs, type: \"C[]\", elem_ptr: u32, count: \"n != 0 ? n - 1 : 0\"}\n"
                          "      - {name: d, type: C, ptr: u32, nullable: true, if: \"n != 0\"}\n" + c) == "");
  BOOST_TEST(schema_error(std::string(kHead) + "      - {name: x, type: u32}\n      - {name: h, type: u32, derive: \"has(x)\"}\n") ==
             "8:38: has() takes a nullable: true pointer to a struct of A (a target that may be absent)");
  BOOST_TEST(schema_error(std::string(kHead) + "      - {name: d, type: C, ptr: u32}\n      - {name: h, type: u32, derive: \"has(d)\"}\n" + c) ==
             "8:38: has() takes a nullable: true pointer to a struct of A (a target that may be absent)");
  BOOST_TEST(schema_error(std::string(kHead) + "      - {name: d, type: C, ptr: u32, nullable: true}\n      - {name: h, type: u32, derive: \"has(d, d)\"}\n" + c) ==
             "8:38: has() takes 1 argument(s)");
  BOOST_TEST(schema_error(std::string(kHead) + "      - {name: d, type: C, ptr: u32, nullable: true}\n      - {name: xs, type: \"u8[]\", count: \"has(d)\"}\n" + c)
                 .find("has() cannot be used when reading") != std::string::npos);
  BOOST_TEST(schema_error(std::string(kHead) + "      - {name: d, type: C, ptr: u32, nullable: true}\n      - {name: h, type: u32, derive: \"has(d)\"}\n" + c) == "");
}

// Issue 24: union cases that point to structs are never null, and take
// base: struct with tag: and tag_shift: alike (tests/edges_test.cpp checks
// their bytes).
BOOST_AUTO_TEST_CASE(union_case_pointers) {
  const std::string kB = "  B:\n    fields: [{name: x, type: u32}]\n";
  BOOST_TEST(schema_error(std::string(kHead) +
                          "      - {name: u, type: union, tag_shift: 24, cases: [{value: 1, name: a, type: B, ptr: u32, nullable: true}]}\n" + kB) ==
             "7:55: a union case that points to a struct is never null (no nullable:)");
  BOOST_TEST(schema_error(std::string(kHead) +
                          "      - {name: u, type: union, tag_shift: 24, cases: [{value: 1, name: a, type: B, ptr: u32, base: struct}]}\n" + kB) == "");
  BOOST_TEST(schema_error(std::string(kHead) + "      - {name: k, type: u8}\n"
                          "      - {name: u, type: union, tag: k, cases: [{value: 1, name: a, type: B, ptr: u32, base: struct}]}\n" + kB) == "");
}

// count() of a number gave C++ that did not compile; count() of bytes is its length (tests/schemas/bools_sizes.yaml).
BOOST_AUTO_TEST_CASE(count_takes_an_array_or_bytes) {
  BOOST_TEST(schema_error(std::string(kHead) + "      - {name: k, type: u32}\n      - {name: n, type: u32, derive: \"count(k)\"}\n") ==
             "8:38: count() takes an array or a bytes field of A; 'k' is neither");
  BOOST_TEST(schema_error(std::string(kHead) + "      - {name: n, type: u32, derive: \"count(b)\"}\n      - {name: b, type: bytes, size: n}\n") == "");
}

// Listed twice, an extension was accepted silently (compared without case, as the CLI does).
BOOST_AUTO_TEST_CASE(extension_listed_twice) {
  BOOST_TEST(schema_error("format: t\nendian: little\nextensions: [.ab, .cd, .AB]\nroot: A\ntypes: {A: {fields: [{name: x, type: u8}]}}\n") ==
             "3:24: extension '.AB' is listed twice");
  BOOST_TEST(schema_error("format: t\nendian: little\nextensions: [.ab, .cd]\nroot: A\ntypes: {A: {fields: [{name: x, type: u8}]}}\n") == "");
}

// An enum of enums: that no field names was accepted silently (a leftover, or a misspelt enum:).
BOOST_AUTO_TEST_CASE(enum_no_field_uses) {
  const std::string top = "format: t\nendian: little\nroot: A\nenums:\n  Op: {0: gt, 1: le}\n  Kind: {0: a, 1: b}\ntypes:\n  A:\n    fields:\n";
  BOOST_TEST(schema_error(top + "      - {name: x, type: u8, enum: Op}\n") ==
             "6:3: enum 'Kind' is not used by any field (name it with enum: Kind, or remove it)");
  BOOST_TEST(schema_error(top + "      - {name: x, type: u8, enum: Op}\n      - {name: k, type: u8, enum: Kind}\n") == "");
  // Used by a union case only.
  BOOST_TEST(schema_error(top + "      - {name: x, type: u8, enum: Op}\n      - {name: t, type: u8}\n"
                          "      - {name: u, type: union, tag: t, cases: [{value: 0, name: k, type: u8, enum: Kind}]}\n") == "");
}

// Only a pointer breaks a cycle: a struct that holds itself by value has no end.
BOOST_AUTO_TEST_CASE(struct_holding_itself_by_value) {
  BOOST_TEST(schema_error(std::string(kHead) + "      - {name: x, type: u32}\n      - {name: a, type: A}\n") ==
             "5:3: struct 'A' contains itself inline");
  BOOST_TEST(schema_error(std::string(kHead) + "      - {name: b, type: B}\n  B:\n    fields:\n      - {name: a, type: \"A[2]\"}\n") ==
             "5:3: struct 'A' contains itself inline");
  BOOST_TEST(schema_error(std::string(kHead) + "      - {name: x, type: u32}\n      - {name: a, type: A, ptr: u32, nullable: true}\n") == "");
}

// A cycle of pointers that are never null has no finite model (its Box would construct forever).
BOOST_AUTO_TEST_CASE(struct_always_holding_itself) {
  BOOST_TEST(schema_error(std::string(kHead) + "      - {name: x, type: u32}\n      - {name: a, type: A, ptr: u32}\n") ==
             "8:9: struct 'A' always holds itself (a): every model would be endless; make a pointer of the cycle nullable: true");
  BOOST_TEST(schema_error(std::string(kHead) + "      - {name: b, type: B, ptr: u32}\n  B:\n    fields:\n      - {name: c, type: \"A[1]\", ptr: u32}\n") ==
             "10:9: struct 'A' always holds itself (b -> c): every model would be endless; make a pointer of the cycle nullable: true");
  // Under if:, the model still holds one.
  BOOST_TEST(schema_error(std::string(kHead) + "      - {name: n, type: u32}\n      - {name: a, type: A, ptr: u32, if: \"n != 0\"}\n") ==
             "8:9: struct 'A' always holds itself (a): every model would be endless; make a pointer of the cycle nullable: true");
  // A new union holds its first case.
  const std::string u = "      - {name: k, type: u8}\n      - name: u\n        type: union\n        tag: k\n        cases:\n";
  BOOST_TEST(schema_error(std::string(kHead) + u + "          - {value: 0, name: sub, type: A, ptr: u32}\n          - {value: 1, name: leaf, type: u32}\n") ==
             "8:9: struct 'A' always holds itself (u): every model would be endless; make a pointer of the cycle nullable: true"
             " (a union starts as its first case: put another case first)");
  // Ended by a nullable pointer, an open array or a later union case.
  BOOST_TEST(schema_error(std::string(kHead) + "      - {name: b, type: B, ptr: u32}\n  B:\n    fields:\n      - {name: a, type: A, ptr: u32, nullable: true}\n") == "");
  BOOST_TEST(schema_error(std::string(kHead) + "      - {name: n, type: u32}\n      - {name: a, type: \"A[]\", ptr: u32, count: n}\n") == "");
  BOOST_TEST(schema_error(std::string(kHead) + u + "          - {value: 0, name: leaf, type: u32}\n          - {value: 1, name: sub, type: A, ptr: u32}\n") == "");
}

// key: [KEY, FIELD...] on a ref: (composite keys, BFEVFL's actors): string
// fields of the elements, two or more, each once, on a ref: ARRAY only, one
// key per array.
BOOST_AUTO_TEST_CASE(composite_ref_keys) {
  const std::string head =
      "format: t\nendian: little\nroot: A\ntypes:\n"
      "  E:\n    fields:\n"
      "      - {name: name, type: string, ptr: u32, pool: p}\n"
      "      - {name: sub, type: string, ptr: u32, pool: p}\n"
      "      - {name: n, type: u16}\n"
      "      - {name: acts, type: \"string[]\", ptr: u32, pool: p, count: n}\n"
      "  A:\n    fields:\n"
      "      - {name: c, type: u16}\n"
      "      - {name: es, type: \"E[]\", ptr: u32, count: c}\n"
      "pools: {p: {kind: cstring}}\n";
  auto with = [&](const std::string& f) {
    std::string t = head;
    t.insert(t.find("pools:"), f);
    return schema_error(t);
  };
  BOOST_TEST(with("      - {name: r, type: u16, ref: es, key: [name, sub]}\n") == "");
  // With a ref: ARRAY.LIST beside it, before or after.
  BOOST_TEST(with("      - {name: r, type: u16, ref: es, key: [name, sub]}\n      - {name: q, type: u16, ref: es.acts, via: r}\n") == "");
  BOOST_TEST(with("      - {name: q0, type: u16}\n      - {name: q, type: u16, ref: es.acts, via: q0}\n      - {name: r, type: u16, ref: es, key: [name, sub]}\n") == "");
  BOOST_TEST(with("      - {name: r, type: u16, ref: es, key: [name]}\n").find("key: a list names two or more fields") != std::string::npos);
  BOOST_TEST(with("      - {name: r, type: u16, ref: es, key: [name, n]}\n").find("have no string field 'n' to be named by (key:)") != std::string::npos);
  BOOST_TEST(with("      - {name: r, type: u16, ref: es, key: [name, name]}\n").find("key: 'name' is named twice") != std::string::npos);
  BOOST_TEST(with("      - {name: r, type: u16, ref: es, key: [name, sub]}\n      - {name: s, type: u16, ref: es}\n")
                 .find("references into 'es' use two keys ([name, sub] and 'name')") != std::string::npos);
  BOOST_TEST(with("      - {name: r, type: u16, ref: es}\n      - {name: q, type: u16, ref: es.acts, via: r, key: [name, sub]}\n")
                 .find("key: [...] belongs to the ref: 'es' fields") != std::string::npos);
}

// map: and unwrap: (the text's shape) are refused where they cannot hold,
// at the key that says them.
BOOST_AUTO_TEST_CASE(text_shapes_are_checked_where_they_are_said) {
  const std::string elem =
      "  E:\n"
      "    fields:\n"
      "      - {name: name, type: cstring}\n"
      "      - {name: value, type: u32}\n";
  auto with = [&](const std::string& field, const std::string& more = "") {
    return schema_error(std::string(kHead) + "      - {name: n, type: u32}\n" + field + elem + more);
  };
  BOOST_TEST(with("      - {name: es, type: \"E[]\", count: n, map: name}\n") == "");
  BOOST_TEST(with("      - {name: es, type: \"E[]\", count: n, map: nmae}\n") == "8:48: map: E has no field 'nmae'");
  BOOST_TEST(with("      - {name: es, type: \"u32[]\", count: n, map: name}\n") ==
             "8:50: map: 'es' is an array of u32: only struct elements have a key field");
  BOOST_TEST(with("      - {name: es, type: E, map: name}\n") ==
             "8:34: map: 'es' is no array of the model: map: shows an array of structs as a map");
  BOOST_TEST(with("      - {name: es, type: \"E[2]\", map: name}\n") ==
             "8:39: map: 'es' has a fixed count (T[N]): a map's entries are added and removed, so map: is for counted arrays");
  BOOST_TEST(with("      - {name: es, type: \"F[]\", count: n, map: name}\n",
                  "  F:\n    fields:\n      - {name: name, type: cstring}\n") ==
             "8:48: map: F has no field besides 'name' to show as the entry's value");
  BOOST_TEST(with("      - {name: es, type: \"F[]\", count: n, map: k}\n",
                  "  F:\n    fields:\n      - {name: k, type: f32}\n      - {name: v, type: u8}\n") ==
             "8:48: map: 'k' of F is no integer or string: a key is one integer (a number, or its enum, ref or hash name) or one string");
  BOOST_TEST(with("      - {name: es, type: \"F[]\", count: n, map: k}\n",
                  "  F:\n    fields:\n      - {name: k, type: u8, const: 1}\n      - {name: v, type: u8}\n") ==
             "8:48: map: 'k' of F is not in the model (const, derived, a count or a tag): the text has no value to key by");
  // A union's cases are structs that all have the key.
  const std::string tagged =
      "      - {name: tags, type: \"u8[]\", count: n}\n"
      "      - name: es\n"
      "        type: \"union[]\"\n"
      "        count: n\n"
      "        tag: tags\n"
      "        map: id\n"
      "        cases:\n"
      "          - {value: 1, name: g, type: G}\n";
  const std::string cases =
      "  G:\n    fields:\n      - {name: id, type: u16}\n      - {name: f, type: f32}\n"
      "  H:\n    fields:\n      - {name: id, type: u16}\n      - {name: w, type: u32}\n";
  BOOST_TEST(with(tagged + "          - {value: 2, name: h, type: H}\n", cases) == "");
  BOOST_TEST(with(tagged + "          - {value: 2, name: h, type: \"u16[3]\"}\n", cases) ==
             "13:14: map: 'es': case 'h' is no struct, so it has no key field (every case of a map's union is a struct with 'id')");
  // unwrap: exactly one field in the model (hidden ones do not count).
  const std::string u = std::string(kHead) + "      - {name: b, type: B}\n  B:\n    unwrap: true\n    fields:\n";
  BOOST_TEST(schema_error(u + "      - {name: count, type: u8}\n      - {name: v, type: \"u8[]\", count: count}\n") == "");
  BOOST_TEST(schema_error(u + "      - {name: x, type: u8}\n      - {name: y, type: u8}\n") ==
             "9:13: unwrap: B shows 2 fields (x, y): unwrap: needs exactly one");
  BOOST_TEST(schema_error(u + "      - {name: x, type: u8, const: 1}\n") == "9:13: unwrap: B shows 0 fields: unwrap: needs exactly one");
  BOOST_TEST(schema_error(u + "      - {name: t, type: u8, const: 1}\n      - {name: x, type: u8, if: \"t == 1\"}\n") ==
             "9:13: unwrap: the one field of B, 'x', has if:: an unwrapped struct's value is always there");
  BOOST_TEST(schema_error(u + "      - {name: x, type: u8}\n").empty());
  BOOST_TEST(schema_error(std::string(kHead) + "      - {name: x, type: u8}\n  B:\n    unwrap: yes\n    fields: [{name: x, type: u8}]\n") ==
             "9:13: unwrap is 'true' or 'false'");
  BOOST_TEST(schema_error("format: t\nendian: little\nroot: A\ntypes:\n  A:\n    unwrap: true\n    fields:\n      - {name: x, type: u8}\n") ==
             "6:13: unwrap: A is the root: the document is a map of its fields");
}

BOOST_AUTO_TEST_SUITE_END()

// ---- Former limits (docs/schema-language.md §10 before field shapes): each
// crashed the generator, gave C++ that did not compile, or a file that did
// not read back. Those that work now are tested on tests/schemas/shapes.yaml
// (suite generated_shapes); the others are schema errors at their line.

BOOST_AUTO_TEST_SUITE(former_limits)

using schema_errors::kB;
using schema_errors::kTop;

BOOST_AUTO_TEST_CASE(string_array_with_ptr) {  // segmentation fault
  const std::string n = std::string(kHead) + "      - {name: n, type: u32}\n";
  BOOST_TEST(schema_error(n + "      - {name: s, type: \"string[]\", ptr: u32, elem_ptr: u32, inline: pascal16, count: n}\n") ==
             "8:9: a pointer to an array of pointers to strings is not supported by schema v1");
  BOOST_TEST(schema_error(n + "      - {name: s, type: \"string[]\", ptr: u32, inline: pascal16, count: n}\n") ==
             "8:9: arrays of strings need a pool, or elem_ptr: with inline: pascal16");
  BOOST_TEST(schema_error(n + "      - {name: s, type: \"string[]\", elem_ptr: u32, inline: pascal16, count: n}\n") ==
             "8:9: an array of pointers to Pascal strings (elem_ptr: with inline: pascal16) is only supported as a union case");
}

BOOST_AUTO_TEST_CASE(context_naming_a_derived_root_field) {  // C++ that did not compile
  const std::string a = "types:\n  A:\n    fields:\n      - {name: x, type: u32}\n";
  BOOST_TEST(schema_error(std::string(kTop) + "context: [d]\n" + a + "      - {name: d, type: u32, derive: \"x + 1\"}\n") ==
             "4:10: context: 'd' is derived: the writer knows it only once the file is laid out (name a field the model holds, a const or a count)");
  BOOST_TEST(schema_error(std::string(kTop) + "context: [k]\n" + a + "      - {name: k, type: u8}\n"
                          "      - {name: u, type: union, tag: k, cases: [{value: 1, name: a, type: u32}]}\n") ==
             "4:10: context: 'k' is the tag of union 'u' (the model holds the case, not the tag)");
}

BOOST_AUTO_TEST_CASE(pool_field_naming_a_block_pool) {  // segmentation fault
  BOOST_TEST(schema_error(std::string(kTop) + "pools:\n  g: {kind: block, type: B}\ntypes:\n  A:\n    fields:\n"
                          "      - {name: p, type: pool, pool: g, size: rest}\n" + kB) ==
             "9:9: a pool field holds a string pool; block pool 'g' is placed by `pool g` in a layout");
}

BOOST_AUTO_TEST_CASE(count_after_its_inline_array) {  // read back empty
  BOOST_TEST(schema_error(std::string(kHead) + "      - {name: xs, type: \"u8[]\", count: n}\n      - {name: n, type: u8}\n") ==
             "7:41: count field 'n' of inline array 'xs' must be declared before it (it is read first)");
}

BOOST_AUTO_TEST_CASE(start_of_a_block_pool) {  // encoding failed: region never placed
  BOOST_TEST(schema_error(std::string(kTop) + "pools:\n  g: {kind: block, type: B}\ntypes:\n  A:\n    fields:\n"
                          "      - {name: b, type: B, ptr: u32, pool: g}\n      - {name: o, type: u32, derive: start(g)}\n" + kB) ==
             "10:38: start() takes a region or string pool; 'g' is a block pool");
}

BOOST_AUTO_TEST_CASE(scoped_block_pool_never_placed) {  // pointers left at 0
  BOOST_TEST(schema_error(std::string(kTop) + "pools:\n  g: {kind: block, type: B, scope: C, shared: false}\ntypes:\n  A:\n    fields:\n"
                          "      - {name: c, type: C, ptr: u32}\n  C:\n    fields:\n      - {name: b, type: B, ptr: u32, pool: g}\n" + kB) ==
             "5:3: scoped block pool 'g' needs `pool g` in the layout of C");
}

BOOST_AUTO_TEST_CASE(string_bit_field_without_base) {  // did not read back
  BOOST_TEST(schema_error(std::string(kTop) + "pools:\n  s: {}\ntypes:\n  A:\n    fields:\n"
                          "      - {name: w, type: u32, bits: [{name: t, bits: 16, type: string, pool: s}, {name: k, bits: 16}]}\n") ==
             "9:37: a string bit field needs a pool with base: (its offsets are relative to the pool)");
}

BOOST_AUTO_TEST_CASE(points_to_chars_outside_a_pascal16_pool) {  // the pool's kind was not checked
  const std::string msg =
      "9:9: points_to: chars is for a string pointer into a pascal16 pool that is not scoped (it points past the length)";
  BOOST_TEST(schema_error(std::string(kTop) + "pools:\n  s: {}\ntypes:\n  A:\n    fields:\n"
                          "      - {name: t, type: string, ptr: u32, pool: s, points_to: chars}\n") == msg);
  BOOST_TEST(schema_error(std::string(kTop) + "pools:\n  s: {kind: pascal16}\ntypes:\n  A:\n    fields:\n"
                          "      - {name: t, type: string, ptr: u32, pool: s, points_to: chars}\n") == "");
}

BOOST_AUTO_TEST_CASE(octal_in_expressions_and_layouts) {  // 010 meant 8
  BOOST_TEST(schema_error(std::string(kHead) + "      - {name: xs, type: \"u8[]\", count: \"n + 010\"}\n").find(
                 "'010' has a leading 0") != std::string::npos);
  BOOST_TEST(schema_error(std::string(kHead) + "      - {name: p, type: B, ptr: u32}\n    layout: [align 010, p]\n" + kB) ==
             "8:14: '010' has a leading 0 (octal or decimal?): write it without the 0, or as 0x..");
  BOOST_TEST(schema_error(std::string(kHead) + "      - {name: p, type: B, ptr: u32}\n    layout: [zeros 4k, p]\n" + kB) ==
             "8:14: 'zeros 4k' needs a number");
  BOOST_TEST(schema_error(std::string(kHead) + "      - {name: p, type: B, ptr: u32}\n    layout: [align 0x10, zeros 8, p]\n" + kB) == "");
}

BOOST_AUTO_TEST_CASE(union_case_shapes) {  // "this kind of union case is not supported", from the C++ back end
  const std::string u = std::string(kHead) + "      - {name: k, type: u8}\n      - name: u\n        type: union\n        tag: k\n        cases:\n";
  BOOST_TEST(schema_error(u + "          - {value: 1, name: c, type: \"char[4]\"}\n").rfind("12:13: a union case cannot be a chars", 0) == 0);
  BOOST_TEST(schema_error(u + "          - {value: 1, name: c, type: cstring}\n").rfind("12:13: a union case cannot be a cstring", 0) == 0);
  // (Allowed as the last field of the struct: see byml_language.)
  BOOST_TEST(schema_error(u + "          - {value: 1, name: c, type: Var}\n      - {name: after, type: u8}\n  Var:\n    fields: [{name: s, type: cstring}]\n")
                 .rfind("12:13: a union case cannot be an inline struct of variable size", 0) == 0);
  BOOST_TEST(schema_error(u + "          - {value: 1, name: c, type: u32}\n") == "");
}

// The validator gives each union case the payload the union reader and
// writer switch on (CaseKind), from its shape.
BOOST_AUTO_TEST_CASE(union_cases_get_their_payload_kind) {
  using binschema::gen::CaseKind;
  const std::string text = std::string(kHead) +
                           "      - {name: k, type: u32}\n"
                           "      - name: u\n        type: union\n        tag: k\n        cases:\n"
                           "          - {value: 0, name: number, type: u32}\n"
                           "          - {value: 1, name: numbers, type: \"u16[2]\"}\n"
                           "          - {value: 2, name: inline, type: B}\n"
                           "          - {value: 3, name: pointer, type: B, ptr: u32}\n"
                           "          - {value: 4, name: text, type: string, ptr: u32, pool: names}\n"
                           "  B:\n    size: 4\n    fields: [{name: v, type: u32}]\n"
                           "pools:\n  names: {kind: cstring}\n";
  auto s = binschema::gen::load_schema_text(text, "cases.yaml");
  const auto& cases = s->find("A")->field("u")->variant.cases;
  BOOST_TEST_REQUIRE(cases.size() == 5u);
  BOOST_TEST((cases[0].kind == CaseKind::Number));
  BOOST_TEST((cases[1].kind == CaseKind::Numbers));
  BOOST_TEST((cases[2].kind == CaseKind::Struct));
  BOOST_TEST((cases[3].kind == CaseKind::StructPointer));
  BOOST_TEST((cases[4].kind == CaseKind::PooledString));
}

// size: rest runs to the end of the file (or, under extent: next, to the
// next element's target): whatever the writer put after it was read back as
// part of it, and the file did not round-trip. Now each such schema is
// refused at the field, naming what would land there.
BOOST_AUTO_TEST_CASE(size_rest_followed_by_other_blocks) {  // did not read back
  const std::string b = "  B:\n    size: 4\n    fields: [{name: v, type: u32}]\n";
  const std::string rest = "      - {name: data, type: bytes, size: rest}\n";
  const std::string at = "7:9: 'data' runs to the end of A's block (size: rest), but ";
  // The root's own pointer target goes after its bytes.
  BOOST_TEST(schema_error(std::string(kHead) + rest + "      - {name: p, type: B, ptr: u32}\n" + b) ==
             at + "'p' follows it in A");
  BOOST_TEST(schema_error(std::string(kHead) + "      - {name: p, type: B, ptr: u32}\n" + rest + b) ==
             "8:9: 'data' runs to the end of A's block (size: rest), but A places the target of 'p' after itself, where 'data' would read it");
  // A pool left at its default place, the end of the file.
  BOOST_TEST(schema_error(std::string(kTop) + "pools:\n  s: {}\ntypes:\n  A:\n    fields:\n"
                          "      - {name: n, type: string, ptr: u32, pool: s}\n" + rest) ==
             "10:9: 'data' runs to the end of A's block (size: rest), but pool 's' is placed at the end of the file, after it (place it with `pool s` in a layout)");
  // extent: next: an element that places two targets, and an array followed by another target.
  const std::string head = std::string(kHead) + "      - {name: n, type: u32}\n      - {name: es, type: \"E[]\", count: n}\n";
  const std::string e = "  E:\n    size: 8\n    fields:\n      - {name: t, type: T, ptr: u32, extent: next}\n";
  const std::string tt = "  T:\n    fields:\n      - {name: k, type: u32}\n      - {name: data, type: bytes, size: rest}\n";
  BOOST_TEST(schema_error(head + e + "      - {name: q, type: B, ptr: u32}\n" + tt + b) ==
             "17:9: 'data' runs to the end of T's block (size: rest), but E places the target of 'q' after it");
  BOOST_TEST(schema_error(head + "      - {name: q, type: B, ptr: u32}\n    layout: [children es, q]\n" + e + "      - {name: pad, type: u32}\n" + tt + b) ==
             "19:9: 'data' runs to the end of T's block (size: rest), but A places the target of 'q' after the last of them");
  // A pointer without extent: next to such a block from an array: every element but the last would run to the end.
  BOOST_TEST(schema_error(head + "  E:\n    size: 8\n    fields:\n      - {name: t, type: T, ptr: u32}\n      - {name: pad, type: u32}\n" + tt) ==
             "17:9: 'data' runs to the end of T's block (size: rest), but E is an element of 'A.es', and only the last element's block ends at the end of the file");
  // A pool the root's layout places goes after the root's bytes too.
  BOOST_TEST(schema_error(std::string(kTop) + "pools:\n  s: {}\ntypes:\n  A:\n    fields:\n"
                          "      - {name: n, type: string, ptr: u32, pool: s}\n" + rest + "    layout: [pool s]\n") ==
             "10:9: 'data' runs to the end of A's block (size: rest), but A places pool 's' after itself, where 'data' would read it");
  // What works (as AL): the blocks one after the other, the array's targets last, other targets and pools before them.
  BOOST_TEST(schema_error(head + "      - {name: q, type: B, ptr: u32}\n    layout: [q, children es]\n" + e + "      - {name: pad, type: u32}\n" + tt + b) == "");
  BOOST_TEST(schema_error(std::string(kTop) + "pools:\n  s: {}\ntypes:\n  A:\n    fields:\n      - {name: nm, type: string, ptr: u32, pool: s}\n"
                          "      - {name: n, type: u32}\n      - {name: es, type: \"E[]\", count: n}\n    layout: [pool s, children es]\n" +
                          e + "      - {name: pad, type: u32}\n" + tt) == "");
}

BOOST_AUTO_TEST_SUITE_END()

// ---- What the schema corpus (tests/corpus) found ------------------------------------

BOOST_AUTO_TEST_SUITE(corpus_findings)

// A dic (no member of the model) after a variable-size field: its slot was
// noted in c.at under &x.<dic>, which does not exist (the C++ did not compile).
BOOST_AUTO_TEST_CASE(dic_at_a_variable_offset) {
  fs::path p = fs::temp_directory_path() / "binschema_generator_test_dic.yaml";
  std::ofstream(p) << "format: t\nendian: little\nroot: A\npools:\n  s: {kind: pascal16}\ntypes:\n  A:\n    fields:\n"
                      "      - {name: label, type: cstring}\n"
                      "      - {name: es, type: \"E[]\", ptr: u64, count: n}\n"
                      "      - {name: n, type: u16}\n"
                      "      - {name: d, type: dic, ptr: u64, keys: es.name, pool: s}\n"
                      "  E:\n    fields:\n      - {name: name, type: string, virtual: true}\n";
  auto s = binschema::gen::load_schema(p.string());
  const std::string c = binschema::gen::generate_cpp(*s).source;
  BOOST_TEST(c.find("c.at.set(&x, ") != std::string::npos);  // its slot, under the struct's address
  BOOST_TEST(c.find("x.d,") == std::string::npos);
  BOOST_TEST(c.find("x.d)") == std::string::npos);
}

// A plain pooled string in a pool placed by a root field (base: FIELD): its
// string was not noted for the field's check, so the reader did not skip the
// pool and read the fields after it from inside the pool.
BOOST_AUTO_TEST_CASE(pool_placed_by_its_field_then_more_fields) {
  fs::path p = fs::temp_directory_path() / "binschema_generator_test_placed.yaml";
  std::ofstream(p) << "format: t\nendian: little\nroot: A\npools:\n  n: {kind: cstring, align: 4, base: names}\ntypes:\n  A:\n    fields:\n"
                      "      - {name: c, type: u16}\n"
                      "      - {name: es, type: \"E[]\", count: c}\n"
                      "      - {name: names, type: pool, pool: n}\n"
                      "      - {name: after, type: u32}\n"
                      "  E:\n    size: 4\n    fields:\n      - {name: name, type: string, ptr: u32, pool: n}\n";
  auto s = binschema::gen::load_schema(p.string());
  const std::string c = binschema::gen::generate_cpp(*s).source;
  BOOST_TEST(c.find("r.refs_n.emplace_back(r.base_n + f_name, x.name.size());") != std::string::npos);
}

// A string of a pool placed by a root field (base:) is checked at that
// field against the strings read from the root's first field at the cursor
// on (where the reader works out the pool's start): one read before that
// field, after the pool's, or as the target of one of the root's pointers
// (read after all its fields) was not checked, and the file the writer made
// of such a model did not read back ("names: string at 0x14, but the writer
// would put it at 0x10"), the generated code and the engine alike.
BOOST_AUTO_TEST_CASE(placed_pool_strings_read_between_the_cursor_and_the_pool) {
  const std::string head = "format: t\nendian: little\nroot: A\npools:\n  n: {kind: cstring, align: 4, base: names}\ntypes:\n  A:\n    fields:\n";
  const std::string e = "  E:\n    fields:\n      - {name: name, type: string, ptr: u16, pool: n}\n";
  const std::string c = "      - {name: c, type: u16}\n", es = "      - {name: es, type: \"E[]\", count: c}\n";
  const std::string names = "      - {name: names, type: pool, pool: n}\n", one = "      - {name: one, type: E}\n";
  // Through an array at the cursor and a struct after it, before the pool: accepted.
  BOOST_TEST(schema_error(head + c + es + one + names + e) == "");
  const std::string why = " reads strings of pool 'n', which 'names' places and checks against the strings read from the root's first field at the cursor ";
  BOOST_TEST(schema_error(head + c + es + "      - {name: t, type: string, ptr: u16, pool: n}\n" + names + e) ==
             "11:9: 't'" + why + "('es') up to 'names': the target of the root's pointer 't' is read after all the root's fields (read them through a field between the two)");
  BOOST_TEST(schema_error(head + c + es + "      - {name: p, type: E, ptr: u32}\n" + names + e) ==
             "11:9: 'p'" + why + "('es') up to 'names': the target of the root's pointer 'p' is read after all the root's fields (read them through a field between the two)");
  BOOST_TEST(schema_error(head + one + c + es + names + e) ==
             "9:9: 'one'" + why + "(none before 'names') up to 'names': 'one' comes before it (read them through a field between the two)");
  BOOST_TEST(schema_error(head + c + es + names + one + e) ==
             "12:9: 'one'" + why + "('es') up to 'names': 'one' comes after 'names' (read them through a field between the two)");
}

// A data pool with anything else outside the root: the reader checks the
// slices from the end of the root to the end of the file, so every such file
// was refused on read ("the pool starts at 0x760, but the writer would start
// it at 0xa0").
BOOST_AUTO_TEST_CASE(data_pool_with_other_blocks) {
  const std::string head = std::string(schema_errors::kTop) + "pools:\n  d: {kind: data, base: ds}\n";
  const std::string fields = "types:\n  A:\n    fields:\n      - {name: ds, type: u32, derive: start(d)}\n"
                             "      - {name: b, type: bytes, ptr: u32, pool: d}\n";
  BOOST_TEST(schema_error(head + fields) == "");
  BOOST_TEST(schema_error(head + fields + "      - {name: p, type: B, ptr: u32}\n" + schema_errors::kB) ==
             "11:9: 'p' points to a block written after the root, but data pool 'd' follows the root directly "
             "(the reader checks its slices from the end of the root to the end of the file)");
  BOOST_TEST(schema_error(head + "  s: {kind: cstring}\n" + fields + "      - {name: n, type: string, ptr: u32, pool: s}\n")
                 .rfind("6:3: pool 's' is written outside the root, but data pool 'd' follows the root directly", 0) == 0);
  BOOST_TEST(schema_error(head + "  e: {kind: data, base: ds}\n" + fields) ==
             "6:3: data pool 'e': a schema has one data pool ('d'), which follows the root directly");
}

// A single pointer to a struct whose layout uses self: its slot is filled
// once the struct is written, and the call lost its target (95e2172), so the
// C++ did not compile.
BOOST_AUTO_TEST_CASE(pointer_to_a_struct_placed_after_its_targets) {
  fs::path p = fs::temp_directory_path() / "binschema_generator_test_self.yaml";
  std::ofstream(p) << "format: t\nendian: little\nroot: A\ntypes:\n  A:\n    fields:\n"
                      "      - {name: p, type: B, ptr: u64}\n"
                      "  B:\n    fields:\n      - {name: q, type: C, ptr: u64}\n    layout: [q, self]\n"
                      "  C:\n    fields:\n      - {name: v, type: u32}\n";
  auto s = binschema::gen::load_schema(p.string());
  const std::string c = binschema::gen::generate_cpp(*s).source;
  BOOST_TEST(c.find("c.w.pointer(s, 8, t, 0, \"A.p\");") != std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()

// ---- The generator's own sources ------------------------------------------------

BOOST_AUTO_TEST_SUITE(generator_sources)

// Every schema check lives in the validator (generator/validate.cpp): a back
// end that threw a SchemaError would refuse a schema another back end
// documents. Each generator/gen_*.cpp is read and must not name SchemaError.
BOOST_AUTO_TEST_CASE(back_ends_throw_no_schema_error) {
  const fs::path dir = fs::path(BINSCHEMA_SOURCE_DIR) / "generator";
  int back_ends = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("gen_", 0) != 0 || entry.path().extension() != ".cpp") continue;
    ++back_ends;
    std::ifstream in(entry.path());
    std::string line;
    for (int n = 1; std::getline(in, line); ++n)
      BOOST_TEST(line.find("SchemaError") == std::string::npos, name << ":" << n << " names SchemaError: " << line);
  }
  BOOST_TEST(back_ends >= 2);  // at least the C++ and Markdown back ends were read
}

// Text from the schema is never a template: a doc, a const: string or a title
// holding {{NAME}} (which the C++ back end's templates use) comes out as
// written, not replaced by whatever the generator last had for NAME (the
// writer used to write the const "{{NAME}}" below as "tag", a later field's name).
BOOST_AUTO_TEST_CASE(schema_text_is_not_a_template) {
  fs::path p = fs::temp_directory_path() / "binschema_generator_test_braces.yaml";
  std::ofstream(p) << "format: t\n"
                      "title: \"T {{NAME}} {{ROOT}}\"\n"
                      "endian: little\n"
                      "root: A\n"
                      "types:\n"
                      "  A:\n"
                      "    doc: \"The root {{ROOT}} and {{A}}.\"\n"
                      "    fields:\n"
                      "      - {name: magic, type: \"char[8]\", const: \"{{NAME}}\"}\n"
                      "      - {name: tag, type: \"char[8]\", doc: \"Tag {{NAME}} {{WANT}}.\"}\n";
  const auto s = binschema::gen::load_schema(p.string());
  const auto out = binschema::gen::generate_cpp(*s);
  for (const char* text : {"// The root {{ROOT}} and {{A}}.", "// Tag {{NAME}} {{WANT}}."})
    BOOST_TEST(out.header.find(text) != std::string::npos, "the header lacks " << text);
  BOOST_TEST(out.source.find("\"T {{NAME}} {{ROOT}}\"") != std::string::npos);  // the title, in format()
  // The const string where it is checked (reader) and where it is written (writer).
  BOOST_TEST(out.source.find("r.chars(s, 8) != \"{{NAME}}\"") != std::string::npos);
  BOOST_TEST(out.source.find("c.w.chars(s, \"{{NAME}}\", 8") != std::string::npos);
}

// Generated code reads like hand-written code: no offset + 0 or rounding to
// a multiple of 1, and [[maybe_unused]] only on what goes unused.
BOOST_AUTO_TEST_CASE(constants_folded_and_maybe_unused_where_unused) {
  const auto gen = [](const char* schema) {
    return binschema::gen::generate_cpp(*binschema::gen::load_schema(std::string(BINSCHEMA_SOURCE_DIR) + "/" + schema)).source;
  };
  const std::string bfevfl = gen("schemas/bfevfl.yaml"), tiny = gen("tests/schemas/tiny.yaml");
  for (const std::string* src : {&bfevfl, &tiny}) {
    BOOST_TEST(src->find("s + 0x0") == std::string::npos);
    BOOST_TEST(src->find("/ 1 * 1") == std::string::npos);
    BOOST_TEST(src->find(" + 0)") == std::string::npos);
  }
  // bfevfl's union of arrays (pad_to 1): the size appended is the array's.
  BOOST_TEST(bfevfl.find("c.w.reserve(v.size() * 4);") != std::string::npos);
  // tiny's Record: kind is read (the union's tag); name_hash, derived, is
  // rewritten from the name and its raw value goes unused; x is filled in.
  BOOST_TEST(tiny.find("\n  uint8_t f_kind = 0;") != std::string::npos);
  BOOST_TEST(tiny.find("\n  [[maybe_unused]] uint32_t f_name_hash = 0;") != std::string::npos);
  BOOST_TEST(tiny.find("void read_Record(const R& r, uint64_t s, Record& x) {") != std::string::npos);
}

// NAME.h holds the models and the binary API and includes none of the text
// machinery (binschema/text.h, layout.h: ~34k preprocessed lines of ~73k);
// NAME_text.h holds the text binding and includes NAME.h.
BOOST_AUTO_TEST_CASE(format_header_leaves_the_text_binding_to_its_own) {
  const auto out = binschema::gen::generate_cpp(*binschema::gen::load_schema(std::string(BINSCHEMA_SOURCE_DIR) + "/schemas/bfevfl.yaml"));
  BOOST_TEST(out.header.find("#include \"binschema/model.h\"") != std::string::npos);
  for (const char* text : {"#include \"binschema/text.h\"", "#include \"binschema/layout.h\"", "#include \"binschema/format.h\"",
                           "visit_fields", "to_text", "from_text", "binschema::text::"})
    BOOST_TEST(out.header.find(text) == std::string::npos, "bfevfl.h names " << text);
  BOOST_TEST(out.header.find("File decode(std::span<const uint8_t> bytes);") != std::string::npos);
  BOOST_TEST(out.text_header.find("#include \"bfevfl.h\"\n#include \"binschema/text.h\"") != std::string::npos);
  BOOST_TEST(out.text_header.find("requires std::is_same_v<std::remove_const_t<Self>, File>") != std::string::npos);
  BOOST_TEST(out.text_header.find("std::string to_text(const File& model, binschema::TextKind kind") != std::string::npos);
  BOOST_TEST(out.source.find("#include \"bfevfl_text.h\"") != std::string::npos);
}

// A placed pointer's target is one call of the writer (place_target: where
// the layout kept it, aligned, the pointer filled in; place_leaf/place_shared
// when the layout may point it to an equal block written earlier, docs §11),
// and an empty array's pointer another (empty_target), not the sequence spelt
// out at every pointer.
BOOST_AUTO_TEST_CASE(placed_pointers_are_one_call) {
  const auto src = binschema::gen::generate_cpp(*binschema::gen::load_schema(std::string(BINSCHEMA_SOURCE_DIR) + "/schemas/baev.yaml")).source;
  BOOST_TEST(src.find("\n      if (const uint64_t t = c.w.place_leaf(s + 0x8, n * 4, 4, 8, 0, \"Event.action_indices\", x.action_indices); t != binschema::kShared) {") != std::string::npos);
  BOOST_TEST(src.find("c.w.empty_target(s + 0x8, 8, \"Event.action_indices\", false);") != std::string::npos);
  BOOST_TEST(src.find("\n        c.w.place_target(a + i * 8, 0, 8, 8, 0, \"Trigger.params\");") != std::string::npos);
  BOOST_TEST(src.find("c.w.place_block(") == std::string::npos);
  BOOST_TEST(src.find("c.w.kept(s + 0x8, 0)") == std::string::npos);
}

// A template's {{KEY}} takes its value from the same call only; a key with no
// value there is a bug in the generator (std::logic_error naming it), and a
// value is inserted as it is.
BOOST_AUTO_TEST_CASE(code_writer_templates) {
  binschema::gen::CodeWriter w;
  w.line("f({{A}}, {{B}});", {{"A", "{{B}}"}, {"B", "2"}});
  w += "g({{A}});";
  BOOST_TEST(w.str() == "f({{B}}, 2);\ng({{A}});\n");
  BOOST_CHECK_EXCEPTION(w.line("h({{A}}, {{C}});", {{"A", "1"}}), std::logic_error, [](const std::logic_error& e) {
    return std::string(e.what()).find("{{C}}") != std::string::npos;
  });
  BOOST_CHECK_EXCEPTION(w.line("h({{A}});", {}), std::logic_error, [](const std::logic_error& e) {
    return std::string(e.what()).find("{{A}}") != std::string::npos;
  });
}

BOOST_AUTO_TEST_SUITE_END()

// ---- Code generated for tests/schemas/tiny.yaml --------------------------------

namespace {

binschema::tiny::Header sample() {
  using namespace binschema::tiny;
  Header h;
  h.flags = 0x8001;
  Record a;
  a.name = "alpha";
  a.enabled = true;
  a.value.emplace<0>(-5);
  a.points = {Point{{1.0f, 2.0f, 3.0f}}, Point{{-1.5f, 0.0f, 1e-3f}}};
  Record b;
  b.name = "beta";
  b.value.emplace<2>(Pair{7, -7});
  Record c;
  c.name = "alpha";  // shared with a in the pool
  c.value.emplace<1>(0.25f);
  h.records = {a, b, c};
  h.tags = {"t1", "beta"};
  h.extra = Extra{"label"};
  return h;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(generated_tiny)

BOOST_AUTO_TEST_CASE(model_write_read_gives_the_model_back) {
  auto h = sample();
  auto bytes = binschema::tiny::encode(h);
  BOOST_TEST((binschema::tiny::decode(bytes) == h));
  h.extra.reset();
  auto bytes2 = binschema::tiny::encode(h);
  BOOST_TEST((binschema::tiny::decode(bytes2) == h));
  BOOST_TEST(bytes2.size() < bytes.size());
}

BOOST_AUTO_TEST_CASE(big_endian_layout_and_derived_values) {
  auto bytes = binschema::tiny::encode(sample());
  binschema::Reader<std::endian::big> r(bytes);
  BOOST_TEST(r.chars(0, 4) == "TNY");
  BOOST_TEST(r.at<uint16_t>(4) == 1u);       // version default
  BOOST_TEST(r.at<uint16_t>(6) == 0x8001u);  // flags, big-endian
  BOOST_TEST(r.at<uint32_t>(8) == bytes.size());
  // layout: [extra, records, tags, pool]: extra first, aligned to 16.
  uint32_t extra = r.at<uint32_t>(0x18);
  BOOST_TEST(extra == 0x30u);
  BOOST_TEST(r.chars(extra, 12) == "label");
  BOOST_TEST(r.at<uint32_t>(extra + 12) == binschema::fnv1a32("label"));
  uint32_t records = r.at<uint32_t>(0xc);
  BOOST_TEST(records == extra + 0x10);
  BOOST_TEST(r.at<uint16_t>(0x10) == 3u);
  // Record 0: name offset, murmur3 of its name, kind 1, points relative to the record.
  BOOST_TEST(r.cstring(r.at<uint32_t>(records)) == "alpha");
  BOOST_TEST(r.at<uint32_t>(records + 4) == binschema::murmur3_x86_32("alpha"));
  BOOST_TEST(r.at<uint8_t>(records + 8) == 1u);
  BOOST_TEST(r.at<int32_t>(records + 12) == -5);
  uint32_t rel = r.at<uint32_t>(records + 16);
  BOOST_TEST(r.at<float>(records + rel) == 1.0f);
  // Shallow records: their points come after the tag pointer array.
  uint32_t tags = r.at<uint32_t>(0x14);
  BOOST_TEST(tags == records + 3 * 0x18);
  BOOST_TEST(records + rel == tags + 2 * 4);
  // zeros 4 then align 8 before the pool.
  BOOST_TEST(r.at<uint32_t>(0x1c) % 8 == 0u);
  // Shared pool strings: records 0 and 2 point at the same "alpha".
  BOOST_TEST(r.at<uint32_t>(records) == r.at<uint32_t>(records + 2 * 0x18));
  // Pool: first-use order, starts at names_offset, size names_size, ends the file.
  uint32_t names_offset = r.at<uint32_t>(0x1c);
  uint32_t names_size = r.at<uint32_t>(0x20);
  BOOST_TEST(r.cstring(names_offset) == "alpha");
  BOOST_TEST(names_offset + names_size == bytes.size());
}

// Each union has an enum of its case names (Record::Value::Case), so code
// picks a case by name rather than by its position in the schema.
BOOST_AUTO_TEST_CASE(union_cases_have_names) {
  using binschema::tiny::Record;
  using Case = Record::Value::Case;
  Record r;
  r.name = "n";
  r.value.emplace<Case::pair>(binschema::tiny::Pair{7, -7});
  BOOST_TEST((r.value.kind() == Case::pair));
  BOOST_TEST(r.value.get<Case::pair>().b == -7);
  BOOST_TEST(r.value.index() == 2u);  // the schema's third case
  r.value.emplace<Case::ratio>(0.5f);
  BOOST_TEST((r.value.kind() == Case::ratio));
  BOOST_TEST(std::get<1>(r.value) == 0.5f);
  // The case survives a write and a read.
  binschema::tiny::Header h = sample();
  h.records[1].value.emplace<Case::number>(42);
  const auto back = binschema::tiny::decode(binschema::tiny::encode(h));
  BOOST_TEST((back.records[1].value.kind() == Case::number));
  BOOST_TEST(back.records[1].value.get<Case::number>() == 42);
}

BOOST_AUTO_TEST_CASE(text_round_trip) {
  auto h = sample();
  for (auto kind : {binschema::TextKind::Yaml, binschema::TextKind::Json}) {
    std::string text = binschema::tiny::to_text(h, kind);
    auto back = binschema::tiny::from_text(text);
    BOOST_TEST((back == h));
  }
  std::string yaml = binschema::tiny::to_text(h, binschema::TextKind::Yaml);
  BOOST_TEST(yaml.find("flags: 0x8001") != std::string::npos);  // format: hex
  BOOST_TEST(yaml.find("version") == std::string::npos);        // default left out
  BOOST_TEST(yaml.find("name_hash") == std::string::npos);      // derived: not in the model
  BOOST_TEST(yaml.find("pair:") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(text_errors_name_line_and_path) {
  auto check = [](const std::string& text, const std::string& expected) {
    try {
      binschema::tiny::from_text(text);
      BOOST_ERROR("accepted: " + text);
    } catch (const binschema::TextError& e) {
      BOOST_TEST(std::string(e.what()) == expected);
    }
  };
  const std::string base = "format: tiny\nflags: 1\ntags: []\nextra: null\n";
  check(base + "records: [{name: a, enabled: true, value: {number: 1}, points: [], color: 3}]\n",
        "5:68: records[0]: unknown field 'color'");
  check(base + "records: [{name: a, enabled: yes, value: {number: 1}, points: []}]\n",
        "5:30: records[0].enabled: expected true or false, got 'yes'");
  check(base + "records: [{name: a, enabled: true, value: {big: 1}, points: []}]\n",
        "5:44: records[0].value: unknown case 'big'");
  check(base + "records: [{name: a, enabled: true, value: {number: 99999999999}, points: []}]\n",
        "5:52: records[0].value.number: value 99999999999 out of range");
  check("format: tiny\nflags: 1\ntags: []\nextra: null\n", "1:1: missing field 'records'");
  // A misspelt key is reported where it is, not as the field it was meant to be.
  check(base + "records: [{name: a, enabld: true, value: {number: 1}, points: []}]\n",
        "5:21: records[0]: unknown field 'enabld'");
  check("format: tiny\nflgs: 1\ntags: []\nextra: null\nrecords: []\n", "2:1: unknown field 'flgs'");
}

BOOST_AUTO_TEST_CASE(decode_errors_name_offset_and_path) {
  auto bytes = binschema::tiny::encode(sample());
  auto bad = bytes;
  binschema::Reader<std::endian::big> r(bytes);
  uint32_t records = r.at<uint32_t>(0xc);
  bad[records + 8] = 9;  // kind 9: no such case
  try {
    binschema::tiny::decode(bad);
    BOOST_FAIL("accepted");
  } catch (const binschema::DecodeError& e) {
    std::string expected = "records[0].value: kind 9 is not a supported case (known: 1 number, 2 ratio, 7 pair) (at " +
                           binschema::hex(records + 12) + ")";
    BOOST_TEST(std::string(e.what()) == expected);
  }
  bad = bytes;
  bad[4] = 0;
  bad[5] = 2;  // version 2 is not valid
  BOOST_CHECK_THROW(binschema::tiny::decode(bad), binschema::DecodeError);
}

BOOST_AUTO_TEST_SUITE_END()

// ---- Code generated for tests/schemas/shapes.yaml ---------------------------------

namespace {

binschema::shapes::Root shapes_sample() {
  using namespace binschema::shapes;
  Root x;
  x.grid.id = 9;
  x.grid.cells = {Cell{1, -1}, Cell{2, -2}};
  x.label = "abc";
  x.after = {Cell{3, -3}, Cell{4, -4}};
  x.triple = {7, 8, 9};
  x.items = {Item{.extra = {1, 2, 3, 4}, .value = 10}, Item{.extra = {5, 6, 7, 8}, .value = 11}};  // version 2: 4 bytes each
  x.first.name = "one";
  x.second.name = "two";
  x.flag = true;
  x.blob_size = 3;
  x.blob.data = {0xAA, 0xBB, 0xCC};
  x.tail_end = 0x5C;
  x.tail.data = {0x11, 0x22};
  return x;
}

uint32_t le32(const std::vector<uint8_t>& b, size_t at) {
  return uint32_t(b.at(at)) | uint32_t(b.at(at + 1)) << 8 | uint32_t(b.at(at + 2)) << 16 | uint32_t(b.at(at + 3)) << 24;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(generated_shapes)

BOOST_AUTO_TEST_CASE(model_write_read_gives_the_model_back) {
  const auto x = shapes_sample();
  const auto bytes = binschema::shapes::encode(x);
  BOOST_TEST((binschema::shapes::decode(bytes) == x));
  // Written again, the same bytes.
  BOOST_TEST((binschema::shapes::encode(binschema::shapes::decode(bytes)) == bytes));
}

// Inline T[N] of structs in a fixed-size struct (did not compile), after a
// variable-size field (written after a block of zeros), and inline T[N] of
// numbers after a variable-size field (read past twice): each in place.
BOOST_AUTO_TEST_CASE(inline_fixed_arrays_sit_in_place) {
  const auto b = binschema::shapes::encode(shapes_sample());
  BOOST_TEST(le32(b, 0x8) == 9u);             // grid.id
  BOOST_TEST(le32(b, 0xC) == 1u);             // grid.cells[0].x
  BOOST_TEST(le32(b, 0x18) == uint32_t(-2));  // grid.cells[1].y
  BOOST_TEST(std::string(b.begin() + 0x1C, b.begin() + 0x20) == std::string("abc\0", 4));
  BOOST_TEST(le32(b, 0x20) == 3u);  // after[0].x, right after the label
  BOOST_TEST(le32(b, 0x2C) == uint32_t(-4));
  BOOST_TEST((b.at(0x30) == 7 && b.at(0x32) == 8 && b.at(0x34) == 9));  // triple
  BOOST_TEST(le32(b, 0x42) == 0xFFu);                                   // flag, true: 0xff
}

// context: naming a const root field and a root count (did not compile): the
// writer gives nested structs their values.
BOOST_AUTO_TEST_CASE(context_const_and_count) {
  auto x = shapes_sample();
  const auto b = binschema::shapes::encode(x);
  const uint32_t items = le32(b, 0x36);
  BOOST_TEST(le32(b, items) == 10u);                          // items[0].value
  BOOST_TEST((b.at(items + 4) == 2 && b.at(items + 5) == 0));  // items[0].of = item_count
  x.items[1].extra.pop_back();                                 // its count is version * 2 = 4
  BOOST_CHECK_THROW(binschema::shapes::encode(x), binschema::EncodeError);
}

// A block pool whose blocks hold strings of a pool declared before it: the
// strings are stored and read back.
BOOST_AUTO_TEST_CASE(block_pool_strings_read_back) {
  auto x = shapes_sample();
  auto back = binschema::shapes::decode(binschema::shapes::encode(x));
  BOOST_TEST(back.first.name == "one");
  BOOST_TEST(back.second.name == "two");
  BOOST_TEST(le32(binschema::shapes::encode(x), 0x3A) != le32(binschema::shapes::encode(x), 0x3E));
  x.second.name = "one";  // equal blocks are stored once: both point to the same block
  const auto b = binschema::shapes::encode(x);
  BOOST_TEST(le32(b, 0x3A) == le32(b, 0x3E));
  BOOST_TEST(binschema::shapes::decode(b).second.name == "one");
}

// size: over a model field (was written without a check): the writer
// refuses bytes of another length.
BOOST_AUTO_TEST_CASE(bytes_sized_by_a_model_field) {
  auto x = shapes_sample();
  const auto b = binschema::shapes::encode(x);
  BOOST_TEST((b.at(0x46) == 3 && b.at(0x47) == 0xAA && b.at(0x49) == 0xCC));
  x.blob.data.push_back(0xDD);
  BOOST_CHECK_EXCEPTION(binschema::shapes::encode(x), binschema::EncodeError, [](const binschema::EncodeError& e) {
    return std::string(e.what()).find("Root.blob: 4 bytes, but its size blob_size is 3") != std::string::npos;
  });
}

// start() and size() of a region the model leaves out (a null pointer) failed
// to encode ("internal: region N was never placed"); they are 0 now, and
// the file reads back.
BOOST_AUTO_TEST_CASE(absent_region_has_start_and_size_0) {
  auto x = shapes_sample();
  auto b = binschema::shapes::encode(x);  // extra is absent
  BOOST_TEST(le32(b, 0x4A) == 0u);        // the pointer
  BOOST_TEST(le32(b, 0x4E) == 0u);        // start(extra)
  BOOST_TEST(le32(b, 0x52) == 0u);        // size(extra)
  BOOST_TEST((binschema::shapes::decode(b) == x));
  x.extra = binschema::shapes::Cell{5, -5};
  b = binschema::shapes::encode(x);
  const uint32_t at = le32(b, 0x4A);
  BOOST_TEST(at != 0u);
  BOOST_TEST(le32(b, 0x4E) == at);  // start(extra) is where the pointer leads
  BOOST_TEST(le32(b, 0x52) == 8u);
  BOOST_TEST(le32(b, at) == 5u);
  BOOST_TEST((binschema::shapes::decode(b) == x));
  BOOST_TEST((binschema::shapes::encode(binschema::shapes::decode(b)) == b));
}

// A field read until(E) over a model field ends where E says, or the file
// would not read back (fuzz_text_sarc found SARC's data_offset edited below
// the end of its names, written as given): the writer refuses it.
BOOST_AUTO_TEST_CASE(bytes_until_a_model_offset_end_there) {
  auto x = shapes_sample();
  const auto b = binschema::shapes::encode(x);
  BOOST_TEST(le32(b, 0x56) == 0x5Cu);
  BOOST_TEST((b.at(0x5A) == 0x11 && b.at(0x5B) == 0x22));
  BOOST_TEST((binschema::shapes::decode(b) == x));
  for (const uint32_t bad : {0x0u, 0x5Bu, 0x5Du}) {
    x.tail_end = bad;
    BOOST_CHECK_EXCEPTION(binschema::shapes::encode(x), binschema::EncodeError, [&](const binschema::EncodeError& e) {
      return std::string(e.what()) == "Root.tail: ends at 0x5c, but tail_end is " + binschema::hex(bad);
    });
  }
}

BOOST_AUTO_TEST_CASE(markdown_shows_true_values) {
  auto s = binschema::gen::load_schema(std::string(BINSCHEMA_SOURCE_DIR) + "/tests/schemas/shapes.yaml");
  BOOST_TEST(binschema::gen::generate_markdown(*s).find("True is stored as 0xFF, false as 0.") != std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()

// Issue 25 (BYML): u24/s24, a magic that picks the byte order, union[] with a
// parallel array of tags, a union case of variable size as the last field,
// pad: on an inline counted array of numbers.
BOOST_AUTO_TEST_SUITE(byml_language)

using schema_errors::kB;
using schema_errors::kTop;

const std::string kTags = std::string(kHead) + "      - {name: n, type: u24}\n      - {name: t, type: \"u8[]\", count: n, pad: 4}\n";

BOOST_AUTO_TEST_CASE(u24_and_s24_are_types) {
  BOOST_TEST(schema_error(std::string(kHead) + "      - {name: a, type: u24}\n      - {name: b, type: s24}\n      - {name: c, type: \"u24[2]\"}\n") == "");
  BOOST_TEST(schema_error(std::string(kHead) + "      - {name: a, type: u24, const: 0x1000000}\n").find("does not fit") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_magic_picks_the_byte_order) {
  const std::string head = "format: t\nendian: bom\nroot: A\ntypes:\n  A:\n    fields:\n";
  BOOST_TEST(schema_error(head + "      - {name: m, type: \"char[2]\", bom: {YB: little, BY: big}}\n") == "");
  BOOST_TEST(schema_error(head + "      - {name: m, type: \"char[2]\", bom: {YB: little, BY: middle}}\n") ==
             "7:58: bom: each mark picks 'little' or 'big'");
  BOOST_TEST(schema_error(head + "      - {name: m, type: \"char[2]\", bom: {YB: little, Y: big}}\n") ==
             "7:9: 'm' has bom: true, but mark 'Y' is not 2 bytes (char[2])");
  BOOST_TEST(schema_error(head + "      - {name: m, type: \"char[3]\", bom: {YBX: little}}\n") ==
             "7:9: 'm' has bom: true, but its marks are not 1, 2, 4 or 8 bytes (char[3])");
  BOOST_TEST(schema_error(head + "      - {name: m, type: u32, bom: {YB: little}}\n") ==
             "7:9: 'm' has bom: true, but its marks are text: it is not a char[N]");
}

BOOST_AUTO_TEST_CASE(union_arrays_take_a_parallel_array_of_tags) {
  const std::string u = "      - name: u\n        type: \"union[]\"\n        count: n\n        tag: t\n        cases:\n";
  BOOST_TEST(schema_error(kTags + u + "          - {value: 1, name: a, type: u32}\n          - {value: 2, name: b, type: B, ptr: u32}\n" + kB) == "");
  // The tags after the elements (BYML's hash maps).
  BOOST_TEST(schema_error(std::string(kHead) + "      - {name: n, type: u24}\n" + u + "          - {value: 1, name: a, type: u32}\n" +
                          "      - {name: t, type: \"u8[]\", count: n, pad: 4}\n") == "");
  BOOST_TEST(schema_error(kTags + u + "          - {value: 1, name: a, type: u32}\n          - {value: 2, name: b, type: u16}\n") ==
             "9:9: the cases of union[] 'u' differ in size: pad them to one size (pad_to:)");
  BOOST_TEST(schema_error(std::string(kHead) + "      - {name: n, type: u24}\n      - {name: t, type: u8}\n" + u +
                          "          - {value: 1, name: a, type: u32}\n") ==
             "8:9: the tag of an array of unions is an inline array of integers (one tag per element)");
  BOOST_TEST(schema_error(std::string(kHead) + "      - {name: n, type: u24}\n      - {name: t, type: \"u8[]\", count: \"n + 1\"}\n" + u +
                          "          - {value: 1, name: a, type: u32}\n") ==
             "9:9: union[] 'u' and its tags 't' have one count: both inline, with the same count:");
  BOOST_TEST(schema_error(std::string(kHead) + "      - {name: n, type: u24}\n      - {name: u, type: \"union[3]\", tag: t, cases: [{value: 1, name: a, type: u32}]}\n") ==
             "8:9: an array of unions (union[]) takes its tags from a parallel array: tag: an inline integer array, count: as that array's");
  BOOST_TEST(schema_error(kTags + u + "          - {value: 1, name: a, type: B, ptr: u32, base: struct}\n" + kB) ==
             "14:13: a case of union[] 'u' points from the file's start (no base: struct)");
}

BOOST_AUTO_TEST_CASE(a_case_of_variable_size_is_the_last_field) {
  const std::string v = "  Var:\n    fields:\n      - {name: n, type: u8}\n      - {name: b, type: \"u8[]\", count: n}\n";
  const std::string u = std::string(kHead) + "      - {name: k, type: u8}\n      - {name: u, type: union, tag: k, cases: [{value: 1, name: a, type: Var}]}\n";
  BOOST_TEST(schema_error(u + v) == "");
  BOOST_TEST(schema_error(u + "      - {name: after, type: u8}\n" + v) ==
             "8:48: a union case cannot be an inline struct of variable size, unless the union is the last field of its struct (not under if:, not union[])");
}

BOOST_AUTO_TEST_CASE(pad_after_an_inline_array_of_numbers) {
  BOOST_TEST(schema_error(kTags) == "");
  BOOST_TEST(schema_error(std::string(kHead) + "      - {name: t, type: \"u8[4]\", pad: 4}\n") ==
             "7:9: 't' has pad: 4, but pad: is for an inline cstring field or an inline counted array of numbers (this is a inline array)");
}

BOOST_AUTO_TEST_SUITE_END()

// String tables (docs §5 `table`, `index_of`, `offsets_of`): a root field
// points to a table the writer builds; integer fields elsewhere index it.
BOOST_AUTO_TEST_SUITE(string_tables)

std::string tables(const std::string& keys, const std::string& offsets, const std::string& k, const std::string& extra_root = "") {
  return "format: t\nendian: little\nroot: Doc\ntypes:\n  Doc:\n    fields:\n" + extra_root + "      - {name: keys, type: T, ptr: u32, nullable: true" + keys +
         "}\n      - {name: e, type: E, ptr: u32}\n  T:\n    fields:\n      - {name: count, type: u32}\n"
         "      - {name: offsets, type: \"u32[]\", count: " + offsets + "}\n      - {name: strings, type: \"S[]\", count: count}\n"
         "  S:\n    fields:\n      - {name: text, type: cstring}\n  E:\n    fields:\n      - {name: k" + k + "}\n";
}

BOOST_AUTO_TEST_CASE(a_table_and_its_indices) {
  BOOST_TEST(schema_error(tables(", table: sorted", "\"count + 1\", offsets_of: strings", ", type: u16, index_of: keys")) == "");
  BOOST_TEST(schema_error(tables(", table: first_use", "count, offsets_of: strings", ", type: u32, index_of: keys")) == "");
  BOOST_TEST(schema_error(tables(", table: shuffled", "count", ", type: u16")) ==
             "7:64: table is 'sorted' or 'first_use' (the order in which the writer stores the strings that index_of: fields hold)");
  BOOST_TEST(schema_error(tables(", table: sorted", "\"count + 1\", offsets_of: strings", ", type: u16, index_of: nokeys")) ==
             "19:40: 'k': index_of: 'nokeys' is no table: field of the root (Doc)");
  BOOST_TEST(schema_error(tables(", table: sorted", "\"count + 1\", offsets_of: strings", ", type: s16, index_of: keys")) ==
             "19:40: 'k': index_of: is for a single unsigned integer field (u8 to u64, no array or bits)");
  BOOST_TEST(schema_error(tables(", table: sorted", "\"count + 1\", offsets_of: strings", ", type: u16, index_of: keys, enum: {0: a}")) ==
             "19:40: 'k': index_of: holds a string in the model: no enum:, ref:, hash_of:, format: bool, const:, derive:, default:, if: or virtual:");
  BOOST_TEST(schema_error(tables(", table: sorted", "\"count + 2\", offsets_of: strings", ", type: u16, index_of: keys")) ==
             "12:72: 'offsets': offsets_of: count is 'count' (one offset per string) or 'count + 1' (then the end), not 'count + 2'");
  BOOST_TEST(schema_error(tables("", "\"count + 1\", offsets_of: strings", ", type: u16")) ==
             "12:72: 'offsets': offsets_of: is for a struct that a table: field points to");
  BOOST_TEST(schema_error(tables(", table: sorted", "\"count + 1\"", ", type: u16, index_of: keys")) ==
             "7:64: 'keys': a table struct (T) holds one array of strings and nothing else the model holds ('offsets' is more)");
  BOOST_TEST(schema_error(tables(", table: sorted", "\"count + 1\", offsets_of: strings", ", type: u16, index_of: keys",
                                 "      - {name: first, type: E, ptr: u32}\n")) ==
             "8:64: 'keys': a table field comes before the root's other pointers (the reader reads the tables first)");
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(byml_alignment_from_a_field)

BOOST_AUTO_TEST_CASE(inline_bytes_aligned_by_a_field) {
  const std::string top = "format: t\nendian: little\nroot: A\ntypes:\n  A:\n    fields:\n"
                          "      - {name: k, type: u8}\n      - {name: u, type: union, tag: k, cases: [{value: 1, name: a, type: Al, ptr: u32}]}\n";
  const std::string al = "  Al:\n    fields:\n      - {name: size, type: u32}\n      - {name: alignment, type: u32}\n";
  BOOST_TEST(schema_error(top + al + "      - {name: data, type: bytes, size: size, align: alignment}\n") == "");
  BOOST_TEST(schema_error(top + al + "      - {name: data, type: bytes, size: size, align: nope}\n") ==
             "13:9: 'data': align: 'nope' is not an integer field of Al the model holds, declared before it (its value is the bytes' alignment)");
  BOOST_TEST(schema_error(top + "      - {name: p, type: Al, ptr: u32}\n" + al + "      - {name: data, type: bytes, size: size, align: alignment}\n") == "");
  BOOST_TEST(schema_error(top + "      - {name: p, type: \"Al[]\", ptr: u32, count: 2}\n" + al + "      - {name: data, type: bytes, size: size, align: alignment}\n") ==
             "9:9: 'p' holds Al, whose 'data' is aligned by a field (align: alignment): only a pointer to one struct or a union case that points to it can place it so");
  BOOST_TEST(schema_error(top + "  Al:\n    fields:\n      - {name: size, type: u32}\n      - {name: s, type: cstring}\n      - {name: alignment, type: u32}\n"
                          "      - {name: data, type: bytes, size: size, align: alignment}\n") ==
             "14:9: 'data' has align: alignment, but it is not at a fixed offset of Al");
}

BOOST_AUTO_TEST_SUITE_END()

// bare: true on a union, as: on its cases (issue 26): each case says the
// plain kind that picks it or its tag; what cannot be told apart is refused.
BOOST_AUTO_TEST_CASE(bare_unions) {
  const std::string u = "      - {name: t, type: u8}\n      - name: u\n        type: union\n        tag: t\n        bare: true\n        cases:\n";
  const std::string w = "  V3:\n    fields: [{name: value, type: \"f32[3]\"}]\n";
  BOOST_TEST(schema_error(std::string(kHead) + u +
                          "          - {value: 1, name: a, type: s32, as: int}\n"
                          "          - {value: 2, name: b, type: u32, as: \"!u\"}\n"
                          "          - {value: 3, name: c, type: V3, as: !vec3}\n"  // unquoted: the tag is the spelling
                          "          - {value: 4, name: d, type: f32, as: float}\n"
                          "          - {value: 5, name: e, type: u32, as: null}\n" + w) == "");
  BOOST_TEST(schema_error(std::string(kHead) + u + "          - {value: 1, name: a, type: s32}\n") ==
             "13:13: case 'a' of bare union 'u' needs as: (int, float, string, bool, null, list, map, or a YAML tag such as \"!a\")");
  BOOST_TEST(schema_error(std::string(kHead) + u + "          - {value: 1, name: a, type: s32, as: int}\n          - {value: 2, name: b, type: s16, as: int}\n") ==
             "14:48: cases 'a' and 'b' of bare union 'u' are both as: int (a plain value picks one case)");
  BOOST_TEST(schema_error(std::string(kHead) + u + "          - {value: 1, name: a, type: s32, as: \"!x\"}\n          - {value: 2, name: b, type: s16, as: \"!x\"}\n") ==
             "14:48: cases 'a' and 'b' of bare union 'u' are both as: !x (a tag names one case)");
  BOOST_TEST(schema_error(std::string(kHead) + u + "          - {value: 1, name: a, type: s32, as: float}\n") ==
             "13:48: case 'a': as: float, but its value's kind is int: give it a tag or the kind int");
  BOOST_TEST(schema_error(std::string(kHead) + u + "          - {value: 1, name: a, type: V3, as: list}\n" + w) == "");
  BOOST_TEST(schema_error(std::string(kHead) + u + "          - {value: 1, name: a, type: s32, as: \"u\"}\n") ==
             "13:48: case 'a': as: 'u' is no plain kind (int, float, string, bool, null, list, map) nor a YAML tag (!name or !!name: letters, digits, _ - .)");
  BOOST_TEST(schema_error(std::string(kHead) + u + "          - {value: 1, name: a, type: s32, as: \"!!int\"}\n") ==
             "13:48: case 'a': as: '!!int' is the standard tag of a plain kind: write the kind (int)");
  BOOST_TEST(schema_error(std::string(kHead) + u + "          - {value: 1, name: a, type: u32, hash_of: crc32, as: int}\n") ==
             "13:64: case 'a': as: int, but its value's kind is none of the plain ones (a name: give it a tag)");
  BOOST_TEST(schema_error(std::string(kHead) + "      - {name: x, type: u32, bare: true}\n") ==
             "7:36: bare: belongs to a field of type union (or union[])");
  BOOST_TEST(schema_error(std::string(kHead) + "      - {name: x, type: u32, as: int}\n") ==
             "7:34: as: belongs to a case of a union with bare: true (how its value is spelt)");
  BOOST_TEST(schema_error(std::string(kHead) + "      - {name: t, type: u8}\n      - name: u\n        type: union\n        tag: t\n        cases:\n"
                                               "          - {value: 1, name: a, type: s32, as: int}\n") ==
             "12:48: case 'a': as: belongs to the cases of a union with bare: true");
}

// names: FILE beside the schema (the default names of hash_of: fields).
BOOST_AUTO_TEST_CASE(default_names_file) {
  const fs::path dir = fs::temp_directory_path();
  std::ofstream(dir / "binschema_generator_test.names.txt") << "# a comment\n\nparam_root\n  Padded  \n";
  const std::string head = "format: t\nendian: little\nroot: A\n";
  const std::string body = "types:\n  A:\n    fields:\n      - {name: h, type: u32, hash_of: crc32}\n";
  BOOST_TEST(schema_error(head + "names: binschema_generator_test.names.txt\n" + body) == "");
  const auto s = binschema::gen::load_schema_text(head + "names: binschema_generator_test.names.txt\n" + body, (dir / "x.yaml").string());
  BOOST_TEST((s->default_names == std::vector<std::string>{"param_root", "Padded"}));
  BOOST_TEST(schema_error(head + "names: nope.names.txt\n" + body).find("4:8: names: cannot read '") == 0);
  BOOST_TEST(schema_error(head + "names: binschema_generator_test.names.txt\ntypes:\n  A:\n    fields:\n      - {name: h, type: u32}\n") ==
             "4:8: names: lists the names of hashes, but no field has hash_of:");
}
