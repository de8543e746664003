// The field trace behind the byte map (`binschema explain / coverage / view`):
// where every field a generated reader reads lies in the file.
//
// A generated reader reports to a Trace only when one is set (`r.tr`, one
// null-pointer check per struct and per field that is not at a fixed
// offset; strings report from the Reader's string loads). Nothing else about
// decoding changes: the same checks, the same model. A trace is a tree of
// nodes in the order they were read, parents before their children:
//
//   Struct  a struct read at `off` (its fields are children)
//   Target  what a pointer points to: no bytes of its own, the target's nodes
//           as children; the pointer's node gets the first child's offset
//   Array   an array: of numbers (`type` is the element's), or of elements
//           (children, numbered [0], [1], ...)
//   other   a leaf: a number, bits, chars, string, pointer word, bytes,
//           reserved/padding, pool block, union, dictionary, data slice
//
// A node's path is its fields' names from the root (`data.events[3].hash`).
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace binschema {

enum class TraceKind : uint8_t {
  Struct, Number, Bits, Chars, String, Pointer, Array, Bytes, Padding, Pool, Union, Target, Dic, Data, Field,
};

inline const char* trace_kind_name(TraceKind k) {
  static const char* const names[] = {"struct", "number", "bits",   "chars",  "string", "pointer", "array", "bytes",
                                      "padding", "pool",  "union",  "target", "dic",    "data",    "field"};
  return names[static_cast<unsigned>(k)];
}

class Trace {
 public:
  static constexpr uint64_t kNone = ~uint64_t(0);
  static constexpr uint32_t kNoParent = ~uint32_t(0);

  struct Node {
    uint64_t off = 0, size = 0;
    uint64_t target = kNone;       // a pointer word: where its target starts
    uint32_t parent = kNoParent;
    uint32_t index = kNoParent;    // an element's index in its array
    TraceKind kind = TraceKind::Field;
    const char* name = nullptr;    // the field's name (static storage); null for elements and strings
    const char* type = nullptr;    // "u32", "cstring", a struct's name, a union case's name
  };

  std::vector<Node> nodes;
  bool big_endian = false;

  // A node with children: Struct, Target, Array, Union (closed by close()).
  void open(const char* name, TraceKind kind, uint64_t off, const char* type = nullptr) {
    // A struct read in place of an inline struct field: one node, the field's.
    if (!name && kind == TraceKind::Struct && !stack_.empty() && stack_.back().children == 0) {
      Node& f = nodes[stack_.back().node];
      if (f.kind == TraceKind::Field && f.off == off) {
        f.kind = TraceKind::Struct;
        f.type = type;
        stack_.push_back({stack_.back().node, 0, 0});
        return;
      }
    }
    Node n;
    n.off = off;
    n.kind = kind;
    n.name = name;
    n.type = type;
    attach(n);
    stack_.push_back({static_cast<uint32_t>(nodes.size()), 0, 0});
    nodes.push_back(n);
  }
  // Closes the innermost open node; `end` is where its bytes end (kNone: a
  // node without bytes of its own, a Target).
  void close(uint64_t end) {
    if (stack_.empty()) return;
    Node& n = nodes[stack_.back().node];
    stack_.pop_back();
    if (n.kind == TraceKind::Target) {
      n.size = 0;
      link(n);
      return;
    }
    n.size = end != kNone && end >= n.off ? end - n.off : 0;
  }
  void leaf(const char* name, TraceKind kind, uint64_t off, uint64_t size, const char* type = nullptr) {
    Node n;
    n.off = off;
    n.size = size;
    n.kind = kind;
    n.name = name;
    n.type = type;
    attach(n);
    nodes.push_back(n);
  }
  // Sets the type of the innermost open node (a union's case).
  void type(const char* t) {
    if (!stack_.empty()) nodes[stack_.back().node].type = t;
  }
  // After a decode that stopped with an error: closes what is still open.
  void finish() {
    while (!stack_.empty()) close(kNone);
  }

  // The path from the root: names joined by '.', elements as [i].
  std::string path(uint32_t i) const {
    std::vector<uint32_t> chain;
    for (uint32_t p = i; p != kNoParent; p = nodes[p].parent) chain.push_back(p);
    std::string s;
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
      const Node& n = nodes[*it];
      if (n.index != kNoParent) {
        s += "[" + std::to_string(n.index) + "]";
      } else if (n.name) {
        if (!s.empty()) s += '.';
        s += n.name;
      }
    }
    return s;
  }

 private:
  struct Open {
    uint32_t node;
    uint32_t elements;  // struct children so far (an array's element numbers)
    uint32_t children;
  };
  std::vector<Open> stack_;

  void attach(Node& n) {
    if (stack_.empty()) return;
    Open& p = stack_.back();
    n.parent = p.node;
    ++p.children;
    // An unnamed node under an array (a struct, a string) is its next element.
    if (!n.name && nodes[p.node].kind == TraceKind::Array) n.index = p.elements++;
  }
  // A Target starts at its first child; the pointer word of the same name in
  // the same struct points there.
  void link(Node& t) {
    const uint32_t self = static_cast<uint32_t>(&t - nodes.data());
    uint64_t first = kNone;
    for (uint32_t i = self + 1; i < nodes.size(); ++i)
      if (nodes[i].parent == self) {
        first = nodes[i].off;
        break;
      }
    t.off = first == kNone ? 0 : first;
    t.target = first;
    if (first == kNone || t.parent == kNoParent || !t.name) return;
    for (uint32_t i = self; i-- > t.parent + 1;) {
      Node& w = nodes[i];
      if (w.parent == t.parent && w.kind == TraceKind::Pointer && w.name && std::strcmp(w.name, t.name) == 0) {
        w.target = first;
        return;
      }
    }
  }
};

}  // namespace binschema
