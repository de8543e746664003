"""The Python module (python/, docs/python.md) on the real samples.

Run by ctest (python_module) with PYTHONPATH=build/python and
BINSCHEMA_SHARED_DIR=../shared. The text form of the formats changes over
time, so these tests look for what they edit in the decoded value (by kind of
leaf, by path) rather than assuming today's shapes.
"""

import copy
import os
import re
import shutil
from pathlib import Path

import pytest

import binschema

SHARED = Path(os.environ.get("BINSCHEMA_SHARED_DIR", Path(__file__).resolve().parents[3] / "shared"))
SAMPLES = SHARED / "samples"
FOLDERS = ["aamp", "bfevfl", "byml", "sarc", "yaz0"]
# Samples in ../shared/samples/yaz0 of no format binschema has (Havok, RSTB).
NOT_A_FORMAT = {"0-0.shknm2", "ResourceSizeTable.product.srsizetable"}


def sample_files():
    if not SAMPLES.is_dir():
        return []
    out = []
    for sub in FOLDERS:
        d = SAMPLES / sub
        if d.is_dir():
            out += sorted(p for p in d.iterdir() if p.is_file() and p.suffix != ".md")
    return out


def need_samples():
    if not SAMPLES.is_dir():
        pytest.skip(f"SKIPPED LOUDLY: sample folder {SAMPLES} is missing: these tests need the real files "
                    "in ../shared/samples/ beside the checkout")


def sample(sub, name):
    need_samples()
    p = SAMPLES / sub / name
    if not p.is_file():
        pytest.skip(f"SKIPPED LOUDLY: sample {p} is missing")
    return p


# ---- walking values -------------------------------------------------------------

def leaves(v, path=()):
    """(path, value) of every scalar leaf, paths as tuples of keys and indices."""
    if isinstance(v, dict):
        for k, x in v.items():
            yield from leaves(x, path + (k,))
    elif isinstance(v, list):
        for i, x in enumerate(v):
            yield from leaves(x, path + (i,))
    else:
        yield path, v


def get(v, path):
    for k in path:
        v = v[k]
    return v


def put(v, path, x):
    get(v, path[:-1])[path[-1]] = x


def dotted(path):
    """The model path spelling of a path: nodes[3].name."""
    out = ""
    for k in path:
        if isinstance(k, int):
            out += f"[{k}]"
        else:
            out += ("." if out else "") + k
    return out


def without_layout(v):
    v = dict(v)
    v.pop("layout", None)
    return v


# ---- the module --------------------------------------------------------------------

def test_formats_are_the_compiled_in_ones():
    names = [f["name"] for f in binschema.formats()]
    for n in ["baev", "bfevfl", "sarc", "aamp", "byml"]:
        assert n in names
    bfevfl = next(f for f in binschema.formats() if f["name"] == "bfevfl")
    assert ".bfevfl" in bfevfl["extensions"] and bfevfl["magic"] == b"BFEVFL\0\0"


@pytest.mark.parametrize("path", sample_files() or [None], ids=lambda p: p.name if p else "no-samples")
def test_every_sample_round_trips_byte_for_byte(path):
    need_samples()
    data = binschema.read_bytes(str(path))  # Yaz0 taken off
    if path.name in NOT_A_FORMAT:
        with pytest.raises(binschema.DecodeError, match="cannot tell the format"):
            binschema.decode(data)
        return
    value = binschema.decode(data)
    assert isinstance(value, dict) and isinstance(value["format"], str)
    assert binschema.encode(value) == data
    # read() decodes the same file, layers off, to the same value.
    assert binschema.read(str(path)) == value


@pytest.mark.parametrize("sub,name", [("bfevfl", "Common.bfevfl"), ("bfevfl", "Demo103_0.bfevtm"),
                                      ("aamp", "Lizalfos.bphysics"), ("byml", "LevelSensor.byml")])
def test_text_round_trips(sub, name):
    data = sample(sub, name).read_bytes()
    value = binschema.decode(data)
    for kind in ["yaml", "json"]:
        text = binschema.to_text(value, kind)
        assert binschema.from_text(text) == value
        assert binschema.encode(binschema.from_text(text)) == data


def test_decode_text_is_the_text_of_the_value():
    data = sample("bfevfl", "Demo346_0.bfevfl").read_bytes()
    value = binschema.decode(data)
    for kind in ["yaml", "json"]:
        text = binschema.decode_text(data, kind)
        assert text.startswith("format: bfevfl" if kind == "yaml" else "{")
        assert binschema.from_text(text) == value


@pytest.mark.parametrize("sub,name", [("sarc", "ActorObserverByActorTagTag.sarc"), ("bfevfl", "Common.bfevfl"),
                                      ("aamp", "Lizalfos.bphysics"), ("byml", "USen.byml")])
def test_decode_has_the_structure_of_the_json_text(sub, name):
    import json
    data = sample(sub, name).read_bytes()
    value = binschema.decode(data)
    from_json = json.loads(binschema.decode_text(data, "json"))
    a, b = list(leaves(value)), list(leaves(from_json))
    assert [p for p, _ in a] == [p for p, _ in b]
    hex_ints = 0
    for (p, x), (_, y) in zip(a, b):
        if isinstance(x, int) and not isinstance(x, bool) and isinstance(y, str):
            assert int(y, 16) == x, p  # an integer the text shows in hex: an int here
            hex_ints += 1
        else:
            assert type(x) is type(y) and x == y, p
    if sub == "sarc":
        assert hex_ints > 0


def test_members_of_an_archive_round_trip():
    pack = str(sample("yaz0", "Demo344_1.sbeventpack"))
    names = binschema.members(pack)
    assert "EventFlow/Demo344_1.bfevfl" in names
    done = 0
    for n in names:
        data = binschema.read_bytes(f"{pack}:{n}")
        if n.endswith((".bfevfl", ".bas")):
            assert binschema.encode(binschema.read(f"{pack}:{n}")) == data
            done += 1
    assert done >= 8


# ---- edits -----------------------------------------------------------------------------

def first_leaf(value, kind, skip=("format", "layout")):
    for p, x in leaves(value):
        if p and p[0] in skip:
            continue
        if type(x) is kind:
            return p
    raise AssertionError(f"no {kind.__name__} in the value")


@pytest.mark.parametrize("sub,name", [("bfevfl", "Common.bfevfl"), ("aamp", "Lizalfos.bphysics"),
                                      ("byml", "LevelSensor.byml")])
def test_a_number_changed_in_python_is_in_the_file(sub, name):
    data = sample(sub, name).read_bytes()
    value = binschema.decode(data)
    edited = copy.deepcopy(value)
    p = first_leaf(edited, float)
    put(edited, p, get(edited, p) + 1.5)
    out = binschema.encode(edited)
    assert out != data
    back = binschema.decode(out)
    assert get(back, p) == get(value, p) + 1.5
    assert without_layout(back) == without_layout(edited)


def test_renaming_an_event_in_a_bfevfl():
    data = sample("bfevfl", "Common.bfevfl").read_bytes()
    value = binschema.decode(data)
    # The events of a flowchart: a map by name (map: name). One renamed: its
    # key, and every reference to it (a string leaf holding its name).
    fc = next(i for i, f in enumerate(value["flowcharts"]) if f["events"])
    events = value["flowcharts"][fc]["events"]
    assert isinstance(events, dict)
    old = next(iter(events))
    new = old + "_Renamed"
    where = [p for p, x in leaves(value) if x == old]
    edited = copy.deepcopy(value)
    for p in where:
        put(edited, p, new)
    edited["flowcharts"][fc]["events"] = {new if k == old else k: v for k, v in edited["flowcharts"][fc]["events"].items()}
    back = binschema.decode(binschema.encode(edited))
    assert list(back["flowcharts"][fc]["events"]) == [new if k == old else k for k in events]
    # (A reference inside the renamed event is now under its new key.)
    moved = [tuple(new if i and p[i - 1] == "events" and k == old else k for i, k in enumerate(p)) for p in where]
    assert all(get(back, p) == new for p in moved)
    assert old not in [x for _, x in leaves(without_layout(back))]
    assert old not in back["flowcharts"][fc]["events"]


def test_a_member_of_a_yaz0_pack_is_edited_and_the_pack_written_back(tmp_path):
    src = sample("yaz0", "Demo344_1.sbeventpack")
    pack = tmp_path / src.name
    shutil.copy(src, pack)
    names = binschema.members(str(pack))
    before = {n: binschema.read_bytes(f"{pack}:{n}") for n in names}
    member = next(n for n in names if n.endswith(".bas"))
    value = binschema.read(f"{pack}:{member}")
    p = first_leaf(value, float)
    put(value, p, get(value, p) + 2.0)
    binschema.write(f"{pack}:{member}", value)
    assert pack.read_bytes()[:4] == b"Yaz0"  # the layer put back on
    assert get(binschema.read(f"{pack}:{member}"), p) == get(value, p)
    for n in names:
        if n != member:
            assert binschema.read_bytes(f"{pack}:{n}") == before[n], n


def test_write_compresses_as_the_name_asks(tmp_path):
    data = sample("bfevfl", "Common.bfevfl").read_bytes()
    value = binschema.decode(data)
    for name, magic in [("Common.bfevfl.zs", b"\x28\xb5\x2f\xfd"), ("Common.sbfevfl", b"Yaz0"), ("Common.bfevfl", b"BFEVFL")]:
        out = tmp_path / name
        binschema.write(str(out), value)
        assert out.read_bytes().startswith(magic), name
        assert binschema.read_bytes(str(out)) == data
        assert binschema.read(str(out)) == value


def test_bytes_stand_for_hex_text():
    pack = str(sample("yaz0", "Demo344_1.sbeventpack"))
    sarc = binschema.decode(binschema.read_bytes(pack))
    # Some string leaf holds a member's contents as hex: give it as bytes instead.
    member = binschema.read_bytes(f"{pack}:EventFlow/Demo344_1.bfevfl")
    p = next(p for p, x in leaves(sarc) if x == member.hex())
    edited = copy.deepcopy(sarc)
    put(edited, p, member)
    assert binschema.encode(edited) == binschema.encode(sarc)


# ---- errors ----------------------------------------------------------------------------

def test_decode_error_carries_offset_and_path():
    data = sample("bfevfl", "Common.bfevfl").read_bytes()
    with pytest.raises(binschema.DecodeError) as e:
        binschema.decode(data[: len(data) // 2])
    err = e.value
    assert isinstance(err.offset, int) and 0 < err.offset <= len(data)
    assert err.path and err.path in str(err)
    assert f"{err.offset:x}" in str(err).lower()
    assert isinstance(err, binschema.Error) and isinstance(err, ValueError)


def test_decode_without_a_known_magic():
    with pytest.raises(binschema.DecodeError, match="cannot tell the format"):
        binschema.decode(b"\0" * 64)
    with pytest.raises(ValueError, match="unknown format"):
        binschema.decode(b"\0" * 64, format="nosuch")


def test_text_error_carries_line_and_column():
    value = binschema.decode(sample("bfevfl", "Common.bfevfl").read_bytes())
    lines = binschema.to_text(value, "yaml").split("\n")
    # The first line holding an integer: make it a list, which no number field takes.
    i = next(i for i, l in enumerate(lines) if re.fullmatch(r"\s*[A-Za-z_]\w*: -?\d+", l))
    col = lines[i].index(": ") + 3
    lines[i] = lines[i][: col - 1] + "[1, 2]"
    with pytest.raises(binschema.TextError) as e:
        binschema.from_text("\n".join(lines))
    assert (e.value.line, e.value.column) == (i + 1, col)
    assert str(e.value).startswith(f"{i + 1}:{col}: ")
    # A syntax error: yaml-cpp's, with its place.
    with pytest.raises(binschema.TextError) as e:
        binschema.from_text("format: bfevfl\nname: [unclosed\n")
    assert e.value.line is not None and e.value.line >= 2


@pytest.mark.parametrize("wrong", [[1, 2], {"a": 1}, "not a number", object()],
                         ids=["list", "dict", "str", "object"])
def test_a_wrong_value_type_names_the_path(wrong):
    value = binschema.decode(sample("bfevfl", "Common.bfevfl").read_bytes())
    p = first_leaf(value, int)
    put(value, p, wrong)
    with pytest.raises(binschema.TextError) as e:
        binschema.encode(value)
    assert e.value.path == dotted(p)
    assert dotted(p) in str(e.value)
    assert e.value.line is None


def test_a_value_without_a_format():
    with pytest.raises(binschema.TextError, match="format"):
        binschema.encode({"name": "x"})
    with pytest.raises(binschema.TextError, match="unknown format 'nosuch'"):
        binschema.encode({"format": "nosuch"})


def test_reading_a_missing_file_is_an_error(tmp_path):
    with pytest.raises(binschema.Error, match="cannot open"):
        binschema.read(str(tmp_path / "nothing.bfevfl"))


SCHEMAS = Path(__file__).resolve().parents[2] / "schemas"


# SARC, and BYML's readable text (maps by key, bare tagged values, string
# tables) at run time.
@pytest.mark.parametrize("sub,name,schema", [("sarc", "ActorObserverByActorTagTag.sarc", "sarc"),
                                             ("byml", "LevelSensor.byml", "byml")])
def test_a_schema_loaded_at_run_time_is_used_from_python(sub, name, schema):
    data = sample(sub, name).read_bytes()
    s = binschema.load_schema(str(SCHEMAS / f"{schema}.yaml"))
    assert s.name == schema
    value = s.decode(data)
    assert value == binschema.decode(data)  # the run-time engine gives the compiled-in format's value
    assert s.encode(value) == data
    assert s.from_text(s.decode_text(data, "yaml")) == value
    # Loaded from text under another name: no compiled-in format can stand in for it.
    text = re.sub(rf"^format: {schema}$", "format: mine", (SCHEMAS / f"{schema}.yaml").read_text(), flags=re.M)
    t = binschema.load_schema(text)
    assert t.name == "mine" and "mine" not in [f["name"] for f in binschema.formats()]
    mine = t.decode(data)
    assert mine["format"] == "mine" and dict(mine, format=schema) == value
    assert t.encode(mine) == data
    # Edited: the first int changed is in the file.
    p = first_leaf(value, int)
    edited = copy.deepcopy(mine)
    put(edited, p, get(edited, p) + 1)
    try:
        out = t.encode(edited)
    except binschema.Error:
        return  # a count or offset the schema derives: not every int can change
    assert get(t.decode(out), p) == get(edited, p)


def test_aamp_and_bfevfl_at_run_time_give_the_compiled_in_values():
    # AAMP's hash names (its names: list beside the schema) and bare values,
    # BFEVFL's composite actor keys; BFEVFL's hooks are refused at encode.
    for sub, name in [("aamp", "Enemy_Lizalfos_Electric.bdrop"), ("bfevfl", "Common.bfevfl")]:
        data = sample(sub, name).read_bytes()
        s = binschema.load_schema(str(SCHEMAS / f"{sub}.yaml"))
        value = s.decode(data)
        assert value == binschema.decode(data)
        assert s.decode_text(data, "yaml") == binschema.decode_text(data, "yaml")
        if sub == "aamp":
            assert s.from_text(s.decode_text(data, "yaml")) == value
            assert s.from_text(s.decode_text(data, "json")) == value
            assert s.encode(value) == data


def test_a_wrong_value_through_a_run_time_schema_names_the_path():
    data = sample("sarc", "ActorObserverByActorTagTag.sarc").read_bytes()
    s = binschema.load_schema(str(SCHEMAS / "sarc.yaml"))
    value = s.decode(data)
    p = first_leaf(value, int)
    put(value, p, [1, 2])
    with pytest.raises(binschema.TextError) as e:
        s.encode(value)
    assert e.value.path == dotted(p)
    with pytest.raises(binschema.TextError, match="not this schema's"):
        s.encode({"format": "bfevfl"})


def test_a_bad_schema_is_a_schema_error():
    with pytest.raises(binschema.SchemaError, match=r"^<schema text>:3:1: unknown key 'structs'"):
        binschema.load_schema("format: tiny\nroot: Nope\nstructs:\n  Head:\n    fields: {}\n")


def test_the_stubs_cover_the_api():
    stubs = (Path(binschema.__file__).parent / "__init__.pyi").read_text()
    for name in binschema.__all__:
        assert re.search(rf"^(def|class) {name}\b", stubs, re.M), name


def test_decode_leaves_the_garbage_collector_as_it_was():
    import gc
    data = sample("bfevfl", "Common.bfevfl").read_bytes()
    assert gc.isenabled()
    binschema.decode(data)
    assert gc.isenabled()
    with pytest.raises(binschema.DecodeError):
        binschema.decode(data[:100])
    assert gc.isenabled()
    gc.disable()
    try:
        binschema.decode(data)
        assert not gc.isenabled()
    finally:
        gc.enable()
