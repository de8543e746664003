// Fuzz target: the schema generator, in process: schema YAML (from memory,
// load_schema_text) -> validated model -> every back end binschema-gen has
// (C++, Markdown, JSON Schema, Kaitai .ksy: --emit all). Any input either is
// refused with SchemaError (file:line:col and what is wrong) or generates all
// four outputs; any other exception, a crash or a sanitizer report is a bug
// (binschema-gen catches SchemaError only).
#include <cstdio>
#include <cstdlib>
#include <string>

#include "generate.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    auto s = binschema::gen::load_schema_text(text, "fuzz.yaml");
    const auto cpp = binschema::gen::generate_cpp(*s);
    const auto md = binschema::gen::generate_markdown(*s);
    const auto json = binschema::gen::generate_jsonschema(*s);
    const auto ksy = binschema::gen::generate_ksy(*s);
    if (cpp.header.empty() || cpp.source.empty() || md.empty() || json.empty() || ksy.empty()) {
      std::fprintf(stderr, "fuzz_generator: a schema generated an empty output\n");
      std::abort();
    }
  } catch (const binschema::gen::SchemaError&) {
    return 0;
  }
  return 0;
}
