// Times the search worker's module (walkmask_worker_bg.wasm, as web/build.sh makes
// it) in Node, the way the worker uses it: a generated 1920 x 1080 room loaded once
// (grid and subgoal index), then path queries among a few characters, each sent as
// walkmask::remote bytes to `answer`. Prints the load time, the queries' median and
// p95 (as the core measured them, and round trip through `answer`), and the module's
// size raw, gzip and brotli: for comparing builds of the module (opt-level,
// wasm-opt) by size and by speed.
//
//     node web/test/worker_bench.mjs [DIR_WITH_walkmask_worker.js ...]

import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";
import { pathToFileURL } from "node:url";

const W = 1920;
const H = 1080;
const QUERIES = 400;

/** A room: walls round it, furniture blocks, area 1 walkable. */
function room() {
  const px = new Uint8Array(W * H).fill(1);
  let seed = 12345;
  const rand = (n) => {
    seed = (seed * 1103515245 + 12345) >>> 0;
    return seed % n;
  };
  const block = (x0, y0, w, h) => {
    for (let y = Math.max(0, y0); y < Math.min(H, y0 + h); y++) {
      px.fill(0, y * W + Math.max(0, x0), y * W + Math.min(W, x0 + w));
    }
  };
  block(0, 0, W, 300); // the back wall
  for (let i = 0; i < 40; i++) block(rand(W), 300 + rand(H - 300), 40 + rand(160), 20 + rand(90));
  return { px, rand };
}

class Out {
  constructor() {
    this.bytes = [];
  }
  u8(v) { this.bytes.push(v & 255); }
  u16(v) { this.u8(v); this.u8(v >> 8); }
  u32(v) { for (let i = 0; i < 4; i++) this.u8(v >>> (8 * i)); }
  f32(v) { const b = new Uint8Array(new Float32Array([v]).buffer); for (const x of b) this.u8(x); }
  header(kind) { this.u8(87); this.u8(77); this.u16(1); this.u8(kind); return this; }
  done(extra) {
    const head = Uint8Array.from(this.bytes);
    if (!extra) return head;
    const all = new Uint8Array(head.length + extra.length);
    all.set(head);
    all.set(extra, head.length);
    return all;
  }
}

function loadGrid(px) {
  const out = new Out().header(1);
  out.u32(0); // grid
  out.f32(10); // clearance
  out.u8(1); // index
  out.u16(1); out.u8(1); // areas: 1
  out.u32(W); out.u32(H);
  return out.done(px);
}

function findPath(id, start, goal, obstacles) {
  const out = new Out().header(3);
  out.u32(id); out.u32(0);
  out.f32(start[0]); out.f32(start[1]); out.f32(goal[0]); out.f32(goal[1]);
  out.u8(1 | 2 | 4 | 16); // snap, beautify, taut, index
  out.u8(1); // local detours
  out.u32(obstacles.length);
  for (const [x, y] of obstacles) {
    out.f32(x); out.f32(y); out.u8(2); out.f32(14); out.f32(6);
  }
  return out.done();
}

/** The reply's kind, and for a path its core-measured nanoseconds. */
function reply(bytes) {
  const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const kind = v.getUint8(4);
  if (kind !== 3) return { kind };
  const n = v.getUint32(10, true);
  const at = 14 + 8 * n + 4 + 1 + 8 + 8 + 1;
  return { kind, waypoints: n, nanos: Number(v.getBigUint64(at, true)) };
}

const median = (a, q = 0.5) => a.slice().sort((x, y) => x - y)[Math.floor(q * (a.length - 1))];

async function bench(dir) {
  if (!fs.existsSync(path.resolve(dir, "walkmask_worker.js"))) {
    console.error(`no search worker in ${dir}: run web/build.sh first`);
    process.exit(1);
  }
  const glue = await import(pathToFileURL(path.resolve(dir, "walkmask_worker.js")).href);
  const wasm = fs.readFileSync(path.resolve(dir, "walkmask_worker_bg.wasm"));
  glue.initSync({ module: wasm });
  const { px, rand } = room();
  let t = performance.now();
  const loaded = glue.answer(loadGrid(px));
  const loadMs = performance.now() - t;
  if (new DataView(loaded.buffer).getUint8(4) !== 2) throw new Error(`${dir}: the grid was not loaded`);
  const floor = () => {
    for (;;) {
      const x = rand(W), y = 300 + rand(H - 300);
      if (px[y * W + x]) return [x + 0.5, y + 0.5];
    }
  };
  const characters = Array.from({ length: 12 }, floor);
  const core = [];
  const trip = [];
  for (let i = 0; i < QUERIES; i++) {
    const request = findPath(i, floor(), floor(), characters);
    t = performance.now();
    const r = reply(glue.answer(request));
    trip.push(performance.now() - t);
    if (r.kind !== 3) throw new Error(`${dir}: query ${i} was answered with kind ${r.kind}`);
    core.push(r.nanos / 1e6);
  }
  const brotli = zlib.brotliCompressSync(wasm, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11 } }).length;
  return {
    dir,
    raw: wasm.length,
    gzip: zlib.gzipSync(wasm, { level: 9 }).length,
    brotli,
    loadMs: loadMs.toFixed(1),
    queryMedianMs: median(core).toFixed(3),
    queryP95Ms: median(core, 0.95).toFixed(3),
    roundTripMedianMs: median(trip).toFixed(3),
  };
}

const dirs = process.argv.slice(2);
if (!dirs.length) dirs.push(path.resolve(path.dirname(new URL(import.meta.url).pathname), "..", "dist"));
const rows = [];
for (const dir of dirs) rows.push(await bench(dir));
console.log("| module | raw | gzip | brotli | grid + index load | query median | query p95 | round trip median |");
console.log("|---|---|---|---|---|---|---|---|");
for (const r of rows) {
  console.log(`| ${r.dir} | ${r.raw} | ${r.gzip} | ${r.brotli} | ${r.loadMs} ms | ${r.queryMedianMs} ms | ${r.queryP95Ms} ms | ${r.roundTripMedianMs} ms |`);
}
