// Compiles a .ksy exported by binschema-gen with Kaitai's compiler (npm
// kaitai-struct-compiler) to JavaScript, parses binary files with Kaitai's
// runtime (npm kaitai-struct), and checks that Kaitai finds the same values
// as `binschema decode --format json`: the JSON is walked, and for each key
// the Kaitai object's field of the same name (in Kaitai's lowerCamelCase)
// must hold the same value.
//
//   node check.js [--skip KEY:REASON]... FORMAT.ksy OUTDIR FILE FILE.json [FILE FILE.json]...
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
while (args[0] === '--skip') {
  const [key, ...reason] = args[1].split(':');
  skip.set(key, reason.join(':'));
  args.splice(0, 2);
}
const [ksyPath, outDir, ...pairs] = args;
if (!ksyPath || !outDir || pairs.length === 0 || pairs.length % 2) {
  console.error('usage: node check.js [--skip KEY:REASON]... FORMAT.ksy OUTDIR FILE FILE.json [...]');
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

let compared = 0;
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

function compare(j, get, where) {
  let k;
  try {
    k = unwrap(get());
  } catch (e) {
    diffs.push(`${where}: Kaitai failed to read it: ${e.message || e}`);
    return;
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
  if (typeof j === 'object') {
    if (!k || typeof k !== 'object') {
      diffs.push(`${where}: binschema has a map, Kaitai ${k === undefined ? 'nothing' : show(k)}`);
      return;
    }
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
      // A union: the .ksy reads its payload with switch-on and names the case
      // in `<key>_case` (an enum); the text form is {case: payload}.
      let which;
      try {
        which = k[camel(key) + 'Case'];
      } catch (e) {
        which = undefined;
      }
      if (which !== undefined && v && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length === 1) {
        const [name, payload] = Object.entries(v)[0];
        const names = caseNames.get(`${key}_case`) || [];
        if (!names.some((m) => m[which] === name)) {
          diffs.push(`${where}.${key}: binschema has case '${name}', Kaitai's tag ${which} names ${names.map((m) => m[which]).join(' or ') || 'no case'}`);
          continue;
        }
        compared++;
        compare(payload, () => k[camel(key)], `${where}.${key}.${name}`);
        continue;
      }
      compare(v, () => k[camel(key)], `${where}.${key}`);
    }
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
  console.log(`compiled ${path.basename(ksyPath)} with kaitai-struct-compiler ${compiler.version} -> ${main}`);
  let failed = false;
  for (let i = 0; i < pairs.length; i += 2) {
    const [bin, json] = [pairs[i], pairs[i + 1]];
    compared = 0;
    absent = 0;
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
                  (absent ? `; ${absent} fields under a false if: (absent in the file, zero in the model)` : '') +
                  (skips ? `; skipped (known gaps): ${skips}` : ''));
    }
  }
  process.exit(failed ? 1 : 0);
}

main();
