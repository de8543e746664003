// The layout of a file: the choices its writer made that the model does not
// determine, captured on decode and reproduced on encode.
//
// A model says what a file holds; two writers can still lay the same model
// out differently: blocks in another order or with gaps between them, the
// pool in another order, a non-null pointer (or a non-zero element size) for
// an empty array, zero padding at the end. The generated reader notes, for
// every pointer slot it follows, the value it found there (`at`: slot ->
// value; slots are file offsets, which an unchanged model reproduces). The
// generated writer asks the layout before it places a block behind a slot
// (WriterBase::place_block) and before it writes a value that has accepted
// alternatives (WriterBase::kept). Bytes that no block covers (gaps, trailing
// bytes) are kept in `fill`, zero padding of the whole file in `end_align`.
//
// decode(bytes, layout) keeps only what differs from the format's own
// writer: a file that writer made has an empty layout. docs/schema-language.md
// ("Layout") gives the edit policy.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace binschema {

struct Layout {
  // Slot -> the value the file had there (a block's position, the pointer of
  // an empty array, an element size). Sorted by slot once settled.
  std::vector<std::pair<uint64_t, uint64_t>> at;
  // Bytes that no block covers (non-zero gap bytes, trailing bytes): offset -> bytes.
  std::vector<std::pair<uint64_t, std::string>> fill;
  // The file ends with zeros up to a multiple of this (0: no padding).
  uint64_t end_align = 0;
  // Not part of the layout: the writer takes no position at or past this
  // from it (0: no bound). decode and encode set it (see encode_with_layout).
  uint64_t limit = 0;

  bool empty() const { return at.empty() && fill.empty() && end_align == 0; }

  // Reader side: a slot and what the file had in it.
  void note(uint64_t slot, uint64_t value) { at.emplace_back(slot, value); }

  void sort() {
    std::stable_sort(at.begin(), at.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    // A slot read twice (a shared block) keeps its first value.
    at.erase(std::unique(at.begin(), at.end(), [](const auto& a, const auto& b) { return a.first == b.first; }), at.end());
    std::sort(fill.begin(), fill.end());
  }

  // Call on a sorted layout.
  std::optional<uint64_t> find(uint64_t slot) const {
    auto it = std::lower_bound(at.begin(), at.end(), slot, [](const auto& e, uint64_t s) { return e.first < s; });
    if (it == at.end() || it->first != slot) return std::nullopt;
    return it->second;
  }

  // The text form: "slot:value slot:value ..." in hex (`at`), and
  // "offset:HEXBYTES ..." (`fill`).
  std::string at_text() const {
    std::string s;
    char buf[48];
    for (const auto& [k, v] : at) {
      std::snprintf(buf, sizeof buf, "%s%llx:%llx", s.empty() ? "" : " ", static_cast<unsigned long long>(k),
                    static_cast<unsigned long long>(v));
      s += buf;
    }
    return s;
  }
  std::string fill_text() const {
    static const char* digits = "0123456789abcdef";
    std::string s;
    char buf[24];
    for (const auto& [k, b] : fill) {
      std::snprintf(buf, sizeof buf, "%s%llx:", s.empty() ? "" : " ", static_cast<unsigned long long>(k));
      s += buf;
      for (unsigned char c : b) {
        s += digits[c >> 4];
        s += digits[c & 15];
      }
    }
    return s;
  }

  // Parses the text forms; throws std::invalid_argument with the position.
  void parse_at(std::string_view t) {
    size_t i = 0;
    while (skip(t, i)) {
      uint64_t k = number(t, i), v;
      expect(t, i, ':');
      v = number(t, i);
      at.emplace_back(k, v);
    }
    sort();
  }
  void parse_fill(std::string_view t) {
    size_t i = 0;
    while (skip(t, i)) {
      uint64_t k = number(t, i);
      expect(t, i, ':');
      std::string b;
      while (i + 1 < t.size() && hexdigit(t[i]) >= 0 && hexdigit(t[i + 1]) >= 0) {
        b += static_cast<char>(hexdigit(t[i]) * 16 + hexdigit(t[i + 1]));
        i += 2;
      }
      if (b.empty() || (i < t.size() && t[i] != ' '))
        throw std::invalid_argument("bytes expected (pairs of hex digits) at character " + std::to_string(i + 1));
      fill.emplace_back(k, std::move(b));
    }
    std::sort(fill.begin(), fill.end());
  }

 private:
  static int hexdigit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  }
  static bool skip(std::string_view t, size_t& i) {
    while (i < t.size() && t[i] == ' ') ++i;
    return i < t.size();
  }
  static void expect(std::string_view t, size_t& i, char c) {
    if (i >= t.size() || t[i] != c)
      throw std::invalid_argument(std::string("'") + c + "' expected at character " + std::to_string(i + 1));
    ++i;
  }
  static uint64_t number(std::string_view t, size_t& i) {
    uint64_t v = 0;
    size_t start = i;
    while (i < t.size() && hexdigit(t[i]) >= 0) {
      if (i - start >= 16) throw std::invalid_argument("number too long at character " + std::to_string(start + 1));
      v = v * 16 + static_cast<uint64_t>(hexdigit(t[i]));
      ++i;
    }
    if (i == start) throw std::invalid_argument("hex number expected at character " + std::to_string(i + 1));
    return v;
  }
};

// What a writer learned while it followed a layout (decode(bytes, layout)
// runs the writer once to keep only what matters).
struct LayoutTrace {
  // Placement slots the writer asked about, and whether the layout's value
  // was where the writer would have put the block anyway.
  std::vector<std::pair<uint64_t, bool>> placed;
  // Value slots the writer asked about (kept values, empty arrays' pointers).
  std::vector<uint64_t> values;
  // Byte ranges the blocks cover: [start, end), sorted and merged.
  std::vector<std::pair<uint64_t, uint64_t>> covered;
};

// Thrown by the writer when a layout made two blocks overlap (after an edit
// made a block bigger than the room the layout had for it); encode then
// lays the file out afresh.
struct LayoutConflict : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Keeps of a freshly read layout what the writer used and what differs from
// the fresh layout, and adds the bytes no block covers. `out` is what the
// writer made from the model with that layout.
inline void settle_layout(Layout& lay, const uint8_t* orig, uint64_t orig_size, uint64_t out_size, const LayoutTrace& tr) {
  std::vector<uint64_t> used;
  bool all_fresh = true;
  for (const auto& [slot, fresh] : tr.placed) {
    if (!fresh) all_fresh = false;
  }
  for (const auto& [slot, fresh] : tr.placed)
    if (!all_fresh) used.push_back(slot);
  for (uint64_t v : tr.values) used.push_back(v);
  std::sort(used.begin(), used.end());
  std::vector<std::pair<uint64_t, uint64_t>> kept;
  for (const auto& e : lay.at)
    if (std::binary_search(used.begin(), used.end(), e.first)) kept.push_back(e);
  lay.at = std::move(kept);
  // Bytes outside every block: non-zero runs are kept.
  uint64_t end = std::min(orig_size, out_size);
  uint64_t p = 0;
  auto keep_run = [&](uint64_t a, uint64_t b) {
    uint64_t i = a;
    while (i < b) {
      while (i < b && orig[i] == 0) ++i;
      uint64_t j = i;
      while (j < b && orig[j] != 0) ++j;
      if (j > i) lay.fill.emplace_back(i, std::string(reinterpret_cast<const char*>(orig + i), j - i));
      i = j;
    }
  };
  for (const auto& [a, b] : tr.covered) {
    if (a >= end) break;
    if (a > p) keep_run(p, a);
    p = std::max(p, b);
  }
  if (p < end) keep_run(p, end);
  if (orig_size > out_size) {
    // Trailing bytes: zero padding up to a power of two, or kept as they are.
    // Several powers of two can give the same size: 32 (what PAK extractors
    // and randomprime pad resources to) when it is one of them, else the smallest.
    bool zeros = std::all_of(orig + out_size, orig + orig_size, [](uint8_t b) { return b == 0; });
    uint64_t a = 0;
    auto fits = [&](uint64_t k) { return (out_size + k - 1) / k * k == orig_size; };
    if (zeros && fits(32)) a = 32;
    if (zeros && !a)
      for (uint64_t k = 2; k <= 0x10000 && !a; k *= 2)
        if (fits(k)) a = k;
    if (a) {
      lay.end_align = a;
    } else {
      keep_run(out_size, orig_size);
      // Trailing zeros after the last non-zero byte: one zero byte at the very end keeps the size.
      if (orig[orig_size - 1] == 0) lay.fill.emplace_back(orig_size - 1, std::string(1, '\0'));
    }
  }
  std::sort(lay.fill.begin(), lay.fill.end());
}

// decode(bytes, layout) of a generated format: `dec` reads with a layout to
// note in, `enc` writes with a layout (and a trace). The writer runs once so
// that the layout keeps only what the format's own writer would not do.
template <class Root, class Dec, class Enc>
Root decode_with_layout(const uint8_t* bytes, uint64_t size, Layout& lay, Dec dec, Enc enc) {
  lay = Layout{};
  Root x = dec(&lay);
  lay.sort();
  LayoutTrace tr;
  std::vector<uint8_t> out;
  // Positions are the file's: a layout never takes the writer past twice its size.
  lay.limit = 2 * size + 0x10000;
  try {
    out = enc(x, &lay, &tr);
  } catch (const LayoutConflict&) {
    // The file's blocks overlap (a shared block): a fresh placement.
    lay.at.clear();
    tr = LayoutTrace{};
    try {
      out = enc(x, &lay, &tr);
    } catch (const std::exception&) {
      lay = Layout{};
      return x;
    }
  } catch (const std::exception&) {
    // A model the writer refuses: its errors come with encode, not here.
    lay = Layout{};
    return x;
  }
  settle_layout(lay, bytes, size, out.size(), tr);
  lay.limit = 0;
  return x;
}

// encode(model, layout): the layout's placement where it still fits; when
// an edit made blocks collide, a fresh placement (with the end padding, but
// not the bytes between blocks: those were between blocks that moved).
//
// The layout may come from text: its positions count only below twice the
// size of the fresh file (plus 64 KiB), so that no number in it can make the
// writer allocate much more than the model itself needs.
//
// same_model (formats with a block read up to the next one, `size: rest`):
// whether the file written with the layout reads back as the fresh file does.
// A block of that kind that shrank, with the next block kept where it was,
// would read the bytes between them as its own; then the placement is fresh
// too.
template <class Root, class Enc, class Same = std::nullptr_t>
std::vector<uint8_t> encode_with_layout(const Root& x, const Layout& lay, Enc enc, Same same_model = nullptr) {
  if (lay.empty()) return enc(x, nullptr, nullptr);
  Layout bounded = lay;
  bounded.limit = 0x10000;
  std::vector<uint8_t> fresh;
  if (!lay.at.empty() || !lay.fill.empty()) {
    fresh = enc(x, nullptr, nullptr);
    bounded.limit += 2 * fresh.size();
  }
  auto placed_afresh = [&] {
    Layout afresh;
    afresh.end_align = lay.end_align;
    afresh.limit = bounded.limit;
    return enc(x, &afresh, nullptr);
  };
  std::vector<uint8_t> out;
  try {
    out = enc(x, &bounded, nullptr);
  } catch (const LayoutConflict&) {
    return placed_afresh();
  }
  if constexpr (!std::is_null_pointer_v<Same>) {
    if (!fresh.empty() && out != fresh) {
      bool same = false;
      try {
        same = same_model(out, fresh);
      } catch (const std::exception&) {
        // The laid-out file does not even read: place it afresh.
      }
      if (!same) return placed_afresh();
    }
  }
  return out;
}

}  // namespace binschema
