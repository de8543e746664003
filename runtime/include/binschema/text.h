// Text form of a model: YAML or JSON out, YAML (which includes JSON) in.
//
// Generated code describes each struct once, in visit_fields(v, x), calling
// v.field("name", x.name, flags) per model field; Out and In below turn that
// one description into printing and parsing. Structs are found through ADL
// (visit_fields lives beside the struct), unions are std::variant subclasses
// that carry their case names, so nothing here knows any format.
#pragma once

#include <array>
#include <charconv>
#include <limits>
#include <cmath>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <stdexcept>
#include <type_traits>
#include <deque>
#include <unordered_map>
#include <variant>
#include <vector>

#include "binschema/box.h"
#include "binschema/error.h"
#include "binschema/layout.h"
#include "binschema/model.h"
#include "binschema/text_doc.h"

namespace binschema {

// Yaml and Json: the text. Events: no text; the document's events go to the
// calling thread's text::event_sink() and the text returned is empty (for
// bindings that build values of their own: the Python module, python/).
enum class TextKind { Yaml, Json, Events };

namespace text {

enum Flags : unsigned {
  kNone = 0,
  kHex = 1,   // shown in hex, zero-padded to the field's width
  kBool = 2,  // an integer shown as false/true while it holds 0/1 (any other value as a number)
};

// A named value of an integer field (the schema's enum:).
struct EnumValue {
  int64_t value;
  const char* name;
};

// How a field is spelt in text beyond its type (docs/schema-language.md,
// "References, enums and hash names"). Generated code passes kHex alone, or
// a constexpr Spell per field that has names.
struct Spell {
  unsigned flags = kNone;
  const EnumValue* enum_values = nullptr;  // enum: these names stand for these values
  size_t enum_count = 0;
  const char* enum_name = nullptr;         // the enum's name, for messages
  // ref: the value is an index into the array of that name in an enclosing
  // struct ("events"), or into an array held by an element of one
  // ("actors.actions", the element chosen by the sibling field `via`);
  // shown and read as the element's key.
  const char* ref = nullptr;
  const char* via = nullptr;
  // hash_of: the value is this hash ("fnv1a32", "murmur3") of a name;
  // shown as the name when the name list knows it, read from a name.
  const char* hash = nullptr;
  // map: an array of structs (or of unions whose cases are structs) shown as
  // a map keyed by the text of this element field, in the array's order.
  const char* map = nullptr;
};

inline constexpr Spell kHexSpell{kHex};

// Names whose hashes `hash_of:` fields show (binschema decode --names FILE).
// Set before decoding; read by any number of threads afterwards.
void set_known_names(const std::vector<std::string>& names);
// Whether decoding shows every integer as a number (binschema decode
// --numbers): no enum, reference or hash names, no true/false for format:
// bool. Set before decoding, like the name list.
void set_numbers_only(bool on);
bool numbers_only();
// The known name whose `algo` hash is `value`, or nullptr.
const std::string* known_name(const char* algo, uint64_t value);
// The `algo` hash of a name (nullopt for an unknown algorithm).
std::optional<uint64_t> hash_name(const char* algo, std::string_view name);
// The names a document shows for the hashes of its hash_of: fields beyond
// the run-time name list (set_known_names): those its own strings prove (a
// string whose hash is the field's value names it: AAMP keeps many of its
// key names among its string values), then the format's default list (the
// schema's names: FILE). Generated to_text passes the format's HashNames.
struct HashNames {
  const char* const* defaults = nullptr;  // the schema's names: list
  size_t count = 0;
  const char* const* algos = nullptr;  // the algorithms of its hash_of: fields
  size_t algo_count = 0;
};
class DocNames {
 public:
  explicit DocNames(const HashNames& h);
  // A string of the document: it names its hashes (before any default).
  void prove(std::string_view s);
  // Then the defaults (a name already there for a hash is kept).
  void add_defaults();
  const std::string* find(const char* algo, uint64_t value) const;

 private:
  const HashNames& h_;
  std::vector<std::unordered_map<uint64_t, std::string>> by_algo_;  // as h_.algos
};

// A key that can stand in text for an index or a number: not empty, and not
// starting like a number (a digit, or '-' or '+' and a digit), nor a YAML
// word for null or a boolean.
bool is_name_spelling(std::string_view key);

// Strings by their text without a heap node per string (std::unordered_map
// makes one): an open-addressing table of indices into the caller's list.
// For repeated keys in a map and the names references point to.
class KeyIndex {
 public:
  static constexpr uint32_t kNone = UINT32_MAX;
  // Empties it for up to n strings.
  void reset(size_t n) {
    size_t cap = 16;
    while (cap < 2 * n) cap <<= 1;
    slots_.assign(cap, kNone);
  }
  // Adds string i (text `key`; text(j) gives string j's): the index of an
  // earlier string with the same text, or kNone when there is none (i added).
  template <class Text>
  uint32_t insert(std::string_view key, uint32_t i, Text&& text) {
    for (size_t m = slots_.size() - 1, h = hash(key) & m;; h = (h + 1) & m) {
      if (slots_[h] == kNone) {
        slots_[h] = i;
        return kNone;
      }
      if (text(slots_[h]) == key) return slots_[h];
    }
  }
  // The string with the text `key` (the first added), or kNone.
  template <class Text>
  uint32_t find(std::string_view key, Text&& text) const {
    if (slots_.empty()) return kNone;
    for (size_t m = slots_.size() - 1, h = hash(key) & m;; h = (h + 1) & m) {
      if (slots_[h] == kNone) return kNone;
      if (text(slots_[h]) == key) return slots_[h];
    }
  }

 private:
  static size_t hash(std::string_view s) {
    uint64_t h = 14695981039346656037ull;  // FNV-1a
    for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
    return static_cast<size_t>(h ^ h >> 29);
  }
  std::vector<uint32_t> slots_;
};

// The key of each element of an array that references point into, and the
// key lists of arrays its elements hold (for "actors.actions").
struct NameTable {
  std::string array;
  std::vector<std::string> keys;
  std::vector<int> marks;  // In: the line of each key (for duplicate messages), -1 if none
  std::vector<int> cols;
  std::vector<std::pair<std::string, std::vector<std::vector<std::string>>>> subs;
  // A composite key (key: [name, sub_name]): the key field, the further
  // fields, and each element's values of them (also_keys[i][j] for also[j]).
  // An element whose key alone is not unique is named by all of them.
  std::string key_field;
  std::vector<std::string> also;
  std::vector<std::vector<std::string>> also_keys;
  // The index that `key` names: -1 if none, -2 if more than one element has it.
  int64_t find(std::string_view key, int64_t* second = nullptr, int64_t* first = nullptr) const;
  // Whether keys[i] can be shown for index i: a name spelling, unique.
  bool shows(size_t i) const;
  // The index that the key and the further keys `more` (one per also) name
  // together: -1 if none, -2 if more than one element has them all.
  int64_t find_all(std::string_view key, const std::vector<std::string>& more, int64_t* second = nullptr,
                   int64_t* first = nullptr) const;
  // Whether index i can be shown by its key and further keys together: the
  // table has further keys, and no other element has the same values of all
  // of them (every one valid UTF-8).
  bool shows_all(size_t i) const;

 private:
  void index() const;
  std::string joined(size_t i) const;
  // Built on first use by find() and shows(), for the keys at indexed_for_.
  mutable const std::string* indexed_for_ = nullptr;
  mutable KeyIndex index_;  // key -> its first index
  mutable std::vector<uint8_t> repeated_;  // per index: another element has its key
  mutable std::vector<uint8_t> shown_;
  // Built on first use by find_all() and shows_all(): all keys joined -> index, -2 if repeated.
  mutable std::unordered_map<std::string, int64_t> all_index_;
  mutable bool all_indexed_ = false;
};

template <class T>
concept Union = requires { T::case_names; };

// Plain and CaseText (a bare union's case_text): binschema/model.h.
template <class T>
concept BareUnion = Union<T> && requires { T::case_text; };
// The kind of a node without a tag: a quoted scalar is a String; a plain one
// an Int ("5", "-3", "0x1f"), a Float ("1.5", "1e3", ".inf", ".nan",
// ".nan:0x7fa00001"), a Bool (true/false), else a String; null a Null; a
// list a List; a map a Map.
Plain plain_kind(Node n);
// Whether a node's tag (Node::tag: "!!x" is "tag:yaml.org,2002:x") is the tag
// a schema spells `spelt`.
bool tag_is(std::string_view node_tag, std::string_view spelt);
// A node's tag as a schema spells it ("!!binary" for "tag:yaml.org,2002:binary").
std::string tag_spelling(std::string_view node_tag);
// The plain kind whose YAML standard tag (!!int, !!float, !!str, !!bool,
// !!null, !!seq, !!map) a node's tag is, or Tagged for any other tag.
Plain standard_tag(std::string_view node_tag);
const char* plain_name(Plain p);
// A struct shown as the value of its one model field (the schema's
// `unwrap: true`): generated code declares unwrapped_in_text for it.
template <class T>
concept Unwrapped = requires(const T& t) { unwrapped_in_text(t); };

inline bool same_name(const char* a, const char* b) { return a == b || (a && b && std::string_view(a) == b); }

// What a map entry shows besides its key (map: on an array): how many
// other fields the element's visit_fields declares, and whether one of them
// is conditional (if:). One field that is always there is shown bare, as
// the entry's value; anything else as a map of those fields.
struct EntryShape {
  const char* key;
  size_t others = 0;
  bool conditional = false;
  template <class T>
  void field(const char* n, const T&, const Spell& = {}) { others += !same_name(n, key); }
  template <class T, class D>
  void field_default(const char* n, const T& v, const D&, const Spell& s = {}) { field(n, v, s); }
  template <class T, class C>
  void field_if(const char* n, const T&, C&&, const char*, const Spell& = {}) {
    if (same_name(n, key)) return;
    ++others;
    conditional = true;
  }
  bool bare() const { return others == 1 && !conditional; }
};

template <class T>
struct is_vector : std::false_type {};
template <class T>
struct is_vector<std::vector<T>> : std::true_type {};
template <class T>
struct is_optional : std::false_type {};
template <class T>
struct is_optional<std::optional<T>> : std::true_type {};
template <class T>
struct is_array : std::false_type {};
template <class T, size_t N>
struct is_array<std::array<T, N>> : std::true_type {};

// Shortest text that reads back to the same bits: "1.5", "-0.0", ".inf",
// ".nan" (the default quiet NaN) or ".nan:0x7fa00001" (any other NaN, its
// bits in hex, sign included).
std::string format_float(float v);
std::string format_float(double v);
// Whether format_float's text is not a JSON number (then JSON quotes it).
bool float_is_text(double v);
std::string format_int(uint64_t magnitude, bool negative, bool hex);
// Hex zero-padded to `digits` (a field's width: 8 for a u32).
std::string format_int(uint64_t magnitude, bool negative, bool hex, unsigned digits);
std::string to_hex(const std::vector<uint8_t>& b);
std::string to_hex(std::string_view b);
// The value of a hex digit (either case), -1 for any other character.
int hex_digit(char c);
// Strict UTF-8: no overlong forms, no surrogates, nothing past U+10FFFF.
bool is_utf8(std::string_view s);

// Limits on text input (see docs/schema-language.md, "Text form").
// A model read from text may hold at most kTextBudgetFactor x (the furthest
// position in the text the reader has seen) + kTextBudgetSlack nodes and
// string bytes: aliases that expand a small document into a huge model
// (a "billion laughs") are refused, naming the node where the limit was hit.
inline constexpr uint64_t kTextBudgetFactor = 4;
inline constexpr uint64_t kTextBudgetSlack = 64 * 1024;
// Lists and maps nested deeper than this are refused while parsing.
inline constexpr int kTextMaxDepth = 500;  // yaml-cpp's own guard

// Parsing a document: load() in binschema/text_doc.h.

// ---- Output ---------------------------------------------------------------

// Event sink for YAML, written straight into one string: block style, two
// spaces of indentation, flow style where asked. The text is byte for byte
// what yaml-cpp's emitter (YAML::Emitter, SetIndent(2)) writes for the same
// events, which is what this sink used before (runtime_test compares them).
class YamlSink {
 public:
  void begin_map(bool flow = false) { open(true, flow); }
  void end_map() { close(); }
  void key(const char* k) { key(std::string_view(k)); }
  // A map entry's key (map:): a number plain, a string plain when that
  // reads back as the same string (and holds no space), double-quoted otherwise.
  void key_text(const std::string& k, bool number);
  void begin_seq(bool flow) { open(false, flow); }
  void end_seq() { close(); }
  // A YAML tag ("!u") for the next value (a list or map after it is written
  // in flow style, on its line).
  void tag(const char* t) { tag_ = t; }
  void null() { scalar("~"); }
  void boolean(bool b) { scalar(b ? "true" : "false"); }
  void number(const std::string& s, bool) { scalar(s); }
  // Valid UTF-8 only (Out writes other strings as {bytes: hex}). Plain when
  // that surely reads back as the same string, double-quoted otherwise.
  void string(const std::string& s);
  // The document (call once: the text is moved out).
  std::string result() {
    out_ += '\n';
    return std::move(out_);
  }

 private:
  // Where a value stands: the top, after a block map's key, after a block
  // sequence's dash, or inside a flow collection.
  enum class At : char { Top, Key, Dash, Flow };
  struct Level {
    bool map;
    bool flow;
    At at;            // where the collection itself stands
    unsigned indent;  // of its entries (block)
    size_t count = 0;
  };
  void key(std::string_view k);
  At before_value();
  // The space after "key:" or "-", and a pending tag.
  void lead(At at);
  void scalar(std::string_view s);
  void open(bool map, bool flow);
  void close();
  void newline(unsigned indent);
  std::string out_;
  std::vector<Level> stack_;
  const char* tag_ = nullptr;
};

// Event sink for JSON (two-space indentation, arrays of numbers on one line).
class JsonSink {
 public:
  void begin_map(bool flow = false) { open('{', flow); }
  void end_map() { close('}'); }
  void key(const char* k);
  // A map entry's key (map:): always a JSON string.
  void key_text(const std::string& k, bool) {
    before_value();
    quoted(k);
    out_ += ": ";
    after_key_ = true;
  }
  void begin_seq(bool flow) { open('[', flow); }
  void end_seq() { close(']'); }
  void null() { scalar("null"); }
  void boolean(bool b) { scalar(b ? "true" : "false"); }
  void number(const std::string& s, bool is_text_in_json);
  void string(const std::string& s);
  // The document (call once: the text is moved out).
  std::string result() {
    out_ += '\n';
    return std::move(out_);
  }

 private:
  struct Level {
    bool flow;
    size_t count = 0;
  };
  void open(char c, bool flow);
  void close(char c);
  void scalar(const std::string& s);
  void quoted(const std::string& s);
  void before_value();
  void newline();
  std::string out_;
  std::vector<Level> stack_;
  bool after_key_ = false;
};

// What TextKind::Events sends a document to: the calls YamlSink and JsonSink
// receive, one virtual call each (only on this path; the text sinks stay
// plain classes). number() gets the text of the number and whether JSON
// quotes it (integers shown in hex, .inf, .nan).
class EventSink {
 public:
  virtual ~EventSink() = default;
  virtual void begin_map(bool flow) = 0;
  virtual void end_map() = 0;
  virtual void key(const char* k) = 0;
  // A map entry's key (map:); a number's key is its text.
  virtual void key_text(const std::string& k, bool /*number*/) { key(k.c_str()); }
  virtual void begin_seq(bool flow) = 0;
  virtual void end_seq() = 0;
  virtual void null() = 0;
  virtual void boolean(bool b) = 0;
  virtual void number(const std::string& s, bool is_text_in_json) = 0;
  virtual void string(const std::string& s) = 0;
  // An integer of a model (its magnitude and sign; `hex`: shown in hex, in
  // `digits` digits): by default its text, to number(). A sink that wants
  // the value (Python's ints) takes it without printing and parsing.
  virtual void integer(uint64_t magnitude, bool negative, bool hex, unsigned digits) {
    number(format_int(magnitude, negative, hex, digits), hex);
  }
  // Whether the sink takes YAML tags (tag() before the value, as YamlSink);
  // by default a tagged value comes as JSON writes it, the map {"!tag": value}.
  virtual bool tags() const { return false; }
  virtual void tag(const char* /*t*/) {}
};
// The calling thread's sink for TextKind::Events (set it around the call;
// to_document throws std::logic_error when it is not set).
inline EventSink*& event_sink() {
  thread_local EventSink* sink = nullptr;
  return sink;
}
// The sink to_document writes through: YAML, JSON or events, chosen when it
// is made. Out, and with it a model's whole text-writing code, is then
// compiled once per model rather than once per sink (each instantiation
// was a sixth of a format's object code); each event costs one call more,
// out of line, that dispatches on the kind.
class DocSink {
 public:
  explicit DocSink(YamlSink& s) : kind_(Kind::Yaml), yaml_(&s) {}
  explicit DocSink(JsonSink& s) : kind_(Kind::Json), json_(&s) {}
  explicit DocSink(EventSink& s) : kind_(Kind::Events), events_(&s) {}
  // YAML writes a tagged value with its tag; JSON as the map {"!tag":
  // value}; an EventSink as it says (EventSink::tags()).
  bool tags() const { return kind_ == Kind::Yaml || (kind_ == Kind::Events && events_->tags()); }
  void tag(const char* t);  // tags() only
  void begin_map(bool flow = false);
  void end_map();
  void key(const char* k);
  void key_text(const std::string& k, bool number);
  void begin_seq(bool flow);
  void end_seq();
  void null();
  void boolean(bool b);
  void number(const std::string& s, bool is_text_in_json);
  void string(const std::string& s);
  void integer(uint64_t magnitude, bool negative, bool hex, unsigned digits);
  std::string result();  // the text (events: empty)

 private:
  enum class Kind : uint8_t { Yaml, Json, Events };
  // f(sink) on the sink of this kind (each has the calls above).
  template <class F>
  void send(F&& f);
  Kind kind_;
  union {
    YamlSink* yaml_;
    JsonSink* json_;
    EventSink* events_;
  };
};

// Grabs the key field (a string) and the string lists named `subs` of one
// element, through visit_fields (for NameTable).
struct KeyGrab {
  const char* key;
  const std::vector<const char*>* subs;
  std::string found;
  std::vector<std::vector<std::string>> lists;
  const std::vector<const char*>* also = nullptr;  // further key fields (key: [name, sub_name])
  std::vector<std::string> also_found{};
  template <class T>
  void field(const char* n, const T& v, const Spell& = {}) {
    if constexpr (std::is_same_v<T, std::string>) {
      if (std::string_view(n) == key) found = v;
      if (also)
        for (size_t i = 0; i < also->size(); ++i)
          if (std::string_view(n) == (*also)[i]) also_found[i] = v;
    } else if constexpr (std::is_same_v<T, std::vector<std::string>>) {
      for (size_t i = 0; i < subs->size(); ++i)
        if (std::string_view(n) == (*subs)[i]) lists[i] = v;
    }
  }
  template <class T, class D>
  void field_default(const char* n, const T& v, const D&, const Spell& s = {}) { field(n, v, s); }
};

// Looks up the table of a Spell's ref: the innermost table of that array.
const NameTable* find_table(const std::vector<NameTable>& tables, std::string_view array);

template <class Sink>
class Out {
 public:
  // The first frame of integers holds the root's (context: values).
  explicit Out(Sink& sink, const DocNames* doc_names = nullptr) : sink_(sink), doc_names_(doc_names) { int_frames_.push_back(0); }


  template <class T>
  void field(const char* name, const T& v, const Spell& spell = {}) {
    if (shape_.skip && same_name(name, shape_.skip)) {
      // A map entry's key: shown as the entry's key, not among its fields.
    } else if (shape_.bare) {
      value(v, spell);  // the one field of an unwrapped struct or a map entry's value
    } else {
      sink_.key(name);
      value(v, spell);
    }
    if constexpr (std::is_integral_v<T>) ints_.emplace_back(name, static_cast<int64_t>(v));
  }
  // Fields equal to their schema default are left out of the text.
  template <class T, class D>
  void field_default(const char* name, const T& v, const D& def, const Spell& spell = {}) {
    if (v == static_cast<T>(def) && !shape_.bare) {
      if constexpr (std::is_integral_v<T>) ints_.emplace_back(name, static_cast<int64_t>(v));
      return;
    }
    field(name, v, spell);
  }
  // A field with if: is left out of the text while its condition is false.
  template <class T, class C>
  void field_if(const char* name, const T& v, C&& cond, const char*, const Spell& spell = {}) {
    if (!cond()) {
      if constexpr (std::is_integral_v<T>) ints_.emplace_back(name, static_cast<int64_t>(v));
      return;
    }
    field(name, v, spell);
  }
  // A context: value (a number field of the root) for an if: of a nested struct.
  uint64_t context(const char* name) const {
    const size_t end = int_frames_.size() > 1 ? int_frames_[1] : ints_.size();
    for (size_t i = 0; i < end; ++i)
      if (same_name(ints_[i].first, name)) return static_cast<uint64_t>(ints_[i].second);
    return 0;
  }

  // An array that references point into (generated visit_fields calls it
  // through text::names before the fields): its elements' keys.
  template <class E>
  void names(const char* array, const std::vector<E>& elems, const char* key, std::vector<const char*> subs = {},
             std::vector<const char*> also = {}) {
    NameTable t;
    t.array = array;
    t.key_field = key;
    for (const char* a : also) t.also.emplace_back(a);
    for (const char* sname : subs) t.subs.emplace_back(sname, std::vector<std::vector<std::string>>{});
    for (const auto& e : elems) {
      if constexpr (std::is_same_v<E, std::string>) {
        t.keys.push_back(e);
      } else {
        KeyGrab g{key, &subs, {}, std::vector<std::vector<std::string>>(subs.size()), &also,
                  std::vector<std::string>(also.size())};
        visit_fields(g, e);
        t.keys.push_back(std::move(g.found));
        for (size_t i = 0; i < subs.size(); ++i) t.subs[i].second.push_back(std::move(g.lists[i]));
        if (!also.empty()) t.also_keys.push_back(std::move(g.also_found));
      }
    }
    tables_.push_back(std::move(t));
  }

  template <class T>
  void value(const T& v, const Spell& spell = {}) {
    // A bare union's map case marks the map: array it is shown as (map_case_):
    // the mark passes through a Box, an optional and an unwrapped struct to
    // that array; anything else written first drops it.
    bool map_case = map_case_;
    if constexpr (!is_box<T>::value && !is_optional<T>::value && !Unwrapped<T>) map_case_ = false;
    if constexpr (std::is_same_v<T, bool>) {
      sink_.boolean(v);
    } else if constexpr (std::is_integral_v<T>) {
      if ((spell.flags & ~kHex) || spell.enum_count || spell.ref || spell.hash)
        if (!numbers_only() && named(static_cast<int64_t>(v), spell)) return;
      bool neg = std::is_signed_v<T> && v < 0;
      uint64_t mag = neg ? uint64_t(0) - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
      const bool hex = spell.flags & kHex;
      if constexpr (requires { sink_.integer(mag, neg, hex, 2u); })
        sink_.integer(mag, neg, hex, 2 * sizeof(T));
      else
        sink_.number(format_int(mag, neg, hex, 2 * sizeof(T)), hex);
    } else if constexpr (std::is_floating_point_v<T>) {
      sink_.number(format_float(v), float_is_text(v));
    } else if constexpr (std::is_same_v<T, std::string>) {
      if (is_utf8(v)) {
        sink_.string(v);
      } else {
        // Bytes that are not UTF-8 have no text spelling that survives every
        // reader: they are kept as hex (see "Text form" in the schema docs).
        sink_.begin_map(true);
        sink_.key("bytes");
        sink_.string(to_hex(v));
        sink_.end_map();
      }
    } else if constexpr (std::is_same_v<T, Bytes>) {
      sink_.string(to_hex(v.data));
    } else if constexpr (is_optional<T>::value) {
      if (v) value(*v, spell); else sink_.null();
    } else if constexpr (is_box<T>::value) {
      value(*v, spell);
    } else if constexpr (is_vector<T>::value || is_array<T>::value) {
      using E = typename T::value_type;
      if constexpr (is_vector<T>::value && std::is_class_v<E>)
        if (spell.map && as_map(v, spell.map, map_case)) return;
      // A map: array shown as a list, as a bare union's map case: marked, as
      // the list would read back as the union's list case.
      map_case = map_case && spell.map;
      if (map_case) begin_map_mark();
      bool flow = std::is_arithmetic_v<E> || v.empty();
      if constexpr (BareUnion<E>) flow = flow || scalar_elems(v);
      sink_.begin_seq(flow);
      for (const auto& e : v) value(e, spell);
      sink_.end_seq();
      if (map_case) end_map_mark();
    } else if constexpr (BareUnion<T>) {
      const CaseText& ct = T::case_text[v.index()];
      std::visit([&](const auto& alt) { bare_case(alt, ct, spell); }, static_cast<const typename T::Base&>(v));
    } else if constexpr (Union<T>) {
      sink_.begin_map();
      sink_.key(T::case_names[v.index()]);
      std::visit([&](const auto& alt) { value(alt, spell); },
                 static_cast<const typename T::Base&>(v));
      sink_.end_map();
    } else if constexpr (Unwrapped<T>) {
      fields(v, Shape{nullptr, true});
    } else {
      sink_.begin_map();
      fields(v, Shape{});
      sink_.end_map();
    }
  }

  // A list of a bare union's values that are all numbers, bools or nulls, or
  // short strings (BYML's vectors, oead's flow lists): one line, in flow style.
  template <class V>
  static bool scalar_elems(const V& v) {
    size_t text = 0;
    for (const auto& e : v) {
      bool ok = true;
      std::visit(
          [&](const auto& alt) {
            using A = std::decay_t<decltype(alt)>;
            if constexpr (std::is_same_v<A, std::string>) text += alt.size() + 2;
            else if constexpr (!std::is_arithmetic_v<A>) ok = false;
          },
          static_cast<const typename std::decay_t<decltype(e)>::Base&>(e));
      if (!ok || text > 60) return false;
    }
    return true;
  }

  // A case of a bare union: its payload (or the one field of a struct
  // payload) alone, with the case's tag if it has one.
  template <class A>
  void bare_case(const A& alt, const CaseText& ct, const Spell& spell) {
    if constexpr (requires { A::type_name; }) {
      if (ct.unwrap) {
        One one{this, &ct};
        visit_fields(one, alt);
        return;
      }
    }
    bare_plain(alt, ct, spell);
  }
  // Visits the one model field of a struct payload.
  struct One {
    Out* out;
    const CaseText* ct;
    template <class F>
    void field(const char*, const F& x, const Spell& s = {}) { out->bare_plain(x, *ct, s); }
    template <class F, class D>
    void field_default(const char*, const F& x, const D&, const Spell& s = {}) { out->bare_plain(x, *ct, s); }
  };
  template <class X>
  void bare_plain(const X& x, const CaseText& ct, const Spell& spell) {
    const bool yaml = tags();
    const char* tag = ct.tag;
    if (ct.plain == Plain::Null) {
      if (x == X{}) {
        sink_.null();
        return;
      }
      tag = "!!null";  // a value where the format has none: kept, tagged
    }
    if constexpr (std::is_floating_point_v<X>)
      if (!yaml && ct.plain == Plain::Float && float_is_text(x)) tag = "!!float";  // JSON quotes .inf: a string
    if constexpr (std::is_same_v<X, std::string>)
      if (ct.plain == Plain::String && !is_utf8(x)) tag = "!!str";  // {bytes: HEX}: a map
    if (ct.plain == Plain::Map) {
      // The map: array this case shows marks itself where its text would
      // read back as another case (as_map, value).
      map_case_ = true;
      value(x, spell);
      map_case_ = false;
    } else if (!tag) {
      value(x, spell);
    } else if (yaml) {
      tag_next(tag);
      value(x, spell);
    } else {
      sink_.begin_map(true);  // JSON: {"!u": 5}
      sink_.key(tag);
      value(x, spell);
      sink_.end_map();
    }
  }

  // The text of an element's key field (map:): false when it has none that
  // reads back (a string that is not UTF-8).
  template <class T>
  bool key_text(const T& v, const Spell& spell, std::string& out, bool& number) {
    if constexpr (std::is_same_v<T, bool>) {
      out = v ? "true" : "false";
      number = true;
      return true;
    } else if constexpr (std::is_integral_v<T>) {
      bool is_bool = false;
      if ((spell.flags & ~kHex) || spell.enum_count || spell.ref || spell.hash)
        if (!numbers_only() && name_text(static_cast<int64_t>(v), spell, out, is_bool)) {
          number = is_bool;
          return true;
        }
      const bool neg = std::is_signed_v<T> && v < 0;
      const uint64_t mag = neg ? uint64_t(0) - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
      out = format_int(mag, neg, spell.flags & kHex, 2 * sizeof(T));
      number = true;
      return true;
    } else if constexpr (std::is_same_v<T, std::string>) {
      out = v;
      number = false;
      return is_utf8(v);
    } else {
      return false;  // the validator allows numbers and strings only
    }
  }

 private:
  // How the fields of the struct being visited are shown: `skip` is a map
  // entry's key field (shown as the key), `bare` shows the one other field
  // as a value, without its name.
  struct Shape {
    const char* skip = nullptr;
    bool bare = false;
  };

  // A struct's fields in the current collection, shaped so.
  template <class T>
  void fields(const T& v, Shape shape) {
    const Shape saved = shape_;
    shape_ = shape;
    const size_t mark = tables_.size();
    int_frames_.push_back(ints_.size());
    visit_fields(*this, v);
    ints_.resize(int_frames_.back());
    int_frames_.pop_back();
    tables_.resize(mark);
    shape_ = saved;
  }

  // Reaches a struct through a Box.
  template <class T>
  static const auto& unboxed(const T& v) {
    if constexpr (is_box<T>::value) return *v;
    else return v;
  }

  // Grabs the text of an element's key field (as_map).
  struct KeyOut {
    Out& out;
    const char* key;
    std::string& text;
    bool& number;
    bool& ok;
    template <class T>
    void field(const char* n, const T& v, const Spell& s = {}) {
      if (same_name(n, key)) ok = out.key_text(v, s, text, number);
    }
    template <class T, class D>
    void field_default(const char* n, const T& v, const D&, const Spell& s = {}) { field(n, v, s); }
  };

  // The key text of an element (a struct, or a union's struct case).
  template <class E>
  bool element_key(const E& e, const char* key, std::string& out, bool& number) {
    if constexpr (Union<E>) {
      return std::visit([&](const auto& alt) { return element_key(unboxed(alt), key, out, number); },
                        static_cast<const typename E::Base&>(e));
    } else if constexpr (requires { E::type_name; }) {
      bool ok = false;
      KeyOut grab{*this, key, out, number, ok};
      visit_fields(grab, e);
      return ok;
    } else {
      return false;
    }
  }

  // One map entry's value: the element's fields but the key (the one other
  // field bare), a union's case name around them.
  template <class E>
  void entry_value(const E& e, const char* key) {
    if constexpr (Union<E>) {
      sink_.begin_map();
      sink_.key(E::case_names[e.index()]);
      std::visit([&](const auto& alt) { entry_value(unboxed(alt), key); }, static_cast<const typename E::Base&>(e));
      sink_.end_map();
    } else if constexpr (requires { E::type_name; }) {
      EntryShape shape{key};
      visit_fields(shape, e);
      if (shape.bare()) {
        fields(e, Shape{key, true});
      } else {
        sink_.begin_map();
        fields(e, Shape{key, false});
        sink_.end_map();
      }
    }
  }

  // The mark of a bare union's map case whose text would read back as
  // another case (docs/schema-language.md, "Values without wrappers"): the
  // tag !!map in YAML, {"!!map": ...} around it in JSON.
  void begin_map_mark() {
    if (tags()) {
      tag_next("!!map");
    } else {
      sink_.begin_map(false);
      sink_.key("!!map");
    }
  }
  void end_map_mark() {
    if (!tags()) sink_.end_map();
  }

  // map: the elements as a map keyed by their key fields' text, in order;
  // false (shown as a list) when a key has no text or two elements share one.
  // `map_case`: the map is a bare union's map case, marked when it has one
  // key that starts with '!' (it would read back as a tagged value's JSON
  // form, {"!u": 5}).
  template <class E>
  bool as_map(const std::vector<E>& v, const char* key, bool map_case = false) {
    // The keys' text in vectors kept per level of maps inside maps' entries
    // (no allocation per map once the first ones have been written).
    if (key_depth_ == key_pool_.size()) key_pool_.emplace_back();
    // (Plain references, not a structured binding: clang 14 refuses a
    // lambda that captures one, as the duplicate check below does.)
    std::vector<std::string>& keys = key_pool_[key_depth_].first;
    std::vector<uint8_t>& numbers = key_pool_[key_depth_].second;
    struct Level {
      size_t& depth;
      ~Level() { --depth; }
    } level{++key_depth_};
    if (keys.size() < v.size()) keys.resize(v.size());
    numbers.assign(v.size(), 0);
    for (size_t i = 0; i < v.size(); ++i) {
      bool number = false;
      if (!element_key(unboxed(v[i]), key, keys[i], number)) return false;
      numbers[i] = number;
    }
    // Two elements with one key: a hash table for many, the keys before for a few.
    if (v.size() <= 8) {
      for (size_t i = 1; i < v.size(); ++i)
        for (size_t j = 0; j < i; ++j)
          if (keys[i] == keys[j]) return false;
    } else {
      seen_.reset(v.size());
      for (size_t i = 0; i < v.size(); ++i)
        if (seen_.insert(keys[i], static_cast<uint32_t>(i), [&](uint32_t j) -> std::string_view { return keys[j]; }) !=
            KeyIndex::kNone)
          return false;
    }
    const bool mark = map_case && v.size() == 1 && !keys[0].empty() && keys[0][0] == '!';
    if (mark) begin_map_mark();
    sink_.begin_map(v.empty() || scalar_entries(v, key, keys));
    for (size_t i = 0; i < v.size(); ++i) {
      sink_.key_text(keys[i], numbers[i]);
      entry_value(unboxed(v[i]), key);
    }
    sink_.end_map();
    if (mark) end_map_mark();
    return true;
  }

  // Whether a map's entries each show one number, bool, null or string, all
  // on about one line (oead's {ID: 5, Name: x}): the map is then in flow style.
  struct ScalarProbe {
    const char* key;
    bool ok = true;
    size_t len = 0, n = 0;
    template <class T>
    void probe(const T& x) {
      if constexpr (std::is_arithmetic_v<T>) len += 8;
      else if constexpr (std::is_same_v<T, std::string>) len += x.size() + 2;
      else if constexpr (BareUnion<T>)
        std::visit([&](const auto& a) {
          using A = std::decay_t<decltype(a)>;
          if constexpr (std::is_arithmetic_v<A>) len += 8;
          else if constexpr (std::is_same_v<A, std::string>) len += a.size() + 2;
          else ok = false;
        }, static_cast<const typename T::Base&>(x));
      else ok = false;
    }
    template <class T>
    void field(const char* f, const T& x, const Spell& = {}) {
      if (same_name(f, key)) return;
      ++n;
      probe(x);
    }
    template <class T, class D>
    void field_default(const char* f, const T& x, const D&, const Spell& s = {}) { field(f, x, s); }
    template <class T, class C>
    void field_if(const char*, const T&, C&&, const char*, const Spell& = {}) { ok = false; }
  };
  template <class E>
  bool scalar_entries(const std::vector<E>& v, const char* key, const std::vector<std::string>& keys) {  // keys: v.size() or more
    using U = std::decay_t<decltype(unboxed(std::declval<const E&>()))>;
    if constexpr (Union<U> || !requires { U::type_name; }) {
      return false;
    } else {
      size_t len = 0;
      for (size_t i = 0; i < v.size(); ++i) {
        ScalarProbe p{key};
        visit_fields(p, unboxed(v[i]));
        len += keys[i].size() + 2 + p.len;
        if (!p.ok || p.n != 1 || len > 100) return false;
      }
      return true;
    }
  }

  // Prints an integer by its name when it has one; false when it has none.
  bool named(int64_t v, const Spell& spell) {
    std::string& text = name_buf_;  // kept: no allocation per reference to a long name
    bool is_bool = false;
    const NameTable* composite = nullptr;
    if (!name_text(v, spell, text, is_bool, &composite)) return false;
    if (composite) {
      // A key shared by other elements: the key and the further keys
      // together, as a map ({name: EventSystemActor, sub_name: camera}).
      sink_.begin_map(true);
      sink_.key(composite->key_field.c_str());
      sink_.string(text);
      for (size_t j = 0; j < composite->also.size(); ++j) {
        sink_.key(composite->also[j].c_str());
        sink_.string(composite->also_keys[v][j]);
      }
      sink_.end_map();
    } else if (is_bool) {
      sink_.boolean(v == 1);
    } else {
      sink_.string(text);
    }
    return true;
  }
  // The name an integer has (true/false for format: bool), if any. With
  // `composite` (not for a map's key), an element whose key others share
  // names its table there: it is shown by all its keys (key: [name, sub_name]).
  bool name_text(int64_t v, const Spell& spell, std::string& out, bool& is_bool, const NameTable** composite = nullptr) {
    if ((spell.flags & kBool) && (v == 0 || v == 1)) {
      out = v == 1 ? "true" : "false";
      is_bool = true;
      return true;
    }
    for (size_t i = 0; i < spell.enum_count; ++i)
      if (spell.enum_values[i].value == v) {
        out = spell.enum_values[i].name;
        return true;
      }
    if (spell.ref) {
      const std::vector<std::string>* keys = ref_keys(spell);
      const NameTable* t = find_table(tables_, std::string_view(spell.ref).substr(0, std::string_view(spell.ref).find('.')));
      if (keys && v >= 0 && static_cast<uint64_t>(v) < keys->size()) {
        const std::string& k = (*keys)[v];
        bool unique = is_name_spelling(k);
        if (unique && spell.via) {
          for (size_t i = 0; i < keys->size() && unique; ++i) unique = i == size_t(v) || (*keys)[i] != k;
        } else if (unique) {
          unique = t->shows(static_cast<size_t>(v));
        }
        if (unique) {
          out = k;
          return true;
        }
        if (composite && !spell.via && !t->also.empty() && t->shows_all(static_cast<size_t>(v))) {
          *composite = t;
          out = k;
          return true;
        }
      }
    }
    if (spell.hash && v >= 0) {
      if (const std::string* n = known_name(spell.hash, static_cast<uint64_t>(v)); n && is_name_spelling(*n)) {
        out = *n;
        return true;
      }
      if (doc_names_)
        if (const std::string* n = doc_names_->find(spell.hash, static_cast<uint64_t>(v)); n && is_name_spelling(*n)) {
          out = *n;
          return true;
        }
    }
    return false;
  }
  // The keys a ref names: a table's, or (via) one element's sub list.
  const std::vector<std::string>* ref_keys(const Spell& spell) const {
    std::string_view ref = spell.ref;
    const size_t dot = ref.find('.');
    const NameTable* t = find_table(tables_, ref.substr(0, dot));
    if (!t) return nullptr;
    if (dot == std::string_view::npos) return &t->keys;
    if (!spell.via || int_frames_.empty()) return nullptr;
    int64_t idx = -1;
    for (size_t i = int_frames_.back(); i < ints_.size(); ++i)
      if (std::string_view(ints_[i].first) == spell.via) idx = ints_[i].second;
    for (const auto& [sname, lists] : t->subs)
      if (sname == ref.substr(dot + 1) && idx >= 0 && static_cast<uint64_t>(idx) < lists.size()) return &lists[idx];
    return nullptr;
  }

  // Whether the sink writes YAML tags; without them a tagged value is the
  // map {"!tag": value}.
  bool tags() const {
    if constexpr (requires(const Sink& s) { s.tags(); })
      return sink_.tags();
    else
      return requires(Sink& s) { s.tag(""); };
  }
  // The tag of the next value (only where tags()).
  void tag_next(const char* t) {
    if constexpr (requires(Sink& s) { s.tag(""); }) sink_.tag(t);
  }

  Sink& sink_;
  const DocNames* doc_names_;
  KeyIndex seen_;  // as_map's keys (its duplicates are found before any entry is written: one table serves every map)
  std::deque<std::pair<std::vector<std::string>, std::vector<uint8_t>>> key_pool_;  // as_map's keys, per level (a deque: a level's vectors stay put)
  size_t key_depth_ = 0;
  std::string name_buf_;  // named()'s text
  std::vector<NameTable> tables_;
  // The integer fields of the structs being visited, outermost first, one
  // vector for all (no allocation per struct); int_frames_: where each
  // struct's start (the first frame holds the root's).
  std::vector<std::pair<const char*, int64_t>> ints_;
  std::vector<size_t> int_frames_;
  Shape shape_;
  bool map_case_ = false;  // a bare union's map case is being written (bare_plain)
};

// Calls fn(const std::string&) on every string of a model.
template <class Fn>
class EachString {
 public:
  explicit EachString(Fn& fn) : fn_(fn) {}
  template <class V>
  void field(const char*, const V& v, const Spell& = {}) { value(v); }
  template <class V, class D>
  void field_default(const char*, const V& v, const D&, const Spell& = {}) { value(v); }
  template <class V>
  void value(const V& v) {
    if constexpr (std::is_same_v<V, std::string>) {
      fn_(v);
    } else if constexpr (is_optional<V>::value) {
      if (v) value(*v);
    } else if constexpr (is_box<V>::value) {
      value(*v);
    } else if constexpr (is_vector<V>::value || is_array<V>::value) {
      if constexpr (std::is_class_v<typename V::value_type>)
        for (const auto& e : v) value(e);
    } else if constexpr (Union<V>) {
      std::visit([&](const auto& alt) { value(alt); }, static_cast<const typename V::Base&>(v));
    } else if constexpr (requires { V::type_name; }) {
      visit_fields(*this, v);
    }
  }

 private:
  Fn& fn_;
};

// Generated visit_fields declares the arrays references point into with
// this: Out and In keep their keys, other visitors ignore it.
// `also`: the further key fields of a composite key (key: [name, sub_name]).
template <class V, class E>
void names(V& v, const char* array, const std::vector<E>& elems, const char* key, std::vector<const char*> subs = {},
           std::vector<const char*> also = {}) {
  if constexpr (requires { v.names(array, elems, key, subs, also); }) v.names(array, elems, key, std::move(subs), std::move(also));
}

// Generated visit_fields passes a field with if: through this: Out leaves
// it out of the text while the condition is false, In checks that it is not
// given then; other visitors see a plain field.
template <class V, class T, class C>
void field_if(V& v, const char* name, T& value, C&& cond, const char* expr, const Spell& spell = {}) {
  if constexpr (requires { v.field_if(name, value, cond, expr, spell); }) v.field_if(name, value, cond, expr, spell);
  else v.field(name, value, spell);
}
// A context: value (a number field of the root) for the condition of an
// if: in a nested struct, as far as the visitor has seen it (0 otherwise).
template <class V>
uint64_t context(const V& v, const char* name) {
  if constexpr (requires { v.context(name); }) return v.context(name);
  else return 0;
}

// ---- Counting -------------------------------------------------------------

// Counts struct instances by type below a model (for `binschema info`).
class Counter {
 public:
  template <class T>
  void field(const char*, const T& v, const Spell& = {}) { value(v); }
  template <class T, class D>
  void field_default(const char*, const T& v, const D&, const Spell& = {}) { value(v); }

  template <class T>
  void value(const T& v) {
    if constexpr (is_optional<T>::value) {
      if (v) value(*v);
    } else if constexpr (is_box<T>::value) {
      value(*v);
    } else if constexpr (is_vector<T>::value || is_array<T>::value) {
      if constexpr (std::is_class_v<typename T::value_type>)
        for (const auto& e : v) value(e);
    } else if constexpr (Union<T>) {
      std::visit([&](const auto& alt) { value(alt); }, static_cast<const typename T::Base&>(v));
    } else if constexpr (requires { T::type_name; }) {
      // A bits: word is one integer of its struct, not a struct of the file.
      if constexpr (!requires { T::bit_word; }) bump(T::type_name);
      visit_fields(*this, v);
    }
  }

  const std::vector<std::pair<std::string, size_t>>& counts() const { return counts_; }

 private:
  void bump(const char* name) {
    for (auto& [n, c] : counts_)
      if (n == name) {
        ++c;
        return;
      }
    counts_.emplace_back(name, 1);
  }
  std::vector<std::pair<std::string, size_t>> counts_;
};

// ---- Walking a model --------------------------------------------------------

// Calls fn on every instance of T below (and including) a model; fn may
// change it. The hooks of a format run through this. T may be a struct of the
// model or a value type such as std::string (every string of a model).
template <class T, class Fn>
class ForEach {
 public:
  explicit ForEach(Fn& fn) : fn_(fn) {}
  template <class V>
  void field(const char*, V& v, const Spell& = {}) { value(v); }
  template <class V, class D>
  void field_default(const char*, V& v, const D&, const Spell& = {}) { value(v); }

  template <class V>
  void value(V& v) {
    if constexpr (std::is_same_v<V, T>) {
      if constexpr (requires { V::type_name; }) visit_fields(*this, v);  // inner instances first, then this one
      fn_(v);
    } else if constexpr (is_optional<V>::value) {
      if (v) value(*v);
    } else if constexpr (is_box<V>::value) {
      value(*v);
    } else if constexpr (is_vector<V>::value || is_array<V>::value) {
      if constexpr (std::is_class_v<typename V::value_type>)
        for (auto& e : v) value(e);
    } else if constexpr (Union<V>) {
      std::visit([&](auto& alt) { value(alt); }, static_cast<typename V::Base&>(v));
    } else if constexpr (requires { V::type_name; }) {
      visit_fields(*this, v);
    }
  }

 private:
  Fn& fn_;
};

template <class T, class Root, class Fn>
void for_each(Root& root, Fn fn) {
  ForEach<T, Fn> walker(fn);
  walker.value(root);
}

// A hash of a model value, through the same visit_fields: equal values hash
// equally (shared block pools find equal blocks with it).
class Hasher {
 public:
  template <class V>
  void field(const char*, const V& v, const Spell& = {}) { value(v); }
  template <class V, class D>
  void field_default(const char*, const V& v, const D&, const Spell& = {}) { value(v); }

  template <class V>
  void value(const V& v) {
    if constexpr (std::is_arithmetic_v<V>) {
      mix(std::hash<V>{}(v));
    } else if constexpr (std::is_same_v<V, std::string>) {
      mix(std::hash<std::string>{}(v));
    } else if constexpr (std::is_same_v<V, Bytes>) {
      mix(std::hash<std::string_view>{}(std::string_view(reinterpret_cast<const char*>(v.data.data()), v.data.size())));
    } else if constexpr (is_optional<V>::value) {
      mix(v.has_value());
      if (v) value(*v);
    } else if constexpr (is_box<V>::value) {
      value(*v);
    } else if constexpr (is_vector<V>::value || is_array<V>::value) {
      mix(v.size());
      for (const auto& e : v) value(e);
    } else if constexpr (Union<V>) {
      mix(v.index());
      std::visit([&](const auto& alt) { value(alt); }, static_cast<const typename V::Base&>(v));
    } else if constexpr (requires { V::type_name; }) {
      visit_fields(*this, v);
    }
  }
  size_t result() const { return h_; }

 private:
  void mix(size_t x) { h_ ^= x + 0x9e3779b97f4a7c15ull + (h_ << 6) + (h_ >> 2); }
  size_t h_ = 0;
};

template <class T>
size_t hash_value(const T& v) {
  Hasher h;
  h.value(v);
  return h.result();
}

// ---- Input ----------------------------------------------------------------

// Reads a model from a parsed YAML/JSON document. Errors name the line and
// column of the offending node and the model path that leads to it.
class In {
 protected:  // binschema::dynamic reads text with a subclass (runtime/src/dynamic/text_in.cpp)
  // One step of the model path of a message: ".name" or "[index]".
  struct Step {
    const char* name;  // nullptr for an index or a map key
    size_t index = 0;
    std::string_view key;  // a map entry's key ([key]), when name is null and key not empty
    explicit Step(const char* n) : name(n) {}
    explicit Step(size_t i) : name(nullptr), index(i) {}
    explicit Step(std::string_view k) : name(nullptr), key(k.empty() ? std::string_view("\"\"") : k) {}
  };
  // A field with if: given in the text, checked once its struct is read.
  struct Cond {
    Node node;
    const char* name;
    const char* expr;
    std::function<bool()> holds;
  };
  // A struct being read. Plain data: its integer fields and conditions are
  // kept in ints_ and conds_ from ints_at and conds_at on (push_frame), one
  // vector each for all frames (no allocation per struct read).
  struct Frame {
    Node node;
    const char* key_name = nullptr;  // a map entry: its key field, read from key_node
    Node key_node;
    bool bare = false;  // node is the value of the one field (unwrap:, a map entry's value)
    // The map's keys are all different and name fields (check_keys): its
    // fields are looked up with Node::get_hinted from `hint`.
    bool hinted = false;
    uint32_t hint = 0;
    size_t ints_at = 0, conds_at = 0;
    explicit Frame(Node n) : node(n) {}
  };
  void push_frame(Frame f) {
    f.ints_at = ints_.size();
    f.conds_at = conds_.size();
    frames_.push_back(f);
  }
  void pop_frame() {
    ints_.resize(frames_.back().ints_at);
    conds_.resize(frames_.back().conds_at);
    frames_.pop_back();
  }
  // An integer field read (or defaulted) in the struct being read (for a ref's via:, a context:).
  void add_int(const char* name, int64_t v) { ints_.emplace_back(name, v); }
  void add_cond(Cond c) { conds_.push_back(std::move(c)); }

 public:
  // `node` must be a map holding the fields of the struct about to be visited.
  explicit In(Node node) { frames_.emplace_back(node); }

  template <class T>
  void field(const char* name, T& v, const Spell& flags = {}) {
    const Node n = lookup(name);
    if (!n) fail(frames_.back().node, "missing field '" + std::string(name) + "'");
    read_field(name, n, v, flags);
  }

  // A field with if: missing from the text is absent (it keeps its absent
  // value); given, its condition must hold once the struct is read.
  template <class T, class C>
  void field_if(const char* name, T& v, C&& cond, const char* expr, const Spell& flags = {}) {
    const Node n = lookup(name);
    if (!n) {
      if constexpr (std::is_integral_v<T>) add_int(name, static_cast<int64_t>(v));
      return;
    }
    read_field(name, n, v, flags);
    add_cond({n, name, expr, std::function<bool()>(cond)});
  }

  // A context: value (a number field of the root, read before this).
  uint64_t context(const char* name) const {
    const size_t end = frames_.size() > 1 ? frames_[1].ints_at : ints_.size();  // the root's
    for (size_t i = 0; i < end; ++i)
      if (same_name(ints_[i].first, name)) return static_cast<uint64_t>(ints_[i].second);
    return 0;
  }

  // Once a struct's fields are read: the conditional fields given must have
  // their conditions true.
  void check_conditions() {
    for (size_t i = frames_.back().conds_at; i < conds_.size(); ++i)
      if (const Cond& c = conds_[i]; !c.holds()) {
        path_.emplace_back(c.name);
        fail(c.node, std::string("'") + c.name + "' is given, but its condition (" + c.expr + ") is false here: leave it out");
      }
  }

  template <class T, class D>
  void field_default(const char* name, T& v, const D& def, const Spell& flags = {}) {
    const Node n = lookup(name);
    if (!n) {
      v = static_cast<T>(def);
      if constexpr (std::is_integral_v<T>) add_int(name, static_cast<int64_t>(v));
      return;
    }
    read_field(name, n, v, flags);
  }

  // Refuses keys that name no field of T, before anything is read, so that a
  // typo is reported where it is rather than as a missing field. `extra` is a
  // key the caller handles itself (the root's "format").
  //
  // Returns whether every key names a field and no field twice (then the
  // fields are looked up from a hint: Frame::hinted).
  template <class T>
  bool check_keys(Node map, T& v, const char* extra = nullptr, const char* extra2 = nullptr, const char* map_key = nullptr) {
    NameCollector names{std::move(names_)};  // the vector of the previous call, kept (no allocation per struct)
    names.names.clear();
    visit_fields(names, v);
    names_ = std::move(names.names);
    return keys_known(map, extra, extra2, map_key);
  }
  // The root frame's keys are unique (from_document, after check_keys).
  void keys_unique() { frames_.back().hinted = true; }

  // An array that references point into: the keys its elements have in
  // the text (before any of them is read: a reference may point forward).
  template <class E>
  void names(const char* array, const std::vector<E>&, const char* key, std::vector<const char*> subs = {},
             std::vector<const char*> also = {}) {
    NameTable t;
    t.array = array;
    t.key_field = key;
    for (const char* a : also) t.also.emplace_back(a);
    for (const char* sname : subs) t.subs.emplace_back(sname, std::vector<std::vector<std::string>>{});
    const Node list = lookup(array);
    if (list && list.is_map()) {
      // Shown as a map (map:): the keys are the entries' keys.
      for_each_entry(list, [&](Node k, Node e) {
        const bool has = k.is_scalar();
        t.keys.push_back(has ? std::string(k.scalar()) : std::string());
        const Mark km = has ? k.mark() : Mark{};
        t.marks.push_back(has ? static_cast<int>(km.line) : -1);
        t.cols.push_back(has ? static_cast<int>(km.col) : -1);
        if (!also.empty()) {
          std::vector<std::string> more;
          for (const char* a : also) {
            Node x;
            if (e.is_map()) x = e.get(a);
            more.push_back(x && x.is_scalar() ? std::string(x.scalar()) : std::string());
          }
          t.also_keys.push_back(std::move(more));
        }
        for (size_t j = 0; j < subs.size(); ++j) {
          std::vector<std::string> l;
          if (e.is_map())
            if (const Node sub = e.get(subs[j]); sub && sub.is_seq())
              for (const Node x : sub.children()) l.push_back(std::string(x.scalar()));
          t.subs[j].second.push_back(std::move(l));
        }
      });
    } else if (list && list.is_seq()) {
      for (const Node e : list.children()) {
        Node k;
        if constexpr (std::is_same_v<E, std::string>) k = e;
        else if (e.is_map()) k = e.get(key);
        const bool has = k && k.is_scalar();
        t.keys.push_back(has ? std::string(k.scalar()) : std::string());
        const Mark km = has ? k.mark() : Mark{};
        t.marks.push_back(has ? static_cast<int>(km.line) : -1);
        t.cols.push_back(has ? static_cast<int>(km.col) : -1);
        if (!also.empty()) {
          std::vector<std::string> more;
          for (const char* a : also) {
            Node x;
            if (e.is_map()) x = e.get(a);
            more.push_back(x && x.is_scalar() ? std::string(x.scalar()) : std::string());
          }
          t.also_keys.push_back(std::move(more));
        }
        for (size_t j = 0; j < subs.size(); ++j) {
          std::vector<std::string> l;
          if (e.is_map())
            if (const Node sub = e.get(subs[j]); sub && sub.is_seq())
              for (const Node x : sub.children()) l.push_back(std::string(x.scalar()));
          t.subs[j].second.push_back(std::move(l));
        }
      }
    }
    tables_.push_back(std::move(t));
  }

  template <class T>
  void value(Node n, T& v, const Spell& flags = {}) {
    charge(n, 1);
    if constexpr (std::is_same_v<T, bool>) {
      const std::string_view s = scalar(n, "a boolean");
      if (s == "true" || s == "True" || s == "TRUE") v = true;
      else if (s == "false" || s == "False" || s == "FALSE") v = false;
      else fail(n, "expected true or false, got '" + std::string(s) + "'");
    } else if constexpr (std::is_integral_v<T>) {
      if (flags.flags != kNone || flags.enum_count || flags.ref || flags.hash)
        if (std::optional<int64_t> x = named(n, flags)) {
          if (*x < int64_t(std::numeric_limits<T>::min()) || (*x > 0 && uint64_t(*x) > uint64_t(std::numeric_limits<T>::max())))
            fail(n, "'" + std::string(n.scalar()) + "' stands for " + std::to_string(*x) + ", which does not fit the field");
          v = static_cast<T>(*x);
          return;
        }
      v = static_cast<T>(parse_int(n, std::is_signed_v<T>, int64_t(std::numeric_limits<T>::min()),
                                   uint64_t(std::numeric_limits<T>::max())));
    } else if constexpr (std::is_floating_point_v<T>) {
      parse_float(n, v);
    } else if constexpr (std::is_same_v<T, std::string>) {
      if (n.is_map()) {
        v = parse_string_bytes(n);
        charge(n, v.size());
      } else {
        if (!n.is_scalar()) fail(n, "expected a string");
        const std::string_view s = n.scalar();
        charge(n, s.size(), s.size());
        v = s;
      }
    } else if constexpr (std::is_same_v<T, Bytes>) {
      if (n.is_scalar()) charge(n, n.scalar().size() / 2, n.scalar().size());
      v.data = parse_hex(n);
    } else if constexpr (is_optional<T>::value) {
      if (n.is_null()) {
        v.reset();
      } else {
        v.emplace();
        value(n, *v, flags);
      }
    } else if constexpr (is_box<T>::value) {
      if (v.valueless_after_move()) v = typename T::value_type{};
      value(n, *v, flags);
    } else if constexpr (is_vector<T>::value) {
      if constexpr (std::is_class_v<typename T::value_type>)
        if (flags.map && n.is_map()) {
          map(n, v, flags.map);
          return;
        }
      if (!n.is_seq()) fail(n, flags.map ? "expected a map (or a list)" : "expected a list");
      v.clear();
      // Before the elements are made; the items stand in the text up to the
      // last one's start, so a long list in a long text is within budget.
      charge(n, n.size(), n.span());
      v.resize(n.size());
      size_t i = 0;
      for (const Node e : n.children()) {
        path_.emplace_back(i);
        if constexpr (std::is_same_v<T, std::vector<bool>>) {
          // Packed bits: no bool& to read into.
          bool b = false;
          value(e, b, flags);
          v[i++] = b;
        } else {
          value(e, v[i++], flags);
        }
        path_.pop_back();
      }
    } else if constexpr (is_array<T>::value) {
      if (!n.is_seq() || n.size() != v.size())
        fail(n, "expected a list of " + std::to_string(v.size()) + " values");
      size_t i = 0;
      for (const Node e : n.children()) {
        path_.emplace_back(i);
        value(e, v[i++], flags);
        path_.pop_back();
      }
    } else if constexpr (BareUnion<T>) {
      bare_in(n, v, flags);
    } else if constexpr (Union<T>) {
      if (!n.is_map() || n.size() != 1) {
        std::string names;
        for (const char* c : T::case_names) names += std::string(names.empty() ? "" : ", ") + c;
        fail(n, "expected a map with one key naming the case (" + names + ")");
      }
      const std::string_view key = n.first_key().scalar();
      size_t index = SIZE_MAX;
      for (size_t i = 0; i < T::case_names.size(); ++i)
        if (key == T::case_names[i]) index = i;
      if (index == SIZE_MAX) fail(n.first_key(), "unknown case '" + std::string(key) + "'");
      path_.emplace_back(T::case_names[index]);
      emplace_case(n.first_value(), v, index, flags,
                   std::make_index_sequence<std::variant_size_v<typename T::Base>>{});
      path_.pop_back();
    } else if constexpr (Unwrapped<T>) {
      // Shown as its one field's value.
      Frame f(n);
      f.bare = true;
      fields(std::move(f), v);
    } else {
      if (!n.is_map()) fail(n, "expected a map");
      Frame f(n);
      f.hinted = check_keys(n, v);
      fields(std::move(f), v);
    }
  }

  [[noreturn]] void fail(Node n, const std::string& message) const;

 private:
  // A struct's fields, read in the frame given.
  template <class T>
  void fields(Frame frame, T& v) {
    const size_t mark = tables_.size();
    push_frame(frame);
    visit_fields(*this, v);
    check_conditions();
    pop_frame();
    tables_.resize(mark);
  }

  // The node of a field of the struct being read: a map entry's key field
  // is the entry's key, a bare field the frame's node itself.
  Node lookup(const char* name) {
    Frame& f = frames_.back();
    if (f.key_name && same_name(name, f.key_name)) return f.key_node;
    if (f.bare) return f.node;
    if (f.hinted) return f.node.get_hinted(name, f.hint);
    return f.node.get(name);
  }
  // A field found: read into v, with its name on the path.
  template <class T>
  void read_field(const char* name, Node n, T& v, const Spell& flags) {
    path_.emplace_back(name);
    value(n, v, flags);
    path_.pop_back();
    if constexpr (std::is_integral_v<T>) add_int(name, static_cast<int64_t>(v));
  }

  // One map entry into an element (a struct, or a union of struct cases).
  template <class E>
  void entry(Node key, Node val, E& e, const char* key_name) {
    if constexpr (is_box<E>::value) {
      if (e.valueless_after_move()) e = typename E::value_type{};
      entry(key, val, *e, key_name);
    } else if constexpr (Union<E>) {
      if (!val.is_map() || val.size() != 1) {
        std::string names;
        for (const char* c : E::case_names) names += std::string(names.empty() ? "" : ", ") + c;
        fail(val, "expected a map with one key naming the case (" + names + ")");
      }
      const std::string_view c = val.first_key().scalar();
      size_t index = SIZE_MAX;
      for (size_t i = 0; i < E::case_names.size(); ++i)
        if (c == E::case_names[i]) index = i;
      if (index == SIZE_MAX) fail(val.first_key(), "unknown case '" + std::string(c) + "'");
      path_.emplace_back(E::case_names[index]);
      entry_case(key, val.first_value(), e, index, key_name, std::make_index_sequence<std::variant_size_v<typename E::Base>>{});
      path_.pop_back();
    } else if constexpr (requires { E::type_name; }) {
      EntryShape shape{key_name};
      visit_fields(shape, e);
      Frame f(val);
      f.key_name = key_name;
      f.key_node = key;
      f.bare = shape.bare();
      if (!f.bare) {
        if (!val.is_map()) fail(val, "expected a map of the entry's fields");
        f.hinted = check_keys(val, e, nullptr, nullptr, key_name);
      }
      fields(std::move(f), e);
    }
  }
  template <class E, size_t... I>
  void entry_case(Node key, Node val, E& e, size_t index, const char* key_name, std::index_sequence<I...>) {
    ((index == I ? (entry(key, val, e.template emplace<I>(), key_name), 0) : 0), ...);
  }

  // map: a map of entries keyed by the elements' key field, in order. A key
  // given twice is an error at the second.
  template <class T>
  void map(Node n, T& v, const char* key_name) {
    v.clear();
    charge(n, n.size(), n.span());
    v.resize(n.size());
    struct To {
      In* in;
      T* v;
      const char* key_name;
    } to{this, &v, key_name};
    map_entries(n, &to, [](void* p, Node key, Node val, size_t i) {
      To& t = *static_cast<To*>(p);
      t.in->entry(key, val, (*t.v)[i], t.key_name);
    });
  }
  // map()'s walk, the same for every element type: each entry's key checked
  // (a scalar, not given before) and on the path while each(ctx, key, value,
  // its index) reads it.
  void map_entries(Node n, void* ctx, void (*each)(void* ctx, Node key, Node val, size_t i));
  // check_keys()' check of the map's keys against the fields in names_.
  bool keys_known(Node map, const char* extra, const char* extra2, const char* map_key);

 public:

  // layout.pools: pool name -> `sorted`, the list of its strings in the
  // file's order, or a map of `order` (one of those), `unused` (strings
  // the pool holds that nothing refers to) and `tails` (pairs: a string
  // stored as the end of another, then that other).
  void layout_pools(Node n, Layout& out) {
    if (!n.is_map()) fail(n, "layout.pools: a map of pool names expected");
    for_each_entry(n, [&](Node key, Node v) {
      PoolOrder po;
      po.pool = key.scalar();
      const std::string where = "layout.pools." + po.pool;
      if (out.pool(po.pool)) fail(key, where + ": given twice");
      auto order = [&](Node o) {
        if (o.is_scalar() && o.scalar() == "sorted") po.sorted = true;
        else if (o.is_seq()) value(o, po.order);
        else fail(o, where + ": 'sorted' or the list of the pool's strings expected");
      };
      if (v.is_map()) {
        for_each_entry(v, [&](Node k2, Node v2) {
          const std::string_view k = k2.scalar();
          if (k == "order") order(v2);
          else if (k == "unused" && v2.is_seq()) value(v2, po.unused);
          else if (k == "unused") fail(v2, where + ".unused: a list of strings expected");
          else if (k == "tails" && v2.is_seq()) {
            value(v2, po.tails);
            if (po.tails.size() % 2) fail(v2, where + ".tails: pairs expected (a string, then the one whose end holds it)");
          } else if (k == "tails") fail(v2, where + ".tails: a list of strings expected");
          else fail(k2, where + ": unknown entry '" + std::string(k) + "' (order, unused, tails)");
        });
        if (!v.get("order")) fail(v, where + ": 'order' missing");
      } else {
        order(v);
      }
      out.pools.push_back(std::move(po));
    });
  }

  // The document's `layout:` entry (a map of at, fill, end_align and pools).
  void layout(Node n, Layout& out) {
    if (!n.is_map()) fail(n, "layout: a map of at, fill, end_align and pools expected");
    for_each_entry(n, [&](Node key, Node v) {
      const std::string k(key.scalar());
      if (k == "pools") {
        layout_pools(v, out);
        return;
      }
      if (k != "at" && k != "fill" && k != "end_align") fail(key, "layout: unknown entry '" + k + "' (at, fill, end_align, pools)");
      if (!v.is_scalar()) fail(v, "layout." + k + ": a string expected");
      try {
        if (k == "at") out.parse_at(std::string(v.scalar()));
        else if (k == "fill") out.parse_fill(std::string(v.scalar()));
        else {
          const std::string t(v.scalar());
          size_t used = 0;
          unsigned long long a = std::stoull(t, &used, 0);
          if (used != t.size() || a > 0x10000 || (a & (a - 1)) != 0) throw std::invalid_argument("a power of two up to 0x10000 expected");
          out.end_align = a;
        }
      } catch (const std::exception& e) {
        fail(v, "layout." + k + ": " + e.what());
      }
    });
  }

 protected:  // binschema::dynamic reads text with a subclass (runtime/src/dynamic/text_in.cpp)
  // Calls f(key, value) for each entry of a map.
  template <class F>
  static void for_each_entry(Node map, F&& f) {
    auto it = map.children().begin();
    const auto end = map.children().end();
    while (it != end) {
      const Node key = *it;
      ++it;
      f(key, *it);
      ++it;
    }
  }
  // Lists a struct's field names (through the same visit_fields).
  struct NameCollector {
    std::vector<const char*> names;
    template <class T>
    void field(const char* n, T&, const Spell& = {}) { names.push_back(n); }
    template <class T, class D>
    void field_default(const char* n, T&, const D&, const Spell& = {}) { names.push_back(n); }
  };

  template <class T, size_t... I>
  void emplace_case(Node n, T& v, size_t index, const Spell& flags,
                    std::index_sequence<I...>) {
    ((index == I ? (value(n, v.template emplace<I>(), flags), 0) : 0), ...);
  }

  // A bare union's value: the case its tag names (YAML's, or JSON's one-key
  // map {"!u": 5}), else the case of its plain kind.
  template <class T>
  void bare_in(Node n, T& v, const Spell& flags) {
    const auto& cases = T::case_text;
    auto plain_case = [&](Plain p) {
      for (size_t i = 0; i < cases.size(); ++i)
        if (cases[i].plain == p) return i;
      return SIZE_MAX;
    };
    auto tags = [&] {
      std::string list;
      for (const CaseText& c : cases)
        if (c.tag) list += std::string(list.empty() ? "" : ", ") + c.tag;
      return list.empty() ? std::string("none") : list;
    };
    Node body = n;
    std::string_view tag = n.tag();
    if (tag.empty() && n.is_map() && n.size() == 1) {
      // JSON's form of a tagged value: {"!u": 5}.
      const std::string_view k = n.first_key().scalar();
      bool known = false;
      for (const CaseText& c : cases) known = known || (c.tag && k == c.tag);
      if (!k.empty() && k[0] == '!' && (known || standard_tag(k) != Plain::Tagged || plain_case(Plain::Map) == SIZE_MAX)) {
        tag = k;
        body = n.first_value();
      }
    }
    size_t index = SIZE_MAX;
    if (!tag.empty()) {
      for (size_t i = 0; i < cases.size() && index == SIZE_MAX; ++i)
        if (cases[i].tag && tag_is(tag, cases[i].tag)) index = i;
      if (index == SIZE_MAX)
        if (const Plain p = standard_tag(tag); p != Plain::Tagged) index = plain_case(p);
      if (index == SIZE_MAX) fail(n, "unknown tag '" + tag_spelling(tag) + "' (tags here: " + tags() + ")");
    } else {
      const Plain p = plain_kind(n);
      index = plain_case(p);
      if (index == SIZE_MAX && p == Plain::Int) index = plain_case(Plain::Float);
      if (index == SIZE_MAX) fail(n, std::string("a ") + plain_name(p) + " needs a tag here (tags here: " + tags() + ")");
    }
    path_.emplace_back(T::case_names[index]);
    emplace_bare(body, v, index, flags, std::make_index_sequence<std::variant_size_v<typename T::Base>>{});
    path_.pop_back();
  }
  template <class T, size_t... I>
  void emplace_bare(Node n, T& v, size_t index, const Spell& flags, std::index_sequence<I...>) {
    ((index == I ? (bare_read(n, v.template emplace<I>(), T::case_text[I], flags), 0) : 0), ...);
  }
  template <class A>
  void bare_read(Node n, A& alt, const CaseText& ct, const Spell& spell) {
    if constexpr (requires { A::type_name; }) {
      if (ct.unwrap) {
        One one{this, n, &ct};
        visit_fields(one, alt);
        return;
      }
    }
    bare_read_plain(n, alt, ct, spell);
  }
  // Reads the one model field of a struct payload.
  struct One {
    In* in;
    Node n;
    const CaseText* ct;
    template <class F>
    void field(const char*, F& x, const Spell& s = {}) { in->bare_read_plain(n, x, *ct, s); }
    template <class F, class D>
    void field_default(const char*, F& x, const D&, const Spell& s = {}) { in->bare_read_plain(n, x, *ct, s); }
  };
  template <class X>
  void bare_read_plain(Node n, X& x, const CaseText& ct, const Spell& spell) {
    if (ct.plain == Plain::Null && n.is_null()) {
      x = X{};
      return;
    }
    value(n, x, spell);
  }

  std::string_view scalar(Node n, const char* what) const;
  // The value a name, true/false, or a hash's name stands for; nullopt when
  // the text is a number (read as one).
  std::optional<int64_t> named(Node n, const Spell& spell) const;
  int64_t named_by_keys(Node n, const Spell& spell) const;
  int64_t parse_signed(Node n) const;
  uint64_t parse_int(Node n, bool is_signed, int64_t min, uint64_t max) const;
  void parse_float(Node n, float& v) const;
  void parse_float(Node n, double& v) const;
  std::vector<uint8_t> parse_hex(Node n) const;
  std::string parse_string_bytes(Node n) const;

  // Counts `units` (nodes, string bytes) against the text budget. The
  // budget grows with the furthest text position seen (a node's start plus
  // `extent`, the length of its scalar), which aliases do not move forward.
  void charge(Node n, uint64_t units, uint64_t extent = 0) {
    if (const uint64_t pos = n.offset(); pos + extent > furthest_) furthest_ = pos + extent;
    used_ += units;
    if (used_ > kTextBudgetFactor * furthest_ + kTextBudgetSlack) [[unlikely]]
      fail_budget(n);
  }
  [[noreturn]] void fail_budget(Node n) const;

  std::vector<Frame> frames_;
  std::vector<std::pair<const char*, int64_t>> ints_;  // integer fields read so far (for a ref's via), by frame
  std::vector<Cond> conds_;                            // fields with if: given, by frame
  std::vector<const char*> names_;        // check_keys' vector, kept
  std::vector<NameTable> tables_;
  std::vector<Step> path_;
  uint64_t used_ = 0;
  uint64_t furthest_ = 0;
};

// ---- Whole documents --------------------------------------------------------

// A model as a text document: a map whose first key names the format.
// The document's last entry, `layout:` (what the file's writer chose that the
// model does not say; binschema/layout.h), written by the generated code's
// to_document and by the run-time engine alike. `strings` writes a list of
// strings as the caller's text writer does.
template <class Sink, class Strings>
void layout_entry(Sink& sink, const Layout& layout, Strings&& strings) {
  sink.key("layout");
  sink.begin_map();
  if (!layout.at.empty()) {
    sink.key("at");
    sink.string(layout.at_text());
  }
  if (!layout.fill.empty()) {
    sink.key("fill");
    sink.string(layout.fill_text());
  }
  if (layout.end_align) {
    sink.key("end_align");
    sink.number(std::to_string(layout.end_align), false);
  }
  if (!layout.pools.empty()) {
    sink.key("pools");
    sink.begin_map();
    for (const auto& po : layout.pools) {
      sink.key(po.pool.c_str());
      const bool map = !po.unused.empty() || !po.tails.empty();
      if (map) {
        sink.begin_map();
        sink.key("order");
      }
      if (po.sorted) sink.string("sorted");
      else strings(po.order);
      if (!po.unused.empty()) {
        sink.key("unused");
        strings(po.unused);
      }
      if (!po.tails.empty()) {
        sink.key("tails");
        strings(po.tails);
      }
      if (map) sink.end_map();
    }
    sink.end_map();
  }
  sink.end_map();
}

// With a layout that differs from the format's own (binschema/layout.h), a
// last `layout:` entry holds it, out of the way of the values.
template <class Root>
std::string to_document(const Root& x, TextKind kind, const char* format, const Layout* layout = nullptr,
                        const HashNames* hash_names = nullptr) {
  std::optional<DocNames> names;
  if (hash_names && !numbers_only()) {
    names.emplace(*hash_names);
    auto prove = [&](const std::string& str) { names->prove(str); };
    EachString<decltype(prove)> each(prove);
    each.value(x);
    names->add_defaults();
  }
  auto emit = [&](DocSink sink) {
    Out out(sink, names ? &*names : nullptr);
    sink.begin_map();
    sink.key("format");
    sink.string(format);
    visit_fields(out, x);
    if (layout && !layout->empty()) layout_entry(sink, *layout, [&](const std::vector<std::string>& v) { out.value(v); });
    sink.end_map();
    return sink.result();
  };
  if (kind == TextKind::Json) {
    JsonSink sink;
    return emit(DocSink(sink));
  }
  if (kind == TextKind::Events) {
    if (!event_sink()) throw std::logic_error("to_document: TextKind::Events without an event_sink()");
    return emit(DocSink(*event_sink()));
  }
  YamlSink sink;
  return emit(DocSink(sink));
}

// A text document (its `format:` key already checked by the caller) as a model.
// The `layout:` entry goes to `layout` when given (else it is ignored).
template <class Root>
Root from_document(Node doc, Layout* layout = nullptr) {
  In in(doc);
  Root x;
  if (in.check_keys(doc, x, "format", "layout")) in.keys_unique();
  visit_fields(in, x);
  in.check_conditions();
  if (layout) {
    *layout = Layout{};
    if (const Node l = doc.get("layout")) in.layout(l, *layout);
  }
  return x;
}

// What `binschema info` prints: format, version, size, then how many of
// each struct the file holds.
template <class Root>
std::vector<std::pair<std::string, std::string>> summary(const Root& x, const char* format,
                                                         const std::string& version, size_t size) {
  std::vector<std::pair<std::string, std::string>> out;
  out.emplace_back("format", format);
  if (!version.empty()) out.emplace_back("version", version);
  out.emplace_back("file size", std::to_string(size) + " bytes");
  Counter counter;
  visit_fields(counter, x);
  for (const auto& [name, n] : counter.counts()) out.emplace_back(name, std::to_string(n));
  return out;
}

}  // namespace text
}  // namespace binschema
