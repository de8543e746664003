// Checks shared by the format tests of "files from any writer" (issue 11):
// a file decodes with its layout and comes back byte for byte directly,
// through YAML and through JSON (as the library and as the CLI's format
// entry do it).
#pragma once

#include <boost/test/unit_test.hpp>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "binschema/format.h"
#include "binschema/layout.h"
#include "binschema/text.h"

// NS is a generated format's namespace (binschema::baev, ...).
#define BINSCHEMA_EXPECT_SAME_BYTES(NS, bytes, what) expect_same_bytes<decltype(NS::decode(std::span<const uint8_t>()))>(                                    \
    bytes, what, [](std::span<const uint8_t> b, binschema::Layout& l) { return NS::decode(b, l); },                   \
    [](const auto& m, const binschema::Layout& l) { return NS::encode(m, l); },                                       \
    [](const auto& m, binschema::TextKind k, const binschema::Layout* l) { return NS::to_text(m, k, l); },            \
    [](const binschema::text::Doc& d, binschema::Layout* l) { return NS::from_text_with_layout(d, *l); }, NS::format())

template <class Model, class Dec, class Enc, class ToText, class FromText>
binschema::Layout expect_same_bytes(const std::vector<uint8_t>& bytes, const std::string& what, Dec dec, Enc enc,
                                    ToText to_text, FromText from_text, const binschema::Format& format) {
  binschema::Layout layout;
  const Model m = dec(bytes, layout);
  BOOST_TEST((enc(m, layout) == bytes), what << ": direct");
  for (auto kind : {binschema::TextKind::Yaml, binschema::TextKind::Json}) {
    const char* k = kind == binschema::TextKind::Json ? "JSON" : "YAML";
    const std::string text = to_text(m, kind, &layout);
    binschema::Layout back;
    const Model m2 = from_text(binschema::text::load(text), &back);
    BOOST_TEST((m2 == m), what << ": model through " << k);
    BOOST_TEST((enc(m2, back) == bytes), what << ": bytes through " << k);
    // The CLI's way: decode to text, encode the text.
    const std::string cli_text = format.decode(bytes, kind);
    BOOST_TEST((format.encode(binschema::text::load(cli_text)) == bytes), what << ": CLI through " << k);
  }
  return layout;
}

// The text's layout entry, if any: the document from `layout:` on.
inline std::string layout_entry(const std::string& yaml) {
  const size_t at = yaml.find("\nlayout:");
  return at == std::string::npos ? "" : yaml.substr(at + 1);
}
