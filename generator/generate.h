// The back ends of binschema-gen: each turns a validated Schema (schema.h)
// into the text of one output. They are part of the generator only; the
// model and its loader are the installed library binschema::schema.
#pragma once

#include <string>

#include "schema.h"

namespace binschema::gen {

// gen_cpp*.cpp: NAME.h (the model, reader and writer declarations), NAME.cpp,
// and NAME_text.h (the text binding: visit_fields, to_text, from_text).
struct CppOutput {
  std::string header, source, text_header;
};
CppOutput generate_cpp(const Schema& s);
// gen_markdown.cpp: the format's documentation page.
std::string generate_markdown(const Schema& s);
// gen_jsonschema.cpp: a JSON Schema of the format's text form.
std::string generate_jsonschema(const Schema& s);
// gen_ksy.cpp: a Kaitai Struct description of the format.
std::string generate_ksy(const Schema& s);

}  // namespace binschema::gen
