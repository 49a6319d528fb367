// The playground: reads the inputs into the state (the URL hash), runs the commands of args.js
// in the WebAssembly build of pipeplan, and shows what they print. Each change re-times at once.
"use strict";

const page = {module: null, registry: [], runs: 0, lastSchedule: "", lastSvg: "", lastCsv: ""};
const $ = (id) => document.getElementById(id);
const FIELDS = ["schedule", "stages", "microbatches", "chunks", "group", "costs", "stage-costs", "transfer", "memory",
                "memory-limit", "optimizer-mode", "iterations", "comm", "model", "gpu", "gpus", "seq", "global-batch"];

// One pipeplan command: {args, files} in, {exit, stdout, stderr} out.
function call(request) {
  const answer = page.module.ccall("pipeplan_call", "number", ["string"], [JSON.stringify(request)]);
  return JSON.parse(page.module.UTF8ToString(answer));
}

function readState() {
  const state = {};
  for (const id of FIELDS) state[id] = $(id).value.trim();
  const chosen = [...document.querySelectorAll("#compare-list input:checked")].map((c) => c.value);
  state.schedules = chosen.join(",");
  return state;
}

function showState(state) {
  for (const id of FIELDS) {
    if (state[id] !== undefined) $(id).value = state[id];
  }
  const chosen = (state.schedules || "").split(",");
  for (const box of document.querySelectorAll("#compare-list input")) box.checked = chosen.includes(box.value);
}

// A link that makes its file when it is pressed (the CSV costs an export the page need not run
// on every keystroke); pointerdown and focus come before the click that follows the href.
function download(name, make, type) {
  const a = document.createElement("a");
  a.href = "#";
  const fill = () => {
    if (a.dataset.made) return;
    a.href = URL.createObjectURL(new Blob([make()], {type}));
    a.dataset.made = "yes";
  };
  a.addEventListener("pointerdown", fill);
  a.addEventListener("focus", fill);
  a.addEventListener("click", fill);
  a.download = name;
  a.textContent = name;
  a.style.marginRight = "12px";
  return a;
}

// A failed command shows its message as the command line prints it; returns its stdout or null.
function stdoutOf(result, errors) {
  if (result.exit !== 0) {
    errors.push(result.stderr.trim() || `pipeplan exited with ${result.exit}`);
    return null;
  }
  return result.stdout;
}

function retime() {
  const started = performance.now();
  const state = readState();
  history.replaceState(null, "", writeHash(state));
  const errors = [];
  const generator = page.registry.find((g) => g.name === state.schedule);
  $("schedule-help").textContent = generator ? `${generator.description} (needs ${generator.constraints})` : "";
  let schedule = null;
  try {
    if (generator) schedule = stdoutOf(call(generateCall(state, generator)), errors);
  } catch (e) {
    errors.push(e.message);
  }
  $("summary").textContent = "";
  $("critical").textContent = "";
  $("timeline").innerHTML = "";
  $("downloads").replaceChildren();
  if (schedule !== null) {
    const simulated = stdoutOf(call(simulateCall(state, schedule)), errors);
    let svg = null;
    if (simulated !== null) {
      const parts = splitSvg(simulated);
      // simulate prints the summary, a blank line, then the critical path (--critical-path).
      const cut = parts.text.indexOf("\ncritical path:");
      $("summary").textContent = cut < 0 ? parts.text : parts.text.slice(0, cut);
      $("critical").textContent = cut < 0 ? "" : parts.text.slice(cut + 1);
      svg = parts.svg;
    }
    // simulate draws no memory limit; export does, at the cost of a second simulation.
    if (svg !== null && state["memory-limit"]) svg = stdoutOf(call(exportCall(state, schedule, "svg")), errors);
    if (svg !== null) $("timeline").innerHTML = svg;
    $("downloads").append(download("schedule.json", () => schedule, "application/json"));
    $("downloads").append(download("schedule.csv", () => stdoutOf(call(exportCall(state, schedule, "csv")), []) || "",
                                   "text/csv"));
    if (svg !== null) $("downloads").append(download("timeline.svg", () => svg, "image/svg+xml"));
  }
  const names = state.schedules ? state.schedules.split(",") : [];
  $("compare-section").hidden = names.length === 0;
  if (names.length > 0) {
    try {
      const out = stdoutOf(call(compareCall(state, names, page.registry)), errors);
      const parts = splitSvg(out || "");
      $("compare-text").textContent = parts.text;
      $("compare-svg").innerHTML = parts.svg;
    } catch (e) {
      errors.push(e.message);
    }
  }
  $("error").textContent = errors.join("\n");
  $("timing").textContent = `re-timed in ${(performance.now() - started).toFixed(0)} ms`;
  document.body.dataset.runs = String(++page.runs);
}

async function configText(state) {
  if ($("config").value.trim() !== "") return $("config").value;
  if (!state.model) throw new Error("planner: pick a model or paste a config.json");
  const response = await fetch(`models/${encodeURIComponent(state.model)}.json`);
  if (!response.ok) throw new Error(`planner: models/${state.model}.json: ${response.status}`);
  return response.text();
}

async function runPlan() {
  const state = readState();
  history.replaceState(null, "", writeHash(state));
  $("plan-section").hidden = false;
  $("plan-text").textContent = "planning...";
  try {
    const result = call(planCall(state, await configText(state)));
    $("plan-text").textContent = result.exit === 0 ? result.stdout : result.stderr;
  } catch (e) {
    $("plan-text").textContent = e.message;
  }
  document.body.dataset.plans = String(Number(document.body.dataset.plans || 0) + 1);
}

async function start() {
  page.module = await createPipeplan({print: () => {}, printErr: () => {}});
  page.registry = call({registry: true}).generators;
  for (const g of page.registry) {
    $("schedule").append(new Option(g.name, g.name));
    const label = document.createElement("label");
    const box = Object.assign(document.createElement("input"), {type: "checkbox", value: g.name});
    label.append(box, " " + g.name);
    $("compare-list").append(label);
  }
  // The GPUs as `pipeplan gpus` lists them: the first word of each row under the header.
  const gpus = call({args: ["gpus"]}).stdout.split("\n").slice(1).map((l) => l.split(/\s+/)[0]).filter(Boolean);
  for (const name of gpus) $("gpu").append(new Option(name, name));
  try {
    const models = await (await fetch("models/index.json")).json();
    for (const name of models) $("model").append(new Option(name, name));
  } catch (e) {
    // No models folder (the page served from its sources alone): pasting a config still works.
  }
  const state = parseHash(location.hash);
  showState(state);
  for (const el of document.querySelectorAll("aside input, aside select")) el.addEventListener("input", retime);
  $("plan-run").addEventListener("click", runPlan);
  window.addEventListener("hashchange", () => {
    const changed = parseHash(location.hash);
    showState(changed);
    retime();
    if (changed.model) runPlan();
  });
  retime();
  if (state.model) await runPlan();
  document.body.dataset.ready = "yes";
}

start().catch((e) => {
  $("error").textContent = "the page could not start pipeplan: " + e.message;
});
