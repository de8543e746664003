#include "convert.h"

#include <yaml-cpp/yaml.h>

#include <exception>
#include <new>

#include "binschema/added_formats.h"
#include "binschema/error.h"
#include "layers.h"

namespace binschema::cli {

std::string known_formats() {
  std::string names;
  std::vector<const Format*> list = added_formats();
  list.insert(list.end(), all_formats().begin(), all_formats().end());
  for (const Format* f : list) {
    if (!names.empty()) names += ", ";
    names += f->name;
  }
  return names;
}

namespace {

// The one-line message for a decode error. DecodeError::what() is
// "path: message"; the messages name the offset themselves, but a few (null
// pointers) do not, and the CLI promises a location in every such line.
std::string describe(const DecodeError& e) {
  std::string what = e.what();
  std::string at = hex(e.offset());
  if (what.find(at) == std::string::npos) what += " (at " + at + ")";
  return what;
}

std::string yaml_where(const YAML::Mark& m) {
  if (m.is_null()) return "";
  return std::to_string(m.line + 1) + ":" + std::to_string(m.column + 1) + ": ";
}

std::string text_where(const binschema::text::Mark& m) {
  if (!m.known) return "";
  return std::to_string(m.line) + ":" + std::to_string(m.col) + ": ";
}

}  // namespace

const Format* format_for_bytes(const std::string& as, std::span<const uint8_t> bytes, const std::string& in) {
  if (!as.empty()) return find_format(as);  // validated by the parser
  const Format* f = detect_format(bytes, detection_name(in));  // x.sbaev, x.baev.zs: by the inner name
  if (!f)
    throw Failure{kBadData,
                  display_name(in) + ": cannot tell the format (no known magic or file extension); "
                                     "use --as NAME (known: " + known_formats() + ")",
                  true};
  return f;
}

std::string decode_to_text(const Format& f, std::span<const uint8_t> bytes, TextKind kind, const std::string& in) {
  try {
    return f.decode(bytes, kind);
  } catch (const DecodeError& e) {
    throw Failure{kBadData, display_name(in) + ": " + describe(e)};
  }
}

Encoded encode_from_text(std::span<const uint8_t> raw, const std::string& as, const std::string& in) {
  const std::string name = display_name(in);
  // Text errors are reported as "IN:line:col: ..." like a compiler's, so
  // that editors can jump to them.
  try {
    // text::load: nesting deeper than 500 levels is named as such, not "bad file".
    const binschema::text::Doc parsed =
        binschema::text::load(std::string_view(reinterpret_cast<const char*>(raw.data()), raw.size()));
    const binschema::text::Node doc = parsed.root();
    if (!doc.is_map())
      throw Failure{kBadData,
                    name + ":" + (!doc.mark().known ? "1:1: " : text_where(doc.mark())) +
                        "expected a map with a 'format' key at the top",
                    as.empty()};
    const Format* f = nullptr;
    if (!as.empty()) {
      // --as wins over the document's own `format:` (which is then ignored):
      // that is how a document with a wrong or missing key is fed anyway.
      f = find_format(as);
    } else {
      const binschema::text::Node key = doc.get("format");
      if (!key)
        throw Failure{kBadData,
                      name + ":" + text_where(doc.mark()) + "missing 'format' key (or pass --as NAME; known: " +
                          known_formats() + ")",
                      true};
      if (!key.is_scalar())
        throw Failure{kBadData, name + ":" + text_where(key.mark()) + "format: expected a format name"};
      f = find_format(key.scalar());
      if (!f)
        throw Failure{kBadData, name + ":" + text_where(key.mark()) + "format: unknown format '" + std::string(key.scalar()) +
                                    "' (known: " + known_formats() + ")"};
    }
    return Encoded{f, f->encode(parsed)};
  } catch (const TextError& e) {
    throw Failure{kBadData, name + ":" + e.what()};  // what() starts with "line:col: "
  } catch (const YAML::Exception& e) {
    // ParserException (syntax) and the conversion errors yaml-cpp throws.
    std::string where = yaml_where(e.mark);
    throw Failure{kBadData, name + ":" + (where.empty() ? " " : where) + e.msg};
  } catch (const EncodeError& e) {
    throw Failure{kBadData, name + ": " + e.what()};
  }
}

std::string info_text(const Format& f, std::span<const uint8_t> bytes, const std::string& in) {
  std::string out;
  try {
    for (const auto& [key, value] : f.info(bytes)) out += key + ": " + value + "\n";
  } catch (const DecodeError& e) {
    throw Failure{kBadData, display_name(in) + ": " + describe(e)};
  }
  return out;
}

Failure current_failure(const std::string& in) {
  const std::string where = in.empty() ? std::string() : display_name(in) + ": ";
  try {
    throw;
  } catch (const Failure& f) {
    return f;
  } catch (const DecodeError& e) {
    // Formats throw these from places the conversions above do not wrap.
    return Failure{kBadData, where + describe(e)};
  } catch (const std::bad_alloc&) {
    // A corrupt count that slipped past the bounds checks, or a huge input.
    return Failure{kBadData, where + "out of memory"};
  } catch (const std::exception& e) {
    return Failure{kBadData, where + e.what()};
  } catch (...) {
    return Failure{kBadData, where + "unexpected error"};
  }
}

}  // namespace binschema::cli
