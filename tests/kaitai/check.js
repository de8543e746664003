// Compiles a .ksy exported by binschema-gen with Kaitai's compiler (npm
// kaitai-struct-compiler) to JavaScript, parses binary files with Kaitai's
// runtime (npm kaitai-struct), and checks that Kaitai finds the same values
// as `binschema decode --format json`: the JSON is walked, and for each key
// the Kaitai object's field of the same name (in Kaitai's lowerCamelCase)
// must hold the same value.
//
//   node check.js [--skip KEY:REASON]... [--schema FORMAT.yaml] [--json-schema FORMAT.schema.json]
//                 FORMAT.ksy OUTDIR FILE FILE.json [FILE FILE.json]...
//
// --schema and --json-schema (binschema's schema and the JSON Schema
// binschema-gen emits for its text form) say where the text is not the
// struct Kaitai reads: maps (map:), unwrapped types (unwrap:), bare unions
// (bare:), index_of: fields shown by name; and which fields, left out of the
// text, hold their default (Kaitai must read the default).
//
// --skip names a JSON key (anywhere in the document) the .ksy is known not
// to match, with the reason; the values under it are counted as skipped and
// reported, never compared. Exit status: 0 all equal, 1 a difference or an
// error (each printed with its JSON path).
'use strict';
const fs = require('fs');
const path = require('path');
const yaml = require('js-yaml');
const compiler = require('kaitai-struct-compiler');
const KaitaiStream = require('kaitai-struct/KaitaiStream');

const args = process.argv.slice(2);
const skip = new Map();
let schemaPath = null;
let jsonSchemaPath = null;
for (;;) {
  if (args[0] === '--skip') {
    const [key, ...reason] = args[1].split(':');
    skip.set(key, reason.join(':'));
  } else if (args[0] === '--schema') {
    schemaPath = args[1];
  } else if (args[0] === '--json-schema') {
    jsonSchemaPath = args[1];
  } else {
    break;
  }
  args.splice(0, 2);
}
const [ksyPath, outDir, ...pairs] = args;
if (!ksyPath || !outDir || pairs.length === 0 || pairs.length % 2) {
  console.error('usage: node check.js [--skip KEY:REASON]... [--schema FORMAT.yaml] [--json-schema FORMAT.schema.json] FORMAT.ksy OUTDIR FILE FILE.json [...]');
  process.exit(2);
}

function camel(id) {
  const parts = id.split('_');
  return parts[0] + parts.slice(1).map((p) => p.charAt(0).toUpperCase() + p.slice(1)).join('');
}

// Wrappers the .ksy uses for one pointer or pooled string: their `target`
// (or a Pascal string's `value`) is what the JSON shows.
function unwrap(k) {
  for (let i = 0; i < 4 && k && typeof k === 'object' && !Array.isArray(k) && !(k instanceof Uint8Array); ++i) {
    const name = k.constructor && k.constructor.name;
    if (/^(Ptr\d+(Rel)?To|Str\d+In)/.test(name)) k = k.target;
    else if (name === 'Pascal16' || /Payload$/.test(name)) k = k.value;
    else break;
  }
  return k;
}

function hex(bytes) {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

// Ids of the .ksy's attributes under `if:`: when the condition is false,
// Kaitai has no value and binschema's model keeps the field's zero value
// (the text form always shows the field).
const conditional = new Set();
// The .ksy's enums named <union>_case: tag value -> case name.
const caseNames = new Map();
function collectConditional(type) {
  for (const a of type.seq || []) if (a.if !== undefined) conditional.add(a.id);
  for (const [id, a] of Object.entries(type.instances || {})) if (a.if !== undefined) conditional.add(id);
  for (const [name, values] of Object.entries(type.enums || {})) {
    if (!caseNames.has(name)) caseNames.set(name, []);
    caseNames.get(name).push(values);
  }
  for (const t of Object.values(type.types || {})) collectConditional(t);
}

// The schema (--schema, binschema's YAML) and the JSON Schema binschema-gen
// emits for the text form (--json-schema) say where the text form is not the
// struct as Kaitai reads it (issue #26):
// - an array with `map: KEY` is a JSON object keyed by each element's KEY
//   field (in the file's order); the value is the element's other shown
//   fields, or that field's value alone when only one is shown;
// - a type with `unwrap: true` is shown as its one shown field's value;
// - a union with `bare: true` is shown as its case's value alone
//   ({"!case": value} when the case is named);
// - an `index_of:` field holds the element's name, Kaitai the index.
// A Kaitai object's class (PascalCase of the .ksy's snake_case type id)
// names its schema type.
const schemaTypes = new Map();  // normalised type name -> {name, type}
let jsonDefs = {};
let jsonTop = {};
let rootTypeName = null;
function norm(n) {
  return String(n).toLowerCase().replace(/_/g, '');
}
function loadSchema() {
  if (schemaPath) {
    const s = yaml.load(fs.readFileSync(schemaPath, 'utf8'));
    for (const [name, type] of Object.entries(s.types || {})) schemaTypes.set(norm(name), { name, type });
    rootTypeName = s.root;
  }
  if (jsonSchemaPath) {
    jsonTop = JSON.parse(fs.readFileSync(jsonSchemaPath, 'utf8'));
    jsonDefs = jsonTop.$defs || {};
  }
}
// The root type's Kaitai class is named after the format (the .ksy's meta id).
function addRootClass(className) {
  const t = rootTypeName && schemaTypes.get(norm(rootTypeName));
  if (t && !schemaTypes.has(norm(className))) schemaTypes.set(norm(className), { name: t.name, type: t.type, root: true });
}
function jsonDef(t) {
  return t.root ? jsonTop : jsonDefs[t.name];
}
function typeOf(k) {
  if (!k || typeof k !== 'object' || Array.isArray(k) || k instanceof Uint8Array) return undefined;
  const n = k.constructor && k.constructor.name;
  return n ? schemaTypes.get(norm(n)) : undefined;
}
function fieldIn(t, name) {
  return t ? (t.type.fields || []).find((f) => f.name === name) : undefined;
}
// The fields a type shows in the text: the JSON Schema's properties, else
// (no JSON Schema) those not reserved, derived, or another field's count or tag.
function shownFields(t) {
  const def = jsonDef(t);
  if (def && def.properties) return Object.keys(def.properties);
  const fields = t.type.fields || [];
  const used = new Set();
  for (const f of fields) for (const a of ['count', 'tag']) if (typeof f[a] === 'string') used.add(f[a]);
  return fields.filter((f) => !f.reserved && f.derive === undefined && !used.has(f.name)).map((f) => f.name);
}
// An unwrap type's one shown field: as the JSON Schema's description names
// it ("Shown as its field NAME"), else the one field shownFields finds.
function unwrapField(t) {
  const def = jsonDef(t);
  const m = def && typeof def.description === 'string' && /Shown as its field (\w+)/.exec(def.description);
  if (m) return fieldIn(t, m[1]);
  const fields = t.type.fields || [];
  const used = new Set();
  for (const f of fields) for (const a of ['count', 'tag']) if (typeof f[a] === 'string') used.add(f[a]);
  const shown = fields.filter((f) => !f.reserved && f.derive === undefined && !used.has(f.name));
  return shown.length === 1 ? shown[0] : undefined;
}
function elemTypeName(field) {
  return typeof field.type === 'string' ? field.type.replace(/\[[^\]]*\]$/, '') : undefined;
}

let compared = 0;
let byName = 0;
let defaulted = 0;
let absent = 0;
const skipped = new Map();
const diffs = [];

function show(k) {
  if (k instanceof Uint8Array) return 'bytes ' + hex(k);
  if (k && typeof k === 'object') return 'a ' + ((k.constructor && k.constructor.name) || 'object');
  return JSON.stringify(k);
}

function differ(where, j, k) {
  diffs.push(`${where}: binschema ${JSON.stringify(j)}, Kaitai ${show(k)}`);
}

function countLeaves(j) {
  if (j && typeof j === 'object') return Object.values(j).reduce((n, v) => n + countLeaves(v), 0);
  return 1;
}

function isZero(v) {
  return v === 0 || v === false || v === '' || v === null || (Array.isArray(v) && v.length === 0);
}

function isPlainObject(v) {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

// A union field KEY of the Kaitai object k: the .ksy reads its payload with
// switch-on and names the case in `<key>_case` (an enum); the text form is
// {case: payload} (a bare union: the payload alone, or {"!case": payload}).
// Returns false when k has no case for KEY (not a union, as far as Kaitai says).
function compareUnion(key, v, k, where, field) {
  let which;
  try {
    which = k[camel(key) + 'Case'];
  } catch (e) {
    which = undefined;
  }
  if (which === undefined) return false;
  const bare = field && field.bare;
  let name;
  let payload;
  if (isPlainObject(v) && Object.keys(v).length === 1 && (!bare || Object.keys(v)[0].startsWith('!'))) {
    [name, payload] = Object.entries(v)[0];
    if (bare) name = name.slice(1);
  } else if (bare) {
    compare(v, () => k[camel(key)], `${where}.${key}`);
    return true;
  } else {
    return false;
  }
  const names = caseNames.get(`${key}_case`) || [];
  if (!names.some((m) => m[which] === name)) {
    diffs.push(`${where}.${key}: binschema has case '${name}', Kaitai's tag ${which} names ${names.map((m) => m[which]).join(' or ') || 'no case'}`);
    return true;
  }
  compared++;
  compare(payload, () => k[camel(key)], `${where}.${key}.${name}`);
  return true;
}

// field: the schema's field the value is (when known), for map: and index_of:.
function compare(j, get, where, field) {
  let k;
  try {
    k = unwrap(get());
  } catch (e) {
    diffs.push(`${where}: Kaitai failed to read it: ${e.message || e}`);
    return;
  }
  // A type with `unwrap: true`: the text shows its one field's value.
  for (let t = typeOf(k), n = 0; t && t.type.unwrap && n < 4; t = typeOf(k), ++n) {
    const f = unwrapField(t);
    if (!f) {
      diffs.push(`${where}: cannot tell which field of the unwrapped type ${t.name} the text shows`);
      return;
    }
    if (f.type === 'union' && compareUnion(f.name, j, k, `${where}(${t.name})`, f)) return;
    const parent = k;
    try {
      k = unwrap(parent[camel(f.name)]);
    } catch (e) {
      diffs.push(`${where}: Kaitai failed to read ${t.name}.${f.name}: ${e.message || e}`);
      return;
    }
    field = f;
  }
  if (j === null) {
    if (k !== null && k !== undefined) differ(where, j, k);
    else compared++;
    return;
  }
  if (Array.isArray(j)) {
    if (!Array.isArray(k) || k.length !== j.length) {
      diffs.push(`${where}: binschema has ${j.length} elements, Kaitai ${Array.isArray(k) ? k.length : typeof k}`);
      return;
    }
    j.forEach((v, i) => compare(v, () => k[i], `${where}[${i}]`));
    return;
  }
  if (typeof j === 'object' && Array.isArray(k) && field && typeof field.map === 'string') {
    // An array with `map: KEY`: {key: the element's other field(s)}, in the file's order.
    const entries = Object.entries(j);
    if (entries.length !== k.length) {
      diffs.push(`${where}: binschema has ${entries.length} entries (map by ${field.map}), Kaitai ${k.length} elements`);
      return;
    }
    const elem = schemaTypes.get(norm(elemTypeName(field)));
    const others = elem ? shownFields(elem).filter((n) => n !== field.map) : [];
    entries.forEach(([key, v], i) => {
      let e;
      try {
        e = unwrap(k[i]);
      } catch (err) {
        diffs.push(`${where}[${i}]: Kaitai failed to read it: ${err.message || err}`);
        return;
      }
      const w = `${where}.${key}`;
      compare(key, () => e[camel(field.map)], `${w}(${field.map})`, fieldIn(elem, field.map));
      if (others.length === 1 && !(isPlainObject(v) && elem && !fieldIn(elem, others[0]))) {
        const f = fieldIn(elem, others[0]);
        if (f && f.type === 'union' && compareUnion(f.name, v, e, w, f)) return;
        compare(v, () => e[camel(others[0])], `${w}(${others[0]})`, f);
      } else {
        compare(v, () => e, w);
      }
    });
    return;
  }
  if (typeof j === 'object') {
    if (!k || typeof k !== 'object') {
      diffs.push(`${where}: binschema has a map, Kaitai ${k === undefined ? 'nothing' : show(k)}`);
      return;
    }
    const t = typeOf(k);
    for (const [key, v] of Object.entries(j)) {
      if (where === '' && key === 'format') continue;
      if (skip.has(key)) {
        skipped.set(key, (skipped.get(key) || 0) + countLeaves(v));
        continue;
      }
      if (k[camel(key)] === undefined && conditional.has(key) && isZero(v)) {
        absent++;
        continue;
      }
      const f = fieldIn(t, key);
      if (isPlainObject(v) && compareUnion(key, v, k, where, f)) continue;
      if (f && f.bare && compareUnion(key, v, k, where, f)) continue;
      compare(v, () => k[camel(key)], `${where}.${key}`, f);
    }
    // A field equal to its default is left out of the text: Kaitai must read the default.
    const def = t && jsonDef(t);
    for (const [key, prop] of Object.entries((def && def.properties) || {})) {
      if (key in j || !prop || prop.default === undefined || skip.has(key)) continue;
      let kv;
      try {
        kv = k[camel(key)];
      } catch (e) {
        kv = undefined;
      }
      if ((kv === undefined || kv === null) && conditional.has(key)) continue;
      defaulted++;
      compare(prop.default, () => k[camel(key)], `${where}.${key}(default)`, fieldIn(t, key));
    }
    return;
  }
  if (field && field.index_of !== undefined && typeof j === 'string' && typeof k === 'number') {
    // An index_of: field shows the element's name; Kaitai has the index.
    byName++;
    return;
  }
  let same;
  if (typeof j === 'boolean') {
    same = typeof k === 'boolean' ? k === j : typeof k === 'number' && (k !== 0) === j;
  } else if (typeof j === 'number') {
    same = typeof k === 'number' && (k === j || Math.fround(j) === k);
  } else if (typeof k === 'string') {
    same = k === j;
  } else if (k instanceof Uint8Array) {
    same = hex(k) === j.toLowerCase();
  } else if (typeof k === 'number') {
    if (/^[-+]?0[xX][0-9a-fA-F]+$/.test(j)) {
      const neg = j[0] === '-';
      const mag = BigInt(j.replace(/^[-+]/, ''));
      same = Number(neg ? -mag : mag) === k;
    } else if (/^[-+]?[0-9]+$/.test(j)) {
      same = Number(j) === k;  // a map's key
    } else if (/^[-+]?\.?(nan|NaN)$/.test(j)) {
      same = Number.isNaN(k);
    } else if (/^[-+]?\.?inf$/.test(j)) {
      same = k === (j[0] === '-' ? -Infinity : Infinity);
    } else {
      same = false;
    }
  } else {
    same = false;
  }
  if (same) compared++;
  else differ(where, j, k);
}

async function main() {
  fs.mkdirSync(outDir, { recursive: true });
  const ksy = yaml.load(fs.readFileSync(ksyPath, 'utf8'));
  collectConditional(ksy);
  loadSchema();
  let files;
  try {
    files = await compiler.compile('javascript', ksy, null, false);
  } catch (e) {
    console.error(`FAIL: kaitai-struct-compiler ${compiler.version} refuses ${ksyPath}: ${e}`);
    process.exit(1);
  }
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(outDir, name), text);
  const main = Object.keys(files)[0];
  const className = path.basename(main, '.js');
  const Parser = require(path.resolve(outDir, main))[className];
  addRootClass(className);
  console.log(`compiled ${path.basename(ksyPath)} with kaitai-struct-compiler ${compiler.version} -> ${main}`);
  let failed = false;
  for (let i = 0; i < pairs.length; i += 2) {
    const [bin, json] = [pairs[i], pairs[i + 1]];
    compared = 0;
    absent = 0;
    byName = 0;
    defaulted = 0;
    skipped.clear();
    diffs.length = 0;
    const doc = JSON.parse(fs.readFileSync(json, 'utf8'));
    const bytes = fs.readFileSync(bin);
    let root;
    try {
      root = new Parser(new KaitaiStream(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length)));
    } catch (e) {
      diffs.push(`(root): Kaitai failed to read the file: ${e.message || e}`);
    }
    if (root) compare(doc, () => root, '');
    const skips = [...skipped].map(([k, n]) => `${n} under '${k}' (${skip.get(k)})`).join('; ');
    if (diffs.length) {
      failed = true;
      console.log(`FAIL ${path.basename(bin)}: ${diffs.length} differences, ${compared} values equal`);
      diffs.slice(0, 15).forEach((d) => console.log('  ' + d));
    } else if (compared === 0) {
      failed = true;
      console.log(`FAIL ${path.basename(bin)}: no value compared`);
    } else {
      console.log(`ok   ${path.basename(bin)}: ${compared} values equal` +
                  (defaulted ? ` (${defaulted} of them defaults, left out of the text)` : '') +
                  (absent ? `; ${absent} fields under a false if: (absent in the file, zero in the model)` : '') +
                  (byName ? `; ${byName} index_of: fields shown by name (not compared)` : '') +
                  (skips ? `; skipped (known gaps): ${skips}` : ''));
    }
  }
  process.exit(failed ? 1 : 0);
}

main();
