// Fuzz target: one format's text reader (YAML and JSON; JSON is YAML).
//
// For any input: when the fast JSON or block YAML parser takes it, yaml-cpp
// reads the same document from it (nodes, text, marks). Reading it either fails with TextError (line:col and what
// is wrong), a YAML exception carrying a mark, or EncodeError (a model the
// format cannot store); or it gives bytes b that decode, and encode back to
// b. The text budget keeps every input's model small (kTextBudgetFactor).
#include <cstdio>
#include <cstdlib>
#include <span>
#include <string>
#include <vector>

#include "binschema/error.h"
#include "binschema/text.h"
#include "binschema/text_doc.h"

#include <yaml-cpp/exceptions.h>
#include BINSCHEMA_FUZZ_HEADER

namespace F = binschema::BINSCHEMA_FUZZ_FORMAT;

namespace {

[[noreturn]] void broken(const char* what, const std::string& detail) {
  std::fprintf(stderr, "fuzz_text: invariant broken: %s\n%s\n", what, detail.substr(0, 4000).c_str());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  std::vector<uint8_t> b;
  try {
    {
      binschema::text::Doc json, yaml;
      const bool is_json = binschema::text::load_json(text, json);
      if (is_json || binschema::text::load_block_yaml(text, yaml)) {
        const std::string d =
            binschema::text::first_difference((is_json ? json : yaml).root(), binschema::text::load_yaml(text).root());
        if (!d.empty()) broken(is_json ? "the JSON parser and yaml-cpp read different documents"
                                       : "the block YAML parser and yaml-cpp read different documents", d);
      }
    }
    const binschema::text::Doc doc = binschema::text::load(text);
    if (!doc.root().is_map()) return 0;  // the CLI refuses these before any format sees them
    b = F::encode(F::from_text(doc));
  } catch (const binschema::TextError&) {
    return 0;
  } catch (const binschema::EncodeError&) {
    return 0;
  } catch (const YAML::Exception&) {
    return 0;  // conversion errors; the CLI reports them with their mark
  }
  try {
    if (F::encode(F::decode(b)) != b) broken("encode(decode(b)) differs from b", "");
  } catch (const binschema::DecodeError& e) {
    broken("the writer's output does not decode", e.what());
  } catch (const binschema::EncodeError& e) {
    broken("a decoded model does not encode", e.what());
  }
  return 0;
}
