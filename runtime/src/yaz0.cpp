// Yaz0: Nintendo's LZ77 variant.
//
// After a 16-byte header (`Yaz0`, u32 BE decompressed size, u32 BE alignment
// hint, u32 reserved) come groups of one code byte and up to eight items,
// most significant bit first: 1 = one literal byte; 0 = a back-reference of
// two bytes `NR RR` (distance 0xRRR + 1, length N + 2) or, when N is 0, three
// bytes `0R RR MM` (length MM + 0x12). Distances reach 0x1000 bytes back and
// lengths run from 3 to 0x111.
#include <algorithm>
#include <cstring>

#include "binschema/compression.h"
#include "binschema/error.h"

namespace binschema::yaz0 {

namespace {

constexpr size_t kWindow = 0x1000;
constexpr size_t kMinMatch = 3;
constexpr size_t kMaxMatch = 0x111;
// The most output one input byte can stand for: a three-byte reference
// yields 0x111 bytes, i.e. at most 0x111 / 3 + 1 = 92 per byte (the code
// bytes only lower that). A header claiming more than this allows is a lie
// and is refused before anything is allocated.
constexpr uint64_t kMaxRatio = kMaxMatch / 3 + 1;

uint32_t be32(const uint8_t* p) {
  return uint32_t{p[0]} << 24 | uint32_t{p[1]} << 16 | uint32_t{p[2]} << 8 | p[3];
}

void put_be32(std::vector<uint8_t>& out, uint32_t v) {
  out.push_back(static_cast<uint8_t>(v >> 24));
  out.push_back(static_cast<uint8_t>(v >> 16));
  out.push_back(static_cast<uint8_t>(v >> 8));
  out.push_back(static_cast<uint8_t>(v));
}

[[noreturn, gnu::cold]] void truncated(size_t at, size_t written, size_t size) {
  throw DecodeError(at, "Yaz0: the stream ends at " + hex(at) + " after " + hex(written) + " of the " + hex(size) +
                            " bytes its header declares");
}

}  // namespace

Header read_header(std::span<const uint8_t> in) {
  if (in.size() < kHeaderSize)
    throw DecodeError(0, "Yaz0: needs a 0x10-byte header but the file has " + hex(in.size()) + " bytes (at 0x0)");
  if (std::memcmp(in.data(), "Yaz0", 4) != 0) throw DecodeError(0, "Yaz0: magic is not 'Yaz0' (at 0x0)");
  return Header{be32(in.data() + 4), be32(in.data() + 8)};
}

std::vector<uint8_t> decompress(std::span<const uint8_t> in, size_t max_size) {
  const Header header = read_header(in);
  const size_t size = header.decompressed_size;
  if (size > max_size)
    throw DecodeError(4, "Yaz0: declared size " + hex(size) + " is over the limit of " + hex(max_size) + " (at 0x4)");
  const uint64_t possible = (in.size() - kHeaderSize) * kMaxRatio;
  if (size > possible)
    throw DecodeError(4, "Yaz0: declared size " + hex(size) + " cannot come from " + hex(in.size() - kHeaderSize) +
                             " bytes of data (at most " + hex(possible) + ") (at 0x4)");

  std::vector<uint8_t> out(size);
  uint8_t* dst = out.data();
  const uint8_t* src = in.data();
  const size_t n = in.size();
  size_t s = kHeaderSize, d = 0;
  while (d < size) {
    if (s >= n) truncated(s, d, size);
    const unsigned code = src[s++];
    for (unsigned bit = 0x80; bit != 0 && d < size; bit >>= 1) {
      if (code & bit) {
        if (s >= n) truncated(s, d, size);
        dst[d++] = src[s++];
        continue;
      }
      const size_t at = s;
      if (n - s < 2) truncated(s, d, size);
      const unsigned b1 = src[s], b2 = src[s + 1];
      s += 2;
      const size_t dist = ((b1 & 0xfu) << 8 | b2) + 1;
      size_t len;
      if (b1 >> 4) {
        len = (b1 >> 4) + 2;
      } else {
        if (s >= n) truncated(s, d, size);
        len = size_t{src[s++]} + 0x12;
      }
      if (dist > d)
        throw DecodeError(at, "Yaz0: back-reference at " + hex(at) + " reaches " + hex(dist) +
                                  " bytes back but only " + hex(d) + " bytes are decompressed");
      if (len > size - d)
        throw DecodeError(at, "Yaz0: back-reference at " + hex(at) + " copies " + hex(len) + " bytes at output " +
                                  hex(d) + ", past the declared size " + hex(size));
      uint8_t* to = dst + d;
      const uint8_t* from = to - dist;
      if (dist >= len) {
        std::memcpy(to, from, len);
      } else {
        for (size_t i = 0; i < len; ++i) to[i] = from[i];  // overlapping: a run
      }
      d += len;
    }
  }
  return out;
}

namespace {

// Hash-chain match finder over the last kWindow positions.
class MatchFinder {
 public:
  explicit MatchFinder(std::span<const uint8_t> in) : in_(in), head_(kHashSize, -1), prev_(kWindow, -1) {}

  struct Match {
    size_t length = 0;
    size_t distance = 0;
  };

  // Adds position `pos` (which needs kMinMatch bytes after it) to the chains.
  void insert(size_t pos) {
    if (in_.size() - pos < kMinMatch) return;
    const uint32_t h = hash(pos);
    prev_[pos & (kWindow - 1)] = head_[h];
    head_[h] = static_cast<int64_t>(pos);
  }

  // The longest earlier match for `pos` within the window (length 0: none).
  // Positions before `pos` must have been inserted; `pos` itself not yet.
  Match find(size_t pos) const {
    Match best;
    const size_t limit = std::min(kMaxMatch, in_.size() - pos);
    if (limit < kMinMatch) return best;
    const uint8_t* p = in_.data() + pos;
    int64_t cand = head_[hash(pos)];
    const int64_t lowest = static_cast<int64_t>(pos) - static_cast<int64_t>(kWindow);
    for (int depth = 0; depth < kMaxChain && cand >= 0 && cand >= lowest; ++depth) {
      const uint8_t* q = in_.data() + cand;
      // The byte that would make this candidate better than the best so far.
      if (q[best.length] == p[best.length] && q[0] == p[0]) {
        size_t len = 0;
        while (len < limit && q[len] == p[len]) ++len;
        if (len > best.length) {
          best = {len, pos - static_cast<size_t>(cand)};
          if (len == limit) break;
        }
      }
      const int64_t next = prev_[static_cast<size_t>(cand) & (kWindow - 1)];
      if (next >= cand) break;  // the slot was reused by a newer position
      cand = next;
    }
    if (best.length < kMinMatch) best = {};
    return best;
  }

 private:
  static constexpr int kHashBits = 15;
  static constexpr size_t kHashSize = size_t{1} << kHashBits;
  static constexpr int kMaxChain = 96;

  uint32_t hash(size_t pos) const {
    const uint8_t* p = in_.data() + pos;
    const uint32_t v = uint32_t{p[0]} << 16 | uint32_t{p[1]} << 8 | p[2];
    return (v * 2654435761u) >> (32 - kHashBits);
  }

  std::span<const uint8_t> in_;
  std::vector<int64_t> head_;
  std::vector<int64_t> prev_;
};

// Groups of one code byte and eight items.
class GroupWriter {
 public:
  explicit GroupWriter(std::vector<uint8_t>& out) : out_(out) {}

  void literal(uint8_t b) {
    begin_item();
    out_[code_at_] |= static_cast<uint8_t>(0x80u >> items_);
    out_.push_back(b);
    ++items_;
  }

  void reference(size_t distance, size_t length) {
    begin_item();
    const size_t r = distance - 1;
    if (length >= 0x12) {
      out_.push_back(static_cast<uint8_t>(r >> 8));
      out_.push_back(static_cast<uint8_t>(r));
      out_.push_back(static_cast<uint8_t>(length - 0x12));
    } else {
      out_.push_back(static_cast<uint8_t>((length - 2) << 4 | r >> 8));
      out_.push_back(static_cast<uint8_t>(r));
    }
    ++items_;
  }

 private:
  void begin_item() {
    if (items_ == 8 || !started_) {
      code_at_ = out_.size();
      out_.push_back(0);
      items_ = 0;
      started_ = true;
    }
  }

  std::vector<uint8_t>& out_;
  size_t code_at_ = 0;
  unsigned items_ = 0;
  bool started_ = false;
};

}  // namespace

std::vector<uint8_t> compress(std::span<const uint8_t> in, uint32_t alignment) {
  if (in.size() > 0xffffffffu)
    throw EncodeError("Yaz0: cannot compress " + hex(in.size()) + " bytes (the header holds a 32-bit size)");
  std::vector<uint8_t> out;
  out.reserve(kHeaderSize + in.size() + in.size() / 8 + 16);
  out.insert(out.end(), {'Y', 'a', 'z', '0'});
  put_be32(out, static_cast<uint32_t>(in.size()));
  put_be32(out, alignment);
  put_be32(out, 0);

  MatchFinder finder(in);
  GroupWriter groups(out);
  size_t pos = 0;
  MatchFinder::Match pending = finder.find(0);
  while (pos < in.size()) {
    MatchFinder::Match m = pending;
    finder.insert(pos);
    if (m.length == 0) {
      groups.literal(in[pos]);
      ++pos;
      if (pos < in.size()) pending = finder.find(pos);
      continue;
    }
    // Lazy matching: a clearly longer match one byte later is worth a literal.
    if (m.length < kMaxMatch && pos + 1 < in.size()) {
      const MatchFinder::Match next = finder.find(pos + 1);
      if (next.length > m.length + 1) {
        groups.literal(in[pos]);
        ++pos;
        pending = next;
        continue;
      }
    }
    groups.reference(m.distance, m.length);
    for (size_t i = 1; i < m.length; ++i) finder.insert(pos + i);
    pos += m.length;
    if (pos < in.size()) pending = finder.find(pos);
  }
  return out;
}

}  // namespace binschema::yaz0
