#include "schemas.h"

#include <binschema/schema.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <filesystem>
#include <memory>

#include "binschema/dynamic.h"
#include "binschema/format.h"
#include "binschema/added_formats.h"
#include "io.h"

namespace binschema::cli {

namespace {

namespace fs = std::filesystem;

// A loaded schema and its Format. Format holds plain function pointers (no
// context): slot I's functions are trampolines to the schema in slot I.
struct Loaded {
  dynamic::Schema schema;
  std::string path;  // canonical: the same file given twice is loaded once
  std::vector<std::string> other_magics;
  Format format{};
};
constexpr size_t kSlots = 64;
std::array<std::unique_ptr<Loaded>, kSlots> g_slots;
size_t g_used = 0;

template <size_t I>
struct Slot {
  static const dynamic::Schema& s() { return g_slots[I]->schema; }
  static std::string decode(std::span<const uint8_t> bytes, TextKind kind) {
    Layout layout;
    const dynamic::Value v = s().decode(bytes, layout);
    return s().to_text(v, kind, &layout);
  }
  static std::vector<uint8_t> encode(const text::Doc& doc) {
    Layout layout;
    const dynamic::Value v = s().from_text(doc, layout);
    return s().encode(v, layout);
  }
  static std::vector<std::pair<std::string, std::string>> info(std::span<const uint8_t> bytes) { return s().info(bytes); }
  static std::vector<uint8_t> roundtrip(std::span<const uint8_t> bytes) {
    Layout layout;
    const dynamic::Value v = s().decode(bytes, layout);
    return s().encode(v, layout);
  }
};

template <size_t... I>
void fill(Format& f, size_t i, std::index_sequence<I...>) {
  ((i == I ? (f.decode = &Slot<I>::decode, f.encode = &Slot<I>::encode, f.info = &Slot<I>::info,
              f.roundtrip = &Slot<I>::roundtrip, 0)
           : 0),
   ...);
}

void add(const std::string& path) {
  std::error_code ec;
  const std::string canonical = fs::weakly_canonical(path, ec).string();
  for (size_t i = 0; i < g_used; ++i)
    if (g_slots[i]->path == canonical) return;
  dynamic::Schema s = [&] {
    try {
      return dynamic::Schema::load(path);
    } catch (const gen::SchemaError& e) {
      throw Failure{kUsage, e.what()};
    }
  }();
  if (g_used == kSlots) throw Failure{kUsage, path + ": more than " + std::to_string(kSlots) + " schemas loaded at once"};
  for (size_t i = 0; i < g_used; ++i)
    if (g_slots[i]->schema.name() == s.name())
      throw Failure{kUsage, path + ": format '" + s.name() + "' is loaded already (from " + g_slots[i]->schema.model().file + ")"};
  auto l = std::make_unique<Loaded>(Loaded{std::move(s), canonical, {}, {}});
  const gen::Schema& m = l->schema.model();
  Format& f = l->format;
  f.name = m.format.c_str();
  f.title = m.title.c_str();
  f.versions = m.versions.c_str();
  for (const auto& e : m.extensions) f.extensions.push_back(e.c_str());
  f.magic = m.magic;
  f.magic_offset = m.magic_offset;
  // The other marks of a magic that picks the byte order (bom: {YB: little, BY: big}).
  if (m.endian_by_bom && !m.magic.empty())
    if (const gen::Field* b = m.find(m.root)->field(m.bom_field); b && b->resolved.offset == m.magic_offset)
      for (const auto& [mark, big] : b->bom_marks)
        if (mark != m.magic) l->other_magics.push_back(mark);
  for (const auto& o : l->other_magics) f.other_magics.emplace_back(o);
  fill(f, g_used, std::make_index_sequence<kSlots>{});
  g_slots[g_used++] = std::move(l);
  add_format(&g_slots[g_used - 1]->format);
}

void add_path(const std::string& path) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(path, ec))
      if (e.is_regular_file() && (e.path().extension() == ".yaml" || e.path().extension() == ".yml")) files.push_back(e.path());
    std::sort(files.begin(), files.end());
    for (const auto& p : files) add(p.string());
    return;
  }
  if (!fs::is_regular_file(path, ec)) throw Failure{kUsage, path + ": no such schema file or folder"};
  add(path);
}

}  // namespace

std::vector<std::string> schema_arguments(int argc, char** argv) {
  std::vector<std::string> out;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--") break;
    if (a == "--schema" && i + 1 < argc) out.push_back(argv[++i]);
    else if (a.starts_with("--schema=")) out.push_back(a.substr(9));
  }
  return out;
}

void load_schemas(const std::vector<std::string>& paths) {
  for (const auto& p : paths) add_path(p);
  if (const char* env = std::getenv("BINSCHEMA_SCHEMA_PATH"); env && *env) {
    std::string list = env;
    size_t from = 0;
    while (from <= list.size()) {
      const size_t colon = list.find(':', from);
      const std::string p = list.substr(from, colon == std::string::npos ? std::string::npos : colon - from);
      if (!p.empty()) add_path(p);
      if (colon == std::string::npos) break;
      from = colon + 1;
    }
  }
}

}  // namespace binschema::cli
