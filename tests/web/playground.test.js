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
  return execFileSync(pipeplan, args, {cwd: tmp, encoding: "utf8", maxBuffer: 1 << 28});
}

const types = {".html": "text/html", ".js": "text/javascript", ".wasm": "application/wasm", ".json": "application/json"};
const requests = [];
const server = http.createServer((req, res) => {
  requests.push(req.url);
  const file = path.join(site, decodeURIComponent(new URL(req.url, "http://x").pathname).replace(/\/$/, "/index.html"));
  if (!file.startsWith(site + path.sep) || !fs.existsSync(file)) {
    res.writeHead(404);
    res.end();
    return;
  }
  res.writeHead(200, {"Content-Type": types[path.extname(file)] || "application/octet-stream"});
  res.end(fs.readFileSync(file));
});

async function main() {
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const base = `http://127.0.0.1:${server.address().port}/index.html`;
  const browser = await puppeteer.launch({executablePath: chromium, headless: true,
                                          args: ["--no-sandbox", "--disable-gpu", "--no-first-run"]});
  const page = await browser.newPage();
  const outside = [];
  page.on("request", (r) => { if (!r.url().startsWith("http://127.0.0.1") && !r.url().startsWith("blob:")) outside.push(r.url()); });
  page.on("pageerror", (e) => check(false, "no script error on the page", e.message));
  page.on("console", (m) => { if (m.type() === "error") console.log("page console:", m.text()); });
  const text = (id) => page.$eval("#" + id, (e) => e.textContent);
  const html = (id) => page.$eval("#" + id, (e) => e.innerHTML);
  // Waits for the re-timing after `action` (body[data-runs] counts them).
  async function retimed(action) {
    const before = await page.$eval("body", (b) => Number(b.dataset.runs || 0));
    await action();
    await page.waitForFunction((n) => Number(document.body.dataset.runs || 0) > n, {timeout: 30000}, before);
  }
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

  // 1. The link: ZB-H1, P = 4, M = 8, F = B = W = 1 ms. Its makespan, by docs/schedules.md's
  // formula M(F+B+W) + (P-1)(F+B-W) = 8*3 + 3*1 = 27 ms; one box per op, P * M * 3 = 96 (an F, a B
  // and a W of every micro-batch on every stage).
  const flags = ["--stages", "4", "--microbatches", "8"];
  const costs = ["--costs", "1,1,1", "--memory", "1GiB,256MiB"];
  await open("#schedule=zbh1&stages=4&microbatches=8&costs=1,1,1&memory=1GiB,256MiB");
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
  check(page.url().includes("stages=8") && page.url().includes("microbatches=32"), "the hash follows the inputs");
  // The best of ten, so that another job on a shared machine does not decide it.
  const ms = await page.evaluate(() => {
    let best = Infinity;
    for (let i = 0; i < 10; i++) {
      const t0 = performance.now();
      document.getElementById("microbatches").dispatchEvent(new Event("input"));
      best = Math.min(best, performance.now() - t0);
    }
    return best;
  });
  check(ms < 100, `P = 8, M = 32 re-times in ${ms.toFixed(1)} ms, under 100 ms`);

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

  // 5. A refusal reads as the CLI's message: zb needs a memory limit.
  await open("#schedule=zb&stages=4&microbatches=8");
  const error = await text("error");
  check(error.startsWith("pipeplan: error: zb: needs a memory limit"), "zb without a limit: the CLI's refusal", error);

  // 6. The planner on a shipped config: the ranked table as `pipeplan plan` prints it.
  await open("#schedule=1f1b&stages=4&microbatches=8&model=llama-2-7b&gpu=h100&gpus=8&seq=4096&global-batch=64");
  await page.waitForFunction(() => Number(document.body.dataset.plans || 0) > 0, {timeout: 120000});
  // --threads 1, as the page runs: with several threads the counts of skipped configurations
  // depend on which thread raised the shared top-K bound first (the rows shown do not).
  const plan = cli("plan", "--model", path.resolve("profiles/models/llama-2-7b.json"), "--gpu", "h100", "--gpus", "8",
                   "--seq", "4096", "--global-batch", "64", "--threads", "1");
  const pagePlan = await text("plan-text");
  check(pagePlan === plan.split(path.resolve("profiles/models/llama-2-7b.json")).join("config.json"),
        "the planner's table is plan's", `page:\n${pagePlan}\ncli:\n${plan}`);

  check(outside.length === 0, "the page asked nothing of any host but its own", outside.join("\n"));
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
