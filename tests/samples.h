// Access to the real game files in ../shared/samples/ (Nintendo's data: read
// in place, never copied into this repository). A missing folder is a test
// failure with a clear message, never a silent pass.
#pragma once

#include <boost/test/unit_test.hpp>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace samples {

inline std::filesystem::path dir(const std::string& sub) {
  std::filesystem::path p = std::filesystem::path(BINSCHEMA_SHARED_DIR) / "samples" / sub;
  if (!std::filesystem::is_directory(p))
    BOOST_FAIL("sample folder " + p.string() +
               " is missing: these tests need the real files in ../shared/samples/ beside the checkout");
  return p;
}

inline std::vector<std::filesystem::path> files(const std::string& sub) {
  std::vector<std::filesystem::path> out;
  for (const auto& e : std::filesystem::directory_iterator(dir(sub)))
    if (e.is_regular_file() && e.path().extension() != ".md") out.push_back(e.path());
  std::sort(out.begin(), out.end());
  if (out.empty()) BOOST_FAIL("no sample files in " + dir(sub).string());
  return out;
}

inline std::vector<uint8_t> read(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

}  // namespace samples
