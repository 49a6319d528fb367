// The page's state as the command line's flags: the same names (the URL hash uses them too), and
// for each generator only the flags the registry says it takes, so the page never sends a flag
// the command line would refuse for a schedule the user did not ask it of. Pure functions, no DOM.
"use strict";

// The keys of the URL hash, in the order they are written. All but stage-costs, model and
// plan-row are pipeplan flags; stage-costs is the page's per-stage F,B,W, sent as a profile file;
// model names a config of profiles/models/ (plan's --model); plan-row is the planner's row whose
// schedule the page shows, numbered as plan's table numbers it.
const STATE_KEYS = ["schedule", "stages", "microbatches", "chunks", "group", "costs", "stage-costs", "transfer",
                    "memory", "memory-limit", "optimizer-mode", "iterations", "comm", "policy", "schedules",
                    "model", "gpu", "gpus", "seq", "global-batch", "plan-row"];
// The planner's GPU is the H100 unless the link names another: a select's first choice would
// otherwise stand in the hash of every link.
const DEFAULTS = {schedule: "1f1b", stages: "4", microbatches: "8", costs: "1,1,1", "optimizer-mode": "sync",
                  iterations: "1", comm: "overlap", gpu: "h100", gpus: "8", seq: "4096", "global-batch": "64"};

function parseHash(hash) {
  const state = {...DEFAULTS};
  for (const part of hash.replace(/^#/, "").split("&")) {
    if (!part) continue;
    const eq = part.indexOf("=");
    const key = decodeURIComponent(eq < 0 ? part : part.slice(0, eq));
    if (STATE_KEYS.includes(key)) state[key] = decodeURIComponent(eq < 0 ? "" : part.slice(eq + 1));
  }
  return state;
}

// Only what differs from the defaults, plus the schedule and P, M: a short link.
function writeHash(state) {
  const parts = [];
  for (const key of STATE_KEYS) {
    const value = state[key];
    if (value === undefined || value === "") continue;
    if (value === DEFAULTS[key] && !["schedule", "stages", "microbatches"].includes(key)) continue;
    parts.push(key + "=" + encodeURIComponent(value).replace(/%2C/g, ",").replace(/%3B/g, ";"));
  }
  return "#" + parts.join("&");
}

// stage-costs "F,B,W;F,B,W" with the memory and transfer fields as a pipeplan.profile
// (docs/formats.md, "Profile"), one entry per device.
function stageProfile(state) {
  const memory = (state.memory || "").split(",");
  const stages = state["stage-costs"].split(";").filter((s) => s.trim() !== "").map((entry, i) => {
    const v = entry.split(",").map((x) => x.trim());
    if (v.length !== 3 || v.some((x) => x === "" || isNaN(Number(x)))) {
      throw new Error(`stage-costs: entry ${i} should be F,B,W in milliseconds, got '${entry}'`);
    }
    const stage = {f_ms: Number(v[0]), b_ms: Number(v[1]), w_ms: Number(v[2])};
    if (state.memory) Object.assign(stage, {activation_bytes: memory[0], w_activation_bytes: memory[1] || "0"});
    return stage;
  });
  const profile = {format: "pipeplan.profile", schema_version: 1, stages};
  const transfers = (state.transfer || "").split(",").filter((x) => x !== "");
  if (transfers.length === 1) profile.transfer = {ms: Number(transfers[0])};
  if (transfers.length > 1) {
    profile.schema_version = 2;
    profile.boundaries = transfers.map((ms) => ({ms: Number(ms)}));
  }
  return JSON.stringify(profile);
}

// The cost flags (and the profile file they may name): simulate, compare, export and the
// automatic generators take the same ones. A planner row's own profile (state.rowProfile, the
// profile.json plan --emit-rows wrote for it) replaces the page's costs.
function costFlags(state, files) {
  if (state.rowProfile) {
    files["profile.json"] = state.rowProfile;
    return ["--profile", "profile.json"];
  }
  if (state["stage-costs"]) {
    files["stage-costs.json"] = stageProfile(state);
    return ["--profile", "stage-costs.json"];
  }
  const flags = ["--costs", state.costs || "1,1,1"];
  if (state.transfer) flags.push("--transfer", state.transfer);
  if (state.memory) flags.push("--memory", state.memory);
  return flags;
}

function simFlags(state) {
  return ["--optimizer-mode", state["optimizer-mode"] || "sync", "--iterations", state.iterations || "1"];
}

// --comm, and --policy where the simulation places sends and receives (blocking, rendezvous):
// under overlap there are none, and the policy shapes only the lowered downloads.
function commFlags(state) {
  const comm = state.comm || "overlap";
  const flags = ["--comm", comm];
  if (state.policy && comm !== "overlap") flags.push("--policy", state.policy);
  return flags;
}

function requestFlags(state) {
  const flags = ["--stages", state.stages, "--microbatches", state.microbatches];
  if (state.chunks) flags.push("--chunks", state.chunks);
  return flags;
}

// `pipeplan generate` for the state's schedule: the cost, limit and objective flags only for
// the generators that take them (the registry's uses_costs and memory_limit), --group only for
// a grouped one.
function generateCall(state, generator) {
  const files = {};
  const args = ["generate", "--schedule", state.schedule, ...requestFlags(state)];
  if (state.group && generator.takes_group) args.push("--group", state.group);
  if (state["memory-limit"] && generator.memory_limit !== "none") args.push("--memory-limit", state["memory-limit"]);
  if (generator.uses_costs) args.push(...costFlags(state, files), ...simFlags(state));
  return {args, files};
}

// `pipeplan simulate` of the generated schedule: the timeline's SVG (to stdout, first), the
// summary and the critical path, from one simulation.
function simulateCall(state, scheduleJson) {
  const files = {"schedule.json": scheduleJson};
  const args = ["simulate", "schedule.json", ...costFlags(state, files), ...simFlags(state), ...commFlags(state),
                "--critical-path", "--svg", "-"];
  return {args, files};
}

// `pipeplan export --format svg|csv` of the generated schedule, to stdout: the SVG with the
// memory limit drawn (simulate draws none), the PyTorch CSV; "csv-comms" is the CSV with its
// sends and receives (--with-comms) placed by the policy, which the timed one places with the costs.
function exportCall(state, scheduleJson, format) {
  const files = {"schedule.json": scheduleJson};
  const args = ["export", "schedule.json", "--format", format === "csv-comms" ? "csv" : format];
  if (format === "svg") {
    args.push(...costFlags(state, files), ...simFlags(state));
    if (state["memory-limit"]) args.push("--memory-limit", state["memory-limit"]);
  }
  if (format === "csv-comms") {
    args.push("--with-comms");
    if (state.policy) args.push("--policy", state.policy);
    if (!state.policy || state.policy === "timed") args.push(...costFlags(state, files));
  }
  return {args, files};
}

// `pipeplan lower` of the generated schedule under the policy: the sends and receives it would
// post. Only the timed policy (lower's default) takes the costs; lower refuses them for the others.
function lowerCall(state, scheduleJson) {
  const files = {"schedule.json": scheduleJson};
  const args = ["lower", "schedule.json"];
  if (state.policy) args.push("--policy", state.policy);
  if (!state.policy || state.policy === "timed") args.push(...costFlags(state, files));
  return {args, files};
}

// `pipeplan compare` of the chosen schedules, with its SVG to stdout before the table.
function compareCall(state, names, registry) {
  const files = {};
  const args = ["compare", "--schedules", names.join(","), ...requestFlags(state), ...costFlags(state, files),
                ...simFlags(state), ...commFlags(state), "--svg", "-"];
  const chosen = registry.filter((g) => names.includes(g.name));
  if (state.group && chosen.some((g) => g.takes_group)) args.push("--group", state.group);
  if (state["memory-limit"]) args.push("--memory-limit", state["memory-limit"]);
  return {args, files};
}

// `pipeplan plan` for a config.json the page holds, under the page's optimizer mode and
// communication (each row timed as the page then simulates its schedule), writing each row it
// shows into rows/N (--emit-rows), which the page collects to open a row's schedule.
function planCall(state, configJson) {
  const files = {"config.json": configJson};
  const args = ["plan", "--model", "config.json", "--gpu", state.gpu, "--gpus", state.gpus, "--seq", state.seq,
                "--global-batch", state["global-batch"], ...simFlags(state), ...commFlags(state), "--emit-rows", "rows"];
  return {args, files, collect: "rows"};
}

// A planner row's files from planCall's answer: {schedule, profile}, or null when plan did not
// write row n.
function planRowFiles(files, n) {
  const schedule = files[`rows/${n}/schedule.json`];
  const profile = files[`rows/${n}/profile.json`];
  return schedule === undefined || profile === undefined ? null : {schedule, profile};
}

// The fields of the page a schedule file sets: its generator, P (devices), M and V (stages per
// device), as docs/formats.md's schedule format holds them.
function scheduleFields(scheduleJson) {
  const s = JSON.parse(scheduleJson);
  return {schedule: s.name, stages: String(s.devices), microbatches: String(s.microbatches),
          chunks: String(s.stages / s.devices)};
}

// stdout of a command that wrote an SVG to stdout ("-") and then its text: the two apart.
function splitSvg(stdout) {
  const end = stdout.lastIndexOf("</svg>");
  if (end < 0) return {svg: "", text: stdout};
  let cut = end + "</svg>".length;
  if (stdout[cut] === "\n") cut++;  // the SVG writer's last line ends the file
  return {svg: stdout.slice(0, cut), text: stdout.slice(cut)};
}

if (typeof module !== "undefined") {
  module.exports = {parseHash, writeHash, generateCall, simulateCall, exportCall, lowerCall, compareCall, planCall,
                    planRowFiles, scheduleFields, splitSvg, stageProfile, commFlags, STATE_KEYS, DEFAULTS};
}
