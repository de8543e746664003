// The package tests' C++ check: a downstream format and a shipped one,
// encoded and decoded through the generated API. Exit 0 when all holds.
#include <cstdio>
#include <vector>

#include "baev.h"
#include "mytiny_text.h"

namespace {
int failures = 0;
void check(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "roundtrip: FAILED: %s\n", what);
    ++failures;
  }
}
}  // namespace

int main() {
  binschema::mytiny::File f;
  f.points = {{1, -2}, {300, 4}};
  f.name = "corner";
  const std::vector<uint8_t> bytes = binschema::mytiny::encode(f);
  const std::vector<uint8_t> expected{'M', 'Y', 'T', 'N', 1, 0, 2, 0, 1, 0, 0xFE, 0xFF, 0x2C, 1, 4, 0,
                                      'c', 'o', 'r', 'n', 'e', 'r', 0, 0};
  check(bytes == expected, "mytiny encodes to the bytes its schema says");
  check(binschema::mytiny::decode(bytes) == f, "mytiny decodes back to the model");
  check(binschema::mytiny::from_text(binschema::mytiny::to_text(f, binschema::TextKind::Yaml)) == f,
        "mytiny survives its YAML form");

  binschema::baev::File b;
  check(binschema::baev::decode(binschema::baev::encode(b)) == b, "a shipped format (baev) round-trips");
  return failures == 0 ? 0 : 1;
}
