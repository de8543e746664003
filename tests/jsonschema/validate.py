#!/usr/bin/env python3
"""Checks the exported JSON Schemas (binschema-gen --emit jsonschema) against
the text the CLI really prints and reads.

For every example document (examples/*.yaml) and every sample in
../shared/samples (BFEVFL/BFEVTM in bfevfl/, SARC in sarc/, the Yaz0 SARC
in yaz0/ and the flowchart in it): encode or read the file, decode it to JSON and to
YAML with the CLI, and validate both (and the example itself) against the
format's schema. Then, per format, two broken documents must FAIL the schema,
and the CLI's encode must refuse them too: one with a misspelt key, one with
an integer one past the largest its field's schema takes (which must
be 2**8, 2**16, 2**32 or 2**64 for an unsigned field of that width, or
2**7, 2**15, 2**31 or 2**63 for a signed one). And the forms only rare
values take (a NaN payload, a string that is not UTF-8), written by the CLI,
must pass.

  validate.py --cli BINSCHEMA --schemas DIR --examples DIR --samples DIR --work DIR

Exits 0 when everything holds, 1 on a failure, 77 (ctest: skipped) when
python3-jsonschema or python3-yaml is missing (scripts/deps.sh installs them).
"""
import argparse
import copy
import json
import os
import re
import subprocess
import sys

try:
    import jsonschema
    import yaml
except ImportError as e:  # pragma: no cover - depends on the machine
    print(f"SKIPPED: {e.name} is not installed for {sys.executable} "
          "(sh scripts/deps.sh installs python3-jsonschema and python3-yaml)")
    sys.exit(77)


class Yaml12Loader(yaml.SafeLoader):
    """YAML 1.2 core schema, as editors read YAML (PyYAML follows 1.1, where
    `yes`, `on` and `1:30` are not strings)."""


Yaml12Loader.yaml_implicit_resolvers = {}
for tag, regexp, first in [
    ("tag:yaml.org,2002:bool", r"^(?:true|True|TRUE|false|False|FALSE)$", "tTfF"),
    ("tag:yaml.org,2002:null", r"^(?:~|null|Null|NULL|)$", ["~", "n", "N", ""]),
    ("tag:yaml.org,2002:int", r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$", "-+0123456789"),
    ("tag:yaml.org,2002:float",
     r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$",
     "-+0123456789."),
]:
    Yaml12Loader.add_implicit_resolver(tag, re.compile(regexp), list(first))


def construct_tagged(loader, tag_suffix, node):
    """A value with a local tag (a bare union's case, `!u 5`) as its JSON
    form, the one-key map {"!u": 5} the JSON Schema describes."""
    if isinstance(node, yaml.MappingNode):
        value = loader.construct_mapping(node, deep=True)
    elif isinstance(node, yaml.SequenceNode):
        value = loader.construct_sequence(node, deep=True)
    else:
        value = loader.construct_object(yaml.ScalarNode(loader.resolve(yaml.ScalarNode, node.value, (True, False)),
                                                        node.value, node.start_mark, node.end_mark, node.style))
    return {"!" + tag_suffix: value}


def construct_str(loader, node):
    """`!!str {bytes: HEX}`: a string that is not UTF-8 in a bare union."""
    if isinstance(node, yaml.MappingNode):
        return {"!!str": loader.construct_mapping(node, deep=True)}
    return loader.construct_yaml_str(node)


Yaml12Loader.add_multi_constructor("!", construct_tagged)
Yaml12Loader.add_constructor("tag:yaml.org,2002:str", construct_str)


def load_yaml(text):
    return yaml.load(text, Loader=Yaml12Loader)


failures = []
checked = 0


def fail(msg):
    failures.append(msg)
    print("FAIL: " + msg)


def run(args, **kw):
    return subprocess.run(args, capture_output=True, text=True, **kw)


def validator(schemas, fmt, cache={}):
    if fmt not in cache:
        path = os.path.join(schemas, fmt + ".schema.json")
        with open(path) as f:
            schema = json.load(f)
        jsonschema.Draft202012Validator.check_schema(schema)
        cache[fmt] = jsonschema.Draft202012Validator(schema)
    return cache[fmt]


def errors(v, doc):
    return sorted(v.iter_errors(doc), key=lambda e: list(e.absolute_path))


def check_valid(v, doc, what):
    global checked
    errs = errors(v, doc)
    checked += 1
    if errs:
        e = errs[0]
        fail(f"{what}: does not match its schema at /{'/'.join(map(str, e.absolute_path))}: {e.message[:300]}")
    else:
        print(f"ok      {what}")


def int_paths(node, path=()):
    """The paths of the integers (not booleans, and "0x..." hex strings as
    format: hex fields show them) in a document, outside `format`, in order."""
    if isinstance(node, dict):
        for k, val in node.items():
            if k == "format" and not path:
                continue
            yield from int_paths(val, path + (k,))
    elif isinstance(node, list):
        for i, val in enumerate(node):
            yield from int_paths(val, path + (i,))
    elif isinstance(node, int) and not isinstance(node, bool):
        yield path
    elif isinstance(node, str) and re.fullmatch(r"0[xX][0-9a-fA-F]+", node):
        yield path


def range_case(v, doc):
    """An integer just past the range of its field: the first integer of the
    document whose schema takes L - 1 but not L, for L the smallest of
    2**7, 2**8, 2**15, 2**16, ... 2**63, 2**64 that it refuses (2**(8k) for
    an unsigned field of 8k bits, 2**(8k-1) for a signed one); returns
    (path, L) or None."""
    for path in int_paths(doc):
        for bits in (8, 16, 32, 64):
            limit = None
            for lim in (2 ** (bits - 1), 2 ** bits):
                probe = copy.deepcopy(doc)
                set_at(probe, path, lim)
                if errors(v, probe):
                    limit = lim
                    break
            if limit is None:
                continue
            set_at(probe, path, limit - 1)
            if not errors(v, probe):
                return path, limit
            break
    return None


def first_key(node, path=()):
    """The path of the first map key below the root that is not `format`."""
    for k, val in node.items():
        if k != "format" or path:
            return path + (k,)
    return None


def set_at(doc, path, value):
    for p in path[:-1]:
        doc = doc[p]
    doc[path[-1]] = value


def rename_at(doc, path, new):
    for p in path[:-1]:
        doc = doc[p]
    doc[new] = doc.pop(path[-1])


def check_broken(v, cli, doc, fmt, work):
    """A misspelt key and an out-of-range integer: the schema and encode both refuse."""
    global checked
    key = first_key(doc)
    bad_key = copy.deepcopy(doc)
    rename_at(bad_key, key, key[-1] + "_misspelt")
    cases = [(f"key '{key[-1]}' misspelt as '{key[-1]}_misspelt'", bad_key)]
    r = range_case(v, doc)
    if r is None:
        fail(f"{fmt}: no integer in the document whose schema range ends at 2**8, 2**16, 2**32 or 2**64 "
             "(unsigned) or 2**7, 2**15, 2**31 or 2**63 (signed)")
    else:
        n, limit = r
        bad_range = copy.deepcopy(doc)
        set_at(bad_range, n, limit)
        cases.append((f"/{'/'.join(map(str, n))} set to {limit} (its schema takes up to {limit - 1})", bad_range))
    for what, bad in cases:
        checked += 1
        errs = errors(v, bad)
        if not errs:
            fail(f"{fmt}: a document with {what} passes the schema")
            continue
        path = os.path.join(work, f"{fmt}.broken.json")
        with open(path, "w") as f:
            json.dump(bad, f)
        r = run([cli, "encode", path, "-o", os.path.join(work, f"{fmt}.broken.bin")])
        if r.returncode == 0:
            fail(f"{fmt}: the schema refuses a document with {what}, but encode accepts it")
            continue
        print(f"ok      {fmt}: {what}: schema says '{errs[0].message[:90]}'; "
              f"encode says '{r.stderr.strip()[:90]}'")


def first_path(node, test, path=()):
    """The path of the first value below node (map keys and list indices) that test() accepts."""
    if test(path, node):
        return path
    items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
    for k, val in items:
        if not path and k == "format":
            continue
        p = first_path(val, test, path + (k,))
        if p is not None:
            return p
    return None


def get_at(doc, path):
    for p in path:
        doc = doc[p]
    return doc


def check_rare_forms(v, cli, doc, fmt, work):
    """The text forms that only rare values take: a NaN with a payload
    (".nan:0x..." in JSON) and a string that is not UTF-8 ({bytes: HEX}).
    Put into a document, encoded, decoded again: the CLI prints those forms,
    and the schema accepts them."""
    global checked
    f = first_path(doc, lambda p, x: isinstance(x, float))
    n = first_path(doc, lambda p, x: p and p[-1] == "name" and isinstance(x, str))
    if f is None or n is None:
        fail(f"{fmt}: no float or no name in the document for the rare text forms")
        return
    doc = copy.deepcopy(doc)
    set_at(doc, f, ".nan:0x7fa00001")
    set_at(doc, n, {"bytes": "ff41"})
    src = os.path.join(work, f"{fmt}.rare.json")
    with open(src, "w") as out:
        json.dump(doc, out)
    binary = os.path.join(work, f"{fmt}.rare.bin")
    r = run([cli, "encode", src, "-o", binary])
    if r.returncode != 0:
        fail(f"{fmt}: encode refuses a NaN payload and a non-UTF-8 name: {r.stderr.strip()}")
        return
    texts = decode_both(cli, binary, work, f"{fmt}.rare", fmt)
    if texts is None:
        return
    for kind, d in texts.items():
        shown = (get_at(d, f), get_at(d, n))
        checked += 1
        if shown != (".nan:0x7fa00001", {"bytes": "ff41"}):
            fail(f"{fmt}: decoded as {kind}, the rare forms read {shown}")
            continue
        check_valid(v, d, f"{fmt}: a NaN payload and a non-UTF-8 string, decoded as {kind}")


def decode_both(cli, binary, work, name, fmt):
    out = {}
    for kind in ("json", "yaml"):
        path = os.path.join(work, f"{name}.{kind}")
        r = run([cli, "decode", binary, "--as", fmt, "--format", kind, "-o", path])
        if r.returncode != 0:
            fail(f"decode {binary} --format {kind}: {r.stderr.strip()}")
            return None
        with open(path) as f:
            text = f.read()
        out[kind] = json.loads(text) if kind == "json" else load_yaml(text)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", required=True)
    ap.add_argument("--schemas", required=True)
    ap.add_argument("--examples", required=True)
    ap.add_argument("--samples", required=True)
    ap.add_argument("--work", required=True)
    a = ap.parse_args()
    os.makedirs(a.work, exist_ok=True)

    broken_done = set()
    examples = sorted(f for f in os.listdir(a.examples) if f.endswith(".yaml"))
    if not examples:
        fail(f"no examples in {a.examples}")
    for ex in examples:
        src = os.path.join(a.examples, ex)
        with open(src) as f:
            doc = load_yaml(f.read())
        fmt = doc["format"]
        v = validator(a.schemas, fmt)
        check_valid(v, doc, f"examples/{ex}")
        binary = os.path.join(a.work, ex + ".bin")
        r = run([a.cli, "encode", src, "-o", binary])
        if r.returncode != 0:
            fail(f"encode {src}: {r.stderr.strip()}")
            continue
        texts = decode_both(a.cli, binary, a.work, ex, fmt)
        if texts is None:
            continue
        for kind, d in texts.items():
            check_valid(v, d, f"examples/{ex} decoded as {kind}")
        if fmt not in broken_done:
            broken_done.add(fmt)
            check_broken(v, a.cli, texts["json"], fmt, a.work)
            if fmt == "evnt":
                check_rare_forms(v, a.cli, texts["json"], fmt, a.work)

    # The samples in ../shared/samples, by folder: their format and file names.
    # yaz0/: a Yaz0-compressed SARC (the CLI reads through the layer), and the
    # flowchart inside it (PACK:member).
    members = {"Demo344_1.sbeventpack": [("EventFlow/Demo344_1.bfevfl", "bfevfl")]}
    for folder, fmt, exts in (("bfevfl", "bfevfl", (".bfevfl", ".bfevtm")), ("sarc", "sarc", (".sarc",)),
                              ("yaz0", "sarc", (".sbeventpack",))):
        samples = os.path.join(a.samples, folder)
        if not os.path.isdir(samples):
            print(f"NOTE: {samples} is missing: the {fmt} samples were not checked")
            continue
        v = validator(a.schemas, fmt)
        files = sorted(f for f in os.listdir(samples) if f.endswith(exts))
        if not files:
            fail(f"no {'/'.join(exts)} files in {samples}")
        for name in files:
            texts = decode_both(a.cli, os.path.join(samples, name), a.work, name, fmt)
            if texts is None:
                continue
            for kind, d in texts.items():
                check_valid(v, d, f"samples/{folder}/{name} decoded as {kind}")
            for member, mfmt in members.get(name, []):
                texts = decode_both(a.cli, os.path.join(samples, name) + ":" + member, a.work,
                                    name + "." + os.path.basename(member), mfmt)
                for kind, d in (texts or {}).items():
                    check_valid(validator(a.schemas, mfmt), d, f"samples/{folder}/{name}:{member} decoded as {kind}")

    print(f"{checked} checks, {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
