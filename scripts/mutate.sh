#!/usr/bin/env bash
# The mutation check of docs/testing.md: each mutant below is a small, plausible bug (or one of
# the bugs the tests once missed, put back). For each, a scratch copy of the tree gets the
# mutant, is built, and runs the unit tests and the CLI tests; the mutant is killed when a test
# fails. Prints the kill table and exits 1 when a mutant survives. Not in CI: it takes minutes.
#
#   scripts/mutate.sh [-j JOBS] [MUTANT...]     (default: every mutant, -j 1)
#   scripts/mutate.sh --check                   (in seconds, in CI: every mutant still applies)
#
# --check builds nothing: it fails, naming each stale mutant, when a file a mutant names is gone
# or no longer holds the mutant's old text (the code moved and the mutant would test nothing).
#
# The copy lives in build-mutate/src, laid out like the tree, with its build in
# build-mutate/src/build: with ccache's base_dir above the tree, every unchanged file comes from
# the cache of the main build (same relative paths), and only the mutated files compile.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
jobs=1
if [ "${1:-}" = "-j" ]; then jobs=$2; shift 2; fi

# name @@ file @@ old text @@ new text: the first occurrence of the old text becomes the new one.
# Several edits of one mutant share its name. An old text that is gone makes the mutant stale
# (--check finds it). interleaved-default-1 relies on the interleaved row being the registry's
# first with .default_chunks = 2.
mutants=$(cat <<'EOF'
start-last-input @@ lib/sim/simulator.cpp @@ start = std::max(start, ready); @@ start = std::max(st.free_at, ready);
transfer-inverted @@ lib/sim/transfer_rule.hpp @@ return from == to ? end : end + crossing(b); @@ return from != to ? end : end + crossing(b);
sync-as-post-validation @@ lib/sim/iteration_barrier.hpp @@ if (mode_ == OptimizerMode::PostValidation) { @@ if (true) {
cycle-with-waiters @@ lib/model/wait_cycle.cpp @@ auto from = std::find_if(path.begin(), path.end(), [to](const auto& p) { return p.first == to; }); @@ auto from = path.begin();
cycle-from-first-device @@ lib/model/wait_cycle.cpp @@ root < waits_on.size(); ++root) @@ root < waits_on.size(); root = waits_on.size())
cycle-from-first-device @@ lib/model/wait_cycle.cpp @@ if (edge == next.size()) { @@ if (edge == std::min<std::size_t>(next.size(), 1)) {
bound-no-first-step @@ lib/sim/lower_bound.cpp @@ std::max(optimizer[d], first_step + first_input[d]) @@ std::max(optimizer[d], first_input[d])
bound-round-trip-no-step @@ lib/sim/lower_bound.cpp @@ return std::max(bound, first_step + forward_chain @@ return std::max(bound, forward_chain
bound-no-fb-saving @@ lib/sim/lower_bound.cpp @@ const double cut = static_cast<double>(forwards) * static_cast<double>(saving); @@ const double cut = 0.0 * static_cast<double>(forwards) * static_cast<double>(saving);
csv-keeps-cr @@ lib/io/pytorch_csv.cpp @@ find_first_not_of(" \t\r") @@ find_first_not_of(" \t")
csv-keeps-cr @@ lib/io/pytorch_csv.cpp @@ find_last_not_of(" \t\r") @@ find_last_not_of(" \t")
csv-refuses-bom @@ lib/io/pytorch_csv.cpp @@ if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3); @@ /* a BOM is an error again */
span-first-iteration @@ lib/sim/sim_result.cpp @@ const std::size_t last = devices.front().iterations.size() - 1; @@ const std::size_t last = 0;
chunks-default-ignored @@ lib/io/generate_request.cpp @@ generator.chunks_for(flags.chunks) @@ generator.chunks_for(flags.request.chunks)
interleaved-default-1 @@ lib/schedules/registry.cpp @@ .default_chunks = 2, @@ .default_chunks = 1,
calibration-ignored @@ lib/estimate/analytic_profile.cpp @@ PieceTimes times = piece_times(model, tr, gpu, e, measured, &links); @@ PieceTimes times = piece_times(model, tr, gpu, e, nullptr, &links);
zb-warm-up-strict @@ lib/schedules/zb_paper_greedy.cpp @@ if (exempt && rule != WarmUpStaircase::Strict) continue; @@ if (exempt && rule == WarmUpStaircase::Strict) continue;
zb-warm-up-unrepaired @@ lib/schedules/zb_paper_greedy.cpp @@ const bool exempt = 1 + extra[s] >= m_ && 1 + extra[s - 1] >= m_; @@ const bool exempt = 1 + extra[s] >= m_;
python-gil-held @@ python/src/run.cpp @@ LoweredRun run = simulate_under(s.lowered, model, options, comm, "the schedule"); @@ py::gil_scoped_acquire held; LoweredRun run = simulate_under(s.lowered, model, options, comm, "the schedule");
zbv-forward-unrepaired @@ lib/schedules/zbv_paper_greedy.cpp @@ if (chunk == kNone || !forward_ready(r, chunk)) continue; @@ if (chunk == kNone) continue;
zbv-catch-up-unrepaired @@ lib/schedules/zbv_paper_greedy.cpp @@ if (idle_sweeps == 2) break; @@ if (idle_sweeps == 2) fail();
incremental-cycle-everywhere @@ lib/sim/incremental_timer.cpp @@     if (seen_[head] == trial_) continue; @@     if (seen_[head] != trial_) return Cycle::Found;
incremental-device-order-ignored @@ lib/sim/incremental_timer.cpp @@     if (node.index + 1 < order_[node.device].size()) push(id(node.device, node.index + 1)); @@     (void)order_;
tp-overlap-whole-product @@ lib/estimate/tp_overlap.cpp @@       out.exposed += std::max(0.0, collective_ms - chunks * (tp - 1) / tp); @@       out.exposed += std::max(0.0, collective_ms - chunks);
workspace-not-held @@ lib/sim/op_costs.hpp @@       return {t.alloc_f + t.work_f, -t.work_f}; @@       return {t.alloc_f, 0};
op-checkpoint-saves-even @@ lib/estimate/op_checkpoint.cpp @@     if (i % 2 == 0) { @@     if (i % 2 == 1) {
eager-norm-keeps-input @@ lib/estimate/elementwise_kernels.cpp @@   return {forward, backward, kFloat + e}; @@   return {forward, backward, e};
fused-swiglu-keeps-silu @@ lib/estimate/elementwise_kernels.cpp @@   if (how == Elementwise::Fused) return {3 * e, 5 * e, 2 * e}; @@   if (how == Elementwise::Fused) return {3 * e, 5 * e, 3 * e};
fb-pair-first-layer-forgotten @@ lib/costs/cost_model.cpp @@ std::max(forward_layer, forward - backward + backward_layer) @@ (forward - backward + backward_layer)
async-tp-scatters-inverted @@ lib/estimate/piece_gemms.cpp @@ return tr.tp_overlap_method == TpOverlapMethod::AsyncTp && several_modules; @@ return tr.tp_overlap_method == TpOverlapMethod::AsyncTp && !several_modules;
network-rate-as-bytes @@ lib/estimate/gpu_catalog.cpp @@ return {name, gbit_per_s / 8.0, @@ return {name, gbit_per_s,
timed-blocking-keeps-slower @@ lib/lower/lowering.cpp @@ blocking_step(nearest, used) < blocking_step(arrival, used) @@ blocking_step(nearest, used) > blocking_step(arrival, used)
plan-comm-ignored @@ lib/plan/plan_evaluate.cpp @@ if (r.comm == CommMode::Overlap) { @@ if (true) {
launch-1f1b-comm-unsaid @@ lib/plan/launch.cpp @@ if (run_request.comm == CommMode::Blocking && run_request.policy == LowerPolicy::Batched) return; @@ if (true) return;
fb-pair-whole-forward @@ lib/sim/op_costs.hpp @@ const Bytes held = fb_held_bytes(t.alloc_f, t.layer_f, back.alloc_f, back.layer_f); @@ const Bytes held = t.alloc_f;
buckets-split-inverted @@ lib/estimate/gradient_buckets.cpp @@ if (bucketed && params >= bucket_params) close(); @@ if (!bucketed && params >= bucket_params) close();
later-stages-bucketed @@ lib/estimate/analytic_profile.cpp @@ buckets.bucketed = s == 0; @@ buckets.bucketed = true;
gathers-not-one-ahead @@ lib/estimate/gradient_buckets.cpp @@ if (k > 0) dispatch = previous_ready; @@ (void)previous_ready;
step-start-lead-ignored @@ lib/estimate/analytic_profile.cpp @@ tr.dtype, tr, lead); @@ tr.dtype, tr, 0.0);
fsdp-copies-dropped @@ lib/estimate/analytic_profile.cpp @@ return FsdpExposedMs{copy_out, copy_out + copy_in}; @@ return FsdpExposedMs{copy_out - copy_out, copy_in - copy_in};
fsdp-impl-inverted @@ lib/estimate/analytic_profile.cpp @@ if (tr.fsdp_impl != FsdpImpl::Fsdp2) return FsdpExposedMs{}; @@ if (tr.fsdp_impl != FsdpImpl::Megatron) return FsdpExposedMs{};
offload-room-ignored @@ lib/estimate/activation_offload.cpp @@     if (started - allowed >= 1) start = std::max(start, copied[std::size_t(started - allowed - 1)]); @@     (void)allowed, (void)started;
EOF
)

field() {  # field NUMBER NAME: that field of NAME's rows (of every row when NAME is empty)
  awk -F' @@ ' -v n="$2" -v f="$1" 'n == "" || $1 == n { print $f }' <<<"$mutants" | uniq
}
check_mutants() {  # every edit's file exists and holds its old text; names each stale mutant
  MUTANTS=$mutants python3 - "$root" <<'PY'
import os, sys
root = sys.argv[1]
stale, names = {}, []
for line in os.environ["MUTANTS"].splitlines():
    name, path, old, new = line.split(" @@ ")
    if name not in names:
        names.append(name)
    full = os.path.join(root, path)
    if old == new:
        stale.setdefault(name, []).append(f"its edit of {path} changes nothing")
    elif not os.path.isfile(full):
        stale.setdefault(name, []).append(f"{path} is gone")
    elif old not in open(full, encoding="utf-8").read():
        stale.setdefault(name, []).append(f"{path} no longer holds: {old}")
for name, why in stale.items():
    for w in why:
        print(f"stale mutant {name}: {w}", file=sys.stderr)
if stale:
    print(f"mutate.sh --check: {len(stale)} of {len(names)} mutants are stale; fix their text in scripts/mutate.sh", file=sys.stderr)
    sys.exit(1)
print(f"mutate.sh --check: all {len(names)} mutants apply")
PY
}
if [ "${1:-}" = "--check" ]; then
  check_mutants
  exit
fi

names=$(field 1 "")
[ $# -gt 0 ] && names=$*
for name in $names; do
  [ -n "$(field 2 "$name")" ] || { echo "mutate.sh: no mutant is called $name; the names: $(field 1 "" | paste -sd' ' -)" >&2; exit 2; }
done
scratch=$root/build-mutate
src=$scratch/src

copy_tree() {  # the tree as it is now: tracked and untracked files, not the ignored ones
  rm -rf "$src"
  mkdir -p "$src"
  (cd "$root" && git ls-files -coz --exclude-standard | xargs -0 cp --parents -t "$src")
}

apply_mutant() {  # NAME: applies its edits to the copy; fails when an old text is gone
  MUTANTS=$mutants python3 - "$src" "$1" <<'PY'
import os, sys
src, name = sys.argv[1], sys.argv[2]
edits = [line.split(" @@ ") for line in os.environ["MUTANTS"].splitlines()]
for n, path, old, new in (e for e in edits if e[0] == name):
    text = open(os.path.join(src, path)).read()
    if old not in text:
        sys.exit(1)
    open(os.path.join(src, path), "w").write(text.replace(old, new, 1))
PY
}

restore() {  # every file a mutant touches, as in the tree
  for file in $(field 2 "" | sort -u); do cp "$root/$file" "$src/$file"; done
}

python_module() {  # the Python module's target where the copy's build has one (pybind11 found)
  grep -q '^PIPEPLAN_PYTHON_EXECUTABLE' "$src/build/CMakeCache.txt" && echo _pipeplan
}

build() {
  nice cmake --build "$src/build" -j "$jobs" --target pipeplan_tests pipeplan $(python_module) >"$scratch/build.log" 2>&1
}

run_tests() {  # FILES: prints the first failing unit test case and the failing CLI cases; nothing when all pass
  # A mutant of the Python module (python/) is also run against the package's tests (ctest's python).
  local unit cli py=""
  # The case whose block holds the first error: doctest prints a "TEST CASE:" header for a
  # passing case's MESSAGE too, so a header alone names nothing. A run that fails without an
  # error line (a crash before doctest reports) is named as such.
  unit=$(cd "$src" && { nice build/tests/pipeplan_tests --abort-after=1 --no-colors 2>&1 || echo "exit: $?"; } |
           awk '/^TEST CASE:/ { sub(/^TEST CASE: */, ""); name = $0 }
                / (FATAL )?ERROR: / && name != "" { print name; found = 1; exit }
                /^exit: / && !found { print "the unit tests exit " $2 " with no failing case named"; exit }' || true)
  cli=$(nice ctest --test-dir "$src/build" -R '^cli\.' -E 'html_in_chromium' -j "$jobs" 2>&1 |
          sed -n 's/^[[:space:]]*[0-9]* - cli\.\([^ ]*\) (Failed).*/\1/p' | head -3 | paste -sd, - || true)
  if [[ ",${1:-}" == *,python/* ]] && [ -n "$(python_module)" ]; then
    nice ctest --test-dir "$src/build" -R '^python$' >/dev/null 2>&1 || py="python: $(python3 - "$src" <<'PY'
import re, sys, pathlib
log = pathlib.Path(sys.argv[1], "build", "Testing", "Temporary", "LastTest.log").read_text(errors="replace")
failed = re.findall(r"^FAILED \S+::(\S+)", log, re.M)
print(failed[0] if failed else "failed")
PY
)"
  fi
  local out="${unit:+unit: $unit}"
  [ -z "$cli" ] || out="${out:+$out; }cli: $cli"
  [ -z "$py" ] || out="${out:+$out; }$py"
  echo "$out"
}

copy_tree
cmake -S "$src" -B "$src/build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER_LAUNCHER=ccache \
  -DPIPEPLAN_BUILD_BENCH=OFF -DPIPEPLAN_GPU=OFF >/dev/null
echo "building the unmutated copy in $src ..." >&2
build || { echo "the unmutated copy does not build: $scratch/build.log" >&2; exit 2; }
baseline=$(run_tests python/)
if [ -n "$baseline" ]; then echo "the unmutated copy fails its tests ($baseline): fix that first" >&2; exit 2; fi

killed=0 total=0
table="| mutant | file | killed by (first unit test case; CLI cases) |\n|---|---|---|\n"
for name in $names; do
  total=$((total + 1))
  restore
  files=$(field 2 "$name" | sort -u | paste -sd, -)
  if ! apply_mutant "$name"; then
    verdict="STALE: its text is gone from $files"
  elif ! build; then
    verdict="DOES NOT BUILD"
  else
    verdict=$(run_tests "$files")
    if [ -n "$verdict" ]; then killed=$((killed + 1)); else verdict="SURVIVED"; fi
  fi
  echo "$name: $verdict" >&2
  table+="| \`$name\` | \`$files\` | $verdict |\n"
done
restore
printf "%b" "$table"
echo
echo "killed $killed of $total mutants"
[ "$killed" -eq "$total" ]
