#include "doctree.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>

namespace binschema::cli {

const Value* Value::get(std::string_view key) const {
  if (kind != Kind::Map) return nullptr;
  for (size_t i = 0; i < keys.size(); ++i)
    if (keys[i] == key) return &items[i];
  return nullptr;
}

Value to_value(text::Node n) {
  Value v;
  switch (n.kind()) {
    case text::NodeKind::Null:
      break;
    case text::NodeKind::Scalar:
      v.kind = Value::Kind::Scalar;
      v.text = std::string(n.scalar());
      break;
    case text::NodeKind::Seq:
      v.kind = Value::Kind::Seq;
      v.items.reserve(n.size());
      for (text::Node c : n.children()) v.items.push_back(to_value(c));
      break;
    case text::NodeKind::Map: {
      v.kind = Value::Kind::Map;
      bool is_key = true;
      for (text::Node c : n.children()) {
        if (is_key)
          v.keys.emplace_back(c.scalar());
        else
          v.items.push_back(to_value(c));
        is_key = !is_key;
      }
      break;
    }
  }
  return v;
}

namespace {

void json_string(std::string_view s, std::string& out) {
  out += '"';
  for (unsigned char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20 || c == 0x7f) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  out += '"';
}

void json(const Value& v, bool pretty, int depth, std::string& out) {
  auto newline = [&](int d) {
    if (!pretty) return;
    out += '\n';
    out.append(static_cast<size_t>(d) * 2, ' ');
  };
  switch (v.kind) {
    case Value::Kind::Null: out += "null"; break;
    case Value::Kind::Scalar: json_string(v.text, out); break;
    case Value::Kind::Seq:
      out += '[';
      for (size_t i = 0; i < v.items.size(); ++i) {
        if (i) out += ',';
        newline(depth + 1);
        json(v.items[i], pretty, depth + 1, out);
      }
      if (!v.items.empty()) newline(depth);
      out += ']';
      break;
    case Value::Kind::Map:
      out += '{';
      for (size_t i = 0; i < v.keys.size(); ++i) {
        if (i) out += ',';
        newline(depth + 1);
        json_string(v.keys[i], out);
        out += pretty ? ": " : ":";
        json(v.items[i], pretty, depth + 1, out);
      }
      if (!v.keys.empty()) newline(depth);
      out += '}';
      break;
  }
}

void flow(const Value& v, std::string& out, size_t max) {
  if (out.size() > max) return;
  switch (v.kind) {
    case Value::Kind::Null: out += "~"; break;
    case Value::Kind::Scalar:
      if (v.text.empty() || v.text.front() == ' ' || v.text.back() == ' ' ||
          v.text.find_first_of(",:{}[]\"\n") != std::string::npos)
        json_string(v.text, out);
      else
        out += v.text;
      break;
    case Value::Kind::Seq:
      out += '[';
      for (size_t i = 0; i < v.items.size() && out.size() <= max; ++i) {
        if (i) out += ", ";
        flow(v.items[i], out, max);
      }
      out += ']';
      break;
    case Value::Kind::Map:
      out += '{';
      for (size_t i = 0; i < v.keys.size() && out.size() <= max; ++i) {
        if (i) out += ", ";
        out += v.keys[i] + ": ";
        flow(v.items[i], out, max);
      }
      out += '}';
      break;
  }
}

// The field that keys the elements of these lists (all of them), "" when
// there is none: `name`, else `key`, when every element of every list is a
// map with that field as a scalar and no list holds a value twice.
std::string list_key(std::initializer_list<const Value*> lists) {
  size_t elements = 0;
  for (const Value* l : lists) elements += l->items.size();
  if (elements == 0) return "";
  for (const char* candidate : {"name", "key"}) {
    bool ok = true;
    for (const Value* l : lists) {
      std::set<std::string_view> seen;
      for (const Value& e : l->items) {
        const Value* k = e.get(candidate);
        if (!k || k->kind != Value::Kind::Scalar || !seen.insert(k->text).second) {
          ok = false;
          break;
        }
      }
      if (!ok) break;
    }
    if (ok) return candidate;
  }
  return "";
}

bool looks_like_number(std::string_view s) {
  size_t i = (!s.empty() && (s[0] == '-' || s[0] == '+')) ? 1 : 0;
  return i < s.size() && s[i] >= '0' && s[i] <= '9';
}

std::string key_segment(const std::string& key) {
  if (key.empty() || looks_like_number(key) || key.find_first_of("[]\"\n") != std::string::npos) {
    std::string q;
    json_string(key, q);
    return "[" + q + "]";
  }
  return "[" + key + "]";
}

// A map's key after the path: `.key`, or `["key"]` when the key would not
// read as one step of a path (empty, or with a dot, a bracket, a quote, a
// line break or spaces at its ends): a struct's field or a map entry by its
// key (map: in the schema: BFEVFL's events, AAMP's objects, BYML's keys).
std::string field_path(const std::string& path, const std::string& key) {
  const bool plain = !key.empty() && key.front() != ' ' && key.back() != ' ' &&
                     key.find_first_of(".[]\"\n") == std::string::npos;
  if (!plain) {
    std::string q;
    json_string(key, q);
    return path + "[" + q + "]";
  }
  if (path.empty() || path.back() == ':') return path + key;
  return path + "." + key;
}

const Value& element_key(const Value& e, const std::string& key) { return *e.get(key); }

// The elements of a keyed list by key.
std::map<std::string, const Value*> by_key(const Value& list, const std::string& key) {
  std::map<std::string, const Value*> m;
  for (const Value& e : list.items) m.emplace(element_key(e, key).text, &e);
  return m;
}

bool is_root_layout(const std::string& path, const std::string& key) {
  return (path.empty() || path.back() == ':') && key == "layout";
}

}  // namespace

std::string to_json(const Value& v, bool pretty) {
  std::string out;
  json(v, pretty, 0, out);
  return out;
}

std::string brief(const Value& v, size_t max) {
  std::string out;
  flow(v, out, max);
  if (out.size() > max) out = out.substr(0, max) + "...";
  return out;
}

void diff_values(const Value& a, const Value& b, const std::string& path, std::vector<Change>& out) {
  if (a == b) return;
  if (a.kind == Value::Kind::Map && b.kind == Value::Kind::Map) {
    for (size_t i = 0; i < a.keys.size(); ++i) {
      if (is_root_layout(path, a.keys[i])) continue;
      const Value* other = b.get(a.keys[i]);
      if (!other)
        out.push_back({Change::Kind::Removed, field_path(path, a.keys[i]), a.items[i], {}});
      else
        diff_values(a.items[i], *other, field_path(path, a.keys[i]), out);
    }
    for (size_t i = 0; i < b.keys.size(); ++i)
      if (!a.get(b.keys[i]) && !is_root_layout(path, b.keys[i]))
        out.push_back({Change::Kind::Added, field_path(path, b.keys[i]), {}, b.items[i]});
    return;
  }
  if (a.kind == Value::Kind::Seq && b.kind == Value::Kind::Seq) {
    const std::string key = list_key({&a, &b});
    if (!key.empty()) {
      const auto in_b = by_key(b, key);
      const auto in_a = by_key(a, key);
      for (const Value& e : a.items) {
        const std::string& k = element_key(e, key).text;
        auto it = in_b.find(k);
        if (it == in_b.end())
          out.push_back({Change::Kind::Removed, path + key_segment(k), e, {}});
        else
          diff_values(e, *it->second, path + key_segment(k), out);
      }
      for (const Value& e : b.items)
        if (!in_a.count(element_key(e, key).text))
          out.push_back({Change::Kind::Added, path + key_segment(element_key(e, key).text), {}, e});
      // The same elements in another order.
      std::vector<std::string> order_a, order_b;
      for (const Value& e : a.items)
        if (in_b.count(element_key(e, key).text)) order_a.push_back(element_key(e, key).text);
      for (const Value& e : b.items)
        if (in_a.count(element_key(e, key).text)) order_b.push_back(element_key(e, key).text);
      if (order_a != order_b) {
        Value before{Value::Kind::Seq, {}, {}, {}}, after = before;
        for (const auto& k : order_a) before.items.push_back({Value::Kind::Scalar, k, {}, {}});
        for (const auto& k : order_b) after.items.push_back({Value::Kind::Scalar, k, {}, {}});
        out.push_back({Change::Kind::Changed, path + "(order)", std::move(before), std::move(after)});
      }
      return;
    }
    const size_t common = std::min(a.items.size(), b.items.size());
    for (size_t i = 0; i < common; ++i) diff_values(a.items[i], b.items[i], path + "[" + std::to_string(i) + "]", out);
    for (size_t i = common; i < a.items.size(); ++i)
      out.push_back({Change::Kind::Removed, path + "[" + std::to_string(i) + "]", a.items[i], {}});
    for (size_t i = common; i < b.items.size(); ++i)
      out.push_back({Change::Kind::Added, path + "[" + std::to_string(i) + "]", {}, b.items[i]});
    return;
  }
  out.push_back({Change::Kind::Changed, path.empty() ? "(document)" : path, a, b});
}

namespace {

// One entry (a map's key, a keyed list's element) present or not in each side.
struct Slot {
  const Value* base = nullptr;
  const Value* ours = nullptr;
  const Value* theirs = nullptr;
};

// The merged entry, or nothing (removed). Conflicts keep OURS.
const Value* merge_slot(const Slot& s, const std::string& path, Value& merged, std::vector<Conflict>& conflicts) {
  auto conflict = [&] {
    Conflict c{path, s.base ? *s.base : Value{}, s.ours ? *s.ours : Value{}, s.theirs ? *s.theirs : Value{},
               !s.base, !s.ours, !s.theirs};
    conflicts.push_back(std::move(c));
  };
  if (s.ours && s.theirs) {
    if (s.base) {
      merged = merge_values(*s.base, *s.ours, *s.theirs, path, conflicts);
      return &merged;
    }
    if (!(*s.ours == *s.theirs)) conflict();  // added on both sides, differently
    return s.ours;
  }
  if (s.ours) {  // not in THEIRS
    if (!s.base) return s.ours;                   // added by OURS
    if (*s.ours == *s.base) return nullptr;       // removed by THEIRS
    conflict();                                   // changed by OURS, removed by THEIRS
    return s.ours;
  }
  if (s.theirs) {  // not in OURS
    if (!s.base) return s.theirs;                 // added by THEIRS
    if (*s.theirs == *s.base) return nullptr;     // removed by OURS
    conflict();                                   // removed by OURS, changed by THEIRS
    return nullptr;
  }
  return nullptr;  // removed by both
}

}  // namespace

Value merge_values(const Value& base, const Value& ours, const Value& theirs, const std::string& path,
                   std::vector<Conflict>& conflicts) {
  if (ours == theirs || theirs == base) return ours;
  if (ours == base) return theirs;
  using K = Value::Kind;
  if (base.kind == K::Map && ours.kind == K::Map && theirs.kind == K::Map) {
    Value out{K::Map, {}, {}, {}};
    std::vector<std::string> order = ours.keys;
    for (const std::string& k : theirs.keys)
      if (!ours.get(k) && !base.get(k)) order.push_back(k);
    for (const std::string& k : order) {
      if (is_root_layout(path, k)) {  // where OURS's writer put things
        out.keys.push_back(k);
        out.items.push_back(ours.get(k) ? *ours.get(k) : *theirs.get(k));
        continue;
      }
      Value merged;
      const Value* v = merge_slot({base.get(k), ours.get(k), theirs.get(k)}, field_path(path, k), merged, conflicts);
      if (!v) continue;
      out.keys.push_back(k);
      out.items.push_back(*v);
    }
    // Removed by OURS, changed by THEIRS: listed by merge_slot above only for
    // keys in `order`; keys of BASE that OURS dropped are checked here.
    for (const std::string& k : base.keys)
      if (!ours.get(k) && theirs.get(k) && !is_root_layout(path, k)) {
        Value unused;
        merge_slot({base.get(k), nullptr, theirs.get(k)}, field_path(path, k), unused, conflicts);
      }
    return out;
  }
  if (base.kind == K::Seq && ours.kind == K::Seq && theirs.kind == K::Seq) {
    const std::string key = list_key({&base, &ours, &theirs});
    if (!key.empty()) {
      const auto b = by_key(base, key), o = by_key(ours, key), t = by_key(theirs, key);
      auto find = [](const std::map<std::string, const Value*>& m, const std::string& k) -> const Value* {
        auto it = m.find(k);
        return it == m.end() ? nullptr : it->second;
      };
      std::vector<std::string> order;
      for (const Value& e : ours.items) order.push_back(element_key(e, key).text);
      for (const Value& e : theirs.items) {
        const std::string& k = element_key(e, key).text;
        if (!o.count(k) && !b.count(k)) order.push_back(k);
      }
      for (const Value& e : base.items) {  // removed by OURS: a conflict if THEIRS changed it
        const std::string& k = element_key(e, key).text;
        if (!o.count(k) && t.count(k)) order.push_back(k);
      }
      Value out{K::Seq, {}, {}, {}};
      for (const std::string& k : order) {
        Value merged;
        const Value* v = merge_slot({find(b, k), find(o, k), find(t, k)}, path + key_segment(k), merged, conflicts);
        if (v) out.items.push_back(*v);
      }
      return out;
    }
    if (base.items.size() == ours.items.size() && base.items.size() == theirs.items.size()) {
      Value out{K::Seq, {}, {}, {}};
      for (size_t i = 0; i < base.items.size(); ++i)
        out.items.push_back(merge_values(base.items[i], ours.items[i], theirs.items[i],
                                         path + "[" + std::to_string(i) + "]", conflicts));
      return out;
    }
  }
  conflicts.push_back({path.empty() ? "(document)" : path, base, ours, theirs, false, false, false});
  return ours;
}

}  // namespace binschema::cli
