// Fuzz target: one format's decoder, and every promise made about a file
// that decodes. Built once per format with BINSCHEMA_FUZZ_FORMAT naming its
// namespace (tests/fuzzer/CMakeLists.txt).
//
// For any input: decode either refuses it with DecodeError or gives a model
// m that
//   - encodes (decode and encode agree on what is valid) to bytes b,
//   - b decodes again and encodes to b (the writer's output is stable),
//   - as YAML and as JSON, m is valid UTF-8 text that reads back to a model
//     encoding to b (text never loses or changes a value),
//   - decode(bytes, layout) either refuses the file with a DecodeError that
//     names its offset (and, for a layout the writer cannot keep, the field
//     of the first byte that would differ), or gives a model
//     and a layout that encode(model, layout) turns back into the input,
//     byte for byte (issue 25: every file that decodes comes back).
// Anything else (another exception, a mismatch, a sanitizer report) aborts.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <string>
#include <vector>

#include "binschema/error.h"
#include "binschema/layout.h"
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

  // The round trip with the file's layout: the same bytes, or a refusal.
  binschema::Layout lay;
  decltype(F::decode(in)) laid;
  try {
    laid = F::decode(in, lay);
  } catch (const binschema::DecodeError& e) {
    const std::string what = e.what();
    if (what.find("0x") == std::string::npos) broken("a refusal that names no offset", what);
    // A file that would not come back is refused naming the field that holds
    // the first byte that differs (layout.h refuse_unkept).
    if (what.find("would not come back") != std::string::npos && e.path().empty())
      broken("a refusal of a layout that names no field", what);
    return 0;
  }
  std::vector<uint8_t> back;
  try {
    back = F::encode(laid, lay);
  } catch (const binschema::EncodeError& e) {
    broken("a model decoded with its layout does not encode with it", e.what());
  }
  if (back != std::vector<uint8_t>(in.begin(), in.end())) {
    const size_t n = std::min(back.size(), in.size());
    size_t i = 0;
    while (i < n && back[i] == in[i]) ++i;
    broken("decode(b, layout) then encode(m, layout) differs from b",
           "sizes " + std::to_string(in.size()) + " -> " + std::to_string(back.size()) + ", first difference at " +
               binschema::hex(i));
  }
  return 0;
}
