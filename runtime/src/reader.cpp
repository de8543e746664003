#include "binschema/reader.h"

#include <string>

namespace binschema {

void fail_budget(uint64_t off, uint64_t budget, uint64_t size) {
  throw DecodeError(off, "decode budget exceeded at " + hex(off) + ": the model would hold more than " +
                             std::to_string(budget) + " bytes copied from this " + std::to_string(size) +
                             "-byte file (limit: " + std::to_string(kDecodeBudgetFactor) + " x file size + " +
                             std::to_string(kDecodeBudgetSlack) + "); strings or blocks referenced many times?");
}

void NestPath::fail_depth(uint64_t s, const char* type) {
  throw DecodeError(s, std::string(type) + " at " + hex(s) + " is nested deeper than " + std::to_string(kDecodeDepthLimit) +
                           " levels of structs that hold themselves: refused");
}

void NestPath::fail_cycle(uint64_t s, const char* type) {
  throw DecodeError(s, "cycle: the " + std::string(type) + " at " + hex(s) +
                           " holds itself (a pointer back to a block being read): refused");
}

}  // namespace binschema
