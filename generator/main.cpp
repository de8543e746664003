// binschema-gen: schema YAML -> C++ model/reader/writer + Markdown docs
// (+ a JSON Schema of the text form and a Kaitai Struct .ksy on request).
//
//   binschema-gen SCHEMA.yaml --out DIR [--name NAME] [--emit WHAT[,WHAT...]]
// writes DIR/NAME.h, DIR/NAME.cpp and DIR/NAME.md (NAME defaults to the
// schema's format name). --emit picks the outputs: cpp (NAME.h, NAME.cpp),
// md (NAME.md), jsonschema (NAME.schema.json), ksy (NAME.ksy) or all; the
// default is cpp,md. Each file is written whole to a temporary name and
// renamed, so a failed run never leaves half a file behind.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <utility>
#include <vector>

#include "generate.h"

namespace fs = std::filesystem;

static const char* kUsage =
    "usage: binschema-gen SCHEMA.yaml --out DIR [--name NAME] [--emit cpp,md,jsonschema,ksy|all]\n";

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
  std::string schema, out_dir, name, emit = "cpp,md";
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--out" && i + 1 < argc) out_dir = argv[++i];
    else if (a == "--name" && i + 1 < argc) name = argv[++i];
    else if (a == "--emit" && i + 1 < argc) emit = argv[++i];
    else if (!a.empty() && a[0] != '-' && schema.empty()) schema = a;
    else {
      std::cerr << kUsage;
      return 2;
    }
  }
  if (schema.empty() || out_dir.empty()) {
    std::cerr << kUsage;
    return 2;
  }
  bool want_cpp = false, want_md = false, want_json = false, want_ksy = false;
  {
    std::stringstream list(emit);
    std::string item;
    while (std::getline(list, item, ',')) {
      if (item == "cpp") want_cpp = true;
      else if (item == "md") want_md = true;
      else if (item == "jsonschema") want_json = true;
      else if (item == "ksy") want_ksy = true;
      else if (item == "all") want_cpp = want_md = want_json = want_ksy = true;
      else {
        std::cerr << "binschema-gen: --emit: unknown output '" << item << "' (cpp, md, jsonschema, ksy or all)\n";
        return 2;
      }
    }
  }
  try {
    auto s = binschema::gen::load_schema(schema);
    // Generated files name the schema by its file name only, so that the
    // output does not depend on where the checkout lives.
    s->file = fs::path(schema).filename().string();
    if (name.empty()) name = s->format;
    // The generated code's namespace is the format's name, and its files are
    // NAME.*: builds (binschema_add_format) take NAME from the file's name.
    if (name != s->format) {
      std::cerr << schema << ": format: '" << s->format << "' differs from the name '" << name
                << "' (the schema file's name); rename the file to " << s->format << ".yaml or change format:\n";
      return 1;
    }
    // Every output is made before any is written: a schema one back end
    // refuses leaves no files from the others.
    std::vector<std::pair<std::string, std::string>> files;
    if (want_cpp) {
      auto cpp = binschema::gen::generate_cpp(*s);
      files.emplace_back(name + ".h", std::move(cpp.header));
      files.emplace_back(name + "_text.h", std::move(cpp.text_header));
      files.emplace_back(name + ".cpp", std::move(cpp.source));
    }
    if (want_md) files.emplace_back(name + ".md", binschema::gen::generate_markdown(*s));
    if (want_json) files.emplace_back(name + ".schema.json", binschema::gen::generate_jsonschema(*s));
    if (want_ksy) files.emplace_back(name + ".ksy", binschema::gen::generate_ksy(*s));
    fs::create_directories(out_dir);
    for (const auto& [file, text] : files)
      if (!write_file(fs::path(out_dir) / file, text)) {
        std::cerr << "binschema-gen: cannot write to " << out_dir << "\n";
        return 1;
      }
  } catch (const binschema::gen::SchemaError& e) {
    std::cerr << e.what() << "\n";
    return 1;
  }
  return 0;
}
