// BFEVFL / BFEVTM over the real BotW files in ../shared/samples/bfevfl/:
// every file decodes, and writing the model back gives the original bytes,
// directly and through YAML and JSON text.
#define BOOST_TEST_MODULE bfevfl_test
#include <boost/test/unit_test.hpp>

#include "bfevfl.h"
#include "samples.h"

using namespace binschema::bfevfl;

namespace {

// The first differing offset, for a readable failure.
std::string first_difference(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b) {
  size_t n = std::min(a.size(), b.size());
  for (size_t i = 0; i < n; ++i)
    if (a[i] != b[i]) return "first difference at " + binschema::hex(i) + " (sizes " + binschema::hex(a.size()) + ", " + binschema::hex(b.size()) + ")";
  return a.size() == b.size() ? "same" : "sizes differ: " + binschema::hex(a.size()) + " vs " + binschema::hex(b.size());
}

}  // namespace

BOOST_AUTO_TEST_CASE(every_sample_rewrites_byte_for_byte) {
  size_t files = 0;
  for (const auto& path : samples::files("bfevfl")) {
    ++files;
    BOOST_TEST_CONTEXT(path.filename().string()) {
      const auto bytes = samples::read(path);
      File f;
      try {
        f = decode(bytes);
      } catch (const binschema::DecodeError& e) {
        BOOST_ERROR(e.what());
        continue;
      }
      const auto again = encode(f);
      BOOST_TEST((again == bytes), first_difference(again, bytes));
      for (auto kind : {binschema::TextKind::Yaml, binschema::TextKind::Json}) {
        const auto text = encode(from_text(YAML::Load(to_text(f, kind))));
        BOOST_TEST((text == bytes), (kind == binschema::TextKind::Json ? "json: " : "yaml: ") << first_difference(text, bytes));
      }
    }
  }
  BOOST_TEST(files == 7u);  // the 7 files described in ../shared/samples/bfevfl/PROVENANCE.md
}
