#include "archive.h"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <numeric>
#include <stdexcept>

#include "binschema/error.h"
#include "io.h"
#include "layers.h"
#include "sarc.h"
#include "sarc_text.h"
#include "binschema/layout.h"

namespace fs = std::filesystem;

namespace binschema::cli {

namespace {

std::string where(const MemberPath& p) { return display_name(p.pack) + ":" + p.member; }

// The name of node i ("" for a node without a name: top byte of its attributes 0).
std::string node_name(const sarc::Sarc& s, size_t i, const std::string&) {
  const sarc::Node& n = s.nodes[i];
  return n.attributes.has_name == 1 ? n.attributes.name : std::string();
}

struct Pack {
  BinaryInput input;
  sarc::Sarc sarc;
};

Pack read_pack(const std::string& pack) {
  Pack p{read_binary_input(pack), {}};
  const auto& b = p.input.bytes;
  if (b.size() < 4 || std::memcmp(b.data(), "SARC", 4) != 0)
    throw Failure{kBadData, display_name(pack) + ": not a SARC archive (no 'SARC' at 0x0" +
                                std::string(p.input.layer == Compression::none ? "" : " after the compression layer") + ")"};
  try {
    p.sarc = sarc::decode(b);
  } catch (const DecodeError& e) {
    std::string what = e.what();
    if (what.find(hex(e.offset())) == std::string::npos) what += " (at " + hex(e.offset()) + ")";
    throw Failure{kBadData, display_name(pack) + ": " + what};
  }
  return p;
}

size_t find_member(const Pack& p, const MemberPath& m) {
  std::string known;
  for (size_t i = 0; i < p.sarc.nodes.size(); ++i) {
    const std::string name = node_name(p.sarc, i, m.pack);
    if (name == m.member) return i;
    if (i < 8) known += (known.empty() ? "" : ", ") + name;
  }
  if (p.sarc.nodes.size() > 8) known += ", ... (binschema list " + m.pack + ")";
  throw Failure{kBadData, where(m) + ": the archive has no member '" + m.member + "' (members: " + known + ")"};
}

}  // namespace

std::optional<MemberPath> split_member_path(const std::string& in) {
  std::error_code ec;
  if (in == "-" || fs::exists(in, ec)) return std::nullopt;
  for (size_t colon = in.find(':'); colon != std::string::npos; colon = in.find(':', colon + 1)) {
    const std::string pack = in.substr(0, colon);
    if (!pack.empty() && colon + 1 < in.size() && fs::is_regular_file(pack, ec)) return MemberPath{pack, in.substr(colon + 1)};
  }
  return std::nullopt;
}

std::vector<uint8_t> read_member(const MemberPath& m) {
  const Pack p = read_pack(m.pack);
  return p.sarc.nodes[find_member(p, m)].data.data;
}

void write_member(const MemberPath& m, std::span<const uint8_t> bytes, const std::string& in) {
  Pack p = read_pack(m.pack);
  // The schema places the files: each keeps the alignment it was read with
  // (schemas/sarc.yaml), so the files after a grown one move as little as
  // their alignment allows, and the names, hashes and order stay right.
  p.sarc.nodes[find_member(p, m)].data.data.assign(bytes.begin(), bytes.end());
  std::vector<uint8_t> out;
  try {
    out = sarc::encode(p.sarc);
  } catch (const EncodeError& e) {
    throw Failure{kBadData, where(m) + ": " + e.what()};
  }
  out = compress_for_output(std::move(out), m.pack, in);
  write_output(m.pack, out);
}

std::string list_members(const std::string& pack) {
  const Pack p = read_pack(pack);
  std::string out;
  for (size_t i = 0; i < p.sarc.nodes.size(); ++i)
    out += node_name(p.sarc, i, pack) + "\t" + std::to_string(p.sarc.nodes[i].data.data.size()) + "\n";
  return out;
}

std::vector<std::pair<std::string, std::vector<uint8_t>>> sarc_members(std::span<const uint8_t> bytes) {
  const sarc::Sarc s = sarc::decode(bytes);
  std::vector<std::pair<std::string, std::vector<uint8_t>>> out;
  for (size_t i = 0; i < s.nodes.size(); ++i) out.emplace_back(node_name(s, i, "the archive"), s.nodes[i].data.data);
  return out;
}

std::string archive_info(std::span<const uint8_t> bytes) {
  if (bytes.size() < 4 || std::memcmp(bytes.data(), "SARC", 4) != 0) return "";
  try {
    const sarc::Sarc s = sarc::decode(bytes);
    return "members: " + std::to_string(s.nodes.size()) + " (binschema list FILE names them)\n";
  } catch (const DecodeError&) {
    return "";  // info's own decode reports it
  }
}

bool is_archive(std::span<const uint8_t> bytes) { return bytes.size() >= 4 && std::memcmp(bytes.data(), "SARC", 4) == 0; }

Archive read_archive(std::span<const uint8_t> bytes) {
  Layout layout;
  sarc::Sarc s = sarc::decode(bytes, layout);
  Archive a;
  for (size_t i = 0; i < s.nodes.size(); ++i) {
    sarc::Node& n = s.nodes[i];
    if (n.attributes.has_name != 1)
      throw Failure{kBadData, "node " + std::to_string(i) + " of the archive has no name (has_name " +
                                  std::to_string(n.attributes.has_name) + "): it cannot be a file of a folder"};
    a.members.push_back({n.attributes.name, std::move(n.data.data), n.alignment});
    n.data.data.clear();
  }
  a.skeleton = sarc::to_text(s, TextKind::Yaml, &layout);
  return a;
}

std::vector<ArchiveMember> skeleton_members(std::string_view skeleton) {
  Layout layout;
  const sarc::Sarc s = sarc::from_text_with_layout(skeleton, layout);
  std::vector<ArchiveMember> out;
  for (const sarc::Node& n : s.nodes) out.push_back({n.attributes.name, {}, n.alignment});
  return out;
}

std::vector<uint8_t> write_archive(std::string_view skeleton, const std::vector<ArchiveMember>& members) {
  Layout layout;
  sarc::Sarc s = sarc::from_text_with_layout(skeleton, layout);
  std::vector<sarc::Node> nodes;
  std::vector<bool> used(members.size(), false);
  auto place = [&](size_t i, const sarc::Node* old) {
    sarc::Node n = old ? *old : sarc::Node{};
    n.attributes.name = members[i].name;
    n.attributes.has_name = 1;
    n.data.data = members[i].bytes;
    if (members[i].alignment != 0) n.alignment = members[i].alignment;
    nodes.push_back(std::move(n));
    used[i] = true;
  };
  for (const sarc::Node& old : s.nodes)
    for (size_t i = 0; i < members.size(); ++i)
      if (!used[i] && members[i].name == old.attributes.name) {
        place(i, &old);
        break;
      }
  for (size_t i = 0; i < members.size(); ++i)
    if (!used[i]) place(i, nullptr);
  s.nodes = std::move(nodes);
  return sarc::encode(s, layout);
}

}  // namespace binschema::cli
