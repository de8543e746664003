// Random models through a generated format, for the schema corpus
// (tests/corpus/gen_corpus.py writes the schemas and their rules,
// run_corpus.py compiles one drive_<schema>.cpp per schema around this).
//
// A Filler walks a model with the generated visit_fields and gives every
// model field a random value: numbers over their whole range, strings with
// bytes that are not UTF-8, 0..3 array elements, a random union case, optional
// targets present or not. The schema's rules (a valid: list, the width of a
// bit field, the length an expression gives an array, ...) keep it a model
// the writer accepts. Then round_trip() checks:
//   encode(m) -> decode == m (after normalising what the reader derives),
//   encode(decode(encode(m))) == encode(m),
//   decode with a layout: empty (the file is laid out the format's way), and
//     encode(m, layout) gives the same bytes,
//   from_text(to_text(m, YAML)) == m, and the same through JSON.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "binschema/error.h"
#include "binschema/layout.h"
#include "binschema/text.h"

namespace corpus {

// One rule of a schema (gen_corpus.py writes them as a table per schema).
struct Rule {
  enum Kind {
    one_of,      // the value is one of ints
    range,       // ints[0] <= value <= ints[1]
    bits,        // a bit field of ints[0] bits
    max_len,     // char[N]: at most ints[0] bytes
    short_,      // a string bit field: at most 3 bytes (its offset must fit the bits)
    unique,      // a dictionary key: not empty, unique in the model
    ignore,      // the reader derives it (a data slice's alignment): not compared
    len_from,    // length = field(other) * ints[0] + ints[1]
    len_from_len,  // length = length(other) * ints[0] + ints[1] (other is counted by the field the count names)
    len_wrong,   // as len_from, but one model in four gets one element more: the writer must refuse it
    len_is_wrong,  // length = ints[0], but one model in four gets one element more: the writer must refuse it
    same_len,    // length = length of array `other` (counted by the same field)
    sorted,      // array of structs sorted by field `other`, or of numbers ascending
    unordered,   // the writer sorts by a derived key: compared as a multiset
    len_sum,     // length = sum over array.field of its elements ("a.f", or "a.f#": the length of f)
    len_max1,    // length = max over array.field of (value + 1)
    len_max2,    // length = max(field, 2)
    len_max2_len,  // length = max(length(other), 2)
    present_if,  // stored only when the expression over earlier fields is true
    present_if_len,  // kept only while array `other` is not empty (else the default: zero_when_empty)
  };
  const char* key;    // "Struct.field", or "Struct.Bits.field" for a bit field
  Kind kind;
  const char* other;  // a field name, or the expression of present_if
  std::vector<long long> ints;
};

struct Stats {
  size_t models = 0, refused = 0;
};

// ---- A field of a struct by name ------------------------------------------
//
// The rules need a few things of a field named at run time; fields_of(x)
// lists them, type-erased, through one visit_fields per struct type (a
// visitor per rule would instantiate visit_fields many times over, and the
// corpus must compile fast).

class Filler;

struct FieldRef {
  std::string_view name;
  void* p;
  long long (*get)(const void*);                      // its integer value (0 if no number)
  size_t (*length)(const void*);                      // elements of a vector, bytes of Bytes
  void (*resize)(Filler&, void*, long long);          // to n elements, new ones random
  void (*assign)(void*, const void*);                 // from a field of the same type
  void (*sort)(void*, std::string_view);              // by an element field (or ascending numbers)
  long long (*sub)(const void*, std::string_view);    // a field of it (F.B of a bit field)
  long long (*fold)(const void*, std::string_view, bool max1);  // over a field of its elements: sum, or max of value + 1
};

template <class T>
long long as_int(const T& v) {
  if constexpr (std::is_arithmetic_v<T>) return static_cast<long long>(v);
  else return 0;
}

template <class S>
std::vector<FieldRef> fields_of(S& x);

template <class S>
long long int_field(const S& x, std::string_view name) {
  for (const FieldRef& f : fields_of(const_cast<S&>(x)))
    if (f.name == name) return f.get(f.p);
  return 0;
}

template <class T>
struct Ops {
  static long long get(const void* p) { return as_int(*static_cast<const T*>(p)); }
  static size_t length(const void* p) {
    const T& v = *static_cast<const T*>(p);
    if constexpr (binschema::text::is_vector<T>::value) return v.size();
    else if constexpr (std::is_same_v<T, binschema::Bytes>) return v.data.size();
    else return 0;
  }
  static void resize(Filler& f, void* p, long long n);
  static void assign(void* d, const void* s) { *static_cast<T*>(d) = *static_cast<const T*>(s); }
  static void sort(void* p, std::string_view key);
  static long long sub(const void* p, std::string_view name) {
    if constexpr (requires { T::type_name; }) return int_field(*static_cast<const T*>(p), name);
    else return 0;
  }
  static long long fold(const void* p, std::string_view field, bool max1) {
    long long n = 0;
    if constexpr (binschema::text::is_vector<T>::value) {
      if constexpr (requires { T::value_type::type_name; }) {
        bool length = !field.empty() && field.back() == '#';
        if (length) field.remove_suffix(1);
        for (const auto& e : *static_cast<const T*>(p)) {
          long long k = 0;
          for (const FieldRef& f : fields_of(const_cast<typename T::value_type&>(e)))
            if (f.name == field) k = length ? static_cast<long long>(f.length(f.p)) : f.get(f.p);
          n = max1 ? std::max(n, k + 1) : n + k;
        }
      }
    }
    return n;
  }
};

struct Collector {
  std::vector<FieldRef> out;
  template <class T>
  void field(const char* n, T& v, const binschema::text::Spell& = {}) {
    using O = Ops<std::remove_const_t<T>>;
    out.push_back({n, const_cast<std::remove_const_t<T>*>(&v), O::get, O::length, O::resize, O::assign, O::sort, O::sub, O::fold});
  }
  template <class T, class D>
  void field_default(const char* n, T& v, const D&, const binschema::text::Spell& s = {}) { field(n, v, s); }
};

template <class S>
std::vector<FieldRef> fields_of(S& x) {
  Collector c;
  visit_fields(c, x);
  return std::move(c.out);
}

inline const FieldRef* find(const std::vector<FieldRef>& fs, std::string_view name) {
  for (const FieldRef& f : fs)
    if (f.name == name) return &f;
  return nullptr;
}

// A tiny evaluator for present_if expressions: names (fields of the struct, or
// `a.b` bit fields), integers, and the operators gen_corpus.py uses.
class CondEval {
 public:
  CondEval(const std::vector<FieldRef>& fs, std::string_view e, const std::function<long long(std::string_view)>& ctx)
      : fs_(fs), e_(e), ctx_(ctx) {}
  long long run() { return ternary(); }

 private:
  long long ternary() {
    long long c = rel();
    return c;
  }
  long long rel() {
    long long a = bit();
    for (;;) {
      skip();
      if (eat(">=")) a = a >= bit();
      else if (eat("<=")) a = a <= bit();
      else if (eat("==")) a = a == bit();
      else if (eat("!=")) a = a != bit();
      else if (eat(">")) a = a > bit();
      else if (eat("<")) a = a < bit();
      else return a;
    }
  }
  long long bit() {
    long long a = prim();
    for (;;) {
      skip();
      if (e_.substr(i_, 2) != "&&" && eat("&")) a &= prim();
      else return a;
    }
  }
  long long prim() {
    skip();
    size_t b = i_;
    while (i_ < e_.size() && (std::isalnum(static_cast<unsigned char>(e_[i_])) || e_[i_] == '_' || e_[i_] == '.')) ++i_;
    std::string_view w = e_.substr(b, i_ - b);
    if (w.empty()) return 0;
    if (std::isdigit(static_cast<unsigned char>(w[0]))) return std::stoll(std::string(w), nullptr, 0);
    if (size_t dot = w.find('.'); dot != std::string_view::npos) {
      const FieldRef* f = find(fs_, w.substr(0, dot));
      return f ? f->sub(f->p, w.substr(dot + 1)) : 0;
    }
    const FieldRef* f = find(fs_, w);
    return f ? f->get(f->p) : ctx_(w);
  }
  void skip() {
    while (i_ < e_.size() && e_[i_] == ' ') ++i_;
  }
  bool eat(std::string_view op) {
    skip();
    if (e_.substr(i_, op.size()) != op) return false;
    i_ += op.size();
    return true;
  }
  const std::vector<FieldRef>& fs_;
  std::string_view e_;
  const std::function<long long(std::string_view)>& ctx_;
  size_t i_ = 0;
};

// ---- Random models -----------------------------------------------------------

class Filler {
 public:
  Filler(uint64_t seed, const std::vector<Rule>& rules) : rng_(seed) {
    for (const Rule& r : rules) rules_[r.key].push_back(&r);
  }
  // Root fields, for names of `context:` in present_if and len_from.
  std::function<long long(std::string_view)> context = [](std::string_view) { return 0LL; };

  template <class T>
  void field(const char* name, T& v, const binschema::text::Spell& spell = {}) {
    std::string key = std::string(frames_.back()) + "." + name;
    auto it = rules_.find(key);
    const std::vector<const Rule*>* rs = it == rules_.end() ? nullptr : &it->second;
    value(v, rs, &spell);
  }
  template <class T, class D>
  void field_default(const char* name, T& v, const D&, const binschema::text::Spell& s = {}) { field(name, v, s); }

  template <class T>
  void value(T& v, const std::vector<const Rule*>* rs = nullptr, const binschema::text::Spell* spell = nullptr) {
    if constexpr (std::is_same_v<T, bool>) {
      v = coin();
    } else if constexpr (std::is_integral_v<T>) {
      v = number<T>(rs, spell);
    } else if constexpr (std::is_floating_point_v<T>) {
      v = real<T>();
    } else if constexpr (std::is_same_v<T, std::string>) {
      v = text(rs);
    } else if constexpr (std::is_same_v<T, binschema::Bytes>) {
      v.data.resize(pick(0, 4));
      for (auto& b : v.data) b = static_cast<uint8_t>(rng_());
    } else if constexpr (binschema::text::is_optional<T>::value) {
      v.reset();
      if (depth_ < 4 && coin()) value(v.emplace());
    } else if constexpr (binschema::text::is_vector<T>::value) {
      v.clear();
      if (depth_ < 4) v.resize(pick(0, 3));
      if constexpr (std::is_same_v<T, std::vector<bool>>) {
        for (size_t i = 0; i < v.size(); ++i) v[i] = coin();  // no bool& into a vector<bool>
      } else {
        for (auto& e : v) value(e, rs, spell);
      }
    } else if constexpr (binschema::text::is_array<T>::value) {
      for (auto& e : v) value(e, rs, spell);
    } else if constexpr (binschema::text::Union<T>) {
      constexpr size_t n = std::variant_size_v<typename T::Base>;
      size_t want = static_cast<size_t>(pick(0, n - 1));
      if (depth_ >= 4) want = 0;
      emplace(v, want, std::make_index_sequence<n>{});
    } else if constexpr (requires { T::type_name; }) {
      frames_.push_back(T::type_name);
      ++depth_;
      visit_fields(*this, v);
      after(v);
      --depth_;
      frames_.pop_back();
    }
  }

  // Strings handed out as unique dictionary keys so far.
  size_t unique_count = 0;

 private:
  template <class T, size_t... I>
  void emplace(T& v, size_t want, std::index_sequence<I...>) {
    ((want == I ? (value(v.template emplace<I>()), 0) : 0), ...);
  }

  bool coin() { return rng_() & 1; }
  long long pick(long long lo, long long hi) { return std::uniform_int_distribution<long long>(lo, hi)(rng_); }

  template <class T>
  T number(const std::vector<const Rule*>* rs, const binschema::text::Spell* spell) {
    if (rs)
      for (const Rule* r : *rs) {
        if (r->kind == Rule::one_of) return static_cast<T>(r->ints[pick(0, r->ints.size() - 1)]);
        if (r->kind == Rule::range) return static_cast<T>(pick(r->ints[0], r->ints[1]));
        if (r->kind == Rule::bits) return static_cast<T>(rng_() & ((1ULL << r->ints[0]) - 1));
      }
    if (spell && spell->enum_count && coin()) return static_cast<T>(spell->enum_values[pick(0, spell->enum_count - 1)].value);
    switch (pick(0, 3)) {
      case 0: return static_cast<T>(pick(0, 3));  // small: counts of arrays that other fields size
      case 1: return std::numeric_limits<T>::max();
      case 2: return std::numeric_limits<T>::min();
      default: return static_cast<T>(rng_());
    }
  }

  template <class T>
  T real() {
    switch (pick(0, 5)) {
      case 0: return T(0);
      case 1: return T(-0.0);
      case 2: return std::numeric_limits<T>::infinity();
      case 3: return T(1.5);
      default: {
        // Any finite value, from random bits.
        for (;;) {
          using U = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;
          U bits = static_cast<U>(rng_());
          T f;
          std::memcpy(&f, &bits, sizeof f);
          if (std::isfinite(f)) return f;
        }
      }
    }
  }

  std::string text(const std::vector<const Rule*>* rs) {
    size_t max = 8;
    if (rs)
      for (const Rule* r : *rs) {
        if (r->kind == Rule::unique) return "key" + std::to_string(unique_count++);
        if (r->kind == Rule::max_len) max = static_cast<size_t>(r->ints[0]);
        if (r->kind == Rule::short_) max = 3;
      }
    static constexpr char plain[] = "abcxyz_.-/ 0123:#\"'\\\t\n";
    std::string s(static_cast<size_t>(pick(0, max)), 'a');
    for (auto& c : s) {
      int k = static_cast<int>(pick(0, 9));
      if (k == 0) c = static_cast<char>(pick(0x80, 0xff));  // not always UTF-8
      else c = plain[pick(0, sizeof plain - 2)];
    }
    return s;
  }

  long long named(const std::vector<FieldRef>& fs, std::string_view name) {
    const FieldRef* f = find(fs, name);
    return f ? f->get(f->p) : context(name);
  }

  // Rules over several fields of struct x, once all of its fields are filled.
  template <class S>
  void after(S& x) {
    std::string prefix = std::string(S::type_name) + ".";
    auto first = rules_.lower_bound(prefix);
    if (first == rules_.end() || first->first.compare(0, prefix.size(), prefix) != 0) return;
    std::vector<FieldRef> fs = fields_of(x);
    for (int pass = 0; pass < 2; ++pass)  // if: conditions last: they may use what the others set
      for (auto it = first; it != rules_.end() && it->first.compare(0, prefix.size(), prefix) == 0; ++it) {
        const FieldRef* f = find(fs, std::string_view(it->first).substr(prefix.size()));
        if (!f) continue;  // a bit field's rule
        for (const Rule* r : it->second) {
          bool cond = r->kind == Rule::present_if || r->kind == Rule::present_if_len;
          if (cond != (pass == 1)) continue;
          if (cond) {
            const FieldRef* o = r->kind == Rule::present_if_len ? find(fs, r->other) : nullptr;
            if (o ? o->length(o->p) == 0 : !CondEval(fs, r->other, context).run()) {
              S blank{};
              f->assign(f->p, find(fields_of(blank), f->name)->p);
            }
          } else {
            after_rule(fs, *f, *r);
          }
        }
      }
  }

  void after_rule(const std::vector<FieldRef>& fs, const FieldRef& f, const Rule& r) {
    switch (r.kind) {
      case Rule::len_from:
      case Rule::len_wrong: {
        long long n = named(fs, r.other) * r.ints[0] + r.ints[1];
        f.resize(*this, f.p, r.kind == Rule::len_wrong && pick(0, 3) == 0 ? n + 1 : n);
        break;
      }
      case Rule::len_is_wrong: f.resize(*this, f.p, pick(0, 3) == 0 ? r.ints[0] + 1 : r.ints[0]); break;
      case Rule::len_from_len:
        if (const FieldRef* o = find(fs, r.other))
          f.resize(*this, f.p, static_cast<long long>(o->length(o->p)) * r.ints[0] + r.ints[1]);
        break;
      case Rule::len_max2_len:
        if (const FieldRef* o = find(fs, r.other))
          f.resize(*this, f.p, std::max(static_cast<long long>(o->length(o->p)), 2LL));
        break;
      case Rule::same_len:
        if (const FieldRef* o = find(fs, r.other)) f.resize(*this, f.p, static_cast<long long>(o->length(o->p)));
        break;
      case Rule::len_sum:
      case Rule::len_max1:
        if (size_t dot = std::string_view(r.other).find('.'); dot != std::string_view::npos)
          if (const FieldRef* o = find(fs, std::string_view(r.other).substr(0, dot)))
            f.resize(*this, f.p, o->fold(o->p, std::string_view(r.other).substr(dot + 1), r.kind == Rule::len_max1));
        break;
      case Rule::len_max2: f.resize(*this, f.p, std::max(named(fs, r.other), 2LL)); break;
      case Rule::sorted: f.sort(f.p, r.other); break;
      default: break;
    }
  }

 public:
  template <class T>
  void resize_to(T& v, long long n) {
    if constexpr (binschema::text::is_vector<T>::value) {
      n = std::max(0LL, n);
      size_t old = v.size();
      v.resize(static_cast<size_t>(n));
      ++depth_;
      if constexpr (std::is_same_v<T, std::vector<bool>>) {
        for (size_t i = old; i < v.size(); ++i) v[i] = coin();
      } else {
        for (size_t i = old; i < v.size(); ++i) value(v[i]);
      }
      --depth_;
    } else if constexpr (std::is_same_v<T, binschema::Bytes>) {
      v.data.resize(static_cast<size_t>(std::max(0LL, n)));
    }
  }

 private:
  std::mt19937_64 rng_;
  std::map<std::string, std::vector<const Rule*>, std::less<>> rules_;
  std::vector<const char*> frames_{""};
  int depth_ = 0;

};

template <class T>
void Ops<T>::resize(Filler& f, void* p, long long n) { f.resize_to(*static_cast<T*>(p), n); }

// The order that sorts keys (stably): one instantiation of the sort for every type.
inline std::vector<size_t> order_of(const std::vector<long long>& keys) {
  std::vector<size_t> idx(keys.size());
  for (size_t i = 0; i < idx.size(); ++i) idx[i] = i;
  std::stable_sort(idx.begin(), idx.end(), [&](size_t a, size_t b) { return keys[a] < keys[b]; });
  return idx;
}

template <class E>
void sort_by_keys(std::vector<E>& v, const std::vector<long long>& keys) {
  std::vector<E> out;
  out.reserve(v.size());
  for (size_t i : order_of(keys)) out.push_back(std::move(v[i]));
  v = std::move(out);
}

template <class T>
void Ops<T>::sort(void* p, std::string_view key) {
  if constexpr (binschema::text::is_vector<T>::value) {
    T& v = *static_cast<T*>(p);
    std::vector<long long> keys;
    for (const auto& e : v) {
      if constexpr (requires { T::value_type::type_name; }) keys.push_back(int_field(e, key));
      else keys.push_back(as_int(e));
    }
    sort_by_keys(v, keys);
  }
}

// ---- Normalising what the reader derives --------------------------------------

class Normaliser {
 public:
  explicit Normaliser(const std::vector<Rule>& rules) {
    for (const Rule& r : rules)
      if (r.kind == Rule::ignore || r.kind == Rule::unordered) rules_.push_back(&r);
  }
  template <class T>
  void field(const char* name, T& v, const binschema::text::Spell& = {}) {
    std::string key = std::string(frame_) + "." + name;
    for (const Rule* r : rules_)
      if (key == r->key) {
        if constexpr (std::is_arithmetic_v<T>) {
          if (r->kind == Rule::ignore) v = T{};
        } else if constexpr (binschema::text::is_vector<T>::value) {
          if (r->kind == Rule::unordered) {
            std::vector<long long> keys;
            for (const auto& e : v) keys.push_back(static_cast<long long>(binschema::text::hash_value(e)));
            sort_by_keys(v, keys);
          }
        }
      }
    value(v);
  }
  template <class T, class D>
  void field_default(const char* name, T& v, const D&, const binschema::text::Spell& s = {}) { field(name, v, s); }

  template <class T>
  void value(T& v) {
    if constexpr (binschema::text::is_optional<T>::value) {
      if (v) value(*v);
    } else if constexpr (binschema::text::is_vector<T>::value || binschema::text::is_array<T>::value) {
      if constexpr (std::is_class_v<typename T::value_type>)
        for (auto& e : v) value(e);
    } else if constexpr (binschema::text::Union<T>) {
      std::visit([&](auto& alt) { value(alt); }, static_cast<typename T::Base&>(v));
    } else if constexpr (requires { T::type_name; }) {
      const char* saved = frame_;
      frame_ = T::type_name;
      visit_fields(*this, v);
      frame_ = saved;
    }
  }

 private:
  std::vector<const Rule*> rules_;
  const char* frame_ = "";
};

// ---- The checks -------------------------------------------------------------

// A failure: what went wrong, the schema and the model (as YAML, when it prints).
struct Failure {
  std::string what;
};

// The functions of one generated format (a namespace's encode, decode, ...).
template <class Root>
struct Format {
  const char* name;
  std::vector<uint8_t> (*encode)(const Root&);
  std::vector<uint8_t> (*encode_layout)(const Root&, const binschema::Layout&);
  Root (*decode)(std::span<const uint8_t>);
  Root (*decode_layout)(std::span<const uint8_t>, binschema::Layout&);
  std::string (*to_text)(const Root&, binschema::TextKind, const binschema::Layout*);
  Root (*from_text)(std::string_view);
};

template <class Root>
std::string show(const Format<Root>& f, const Root& m) {
  try {
    return f.to_text(m, binschema::TextKind::Yaml, nullptr);
  } catch (const std::exception& e) {
    return std::string("(to_text failed: ") + e.what() + ")";
  }
}

inline std::string hex_bytes(const std::vector<uint8_t>& b) {
  std::string s;
  char buf[4];
  for (size_t i = 0; i < b.size(); ++i) {
    std::snprintf(buf, sizeof buf, "%02x", b[i]);
    s += buf;
    if (i % 32 == 31) s += '\n';
  }
  return s;
}

// The run-time engine (binschema/dynamic.h) beside the generated code, when
// the corpus program is built with it (run_corpus.py --dynamic): the text of
// schema NAME's decode of these bytes, or "error: " + the decode error.
// What it returns for a schema the engine refuses at load (a text-form
// feature it does not do yet): that schema is not compared.
inline constexpr const char* kEngineRefused = "\x01the run-time engine refuses this schema";
inline std::function<std::string(const char*, std::span<const uint8_t>, binschema::TextKind)>& dynamic_text() {
  static std::function<std::string(const char*, std::span<const uint8_t>, binschema::TextKind)> f;
  return f;
}

// Runs `models` random models through format f. Returns 0, or prints the
// first failure (seed, schema, model) and returns 1.
template <class Root>
int run(const Format<Root>& f, const std::vector<Rule>& rules, const std::vector<std::string>& may_refuse,
        bool check_layout, uint64_t seed, size_t models, Stats& stats,
        std::function<void(Filler&, Root&)> prepare = nullptr) {
  Normaliser norm(rules);
  for (size_t i = 0; i < models; ++i) {
    uint64_t model_seed = seed ^ (0x9e3779b97f4a7c15ULL * (i + 1));
    Filler fill(model_seed, rules);
    Root m{};
    if (prepare) prepare(fill, m);
    fill.value(m);
    std::string step = "encode";
    auto fail = [&](const std::string& msg, const Root* other) {
      std::printf("FAIL schema %s, model %zu (seed %llu, model seed %llu): %s: %s\n--- model:\n%s\n", f.name, i,
                  static_cast<unsigned long long>(seed), static_cast<unsigned long long>(model_seed), step.c_str(),
                  msg.c_str(), show(f, m).c_str());
      if (other) std::printf("--- got:\n%s\n", show(f, *other).c_str());
      return 1;
    };
    try {
      std::vector<uint8_t> bytes;
      try {
        bytes = f.encode(m);
      } catch (const binschema::EncodeError& e) {
        std::string msg = e.what();
        bool known = false;
        for (const auto& r : may_refuse) known = known || msg.find(r) != std::string::npos;
        if (!known) return fail(std::string("refused: ") + msg, nullptr);
        ++stats.refused;
        continue;
      }
      step = "decode";
      Root back = f.decode(bytes);
      Root want = m;
      norm.value(want);
      Root got = back;
      norm.value(got);
      if (!(got == want)) return fail("decode(encode(m)) differs from m\n--- bytes:\n" + hex_bytes(bytes), &back);
      step = "re-encode";
      if (f.encode(back) != bytes) return fail("encode(decode(encode(m))) gives other bytes", &back);
      step = "layout";
      binschema::Layout layout;
      Root back2 = f.decode_layout(bytes, layout);
      if (!(back2 == back)) return fail("decode with a layout differs from decode", &back2);
      if (check_layout && !layout.empty())
        return fail("a file written by encode() has a non-empty layout:\n" + f.to_text(back, binschema::TextKind::Yaml, &layout), nullptr);
      if (f.encode_layout(back2, layout) != bytes) return fail("encode(m, its layout) gives other bytes", nullptr);
      if (dynamic_text()) {
        // The same text from the engine, and the same outcome on the bytes
        // with one byte changed (where the model seed says).
        step = "run time";
        std::vector<uint8_t> bad = bytes;
        if (!bad.empty()) bad[model_seed % bad.size()] ^= static_cast<uint8_t>(1u << (model_seed >> 32) % 8);
        for (auto kind : {binschema::TextKind::Yaml, binschema::TextKind::Json}) {
          const std::string want = f.to_text(back, kind, nullptr), got = dynamic_text()(f.name, bytes, kind);
          if (got == kEngineRefused) break;
          if (got != want) return fail("the run-time engine's text differs\n--- generated:\n" + want + "--- run time:\n" + got, nullptr);
          std::string want_bad;
          try {
            want_bad = f.to_text(f.decode(bad), kind, nullptr);
          } catch (const binschema::DecodeError& e) {
            want_bad = std::string("error: ") + e.what();
          }
          const std::string got_bad = dynamic_text()(f.name, bad, kind);
          if (got_bad != want_bad)
            return fail("the run-time engine differs on the bytes with one changed\n--- generated:\n" + want_bad + "\n--- run time:\n" + got_bad +
                            "\n--- bytes:\n" + hex_bytes(bad),
                        nullptr);
        }
      }
      for (auto kind : {binschema::TextKind::Yaml, binschema::TextKind::Json}) {
        step = kind == binschema::TextKind::Yaml ? "YAML" : "JSON";
        std::string t = f.to_text(m, kind, nullptr);
        Root again = f.from_text(t);
        if (!(again == m)) return fail("from_text(to_text(m)) differs from m\n--- text:\n" + t, &again);
      }
    } catch (const std::exception& e) {
      return fail(e.what(), nullptr);
    }
    ++stats.models;
  }
  return 0;
}

}  // namespace corpus
