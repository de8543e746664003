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
// String pools: the reader notes every pooled string it reads (note_string);
// note_pool_order turns them into the pool's order in the file (`pools`:
// sorted by bytes, or the list of its strings), with the strings nothing
// refers to that the pool holds all the same (a leading "", say). The
// writer's StringPool follows it (StringPool::follow).
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
#include <tuple>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <unordered_set>
#include <utility>
#include <vector>

#include "binschema/error.h"

namespace binschema {

// The order of a string pool in a file, when it is not the writer's own.
struct PoolOrder {
  std::string pool;                 // the schema's name of the pool
  bool sorted = false;              // sorted by bytes (then `order` is empty)
  std::vector<std::string> order;   // else: the pool's strings, in the file's order
  std::vector<std::string> unused;  // strings the pool holds that nothing refers to
  // Strings stored as the end of another one (a NUL-terminated pool whose
  // writer points "" at the NUL of a string, or "Bar" into "FooBar"), in
  // pairs: the string, then the one whose end holds it.
  std::vector<std::string> tails;
  bool operator==(const PoolOrder&) const = default;
};

struct Layout {
  // Slot -> the value the file had there (a block's position, the pointer of
  // an empty array, an element size). Sorted by slot once settled.
  std::vector<std::pair<uint64_t, uint64_t>> at;
  // Bytes that no block covers (non-zero gap bytes, trailing bytes): offset -> bytes.
  std::vector<std::pair<uint64_t, std::string>> fill;
  // The file ends with zeros up to a multiple of this (0: no padding).
  uint64_t end_align = 0;
  // String pools in another order than the writer's own.
  std::vector<PoolOrder> pools;
  // Not part of the layout: the writer takes no position at or past this
  // from it (0: no bound). decode and encode set it (see encode_with_layout).
  uint64_t limit = 0;
  // Not part of the layout: the pooled strings the reader read (pool number,
  // offset, length), until note_pool_order has used them.
  struct Seen {
    uint32_t pool;
    uint64_t at, len;
  };
  std::vector<Seen> seen;
  // Not part of the layout: the reader's probe (reader.h), set by
  // decode_with_layout to find the field of a byte that would not come back.
  uint64_t probe_at = UINT64_MAX, probe_stop = 0, probe_hits = 0;

  bool empty() const { return at.empty() && fill.empty() && end_align == 0 && pools.empty(); }

  // Reader side: a slot and what the file had in it.
  void note(uint64_t slot, uint64_t value) { at.emplace_back(slot, value); }
  // Reader side: a pooled string (pascal: `at` is its length field).
  void note_string(uint32_t pool, uint64_t at_, uint64_t len) { seen.push_back({pool, at_, len}); }
  // Reader side: where a pool without base: starts, as a field that derives
  // start(POOL) says (the first such field read counts).
  std::vector<std::pair<uint32_t, uint64_t>> pool_starts;
  void note_pool_start(uint32_t pool, uint64_t at_) {
    for (const auto& e : pool_starts)
      if (e.first == pool) return;
    pool_starts.emplace_back(pool, at_);
  }
  // Where the pool's first string starts (`head`: the pool's header before
  // it), or UINT64_MAX when no field said where the pool starts.
  uint64_t pool_start(uint32_t pool, uint64_t head) const {
    for (const auto& e : pool_starts)
      if (e.first == pool) return e.second > UINT64_MAX - head ? UINT64_MAX : e.second + head;
    return UINT64_MAX;
  }

  const PoolOrder* pool(std::string_view name) const {
    for (const auto& p : pools)
      if (p.pool == name) return &p;
    return nullptr;
  }

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

// After a decode with a layout: the order of the strings of pool number `id`
// (named `name`) that the reader noted, with the strings between them that
// nothing refers to. `start`: where the pool's first string starts, when the
// reader knows it (a pool with `base:`, or one whose start a field derives
// with start(POOL)), else UINT64_MAX: then no entry. A pool in which a string
// is stored twice, strings overlap, or the bytes between two strings are not
// strings (each NUL-terminated, a Pascal one with its u16 length in the
// file's byte order `big`, each padded with zeros to `align`) gets no entry
// (it is written in the writer's own order).
inline void note_pool_order(Layout& lay, uint32_t id, const char* name, const uint8_t* data, uint64_t size, uint64_t start,
                            unsigned align, bool pascal, bool big = false) {
  // Without the pool's start, strings before the first one read (BFEVFL's
  // empty name of a dictionary's root entry, which no field reads) are not
  // known, and an order without them would move them: no entry.
  if (start == UINT64_MAX) return;
  std::vector<std::pair<uint64_t, uint64_t>> s;
  for (const auto& e : lay.seen)
    if (e.pool == id) s.emplace_back(e.at, e.len);
  if (s.empty()) return;
  std::sort(s.begin(), s.end());
  s.erase(std::unique(s.begin(), s.end()), s.end());
  PoolOrder po;
  po.pool = name;
  std::unordered_set<std::string_view> texts;
  auto add = [&](std::string_view t, bool used) {
    if (!texts.insert(t).second) return false;
    po.order.emplace_back(t);
    if (!used) po.unused.emplace_back(t);
    return true;
  };
  const uint64_t head = pascal ? 2 : 0;
  const uint64_t a = align ? align : 1;
  // The zeros after a string up to the pool's alignment, up to `limit`:
  // where the next string starts, or UINT64_MAX when they are not zeros.
  auto padded = [&](uint64_t end, uint64_t limit) -> uint64_t {
    const uint64_t q = (end + a - 1) / a * a;
    if (q > limit) return UINT64_MAX;
    for (uint64_t k = end; k < q; ++k)
      if (data[k] != 0) return UINT64_MAX;
    return q;
  };
  uint64_t p = start <= s[0].first ? start : s[0].first;
  uint64_t last = UINT64_MAX, last_len = 0;  // the last string stored whole
  std::vector<std::string_view> tailed;
  // A string inside the last one stored whole: in a NUL-terminated pool,
  // the end of it (both end at the same NUL). Kept as a tail of that string.
  auto tail = [&](uint64_t at, uint64_t len) {
    if (pascal || last == UINT64_MAX || at <= last || at + len != last + last_len) return false;
    const std::string_view t(reinterpret_cast<const char*>(data + at), len);
    if (texts.count(t)) return false;  // stored whole as well: two offsets for one string
    for (size_t k = 0; k < tailed.size(); k += 2)
      if (tailed[k] == t) return true;  // the same tail again
    tailed.push_back(t);
    tailed.push_back(std::string_view(reinterpret_cast<const char*>(data + last), last_len));
    return true;
  };
  for (const auto& [at, len] : s) {
    if (at + head + len >= size) return;
    if (at < p) {
      if (!tail(at, len)) return;
      continue;
    }
    // Bytes between strings: strings that nothing refers to.
    bool inside = false;
    for (uint64_t i = p; i < at;) {
      uint64_t body, n;
      if (pascal) {
        if (at - i < 3) return;
        n = big ? uint64_t(data[i]) << 8 | data[i + 1] : uint64_t(data[i + 1]) << 8 | data[i];
        body = i + 2;
        if (n >= at - body || data[body + n] != 0) return;
      } else {
        uint64_t j = i;
        while (j < size && data[j] != 0) ++j;
        if (j >= at) {
          // The string at `at` ends this one, which nothing refers to.
          if (j != at + len) return;
          if (!add(std::string_view(reinterpret_cast<const char*>(data + i), j - i), false)) return;
          last = i;
          last_len = j - i;
          if (!tail(at, len)) return;
          p = (j + 1 + a - 1) / a * a;
          inside = true;
          break;
        }
        body = i;
        n = j - i;
      }
      if (!add(std::string_view(reinterpret_cast<const char*>(data + body), n), false)) return;
      i = padded(body + n + 1, at);
      if (i == UINT64_MAX) return;
    }
    if (inside) continue;
    if (!add(std::string_view(reinterpret_cast<const char*>(data + at + head), len), true)) return;
    last = at;
    last_len = len;
    p = (at + head + len + 1 + a - 1) / a * a;
  }
  for (size_t k = 0; k < tailed.size(); k += 2)
    if (texts.count(tailed[k])) return;  // a tail stored whole later on
  for (const auto& t : tailed) po.tails.emplace_back(t);
  if (std::is_sorted(po.order.begin(), po.order.end())) {
    po.sorted = true;
    po.order.clear();
  }
  lay.pools.push_back(std::move(po));
}

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
  // String pools the writer placed, and whether the layout's order was the writer's own.
  std::vector<std::pair<std::string, bool>> pools;
  // Values written last (late fix-ups: sizes, offsets of regions): slot,
  // width and the field, to name a byte that does not come back.
  std::vector<std::tuple<uint64_t, uint8_t, const char*>> late;
  // Blocks that no field reads (the relocation table, which the writer makes
  // from the pointers): start, end, name.
  std::vector<std::tuple<uint64_t, uint64_t, const char*>> regions;
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
  for (const auto& [slot, fresh] : tr.placed)
    if (!fresh) used.push_back(slot);
  for (uint64_t v : tr.values) used.push_back(v);
  std::sort(used.begin(), used.end());
  std::vector<std::pair<uint64_t, uint64_t>> kept;
  for (const auto& e : lay.at)
    if (std::binary_search(used.begin(), used.end(), e.first)) kept.push_back(e);
  lay.at = std::move(kept);
  // Pool orders that the writer followed and that differ from its own.
  std::vector<PoolOrder> pools;
  for (auto& po : lay.pools)
    for (const auto& [name, fresh] : tr.pools)
      if (name == po.pool && !fresh) pools.push_back(std::move(po));
  lay.pools = std::move(pools);
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

// A file that decode(bytes, layout) read but that encode(model, layout)
// would not give back: refused, naming the first byte that differs, the
// field whose block holds it (the reader's probe, reader.h) and, when the
// writer computes it at the end, the value's field.
template <class Dec>
[[noreturn]] void refuse_unkept(const uint8_t* bytes, uint64_t size, const std::vector<uint8_t>& back, Dec dec,
                                const LayoutTrace& tr) {
  const uint64_t n = std::min<uint64_t>(size, back.size());
  uint64_t i = 0;
  while (i < n && bytes[i] == back[i]) ++i;
  std::string path;
  uint64_t block = i;
  bool before = false;  // the byte lies after the block named, in bytes no field reads
  if (i < size) {
    Layout p;
    p.probe_at = i;
    try {
      dec(&p);
    } catch (const std::exception&) {
    }
    if (p.probe_hits) {
      Layout q;
      q.probe_at = i;
      q.probe_stop = p.probe_hits;
      try {
        dec(&q);
      } catch (const DecodeError& e) {
        if (e.message() == "probe" || e.message() == "probe before") {
          path = e.path();
          block = e.offset();
          before = e.message() == "probe before";
        }
      } catch (const std::exception&) {
      }
    }
  }
  const char* value = nullptr;
  for (const auto& [slot, width, what] : tr.late)
    if (i >= slot && i - slot < width) value = what;
  if (path.empty())
    for (const auto& [a, b, what] : tr.regions)
      if (i >= a && i < b) {
        path = what;
        block = a;
      }
  std::string m;
  const bool trailing = i >= n && back.size() < size;  // the file goes on after all the model writes
  if (i < n) {
    m = "the byte at " + hex(i) + " is " + hex(bytes[i]) + ", but the model with this file's layout writes " +
        hex(back[i]);
  } else if (trailing) {
    // Bytes after the end that `fill` cannot keep (beyond what a layout may
    // place: layout.h encode_with_layout), named by the last field read.
    m = "the file has " + hex(size - back.size()) + " trailing bytes after the " + hex(back.size()) +
        " that the model with this file's layout writes";
  } else {
    m = "the model with this file's layout writes " + hex(back.size()) + " bytes, the file has " + hex(size);
  }
  if (value) {
    m += " (";
    m += value;
    m += ")";
  }
  if (before && trailing) m += ", after the last field read (it starts at " + hex(block) + ")";
  else if (before) m += ", in bytes that no field reads after it (it starts at " + hex(block) + ")";
  else if (!path.empty() && block != i) m += ", " + hex(i - block) + " bytes after its start at " + hex(block);
  m += ": the file would not come back as it is, and its layout cannot keep what differs (at " + hex(i) + ")";
  LayoutNotKept e(i, m);
  if (!path.empty()) e.push_field(path.c_str());
  throw e;
}

// decode(bytes, layout) the full way (decode_with_layout below tries the
// short way first): `dec` reads with a layout to note in, `enc` writes with a layout (and a trace). The writer runs once so
// that the layout keeps only what the format's own writer would not do.
// `again` (the format's encode(model, layout)) then writes the model with the
// settled layout: a file that does not come back byte for byte is refused
// with a DecodeError naming the first byte that differs and its field
// (refuse_unkept), so that every file that decodes comes back.
template <class Root, class Dec, class Enc, class Again>
Root decode_with_layout_full(const uint8_t* bytes, uint64_t size, Layout& lay, Dec dec, Enc enc, Again again) {
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
  if constexpr (!std::is_null_pointer_v<Again>) {
    std::vector<uint8_t> back;
    try {
      back = again(x, lay);
    } catch (const std::exception&) {
      return x;  // encode's own error, when it is asked to
    }
    if (back.size() != size || !std::equal(back.begin(), back.end(), bytes)) refuse_unkept(bytes, size, back, dec, tr);
  }
  return x;
}

// decode(bytes, layout) of a generated format (and of the run-time engine):
// first the short way. A file exactly as the format's own writer makes it
// has an empty layout (docs/schema-language.md §11), and encode(model, empty
// layout) is the fresh write: a plain decode and one fresh write equal to
// the file decide it, and that write is the proof that the file comes back.
// BFEVFL's samples are all such files (Common.bfevfl: 0.2 ms instead of
// 0.66). Any other file, or an error on the way, takes the full path
// (decode_with_layout_full), which then costs that plain decode and write more.
//
// `fresh_into` (the format's encode_into(model, buffer), optional): the
// fresh write goes into a buffer the thread keeps for the next decode (up
// to 4 MiB), not into a new one grown a few times and given back each time
// (for a file of tens of KiB, a sixth of the write's time was fresh pages).
template <class Root, class Dec, class Enc, class Again = std::nullptr_t, class FreshInto = std::nullptr_t>
Root decode_with_layout(const uint8_t* bytes, uint64_t size, Layout& lay, Dec dec, Enc enc, Again again = nullptr,
                        FreshInto fresh_into = nullptr) {
  lay = Layout{};
  try {
    Root x = dec(nullptr);
    if constexpr (!std::is_null_pointer_v<FreshInto>) {
      static thread_local std::vector<uint8_t> scratch;
      struct Trim {
        ~Trim() {
          if (scratch.capacity() > (4u << 20)) std::vector<uint8_t>().swap(scratch);
        }
      } trim;
      fresh_into(x, scratch);
      if (scratch.size() == size && std::equal(scratch.begin(), scratch.end(), bytes)) return x;
    } else {
      const std::vector<uint8_t> fresh = enc(x, nullptr, nullptr);
      if (fresh.size() == size && std::equal(fresh.begin(), fresh.end(), bytes)) return x;
    }
  } catch (const std::exception&) {
    // The full path below meets the same error, and deals with it as it always did.
  }
  return decode_with_layout_full<Root>(bytes, size, lay, dec, enc, again);
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
    afresh.pools = lay.pools;
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
