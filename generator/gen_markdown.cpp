// Markdown back end: one page per format, a table per struct (offset, size,
// type, description) in the spirit of the wiki pages the formats come from.
#include <algorithm>
#include <filesystem>
#include <cctype>
#include <sstream>

#include "generate.h"

namespace binschema::gen {
namespace {

std::string hexs(uint64_t v) {
  std::ostringstream o;
  o << "0x" << std::uppercase << std::hex << v;
  return o.str();
}

// Table cells cannot hold line breaks or bare pipes.
std::string cell(const std::string& s) {
  std::string r;
  for (char c : s) {
    if (c == '\n') r += ' ';
    else if (c == '|') r += "\\|";
    else r += c;
  }
  while (!r.empty() && r.back() == ' ') r.pop_back();
  return r;
}

std::string link(const Struct& st) { return "[" + st.name + "](#" + st.name + ")"; }

// What one element (or the single value) of a field is.
std::string value_text(const Field& f) {
  switch (f.type.kind) {
    case ValueType::Prim: return prim_name(f.type.prim);
    case ValueType::Chars: return "char[" + std::to_string(f.type.chars) + "]";
    case ValueType::String: return "string";
    case ValueType::Bytes: return "bytes";
    case ValueType::Struct: return link(*f.type.st);
    case ValueType::Union: return "union";
    case ValueType::CString: return "NUL-terminated string";
    case ValueType::PoolBlock: return "the strings of pool `" + f.pool + "`";
    case ValueType::Dic: return "DIC of the names " + f.keys_array + "[]." + f.keys_field;
  }
  return "";
}

// "T[N]" or "T[]".
std::string array_text(const Field& f) {
  // Appended piece by piece: GCC 12 warns (wrongly, -Wrestrict) on "[" + n + "]" here.
  std::string t = value_text(f);
  t += '[';
  if (f.array.fixed_count) t += std::to_string(*f.array.fixed_count);
  t += ']';
  return t;
}

// A description, then a note after it (either may be empty).
std::string trim_join(const std::string& doc, const std::string& note) {
  if (note.empty()) return doc;
  if (doc.empty()) return note;
  return doc + (doc.back() == '.' ? " " : ". ") + note;
}

// How a union case's pointer counts (base: struct, scale:, points_to:).
std::string case_pointer_note(const Field& p) {
  if (!p.pointer.width) return "";
  std::string n = p.pointer.base == Field::Base::Struct ? "Relative to the start of this struct" : "";
  if (p.pointer.scale != 1) n += std::string(n.empty() ? "In" : ", in") + " units of " + std::to_string(p.pointer.scale) + " bytes";
  if (!p.pointer.points_to_field.empty())
    n += std::string(n.empty() ? "Points" : "; points") + " to its `" + p.pointer.points_to_field + "` (" + hexs(p.pointer.points_to_offset) + " bytes in)";
  return n.empty() ? n : n + ".";
}

std::string type_text(const Field& f) {
  const std::string word = f.pointer.width == 4 ? "u32" : f.pointer.width == 2 ? "u16" : "u64";  // a pointer's width
  const std::string elem_word = f.pointer.elem_width == 4 ? "u32" : "u64";  // an element pointer's width
  switch (f.kind) {
    case FieldKind::Scalar:
    case FieldKind::BitWord:
    case FieldKind::Chars:
    case FieldKind::CString:
    case FieldKind::Bytes:
    case FieldKind::PoolBlock:
    case FieldKind::InlineStruct:
    case FieldKind::Virtual:
      return value_text(f);
    case FieldKind::Union: return f.array.on ? array_text(f) : value_text(f);
    case FieldKind::InlineArray: return array_text(f);
    case FieldKind::Slice:
      return "2 " + word + ": begin and end of bytes in data pool `" + f.pool + "`" +
             (f.pointer.align_field.empty() ? std::string() : " (aligned to `" + f.pointer.align_field + "`)");
    case FieldKind::StringOffsets:
      return (f.array.fixed_count ? std::to_string(*f.array.fixed_count) + " " : std::string()) + "u32 offsets of strings in pool `" + f.pool + "`";
    case FieldKind::ElemPointers:
    case FieldKind::OwnStrings:
      return elem_word + " pointers to " + array_text(f);
    case FieldKind::Pointer:
    case FieldKind::OwnString:
      return word + " pointer to " + value_text(f);
    case FieldKind::ArrayPointer:
      if (!f.pool.empty()) return word + " offset of a " + array_text(f) + " in pool `" + f.pool + "`";
      return word + " pointer to " + (f.pointer.elem_width ? elem_word + " pointers to " : std::string()) + array_text(f);
    case FieldKind::PooledString:
    case FieldKind::Dic:
      return word + " offset of a " + value_text(f) + " in pool `" + f.pool + "`";
    case FieldKind::BlockRef:
      return word + " pointer to " + link(*f.type.st) + " in block pool `" + f.pool + "`";
  }
  return "";
}

std::string notes(const Schema& s, const Struct& st, const Field& f) {
  std::vector<std::string> n;
  if (!f.doc.empty()) n.push_back(f.doc);
  if (f.role.const_int) n.push_back("Always " + (f.spell.hex || *f.role.const_int > 9 ? hexs(static_cast<uint64_t>(*f.role.const_int)) : std::to_string(*f.role.const_int)) + ".");
  if (f.role.const_text) n.push_back(f.role.const_text->empty() ? "Always zero." : "Always `" + *f.role.const_text + "`.");
  if (f.pad) n.push_back("Then zero bytes up to a multiple of " + std::to_string(f.pad) + " (from the start of the file).");
  if (f.type.kind == ValueType::Bytes && !f.pointer.width && !f.pointer.align_field.empty())
    n.push_back("The writer places the struct so that these bytes start at a multiple of `" + f.pointer.align_field + "` (from the start of the file).");
  if (!f.resolved.count_for.empty()) {
    // Other arrays counted by the same field (the writer refuses different lengths).
    std::string also;
    for (const auto& g : st.fields)
      if (g->resolved.count_shared == f.resolved.count_for) also += " and `" + g->name + "`";
    n.push_back("Number of elements of `" + f.resolved.count_for + "`" + also + " (written from the model).");
  }
  if (!f.resolved.tag_for.empty()) {
    std::string cases;
    const Field* u = st.field(f.resolved.tag_for);
    for (const auto& c : u->variant.cases) cases += (cases.empty() ? "" : ", ") + std::to_string(c.tag) + " = " + c.name;
    if (f.array.on) n.push_back("One per element of `" + f.resolved.tag_for + "`, not in the model: element i selects the case of `" + f.resolved.tag_for + "`[i]: " + cases + ".");
    else n.push_back("Selects the case of `" + f.resolved.tag_for + "`: " + cases + ".");
  }
  if (f.role.derive) n.push_back("Computed on write: `" + expr_text(*f.role.derive) + "`.");
  if (f.array.count) n.push_back("Count: `" + expr_text(*f.array.count) + "`.");
  if (!f.resolved.count_shared.empty()) n.push_back("As many elements as `" + f.resolved.count_shared + "` (the writer refuses a different length).");
  if (f.size_rest) n.push_back("Runs to the end of the block.");
  if (f.size_expr) n.push_back("Size: `" + expr_text(*f.size_expr) + "`.");
  if (f.pointer.extent_next) n.push_back("The target runs up to the next element's target, or to the end of the file.");
  if (f.cond) n.push_back("Present only when `" + expr_text(*f.cond) + "`.");
  if (!f.bits.empty()) {
    std::string b;
    unsigned shift = 0;
    bool defaults = false;
    for (const auto& x : f.bits) {
      // After a doc that ends a sentence, the additions are sentences too.
      std::string about = x.doc;
      const bool sentences = !about.empty() && about.back() == '.';
      auto add = [&](const std::string& t) {
        if (sentences) about += " " + std::string(1, static_cast<char>(std::toupper(static_cast<unsigned char>(t[0])))) + t.substr(1) + ".";
        else about += (about.empty() ? "" : "; ") + t;
      };
      if (!x.pool.empty())
        add(x.scale > 1 ? "offset of a string in pool `" + x.pool + "`, in units of " + std::to_string(x.scale) + " bytes"
                        : "offset of a string in pool `" + x.pool + "`");
      if (x.default_text) add("default `" + *x.default_text + "`");
      defaults = defaults || x.default_text;
      b += (b.empty() ? "" : "; ") + std::string("bit") + (x.width > 1 ? "s " + std::to_string(shift) + "-" + std::to_string(shift + x.width - 1) : " " + std::to_string(shift)) +
           ": `" + x.name + "`" + (about.empty() ? "" : " (" + about + ")");
      shift += x.width;
    }
    n.push_back("Bits, from the least significant: " + b + ".");
    if (defaults) n.push_back("A bit field equal to its default is left out of the text form.");
  }
  if (f.pointer.width && (f.pool.empty() || s.in_block_pool(f))) {
    std::string p = f.pointer.base == Field::Base::Struct ? "Relative to the start of this struct" : "Absolute offset";
    if (f.pointer.null == Field::Null::WhenEmpty) p += "; 0 when empty";
    else if (f.pointer.null == Field::Null::Allowed) p += "; " + (f.pointer.null_value ? hexs(f.pointer.null_value) : std::string("0")) + " when absent";
    if (f.pointer.scale != 1) p += ", in units of " + std::to_string(f.pointer.scale) + " bytes";
    n.push_back(p + ".");
  }
  if (!f.array.sort.empty()) n.push_back("Kept sorted by `" + f.array.sort + "` on write.");
  if (!f.role.valid.empty()) {
    std::string v;
    for (int64_t x : f.role.valid) v += (v.empty() ? "" : ", ") + (f.spell.hex ? hexs(static_cast<uint64_t>(x)) : std::to_string(x));
    n.push_back("Valid values: " + v + ".");
  }
  if (f.role.default_text) n.push_back("Default `" + *f.role.default_text + "` (left out of the text form when equal).");
  if (f.true_value) n.push_back("True is stored as " + hexs(*f.true_value) + ", false as 0.");
  if (!f.spell.enum_name.empty()) n.push_back("Shown by name: enum [" + f.spell.enum_name + "](#enum-" + f.spell.enum_name + ").");
  if (f.spell.as_bool) n.push_back("Shown as `false`/`true` while 0/1 (any other value as a number).");
  if (!f.spell.ref.empty())
    n.push_back("A reference: the index of an element of `" + f.spell.ref + "`" + (f.spell.ref_via.empty() ? "" : " (of the `" + f.spell.ref_via + "` element)") +
                ", shown as its `" + (f.spell.ref_key.empty() ? std::string("name") : f.spell.ref_key) + "`" +
                [&] {
                  if (f.spell.ref_also.empty()) return std::string();
                  std::string t = ", or where other elements share it as a map of `" + f.spell.ref_key + "`";
                  for (const auto& a : f.spell.ref_also) t += ", `" + a + "`";
                  return t;
                }() + ".");
  if (!f.table.index_of.empty())
    n.push_back("The index of a string in table `" + f.table.index_of + "`: the model and the text hold the string, the writer stores its index.");
  if (!f.table.order.empty())
    n.push_back(std::string("A table of strings the writer builds from every field that indexes it (") +
                (f.table.order == "sorted" ? "sorted by bytes" : "in order of first use") + ", each once): not in the model or the text.");
  if (!f.table.offsets_of.empty())
    n.push_back("The offset of each element of `" + f.table.offsets_of + "` from the start of this struct (then the end of the last), computed by the writer.");
  if (!f.spell.hash_of.empty()) n.push_back("The " + f.spell.hash_of + " hash of a name: shown as the name when a name list has it; a name may be written instead.");
  if (f.is_virtual && f.type.kind == ValueType::Prim)
    n.push_back("Not stored: the alignment of a data slice, which the reader infers from where the slice lies (see the data pool).");
  else if (f.is_virtual)
    n.push_back("Not stored in this struct (see the dictionary that holds it).");
  if (!f.region.empty()) n.push_back("Its target is region `" + f.region + "`.");
  std::string r;
  for (const auto& s : n) r += (r.empty() ? "" : " ") + s;
  return cell(r);
}

}  // namespace

std::string generate_markdown(const Schema& s) {
  std::ostringstream o;
  o << "<!-- Generated by binschema-gen from " << s.file << ". Do not edit: edit the schema. -->\n";
  o << "# " << s.title << "\n\n";
  if (!s.doc.empty()) o << s.doc << (s.doc.back() == '\n' ? "" : "\n") << "\n";
  o << "| | |\n|---|---|\n";
  o << "| Format name | `" << s.format << "` |\n";
  const Field* bomf = s.endian_by_bom ? s.find(s.root)->field(s.bom_field) : nullptr;
  if (bomf && !bomf->bom_marks.empty()) {
    o << "| Byte order | chosen by `" << s.bom_field << "`:";
    for (size_t i = 0; i < bomf->bom_marks.size(); ++i)
      o << (i ? "," : "") << " `" << bomf->bom_marks[i].first << "` " << (bomf->bom_marks[i].second ? "big-endian" : "little-endian");
    o << " |\n";
  } else if (s.endian_by_bom)
    o << "| Byte order | chosen by `" << s.bom_field << "`: bytes FE FF big-endian, FF FE little-endian |\n";
  else
    o << "| Byte order | " << (s.big_endian ? "big-endian" : "little-endian") << " |\n";
  if (!s.versions.empty()) o << "| Versions | " << cell(s.versions) << " |\n";
  std::string ext;
  for (const auto& e : s.extensions) ext += (ext.empty() ? "" : ", ") + ("`" + e + "`");
  if (!ext.empty()) o << "| File extensions | " << ext << " |\n";
  if (!s.magic.empty()) {
    std::string m;
    for (char c : s.magic) {
      if (c >= 0x20 && c < 0x7f) {
        m += c;
      } else {
        char b[8];
        std::snprintf(b, sizeof b, "\\x%02x", static_cast<unsigned char>(c));
        m += b;
      }
    }
    o << "| Magic | `" << m << "` at " << hexs(s.magic_offset) << " |\n";
  }
  o << "| Root struct | [" << s.root << "](#" << s.root << ") |\n";
  if (!s.context.empty()) {
    std::string c;
    for (const auto& g : s.context) c += (c.empty() ? "" : ", ") + ("`" + g + "`");
    o << "| Context fields | " << c << " (fields of the root that expressions in every struct may use) |\n";
  }
  if (s.relocation_table)
    o << "| Relocation table | `RELT`, written last: every 8-byte pointer slot (some null ones too), in runs of up to 32 |\n";
  if (s.hooks.empty()) {
    o << "| Hooks (hand-written C++) | none |\n\n";
  } else {
    std::string hs;
    for (const auto& h : s.hooks) hs += (hs.empty() ? "" : ", ") + ("`" + h.name + "`");
    o << "| Hooks (hand-written C++) | " << hs << " (see below) |\n\n";
    o << "## Hooks\n\nWhat the schema cannot say is done by these functions in `schemas/" << s.format
      << ".hooks.cpp`. Each runs, before writing, on every instance of its struct (in a copy of the model).\n\n"
      << "| Hook | Runs on | What it does |\n|---|---|---|\n";
    for (const auto& h : s.hooks) o << "| `" << h.name << "` | [" << h.on << "](#" << h.on << ") | " << cell(h.doc) << " |\n";
    o << "\n";
  }

  if (!s.example.empty()) {
    // The text form, by example: a document binschema decodes files of this
    // format into (names_test format_docs checks that it is one).
    o << "## Text form\n\n`binschema decode` shows a file of this format as YAML like this (or JSON with "
      << "`--format json`), and `binschema encode` turns it into the file. This is [`"
      << std::filesystem::path(s.example).filename().string() << "`](" << s.example << "); the [schema language]"
      << "(../docs/schema-language.md#7-text-form) says how each kind of field is written.\n\n";
    const size_t lines = static_cast<size_t>(std::count(s.example_text.begin(), s.example_text.end(), '\n'));
    const bool fold = lines > 120;
    if (fold) o << "<details><summary>The whole document (" << lines << " lines)</summary>\n\n";
    o << "```yaml\n" << s.example_text << (s.example_text.empty() || s.example_text.back() == '\n' ? "" : "\n") << "```\n\n";
    if (fold) o << "</details>\n\n";
  }

  const bool string_pools = std::any_of(s.pools.begin(), s.pools.end(), [](const Pool& p) { return p.kind != Pool::Kind::Block; });
  const bool block_pools = std::any_of(s.pools.begin(), s.pools.end(), [](const Pool& p) { return p.kind == Pool::Kind::Block; });
  if (string_pools) {
    o << "## String pools\n\n| Pool | Strings | Order | Alignment | Notes |\n|---|---|---|---|---|\n";
    for (const auto& p : s.pools) {
      if (p.kind == Pool::Kind::Block) continue;
      std::string keep;
      for (const auto& k : p.keep) keep += (keep.empty() ? "" : ", ") + ("`\"" + k + "\"`");
      if (p.kind == Pool::Kind::Data) {
        o << "| `" << p.name << "` | byte strings (data slices), each at a multiple of its alignment | order of reference | at least " << p.align
          << " | " << cell(p.doc + (p.doc.empty() ? "" : " ") + "Each slice's begin and end are relative to the start of the pool, which `" + p.base +
                           "` holds; the pool starts at a multiple of its largest alignment.")
          << " |\n";
        continue;
      }
      o << "| `" << p.name << "` | " << (p.kind == Pool::Kind::CString ? "NUL-terminated" : "u16 length, bytes, NUL")
        << " | " << (p.order == Pool::Order::ReversedBits ? "by reversed bits" : p.order == Pool::Order::Sorted ? "sorted by bytes" : "order of first use")
        << (p.shared ? "" : ", not shared") << (p.scope.empty() ? "" : ", one per " + p.scope) << " | " << p.align << " | ";
      std::string pn = p.doc + (keep.empty() ? "" : " Always holds " + keep + ".");
      const Field* bf = p.base.empty() ? nullptr : s.find(s.root)->field(p.base);
      if (bf && bf->type.kind == ValueType::PoolBlock)
        pn += (pn.empty() ? "" : " ") + ("String offsets are relative to the start of the pool, which the field `" + p.base +
                                         "` places; the reader checks that the strings are where the writer would put them.");
      else if (!p.base.empty())
        pn += (pn.empty() ? "" : " ") + ("String offsets are relative to the start of the pool, which `" + p.base + "` holds (not pointer slots).");
      o << cell(pn) << " |\n";
    }
    o << "\nIn a shared pool each distinct string is stored once and every reference to it points at the same copy.\n\n";
  }
  if (block_pools) {
    o << "## Block pools\n\n| Pool | Blocks | Order | Placed | Notes |\n|---|---|---|---|---|\n";
    for (const auto& p : s.pools) {
      if (p.kind != Pool::Kind::Block) continue;
      // The struct types that fields put into it.
      std::vector<std::string> types;
      if (p.block_st) types.push_back(p.block_st->name);
      auto note = [&](const Field& f) {
        if (f.pool == p.name && f.type.kind == ValueType::Struct && std::find(types.begin(), types.end(), f.type.st->name) == types.end())
          types.push_back(f.type.st->name);
      };
      // A scoped pool is only written where its struct's layout says.
      std::string placed = p.scope.empty() ? "at the end of the file" : "nowhere: no `pool " + p.name + "` in the layout of " + p.scope;
      for (const auto& st : s.structs) {
        for (const auto& f : st->fields) {
          note(*f);
          for (const auto& c : f->variant.cases) note(*c.field);
        }
        for (const auto& li : st->layout)
          if (li.kind == LayoutItem::Pool && li.name == p.name) placed = "by the layout of [" + st->name + "](#" + st->name + ")";
      }
      std::string ts;
      for (const auto& t : types) ts += (ts.empty() ? "" : ", ") + ("[" + t + "](#" + t + ")");
      o << "| `" << p.name << "` | " << ts << " | "
        << (p.shared ? "equal blocks stored once, in order of first use" : "a block per reference, in order of reference")
        << (p.scope.empty() ? "" : ", one pool per " + p.scope) << " | " << placed << " | " << cell(p.doc) << " |\n";
    }
    o << "\nEach block is aligned to its struct's alignment and followed by what it points to.\n\n";
  }

  if (!s.enums.empty()) {
    // Each enum with its named values (the text shows and reads the names).
    o << "## Enums\n\nValues with a name are shown by it in the text; any other value is kept as a number.\n\n";
    for (const auto& e : s.enums) {
      o << "<a id=\"enum-" << e.name << "\"></a>\n### " << e.name << "\n\n| Value | Name |\n|---|---|\n";
      for (const auto& [v, nm] : e.values) o << "| " << v << " | `" << nm << "` |\n";
      o << "\n";
    }
  }

  o << "## Structures\n\n";
  for (const auto& stp : s.structs) {
    const Struct& st = *stp;
    o << "<a id=\"" << st.name << "\"></a>\n### " << st.name << "\n\n";
    if (!st.doc.empty()) o << st.doc << (st.doc.back() == '\n' ? "" : "\n") << "\n";
    o << "Size: " << (st.fixed_size ? hexs(st.size) + " bytes" : "variable") << "; alignment " << st.align << ".\n\n";
    if (st.fields.empty()) {
      o << "No fields.\n\n";
    } else {
      o << "| Offset | Size | Type | Field | Description |\n|---|---|---|---|---|\n";
      for (const auto& f : st.fields) {
        std::string off = f->resolved.fixed_offset ? hexs(f->resolved.offset) : "…";
        std::string size = f->resolved.fixed_size ? hexs(f->resolved.size) : "varies";
        o << "| " << off << " | " << size << " | " << cell(type_text(*f)) << " | `" << f->name << "` | " << notes(s, st, *f) << " |\n";
      }
      o << "\n";
    }
    // Unions with cases that point to a struct of their own: placed after the layout items.
    std::vector<std::string> case_targets;
    for (const auto& f : st.fields) {
      if (f->type.kind != ValueType::Union) continue;
      bool placed = false;
      for (const auto& c : f->variant.cases) placed = placed || (c.field->pointer.width && c.field->type.kind == ValueType::Struct && !s.in_block_pool(*c.field));
      if (placed) case_targets.push_back("the target of `" + f->name + "`'s case");
      const std::string chooser = f->variant.tag_shift ? "bits " + std::to_string(f->variant.tag_shift) + " and up" : "`" + f->variant.tag + "`";
      o << "Cases of `" << f->name << "` (chosen by " << chooser;
      if (f->variant.tag_shift) o << " of the pointer, whose lower bits hold the offset";
      if (f->variant.pad_to > 1) o << "; each padded to a multiple of " << f->variant.pad_to << " bytes";
      o << "):\n\n| " << (f->variant.tag_shift ? "Bits " + std::to_string(f->variant.tag_shift) + "+" : chooser)
        << " | Case | Size | Type | Description |\n|---|---|---|---|---|\n";
      for (const auto& c : f->variant.cases)
        o << "| " << (f->variant.tag_shift ? hexs(static_cast<uint64_t>(c.tag)) : std::to_string(c.tag)) << " | `" << c.name << "` | "
          << (c.field->resolved.fixed_size ? hexs(c.field->resolved.size) : "varies") << " | " << cell(type_text(*c.field)) << " | "
          << cell(trim_join(c.doc.empty() ? c.field->doc : c.doc,
                            case_pointer_note(*c.field)))
          << " |\n";
      o << "\nAny other value of " << chooser << " is refused when reading, with its offset.\n\n";
    }
    if (!st.layout.empty() || !case_targets.empty()) {
      o << (st.has_self ? "Written in this order: " : "Written after it, in this order: ");
      std::string items;
      for (const auto& li : st.layout) {
        std::string item;
        switch (li.kind) {
          case LayoutItem::FieldTarget: item = "`" + li.name + "`"; break;
          case LayoutItem::Shallow: item = "`" + li.name + "` (without what it points to)"; break;
          case LayoutItem::Children: item = "what each element of `" + li.name + "` points to"; break;
          case LayoutItem::Pool: item = "pool `" + li.name + "`"; break;
          case LayoutItem::Align: item = "padding to " + std::to_string(li.n); break;
          case LayoutItem::Zeros: item = std::to_string(li.n) + " zero bytes"; break;
          case LayoutItem::Self: item = "**the struct itself**"; break;
        }
        items += (items.empty() ? "" : ", ") + item;
      }
      for (const auto& t : case_targets) items += (items.empty() ? "" : ", ") + t;
      o << items << " (each target followed by what it points to).\n\n";
    }
  }
  return o.str();
}

}  // namespace binschema::gen
