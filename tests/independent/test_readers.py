"""Tests of the independent AAMP and BYML readers (and the Yaz0/SARC helpers).

Edge cases are built here byte by byte; the samples are read from BINSCHEMA_SHARED_DIR
(or ../shared beside the repository) when present, else those tests are skipped saying so.
Run: python3 -m pytest -q tests/independent
"""

import glob
import json
import os
import struct
import subprocess
import tempfile
import sys
import zlib

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import aamp  # noqa: E402
import byml  # noqa: E402
import containers  # noqa: E402


# ---------------------------------------------------------------------------------------
# BYML files built by hand
# ---------------------------------------------------------------------------------------

def string_table(strings, e):
    """A 0xC2 node: type, u24 count, count + 1 offsets from the node's start, the strings."""
    n = len(strings)
    offsets, body = [], b""
    for s in strings:
        offsets.append(4 + 4 * (n + 1) + len(body))
        body += s.encode() + b"\0"
    offsets.append(4 + 4 * (n + 1) + len(body))
    raw = node_head(0xC2, n, e) + b"".join(struct.pack(e + "I", o) for o in offsets) + body
    return raw + b"\0" * (-len(raw) % 4)


def node_head(node_type, count, e):
    return bytes([node_type]) + count.to_bytes(3, "big" if e == ">" else "little")


class BymlBuilder:
    """Appends blocks at known offsets, so a test can write any layout (cycles included)."""

    def __init__(self, e="<", version=2, keys=(), strings=()):
        self.e = e
        self.version = version
        self.buf = bytearray(16)
        self.keys = sorted(keys)
        self.strings = sorted(strings)
        self.key_at = self.add(string_table(self.keys, e)) if keys else 0
        self.string_at = self.add(string_table(self.strings, e)) if strings else 0

    def add(self, raw, align=4):
        self.buf += b"\0" * (-len(self.buf) % align)
        at = len(self.buf)
        self.buf += raw
        return at

    def reserve(self, size):
        return self.add(b"\0" * size)

    def u32(self, v):
        return struct.pack(self.e + "I", v)

    def array(self, items, at=None):
        """items: (type, u32 word) pairs."""
        raw = node_head(0xC0, len(items), self.e) + bytes(t for t, _ in items)
        raw += b"\0" * (-len(raw) % 4) + b"".join(self.u32(w) for _, w in items)
        return self.put(raw, at)

    def dictionary(self, entries, at=None):
        """entries: (key, type, u32 word), written in key order."""
        raw = node_head(0xC1, len(entries), self.e)
        for key, t, w in sorted(entries):
            raw += self.keys.index(key).to_bytes(3, "big" if self.e == ">" else "little") + bytes([t]) + self.u32(w)
        return self.put(raw, at)

    def hash_map(self, entries):
        """0x20: entries {u32 hash, u32 value}, then the type bytes, padded to 4."""
        entries = sorted(entries)
        raw = node_head(0x20, len(entries), self.e)
        raw += b"".join(self.u32(h) + self.u32(w) for h, _, w in entries) + bytes(t for _, t, _ in entries)
        return self.add(raw + b"\0" * (-len(raw) % 4))

    def value_hash_map(self, entries):
        """0x21: entries {u32 value, u32 hash, u32 extra}, then the type bytes, padded to 4."""
        entries = sorted(entries)
        raw = node_head(0x21, len(entries), self.e)
        raw += b"".join(self.u32(w) + self.u32(h) + self.u32(x) for h, _, w, x in entries)
        raw += bytes(t for _, t, _, _ in entries)
        return self.add(raw + b"\0" * (-len(raw) % 4))

    def put(self, raw, at):
        if at is None:
            return self.add(raw)
        self.buf[at:at + len(raw)] = raw
        return at

    def finish(self, root):
        magic = b"YB" if self.e == "<" else b"BY"
        self.buf[0:16] = magic + struct.pack(self.e + "HIII", self.version, self.key_at, self.string_at, root)
        return bytes(self.buf)


def f32(x):
    return struct.unpack("<I", struct.pack("<f", x))[0]


def f64(x):
    return struct.unpack("<Q", struct.pack("<d", x))[0]


def small_document(e):
    b = BymlBuilder(e, version=3, keys=["a", "b", "c"], strings=["x", "y"])
    d6 = b.add(struct.pack(e + "Q", f64(1.5)))
    d4 = b.add(struct.pack(e + "q", -3))
    arr = b.array([(0xA0, 1), (0xD2, f32(-0.0)), (0xD3, 7), (0xD0, 1), (0xFF, 0), (0xD6, d6), (0xD4, d4)])
    inner = b.dictionary([("a", 0xD1, 0xFFFFFFFB)])
    root = b.dictionary([("b", 0xC0, arr), ("a", 0xC1, inner), ("c", 0xC1, inner)])
    return b.finish(root)


SMALL_EXPECTED = {
    "a": {"a": -5},
    "b": ["y", ("f32", 0x80000000), ("u32", 7), True, None, ("f64", f64(1.5)), ("s64", -3)],
    "c": {"a": -5},
}


def test_byml_big_endian_reads_like_little_endian():
    big = small_document(">")
    assert big[:2] == b"BY" and big[2:4] == b"\x00\x03"
    assert byml.read(big) == SMALL_EXPECTED
    assert byml.read(small_document("<")) == SMALL_EXPECTED
    s = byml.summary(big)
    assert s["byte_order"] == "big"
    assert s["shared_references"] == 1  # "c" points at the dictionary "a" points at
    assert s["max_depth"] == 2


def test_byml_v7_hash_maps_aligned_binary_and_values_before_the_root():
    for e in ("<", ">"):
        b = BymlBuilder(e, version=7, keys=["k"], strings=["s"])
        u64 = b.add(struct.pack(e + "Q", 0x1122334455667788))
        blob = b.add(struct.pack(e + "II", 3, 0x10) + b"abc")
        raw = b.add(struct.pack(e + "I", 2) + b"\xff\x00")
        inner = b.array([(0xA0, 0)])
        vh = b.value_hash_map([(0x99, 0xD1, 4, 0xABCD), (0x05, 0xD5, u64, 0)])
        h = b.hash_map([(0x30, 0xC0, inner), (0x10, 0xA2, blob), (0x20, 0x21, vh), (0x40, 0xA1, raw)])
        data = b.finish(h)
        assert byml.read(data) == ("hash", {
            0x10: ("binary_aligned", (0x10, b"abc")),
            0x20: ("value_hash", {0x05: (("u64", 0x1122334455667788), 0), 0x99: (4, 0xABCD)}),
            0x30: ["s"],
            0x40: ("binary", b"\xff\x00"),
        })
        facts = byml.layout(data)
        assert facts["value_blocks_before_root"] == 3  # the u64 and both binaries
        assert facts["hash_maps_with_unsorted_hashes"] == 0


def test_byml_json_is_exact_and_unambiguous():
    b = BymlBuilder("<", keys=["@k", "n"])
    root = b.dictionary([("@k", 0xD2, f32(float("nan"))), ("n", 0xD3, 1)])
    text = byml.to_json(byml.read(b.finish(root)))
    assert json.loads(text) == {"@@k": {"@f32": "0x7fc00000"}, "n": {"@u32": 1}}


def test_byml_layout_reports_gaps_and_unused_strings():
    b = BymlBuilder("<", keys=["k", "unused"], strings=["s", "t"])
    inner = b.array([(0xA0, 0)])
    b.add(b"\0" * 8)  # a stretch no block covers
    root = b.dictionary([("k", 0xC0, inner)])
    facts = byml.layout(b.finish(root))
    assert (facts["unused_keys"], facts["unused_strings"]) == (1, 1)
    assert facts["stretches_other_than_padding_to_4"] == ["0x%x+8" % (inner + 12)]


def nested_arrays(depth):
    b = BymlBuilder("<")
    at = b.array([])
    for _ in range(depth - 1):
        at = b.array([(0xC0, at)])
    return b.finish(at)


def test_byml_nesting_past_the_limit_is_refused():
    assert byml.summary(nested_arrays(byml.MAX_DEPTH))["max_depth"] == byml.MAX_DEPTH
    with pytest.raises(ValueError, match=r"offset 0x[0-9a-f]+: nesting deeper than 128"):
        byml.read(nested_arrays(byml.MAX_DEPTH + 1))
    with pytest.raises(ValueError, match="nesting deeper than 5"):
        byml.read(nested_arrays(6), max_depth=5)


def test_byml_cycle_is_refused():
    b = BymlBuilder("<")
    outer = b.reserve(12)
    inner = b.array([(0xC0, outer)])
    b.array([(0xC0, inner)], at=outer)
    with pytest.raises(ValueError, match="offset 0x%x: cycle" % outer):
        byml.read(b.finish(outer))


def test_byml_amplification_is_refused_by_the_budget():
    b = BymlBuilder("<")
    at = b.array([])
    for _ in range(30):  # each level points twice at the one below: 2**30 values as copies
        at = b.array([(0xC0, at), (0xC0, at)])
    data = b.finish(at)
    assert len(data) < 1000
    with pytest.raises(ValueError, match="more than 100000 values"):
        byml.read(data)


def test_byml_truncated_and_bad_references_are_refused_with_the_offset():
    data = small_document("<")
    for cut in (8, 20, len(data) - 30, len(data) - 1):
        with pytest.raises(ValueError, match=r"offset 0x[0-9a-f]+: "):
            byml.read(data[:cut])
    b = BymlBuilder("<", strings=["only"])
    root = b.array([(0xA0, 1)])
    with pytest.raises(ValueError, match=r"offset 0x%x: string index 1 past the string table" % (root + 8)):
        byml.read(b.finish(root))
    b = BymlBuilder("<")
    root = b.array([(0xD0, 2)])
    with pytest.raises(ValueError, match="bool holds 2"):
        byml.read(b.finish(root))
    b = BymlBuilder("<")
    root = b.array([(0xC1, 0x7FFF0)])
    with pytest.raises(ValueError, match=r"offset 0x%x: offset of a 0xc1 node at 0x7fff0 outside" % (root + 8)):
        byml.read(b.finish(root))
    b = BymlBuilder("<")
    root = b.array([(0xB7, 0)])
    with pytest.raises(ValueError, match="unknown node type 0xb7"):
        byml.read(b.finish(root))


# ---------------------------------------------------------------------------------------
# AAMP files built by hand: a small writer laying out lists, objects, parameters, data
# and strings in Nintendo's section order (not its data order; no data reuse)
# ---------------------------------------------------------------------------------------

def aamp_file(root, count_override=None, mutate=None):
    """root: {"lists": {name: list}, "objects": {name: {name: (type, value)}}}."""
    objects, params = [], []   # (node, name), in table order
    order = [(root, zlib.crc32(b"param_root"))]
    i = 0
    while i < len(order):  # breadth first: each list's children sit together
        node, _ = order[i]
        order.extend((child, n) for n, child in node["lists"].items())
        i += 1
    lists = order
    for node, _ in lists:
        objects.extend((obj, n) for n, obj in node["objects"].items())
    for obj, _ in objects:
        params.extend((value, n) for n, value in obj.items())
    lists_at = 0x34
    objects_at = lists_at + 0xC * len(lists)
    params_at = objects_at + 8 * len(objects)
    data_at = params_at + 8 * len(params)
    data, strings, value_at = bytearray(), bytearray(), []
    for (type_name, value), _ in params:
        kind = aamp.TYPE_BY_NAME[type_name]
        if kind in aamp.STRING_TYPES:
            value_at.append(("s", len(strings)))
            raw = value.encode() + b"\0"
            strings += raw + b"\0" * (-len(raw) % 4)
            continue
        raw = aamp.value_bytes(kind, value)
        value_at.append(("d", len(data) + (4 if kind in aamp.BUFFER_TYPES else 0)))
        data += raw + b"\0" * (-len(raw) % 4)
    strings_at = data_at + len(data)
    out = bytearray(strings_at + len(strings))
    index = {id(node): i for i, (node, _) in enumerate(lists)}
    first_object = {}
    k = 0
    for node, _ in lists:
        first_object[id(node)] = k
        k += len(node["objects"])
    first_param = {}
    k = 0
    for obj, _ in objects:
        first_param[id(obj)] = k
        k += len(obj)
    for i, (node, name) in enumerate(lists):
        at = lists_at + 0xC * i
        kids = list(node["lists"].values())
        child_at = lists_at + 0xC * index[id(kids[0])] if kids else at
        obj_at = objects_at + 8 * first_object[id(node)] if node["objects"] else at
        struct.pack_into("<III", out, at, name, (child_at - at) // 4 | len(kids) << 16,
                         (obj_at - at) // 4 | len(node["objects"]) << 16)
    for i, (obj, name) in enumerate(objects):
        at = objects_at + 8 * i
        p_at = params_at + 8 * first_param[id(obj)] if obj else at
        struct.pack_into("<II", out, at, name, (p_at - at) // 4 | len(obj) << 16)
    for i, ((type_name, _), name) in enumerate(params):
        at = params_at + 8 * i
        section, rel = value_at[i]
        target = (data_at if section == "d" else strings_at) + rel
        struct.pack_into("<II", out, at, name, (target - at) // 4 | aamp.TYPE_BY_NAME[type_name] << 24)
    out[data_at:strings_at] = data
    out[strings_at:] = strings
    counts = count_override or (len(lists), len(objects), len(params))
    struct.pack_into("<4s11I", out, 0, b"AAMP", 2, 3, len(out), 0, 4, *counts, len(data), len(strings), 0)
    out[0x30:0x34] = b"xml\0"
    if mutate:
        mutate(out)
    return bytes(out)


def crc(name):
    return zlib.crc32(name.encode())


CURVE = (7, 9, tuple(f32(i / 4) for i in range(30)))
EVERY_TYPE = {
    crc("b"): ("bool", True), crc("f"): ("f32", f32(2.5)), crc("i"): ("int", -7),
    crc("v2"): ("vec2", (f32(1), f32(2))), crc("v3"): ("vec3", (f32(1), f32(2), f32(3))),
    crc("v4"): ("vec4", (1, 2, 3, 4)), crc("c"): ("color", (f32(0.5),) * 4),
    crc("s32"): ("string32", "short"), crc("s64"): ("string64", "x" * 63),
    crc("cu1"): ("curve1", (CURVE,)), crc("cu2"): ("curve2", (CURVE, CURVE)),
    crc("cu3"): ("curve3", (CURVE,) * 3), crc("cu4"): ("curve4", (CURVE,) * 4),
    crc("bi"): ("buffer_int", [1, -2, 3]), crc("bf"): ("buffer_f32", [f32(0.25), f32(-1)]),
    crc("s256"): ("string256", "é" * 100), crc("q"): ("quat", (0, 0, 0, f32(1))),
    crc("u"): ("u32", 0xFFFFFFFF), crc("bu"): ("buffer_u32", []), crc("bb"): ("buffer_binary", b"\x01\x02\x03"),
    crc("sr"): ("string_ref", "any length " * 40),
}


def test_aamp_every_type_buffers_and_curves():
    root = {"lists": {crc("child"): {"lists": {}, "objects": {crc("o2"): {crc("p"): ("int", 1)}}}},
            "objects": {crc("all"): EVERY_TYPE}}
    data = aamp_file(root)
    doc = aamp.read(data)
    assert doc == {"version": 0, "type": "xml", "root": root}
    s = aamp.summary(data)
    assert (s["lists"], s["objects"], s["parameters"], s["max_depth"]) == (2, 2, len(EVERY_TYPE) + 1, 2)
    assert s["types"]["buffer_binary"] == 1 and s["types"]["curve4"] == 1
    text = json.loads(aamp.to_json(doc))
    obj = text["root"]["objects"]["0x%08x" % crc("all")]
    assert obj["0x%08x" % crc("f")] == {"f32": "0x40200000"}
    assert obj["0x%08x" % crc("bb")] == {"buffer_binary": "010203"}
    assert obj["0x%08x" % crc("cu1")]["curve1"][0]["a"] == 7


def test_aamp_buffer_count_word_is_read_before_the_data():
    root = {"lists": {}, "objects": {crc("o"): {crc("bi"): ("buffer_int", [5, 6])}}}
    data = bytearray(aamp_file(root))
    count_at = data.index(struct.pack("<3I", 2, 5, 6))
    data[count_at:count_at + 4] = struct.pack("<I", 3)  # one element more than the section holds
    with pytest.raises(ValueError, match="buffer_int of 3 elements .* outside the data section"):
        aamp.read(bytes(data))


def nested_lists(depth):
    node = {"lists": {}, "objects": {}}
    for i in range(depth - 1):
        node = {"lists": {i: node}, "objects": {}}
    return node


def test_aamp_nesting_past_the_limit_is_refused():
    assert aamp.summary(aamp_file(nested_lists(aamp.MAX_DEPTH)))["max_depth"] == aamp.MAX_DEPTH
    with pytest.raises(ValueError, match=r"offset 0x[0-9a-f]+: lists nested deeper than 64"):
        aamp.read(aamp_file(nested_lists(aamp.MAX_DEPTH + 1)))


def test_aamp_cycle_is_refused():
    # Offsets are unsigned counts of 4 bytes forward, so the only loop is a list whose child
    # table starts at the list itself (offset 0).
    def loop(out):
        struct.pack_into("<I", out, 0x34 + 4, 0 | 1 << 16)
    data = aamp_file({"lists": {1: {"lists": {}, "objects": {}}}, "objects": {}}, mutate=loop)
    with pytest.raises(ValueError, match="offset 0x34: cycle: this list contains itself"):
        aamp.read(data)


def test_aamp_truncated_and_inconsistent_files_are_refused_with_the_offset():
    data = aamp_file({"lists": {}, "objects": {crc("o"): EVERY_TYPE}})
    for cut in (0x20, 0x40, len(data) - 4):
        with pytest.raises(ValueError, match=r"offset 0x[0-9a-f]+: "):
            aamp.read(data[:cut])
    with pytest.raises(ValueError, match=r"offset 0x14: the sections the header sizes .* end at 0x50, not at the file's end 0x48"):
        aamp.read(aamp_file({"lists": {}, "objects": {crc("o"): {}}}, count_override=(1, 2, 0)))

    def forget_a_parameter(out):  # the object now lists 1 of the 2 parameters the header counts
        struct.pack_into("<H", out, 0x34 + 0xC + 6, 1)
    two = {"lists": {}, "objects": {crc("o"): {crc("p"): ("int", 1), crc("q"): ("int", 2)}}}
    assert aamp.summary(aamp_file(two))["parameters"] == 2
    with pytest.raises(ValueError, match="offset 0x18: the header counts 1 lists, 1 objects, 2 parameters; "
                                         "the tree holds 1, 1, 1"):
        aamp.read(aamp_file(two, mutate=forget_a_parameter))

    def bad_type(out):
        struct.pack_into("<B", out, 0x34 + 0xC + 8 + 7, 21)
    with pytest.raises(ValueError, match=r"offset 0x%x: unknown parameter type 21" % (0x34 + 0xC + 8 + 4)):
        aamp.read(aamp_file({"lists": {}, "objects": {crc("o"): {crc("p"): ("int", 1)}}}, mutate=bad_type))
    long_name = {"lists": {}, "objects": {crc("o"): {crc("p"): ("string32", "y" * 32)}}}
    with pytest.raises(ValueError, match="string32 holds 32 bytes, at most 31 fit"):
        aamp.read(aamp_file(long_name))


# ---------------------------------------------------------------------------------------
# Containers
# ---------------------------------------------------------------------------------------

def test_yaz0_literals_and_overlapping_back_references():
    # "abc" as literals, then a 3-byte reference (distance 3, length 9), then a long one
    # (distance 1, length 0x12 + 2)
    stream = b"Yaz0" + struct.pack(">III", 3 + 9 + 0x14, 0, 0)
    stream += bytes([0b11100000]) + b"abc" + bytes([0x70, 0x02]) + bytes([0x00, 0x00, 0x02])
    assert containers.yaz0_decompress(stream) == b"abc" * 4 + b"c" * 0x14
    with pytest.raises(ValueError, match="offset 0x"):
        containers.yaz0_decompress(stream[:-1])


# ---------------------------------------------------------------------------------------
# The samples
# ---------------------------------------------------------------------------------------

def shared_dir():
    d = os.environ.get("BINSCHEMA_SHARED_DIR") or os.path.join(HERE, "..", "..", "..", "shared")
    return d if os.path.isdir(os.path.join(d, "samples")) else None


def sample_files(kind):
    d = shared_dir()
    if d is None:
        return []
    s = os.path.join(d, "samples")
    if kind == "byml":
        paths = sorted(glob.glob(os.path.join(s, "byml", "*.byml"))) + [os.path.join(s, "yaz0", "ActorInfo.product.sbyml")]
    else:
        paths = sorted(p for p in glob.glob(os.path.join(s, "aamp", "*")) if not p.endswith(".md")) + \
            [os.path.join(s, "yaz0", "Demo344_1.sbeventpack")]
    return [pytest.param(p, id=os.path.basename(p)) for p in paths]


NO_SAMPLES = "no samples: set BINSCHEMA_SHARED_DIR to the folder holding samples/ (or put it at ../shared beside the repository)"


@pytest.mark.skipif(shared_dir() is None, reason=NO_SAMPLES)
@pytest.mark.parametrize("path", sample_files("byml"))
def test_byml_sample(path):
    data = containers.load(path)
    s = byml.summary(data)
    assert s["containers"] > 0 and s["max_depth"] >= 3
    facts = byml.layout(data)
    # Nintendo's writer: both tables sorted, dictionary entries in key order, container blocks
    # depth first, values stored by offset in the order of their referrers.
    assert facts.get("keys_sorted_bytewise", True) and facts.get("strings_sorted_bytewise", True)
    assert facts["dictionaries_with_unsorted_keys"] == 0 and facts["hash_maps_with_unsorted_hashes"] == 0
    assert facts["containers_laid_out_depth_first"]
    assert facts["value_blocks_in_referrer_order"]
    assert facts["value_blocks"] == facts["value_blocks_before_root"]
    # The tables hold only used strings; the file is its blocks back to back, padded to 4.
    assert facts["unused_keys"] == 0 and facts["unused_strings"] == 0
    assert facts["stretches_other_than_padding_to_4"] == []
    # Children of arrays and hash maps are laid out in entry order (dictionaries: not in BotW).
    for kind in ("array", "hash map"):
        done, total = facts["containers_whose_container_children_follow_entry_order"].get(kind, "0 of 0").split(" of ")
        assert done == total, kind


@pytest.mark.skipif(shared_dir() is None, reason=NO_SAMPLES)
def test_byml_sample_numbers():
    s = os.path.join(shared_dir(), "samples")
    actor_info = byml.summary(containers.load(os.path.join(s, "yaz0", "ActorInfo.product.sbyml")))
    assert (actor_info["references"], actor_info["shared_references"], actor_info["distinct_targets"]) == \
        (32599, 12970, 19630)
    usen = byml.read(containers.load(os.path.join(s, "byml", "USen.byml")))
    assert usen[0] == "hash" and len(usen[1]) == 1594


@pytest.mark.skipif(shared_dir() is None, reason=NO_SAMPLES)
@pytest.mark.parametrize("path", sample_files("aamp"))
def test_aamp_sample(path):
    data = containers.load(path)
    if data[:4] == b"SARC":
        members = [d for n, d in containers.sarc_members(data) if n.endswith(".bas")]
        assert len(members) == 7
    else:
        members = [data]
    for data in members:
        doc = aamp.read(data)
        assert doc["type"] == "xml" and doc["version"] == 0
        facts = aamp.layout(data)
        for key in ("lists_in_described_order", "objects_in_described_order", "parameters_in_described_order",
                    "data_section_as_described", "string_section_as_described"):
            assert facts[key], key
        assert facts["data_uncovered_nonzero_bytes"] == 0 and facts["strings_uncovered_nonzero_bytes"] == 0
        # Every child-table offset (empty tables included) and every value offset is where the
        # described writer puts it.
        assert facts["child_table_offsets_as_described"] == facts["child_table_offsets"]
        done, total = facts["value_offsets_as_described"].split(" of ")
        assert done == total


@pytest.mark.skipif(shared_dir() is None, reason=NO_SAMPLES)
def test_command_lines_on_a_sample():
    s = os.path.join(shared_dir(), "samples")
    out = subprocess.run([sys.executable, os.path.join(HERE, "aamp.py"), os.path.join(s, "aamp", "Horse_Link_Appear_Epona.bas")],
                         capture_output=True, text=True, check=True).stdout
    doc = json.loads(out)
    assert doc["root"]["lists"] and doc["type"] == "xml"
    out = subprocess.run([sys.executable, os.path.join(HERE, "byml.py"), "--summary",
                          os.path.join(s, "byml", "Mrg_01e57204_MrgD100_B4-B3-B2-1A90E17A.bcett.byml")],
                         capture_output=True, text=True, check=True).stdout
    assert json.loads(out)["version"] == 4
    pack = os.path.join(s, "yaz0", "Demo344_1.sbeventpack")
    names = subprocess.run([sys.executable, os.path.join(HERE, "containers.py"), pack],
                           capture_output=True, text=True, check=True).stdout
    member = [line.split()[1] for line in names.splitlines() if line.endswith(".bas")][0]
    out = subprocess.run([sys.executable, os.path.join(HERE, "aamp.py"), "--summary", pack, "--member", member],
                         capture_output=True, text=True, check=True).stdout
    assert json.loads(out)["lists"] >= 3


def test_aamp_differences_name_each_changed_added_and_removed_value():
    a = {"lists": {crc("l"): {"lists": {}, "objects": {crc("o2"): {crc("p"): ("int", 1)}}}},
         "objects": {crc("o"): {crc("x"): ("int", 1), crc("y"): ("string_ref", "a")}}}
    b = {"lists": {crc("l"): {"lists": {}, "objects": {crc("o2"): {crc("p"): ("int", 2)}}}},
         "objects": {crc("o"): {crc("y"): ("string_ref", "a"), crc("z"): ("bool", True)}}}
    assert aamp.differences(a, a) == []
    assert aamp.differences(a, b) == [
        "~ root/lists/0x%08x/objects/0x%08x/0x%08x: ('int', 1) -> ('int', 2)" % (crc("l"), crc("o2"), crc("p")),
        "- root/objects/0x%08x/0x%08x" % (crc("o"), crc("x")),
        "+ root/objects/0x%08x/0x%08x: ('bool', True)" % (crc("o"), crc("z"))]
    with tempfile.TemporaryDirectory() as d:
        pa, pb = os.path.join(d, "a.bas"), os.path.join(d, "b.bas")
        with open(pa, "wb") as f:
            f.write(aamp_file(a))
        with open(pb, "wb") as f:
            f.write(aamp_file(b))
        out = subprocess.run([sys.executable, os.path.join(HERE, "aamp.py"), pa, "--diff", pb],
                             capture_output=True, text=True, check=True).stdout
        assert out.splitlines() == aamp.differences(a, b)
        out = subprocess.run([sys.executable, os.path.join(HERE, "aamp.py"), pa, "--diff", pa],
                             capture_output=True, text=True, check=True).stdout
        assert out == ""
