# Type stubs of the binschema package (python/binschema/__init__.py and its
# compiled part _binschema). Values have the structure of the formats' JSON text.
from os import PathLike
from typing import Any, Dict, List, Literal, Optional, Sequence, TypedDict, Union

Value = Union[Dict[str, "Value"], List["Value"], str, int, float, bool, bytes, None]
BytesLike = Union[bytes, bytearray, memoryview]

class FormatInfo(TypedDict):
    name: str
    title: str
    versions: str
    extensions: List[str]
    magic: bytes

class Error(Exception): ...

class DecodeError(Error, ValueError):
    offset: int
    path: str

class TextError(Error, ValueError):
    line: Optional[int]
    column: Optional[int]
    path: str

class EncodeError(Error, ValueError): ...

class SchemaError(Error, ValueError): ...

class Schema:
    """A schema loaded at run time (load_schema): the module's functions for its format."""
    @property
    def name(self) -> str: ...
    def decode(self, data: BytesLike) -> Dict[str, Any]: ...
    def encode(self, value: Dict[str, Any]) -> bytes: ...
    def decode_text(self, data: BytesLike, kind: Literal["yaml", "json"] = "yaml") -> str: ...
    def from_text(self, text: str) -> Dict[str, Any]: ...
    def read(self, path: str) -> Dict[str, Any]: ...
    def write(self, path: str, value: Dict[str, Any]) -> None: ...

def formats() -> List[FormatInfo]:
    """The formats compiled in."""

def decode(data: BytesLike, format: Optional[str] = None) -> Dict[str, Any]:
    """Bytes of a file -> its value (format by magic unless given). Raises DecodeError."""

def decode_text(data: BytesLike, kind: Literal["yaml", "json"] = "yaml", format: Optional[str] = None) -> str:
    """Bytes of a file -> its YAML or JSON text (what `binschema decode` writes), without Python values."""

def encode(value: Dict[str, Any], format: Optional[str] = None) -> bytes:
    """A value (its 'format' key names the format) -> bytes. Raises TextError (.path) or EncodeError."""

def to_text(value: Dict[str, Any], kind: Literal["yaml", "json"] = "yaml") -> str:
    """A value -> YAML or JSON text (what `binschema decode` writes for it)."""

def from_text(text: str, format: Optional[str] = None) -> Dict[str, Any]:
    """YAML or JSON text -> the value decode() gives for its bytes. Raises TextError (.line, .column)."""

def read(path: str, format: Optional[str] = None) -> Dict[str, Any]:
    """A file (Yaz0/zstd taken off; 'PACK:member' for an archive's member) -> its value."""

def write(path: str, value: Dict[str, Any], format: Optional[str] = None) -> None:
    """Encodes and writes a value whole or not at all (compressed as the name asks; 'PACK:member' replaces a member)."""

def read_bytes(path: str) -> bytes:
    """A file's bytes without its compression layer, or an archive member's bytes."""

def write_bytes(path: str, data: BytesLike) -> None:
    """Writes bytes as write() does."""

def members(path: str) -> List[str]:
    """The member names of an archive, in its order."""

def set_dictionaries(zsdic: Sequence[str] = ..., romfs: Optional[str] = None) -> None:
    """zstd dictionaries for read() and write(): files, or a romfs folder."""

def load_schema(path_or_text: str) -> Schema:
    """A schema loaded at run time: a path, or the schema's YAML text (anything with a newline). Raises SchemaError."""
