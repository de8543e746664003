// binschema-gen: schema YAML -> C++ model/reader/writer + Markdown docs.
//
//   binschema-gen SCHEMA.yaml --out DIR [--name NAME]
// writes DIR/NAME.h, DIR/NAME.cpp and DIR/NAME.md (NAME defaults to the
// schema's format name). Each file is written whole to a temporary name and
// renamed, so a failed run never leaves half a file behind.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "schema.h"

namespace fs = std::filesystem;

static bool write_file(const fs::path& p, const std::string& text) {
  fs::path tmp = p;
  tmp += ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary);
    out << text;
    if (!out) return false;
  }
  fs::rename(tmp, p);
  return true;
}

int main(int argc, char** argv) {
  std::string schema, out_dir, name;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--out" && i + 1 < argc) out_dir = argv[++i];
    else if (a == "--name" && i + 1 < argc) name = argv[++i];
    else if (!a.empty() && a[0] != '-' && schema.empty()) schema = a;
    else {
      std::cerr << "usage: binschema-gen SCHEMA.yaml --out DIR [--name NAME]\n";
      return 2;
    }
  }
  if (schema.empty() || out_dir.empty()) {
    std::cerr << "usage: binschema-gen SCHEMA.yaml --out DIR [--name NAME]\n";
    return 2;
  }
  try {
    auto s = binschema::gen::load_schema(schema);
    // Generated files name the schema by its file name only, so that the
    // output does not depend on where the checkout lives.
    s->file = fs::path(schema).filename().string();
    if (name.empty()) name = s->format;
    auto cpp = binschema::gen::generate_cpp(*s);
    std::string md = binschema::gen::generate_markdown(*s);
    fs::create_directories(out_dir);
    if (!write_file(fs::path(out_dir) / (name + ".h"), cpp.header) ||
        !write_file(fs::path(out_dir) / (name + ".cpp"), cpp.source) ||
        !write_file(fs::path(out_dir) / (name + ".md"), md)) {
      std::cerr << "binschema-gen: cannot write to " << out_dir << "\n";
      return 1;
    }
  } catch (const binschema::gen::SchemaError& e) {
    std::cerr << e.what() << "\n";
    return 1;
  }
  return 0;
}
