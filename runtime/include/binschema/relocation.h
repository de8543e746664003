// Relocation table (`RELT`) of Nintendo's BFEVFL/BFEVTM (and the same scheme
// as BFRES's `_RLT`): the list of every 8-byte pointer slot in the file, so
// the game can turn offsets into addresses after loading.
#pragma once

#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

#include "binschema/trace.h"
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

// The byte map (binschema/trace.h): the relocation table at `at` as fields,
// for a schema's trace (the reader itself does not read the table). A table
// that is not where it should be, or not whole, adds nothing.
inline void trace_relocation_table(Trace& tr, std::span<const uint8_t> b, uint64_t at) {
  auto u32 = [&](uint64_t o) {
    uint32_t v;
    std::memcpy(&v, b.data() + o, 4);
    return std::endian::native == std::endian::little ? v : __builtin_bswap32(v);
  };
  if (at > b.size() || b.size() - at < 0x10 || std::memcmp(b.data() + at, "RELT", 4) != 0) return;
  const uint64_t sections = u32(at + 8);
  if (sections > (b.size() - at - 0x10) / 0x18) return;
  uint64_t entries = 0;
  for (uint64_t i = 0; i < sections; ++i) entries += u32(at + 0x10 + 0x18 * i + 0x14);
  const uint64_t first = at + 0x10 + 0x18 * sections;
  if (entries > (b.size() - first) / 8) return;
  tr.open("relocation_table", TraceKind::Struct, at, "RELT");
  tr.leaf("magic", TraceKind::Chars, at, 4, "char");
  tr.leaf("offset", TraceKind::Number, at + 4, 4, "u32");
  tr.leaf("section_count", TraceKind::Number, at + 8, 4, "u32");
  tr.leaf("padding", TraceKind::Padding, at + 0xc, 4, "u32");
  tr.open("sections", TraceKind::Array, at + 0x10);
  for (uint64_t i = 0; i < sections; ++i) {
    const uint64_t s = at + 0x10 + 0x18 * i;
    tr.open(nullptr, TraceKind::Struct, s, "RELTSection");
    tr.leaf("pointer", TraceKind::Padding, s, 8, "u64");
    tr.leaf("offset", TraceKind::Number, s + 8, 4, "u32");
    tr.leaf("size", TraceKind::Number, s + 0xc, 4, "u32");
    tr.leaf("first_entry", TraceKind::Number, s + 0x10, 4, "u32");
    tr.leaf("entry_count", TraceKind::Number, s + 0x14, 4, "u32");
    tr.close(s + 0x18);
  }
  tr.close(first);
  tr.open("entries", TraceKind::Array, first);
  for (uint64_t i = 0; i < entries; ++i) {
    const uint64_t e = first + 8 * i;
    tr.open(nullptr, TraceKind::Struct, e, "RELTEntry");
    tr.leaf("offset", TraceKind::Number, e, 4, "u32");
    tr.leaf("mask", TraceKind::Number, e + 4, 4, "u32");
    tr.close(e + 8);
  }
  tr.close(first + 8 * entries);
  tr.close(first + 8 * entries);
}

}  // namespace binschema
