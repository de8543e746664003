// binschema._binschema: the compiled half of the Python package `binschema`
// (python/binschema/__init__.py re-exports it; docs/python.md).
//
// A Python value has the structure of the format's JSON text (dict, list,
// str, int, float, bool, None; integers the text shows in hex are ints).
// Decoding runs the generated decoder and text writer through the Format
// table with TextKind::Events: PySink builds the Python objects from the
// writer's events, no text is printed. Encoding builds the text document
// (text::Doc, the tape text::In reads) straight from the Python objects,
// without printing or parsing any text, and hands it to the format's encode.
// Each node of that document stands on a "line" of its own, so that a
// TextError's line names the node, and so the Python path, of a wrong value.
//
// Everything goes through a Codec (decode, encode a Doc): the compiled-in
// formats fill it from their Format table; a schema loaded at run time
// (issue #27, binschema::dynamic) is meant to fill it the same way (its
// decode giving JSON text, turned into objects by the json module, unless it
// takes TextKind::Events too).
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <yaml-cpp/exceptions.h>

#include <charconv>
#include <cstring>
#include <functional>
#include <memory>
#include <span>
#include <unordered_map>
#include <cstdlib>
#include <string>
#include <vector>

#include "archive.h"
#include "binschema/dynamic.h"
#include "binschema/error.h"
#include "binschema/schema.h"
#include "binschema/format.h"
#include "binschema/text.h"
#include "binschema/text_doc.h"
#include "io.h"
#include "layers.h"

namespace py = pybind11;
using namespace binschema;

namespace {

// ---- Exceptions ---------------------------------------------------------------

// The classes of binschema/__init__.py (Error, DecodeError, TextError,
// EncodeError), handed over by _set_errors() when the package is imported.
struct Errors {
  py::object error, decode, text, encode, schema;
};
Errors& errors() {
  static Errors* e = new Errors();  // never destroyed: outlives the interpreter's teardown
  return *e;
}

// Raises cls(message) with the given attributes set.
[[noreturn]] void raise(const py::object& cls_in, const std::string& message,
                        std::initializer_list<std::pair<const char*, py::object>> attrs = {}) {
  py::object cls = cls_in ? cls_in : py::reinterpret_borrow<py::object>(PyExc_RuntimeError);
  py::object e = cls(message);
  for (const auto& [k, v] : attrs) e.attr(k) = v;
  PyErr_SetObject(cls.ptr(), e.ptr());
  throw py::error_already_set();
}

py::object opt_int(long long v, bool known) { return known ? py::object(py::int_(v)) : py::object(py::none()); }

// "L:C: rest" -> L, C, rest (L = 0 when the message has no such prefix).
struct Where {
  uint32_t line = 0, col = 0;
  std::string rest;
};
Where split_where(const std::string& what) {
  Where w;
  w.rest = what;
  const char* p = what.data();
  const char* end = p + what.size();
  uint32_t l = 0, c = 0;
  auto r1 = std::from_chars(p, end, l);
  if (r1.ec != std::errc() || r1.ptr == end || *r1.ptr != ':') return w;
  auto r2 = std::from_chars(r1.ptr + 1, end, c);
  if (r2.ec != std::errc() || r2.ptr + 1 >= end || r2.ptr[0] != ':' || r2.ptr[1] != ' ') return w;
  w.line = l;
  w.col = c;
  w.rest = std::string(r2.ptr + 2, end);
  return w;
}

[[noreturn]] void raise_decode(const DecodeError& e) {
  raise(errors().decode, e.what(), {{"offset", py::int_(e.offset())}, {"path", py::str(e.path())}});
}

// An error in a text document: line and column from 1.
[[noreturn]] void raise_text(const std::string& message, uint32_t line, uint32_t col, const std::string& path) {
  raise(errors().text, message,
        {{"line", opt_int(line, line != 0)}, {"column", opt_int(col, line != 0)}, {"path", py::str(path)}});
}

// Runs f, turning the C++ exceptions of the runtime and the file layer into
// the package's. TextErrors are left to the caller (they need the document).
template <class F>
auto translate(F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const DecodeError& e) {
    raise_decode(e);
  } catch (const EncodeError& e) {
    raise(errors().encode, e.what());
  } catch (const cli::Failure& e) {
    raise(errors().error, e.line);
  } catch (const std::bad_alloc&) {
    raise(errors().error, "out of memory");
  }
}

// ---- Codecs -----------------------------------------------------------------

// What the module needs of a format: bytes -> JSON or YAML text (or the
// document's events, TextKind::Events, when `events` says it takes that),
// and a parsed text document -> bytes.
struct Codec {
  std::string name;
  std::function<std::string(std::span<const uint8_t>, TextKind)> decode;
  std::function<std::vector<uint8_t>(const text::Doc&)> encode;
  bool events = false;
};

Codec codec_of(const Format& f) {
  return Codec{f.name, [&f](std::span<const uint8_t> b, TextKind k) { return f.decode(b, k); },
               [&f](const text::Doc& d) { return f.encode(d); }, true};
}

// A schema loaded at run time (binschema::dynamic): decode with its layout,
// the document's events or text; text document -> value -> bytes.
Codec codec_of(std::shared_ptr<const dynamic::Schema> s) {
  return Codec{s->name(),
               [s](std::span<const uint8_t> b, TextKind k) {
                 Layout layout;
                 const dynamic::Value v = s->decode(b, layout);
                 return s->to_text(v, k, &layout);
               },
               [s](const text::Doc& d) {
                 Layout layout;
                 const dynamic::Value v = s->from_text(d, layout);
                 return s->encode(v, layout);
               },
               true};
}

std::string known_formats() {
  std::string names;
  for (const Format* f : all_formats()) {
    if (!names.empty()) names += ", ";
    names += f->name;
  }
  return names;
}

const Format& format_named(const std::string& name) {
  const Format* f = find_format(name);
  if (!f) throw py::value_error("unknown format '" + name + "' (known: " + known_formats() + ")");
  return *f;
}

// ---- Python -> text document -----------------------------------------------------

// Fills a text::Doc from a Python value. Node i stands at position
// (characters before it + i), and a line starts at each node: Mark.line - 1
// is the node's index.
// A document to build and what the builder keeps beside it, lent from a
// few kept from call to call (with the GIL held): their vectors keep their
// capacity, so that building the next value's document neither grows them
// again nor takes fresh memory from the system (glibc gives the top of the
// heap back after a call: its pages would fault in again).
struct DocSpace {
  text::Doc doc;
  std::vector<std::pair<uint32_t, uint32_t>> parents;  // per node: parent, index in a list or key node in a map
};
class DocLease {
 public:
  DocLease() {
    auto& p = pool();
    if (p.empty()) {
      space_ = std::make_unique<DocSpace>();
    } else {
      space_ = std::move(p.back());
      p.pop_back();
    }
  }
  DocLease(const DocLease&) = delete;
  DocLease& operator=(const DocLease&) = delete;
  ~DocLease() {
    // Kept when small enough (a 16 MiB file's document is not held on to).
    constexpr size_t kKeep = 4u << 20;
    auto& p = pool();
    if (p.size() >= 2 || space_->doc.memory() + space_->parents.capacity() * 8 > kKeep) return;
    space_->doc.raw_nodes().clear();
    space_->doc.chars().clear();
    space_->doc.line_starts().clear();
    space_->parents.clear();
    p.push_back(std::move(space_));
  }
  text::Doc& doc() { return space_->doc; }
  DocSpace& space() { return *space_; }

 private:
  static std::vector<std::unique_ptr<DocSpace>>& pool() {
    static auto* p = new std::vector<std::unique_ptr<DocSpace>>();  // never destroyed, like the key table
    return *p;
  }
  std::unique_ptr<DocSpace> space_;
};

class DocBuilder {
 public:
  explicit DocBuilder(DocSpace& s)
      : nodes_(s.doc.raw_nodes()), chars_(s.doc.chars()), lines_(s.doc.line_starts()), parents_(s.parents) {}

  void build(py::handle v) { add(v, kNoParent, 0, 0); }

  // The node's place as a path: "nodes[3].name" ("" for the root).
  std::string path_of(uint32_t node) const {
    std::vector<uint32_t> chain;
    for (uint32_t i = node; i < parents_.size() && parents_[i].first != kNoParent; i = parents_[i].first)
      chain.push_back(i);
    std::string out;
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
      const auto [parent, slot] = parents_[*it];
      if (nodes_[parent].kind() == text::NodeKind::Seq) {
        out += "[" + std::to_string(slot) + "]";
      } else {
        if (!out.empty()) out += '.';
        const auto& k = nodes_[slot];
        out.append(chars_, k.a, k.b());
      }
    }
    return out;
  }
  size_t size() const { return nodes_.size(); }

 private:
  static constexpr uint32_t kNoParent = UINT32_MAX;

  [[noreturn]] void fail(uint32_t parent, uint32_t slot, const std::string& what) {
    // The node that failed was never pushed: give the path through a placeholder.
    nodes_.push_back(text::Doc::Raw{0, 0, 0, text::NodeKind::Null});
    parents_.emplace_back(parent, slot);
    const std::string p = path_of(static_cast<uint32_t>(nodes_.size() - 1));
    raise_text((p.empty() ? "" : p + ": ") + what, 0, 0, p);
  }

  uint32_t push(text::NodeKind kind, uint32_t a, uint32_t b, uint32_t parent, uint32_t slot) {
    const uint64_t pos = chars_.size() + nodes_.size();
    if (pos >= UINT32_MAX || nodes_.size() >= text::Doc::kMaxB)
      fail(parent, slot, "the value is too large for one document (over 4 GiB of text)");
    lines_.push_back(static_cast<uint32_t>(pos));
    nodes_.push_back(text::Doc::Raw{static_cast<uint32_t>(pos), a, b, kind});
    parents_.emplace_back(parent, slot);
    return static_cast<uint32_t>(nodes_.size() - 1);
  }

  void scalar(std::string_view s, uint32_t parent, uint32_t slot) {
    if (s.size() > text::Doc::kMaxB) fail(parent, slot, "a string over 512 MiB");
    const uint32_t start = static_cast<uint32_t>(chars_.size());
    const uint32_t i = push(text::NodeKind::Scalar, start, static_cast<uint32_t>(s.size()), parent, slot);
    (void)i;
    chars_.append(s);
  }

  void add(py::handle v, uint32_t parent, uint32_t slot, int depth) {
    PyObject* o = v.ptr();
    if (depth > text::kTextMaxDepth)
      fail(parent, slot, "nested deeper than " + std::to_string(text::kTextMaxDepth) + " levels");
    if (PyUnicode_Check(o)) {  // first: every key, and most values
      Py_ssize_t n = 0;
      const char* s = PyUnicode_AsUTF8AndSize(o, &n);
      if (!s) {
        PyErr_Clear();
        fail(parent, slot, "a string that is not valid Unicode (lone surrogates)");
      }
      scalar(std::string_view(s, static_cast<size_t>(n)), parent, slot);
    } else if (o == Py_None) {
      push(text::NodeKind::Null, 0, 0, parent, slot);
    } else if (PyBool_Check(o)) {
      scalar(o == Py_True ? "true" : "false", parent, slot);
    } else if (PyLong_Check(o)) {
      int overflow = 0;
      long long n = PyLong_AsLongLongAndOverflow(o, &overflow);
      if (!overflow) {
        char buf[24];
        auto r = std::to_chars(buf, buf + sizeof buf, n);
        scalar(std::string_view(buf, r.ptr - buf), parent, slot);
      } else {
        scalar(py::str(v).cast<std::string>(), parent, slot);
      }
    } else if (PyFloat_Check(o)) {
      scalar(text::format_float(PyFloat_AS_DOUBLE(o)), parent, slot);
    } else if (PyBytes_Check(o) || PyByteArray_Check(o) || PyMemoryView_Check(o)) {
      // Bytes stand for the hex text the format's byte fields are written as.
      py::buffer_info b = py::reinterpret_borrow<py::buffer>(v).request();
      scalar(text::to_hex(std::string_view(static_cast<const char*>(b.ptr), static_cast<size_t>(b.size * b.itemsize))),
             parent, slot);
    } else if (PyDict_Check(o)) {
      const uint32_t at = push(text::NodeKind::Map, 0, 0, parent, slot);
      PyObject *k, *val;
      Py_ssize_t pos = 0;
      uint32_t count = 0;
      while (PyDict_Next(o, &pos, &k, &val)) {
        if (!PyUnicode_Check(k))
          fail(at, 0, "a key that is not a string (" + std::string(Py_TYPE(k)->tp_name) + ")");
        const uint32_t key = static_cast<uint32_t>(nodes_.size());
        add(k, at, key, depth + 1);
        add(val, at, key, depth + 1);
        ++count;
      }
      nodes_[at].a = count;
      nodes_[at].set_b(static_cast<uint32_t>(nodes_.size()));
    } else if (PyList_Check(o) || PyTuple_Check(o)) {
      const uint32_t at = push(text::NodeKind::Seq, 0, 0, parent, slot);
      // Each item held while it is added (str() of an int subclass runs Python code,
      // which may change the list: its size is read each time).
      const bool list = PyList_Check(o);
      size_t n = 0;
      for (; n < static_cast<size_t>(list ? PyList_GET_SIZE(o) : PyTuple_GET_SIZE(o)); ++n) {
        const py::object item =
            py::reinterpret_borrow<py::object>(list ? PyList_GET_ITEM(o, n) : PyTuple_GET_ITEM(o, n));
        add(item, at, static_cast<uint32_t>(n), depth + 1);
      }
      nodes_[at].a = static_cast<uint32_t>(n);
      nodes_[at].set_b(static_cast<uint32_t>(nodes_.size()));
    } else {
      fail(parent, slot,
           std::string("expected a dict, list, str, int, float, bool, bytes or None, not ") + Py_TYPE(o)->tp_name);
    }
  }

  std::vector<text::Doc::Raw>& nodes_;
  std::string& chars_;
  std::vector<uint32_t>& lines_;
  std::vector<std::pair<uint32_t, uint32_t>>& parents_;  // per node: parent, index in a list or key node in a map
};

// The codec a document names: `format:` (or the one given).
const Format& format_of_doc(const text::Doc& doc, const std::string& as, const DocBuilder* built) {
  if (!as.empty()) return format_named(as);
  const text::Node root = doc.root();
  auto at = [&](const text::Node& n) {
    const text::Mark m = n.mark();
    return built ? std::pair<uint32_t, uint32_t>{0, 0} : std::pair<uint32_t, uint32_t>{m.line, m.col};
  };
  if (!root.is_map()) {
    auto [l, c] = at(root);
    raise_text("expected a map with a 'format' key at the top", l, c, "");
  }
  const text::Node key = root.get("format");
  if (!key) {
    auto [l, c] = at(root);
    raise_text("missing 'format' key (or pass format=NAME; known: " + known_formats() + ")", l, c, "");
  }
  const Format* f = key.is_scalar() ? find_format(key.scalar()) : nullptr;
  if (!f) {
    auto [l, c] = at(key);
    raise_text("format: unknown format '" + std::string(key.scalar()) + "' (known: " + known_formats() + ")", l, c,
               "format");
  }
  return *f;
}

// Encodes a document, turning a TextError into the package's: for a document
// built from a Python value, its line is the node, named by its Python path.
std::vector<uint8_t> encode_doc(const Codec& c, const text::Doc& doc, const DocBuilder* built) {
  try {
    return translate([&] {
      py::gil_scoped_release unlocked;
      return c.encode(doc);
    });
  } catch (const TextError& e) {
    Where w = split_where(e.what());
    if (built) {
      if (w.line == 0 || w.line > built->size()) raise_text(w.rest, 0, 0, "");
      const std::string p = built->path_of(w.line - 1);
      std::string msg = w.rest;
      if (!p.empty() && msg.rfind(p, 0) != 0) msg = p + ": " + msg;
      raise_text(msg, 0, 0, p);
    }
    // The model path follows "L:C: " up to the next ": " when there is one.
    raise_text(e.what(), w.line, w.col, "");
  }
}

// ---- JSON text -> Python -----------------------------------------------------------

py::object json_loads(const std::string& text) {
  static py::object* loads = new py::object(py::module_::import("json").attr("loads"));
  return (*loads)(py::str(text));
}

// ---- Model -> Python, directly ---------------------------------------------------

// Builds the Python value from the document's events (TextKind::Events): the
// value json.loads would give for the JSON text, but integers shown in hex are
// ints (their hex is the text's spelling only). Runs with the GIL held.
class PySink final : public text::EventSink {
 public:
  PySink() = default;
  PySink(const PySink&) = delete;
  PySink& operator=(const PySink&) = delete;
  ~PySink() {
    Py_XDECREF(root_);
    Py_XDECREF(own_key_);
  }
  py::object take() {
    PyObject* r = root_;
    root_ = nullptr;
    return py::reinterpret_steal<py::object>(r);
  }

  void begin_map(bool) override { open(PyDict_New(), true); }
  void end_map() override { stack_.pop_back(); }
  // Field names are the generated code's literals: one interned str each,
  // made once and kept from call to call (key_str).
  void key(const char* k) override { key_ = key_str(k); }
  // A map entry's key (an event's name, a parameter's): a str of its own,
  // not through key()'s cache of the generated code's literals (the text
  // lives in a temporary, whose address says nothing).
  void key_text(const std::string& k, bool) override {
    PyObject* o = check(PyUnicode_DecodeUTF8(k.data(), static_cast<Py_ssize_t>(k.size()), "surrogateescape"));
    Py_XDECREF(own_key_);
    own_key_ = o;
    key_ = o;
  }
  void begin_seq(bool) override { open(PyList_New(0), false); }
  void end_seq() override { stack_.pop_back(); }
  void null() override { add(ref(Py_None)); }
  void boolean(bool b) override { add(ref(b ? Py_True : Py_False)); }
  void number(const std::string& s, bool is_text) override {
    const bool hex = s.size() > 2 && (s[0] == '0' || (s[0] == '-' && s[1] == '0')) && s.find('x') != std::string::npos;
    if (is_text && !hex) return string(s);  // .inf, .nan, .nan:0x... as the JSON has them
    if (hex || s.find_first_of(".eE") == std::string::npos) return add(check(PyLong_FromString(s.c_str(), nullptr, hex ? 0 : 10)));
    add(check(PyFloat_FromDouble(std::strtod(s.c_str(), nullptr))));
  }
  void string(const std::string& s) override {
    add(check(PyUnicode_DecodeUTF8(s.data(), static_cast<Py_ssize_t>(s.size()), "surrogateescape")));
  }
  // A model's integer straight to an int (hex or not: the same int), without its text.
  void integer(uint64_t mag, bool neg, bool, unsigned) override {
    if (!neg) return add(check(PyLong_FromUnsignedLongLong(mag)));
    if (mag <= uint64_t(INT64_MAX)) return add(check(PyLong_FromLongLong(-static_cast<long long>(mag))));
    add(check(PyLong_FromLongLong(INT64_MIN)));  // the magnitude of INT64_MIN
  }

 private:
  static PyObject* check(PyObject* o) {
    if (!o) throw py::error_already_set();
    return o;
  }
  static PyObject* ref(PyObject* o) {
    Py_INCREF(o);
    return o;
  }
  // Takes the reference o: the parent (or root_) holds it.
  void add(PyObject* o) {
    if (stack_.empty()) {
      Py_XDECREF(root_);
      root_ = o;
      return;
    }
    const auto [parent, map] = stack_.back();
    const int r = map ? PyDict_SetItem(parent, key_, o) : PyList_Append(parent, o);
    Py_DECREF(o);
    if (r != 0) throw py::error_already_set();
  }
  void open(PyObject* o, bool map) {
    check(o);
    add(o);  // borrowed from here on: its parent holds it
    stack_.emplace_back(o, map);
  }

  // The interned str of a field name, from a table by the name's address
  // (generated code's literals: the same address each call). The text is
  // compared too: a run-time schema's names may be freed and their memory
  // reused. A slot another name takes is simply made again when needed.
  // Used with the GIL held only; never freed (outlives the interpreter's teardown).
  static PyObject* key_str(const char* k) {
    struct Slot {
      const char* at = nullptr;
      std::string text;
      PyObject* str = nullptr;
    };
    static constexpr size_t kSlots = 1024;
    static Slot* slots = new Slot[kSlots];
    Slot& s = slots[(reinterpret_cast<uintptr_t>(k) >> 3) * 0x9E3779B97F4A7C15ull >> 54 & (kSlots - 1)];
    if (s.at == k && std::strcmp(s.text.c_str(), k) == 0) return s.str;
    PyObject* o = check(PyUnicode_InternFromString(k));
    Py_XDECREF(s.str);
    s.str = o;
    s.at = k;
    s.text = k;
    return o;
  }
  PyObject* key_ = nullptr;      // borrowed: from key_str's table or own_key_
  PyObject* own_key_ = nullptr;  // the last key_text's str
  PyObject* root_ = nullptr;
  std::vector<std::pair<PyObject*, bool>> stack_;  // borrowed; true: a dict
};

// Python's cyclic garbage collector paused while a value is built: every
// dict and list made would count towards its next collection, and the
// collections would walk the growing value again and again (16 MiB of BAEV:
// 2.4 s to decode with it running, 0.9 s paused). The value holds no cycles.
class GcPause {
 public:
#if PY_VERSION_HEX >= 0x030A0000
  GcPause() : was_(PyGC_Disable()) {}
  ~GcPause() {
    if (was_) PyGC_Enable();
  }

 private:
  int was_;
#else
  GcPause() : gc_(py::module_::import("gc")), was_(gc_.attr("isenabled")().cast<bool>()) { gc_.attr("disable")(); }
  ~GcPause() {
    if (was_) gc_.attr("enable")();
  }

 private:
  py::module_ gc_;
  bool was_;
#endif
};

py::object decode_with(const Codec& c, std::span<const uint8_t> bytes) {
  if (c.events) {
    GcPause paused;
    PySink sink;
    text::EventSink* before = text::event_sink();
    text::event_sink() = &sink;
    try {
      translate([&] { return c.decode(bytes, TextKind::Events); });
    } catch (...) {
      text::event_sink() = before;
      throw;
    }
    text::event_sink() = before;
    return sink.take();
  }
  std::string json = translate([&] {
    py::gil_scoped_release unlocked;
    return c.decode(bytes, TextKind::Json);
  });
  GcPause paused;
  return json_loads(json);
}

// A read-only view of a bytes-like object.
struct Buf {
  py::buffer_info info;
  std::span<const uint8_t> span() const {
    return {static_cast<const uint8_t*>(info.ptr), static_cast<size_t>(info.size * info.itemsize)};
  }
};
Buf bytes_of(const py::buffer& b) {
  Buf out{b.request()};
  if (out.info.ndim > 1) {
    for (py::ssize_t i = out.info.ndim - 1, want = out.info.itemsize; i >= 0; --i) {
      if (out.info.strides[i] != want) throw py::value_error("data: a contiguous buffer is needed");
      want *= out.info.shape[i];
    }
  } else if (out.info.ndim == 1 && out.info.strides[0] != out.info.itemsize) {
    throw py::value_error("data: a contiguous buffer is needed");
  }
  return out;
}

const Format& detect(std::span<const uint8_t> bytes, const std::string& name_hint) {
  const Format* f = detect_format(bytes, name_hint);
  if (!f)
    raise(errors().decode,
          "cannot tell the format (no known magic" + std::string(name_hint.empty() ? "" : " or file extension") +
              "); pass format=NAME (known: " + known_formats() + ")",
          {{"offset", py::int_(0)}, {"path", py::str("")}});
  return *f;
}

py::object decode(const py::buffer& data, const std::optional<std::string>& format) {
  Buf b = bytes_of(data);
  const Format& f = format ? format_named(*format) : detect(b.span(), "");
  return decode_with(codec_of(f), b.span());
}

py::bytes to_pybytes(const std::vector<uint8_t>& v) {
  return py::bytes(reinterpret_cast<const char*>(v.data()), v.size());
}

std::vector<uint8_t> encode_vec(py::handle value, const std::optional<std::string>& format) {
  DocLease lease;
  const text::Doc& doc = lease.doc();
  DocBuilder b(lease.space());
  b.build(value);
  const Format& f = format_of_doc(doc, format.value_or(""), &b);
  return encode_doc(codec_of(f), doc, &b);
}

py::bytes encode(py::handle value, const std::optional<std::string>& format) {
  return to_pybytes(encode_vec(value, format));
}

// ---- Text ------------------------------------------------------------------------

// A Python value written as YAML or JSON the way the formats write theirs:
// lists of numbers on one line, everything else in block style.
template <class Sink>
void emit(Sink& s, py::handle v, int depth) {
  PyObject* o = v.ptr();
  if (depth > text::kTextMaxDepth)
    throw py::value_error("nested deeper than " + std::to_string(text::kTextMaxDepth) + " levels");
  if (o == Py_None) {
    s.null();
  } else if (PyBool_Check(o)) {
    s.boolean(o == Py_True);
  } else if (PyLong_Check(o)) {
    s.number(py::str(v).cast<std::string>(), false);
  } else if (PyFloat_Check(o)) {
    const double d = PyFloat_AS_DOUBLE(o);
    s.number(text::format_float(d), text::float_is_text(d));
  } else if (PyUnicode_Check(o)) {
    s.string(v.cast<std::string>());
  } else if (PyBytes_Check(o) || PyByteArray_Check(o) || PyMemoryView_Check(o)) {
    py::buffer_info b = py::reinterpret_borrow<py::buffer>(v).request();
    s.string(text::to_hex(std::string_view(static_cast<const char*>(b.ptr), static_cast<size_t>(b.size * b.itemsize))));
  } else if (PyDict_Check(o)) {
    s.begin_map();
    PyObject *k, *val;
    Py_ssize_t pos = 0;
    while (PyDict_Next(o, &pos, &k, &val)) {
      if (!PyUnicode_Check(k)) throw py::type_error("a key that is not a string");
      std::string key = py::handle(k).cast<std::string>();
      if (key.starts_with('!'))
        s.key_text(key, false);  // a bare union's tagged value ({"!u": 5}): quoted, not read as a tag
      else
        s.key(key.c_str());
      emit(s, val, depth + 1);
    }
    s.end_map();
  } else if (PyList_Check(o) || PyTuple_Check(o)) {
    py::sequence seq = py::reinterpret_borrow<py::sequence>(v);
    bool flow = true;
    for (py::handle e : seq)
      flow = flow && (PyLong_Check(e.ptr()) || PyFloat_Check(e.ptr()));
    s.begin_seq(flow);
    for (py::handle e : seq) emit(s, e, depth + 1);
    s.end_seq();
  } else {
    throw py::type_error(std::string("expected a dict, list, str, int, float, bool, bytes or None, not ") +
                         Py_TYPE(o)->tp_name);
  }
}

py::str to_text(py::handle value, const std::string& kind) {
  if (kind == "json") {
    text::JsonSink s;
    emit(s, value, 0);
    return py::str(s.result());
  }
  if (kind != "yaml") throw py::value_error("kind: 'yaml' or 'json', not '" + kind + "'");
  text::YamlSink s;
  emit(s, value, 0);
  return py::str(s.result());
}

// Text -> value: parsed, encoded (which checks it) and decoded, so that the
// value is the one decode() gives for those bytes.
py::object from_text(const std::string& text_in, const std::optional<std::string>& format) {
  text::Doc doc;
  try {
    py::gil_scoped_release unlocked;
    doc = text::load(text_in);
  } catch (const TextError& e) {
    Where w = split_where(e.what());
    raise_text(e.what(), w.line, w.col, "");
  } catch (const YAML::Exception& e) {
    const uint32_t l = e.mark.is_null() ? 0 : e.mark.line + 1, c = e.mark.is_null() ? 0 : e.mark.column + 1;
    raise_text((l ? std::to_string(l) + ":" + std::to_string(c) + ": " : std::string()) + e.msg, l, c, "");
  }
  const Format& f = format_of_doc(doc, format.value_or(""), nullptr);
  const Codec c = codec_of(f);
  std::vector<uint8_t> bytes = encode_doc(c, doc, nullptr);
  return decode_with(c, bytes);
}

// ---- Files --------------------------------------------------------------------------

// A file's bytes as the CLI reads them: a member of an archive (PACK:path),
// or a file with its Yaz0/zstd layer taken off; and the name to detect by.
std::pair<std::vector<uint8_t>, std::string> read_plain(const std::string& path) {
  return translate([&] {
    py::gil_scoped_release unlocked;
    if (auto m = cli::split_member_path(path)) return std::pair{cli::read_member(*m), m->member};
    return std::pair{cli::read_binary_input(path).bytes, cli::detection_name(path)};
  });
}

py::object read_value(const std::string& path, const std::optional<std::string>& format) {
  auto [bytes, name] = read_plain(path);
  const Format& f = format ? format_named(*format) : detect(bytes, name);
  return decode_with(codec_of(f), bytes);
}

void write_plain(const std::string& path, std::vector<uint8_t> bytes) {
  translate([&] {
    py::gil_scoped_release unlocked;
    if (auto m = cli::split_member_path(path)) {
      cli::write_member(*m, bytes, "");
      return 0;
    }
    bytes = cli::compress_for_output(std::move(bytes), path, "");
    cli::write_output(path, std::span<const uint8_t>(bytes));
    return 0;
  });
}

// ---- Schemas loaded at run time -------------------------------------------------

struct PySchema {
  std::shared_ptr<const dynamic::Schema> schema;
  Codec codec;
};

PySchema load_schema(const std::string& path_or_text) {
  try {
    std::shared_ptr<const dynamic::Schema> s;
    {
      py::gil_scoped_release unlocked;
      const bool text = path_or_text.find('\n') != std::string::npos;
      s = std::make_shared<const dynamic::Schema>(text ? dynamic::Schema::load_text(path_or_text, "<schema text>")
                                                       : dynamic::Schema::load(path_or_text));
    }
    return PySchema{s, codec_of(s)};
  } catch (const gen::SchemaError& e) {
    raise(errors().schema, e.what());
  }
}

// A value -> bytes through a loaded schema: its `format:` key, when there,
// must be the schema's.
py::bytes schema_encode(const PySchema& s, py::handle value) {
  DocLease lease;
  const text::Doc& doc = lease.doc();
  DocBuilder b(lease.space());
  b.build(value);
  const text::Node root = doc.root();
  if (!root.is_map()) raise_text("expected a map at the top", 0, 0, "");
  if (const text::Node f = root.get("format"); f && !(f.is_scalar() && f.scalar() == s.codec.name))
    raise_text("format: '" + std::string(f.scalar()) + "' is not this schema's ('" + s.codec.name + "')", 0, 0,
               "format");
  return to_pybytes(encode_doc(s.codec, doc, &b));
}

}  // namespace

PYBIND11_MODULE(_binschema, m) {
  m.doc() = "The compiled part of the binschema package (see binschema/__init__.py).";

  m.def(
      "_set_errors",
      [](py::object error, py::object decode, py::object text, py::object encode, py::object schema) {
        errors() = Errors{error, decode, text, encode, schema};
      },
      "Internal: the exception classes of the package.");

  m.def(
      "formats",
      [] {
        py::list out;
        for (const Format* f : all_formats()) {
          py::dict d;
          d["name"] = f->name;
          d["title"] = f->title;
          d["versions"] = f->versions;
          py::list exts;
          for (const char* e : f->extensions) exts.append(e);
          d["extensions"] = exts;
          d["magic"] = py::bytes(f->magic.data(), f->magic.size());
          out.append(d);
        }
        return out;
      },
      "The formats compiled in: a list of dicts with name, title, versions, extensions and magic.");

  m.def("decode", &decode, py::arg("data"), py::arg("format") = py::none(),
        "Bytes of a file -> its value (the structure of the format's JSON text).");
  m.def("encode", &encode, py::arg("value"), py::arg("format") = py::none(),
        "A value (its 'format' key names the format) -> the file's bytes.");
  m.def(
      "decode_text",
      [](const py::buffer& data, const std::string& kind, const std::optional<std::string>& format) {
        if (kind != "yaml" && kind != "json") throw py::value_error("kind: 'yaml' or 'json', not '" + kind + "'");
        Buf b = bytes_of(data);
        const Format& f = format ? format_named(*format) : detect(b.span(), "");
        std::string text = translate([&] {
          py::gil_scoped_release unlocked;
          return f.decode(b.span(), kind == "json" ? TextKind::Json : TextKind::Yaml);
        });
        return py::str(text);
      },
      py::arg("data"), py::arg("kind") = "yaml", py::arg("format") = py::none(),
      "Bytes of a file -> its YAML or JSON text (what `binschema decode` writes), without Python values.");
  m.def(
      "_decode_walk",
      [](const py::buffer& data, const std::optional<std::string>& format) {
        // decode() with the document's events going nowhere: the time of
        // decode() without building the Python objects.
        struct Nothing final : text::EventSink {
          void begin_map(bool) override {}
          void end_map() override {}
          void key(const char*) override {}
          void begin_seq(bool) override {}
          void end_seq() override {}
          void null() override {}
          void boolean(bool) override {}
          void number(const std::string&, bool) override {}
          void string(const std::string&) override {}
          void integer(uint64_t, bool, bool, unsigned) override {}
        } nothing;
        Buf b = bytes_of(data);
        const Format& f = format ? format_named(*format) : detect(b.span(), "");
        text::EventSink* before = text::event_sink();
        text::event_sink() = &nothing;
        try {
          translate([&] { return f.decode(b.span(), TextKind::Events); });
        } catch (...) {
          text::event_sink() = before;
          throw;
        }
        text::event_sink() = before;
      },
      py::arg("data"), py::arg("format") = py::none(),
      "Internal (bench/python_bench.py): decode() with the events going nowhere (no Python objects).");
  m.def(
      "_build_doc",
      [](py::handle value) {
        DocLease lease;
        DocBuilder b(lease.space());
        b.build(value);
        return b.size();
      },
      "Internal (bench/python_bench.py): builds the text document of a value, returns its node count.");
  m.def("to_text", &to_text, py::arg("value"), py::arg("kind") = "yaml", "A value -> YAML or JSON text.");
  m.def("from_text", &from_text, py::arg("text"), py::arg("format") = py::none(),
        "YAML or JSON text -> the value decode() gives for the bytes it encodes to.");
  m.def("read", &read_value, py::arg("path"), py::arg("format") = py::none(),
        "A file (Yaz0/zstd layers taken off, PACK:member of an archive) -> its value.");
  m.def(
      "write",
      [](const std::string& path, py::handle value, const std::optional<std::string>& format) {
        write_plain(path, encode_vec(value, format));
      },
      py::arg("path"), py::arg("value"), py::arg("format") = py::none(),
      "Encodes a value and writes it (compressed as the name asks; PACK:member replaces that member).");
  m.def(
      "read_bytes", [](const std::string& path) { return to_pybytes(read_plain(path).first); }, py::arg("path"),
      "A file's bytes with its compression layer taken off, or an archive member's bytes (PACK:member).");
  m.def(
      "write_bytes",
      [](const std::string& path, const py::buffer& data) {
        Buf b = bytes_of(data);
        write_plain(path, std::vector<uint8_t>(b.span().begin(), b.span().end()));
      },
      py::arg("path"), py::arg("data"), "Writes bytes as write() does (compression by name, PACK:member).");
  m.def(
      "members",
      [](const std::string& path) {
        const auto plain = read_plain(path);  // (bytes, name); a lambda may not capture a structured binding (clang)
        py::list out;
        translate([&] {
          for (auto& [n, b] : cli::sarc_members(plain.first)) out.append(py::str(n));
          return 0;
        });
        return out;
      },
      py::arg("path"), "The member names of an archive (SARC, under any compression layer), in its order.");
  py::class_<PySchema>(m, "Schema",
                       "A schema loaded at run time (load_schema): the module's functions for its format.")
      .def_property_readonly("name", [](const PySchema& s) { return s.codec.name; },
                             "The schema's format name (its `format:`).")
      .def(
          "decode", [](const PySchema& s, const py::buffer& data) { return decode_with(s.codec, bytes_of(data).span()); },
          py::arg("data"), "Bytes -> value, as binschema.decode.")
      .def("encode", &schema_encode, py::arg("value"), "Value -> bytes, as binschema.encode.")
      .def(
          "decode_text",
          [](const PySchema& s, const py::buffer& data, const std::string& kind) {
            if (kind != "yaml" && kind != "json") throw py::value_error("kind: 'yaml' or 'json', not '" + kind + "'");
            Buf b = bytes_of(data);
            return py::str(translate([&] {
              py::gil_scoped_release unlocked;
              return s.codec.decode(b.span(), kind == "json" ? TextKind::Json : TextKind::Yaml);
            }));
          },
          py::arg("data"), py::arg("kind") = "yaml", "Bytes -> YAML or JSON text.")
      .def(
          "from_text",
          [](const PySchema& s, const std::string& text_in) {
            text::Doc doc;
            try {
              doc = text::load(text_in);
            } catch (const TextError& e) {
              Where w = split_where(e.what());
              raise_text(e.what(), w.line, w.col, "");
            } catch (const YAML::Exception& e) {
              const uint32_t l = e.mark.is_null() ? 0 : e.mark.line + 1, c = e.mark.is_null() ? 0 : e.mark.column + 1;
              raise_text((l ? std::to_string(l) + ":" + std::to_string(c) + ": " : std::string()) + e.msg, l, c, "");
            }
            return decode_with(s.codec, encode_doc(s.codec, doc, nullptr));
          },
          py::arg("text"), "YAML or JSON text -> value, as binschema.from_text.")
      .def(
          "read",
          [](const PySchema& s, const std::string& path) { return decode_with(s.codec, read_plain(path).first); },
          py::arg("path"), "A file (compression layers, PACK:member) -> value.")
      .def(
          "write",
          [](const PySchema& s, const std::string& path, py::handle value) {
            py::bytes b = schema_encode(s, value);
            std::string_view v = b;
            write_plain(path, std::vector<uint8_t>(v.begin(), v.end()));
          },
          py::arg("path"), py::arg("value"), "Encodes a value and writes it, as binschema.write.")
      .def("__repr__", [](const PySchema& s) { return "<binschema.Schema " + s.codec.name + ">"; });
  m.def("load_schema", &load_schema, py::arg("path_or_text"),
        "A schema loaded at run time: a path, or the schema's YAML text (anything with a newline).");
  m.def(
      "set_dictionaries",
      [](std::vector<std::string> zsdic, const std::optional<std::string>& romfs) {
        cli::set_dictionary_sources(cli::DictionarySources{std::move(zsdic), romfs.value_or("")});
      },
      py::arg("zsdic") = std::vector<std::string>{}, py::arg("romfs") = py::none(),
      "zstd dictionaries for read() and write(): files, or a romfs folder (its Pack/ZsDic.pack.zs).");
}
