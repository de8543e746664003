// Relocation table (`RELT`) of Nintendo's BFEVFL/BFEVTM (and the same scheme
// as BFRES's `_RLT`): the list of every 8-byte pointer slot in the file, so
// the game can turn offsets into addresses after loading.
#pragma once

#include <cstdint>
#include <vector>

#include "binschema/writer.h"

namespace binschema {

struct RelocationEntry {
  uint32_t offset;  // first pointer slot of the run
  uint32_t mask;    // bit i set: a pointer at offset + 8 * i
  bool operator==(const RelocationEntry&) const = default;
};

// Groups pointer slots into entries: from the lowest slot not yet covered,
// one entry covers the slots among the next 32 eight-byte steps.
std::vector<RelocationEntry> relocation_entries(std::vector<uint64_t> slots);

// Appends a one-section RELT (8-aligned) for every pointer recorded so far
// (null ones included: the format registers some), `data_end` being the end
// of the data it covers. Returns where the table starts.
uint64_t write_relocation_table(Writer<std::endian::little>& w, uint64_t data_end);

}  // namespace binschema
