// Fuzz target: the schema generator, in process: schema YAML -> validated
// model -> C++ and Markdown. Any input either is refused with SchemaError
// (file:line:col and what is wrong) or generates both outputs; any other
// exception, a crash or a sanitizer report is a bug (binschema-gen catches
// SchemaError only).
#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "schema.h"

namespace {

// load_schema() reads a file: the input goes to an in-memory one.
int g_fd = -1;
std::string g_path;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (g_fd < 0) {
    g_fd = ::memfd_create("schema.yaml", 0);
    if (g_fd < 0) std::abort();
    g_path = "/proc/self/fd/" + std::to_string(g_fd);
  }
  if (::ftruncate(g_fd, 0) != 0 || ::pwrite(g_fd, data, size, 0) != static_cast<ssize_t>(size)) std::abort();
  try {
    auto s = binschema::gen::load_schema(g_path);
    auto cpp = binschema::gen::generate_cpp(*s);
    auto md = binschema::gen::generate_markdown(*s);
    if (cpp.header.empty() || cpp.source.empty() || md.empty()) {
      std::fprintf(stderr, "fuzz_generator: a schema generated empty output\n");
      std::abort();
    }
  } catch (const binschema::gen::SchemaError&) {
    return 0;
  }
  return 0;
}
