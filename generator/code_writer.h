// Accumulates generated text line by line, with indentation and {{NAME}}
// substitution, so templates in the back ends read like the code they emit.
#pragma once

#include <map>
#include <string>

namespace binschema::gen {

class CodeWriter {
 public:
  void set(const std::string& key, const std::string& value) { vars_[key] = value; }

  // Appends one line (or several separated by '\n'), substituting {{KEY}}.
  CodeWriter& operator+=(const std::string& text) {
    std::string line;
    for (size_t i = 0; i <= text.size(); ++i) {
      if (i == text.size() || text[i] == '\n') {
        if (!line.empty()) out_.append(indent_ * 2, ' ');
        out_ += substitute(line);
        out_ += '\n';
        line.clear();
      } else {
        line += text[i];
      }
    }
    return *this;
  }

  void indent() { ++indent_; }
  void dedent() { --indent_; }
  const std::string& str() const { return out_; }

 private:
  std::string substitute(const std::string& s) const {
    std::string r;
    for (size_t i = 0; i < s.size(); ++i) {
      if (s.compare(i, 2, "{{") == 0) {
        size_t end = s.find("}}", i);
        auto it = vars_.find(s.substr(i + 2, end - i - 2));
        if (end != std::string::npos && it != vars_.end()) {
          r += it->second;
          i = end + 1;
          continue;
        }
      }
      r += s[i];
    }
    return r;
  }

  std::map<std::string, std::string> vars_;
  std::string out_;
  int indent_ = 0;
};

}  // namespace binschema::gen
