// The playground: reads the inputs into the state (the URL hash), runs the commands of args.js
// in the WebAssembly build of pipeplan, and shows what they print. Each change re-times at once.
"use strict";

// plan: the files of the last plan (plan --emit-rows, collected), to open its rows' schedules.
const page = {module: null, registry: [], runs: 0, plan: null};
const $ = (id) => document.getElementById(id);
const FIELDS = ["schedule", "stages", "microbatches", "chunks", "group", "costs", "stage-costs", "transfer", "memory",
                "memory-limit", "optimizer-mode", "iterations", "comm", "policy", "model", "gpu", "gpus", "seq",
                "global-batch", "plan-row"];
// The fields a planner row's schedule and profile stand for: changing one leaves the row for the
// page's own schedule and costs. The simulation's settings (optimizer mode, comm, policy, the
// drawn memory limit) apply to the row as they are.
const ROW_FIELDS = ["schedule", "stages", "microbatches", "chunks", "group", "costs", "stage-costs", "transfer",
                    "memory"];

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
  // A key the hash leaves out empties its input (a select keeps its choice): a link sets what it says.
  for (const id of FIELDS) {
    if (state[id] !== undefined) {
      $(id).value = state[id];
    } else if ($(id).tagName === "INPUT") {
      $(id).value = "";
    }
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

// The planner row the state names (plan-row): its schedule and profile, with the fields set to
// its generator, P, M and V; null when none is named.
function openedRow(state, errors) {
  $("row-info").textContent = "";
  if (!state["plan-row"]) return null;
  const n = state["plan-row"];
  const row = page.plan ? planRowFiles(page.plan, n) : null;
  if (row === null) {
    errors.push(page.plan ? `plan-row ${n}: the plan shows no row ${n}` : `plan-row ${n}: run the planner first`);
    return null;
  }
  const fields = scheduleFields(row.schedule);
  for (const [id, value] of Object.entries(fields)) {
    $(id).value = value;
    state[id] = value;
  }
  $("row-info").textContent = `The planner's row ${n}: ${fields.schedule}, P = ${fields.stages}, ` +
      `M = ${fields.microbatches}, V = ${fields.chunks}, with the costs of its profile (profile.json); ` +
      "change the schedule or its costs to leave it.";
  state.rowProfile = row.profile;
  return row;
}

function retime() {
  const started = performance.now();
  const state = readState();
  const errors = [];
  const row = openedRow(state, errors);
  history.replaceState(null, "", writeHash(state));
  const generator = page.registry.find((g) => g.name === state.schedule);
  $("schedule-help").textContent = generator ? `${generator.description} (needs ${generator.constraints})` : "";
  $("policy").title = state.comm === "overlap" ? "under comm overlap the policy shapes only the lowered downloads" : "";
  let schedule = row ? row.schedule : null;
  try {
    if (!row && generator) schedule = stdoutOf(call(generateCall(state, generator)), errors);
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
    // A download that fails (lower refusing a schedule) holds the command line's message.
    const made = (request) => () => {
      const result = call(request);
      return result.exit === 0 ? result.stdout : result.stderr;
    };
    $("downloads").append(download("schedule.json", () => schedule, "application/json"));
    $("downloads").append(download("schedule.csv", made(exportCall(state, schedule, "csv")), "text/csv"));
    $("downloads").append(download("schedule-comms.csv", made(exportCall(state, schedule, "csv-comms")), "text/csv"));
    $("downloads").append(download("lowered.json", made(lowerCall(state, schedule)), "application/json"));
    if (row) $("downloads").append(download("profile.json", () => row.profile, "application/json"));
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

// plan's table with each row it wrote (--emit-rows) a link to open: the text stays plan's, line
// for line; a row line is "  N  schedule ...".
function showPlan(text, files) {
  const out = $("plan-text");
  out.replaceChildren();
  for (const line of text.split(/(?<=\n)/)) {
    const n = (line.match(/^ +([0-9]+)  \S/) || [])[1];
    if (n === undefined || planRowFiles(files, n) === null) {
      out.append(line);
      continue;
    }
    const link = Object.assign(document.createElement("span"), {className: "plan-row", tabIndex: 0, textContent: line});
    link.dataset.row = n;
    link.setAttribute("role", "button");
    const open = () => {
      $("plan-row").value = n;
      retime();
    };
    link.addEventListener("click", open);
    link.addEventListener("keydown", (e) => { if (e.key === "Enter") open(); });
    out.append(link);
  }
}

// Runs the planner, then re-times: a plan-row in the state opens that row of the new plan.
async function runPlan() {
  const state = readState();
  history.replaceState(null, "", writeHash(state));
  $("plan-section").hidden = false;
  $("plan-text").textContent = "planning...";
  page.plan = null;
  try {
    const result = call(planCall(state, await configText(state)));
    page.plan = result.files || {};
    if (result.exit === 0) {
      showPlan(result.stdout, page.plan);
    } else {
      $("plan-text").textContent = result.stdout + result.stderr;
    }
  } catch (e) {
    $("plan-text").textContent = e.message;
  }
  document.body.dataset.plans = String(Number(document.body.dataset.plans || 0) + 1);
  retime();
}

async function start() {
  page.module = await createPipeplan({print: () => {}, printErr: () => {}});
  const tables = call({registry: true});
  page.registry = tables.generators;
  // The choices of --optimizer-mode, --comm and --policy, from the library's tables.
  for (const [id, rows] of [["optimizer-mode", tables.optimizer_modes], ["comm", tables.comm_modes],
                            ["policy", tables.policies]]) {
    for (const row of rows) $(id).append(Object.assign(new Option(row.name, row.name), {title: row.description}));
  }
  for (const g of page.registry) {
    $("schedule").append(new Option(g.name, g.name));
    const label = document.createElement("label");
    const box = Object.assign(document.createElement("input"), {type: "checkbox", value: g.name});
    label.append(box, " " + g.name);
    $("compare-list").append(label);
  }
  for (const name of tables.gpus) $("gpu").append(new Option(name, name));
  try {
    const models = await (await fetch("models/index.json")).json();
    for (const name of models) $("model").append(new Option(name, name));
  } catch (e) {
    // No models folder (the page served from its sources alone): pasting a config still works.
  }
  const state = parseHash(location.hash);
  showState(state);
  for (const el of document.querySelectorAll("aside input, aside select")) {
    el.addEventListener("input", () => {
      if (ROW_FIELDS.includes(el.id)) $("plan-row").value = "";
      retime();
    });
  }
  $("plan-run").addEventListener("click", () => {
    $("plan-row").value = "";
    runPlan();
  });
  window.addEventListener("hashchange", () => {
    const changed = parseHash(location.hash);
    showState(changed);
    if (changed.model) {
      runPlan();
    } else {
      retime();
    }
  });
  if (state.model) {
    await runPlan();
  } else {
    retime();
  }
  document.body.dataset.ready = "yes";
}

start().catch((e) => {
  $("error").textContent = "the page could not start pipeplan: " + e.message;
});
