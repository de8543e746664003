// Compiles a .ksy to C++ (cpp_stl) with Kaitai's npm compiler, as its command
// line would with `-t cpp_stl --cpp-standard 11` (unique_ptr ownership, list
// initialisers, std::string front/back): the npm package's compile() always
// targets C++98 with raw pointers, so its C++ settings are swapped for the
// C++11 ones before the compiler is loaded.
//
//   NODE_PATH=<dir>/node_modules node kaitai_cpp.js FORMAT.ksy OUTDIR
//
// Writes OUTDIR/<name>.h and OUTDIR/<name>.cpp and prints their names.
'use strict';
const fs = require('fs');
const path = require('path');
const Module = require('module');

const [ksyPath, outDir] = process.argv.slice(2);
if (!ksyPath || !outDir) {
  console.error('usage: node kaitai_cpp.js FORMAT.ksy OUTDIR');
  process.exit(2);
}
const yaml = require('js-yaml');
const compilerPath = require.resolve('kaitai-struct-compiler');
const cpp98 = 'new $c_Lio_kaitai_struct_CppRuntimeConfig($m_sci_Nil$(), false, false, false, ' +
              '$m_Lio_kaitai_struct_CppRuntimeConfig$RawPointers$())';
const cpp11 = 'new $c_Lio_kaitai_struct_CppRuntimeConfig($m_sci_Nil$(), true, true, true, ' +
              '$m_Lio_kaitai_struct_CppRuntimeConfig$UniqueAndRawPointers$())';
const source = fs.readFileSync(compilerPath, 'utf8');
if (!source.includes(cpp98)) {
  console.error(`kaitai_cpp.js: ${compilerPath} does not hold the C++98 settings this script replaces ` +
                '(another compiler version?)');
  process.exit(1);
}
const m = new Module(compilerPath, module);
m.filename = compilerPath;
m.paths = Module._nodeModulePaths(path.dirname(compilerPath));
m._compile(source.split(cpp98).join(cpp11), compilerPath);
const compiler = m.exports;

(async () => {
  const ksy = yaml.load(fs.readFileSync(ksyPath, 'utf8'));
  let files;
  try {
    files = await compiler.compile('cpp_stl', ksy, null, false);
  } catch (e) {
    console.error(`kaitai-struct-compiler ${compiler.version} refuses ${ksyPath}: ${e}`);
    process.exit(1);
  }
  fs.mkdirSync(outDir, { recursive: true });
  for (const [name, text] of Object.entries(files)) {
    fs.writeFileSync(path.join(outDir, name), text);
    console.log(path.join(outDir, name));
  }
})();
