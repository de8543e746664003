#!/usr/bin/env python3
"""An independent BYML reader, written for binschema's tests (not binschema's reader).

Reads a BYML file ("binary YAML", Nintendo; versions 2 to 7, magic YB little-endian or
BY big-endian) into a plain Python document, checking every offset, count and string on
the way; any malformation raises ValueError naming the offset.

The document:
  dictionary (0xC1)        dict {key: value}, in file order (Nintendo sorts keys)
  array (0xC0)             list
  hash map (0x20)          ("hash", {u32 hash: value}), in file order
  value hash map (0x21)    ("value_hash", {u32 hash: (value, u32 extra)}), in file order
  string (0xA0)            str
  binary (0xA1)            ("binary", bytes)
  aligned binary (0xA2)    ("binary_aligned", (alignment, bytes)); the bytes follow the u32 size
                           and the u32 alignment (where oead-derived readers read them)
  bool (0xD0)              True / False
  s32 (0xD1)               int
  f32 (0xD2)               ("f32", bit pattern as int), so NaN and -0.0 compare exactly
  u32 (0xD3)               ("u32", int)
  s64, u64 (0xD4, 0xD5)    ("s64", int), ("u64", int)
  f64 (0xD6)               ("f64", bit pattern as int)
  null (0xFF)              None
An empty document (root offset 0) is None. Nodes that several references share are read as
copies (equality of values is an encoding matter); a budget on the number of values produced
refuses files built to amplify. Python's == on two documents ignores the order of dictionary
entries; compare their to_json() texts to include it.

Command line: byml.py FILE [--summary | --layout] [--member NAME]
  (a Yaz0 file is decompressed; --member picks a file inside a SARC, see containers.py)
"""

import json
import struct
import sys

HEADER_SIZE = 0x10
MAX_DEPTH = 128
CONTAINER_TYPES = {0xC0: "array", 0xC1: "dictionary", 0x20: "hash map", 0x21: "value hash map"}
STRING_TABLE = 0xC2
# Value types that are stored elsewhere and referenced by an offset (besides containers).
OFFSET_VALUE_TYPES = {0xA1, 0xA2, 0xD4, 0xD5, 0xD6}
INLINE_VALUE_TYPES = {0xA0, 0xD0, 0xD1, 0xD2, 0xD3, 0xFF}


class Reader:
    """One file; read() gives the document, the attributes the facts gathered on the way."""

    def __init__(self, data, max_depth=MAX_DEPTH, max_values=None):
        self.data = bytes(data)
        self.max_depth = max_depth
        # Enough for any real file (shared nodes are expanded), not for an amplifying one.
        self.max_values = max_values if max_values is not None else max(100_000, 64 * len(self.data))
        self.values = 0
        self.references = 0          # value words that hold an offset (containers, 0xA1/A2, 64-bit)
        self.shared_references = 0   # of those, the ones whose target an earlier word reached
        self.targets = {}            # offset -> type of every block reached through an offset
        self.max_depth_seen = 0
        self.type_counts = {}
        self.reference_log = []      # (referring container offset, entry index, target offset, type), in read order

    # -- primitive reads, bounds-checked -------------------------------------------------
    def need(self, offset, size, what):
        if offset < 0 or size < 0 or offset + size > len(self.data):
            raise ValueError("offset 0x%x: %s (%d bytes) runs past the end of the file (0x%x bytes)"
                             % (offset, what, size, len(self.data)))

    def u8(self, offset, what):
        self.need(offset, 1, what)
        return self.data[offset]

    def u24(self, offset, what):
        self.need(offset, 3, what)
        b = self.data[offset:offset + 3]
        return int.from_bytes(b, "big" if self.big else "little")

    def u32(self, offset, what):
        self.need(offset, 4, what)
        return struct.unpack_from(self.e + "I", self.data, offset)[0]

    def u64(self, offset, what):
        self.need(offset, 8, what)
        return struct.unpack_from(self.e + "Q", self.data, offset)[0]

    def target(self, offset, where, what):
        """Checks an offset read at `where` that points at a block."""
        if offset < HEADER_SIZE or offset >= len(self.data):
            raise ValueError("offset 0x%x: %s at 0x%x outside the file body [0x%x, 0x%x)"
                             % (where, what, offset, HEADER_SIZE, len(self.data)))
        return offset

    # -- header and string tables --------------------------------------------------------
    def read(self):
        d = self.data
        if len(d) < HEADER_SIZE:
            raise ValueError("offset 0x0: the file (%d bytes) is shorter than the 16-byte header" % len(d))
        magic = d[0:2]
        if magic == b"YB":
            self.big, self.e = False, "<"
        elif magic == b"BY":
            self.big, self.e = True, ">"
        else:
            raise ValueError("offset 0x0: magic %r is neither 'YB' nor 'BY'" % magic)
        self.version = struct.unpack_from(self.e + "H", d, 2)[0]
        if not 2 <= self.version <= 7:
            raise ValueError("offset 0x2: version %d is not one of 2 to 7" % self.version)
        self.key_table_offset = self.u32(4, "hash key table offset")
        self.string_table_offset = self.u32(8, "string table offset")
        self.root_offset = self.u32(12, "root node offset")
        self.keys = self.string_table(self.key_table_offset, 4, "hash key table")
        self.strings = self.string_table(self.string_table_offset, 8, "string table")
        if self.root_offset == 0:
            return None
        self.target(self.root_offset, 12, "root node")
        root_type = self.u8(self.root_offset, "root node type")
        if root_type not in CONTAINER_TYPES:
            raise ValueError("offset 0x%x: root node type 0x%02x is not a container (0xC0, 0xC1, 0x20, 0x21)"
                             % (self.root_offset, root_type))
        self.targets[self.root_offset] = root_type
        return self.container(self.root_offset, root_type, 1, frozenset())

    def string_table(self, offset, where, what):
        """A 0xC2 node: count, count + 1 offsets from the node's start, NUL-terminated strings."""
        if offset == 0:
            return None
        self.target(offset, where, what)
        node_type = self.u8(offset, what + " type")
        if node_type != STRING_TABLE:
            raise ValueError("offset 0x%x: %s has type 0x%02x, not 0xC2" % (offset, what, node_type))
        count = self.u24(offset + 1, what + " count")
        self.need(offset + 4, 4 * (count + 1), what + " offsets")
        ends = [self.u32(offset + 4 + 4 * i, what + " offset") for i in range(count + 1)]
        strings = []
        for i in range(count):
            start, end = offset + ends[i], offset + ends[i + 1]
            where_i = offset + 4 + 4 * i
            if ends[i] < 4 + 4 * (count + 1) or end <= start:
                raise ValueError("offset 0x%x: %s string %d spans [0x%x, 0x%x), not after the offsets"
                                 % (where_i, what, i, start, end))
            self.need(start, end - start, "%s string %d" % (what, i))
            raw = self.data[start:end]
            nul = raw.find(b"\0")
            if nul < 0:
                raise ValueError("offset 0x%x: %s string %d has no NUL before 0x%x" % (start, what, i, end))
            try:
                strings.append(raw[:nul].decode("utf-8"))
            except UnicodeDecodeError as err:
                raise ValueError("offset 0x%x: %s string %d is not UTF-8 (%s)" % (start, what, i, err)) from None
        return {"offset": offset, "strings": strings, "end": offset + ends[count]}

    # -- nodes ----------------------------------------------------------------------------
    def count_value(self, offset):
        self.values += 1
        if self.values > self.max_values:
            raise ValueError("offset 0x%x: more than %d values: the file expands past the budget "
                             "(shared nodes are read as copies)" % (offset, self.max_values))

    def container(self, offset, node_type, depth, path):
        if depth > self.max_depth:
            raise ValueError("offset 0x%x: nesting deeper than %d" % (offset, self.max_depth))
        if offset in path:
            raise ValueError("offset 0x%x: cycle: this %s contains itself" % (offset, CONTAINER_TYPES[node_type]))
        path = path | {offset}
        self.max_depth_seen = max(self.max_depth_seen, depth)
        self.count_value(offset)
        self.type_counts[node_type] = self.type_counts.get(node_type, 0) + 1
        stored = self.u8(offset, "node type")
        if stored != node_type:
            raise ValueError("offset 0x%x: the referring entry says type 0x%02x, the node says 0x%02x"
                             % (offset, node_type, stored))
        count = self.u24(offset + 1, "entry count")
        if node_type == 0xC0:
            values_at = offset + 4 + (count + 3) // 4 * 4
            self.need(offset + 4, count, "array type bytes")
            self.need(values_at, 4 * count, "array values")
            return [self.entry(self.data[offset + 4 + i], values_at + 4 * i, offset, i, depth, path)
                    for i in range(count)]
        if node_type == 0xC1:
            if self.keys is None and count:
                raise ValueError("offset 0x%x: a dictionary with entries but the file has no hash key table" % offset)
            self.need(offset + 4, 8 * count, "dictionary entries")
            result = {}
            previous = None
            for i in range(count):
                at = offset + 4 + 8 * i
                key_index = self.u24(at, "key index")
                if key_index >= len(self.keys["strings"]):
                    raise ValueError("offset 0x%x: key index %d past the %d keys"
                                     % (at, key_index, len(self.keys["strings"])))
                key = self.keys["strings"][key_index]
                if key in result:
                    raise ValueError("offset 0x%x: key %r twice in one dictionary" % (at, key))
                if previous is not None and key_index < previous:
                    self.unsorted_dictionaries = getattr(self, "unsorted_dictionaries", 0) + 1
                previous = key_index
                result[key] = self.entry(self.data[at + 3], at + 4, offset, i, depth, path)
            return result
        # Hash maps: `count` entries {u32 hash, u32 value} (0x20) or {u32 value, u32 hash,
        # u32 extra} (0x21), then `count` type bytes, padded to 4.
        size = 8 if node_type == 0x20 else 12
        types_at = offset + 4 + size * count
        self.need(offset + 4, size * count, "hash map entries")
        self.need(types_at, count, "hash map type bytes")
        result = {}
        for i in range(count):
            at = offset + 4 + size * i
            if node_type == 0x20:
                key = self.u32(at, "hash")
                value = self.entry(self.data[types_at + i], at + 4, offset, i, depth, path)
            else:
                key = self.u32(at + 4, "hash")
                value = (self.entry(self.data[types_at + i], at, offset, i, depth, path),
                         self.u32(at + 8, "hash map extra word"))
            if key in result:
                raise ValueError("offset 0x%x: hash 0x%08x twice in one hash map" % (at, key))
            if result and key < next(reversed(result)):
                self.unsorted_hash_maps = getattr(self, "unsorted_hash_maps", 0) + 1
            result[key] = value
        return ("hash" if node_type == 0x20 else "value_hash", result)

    def entry(self, node_type, at, parent, index, depth, path):
        """The value of one entry: its type byte and the u32 word at `at`."""
        word = self.u32(at, "value")
        if node_type in CONTAINER_TYPES or node_type in OFFSET_VALUE_TYPES:
            self.target(word, at, "offset of a 0x%02x node" % node_type)
            self.references += 1
            if word in self.targets:
                self.shared_references += 1
                if self.targets[word] != node_type:
                    raise ValueError("offset 0x%x: points at 0x%x as type 0x%02x, reached before as 0x%02x"
                                     % (at, word, node_type, self.targets[word]))
            else:
                self.targets[word] = node_type
            self.reference_log.append((parent, index, word, node_type))
            if node_type in CONTAINER_TYPES:
                return self.container(word, node_type, depth + 1, path)
        elif node_type not in INLINE_VALUE_TYPES:
            raise ValueError("offset 0x%x: unknown node type 0x%02x (entry %d of the node at 0x%x)"
                             % (at, node_type, index, parent))
        self.count_value(at)
        self.type_counts[node_type] = self.type_counts.get(node_type, 0) + 1
        if node_type == 0xA0:
            if self.strings is None or word >= len(self.strings["strings"]):
                raise ValueError("offset 0x%x: string index %d past the string table (%d strings)"
                                 % (at, word, 0 if self.strings is None else len(self.strings["strings"])))
            return self.strings["strings"][word]
        if node_type == 0xD0:
            if word not in (0, 1):
                raise ValueError("offset 0x%x: bool holds %d, not 0 or 1" % (at, word))
            return word == 1
        if node_type == 0xD1:
            return word - (1 << 32) if word & 0x80000000 else word
        if node_type == 0xD2:
            return ("f32", word)
        if node_type == 0xD3:
            return ("u32", word)
        if node_type == 0xFF:
            if word != 0:
                raise ValueError("offset 0x%x: null holds 0x%x, not 0" % (at, word))
            return None
        if node_type in (0xD4, 0xD5, 0xD6):
            raw = self.u64(word, "64-bit value")
            if node_type == 0xD4:
                return ("s64", raw - (1 << 64) if raw >> 63 else raw)
            return ("u64" if node_type == 0xD5 else "f64", raw)
        size = self.u32(word, "binary data size")
        if node_type == 0xA1:
            self.need(word + 4, size, "binary data")
            return ("binary", self.data[word + 4:word + 4 + size])
        alignment = self.u32(word + 4, "binary data alignment")
        self.need(word + 8, size, "aligned binary data")
        return ("binary_aligned", (alignment, self.data[word + 8:word + 8 + size]))


def read(data, **limits):
    """The document of one BYML file (see the module's doc)."""
    return Reader(data, **limits).read()


def summary(data, **limits):
    r = Reader(data, **limits)
    r.read()
    return {
        "byte_order": "big" if r.big else "little",
        "version": r.version,
        "values": r.values,
        "containers": sum(n for t, n in r.type_counts.items() if t in CONTAINER_TYPES),
        "references": r.references,
        "shared_references": r.shared_references,
        "distinct_targets": len(r.targets),
        "max_depth": r.max_depth_seen,
        "keys": 0 if r.keys is None else len(r.keys["strings"]),
        "strings": 0 if r.strings is None else len(r.strings["strings"]),
        "types": {"0x%02X" % t: n for t, n in sorted(r.type_counts.items())},
    }


def tables(data):
    """The key table and the string table, each a list of strings in file order (None when absent)."""
    r = Reader(data)
    r.read()
    return (None if r.keys is None else list(r.keys["strings"]),
            None if r.strings is None else list(r.strings["strings"]))


def layout(data):
    """Facts about where the writer put things (the numbers in docs/notes/aamp-byml-layout.md)."""
    r = Reader(data)
    r.read()
    facts = {"version": r.version, "root": "0x%x" % r.root_offset}
    for name, table in (("keys", r.keys), ("strings", r.strings)):
        if table is not None:
            s = [x.encode("utf-8") for x in table["strings"]]
            facts[name + "_sorted_bytewise"] = all(a < b for a, b in zip(s, s[1:]))
            facts[name + "_table"] = "[0x%x, 0x%x)" % (table["offset"], table["end"])
    facts["dictionaries_with_unsorted_keys"] = getattr(r, "unsorted_dictionaries", 0)
    facts["hash_maps_with_unsorted_hashes"] = getattr(r, "unsorted_hash_maps", 0)
    # The first reference to each block (depth first, entries in order) makes a tree.
    first = {r.root_offset: (None, None, r.data[r.root_offset])} if r.root_offset else {}
    for parent, index, target, node_type in r.reference_log:
        first.setdefault(target, (parent, index, node_type))
    children = {}
    for target, (parent, index, node_type) in first.items():
        if parent is not None:
            children.setdefault(parent, []).append(target)
    # Container blocks: a preorder walk of that tree, each container's children visited in
    # address order, gives exactly the address order (each subtree is contiguous)?
    is_container = lambda t: first[t][2] in CONTAINER_TYPES
    walk, stack = [], [r.root_offset] if r.root_offset else []
    while stack:
        node = stack.pop()
        walk.append(node)
        stack.extend(sorted((c for c in children.get(node, []) if is_container(c)), reverse=True))
    facts["containers_laid_out_depth_first"] = walk == sorted(t for t in first if is_container(t))
    by_kind = {"array": [0, 0], "dictionary": [0, 0], "hash map": [0, 0], "value hash map": [0, 0]}
    for parent, kids in children.items():
        kids = [k for k in kids if is_container(k)]
        if len(kids) > 1:
            counts = by_kind[CONTAINER_TYPES[r.data[parent]]]
            counts[1] += 1
            by_address = [first[k][1] for k in sorted(kids)]
            counts[0] += by_address == sorted(by_address)
    facts["containers_whose_container_children_follow_entry_order"] = {
        k: "%d of %d" % tuple(v) for k, v in by_kind.items() if v[1]}
    # Values stored by offset (64-bit, binary): where, and in which order.
    values = sorted(t for t in first if not is_container(t))
    before = [t for t in values if t < r.root_offset]
    facts["value_blocks"] = len(values)
    facts["value_blocks_before_root"] = len(before)
    referrers = [(first[t][0], first[t][1]) for t in values]
    facts["value_blocks_in_referrer_order"] = referrers == sorted(referrers)
    facts["unaligned_blocks"] = sum(1 for t in first if t % 4)
    aligned = [t for t in first if first[t][2] == 0xA2]
    if aligned:  # 0xA2: is the data (8 bytes after the block's start) at a multiple of its alignment?
        facts["aligned_binaries_with_data_on_their_alignment"] = "%d of %d" % (
            sum(1 for t in aligned if r.u32(t + 4, "alignment") and (t + 8) % r.u32(t + 4, "alignment") == 0),
            len(aligned))
    shared = {}
    seen = set()
    for parent, index, target, node_type in r.reference_log:
        if target in seen:
            shared["0x%02X" % node_type] = shared.get("0x%02X" % node_type, 0) + 1
        seen.add(target)
    facts["shared_references_by_type"] = shared
    # Blocks whose contents equal an earlier block's but that were stored again.
    copies, canon = {}, {}
    for target in sorted(first):
        node_type = first[target][2]
        if node_type in CONTAINER_TYPES:
            sub = Reader(r.data)
            sub.big, sub.e, sub.version, sub.keys, sub.strings = r.big, r.e, r.version, r.keys, r.strings
            key = (node_type, repr(sub.container(target, node_type, 1, frozenset())))
        elif node_type in (0xA1, 0xA2):
            size = r.u32(target, "size")
            key = (node_type, r.data[target:target + size + (4 if node_type == 0xA1 else 8)])
        else:
            key = (node_type, r.data[target:target + 8])
        if key in canon:
            copies["0x%02X" % node_type] = copies.get("0x%02X" % node_type, 0) + 1
        canon.setdefault(key, target)
    facts["equal_blocks_stored_again_by_type"] = copies
    # Strings in the tables that no node uses.
    used_keys, used_strings = set(), set()
    for offset, node_type in list(first.items()):
        node_type = node_type[2]
        n = r.u24(offset + 1, "count") if node_type in CONTAINER_TYPES else 0
        if node_type == 0xC1:
            used_keys.update(r.u24(offset + 4 + 8 * i, "key") for i in range(n))
        words = []
        if node_type == 0xC0:
            at = offset + 4 + (n + 3) // 4 * 4
            words = [(r.data[offset + 4 + i], at + 4 * i) for i in range(n)]
        elif node_type == 0xC1:
            words = [(r.data[offset + 7 + 8 * i], offset + 8 + 8 * i) for i in range(n)]
        elif node_type in (0x20, 0x21):
            size = 8 if node_type == 0x20 else 12
            words = [(r.data[offset + 4 + size * n + i], offset + 4 + size * i + (4 if node_type == 0x20 else 0))
                     for i in range(n)]
        used_strings.update(r.u32(at, "index") for t, at in words if t == 0xA0)
    facts["unused_keys"] = (0 if r.keys is None else len(r.keys["strings"])) - len(used_keys)
    facts["unused_strings"] = (0 if r.strings is None else len(r.strings["strings"])) - len(used_strings)
    # The file as blocks back to back: header, tables, then every block in address order;
    # report every stretch between two of them that is not zero padding to the next multiple of 4.
    spans = [(0, HEADER_SIZE)]
    for table in (r.keys, r.strings):
        if table is not None:
            spans.append((table["offset"], table["end"]))
    for offset, (_, _, node_type) in first.items():
        n = r.u24(offset + 1, "count") if node_type in CONTAINER_TYPES else 0
        size = {0xC0: 4 + (n + 3) // 4 * 4 + 4 * n, 0xC1: 4 + 8 * n, 0x20: 4 + 9 * n, 0x21: 4 + 13 * n}.get(node_type)
        if size is None:
            size = 8 if node_type in (0xD4, 0xD5, 0xD6) else \
                r.u32(offset, "size") + (4 if node_type == 0xA1 else 8)
        spans.append((offset, offset + size))
    spans.sort()
    odd = []
    for (_, end), (start, _) in zip(spans, spans[1:] + [(len(r.data), None)]):
        gap = r.data[end:start]
        if start < end or len(gap) >= 4 or any(gap) or (gap and start % 4):
            odd.append("0x%x+%d" % (end, start - end))
    facts["stretches_other_than_padding_to_4"] = odd
    return facts


def to_json(doc):
    """Canonical JSON: file order kept; tagged values as {"@tag": value}; dictionary keys that
    start with '@' are written with one more '@'."""
    def conv(v):
        if isinstance(v, dict):
            return {("@" + k if k.startswith("@") else k): conv(x) for k, x in v.items()}
        if isinstance(v, list):
            return [conv(x) for x in v]
        if isinstance(v, tuple):
            tag, value = v
            if tag in ("f32", "f64"):
                return {"@" + tag: "0x%0*x" % (8 if tag == "f32" else 16, value)}
            if tag == "binary":
                return {"@binary": value.hex()}
            if tag == "binary_aligned":
                return {"@binary_aligned": {"alignment": value[0], "data": value[1].hex()}}
            if tag == "hash":
                return {"@hash": {"0x%08x" % k: conv(x) for k, x in value.items()}}
            if tag == "value_hash":
                return {"@value_hash": {"0x%08x" % k: [conv(x[0]), x[1]] for k, x in value.items()}}
            return {"@" + tag: value}
        return v
    return json.dumps(conv(doc), ensure_ascii=False, indent=1)


def main(argv):
    import os
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import containers
    return containers.reader_main(argv, "Read a BYML file independently of binschema.", read, to_json, summary, layout)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
