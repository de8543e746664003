// kaitai_fixture: writes a file of a test-only format (tiny, feats: not in
// the CLI) with the generated writer, for the Kaitai test (run.sh).
//
//   kaitai_fixture FORMAT DOC.yaml OUT.bin OUT.json
// reads DOC.yaml (from_text), encodes it to OUT.bin, decodes OUT.bin again
// and prints that model as JSON to OUT.json (what `binschema decode
// --format json` would print if the CLI had the format).
#include <yaml-cpp/yaml.h>

#include <fstream>
#include <iostream>
#include <iterator>
#include <string>
#include <vector>

#include "feats_text.h"
#include "tiny_text.h"

namespace {

template <class Root, class Decode, class Encode, class ToText, class FromText>
int run(const binschema::text::Doc& doc, const std::string& bin, const std::string& json, Decode decode, Encode encode,
        ToText to_text, FromText from_text) {
  const std::vector<uint8_t> bytes = encode(from_text(doc));
  std::ofstream(bin, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  const Root back = decode(bytes);
  std::ofstream(json) << to_text(back, binschema::TextKind::Json);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 5) {
    std::cerr << "usage: kaitai_fixture tiny|feats DOC.yaml OUT.bin OUT.json\n";
    return 2;
  }
  const std::string format = argv[1];
  try {
    const binschema::text::Doc doc = binschema::text::load_file(argv[2]);
    if (format == "tiny") {
      namespace f = binschema::tiny;
      return run<f::Header>(doc, argv[3], argv[4], [](auto b) { return f::decode(b); },
                            [](const auto& m) { return f::encode(m); },
                            [](const auto& m, auto k) { return f::to_text(m, k); },
                            [](const auto& d) { return f::from_text(d); });
    }
    if (format == "feats") {
      namespace f = binschema::feats;
      return run<f::Head>(doc, argv[3], argv[4], [](auto b) { return f::decode(b); },
                          [](const auto& m) { return f::encode(m); },
                          [](const auto& m, auto k) { return f::to_text(m, k); },
                          [](const auto& d) { return f::from_text(d); });
    }
    std::cerr << "kaitai_fixture: unknown format '" << format << "' (tiny or feats)\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "kaitai_fixture: " << argv[2] << ": " << e.what() << "\n";
    return 1;
  }
}
