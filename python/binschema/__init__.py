"""binschema: game file formats described as YAML schemas, from Python.

Every format compiled into binschema (``binschema.formats()``) decodes into
plain Python values with the structure of the format's JSON text (``binschema
decode --format json``): dicts, lists, str, int, float, bool and None. Change
them and encode them back: an unchanged value gives the same bytes, because
the value keeps the file's ``layout`` entry when the file needs one.

    import binschema
    flow = binschema.read("Common.bfevfl")
    flow["events"][0]["name"] = "Hello"
    binschema.write("Common.bfevfl", flow)

Files are read and written as the CLI does: Yaz0 and zstd layers by magic and
by name (``x.sbeventpack``, ``x.bfevfl.zs``; zstd dictionaries through
``set_dictionaries`` or ``BINSCHEMA_ZSDIC``), and ``PACK:path`` names one
member of an archive. See docs/python.md.
"""

class Error(Exception):
    """Any binschema error (a file that cannot be read, written, decoded or encoded)."""


class DecodeError(Error, ValueError):
    """Bytes that are not a valid file of the format.

    ``offset``: the byte offset in the file; ``path``: the field path
    (``"events[3].name"``, ``""`` at the top).
    """

    offset: int = 0
    path: str = ""


class TextError(Error, ValueError):
    """A value or a text document that does not fit the format.

    ``line`` and ``column`` (from 1) place it in a text given to
    ``from_text`` (None for a value given to ``encode``); ``path`` is the path
    of the wrong value inside a Python value (``"events[3].name"``).
    """

    line: "int | None" = None
    column: "int | None" = None
    path: str = ""


class EncodeError(Error, ValueError):
    """A value that the format cannot store (a string longer than its field, ...)."""


class SchemaError(Error, ValueError):
    """A schema given to load_schema that binschema refuses (the message names file:line:col and the key)."""


from . import _binschema  # noqa: E402

_binschema._set_errors(Error, DecodeError, TextError, EncodeError, SchemaError)

from ._binschema import (  # noqa: E402,F401
    decode,
    decode_text,
    encode,
    Schema,
    formats,
    from_text,
    load_schema,
    members,
    read,
    read_bytes,
    set_dictionaries,
    to_text,
    write,
    write_bytes,
)


__all__ = [
    "DecodeError", "EncodeError", "Error", "Schema", "SchemaError", "TextError",
    "decode", "decode_text", "encode", "formats", "from_text", "load_schema", "members",
    "read", "read_bytes", "set_dictionaries", "to_text", "write", "write_bytes",
]
