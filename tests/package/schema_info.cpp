// A tool of the consumer's own over binschema's schema model
// (binschema::schema, <binschema/schema.h>): it loads a schema held in memory,
// prints what the validated model says of each field, then shows the error a
// broken schema gets (name:line:col). run.cmake checks the output.
#include <binschema/schema.h>

#include <iostream>
#include <string>

int main() {
  namespace gen = binschema::gen;
  const std::string text =
      "format: probe\n"
      "endian: little\n"
      "root: Head\n"
      "types:\n"
      "  Head:\n"
      "    fields:\n"
      "      - {name: count, type: u16}\n"
      "      - {name: flags, type: u16}\n"
      "      - {name: values, type: \"u32[]\", count: count}\n";
  const auto s = gen::load_schema_text(text, "probe.yaml");
  std::cout << s->format << ", root " << s->root << "\n";
  for (const auto& st : s->structs)
    for (const auto& f : st->fields)
      std::cout << st->name << "." << f->name << ": " << gen::field_kind_name(f->kind) << " at " << f->resolved.offset
                << (f->resolved.count_for.empty() ? "" : ", the count of " + f->resolved.count_for) << "\n";
  try {
    gen::load_schema_text(text + "      - {name: extra, type: u33}\n", "probe.yaml");
    std::cerr << "a schema with an unknown type was accepted\n";
    return 1;
  } catch (const gen::SchemaError& e) {
    std::cout << e.what() << "\n";
  }
  return 0;
}
