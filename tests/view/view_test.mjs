// The byte map's page (`binschema view`) in headless Chromium, driven over
// the DevTools protocol (cdp.mjs) with real mouse input:
//
//   node view_test.mjs --cli build/binschema --chromium /usr/bin/chromium \
//        --samples ../shared/samples --examples examples --work DIR
//     checks, on the page of a BFEVFL sample: pointing at a byte shows its
//     field path (a header field the format defines, and a deep field the CLI's
//     `explain` names); choosing a tree node highlights exactly its bytes and
//     scrolls to them; a pointer's link jumps to its target; and on a file
//     with a gap (an example BAEV with non-zero bytes between two blocks)
//     the gap is shown and listed as unexplained.
//   ... --screenshot OUT.png   the page of examples/bfevfl-greeting.yaml, for the docs
//   ... --bench MIB            time opening the page of a MIB MiB SARC (many small members)
//
// Exits 1 naming the first check that failed.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Browser } from './cdp.mjs';

const args = {};
for (let i = 2; i < process.argv.length; i += 2) args[process.argv[i].replace(/^--/, '')] = process.argv[i + 1];
for (const k of ['cli', 'chromium', 'work']) if (!args[k]) { console.error(`view_test: --${k} is required`); process.exit(2); }
const work = resolve(args.work);
mkdirSync(work, { recursive: true });
const cli = (...a) => execFileSync(resolve(args.cli), a, { encoding: 'utf8', maxBuffer: 1 << 30 });
const cliStatus = (...a) => { try { cli(...a); return 0; } catch (e) { return e.status; } };

let failures = 0;
function check(ok, what) {
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}`);
  if (!ok) failures++;
}
const hex = (v) => '0x' + v.toString(16);

async function openPage(browser, file, page) {
  const status = cliStatus('view', file, '-o', page);
  if (status !== 0) throw new Error(`binschema view ${file} exited with ${status}`);
  await browser.open('file://' + page);
  const ready = await browser.eval('document.body.dataset.ready === "1" && typeof window.bmap === "object"');
  if (!ready) throw new Error(`${page}: the page did not start`);
}

// Points at byte `o` with the mouse (after scrolling it into view); returns the details' path and kind.
async function pointAt(browser, o) {
  await browser.eval(`bmap.scrollTo(${o})`);
  await browser.hover(`#hexrows .b[data-o="${o}"]`);
  return browser.eval('({ path: document.getElementById("details").dataset.path, kind: document.getElementById("details").dataset.kind, text: document.getElementById("details").textContent })');
}

async function sampleChecks(browser) {
  const samples = args.samples;
  if (!samples) throw new Error('--samples is required');
  const sample = join(samples, 'bfevfl', 'Common.bfevfl');
  try { statSync(sample); } catch { throw new Error(`${sample} is missing: this test needs the real files in ../shared/samples/`); }
  const map = JSON.parse(cli('coverage', '--format', 'json', sample));
  const page = join(work, 'Common.bfevfl.html');
  await openPage(browser, sample, page);

  // 1. A header field: BFEVFL's file header holds the flowchart dictionary's pointer at 0x30.
  let d = await pointAt(browser, 0x30);
  check(d.path === 'flowchart_dic', `pointing at 0x30 shows flowchart_dic (shown: ${d.path})`);
  // 2. A deep field: the first event's name string, as `binschema explain` names it.
  const deep = map.fields.find((f) => f.kind === 'string' && /^flowcharts?\b.*events\[\d+\]\.name$/.test(f.path)) ||
               map.fields.find((f) => f.kind === 'string' && /events\[/.test(f.path));
  if (!deep) throw new Error('no event name string in the trace of the sample');
  const explained = JSON.parse(cli('explain', '--format', 'json', sample, String(deep.offset + 2)));
  d = await pointAt(browser, deep.offset + 2);
  check(d.path === explained.fields[0].path && d.path.includes('events['),
    `pointing at ${hex(deep.offset + 2)} shows ${explained.fields[0].path} (shown: ${d.path})`);

  // 3. Choosing a tree node highlights exactly its bytes, scrolled into view.
  const node = map.fields.find((f) => f.kind === 'struct' && /actors\[1\]$/.test(f.path));
  if (!node) throw new Error('no actors[1] struct in the trace of the sample');
  const i = await browser.eval(`(() => { const i = bmap.find(${JSON.stringify(node.path)}); bmap.reveal(i); return i; })()`);
  check(i >= 0, `the tree has ${node.path}`);
  await browser.click(`#treerows .tr[data-n="${i}"]`);
  const sel = await browser.eval(`(() => {
    const cells = [...document.querySelectorAll('#hexrows .b.sel')].map((e) => +e.dataset.o);
    const first = document.querySelector('#hexrows .b[data-o="${node.offset}"]');
    const box = document.getElementById('hexscroll').getBoundingClientRect();
    const r = first && first.getBoundingClientRect();
    return { cells, visible: !!r && r.top >= box.top && r.bottom <= box.bottom, path: document.getElementById('details').dataset.path };
  })()`);
  const want = Array.from({ length: node.size }, (_, k) => node.offset + k);
  check(sel.path === node.path, `choosing ${node.path} in the tree selects it (details: ${sel.path})`);
  check(JSON.stringify(sel.cells) === JSON.stringify(want),
    `its bytes ${hex(node.offset)}..${hex(node.offset + node.size)} are highlighted, and no others (highlighted: ${sel.cells.length} bytes from ${hex(sel.cells[0] ?? 0)})`);
  check(sel.visible, 'the hex view scrolled to the node');

  // 4. A pointer's link jumps to its target.
  const ptr = map.fields.find((f) => f.path === 'flowchart_dic' && f.kind === 'pointer');
  if (!ptr || ptr.target === undefined) throw new Error('flowchart_dic has no target in the trace');
  const pi = await browser.eval(`(() => { const i = bmap.find("flowchart_dic"); bmap.reveal(i); return i; })()`);
  await browser.click(`#treerows .tr[data-n="${pi}"]`);
  await browser.click(`#details a.ptr[data-t="${ptr.target}"]`);
  const j = await browser.eval(`(() => {
    const [a] = bmap.selection();
    const cell = document.querySelector('#hexrows .b[data-o="${ptr.target}"]');
    const box = document.getElementById('hexscroll').getBoundingClientRect();
    const r = cell && cell.getBoundingClientRect();
    return { a, visible: !!r && r.top >= box.top && r.bottom <= box.bottom, path: document.getElementById('details').dataset.path };
  })()`);
  check(j.a === ptr.target && j.visible, `the link of flowchart_dic jumps to ${hex(ptr.target)} (selected from ${hex(j.a)}, ${j.path})`);
  const atTarget = map.fields.filter((f) => f.offset === ptr.target && f.kind !== 'target').map((f) => f.path);
  check(atTarget.includes(j.path), `the selected node (${j.path}) starts at the target`);
}

async function gapChecks(browser) {
  // A project-made file with a gap: an example BAEV, its first gap between
  // blocks (zeros no field covers, which the reader leaves alone and the
  // layout keeps as fill) made non-zero.
  const file = join(work, "gap.baev");
  cli('encode', join(args.examples, 'baev-totk.yaml'), '-o', file);
  const before = JSON.parse(cli('coverage', '--format', 'json', file));
  const gap = before.ranges.find((r) => r.class === 'zeros');
  if (!gap) throw new Error('the example BAEV has no gap to fill');
  const bytes = readFileSync(file);
  for (let o = gap.start; o < gap.end; o++) bytes[o] = 0x5a;
  writeFileSync(file, bytes);
  const after = JSON.parse(cli('coverage', '--format', 'json', file));
  check(after.error === null && after.unexplained === gap.end - gap.start, `the patched BAEV decodes, ${after.unexplained} bytes unexplained`);
  await openPage(browser, file, join(work, 'gap.baev.html'));
  const g = await browser.eval(`(() => {
    const li = document.querySelector('#gaps li.unexplained[data-start="${gap.start}"][data-end="${gap.end}"]');
    return { listed: !!li, total: document.getElementById('tot-unexplained').textContent };
  })()`);
  check(g.listed, `the gap ${hex(gap.start)}..${hex(gap.end)} is listed as unexplained`);
  check(g.total.includes(`unexplained ${gap.end - gap.start} `), `the summary counts it (${g.total})`);
  const d = await pointAt(browser, gap.start);
  const cls = await browser.eval(`document.querySelector('#hexrows .b[data-o="${gap.start}"]').className`);
  check(d.kind === 'unexplained' && d.path === '' && /\bux\b/.test(cls), `pointing at ${hex(gap.start)} says unexplained, marked (${d.kind}, class ${cls})`);
}

async function screenshot(browser, out) {
  const file = join(work, 'bfevfl-greeting.bfevfl');
  cli('encode', join(args.examples, 'bfevfl-greeting.yaml'), '-o', file);
  // Run in the work folder, so that the page names the file without the folder.
  execFileSync(resolve(args.cli), ['view', 'bfevfl-greeting.bfevfl', '-o', 'bfevfl-greeting.html'], { cwd: work });
  await browser.open('file://' + join(work, 'bfevfl-greeting.html'));
  const map = JSON.parse(cli('coverage', '--format', 'json', file));
  const ev = map.fields.find((f) => f.kind === 'struct' && /events\[0\]$/.test(f.path));
  if (ev) {
    const i = await browser.eval(`(() => { const i = bmap.find(${JSON.stringify(ev.path)}); bmap.reveal(i); return i; })()`);
    await browser.click(`#treerows .tr[data-n="${i}"]`);
    await browser.hover(`#hexrows .b[data-o="${ev.offset + 1}"]`);
  }
  writeFileSync(out, await browser.screenshot());
  console.log(`screenshot: ${out}`);
}

async function bench(browser, mib) {
  // A SARC of many small members: a big trace (struct, name, data per member).
  const count = Math.min(65535, Math.floor(mib * 1024 * 1024 / 256));  // SARC counts its nodes in a u16
  let yaml = 'format: sarc\nbom: 0xfffe\nnodes:\n';
  const body = 'ab'.repeat(224);
  for (let k = 0; k < count; k++) yaml += `  - attributes: {name: d/f${String(k).padStart(6, '0')}.bin}\n    data: "${body}"\n`;
  const text = join(work, 'big.sarc.yaml'), file = join(work, 'big.sarc');
  writeFileSync(text, yaml);
  cli('encode', text, '-o', file);
  const size = statSync(file).size;
  const page = join(work, 'big.sarc.html');
  let t = process.hrtime.bigint();
  cli('view', file, '-o', page);
  const viewMs = Number(process.hrtime.bigint() - t) / 1e6;
  const runs = [];
  for (let r = 0; r < 3; r++) {
    await browser.open('about:blank');
    t = process.hrtime.bigint();
    await browser.open('file://' + page);
    await browser.eval('new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))');
    const ms = Number(process.hrtime.bigint() - t) / 1e6;
    const inPage = await browser.eval('bmap.readyMs');
    runs.push({ ms, inPage });
  }
  // Scrolling to the end and pointing there still answer at once.
  t = process.hrtime.bigint();
  await pointAt(browser, size - 1);
  const pointMs = Number(process.hrtime.bigint() - t) / 1e6;
  const fields = await browser.eval('BINSCHEMA_MAP.count');
  console.log(JSON.stringify({ size, members: count, fields, page_bytes: statSync(page).size, view_ms: Math.round(viewMs),
    open_ms: runs.map((r) => Math.round(r.ms)), script_ms: runs.map((r) => Math.round(r.inPage)), point_at_end_ms: Math.round(pointMs) }));
}

const browser = await Browser.launch(args.chromium);
try {
  if (args.screenshot) await screenshot(browser, resolve(args.screenshot));
  else if (args.bench) await bench(browser, Number(args.bench));
  else {
    await sampleChecks(browser);
    await gapChecks(browser);
  }
} catch (e) {
  console.error(`view_test: ${e.message}`);
  failures++;
} finally {
  await browser.close();
}
if (failures) { console.error(`view_test: ${failures} check(s) failed`); process.exit(1); }
