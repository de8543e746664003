// Accumulates generated text line by line, with indentation, so templates in
// the back ends read like the code they emit. Two ways in:
//   w += text;                          text as it is: never substituted
//   w.line("f({{X}});", {{"X", x}});    a template: each {{KEY}} is replaced
//                                       by its value given in that same call
// Values are inserted as they are, never scanned for {{...}} themselves, so
// text from a schema (docs, const: strings, names) comes out as written
// whether it goes in through += or as a value. A {{KEY}} with no value in
// its call is a bug in the generator: std::logic_error naming the key.
#pragma once

#include <initializer_list>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

namespace binschema::gen {

class CodeWriter {
 public:
  using Vars = std::initializer_list<std::pair<std::string_view, std::string_view>>;

  // Appends one line (or several separated by '\n') as they are.
  CodeWriter& operator+=(std::string_view text) {
    append(text);
    return *this;
  }

  // Appends a template (one line or several), its {{KEY}}s replaced by `vars`.
  CodeWriter& line(std::string_view tmpl, Vars vars) {
    append(substitute(tmpl, vars));
    return *this;
  }

  void indent() { ++indent_; }
  void dedent() { --indent_; }
  const std::string& str() const { return out_; }

 private:
  void append(std::string_view text) {
    size_t start = 0;
    for (;;) {
      const size_t nl = text.find('\n', start);
      const std::string_view line = text.substr(start, nl == std::string_view::npos ? std::string_view::npos : nl - start);
      if (!line.empty()) out_.append(indent_ * 2, ' ');
      out_ += line;
      out_ += '\n';
      if (nl == std::string_view::npos) break;
      start = nl + 1;
    }
  }

  static std::string substitute(std::string_view tmpl, Vars vars) {
    std::string r;
    size_t i = 0;
    for (size_t open; (open = tmpl.find("{{", i)) != std::string_view::npos;) {
      const size_t close = tmpl.find("}}", open + 2);
      if (close == std::string_view::npos)
        throw std::logic_error("CodeWriter: unclosed {{ in template: " + std::string(tmpl));
      const std::string_view key = tmpl.substr(open + 2, close - open - 2);
      const auto* it = vars.begin();
      while (it != vars.end() && it->first != key) ++it;
      if (it == vars.end())
        throw std::logic_error("CodeWriter: no value for {{" + std::string(key) + "}} in template: " + std::string(tmpl));
      r.append(tmpl.substr(i, open - i));
      r.append(it->second);
      i = close + 2;
    }
    r.append(tmpl.substr(i));
    return r;
  }

  std::string out_;
  int indent_ = 0;
};

}  // namespace binschema::gen
