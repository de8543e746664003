// Fuzz target: one format's decoder, and every promise made about a file
// that decodes. Built once per format with BINSCHEMA_FUZZ_FORMAT naming its
// namespace (tests/fuzzer/CMakeLists.txt).
//
// For any input: decode either refuses it with DecodeError or gives a model
// m that
//   - encodes (decode and encode agree on what is valid) to bytes b,
//   - b decodes again and encodes to b (the writer's output is stable),
//   - as YAML and as JSON, m is valid UTF-8 text that reads back to a model
//     encoding to b (text never loses or changes a value).
// Anything else (another exception, a mismatch, a sanitizer report) aborts.
#include <cstdio>
#include <cstdlib>
#include <span>
#include <string>
#include <vector>

#include "binschema/error.h"
#include "binschema/text.h"
#include BINSCHEMA_FUZZ_HEADER

namespace F = binschema::BINSCHEMA_FUZZ_FORMAT;

namespace {

[[noreturn]] void broken(const char* what, const std::string& detail) {
  std::fprintf(stderr, "fuzz_decode: invariant broken: %s\n%s\n", what, detail.substr(0, 4000).c_str());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::span<const uint8_t> in(data, size);
  decltype(F::decode(in)) m;
  try {
    m = F::decode(in);
  } catch (const binschema::DecodeError&) {
    return 0;  // refused with an offset and a path: fine
  }
  std::vector<uint8_t> b;
  try {
    b = F::encode(m);
  } catch (const binschema::EncodeError& e) {
    broken("a decoded model does not encode", e.what());
  }
  try {
    if (F::encode(F::decode(b)) != b) broken("encode(decode(encode(m))) differs from encode(m)", "");
  } catch (const binschema::DecodeError& e) {
    broken("the writer's output does not decode", e.what());
  }
  for (auto kind : {binschema::TextKind::Yaml, binschema::TextKind::Json}) {
    const char* name = kind == binschema::TextKind::Yaml ? "YAML" : "JSON";
    const std::string text = F::to_text(m, kind);
    if (!binschema::text::is_utf8(text)) broken("text output is not UTF-8", text);
    std::vector<uint8_t> again;
    try {
      again = F::encode(F::from_text(binschema::text::load(text)));
    } catch (const std::exception& e) {
      broken(name, std::string("text does not read back: ") + e.what() + "\n" + text);
    }
    if (again != b) broken(name, "text reads back to different bytes\n" + text);
  }
  return 0;
}
