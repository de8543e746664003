// Kaitai Struct back end: a .ksy (Kaitai Struct 0.11) that describes what
// the reader reads, for Kaitai's Web IDE and ksv to show a file as a tree
// over its bytes.
//
// How the schema maps:
// - each struct is a type (CamelCase -> snake_case), the root struct the
//   top level; inline fields are `seq:` entries, with padding where fixed
//   offsets leave gaps;
// - a pointer is read as its raw offset (`ofs_<name>`) and its target is a
//   positional instance (`pos:`) on the whole file (`io: _root._io`); an
//   offset relative to its struct adds the struct's start, which each such
//   type takes as a parameter;
// - arrays of pointers are arrays of a small `ptrN_to_<type>` whose
//   `target` instance is the element (`strN_in_<pool>` for pooled strings);
// - a union is a `switch-on` over its tag, with `<union>_case` naming the
//   case (an enum); a case Kaitai cannot read as one type, or a number
//   beside cases of other types, gets a `..._payload` type holding it as
//   `value`; a union whose case is in the
//   top bits of a pointer word (tag_shift:) is a type with one `if:`-guarded
//   instance per case;
// - dictionaries (DIC) are read entry by entry, and a name kept in one
//   (virtual:) is an instance reading entry index + 1;
// - string and block pools are not read as a whole: each string or block is
//   read where an offset names it (scoped pools from their struct's start);
// - a bit-packed word is a type holding the raw word with one instance per
//   bit field;
// - derived values (sizes, counts, hashes, offsets) are read and shown as
//   they are in the file; what the writer computes is said in `doc:`;
// - where Kaitai cannot say something, the field's `doc:` says so.
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>

#include "generate.h"
#include "namer.h"

namespace binschema::gen {

namespace {

std::string snake(const std::string& camel) {
  std::string r;
  for (size_t i = 0; i < camel.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(camel[i]);
    if (std::isupper(c)) {
      const bool prev_lower = i > 0 && (std::islower(static_cast<unsigned char>(camel[i - 1])) || std::isdigit(static_cast<unsigned char>(camel[i - 1])));
      const bool next_lower = i + 1 < camel.size() && std::islower(static_cast<unsigned char>(camel[i + 1]));
      const bool prev_upper = i > 0 && std::isupper(static_cast<unsigned char>(camel[i - 1]));
      if (!r.empty() && r.back() != '_' && (prev_lower || (prev_upper && next_lower))) r += '_';
      r += static_cast<char>(std::tolower(c));
    } else {
      r += static_cast<char>(c);
    }
  }
  return r;
}

// A YAML double-quoted scalar (JSON's escapes are YAML's too).
std::string q(const std::string& s) { return json_string_literal(s); }

std::string trim(std::string t) {
  while (!t.empty() && (t.back() == '\n' || t.back() == ' ')) t.pop_back();
  return t;
}

std::string hexs(uint64_t v) {
  char b[24];
  std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(v));
  return b;
}

// How a 24-bit integer reads: Kaitai has no u3, but bit fields of either
// bit order (b24le, b24be), which the schema's byte order picks; set per run.
// With the byte order chosen at run time, the big-endian reading is given
// (field docs say so).
bool g_big24 = false;

const char* ks_prim(Prim p) {
  switch (p) {
    case Prim::U24: case Prim::S24: return g_big24 ? "b24be" : "b24le";
    case Prim::U8: case Prim::Bool8: return "u1";
    case Prim::U16: return "u2";
    case Prim::U32: case Prim::Bool32: return "u4";
    case Prim::U64: return "u8";
    case Prim::S8: return "s1";
    case Prim::S16: return "s2";
    case Prim::S32: return "s4";
    case Prim::S64: return "s8";
    case Prim::F32: return "f4";
    case Prim::F64: return "f8";
  }
  return "u4";
}

const char* ks_uint(int bytes) { return bytes == 8 ? "u8" : bytes == 2 ? "u2" : bytes == 1 ? "u1" : "u4"; }

// bom: {MARK: order} as text: 'YB' little, 'BY' big.
std::string marks_text(const Field& f) {
  std::string t;
  for (const auto& [m, big] : f.bom_marks) t += std::string(t.empty() ? "" : ", ") + "'" + m + "' " + (big ? "big" : "little") + "-endian";
  return t;
}

// Something Kaitai cannot say: the field gets a doc saying so instead.
struct Gap : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// One attribute (a seq entry or an instance): its keys in order.
struct Attr {
  std::string id;
  std::vector<std::pair<std::string, std::string>> keys;  // values already YAML
  std::string doc;
  void set(const std::string& k, const std::string& v) { keys.emplace_back(k, v); }
};

struct KType {
  std::string id, doc;
  std::vector<std::pair<std::string, std::string>> params;  // id, type
  std::vector<Attr> seq, instances;
  std::vector<std::pair<std::string, std::vector<std::pair<int64_t, std::string>>>> enums;
};

class KsyGen {
 public:
  explicit KsyGen(const Schema& s) : s_(s) {}

  std::string run() {
    g_big24 = s_.big_endian;
    if (s_.endian_by_bom)
      if (const Field* b = s_.find(s_.root)->field(s_.bom_field); b && !b->bom_marks.empty()) g_big24 = b->bom_marks[0].second;
    const Struct* root = s_.find(s_.root);
    // Which structs need their start as a parameter (they hold offsets
    // relative to themselves); the root starts at 0 and takes none.
    for (const auto& st : s_.structs) {
      bool rel = false;
      auto look = [&](const Field& f) { rel = rel || ((f.pointer.width || f.pointer.elem_width) && f.pointer.base == Field::Base::Struct); };
      for (const auto& f : st->fields) {
        look(*f);
        for (const auto& c : f->variant.cases) look(*c.field);
      }
      if (rel && st.get() != root) needs_start_.insert(st.get());
    }
    // Elements named in a dictionary take their index in the array.
    for (const auto& st : s_.structs)
      for (const auto& f : st->fields)
        if (f->kind == FieldKind::Virtual) needs_index_.insert(st.get());
    // A pointer whose target runs up to the next element's target (extent:
    // next): its struct, an element of an array, takes its index.
    for (const auto& p : s_.structs)
      for (const auto& arr : p->fields)
        if (arr->kind == FieldKind::InlineArray && arr->type.kind == ValueType::Struct)
          for (const auto& f : arr->type.st->fields)
            if (f->pointer.extent_next && f->kind == FieldKind::Pointer && f->pointer.base == Field::Base::File) {
              needs_index_.insert(arr->type.st);
              extents_.push_back({arr.get(), f.get()});
            }
    // A scoped pool's offsets count from its struct's start.
    for (const auto& p : s_.pools)
      if (!p.scope.empty() && p.scope != s_.root)
        if (const Struct* st = s_.find(p.scope)) needs_start_.insert(st);
    KType top = struct_type(*root);
    if (s_.endian_by_bom) {
      // The byte order must be known before the root's first field is read:
      // the mark is read ahead at its fixed offset, byte order aside.
      const Field* bom = root->field(s_.bom_field);
      Attr peek;
      peek.id = s_.bom_field + "_ahead";
      peek.set("pos", hexs(bom ? bom->resolved.offset : 0));
      if (bom && !bom->bom_marks.empty()) {
        // The magic's bytes as a big-endian number (the cases below are its marks).
        peek.set("type", "u" + std::to_string(bom->type.chars) + "be");
        peek.doc = "`" + s_.bom_field + "` read ahead, to pick the byte order of everything else (its text: " + marks_text(*bom) + ").";
      } else {
        peek.set("type", "u2be");
        peek.doc = "`" + s_.bom_field + "` read ahead, to pick the byte order of everything else (0xfeff big-endian, 0xfffe little-endian).";
      }
      top.instances.insert(top.instances.begin(), peek);
    }
    for (const auto& p : s_.pools) {
      // A pool placed by its base: field (SARC's name table): where it starts,
      // from the sizes of the fields before it (as the reader computes it).
      const Field* pf = placed_start(p);
      if (!pf) continue;
      std::string pos;
      bool started = false;
      for (const auto& g : root->fields) {
        if (g.get() == pf) break;
        bool cursor = g->read_at_cursor();
        if (!started && !cursor) continue;
        if (!started) pos = hexs(g->resolved.offset);
        started = true;
        pos += g->resolved.fixed_size ? " + " + hexs(g->resolved.size) : " + " + g->array.count->name + " * " + hexs(g->type.st->size);
      }
      if (!started) pos = hexs(pf->resolved.offset);
      const uint64_t al = std::max(p.align, p.block_align);
      Attr at;
      at.id = p.base + "_start";
      at.set("value", "(" + pos + " + " + std::to_string(al - 1) + ") / " + std::to_string(al) + " * " + std::to_string(al));
      at.doc = "Where pool `" + p.name + "` starts (the field `" + p.base + "` places it): its strings' offsets count from here.";
      top.instances.push_back(at);
    }
    for (const auto& st : s_.structs)
      if (st.get() != root) types_.push_back(struct_type(*st));
    if (need_pascal_) {
      KType p;
      p.id = "pascal16";
      p.doc = "A string stored as a u16 length, the bytes, then a NUL.";
      Attr len;
      len.id = "len";
      len.set("type", "u2");
      Attr v;
      v.id = "value";
      v.set("type", "str");
      v.set("size", "len");
      v.set("encoding", "UTF-8");
      p.seq = {len, v};
      types_.push_back(p);
    }

    std::ostringstream o;
    o << "# Generated by binschema-gen from " << s_.file << ". Do not edit: edit the schema.\n";
    o << "# Kaitai Struct " << "0.11: open it in the Kaitai Web IDE or ksv to browse a file.\n";
    o << "meta:\n";
    o << "  id: " << snake(s_.format) << "\n";
    if (!s_.title.empty()) o << "  title: " << q(s_.title) << "\n";
    if (!s_.extensions.empty()) {
      o << "  file-extension:\n";
      for (const auto& e : s_.extensions) o << "    - " << q(e.size() > 1 && e[0] == '.' ? e.substr(1) : e) << "\n";
    }
    o << "  ks-version: 0.11\n";
    const Field* bomf = s_.endian_by_bom ? s_.find(s_.root)->field(s_.bom_field) : nullptr;
    if (bomf && !bomf->bom_marks.empty()) {  // each mark as a big-endian number
      o << "  endian:\n    switch-on: _root." << s_.bom_field << "_ahead\n    cases:\n";
      for (const auto& [m, big] : bomf->bom_marks) {
        uint64_t v = 0;
        for (unsigned char ch : m) v = v << 8 | ch;
        o << "      " << hexs(v) << ": " << (big ? "be" : "le") << "\n";
      }
    } else if (s_.endian_by_bom)  // the mark is read as u2be: 0xFEFF for bytes FE FF
      o << "  endian:\n    switch-on: _root." << s_.bom_field << "_ahead\n    cases:\n      0xfeff: be\n      0xfffe: le\n";
    else
      o << "  endian: " << (s_.big_endian ? "be" : "le") << "\n";
    std::string doc = trim(s_.doc);
    std::string about = "Generated from the binschema schema " + s_.file +
                        " (what binschema's reader reads; binschema also writes the format).";
    if (!s_.pools.empty()) {
      std::string names;
      for (const auto& p : s_.pools) names += (names.empty() ? "`" : ", `") + p.name + "`";
      about += " Pools (" + names + ") are not read as a whole: each string or block is read where an offset names it" +
               " (the `ofs_` fields), so a string stored once and named twice shows twice.";
    }
    if (s_.relocation_table)
      about += " The relocation table (RELT) at the end of the file, which lists every pointer slot, is not described.";
    if (!gaps_.empty()) {
      about += " What this description cannot say (see the doc of each):";
      for (const auto& g : gaps_) about += "\n- " + g;
    }
    o << "doc: " << q(doc.empty() ? about : doc + "\n\n" + about) << "\n";
    write_body(o, top, 0);
    o << "types:\n";
    for (const auto& t : types_) {
      o << "  " << t.id << ":\n";
      if (!t.doc.empty()) o << "    doc: " << q(t.doc) << "\n";
      write_body(o, t, 4);
    }
    return o.str();
  }

 private:
  // A value as YAML: quoted when a plain scalar would read as something else
  // (an expression with "? a : b" in it, say).
  static std::string plain(const std::string& v) {
    if (v.empty() || v[0] == '"') return v;
    const bool special = v.find(": ") != std::string::npos || v.find(" #") != std::string::npos ||
                         std::string("[]{}!&*?|>%@`',-").find(v[0]) != std::string::npos;
    return special ? q(v) : v;
  }

  void write_body(std::ostringstream& o, const KType& t, int indent) {
    const std::string in(static_cast<size_t>(indent), ' ');
    if (!t.params.empty()) {
      o << in << "params:\n";
      for (const auto& [id, type] : t.params) o << in << "  - id: " << id << "\n" << in << "    type: " << type << "\n";
    }
    auto attrs = [&](const std::vector<Attr>& list, bool is_seq) {
      for (const auto& a : list) {
        if (is_seq) o << in << "  - id: " << a.id << "\n";
        else o << in << "  " << a.id << ":\n";
        const std::string kin = in + "    ";
        for (const auto& [k, v] : a.keys) {
          if (!v.empty() && v[0] == '\n') {  // a block mapping, lines indented relative to the key
            o << kin << k << ":";
            std::istringstream lines(v.substr(1));
            std::string line;
            while (std::getline(lines, line)) o << "\n" << kin << "  " << line;
            o << "\n";
          } else {
            o << kin << k << ": " << plain(v) << "\n";
          }
        }
        if (!a.doc.empty()) o << kin << "doc: " << q(a.doc) << "\n";
      }
    };
    if (!t.seq.empty()) {
      o << in << "seq:\n";
      attrs(t.seq, true);
    }
    if (!t.instances.empty()) {
      o << in << "instances:\n";
      attrs(t.instances, false);
    }
    if (!t.enums.empty()) {
      o << in << "enums:\n";
      for (const auto& [name, values] : t.enums) {
        o << in << "  " << name << ":\n";
        for (const auto& [v, id] : values) o << in << "    " << v << ": " << id << "\n";
      }
    }
  }

  // Where the instance of a scoped pool's struct starts, seen from the
  // current struct: itself, or its parent when the scope struct holds it.
  std::string scope_start(const Pool& p) const {
    const Struct* scope = s_.find(p.scope);
    const bool is_root = scope && scope->name == s_.root;
    if (scope == cur_) return is_root ? "0" : "struct_start";
    if (scope)
      for (const auto& g : scope->fields)
        if (g->type.kind == ValueType::Struct && g->type.st == cur_ && !g->pointer.elem_width)
          return is_root ? "0" : "_parent.struct_start";
    throw Gap("is an offset in a string pool per " + p.scope + ", whose start Kaitai cannot reach from " + cur_->name);
  }

  // Where the block the current struct starts ends, for a `size: rest`
  // field: the end of its pointer's extent when one pointer leads to it.
  std::string rest_end() const {
    if (cur_->name == s_.root) return "_io.size";  // the root's block is the file
    const Field* only = nullptr;
    int refs = 0;
    for (const auto& st : s_.structs)
      for (const auto& g : st->fields) {
        if (g->type.kind == ValueType::Struct && g->type.st == cur_) ++refs, only = g.get();
        for (const auto& c : g->variant.cases)
          if (c.field->type.kind == ValueType::Struct && c.field->type.st == cur_) ++refs;
      }
    for (const auto& e : extents_)
      if (refs == 1 && e.pointer == only) return "_parent." + only->name + "_end";
    throw Gap("runs to the end of the block that holds it, which Kaitai cannot bound here");
  }

  // Where the current struct starts, for offsets relative to it.
  std::string start_expr() const { return cur_needs_start_ ? "struct_start" : "0"; }

  // A reference to a type, with the arguments it takes.
  std::string type_ref(const Struct* st, const std::string& start, const std::string& index = "_index") const {
    std::string id = snake(st->name), args;
    if (needs_start_.count(st)) args = start;
    if (needs_index_.count(st)) args += (args.empty() ? "" : ", ") + index;
    return args.empty() ? id : id + "(" + args + ")";
  }

  // An expression of the schema in Kaitai's expression language, as seen
  // from the type being built (`up`: "_parent." inside a union's type).
  std::string expr(const Expr& e) {
    switch (e.kind) {
      case Expr::Int: return std::to_string(e.value);
      case Expr::Ident: {
        const std::string head = e.name.substr(0, e.name.find('.'));
        const Field* f = cur_->field(head);
        if (!f) {
          if (std::find(s_.context.begin(), s_.context.end(), head) != s_.context.end()) {
            const Field* g = s_.find(s_.root)->field(head);
            return "_root." + std::string(g && g->pointer.width ? "ofs_" : "") + e.name;
          }
          throw Gap("names " + e.name);
        }
        return up_ + (f->pointer.width ? "ofs_" + e.name : e.name);
      }
      case Expr::Unary:
        if (e.name == "!") return "(not " + expr(e.args[0]) + ")";
        return "(" + e.name + expr(e.args[0]) + ")";
      case Expr::Binary: {
        std::string op = e.name == "&&" ? "and" : e.name == "||" ? "or" : e.name;
        return "(" + expr(e.args[0]) + " " + op + " " + expr(e.args[1]) + ")";
      }
      case Expr::Ternary: return "(" + expr(e.args[0]) + " ? " + expr(e.args[1]) + " : " + expr(e.args[2]) + ")";
      case Expr::Call:
        if (e.fn == Fn::FileSize) return "_root._io.size";
        if (e.fn == Fn::Count && e.args.size() == 1 && e.args[0].kind == Expr::Ident) return expr(e.args[0]) + ".size";
        if ((e.fn == Fn::Max || e.fn == Fn::Sum) && e.args.size() == 2) {
          // max(array, expr) and sum(array, expr) fold over an array; max(a, b) of two numbers.
          const Field* arr = e.args[0].kind == Expr::Ident ? cur_->field(e.args[0].name) : nullptr;
          if (arr && arr->array.on) return fold(e, *arr);
          if (e.fn == Fn::Max) return "[" + expr(e.args[0]) + ", " + expr(e.args[1]) + "].max";
        }
        throw Gap("uses " + e.name + "(), which Kaitai cannot compute here");
    }
    return "0";
  }

  // sum(ARRAY, E) or max(ARRAY, E) over an inline array of structs, as a
  // running fold: a zero-size instance `<field>_<fn>N` of the struct being
  // built repeats once per element, each step taking its index and the
  // previous step's result (Kaitai's JavaScript, Python and Ruby code fill
  // a repeated instance's array as they go, so step i sees step i - 1);
  // step i's `acc` is the fold up to element i. Empty array: 0, as in
  // binschema's reader.
  std::string fold(const Expr& e, const Field& arr) {
    if (arr.type.kind != ValueType::Struct || !cur_t_ || !cur_id_)
      throw Gap("uses " + e.name + "() over `" + arr.name + "`, which Kaitai cannot compute here");
    const std::string stem = *cur_id_ + "_" + e.name;
    const std::string inst = stem + std::to_string(folds_[snake(cur_->name) + "." + stem]++);
    KType t;
    t.id = snake(cur_->name) + "_" + inst;
    t.doc = "One step of `" + expr_text(e) + "`: `acc` is the " + (e.fn == Fn::Sum ? "sum" : "maximum") +
            " up to element `i` of `" + arr.name + "`.";
    t.params = {{"i", "u4"}, {"prev", "s8"}};
    // The element's expression, seen from the step (whose parent is the struct).
    const Struct* saved = cur_;
    const std::string saved_up = up_;
    up_ = "_parent." + up_ + arr.name + "[i]" + (arr.pointer.elem_width ? ".target" : "") + ".";
    cur_ = arr.type.st;
    std::string v;
    try {
      v = expr(e.args[1]);
    } catch (...) {
      cur_ = saved;
      up_ = saved_up;
      throw;
    }
    cur_ = saved;
    up_ = saved_up;
    Attr value;
    value.id = "v";
    value.set("value", v);
    value.doc = "The expression for element `i`.";
    Attr acc;
    acc.id = "acc";
    acc.set("value", e.fn == Fn::Sum ? "prev + v" : "(prev > v ? prev : v)");
    t.instances = {value, acc};
    types_.push_back(t);
    Attr step;
    step.id = inst;
    step.set("pos", "0");
    step.set("type", t.id + "(_index, _index == 0 ? 0 : " + inst + "[_index - 1].acc)");
    step.set("repeat", "expr");
    step.set("repeat-expr", up_ + arr.name + ".size");
    step.doc = "The steps of `" + expr_text(e) + "` (reads nothing).";
    cur_t_->instances.push_back(step);
    return "(" + up_ + arr.name + ".size == 0 ? 0 : " + inst + ".last.acc)";
  }

  std::string notes(const Field& f) const {
    std::string d = trim(f.doc);
    auto add = [&](const std::string& t) { d += (d.empty() ? "" : " ") + t; };
    if (f.type.kind == ValueType::Prim && (f.type.prim == Prim::Bool8 || f.type.prim == Prim::Bool32))
      add(f.true_value ? "A boolean: true is stored as " + hexs(*f.true_value) + ", false as 0." : "A boolean (0 or 1).");
    if (f.role.derive) add("Computed by the writer: `" + expr_text(*f.role.derive) + "` (shown as stored).");
    if (!f.resolved.count_for.empty()) add("Number of elements of `" + f.resolved.count_for + "` (written from the model).");
    if (!f.resolved.tag_for.empty()) add("Selects the case of `" + f.resolved.tag_for + "`.");
    if (f.cond) add("Present only when `" + expr_text(*f.cond) + "`.");
    if (!f.array.sort.empty()) add("Kept sorted by `" + f.array.sort + "` on write.");
    if (f.role.default_text) add("Default " + *f.role.default_text + ".");
    return d;
  }

  // Adds the seq entries and instances that read field f (or a union case,
  // named `id`) to t. `guard` is an extra `if:` condition (a union case).
  void field(KType& t, const Field& f, const std::string& id, const std::string& guard) {
    cur_t_ = &t;
    cur_id_ = &id;
    Attr a;
    a.id = id;
    a.doc = notes(f);
    std::string cond = guard;
    if (f.cond) cond = cond.empty() ? expr(*f.cond) : "(" + cond + ") and " + expr(*f.cond);
    auto repeat = [&](Attr& x) {
      if (f.array.fixed_count) {
        x.set("repeat", "expr");
        x.set("repeat-expr", std::to_string(*f.array.fixed_count));
      } else if (f.array.count) {
        if (f.array.count->calls(Fn::Until))
          throw Gap("runs until the offset `" + expr_text(f.array.count->args[0]) + "` (the reader stops there)");
        x.set("repeat", "expr");
        x.set("repeat-expr", expr(*f.array.count));
      } else {
        throw Gap("has no count Kaitai can read");
      }
    };
    auto guarded = [&](Attr& x, const std::string& extra) {
      std::string w = cond;
      if (!extra.empty()) w = w.empty() ? extra : "(" + w + ") and " + extra;
      if (!w.empty()) x.set("if", w);
    };
    // The raw offset, in the seq; the target becomes an instance at it.
    auto pointer = [&](const char* what) {
      Attr raw;
      raw.id = "ofs_" + id;
      raw.set("type", ks_uint(f.pointer.width));
      guarded(raw, "");
      raw.doc = std::string(f.pointer.base == Field::Base::Struct ? "Offset of " : "File offset of ") + what + " `" + id + "`" +
                (f.pointer.base == Field::Base::Struct ? ", from the start of this struct." : ".");
      if (f.pointer.null == Field::Null::Allowed) raw.doc += " " + hexs(f.pointer.null_value) + " when absent.";
      if (f.pointer.null == Field::Null::WhenEmpty) raw.doc += " 0 when empty.";
      t.seq.push_back(raw);
      a.set("io", "_root._io");
      if (f.pointer.scale != 1) raw.doc += " In units of " + std::to_string(f.pointer.scale) + " bytes.";
      t.seq.back().doc = raw.doc;
      const std::string ofs = "ofs_" + id;
      const std::string bytes = f.pointer.scale != 1 ? ofs + " * " + std::to_string(f.pointer.scale) : ofs;
      a.set("pos", f.pointer.base == Field::Base::Struct ? start_expr() + " + " + bytes : bytes);
      return ofs;
    };
    switch (f.kind) {
      case FieldKind::Scalar:
        a.set("type", f.bom ? std::string("u2be") : ks_prim(f.type.prim));
        if (f.role.const_int) a.set("valid", std::to_string(*f.role.const_int));
        break;
      case FieldKind::BitWord: a.set("type", bits_type(f)); break;
      case FieldKind::Chars:
        a.set("type", "strz");
        a.set("size", std::to_string(f.type.chars));
        a.set("encoding", "UTF-8");
        if (f.role.const_text) a.doc += (a.doc.empty() ? "" : " ") + ("Always " + q(*f.role.const_text) + ".");
        break;
      case FieldKind::CString:
        a.set("type", "strz");
        a.set("encoding", "UTF-8");
        break;
      case FieldKind::Bytes:
        if (f.size_rest) {
          a.set("size", rest_end() + " - _io.pos");
          break;
        }
        if (!f.size_expr) throw Gap("has no size");
        if (f.size_expr->calls(Fn::Until))  // up to an offset
          a.set("size", expr(f.size_expr->args[0]) + " - _io.pos");
        else
          a.set("size", expr(*f.size_expr));
        break;
      case FieldKind::PoolBlock:
        // The block as bytes: each string is shown where an offset names it
        // (a pool placed by its base: field is not read as a block: size 0).
        a.set("size", f.size_rest ? rest_end() + " - _io.pos" : f.size_expr ? expr(*f.size_expr) : std::string("0"));
        a.doc += (a.doc.empty() ? "" : " ") + ("The strings of pool `" + f.pool + "`, as bytes; each is shown where it is used.");
        break;
      case FieldKind::InlineStruct: a.set("type", type_ref(f.type.st, "_io.pos")); break;
      case FieldKind::InlineArray:
        a.set("type", f.type.kind == ValueType::Struct ? type_ref(f.type.st, "_io.pos") : std::string(ks_prim(f.type.prim)));
        repeat(a);
        break;
      case FieldKind::StringOffsets:
        a.set("type", string_ref(f, 4));
        repeat(a);
        break;
      case FieldKind::ElemPointers:
        a.set("type", elem_ref(f));
        repeat(a);
        break;
      case FieldKind::OwnStrings:
        a.set("type", own_string_ref(f.pointer.elem_width));
        repeat(a);
        break;
      case FieldKind::Pointer:
      case FieldKind::BlockRef: {
        const std::string ofs = pointer(f.kind == FieldKind::BlockRef ? "the pooled block" : "the target of");
        a.set("type", type_ref(f.type.st, "_root._io.pos"));
        guarded(a, f.pointer.null == Field::Null::Allowed ? ofs + " != " + std::to_string(f.pointer.null_value) : "");
        t.instances.push_back(a);
        return;
      }
      case FieldKind::ArrayPointer: {
        pointer("the array");
        switch (f.type.kind) {
          case ValueType::Prim: a.set("type", ks_prim(f.type.prim)); break;
          case ValueType::Struct: a.set("type", f.pointer.elem_width ? elem_ref(f) : type_ref(f.type.st, "_root._io.pos")); break;
          case ValueType::String: a.set("type", string_ref(f, f.pointer.width)); break;
          case ValueType::Chars:
          case ValueType::Bytes:
          case ValueType::Union:
          case ValueType::CString:
          case ValueType::PoolBlock:
          case ValueType::Dic: throw Gap("points to an array of a type this back end does not describe");
        }
        repeat(a);
        guarded(a, "");
        t.instances.push_back(a);
        return;
      }
      case FieldKind::PooledString: {
        Attr raw;
        raw.id = "ofs_" + id;
        raw.set("type", ks_uint(f.pointer.width));
        guarded(raw, "");
        const Pool* p = s_.pool(f.pool);
        raw.doc = "Offset of the string `" + id + "` in pool `" + f.pool + "`" +
                  (p && !p->base.empty() ? ", from the pool's start (`" + p->base + "`)." : ".") +
                  (f.pointer.points_to_chars ? " It points at the characters, past the length." : "");
        t.seq.push_back(raw);
        std::string pos = "ofs_" + id;
        if (p && !p->base.empty()) pos = "_root." + p->base + " + " + pos;
        if (p && !p->scope.empty()) pos = scope_start(*p) + " + " + pos;
        if (f.pointer.points_to_chars) pos += " - 2";
        a.set("io", "_root._io");
        a.set("pos", pos);
        string_type(a, p);
        guarded(a, "");
        t.instances.push_back(a);
        return;
      }
      case FieldKind::Slice: {
        // Begin and end from the data pool's start (its base: field); the bytes are an instance.
        const Pool* p = s_.pool(f.pool);
        Attr b, e;
        b.id = "ofs_" + id;
        e.id = "end_" + id;
        b.set("type", ks_uint(f.pointer.width));
        e.set("type", ks_uint(f.pointer.width));
        guarded(b, "");
        guarded(e, "");
        b.doc = "Start of `" + id + "` in data pool `" + f.pool + "`, from its start (`" + p->base + "`).";
        e.doc = "End of `" + id + "` in data pool `" + f.pool + "`, from its start.";
        t.seq.push_back(b);
        t.seq.push_back(e);
        a.set("io", "_root._io");
        a.set("pos", "_root." + p->base + " + ofs_" + id);
        a.set("size", "end_" + id + " - ofs_" + id);
        guarded(a, "");
        t.instances.push_back(a);
        return;
      }
      case FieldKind::OwnString:
        pointer("the string");
        a.set("type", "pascal16");
        need_pascal_ = true;
        guarded(a, "");
        t.instances.push_back(a);
        return;
      case FieldKind::Dic:
        pointer("the dictionary (DIC) of the names of");
        a.set("type", dic_type(f.pool));
        a.doc += (a.doc.empty() ? "" : " ") + ("Entry i + 1 names element i of `" + f.keys_array + "`.");
        guarded(a, f.pointer.null == Field::Null::Never ? "" : "ofs_" + id + " != 0");
        t.instances.push_back(a);
        return;
      case FieldKind::Union:
        if (f.variant.tag_shift) {
          a.set("type", pointer_union_type(f));
        } else {
          // switch-on the tag; `<name>_case` shows the case's name.
          const std::string tag = up_ + f.variant.tag + (f.array.on ? "[_index]" : ""), enum_id = id + "_case";
          if (f.array.on) {
            // union[]: element i is the case tags[i] names (tags read before it only).
            const Field* tf = cur_->field(f.variant.tag);
            size_t ti = 0, ui = 0;
            for (size_t k = 0; k < cur_->fields.size(); ++k) {
              if (cur_->fields[k].get() == tf) ti = k;
              if (cur_->fields[k].get() == &f) ui = k;
            }
            if (ti > ui) throw Gap("takes its tags from `" + f.variant.tag + "`, which follows it");
            a.set("repeat", "expr");
            a.set("repeat-expr", up_ + expr_text(*f.array.count));
          }
          std::string cases;
          std::vector<std::pair<int64_t, std::string>> names;
          for (const auto& c : f.variant.cases) {
            try {
              cases += "\n  " + std::to_string(c.tag) + ": " + case_type(f, c);
            } catch (const Gap& g) {
              throw Gap("case `" + c.name + "` " + g.what());
            }
            names.emplace_back(c.tag, c.name);
          }
          a.set("type", "\nswitch-on: " + tag + "\ncases:" + cases);
          t.enums.emplace_back(enum_id, names);
          Attr which;
          which.id = id + "_case";
          which.set("value", tag);
          which.set("enum", enum_id);
          which.doc = "The case of `" + id + "`, by name.";
          if (!f.array.on) t.instances.push_back(which);  // (a union[] has one per element: no instance)
          std::string list;
          for (const auto& c : f.variant.cases) list += (list.empty() ? "" : ", ") + std::to_string(c.tag) + " " + c.name;
          a.doc += (a.doc.empty() ? "" : " ") + ("Cases by `" + f.variant.tag + "`: " + list + ".");
        }
        if (f.resolved.fixed_size && !f.array.on) a.set("size", std::to_string(f.resolved.size));
        break;
      case FieldKind::Virtual: {
        // The dictionary of the struct whose array holds this element.
        for (const auto& h : s_.structs)
          for (const auto& d : h->fields) {
            if (d->kind != FieldKind::Dic || d->keys_field != f.name) continue;
            const Field* arr = h->field(d->keys_array);
            if (!arr || arr->type.kind != ValueType::Struct || arr->type.st != cur_) continue;
            const Pool* p = s_.pool(d->pool);
            a.set("value", std::string(arr->pointer.elem_width ? "_parent._parent." : "_parent.") + d->name + ".entries[elem_index + 1].name" +
                               (p && p->kind == Pool::Kind::Pascal16 ? ".value" : ""));
            a.doc += (a.doc.empty() ? "" : " ") + ("Not stored here: entry elem_index + 1 of " + h->name + "." + d->name + ".");
            t.instances.push_back(a);
            return;
          }
        throw Gap("is not stored in the struct and no dictionary names it");
      }
    }
    guarded(a, "");
    t.seq.push_back(a);
    if (f.pad) {  // pad: zeros after the string up to a multiple of N
      Attr p;
      p.id = id + "_pad";
      p.set("size", "(" + std::to_string(f.pad) + " - _io.pos % " + std::to_string(f.pad) + ") % " + std::to_string(f.pad));
      p.doc = "Zero bytes after `" + id + "` up to a multiple of " + std::to_string(f.pad) + ".";
      guarded(p, "");
      t.seq.push_back(p);
    }
  }

  void string_type(Attr& a, const Pool* p) {
    if (p && p->kind == Pool::Kind::Pascal16) {
      a.set("type", "pascal16");
      need_pascal_ = true;
    } else {
      a.set("type", "strz");
      a.set("encoding", "UTF-8");
    }
  }

  // dic_<pool>: Nintendo's radix-tree dictionary (runtime/include/binschema/dic.h).
  std::string dic_type(const std::string& pool_name) {
    const Pool* p = s_.pool(pool_name);
    const std::string id = "dic_" + snake(pool_name), entry = "dic_entry_" + snake(pool_name);
    if (!made_.insert(id).second) return id;
    KType t;
    t.id = id;
    t.doc = "A dictionary (DIC): a radix tree over names; entry 0 is the root, entries 1..count name the elements in order.";
    Attr magic;
    magic.id = "magic";
    magic.set("contents", "\"DIC \"");
    Attr count;
    count.id = "count";
    count.set("type", "u4");
    Attr entries;
    entries.id = "entries";
    entries.set("type", entry);
    entries.set("repeat", "expr");
    entries.set("repeat-expr", "count + 1");
    t.seq = {magic, count, entries};
    types_.push_back(t);
    KType e;
    e.id = entry;
    e.doc = "A DIC entry: the bit that decides, the entries to follow for 0 and 1, the name.";
    Attr bit, left, right, ofs;
    bit.id = "bit";
    bit.set("type", "u4");
    bit.doc = "Compact bit index (byte << 3 | bit); 0xFFFFFFFF for the root.";
    left.id = "left";
    left.set("type", "u2");
    right.id = "right";
    right.set("type", "u2");
    ofs.id = "ofs_name";
    ofs.set("type", "u8");
    e.seq = {bit, left, right, ofs};
    Attr name;
    name.id = "name";
    name.set("io", "_root._io");
    name.set("pos", p && !p->base.empty() ? "_root." + p->base + " + ofs_name" : "ofs_name");
    string_type(name, p);
    e.instances.push_back(name);
    types_.push_back(e);
    return id;
  }

  // ptrN_to_pascal16: a pointer to a Pascal string of its own.
  std::string own_string_ref(int width) {
    std::string id = "ptr" + std::to_string(width * 8) + "_to_pascal16";
    need_pascal_ = true;
    if (!made_.insert(id).second) return id;
    KType t;
    t.id = id;
    t.doc = "A pointer to a string of its own (u16 length, bytes, NUL); `target` is the string.";
    Attr o;
    o.id = "ofs";
    o.set("type", ks_uint(width));
    t.seq.push_back(o);
    Attr tg;
    tg.id = "target";
    tg.set("io", "_root._io");
    tg.set("pos", "ofs");
    tg.set("type", "pascal16");
    t.instances.push_back(tg);
    types_.push_back(t);
    return id;
  }

  // ptr_to_<type>: an element pointer whose `target` is the element.
  std::string elem_ref(const Field& f) {
    if (f.type.kind != ValueType::Struct) throw Gap("is an array of pointers to something other than structs");
    return ptr_ref(f.type.st, f.pointer.elem_width, f.pointer.base == Field::Base::Struct,
                   f.pointer.null == Field::Null::Allowed ? std::optional<uint64_t>(f.pointer.null_value) : std::nullopt);
  }

  std::string ptr_ref(const Struct* st, int width, bool rel, std::optional<uint64_t> null_value) {
    std::string id = "ptr" + std::to_string(width * 8) + (rel ? "_rel" : "") + (null_value ? "_opt" : "") + "_to_" + snake(st->name);
    const bool indexed = needs_index_.count(st) > 0;
    std::string args = rel ? start_expr() : "";
    if (indexed) args += (args.empty() ? "" : ", ") + std::string("_index");
    const std::string ref = args.empty() ? id : id + "(" + args + ")";
    if (!made_.insert(id).second) return ref;
    KType t;
    t.id = id;
    t.doc = "A pointer to a " + st->name + "; `target` is what it points to.";
    if (rel) t.params.emplace_back("base", "u8");
    if (indexed) t.params.emplace_back("elem_index", "u4");
    Attr o;
    o.id = "ofs";
    o.set("type", ks_uint(width));
    t.seq.push_back(o);
    Attr tg;
    tg.id = "target";
    tg.set("io", "_root._io");
    tg.set("pos", rel ? "base + ofs" : "ofs");
    tg.set("type", type_ref(st, "_root._io.pos", "elem_index"));
    if (null_value) tg.set("if", "ofs != " + std::to_string(*null_value));
    t.instances.push_back(tg);
    types_.push_back(t);
    return ref;
  }

  // A u32 offset of a string in a pool, as an element: `target` is the string.
  std::string string_ref(const Field& f, int width) {
    const Pool* p = s_.pool(f.pool);
    if (!p) throw Gap("is an array of strings outside any pool");
    if (!p->scope.empty()) throw Gap("points into a string pool per " + p->scope);
    std::string id = "str" + std::to_string(width * 8) + "_in_" + snake(f.pool);
    if (!made_.insert(id).second) return id;
    KType t;
    t.id = id;
    t.doc = "The offset of a string in pool `" + f.pool + "`; `target` is the string.";
    Attr o;
    o.id = "ofs";
    o.set("type", ks_uint(width));
    t.seq.push_back(o);
    Attr tg;
    tg.id = "target";
    tg.set("io", "_root._io");
    tg.set("pos", p->base.empty() ? "ofs" : "_root." + p->base + " + ofs");
    string_type(tg, p);
    t.instances.push_back(tg);
    types_.push_back(t);
    return id;
  }

  // The root's pool field that places pool p and is its base: (nullptr for other pools).
  const Field* placed_start(const Pool& p) const {
    const Field* f = p.base.empty() ? nullptr : s_.find(s_.root)->field(p.base);
    return f && f->type.kind == ValueType::PoolBlock ? f : nullptr;
  }

  std::string bits_type(const Field& f) {
    std::string id = snake(cur_->name) + "_" + f.name + "_bits";
    KType t;
    t.id = id;
    t.doc = "The bits of `" + f.name + "`, from the least significant up.";
    Attr raw;
    raw.id = "raw";
    raw.set("type", ks_prim(f.type.prim));
    t.seq.push_back(raw);
    unsigned shift = 0;
    for (const auto& b : f.bits) {
      Attr x;
      x.id = b.name;
      std::string v = "(raw >> " + std::to_string(shift) + ") & " + hexs(b.width >= 64 ? ~0ull : (1ull << b.width) - 1);
      if (!b.pool.empty()) {
        const Pool* p = s_.pool(b.pool);
        {
          x.set("io", "_root._io");
          const bool placed = p && placed_start(*p) != nullptr;
          x.set("pos", (placed ? "_root." + p->base + "_start + " : p && !p->base.empty() ? "_root." + p->base + " + " : std::string()) +
                           (p && !p->scope.empty() ? scope_start(*p) + " + " : std::string()) + "(" + v + ")" +
                           (b.scale > 1 ? " * " + std::to_string(b.scale) : std::string()));
          x.set("type", "strz");
          x.set("encoding", "UTF-8");
        }
      } else {
        x.set("value", b.is_bool ? "(" + v + ") != 0" : v);
      }
      std::string d = trim(b.doc);
      // Appended piece by piece: GCC 12 warns (wrongly, -Wrestrict) on a concatenation here.
      if (!d.empty()) d += ' ';
      d += "Bits ";
      d += std::to_string(shift);
      d += '-';
      d += std::to_string(shift + b.width - 1);
      d += '.';
      if (b.default_text) d += " Default " + *b.default_text + ".";
      x.doc = d;
      t.instances.push_back(x);
      shift += b.width;
    }
    types_.push_back(t);
    return id;
  }

  // A union whose case is in the top bits of its pointer word (tag_shift:).
  std::string pointer_union_type(const Field& f) {
    std::string id = snake(cur_->name) + "_" + f.name + "_union";
    KType t;
    t.id = id;
    t.doc = "The cases of `" + f.name + "`: bits " + std::to_string(f.variant.tag_shift) +
            " and up of the word are the case, the bits below the offset (each case is a field named after it).";
    const int width = f.variant.cases.empty() ? 4 : f.variant.cases[0].field->pointer.width;
    Attr raw;
    raw.id = "raw";
    raw.set("type", ks_uint(width));
    t.seq.push_back(raw);
    const std::string ofs = "(raw & " + hexs((1ull << f.variant.tag_shift) - 1) + ")";
    for (const auto& c : f.variant.cases) {
      const Field& cf = *c.field;
      if (cf.type.kind != ValueType::Struct || cf.array.on)
        throw Gap("case `" + c.name + "` is a pointer to something other than one struct");
      if (cf.pointer.base == Field::Base::Struct) throw Gap("case `" + c.name + "` is an offset from its struct (base: struct)");
      if (cf.pointer.scale != 1 || cf.pointer.points_to_offset) throw Gap("case `" + c.name + "` is a scaled offset (scale:) or points inside its struct (points_to:)");
      Attr a;
      a.id = c.name;
      a.set("io", "_root._io");
      a.set("pos", ofs);
      a.set("type", type_ref(cf.type.st, "_root._io.pos"));
      a.set("if", "(raw >> " + std::to_string(f.variant.tag_shift) + ") == " + std::to_string(c.tag));
      std::string d = trim(c.doc.empty() ? cf.doc : c.doc);
      a.doc = d + (d.empty() ? "" : " ") + "(Case " + hexs(static_cast<uint64_t>(c.tag)) + ".)";
      t.instances.push_back(a);
    }
    types_.push_back(t);
    return id;
  }

  // The type a switch-on case reads: the payload itself where Kaitai can name
  // it in one type, else a `<struct>_<union>_<case>_payload` type holding it
  // as `value`.
  std::string case_type(const Field& u, const Case& c) {
    const Field& f = *c.field;
    // A scalar case is named as itself only when every case is that same
    // scalar: Kaitai's C++ back end cannot type a switch that mixes numbers
    // with user types or numbers of different types (AnyType).
    bool same_scalars = true;
    for (const Case& o : u.variant.cases)
      same_scalars = same_scalars && o.field->kind == FieldKind::Scalar && o.field->type.prim == f.type.prim;
    switch (f.kind) {
      case FieldKind::Scalar:
        if (same_scalars) return ks_prim(f.type.prim);
        break;
      case FieldKind::InlineStruct: return type_ref(f.type.st, "_io.pos");
      case FieldKind::Pointer:
      case FieldKind::BlockRef: return ptr_ref(f.type.st, f.pointer.width, f.pointer.base == Field::Base::Struct, f.pointer.null == Field::Null::Allowed ? std::optional<uint64_t>(f.pointer.null_value) : std::nullopt);
      case FieldKind::PooledString:
        if (!f.pointer.points_to_chars) return string_ref(f, f.pointer.width);
        break;
      case FieldKind::OwnString:
        if (f.pointer.base == Field::Base::Struct) throw Gap("is an offset from its struct (base: struct)");
        return own_string_ref(f.pointer.width);
      case FieldKind::BitWord:
      case FieldKind::Chars:
      case FieldKind::CString:
      case FieldKind::Bytes:
      case FieldKind::PoolBlock:
      case FieldKind::Slice:
      case FieldKind::InlineArray:
      case FieldKind::StringOffsets:
      case FieldKind::ElemPointers:
      case FieldKind::OwnStrings:
      case FieldKind::ArrayPointer:
      case FieldKind::Dic:
      case FieldKind::Union:
      case FieldKind::Virtual: break;
    }
    KType t;
    t.id = snake(cur_->name) + "_" + u.name + "_" + c.name + "_payload";
    t.doc = "Case `" + c.name + "` of `" + u.name + "`: `value` is the payload.";
    const bool rel = cur_needs_start_;
    if (rel) t.params.emplace_back("struct_start", "u8");
    const std::string saved_up = up_;
    up_ = "_parent.";  // the payload's type sits in the union's struct
    KType* const saved_t = cur_t_;
    const std::string* const saved_id = cur_id_;
    field(t, f, "value", "");
    cur_t_ = saved_t;
    cur_id_ = saved_id;
    up_ = saved_up;
    types_.push_back(t);
    return rel ? t.id + "(struct_start)" : t.id;
  }

  KType struct_type(const Struct& st) {
    KType t;
    t.id = snake(st.name);
    t.doc = trim(st.doc);
    cur_ = &st;
    cur_needs_start_ = needs_start_.count(&st) > 0;
    up_ = "";
    if (cur_needs_start_) t.params.emplace_back("struct_start", "u8");
    if (needs_index_.count(&st)) t.params.emplace_back("elem_index", "u4");
    bool known = true;  // the position within the struct is known
    uint64_t at = 0;
    int pads = 0;
    for (const auto& fp : st.fields) {
      const Field& f = *fp;
      if (f.resolved.fixed_offset) {
        if (known && f.resolved.offset > at) {
          Attr pad;
          pad.id = "gap_" + std::to_string(pads++);
          pad.set("size", std::to_string(f.resolved.offset - at));
          pad.doc = "Bytes no field describes.";
          t.seq.push_back(pad);
        }
        at = f.resolved.offset;
        known = true;
      }
      const size_t seq_before = t.seq.size(), inst_before = t.instances.size();
      try {
        field(t, f, f.name, "");
      } catch (const Gap& g) {
        // Nothing half-described: the raw offset of a pointer goes too.
        t.seq.resize(seq_before);
        t.instances.resize(inst_before);
        const std::string what = st.name + "." + f.name + " " + g.what();
        gaps_.push_back(what);
        // Still say where it is: a placeholder of its size when that is known.
        Attr a;
        a.id = f.name;
        a.doc = notes(f) + (notes(f).empty() ? "" : " ") + "Not described for Kaitai: " + g.what() + ".";
        if (f.resolved.fixed_size && !f.cond) {
          a.set("size", std::to_string(f.resolved.size));
          t.seq.push_back(a);
        } else {
          a.set("value", "0");
          a.doc += " (Shown as 0; what follows in this struct may be misplaced.)";
          t.instances.push_back(a);
          known = false;
        }
      }
      if (known && f.resolved.fixed_size && !f.cond) at += f.resolved.size;
      else known = false;
    }
    for (const auto& e : extents_) {
      if (e.array->type.st != &st) continue;
      Attr end;
      end.id = e.pointer->name + "_end";
      const std::string arr = "_parent." + e.array->name;
      end.set("value", "(elem_index + 1 < " + arr + ".size ? " + arr + "[elem_index + 1].ofs_" + e.pointer->name + " : _root._io.size)");
      end.doc = "Where the target of `" + e.pointer->name + "` ends: the next element's target, or the end of the file.";
      t.instances.push_back(end);
    }
    if (st.fixed_size && known && at < st.size) {
      Attr pad;
      pad.id = "gap_" + std::to_string(pads++);
      pad.set("size", std::to_string(st.size - at));
      pad.doc = "Padding to the struct's size.";
      t.seq.push_back(pad);
    }
    return t;
  }

  const Schema& s_;
  std::vector<KType> types_;
  std::set<const Struct*> needs_start_, needs_index_;
  struct Extent {
    const Field* array;    // the array whose elements hold the pointer
    const Field* pointer;  // extent: next
  };
  std::vector<Extent> extents_;
  std::set<std::string> made_;
  std::vector<std::string> gaps_;
  const Struct* cur_ = nullptr;
  bool cur_needs_start_ = false;
  std::string up_;
  bool need_pascal_ = false;
  KType* cur_t_ = nullptr;            // the type field() adds to (folds add their steps there)
  const std::string* cur_id_ = nullptr;  // the id of the field being added
  std::map<std::string, int> folds_;  // folds per struct and field, for their names
};

}  // namespace

std::string generate_ksy(const Schema& s) { return KsyGen(s).run(); }

}  // namespace binschema::gen
