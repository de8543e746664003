#!/usr/bin/env python3
"""An independent AAMP reader, written for binschema's tests (not binschema's reader).

Reads a binary parameter archive (AAMP version 2, little-endian, UTF-8; Nintendo's
.bas/.baslist/.bxml/.baiprog/...) into a plain Python document, checking every offset,
count, size and string; any malformation raises ValueError naming the offset.

The document:
  {"version": parameter IO version, "type": IO type string ("xml"), "root": list}
  list   = {"lists": {crc32: list}, "objects": {crc32: object}}   (file order)
  object = {crc32: (type name, value)}                             (file order)
Values by type name:
  bool            True / False (stored as u32 0 or 1)
  f32             bit pattern (int), so NaN and -0.0 compare exactly
  int, u32        int
  vec2 vec3 vec4 color quat   tuple of f32 bit patterns (2, 3, 4, 4, 4)
  string32 string64 string256 string_ref   str
  curve1..curve4  tuple of curves, each (u32 a, u32 b, tuple of 30 f32 bit patterns)
  buffer_int buffer_u32       list of int;  buffer_f32  list of f32 bit patterns
  buffer_binary   bytes
Names are CRC32 numbers (zlib's CRC32 of the name; crc32("param_root") is the root).
Python's == on two documents ignores the order of dictionary entries; compare their
to_json() texts to include it.

Command line: aamp.py FILE [--summary | --layout] [--member NAME], or aamp.py FILE --diff OTHER
  (a Yaz0 file is decompressed; --member picks a file inside a SARC, see containers.py)
"""

import json
import struct
import sys
import zlib

HEADER_SIZE = 0x30
LIST_SIZE, OBJECT_SIZE, PARAMETER_SIZE = 0xC, 8, 8
MAX_DEPTH = 64
ROOT_NAME = zlib.crc32(b"param_root")

# type -> (name, bytes of the value or None for buffers and strings)
TYPES = {
    0: ("bool", 4), 1: ("f32", 4), 2: ("int", 4), 3: ("vec2", 8), 4: ("vec3", 12),
    5: ("vec4", 16), 6: ("color", 16), 7: ("string32", 32), 8: ("string64", 64),
    9: ("curve1", 0x80), 10: ("curve2", 0x100), 11: ("curve3", 0x180), 12: ("curve4", 0x200),
    13: ("buffer_int", 4), 14: ("buffer_f32", 4), 15: ("string256", 256), 16: ("quat", 16),
    17: ("u32", 4), 18: ("buffer_u32", 4), 19: ("buffer_binary", 1), 20: ("string_ref", None),
}
TYPE_BY_NAME = {name: t for t, (name, _) in TYPES.items()}
STRING_TYPES = {7, 8, 15, 20}
BUFFER_TYPES = {13, 14, 18, 19}


class Reader:
    def __init__(self, data, max_depth=MAX_DEPTH):
        self.data = bytes(data)
        self.max_depth = max_depth
        self.max_depth_seen = 0
        self.lists_read = self.objects_read = self.parameters_read = 0
        self.values = []   # (parameter offset, type, value start, value end), in read order
        self.list_offsets, self.object_offsets, self.parameter_offsets = [], [], []
        self.tree = {}     # list offset -> (child list offsets, object offsets); object -> parameters

    def u32(self, offset, what):
        if offset < 0 or offset + 4 > len(self.data):
            raise ValueError("offset 0x%x: %s runs past the end of the file (0x%x bytes)"
                             % (offset, what, len(self.data)))
        return struct.unpack_from("<I", self.data, offset)[0]

    def within(self, start, end, region, where, what):
        lo, hi, name = region
        if start < lo or end > hi or end < start:
            raise ValueError("offset 0x%x: %s [0x%x, 0x%x) is outside the %s [0x%x, 0x%x)"
                             % (where, what, start, end, name, lo, hi))

    def read(self):
        d = self.data
        if len(d) < HEADER_SIZE:
            raise ValueError("offset 0x0: the file (%d bytes) is shorter than the 0x30-byte header" % len(d))
        if d[:4] != b"AAMP":
            raise ValueError("offset 0x0: magic %r is not 'AAMP'" % d[:4])
        (version, flags, file_size, self.pio_version, pio_offset, n_lists, n_objects, n_params,
         data_size, string_size, extra_words) = struct.unpack_from("<11I", d, 4)
        if version != 2:
            raise ValueError("offset 0x4: version %d, only 2 is read" % version)
        if flags & 1 == 0:
            raise ValueError("offset 0x8: flags 0x%x: big-endian archives are not read" % flags)
        if flags & 2 == 0:
            raise ValueError("offset 0x8: flags 0x%x: non-UTF-8 archives are not read" % flags)
        if flags & ~3:
            raise ValueError("offset 0x8: unknown flags 0x%x" % flags)
        if file_size != len(d):
            raise ValueError("offset 0xc: file size %d, the file has %d bytes" % (file_size, len(d)))
        self.counts = (n_lists, n_objects, n_params)
        # The sections follow one another: IO type, lists, objects, parameters, data, strings,
        # extra words; their sizes must add up to the file.
        lists_at = HEADER_SIZE + pio_offset
        objects_at = lists_at + LIST_SIZE * n_lists
        params_at = objects_at + OBJECT_SIZE * n_objects
        data_at = params_at + PARAMETER_SIZE * n_params
        strings_at = data_at + data_size
        extra_at = strings_at + string_size
        if extra_at + 4 * extra_words != len(d):
            raise ValueError("offset 0x14: the sections the header sizes (0x30 + 0x%x + %d lists + %d objects + "
                             "%d parameters + 0x%x data + 0x%x strings + %d words) end at 0x%x, not at the "
                             "file's end 0x%x" % (pio_offset, n_lists, n_objects, n_params, data_size,
                                                 string_size, extra_words, extra_at + 4 * extra_words, len(d)))
        self.regions = {
            "lists": (lists_at, objects_at, "list table"),
            "objects": (objects_at, params_at, "object table"),
            "parameters": (params_at, data_at, "parameter table"),
            "data": (data_at, strings_at, "data section"),
            "strings": (strings_at, extra_at, "string section"),
        }
        type_end = d.find(b"\0", HEADER_SIZE, lists_at)
        if type_end < 0:
            raise ValueError("offset 0x30: the IO type string has no NUL before the root list at 0x%x" % lists_at)
        self.io_type = self.text(HEADER_SIZE, type_end, "IO type")
        name, root = self.parameter_list(lists_at, 1, frozenset())
        if name != ROOT_NAME:
            raise ValueError("offset 0x%x: the root list is named 0x%08x, not crc32('param_root')" % (lists_at, name))
        read = (self.lists_read, self.objects_read, self.parameters_read)
        if read != self.counts:
            raise ValueError("offset 0x18: the header counts %d lists, %d objects, %d parameters; "
                             "the tree holds %d, %d, %d" % (self.counts + read))
        return {"version": self.pio_version, "type": self.io_type, "root": root}

    def text(self, start, end, what):
        try:
            return self.data[start:end].decode("utf-8")
        except UnicodeDecodeError as err:
            raise ValueError("offset 0x%x: %s is not UTF-8 (%s)" % (start, what, err)) from None

    def children(self, offset, word_at, size, region, what):
        """A packed word: bits 0-15 the offset / 4 from `offset`, bits 16-31 the count."""
        word = self.u32(word_at, what)
        first, count = offset + 4 * (word & 0xFFFF), word >> 16
        if count:
            self.within(first, first + size * count, self.regions[region], word_at, "%d %s" % (count, what))
        return first, count

    def parameter_list(self, offset, depth, path):
        if depth > self.max_depth:
            raise ValueError("offset 0x%x: lists nested deeper than %d" % (offset, self.max_depth))
        if offset in path:
            raise ValueError("offset 0x%x: cycle: this list contains itself" % offset)
        path = path | {offset}
        self.max_depth_seen = max(self.max_depth_seen, depth)
        self.within(offset, offset + LIST_SIZE, self.regions["lists"], offset, "list")
        self.lists_read += 1
        self.list_offsets.append(offset)
        if self.lists_read > self.counts[0]:
            raise ValueError("offset 0x%x: more lists than the header's %d" % (offset, self.counts[0]))
        name = self.u32(offset, "list name")
        lists_at, n_lists = self.children(offset, offset + 4, LIST_SIZE, "lists", "child lists")
        objects_at, n_objects = self.children(offset, offset + 8, OBJECT_SIZE, "objects", "objects")
        result = {"lists": {}, "objects": {}}
        self.tree[offset] = ([lists_at + LIST_SIZE * i for i in range(n_lists)],
                             [objects_at + OBJECT_SIZE * i for i in range(n_objects)])
        for i in range(n_lists):
            child_name, child = self.parameter_list(lists_at + LIST_SIZE * i, depth + 1, path)
            if child_name in result["lists"]:
                raise ValueError("offset 0x%x: list name 0x%08x twice in the list at 0x%x"
                                 % (lists_at + LIST_SIZE * i, child_name, offset))
            result["lists"][child_name] = child
        for i in range(n_objects):
            child_name, child = self.parameter_object(objects_at + OBJECT_SIZE * i)
            if child_name in result["objects"]:
                raise ValueError("offset 0x%x: object name 0x%08x twice in the list at 0x%x"
                                 % (objects_at + OBJECT_SIZE * i, child_name, offset))
            result["objects"][child_name] = child
        return name, result

    def parameter_object(self, offset):
        self.objects_read += 1
        self.object_offsets.append(offset)
        if self.objects_read > self.counts[1]:
            raise ValueError("offset 0x%x: more objects than the header's %d" % (offset, self.counts[1]))
        name = self.u32(offset, "object name")
        params_at, count = self.children(offset, offset + 4, PARAMETER_SIZE, "parameters", "parameters")
        self.tree[offset] = [params_at + PARAMETER_SIZE * i for i in range(count)]
        result = {}
        for i in range(count):
            at = params_at + PARAMETER_SIZE * i
            param_name, value = self.parameter(at)
            if param_name in result:
                raise ValueError("offset 0x%x: parameter name 0x%08x twice in the object at 0x%x"
                                 % (at, param_name, offset))
            result[param_name] = value
        return name, result

    def parameter(self, offset):
        self.parameters_read += 1
        self.parameter_offsets.append(offset)
        if self.parameters_read > self.counts[2]:
            raise ValueError("offset 0x%x: more parameters than the header's %d" % (offset, self.counts[2]))
        name = self.u32(offset, "parameter name")
        word = self.u32(offset + 4, "parameter value word")
        kind = word >> 24
        if kind not in TYPES:
            raise ValueError("offset 0x%x: unknown parameter type %d" % (offset + 4, kind))
        type_name, size = TYPES[kind]
        at = offset + 4 * (word & 0xFFFFFF)
        d = self.data
        if kind in STRING_TYPES:
            lo, hi, _ = self.regions["strings"]
            self.within(at, at + 1, self.regions["strings"], offset + 4, type_name + " value")
            end = d.find(b"\0", at, hi)
            if end < 0:
                raise ValueError("offset 0x%x: %s has no NUL before the end of the string section" % (at, type_name))
            if size is not None and end - at >= size:
                raise ValueError("offset 0x%x: %s holds %d bytes, at most %d fit" % (at, type_name, end - at, size - 1))
            self.values.append((offset, kind, at, end + 1))
            return name, (type_name, self.text(at, end, type_name))
        if kind in BUFFER_TYPES:
            self.within(at - 4, at, self.regions["data"], offset + 4, type_name + " element count")
            count = self.u32(at - 4, "buffer element count")
            self.within(at, at + size * count, self.regions["data"], offset + 4,
                        "%s of %d elements" % (type_name, count))
            self.values.append((offset, kind, at - 4, at + size * count))
            if kind == 19:
                return name, (type_name, d[at:at + count])
            words = struct.unpack_from("<%d%s" % (count, "i" if kind == 13 else "I"), d, at)
            return name, (type_name, list(words))
        self.within(at, at + size, self.regions["data"], offset + 4, type_name + " value")
        self.values.append((offset, kind, at, at + size))
        words = struct.unpack_from("<%dI" % (size // 4), d, at)
        if kind == 0:
            if words[0] not in (0, 1):
                raise ValueError("offset 0x%x: bool holds %d, not 0 or 1" % (at, words[0]))
            return name, (type_name, words[0] == 1)
        if kind == 2:
            return name, (type_name, struct.unpack_from("<i", d, at)[0])
        if kind in (1, 17):
            return name, (type_name, words[0])
        if 9 <= kind <= 12:
            return name, (type_name, tuple((words[i], words[i + 1], tuple(words[i + 2:i + 32]))
                                           for i in range(0, len(words), 32)))
        return name, (type_name, words)


def read(data, **limits):
    """The document of one AAMP file (see the module's doc)."""
    return Reader(data, **limits).read()


def data_sharing(r):
    """How values share bytes: parameters whose value bytes start inside bytes an earlier
    parameter's value (in address order of first use) already covers."""
    plain = sorted((start, end, kind) for _, kind, start, end in r.values if kind not in STRING_TYPES)
    strings = [v for v in r.values if v[1] in STRING_TYPES]
    reused = same_start = cross_type = 0
    covered_end = -1
    starts = {}
    for start, end, kind in plain:
        if start in starts:
            same_start += 1
            if starts[start] != kind:
                cross_type += 1
        if start < covered_end and start not in starts or start in starts:
            reused += 1
        starts.setdefault(start, kind)
        covered_end = max(covered_end, end)
    return {
        "parameters_with_data": len(plain),
        "data_values_reusing_bytes": reused,
        "data_values_at_a_shared_start": same_start,
        "shared_start_with_another_type": cross_type,
        "string_parameters": len(strings),
        "distinct_string_offsets": len({s for _, _, s, _ in strings}),
    }


def summary(data, **limits):
    r = Reader(data, **limits)
    r.read()
    result = {"lists": r.lists_read, "objects": r.objects_read, "parameters": r.parameters_read,
              "max_depth": r.max_depth_seen,
              "types": {}}
    for _, kind, _, _ in r.values:
        result["types"][TYPES[kind][0]] = result["types"].get(TYPES[kind][0], 0) + 1
    result.update(data_sharing(r))
    return result


def layout(data):
    """Facts about the writer's order (the numbers in docs/notes/aamp-byml-layout.md), compared
    with the order the notes describe (after oead's writer):
      lists: the root, then each list's children written together, parents before
             children (each list writes its child table, then recurses into each child);
      objects: per list, its objects, then its child lists' objects (depth first);
      parameters: per list, its child lists' parameters first, then its objects' parameters.
    """
    r = Reader(data)
    r.read()
    root = r.list_offsets[0]
    lists = [root]
    def list_order(offset):
        kids = r.tree[offset][0]
        lists.extend(kids)
        for k in kids:
            list_order(k)
    list_order(root)
    objects = []
    def object_order(offset):
        objects.extend(r.tree[offset][1])
        for k in r.tree[offset][0]:
            object_order(k)
    object_order(root)
    params = []
    def param_order(offset):
        for k in r.tree[offset][0]:
            param_order(k)
        for o in r.tree[offset][1]:
            params.extend(r.tree[o])
    param_order(root)
    # Where each list or object points for its child tables, empty ones included: the
    # writer's position in that table when it got to the parent's group, in the orders above.
    predicted, actual = {}, {}
    cursor = [r.regions["lists"][0] + LIST_SIZE]
    def list_cursor(offset):
        predicted[offset + 4] = (offset, cursor[0])
        cursor[0] += LIST_SIZE * len(r.tree[offset][0])
        for k in r.tree[offset][0]:
            list_cursor(k)
    list_cursor(root)
    cursor = [r.regions["objects"][0]]
    def object_cursor(offset):
        predicted[offset + 8] = (offset, cursor[0])
        cursor[0] += OBJECT_SIZE * len(r.tree[offset][1])
        for k in r.tree[offset][0]:
            object_cursor(k)
    object_cursor(root)
    cursor = [r.regions["parameters"][0]]
    def parameter_cursor(offset):
        for k in r.tree[offset][0]:
            parameter_cursor(k)
        for o in r.tree[offset][1]:
            predicted[o + 4] = (o, cursor[0])
            cursor[0] += PARAMETER_SIZE * len(r.tree[o])
    parameter_cursor(root)
    for word_at, (parent, _) in predicted.items():
        actual[word_at] = (parent, parent + 4 * (r.u32(word_at, "child word") & 0xFFFF))
    empty = [w for w in predicted if r.u32(w, "child word") >> 16 == 0]
    facts_offsets = {
        "child_table_offsets_as_described": sum(1 for w in predicted if predicted[w] == actual[w]),
        "child_table_offsets": len(predicted),
        "empty_child_tables": len(empty),
        "empty_child_tables_as_described": sum(1 for w in empty if predicted[w] == actual[w]),
    }
    table = lambda name: list(range(r.regions[name][0], r.regions[name][1],
                                    {"lists": LIST_SIZE, "objects": OBJECT_SIZE, "parameters": PARAMETER_SIZE}[name]))
    facts = {
        "lists_in_described_order": lists == table("lists"),
        "objects_in_described_order": objects == table("objects"),
        "parameters_in_described_order": params == table("parameters"),
        "io_type": r.io_type, "pio_version": r.pio_version,
    }
    facts.update(facts_offsets)
    # The data section: the order in which values first appear, against the parameter order.
    firsts = []
    seen = set()
    by_param = {p: (kind, s, e) for p, kind, s, e in r.values}
    for p in r.parameter_offsets:
        kind, s, e = by_param[p]
        if kind not in STRING_TYPES and s not in seen:
            seen.add(s)
            firsts.append(s)
    facts["data_first_uses_in_parameter_table_order"] = firsts == sorted(firsts)
    strings = []
    seen = set()
    for p in sorted(r.parameter_offsets):
        kind, s, e = by_param[p]
        if kind in STRING_TYPES and s not in seen:
            seen.add(s)
            strings.append(s)
    facts["strings_first_uses_in_parameter_table_order"] = strings == sorted(strings)
    # Padding: bytes in the data and string sections no value covers.
    for name in ("data", "strings"):
        lo, hi, _ = r.regions[name]
        covered = bytearray(hi - lo)
        for _, kind, s, e in r.values:
            if lo <= s < hi:
                covered[s - lo:e - lo] = b"\1" * (e - s)
        gaps = [i for i in range(len(covered)) if not covered[i]]
        facts[name + "_uncovered_bytes"] = len(gaps)
        facts[name + "_uncovered_nonzero_bytes"] = sum(1 for i in gaps if r.data[lo + i])
    facts.update(data_sharing(r))
    facts.update(described_sections(r))
    return facts


def value_bytes(kind, value):
    """The bytes a value takes in the data section (a buffer's with its count word first)."""
    if kind == 0:
        return struct.pack("<I", 1 if value else 0)
    if kind == 2:
        return struct.pack("<i", value)
    if kind in (1, 17):
        return struct.pack("<I", value)
    if 9 <= kind <= 12:
        return b"".join(struct.pack("<2I30I", a, b, *f) for a, b, f in value)
    if kind in BUFFER_TYPES:
        if kind == 19:
            return struct.pack("<I", len(value)) + bytes(value)
        return struct.pack("<I%d%s" % (len(value), "i" if kind == 13 else "I"), len(value), *value)
    return struct.pack("<%dI" % len(value), *value)


def described_sections(r, top_first=7, interleave=True, ai_program_exception=True, reuse="any run"):
    """The data and string sections as the notes describe the writer (after oead's writer):
    parameters are collected per list: at the top level up to 7 of the list's objects first
    (not when its first object is named DemoAIActionIdx, a Breath of the Wild AI program), then
    before every second child list one more object (not for AI programs), each child list
    recursively, then the remaining objects. Each non-string value reuses the first earlier
    run of the data section (4-byte steps) holding the same bytes, else is appended and padded
    to 4; each distinct string is appended once, NUL-terminated, padded to 4.
    The keyword arguments switch each rule off (top_first=0, interleave=False,
    ai_program_exception=False, reuse="whole values" or "none") to measure which files need it."""
    demo_ai = zlib.crc32(b"DemoAIActionIdx")
    order = []
    def take(obj):
        order.extend(r.tree[obj])
    def walk(lst, top):
        lists, objects = r.tree[lst]
        names = [r.u32(o, "name") for o in objects]
        aiprog = ai_program_exception and bool(objects) and names[0] == demo_ai
        pending = list(objects)
        if top and not aiprog:
            while pending and len(pending) > len(objects) - top_first:
                take(pending.pop(0))
        for i, child in enumerate(lists):
            if interleave and not aiprog and i % 2 == 0 and pending:
                take(pending.pop(0))
            walk(child, False)
        for o in pending:
            take(o)
    walk(r.list_offsets[0], True)
    values = {p: (kind, s, e) for p, kind, s, e in r.values}
    data, strings, string_at, whole, placed = bytearray(), bytearray(), {}, {}, {}
    for p in order:
        kind, s, e = values[p]
        if kind in STRING_TYPES:
            text = r.data[s:e]
            if text not in string_at:
                string_at[text] = len(strings)
                strings += text + b"\0" * (-len(text) % 4)
            placed[p] = r.regions["strings"][0] + string_at[text] == s
            continue
        raw = r.data[s:e]
        if reuse == "any run":
            candidates = range(0, len(data) - len(raw) + 1, 4)
        elif reuse == "whole values":
            candidates = [v for v in whole if data[v:v + len(raw)] == raw and len(raw) == whole[v]]
        else:
            candidates = []
        for at in candidates:
            if data[at:at + len(raw)] == raw:
                break
        else:
            at = len(data)
            whole[len(data)] = len(raw)
            data += raw + b"\0" * (-len(raw) % 4)
        placed[p] = r.regions["data"][0] + at == s
    lo, hi, _ = r.regions["data"]
    slo, shi, _ = r.regions["strings"]
    return {"value_offsets_as_described": "%d of %d" % (sum(placed.values()), len(placed)),
            "data_section_as_described": bytes(data) == r.data[lo:hi],
            "string_section_as_described": bytes(strings) == r.data[slo:shi]}


def to_json(doc):
    """Canonical JSON: file order kept; names as "0x%08x"; f32 values as "0x%08x" bit patterns;
    each parameter as {"type": value}."""
    def value(type_name, v):
        hexf = lambda x: "0x%08x" % x
        if type_name == "f32":
            return hexf(v)
        if type_name in ("vec2", "vec3", "vec4", "color", "quat", "buffer_f32"):
            return [hexf(x) for x in v]
        if type_name.startswith("curve"):
            return [{"a": a, "b": b, "floats": [hexf(x) for x in f]} for a, b, f in v]
        if type_name == "buffer_binary":
            return v.hex()
        return v
    def plist(l):
        return {"lists": {"0x%08x" % k: plist(x) for k, x in l["lists"].items()},
                "objects": {"0x%08x" % k: {"0x%08x" % n: {t: value(t, v)} for n, (t, v) in o.items()}
                            for k, o in l["objects"].items()}}
    return json.dumps({"version": doc["version"], "type": doc["type"], "root": plist(doc["root"])},
                      ensure_ascii=False, indent=1)


def differences(a, b, path="root"):
    """Where document b differs from document a, one line each (file order of a, then b):
    "~ PATH: OLD -> NEW" for a changed value, "- PATH" for one only a has, "+ PATH: VALUE" for
    one only b has; lists and objects are compared by name, so their order is not a difference."""
    out = []
    for kind in ("lists", "objects"):
        ka, kb = a[kind], b[kind]
        for name, x in ka.items():
            p = "%s/%s/0x%08x" % (path, kind, name)
            if name not in kb:
                out.append("- " + p)
            elif kind == "lists":
                out += differences(x, kb[name], p)
            else:
                for pname, v in x.items():
                    q = "%s/0x%08x" % (p, pname)
                    if pname not in kb[name]:
                        out.append("- " + q)
                    elif kb[name][pname] != v:
                        out.append("~ %s: %r -> %r" % (q, v, kb[name][pname]))
                for pname, v in kb[name].items():
                    if pname not in x:
                        out.append("+ %s/0x%08x: %r" % (p, pname, v))
        for name, x in kb.items():
            if name not in ka:
                out.append("+ %s/%s/0x%08x" % (path, kind, name))
    return out


def main(argv):
    import os
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import containers
    if "--diff" in argv:
        # aamp.py A --diff B: the differences of B's document from A's (nothing when equal);
        # both files are read with every check.
        i = argv.index("--diff")
        if len(argv) != 3 or i != 1:
            print("usage: aamp.py FILE --diff OTHER", file=sys.stderr)
            return 2
        docs = []
        for f in (argv[0], argv[2]):
            try:
                docs.append(read(containers.load(f, None)))
            except ValueError as err:
                print("%s: %s" % (f, err), file=sys.stderr)
                return 1
        top = ["~ %s: %r -> %r" % (k, docs[0][k], docs[1][k]) for k in ("version", "type") if docs[0][k] != docs[1][k]]
        for line in top + differences(docs[0]["root"], docs[1]["root"]):
            print(line)
        return 0
    return containers.reader_main(argv, "Read an AAMP file independently of binschema.", read, to_json, summary, layout)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
