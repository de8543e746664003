// Naming rules for generated C++, in one place.
#pragma once

#include <cctype>
#include <cstdio>
#include <set>
#include <string>

namespace binschema::gen {

// Schema field names are snake_case already; a C++ keyword gets a '_'.
inline std::string cpp_field(const std::string& name) {
  static const std::set<std::string> kw = {
      "alignas", "alignof", "and", "asm", "auto", "bool", "break", "case", "catch", "char",
      "class", "const", "continue", "default", "delete", "do", "double", "else", "enum",
      "explicit", "export", "extern", "false", "float", "for", "friend", "goto", "if", "inline",
      "int", "long", "mutable", "namespace", "new", "not", "operator", "or", "private",
      "protected", "public", "register", "return", "short", "signed", "sizeof", "static",
      "struct", "switch", "template", "this", "throw", "true", "try", "typedef", "typename",
      "union", "unsigned", "using", "virtual", "void", "volatile", "while", "xor"};
  return kw.count(name) ? name + "_" : name;
}

// snake_case field name -> UpperCamel nested type name ("value" -> "Value").
inline std::string cpp_nested_type(const std::string& field) {
  std::string r;
  bool up = true;
  for (char c : field) {
    if (c == '_') {
      up = true;
      continue;
    }
    r += up ? static_cast<char>(std::toupper(static_cast<unsigned char>(c))) : c;
    up = false;
  }
  return r;
}

// Format name -> C++ namespace ("baev" -> binschema::baev).
inline std::string cpp_namespace(const std::string& format) { return "binschema::" + format; }

inline std::string cpp_string_literal(const std::string& s) {
  std::string r = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      r += '\\';
      r += static_cast<char>(c);
    } else if (c < 0x20 || c >= 0x7f) {
      char b[8];
      std::snprintf(b, sizeof b, "\\x%02x\"\"", c);
      r += b;
    } else {
      r += static_cast<char>(c);
    }
  }
  return r + "\"";
}

// A JSON string literal; YAML reads the same escapes in a double-quoted scalar,
// so the JSON Schema and Kaitai back ends share it.
inline std::string json_string_literal(const std::string& s) {
  std::string o = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '"': o += "\\\""; break;
      case '\\': o += "\\\\"; break;
      case '\n': o += "\\n"; break;
      case '\t': o += "\\t"; break;
      case '\r': o += "\\r"; break;
      default:
        if (c < 0x20) {
          char b[8];
          std::snprintf(b, sizeof b, "\\u%04x", c);
          o += b;
        } else {
          o += static_cast<char>(c);
        }
    }
  }
  return o + "\"";
}

}  // namespace binschema::gen
