// Expressions of a schema (count:, if:, size:, derive:) evaluated at run
// time: on the read side as the generated reader's C++ does (read_expr: the
// integer types of its locals, C++'s conversions, minus_ refusing a negative
// count), and over a model value as the generated writer's write_expr does.
#pragma once

#include <functional>
#include <string>

#include "plan.h"

namespace binschema::dynamic {

// An integer of C++ type int (s32), unsigned (u32), int64_t (s64) or
// uint64_t (u64): the value zero- or sign-extended to 64 bits.
struct CNum {
  uint64_t v = 0;
  bool sign = false;
  bool wide = true;
  static CNum s32(int64_t x) { return {static_cast<uint64_t>(int64_t(int32_t(x))), true, false}; }
  static CNum u32(uint64_t x) { return {x & 0xffffffffu, false, false}; }
  static CNum s64(int64_t x) { return {static_cast<uint64_t>(x), true, true}; }
  static CNum u64(uint64_t x) { return {x, false, true}; }
};

struct ExprEnv {
  // A name of the struct being read (or a bit field "word.bits"): its local.
  std::function<bool(const std::string&, CNum&)> local;
  // A context value (context:), by name.
  std::function<bool(const std::string&, uint64_t&)> ctx;
  uint64_t s = 0;              // the struct's start (minus_'s message)
  const uint64_t* o = nullptr; // the cursor (until())
  uint64_t file_size = 0;
  const Value* model = nullptr;     // the struct read so far (max/sum over its arrays)
  const gen::Struct* st = nullptr;  // its type
};

CNum eval_read(const gen::Expr& e, const ExprEnv& env);
// write_expr over a model value (env.model of type env.st).
uint64_t eval_model(const gen::Expr& e, const ExprEnv& env);

}  // namespace binschema::dynamic
