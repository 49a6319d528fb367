// The playground (web/, built by scripts/build-web.sh) in headless Chromium, served from
// 127.0.0.1: every number and picture it shows must be what the native command line prints for
// the same flags, since the page runs the same code compiled to WebAssembly. With
// PIPEPLAN_SHOTS=DIR it also leaves a screenshot of the page there. Usage:
//   node playground.test.js BUILD_WEB_DIR NATIVE_PIPEPLAN CHROMIUM
"use strict";
const {execFileSync} = require("child_process");
const fs = require("fs");
const http = require("http");
const os = require("os");
const path = require("path");
const puppeteer = require("puppeteer-core");

const [siteArg, pipeplan, chromium] = process.argv.slice(2);
const site = path.resolve(siteArg);
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "pipeplan-web-"));
let failures = 0;

function check(ok, what, detail) {
  console.log(`${ok ? "ok  " : "FAIL"} ${what}`);
  if (!ok) {
    failures++;
    if (detail) console.log(detail);
  }
}

// The native command line's stdout for `args`.
function cli(...args) {
  return cliIn(tmp, ...args);
}
function cliIn(cwd, ...args) {
  return execFileSync(pipeplan, args, {cwd, encoding: "utf8", maxBuffer: 1 << 28});
}

const types = {".html": "text/html", ".js": "text/javascript", ".wasm": "application/wasm", ".json": "application/json"};
const missing = [];  // what the page asked of its own server that is not one of its files
let served = 0;      // bytes served
const server = http.createServer((req, res) => {
  const file = path.join(site, decodeURIComponent(new URL(req.url, "http://x").pathname).replace(/\/$/, "/index.html"));
  if (!file.startsWith(site + path.sep) || !fs.existsSync(file)) {
    missing.push(req.url);
    res.writeHead(404);
    res.end();
    return;
  }
  const body = fs.readFileSync(file);
  served += body.length;
  res.writeHead(200, {"Content-Type": types[path.extname(file)] || "application/octet-stream"});
  res.end(body);
});

async function main() {
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const base = `http://127.0.0.1:${server.address().port}/index.html`;
  const browser = await puppeteer.launch({executablePath: chromium, headless: true,
                                          args: ["--no-sandbox", "--disable-gpu", "--no-first-run"]});
  const page = await browser.newPage();
  // Every request the page makes is intercepted: its own files (this server) go on, anything else
  // is refused and recorded, and fails the test at the end (issue 28: no request to anything but
  // its own files). data: and blob: URLs are the page's own bytes (the icon, the downloads).
  const origin = `http://127.0.0.1:${server.address().port}/`;
  const outside = [];
  await page.setRequestInterception(true);
  page.on("request", (r) => {
    const url = r.url();
    if (url.startsWith(origin) || url.startsWith("data:") || url.startsWith("blob:") || url === "about:blank") {
      r.continue();
    } else {
      outside.push(url);
      r.abort();
    }
  });
  page.on("pageerror", (e) => check(false, "no script error on the page", e.message));
  let probing = false;  // the probe's refused request below logs an error of its own
  page.on("console", (m) => { if (m.type() === "error" && !probing) console.log("page console:", m.text()); });
  const text = (id) => page.$eval("#" + id, (e) => e.textContent);
  const html = (id) => page.$eval("#" + id, (e) => e.innerHTML);
  // Waits for the re-timing after `action` (body[data-runs] counts them).
  async function retimed(action) {
    const before = await page.$eval("body", (b) => Number(b.dataset.runs || 0));
    await action();
    await page.waitForFunction((n) => Number(document.body.dataset.runs || 0) > n, {timeout: 30000}, before);
  }
  // A download's bytes: its link pressed (which makes the file), then its blob read.
  const downloaded = (name) => page.evaluate((n) => {
    const a = document.querySelector(`#downloads a[download='${n}']`);
    if (!a) return null;
    a.click();
    return fetch(a.href).then((r) => r.text());
  }, name);
  // Sets inputs and re-times once (an input event on the last, as typing does).
  async function setFields(values) {
    await retimed(() => page.evaluate((v) => {
      let last = null;
      for (const [id, value] of Object.entries(v)) {
        last = document.getElementById(id);
        last.value = value;
      }
      last.dispatchEvent(new Event("input"));
    }, values));
  }
  const shown = async () => await text("summary") + "\n" + await text("critical");
  const opsOf = (json) => JSON.parse(json).order.reduce((n, device) => n + device.length, 0);
  // A fresh load each time: a goto that changes only the hash would not reload the page.
  async function open(hash) {
    await page.goto("about:blank");
    await page.goto(base + hash);
    try {
      await page.waitForFunction(() => document.body.dataset.ready === "yes", {timeout: 60000});
    } catch (e) {
      throw new Error(`${hash}: the page did not start: ${await text("error")}`);
    }
  }

  // 0. The interception sees a foreign request (so its silence below means something): one made
  // from a blank page, which has no Content-Security-Policy to stop it first.
  await page.goto("about:blank");
  probing = true;
  await page.evaluate(() => fetch("http://192.0.2.1/probe").catch(() => null));
  probing = false;
  check(outside.length === 1 && outside[0] === "http://192.0.2.1/probe", "a foreign request is caught and refused",
        outside.join("\n"));
  outside.length = 0;

  // The size bound (issue 28: the wasm and the scripts under 3 MB), on what is served.
  const pageFiles = ["index.html", "pipeplan.js", "pipeplan.wasm", "args.js", "app.js"];
  const bytes = pageFiles.reduce((sum, f) => sum + fs.statSync(path.join(site, f)).size, 0);
  check(bytes < 3000000, `the page, its wasm and scripts are ${bytes} bytes, under 3 MB`);

  // 1. The link: ZB-H1, P = 4, M = 8, F = B = W = 1 ms. Its makespan, by docs/schedules.md's
  // formula M(F+B+W) + (P-1)(F+B-W) = 8*3 + 3*1 = 27 ms; one box per op, P * M * 3 = 96 (an F, a B
  // and a W of every micro-batch on every stage).
  const flags = ["--stages", "4", "--microbatches", "8"];
  const costs = ["--costs", "1,1,1", "--memory", "1GiB,256MiB"];
  await open("#schedule=zbh1&stages=4&microbatches=8&costs=1,1,1&memory=1GiB,256MiB");
  check(served >= bytes, `a first load fetches ${served} bytes (its files, models/index.json)`);
  const summary = await text("summary") + "\n" + await text("critical");
  check(summary.includes("makespan 27.000 ms"), "zbh1 P=4 M=8 shows makespan 27.000 ms", summary);
  const boxes = await page.$$eval("#timeline svg rect.op", (r) => r.length);
  check(boxes === 96, `zbh1 P=4 M=8 draws 96 op boxes (drew ${boxes})`);
  fs.writeFileSync(path.join(tmp, "zbh1.json"), cli("generate", "--schedule", "zbh1", ...flags));
  const simulate = ["--optimizer-mode", "sync", "--iterations", "1", "--comm", "overlap"];
  const native = cli("simulate", "zbh1.json", ...costs, ...simulate, "--critical-path");
  check(summary === native, "the summary and critical path are the CLI's, line for line", `page:\n${summary}\ncli:\n${native}`);
  const svg = cli("export", "zbh1.json", "--format", "svg", ...costs, "--optimizer-mode", "sync", "--iterations", "1");
  const pageSvg = await page.evaluate(() => fetch((a => (a.click(), a.href))(document.querySelector("#downloads a[download='timeline.svg']")))
                                           .then((r) => r.text()));
  check(pageSvg === svg, "the timeline is the SVG writer's, byte for byte");
  const pageCsv = await page.evaluate(() => fetch((a => (a.click(), a.href))(document.querySelector("#downloads a[download='schedule.csv']")))
                                           .then((r) => r.text()));
  check(pageCsv === cli("export", "zbh1.json", "--format", "csv"), "the PyTorch CSV download is export's");
  const pageJson = await page.evaluate(() => fetch((a => (a.click(), a.href))(document.querySelector("#downloads a[download='schedule.json']")))
                                            .then((r) => r.text()));
  check(pageJson === fs.readFileSync(path.join(tmp, "zbh1.json"), "utf8"), "the JSON download is generate's");

  // With PIPEPLAN_SHOTS=DIR the page is kept there as a screenshot (docs/img/playground.png).
  if (process.env.PIPEPLAN_SHOTS) {
    await page.setViewport({width: 1400, height: 1000});
    await page.screenshot({path: path.join(process.env.PIPEPLAN_SHOTS, "playground.png")});
  }

  // 2. The automatic schedule: zb's search under a limit and post-validation, as the CLI runs it.
  // 3 GiB is below ZB-H1's 4 GiB peak (P a_F on device 0), so the search must find another order.
  const zbFlags = [...flags, ...costs, "--memory-limit", "3GiB", "--optimizer-mode", "post-validation"];
  await open("#schedule=zb&stages=4&microbatches=8&costs=1,1,1&memory=1GiB,256MiB&memory-limit=3GiB" +
             "&optimizer-mode=post-validation");
  fs.writeFileSync(path.join(tmp, "zb.json"), cli("generate", "--schedule", "zb", ...zbFlags));
  const zbNative = cli("simulate", "zb.json", ...costs, "--optimizer-mode", "post-validation", "--critical-path");
  const makespan = (s) => (s.match(/makespan [0-9.]+ ms/) || ["(none)"])[0];
  const zbPage = await text("summary") + "\n" + await text("critical");
  check(makespan(zbPage) === makespan(zbNative) && makespan(zbNative) !== "(none)",
        `zb under 3GiB, post-validation: the CLI's ${makespan(zbNative)} (page: ${makespan(zbPage)})`);
  check(zbPage === zbNative, "zb's whole summary is the CLI's", `page:\n${zbPage}\ncli:\n${zbNative}`);
  // With a limit the timeline is export's, which draws the limit in the memory panel.
  const zbSvg = cli("export", "zb.json", "--format", "svg", ...costs, "--optimizer-mode", "post-validation",
                    "--iterations", "1", "--memory-limit", "3GiB");
  check(await downloaded("timeline.svg") === zbSvg && zbSvg.includes('<line class="limit"'),
        "zb's timeline and memory panel are export's with the 3GiB limit drawn");

  // 3. Typing: P = 8, M = 32 re-times with the CLI's numbers, well under 100 ms (issue 28).
  await open("#schedule=1f1b&stages=4&microbatches=8");
  for (const [id, value] of [["stages", "8"], ["microbatches", "32"]]) {
    await retimed(async () => {
      await page.$eval("#" + id, (e) => { e.value = ""; });
      await page.type("#" + id, value);
    });
  }
  fs.writeFileSync(path.join(tmp, "p8.json"), cli("generate", "--schedule", "1f1b", "--stages", "8", "--microbatches", "32"));
  const p8 = cli("simulate", "p8.json", "--costs", "1,1,1", ...simulate, "--critical-path");
  const typed = await text("summary") + "\n" + await text("critical");
  check(typed === p8, "typed P = 8, M = 32: the summary is the CLI's", `page:\n${typed.slice(0, 400)}\ncli:\n${p8.slice(0, 400)}`);
  // The hash holds what differs from the defaults, plus the schedule, P and M (web/args.js).
  check(new URL(page.url()).hash === "#schedule=1f1b&stages=8&microbatches=32", "the hash follows the inputs",
        page.url());
  // One re-time is an input event's whole handling: generate, simulate, the SVG drawn into the
  // page. The best of ten decides, so that another job on a shared machine does not; the median
  // is printed beside it.
  const times = await page.evaluate(() => {
    const out = [];
    for (let i = 0; i < 10; i++) {
      const t0 = performance.now();
      document.getElementById("microbatches").dispatchEvent(new Event("input"));
      out.push(performance.now() - t0);
    }
    return out.sort((a, b) => a - b);
  });
  check(times[0] < 100, `P = 8, M = 32 re-times in ${times[0].toFixed(1)} ms (median ${times[5].toFixed(1)} ms), ` +
        "under 100 ms");

  // 4. A comparison on one time scale: compare's own table and picture.
  await open("#schedule=1f1b&stages=4&microbatches=8&memory=1GiB,256MiB&schedules=1f1b,zbh1,zbv");
  const compare = cli("compare", "--schedules", "1f1b,zbh1,zbv", ...flags, ...costs, ...simulate, "--svg", "-");
  const cut = compare.lastIndexOf("</svg>\n") + "</svg>\n".length;
  check(await text("compare-text") === compare.slice(cut), "the comparison table is compare's");
  check(await html("compare-svg") !== "", "the comparison is drawn");
  // 1F1B fuses B and W (P * M * 2 = 64 ops), ZB-H1 splits them (96), ZB-V runs V = 2 chunks of
  // each (P * 2 * M * 3 = 192): 352 boxes.
  const panels = await page.$$eval("#compare-svg svg rect.op", (r) => r.length);
  check(panels === 64 + 96 + 192, `the comparison draws 64 + 96 + 192 op boxes (drew ${panels})`);

  // 4b. Per-stage costs: the page sends them as a profile, one entry per device; the CLI given
  // the same profile (written here by hand, docs/formats.md) prints the same summary.
  await open("#schedule=1f1b&stages=4&microbatches=8&stage-costs=1,1,1;1,1,1;1,1,1;2,2,2&transfer=0.5");
  const stage = (f) => ({f_ms: f, b_ms: f, w_ms: f});
  fs.writeFileSync(path.join(tmp, "stage-costs.json"), JSON.stringify({format: "pipeplan.profile", schema_version: 1,
    stages: [stage(1), stage(1), stage(1), stage(2)], transfer: {ms: 0.5}}));
  fs.writeFileSync(path.join(tmp, "f4.json"), cli("generate", "--schedule", "1f1b", ...flags));
  const staged = cli("simulate", "f4.json", "--profile", "stage-costs.json", ...simulate, "--critical-path");
  const stagedPage = await text("summary") + "\n" + await text("critical");
  check(stagedPage === staged, "per-stage costs: the summary of the same profile", `page:\n${stagedPage}\ncli:\n${staged}`);

  // 4c. Every generator of `pipeplan list` is offered, and each draws what the CLI simulates: the
  // summary line for line and a box per op of its schedule. P = 4, M = 8 meets every listed
  // constraint (zbh2, eager-1f1b: M >= 2P-1 = 7; dualpipev: M >= 2P = 8; interleaved's default
  // V = 2: floor(8/4) = 2 divides 8). A generator that needs --memory-limit gets 3GiB, one that
  // needs costs gets the page's (list's "needs" column says which).
  const listing = cli("list").split("\n");
  const rows = listing.slice(1, listing.findIndex((l) => l.startsWith("P = "))).map((l) => l.split(/ {2,}/));
  const offered = await page.$$eval("#schedule option", (o) => o.map((x) => x.value));
  check(JSON.stringify(offered) === JSON.stringify(rows.map((r) => r[0])),
        `the page offers every generator of pipeplan list, in its order (${rows.length})`, offered.join(","));
  await open("#schedule=1f1b&stages=4&microbatches=8&memory=1GiB,256MiB");
  const drawnAlike = [];
  for (const [name, needs] of rows) {
    const limit = needs.includes("--memory-limit") ? ["--memory-limit", "3GiB"] : [];
    const costed = /\bcosts\b/.test(needs) ? [...costs, "--optimizer-mode", "sync", "--iterations", "1"] : [];
    await setFields({"memory-limit": limit.length ? "3GiB" : "", schedule: name});
    const json = cli("generate", "--schedule", name, ...flags, ...limit, ...costed);
    fs.writeFileSync(path.join(tmp, "g.json"), json);
    const want = cli("simulate", "g.json", ...costs, ...simulate, "--critical-path");
    const got = await shown();
    const drawn = await page.$$eval("#timeline svg rect.op", (r) => r.length);
    if (got === want && drawn === opsOf(json)) {
      drawnAlike.push(name);
    } else {
      check(false, `${name}: the CLI's summary and a box per op (${drawn} drawn, ${opsOf(json)} ops)`,
            `page:\n${got}\n${await text("error")}\ncli:\n${want}`);
    }
  }
  check(drawnAlike.length === rows.length, `every generator draws the CLI's summary and a box per op: ${drawnAlike}`);

  // 4d. V: interleaved 1F1B with 3 chunks per device (floor(8/4) = 2 divides 8); it fuses B and
  // W, so P * V * M * 2 = 4 * 3 * 8 * 2 = 192 boxes.
  await setFields({"memory-limit": "", schedule: "interleaved", chunks: "3"});
  fs.writeFileSync(path.join(tmp, "v3.json"), cli("generate", "--schedule", "interleaved", ...flags, "--chunks", "3"));
  const v3 = cli("simulate", "v3.json", ...costs, ...simulate, "--critical-path");
  check(await shown() === v3, "interleaved with V = 3: the CLI's summary", await shown());
  check(await page.$$eval("#timeline svg rect.op", (r) => r.length) === 192, "interleaved V = 3 draws 192 boxes");
  check(new URL(page.url()).hash.includes("&chunks=3&"), "the hash holds chunks=3", page.url());

  // 4e. Blocking communication with the batched lowering (--comm, --policy): simulate's summary,
  // lower's and export --with-comms's files; then the default policy (timed), which places the
  // posts with the costs.
  await open("#schedule=1f1b&stages=4&microbatches=8&memory=1GiB,256MiB&transfer=0.25&comm=blocking&policy=batched");
  const transferred = [...costs, "--transfer", "0.25"];
  const blocking = cli("simulate", "f4.json", ...transferred, "--optimizer-mode", "sync", "--iterations", "1",
                       "--comm", "blocking", "--policy", "batched", "--critical-path");
  check(await shown() === blocking && blocking.includes("lowered with batched"),
        "comm blocking, policy batched: the CLI's summary", `page:\n${await shown()}\ncli:\n${blocking}`);
  check(await downloaded("lowered.json") === cli("lower", "f4.json", "--policy", "batched"),
        "lowered.json is lower --policy batched's");
  check(await downloaded("schedule-comms.csv") ===
        cli("export", "f4.json", "--format", "csv", "--with-comms", "--policy", "batched"),
        "schedule-comms.csv is export --with-comms --policy batched's");
  await setFields({policy: ""});
  const timed = cli("simulate", "f4.json", ...transferred, "--optimizer-mode", "sync", "--iterations", "1",
                    "--comm", "blocking", "--critical-path");
  check(await shown() === timed && timed.includes("lowered with timed"), "the default policy: the CLI's (timed)",
        `page:\n${await shown()}\ncli:\n${timed}`);
  check(await downloaded("lowered.json") === cli("lower", "f4.json", ...transferred),
        "lowered.json under the default policy is lower's, timed with the costs");
  check(!new URL(page.url()).hash.includes("policy"), "the hash drops the default policy", page.url());

  // 5. A refusal reads as the CLI's message: zb needs a memory limit.
  await open("#schedule=zb&stages=4&microbatches=8");
  const error = await text("error");
  check(error.startsWith("pipeplan: error: zb: needs a memory limit"), "zb without a limit: the CLI's refusal", error);

  // 6. The planner on a shipped config: the ranked table as `pipeplan plan` prints it.
  await open("#schedule=1f1b&stages=4&microbatches=8&model=llama-2-7b&gpu=h100&gpus=8&seq=4096&global-batch=64");
  await page.waitForFunction(() => Number(document.body.dataset.plans || 0) > 0, {timeout: 120000});
  // The native plan on every core, the page's on one thread: the counts are the same on any
  // number of threads (lib/plan/planner.cpp, kBarLag).
  // The page passes its optimizer mode and iterations (sync, 1: plan's own defaults under sync).
  const rowsDir = path.join(tmp, "rows");
  const plan = cli("plan", "--model", path.resolve("profiles/models/llama-2-7b.json"), "--gpu", "h100", "--gpus", "8",
                   "--seq", "4096", "--global-batch", "64", "--emit-rows", rowsDir);
  const pagePlan = await text("plan-text");
  check(pagePlan === plan.split(path.resolve("profiles/models/llama-2-7b.json")).join("config.json"),
        "the planner's table is plan's", `page:\n${pagePlan}\ncli:\n${plan}`);
  const rowLinks = await page.$$eval("#plan-text .plan-row", (r) => r.map((x) => x.dataset.row).join(","));
  check(rowLinks === "1,2,3,4,5", `each of the 5 rows shown (--top 5) opens (${rowLinks})`);

  // 6b. A row opens its schedule: the one plan --emit-rows wrote for it, simulated with its
  // profile, with the fields at the row's schedule, pp, V and M as the table prints them, and its
  // step the table's.
  const line2 = plan.split("\n").find((l) => /^ +2  \S/.test(l)).trim().split(/\s+/);
  const [, rowSchedule, rowPp, , , , , rowV, rowM, , , , rowStep] = line2;
  await retimed(() => page.click("#plan-text .plan-row[data-row='2']"));
  const rowFile = (f) => path.join(rowsDir, "2", f);
  // In the row's folder, so that the summary names the profile as the page's does (profile.json).
  const rowNative = cliIn(path.join(rowsDir, "2"), "simulate", "schedule.json", "--profile", "profile.json",
                          ...simulate, "--critical-path");
  const rowPage = await shown();
  check(rowPage === rowNative, "row 2: the summary of its schedule and profile", `page:\n${rowPage}\ncli:\n${rowNative}`);
  // The table prints the step to as many decimals as its width allows (0.1 ms at 120 columns):
  // the summary's, rounded to those, is the table's.
  const pageStep = (rowPage.match(/^step ([0-9.]+) ms/m) || [])[1];
  const decimals = (rowStep.split(".")[1] || "").length;
  check(pageStep !== undefined && Number(pageStep).toFixed(decimals) === rowStep,
        `row 2's step is the table's ${rowStep} ms (${pageStep})`, rowPage);
  const fields = await page.evaluate(() => ["schedule", "stages", "microbatches", "chunks"].map((id) =>
    document.getElementById(id).value));
  check(JSON.stringify(fields) === JSON.stringify([rowSchedule, rowPp, rowM, rowV]),
        `row 2's fields are the table's: ${rowSchedule}, P ${rowPp}, M ${rowM}, V ${rowV} (${fields})`);
  const rowOps = opsOf(fs.readFileSync(rowFile("schedule.json"), "utf8"));
  check(await page.$$eval("#timeline svg rect.op", (r) => r.length) === rowOps, `row 2 draws its ${rowOps} ops`);
  check(await downloaded("profile.json") === fs.readFileSync(rowFile("profile.json"), "utf8"),
        "row 2's profile.json download is plan's");
  const rowHash = new URL(page.url()).hash;
  check(rowHash.includes("&plan-row=2"), "the hash names the row", rowHash);
  await open(rowHash);
  check(await shown() === rowNative, "the row's link opens the row again");
  await setFields({stages: "4", microbatches: "8", chunks: "", schedule: "1f1b"});
  check(!new URL(page.url()).hash.includes("plan-row") && await text("row-info") === "",
        "changing the schedule leaves the row", page.url());

  // 7. The GPUs offered are `pipeplan gpus`'s rows (under its header, above its note), and a
  // pasted config.json (the tiny test model) planned on one of them is plan's table for the file.
  const gpuRows = cli("gpus").split("\n").slice(1).filter((l) => /^[a-z0-9-]+ {2,}/.test(l)).map((l) => l.split(" ")[0]);
  const gpuOptions = await page.$$eval("#gpu option", (o) => o.map((x) => x.value));
  check(gpuRows.length > 0 && JSON.stringify(gpuOptions) === JSON.stringify(gpuRows),
        `the page offers the GPUs of pipeplan gpus (${gpuRows.length})`, `page: ${gpuOptions}\ncli: ${gpuRows}`);
  await open("#schedule=1f1b&stages=4&microbatches=8&gpu=a100-80gb&gpus=4&seq=256&global-batch=16");
  const tiny = path.resolve("tests/data/models/tiny-llama.json");
  await page.$eval("#config", (e, t) => { e.value = t; }, fs.readFileSync(tiny, "utf8"));
  const plans = await page.$eval("body", (b) => Number(b.dataset.plans || 0));
  await page.click("#plan-run");
  await page.waitForFunction((n) => Number(document.body.dataset.plans || 0) > n, {timeout: 120000}, plans);
  const tinyPlan = cli("plan", "--model", tiny, "--gpu", "a100-80gb", "--gpus", "4", "--seq", "256",
                       "--global-batch", "16");
  check(await text("plan-text") === tinyPlan.split(tiny).join("config.json"), "a pasted config: plan's table",
        `page:\n${await text("plan-text")}\ncli:\n${tinyPlan}`);

  check(outside.length === 0, "the page asked nothing of any host but its own", outside.join("\n"));
  check(missing.length === 0, "every file the page asked of its server is one of its own", missing.join("\n"));
  await browser.close();
  server.close();
  fs.rmSync(tmp, {recursive: true, force: true});
  console.log(failures === 0 ? "all playground checks passed" : `${failures} playground checks failed`);
  process.exit(failures === 0 ? 0 : 1);
}

main().catch((e) => {
  console.log("FAIL", e.stack || e.message);
  process.exit(1);
});
