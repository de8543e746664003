// binschema::Box<T>: a T kept on the heap, with the value semantics of a T.
//
// Generated models use it only where a struct holds (in a std::optional or
// a union) a struct that is not complete yet: mutual recursion through
// pointers, as in `Hash` -> `Entry` -> `Hash`. A Box always holds a value:
// it is default-constructed as T{}, copied deeply, compared by value, and
// converts to T& where a T& is expected, so code reads `*box`, `box->x` or
// passes the box itself. The one exception is a box moved from, which holds
// nothing until it is assigned to (as std::indirect in C++26).
#pragma once

#include <memory>
#include <type_traits>
#include <utility>

namespace binschema {

template <class T>
class Box {
 public:
  using value_type = T;

  Box() : p_(std::make_unique<T>()) {}
  Box(const T& v) : p_(std::make_unique<T>(v)) {}             // NOLINT: a T converts implicitly, as into std::optional
  Box(T&& v) : p_(std::make_unique<T>(std::move(v))) {}       // NOLINT
  Box(const Box& o) : p_(o.p_ ? std::make_unique<T>(*o.p_) : nullptr) {}
  Box(Box&& o) noexcept = default;
  Box& operator=(const Box& o) {
    if (this != &o) {
      if (p_ && o.p_) *p_ = *o.p_;
      else p_ = o.p_ ? std::make_unique<T>(*o.p_) : nullptr;
    }
    return *this;
  }
  Box& operator=(Box&& o) noexcept = default;
  Box& operator=(const T& v) {
    if (p_) *p_ = v;
    else p_ = std::make_unique<T>(v);
    return *this;
  }
  Box& operator=(T&& v) {
    if (p_) *p_ = std::move(v);
    else p_ = std::make_unique<T>(std::move(v));
    return *this;
  }

  T& operator*() { return *p_; }
  const T& operator*() const { return *p_; }
  T* operator->() { return p_.get(); }
  const T* operator->() const { return p_.get(); }
  operator T&() { return *p_; }              // NOLINT: a Box stands for its T
  operator const T&() const { return *p_; }  // NOLINT

  // True only for a box moved from.
  bool valueless_after_move() const { return !p_; }

  friend bool operator==(const Box& a, const Box& b) {
    if (!a.p_ || !b.p_) return !a.p_ && !b.p_;
    return *a.p_ == *b.p_;
  }

 private:
  std::unique_ptr<T> p_;
};

template <class T>
struct is_box : std::false_type {};
template <class T>
struct is_box<Box<T>> : std::true_type {};

}  // namespace binschema
