#include "mods.h"

#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <thread>

#include "archive.h"
#include "binschema/error.h"
#include "binschema/format.h"
#include "binschema/hash.h"
#include "binschema/text_doc.h"
#include "byte_map.h"
#include "convert.h"
#include "doctree.h"
#include "io.h"
#include "layers.h"

namespace fs = std::filesystem;

namespace binschema::cli {

namespace {

// Archives inside archives inside archives...: refused past this depth.
constexpr int kMaxNesting = 16;
constexpr const char* kMeta = ".binschema";  // a folder's manifest and kept streams

std::string hex(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

std::string json_quote(std::string_view s) {
  Value v{Value::Kind::Scalar, std::string(s), {}, {}};
  return to_json(v);
}

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

std::string_view text_suffix(std::string_view name) {
  for (std::string_view s : {".yaml", ".yml", ".json"})
    if (name.size() > s.size() && ends_with(name, s)) return s;
  return {};
}

// The first offset at which two byte strings differ (their common length
// when one is the start of the other).
size_t first_difference(std::span<const uint8_t> a, std::span<const uint8_t> b) {
  const size_t n = std::min(a.size(), b.size());
  for (size_t i = 0; i < n; ++i)
    if (a[i] != b[i]) return i;
  return n;
}

std::string decode_error_line(const DecodeError& e) {
  std::string what = e.what();
  if (what.find(hex(e.offset())) == std::string::npos) what += " (at " + hex(e.offset()) + ")";
  return what;
}

// A format's text of these bytes, parsed: throws DecodeError.
Value document_of(const Format& f, std::span<const uint8_t> bytes) {
  const std::string json = f.decode(bytes, TextKind::Json);
  return to_value(text::load(json).root());
}

// A document (a Value) back to bytes through the format's text reader.
std::vector<uint8_t> encode_value(const Value& doc, const std::string& where) {
  const std::string json = to_json(doc);
  return encode_from_text(std::span(reinterpret_cast<const uint8_t*>(json.data()), json.size()), "", where).bytes;
}

// What a member's content is, for telling a renamed member in the folder:
// its size and murmur3 hash, "SIZE:HASH".
std::string content_sum(std::span<const uint8_t> b) {
  return std::to_string(b.size()) + ":" +
         hex(murmur3_x86_32(std::string_view(reinterpret_cast<const char*>(b.data()), b.size())));
}

// ---- Compression parameters in a manifest -------------------------------------

// The parameters that give back `stored` from `plain`, or nullopt (then the
// stored stream is kept beside the manifest).
std::optional<LayerParams> reproducing_params(std::span<const uint8_t> stored, std::span<const uint8_t> plain,
                                              const std::string& where) {
  LayerParams p = layer_of(stored);
  if (p.layer == Compression::none) return p;
  if (p.layer == Compression::yaz0) {
    if (add_layer(plain, p, where) == std::vector<uint8_t>(stored.begin(), stored.end())) return p;
    return std::nullopt;
  }
  p.zstd_dictionary = zstd_dictionary_of(stored);
  // zstd frames do not record the level: the levels are tried (all of them
  // for files up to 1 MiB, the default alone above).
  std::vector<int> levels = {3};
  if (plain.size() <= (size_t{1} << 20))
    for (int l = 1; l <= 19; ++l)
      if (l != 3) levels.push_back(l);
  for (int l : levels) {
    p.zstd_level = l;
    if (add_layer(plain, p, where) == std::vector<uint8_t>(stored.begin(), stored.end())) return p;
  }
  p.zstd_level = 3;
  return std::nullopt;
}

std::string params_yaml(const LayerParams& p, const std::string& kept) {
  std::string s = std::string("{layer: ") + compression_name(p.layer);
  if (p.layer == Compression::yaz0) s += ", alignment: " + hex(p.yaz0_alignment);
  if (p.layer == Compression::zstd) {
    s += ", level: " + std::to_string(p.zstd_level);
    if (!p.zstd_dictionary.empty()) s += ", dictionary: " + json_quote(p.zstd_dictionary);
  }
  if (!kept.empty()) s += ", kept: " + json_quote(kept);
  return s + "}";
}

uint64_t number(const Value* v, const std::string& where) {
  if (!v || v->kind != Value::Kind::Scalar) throw Failure{kBadData, where + ": a number is missing"};
  try {
    size_t used = 0;
    const uint64_t n = std::stoull(v->text, &used, 0);
    if (used != v->text.size()) throw std::invalid_argument("trailing");
    return n;
  } catch (const std::exception&) {
    throw Failure{kBadData, where + ": '" + v->text + "' is not a number"};
  }
}

std::string scalar(const Value* v) { return v && v->kind == Value::Kind::Scalar ? v->text : std::string(); }

LayerParams params_from(const Value& c, const std::string& where, std::string* kept) {
  LayerParams p;
  const std::string layer = scalar(c.get("layer"));
  if (layer == "yaz0") {
    p.layer = Compression::yaz0;
    p.yaz0_alignment = static_cast<uint32_t>(number(c.get("alignment"), where + ": compression.alignment"));
  } else if (layer == "zstd") {
    p.layer = Compression::zstd;
    p.zstd_level = static_cast<int>(number(c.get("level"), where + ": compression.level"));
    p.zstd_dictionary = scalar(c.get("dictionary"));
  } else if (layer != "none") {
    throw Failure{kBadData, where + ": compression.layer: unknown layer '" + layer + "' (yaz0, zstd, none)"};
  }
  if (kept) *kept = scalar(c.get("kept"));
  return p;
}

// ---- unpack -----------------------------------------------------------------

void write_file(const fs::path& p, std::span<const uint8_t> bytes) {
  std::error_code ec;
  fs::create_directories(p.parent_path(), ec);
  if (ec) throw Failure{kUsage, p.parent_path().string() + ": cannot create the directory: " + ec.message()};
  std::ofstream f(p, std::ios::binary);
  f.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  f.close();
  if (!f) throw Failure{kUsage, p.string() + ": cannot write"};
}
void write_file(const fs::path& p, std::string_view text) {
  write_file(p, std::span(reinterpret_cast<const uint8_t*>(text.data()), text.size()));
}

// A member's name as a path under its folder: relative, no `.`, `..` or
// empty parts, not the manifest's folder.
void check_member_name(const std::string& name, const std::string& where) {
  auto bad = [&](const char* why) {
    throw Failure{kBadData, where + ": the member name '" + name + "' " + why + ": it cannot be a file of a folder"};
  };
  if (name.empty()) bad("is empty");
  if (name.front() == '/') bad("is absolute");
  if (name.find('\0') != std::string::npos || name.find('\\') != std::string::npos) bad("has a NUL or a backslash");
  size_t start = 0;
  for (;;) {
    const size_t end = name.find('/', start);
    const std::string part = name.substr(start, end == std::string::npos ? std::string::npos : end - start);
    if (part.empty() || part == "." || part == "..") bad("has an empty, '.' or '..' part");
    if (start == 0 && part == kMeta) bad("starts with .binschema (the manifest's folder)");
    if (end == std::string::npos) break;
    start = end + 1;
  }
}

class Unpacker {
 public:
  // Unpacks the archive `plain` (the stored bytes `stored`, with their layer)
  // into `dir`, which does not exist yet.
  void archive(std::span<const uint8_t> stored, std::span<const uint8_t> plain, const fs::path& dir,
               const std::string& where, int depth) {
    if (depth > kMaxNesting)
      throw Failure{kBadData, where + ": archives nested more than " + std::to_string(kMaxNesting) + " deep"};
    Archive a;
    try {
      a = read_archive(plain);
    } catch (const DecodeError& e) {
      throw Failure{kBadData, where + ": " + decode_error_line(e)};
    } catch (Failure& f) {
      f.line = where + ": " + f.line;
      throw;
    }
    std::string manifest =
        "# Written by `binschema unpack`, read by `binschema pack` (docs/mods.md): what the\n"
        "# folder cannot say. Members whose files are gone are left out of the pack;\n"
        "# files it does not list are added.\n"
        "binschema: folder\n";
    const LayerParams layer = layer_of(stored);
    if (layer.layer != Compression::none) {
      std::string kept;
      std::optional<LayerParams> p = reproducing_params(stored, plain, where);
      if (!p) {
        kept = "kept/archive";
        write_file(dir / kMeta / kept, stored);
        p = layer;
        if (p->layer == Compression::zstd) p->zstd_dictionary = zstd_dictionary_of(stored);
      }
      manifest += "compression: " + params_yaml(*p, kept) + "\n";
    }
    manifest += "members:\n";
    std::set<std::string> files, dirs;  // paths taken, and folders made
    auto take = [&](const std::string& path, bool is_dir) {
      if (files.count(path) || (!is_dir && dirs.count(path))) return false;
      for (size_t s = path.find('/'); s != std::string::npos; s = path.find('/', s + 1))
        if (files.count(path.substr(0, s))) return false;
      if (is_dir)
        files.insert(path);
      else
        files.insert(path);
      for (size_t s = path.find('/'); s != std::string::npos; s = path.find('/', s + 1)) dirs.insert(path.substr(0, s));
      return true;
    };
    size_t kept_count = 0;
    for (const ArchiveMember& m : a.members) {
      const std::string mwhere = where + ":" + m.name;
      check_member_name(m.name, where);
      const LayerParams ml = layer_of(m.bytes);
      std::vector<uint8_t> inner;
      bool inner_ok = true;
      if (ml.layer == Compression::none) {
        inner = m.bytes;
      } else {
        try {
          inner = remove_layer(m.bytes, ml, mwhere);
        } catch (const Failure&) {
          inner_ok = false;  // kept as it is stored
        }
      }
      std::string entry = "  - {name: " + json_quote(m.name);
      if (inner_ok && is_archive(inner) && take(m.name, true)) {
        try {
          archive(m.bytes, inner, dir / m.name, mwhere, depth + 1);
          manifest += entry + ", file: " + json_quote(m.name) + ", as: archive}\n";
          continue;
        } catch (const Failure&) {
          // A damaged archive inside: kept as bytes.
          std::error_code ec;
          fs::remove_all(dir / m.name, ec);
          files.erase(m.name);
        }
      }
      const Format* f = inner_ok ? detect_format(inner, compression_for_name(m.name).inner_name) : nullptr;
      if (f && !is_archive(inner) && take(m.name + ".yaml", false)) {
        std::optional<std::string> text = text_that_comes_back(*f, inner, mwhere);
        if (text) {
          std::string comp;
          if (ml.layer != Compression::none) {
            std::string kept;
            std::optional<LayerParams> p = reproducing_params(m.bytes, inner, mwhere);
            if (!p) {
              kept = "kept/" + std::to_string(kept_count++);
              write_file(dir / kMeta / kept, m.bytes);
              p = ml;
              if (p->layer == Compression::zstd) p->zstd_dictionary = zstd_dictionary_of(m.bytes);
            }
            comp = ", compression: " + params_yaml(*p, kept);
          }
          write_file(dir / (m.name + ".yaml"), *text);
          manifest += entry + ", file: " + json_quote(m.name + ".yaml") + ", as: text, sum: " + json_quote(content_sum(inner)) + comp + "}\n";
          ++text_members;
          continue;
        }
        files.erase(m.name + ".yaml");
      }
      if (!take(m.name, false))
        throw Failure{kBadData, mwhere + ": its path in the folder collides with another member's (a file and a folder of one name)"};
      write_file(dir / m.name, m.bytes);
      manifest += entry + ", file: " + json_quote(m.name) + ", as: raw, sum: " + json_quote(content_sum(m.bytes)) + "}\n";
      ++raw_members;
    }
    write_file(dir / kMeta / "manifest.yaml", manifest);
    write_file(dir / kMeta / "archive.yaml", a.skeleton);
    ++archives;
  }

  size_t archives = 0, text_members = 0, raw_members = 0, not_back = 0;

 private:
  // The member as YAML when that YAML encodes to the very same bytes.
  std::optional<std::string> text_that_comes_back(const Format& f, std::span<const uint8_t> bytes,
                                                  const std::string& where) {
    try {
      std::string text = f.decode(bytes, TextKind::Yaml);
      const std::vector<uint8_t> back =
          encode_from_text(std::span(reinterpret_cast<const uint8_t*>(text.data()), text.size()), "", where).bytes;
      if (back.size() == bytes.size() && std::equal(back.begin(), back.end(), bytes.begin())) return text;
      ++not_back;
    } catch (...) {
    }
    return std::nullopt;
  }
};

// A temporary folder beside `dir`.
fs::path temp_dir_beside(const fs::path& dir) {
  fs::path parent = dir.parent_path();
  if (parent.empty()) parent = ".";
  std::string tmpl = (parent / ("." + dir.filename().string() + ".XXXXXX")).string();
  if (!::mkdtemp(tmpl.data())) throw Failure{kUsage, dir.string() + ": cannot create a folder beside it: " + std::strerror(errno)};
  return tmpl;
}

// ---- pack -------------------------------------------------------------------

Value load_value_file(const fs::path& p) {
  const std::vector<uint8_t> raw = read_input(p.string());
  try {
    return to_value(text::load(std::string_view(reinterpret_cast<const char*>(raw.data()), raw.size())).root());
  } catch (const std::exception& e) {
    throw Failure{kBadData, p.string() + ": " + e.what()};
  }
}

std::string read_text(const fs::path& p) {
  const std::vector<uint8_t> raw = read_input(p.string());
  return std::string(raw.begin(), raw.end());
}

bool has_manifest(const fs::path& dir) {
  std::error_code ec;
  return fs::is_regular_file(dir / kMeta / "manifest.yaml", ec);
}

// The stored bytes: `plain` with its layer, the kept stream when it holds
// the very same content.
std::vector<uint8_t> with_layer(const std::vector<uint8_t>& plain, const LayerParams& p, const fs::path& kept,
                                const std::string& where) {
  if (p.layer == Compression::none) return plain;
  if (!kept.empty()) {
    std::vector<uint8_t> stored = read_input(kept.string());
    try {
      if (remove_layer(stored, layer_of(stored), where) == plain) return stored;
    } catch (const Failure&) {
      // A damaged kept stream: compressed afresh.
    }
  }
  return add_layer(plain, p, where);
}

class Packer {
 public:
  // The stored bytes of the archive folder `dir`.
  std::vector<uint8_t> archive(const fs::path& dir, int depth, const std::string& out_name) {
    if (depth > kMaxNesting) throw Failure{kBadData, dir.string() + ": archives nested more than 16 deep"};
    const bool managed = has_manifest(dir);
    Value manifest;
    std::string skeleton = "format: sarc\nbom: 0xfffe\nnodes: []\n";  // a folder never unpacked: a fresh archive
    if (managed) {
      manifest = load_value_file(dir / kMeta / "manifest.yaml");
      if (scalar(manifest.get("binschema")) != "folder")
        throw Failure{kBadData, (dir / kMeta / "manifest.yaml").string() + ": not a manifest of `binschema unpack` (no 'binschema: folder')"};
      skeleton = read_text(dir / kMeta / "archive.yaml");
    }
    std::vector<ArchiveMember> old;
    try {
      old = skeleton_members(skeleton);
    } catch (const std::exception& e) {
      throw Failure{kBadData, (dir / kMeta / "archive.yaml").string() + ":" + e.what()};
    }
    std::vector<ArchiveMember> members;
    struct Removed {
      std::string name, sum;
      uint32_t alignment;
    };
    std::vector<Removed> removed;
    std::set<std::string> claimed;  // paths under dir that the manifest names
    const Value* list = manifest.get("members");
    const std::string mpath = (dir / kMeta / "manifest.yaml").string();
    if (list && list->kind == Value::Kind::Seq) {
      for (const Value& e : list->items) {
        const std::string name = scalar(e.get("name")), file = scalar(e.get("file")), as = scalar(e.get("as"));
        if (name.empty() || file.empty()) throw Failure{kBadData, mpath + ": a member without name or file"};
        check_member_name(file, mpath);
        claimed.insert(file);
        const fs::path p = dir / file;
        std::error_code ec;
        uint32_t alignment = 0;
        for (const ArchiveMember& o : old)
          if (o.name == name) alignment = o.alignment;
        if (!fs::exists(p, ec)) {
          removed.push_back({name, scalar(e.get("sum")), alignment});
          continue;
        }
        std::vector<uint8_t> bytes;
        if (as == "archive") {
          bytes = archive(p, depth + 1, "");
        } else if (as == "text") {
          bytes = encode_text_file(p);
          if (const Value* c = e.get("compression")) {
            std::string kept;
            const LayerParams lp = params_from(*c, mpath + ": " + name, &kept);
            bytes = with_layer(bytes, lp, kept.empty() ? fs::path() : dir / kMeta / kept, p.string());
          }
        } else if (as == "raw") {
          bytes = read_input(p.string());
        } else {
          throw Failure{kBadData, mpath + ": member " + name + ": as: '" + as + "' (text, raw or archive)"};
        }
        members.push_back({name, std::move(bytes), 0});
      }
    }
    // Files the manifest does not name: added members.
    std::vector<ArchiveMember> added;
    std::vector<std::string> sums;  // of each added member's content
    add_unclaimed(dir, dir, claimed, added, sums, depth);
    for (size_t i = 0; i < added.size(); ++i) {
      // A renamed member: an added one with the content of a removed one keeps its alignment.
      for (const Removed& r : removed)
        if (!r.sum.empty() && r.sum == sums[i]) added[i].alignment = r.alignment;
      members.push_back(std::move(added[i]));
    }
    std::vector<uint8_t> plain;
    try {
      plain = write_archive(skeleton, members);
    } catch (const EncodeError& e) {
      throw Failure{kBadData, dir.string() + ": " + e.what()};
    }
    if (!managed) {
      if (!out_name.empty()) return compress_for_output(std::move(plain), out_name, dir.string());
      return compress_for_output(std::move(plain), dir.string(), dir.string());  // x.sbactorpack/: Yaz0
    }
    if (const Value* c = manifest.get("compression")) {
      std::string kept;
      const LayerParams lp = params_from(*c, mpath, &kept);
      return with_layer(plain, lp, kept.empty() ? fs::path() : dir / kMeta / kept, dir.string());
    }
    return plain;
  }

 private:
  std::vector<uint8_t> encode_text_file(const fs::path& p) {
    const std::vector<uint8_t> raw = read_input(p.string());
    return encode_from_text(raw, "", p.string()).bytes;
  }

  void add_unclaimed(const fs::path& root, const fs::path& dir, const std::set<std::string>& claimed,
                     std::vector<ArchiveMember>& added, std::vector<std::string>& sums, int depth) {
    std::error_code ec;
    std::vector<fs::path> entries;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) entries.push_back(it->path());
    if (ec) throw Failure{kUsage, dir.string() + ": cannot read the folder: " + ec.message()};
    std::sort(entries.begin(), entries.end());
    for (const fs::path& p : entries) {
      const std::string rel = p.lexically_relative(root).generic_string();
      if (rel == kMeta || claimed.count(rel)) continue;
      std::error_code sec;
      if (fs::is_directory(p, sec)) {
        if (has_manifest(p)) {  // a folder of `binschema unpack`: a nested archive
          added.push_back({rel, archive(p, depth + 1, ""), 0});
          sums.push_back("");
        } else {
          add_unclaimed(root, p, claimed, added, sums, depth);
        }
        continue;
      }
      if (!fs::is_regular_file(p, sec)) continue;
      const std::string_view suffix = text_suffix(rel);
      if (!suffix.empty()) {
        const std::vector<uint8_t> raw = read_input(p.string());
        try {
          Encoded e = encode_from_text(raw, "", p.string());
          const std::string name = rel.substr(0, rel.size() - suffix.size());
          sums.push_back(content_sum(e.bytes));
          added.push_back({name, compress_for_output(std::move(e.bytes), name, p.string()), 0});
          continue;
        } catch (const Failure& f) {
          if (!f.unknown_format) throw;  // a document of a known format with a mistake
        }
      }
      added.push_back({rel, read_input(p.string()), 0});
      sums.push_back(content_sum(added.back().bytes));
    }
  }
};

// ---- Loading any input for diff and merge ------------------------------------

struct Loaded {
  std::string where;
  std::vector<uint8_t> stored;  // as read (binary inputs)
  std::vector<uint8_t> plain;   // the layer taken off
  LayerParams layer;
  bool text = false;            // a YAML or JSON input
  const Format* format = nullptr;
  std::optional<Value> doc;     // a known format's document
  std::optional<Archive> archive;
};

Loaded load_bytes(std::vector<uint8_t> stored, const std::string& name, const std::string& where) {
  Loaded l;
  l.where = where;
  l.layer = layer_of(stored);
  l.plain = l.layer.layer == Compression::none ? stored : remove_layer(stored, l.layer, where);
  l.stored = std::move(stored);
  if (is_archive(l.plain)) {
    try {
      l.archive = read_archive(l.plain);
      return l;
    } catch (const DecodeError& e) {
      throw Failure{kBadData, where + ": " + decode_error_line(e)};
    }
  }
  l.format = detect_format(l.plain, compression_for_name(name).inner_name);
  if (l.format) {
    try {
      l.doc = document_of(*l.format, l.plain);
    } catch (const DecodeError& e) {
      throw Failure{kBadData, where + ": " + decode_error_line(e)};
    }
  }
  return l;
}

Loaded load_path(const std::string& path) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    // A folder of `binschema unpack` (or any folder): the archive it packs into.
    Packer p;
    Loaded l = load_bytes(p.archive(path, 0, ""), path, path);
    return l;
  }
  if (!text_suffix(path).empty()) {
    Loaded l;
    l.where = path;
    l.text = true;
    l.stored = read_input(path);
    try {
      const text::Doc d = text::load(std::string_view(reinterpret_cast<const char*>(l.stored.data()), l.stored.size()));
      l.doc = to_value(d.root());
    } catch (const std::exception&) {
      encode_from_text(l.stored, "", path);  // throws the error with its line:col
      throw;
    }
    l.format = find_format(scalar(l.doc->get("format")));
    if (!l.format) throw Failure{kBadData, path + ": no 'format:' key naming a known format (known: " + known_formats() + ")"};
    return l;
  }
  return load_bytes(read_input(path), path, path);
}

// ---- diff -------------------------------------------------------------------

void diff_loaded(const Loaded& a, const Loaded& b, const std::string& prefix, std::vector<Change>& out, int depth);

Value bytes_note(size_t n) { return Value{Value::Kind::Scalar, std::to_string(n) + " bytes", {}, {}}; }

void diff_archives(const Archive& a, const Archive& b, const std::string& prefix, const std::string& where_a,
                   const std::string& where_b, std::vector<Change>& out, int depth) {
  std::map<std::string, const ArchiveMember*> in_b, in_a;
  for (const ArchiveMember& m : b.members) in_b.emplace(m.name, &m);
  for (const ArchiveMember& m : a.members) in_a.emplace(m.name, &m);
  for (const ArchiveMember& m : a.members) {
    auto it = in_b.find(m.name);
    if (it == in_b.end()) {
      out.push_back({Change::Kind::Removed, prefix + m.name, bytes_note(m.bytes.size()), {}});
      continue;
    }
    if (m.bytes == it->second->bytes) continue;
    const Loaded la = load_bytes(m.bytes, m.name, where_a + ":" + m.name);
    const Loaded lb = load_bytes(it->second->bytes, m.name, where_b + ":" + m.name);
    diff_loaded(la, lb, prefix + m.name + ":", out, depth + 1);
  }
  for (const ArchiveMember& m : b.members)
    if (!in_a.count(m.name)) out.push_back({Change::Kind::Added, prefix + m.name, {}, bytes_note(m.bytes.size())});
}

void diff_loaded(const Loaded& a, const Loaded& b, const std::string& prefix, std::vector<Change>& out, int depth) {
  if (depth > kMaxNesting) throw Failure{kBadData, a.where + ": archives nested more than 16 deep"};
  const std::string at = prefix.empty() ? "(document)" : prefix.substr(0, prefix.size() - 1);
  if (a.archive && b.archive) return diff_archives(*a.archive, *b.archive, prefix, a.where, b.where, out, depth);
  if (a.doc && b.doc) return diff_values(*a.doc, *b.doc, prefix, out);
  if (!a.text && !b.text && a.plain == b.plain) return;
  auto what = [](const Loaded& l) -> Value {
    const std::string size = std::to_string(l.plain.size()) + " bytes";
    std::string s = l.archive ? "an archive (" + size + ")"
                    : l.format ? std::string("a ") + l.format->name + " " + (l.text ? "text" : "file (" + size + ")")
                               : size;
    return Value{Value::Kind::Scalar, s, {}, {}};
  };
  Value before = what(a), after = what(b);
  if (!a.archive && !b.archive && !a.doc && !b.doc)
    after.text += " (first difference at " + hex(first_difference(a.plain, b.plain)) + ")";
  out.push_back({Change::Kind::Changed, at, std::move(before), std::move(after)});
}

std::string change_line(const Change& c) {
  switch (c.kind) {
    case Change::Kind::Changed: return "~ " + c.path + ": " + brief(c.before) + " -> " + brief(c.after);
    case Change::Kind::Added: return "+ " + c.path + ": " + brief(c.after);
    case Change::Kind::Removed: return "- " + c.path + ": " + brief(c.before);
  }
  return "";
}

const char* change_name(Change::Kind k) {
  return k == Change::Kind::Changed ? "changed" : k == Change::Kind::Added ? "added" : "removed";
}

// ---- merge ------------------------------------------------------------------

struct Merged {
  std::vector<uint8_t> plain;  // the merged bytes, no layer
};

std::vector<uint8_t> merge_loaded(const Loaded& base, const Loaded& ours, const Loaded& theirs,
                                  const std::string& prefix, std::vector<Conflict>& conflicts, int depth);

// A member's stored bytes from merged plain bytes: with the layer OURS had.
std::vector<uint8_t> restore_layer(std::vector<uint8_t> plain, const Loaded& like, const std::string& where) {
  if (like.layer.layer == Compression::none) return plain;
  if (plain == like.plain) return like.stored;
  LayerParams p = like.layer;
  if (p.layer == Compression::zstd) p.zstd_dictionary = zstd_dictionary_of(like.stored);
  return add_layer(plain, p, where);
}

std::vector<uint8_t> merge_archives(const Loaded& base, const Loaded& ours, const Loaded& theirs,
                                    const std::string& prefix, std::vector<Conflict>& conflicts, int depth) {
  auto index = [](const Archive& a) {
    std::map<std::string, const ArchiveMember*> m;
    for (const ArchiveMember& x : a.members) m.emplace(x.name, &x);
    return m;
  };
  const auto b = index(*base.archive), o = index(*ours.archive), t = index(*theirs.archive);
  auto find = [](const std::map<std::string, const ArchiveMember*>& m, const std::string& k) -> const ArchiveMember* {
    auto it = m.find(k);
    return it == m.end() ? nullptr : it->second;
  };
  std::vector<std::string> order;
  for (const ArchiveMember& x : ours.archive->members) order.push_back(x.name);
  for (const ArchiveMember& x : theirs.archive->members)
    if (!o.count(x.name) && !b.count(x.name)) order.push_back(x.name);
  for (const ArchiveMember& x : base.archive->members)
    if (!o.count(x.name) && t.count(x.name)) order.push_back(x.name);
  std::vector<ArchiveMember> members;
  auto note = [&](const std::string& name, const ArchiveMember* bb, const ArchiveMember* oo, const ArchiveMember* tt) {
    Conflict c{prefix + name, bb ? bytes_note(bb->bytes.size()) : Value{}, oo ? bytes_note(oo->bytes.size()) : Value{},
               tt ? bytes_note(tt->bytes.size()) : Value{}, !bb, !oo, !tt};
    conflicts.push_back(std::move(c));
  };
  for (const std::string& name : order) {
    const ArchiveMember *bb = find(b, name), *oo = find(o, name), *tt = find(t, name);
    if (oo && tt) {
      if (oo->bytes == tt->bytes || (bb && tt->bytes == bb->bytes)) {
        members.push_back(*oo);
      } else if (bb && oo->bytes == bb->bytes) {
        members.push_back({name, tt->bytes, oo->alignment});
      } else if (bb) {
        const Loaded lb = load_bytes(bb->bytes, name, base.where + ":" + name);
        const Loaded lo = load_bytes(oo->bytes, name, ours.where + ":" + name);
        const Loaded lt = load_bytes(tt->bytes, name, theirs.where + ":" + name);
        std::vector<uint8_t> plain = merge_loaded(lb, lo, lt, prefix + name + ":", conflicts, depth + 1);
        members.push_back({name, restore_layer(std::move(plain), lo, ours.where + ":" + name), oo->alignment});
      } else {
        note(name, bb, oo, tt);  // added on both sides, differently
        members.push_back(*oo);
      }
    } else if (oo) {
      if (!bb) members.push_back(*oo);
      else if (oo->bytes != bb->bytes) {
        note(name, bb, oo, tt);
        members.push_back(*oo);
      }
    } else if (tt) {
      if (!bb) members.push_back(*tt);
      else if (tt->bytes != bb->bytes) note(name, bb, oo, tt);
    }
  }
  try {
    return write_archive(ours.archive->skeleton, members);
  } catch (const EncodeError& e) {
    throw Failure{kBadData, ours.where + ": " + e.what()};
  }
}

std::vector<uint8_t> merge_loaded(const Loaded& base, const Loaded& ours, const Loaded& theirs,
                                  const std::string& prefix, std::vector<Conflict>& conflicts, int depth) {
  if (depth > kMaxNesting) throw Failure{kBadData, ours.where + ": archives nested more than 16 deep"};
  if (base.archive && ours.archive && theirs.archive) return merge_archives(base, ours, theirs, prefix, conflicts, depth);
  if (base.doc && ours.doc && theirs.doc && base.format == ours.format && ours.format == theirs.format) {
    if (!ours.text && !theirs.text && ours.plain == theirs.plain) return ours.plain;
    const Value merged = merge_values(*base.doc, *ours.doc, *theirs.doc, prefix, conflicts);
    if (!ours.text && merged == *ours.doc) return ours.plain;
    return encode_value(merged, ours.where);
  }
  const std::string at = prefix.empty() ? "(document)" : prefix.substr(0, prefix.size() - 1);
  if (ours.plain == theirs.plain || theirs.plain == base.plain) return ours.plain;
  if (ours.plain == base.plain) return theirs.plain;
  conflicts.push_back({at, bytes_note(base.plain.size()), bytes_note(ours.plain.size()), bytes_note(theirs.plain.size()),
                       false, false, false});
  return ours.plain;
}

std::string conflict_line(const Conflict& c) {
  auto side = [](const Value& v, bool absent) { return absent ? std::string("(absent)") : brief(v, 60); };
  return "conflict: " + c.path + ": base " + side(c.base, c.base_absent) + ", ours " + side(c.ours, c.ours_absent) +
         ", theirs " + side(c.theirs, c.theirs_absent);
}

// ---- verify -----------------------------------------------------------------

struct Check {
  std::string path;
  std::string format;
  enum class Result { Back, NotBack, Fails, Skipped } result = Result::Skipped;
  std::string route;    // "direct", "yaml", "json"
  uint64_t offset = 0;  // first differing offset
  std::string field;    // the field at that offset (the byte map)
  std::string change;   // the first field whose value differs, when the documents differ
  std::string message;
};

// How the bytes come back through one route; "" when they do.
struct Route {
  const char* name;
  std::vector<uint8_t> (*run)(const Format&, std::span<const uint8_t>);
};

std::vector<uint8_t> through_text(const Format& f, std::span<const uint8_t> bytes, TextKind kind) {
  const std::string text = f.decode(bytes, kind);
  return f.encode(text::load(text));
}

class Verifier {
 public:
  explicit Verifier(TextKind) {}

  void file(const std::string& path, std::vector<Check>& out) {
    std::vector<uint8_t> stored;
    try {
      stored = read_input(path);
    } catch (const Failure& f) {
      out.push_back({path, "", Check::Result::Fails, "", 0, "", "", f.line});
      return;
    }
    bytes(path, path, std::move(stored), out, 0);
  }

 private:
  void bytes(const std::string& where, const std::string& name, std::vector<uint8_t> stored, std::vector<Check>& out,
             int depth) {
    const LayerParams layer = layer_of(stored);
    std::vector<uint8_t> plain;
    if (layer.layer == Compression::none) {
      plain = std::move(stored);
    } else {
      try {
        plain = remove_layer(stored, layer, where);
      } catch (const Failure& f) {
        out.push_back({where, compression_name(layer.layer), Check::Result::Fails, "", 0, "", "", f.line});
        return;
      }
    }
    const Format* f = detect_format(plain, compression_for_name(name).inner_name);
    if (!f) {
      out.push_back({where, "", Check::Result::Skipped, "", 0, "", "", ""});
      return;
    }
    out.push_back(check(where, *f, plain));
    if (is_archive(plain) && out.back().result != Check::Result::Fails && depth < kMaxNesting) {
      Archive a;
      try {
        a = read_archive(plain);
      } catch (...) {
        return;  // reported by the check above
      }
      for (ArchiveMember& m : a.members) bytes(where + ":" + m.name, m.name, std::move(m.bytes), out, depth + 1);
    }
  }

  Check check(const std::string& where, const Format& f, std::span<const uint8_t> plain) {
    Check c{where, f.name, Check::Result::Back, "", 0, "", "", ""};
    std::optional<Value> doc;
    struct R {
      const char* name;
      int kind;  // 0 direct, 1 yaml, 2 json
    };
    for (R r : {R{"direct", 0}, R{"yaml", 1}, R{"json", 2}}) {
      if (r.kind == 0 && !f.roundtrip) continue;
      std::vector<uint8_t> back;
      try {
        back = r.kind == 0 ? f.roundtrip(plain) : through_text(f, plain, r.kind == 1 ? TextKind::Yaml : TextKind::Json);
      } catch (const LayoutNotKept& e) {
        // Decodes, but its layout cannot keep what differs: not given back.
        c.result = Check::Result::NotBack;
        c.route = r.name;
        c.offset = e.offset();
        c.field = e.path();
        c.message = e.message();
        return c;
      } catch (const DecodeError& e) {
        c.result = Check::Result::Fails;
        c.message = decode_error_line(e);
        return c;
      } catch (const std::exception& e) {
        c.result = Check::Result::NotBack;
        c.route = r.name;
        c.message = std::string("does not encode again: ") + e.what();
        return c;
      }
      if (back.size() == plain.size() && std::equal(back.begin(), back.end(), plain.begin())) continue;
      c.result = Check::Result::NotBack;
      c.route = r.name;
      c.offset = first_difference(plain, back);
      c.message = back.size() == plain.size() ? "" : "size " + hex(plain.size()) + " -> " + hex(back.size());
      // The field at that offset (the byte map of the file), and where the
      // documents of the two files first differ.
      if (f.trace) {
        try {
          c.field = field_path_at(build_byte_map(f, plain), c.offset);
        } catch (const std::exception& e) {
          c.field = std::string("(") + e.what() + ")";
        }
      }
      try {
        std::vector<Change> changes;
        diff_values(document_of(f, plain), document_of(f, back), "", changes);
        if (!changes.empty())
          c.change = changes.front().path + " (" + brief(changes.front().before, 40) + " -> " +
                     brief(changes.front().after, 40) + ")";
        else
          c.change = "none: the documents are equal, only the layout differs";
      } catch (const DecodeError& e) {
        c.change = "what came back does not decode: " + decode_error_line(e);
      } catch (const std::exception& e) {
        c.change = e.what();
      }
      return c;
    }
    return c;
  }
};

void walk_files(const fs::path& p, std::vector<std::string>& out) {
  std::error_code ec;
  if (!fs::is_directory(p, ec)) {
    out.push_back(p.string());
    return;
  }
  std::vector<fs::path> entries;
  for (fs::directory_iterator it(p, ec), end; !ec && it != end; it.increment(ec)) entries.push_back(it->path());
  std::sort(entries.begin(), entries.end());
  for (const fs::path& e : entries) {
    std::error_code sec;
    if (fs::is_symlink(e, sec) && fs::is_directory(e, sec)) continue;
    if (fs::is_directory(e, sec) || fs::is_regular_file(e, sec)) walk_files(e, out);
  }
}

const char* result_name(Check::Result r) {
  switch (r) {
    case Check::Result::Back: return "ok";
    case Check::Result::NotBack: return "differs";
    case Check::Result::Fails: return "fails";
    case Check::Result::Skipped: return "skipped";
  }
  return "";
}

}  // namespace

// ---- Commands ---------------------------------------------------------------

int cmd_unpack(const std::string& pack, const std::string& dir_name, bool force) {
  const fs::path dir(dir_name);
  std::error_code ec;
  if (fs::exists(dir, ec)) {
    if (!force) throw Failure{kUsage, dir_name + ": exists; refusing to replace it (use --force)"};
    if (!fs::is_directory(dir, ec)) throw Failure{kUsage, dir_name + ": exists and is not a folder"};
    if (pack != "-") {
      const fs::path p = fs::weakly_canonical(fs::absolute(pack), ec), d = fs::weakly_canonical(fs::absolute(dir), ec);
      const std::string rel = p.lexically_relative(d).generic_string();
      if (!rel.empty() && rel.rfind("..", 0) != 0)
        throw Failure{kUsage, dir_name + ": holds the input " + pack + "; refusing to replace it"};
    }
  }
  const std::vector<uint8_t> stored = read_input(pack);
  const LayerParams layer = layer_of(stored);
  const std::vector<uint8_t> plain = layer.layer == Compression::none ? stored : remove_layer(stored, layer, pack);
  if (!is_archive(plain))
    throw Failure{kBadData, display_name(pack) + ": not an archive (no 'SARC' at 0x0" +
                                std::string(layer.layer == Compression::none ? "" : " after the compression layer") + ")"};
  const fs::path tmp = temp_dir_beside(fs::absolute(dir));
  Unpacker u;
  try {
    fs::remove(tmp, ec);  // mkdtemp made it; the unpacker makes its own
    u.archive(stored, plain, tmp, display_name(pack), 0);
    if (fs::exists(dir, ec)) {
      const fs::path old = temp_dir_beside(fs::absolute(dir));
      fs::remove(old, ec);
      fs::rename(dir, old);
      fs::rename(tmp, dir);
      fs::remove_all(old, ec);
    } else {
      fs::rename(tmp, dir);
    }
  } catch (const fs::filesystem_error& e) {
    fs::remove_all(tmp, ec);
    throw Failure{kUsage, dir_name + ": " + e.code().message()};
  } catch (...) {
    fs::remove_all(tmp, ec);
    throw;
  }
  std::fprintf(stderr, "%s: %s: %zu archive(s), %zu member(s) as text, %zu as bytes%s\n", g_program, dir_name.c_str(),
               u.archives, u.text_members, u.raw_members,
               u.not_back ? (" (" + std::to_string(u.not_back) + " of a known format kept as bytes: their text does not give them back)").c_str() : "");
  return 0;
}

int cmd_pack(const std::string& dir_name, const std::string& out) {
  std::error_code ec;
  if (!fs::is_directory(dir_name, ec)) throw Failure{kUsage, dir_name + ": not a folder"};
  if (out != "-") {
    const fs::path o = fs::weakly_canonical(fs::absolute(out), ec), d = fs::weakly_canonical(fs::absolute(dir_name), ec);
    const std::string rel = o.lexically_relative(d).generic_string();
    if (!rel.empty() && rel.rfind("..", 0) != 0)
      throw Failure{kUsage, out + ": is inside the folder being packed (it would become a member next time)"};
  }
  Packer p;
  std::vector<uint8_t> bytes = p.archive(dir_name, 0, out);
  write_output(out, bytes);
  return 0;
}

int cmd_diff(const std::string& a_path, const std::string& b_path, TextKind kind) {
  try {
    const Loaded a = load_path(a_path), b = load_path(b_path);
    std::vector<Change> changes;
    diff_loaded(a, b, "", changes, 0);
    std::string out;
    if (kind == TextKind::Json) {
      out = "{\"equal\": " + std::string(changes.empty() ? "true" : "false") + ", \"changes\": [";
      for (size_t i = 0; i < changes.size(); ++i) {
        const Change& c = changes[i];
        out += std::string(i ? ",\n  " : "\n  ") + "{\"change\": \"" + change_name(c.kind) + "\", \"path\": " + json_quote(c.path);
        if (c.kind != Change::Kind::Added) out += ", \"before\": " + to_json(c.before);
        if (c.kind != Change::Kind::Removed) out += ", \"after\": " + to_json(c.after);
        out += "}";
      }
      out += changes.empty() ? "]}\n" : "\n]}\n";
    } else {
      for (const Change& c : changes) out += one_line(change_line(c)) + "\n";
    }
    write_output("-", out);
    return changes.empty() ? 0 : 1;
  } catch (...) {
    Failure f = current_failure(a_path);
    std::fprintf(stderr, "%s: %s\n", g_program, one_line(f.line).c_str());
    return kUsage;  // like diff(1): 2 for trouble, whatever it was
  }
}

int cmd_merge(const std::string& base_path, const std::string& ours_path, const std::string& theirs_path,
              const std::string& out, bool force, TextKind kind) {
  for (const std::string& in : {base_path, ours_path, theirs_path}) refuse_overwriting_input(in, out, force);
  const Loaded base = load_path(base_path), ours = load_path(ours_path), theirs = load_path(theirs_path);
  std::vector<Conflict> conflicts;
  std::vector<uint8_t> plain = merge_loaded(base, ours, theirs, "", conflicts, 0);
  for (const Conflict& c : conflicts) std::fprintf(stderr, "%s: %s\n", g_program, one_line(conflict_line(c)).c_str());
  if (!conflicts.empty() && !force) {
    std::fprintf(stderr, "%s: %zu conflict(s); nothing written (--force writes OURS's side of each)\n", g_program,
                 conflicts.size());
    return kBadData;
  }
  std::vector<uint8_t> bytes;
  if (ours.text) {
    // A text in, a text out: the merged file's document.
    const TextKind k = ends_with(out, ".json") ? TextKind::Json : ends_with(out, ".yaml") || ends_with(out, ".yml") ? TextKind::Yaml : kind;
    try {
      const std::string text = ours.format->decode(plain, k);
      bytes.assign(text.begin(), text.end());
    } catch (const DecodeError& e) {
      throw Failure{kBadData, out + ": the merged file does not decode: " + decode_error_line(e)};
    }
  } else {
    bytes = restore_layer(std::move(plain), ours, out);
  }
  write_output(out, bytes);
  if (!conflicts.empty()) return kBadData;
  return 0;
}

int cmd_verify(const std::vector<std::string>& paths, TextKind kind, unsigned jobs, bool all) {
  std::vector<std::string> files;
  for (const std::string& p : paths) {
    std::error_code ec;
    if (!fs::exists(p, ec)) {
      std::fprintf(stderr, "%s: %s: cannot open: No such file or directory\n", g_program, one_line(p).c_str());
      return kUsage;
    }
    walk_files(p, files);
  }
  std::vector<std::vector<Check>> results(files.size());
  std::atomic<size_t> next{0};
  auto work = [&] {
    Verifier v(kind);
    for (size_t i; (i = next.fetch_add(1)) < files.size();) v.file(files[i], results[i]);
  };
  const size_t n = std::clamp<size_t>(jobs, 1, std::max<size_t>(files.size(), 1));
  std::vector<std::thread> workers;
  for (size_t t = 1; t < n; ++t) workers.emplace_back(work);
  work();
  for (std::thread& t : workers) t.join();

  size_t counts[4] = {0, 0, 0, 0};
  std::string out;
  bool first = true;
  if (kind == TextKind::Json) out = "{\"files\": [";
  for (const auto& list : results)
    for (const Check& c : list) {
      ++counts[static_cast<int>(c.result)];
      if (kind == TextKind::Json) {
        out += std::string(first ? "\n  " : ",\n  ") + "{\"path\": " + json_quote(c.path) + ", \"format\": " + json_quote(c.format) +
               ", \"result\": \"" + result_name(c.result) + "\"";
        if (c.result == Check::Result::NotBack)
          out += ", \"route\": \"" + c.route + "\", \"offset\": " + std::to_string(c.offset) + ", \"field\": " + json_quote(c.field) +
                 ", \"change\": " + json_quote(c.change);
        if (!c.message.empty()) out += ", \"message\": " + json_quote(c.message);
        out += "}";
        first = false;
        continue;
      }
      switch (c.result) {
        case Check::Result::Back:
          if (all) out += "ok       " + c.path + " (" + c.format + ")\n";
          break;
        case Check::Result::Skipped:
          if (all) out += "skipped  " + c.path + " (no known format)\n";
          break;
        case Check::Result::NotBack:
          out += one_line("DIFFERS  " + c.path + " (" + c.format + ", " + c.route + "): first difference at " +
                          hex(c.offset) + (c.field.empty() ? "" : " (" + c.field + ")") +
                          (c.message.empty() ? "" : ", " + c.message) + (c.change.empty() ? "" : "; first value changed: " + c.change)) + "\n";
          break;
        case Check::Result::Fails:
          out += one_line("FAILS    " + c.path + (c.format.empty() ? "" : " (" + c.format + ")") + ": " + c.message) + "\n";
          break;
      }
    }
  const std::string summary = std::to_string(counts[0]) + " given back, " + std::to_string(counts[1]) + " not given back, " +
                              std::to_string(counts[2]) + " do not decode, " + std::to_string(counts[3]) +
                              " skipped (no known format)";
  if (kind == TextKind::Json) {
    out += std::string(first ? "" : "\n") + "], \"summary\": {\"given_back\": " + std::to_string(counts[0]) +
           ", \"not_given_back\": " + std::to_string(counts[1]) + ", \"do_not_decode\": " + std::to_string(counts[2]) +
           ", \"skipped\": " + std::to_string(counts[3]) + "}}\n";
  } else {
    out += "verify: " + summary + "\n";
  }
  write_output("-", out);
  return counts[1] || counts[2] ? kBadData : 0;
}

}  // namespace binschema::cli
