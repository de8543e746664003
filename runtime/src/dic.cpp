#include "binschema/dic.h"

#include <algorithm>
#include <bit>
#include <span>
#include <string_view>

#include "binschema/error.h"

namespace binschema {
namespace {

// A name is a big-endian integer: bit b is bit (b % 8) of the byte b / 8
// places from the end. Bits past the first byte are 0.
unsigned char byte_at(std::string_view s, size_t k) {
  return k < s.size() ? static_cast<unsigned char>(s[s.size() - 1 - k]) : 0;
}

int bit(std::string_view s, int64_t b) {
  if (b < 0) return 0;
  return (byte_at(s, static_cast<size_t>(b / 8)) >> (b % 8)) & 1;
}

// Lowest bit index where a and b differ; -1 when they are equal (as numbers:
// leading NULs do not count).
int64_t mismatch(std::string_view a, std::string_view b) {
  const size_t n = std::max(a.size(), b.size());
  for (size_t k = 0; k < n; ++k)
    if (const unsigned d = byte_at(a, k) ^ byte_at(b, k)) return static_cast<int64_t>(8 * k) + std::countr_zero(d);
  return -1;
}

// Lowest set bit; -1 when there is none.
int64_t first_set(std::string_view s) { return mismatch(s, {}); }

struct Node {
  std::string_view name;  // the caller's string, alive while the tree is
  int64_t bit;
  size_t child[2];
  size_t parent;
};

class Tree {
 public:
  explicit Tree(size_t names) {
    nodes_.reserve(names + 1);
    nodes_.push_back({"", -1, {0, 0}, 0});
  }

  void insert(std::string_view name) {
    size_t cur = search(name);
    int64_t b = mismatch(nodes_[cur].name, name);
    while (b < nodes_[nodes_[cur].parent].bit) cur = nodes_[cur].parent;
    const size_t n = nodes_.size();
    if (b < nodes_[cur].bit) {
      // The new node sits between cur and its parent.
      size_t parent = nodes_[cur].parent;
      Node nn{name, b, {n, n}, parent};
      nn.child[bit(name, b) ^ 1] = cur;
      nodes_.push_back(nn);
      nodes_[parent].child[bit(name, nodes_[parent].bit)] = n;
      nodes_[cur].parent = n;
    } else if (b > nodes_[cur].bit) {
      // The new node goes below cur.
      Node nn{name, b, {n, n}, cur};
      if (bit(nodes_[cur].name, b) == (bit(name, b) ^ 1)) nn.child[bit(name, b) ^ 1] = cur;
      else nn.child[bit(name, b) ^ 1] = 0;
      nodes_.push_back(nn);
      nodes_[cur].child[bit(name, nodes_[cur].bit)] = n;
    } else {
      // Same depth: hang the new node under cur with a higher bit index, the
      // first set bit of the name unless cur already leads somewhere else.
      int64_t nb = first_set(name);
      size_t other = nodes_[cur].child[bit(name, b)];
      if (other != 0) nb = mismatch(nodes_[other].name, name);
      Node nn{name, nb, {n, n}, cur};
      nn.child[bit(name, nb) ^ 1] = other;
      nodes_.push_back(nn);
      nodes_[cur].child[bit(name, b)] = n;
    }
  }

  // Root first, then the names in the order they were inserted.
  std::vector<DicWord> words() const {
    std::vector<DicWord> out;
    out.reserve(nodes_.size());
    for (const Node& n : nodes_)
      out.push_back({n.bit < 0 ? 0xFFFFFFFFu : static_cast<uint32_t>(n.bit), static_cast<uint16_t>(n.child[0]),
                     static_cast<uint16_t>(n.child[1])});
    return out;
  }

 private:
  // The node whose subtree the name falls into (the last one before the walk
  // turns back up the tree).
  size_t search(std::string_view name) const {
    if (nodes_[0].child[0] == 0) return 0;
    size_t node = nodes_[0].child[0], prev = node;
    for (;;) {
      prev = node;
      node = nodes_[node].child[bit(name, nodes_[node].bit)];
      if (nodes_[node].bit <= nodes_[prev].bit) break;
    }
    return prev;
  }

  std::vector<Node> nodes_;
};

// The first name (by position) equal to one before it; names.size() when
// none is. Short lists compare pairwise; long ones sort their positions.
size_t first_repeat(std::span<const std::string_view> names) {
  const size_t n = names.size();
  if (n <= 16) {
    for (size_t i = 1; i < n; ++i)
      for (size_t j = 0; j < i; ++j)
        if (names[i] == names[j]) return i;
    return n;
  }
  std::vector<uint32_t> order(n);
  for (uint32_t i = 0; i < n; ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    const int c = names[a].compare(names[b]);
    return c != 0 ? c < 0 : a < b;
  });
  size_t first = n;
  for (size_t k = 1; k < n; ++k)  // equal to the one before: a repeat
    if (names[order[k]] == names[order[k - 1]]) first = std::min<size_t>(first, order[k]);
  return first;
}

// The tree of names already checked (distinct, non-empty, fewer than 0xFFFF).
std::vector<DicWord> tree_of(std::span<const std::string_view> names) {
  Tree t(names.size());
  for (const auto& n : names) t.insert(n);
  return t.words();
}

std::vector<std::string_view> views(const std::vector<std::string>& names) {
  return std::vector<std::string_view>(names.begin(), names.end());
}

}  // namespace

void check_dic_words(uint64_t at, const std::vector<std::string>& names, const std::vector<DicWord>& words) {
  auto entry = [&](size_t i) { return at + 8 + 0x10 * i; };
  const std::vector<std::string_view> v = views(names);
  const size_t empty = std::find(v.begin(), v.end(), std::string_view()) - v.begin();
  const size_t repeat = first_repeat(v);
  if (empty < names.size() && empty <= repeat)
    throw DecodeError(entry(empty + 1), "dictionary entry " + std::to_string(empty + 1) + " at " +
                                            hex(entry(empty + 1)) + " has an empty name (a DIC cannot hold one)");
  if (repeat < names.size())
    throw DecodeError(entry(repeat + 1), "dictionary entry " + std::to_string(repeat + 1) + " at " +
                                             hex(entry(repeat + 1)) + ": name '" + names[repeat] + "' appears twice");
  if (names.size() >= 0xFFFF) throw DecodeError(at, "dictionary at " + hex(at) + " has too many names");
  const std::vector<DicWord> tree = tree_of(v);
  for (size_t i = 0; i < tree.size() && i < words.size(); ++i) {
    const DicWord& w = words[i];
    if (w.bit != tree[i].bit || w.left != tree[i].left || w.right != tree[i].right)
      throw DecodeError(entry(i), "dictionary entry " + std::to_string(i) + " at " + hex(entry(i)) + " has bit " +
                                      hex(w.bit) + ", left " + std::to_string(w.left) + ", right " +
                                      std::to_string(w.right) + " where its names make bit " + hex(tree[i].bit) +
                                      ", left " + std::to_string(tree[i].left) + ", right " +
                                      std::to_string(tree[i].right) + " (it would not be written back the same)");
  }
}

std::vector<DicWord> dic_words(std::span<const std::string_view> names) {
  if (names.size() >= 0xFFFF) throw EncodeError("dictionary: too many names");
  if (std::find(names.begin(), names.end(), std::string_view()) != names.end())
    throw EncodeError("dictionary: empty name");
  if (const size_t i = first_repeat(names); i < names.size())
    throw EncodeError("dictionary: name '" + std::string(names[i]) + "' appears twice");
  return tree_of(names);
}

std::vector<DicEntry> build_dic(const std::vector<std::string>& names) {
  const std::vector<DicWord> words = dic_words(views(names));
  std::vector<DicEntry> out;
  out.reserve(words.size());
  for (size_t i = 0; i < words.size(); ++i)
    out.push_back({words[i].bit, words[i].left, words[i].right, i ? names[i - 1] : std::string()});
  return out;
}

}  // namespace binschema
