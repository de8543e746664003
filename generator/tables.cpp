// Checks of string tables (docs/schema-language.md §5, `table`, `index_of`,
// `offsets_of`): a root pointer to a table of strings that the writer builds
// from every field that holds an index into it. validate() runs these once
// every field has its shape.
#include <functional>
#include <map>
#include <set>

#include "schema.h"

namespace binschema::gen {

namespace {

bool is_uint(const Field& f) {
  return f.type.kind == ValueType::Prim && f.bits.empty() && !prim_is_float(f.type.prim) && !prim_is_signed(f.type.prim) &&
         f.type.prim != Prim::Bool8 && f.type.prim != Prim::Bool32;
}

// The structs a field leads to (its type, and its union cases' types).
void targets(const Field& f, std::vector<const Struct*>& out) {
  if (f.type.kind == ValueType::Struct && f.type.st) out.push_back(f.type.st);
  for (const auto& c : f.variant.cases)
    if (c.field) targets(*c.field, out);
}

bool holds_index(const Field& f) {
  if (!f.table.index_of.empty()) return true;
  for (const auto& c : f.variant.cases)
    if (c.field && !c.field->table.index_of.empty()) return true;
  return false;
}

}  // namespace

bool reaches_index(const Struct& st) {
  std::set<const Struct*> seen;
  std::function<bool(const Struct&)> go = [&](const Struct& s) {
    if (!seen.insert(&s).second) return false;
    for (const auto& f : s.fields) {
      if (!f->in_model()) continue;
      if (holds_index(*f)) return true;
      std::vector<const Struct*> ts;
      targets(*f, ts);
      for (const Struct* t : ts)
        if (go(*t)) return true;
    }
    return false;
  };
  return go(st);
}

void check_tables(Schema& s) {
  const Struct* root = s.find(s.root);
  std::map<std::string, Field*> tables;  // the root's table fields by name
  int next_id = 0;
  bool past_other_pointer = false;
  for (auto& st : s.structs)
    for (auto& f : st->fields) {
      if (f->table.order.empty()) continue;
      if (st.get() != root)
        throw SchemaError(f->table.loc, "'" + f->name + "': table: is for a field of the root (" + s.root + "), which the reader reads before the fields that index it");
      if (f->kind != FieldKind::Pointer || f->array.on || !f->type.st)
        throw SchemaError(f->table.loc, "'" + f->name + "': table: is for a pointer to a struct (ptr:, a struct type, no array)");
      const Struct& t = *f->type.st;
      const Field* strings = nullptr;
      for (const auto& g : t.fields) {
        if (!g->in_model()) continue;
        if (strings || g->kind != FieldKind::InlineArray || g->type.kind != ValueType::Struct)
          throw SchemaError(f->table.loc, "'" + f->name + "': a table struct (" + t.name + ") holds one array of strings and nothing else the model holds ('" + g->name + "' is more)");
        strings = g.get();
      }
      if (!strings) throw SchemaError(f->table.loc, "'" + f->name + "': table struct " + t.name + " has no array of strings");
      const Struct& e = *strings->type.st;
      if (e.fields.size() != 1 || e.fields[0]->kind != FieldKind::CString || e.fields[0]->pad || e.align > 1)
        throw SchemaError(f->table.loc, "'" + f->name + "': the elements of " + t.name + "." + strings->name + " (" + e.name + ") hold one cstring field and nothing else");
      f->table.id = next_id++;
      f->table.strings = strings;
      f->table.text = e.fields[0].get();
      tables[f->name] = f.get();
    }
  // The root's table fields come before its other pointers: the reader has read
  // every table before it meets an index.
  if (root)
    for (const auto& f : root->fields) {
      if (!f->table.order.empty() && past_other_pointer)
        throw SchemaError(f->table.loc, "'" + f->name + "': a table field comes before the root's other pointers (the reader reads the tables first)");
      if (f->table.order.empty() && (f->pointer.width || f->pointer.elem_width)) past_other_pointer = true;
    }
  // offsets_of: in a table struct, on an inline array of unsigned integers
  // right before the array of strings it gives the offsets of.
  for (auto& st : s.structs)
    for (size_t i = 0; i < st->fields.size(); ++i) {
      Field& f = *st->fields[i];
      if (f.table.offsets_of.empty()) continue;
      const Field* tf = nullptr;
      for (const auto& [n, t] : tables)
        if (t->type.st == st.get()) tf = t;
      if (!tf) throw SchemaError(f.table.loc, "'" + f.name + "': offsets_of: is for a struct that a table: field points to");
      if (f.kind != FieldKind::InlineArray || f.type.kind != ValueType::Prim || !is_uint(f) || !f.array.count)
        throw SchemaError(f.table.loc, "'" + f.name + "': offsets_of: is for a counted inline array of unsigned integers (u32[], say)");
      if (f.table.offsets_of != tf->table.strings->name || i + 1 >= st->fields.size() || st->fields[i + 1].get() != tf->table.strings)
        throw SchemaError(f.table.loc, "'" + f.name + "': offsets_of: names the array of strings ('" + tf->table.strings->name + "'), which follows it directly");
      const std::string n = tf->table.strings->array.count ? expr_text(*tf->table.strings->array.count) : std::string("?");
      const std::string c = expr_text(*f.array.count);
      if (c != n && c != n + " + 1")
        throw SchemaError(f.table.loc, "'" + f.name + "': offsets_of: count is '" + n + "' (one offset per string) or '" + n + " + 1' (then the end), not '" + c + "'");
    }
  // index_of: an unsigned integer (a field or a union case) naming a table of the root.
  auto check_index = [&](const Struct& st, Field& f) {
    if (f.table.index_of.empty()) return;
    auto it = tables.find(f.table.index_of);
    if (it == tables.end())
      throw SchemaError(f.table.loc, "'" + f.name + "': index_of: '" + f.table.index_of + "' is no table: field of the root (" + s.root + ")");
    if (f.kind != FieldKind::Scalar || !is_uint(f) || f.array.on)
      throw SchemaError(f.table.loc, "'" + f.name + "': index_of: is for a single unsigned integer field (u8 to u64, no array or bits)");
    if (f.spelled() || f.is_const() || f.role.derive || f.role.default_text || f.cond || f.is_virtual)
      throw SchemaError(f.table.loc, "'" + f.name + "': index_of: holds a string in the model: no enum:, ref:, hash_of:, format: bool, const:, derive:, default:, if: or virtual:");
    if (&st == root)
      throw SchemaError(f.table.loc, "'" + f.name + "': index_of: is for a field outside the root (the reader reads the root's fields before its tables)");
    f.table.id = it->second->table.id;
  };
  for (auto& st : s.structs)
    for (auto& f : st->fields) {
      check_index(*st, *f);
      for (auto& c : f->variant.cases)
        if (c.field) check_index(*st, *c.field);
    }
  // sort: by an index_of: field: the table is sorted, so that the strings' order is the indices'.
  for (auto& st : s.structs)
    for (auto& f : st->fields) {
      if (f->array.sort.empty() || f->type.kind != ValueType::Struct || !f->type.st) continue;
      const Field* k = f->type.st->field(f->array.sort);
      if (!k || k->table.index_of.empty()) continue;
      if (tables.at(k->table.index_of)->table.order != "sorted")
        throw SchemaError(f->loc, "sort: '" + f->array.sort + "' indexes table '" + k->table.index_of + "', which is not table: sorted (the reader checks the order by the strings)");
    }
  // The writer collects the strings through inline structs and arrays, pointers
  // to structs and arrays of them, element pointers and union cases.
  for (auto& st : s.structs)
    for (auto& f : st->fields) {
      if (!f->in_model()) continue;
      std::vector<const Struct*> ts;
      targets(*f, ts);
      bool reaches = false;
      for (const Struct* t : ts) reaches = reaches || reaches_index(*t);
      if (!reaches) continue;
      switch (f->kind) {
        case FieldKind::InlineStruct:
        case FieldKind::InlineArray:
        case FieldKind::Pointer:
        case FieldKind::ArrayPointer:
        case FieldKind::ElemPointers:
        case FieldKind::Union: break;
        default:
          throw SchemaError(f->loc, "'" + f->name + "' leads to index_of: fields through a " + field_kind_name(f->kind) +
                                        ", which the writer does not collect table strings through");
      }
    }
}

}  // namespace binschema::gen
