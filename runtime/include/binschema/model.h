// What a generated format header (NAME.h) needs: the types its models and
// its binary API name, and no more (the text binding, NAME_text.h, brings in
// binschema/text.h; a caller passing a Layout includes binschema/layout.h).
#pragma once

#include <array>
#include <bit>
#include <cstdint>
#include <optional>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "binschema/box.h"    // Box<T>: a struct not complete yet, in a recursive model
#include "binschema/error.h"  // DecodeError and EncodeError, what decode() and encode() throw

namespace binschema {

// Opaque bytes (data nobody has decoded yet); text form is a hex string.
struct Bytes {
  std::vector<uint8_t> data;
  bool operator==(const Bytes&) const = default;
};

// Equality of model values with each float compared by its bits, as the
// bytes of a file hold it: -0.0 is not 0.0, and a NaN equals the same NaN.
// A generated struct or union with a float member compares with it
// (operator==), so that `==` on models says "writes the same bytes": the
// writer shares a block among the pointers of equal values (layout.h,
// "shared targets"), and a model with a NaN equals itself. The run-time
// engine's Value compares numbers by their bits too.
template <class T>
bool same_bits(const T& a, const T& b);

namespace detail {
template <class T> struct is_vector : std::false_type {};
template <class T, class A> struct is_vector<std::vector<T, A>> : std::true_type {};
template <class T> struct is_array : std::false_type {};
template <class T, size_t N> struct is_array<std::array<T, N>> : std::true_type {};
template <class T> struct is_optional : std::false_type {};
template <class T> struct is_optional<std::optional<T>> : std::true_type {};
template <class T> struct is_variant : std::false_type {};
template <class... A> struct is_variant<std::variant<A...>> : std::true_type {};
}  // namespace detail

template <class T>
bool same_bits(const T& a, const T& b) {
  if constexpr (std::is_same_v<T, float>) {
    return std::bit_cast<uint32_t>(a) == std::bit_cast<uint32_t>(b);
  } else if constexpr (std::is_same_v<T, double>) {
    return std::bit_cast<uint64_t>(a) == std::bit_cast<uint64_t>(b);
  } else if constexpr (detail::is_vector<T>::value || detail::is_array<T>::value) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i)
      if (!same_bits(a[i], b[i])) return false;
    return true;
  } else if constexpr (detail::is_optional<T>::value) {
    return a.has_value() == b.has_value() && (!a || same_bits(*a, *b));
  } else if constexpr (detail::is_variant<T>::value) {
    // By index: two cases may have the same type.
    return a.index() == b.index() && [&]<size_t... I>(std::index_sequence<I...>) {
      return ((a.index() == I && same_bits(std::get<I>(a), std::get<I>(b))) || ...);
    }(std::make_index_sequence<std::variant_size_v<T>>());
  } else {
    return a == b;  // a struct's own operator== (bitwise for its floats), a string, an integer
  }
}

namespace text {
// How a case of a `bare: true` union is spelt in text (generated as the
// union's case_text): a plain kind, the case a value of that kind picks
// when it has no tag, or Tagged: the value carries the case's YAML tag.
enum class Plain : uint8_t { Tagged, Int, Float, String, Bool, Null, List, Map };
struct CaseText {
  Plain plain;
  const char* tag;  // Tagged: the tag as the schema spells it ("!u", "!!binary"); else nullptr
  bool unwrap;      // the payload is a struct of one model field, shown as that field's value
};
}  // namespace text

struct Layout;  // binschema/layout.h
struct Format;  // binschema/format.h

}  // namespace binschema
