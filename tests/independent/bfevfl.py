#!/usr/bin/env python3
"""An independent BFEVFL / BFEVTM reader: who each event, clip and oneshot refers to.

Standard library only, written from the format's layout (little-endian, version 0x0300,
64-bit absolute offsets, names as pointers to u16-length-prefixed strings), not from
binschema's schema or code. It reads only what references need: the actors (name, sub
name, action and query names) and, for each event, clip and oneshot, the actor and the
action or query it names, resolved through the indices the file stores.

Every malformation raises ValueError naming the offset.

Command line: bfevfl.py FILE    prints the file's references as JSON:
  {"flowcharts": [{"name", "actors": [[name, sub_name], ...],
                   "events": [{"name", "kind", "actor": [name, sub_name], "action" | "query"}]}],
   "timelines": [{"name", "actors", "clips": [{"actor", "action"}], "oneshots": [...]}]}
"""

import json
import struct
import sys


class File:
    def __init__(self, data):
        self.d = data

    def u8(self, o):
        return self.at("<B", o)

    def u16(self, o):
        return self.at("<H", o)

    def u64(self, o):
        return self.at("<Q", o)

    def at(self, fmt, o):
        n = struct.calcsize(fmt)
        if o < 0 or o + n > len(self.d):
            raise ValueError("offset 0x%x: %d bytes past the end of the file (0x%x)" % (o, n, len(self.d)))
        return struct.unpack_from(fmt, self.d, o)[0]

    def string(self, ptr_at):
        """The string a u64 at ptr_at points to: a u16 length, then the bytes."""
        p = self.u64(ptr_at)
        n = self.u16(p)
        if p + 2 + n > len(self.d):
            raise ValueError("offset 0x%x: a string of %d bytes past the end of the file" % (p, n))
        return self.d[p + 2:p + 2 + n].decode("utf-8")

    def strings(self, ptr_at, count):
        p = self.u64(ptr_at)
        return [self.string(p + 8 * i) for i in range(count)] if count else []


def actors(f, at, count):
    out = []
    for i in range(count):
        a = at + 0x38 * i
        out.append({"name": f.string(a), "sub_name": f.string(a + 8),
                    "actions": f.strings(a + 0x18, f.u16(a + 0x30)),
                    "queries": f.strings(a + 0x20, f.u16(a + 0x32))})
    return out


def who(f, acts, index, at, what, sub_index):
    """The actor at `index` and its action or query `sub_index`, by name."""
    if index >= len(acts):
        raise ValueError("offset 0x%x: actor index %d of %d actors" % (at, index, len(acts)))
    a = acts[index]
    names = a["queries" if what == "query" else "actions"]
    if sub_index >= len(names):
        raise ValueError("offset 0x%x: %s index %d of %d" % (at, what, sub_index, len(names)))
    return {"actor": [a["name"], a["sub_name"]], what: names[sub_index]}


def flowchart(f, h):
    if f.d[h:h + 4] != b"EVFL":
        raise ValueError("offset 0x%x: no EVFL header" % h)
    acts = actors(f, f.u64(h + 0x28), f.u16(h + 0x10))
    events = []
    ev = f.u64(h + 0x30)
    for i in range(f.u16(h + 0x16)):
        e = ev + 0x28 * i
        kind = f.u8(e + 8)
        x = {"name": f.string(e), "kind": kind}
        if kind == 0:  # action: next, actor, action
            x.update(who(f, acts, f.u16(e + 0xC), e, "action", f.u16(e + 0xE)))
        elif kind == 1:  # switch: case count, actor, query
            x.update(who(f, acts, f.u16(e + 0xC), e, "query", f.u16(e + 0xE)))
        events.append(x)
    return {"name": f.string(h + 0x20), "actors": [[a["name"], a["sub_name"]] for a in acts], "events": events}


def timeline(f, h):
    if f.d[h:h + 4] != b"TLIN":
        raise ValueError("offset 0x%x: no TLIN header" % h)
    acts = actors(f, f.u64(h + 0x28), f.u16(h + 0x14))
    clips = []
    c0 = f.u64(h + 0x30)
    for i in range(f.u16(h + 0x18)):
        c = c0 + 0x18 * i
        clips.append(who(f, acts, f.u16(c + 8), c, "action", f.u16(c + 0xA)))
    oneshots = []
    o0 = f.u64(h + 0x38)
    for i in range(f.u16(h + 0x1A)):
        o = o0 + 0x18 * i
        oneshots.append(who(f, acts, f.u16(o + 4), o, "action", f.u16(o + 6)))
    return {"name": f.string(h + 0x20), "actors": [[a["name"], a["sub_name"]] for a in acts],
            "clips": clips, "oneshots": oneshots}


def read(data):
    f = File(data)
    if data[:8] != b"BFEVFL\0\0":
        raise ValueError("offset 0x0: not a BFEVFL file")
    if f.u16(8) != 0x0300:
        raise ValueError("offset 0x8: version 0x%x, not 0x0300" % f.u16(8))
    fc = [flowchart(f, f.u64(f.u64(0x28) + 8 * i)) for i in range(f.u16(0x20))]
    tl = [timeline(f, f.u64(f.u64(0x38) + 8 * i)) for i in range(f.u16(0x22))]
    return {"flowcharts": fc, "timelines": tl}


def main(argv):
    if len(argv) != 2:
        sys.stderr.write(__doc__)
        return 2
    with open(argv[1], "rb") as fh:
        data = fh.read()
    try:
        doc = read(data)
    except (ValueError, UnicodeDecodeError) as e:
        sys.stderr.write("%s: %s\n" % (argv[1], e))
        return 1
    json.dump(doc, sys.stdout, indent=1, ensure_ascii=False)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
