// binschema check: see check.h.
#include "check.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "binschema/schema.h"
#include "io.h"

namespace fs = std::filesystem;

namespace binschema::cli {

namespace {

// The schema files a path names: itself, or a folder's *.yaml and *.yml in name order.
bool schema_files(const std::string& path, std::vector<std::string>& out) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    std::vector<std::string> found;
    for (const auto& e : fs::directory_iterator(path, ec)) {
      const std::string ext = e.path().extension().string();
      if (e.is_regular_file() && (ext == ".yaml" || ext == ".yml")) found.push_back(e.path().string());
    }
    if (ec) {
      std::fprintf(stderr, "binschema: check: cannot read the folder %s: %s\n", path.c_str(), ec.message().c_str());
      return false;
    }
    if (found.empty()) {
      std::fprintf(stderr, "binschema: check: %s holds no .yaml or .yml file\n", path.c_str());
      return false;
    }
    std::sort(found.begin(), found.end());
    out.insert(out.end(), found.begin(), found.end());
    return true;
  }
  if (!std::ifstream(path)) {
    std::fprintf(stderr, "binschema: check: cannot read %s\n", path.c_str());
    return false;
  }
  out.push_back(path);
  return true;
}

}  // namespace

int cmd_check(const std::vector<std::string>& paths) {
  std::vector<std::string> files;
  for (const auto& p : paths)
    if (!schema_files(p, files)) return kUsage;
  int status = 0;
  for (const auto& file : files) {
    try {
      const auto s = gen::load_schema(file);
      std::printf("%s: OK (format %s, %zu types)\n", file.c_str(), s->format.c_str(), s->structs.size());
    } catch (const gen::SchemaError& e) {
      // Already "file:line:col: message", on one line.
      std::string m = e.what();
      std::replace(m.begin(), m.end(), '\n', ' ');
      std::fprintf(stderr, "%s\n", m.c_str());
      status = kBadData;
    }
  }
  return status;
}

}  // namespace binschema::cli
