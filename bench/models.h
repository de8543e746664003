// Test files for the benchmarks: deterministic models of every shipped
// format, scaled to a target encoded size. Nothing here is timed.
#pragma once

#include <cstdint>

#include "al_text.h"
#include "asb_text.h"
#include "baev_text.h"
#include "bfevfl_text.h"
#include "evnt_text.h"
#include "sarc_text.h"

namespace bench {

// BAEV: random actions, animations, triggers and parameters (splitmix64,
// fixed seed) until the encoding is about `target` bytes (see docs/benchmarks.md).
binschema::baev::File baev_model(uint64_t target, uint64_t seed);

// ASB: examples/asb-every-node.yaml with its per-node content repeated
// `copies` times (see the top of models.cpp); distinct_tags gives each copy
// two new tag groups, otherwise the example's two are shared.
binschema::asb::File asb_model(uint32_t copies, bool distinct_tags);
// The number of copies whose distinct-tags encoding is closest to `target` bytes.
uint32_t asb_copies_for(uint64_t target);

// The other formats, from their examples/ document, scaled to about `target`
// bytes (each function's comment in models.cpp says how).
binschema::evnt::Evnt evnt_model(uint64_t target);
binschema::al::File al_model(uint64_t target);
binschema::bfevfl::File bfevfl_model(uint64_t target);
binschema::sarc::Sarc sarc_model(uint64_t target);

}  // namespace bench
