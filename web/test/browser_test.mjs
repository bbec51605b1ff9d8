// Plays the demo's web build (web/build.sh) in headless Chromium and checks what a
// player sees: the room loads, a click on the floor walks there, a click into the
// closed garden stops at the fence, G opens the gate and the same click then walks
// into the garden. Then it plays a scripted minute (clicks round the room, the gate,
// the half-resolution mask) and reports every long task (over 50 ms) the browser
// saw after the room loaded.
//
// Fails on any panic, console error, error or warning logged by the demo, page
// error, failed request or HTTP error, and on every walk that ends where it should
// not. Screenshots go to web/test/screenshots.
//
//     node web/test/browser_test.mjs [DIST_DIR]
//
// It also reports the wasm's size as served: raw, gzip (level 9) and brotli (quality
// 11, as a static host serves it precompressed), and fails above 8 MB brotli.
//
// Searches run in the search worker (crates/walkmask_web_worker), as the demo asks;
// the test checks that they do, and plays the first walks again with the worker off
// (`?search-worker=off`: on the page's main thread, as where workers are missing).
//
// Environment: CHROMIUM (default /usr/bin/chromium), WALKMASK_WEB_PLAY_SECONDS (the
// scripted play, default 60), WALKMASK_WEB_REPORT (also write the numbers as JSON
// to this file), WALKMASK_WEB_PAGE_OPTIONS (added to the played page's address, such
// as `search-worker=off` to play the minute with searches on the main thread).

import { chromium } from "playwright-core";
import http from "node:http";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import zlib from "node:zlib";

const here = path.dirname(fileURLToPath(import.meta.url));
const dist = path.resolve(process.argv[2] ?? path.join(here, "..", "dist"));
const shots = path.join(here, "screenshots");
const playSeconds = Number(process.env.WALKMASK_WEB_PLAY_SECONDS ?? 60);
const executablePath = process.env.CHROMIUM ?? "/usr/bin/chromium";
const pageOptions = process.env.WALKMASK_WEB_PAGE_OPTIONS ?? "";
const workerOff = /(^|&)search-worker=off(&|$)/.test(pageOptions);
/** The most the wasm may weigh compressed (brotli, quality 11), in bytes. */
const MAX_WASM_BROTLI = 8_000_000;

/** A wasm of the build: bytes raw, gzip (level 9) and brotli (quality 11). */
function wasmSizes(dir, name = "demo_bg.wasm") {
  const wasm = fs.readFileSync(path.join(dir, name));
  const brotli = zlib.brotliCompressSync(wasm, {
    params: {
      [zlib.constants.BROTLI_PARAM_QUALITY]: 11,
      [zlib.constants.BROTLI_PARAM_LGWIN]: 24,
      [zlib.constants.BROTLI_PARAM_SIZE_HINT]: wasm.length,
    },
  });
  return { raw: wasm.length, gzip9: zlib.gzipSync(wasm, { level: 9 }).length, brotli11: brotli.length };
}

// The demo room is 1920 x 1080 pixels, drawn whole in a 1280 x 720 page.
const VIEW = { width: 1280, height: 720 };
const ROOM = { width: 1920, height: 1080 };
/** Room pixel (y down) to page pixel. */
const toPage = (x, y) => ({
  x: (x * VIEW.width) / ROOM.width,
  y: (y * VIEW.height) / ROOM.height,
});
/** Room pixel (y down) to the world point the demo logs (y up, origin at the centre). */
const toWorld = (x, y) => ({ x: x - ROOM.width / 2, y: ROOM.height / 2 - y });
/** The fence between lobby and garden runs at about room x = 1345. */
const FENCE_X = 1345;

const MIME = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".wasm": "application/wasm",
  ".png": "image/png",
  ".meta": "text/plain; charset=utf-8",
  ".ron": "text/plain; charset=utf-8",
  ".txt": "text/plain; charset=utf-8",
};

function serve(dir) {
  const server = http.createServer((req, res) => {
    const url = new URL(req.url, "http://localhost");
    const file = path.join(dir, decodeURIComponent(url.pathname === "/" ? "/index.html" : url.pathname));
    if (!file.startsWith(dir) || !fs.existsSync(file) || !fs.statSync(file).isFile()) {
      res.writeHead(404).end("not found");
      return;
    }
    res.writeHead(200, { "content-type": MIME[path.extname(file)] ?? "application/octet-stream" });
    fs.createReadStream(file).pipe(res);
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}

/** The demo's log lines, as tracing-wasm writes them: "%cLEVEL%c file:line%cmessage". */
function parseLog(text) {
  const m = /^%c(TRACE|DEBUG|INFO|WARN|ERROR)%c (\S*)%c(.*)$/s.exec(text);
  return m ? { level: m[1], origin: m[2], message: m[3].trim() } : null;
}

/** "[x, y]" as Bevy prints a Vec2. */
function parseVec2(s) {
  const m = /\[(-?[\d.]+), (-?[\d.]+)\]/.exec(s);
  return m ? { x: Number(m[1]), y: Number(m[2]) } : null;
}

async function main() {
  if (!fs.existsSync(path.join(dist, "index.html"))) {
    throw new Error(`no web build in ${dist}: run web/build.sh first`);
  }
  fs.mkdirSync(shots, { recursive: true });
  const server = await serve(dist);
  const base = `http://127.0.0.1:${server.address().port}/`;

  const failures = [];
  const lines = []; // { at, level, message }
  let waiters = [];
  const browser = await chromium.launch({
    executablePath,
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      // WebGL2 on the CPU: no GPU here.
      "--use-angle=swiftshader",
      "--enable-unsafe-swiftshader",
      "--ignore-gpu-blocklist",
    ],
  });
  const started = Date.now();
  const check = (ok, what) => {
    if (!ok) failures.push(what);
    console.log(`${ok ? "ok  " : "FAIL"} ${what}`);
  };

  /** A new page with the observers, failure checks and log waiters on it. */
  async function openPage() {
    const page = await browser.newPage({ viewport: VIEW });
    await page.addInitScript(() => {
      window.__longTasks = [];
      new PerformanceObserver((list) => {
        for (const e of list.getEntries()) {
          window.__longTasks.push({ start: e.startTime, duration: e.duration });
        }
      }).observe({ type: "longtask", buffered: true });
      window.__frames = [];
      const frame = (t) => {
        window.__frames.push(t);
        requestAnimationFrame(frame);
      };
      requestAnimationFrame(frame);
      // The frame (animation frame count) of each button release and each answer.
      window.__marks = [];
      document.addEventListener("pointerup", () => window.__marks.push({ kind: "up", frame: window.__frames.length }), true);
      const log = console.log.bind(console);
      console.log = (...args) => {
        if (typeof args[0] === "string" && args[0].includes("path ready")) {
          window.__marks.push({ kind: "answer", frame: window.__frames.length });
        }
        log(...args);
      };
    });
    page.on("console", async (msg) => {
      const at = Date.now();
      let text = msg.text();
      try {
        const first = msg.args()[0];
        if (first) text = String(await first.jsonValue());
      } catch {
        // the page navigated away; keep msg.text()
      }
      const log = parseLog(text);
      const level = log?.level ?? msg.type().toUpperCase();
      const message = log?.message ?? text;
      if (msg.type() === "error" || level === "ERROR" || level === "WARN") {
        // Expected here and said so by Bevy: a software adapter, and WebGL2 lacking
        // what some of Bevy's render plugins need.
        if (!/only supports software rendering|not loaded\. GPU lacks support/.test(message)) {
          failures.push(`console ${level}: ${message}`);
        }
      }
      if (/panicked/.test(message)) failures.push(`panic: ${message}`);
      lines.push({ at, level, message });
      const still = [];
      for (const w of waiters) {
        if (w.test(message)) w.resolve({ at, message });
        else still.push(w);
      }
      waiters = still;
    });
    page.on("pageerror", (e) => failures.push(`page error: ${e.message}`));
    page.on("requestfailed", (r) => failures.push(`request failed: ${r.url()} (${r.failure()?.errorText})`));
    page.on("response", (r) => {
      if (r.status() >= 400) failures.push(`HTTP ${r.status()}: ${r.url()}`);
    });
    return page;
  }

  /** Resolves with the next log line matching `re` (logged after this call). */
  const next = (re, timeoutMs, what) =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`)), timeoutMs);
      waiters.push({
        test: (m) => re.test(m),
        resolve: (v) => {
          clearTimeout(timer);
          resolve(v);
        },
      });
    });

  /** Moves the pointer to room pixel (x, y) as a player's hand does, rests, clicks. */
  async function click(page, x, y) {
    const p = toPage(x, y);
    await page.mouse.move(p.x, p.y, { steps: 6 });
    await page.waitForTimeout(120);
    await page.mouse.down();
    await page.waitForTimeout(60);
    await page.mouse.up();
  }

  /** Clicks room pixel (x, y); resolves with the walk's "path ready" and end lines and
   * the frames from the button's release to the answer. */
  async function walkTo(page, x, y, what) {
    const planned = next(/^(path ready|unreachable)/, 30_000, `the answer to ${what}`);
    const ended = next(/^(arrived at|walk stopped|unreachable)/, 60_000, `the end of ${what}`);
    await click(page, x, y);
    const clicked = Date.now();
    const answer = await planned;
    const end = await ended;
    const marks = await page.evaluate(() => window.__marks);
    const up = marks.findLast((m) => m.kind === "up");
    const answered = marks.find((m) => m.kind === "answer" && m.frame >= up.frame);
    return {
      answer,
      end,
      answerMs: answer.at - clicked,
      answerFrames: answered ? answered.frame - up.frame : null,
      walkMs: end.at - clicked,
    };
  }

  /** Loads `url`; resolves when the demo says it is ready. */
  async function load(page, url) {
    const ready = next(/^ready: /, 180_000, "the ready line");
    const navigated = Date.now();
    await page.goto(url);
    const readyLine = await ready;
    return { loadMs: readyLine.at - navigated, message: readyLine.message };
  }

  try {
    const page = await openPage();
    // WALKMASK_WEB_PROFILE=FILE: a CPU profile of the whole run (Chrome's
    // .cpuprofile format, with Rust function names), for finding what a long task was.
    const profiler = process.env.WALKMASK_WEB_PROFILE ? await page.context().newCDPSession(page) : null;
    if (profiler) {
      await profiler.send("Profiler.enable");
      await profiler.send("Profiler.setSamplingInterval", { interval: 500 });
      await profiler.send("Profiler.start");
    }
    const loaded = await load(page, pageOptions ? `${base}?${pageOptions}` : base);
    const loadMs = loaded.loadMs;
    const loadedAt = await page.evaluate(() => performance.now());
    console.log(`ready after ${loadMs} ms: ${loaded.message}`);
    await page.waitForTimeout(500);
    await page.screenshot({ path: path.join(shots, "1_loaded.png") });

    // 1. The floor: the walk ends exactly on the clicked point.
    const floor = await walkTo(page, 700, 800, "a click on the floor");
    const inWorker = lines.some((l) => /searches run in the search worker/.test(l.message));
    check(
      inWorker !== workerOff,
      workerOff ? "searches run on the main thread (search-worker=off)" : "searches run in the search worker",
    );
    const at1 = parseVec2(floor.end.message);
    const want1 = toWorld(700, 800);
    check(
      /^arrived at/.test(floor.end.message) && at1 && Math.hypot(at1.x - want1.x, at1.y - want1.y) < 2,
      `the floor click arrives where clicked (${floor.end.message}; clicked ${want1.x}, ${want1.y}; answer in ${floor.answerMs} ms)`,
    );
    await page.screenshot({ path: path.join(shots, "2_floor.png") });

    // 2. The garden with the gate closed: snapped, and the walk ends at the fence.
    const garden = await walkTo(page, 1640, 640, "a click into the closed garden");
    const at2 = parseVec2(garden.end.message);
    check(
      /snapped true/.test(garden.answer.message) && at2 && at2.x + ROOM.width / 2 < FENCE_X + 1,
      `the closed garden stops at the fence (${garden.answer.message}; ${garden.end.message})`,
    );
    await page.screenshot({ path: path.join(shots, "3_fence.png") });

    // 3. G opens the gate: the same click now walks into the garden.
    await page.keyboard.press("KeyG");
    await page.waitForTimeout(300);
    const open = await walkTo(page, 1640, 640, "a click into the open garden");
    const at3 = parseVec2(open.end.message);
    const want3 = toWorld(1640, 640);
    check(
      /^arrived at/.test(open.end.message) && at3 && Math.hypot(at3.x - want3.x, at3.y - want3.y) < 2,
      `the open garden is reached (${open.answer.message}; ${open.end.message})`,
    );
    await page.screenshot({ path: path.join(shots, "4_garden.png") });

    // 4. A scripted minute of play: clicks round the room (some while walking), the
    //    gate and the half-resolution mask, with the pointer moving as a player's does.
    const spots = [
      [300, 900], [900, 700], [1500, 900], [1640, 400], [200, 560], [1100, 1000],
      [760, 640], [1800, 700], [480, 980], [1300, 620], [1000, 820], [1640, 640],
    ];
    const playStart = Date.now();
    let clicks = 0;
    for (let i = 0; Date.now() - playStart < playSeconds * 1000; i++) {
      const [x, y] = spots[i % spots.length];
      await click(page, x, y);
      clicks++;
      if (i % 5 === 4) await page.keyboard.press("KeyG");
      if (i % 9 === 8) await page.keyboard.press("KeyH");
      await page.waitForTimeout(i % 3 === 0 ? 700 : 2300);
    }
    await page.screenshot({ path: path.join(shots, "5_played.png") });

    if (profiler) {
      const { profile } = await profiler.send("Profiler.stop");
      const origin = await page.evaluate(() => performance.timeOrigin);
      fs.writeFileSync(process.env.WALKMASK_WEB_PROFILE, JSON.stringify({ ...profile, pageTimeOrigin: origin }));
    }
    const longTasks = await page.evaluate(() => window.__longTasks);
    const frames = await page.evaluate((from) => window.__frames.filter((t) => t >= from), loadedAt);
    const gaps = frames.slice(1).map((t, i) => t - frames[i]).sort((a, b) => a - b);
    const at = (q) => (gaps.length ? Math.round(gaps[Math.min(gaps.length - 1, Math.floor(q * gaps.length))]) : null);
    const builds = lines
      .filter((l) => /^(grid|subgoal index) built in/.test(l.message))
      .map((l) => l.message);
    const afterLoad = longTasks.filter((t) => t.start >= loadedAt);
    const durations = afterLoad.map((t) => t.duration).sort((a, b) => a - b);
    const report = {
      load_ms: loadMs,
      floor_answer_ms: floor.answerMs,
      garden_answer_ms: garden.answerMs,
      open_garden_answer_ms: open.answerMs,
      answer_frames: [floor.answerFrames, garden.answerFrames, open.answerFrames],
      play_seconds: playSeconds,
      play_clicks: clicks,
      long_tasks_before_ready: longTasks.length - afterLoad.length,
      long_tasks_before_ready_max_ms: Math.max(0, ...longTasks.filter((t) => t.start < loadedAt).map((t) => t.duration)),
      long_tasks_after_ready: afterLoad.length,
      long_tasks_after_ready_ms: durations.map((d) => Math.round(d)),
      long_tasks_after_ready_at_ms: afterLoad.map((t) => [Math.round(t.start), Math.round(t.duration)]),
      frame_interval_ms: { median: at(0.5), p99: at(0.99), max: gaps.length ? Math.round(gaps[gaps.length - 1]) : null, frames: gaps.length },
      builds,
      demo_lines: lines.length,
      wall_seconds: (Date.now() - started) / 1000,
    };
    await page.close();

    // 5. Answers at a fixed frame (`AnswerTiming::AfterFrames(2)`, from the page's
    //    address): the same walks, each answer two frames or more after its click
    //    (exactly two once the grid and index are built; the first may wait for them).
    const fixed = await openPage();
    await load(fixed, `${base}?after-frames=2`);
    check(
      lines.some((l) => l.message === "answers land 2 frames after their request"),
      "the page's address set the answer timing",
    );
    await fixed.waitForTimeout(500);
    const fixedWalks = [];
    for (const [x, y, what] of [
      [700, 800, "the floor"],
      [1640, 640, "the closed garden"],
      [300, 900, "the floor again"],
    ]) {
      fixedWalks.push(await walkTo(fixed, x, y, `a click on ${what} (answers after 2 frames)`));
    }
    const fixedAt = parseVec2(fixedWalks[0].end.message);
    check(
      /^arrived at/.test(fixedWalks[0].end.message) && fixedAt && Math.hypot(fixedAt.x - want1.x, fixedAt.y - want1.y) < 2,
      `after 2 frames: the floor click arrives where clicked (${fixedWalks[0].end.message})`,
    );
    check(
      /snapped true/.test(fixedWalks[1].answer.message),
      `after 2 frames: the closed garden is snapped (${fixedWalks[1].answer.message})`,
    );
    const frames2 = fixedWalks.map((w) => w.answerFrames);
    check(
      frames2.every((f) => f !== null && f >= 2),
      `after 2 frames: no answer comes sooner (frames from release to answer: ${frames2.join(", ")})`,
    );
    await fixed.screenshot({ path: path.join(shots, "6_after_frames.png") });
    report.after_frames_2_answer_frames = frames2;
    await fixed.close();

    // 6. Without the search worker (as in a browser without workers): the same walks,
    //    searched on the page's main thread.
    const alone = await openPage();
    await load(alone, `${base}?search-worker=off`);
    const aloneWalks = [];
    for (const [x, y, what] of [
      [700, 800, "the floor"],
      [1640, 640, "the closed garden"],
    ]) {
      aloneWalks.push(await walkTo(alone, x, y, `a click on ${what} (no search worker)`));
    }
    const aloneAt = parseVec2(aloneWalks[0].end.message);
    check(
      /^arrived at/.test(aloneWalks[0].end.message) && aloneAt && Math.hypot(aloneAt.x - want1.x, aloneAt.y - want1.y) < 2,
      `no search worker: the floor click arrives where clicked (${aloneWalks[0].end.message})`,
    );
    check(
      /snapped true/.test(aloneWalks[1].answer.message),
      `no search worker: the closed garden is snapped (${aloneWalks[1].answer.message})`,
    );
    report.no_worker_answer_ms = aloneWalks.map((w) => w.answerMs);
    await alone.close();
    // Measured with the browser idle (brotli's best takes a minute or two).
    const sizes = wasmSizes(dist);
    report.wasm_bytes = sizes;
    report.worker_wasm_bytes = wasmSizes(dist, "walkmask_worker_bg.wasm");
    check(
      sizes.brotli11 <= MAX_WASM_BROTLI,
      `the wasm transfers in ${(sizes.brotli11 / 1e6).toFixed(2)} MB with brotli (${(sizes.gzip9 / 1e6).toFixed(2)} MB gzip, ${(sizes.raw / 1e6).toFixed(2)} MB raw; at most ${MAX_WASM_BROTLI / 1e6} MB)`,
    );
    report.page_options = pageOptions;
    report.wall_seconds = (Date.now() - started) / 1000;

    console.log(JSON.stringify(report, null, 1));
    if (process.env.WALKMASK_WEB_REPORT) {
      fs.writeFileSync(process.env.WALKMASK_WEB_REPORT, JSON.stringify(report, null, 1));
    }
  } catch (e) {
    failures.push(String(e?.stack ?? e));
  } finally {
    await browser.close();
    server.close();
  }
  if (failures.length || process.env.WALKMASK_WEB_VERBOSE) {
    console.log("\nthe page's last log lines:");
    for (const l of lines.slice(-40)) console.log(`  ${l.level} ${l.message}`);
  }
  if (failures.length) {
    console.error(`\n${failures.length} failure(s):`);
    for (const f of failures) console.error(`  ${f}`);
    process.exit(1);
  }
  console.log("browser test passed");
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
