// Run-time evaluation of schema expressions (expr.h).
#include "expr.h"

#include <algorithm>

#include "binschema/error.h"
#include "binschema/hash.h"

namespace binschema::dynamic {

using gen::Expr;
using gen::Fn;

namespace {

CNum norm(uint64_t v, bool sign, bool wide) {
  if (wide) return {v, sign, true};
  return sign ? CNum::s32(static_cast<int64_t>(v)) : CNum::u32(v);
}
// Integer promotion: s32/u32 stay (smaller types never reach here: locals are promoted when made).
void common(const CNum& a, const CNum& b, bool& sign, bool& wide) {
  if (a.wide && b.wide) {
    wide = true;
    sign = a.sign && b.sign;
  } else if (a.wide) {
    wide = true;
    sign = a.sign;
  } else if (b.wide) {
    wide = true;
    sign = b.sign;
  } else {
    wide = false;
    sign = a.sign && b.sign;
  }
}
CNum as(const CNum& x, bool sign, bool wide) { return norm(x.v, sign, wide); }

CNum binary(const std::string& op, CNum a, CNum b, const Expr& e, const ExprEnv& env) {
  if (is_op(op, "<<") || is_op(op, ">>")) {
    const unsigned sh = static_cast<unsigned>(b.v & 63);
    if (is_op(op, "<<")) return norm(a.v << sh, a.sign, a.wide);
    if (a.sign) return norm(static_cast<uint64_t>(static_cast<int64_t>(a.v) >> sh), true, a.wide);
    return norm(a.v >> sh, false, a.wide);
  }
  bool sign, wide;
  common(a, b, sign, wide);
  a = as(a, sign, wide);
  b = as(b, sign, wide);
  const auto lt = [&](const CNum& x, const CNum& y) {
    return sign ? static_cast<int64_t>(x.v) < static_cast<int64_t>(y.v) : x.v < y.v;
  };
  if (is_op(op, "==")) return CNum::s32(a.v == b.v);
  if (is_op(op, "!=")) return CNum::s32(a.v != b.v);
  if (is_op(op, "<")) return CNum::s32(lt(a, b));
  if (is_op(op, ">")) return CNum::s32(lt(b, a));
  if (is_op(op, "<=")) return CNum::s32(!lt(b, a));
  if (is_op(op, ">=")) return CNum::s32(!lt(a, b));
  if (is_op(op, "+")) return norm(a.v + b.v, sign, wide);
  if (is_op(op, "*")) return norm(a.v * b.v, sign, wide);
  if (is_op(op, "&")) return norm(a.v & b.v, sign, wide);
  if (is_op(op, "|")) return norm(a.v | b.v, sign, wide);
  if (is_op(op, "^")) return norm(a.v ^ b.v, sign, wide);
  if (is_op(op, "/") || is_op(op, "%")) {
    if (b.v == 0) throw DecodeError(env.s, gen::expr_text(e) + ": division by zero (struct at " + hex(env.s) + ")");
    if (sign) {
      const int64_t x = static_cast<int64_t>(a.v), y = static_cast<int64_t>(b.v);
      if (y == -1) return norm(is_op(op, "/") ? uint64_t(0) - a.v : 0, sign, wide);
      return norm(static_cast<uint64_t>(is_op(op, "/") ? x / y : x % y), sign, wide);
    }
    return norm(is_op(op, "/") ? a.v / b.v : a.v % b.v, sign, wide);
  }
  throw DecodeError(env.s, "operator '" + op + "' in " + gen::expr_text(e) + " is not supported at run time");
}

const Value* model_field(const Value& x, const std::string& name) { return x.find(name); }

uint64_t num(const Value* v) { return v ? v->as_uint() : 0; }

}  // namespace

CNum eval_read(const Expr& e, const ExprEnv& env) {
  switch (e.kind) {
    case Expr::Int:
      if (e.value >= INT32_MIN && e.value <= INT32_MAX) return CNum::s32(e.value);
      return CNum::s64(e.value);
    case Expr::Ident: {
      CNum out;
      if (env.local && env.local(env.self, e.name, out)) return out;
      uint64_t g = 0;
      if (env.ctx && env.ctx(env.self, e.name, g)) return CNum::u64(g);
      throw DecodeError(env.s, "unknown name '" + e.name + "' in an expression");
    }
    case Expr::Unary: {
      CNum a = eval_read(e.args[0], env);
      if (is_op(e.name, "!")) return CNum::s32(a.v == 0);
      if (is_op(e.name, "-")) return norm(uint64_t(0) - a.v, a.sign, a.wide);
      if (is_op(e.name, "~")) return norm(~a.v, a.sign, a.wide);
      return a;
    }
    case Expr::Binary: {
      if (is_op(e.name, "&&")) {
        if (eval_read(e.args[0], env).v == 0) return CNum::s32(0);
        return CNum::s32(eval_read(e.args[1], env).v != 0);
      }
      if (is_op(e.name, "||")) {
        if (eval_read(e.args[0], env).v != 0) return CNum::s32(1);
        return CNum::s32(eval_read(e.args[1], env).v != 0);
      }
      const CNum a = eval_read(e.args[0], env), b = eval_read(e.args[1], env);
      if (is_op(e.name, "-")) {
        if (b.v > a.v) [[unlikely]] minus_(a.v, b.v, gen::expr_text(e).c_str(), env.s);  // throws: the text made only then
        return CNum::u64(a.v - b.v);
      }
      return binary(e.name, a, b, e, env);
    }
    case Expr::Ternary: {
      // Only the branch taken is evaluated, as in the generated C++: the
      // other may not be (`n != 0 ? n - 1 : 0` with n = 0). Its type still
      // counts for the result's; when it cannot be evaluated, the taken
      // branch's type stands alone.
      const bool first = eval_read(e.args[0], env).v != 0;
      const CNum taken = eval_read(e.args[first ? 1 : 2], env);
      CNum other = taken;
      try {
        other = eval_read(e.args[first ? 2 : 1], env);
      } catch (const DecodeError&) {
      }
      bool sign, wide;
      common(taken, other, sign, wide);
      return as(taken, sign, wide);
    }
    case Expr::Call:
      if (e.fn == Fn::Until) return CNum::u64(until_(*env.o, eval_read(e.args[0], env).v));
      if (e.fn == Fn::FileSize) return CNum::u64(env.file_size);
      if (e.fn == Fn::Max || e.fn == Fn::Sum) {
        const gen::Field* arr = e.args[0].kind == Expr::Ident && env.st ? env.st->field(e.args[0].name) : nullptr;
        if (arr && arr->array.on) return CNum::u64(eval_model(e, env));
        return CNum::u64(std::max<uint64_t>(eval_read(e.args[0], env).v, eval_read(e.args[1], env).v));
      }
      break;
  }
  throw DecodeError(env.s, gen::expr_text(e) + ": not evaluated on read at run time");
}

uint64_t eval_model(const Expr& e, const ExprEnv& env) {
  const Value& x = *env.model;
  const gen::Struct& st = *env.st;
  switch (e.kind) {
    case Expr::Int: return static_cast<uint64_t>(e.value);
    case Expr::Ident: {
      const size_t dot = e.name.find('.');
      if (dot != std::string::npos) {
        const Value* w = model_field(x, e.name.substr(0, dot));
        return num(w ? w->find(e.name.substr(dot + 1)) : nullptr);
      }
      const gen::Field* f = st.field(e.name);
      if (!f) {
        uint64_t g = 0;
        if (env.ctx && env.ctx(env.self, e.name, g)) return g;
        return 0;
      }
      if (!f->resolved.count_for.empty()) {
        const Value* a = model_field(x, f->resolved.count_for);
        return a ? a->items().size() : 0;
      }
      if (f->role.const_int) return static_cast<uint64_t>(*f->role.const_int);
      return num(model_field(x, f->name));
    }
    case Expr::Unary: {
      const uint64_t a = eval_model(e.args[0], env);
      if (is_op(e.name, "!")) return a == 0;
      if (is_op(e.name, "-")) return uint64_t(0) - a;
      if (is_op(e.name, "~")) return ~a;
      return a;
    }
    case Expr::Binary: {
      const uint64_t a = eval_model(e.args[0], env), b = eval_model(e.args[1], env);
      const std::string& op = e.name;
      if (is_op(op, "+")) return a + b;
      if (is_op(op, "-")) return a - b;
      if (is_op(op, "*")) return a * b;
      if (is_op(op, "/")) return b ? a / b : 0;
      if (is_op(op, "%")) return b ? a % b : 0;
      if (is_op(op, "&")) return a & b;
      if (is_op(op, "|")) return a | b;
      if (is_op(op, "^")) return a ^ b;
      if (is_op(op, "<<")) return a << (b & 63);
      if (is_op(op, ">>")) return a >> (b & 63);
      if (is_op(op, "==")) return a == b;
      if (is_op(op, "!=")) return a != b;
      if (is_op(op, "<")) return a < b;
      if (is_op(op, ">")) return a > b;
      if (is_op(op, "<=")) return a <= b;
      if (is_op(op, ">=")) return a >= b;
      if (is_op(op, "&&")) return a && b;
      if (is_op(op, "||")) return a || b;
      return 0;
    }
    case Expr::Ternary: return eval_model(e.args[0], env) ? eval_model(e.args[1], env) : eval_model(e.args[2], env);
    case Expr::Call: {
      if (e.fn == Fn::Count) {
        const Value* cur = &x;
        const std::string& path = e.args[0].name;
        for (size_t from = 0;;) {
          const size_t dot = path.find('.', from);
          cur = cur ? cur->find(path.substr(from, dot == std::string::npos ? std::string::npos : dot - from)) : nullptr;
          if (dot == std::string::npos) break;
          from = dot + 1;
        }
        if (!cur) return 0;
        return cur->kind == Value::Kind::Bytes || cur->kind == Value::Kind::String ? cur->str().size() : cur->items().size();
      }
      if (e.fn == Fn::Max || e.fn == Fn::Sum) {
        const gen::Field* arr = e.args[0].kind == Expr::Ident ? st.field(e.args[0].name) : nullptr;
        if (arr && arr->array.on) {
          const Value* a = model_field(x, arr->name);
          uint64_t t = 0;
          // A plain number field of the elements (sum(nodes, sync_count)):
          // found by its member index (checked by name), not by a search
          // of the field list and the members per element.
          const Expr& by = e.args[1];
          const gen::Field* k = by.kind == Expr::Ident && arr->type.st && by.name.find('.') == std::string::npos ? arr->type.st->field(by.name) : nullptr;
          if (a && k && k->in_model() && k->resolved.count_for.empty() && !k->role.const_int) {
            size_t m = 0;
            for (const auto& g : arr->type.st->fields) {
              if (g.get() == k) break;
              if (g->in_model()) ++m;
            }
            for (const Value& el : a->items()) {
              const auto& fl = el.fields();
              const uint64_t v = m < fl.size() && fl[m].name == by.name ? fl[m].value.as_uint() : num(el.find(by.name));
              t = e.fn == Fn::Max ? std::max(t, v) : t + v;
            }
            return t;
          }
          if (a)
            for (const Value& el : a->items()) {
              ExprEnv inner = env;
              inner.model = &el;
              inner.st = arr->type.st;
              const uint64_t v = eval_model(e.args[1], inner);
              t = e.fn == Fn::Max ? std::max(t, v) : t + v;
            }
          return t;
        }
        return std::max(eval_model(e.args[0], env), eval_model(e.args[1], env));
      }
      if (e.fn == Fn::Has) {
        const Value* v = model_field(x, e.args[0].name);
        return v && !v->is_absent();
      }
      if (e.fn == Fn::Items) {
        const gen::Field* u = st.field(e.args[0].name);
        const Value* v = model_field(x, e.args[0].name);
        if (!u || !v || v->kind != Value::Kind::Union) return 0;
        for (const auto& c : u->variant.cases)
          if (c.name == v->case_name()) {
            const gen::Field& p = *c.field;
            if (p.array.on && !p.array.fixed_count) return v->items().empty() ? 0 : v->items()[0].items().size();
            return p.items.value_or(p.array.fixed_count.value_or(1));
          }
        return 0;
      }
      auto str_arg = [&](const Expr& a) -> std::string {
        const size_t dot = a.name.find('.');
        const Value* v = model_field(x, a.name.substr(0, dot));
        if (v && dot != std::string::npos) v = v->find(a.name.substr(dot + 1));
        return v ? v->str() : std::string();
      };
      if (e.fn == Fn::Mulhash) return mulhash32(str_arg(e.args[0]), static_cast<uint32_t>(eval_model(e.args[1], env)));
      if (e.fn == Fn::Fnv1a32 || e.fn == Fn::Murmur3 || e.fn == Fn::Crc32) {
        const Expr& a = e.args[0];
        std::string arg;
        if (a.kind == Expr::Call) {
          const std::string whole = str_arg(a.args[0]);
          arg = std::string(a.fn == Fn::Stem ? path_stem(whole) : path_extension(whole));
        } else {
          arg = str_arg(a);
        }
        return e.fn == Fn::Fnv1a32 ? fnv1a32(arg) : e.fn == Fn::Crc32 ? crc32(arg) : murmur3_x86_32(arg);
      }
      return 0;
    }
  }
  return 0;
}

}  // namespace binschema::dynamic
