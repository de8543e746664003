// The expression language of `count:` and `derive:`.
//
//   expr    := or ('?' expr ':' expr)?
//   or      := and ('||' and)*          ... down through the C precedence
//   unary   := ('-' | '!' | '~') unary | primary
//   primary := integer | name | name '(' [expr (',' expr)*] ')' | '(' expr ')'
//
// Names are fields of the struct being read or written; functions are those
// of Fn (schema.h): count(f), file_size(), start(r), end(r), size(r),
// fnv1a32(f), murmur3(f), max(a, e), ..., resolved here once (an unknown name
// is an error at the expression); validate.cpp checks their arguments.
#include <cctype>

#include "schema.h"

namespace binschema::gen {
namespace {

Fn function_named(const std::string& name) {
  static const std::pair<const char*, Fn> fns[] = {
      {"count", Fn::Count}, {"file_size", Fn::FileSize}, {"start", Fn::Start}, {"end", Fn::End},
      {"size", Fn::Size},   {"fnv1a32", Fn::Fnv1a32},    {"murmur3", Fn::Murmur3}, {"until", Fn::Until},
      {"items", Fn::Items}, {"sum", Fn::Sum},            {"max", Fn::Max},       {"mulhash", Fn::Mulhash},
      {"has", Fn::Has},     {"stem", Fn::Stem},          {"extension", Fn::Extension}, {"crc32", Fn::Crc32}};
  for (const auto& [n, fn] : fns)
    if (name == n) return fn;
  return Fn::None;
}

class ExprParser {
 public:
  ExprParser(const std::string& t, const Loc& loc) : t_(t), loc_(loc) {}

  Expr parse() {
    Expr e = ternary();
    skip();
    if (p_ != t_.size()) fail("unexpected '" + t_.substr(p_) + "'");
    return e;
  }

 private:
  [[noreturn]] void fail(const std::string& m) const {
    throw SchemaError(loc_, "in expression '" + t_ + "': " + m);
  }
  void skip() {
    while (p_ < t_.size() && std::isspace(static_cast<unsigned char>(t_[p_]))) ++p_;
  }
  bool eat(const char* op) {
    skip();
    size_t n = std::char_traits<char>::length(op);
    if (t_.compare(p_, n, op) != 0) return false;
    // Do not take '<' out of '<<' or '<=', nor '|' out of '||', etc.
    if (n == 1 && p_ + 1 < t_.size()) {
      char c = t_[p_], d = t_[p_ + 1];
      if ((c == '<' || c == '>') && (d == c || d == '=')) return false;
      if ((c == '&' || c == '|') && d == c) return false;
      if ((c == '!' || c == '=') && d == '=') return false;
    }
    p_ += n;
    return true;
  }
  Expr make(Expr::Kind k, std::string name, std::vector<Expr> args) {
    Expr e;
    e.kind = k;
    e.name = std::move(name);
    e.args = std::move(args);
    e.loc = loc_;
    return e;
  }
  Expr ternary() {
    Expr c = binary(0);
    if (eat("?")) {
      Expr a = ternary();
      if (!eat(":")) fail("expected ':'");
      Expr b = ternary();
      return make(Expr::Ternary, "?:", {c, a, b});
    }
    return c;
  }
  Expr binary(int level) {
    static const std::vector<std::vector<const char*>> levels = {
        {"||"}, {"&&"}, {"|"}, {"^"}, {"&"}, {"==", "!="}, {"<=", ">=", "<", ">"},
        {"<<", ">>"}, {"+", "-"}, {"*", "/", "%"}};
    if (level == static_cast<int>(levels.size())) return unary();
    Expr l = binary(level + 1);
    for (;;) {
      const char* found = nullptr;
      for (const char* op : levels[level])
        if (eat(op)) {
          found = op;
          break;
        }
      if (!found) return l;
      Expr r = binary(level + 1);
      l = make(Expr::Binary, found, {l, r});
    }
  }
  Expr unary() {
    for (const char* op : {"-", "!", "~"})
      if (eat(op)) return make(Expr::Unary, op, {unary()});
    return primary();
  }
  Expr primary() {
    skip();
    if (p_ >= t_.size()) fail("unexpected end");
    if (eat("(")) {
      Expr e = ternary();
      if (!eat(")")) fail("expected ')'");
      return e;
    }
    char c = t_[p_];
    if (std::isdigit(static_cast<unsigned char>(c))) {
      size_t start = p_;
      while (p_ < t_.size() && std::isalnum(static_cast<unsigned char>(t_[p_]))) ++p_;
      std::string lit = t_.substr(start, p_ - start);
      Expr e = make(Expr::Int, lit, {});  // name keeps the spelling (0x417) for messages and docs
      // 010 would be octal to C and decimal to a reader: refused as in the rest of a schema.
      if (lit.size() > 1 && lit[0] == '0' && std::isdigit(static_cast<unsigned char>(lit[1])))
        fail("'" + lit + "' has a leading 0 (write " + lit.substr(lit.find_first_not_of('0') == std::string::npos ? lit.size() - 1 : lit.find_first_not_of('0')) + ", or 0x.. for hex)");
      try {
        size_t used = 0;
        e.value = static_cast<int64_t>(std::stoull(lit, &used, 0));
        if (used != lit.size()) throw std::invalid_argument(lit);
      } catch (const std::exception&) {
        fail("bad number '" + lit + "'");
      }
      return e;
    }
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      size_t start = p_;
      // A dotted name (bits.sub, a.b in count()) is one identifier.
      while (p_ < t_.size() && (std::isalnum(static_cast<unsigned char>(t_[p_])) || t_[p_] == '_' ||
                                (t_[p_] == '.' && p_ + 1 < t_.size() && (std::isalpha(static_cast<unsigned char>(t_[p_ + 1])) || t_[p_ + 1] == '_'))))
        ++p_;
      std::string name = t_.substr(start, p_ - start);
      if (eat("(")) {
        std::vector<Expr> args;
        if (!eat(")")) {
          do args.push_back(ternary());
          while (eat(","));
          if (!eat(")")) fail("expected ')'");
        }
        Expr call = make(Expr::Call, name, std::move(args));
        call.fn = function_named(name);
        if (call.fn == Fn::None) throw SchemaError(loc_, "unknown function '" + name + "'");
        return call;
      }
      return make(Expr::Ident, name, {});
    }
    fail(std::string("unexpected '") + c + "'");
  }

  const std::string& t_;
  Loc loc_;
  size_t p_ = 0;
};

}  // namespace

Expr parse_expr(const std::string& text, const Loc& loc) { return ExprParser(text, loc).parse(); }

namespace {
int precedence(const Expr& e) {
  if (e.kind == Expr::Ternary) return 0;
  if (e.kind != Expr::Binary) return 100;
  static const std::pair<const char*, int> ops[] = {
      {"||", 1}, {"&&", 2}, {"|", 3},  {"^", 4},  {"&", 5},  {"==", 6}, {"!=", 6}, {"<", 7},  {"<=", 7}, {">", 7},
      {">=", 7}, {"<<", 8}, {">>", 8}, {"+", 9},  {"-", 9},  {"*", 10}, {"/", 10}, {"%", 10}};
  for (const auto& [op, p] : ops)
    if (e.name == op) return p;
  return 100;
}

bool file_size_only(const Expr& e, bool& uses_size) {
  switch (e.kind) {
    case Expr::Int: return true;
    case Expr::Call:
      uses_size = uses_size || e.fn == Fn::FileSize;
      return e.fn == Fn::FileSize;
    case Expr::Ident: return false;
    default:
      for (const auto& a : e.args)
        if (!file_size_only(a, uses_size)) return false;
      return true;
  }
}
}  // namespace

bool checks_file_size(const Expr& e) {
  bool uses_size = false;
  return file_size_only(e, uses_size) && uses_size;
}

std::string expr_text(const Expr& e) {
  auto operand = [&](const Expr& a, bool right) {
    const int pa = precedence(a), pe = precedence(e);
    std::string t = expr_text(a);
    if (pa < pe || (right && pa == pe && pe < 100)) {
      // Built in place: GCC 12 warns (wrongly, -Wrestrict) on "(" + t + ")".
      t.insert(t.begin(), '(');
      t.push_back(')');
    }
    return t;
  };
  switch (e.kind) {
    case Expr::Int: return e.name.empty() ? std::to_string(e.value) : e.name;  // as spelt in the schema
    case Expr::Ident: return e.name;
    case Expr::Unary: return e.name + operand(e.args[0], true);
    case Expr::Binary: return operand(e.args[0], false) + " " + e.name + " " + operand(e.args[1], true);
    case Expr::Ternary: return operand(e.args[0], false) + " ? " + expr_text(e.args[1]) + " : " + expr_text(e.args[2]);
    case Expr::Call: {
      std::string a;
      for (const auto& x : e.args) a += (a.empty() ? "" : ", ") + expr_text(x);
      return e.name + "(" + a + ")";
    }
  }
  return "";
}

}  // namespace binschema::gen
