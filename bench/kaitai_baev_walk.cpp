// The Kaitai Struct side of the BAEV comparison: parses a file with the C++
// that Kaitai's compiler generates from `binschema-gen --emit ksy`'s baev.ksy
// (built by bench/CMakeLists.txt when the Kaitai C++ runtime and compiler are
// present) and reads every element, as a user of that parser would: Kaitai
// reads pointed-to data (instances) only when asked, so a parse that is not
// walked reads almost nothing. Returns how many elements it read (events,
// action indices, actions, animations, names, triggers, holds, parameters),
// which formats_bench checks against its own count of the binschema model.
#include "kaitai_baev_walk.h"

#include <kaitai/kaitaistream.h>

#include <stdexcept>

#include "baev.h"  // Kaitai's generated parser (its own build folder)

namespace bench {

uint64_t kaitai_baev_walk(const std::string& bytes, double* checksum) {
  kaitai::kstream ks(bytes);
  baev_t file(&ks);
  uint64_t n = 0;
  double sum = 0;
  baev_t::default_t* d = file.data();
  for (const auto& e : *d->events()) {
    ++n;
    for (uint32_t i : *e->action_indices()) sum += i, ++n;
  }
  auto walk_triggers = [&](std::vector<std::unique_ptr<baev_t::trigger_t>>* ts) {
    for (const auto& t : *ts) {
      ++n;
      sum += t->start_frame() + t->end_frame();
      for (const auto& p : *t->params()) {
        ++n;
        baev_t::parameter_t* v = p->target();
        switch (v->type()) {
          case 0: sum += static_cast<baev_t::parameter_value_int_payload_t*>(v->value())->value(); break;
          case 1: sum += static_cast<baev_t::parameter_value_float_payload_t*>(v->value())->value(); break;
          case 3:
            for (float f : *static_cast<baev_t::parameter_value_vec3_payload_t*>(v->value())->value()) sum += f;
            break;
          case 5: sum += static_cast<double>(static_cast<baev_t::str64_in_strings_t*>(v->value())->target().size()); break;
          default: throw std::runtime_error("unknown parameter type");
        }
      }
    }
  };
  for (const auto& a : *d->actions()) {
    ++n;
    sum += a->hash();
    for (const auto& an : *a->animations()) {
      ++n;
      sum += static_cast<double>(an->name().size());
      walk_triggers(an->triggers());
      walk_triggers(an->holds());
    }
  }
  if (checksum) *checksum = sum;
  return n;
}

}  // namespace bench
