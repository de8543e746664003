// Fuzz target: the run-time engine (binschema/dynamic.h) against one
// format's generated code, on the same input. Built once per format with
// BINSCHEMA_FUZZ_FORMAT naming its namespace and BINSCHEMA_FUZZ_SCHEMA its
// schema file (tests/fuzzer/CMakeLists.txt).
//
// For any input, both sides
//   - decode it to the same outcome: both refuse it with the same message
//     (offset and field path), or both give a model;
//   - print that model as the same YAML and JSON;
//   - read that text back and encode it to the same bytes (or the same error),
//     fresh and with the file's layout (decode(bytes, layout), which refuses
//     or keeps the same files on both sides);
// Any difference, or an exception of another kind, aborts. A schema the
// engine refuses at load is reported once and then every input passes; one
// with hooks (BFEVFL's), which the engine decodes and prints but does not
// encode, is compared up to the text.
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "binschema/dynamic.h"
#include "binschema/error.h"
#include "binschema/layout.h"
#include "binschema/schema.h"
#include "binschema/text.h"
#include BINSCHEMA_FUZZ_HEADER

namespace F = binschema::BINSCHEMA_FUZZ_FORMAT;
namespace dyn = binschema::dynamic;

namespace {

[[noreturn]] void broken(const char* what, const std::string& gen, const std::string& run) {
  std::fprintf(stderr, "fuzz_dynamic: the engine and the generated code differ: %s\ngenerated: %s\nrun time:  %s\n", what,
               gen.substr(0, 4000).c_str(), run.substr(0, 4000).c_str());
  std::abort();
}

const dyn::Schema* schema() {
  static std::optional<dyn::Schema> s = [] () -> std::optional<dyn::Schema> {
    try {
      return dyn::Schema::load(BINSCHEMA_FUZZ_SCHEMA);
    } catch (const binschema::gen::SchemaError& e) {
      std::fprintf(stderr, "fuzz_dynamic: the engine refuses the schema, nothing to compare: %s\n", e.what());
      return std::nullopt;
    }
  }();
  return s ? &*s : nullptr;
}

// The outcome of one step: a value, or the message of the error it threw.
// An error of a kind the step does not promise (not DecodeError / TextError
// / EncodeError / LayoutNotKept) is a failure of the engine or of the code.
template <class T>
struct Outcome {
  std::optional<T> value;
  std::string error;
};
template <class T, class Fn>
Outcome<T> attempt(const char* what, Fn&& fn) {
  Outcome<T> o;
  try {
    o.value = fn();
  } catch (const binschema::DecodeError& e) {
    o.error = e.what();
  } catch (const binschema::TextError& e) {
    o.error = e.what();
  } catch (const binschema::EncodeError& e) {
    o.error = e.what();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fuzz_dynamic: %s threw an unexpected %s\n", what, e.what());
    std::abort();
  }
  return o;
}

std::string hexdump(const std::vector<uint8_t>& b) {
  std::string s = std::to_string(b.size()) + " bytes:";
  for (size_t i = 0; i < b.size() && i < 256; ++i) s += " " + binschema::hex(b[i]);
  return s;
}

template <class A, class B>
void same_bytes(const char* what, const Outcome<A>& g, const Outcome<B>& d) {
  if (g.error != d.error) broken(what, g.error, d.error);
  if (g.value && d.value && *g.value != *d.value) broken(what, hexdump(*g.value), hexdump(*d.value));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const dyn::Schema* d = schema();
  if (!d) return 0;
  const std::span<const uint8_t> in(data, size);
  using Root = decltype(F::decode(in));

  // Decode (no layout).
  const auto gm = attempt<Root>("generated decode", [&] { return F::decode(in); });
  const auto dv = attempt<dyn::Value>("engine decode", [&] { return d->decode(in); });
  if (gm.error != dv.error) broken("decode", gm.error, dv.error);
  if (!gm.value) return 0;

  // Text out, then in, then encode: the same text, the same bytes. (A schema
  // whose writing the engine refuses, encode_refusal(), is compared up to the text.)
  const bool writes = d->encode_refusal().empty();
  for (auto kind : {binschema::TextKind::Yaml, binschema::TextKind::Json}) {
    const std::string gt = F::to_text(*gm.value, kind);
    const auto dt = attempt<std::string>("engine to_text", [&] { return d->to_text(*dv.value, kind); });
    if (!dt.value || gt != *dt.value) broken("to_text", gt, dt.value ? *dt.value : dt.error);
    if (!writes) continue;
    same_bytes("encode(from_text(text))",
               attempt<std::vector<uint8_t>>("generated from_text+encode", [&] { return F::encode(F::from_text(gt)); }),
               attempt<std::vector<uint8_t>>("engine from_text+encode", [&] { return d->encode(d->from_text(gt)); }));
  }
  if (!writes) return 0;
  // Encode the decoded model.
  same_bytes("encode(decode(bytes))", attempt<std::vector<uint8_t>>("generated encode", [&] { return F::encode(*gm.value); }),
             attempt<std::vector<uint8_t>>("engine encode", [&] { return d->encode(*dv.value); }));

  // With the file's layout: the same files kept or refused, the same bytes back.
  binschema::Layout gl, dl;
  const auto gml = attempt<Root>("generated decode with layout", [&] { return F::decode(in, gl); });
  const auto dvl = attempt<dyn::Value>("engine decode with layout", [&] { return d->decode(in, dl); });
  if (gml.error != dvl.error) broken("decode(bytes, layout)", gml.error, dvl.error);
  if (!gml.value) return 0;
  same_bytes("encode(model, layout)", attempt<std::vector<uint8_t>>("generated encode with layout", [&] { return F::encode(*gml.value, gl); }),
             attempt<std::vector<uint8_t>>("engine encode with layout", [&] { return d->encode(*dvl.value, dl); }));
  // The layout through text (the `layout:` entry) on the engine's side.
  const std::string gt = F::to_text(*gml.value, binschema::TextKind::Yaml, &gl);
  same_bytes("encode(from_text(text with layout), layout)",
             attempt<std::vector<uint8_t>>("generated", [&] {
               binschema::Layout l;
               return F::encode(F::from_text_with_layout(gt, l), l);
             }),
             attempt<std::vector<uint8_t>>("engine", [&] {
               binschema::Layout l;
               const dyn::Value v = d->from_text(gt, l);
               return d->encode(v, l);
             }));
  return 0;
}
