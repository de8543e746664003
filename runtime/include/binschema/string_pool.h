// String pools: every distinct string stored once, referenced by offset.
//
// References are recorded while the model is written and patched once the
// pool has been placed, so the pool may sit anywhere after its first use.
#pragma once

#include <algorithm>
#include <cstring>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "binschema/trace.h"
#include "binschema/writer.h"

namespace binschema {

class StringPool {
 public:
  enum class Kind { CString, Pascal16 };
  // Sorted: by bytes. ReversedBits: by the binary digits of the string read as
  // a big-endian integer, least significant digit first (Nintendo's EventFlow
  // order; "" sorts as "0").
  enum class Order { FirstUse, Sorted, ReversedBits };
  // Str: the pool starts with "STR ", u32 0, u64 0, u32 number of non-empty strings.
  enum class Header { None, Str };

  StringPool(Kind kind, Order order, unsigned align, int mark, Header header = Header::None,
             unsigned block_align = 1, bool shared = true)
      : kind_(kind), order_(order), align_(align), mark_(mark), header_(header), block_align_(block_align),
        shared_(shared) {}

  // The key of the ReversedBits order.
  static std::string reversed_bits_key(std::string_view s) {
    size_t first = 0;
    while (first < s.size() && s[first] == 0) ++first;
    if (first == s.size()) return "0";
    std::string key;
    for (size_t i = s.size(); i-- > first;) {
      unsigned char c = static_cast<unsigned char>(s[i]);
      int bits = i == first ? 8 - __builtin_clz(c) + 24 : 8;  // no leading zeros on the top byte
      for (int b = 0; b < bits; ++b) key += ((c >> b) & 1) ? '1' : '0';
    }
    return key;
  }

  // reversed_bits_key(s) appended to `out` as bits, the first digit the top
  // bit of its byte (the last byte padded with zeros): where it starts and
  // how many digits it has.
  static std::pair<uint32_t, uint32_t> packed_reversed_bits(std::string_view s, std::vector<uint8_t>& out) {
    const auto start = static_cast<uint32_t>(out.size());
    size_t first = 0;
    while (first < s.size() && s[first] == 0) ++first;
    if (first == s.size()) {
      out.push_back(0);  // "0"
      return {start, 1};
    }
    // Every byte gives its eight digits, least significant first: the byte
    // with its bits reversed; the top byte its digits up to its highest 1,
    // the reversed byte's top bits (the bits below them are its zeros).
    for (size_t i = s.size(); i-- > first;) out.push_back(reverse_bits(static_cast<uint8_t>(s[i])));
    const auto top = static_cast<unsigned>(static_cast<unsigned char>(s[first]));
    return {start, static_cast<uint32_t>(8 * (s.size() - first - 1) + (32 - __builtin_clz(top)))};
  }
  static uint8_t reverse_bits(uint8_t b) {
    b = static_cast<uint8_t>((b & 0xF0) >> 4 | (b & 0x0F) << 4);
    b = static_cast<uint8_t>((b & 0xCC) >> 2 | (b & 0x33) << 2);
    return static_cast<uint8_t>((b & 0xAA) >> 1 | (b & 0x55) << 1);
  }
  // Whether the packed digits a (na of them) sort before b's, as their
  // strings of digits would.
  static bool packed_less(const uint8_t* a, uint32_t na, const uint8_t* b, uint32_t nb) {
    const uint32_t n = std::min(na, nb);
    if (const int c = std::memcmp(a, b, n / 8); c != 0) return c < 0;
    if (const uint32_t rest = n % 8) {
      const auto mask = static_cast<uint8_t>(0xFF00u >> rest);
      const uint8_t x = a[n / 8] & mask, y = b[n / 8] & mask;
      if (x != y) return x < y;
    }
    return na < nb;
  }

  // Empties the pool for the next instance of its scope (AL's event strings
  // are one pool per animation), keeping the memory of its tables.
  void restart() {
    placed_ = false;
    follow_ = nullptr;
    trace_ = nullptr;
    start_ = 0;
    strings_.clear();
    index_.clear();
    refs_.clear();
    offsets_.clear();
  }

  // A string the pool holds even when nothing refers to it ("" first, say).
  void keep(std::string_view s) { intern(s); }

  // Slot `slot` (width bytes) receives the string's offset, minus the pool
  // start when `pool_relative`, minus `base`, plus `add` (2 points past a
  // Pascal length). A pool that is not shared stores every reference's string
  // again, in order of reference.
  void ref(std::string_view s, uint64_t slot, uint8_t width, bool pool_relative, bool is_pointer,
           uint8_t add = 0, uint64_t base = 0) {
    refs_.push_back({slot, intern(s), width, pool_relative, is_pointer, add, base});
  }

  // A pool-relative offset kept in `bits` bits from `shift` up inside the
  // word at `slot`, whose other bits are already written (a packed entry).
  // With `scale` > 1 the bits hold the offset divided by it (SARC's name
  // offsets are in words of 4).
  void ref_bits(std::string_view s, uint64_t slot, uint8_t width, uint8_t shift, uint8_t bits, uint32_t scale = 1) {
    refs_.push_back({slot, intern(s), width, true, false, 0, 0, shift, bits, scale});
  }

  // A layout's order for this pool (binschema/layout.h; null: the pool's
  // own). place() writes the strings the layout lists, in its order (or
  // sorted), the ones it keeps though nothing refers to them included; new
  // strings follow in the pool's own order. `trace` learns whether that was
  // the pool's own order anyway.
  void follow(const PoolOrder* order, LayoutTrace* trace) {
    follow_ = order;
    trace_ = trace;
  }

  // Whether place() has run: lets generated code name the pool and the layout
  // that placed it when a layout would place it a second time.
  bool placed() const { return placed_; }

  template <std::endian E>
  void place(Writer<E>& w) {
    if (placed_) throw EncodeError("internal: pool placed twice");
    placed_ = true;
    std::vector<uint32_t> order(strings_.size());
    for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
    if (order_ == Order::Sorted) {
      std::sort(order.begin(), order.end(),
                [&](uint32_t a, uint32_t b) { return strings_[a] < strings_[b]; });
    } else if (order_ == Order::ReversedBits) {
      // The keys of reversed_bits_key, eight digits to a byte in one buffer:
      // the same order without a string of digits per string.
      std::vector<uint8_t> bits;
      std::vector<std::pair<uint32_t, uint32_t>> keys;  // (first byte in bits, number of digits)
      keys.reserve(strings_.size());
      bits.reserve(strings_.size() * 16);
      for (const auto& s : strings_) keys.push_back(packed_reversed_bits(s, bits));
      std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
        return packed_less(bits.data() + keys[a].first, keys[a].second, bits.data() + keys[b].first, keys[b].second);
      });
    }
    std::vector<std::pair<uint32_t, uint32_t>> tails;  // (string, the one whose end holds it)
    if (follow_ && shared_) {
      const size_t own = strings_.size();
      for (const auto& u : follow_->unused) intern(u);
      std::vector<bool> tail(strings_.size());
      if (kind_ == Kind::CString)
        for (size_t k = 0; k + 1 < follow_->tails.size(); k += 2) {
          const uint32_t t = index_.find(follow_->tails[k], strings_), h = index_.find(follow_->tails[k + 1], strings_);
          if (t == Index::npos || h == Index::npos || t == h || tail[t] || tail[h] ||
              !std::string_view(strings_[h]).ends_with(strings_[t]))
            continue;
          tail[t] = true;
          tails.emplace_back(t, h);
        }
      std::vector<uint32_t> laid;
      if (follow_->sorted) {
        for (uint32_t i = 0; i < strings_.size(); ++i)
          if (!tail[i]) laid.push_back(i);
        std::sort(laid.begin(), laid.end(), [&](uint32_t a, uint32_t b) { return strings_[a] < strings_[b]; });
      } else {
        std::vector<bool> listed = tail;
        for (const auto& t : follow_->order)
          if (const uint32_t i = index_.find(t, strings_); i != Index::npos && !listed[i]) {
            listed[i] = true;
            laid.push_back(i);
          }
        for (uint32_t i : order)
          if (!listed[i]) laid.push_back(i);
        for (uint32_t i = static_cast<uint32_t>(own); i < strings_.size(); ++i)
          if (!listed[i]) laid.push_back(i);
      }
      if (trace_) trace_->pools.emplace_back(follow_->pool, strings_.size() == own && laid == order);
      order = std::move(laid);
    }
    w.align(std::max(align_, block_align_));
    w.mark_start(mark_);
    start_ = w.pos();
    if (header_ == Header::Str) {
      uint64_t h = w.reserve(0x14);
      w.bytes(h, "STR ", 4);
      size_t non_empty = std::count_if(strings_.begin(), strings_.end(), [](const std::string& s) { return !s.empty(); });
      w.template put<uint32_t>(h + 0x10, static_cast<uint32_t>(non_empty));
    }
    offsets_.assign(strings_.size(), 0);
    for (uint32_t i : order) {
      const std::string& s = strings_[i];
      if (kind_ == Kind::CString) {
        uint64_t at = w.reserve(s.size() + 1);
        w.bytes(at, s.data(), s.size());
        offsets_[i] = at;
      } else {
        if (s.size() > 0xffff) throw EncodeError("string longer than 65535 bytes: " + s.substr(0, 40));
        uint64_t at = w.reserve(2 + s.size() + 1);
        w.template put<uint16_t>(at, static_cast<uint16_t>(s.size()));
        w.bytes(at + 2, s.data(), s.size());
        offsets_[i] = at;
      }
      w.align(align_);  // each string is padded: the pool's end includes the last padding
    }
    for (const auto& [t, h] : tails) offsets_[t] = offsets_[h] + strings_[h].size() - strings_[t].size();
    w.mark_end(mark_);
  }

  // Writes every reference; call after place() and after the last ref().
  template <std::endian E>
  void patch(Writer<E>& w) {
    if (!placed_) throw EncodeError("internal: pool referenced but never placed");
    for (const Ref& r : refs_) {
      if (r.index >= offsets_.size())
        throw EncodeError("internal: string referenced after its pool was placed");
      uint64_t v = offsets_[r.index] + r.add - (r.pool_relative ? start_ : 0) - r.base;
      if (r.scale > 1) {
        if (v % r.scale != 0)
          throw EncodeError("string offset " + hex(v) + " is not a multiple of its scale " + std::to_string(r.scale));
        v /= r.scale;
      }
      if (r.bits) {
        if (r.bits < 64 && (v >> r.bits) != 0)
          throw EncodeError("string offset " + hex(v) + " does not fit in " + std::to_string(r.bits) + " bits");
        v = (v << r.shift) | w.get_uint(r.slot, r.width);
      }
      w.put_uint(r.slot, r.width, v, "string offset");
      if (r.is_pointer) w.record_pointer(r.slot, r.width, false);
    }
  }

  size_t size() const { return strings_.size(); }

 private:
  struct Ref {
    uint64_t slot;
    uint32_t index;
    uint8_t width;
    bool pool_relative, is_pointer;
    uint8_t add;
    uint64_t base;
    uint8_t shift = 0, bits = 0;  // bits != 0: merged into the word's other bits
    uint32_t scale = 1;           // the slot holds the offset divided by this
  };
  // Which string of strings_ has which text: open addressing over their
  // indices, the hashes beside them, so that no string is stored twice and a
  // lookup touches one slot in the common case.
  class Index {
   public:
    static constexpr uint32_t npos = 0xFFFFFFFFu;
    uint32_t find(std::string_view s, const std::vector<std::string>& strings) const {
      return table_.empty() ? npos : slot_value(slot(s, hash(s), strings));
    }
    void clear() {
      std::fill(table_.begin(), table_.end(), 0);
      hashes_.clear();
    }
    // The index of `s`, added to `strings` when it is new.
    uint32_t intern(std::string_view s, std::vector<std::string>& strings) {
      if (4 * (strings.size() + 1) > 3 * table_.size()) grow();
      const size_t h = hash(s), at = slot(s, h, strings);
      if (table_[at]) return table_[at] - 1;
      const auto i = static_cast<uint32_t>(strings.size());
      strings.emplace_back(s);
      hashes_.push_back(h);
      table_[at] = i + 1;
      return i;
    }

   private:
    static size_t hash(std::string_view s) { return std::hash<std::string_view>{}(s); }
    uint32_t slot_value(size_t at) const { return table_[at] ? table_[at] - 1 : npos; }
    // The slot holding `s`, or the empty slot where it would go.
    size_t slot(std::string_view s, size_t h, const std::vector<std::string>& strings) const {
      const size_t mask = table_.size() - 1;
      for (size_t at = h & mask;; at = (at + 1) & mask) {
        const uint32_t v = table_[at];
        if (!v || (hashes_[v - 1] == h && strings[v - 1] == s)) return at;
      }
    }
    void grow() {
      std::vector<uint32_t> old = std::move(table_);
      table_.assign(std::max<size_t>(64, 2 * old.size()), 0);
      const size_t mask = table_.size() - 1;
      for (uint32_t v : old)
        if (v) {
          size_t at = hashes_[v - 1] & mask;
          while (table_[at]) at = (at + 1) & mask;
          table_[at] = v;
        }
    }
    std::vector<uint32_t> table_;  // index + 1; 0: empty. A power of two long
    std::vector<size_t> hashes_;   // of each string, by index
  };

  uint32_t intern(std::string_view s) {
    if (!shared_) {
      check(s);
      strings_.emplace_back(s);
      return static_cast<uint32_t>(strings_.size() - 1);
    }
    if (const uint32_t i = index_.find(s, strings_); i != Index::npos) return i;  // checked when it came
    check(s);
    return index_.intern(s, strings_);
  }

  // A NUL inside a NUL-terminated string would read back cut short.
  void check(std::string_view s) const {
    if (kind_ == Kind::CString && s.find('\0') != std::string_view::npos) throw_nul(s);
  }

  // Out of line and built piece by piece (GCC 12 warns, wrongly, -Wrestrict,
  // on one long concatenation).
  [[noreturn]] static void throw_nul(std::string_view s) {
    std::string m = "string \"";
    m += s.substr(0, s.find('\0'));
    m += "\\0...\" holds a NUL byte: it would read back cut at the NUL";
    throw EncodeError(m);
  }

  Kind kind_;
  Order order_;
  unsigned align_;
  int mark_;
  Header header_;
  unsigned block_align_;
  bool shared_;
  bool placed_ = false;
  const PoolOrder* follow_ = nullptr;
  LayoutTrace* trace_ = nullptr;
  uint64_t start_ = 0;
  std::vector<std::string> strings_;
  Index index_;
  ChunkedList<Ref> refs_;
  std::vector<uint64_t> offsets_;
};

// The byte map (binschema/trace.h): the "STR " header of a pool (header:
// str) as fields, for a schema's trace (the reader reads the strings, not the
// header). The header is the block-aligned "STR " (u32 0, u64 0, u32 count)
// before `first`, the lowest string read from the pool, with only whole
// (pascal16) strings between it and `first`; none found, nothing is added.
inline void trace_str_header(Trace& tr, std::span<const uint8_t> b, uint64_t first, uint64_t align, uint64_t block_align) {
  const uint64_t a = std::max<uint64_t>(1, std::max(align, block_align));
  if (first > b.size() || first < 0x14) return;
  for (uint64_t p = (first - 0x14) / a * a, tries = 0; tries < 64; p -= a, ++tries) {
    if (std::memcmp(b.data() + p, "STR ", 4) == 0) {
      // Strings from the header's end up to `first`, each padded to `align`.
      uint64_t q = p + 0x14;
      while (q + 3 <= first) {
        const uint64_t n = uint64_t(b[q]) | uint64_t(b[q + 1]) << 8;
        q = (q + 2 + n + 1 + std::max<uint64_t>(align, 1) - 1) / std::max<uint64_t>(align, 1) * std::max<uint64_t>(align, 1);
      }
      if (q != first) return;
      tr.open("string_pool_header", TraceKind::Struct, p, "STR");
      tr.leaf("magic", TraceKind::Chars, p, 4, "char");
      tr.leaf("reserved", TraceKind::Padding, p + 4, 12, "bytes");
      tr.leaf("count", TraceKind::Number, p + 0x10, 4, "u32");
      tr.close(p + 0x14);
      return;
    }
    if (p < a) return;
  }
}

}  // namespace binschema
