// Schema checks: the second half of loading a schema.
//
// parse.cpp turns YAML into a Schema and refuses what is malformed as text
// (unknown keys, bad numbers, bad type names). Everything else is checked
// here: names are resolved, offsets and sizes computed, each struct's write
// layout completed, and every field given its one shape (Field::kind). A
// schema that passes is one every back end can emit; back ends throw no
// SchemaError.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <functional>
#include <map>
#include <set>

#include "schema.h"

namespace binschema::gen {
namespace {

class Validator {
 public:
  Validator(Schema& s, const Loc& root_loc, const Loc& context_loc) : s_(s), root_loc_(root_loc), context_loc_(context_loc) {}

  void run() {
    if (!s_.find(s_.root)) throw SchemaError(root_loc_, "root names no struct '" + s_.root + "'");
    const Struct* root = s_.find(s_.root);
    for (const auto& name : s_.context) {
      const Field* f = root->field(name);
      // The reader keeps the raw value; the writer the model's number.
      if (!f || f->array.on || f->cond || (!f->pointer.width && (f->type.kind != ValueType::Prim || !f->bits.empty() || prim_is_float(f->type.prim))))
        throw SchemaError(context_loc_, "context: '" + name + "' is not an integer or pointer field of the root " + s_.root);
      // The reader knows it once it has read it: before anything nested.
      for (const auto& g : root->fields) {
        if (g.get() == f) break;
        if (!g->pointer.width && (g->type.kind == ValueType::Struct || g->type.kind == ValueType::Union))
          throw SchemaError(context_loc_, "context: '" + name + "' must be declared before the root's inline field '" + g->name + "' (it is read first)");
      }
    }
    for (auto& p : s_.pools) {
      if (!p.block_type.empty()) {
        p.block_st = s_.find(p.block_type);
        if (!p.block_st) throw SchemaError(p.loc, "block pool '" + p.name + "': unknown type '" + p.block_type + "'");
      }
      if (!p.base.empty()) {
        const Field* f = root->field(p.base);
        // base: the root's `type: pool` field that places it: offsets from the pool's own start.
        bool placed = f && f->type.kind == ValueType::PoolBlock && f->pool == p.name && !f->cond;
        if (!placed && (!f || f->array.on || f->cond || f->pointer.width || f->type.kind != ValueType::Prim || prim_is_float(f->type.prim)))
          throw SchemaError(p.loc, "pool '" + p.name + "': base: '" + p.base + "' is not an integer field of the root " + s_.root);
        if (placed) p.placed_in_layout = true;  // the field places it, not the end of the file
        if (placed && p.order != Pool::Order::FirstUse)
          throw SchemaError(p.loc, "pool '" + p.name + "' is placed by the root's field '" + p.base +
                                       "' (base:), which the reader checks against the order of first use: order: first_use");
        if (placed && (p.kind != Pool::Kind::CString || p.header_str || !p.keep.empty() || !p.shared))
          throw SchemaError(p.loc, "pool '" + p.name + "' is placed by the root's field '" + p.base + "' (base:): a shared cstring pool without header: or keep:");
      }
    }
    for (auto& st : s_.structs) resolve(*st);
    // The writer gives nested structs the root's value of a context field
    // before laying anything out: the model's value, a const, or the length
    // of the array it counts. A derived value or a union's tag is not known then.
    for (const auto& name : s_.context) {
      const Field* f = root->field(name);
      if (f->role.derive)
        throw SchemaError(context_loc_, "context: '" + name + "' is derived: the writer knows it only once the file is laid out (name a field the model holds, a const or a count)");
      if (!f->resolved.tag_for.empty())
        throw SchemaError(context_loc_, "context: '" + name + "' is the tag of union '" + f->resolved.tag_for + "' (the model holds the case, not the tag)");
    }
    // Model-ness depends on nested structs: iterate to a fixed point.
    for (bool changed = true; changed;) {
      changed = false;
      for (auto& st : s_.structs) {
        bool m = std::any_of(st->fields.begin(), st->fields.end(),
                             [](const auto& f) { return f->in_model(); });
        if (m != st->has_model) st->has_model = m, changed = true;
      }
    }
    for (auto& st : s_.structs) compute_size(*st);
    check_endless();
    for (auto& st : s_.structs) complete_layout(*st);
    for (const auto& p : s_.pools) {
      if (p.scope.empty()) continue;
      const Struct* owner = s_.find(p.scope);
      if (!owner) throw SchemaError(p.loc, "pool '" + p.name + "': scope names no struct '" + p.scope + "'");
      // A scoped block pool is written by its struct's layout, once per instance.
      if (p.kind == Pool::Kind::Block &&
          std::none_of(owner->layout.begin(), owner->layout.end(), [&](const LayoutItem& li) { return li.kind == LayoutItem::Pool && li.name == p.name; }))
        throw SchemaError(p.loc, "scoped block pool '" + p.name + "' needs `pool " + p.name + "` in the layout of " + p.scope);
      // Each instance must be written and its blocks placed before the next
      // one starts: that holds for a single pointer target and for the
      // elements of an elem_ptr array, not for inline structs or plain arrays.
      if (p.kind == Pool::Kind::Block)
        for (const auto& st : s_.structs)
          for (const auto& f : st->fields) {
            auto bad = [&](const Field& g) {
              return g.type.kind == ValueType::Struct && g.type.st == owner && !((g.pointer.width && !g.array.on) || g.pointer.elem_width);
            };
            bool b = bad(*f);
            for (const auto& c : f->variant.cases) b = b || bad(*c.field);
            if (b)
              throw SchemaError(f->loc, "'" + f->name + "' holds " + p.scope + " inline or in a plain array, but " + p.scope +
                                            " has block pool '" + p.name + "' of its own: point to it (ptr:, or elem_ptr: for arrays)");
          }
    }
    for (bool changed = true; changed;) {
      changed = false;
      for (auto& st : s_.structs) {
        bool c = !st->layout.empty();
        for (const auto& f : st->fields) c = c || field_has_children(*f);
        if (c != st->has_children) st->has_children = c, changed = true;
      }
    }
    for (auto& st : s_.structs) check_exprs(*st);
    if (s_.relocation_data_end) check_expr(*s_.find(s_.root), *s_.relocation_data_end);
    for (const auto& h : s_.hooks)
      if (!s_.find(h.on)) throw SchemaError(h.loc, "hook '" + h.name + "' is on no struct '" + h.on + "'");
    check_self_uses();
    check_inner_align();
    for (const auto& st : s_.structs) check_shapes(*st);
    check_share();
    for (size_t i = 0; i < s_.version_fields.size(); ++i) check_version_field(s_.version_fields[i], s_.version_field_locs[i]);
    if (s_.relocation_table && s_.big_endian) throw SchemaError(root_loc_, "relocation tables are little-endian (RELT): this schema is big-endian");
    for (const auto& sec : s_.sections)
      if (!sec.placed_in_layout) throw SchemaError(sec.loc, "section '" + sec.name + "' is placed by no layout (`pool " + sec.name + "` in one)");
    check_bom();
    check_pad();
    check_rest_blocks();
    check_placed_pool_strings();
    check_data_pools();
    for (auto& st : s_.structs)
      if (st->name == "format" || (st->name == s_.root && st->field("format")))
        throw SchemaError(st->loc, "'format' is reserved for the text form's format key");
  }

 private:
  bool field_has_children(const Field& f) const {
    if (f.pointer.width) return false;  // its target is placed by the owner's layout
    if (f.type.kind == ValueType::Struct && f.type.st) return f.type.st->has_children;
    if (f.type.kind == ValueType::Union)
      for (const auto& c : f.variant.cases) {
        if ((c.field->pointer.width || c.field->pointer.elem_width) && c.field->pointer.inline_pascal) return true;
        if (c.field->pointer.width && c.field->type.kind == ValueType::Struct && c.field->pool.empty()) return true;
        if (c.field->type.kind == ValueType::Struct && c.field->type.st && c.field->type.st->has_children)
          return true;
      }
    return false;
  }

  // A data pool (docs §3 "Data pools"): the reader checks its slices from the
  // end of the root to the end of the file, where the writer puts them, so
  // nothing else may be written outside the root: no other data pool, no pool
  // at the end of the file, no pointer target.
  void check_data_pools() const {
    const Pool* data = nullptr;
    for (const auto& p : s_.pools) {
      if (p.kind != Pool::Kind::Data) continue;
      if (data)
        throw SchemaError(p.loc, "data pool '" + p.name + "': a schema has one data pool ('" + data->name +
                                     "'), which follows the root directly");
      data = &p;
    }
    if (!data) return;
    const std::string why = ", but data pool '" + data->name + "' follows the root directly (the reader checks its slices from the end of the root to the end of the file)";
    for (const auto& p : s_.pools) {
      if (&p == data || !p.scope.empty()) continue;
      const Struct* root = s_.find(s_.root);
      const Field* at = p.base.empty() ? nullptr : root->field(p.base);
      if (!at || at->type.kind != ValueType::PoolBlock)
        throw SchemaError(p.loc, "pool '" + p.name + "' is written outside the root" + why);
    }
    for (const auto& st : s_.structs)
      for (const auto& f : st->fields) {
        bool out = false;
        switch (f->kind) {
          case FieldKind::Pointer:
          case FieldKind::ArrayPointer:
          case FieldKind::ElemPointers:
          case FieldKind::OwnString:
          case FieldKind::OwnStrings:
          case FieldKind::BlockRef:
          case FieldKind::Dic: out = true; break;
          case FieldKind::Union:
            for (const auto& c : f->variant.cases) out = out || c.field->pointer.width || c.field->pointer.elem_width;
            break;
          default: break;
        }
        if (out) throw SchemaError(f->loc, "'" + f->name + "' points to a block written after the root" + why);
      }
  }

  // `endian: bom` and its `bom: true` field (docs §2 `endian`, §5 `bom`):
  // one u16 of the root at a fixed offset, read before anything else.
  void check_bom() {
    const Field* found = nullptr;
    auto misuse = [&](const Field& f, const std::string& why) {
      throw SchemaError(f.loc, "'" + f.name + "' has bom: true, but " + why);
    };
    for (const auto& st : s_.structs) {
      for (const auto& f : st->fields) {
        for (const auto& c : f->variant.cases)
          if (c.field->bom) misuse(*c.field, "a union case cannot be the byte order mark (a field of the root can)");
        if (!f->bom) continue;
        if (!s_.endian_by_bom) misuse(*f, "the schema's endian: is not 'bom'");
        if (st->name != s_.root) misuse(*f, "it is in " + st->name + ", not in the root " + s_.root + " (the byte order is known before any other struct is read)");
        if (found) misuse(*f, "'" + found->name + "' already is the byte order mark");
        if (!f->bom_marks.empty()) {
          if (f->type.kind != ValueType::Chars || f->array.on || f->pointer.width)
            misuse(*f, "its marks are text: it is not a char[N]");
          if (f->type.chars != 1 && f->type.chars != 2 && f->type.chars != 4 && f->type.chars != 8)
            misuse(*f, "its marks are not 1, 2, 4 or 8 bytes (char[" + std::to_string(f->type.chars) + "])");
          for (const auto& [m, big] : f->bom_marks)
            if (m.size() != f->type.chars)
              misuse(*f, "mark '" + m + "' is not " + std::to_string(f->type.chars) + " bytes (char[" + std::to_string(f->type.chars) + "])");
        } else if (f->type.kind != ValueType::Prim || f->type.prim != Prim::U16 || f->array.on || f->pointer.width || !f->bits.empty())
          misuse(*f, "it is not a single u16");
        if (!f->resolved.fixed_offset || f->cond) misuse(*f, "it is not at a fixed offset of the root (after a variable-size field, or under if:)");
        if (f->role.derive || f->is_const() || !f->role.valid.empty()) misuse(*f, "its value is the byte order (0xFEFF big, 0xFFFE little): no derive:, const:, reserved: or valid:");
        found = f.get();
      }
    }
    if (s_.endian_by_bom && !found)
      throw SchemaError(root_loc_, "endian: bom needs a u16 field of the root " + s_.root + " with bom: true (the byte order mark)");
    if (s_.endian_by_bom && s_.relocation_table)
      throw SchemaError(root_loc_, "relocation tables are little-endian (RELT): endian: bom cannot have one");
    if (found) s_.bom_field = found->name;
  }

  // `size: rest` (docs §10): the field runs to the end of its struct's block,
  // which the reader takes to be the end of the file, or the next element's
  // target for the target of an `extent: next` pointer. Anything the writer
  // puts there instead would be read back as part of the field, so the
  // struct must be the last block written (the last of its array with
  // extent: next), and place nothing after itself.
  void check_rest_blocks() {
    for (const auto& sp : s_.structs) {
      const Struct& st = *sp;
      const Field* rest = nullptr;
      for (const auto& f : st.fields)
        if (f->size_rest) rest = f.get();
      if (!rest) continue;
      const std::string head = "'" + rest->name + "' runs to the end of " + st.name + "'s block (size: rest), but ";
      bool past = false;
      for (const auto& f : st.fields) {
        if (f.get() == rest) past = true;
        else if (past && f->kind != FieldKind::Virtual)
          throw SchemaError(rest->loc, head + "'" + f->name + "' follows it in " + st.name);
      }
      if (std::string what = placed_after(st, nullptr); !what.empty())
        throw SchemaError(rest->loc, head + st.name + " places " + what + " after itself, where '" + rest->name + "' would read it");
      std::set<const Struct*> seen;
      std::string why = last_block(st, seen);
      for (const auto& p : s_.pools)
        if (why.empty() && p.scope.empty() && !p.placed_in_layout)
          why = "pool '" + p.name + "' is placed at the end of the file, after it (place it with `pool " + p.name + "` in a layout)";
      if (why.empty() && s_.relocation_table) why = "the relocation table is written at the end of the file, after it";
      if (!why.empty()) throw SchemaError(rest->loc, head + why);
    }
  }

  // A string pool placed by a field of the root (its base:) is checked at
  // that field against the strings read into it so far, and the reader
  // works out where it starts at the root's first field at the cursor
  // (gen_cpp_read.cpp, read_placed_pool). A string of it read before that
  // field, after the pool's, or as the target of one of the root's own
  // pointers (read after all the root's fields) is not checked: the file
  // the writer makes of such a model does not read back. So every read of
  // the pool's strings must come from a root field between the two, read
  // in place.
  void check_placed_pool_strings() const {
    const Struct* root = s_.find(s_.root);
    if (!root) return;
    for (const auto& p : s_.pools) {
      const Field* pool_field = p.base.empty() ? nullptr : root->field(p.base);
      if (!pool_field || pool_field->type.kind != ValueType::PoolBlock) continue;
      const Field* first = nullptr;  // the root's first field at the cursor
      bool past_pool = false;
      for (const auto& g : root->fields) {
        const Field& f = *g;
        if (!first && f.read_at_cursor()) first = &f;
        if (&f == pool_field) {
          past_pool = true;
          continue;
        }
        std::set<const Struct*> seen;
        if (!field_reads_pool(f, p.name, seen)) continue;
        std::string why;
        if (!first) why = "'" + f.name + "' comes before it";
        else if (past_pool) why = "'" + f.name + "' comes after '" + p.base + "'";
        else if (f.kind == FieldKind::Pointer || f.kind == FieldKind::ArrayPointer || f.kind == FieldKind::PooledString ||
                 f.kind == FieldKind::OwnString || f.kind == FieldKind::BlockRef || f.kind == FieldKind::Dic)
          why = "the target of the root's pointer '" + f.name + "' is read after all the root's fields";
        if (!why.empty())
          throw SchemaError(f.loc, "'" + f.name + "' reads strings of pool '" + p.name + "', which '" + p.base +
                                       "' places and checks against the strings read from the root's first field at the cursor (" +
                                       (first ? "'" + first->name + "'" : std::string("none before '" + p.base + "'")) + ") up to '" + p.base +
                                       "': " + why + " (read them through a field between the two)");
      }
    }
  }
  // Whether reading field f reads a string of `pool`: a pooled string or a
  // string offset into it, a bit field or a union case that is one, or a
  // struct it holds or points to that reads one.
  bool field_reads_pool(const Field& f, const std::string& pool, std::set<const Struct*>& seen) const {
    if (f.type.kind == ValueType::String && f.pool == pool) return true;
    for (const auto& b : f.bits)
      if (b.pool == pool) return true;
    for (const auto& c : f.variant.cases)
      if (c.field && field_reads_pool(*c.field, pool, seen)) return true;
    if (!f.type.st || !seen.insert(f.type.st).second) return false;
    for (const auto& g : f.type.st->fields)
      if (field_reads_pool(*g, pool, seen)) return true;
    return false;
  }

  // What the writer places for `p` after the target of its pointer field
  // `g` (after p's own bytes when g is null), as words for a message; ""
  // when nothing. The order is place_fn's: the layout after self, then the
  // active union case's target, then what unnamed inline structs point to.
  std::string placed_after(const Struct& p, const Field* g) const {
    bool open = !p.has_self, found = g == nullptr;
    for (const auto& li : p.layout) {
      if (li.kind == LayoutItem::Self) {
        open = true;
        continue;
      }
      if (!open) continue;
      const bool mine = g && li.name == g->name && li.kind != LayoutItem::Pool && li.kind != LayoutItem::Align && li.kind != LayoutItem::Zeros;
      if (found && !mine) {
        switch (li.kind) {
          case LayoutItem::Pool: return "pool '" + li.name + "'";
          case LayoutItem::Align: return "padding (align " + std::to_string(li.n) + ")";
          case LayoutItem::Zeros: return "zeros " + std::to_string(li.n);
          case LayoutItem::FieldTarget:
          case LayoutItem::Shallow:
          case LayoutItem::Children:
          case LayoutItem::Self: return "the target of '" + li.name + "'";
        }
      }
      found = found || mine;
    }
    for (const auto& u : p.fields) {
      if (u->type.kind != ValueType::Union || !field_has_children(*u)) continue;
      bool holds = false;
      for (const auto& c : u->variant.cases) holds = holds || c.field.get() == g;
      if (found && !holds) return "the target of union '" + u->name + "'";
      found = found || holds;
    }
    for (const auto& f : p.fields) {
      if (f->pointer.width || f->pointer.elem_width || f->type.kind != ValueType::Struct || !f->type.st->has_children || !f->in_model()) continue;
      bool named = false;
      for (const auto& li : p.layout) named = named || (li.kind == LayoutItem::Children && li.name == f->name);
      if (f.get() == g) {
        found = true;
        continue;
      }
      if (named) continue;
      if (found) return "what '" + f->name + "' points to";
    }
    return "";
  }

  // Why the writer does not end the file with the block of `st` (each
  // instance of it): "" when it does. With extent: next on the pointer, the
  // block ends at the next element's target instead, so its element struct
  // must place only it, and the array must end the file.
  std::string last_block(const Struct& st, std::set<const Struct*>& seen) const {
    if (st.name == s_.root || !seen.insert(&st).second) return "";
    for (const auto& pp : s_.structs) {
      const Struct& p = *pp;
      std::vector<const Field*> refs;
      for (const auto& f : p.fields) {
        refs.push_back(f.get());
        for (const auto& c : f->variant.cases) refs.push_back(c.field.get());
      }
      for (const Field* g : refs) {
        if (g->type.kind != ValueType::Struct || g->type.st != &st) continue;
        if (!g->pool.empty()) return st.name + " is a block of pool '" + g->pool + "'";
        if (g->array.on) return st.name + " is an element of '" + p.name + "." + g->name + "', and only the last element's block ends at the end of the file";
        if (!g->pointer.width) {  // held inline: it ends where p ends
          bool past = false;
          for (const auto& f : p.fields) {
            if (f.get() == g) past = true;
            else if (past && f->kind != FieldKind::Virtual) return "'" + f->name + "' follows it in " + p.name;
          }
          if (std::string what = placed_after(p, nullptr); !what.empty()) return p.name + " places " + what + " after it";
          if (std::string why = last_block(p, seen); !why.empty()) return why;
          continue;
        }
        if (std::string what = placed_after(p, g); !what.empty()) return p.name + " places " + what + " after it";
        if (!g->pointer.extent_next) {
          if (std::string why = last_block(p, seen); !why.empty()) return why;
          continue;
        }
        // extent: next: p is the element of an inline array, and places only g's target.
        for (const auto& li : p.layout)
          if (li.name != g->name && li.kind != LayoutItem::Self)
            return p.name + " places more than the target of '" + g->name + "' (extent: next needs the targets one after the other)";
        for (const auto& qq : s_.structs)
          for (const auto& a : qq->fields) {
            if (a->type.kind != ValueType::Struct || a->type.st != &p) continue;
            if (std::string what = placed_after(*qq, a.get()); !what.empty()) return qq->name + " places " + what + " after the last of them";
            if (std::string why = last_block(*qq, seen); !why.empty()) return why;
          }
      }
    }
    return "";
  }

  // `pad: N` (docs §5 `pad`): an inline cstring, then zeros up to a multiple of N.
  void check_pad() {
    for (const auto& st : s_.structs)
      for (const auto& f : st->fields) {
        for (const auto& c : f->variant.cases)
          if (c.field->pad) throw SchemaError(c.field->loc, "pad: is for an inline cstring field, not a union case");
        if (!f->pad) continue;
        const bool numbers = f->kind == FieldKind::InlineArray && f->type.kind == ValueType::Prim && !f->array.fixed_count;
        if (f->kind != FieldKind::CString && !numbers)
          throw SchemaError(f->loc, "'" + f->name + "' has pad: " + std::to_string(f->pad) + ", but pad: is for an inline cstring field or an inline counted array of numbers (this is a " +
                                        field_kind_name(f->kind) + ")");
        if (f->pad < 2 || (f->pad & (f->pad - 1)))
          throw SchemaError(f->loc, "'" + f->name + "': pad: " + std::to_string(f->pad) + " is not a power of two of at least 2");
      }
  }

  void resolve_field(Struct& st, Field& f, bool in_case = false) {
    if (f.type.kind == ValueType::Struct) {
      f.type.st = s_.find(f.type.struct_name);
      if (!f.type.st) throw SchemaError(f.loc, "unknown type '" + f.type.struct_name + "'");
    }
    if (f.type.kind == ValueType::Dic) {
      if (!f.pointer.width || f.keys_array.empty() || f.pool.empty())
        throw SchemaError(f.loc, "a dic field needs ptr:, keys: ARRAY.FIELD and pool: (where its names go)");
      const Field* arr = st.field(f.keys_array);
      if (!arr || !arr->array.on || arr->type.kind != ValueType::Struct)
        throw SchemaError(f.loc, "keys: '" + f.keys_array + "' is not an array of structs in " + st.name);
      const Struct* et = s_.find(arr->type.struct_name);
      const Field* kf = et ? et->field(f.keys_field) : nullptr;
      if (!kf || (kf->type.kind != ValueType::String))
        throw SchemaError(f.loc, "keys: '" + f.keys_field + "' is not a string field of " + arr->type.struct_name);
      if (!s_.pool(f.pool)) throw SchemaError(f.loc, "unknown pool '" + f.pool + "'");
    } else if (!f.pool.empty() && f.type.kind == ValueType::PoolBlock) {
      if (!s_.pool(f.pool)) throw SchemaError(f.loc, "unknown pool '" + f.pool + "'");
    } else if (!f.pool.empty() && s_.pool(f.pool) && s_.pool(f.pool)->kind == Pool::Kind::Block) {
      const Pool* p = s_.pool(f.pool);
      if (f.type.kind != ValueType::Struct || f.array.on || !f.pointer.width)
        throw SchemaError(f.loc, "a block pool holds structs: the field is a pointer to one struct (ptr:, type: a struct)");
      if (p->block_st && p->block_st != f.type.st)
        throw SchemaError(f.loc, "block pool '" + f.pool + "' holds " + p->block_type + ", not " + f.type.struct_name);
      if (f.pointer.base == Field::Base::Struct) throw SchemaError(f.loc, "a pointer into a block pool is absolute (no base: struct)");
    } else if (!f.pool.empty() && s_.pool(f.pool) && s_.pool(f.pool)->kind == Pool::Kind::Data) {
      if (f.type.kind != ValueType::Bytes || !f.pointer.width)
        throw SchemaError(f.loc, "data pool '" + f.pool + "' holds bytes: the field is type: bytes with ptr: (a slice: its begin and end)");
    } else if (!f.pool.empty()) {
      if (!s_.pool(f.pool)) throw SchemaError(f.loc, "unknown pool '" + f.pool + "'");
      if (f.type.kind != ValueType::String) throw SchemaError(f.loc, "pool: is for string fields");
      // An inline array of strings is a run of u32 offsets; a single string needs its width.
      if (!f.pointer.width && !(f.array.on && !f.pointer.elem_width)) throw SchemaError(f.loc, "a pooled string needs ptr: (the width of its offset)");
    }
    for (const auto& b : f.bits)
      if (!b.pool.empty() && (!s_.pool(b.pool) || s_.pool(b.pool)->kind == Pool::Kind::Block || s_.pool(b.pool)->kind == Pool::Kind::Data ||
                              !s_.pool(b.pool)->scope.empty()))
        throw SchemaError(b.loc, "'" + b.pool + "' is no string pool (that is not scoped)");
      else if (!b.pool.empty() && s_.pool(b.pool)->base.empty())
        // Bits hold an offset into the pool, not a file offset.
        throw SchemaError(b.loc, "a string bit field needs a pool with base: (its offsets are relative to the pool)");
      else if (!b.pool.empty() && b.scale > 1 && s_.pool(b.pool)->align % b.scale != 0)
        // Every string must start at a multiple of the scale.
        throw SchemaError(b.loc, "'" + b.name + "' has scale: " + std::to_string(b.scale) + ", but pool '" + b.pool + "' aligns its strings to " +
                                     std::to_string(s_.pool(b.pool)->align) + " (align: must be a multiple of the scale)");
    if (f.type.kind == ValueType::String && f.pool.empty() && !f.is_virtual && !(f.pointer.inline_pascal && (f.pointer.width || f.pointer.elem_width)))
      throw SchemaError(f.loc, "string fields need pool: (use cstring for a NUL-terminated string stored inline)");
    const bool placed_pool = f.type.kind == ValueType::PoolBlock && s_.pool(f.pool) && s_.pool(f.pool)->base == f.name &&
                             s_.pool(f.pool)->scope.empty();
    if (placed_pool) {
      // A string pool placed here, whose offsets are from its start (base: this field).
      if (st.name != s_.root) throw SchemaError(f.loc, "pool '" + f.pool + "' has base: '" + f.name + "', a field of the root " + s_.root + " (this is " + st.name + ")");
      if (f.size_expr || f.size_rest) throw SchemaError(f.loc, "'" + f.name + "' places pool '" + f.pool + "' (its base:): no size: (the reader knows the strings)");
    }
    if (((f.type.kind == ValueType::Bytes && !f.pointer.width) || (f.type.kind == ValueType::PoolBlock && !placed_pool)) && !f.size_expr && !f.size_rest)
      throw SchemaError(f.loc, "a bytes or pool field needs size: (an expression, or rest)");
    const bool slice = f.type.kind == ValueType::Bytes && f.pointer.width && !f.pool.empty() && s_.pool(f.pool) && s_.pool(f.pool)->kind == Pool::Kind::Data;
    if (slice) {
      // A data slice: two words (begin, end) from the data pool's start; the bytes are in the pool.
      if (f.array.on || f.size_expr || f.size_rest || f.role.derive || f.cond || f.pointer.elem_width || f.pointer.base == Field::Base::Struct || f.pointer.null != Field::Null::Never)
        throw SchemaError(f.loc, "'" + f.name + "' is a slice of data pool '" + f.pool + "': a single bytes field with ptr: (no size:, if:, arrays, base: or nullable:)");
      if (!f.pointer.align_field.empty()) {
        const Field* a = st.field(f.pointer.align_field);
        if (!a || !a->is_virtual || a->type.kind != ValueType::Prim || a->type.prim != Prim::U32 || a->array.on)
          throw SchemaError(f.loc, "'" + f.name + "': align: '" + f.pointer.align_field + "' is not a virtual u32 field of " + st.name +
                                       " (it holds each slice's alignment)");
      }
    } else if (!f.pointer.align_field.empty() && f.type.kind == ValueType::Bytes && !f.pointer.width && !f.array.on) {
      // Inline bytes at a multiple of a field's value (BYML's 0xA2): the writer places the struct so.
      const Field* a = st.field(f.pointer.align_field);
      if (!a || a->type.kind != ValueType::Prim || prim_is_float(a->type.prim) || a->array.on || !a->bits.empty() || !a->in_model() ||
          field_index(st, a->name) > field_index(st, f.name))
        throw SchemaError(f.loc, "'" + f.name + "': align: '" + f.pointer.align_field + "' is not an integer field of " + st.name +
                                     " the model holds, declared before it (its value is the bytes' alignment)");
    } else if (!f.pointer.align_field.empty()) {
      throw SchemaError(f.loc, "'" + f.name + "': align: '" + f.pointer.align_field + "' names a field, which only a slice of a data pool or inline bytes take (align: is a number here)");
    }
    if (f.type.kind == ValueType::Bytes && (f.pointer.width || f.array.on) && !slice) throw SchemaError(f.loc, "bytes are stored inline (or, with ptr:, in a data pool: pool: NAME)");
    if (f.type.kind == ValueType::PoolBlock) {
      const Pool* p = s_.pool(f.pool);
      if (!p) throw SchemaError(f.loc, "a pool field names its pool: pool: NAME");
      if (p->kind == Pool::Kind::Block) throw SchemaError(f.loc, "a pool field holds a string pool; block pool '" + f.pool + "' is placed by `pool " + f.pool + "` in a layout");
      if (p->scope != st.name && !placed_pool)
        throw SchemaError(f.loc, "pool '" + f.pool + "' is not scoped to " + st.name + " (scope: " + st.name + ") nor has base: " + f.name);
    }
    if (f.size_rest) st.needs_end = true;
    if (f.pointer.extent_next && (!f.pointer.width || f.array.on || f.type.kind != ValueType::Struct))
      throw SchemaError(f.loc, "extent: next belongs to a pointer to a struct");
    if (f.type.kind == ValueType::CString && (f.pointer.width || f.array.on))
      throw SchemaError(f.loc, "cstring is an inline string: no ptr:, no arrays of it");
    if (f.array.on && !f.array.fixed_count && !f.array.count)
      throw SchemaError(f.loc, "'" + f.name + "' is an array without count:");
    if (f.array.count && f.array.count->kind == Expr::Ident) {
      Field* c = nullptr;
      for (auto& g : st.fields)
        if (g->name == f.array.count->name) c = g.get();
      if (!c) throw SchemaError(f.array.count->loc, "count names no field '" + f.array.count->name + "' in " + st.name);
      if (c->type.kind != ValueType::Prim || prim_is_float(c->type.prim) || c->array.on)
        throw SchemaError(f.array.count->loc, "count field '" + c->name + "' is not an integer");
      if (in_case && !c->role.derive && !f.pointer.width)
        throw SchemaError(f.array.count->loc, "a union case's count must be a derived field (for instance derive: items(UNION))");
      if (!in_case && !f.pointer.width && field_index(st, c->name) > field_index(st, f.name))
        throw SchemaError(f.array.count->loc, "count field '" + c->name + "' of inline array '" + f.name + "' must be declared before it (it is read first)");
      if (!in_case && !c->role.derive && !c->is_const() && f.table.offsets_of.empty()) {
        // A second array counted by the same field must have the same length.
        // (A table's offsets are computed from the strings: they count nothing.)
        if (!c->resolved.count_for.empty() && c->resolved.count_for != f.name) f.resolved.count_shared = c->resolved.count_for;
        else c->resolved.count_for = f.name;
      }
    }
    if (f.role.const_int && f.type.kind == ValueType::Prim && !prim_is_float(f.type.prim)) {
      // A constant the field cannot hold would be written truncated and then refused on read.
      const unsigned bits = static_cast<unsigned>(prim_size(f.type.prim) * 8);
      const int64_t v = *f.role.const_int;
      const bool fits = prim_is_signed(f.type.prim)
                            ? bits == 64 || (v >= -(int64_t(1) << (bits - 1)) && v < (int64_t(1) << (bits - 1)))
                            : v >= 0 && (bits == 64 || uint64_t(v) < (uint64_t(1) << bits));
      if (!fits) throw SchemaError(f.loc, "const: " + std::to_string(v) + " does not fit in " + prim_name(f.type.prim));
    }
    if (f.pointer.elem_width && !f.array.on) throw SchemaError(f.loc, "elem_ptr: is for arrays");
    if (f.type.kind == ValueType::String && f.pointer.elem_width && f.pointer.width)
      throw SchemaError(f.loc, "a pointer to an array of pointers to strings is not supported by schema v1");
    // The generator has no reader or writer for these (it crashed on them).
    if (f.pointer.width && !f.array.on && (f.type.kind == ValueType::Prim || f.type.kind == ValueType::Chars))
      throw SchemaError(f.loc, "ptr: to a single primitive or char[N] is not supported by schema v1 (point to a struct, or to an array)");
    if (f.pointer.elem_width && f.type.kind != ValueType::Struct && f.type.kind != ValueType::String)
      throw SchemaError(f.loc, "elem_ptr: is for arrays of structs or strings");
    // A pool's strings are placed at file offsets: the writer stores them
    // absolute while the reader would add the struct start.
    if (f.type.kind == ValueType::String && !f.pool.empty() && f.pointer.base == Field::Base::Struct &&
        s_.pool(f.pool)->scope.empty())
      throw SchemaError(f.loc, "base: struct on a pooled string needs a scoped pool (scope: " + st.name + ")");
    if (f.array.on && f.type.kind == ValueType::String && f.pool.empty() && !(f.pointer.elem_width && f.pointer.inline_pascal))
      throw SchemaError(f.loc, "arrays of strings need a pool, or elem_ptr: with inline: pascal16");
    if (!f.region.empty()) {
      if (s_.region_id(f.region) >= 0) throw SchemaError(f.loc, "region '" + f.region + "' defined twice");
      s_.regions.push_back(f.region);
    }
    if (!f.array.sort.empty()) {
      if (!f.array.on || f.type.kind != ValueType::Struct || !f.type.st->field(f.array.sort))
        throw SchemaError(f.loc, "sort: names a field of the array's element struct");
      const Field* k = f.type.st->field(f.array.sort);
      if (!f.pointer.width && !f.pointer.elem_width) {
        // An inline table: its elements are written in key order, and the
        // reader checks that order (fixed-size elements: checked once sizes are known).
        if (k->type.kind != ValueType::Prim || k->array.on || !k->bits.empty() || (!k->in_model() && !k->role.derive))
          throw SchemaError(f.loc, "sort: '" + f.array.sort + "' is not a number of " + f.type.struct_name + " (the model's, or derive:)");
        if (k->role.derive && is_late(*k->role.derive))
          throw SchemaError(f.loc, "sort: '" + f.array.sort + "' is known only once the file is laid out");
      } else if (k->role.derive) {
        throw SchemaError(f.loc, "sort: '" + f.array.sort + "' is derived: only an inline array can be sorted by a derived field");
      }
    }
    if (f.role.derive && f.is_const()) throw SchemaError(f.loc, "a field is either derive: or const:, not both");
    f.kind = shape(f, in_case);
    if (f.type.kind == ValueType::Union && f.variant.tag_shift) {
      std::set<int64_t> seen;
      for (auto& c : f.variant.cases) {
        if (!seen.insert(c.tag).second) throw SchemaError(c.loc, "case value repeated");
        resolve_field(st, *c.field, true);
        if (!c.field->pointer.width || c.field->type.kind != ValueType::Struct || c.field->array.on)
          throw SchemaError(c.loc, "with tag_shift:, every case is a pointer to a struct (ptr:)");
        if (c.field->pointer.null != Field::Null::Never) throw SchemaError(c.loc, "a union case that points to a struct is never null (no nullable:)");
        if (c.field->pointer.width * 8 <= static_cast<int>(f.variant.tag_shift) || c.tag < 0 ||
            (c.field->pointer.width < 8 && (uint64_t(c.tag) >> (c.field->pointer.width * 8 - f.variant.tag_shift)) != 0))
          throw SchemaError(c.loc, "case value " + std::to_string(c.tag) + " does not fit above bit " + std::to_string(f.variant.tag_shift) + " of the pointer");
      }
    } else if (f.type.kind == ValueType::Union) {
      Field* tag = nullptr;
      for (auto& g : st.fields)
        if (g->name == f.variant.tag) tag = g.get();
      if (!tag) throw SchemaError(f.loc, "tag names no field '" + f.variant.tag + "' in " + st.name);
      // A float tag has no switch in C++ (it did not compile).
      if (tag->type.kind != ValueType::Prim || prim_is_float(tag->type.prim) || tag->array.on != f.array.on || !tag->bits.empty())
        throw SchemaError(tag->loc, f.array.on ? "the tag of an array of unions is an inline array of integers (one tag per element)"
                                               : "a union tag is an integer field");
      if (f.array.on) {
        // union[]: element i is the case tag[i] names; both arrays have one count.
        if (tag->pointer.width || tag->pointer.elem_width || !tag->array.count || !f.array.count || expr_text(*tag->array.count) != expr_text(*f.array.count))
          throw SchemaError(f.loc, "union[] '" + f.name + "' and its tags '" + tag->name + "' have one count: both inline, with the same count:");
        if (!tag->resolved.tag_for.empty()) throw SchemaError(f.loc, "'" + tag->name + "' already holds the tags of '" + tag->resolved.tag_for + "'");
        // The count field is written from the unions (the tags are not in the model).
        for (auto& g : st.fields)
          if (f.array.count->kind == Expr::Ident && g->name == f.array.count->name && g->resolved.count_for == tag->name) g->resolved.count_for = f.name;
        f.resolved.count_shared.clear();
        tag->resolved.count_shared.clear();
      }
      // The reader picks the case from the tag, so the tag must be read first
      // (the tags of a union[] may also follow it directly: read ahead).
      if (field_index(st, tag->name) > field_index(st, f.name) && !(f.array.on && field_index(st, tag->name) == field_index(st, f.name) + 1))
        throw SchemaError(f.loc, "tag field '" + f.variant.tag + "' of union '" + f.name + "' must be declared before it");
      tag->resolved.tag_for = f.name;
      std::set<int64_t> seen;
      for (auto& c : f.variant.cases) {
        if (!seen.insert(c.tag).second) throw SchemaError(c.loc, "case value repeated");
        if (c.field->array.on && !c.field->array.fixed_count && !c.field->array.count)
          throw SchemaError(c.loc, "an open array in a union case needs count: (a field of the struct)");
        resolve_field(st, *c.field, true);
        // The union writer stores a single pointer per case: a pointer to an
        // array had no writer (the generated C++ did not compile).
        if (c.field->pointer.width && c.field->array.on)
          throw SchemaError(c.loc, "a union case cannot point to an array (use elem_ptr: with inline: pascal16 for strings)");
        if (c.field->pointer.width && c.field->type.kind == ValueType::Struct && c.field->pointer.null != Field::Null::Never)
          throw SchemaError(c.loc, "a union case that points to a struct is never null (no nullable:)");
      }
    }
  }

  // The field's one shape (see FieldKind), from its type and keys. What the
  // checks above let through and is still no shape is refused here.
  FieldKind shape(const Field& f, bool in_case) const {
    auto no = [&](const std::string& why) { throw SchemaError(f.loc, why); };
    if (f.is_virtual) {
      const bool align_of_slice = f.type.kind == ValueType::Prim && f.type.prim == Prim::U32 && !f.array.on && f.bits.empty() && !f.role.derive && !f.is_const();
      if ((f.type.kind != ValueType::String && !align_of_slice) || f.array.on || f.pointer.width || f.pointer.elem_width || !f.pool.empty() || f.pointer.inline_pascal)
        no("virtual: true is for a single string with no ptr:, pool: or inline: (a name kept in a dic), or a u32 (a data slice's align:)");
      return FieldKind::Virtual;
    }
    if (f.pointer.inline_pascal && f.type.kind != ValueType::String) no("inline: pascal16 is for strings");
    if (f.role.derive && (f.type.kind != ValueType::Prim || f.array.on || f.pointer.width || !f.bits.empty()))
      no("derive: is for a single integer field (use pointer: true for a derived offset)");
    if (f.pointer.points_to_chars) {
      const Pool* p = f.pool.empty() ? nullptr : s_.pool(f.pool);
      if (f.type.kind != ValueType::String || !f.pointer.width || f.array.on || !p || p->kind != Pool::Kind::Pascal16 || !p->scope.empty())
        no("points_to: chars is for a string pointer into a pascal16 pool that is not scoped (it points past the length)");
    }
    switch (f.type.kind) {
      case ValueType::Dic: return FieldKind::Dic;  // ptr:, keys: and pool: checked above
      case ValueType::Union:
        if (f.pointer.width || f.pointer.elem_width) no("a union is inline: no ptr: or elem_ptr: (point to a struct holding it)");
        if (f.array.on && (f.variant.tag_shift || f.array.fixed_count))
          no("an array of unions (union[]) takes its tags from a parallel array: tag: an inline integer array, count: as that array's");
        return FieldKind::Union;
      case ValueType::PoolBlock:
        if (f.pointer.width || f.array.on) no("a pool field is where a scoped pool is placed: no ptr:, no arrays");
        return FieldKind::PoolBlock;
      case ValueType::Bytes: return f.pointer.width ? FieldKind::Slice : FieldKind::Bytes;  // checked above
      case ValueType::CString: return FieldKind::CString;  // inline, checked above
      case ValueType::Chars: return FieldKind::Chars;      // never an array; ptr: refused above
      case ValueType::Prim:
        if (f.pointer.width) return FieldKind::ArrayPointer;  // a single primitive behind ptr: is refused above
        if (f.array.on) return FieldKind::InlineArray;
        return f.bits.empty() ? FieldKind::Scalar : FieldKind::BitWord;
      case ValueType::String:
        if (f.pointer.elem_width) {
          if (!f.pointer.inline_pascal || !f.pool.empty())
            no("elem_ptr: on strings points to Pascal strings of their own: inline: pascal16, no pool:");
          if (!in_case)
            no("an array of pointers to Pascal strings (elem_ptr: with inline: pascal16) is only supported as a union case");
          return FieldKind::OwnStrings;
        }
        if (f.pointer.inline_pascal && (f.array.on || !f.pool.empty()))
          no("inline: pascal16 is for one string behind ptr: with no pool: (or elem_ptr: in a union case)");
        if (f.pointer.width && f.array.on) return FieldKind::ArrayPointer;
        if (f.pointer.width) return f.pointer.inline_pascal ? FieldKind::OwnString : FieldKind::PooledString;
        if (f.array.on) return FieldKind::StringOffsets;
        no("a pooled string needs ptr: (the width of its offset)");
        break;
      case ValueType::Struct:
        if (s_.in_block_pool(f)) return FieldKind::BlockRef;  // ptr:, no array: checked above
        if (f.pointer.width) return f.array.on ? FieldKind::ArrayPointer : FieldKind::Pointer;
        if (f.pointer.elem_width) return FieldKind::ElemPointers;
        return f.array.on ? FieldKind::InlineArray : FieldKind::InlineStruct;
    }
    no("a field of no known shape");
    return FieldKind::Scalar;
  }

  static size_t field_index(const Struct& st, const std::string& name) {
    for (size_t i = 0; i < st.fields.size(); ++i)
      if (st.fields[i]->name == name) return i;
    return st.fields.size();
  }

  void resolve(Struct& st) {
    for (auto& f : st.fields) resolve_field(st, *f);
  }

  // Inline size and alignment of a field; false when variable.
  bool field_size(const Field& f, uint64_t& size, uint64_t& align) {
    if (f.is_virtual) {
      size = 0;
      align = 1;
      return true;
    }
    if (f.pointer.width && f.type.kind == ValueType::Bytes) {  // a data slice: begin and end
      size = 2 * static_cast<uint64_t>(f.pointer.width);
      align = static_cast<uint64_t>(f.pointer.width);
      return true;
    }
    if (f.pointer.width) {
      size = align = static_cast<uint64_t>(f.pointer.width);
      return true;
    }
    uint64_t one = 0;
    switch (f.type.kind) {
      case ValueType::Prim: one = align = prim_size(f.type.prim); break;
      case ValueType::Chars: one = f.type.chars; align = 1; break;
      case ValueType::Struct:
        compute_size(const_cast<Struct&>(*f.type.st));
        align = f.type.st->align;
        if (!f.type.st->fixed_size) return false;
        one = f.type.st->size;
        break;
      case ValueType::Union: {
        align = 1;
        bool fixed = true;
        uint64_t common = UINT64_MAX;
        for (const auto& c : f.variant.cases) {
          uint64_t cs = 0, ca = 1;
          c.field->resolved.fixed_size = field_size(*c.field, cs, ca);
          c.field->resolved.size = cs;
          if (!c.field->resolved.fixed_size) fixed = false;
          cs = (cs + f.variant.pad_to - 1) / f.variant.pad_to * f.variant.pad_to;
          align = std::max(align, ca);
          if (common == UINT64_MAX) common = cs;
          else if (common != cs) fixed = false;
        }
        if (!f.array.on) {
          size = common;
          return fixed;
        }
        if (!fixed) return false;  // union[]: refused with a message in check_union_cases
        one = common;
        break;
      }
      case ValueType::String:
      case ValueType::Bytes:
      case ValueType::CString:
      case ValueType::PoolBlock:
      case ValueType::Dic:
        return false;
    }
    if (f.array.on) {
      if (!f.array.fixed_count) return false;
      size = one * *f.array.fixed_count;
    } else {
      size = one;
    }
    return true;
  }

  // Recursion must be able to end: a cycle of structs that each always hold
  // the next has no finite model, and its binschema::Box would construct
  // forever. Always held: a struct behind a pointer that is not nullable:
  // true (with if: too: the model still holds one), a fixed array of them,
  // the first case of a union (a new union holds it). Inline cycles are
  // compute_size's error.
  void check_endless() {
    struct Step {
      const Field* field;    // where the schema says it
      const Struct* to;
      bool union_case;
    };
    auto steps = [](const Struct& st) {
      std::vector<Step> out;
      for (const auto& f : st.fields) {
        if (f->type.kind == ValueType::Struct && f->type.st &&
            (f->array.on ? f->array.fixed_count && *f->array.fixed_count > 0 : f->pointer.null != Field::Null::Allowed))
          out.push_back({f.get(), f->type.st, false});
        if (f->type.kind == ValueType::Union && !f->array.on && !f->variant.cases.empty()) {
          const Field& c = *f->variant.cases[0].field;
          if (c.type.kind == ValueType::Struct && c.type.st && !c.array.on) out.push_back({f.get(), c.type.st, true});
        }
      }
      return out;
    };
    std::map<const Struct*, int> state;  // 1 on the path, 2 done
    std::vector<Step> path;
    std::function<void(const Struct*)> visit = [&](const Struct* st) {
      state[st] = 1;
      for (const Step& step : steps(*st)) {
        path.push_back(step);
        if (state[step.to] == 1) {
          // The cycle: the steps from the one that leaves step.to.
          size_t i = path.size() - 1;
          while (i > 0 && path[i - 1].to != step.to) --i;
          std::string chain;
          bool via_union = false;
          for (size_t j = i; j < path.size(); ++j) {
            chain += std::string(chain.empty() ? "" : " -> ") + path[j].field->name;
            via_union = via_union || path[j].union_case;
          }
          throw SchemaError(step.field->loc, "struct '" + step.to->name + "' always holds itself (" + chain +
                                                 "): every model would be endless; make a pointer of the cycle nullable: true" +
                                                 (via_union ? " (a union starts as its first case: put another case first)" : ""));
        }
        if (state[step.to] == 0) visit(step.to);
        path.pop_back();
      }
      state[st] = 2;
    };
    for (const auto& st : s_.structs)
      if (state[st.get()] == 0) visit(st.get());
  }

  // share: equal: on a pointer that its struct's layout places (to a struct
  // or an array, at a fixed offset), or on a union case that points to a struct.
  void check_share() const {
    const char* why = "share: equal is for a pointer to a struct or an array (ptr:) that its struct places, or a union case "
                      "that points to a struct (block pools store equal blocks once with shared: true)";
    for (const auto& st : s_.structs)
      for (const auto& f : st->fields) {
        if (f->pointer.share_equal) {
          bool shallow = false;
          for (const auto& li : st->layout) shallow = shallow || (li.kind == LayoutItem::Shallow && li.name == f->name);
          if ((f->kind != FieldKind::Pointer && f->kind != FieldKind::ArrayPointer) || f->pointer.elem_width || !f->resolved.fixed_offset ||
              !f->region.empty() || !f->section.empty() || st->has_self || shallow || !f->in_model() || (f->type.st && f->type.st->has_self))
            throw SchemaError(f->pointer.share_loc, why);
        }
        for (const auto& c : f->variant.cases)
          if (c.field->pointer.share_equal && (c.kind != CaseKind::StructPointer || !c.field->section.empty()))
            throw SchemaError(c.field->pointer.share_loc, why);
      }
  }

  void compute_size(Struct& st) {
    if (done_.count(&st)) return;
    if (busy_.count(&st)) throw SchemaError(st.loc, "struct '" + st.name + "' contains itself inline");
    busy_.insert(&st);
    uint64_t off = 0, align = st.align;
    bool fixed = true;
    for (auto& f : st.fields) {
      uint64_t sz = 0, al = 1;
      f->resolved.fixed_offset = fixed;
      f->resolved.offset = off;
      f->resolved.fixed_size = field_size(*f, sz, al);
      f->resolved.size = sz;
      align = std::max(align, al);
      if (f->resolved.fixed_size && !f->cond) {
        off += sz;
      } else if (fixed) {
        fixed = false;
        st.prefix = off;
      }
    }
    if (fixed) st.prefix = off;
    st.fixed_size = fixed;
    st.size = off;
    st.align = align;
    if (st.declared_size) {
      if (!fixed)
        throw SchemaError(st.size_loc, "size: " + hexs(*st.declared_size) + " declared but '" + st.name +
                                           "' has fields of variable size");
      if (off != *st.declared_size)
        throw SchemaError(st.size_loc, "size: " + hexs(*st.declared_size) + " declared but the fields of '" +
                                           st.name + "' add up to " + hexs(off));
    }
    busy_.erase(&st);
    done_.insert(&st);
  }

  void complete_layout(Struct& st) {
    std::vector<LayoutItem> items;
    std::set<std::string> placed, shallow, pre_children, inline_children;
    const bool layout_has_self = std::any_of(st.layout.begin(), st.layout.end(),
                                              [](const LayoutItem& li) { return li.kind == LayoutItem::Self; });
    for (const auto& li : st.layout) {
      if (li.kind == LayoutItem::Pool) {
        Pool* p = nullptr;
        for (auto& q : s_.pools)
          if (q.name == li.name) p = &q;
        Section* sec = nullptr;
        for (auto& q : s_.sections)
          if (q.name == li.name) sec = &q;
        if (sec) {
          if (sec->placed_in_layout) throw SchemaError(li.loc, "section '" + li.name + "' placed twice");
          sec->placed_in_layout = true;
          items.push_back(li);
          continue;
        }
        if (!p) throw SchemaError(li.loc, "layout names no pool '" + li.name + "'");
        if (p->placed_in_layout) throw SchemaError(li.loc, "pool '" + li.name + "' placed twice");
        p->placed_in_layout = true;
      } else if (li.kind == LayoutItem::Align || li.kind == LayoutItem::Zeros) {
        // nothing to resolve
      } else if (li.kind == LayoutItem::Self) {
        if (st.has_self) throw SchemaError(li.loc, "self placed twice");
        st.has_self = true;
      } else if (li.kind == LayoutItem::Children && layout_has_self && !st.has_self) {
        // Before self: each element's targets go first, the elements later
        // (shallow, after self) get their pointers filled in.
        const Field* f = st.field(li.name);
        if (!f || !f->pointer.width || !f->array.on || f->type.kind != ValueType::Struct || !f->type.st->fixed_size)
          throw SchemaError(li.loc, "children before self is for an array of fixed-size structs");
        pre_children.insert(li.name);
      } else if (li.kind == LayoutItem::Children && st.field(li.name) && !st.field(li.name)->pointer.width &&
                 !st.field(li.name)->pointer.elem_width && st.field(li.name)->type.kind == ValueType::Struct) {
        // An inline struct (or array of them): what its elements point to goes here.
        const Field* f = st.field(li.name);
        if (f->array.on && !f->type.st->fixed_size)
          throw SchemaError(li.loc, "children of an inline array is for fixed-size elements");
        if (!inline_children.insert(li.name).second) throw SchemaError(li.loc, "'children " + li.name + "' placed twice");
      } else {
        const Field* f = st.field(li.name);
        if (!f || !(f->pointer.width || f->pointer.elem_width) || (!f->pool.empty() && !f->array.on && f->type.kind != ValueType::Dic))
          throw SchemaError(li.loc, "layout names no pointer field '" + li.name + "' of " + st.name);
        if (li.kind == LayoutItem::Shallow && pre_children.count(li.name)) {
          placed.insert(li.name);
          items.push_back(li);
          continue;
        }
        if (li.kind == LayoutItem::Children) {
          if (!shallow.count(li.name)) throw SchemaError(li.loc, "children " + li.name + " comes before shallow " + li.name);
          shallow.erase(li.name);
        } else if (!placed.insert(li.name).second) {
          throw SchemaError(li.loc, "'" + li.name + "' placed twice");
        }
        if (li.kind == LayoutItem::Shallow) {
          if (f->type.kind != ValueType::Struct || (f->array.on && !f->type.st->fixed_size && !f->pointer.elem_width) || !f->array.sort.empty())
            throw SchemaError(li.loc, "shallow placement is for a struct or an array of fixed-size structs");
          shallow.insert(li.name);
        }
      }
      items.push_back(li);
    }
    for (const auto& name : pre_children)
      if (!placed.count(name))
        throw SchemaError(st.loc, "children " + name + " comes before self, so 'shallow " + name + "' must follow self");
    // A shallow target whose children are never named gets them at the end.
    for (const auto& name : shallow) items.push_back({LayoutItem::Children, name, 0, st.loc});
    for (const auto& f : st.fields)
      if ((f->pointer.width || f->pointer.elem_width) && (f->pool.empty() || f->array.on || f->type.kind == ValueType::Dic) && !f->role.derive && !placed.count(f->name))
        items.push_back({LayoutItem::FieldTarget, f->name, 0, f->loc});
    st.layout = items;
  }

  // `info` prints x.a.b for a version field a.b: every step but the last is a
  // struct held in the model (not optional, not an array) and the last an
  // integer in the model. A wrong path gave C++ that did not compile.
  void check_version_field(const std::string& path, const Loc& loc) const {
    const Struct* st = s_.find(s_.root);
    size_t from = 0;
    while (true) {
      size_t dot = path.find('.', from);
      std::string part = path.substr(from, dot == std::string::npos ? std::string::npos : dot - from);
      const Field* f = st->field(part);
      if (!f || !f->in_model() || f->array.on)
        throw SchemaError(loc, "version_fields: '" + path + "': '" + part + "' is no single model field of " + st->name);
      if (dot == std::string::npos) {
        if (f->type.kind != ValueType::Prim || !f->bits.empty())
          throw SchemaError(loc, "version_fields: '" + path + "' is not a number field");
        return;
      }
      if (f->type.kind != ValueType::Struct || f->pointer.null == Field::Null::Allowed)
        throw SchemaError(loc, "version_fields: '" + path + "': '" + part + "' is not a struct that is always present");
      st = f->type.st;
      from = dot + 1;
    }
  }

  // What each shape needs once sizes, layouts and children are known: the
  // limits of the readers and writers the back ends emit.
  void check_shapes(const Struct& st) {
    for (const auto& fp : st.fields) {
      const Field& f = *fp;
      if (f.kind == FieldKind::InlineArray && f.type.kind == ValueType::Struct) {
        const Struct& et = *f.type.st;
        if (!et.fixed_size && std::any_of(et.fields.begin(), et.fields.end(), [](const auto& g) { return g->pointer.extent_next; }))
          throw SchemaError(f.loc, "extent: next in the elements of '" + f.name + "' needs fixed-size elements (" + et.name + " is not)");
        if (!et.fixed_size && et.has_children)
          throw SchemaError(f.loc, "an inline array whose elements point elsewhere needs fixed-size elements (" + et.name + " is not)");
      }
      if (f.kind == FieldKind::OwnString && f.pointer.null == Field::Null::Allowed)
        throw SchemaError(f.loc, "a string of its own (inline: pascal16) cannot be absent (no nullable: true)");
      if (f.is_virtual && f.type.kind == ValueType::Prim &&
          std::none_of(st.fields.begin(), st.fields.end(), [&](const auto& g) { return g->pointer.align_field == f.name; }))
        throw SchemaError(f.loc, "virtual u32 '" + f.name + "' holds a data slice's alignment, but no field of " + st.name + " says align: " + f.name);
      if (!f.array.sort.empty() && !f.pointer.width && !f.pointer.elem_width && !f.type.st->fixed_size)
        throw SchemaError(f.loc, "sort: on an inline array needs fixed-size elements (" + f.type.struct_name + " is not)");
      if (f.kind == FieldKind::PoolBlock && s_.pool(f.pool)->base == f.name && st.name == s_.root) {
        // The reader needs the pool's start before the strings are read:
        // from the first field read at the cursor up to this one, every
        // field's size must be known from what was read before it.
        bool started = false;
        for (const auto& g : st.fields) {
          if (g.get() == &f) break;
          bool cursor = g->read_at_cursor();
          if (!started && !cursor) continue;
          started = true;
          bool known = !g->cond && (g->resolved.fixed_size ||
                                    (g->kind == FieldKind::InlineArray && g->type.kind == ValueType::Struct && g->type.st->fixed_size &&
                                     g->array.count && g->array.count->kind == Expr::Ident && st.field(g->array.count->name) &&
                                     st.field(g->array.count->name)->resolved.fixed_offset && !st.field(g->array.count->name)->cond));
          if (!known)
            throw SchemaError(f.loc, "'" + f.name + "' places pool '" + f.pool + "', whose strings are read before it, but the size of '" + g->name +
                                         "' before it is not known in advance (fixed-size fields, or arrays of fixed-size structs counted by a field of the header)");
        }
      }
      if (f.role.derive && f.role.derive->calls(Fn::Mulhash) && !f.resolved.fixed_offset)
        throw SchemaError(f.loc, "'" + f.name + "' is derive: mulhash(...), which the reader checks: it must sit at a fixed offset of " + st.name);
      if (!f.role.zero_when_empty.empty()) {
        const Field* n = st.field(f.role.zero_when_empty);
        if (!n || n->resolved.count_for.empty() || !n->resolved.fixed_offset || n->resolved.offset >= f.resolved.offset || !f.in_model() || !f.resolved.fixed_offset ||
            f.type.kind != ValueType::Prim || f.array.on || f.cond || !f.bits.empty())
          throw SchemaError(f.loc, "zero_when_empty: names the count field (before it, at a fixed offset) of the array whose element size this number of the model is");
      }
      if (!f.role.also.empty() && (!f.role.derive || is_late(*f.role.derive) || !f.resolved.fixed_offset || f.cond))
        throw SchemaError(f.loc, "also: is for a derived value the reader can recompute (from fields before it), at a fixed offset of " + st.name);
      if (f.role.derive && uses_scoped_pool(s_, *f.role.derive) && !f.resolved.fixed_offset)
        throw SchemaError(f.loc, "a value over a scoped pool must sit at a fixed offset (it is written once the pool is placed)");
      if (f.kind == FieldKind::Union) check_union_cases(*fp);  // gives each case its CaseKind
      check_scale_points_to(*fp, false);
    }
    // What a struct places before itself, and what the elements of its
    // `children` before self place before themselves.
    if (st.has_self) {
      for (const auto& li : st.layout) {
        if (li.kind == LayoutItem::Self) break;
        if (li.kind == LayoutItem::Pool || li.kind == LayoutItem::Shallow)
          throw SchemaError(li.loc, "only targets, children, align and zeros can come before self");
        if (li.kind != LayoutItem::Children) continue;
        const Struct& et = *st.field(li.name)->type.st;
        for (const auto& e : et.layout)
          if (e.kind != LayoutItem::FieldTarget && e.kind != LayoutItem::Align && e.kind != LayoutItem::Zeros)
            throw SchemaError(e.loc, "the elements of 'children " + li.name + "' are placed before " + st.name +
                                         ", so the layout of " + et.name + " can only use targets, align and zeros");
      }
    }
  }

  // The shapes a union case can have: what the union reader and writer read
  // and write in place of the union (and, for pointers, place elsewhere).
  // The payload a union case's shape gives, or none: the one place that
  // says which shapes a case can have.
  static std::optional<CaseKind> case_kind(const Field& p) {
    switch (p.kind) {
      case FieldKind::Scalar: return CaseKind::Number;
      case FieldKind::PooledString: return CaseKind::PooledString;
      case FieldKind::OwnString: return CaseKind::OwnString;
      case FieldKind::Pointer: return CaseKind::StructPointer;
      case FieldKind::BlockRef: return CaseKind::PooledBlock;
      case FieldKind::InlineArray:
        if (p.type.kind == ValueType::Prim) return CaseKind::Numbers;
        return std::nullopt;
      case FieldKind::InlineStruct: return CaseKind::Struct;  // of variable size: only as the last field (check_union_cases)
      case FieldKind::OwnStrings:
        if (p.array.count) return CaseKind::OwnStrings;
        return std::nullopt;
      case FieldKind::BitWord:
      case FieldKind::Chars:
      case FieldKind::CString:
      case FieldKind::Bytes:
      case FieldKind::PoolBlock:
      case FieldKind::Slice:
      case FieldKind::StringOffsets:
      case FieldKind::ElemPointers:
      case FieldKind::ArrayPointer:
      case FieldKind::Dic:
      case FieldKind::Union:
      case FieldKind::Virtual:
        return std::nullopt;
    }
    return std::nullopt;
  }

  // scale: N and points_to: FIELD on pointers (docs §5 `scale`, `points_to`):
  // where the reader and the writer carry them out.
  void check_scale_points_to(Field& f, bool tag_shift_case) {
    if (f.pointer.scale != 1) {
      const bool ok = tag_shift_case || ((f.kind == FieldKind::Pointer || f.kind == FieldKind::ArrayPointer) && !f.pointer.elem_width);
      if (!ok)
        throw SchemaError(f.pointer.scale_loc, "scale: is for a pointer to a struct or an array (ptr:), a case of a tag_shift: union, or a string bit field");
    }
    if (!f.section.empty()) {
      if (!s_.section(f.section)) throw SchemaError(f.loc, "section: names no section '" + f.section + "' (sections: at the top)");
      const bool ok = tag_shift_case || ((f.kind == FieldKind::Pointer || f.kind == FieldKind::ArrayPointer) && !f.pointer.elem_width &&
                                         f.resolved.fixed_offset && !f.cond && f.type.kind == ValueType::Struct &&
                                         !(f.type.st && f.type.st->has_self) && f.array.sort.empty());
      if (!ok)
        throw SchemaError(f.loc, "section: is for a pointer to a struct or an array of structs at a fixed offset (no if:, elem_ptr:, sort:), "
                                 "or a case of a tag_shift: union");
    }
    if (!f.pointer.points_to_field.empty()) {
      if (!tag_shift_case)
        throw SchemaError(f.pointer.points_to_loc, "points_to: FIELD is for a case of a tag_shift: union that points to a struct (the pointer holds where FIELD of it is)");
      const Field* g = f.type.st ? f.type.st->field(f.pointer.points_to_field) : nullptr;
      if (!g || !g->resolved.fixed_offset || g->cond)
        throw SchemaError(f.pointer.points_to_loc, "points_to: '" + f.pointer.points_to_field + "' is no field of " + f.type.struct_name + " at a fixed offset");
      f.pointer.points_to_offset = g->resolved.offset;
    }
  }

  // Gives each case of a union its payload kind, refusing the shapes the
  // union reader and writer cannot read and write in place of the union
  // (and, for pointers, place elsewhere).
  void check_union_cases(Field& u) {
    bool points = false;
    for (auto& c : u.variant.cases) {
      const Field& p = *c.field;
      const std::optional<CaseKind> kind = case_kind(p);
      if (!kind)
        throw SchemaError(c.loc, std::string("a union case cannot be ") + (std::strchr("aeiou", field_kind_name(p.kind)[0]) ? "an " : "a ") +
                                     field_kind_name(p.kind) +
                                     (p.kind == FieldKind::InlineStruct ? " of variable size" : p.kind == FieldKind::OwnStrings ? " without count:" : "") +
                                     " (a case is a number, an array of numbers, a fixed-size struct, a pointer to a struct or a string)");
      c.kind = *kind;
      check_scale_points_to(*c.field, u.variant.tag_shift && c.kind == CaseKind::StructPointer && !u.array.on);
      if (c.kind == CaseKind::Struct && !p.type.st->fixed_size) {
        // A case of variable size runs to the end of the struct: the union is its last field.
        const Struct* owner = nullptr;
        for (const auto& st : s_.structs)
          for (const auto& g : st->fields)
            if (g.get() == &u) owner = st.get();
        if (u.array.on || !owner || owner->fields.back().get() != &u || u.cond)
          throw SchemaError(c.loc, "a union case cannot be an inline struct of variable size, unless the union is the last field of its struct (not under if:, not union[])");
      }
      if (c.kind == CaseKind::OwnString || c.kind == CaseKind::OwnStrings || c.kind == CaseKind::StructPointer ||
          (c.kind == CaseKind::Struct && p.type.st->has_children))
        points = true;
    }
    if (points && !u.resolved.fixed_offset && !u.array.on)
      throw SchemaError(u.loc, "a union whose cases point elsewhere must sit at a fixed offset");
    if (u.array.on) {
      // union[]: every element the same size, read and written in place.
      for (const auto& c : u.variant.cases) {
        const bool ok = c.kind == CaseKind::Number || c.kind == CaseKind::StructPointer || c.kind == CaseKind::PooledString ||
                        c.kind == CaseKind::PooledBlock || (c.kind == CaseKind::Numbers && c.field->array.fixed_count) ||
                        (c.kind == CaseKind::Struct && c.field->type.st->fixed_size);
        if (!ok)
          throw SchemaError(c.loc, "a case of union[] '" + u.name + "' is a number, numbers T[N], a fixed-size struct, a pointer to a struct or a pooled string");
        if (c.field->pointer.base == Field::Base::Struct)
          throw SchemaError(c.loc, "a case of union[] '" + u.name + "' points from the file's start (no base: struct)");
      }
      uint64_t common = UINT64_MAX;
      for (const auto& c : u.variant.cases) {
        const uint64_t padded = (c.field->resolved.size + u.variant.pad_to - 1) / u.variant.pad_to * u.variant.pad_to;
        if (!c.field->resolved.fixed_size || (common != UINT64_MAX && padded != common))
          throw SchemaError(u.loc, "the cases of union[] '" + u.name + "' differ in size: pad them to one size (pad_to:)");
        common = padded;
      }
    }
  }

  // Inline bytes with align: FIELD sit at a fixed offset of a struct that
  // only pointers to one struct and union cases point to (where the writer
  // places the struct so that the bytes land on a multiple of the field's value).
  void check_inner_align() {
    for (const auto& st : s_.structs)
      for (const auto& f : st->fields) {
        if (f->type.kind != ValueType::Bytes || f->pointer.width || f->pointer.align_field.empty()) continue;
        if (!f->resolved.fixed_offset || f->cond)
          throw SchemaError(f->loc, "'" + f->name + "' has align: " + f->pointer.align_field + ", but it is not at a fixed offset of " + st->name);
        for (const auto& owner : s_.structs)
          for (const auto& g : owner->fields)
            if (g->type.kind == ValueType::Struct && g->type.st == st.get() &&
                (!g->pointer.width || g->array.on || g->pointer.elem_width || g->pointer.base != Field::Base::File || !g->pool.empty()))
              throw SchemaError(g->loc, "'" + g->name + "' holds " + st->name + ", whose '" + f->name + "' is aligned by a field (align: " +
                                            f->pointer.align_field + "): only a pointer to one struct or a union case that points to it can place it so");
      }
  }

  // A struct whose layout has `self` places blocks before itself: it can only
  // be reached through a pointer to one struct or an array of pointers
  // (elem_ptr), where each element is placed on its own.
  void check_self_uses() {
    for (const auto& st : s_.structs) {
      if (!st->has_self) continue;
      if (st->name == s_.root) throw SchemaError(st->loc, "the root struct cannot use self in its layout");
      for (const auto& owner : s_.structs)
        for (const auto& f : owner->fields) {
          auto uses = [&](const Field& g) { return g.type.kind == ValueType::Struct && g.type.st == st.get(); };
          bool bad = uses(*f) && !(f->pointer.width && (!f->array.on || f->pointer.elem_width));
          for (const auto& c : f->variant.cases) bad = bad || uses(*c.field);
          if (bad)
            throw SchemaError(f->loc, "'" + f->name + "' holds " + st->name +
                                          " inline or in a plain array, but its layout uses self: point to it (ptr:, or elem_ptr: for arrays)");
        }
    }
  }

  // A name in an expression: a field of the struct, FIELD.BIT (a bit field
  // of a bits: field), or a root field listed in context:.
  void check_ident(const Struct& st, const Expr& e) {
    size_t dot = e.name.find('.');
    if (dot != std::string::npos) {
      const Field* f = st.field(e.name.substr(0, dot));
      std::string sub = e.name.substr(dot + 1);
      if (!f || f->bits.empty() || !f->in_model())
        throw SchemaError(e.loc, "'" + e.name + "': '" + e.name.substr(0, dot) + "' is no bits: field of " + st.name);
      for (const auto& b : f->bits)
        if (b.name == sub) {
          if (!b.pool.empty()) throw SchemaError(e.loc, "'" + e.name + "' is a string, not a number");
          return;
        }
      throw SchemaError(e.loc, "'" + e.name + "': " + f->name + " has no bit field '" + sub + "'");
    }
    if (st.field(e.name)) return;
    if (std::find(s_.context.begin(), s_.context.end(), e.name) != s_.context.end()) return;
    throw SchemaError(e.loc, "'" + e.name + "' names no field of " + st.name + (s_.context.empty() ? "" : " nor of the context"));
  }

  void check_expr(const Struct& st, const Expr& e) {
    switch (e.kind) {
      case Expr::Int: return;
      case Expr::Ident: check_ident(st, e); return;
      case Expr::Call: {
        // parse_expr refused unknown names.
        if (e.fn == Fn::Stem || e.fn == Fn::Extension)
          throw SchemaError(e.loc, e.name + "() is only an argument of fnv1a32(), murmur3() or crc32()");
        const size_t arity = e.fn == Fn::FileSize ? 0 : e.fn == Fn::Sum || e.fn == Fn::Max || e.fn == Fn::Mulhash ? 2 : 1;
        if (e.args.size() != arity) throw SchemaError(e.loc, e.name + "() takes " + std::to_string(arity) + " argument(s)");
        if (e.fn == Fn::Max) {
          // max(ARRAY, expr over its elements), or max(a, b).
          const Field* arr = e.args[0].kind == Expr::Ident ? st.field(e.args[0].name) : nullptr;
          if (arr && arr->array.on && arr->type.kind == ValueType::Struct) {
            check_expr(*arr->type.st, e.args[1]);
          } else {
            check_expr(st, e.args[0]);
            check_expr(st, e.args[1]);
          }
          return;
        }
        if (e.fn == Fn::Mulhash) {
          // mulhash(NAME, MULTIPLIER): NAME a string field or string bit field, the multiplier any expression.
          const Expr& a = e.args[0];
          const Field* nf = a.kind == Expr::Ident ? st.field(a.name.substr(0, a.name.find('.'))) : nullptr;
          bool ok = nf && nf->in_model();
          if (ok && a.name.find('.') != std::string::npos) {
            ok = false;
            for (const auto& b : nf->bits)
              if (b.name == a.name.substr(a.name.find('.') + 1) && !b.pool.empty()) ok = true;
          } else if (ok) {
            ok = !nf->array.on && (nf->type.kind == ValueType::String || nf->type.kind == ValueType::CString || nf->type.kind == ValueType::Chars);
          }
          if (!ok) throw SchemaError(e.loc, "mulhash() takes a string field (or a string bit field F.B) of " + st.name + " and the multiplier");
          if (is_late(e.args[1])) throw SchemaError(e.args[1].loc, "mulhash(): the multiplier cannot depend on the layout");
          check_expr(st, e.args[1]);
          return;
        }
        if ((e.fn == Fn::Fnv1a32 || e.fn == Fn::Murmur3 || e.fn == Fn::Crc32) && e.args[0].kind == Expr::Call) {
          // A hash of part of a path: stem(F) or extension(F).
          const Expr& a = e.args[0];
          if ((a.fn != Fn::Stem && a.fn != Fn::Extension) || a.args.size() != 1 || a.args[0].kind != Expr::Ident ||
              !st.field(a.args[0].name) || st.field(a.args[0].name)->type.kind != ValueType::String)
            throw SchemaError(e.loc, e.name + "() takes a string field, stem(FIELD) or extension(FIELD)");
          return;
        }
        if (e.fn == Fn::Count && e.args[0].kind == Expr::Ident && e.args[0].name.find('.') != std::string::npos) {
          // count(a.b): an array in the struct that single struct field a holds.
          const std::string& path = e.args[0].name;
          const Struct* cur = &st;
          size_t from = 0;
          while (true) {
            size_t dot = path.find('.', from);
            const Field* f = cur->field(path.substr(from, dot == std::string::npos ? std::string::npos : dot - from));
            if (dot == std::string::npos) {
              if (!f || !(f->array.on || f->type.kind == ValueType::Bytes))
                throw SchemaError(e.loc, "count(" + path + "): the last step is no array");
              return;
            }
            if (!f || f->array.on || f->type.kind != ValueType::Struct || f->pointer.null == Field::Null::Allowed || !f->in_model())
              throw SchemaError(e.loc, "count(" + path + "): each step but the last is a single struct field that is always present");
            cur = f->type.st;
            from = dot + 1;
          }
        }
        if (e.fn == Fn::Start || e.fn == Fn::End || e.fn == Fn::Size) {
          if (e.args[0].kind != Expr::Ident || (s_.region_id(e.args[0].name) < 0 && !(e.fn == Fn::Start && e.args[0].name == "self")))
            throw SchemaError(e.loc, e.name + "() takes a region or pool name");
          if (s_.pool(e.args[0].name) && s_.pool(e.args[0].name)->kind == Pool::Kind::Block)
            throw SchemaError(e.loc, e.name + "() takes a region or string pool; '" + e.args[0].name + "' is a block pool");
          return;
        }
        if (e.fn == Fn::Until) {
          check_expr(st, e.args[0]);
          return;
        }
        if (e.fn == Fn::Has) {
          // has(F): 1 when the optional target of F is present, else 0.
          const Field* f = e.args[0].kind == Expr::Ident ? st.field(e.args[0].name) : nullptr;
          if (!f || !f->pointer.width || f->array.on || f->pointer.null != Field::Null::Allowed || f->type.kind != ValueType::Struct || !f->in_model())
            throw SchemaError(e.loc, "has() takes a nullable: true pointer to a struct of " + st.name + " (a target that may be absent)");
          return;
        }
        if (e.fn == Fn::Sum) {
          const Field* arr = e.args[0].kind == Expr::Ident ? st.field(e.args[0].name) : nullptr;
          if (!arr || !arr->array.on || arr->type.kind != ValueType::Struct)
            throw SchemaError(e.loc, "sum() takes an array of structs and an expression over its elements");
          check_expr(*s_.find(arr->type.struct_name), e.args[1]);
          return;
        }
        if (!e.args.empty()) {
          if (e.args[0].kind != Expr::Ident || !st.field(e.args[0].name))
            throw SchemaError(e.loc, e.name + "() takes a field of " + st.name);
        }
        if (e.fn == Fn::Count) {
          // The number of elements of an array, or the length of bytes.
          const Field* f = st.field(e.args[0].name);
          if (!f->array.on && f->type.kind != ValueType::Bytes)
            throw SchemaError(e.loc, "count() takes an array or a bytes field of " + st.name + "; '" + f->name + "' is neither");
        }
        return;
      }
      default:
        for (const auto& a : e.args) check_expr(st, a);
    }
  }

  // On the read side sum() and max() run over elements already read: an
  // inline array declared before the field that uses them.
  // Over an array's elements, sum() and max() see the model: no derived values.
  void check_elem_expr(const Struct& et, const Expr& e, const std::string& fn) {
    if (e.kind == Expr::Ident && e.name.find('.') == std::string::npos) {
      const Field* g = et.field(e.name);
      if (g && g->role.derive)
        throw SchemaError(e.loc, fn + "() cannot use '" + e.name + "': it is derived in " + et.name + " (not in the model)");
    }
    for (const auto& a : e.args) check_elem_expr(et, a, fn);
  }

  void check_read_expr(const Struct& st, const Expr& e, size_t user) {
    // The reader knows the fields read so far, the file's size and until().
    if (e.kind == Expr::Call && e.fn != Fn::Until && e.fn != Fn::FileSize && e.fn != Fn::Sum && e.fn != Fn::Max)
      throw SchemaError(e.loc, e.name + "() cannot be used when reading (count:, size: and if: can use until(), file_size(), sum() and max())");
    if ((e.calls(Fn::Sum) || e.calls(Fn::Max)) && e.args[0].kind == Expr::Ident) {
      const Field* arr = st.field(e.args[0].name);
      if (arr && arr->array.on && (arr->pointer.width || field_index(st, arr->name) >= user))
        throw SchemaError(e.loc, e.name + "(" + arr->name + ", ...) is read before " + arr->name +
                                     " when reading: use an inline array declared earlier");
      if (arr && arr->array.on && arr->type.kind == ValueType::Struct) check_elem_expr(*arr->type.st, e.args[1], e.name);
    }
    for (const auto& a : e.args) check_read_expr(st, a, user);
  }

  void check_exprs(const Struct& st) {
    for (size_t i = 0; i < st.fields.size(); ++i) {
      const Field& f = *st.fields[i];
      if (f.role.derive) check_expr(st, *f.role.derive);
      if (f.array.count) check_expr(st, *f.array.count);
      if (f.cond) check_expr(st, *f.cond);
      if (f.size_expr) check_expr(st, *f.size_expr);
      // A pointer's count is read after all of the struct's inline fields.
      if (f.cond) check_write_expr(st, *f.cond, i, "if:");
      if (f.array.count) check_read_expr(st, *f.array.count, f.pointer.width ? st.fields.size() : i);
      if (f.cond) check_read_expr(st, *f.cond, i);
      if (f.size_expr) check_read_expr(st, *f.size_expr, i);
      if (f.role.derive) check_write_expr(st, *f.role.derive, i, "derive:");
      if (f.role.derive) check_late_nesting(*f.role.derive, false);
    }
  }

  // start(), end(), size() and file_size() are known once the file is laid
  // out: they can be combined with operators, not passed to other functions.
  static void check_late_nesting(const Expr& e, bool in_call) {
    const bool late = e.calls(Fn::Start) || e.calls(Fn::End) || e.calls(Fn::Size) || e.calls(Fn::FileSize);
    if (late && in_call)
      throw SchemaError(e.loc, e.name + "() is only known once the file is laid out; use it alone or with operators (a - b + constant), not inside another function");
    if (late) return;
    for (const auto& a : e.args) check_late_nesting(a, in_call || e.kind == Expr::Call);
  }

  // What the writer can evaluate in a derive: or if: of field number `user`
  // (gen_cpp.cpp's write_expr). Each of these gave C++ that did not compile,
  // or a message about the wrong thing.
  void check_write_expr(const Struct& st, const Expr& e, size_t user, const char* key, bool in_sum = false) {
    if (e.kind == Expr::Ident) {
      const Field* g = st.field(e.name);
      if (!g && e.name.find('.') == std::string::npos) {
        const Field* r = s_.find(s_.root)->field(e.name);
        if (r && r->pointer.width)
          throw SchemaError(e.loc, std::string(key) + " cannot use '" + e.name + "': a pointer in context: is only known when reading (count:, size:)");
      }
      if (!g) return;
      if (g->pointer.width && !g->role.derive)
        throw SchemaError(e.loc, std::string(key) + " cannot use '" + e.name + "': it is a pointer (the model holds its target)");
      // The model holds the union's case, not its tag.
      if (!g->resolved.tag_for.empty())
        throw SchemaError(e.loc, std::string(key) + " cannot use '" + e.name + "': it is the tag of union '" + g->resolved.tag_for + "'");
      if (g->role.derive && is_late(*g->role.derive))
        throw SchemaError(e.loc, std::string(key) + " cannot use '" + e.name + "': it is late (known only once the file is laid out)");
      if (g->role.derive && in_sum)
        throw SchemaError(e.loc, "sum() cannot use '" + e.name + "': it is derived in " + st.name);
      if (g->role.derive && std::string(key) == "derive:" && field_index(st, g->name) >= user)
        throw SchemaError(e.loc, "derive: cannot use '" + e.name + "': a derive: can only use derived fields declared before it");
      return;
    }
    if (e.kind == Expr::Call) {
      if (e.fn == Fn::Until)
        throw SchemaError(e.loc, std::string("until() is only known when reading (count:, size:); ") + key + " cannot use it");
      // An if: is evaluated when reading too, where no function but
      // file_size() and until() is known, and file_size() is late on write.
      if (std::string(key) == "if:")
        throw SchemaError(e.loc, "if: cannot use " + e.name + "(): an if: is evaluated both when reading and when writing");
      if (e.fn == Fn::Sum || (e.fn == Fn::Max && e.args[0].kind == Expr::Ident && st.field(e.args[0].name) &&
                              st.field(e.args[0].name)->array.on)) {
        check_write_expr(*st.field(e.args[0].name)->type.st, e.args[1], 0, key, true);
        return;
      }
      if (e.fn == Fn::Max) {
        for (const auto& a : e.args) check_write_expr(st, a, user, key, in_sum);
        return;
      }
      return;  // the others take a field, region or pool name, not a value
    }
    for (const auto& a : e.args) check_write_expr(st, a, user, key, in_sum);
  }

  static std::string hexs(uint64_t v) {
    char b[24];
    std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(v));
    return b;
  }

  Schema& s_;
  Loc root_loc_, context_loc_;
  std::set<const Struct*> done_, busy_;
};

}  // namespace

bool is_late(const Expr& e) {
  if (e.calls(Fn::Start) || e.calls(Fn::End) || e.calls(Fn::Size) || e.calls(Fn::FileSize)) return true;
  return std::any_of(e.args.begin(), e.args.end(), [](const Expr& a) { return is_late(a); });
}

bool uses_scoped_pool(const Schema& s, const Expr& e) {
  if (e.calls(Fn::Start) || e.calls(Fn::End) || e.calls(Fn::Size)) {
    const Pool* p = e.args.empty() ? nullptr : s.pool(e.args[0].name);
    return p && !p->scope.empty();
  }
  return std::any_of(e.args.begin(), e.args.end(), [&](const Expr& a) { return uses_scoped_pool(s, a); });
}

const char* field_kind_name(FieldKind k) {
  switch (k) {
    case FieldKind::Scalar: return "scalar";
    case FieldKind::BitWord: return "bit word";
    case FieldKind::Chars: return "chars";
    case FieldKind::CString: return "cstring";
    case FieldKind::Bytes: return "bytes";
    case FieldKind::PoolBlock: return "pool block";
    case FieldKind::Slice: return "data slice";
    case FieldKind::InlineStruct: return "inline struct";
    case FieldKind::InlineArray: return "inline array";
    case FieldKind::StringOffsets: return "string offsets";
    case FieldKind::ElemPointers: return "element pointers";
    case FieldKind::OwnStrings: return "own strings";
    case FieldKind::Pointer: return "pointer";
    case FieldKind::ArrayPointer: return "array pointer";
    case FieldKind::PooledString: return "pooled string";
    case FieldKind::OwnString: return "own string";
    case FieldKind::BlockRef: return "block reference";
    case FieldKind::Dic: return "dictionary";
    case FieldKind::Union: return "union";
    case FieldKind::Virtual: return "virtual";
  }
  return "?";
}

void validate(Schema& s, const Loc& root_loc, const Loc& context_loc) {
  Validator(s, root_loc, context_loc).run();
  check_tables(s);  // tables.cpp: string tables and the fields that index them
  check_names(s);  // names.cpp: the text spellings, once the layout is known valid
}

}  // namespace binschema::gen
