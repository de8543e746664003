#!/usr/bin/env python3
"""Yaz0 decompression and SARC member extraction for the independent readers' tests.

Standard library only. Every malformation raises ValueError naming the offset.

Command line: containers.py FILE            lists the members of a SARC (after Yaz0)
              containers.py FILE NAME OUT   writes one member to OUT
"""

import struct
import sys


def yaz0_decompress(data):
    """Yaz0: 16-byte header ('Yaz0', u32 BE size, u32 alignment hint, u32 zero), then groups of
    one code byte (most significant bit first: 1 = a literal byte, 0 = a back-reference
    'NR RR', distance 0xRRR + 1, length N + 2, or when N is 0 'NR RR MM', length MM + 0x12)."""
    if len(data) < 16 or data[:4] != b"Yaz0":
        raise ValueError("offset 0x0: not a Yaz0 stream")
    size = struct.unpack_from(">I", data, 4)[0]
    out = bytearray()
    src = 16
    while len(out) < size:
        if src >= len(data):
            raise ValueError("offset 0x%x: the stream ends with %d of %d bytes produced" % (src, len(out), size))
        code = data[src]
        src += 1
        for bit in range(7, -1, -1):
            if len(out) >= size:
                break
            if code >> bit & 1:
                if src >= len(data):
                    raise ValueError("offset 0x%x: a literal past the end of the stream" % src)
                out.append(data[src])
                src += 1
                continue
            if src + 2 > len(data):
                raise ValueError("offset 0x%x: a back-reference past the end of the stream" % src)
            b1, b2 = data[src], data[src + 1]
            distance = ((b1 & 0x0F) << 8 | b2) + 1
            if b1 >> 4:
                length = (b1 >> 4) + 2
                src += 2
            else:
                if src + 3 > len(data):
                    raise ValueError("offset 0x%x: a back-reference past the end of the stream" % src)
                length = data[src + 2] + 0x12
                src += 3
            if distance > len(out):
                raise ValueError("offset 0x%x: back-reference distance %d before the start of the output"
                                 % (src, distance))
            if len(out) + length > size:
                raise ValueError("offset 0x%x: back-reference runs past the stated size %d" % (src, size))
            start = len(out) - distance
            for i in range(length):  # may overlap its own output
                out.append(out[start + i])
    return bytes(out)


def sarc_members(data):
    """A SARC's members as a list of (name, bytes), in node order.

    Header 0x14 ('SARC', u16 0x14, u16 BOM at 6, u32 size, u32 data offset, u16 version,
    u16 reserved); SFAT 0xC ('SFAT', u16 0xC, u16 node count, u32 multiplier) and 0x10 per
    node (u32 name hash, u32 attributes: 0x01000000 | name offset / 4, u32 begin, u32 end,
    relative to the data offset); SFNT 8 ('SFNT', u16 8, u16 0) then the names."""
    if len(data) < 0x20 or data[:4] != b"SARC":
        raise ValueError("offset 0x0: not a SARC archive")
    bom = data[6:8]
    if bom == b"\xfe\xff":
        e = ">"
    elif bom == b"\xff\xfe":
        e = "<"
    else:
        raise ValueError("offset 0x6: byte order mark %s" % bom.hex())
    header_size, _, file_size, data_offset = struct.unpack_from(e + "HHII", data, 4)
    if header_size != 0x14 or file_size != len(data) or data_offset > len(data):
        raise ValueError("offset 0x4: header size 0x%x, file size %d (file has %d), data offset 0x%x"
                         % (header_size, file_size, len(data), data_offset))
    sfat = 0x14
    if data[sfat:sfat + 4] != b"SFAT":
        raise ValueError("offset 0x%x: no SFAT" % sfat)
    count = struct.unpack_from(e + "H", data, sfat + 6)[0]
    nodes = sfat + 0xC
    sfnt = nodes + 0x10 * count
    if sfnt + 8 > len(data) or data[sfnt:sfnt + 4] != b"SFNT":
        raise ValueError("offset 0x%x: no SFNT after %d nodes" % (sfnt, count))
    names = sfnt + 8
    members = []
    for i in range(count):
        at = nodes + 0x10 * i
        _, attributes, begin, end = struct.unpack_from(e + "IIII", data, at)
        if attributes >> 24:
            name_at = names + 4 * (attributes & 0xFFFF)
            nul = data.find(b"\0", name_at, data_offset)
            if name_at >= data_offset or nul < 0:
                raise ValueError("offset 0x%x: name of node %d at 0x%x outside the name table" % (at, i, name_at))
            name = data[name_at:nul].decode("utf-8")
        else:
            name = "0x%08x" % struct.unpack_from(e + "I", data, at)[0]
        if not begin <= end or data_offset + end > len(data):
            raise ValueError("offset 0x%x: node %d spans [0x%x, 0x%x) past the end" % (at, i, begin, end))
        members.append((name, data[data_offset + begin:data_offset + end]))
    return members


def load(path, member=None):
    """A file's bytes, Yaz0-decompressed when it is Yaz0, and the SARC member `member` if given
    (itself decompressed when it is Yaz0)."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:4] == b"Yaz0":
        data = yaz0_decompress(data)
    if member is not None:
        found = [d for n, d in sarc_members(data) if n == member]
        if not found:
            raise ValueError("%s: no member %r" % (path, member))
        data = found[0]
        if data[:4] == b"Yaz0":
            data = yaz0_decompress(data)
    return data


def main(argv):
    if len(argv) not in (1, 3):
        print(__doc__, file=sys.stderr)
        return 2
    data = load(argv[0])
    if len(argv) == 1:
        for name, d in sarc_members(data):
            print("%8d  %s" % (len(d), name))
        return 0
    with open(argv[2], "wb") as f:
        f.write(load(argv[0], argv[1]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))


def reader_main(argv, description, read, to_json, summary, layout):
    """The command line the readers share: FILE [--member PATH] [--summary | --layout]."""
    import argparse
    import json
    p = argparse.ArgumentParser(description=description)
    p.add_argument("file")
    p.add_argument("--member", help="the file inside a SARC archive")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--summary", action="store_true", help="counts instead of the document")
    g.add_argument("--layout", action="store_true", help="facts about the writer's layout")
    args = p.parse_args(argv)
    data = load(args.file, args.member)
    try:
        if args.summary:
            print(json.dumps(summary(data), sort_keys=True))
        elif args.layout:
            print(json.dumps(layout(data), indent=1))
        else:
            print(to_json(read(data)))
    except ValueError as err:
        print("%s: %s" % (args.file, err), file=sys.stderr)
        return 1
    return 0
