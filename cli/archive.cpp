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

namespace fs = std::filesystem;

namespace binschema::cli {

namespace {

std::string where(const MemberPath& p) { return display_name(p.pack) + ":" + p.member; }

// The name of node i: the name `attributes & 0xFFFFFF` words into the name
// table when the top byte is 1 (each name padded to 4 bytes); "" for a node
// without a name.
std::string node_name(const sarc::Sarc& s, size_t i, const std::string& pack) {
  const uint32_t attr = s.nodes[i].attributes;
  if ((attr >> 24) != 1) return "";
  const uint64_t want = uint64_t(attr & 0xFFFFFF) * 4;
  uint64_t at = 0;
  for (const sarc::Name& n : s.names) {
    if (at == want) return n.name;
    at += (n.name.size() + 1 + 3) / 4 * 4;
  }
  throw Failure{kBadData, display_name(pack) + ": nodes[" + std::to_string(i) + "].attributes: name offset " + hex(want) +
                              " is not where a name of the name table starts"};
}

void check_range(const sarc::Sarc& s, size_t i, const std::string& pack) {
  const sarc::Node& n = s.nodes[i];
  if (n.data_begin > n.data_end || n.data_end > s.data.data.size())
    throw Failure{kBadData, display_name(pack) + ": nodes[" + std::to_string(i) + "]: data " + hex(n.data_begin) + ".." +
                                hex(n.data_end) + " is not inside the data (" + hex(s.data.data.size()) + " bytes)"};
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
    if (name == m.member) {
      check_range(p.sarc, i, m.pack);
      return i;
    }
    if (i < 8) known += (known.empty() ? "" : ", ") + name;
  }
  if (p.sarc.nodes.size() > 8) known += ", ... (binschema list " + m.pack + ")";
  throw Failure{kBadData, where(m) + ": the archive has no member '" + m.member + "' (members: " + known + ")"};
}

uint64_t low_bit(uint64_t v) { return v & (~v + 1); }

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
  const sarc::Node& n = p.sarc.nodes[find_member(p, m)];
  const auto& d = p.sarc.data.data;
  return std::vector<uint8_t>(d.begin() + n.data_begin, d.begin() + n.data_end);
}

void write_member(const MemberPath& m, std::span<const uint8_t> bytes, const std::string& in) {
  Pack p = read_pack(m.pack);
  const size_t target = find_member(p, m);
  sarc::Sarc& s = p.sarc;
  for (size_t i = 0; i < s.nodes.size(); ++i) check_range(s, i, m.pack);
  // The files in the order of their data. Each keeps the alignment it had:
  // the largest power of two its file offset is a multiple of, at most the
  // data offset's (an archive's data starts at its largest alignment).
  std::vector<size_t> order(s.nodes.size());
  std::iota(order.begin(), order.end(), size_t(0));
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return s.nodes[a].data_begin < s.nodes[b].data_begin; });
  const uint64_t max_align = low_bit(s.data_offset ? s.data_offset : 1);
  const std::vector<uint8_t> old = std::move(s.data.data);
  std::vector<uint8_t> data;
  data.reserve(old.size() + bytes.size());
  uint64_t old_end = 0;
  for (size_t i : order) {
    sarc::Node& n = s.nodes[i];
    const uint64_t abs = uint64_t(s.data_offset) + n.data_begin;
    const uint64_t align = std::min(abs ? low_bit(abs) : max_align, max_align);
    while ((s.data_offset + data.size()) % align) data.push_back(0);
    const uint64_t begin = data.size();
    if (i == target) data.insert(data.end(), bytes.begin(), bytes.end());
    else data.insert(data.end(), old.begin() + n.data_begin, old.begin() + n.data_end);
    old_end = std::max<uint64_t>(old_end, n.data_end);
    if (data.size() > 0xFFFFFFFFu) throw Failure{kBadData, where(m) + ": the archive would pass 4 GiB"};
    n.data_begin = static_cast<uint32_t>(begin);
    n.data_end = static_cast<uint32_t>(data.size());
  }
  data.insert(data.end(), old.begin() + old_end, old.end());  // whatever followed the last file
  s.data.data = std::move(data);
  std::vector<uint8_t> out;
  try {
    out = sarc::encode(s);
  } catch (const EncodeError& e) {
    throw Failure{kBadData, where(m) + ": " + e.what()};
  }
  out = compress_for_output(std::move(out), m.pack, in);
  write_output(m.pack, out);
}

std::string list_members(const std::string& pack) {
  const Pack p = read_pack(pack);
  std::string out;
  for (size_t i = 0; i < p.sarc.nodes.size(); ++i) {
    check_range(p.sarc, i, pack);
    const sarc::Node& n = p.sarc.nodes[i];
    out += node_name(p.sarc, i, pack) + "\t" + std::to_string(n.data_end - n.data_begin) + "\n";
  }
  return out;
}

std::vector<std::pair<std::string, std::vector<uint8_t>>> sarc_members(std::span<const uint8_t> bytes) {
  const sarc::Sarc s = sarc::decode(bytes);
  std::vector<std::pair<std::string, std::vector<uint8_t>>> out;
  try {
    for (size_t i = 0; i < s.nodes.size(); ++i) {
      check_range(s, i, "the archive");
      const auto& d = s.data.data;
      out.emplace_back(node_name(s, i, "the archive"),
                       std::vector<uint8_t>(d.begin() + s.nodes[i].data_begin, d.begin() + s.nodes[i].data_end));
    }
  } catch (const Failure& f) {
    throw std::runtime_error(f.line);
  }
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

}  // namespace binschema::cli
