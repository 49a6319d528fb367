# CLI cases: pipeplan_cli_test(NAME [checks...] -- ARGS...). See run_case.sh for the checks.
# CMake splits arguments at ';', so the patterns match a semicolon with '.'.
# Exit codes: 0 ok, 1 invalid input or invalid schedule, 2 usage error.

# --- the commands on good input ---
pipeplan_cli_test(list --out "^zbh1 +M >= 1 +ZB-H1" --out "^zbh1-paddle +M >= P" --out "^zbv +V = 2 " -- list)
pipeplan_cli_test(help --out "simulate" --out "compare" -- --help)
pipeplan_cli_test(version --out "^pipeplan 0\\.1\\.0" -- --version)
# The committed examples stay what the generator writes.
pipeplan_cli_test(generate_matches_example --golden schedules/zbh1-p4-m8.json
                  -- generate --schedule zbh1 --stages 4 --microbatches 8)
pipeplan_cli_test(generate_to_file --then "grep -q '\"name\": \"zbh2\"' out.json"
                  -- generate --schedule zbh2 --stages 3 --microbatches 5 -o @TMP@/out.json)
# ZB-H1, P = 4, M = 8, F = B = W = 1: 8 * 3 + 3 * (1 + 1 - 1) = 27 ms (simulator_test.cpp).
pipeplan_cli_test(simulate_summary --golden tests/golden/simulate-zbh1-p4-m8.txt
                  -- simulate schedules/zbh1-p4-m8.json --costs 1,1,1 --memory 1GiB,256MiB)
# The two-stage scenario timed by hand in simulator_test.cpp: makespan 17 ms, step 17 + 2 ms.
pipeplan_cli_test(simulate_json --out "\"makespan_ms\": 17\\.0," --out "\"step_ms\": 19\\.0,"
                  --out "\"bubble_rate\": 0\\.411764705882352"
                  --out "\\{\"device\": 0, \"iteration\": 0, \"kind\": \"BW\", \"stage\": 0, \"microbatch\": 1, \"start_ms\": 14\\.0, \"end_ms\": 17\\.0\\}"
                  --before "$PIPEPLAN generate --schedule 1f1b --stages 2 --microbatches 2 -o s.json"
                  -- simulate @TMP@/s.json --profile tests/data/two_stage_profile.json --json)
# GPipe, P = 2, M = 2, F = B = W = 1 ms, transfer 0.5 (critical_path_test.cpp times it by hand
# without the transfer): F0 on device 0 (0-1), F0 and F1 on device 1 from 1.5, BW0 there 3.5-5.5,
# then device 0's BW0 after the gradient's transfer (6-8) and BW1 (8-10): 6 ops, 2 transfers.
pipeplan_cli_test(simulate_critical_path --out "^critical path: 6 ops and 2 transfers, 0\\.000 to 10\\.000 ms"
                  --out "^ +1 +1\\.500 +2\\.500  F\\(s1,m0\\), after a transfer from device 0$"
                  --out "^ +0 +8\\.000 +10\\.000  BW\\(s0,m1\\)$"
                  --before "$PIPEPLAN generate --schedule gpipe --stages 2 --microbatches 2 -o s.json"
                  -- simulate @TMP@/s.json --costs 1,1,1 --transfer 0.5 --critical-path)
pipeplan_cli_test(simulate_critical_path_json --exit 2 --err "--json excludes --critical-path"
                  -- simulate schedules/1f1b-p4-m8.json --json --critical-path)
pipeplan_cli_test(simulate_writes_result --then "grep -q '\"format\": \"pipeplan.result\"' r.json"
                  -- simulate schedules/1f1b-p4-m8.json -o @TMP@/r.json)
pipeplan_cli_test(validate_ok --out "^valid: zbh1: 4 devices" -- validate schedules/zbh1-p4-m8.json)
pipeplan_cli_test(validate_json_ok --out "\"valid\": true" -- validate schedules/zbh1-p4-m8.json --json)
# The main job of the README: the seed's configuration from the bundled profile. Where its numbers
# come from (profile: stages 0-2 F, B, W = 35.906, 38.655, 33.157 ms, stage 3 57.381, 60.130,
# 54.632; transfer t = 0.03 + 33554432 B / 10 GB/s = 3.3854432 ms; device 0's step 9.975 ms):
# stage 3 is the bottleneck and never idles once it starts. 1F1B: the fill 3(F + t) = 117.874, stage
# 3's work M(F3 + B3 + W3) = 16 x 172.143 = 2754.288, the drain of the last gradient 3(t + B + W) =
# 225.592: makespan 3097.755, step + 9.975 = 3107.730. Both ZB-H1 orders end on stage 3's last W:
# 117.874 + 2754.288 = 2872.162, step 2882.137, which is the sync lower bound (docs/model.md),
# ratio 2882.137 / 3107.730 = 0.927. Bubble: idle over 4 x makespan, with busy 16 x 107.718 on
# stages 0-2 and 2754.288 on stage 3: 36.04% and 31.02%. Peaks: static + (P-d) a_F for 1F1B, plus
# d a_W for ZB-H1 (a_F = 1912602624, a_W = 536870912; stage 3 2208301056, 832569344; statics
# 5335285760, 3238133760 x 2, 5335351296): 12.09, 8.36, 6.58, 7.03 and 12.09, 8.86, 7.58, 9.35 GiB.
# The span column (the last iteration's longest span) is the simulator's, not derived here.
pipeplan_cli_test(compare_seed --golden tests/golden/compare-seed.txt
                  -- compare --schedules 1f1b,zbh1,zbh1-paddle --stages 4 --microbatches 16
                     --profile profiles/seed-llama2-7b-4layers-rtx3090.json)
# 1F1B 33 units against ZB-H1's 27: ratio 27/33.
pipeplan_cli_test(compare_json --out "\"schedule\": \"zbh1\"" --out "\"ratio_to_first\": 0\\.8181818181818"
                  --out "\"peak_memory_bytes\": \\[4000, 3000, 2000, 1000\\]"
                  -- compare --schedules 1f1b,zbh1 --stages 4 --microbatches 8 --memory 1000,250 --json)

# --- schedules the validator must reject, each for its own reason (exit 1) ---
pipeplan_cli_test(validate_deadlock --exit 1 --out "\\[deadlock\\] deadlock: device 0 is stuck at order\\[0\\]\\[1\\] BW\\(s0,m0\\)"
                  --out "devices wait in a cycle: device 0 -> device 1 -> device 0"
                  -- validate tests/data/deadlock_p2_m2.json)
pipeplan_cli_test(validate_broken --exit 1 --out "^3 problems:" --out "\\[wrong-device\\] order\\[0\\]\\[4\\]"
                  --out "\\[repeated\\] F\\(s0,m0\\) appears 2 times"
                  -- validate tests/data/broken_p2_m2.json)
# GPipe P = 2, M = 4 with 1 GiB activations holds 4 GiB per device: over a 3 GiB limit.
pipeplan_cli_test(validate_memory --exit 1
                  --out "\\[over-memory\\] device 0 goes above the memory limit of 3\\.00 GiB at 3\\.000 ms. its peak of 4\\.00 GiB"
                  --before "$PIPEPLAN generate --schedule gpipe --stages 2 --microbatches 4 -o g.json"
                  -- validate @TMP@/g.json --memory 1GiB,0 --memory-limit 3GiB)
pipeplan_cli_test(simulate_deadlock --exit 1 --err "the schedule deadlocks \\(device 0 is stuck at BW\\(s0,m0\\)\\)"
                  -- simulate tests/data/deadlock_p2_m2.json)

# --- bad input: a clear error naming the file, field or flag, and no output file ---
pipeplan_cli_test(malformed_json --exit 1
                  --err "^pipeplan: error: tests/data/malformed_profile.json:5:38: malformed JSON"
                  -- simulate schedules/zbh1-p4-m8.json --profile tests/data/malformed_profile.json)
pipeplan_cli_test(missing_key --exit 1 --err "missing_key_profile.json: stages\\[0\\]\\.w_ms: missing"
                  -- simulate schedules/zbh1-p4-m8.json --profile tests/data/missing_key_profile.json)
pipeplan_cli_test(negative_cost --exit 1 --err "stages\\[0\\]\\.b_ms: expected a non-negative number of milliseconds, got -2"
                  -- simulate schedules/zbh1-p4-m8.json --profile tests/data/negative_cost_profile.json)
pipeplan_cli_test(nan_cost_in_json --exit 1 --err "nan_cost_profile.json:2:22: malformed JSON"
                  -- simulate schedules/zbh1-p4-m8.json --profile tests/data/nan_cost_profile.json)
pipeplan_cli_test(nan_cost_flag --exit 2 --err "--costs \\(F\\): expected a non-negative number of milliseconds, got 'nan'"
                  -- simulate schedules/zbh1-p4-m8.json --costs nan,1,1)
pipeplan_cli_test(negative_cost_flag --exit 2 --err "--costs \\(W\\): expected a non-negative number of milliseconds, got '-1'"
                  -- compare --schedules 1f1b --stages 2 --microbatches 2 --costs 1,1,-1)
pipeplan_cli_test(string_cost --exit 1 --err "stages\\[1\\]\\.f_ms: expected a non-negative number of milliseconds, got \"1ms\""
                  -- simulate schedules/zbh1-p4-m8.json --profile tests/data/string_cost_profile.json)
pipeplan_cli_test(profile_wrong_size --exit 1
                  --err "two_stage_profile.json: the costs describe 2 stages but the schedule has 4 on 4 devices"
                  -- simulate schedules/zbh1-p4-m8.json --profile tests/data/two_stage_profile.json)
pipeplan_cli_test(bad_op_kind --exit 1 --err "bad_kind_schedule.json: order\\[0\\]\\[1\\]\\.kind: expected one of"
                  -- validate tests/data/bad_kind_schedule.json)
pipeplan_cli_test(missing_file --exit 1 --err "cannot read no-such.json: No such file or directory"
                  -- simulate no-such.json)
pipeplan_cli_test(zero_stages --exit 2 --err "--stages: Value 0 not in range"
                  -- generate --schedule 1f1b --stages 0 --microbatches 4)
pipeplan_cli_test(stages_not_a_number --exit 2 --err "--stages"
                  -- generate --schedule 1f1b --stages four --microbatches 4)
pipeplan_cli_test(missing_flag --exit 2 --err "--microbatches is required"
                  -- generate --schedule 1f1b --stages 4)
pipeplan_cli_test(unknown_schedule --exit 2 --err "unknown schedule 'zbh3'. did you mean 'zbh1', 'zbh2', 'zbv'\\?"
                  --absent @TMP@/out.json
                  -- generate --schedule zbh3 --stages 4 --microbatches 8 -o @TMP@/out.json)
pipeplan_cli_test(unknown_command --exit 2 --err "unknown command 'simulat'. did you mean 'simulate'\\?" -- simulat x.json)
pipeplan_cli_test(unknown_flag --exit 2 --err "unknown flag '--chunk'. did you mean '--chunks'"
                  -- generate --schedule 1f1b --stages 4 --microbatches 4 --chunk 2)
pipeplan_cli_test(generator_refuses --exit 1 --absent @TMP@/out.json
                  --err "zbh2: needs at least 2P-1 = 7 micro-batches for 4 stages, got 6"
                  -- generate --schedule zbh2 --stages 4 --microbatches 6 -o @TMP@/out.json)
pipeplan_cli_test(unwritable_output --exit 1 --err "cannot write /no/such/dir/out.json: No such file or directory"
                  -- generate --schedule 1f1b --stages 2 --microbatches 2 -o /no/such/dir/out.json)
pipeplan_cli_test(bad_size --exit 2 --err "--memory-limit: expected a size such as 2GiB"
                  -- validate schedules/zbh1-p4-m8.json --memory 1GiB,0 --memory-limit 3GiBs)
pipeplan_cli_test(limit_without_memory --exit 2 --err "--memory-limit needs memory costs"
                  -- validate schedules/zbh1-p4-m8.json --memory-limit 3GiB)
pipeplan_cli_test(profile_excludes_costs --exit 2 --err "excludes"
                  -- simulate schedules/zbh1-p4-m8.json --profile profiles/example-p4.json --costs 1,1,1)
pipeplan_cli_test(profile_excludes_transfer --exit 2 --err "--profile excludes --transfer"
                  -- simulate schedules/zbh1-p4-m8.json --profile profiles/example-p4.json --transfer 0.1,2,0.1)

# --- a transfer per stage boundary (issue 14) ---
# 1F1B, P = 4, M = 2, F = B = W = 1, boundary 1 slow (0.1, 2, 0.1 ms), timed by hand in
# boundary_transfer_test.cpp: device 0's BW1 ends at 19.4. Lower bound: micro-batch 0's round
# trip, 2 x (4 + 0.1 + 2 + 0.1) - B0 + BW0 = 13.4.
pipeplan_cli_test(simulate_transfer_per_boundary
                  --out "^costs: F,B,W = 1,1,1 \\(the default\\) ms per stage, transfer 0\\.1,2,0\\.1 ms per boundary,"
                  --out "^makespan 19\\.400 ms" --out "lower bound 13\\.400 ms"
                  --before "$PIPEPLAN generate --schedule 1f1b --stages 4 --microbatches 2 -o s.json"
                  -- simulate @TMP@/s.json --transfer 0.1,2,0.1)
# One value still means every boundary: all three at 2 ms, 27 ms (boundary_transfer_test.cpp).
pipeplan_cli_test(simulate_transfer_every_boundary --out "^makespan 27\\.000 ms"
                  --before "$PIPEPLAN generate --schedule 1f1b --stages 4 --microbatches 2 -o s.json"
                  -- simulate @TMP@/s.json --transfer 2)
pipeplan_cli_test(transfer_wrong_count --exit 2
                  --err "--transfer: expected one value, or 3, one per boundary between the schedule's 4 stages. got 2: '0\\.1,2'"
                  -- simulate schedules/zbh1-p4-m8.json --transfer 0.1,2)
# The list counts the schedule's stages, not the devices: interleaved on 2 devices, 2 chunks, 4 stages.
pipeplan_cli_test(transfer_counts_stages --exit 2
                  --err "--transfer: expected one value, or 3, one per boundary between the schedule's 4 stages. got 2"
                  -- compare --schedules interleaved --stages 2 --microbatches 2 --chunks 2 --transfer 0.1,2)
# The same with three values: placement 0, 1, 0, 1, each chunk F = 0.5, BW = 1; boundary 1
# (device 1 back to 0) 2 ms, the others 0.1. Device 0 F(0,*) [0,1]; device 1 F(1,*) [0.6,1.6];
# device 0 F(2,*) [3.1,4.1]; device 1 F(3,0) [3.7,4.2] BW(3,0) [4.2,5.2] F(3,1) [5.2,5.7] BW(3,1)
# [5.7,6.7]; device 0 BW(2,0) [5.3,6.3] BW(2,1) [6.8,7.8]; device 1 BW(1,0) [8.3,9.3] BW(1,1)
# [9.8,10.8]; device 0 BW(0,0) [9.4,10.4] BW(0,1) [10.9,11.9].
pipeplan_cli_test(transfer_per_boundary_chunks --out "\"makespan_ms\": 11\\.9,"
                  -- compare --schedules interleaved --stages 2 --microbatches 2 --chunks 2 --transfer 0.1,2,0.1 --json)
# A profile whose boundary 3 crosses the network (4 GPUs a node, 8 stages) is written with its
# boundaries as schema_version 2 and read back by simulate.
pipeplan_cli_test(profile_writes_boundaries --out "^makespan [0-9.]+ ms"
                  --before "$PIPEPLAN profile --model $SOURCE_DIR/profiles/models/llama-2-7b.json --gpu h100 --stages 8 --gpus-per-node 4 -o p.json && grep -q '\"schema_version\": 3' p.json && test $(grep -c '\"bandwidth_gb_per_s\"' p.json) -eq 8 && $PIPEPLAN generate --schedule 1f1b --stages 8 --microbatches 8 -o s.json"
                  -- simulate @TMP@/s.json --profile @TMP@/p.json)

# --- chunks, the steady state and the automatic schedules ---
# ZB-V takes 2 chunks by default: 8 stages on 4 devices in a V.
pipeplan_cli_test(generate_zbv --out "\"stages\": 8," --out "\"placement\": \\[0, 1, 2, 3, 3, 2, 1, 0\\]"
                  -- generate --schedule zbv --stages 4 --microbatches 8)
# Interleaved, V = 2, F = B = W = 1 per device's share: 3M + (P-1)*3/V = 24 + 4.5 (simulator_test.cpp).
pipeplan_cli_test(compare_interleaved --out "\"makespan_ms\": 28\\.5,"
                  -- compare --schedules interleaved --stages 4 --microbatches 8 --chunks 2 --json)
# Without --chunks, interleaved and looped-bfs take their default of 2 chunks (list: "V >= 1 (2)").
# One device's F = B = W = 1 ms, split over its V chunks. Interleaved 1F1B (Narayanan et al. 2021):
# M (F + BW) + (P - 1)(F + BW) / V = 8 x 3 + 3 x 3 / 2 = 28.5 ms; with V = 1 it would be
# 1F1B's 8 x 3 + 3 x 3 = 33 ms, the bug of issue 20.
pipeplan_cli_test(compare_interleaved_default_chunks --out "^1f1b +33\\.000 " --out "^interleaved +28\\.500 "
                  -- compare --schedules 1f1b,interleaved --stages 4 --microbatches 8)
# Looped BFS, P = 2, M = 2, V = 2 places 4 stages; V = 1 would give 2.
pipeplan_cli_test(generate_looped_bfs_default_chunks --out "\"stages\": 4,"
                  -- generate --schedule looped-bfs --stages 2 --microbatches 2)
# --group 4 asks for Megatron's groups, whose last group of 6 mod 4 = 2 < P would stall; without
# --group, PyTorch's rounds take M = 6 as one round and write PyTorch's own file.
pipeplan_cli_test(interleaved_group_rule --exit 1 --err "interleaved: micro-batch group size N = 4 does not fit M = 6"
                  -- generate --schedule interleaved --stages 4 --microbatches 6 --group 4)
pipeplan_cli_test(interleaved_matches_pytorch
                  --then "$PIPEPLAN export i.json --format csv | cmp - <(sed -E -e 's/\\r$//' -e 's/,+/,/g' -e 's/^,//' -e 's/,$//' $SOURCE_DIR/tests/data/pytorch/generated/Interleaved1F1B_P4_M6_V2.csv)"
                  -- generate --schedule interleaved --stages 4 --microbatches 6 -o @TMP@/i.json)
pipeplan_cli_test(interleaved_round_rule --exit 1 --absent @TMP@/i.json
                  --err "interleaved: M = 9 micro-batches do not split into 2 equal rounds for P = 4, V = 2"
                  -- generate --schedule interleaved --stages 4 --microbatches 9 -o @TMP@/i.json)
# Post-validation steady state of ZB-H2, uniform costs: M(F+B+W) = 24 ms, which is the lower bound.
pipeplan_cli_test(steady_state_post_validation --out "\"step_ms\": 24\\.0," --out "\"lower_bound_ms\": 24\\.0,"
                  --out "\"span_bubble_rate\": 0\\.0,"
                  -- compare --schedules zbh2 --stages 4 --microbatches 8 --iterations 4
                     --optimizer-mode post-validation --json)
pipeplan_cli_test(simulate_iterations --out "step 27\\.000 ms \\(sync optimizer, 3 iterations\\), lower bound 27\\.000 ms"
                  -- simulate schedules/zbh1-p4-m8.json --iterations 3)
pipeplan_cli_test(bad_optimizer_mode --exit 2 --err "--optimizer-mode: eager not in"
                  -- compare --schedules 1f1b --stages 2 --microbatches 2 --optimizer-mode eager)
pipeplan_cli_test(zb_generates_valid --then "$PIPEPLAN validate zb.json --costs 1,1.2,0.8 --memory 100,25 --memory-limit 400"
                  -- generate --schedule zb --stages 4 --microbatches 8 --costs 1,1.2,0.8 --transfer 0.1
                     --memory 100,25 --memory-limit 400 -o @TMP@/zb.json)
pipeplan_cli_test(zb_needs_limit --exit 2
                  --err "zb: needs a memory limit \\(--memory-limit SIZE\\). these choose their own: zb-1p, zb-2p, zbv-auto"
                  -- generate --schedule zb --stages 4 --microbatches 8 --costs 1,1.2,0.8)
pipeplan_cli_test(zb_limit_too_small --exit 1 --err "zb: no schedule fits: device 0 needs at least 100 B "
                  -- generate --schedule zb --stages 4 --microbatches 8 --memory 100,25 --memory-limit 99)
pipeplan_cli_test(memory_limit_count --exit 2 --err "--memory-limit: expected one size, or one per device \\(4\\), got 2"
                  -- generate --schedule zb --stages 4 --microbatches 8 --memory 100,25 --memory-limit 1KiB,2KiB)

# --- PyTorch pipelining CSV, both ways ---
pipeplan_cli_test(export_csv --out "^0F0,0F1,0F2,0F3,0I0,0W0,0F4," --out "^3F0,3I0,3F1,3I1,"
                  -- export schedules/zbh1-p4-m8.json --format csv)
# 141 ops: PyTorch's 182 actions with the 41 overlapped pairs as one FB op each; exported again,
# the file comes back byte for byte.
pipeplan_cli_test(import_dualpipev --err "in the current naming: 4 ranks, 8 stages, 10 micro-batches, 141 ops. 41 overlapped F.B pairs as FB ops"
                  --then "$PIPEPLAN validate s.json && $PIPEPLAN export s.json --format csv | cmp - $SOURCE_DIR/tests/data/pytorch/dualpipev_4rank_10mb.csv"
                  -- import tests/data/pytorch/dualpipev_4rank_10mb.csv -o @TMP@/s.json)
pipeplan_cli_test(import_comms_legacy --err "in the legacy naming: .* dropped 96 communication actions"
                  --then "$PIPEPLAN validate s.json"
                  -- import tests/data/pytorch/zb1p_2rank_2stagep_comms_legacy.csv -o @TMP@/s.json)
pipeplan_cli_test(import_compute_legacy --then "$PIPEPLAN validate s.json"
                  -- import tests/data/pytorch/zb1p_2rank_2stagep_compute_legacy.csv -o @TMP@/s.json)
pipeplan_cli_test(import_two_rank --out "\"placement\": \\[0, 1\\]" --out "\"kind\": \"BW\""
                  -- import tests/data/pytorch/two_rank_compute.csv)
pipeplan_cli_test(import_malformed --exit 1 --absent @TMP@/s.json
                  --err "malformed.csv: row 2, column 2: '1Q0': unknown action type 'Q'"
                  -- import tests/data/pytorch/malformed.csv -o @TMP@/s.json)
# A round trip through the CSV gives back the generator's schedule, op for op.
pipeplan_cli_test(csv_round_trip
                  --before "$PIPEPLAN generate --schedule zbv --stages 3 --microbatches 7 -o a.json && $PIPEPLAN export a.json --format csv -o a.csv"
                  --then "$PIPEPLAN import a.csv -o b.json 2>/dev/null && diff <(grep -v '\"name\"' a.json) <(grep -v '\"name\"' b.json)"
                  -- validate @TMP@/a.json)
pipeplan_cli_test(export_chrome --out "\"displayTimeUnit\": \"ms\"" --out "\"name\": \"F s1 m0\""
                  --out "\"makespan_ms\": 27\\.0"
                  -- export schedules/zbh1-p4-m8.json --format chrome)
# The critical path in the trace, 1F1B P = 2, M = 2, F = B = W = 1 ms, transfers 0.5 ms (timed by
# hand in chrome_trace_test.cpp): six critical ops (all but device 0's F1 and BW0), and of the four
# transfers, numbered as their consumers start, flows 0 (device 0's F0 to device 1's F0, 1 to 1.5
# ms) and 3 (device 1's BW1 to device 0's BW1, 7.5 to 8 ms) critical, each end 1 ns inside its op.
pipeplan_cli_test(export_chrome_critical_path
                  --out "^    \\{\"ph\": \"s\", \"name\": \"critical transfer\", \"cat\": \"transfer\", \"id\": 0, \"pid\": 0, \"tid\": 0, \"ts\": 999\\.999\\},?$"
                  --out "^    \\{\"ph\": \"f\", \"bp\": \"e\", \"name\": \"critical transfer\", \"cat\": \"transfer\", \"id\": 3, \"pid\": 0, \"tid\": 0, \"ts\": 8000\\.001\\},?$"
                  --out "\"args\": \\{\"name\": \"critical path\"\\}"
                  --before "$PIPEPLAN generate --schedule 1f1b --stages 2 --microbatches 2 -o s.json"
                  --then "test $(grep -c '\"critical\": true' stdout) -eq 6 && test $(grep -c '\"critical transfer\"' stdout) -eq 4"
                  -- export @TMP@/s.json --format chrome --costs 1,1,1 --transfer 0.5)
pipeplan_cli_test(export_unknown_format --exit 2 --err "--format: pdf not in"
                  -- export schedules/zbh1-p4-m8.json --format pdf)
# The SVG is well-formed XML (xmllint, from Debian's libxml2-utils, which scripts/setup.sh installs).
pipeplan_cli_test(export_svg --then "xmllint --noout t.svg && grep -c 'class=\"op\"' t.svg | grep -qx 96"
                  -- export schedules/zbh1-p4-m8.json --format svg --memory 1GiB,256MiB --memory-limit 3.5GiB
                     -o @TMP@/t.svg)
# The default timed lowering posts in the order the transfers happen with unit costs: device 1's
# F0 ends when device 0's F1 does, and the receive of F1's input comes first in that tie.
pipeplan_cli_test(export_csv_with_comms --out "^1RECV_F0,1F0,1RECV_F1,1SEND_F0,"
                  -- export schedules/zbh1-p4-m8.json --format csv --with-comms)
# compare --svg stacks the schedules on one time scale; --trace puts them in one trace.
# Boxes: 1F1B 4x8x2 = 64, ZB-H1 4x8x3 = 96, ZB-V 8 stages x 8 x 3 = 192; 352 in all.
pipeplan_cli_test(compare_pictures
                  --then "xmllint --noout c.svg && test $(grep -c '<g transform' c.svg) -eq 3 && test $(grep -c 'class=\"op\"' c.svg) -eq 352 && grep -q '\"first_pid\": 8' c.json"
                  -- compare --schedules 1f1b,zbh1,zbv --stages 4 --microbatches 8 --svg @TMP@/c.svg --trace @TMP@/c.json)
pipeplan_cli_test(simulate_pictures --then "xmllint --noout s.svg && grep -q '\"traceEvents\"' s.json"
                  -- simulate schedules/zbh1-p4-m8.json --svg @TMP@/s.svg --trace @TMP@/s.json)
pipeplan_cli_test(export_html --then "xmllint --noout r.html && grep -q '<table id=\"summary\">' r.html"
                  -- export schedules/zbh1-p4-m8.json --format html -o @TMP@/r.html)
pipeplan_cli_test(export_text --out "^device 3   \\.+F" --out "F forward, B input gradient"
                  -- export schedules/zbh1-p4-m8.json --format text)
# The same run in the terminal, 20 cells of 0.5 ms (COLUMNS=31): device 0's path covers 0-1 ms and
# 8-10 ms, cells 0-1 and 16-19; device 1's 1.5-7.5 ms, cells 3-14 (text_timeline_test.cpp).
pipeplan_cli_test(export_text_critical_path --out "^ +\\^+ *\\^*$" --out "^\\^ the critical path"
                  --before "$PIPEPLAN generate --schedule 1f1b --stages 2 --microbatches 2 -o s.json"
                  --then "COLUMNS=31 $PIPEPLAN export s.json --format text --costs 1,1,1 --transfer 0.5 | sed -n 2,5p >v.txt && printf '%s\\n' 'device 0   FFFF......XXXX..XXXX' '           ^^              ^^^^' 'device 1   ...FFXXXXFFXXXX.....' '              ^^^^^^^^^^^^' | diff - v.txt"
                  -- export @TMP@/s.json --format text --costs 1,1,1 --transfer 0.5)
# A result file exports to the same bytes as the schedule simulated on the fly with the same costs.
pipeplan_cli_test(export_from_result
                  --before "$PIPEPLAN simulate $SOURCE_DIR/schedules/zbh1-p4-m8.json --memory 1GiB,256MiB --iterations 2 -o r.json >/dev/null && $PIPEPLAN export $SOURCE_DIR/schedules/zbh1-p4-m8.json --format svg --memory 1GiB,256MiB --iterations 2 -o b.svg"
                  --then "cmp a.svg b.svg"
                  -- export @TMP@/r.json --format svg -o @TMP@/a.svg)
pipeplan_cli_test(export_bad_format_field --exit 1 --err "bad.json: format: expected a string, got 5"
                  --before "echo '{\"format\": 5}' > bad.json"
                  -- export @TMP@/bad.json --format svg)
# 1F1B's device 0 holds 4 micro-batches (400 B), ZB-H2's 7 (700 B): only ZB-H2 is over 500 B.
pipeplan_cli_test(compare_memory_limit --out "\"within_memory_limit\": true" --out "\"within_memory_limit\": false"
                  -- compare --schedules 1f1b,zbh2 --stages 4 --microbatches 8 --memory 100,25 --memory-limit 500 --json)
# DualPipeV generated for P = 4, M = 10 is PyTorch's own file.
pipeplan_cli_test(dualpipev_matches_pytorch
                  --then "$PIPEPLAN export d.json --format csv | cmp - $SOURCE_DIR/tests/data/pytorch/dualpipev_4rank_10mb.csv"
                  -- generate --schedule dualpipev --stages 4 --microbatches 10 -o @TMP@/d.json)

# PyTorch's interleaved zero bubble for P = 4, M = 8, V = 2 is PyTorch's own file once its idle
# cells (and its CRLF line ends) are dropped; M = 9 breaks PyTorch's round rule.
pipeplan_cli_test(interleaved_zb_matches_pytorch
                  --then "$PIPEPLAN export z.json --format csv | cmp - <(sed -E -e 's/\\r$//' -e 's/,+/,/g' -e 's/^,//' -e 's/,$//' $SOURCE_DIR/tests/data/pytorch/generated/InterleavedZeroBubble_P4_M8_V2.csv)"
                  -- generate --schedule interleaved-zb --stages 4 --microbatches 8 --chunks 2 -o @TMP@/z.json)
pipeplan_cli_test(interleaved_zb_round_rule --exit 1 --absent @TMP@/z.json
                  --err "interleaved-zb: M = 9 micro-batches do not split into 2 equal rounds for P = 4, V = 2"
                  -- generate --schedule interleaved-zb --stages 4 --microbatches 9 --chunks 2 -o @TMP@/z.json)

# ---- The planner (issue 5): gpus, profile, plan.
pipeplan_cli_test(gpus_table --out "^h100 +989.4 +1978.9 +- +66.9 +79.65 GiB +3350  hopper +8 +8 " --out "^rtx3090 +71.0 +- +- " --out "^gb200 .*NVLink-C2C to the Grace CPU \\(900 GB/s both ways\\) 450.0$" -- gpus)
pipeplan_cli_test(gpus_blackwell --out "^b200 +2250.0 +4500.0 +9000.0 +75.0 +179.06 GiB +8000  blackwell +8 +8  NVLink 5" --out "^gb200 +2500.0 +5000.0 +10000.0 .* blackwell +72 +4 " --out "^gb300 .* +15000.0 .* +72 +4 .*800 Gb/s" --out "^h800 +989.4 +1978.9 .* hopper .*400 GB/s both ways. 200.0" -- gpus)
# The seed's case: one layer per stage, fp32, no flash attention; the transfer is one
# micro-batch's 2048 x 4096 fp32 activation, 33554432 bytes, over PCIe through the host.
pipeplan_cli_test(profile_seed
                  --then "grep -q '\"bytes\": 33554432' p.json && test $(grep -c '\"f_ms\"' p.json) -eq 4 && $PIPEPLAN simulate --help >/dev/null"
                  -- profile --model profiles/models/seed-llama2-7b-4layers.json --gpu rtx3090 --stages 4
                     --layout "E,t|t|t|t,H" --dtype fp32 --no-flash-attention -o @TMP@/p.json)
pipeplan_cli_test(profile_layout_stage_count --exit 2 --err "--layout: has 2 stages, --stages 4 x --chunks 1 needs 4"
                  -- profile --model profiles/models/seed-llama2-7b-4layers.json --gpu rtx3090 --stages 4 --layout "E,t*2|t*2,H")
# Megatron's splits by name, as plan takes them: 32 layers in 4 stages of 8; 46 and two end pieces
# do not split into 5.
pipeplan_cli_test(profile_layout_even --out "layout E,t\\*8\\|t\\*8\\|t\\*8\\|t\\*8,H"
                  -- profile --model profiles/models/llama-2-7b.json --gpu h100 --stages 4 --layout even)
pipeplan_cli_test(profile_layout_padded_refused --exit 2
                  --err "--layout padded: 46 layers, the embedding and the loss do not split evenly into 5 stages"
                  -- profile --model profiles/models/zb-gpt-14.6b.json --gpu a100-80gb --stages 5 --layout padded)
pipeplan_cli_test(profile_vee_needs_two_chunks --exit 2 --err "--placement vee: needs --chunks 2"
                  -- profile --model profiles/models/llama-2-7b.json --gpu h100 --stages 4 --placement vee)
# Ranks on nodes (issue 14): pp 8 on 4-GPU nodes crosses between devices 3 and 4 under either
# order (tp 1, dp 1): NVLink 4's 450 GB/s on six boundaries, NDR InfiniBand's 50 on the fourth,
# of which a send reaches 47 (docs/costs.md, "Collectives").
pipeplan_cli_test(profile_rank_order --out "ranks tp-pp-dp on 4-GPU nodes" --out "\"bandwidth_gb_per_s\": 47\\.0"
                  -- profile --model tests/data/models/tiny-llama.json --gpu h100 --stages 8 --gpus-per-node 4
                     --rank-order tp-pp-dp)
pipeplan_cli_test(profile_rank_order_boundaries
                  --then "python3 -c \"assert [b['bandwidth_gb_per_s'] for b in __import__('json').load(open('p.json'))['boundaries']] == [450, 450, 450, 47, 450, 450, 450]\""
                  -- profile --model tests/data/models/tiny-llama.json --gpu h100 --stages 8 --gpus-per-node 4
                     --rank-order tp-pp-dp -o @TMP@/p.json)
# The header says the order and the memory left for the model: H100's 81,559 MiB (79.65 GiB)
# less the 1 GiB kept for the CUDA context and NCCL by default.
pipeplan_cli_test(plan_rank_order_fixed
                  --out "ranks tp-pp-dp, 78\\.65 GiB of 79\\.65 GiB per GPU for the model \\(1\\.00 GiB kept for the runtime\\), up to 4096 micro-batches per step searched$" --out "^  1  [a-z0-9-]+ +[0-9]+ +[0-9]+ +1 +1 tp-pp-dp "
                  -- plan --wide --model tests/data/models/tiny-llama.json --gpu h100 --gpus 8 --gpus-per-node 4
                     --global-batch 32 --seq 256 --rank-order tp-pp-dp --top 3)
pipeplan_cli_test(plan_memory_reserve --out "79\\.65 GiB of 79\\.65 GiB per GPU for the model \\(0 B kept"
                  --out "/ 79\\.65 GiB "
                  -- plan --wide --model tests/data/models/tiny-llama.json --gpu h100 --gpus 8 --global-batch 32 --seq 256
                     --memory-reserve 0 --top 1)
# Megatron's overlaps are on unless turned off, and say so; the weights' all-gather overlap needs
# the distributed optimizer.
pipeplan_cli_test(profile_overlaps_by_default --out "flash attention, overlapped gradient reduction, overlapped weight all-gather"
                  -- profile --model tests/data/models/tiny-llama.json --gpu h100 --stages 2 --seq 256)
pipeplan_cli_test(profile_overlaps_off --out "flash attention. pp 2"
                  -- profile --model tests/data/models/tiny-llama.json --gpu h100 --stages 2 --seq 256
                     --no-overlap-grad-reduce --no-overlap-param-gather)
pipeplan_cli_test(profile_param_gather_needs_sharding --exit 2
                  --err "--overlap-param-gather: needs the distributed optimizer"
                  -- profile --model tests/data/models/tiny-llama.json --gpu h100 --stages 2 --overlap-param-gather)
# Megatron-Core's gradient buckets (docs/costs.md, "Buckets"): --ddp-bucket-size is applied. One
# bucket of ten billion parameters holds all of Llama 3 8B's 8.03 billion, so its reduction waits
# for the backward's end and its gather comes before the forward: the step waits exactly as long
# as without the overlaps (Adam's 1.6 ms, then 63/64 of 4 and 2 bytes a parameter over the
# 367.6 GB/s ring, 86 and 43 ms: 130.7 ms), and longer than with Megatron-Core's default buckets
# (64M over dp 64: each 218M layer a bucket, most of them hidden under the layers' compute). It and
# --param-gather-at-step-start are refused where there is nothing for them to size or dispatch.
pipeplan_cli_test(profile_ddp_bucket_size_applied
                  --then "opt() { grep -o '\"optimizer_ms\": [0-9.e+-]*' $1 | cut -d' ' -f2\n }\n a=$(opt one.json) && $PIPEPLAN profile --model $SOURCE_DIR/profiles/models/llama-3-8b.json --gpu h100 --stages 1 --dp 64 --seq 4096 --sharding optimizer --no-overlap-grad-reduce --no-overlap-param-gather -o none.json && $PIPEPLAN profile --model $SOURCE_DIR/profiles/models/llama-3-8b.json --gpu h100 --stages 1 --dp 64 --seq 4096 --sharding optimizer -o default.json && b=$(opt default.json) && c=$(opt none.json) && test -n \"$a\" && test -n \"$b\" && awk -v a=$a -v c=$c 'BEGIN { exit !(a - c < 1e-9 * c && c - a < 1e-9 * c) }' && awk -v a=$a -v b=$b 'BEGIN { exit !(a > 1.2 * b) }'"
                  -- profile --model profiles/models/llama-3-8b.json --gpu h100 --stages 1 --dp 64 --seq 4096
                     --sharding optimizer --ddp-bucket-size 10000000000 -o @TMP@/one.json)
pipeplan_cli_test(profile_ddp_bucket_size_needs_overlap --exit 2 --absent @TMP@/p.json
                  --err "--ddp-bucket-size: sizes the buckets --overlap-grad-reduce reduces"
                  -- profile --model tests/data/models/tiny-llama.json --gpu h100 --stages 2 --dp 2 --sharding optimizer
                     --no-overlap-grad-reduce --ddp-bucket-size 1000000 -o @TMP@/p.json)
pipeplan_cli_test(plan_ddp_bucket_size_under_fsdp --exit 2
                  --err "FSDP \\(--sharding params\\) gathers and reduce-scatters a layer at a time instead"
                  -- plan --model tests/data/models/tiny-llama.json --gpu h100 --gpus 8 --global-batch 32 --seq 256
                     --sharding params --ddp-bucket-size 1000000)
pipeplan_cli_test(plan_ddp_bucket_size_range --exit 2 --err "--ddp-bucket-size"
                  -- plan --model tests/data/models/tiny-llama.json --gpu h100 --gpus 8 --global-batch 32 --seq 256
                     --ddp-bucket-size 0)
pipeplan_cli_test(plan_buckets_said
                  --out "gradient buckets of 1000000 parameters, the first weight bucket gathered from the step's start"
                  -- plan --wide --model tests/data/models/tiny-llama.json --gpu h100 --gpus 8 --global-batch 32 --seq 256
                     --ddp-bucket-size 1000000 --param-gather-at-step-start --top 1)
pipeplan_cli_test(plan_param_gather_at_step_start_needs_overlap --exit 2
                  --err "--param-gather-at-step-start: says when --overlap-param-gather dispatches"
                  -- plan --model tests/data/models/tiny-llama.json --gpu h100 --gpus 8 --global-batch 32 --seq 256
                     --no-overlap-param-gather --param-gather-at-step-start)
# --fsdp-impl names what runs --sharding params: said, refused beside another sharding or name.
pipeplan_cli_test(plan_fsdp_impl_said --out "FSDP as Megatron-FSDP runs it"
                  -- plan --wide --model tests/data/models/tiny-llama.json --gpu h100 --gpus 8 --global-batch 32 --seq 256
                     --sharding params --fsdp-impl megatron --top 1)
pipeplan_cli_test(plan_fsdp_impl_needs_params --exit 2
                  --err "--fsdp-impl megatron: names what runs --sharding params, and --sharding is optimizer"
                  -- plan --model tests/data/models/tiny-llama.json --gpu h100 --gpus 8 --global-batch 32 --seq 256
                     --sharding optimizer --fsdp-impl megatron)
pipeplan_cli_test(plan_fsdp_impl_unknown --exit 2 --err "--fsdp-impl: .*fsdp2"
                  -- plan --model tests/data/models/tiny-llama.json --gpu h100 --gpus 8 --global-batch 32 --seq 256
                     --fsdp-impl deepspeed)
# Transformer Engine's tensor-parallel overlap: said in the header, refused where tp is 1.
pipeplan_cli_test(plan_tp_comm_overlap_said --out "collectives beside their GEMMs"
                  -- plan --model tests/data/models/tiny-llama.json --gpu h100 --gpus 8 --global-batch 32 --seq 256
                     --tp 2 --tp-comm-overlap --top 1)
pipeplan_cli_test(plan_tp_comm_overlap_needs_tp --exit 2 --err "--tp-comm-overlap: needs --tp above 1"
                  -- plan --model tests/data/models/tiny-llama.json --gpu h100 --gpus 8 --global-batch 32 --seq 256
                     --tp 1 --tp-comm-overlap)
pipeplan_cli_test(plan_tp_comm_overlap_needs_sequence_parallel --exit 2
                  --err "--tp-comm-overlap: needs sequence parallelism"
                  -- plan --model tests/data/models/tiny-llama.json --gpu h100 --gpus 8 --global-batch 32 --seq 256
                     --tp 2 --tp-comm-overlap --no-sequence-parallel)
# PyTorch's async tensor parallelism: said in the header, refused without the overlap it names
# or with a method pipeplan does not know.
pipeplan_cli_test(plan_tp_overlap_method_said --out "(PyTorch's async TP)"
                  -- plan --model tests/data/models/tiny-llama.json --gpu h100 --gpus 8 --global-batch 32 --seq 256
                     --tp 2 --tp-comm-overlap --tp-overlap-method async-tp --top 1)
pipeplan_cli_test(plan_tp_overlap_method_needs_overlap --exit 2
                  --err "--tp-overlap-method async-tp: names what runs --tp-comm-overlap, which is off"
                  -- plan --model tests/data/models/tiny-llama.json --gpu h100 --gpus 8 --global-batch 32 --seq 256
                     --tp 2 --tp-overlap-method async-tp)
pipeplan_cli_test(plan_tp_overlap_method_unknown --exit 2 --err "--tp-overlap-method"
                  -- plan --model tests/data/models/tiny-llama.json --gpu h100 --gpus 8 --global-batch 32 --seq 256
                     --tp 2 --tp-comm-overlap --tp-overlap-method nccl)
# --network: the card on another network, said in the header; a bad one refused by name, no
# file written.
pipeplan_cli_test(plan_network_said --out "on a network of 50 Gb/s per GPU \\(--network\\)"
                  -- plan --model tests/data/models/tiny-llama.json --gpu h100 --gpus 16 --global-batch 32 --seq 256
                     --network 50 --top 1)
pipeplan_cli_test(profile_network_unknown --exit 2 --absent @TMP@/p.json
                  --err "--network: expected hdr, ndr, xdr, or a rate in Gb/s each way per GPU from 1 to 100000, got 'fast'"
                  -- profile --model tests/data/models/tiny-llama.json --gpu h100 --stages 2 --seq 256 --network fast
                     -o @TMP@/p.json)
pipeplan_cli_test(profile_no_sequence_parallel_said --out "no sequence parallelism"
                  -- profile --model tests/data/models/tiny-llama.json --gpu h100 --stages 2 --seq 256 --tp 2
                     --no-sequence-parallel)
pipeplan_cli_test(plan_recompute_ops --out "^ 1 .* ops "
                  -- plan --model tests/data/models/tiny-llama.json --gpu h100 --gpus 8 --global-batch 32 --seq 256
                     --recompute ops --top 1)
pipeplan_cli_test(plan_recompute_ops_refuses_experts --exit 2 --err "--recompute ops: .*expert layers"
                  -- plan --model tests/data/models/tiny-qwen-moe.json --gpu h100 --gpus 8 --global-batch 32 --seq 256
                     --recompute ops)
pipeplan_cli_test(profile_loss_torch_said --out "the loss as torch computes it"
                  -- profile --model tests/data/models/tiny-llama.json --gpu h100 --stages 2 --seq 256 --loss torch)
# --moe-a2a-overlap (Megatron-Core's --overlap-moe-expert-parallel-comm): said, the pair timed in
# the profile, refused where Megatron-Core refuses it.
pipeplan_cli_test(profile_moe_a2a_overlap --out "each backward's expert all-to-alls beside the next forward"
                  --out "\"f_and_b_ms\": "
                  -- profile --model tests/data/models/tiny-qwen-moe.json --gpu h100 --stages 1 --dp 2 --ep 2
                     --moe-a2a-overlap)
pipeplan_cli_test(plan_moe_a2a_overlap_dense --exit 1 --err "--moe-a2a-overlap: .*tiny-llama.json has no experts"
                  -- plan --model tests/data/models/tiny-llama.json --gpu h100 --gpus 4 --global-batch 16 --moe-a2a-overlap)
pipeplan_cli_test(profile_moe_a2a_overlap_full --exit 2 --err "--moe-a2a-overlap: Megatron-Core runs it without full recompute"
                  -- profile --model tests/data/models/tiny-qwen-moe.json --gpu h100 --stages 1 --dp 2 --ep 2
                     --recompute full --moe-a2a-overlap)
pipeplan_cli_test(profile_moe_a2a_overlap_ep1 --exit 2 --err "--moe-a2a-overlap: overlaps the expert all-to-alls, which --ep 1"
                  -- profile --model tests/data/models/tiny-qwen-moe.json --gpu h100 --stages 1 --dp 2 --ep 1
                     --moe-a2a-overlap)
# --recompute-modules (Megatron-Core's selective recompute by module): said in the header, in the
# plan's legend, JSON and Megatron launch; refused beside another --recompute, or with nothing to act on.
pipeplan_cli_test(plan_recompute_modules --out "recompute selective \\(layernorm, moe_act\\)"
                  --out "sel: the modules layernorm,moe_act"
                  -- plan --model tests/data/models/tiny-qwen-moe.json --gpu h100 --gpus 4 --global-batch 16
                     --recompute-modules moe_act,layernorm)
pipeplan_cli_test(plan_recompute_modules_json --out "\"recompute_modules\": \\[\"layernorm\", \"moe_act\"\\]"
                  --out "\"schema_version\": 5"
                  -- plan --model tests/data/models/tiny-qwen-moe.json --gpu h100 --gpus 4 --global-batch 16
                     --recompute-modules moe_act,layernorm --json)
pipeplan_cli_test(plan_recompute_modules_launch --out "--recompute-granularity selective"
                  --out "--recompute-modules layernorm moe_act"
                  -- plan --model tests/data/models/tiny-qwen-moe.json --gpu h100 --gpus 4 --global-batch 16
                     --recompute-modules moe_act,layernorm --launch megatron)
pipeplan_cli_test(plan_recompute_modules_full --exit 2 --err "--recompute-modules mlp: the modules of selective recompute, and --recompute is full"
                  -- plan --model tests/data/models/tiny-llama.json --gpu h100 --gpus 4 --global-batch 16
                     --recompute full --recompute-modules mlp)
pipeplan_cli_test(plan_recompute_modules_unknown --exit 2 --err "--recompute-modules mlp,attn: 'attn' is not one of core_attn"
                  -- plan --model tests/data/models/tiny-llama.json --gpu h100 --gpus 4 --global-batch 16
                     --recompute-modules mlp,attn)
pipeplan_cli_test(plan_recompute_modules_no_latent --exit 1 --err "--recompute-modules mla_up_proj: .*tiny-llama.json has no latent attention"
                  -- plan --model tests/data/models/tiny-llama.json --gpu h100 --gpus 4 --global-batch 16
                     --recompute-modules mla_up_proj)
# --grad-reduce-in-bf16: said, written for Megatron, refused outside bf16 training.
pipeplan_cli_test(plan_grad_reduce_bf16 --out "gradients *\n? *reduced in bf16"
                  -- plan --model tests/data/models/tiny-llama.json --gpu h100 --gpus 4 --global-batch 16
                     --grad-reduce-in-bf16)
pipeplan_cli_test(plan_grad_reduce_bf16_launch --out "^--grad-reduce-in-bf16"
                  -- plan --model tests/data/models/tiny-llama.json --gpu h100 --gpus 4 --global-batch 16
                     --grad-reduce-in-bf16 --launch megatron)
pipeplan_cli_test(plan_grad_reduce_bf16_fp32 --exit 2 --err "--grad-reduce-in-bf16: .* --dtype fp32 trains in fp32"
                  -- plan --model tests/data/models/tiny-llama.json --gpu h100 --gpus 4 --global-batch 16
                     --dtype fp32 --grad-reduce-in-bf16)
pipeplan_cli_test(profile_loss_te_said --out "the loss as te computes it"
                  -- profile --model tests/data/models/tiny-llama.json --gpu h100 --stages 2 --seq 256 --loss te)
pipeplan_cli_test(profile_loss_unknown --exit 2 --err "--loss: fused not in"
                  -- profile --model tests/data/models/tiny-llama.json --gpu h100 --stages 2 --loss fused)
pipeplan_cli_test(profile_elementwise_eager_said --out "norms, RoPE and activations op by op"
                  -- profile --model tests/data/models/tiny-llama.json --gpu h100 --stages 2 --seq 256 --elementwise eager)
pipeplan_cli_test(profile_elementwise_unknown --exit 2 --err "--elementwise: compiled not in"
                  -- profile --model tests/data/models/tiny-llama.json --gpu h100 --stages 2 --elementwise compiled)
pipeplan_cli_test(plan_memory_reserve_too_large --exit 2
                  --err "--memory-reserve 80.00 GiB: leaves nothing of the 79.65 GiB limit"
                  -- plan --model tests/data/models/tiny-llama.json --gpu h100 --gpus 8 --global-batch 32 --seq 256
                     --memory-reserve 80GiB)
pipeplan_cli_test(plan_rank_order_json --out "\"rank_order\": \"tp-(dp-pp|pp-dp)\""
                  -- plan --model tests/data/models/tiny-llama.json --gpu h100 --gpus 8 --gpus-per-node 4
                     --global-batch 32 --seq 256 --json)
pipeplan_cli_test(plan_bad_rank_order --exit 2 --err "--rank-order: tp-xx-dp not in \\{tp-dp-pp,tp-pp-dp\\}"
                  -- plan --model tests/data/models/tiny-llama.json --gpu h100 --gpus 8 --global-batch 32 --rank-order tp-xx-dp)
pipeplan_cli_test(plan_table --out "configurations: [0-9]+ within memory" --out "^  1  [a-z0-9-]+ +[0-9]+ +[0-9]+ +1 "
                  -- plan --wide --model tests/data/models/tiny-llama.json --gpu h100 --gpus 4 --global-batch 16 --seq 256)
# The winner written by --emit-schedule, simulated again, gives the step time plan reported.
pipeplan_cli_test(plan_winner_resimulated
                  --then "$PIPEPLAN simulate w/schedule.json --profile w/profile.json -o r.json && a=$(grep -o '\"step_ms\": [0-9][0-9.e+-]*' plan.json | head -1) && test -n \"$a\" && test \"$a\" = \"$(grep -o '\"step_ms\": [0-9][0-9.e+-]*' r.json | head -1)\""
                  -- plan --model tests/data/models/tiny-llama.json --gpu h100 --gpus 4 --global-batch 16 --seq 256
                     --json --emit-schedule @TMP@/w -o @TMP@/plan.json)
# Under --comm blocking --policy batched, the winner written by --emit-schedule and simulated
# again under the same flags gives the step plan reported; the header says how transfers ran.
pipeplan_cli_test(plan_comm_resimulated --out "sends and receives on the compute stream \\(--comm blocking\\), lowered with batched"
                  --then "$PIPEPLAN simulate w/schedule.json --profile w/profile.json --comm blocking --policy batched -o r.json && a=$(grep -o '\"step_ms\": [0-9][0-9.e+-]*' plan.json | head -1) && test -n \"$a\" && test \"$a\" = \"$(grep -o '\"step_ms\": [0-9][0-9.e+-]*' r.json | head -1)\""
                  -- plan --model tests/data/models/tiny-llama.json --gpu h100 --gpus 4 --global-batch 16 --seq 256
                     --schedules 1f1b --pp 4 --comm blocking --policy batched --wide --emit-schedule @TMP@/w -o @TMP@/plan.json)
pipeplan_cli_test(plan_policy_without_comm --exit 2 --absent @TMP@/plan.json
                  --err "--policy: applies to --comm blocking or rendezvous"
                  -- plan --model tests/data/models/tiny-llama.json --gpu h100 --gpus 4 --global-batch 16 --policy batched
                     -o @TMP@/plan.json)
pipeplan_cli_test(plan_comm_unknown --exit 2 --err "--comm: .*blocking"
                  -- plan --model tests/data/models/tiny-llama.json --gpu h100 --gpus 4 --global-batch 16 --comm eager)
# --emit-rows writes each row shown (--top 5) into rows/N, N its number in the table: the fourth,
# simulated again, gives the fourth row's step (plan.json's fourth "step_ms": each row has one
# without --breakdown); no sixth is written.
pipeplan_cli_test(plan_emit_rows_resimulated
                  --then "test -f rows/5/schedule.json && test ! -e rows/6 && $PIPEPLAN simulate rows/4/schedule.json --profile rows/4/profile.json -o r.json && a=$(grep -o '\"step_ms\": [0-9][0-9.e+-]*' plan.json | sed -n 4p) && test -n \"$a\" && test \"$a\" = \"$(grep -o '\"step_ms\": [0-9][0-9.e+-]*' r.json | head -1)\""
                  -- plan --model tests/data/models/tiny-llama.json --gpu h100 --gpus 4 --global-batch 16 --seq 256
                     --json --emit-rows @TMP@/rows -o @TMP@/plan.json)
pipeplan_cli_test(plan_emit_rows_nothing_fits --exit 1 --err "--emit-rows: no configuration fits in memory, nothing to write"
                  -- plan --model profiles/models/llama-3-70b.json --gpu rtx3090 --gpus 4 --global-batch 8 --schedules 1f1b,zbh1
                     --emit-rows @TMP@/rows)
pipeplan_cli_test(plan_nothing_fits --exit 1 --out "no configuration fits in memory" --out "closest over memory: "
                  -- plan --model profiles/models/llama-3-70b.json --gpu rtx3090 --gpus 4 --global-batch 8 --schedules 1f1b,zbh1)
pipeplan_cli_test(plan_unknown_gpu --exit 2 --err "--gpu: unknown GPU 'h10'. did you mean 'h100', 'h100-96gb', 'h800'"
                  -- plan --model tests/data/models/tiny-llama.json --gpu h10 --gpus 4 --global-batch 8)
pipeplan_cli_test(plan_bad_dtype --exit 2 --err "--dtype: expected bf16, fp16, fp32 or fp8 \\(or a list of them\\), got 'bf32'"
                  -- plan --model tests/data/models/tiny-llama.json --gpu h100 --gpus 4 --global-batch 8 --dtype bf32)
pipeplan_cli_test(plan_bad_layout --exit 2 --err "--layout 'E,t.3.t.4,H': the stages hold 7 layers, the model has 8"
                  -- plan --model tests/data/models/tiny-llama.json --gpu h100 --gpus 4 --global-batch 8 --layout "E,t*3|t*4,H")
pipeplan_cli_test(plan_global_batch --exit 1
                  --err "--global-batch 7: no data-parallel degree of 4 pipeline ranks splits it into micro-batches of 2"
                  -- plan --model tests/data/models/tiny-llama.json --gpu h100 --gpus 4 --global-batch 7 --micro-batch 2)
pipeplan_cli_test(plan_config_missing_key --exit 1 --err "c.json: missing 'vocab_size' .a positive integer."
                  --before "echo '{\"hidden_size\": 64, \"intermediate_size\": 128, \"num_hidden_layers\": 2, \"num_attention_heads\": 4}' > c.json"
                  -- plan --model @TMP@/c.json --gpu h100 --gpus 4 --global-batch 8)
pipeplan_cli_test(profile_too_large --exit 1 --err "activations exceed 256 TiB on one piece"
                  -- profile --model profiles/models/llama-3-8b.json --gpu h100 --stages 2 --seq 4000000 --micro-batch 60000)

# ---- Communication (issue 8): lower, --comm, --policy.
pipeplan_cli_test(lower_batched --out "\"lowering\": \"batched\"" --out "\"kind\": \"RECV_F\", \"stage\": 1, \"microbatch\": 1, \"batched\": true"
                  -- lower schedules/zbh1-p4-m8.json --policy batched)
pipeplan_cli_test(lower_unknown_policy --exit 2 --err "--policy: expected just-before, early, megatron, batched or timed, got 'eager'"
                  -- lower schedules/zbh1-p4-m8.json --policy eager)
# --comm overlap is the core's simulation, byte for byte.
pipeplan_cli_test(simulate_overlap_unchanged --golden tests/golden/simulate-zbh1-p4-m8.txt
                  -- simulate schedules/zbh1-p4-m8.json --costs 1,1,1 --memory 1GiB,256MiB --comm overlap)
# A lowered file simulates with its own posts; the timed lowering of the same schedule too.
pipeplan_cli_test(simulate_lowered_file --out "communication: rendezvous, lowered with timed, the file's"
                  --before "$PIPEPLAN lower $SOURCE_DIR/schedules/zbh1-p4-m8.json -o l.json"
                  -- simulate @TMP@/l.json --comm rendezvous)
pipeplan_cli_test(simulate_lowered_with_policy --exit 2 --err "--policy: the file has its own sends and receives"
                  -- simulate tests/data/lowered/two-sends-first.json --comm blocking --policy timed)
pipeplan_cli_test(simulate_policy_without_comm --exit 2 --err "--policy: applies to --comm blocking or rendezvous"
                  -- simulate schedules/zbh1-p4-m8.json --policy batched)
# Both ends of the link post two sends before their next receive: each send waits for a
# receive queued behind the other end's sends.
pipeplan_cli_test(validate_two_sends_first --exit 1
                  --out "device 0 posted SEND_F.s0,m2. to device 1, which has not posted RECV_F.s1,m2. .its next post: SEND_B.s1,m0.."
                  --out "devices wait in a cycle: device 0 -> device 1 -> device 0"
                  -- validate tests/data/lowered/two-sends-first.json --comm rendezvous)
pipeplan_cli_test(simulate_two_sends_first --exit 1 --err "deadlocks under blocking communication: device 0 posted SEND_F"
                  -- simulate tests/data/lowered/two-sends-first.json --comm blocking)
# A lowering whose receives come in another order than the sends: NCCL would pair wrong tensors.
pipeplan_cli_test(validate_mispaired --exit 1 --out "\\[unmatched\\] device 0's send #1 to device 1 is SEND_F.s0,m0. but device 1's receive #1 from it is RECV_F.s1,m1."
                  --before "sed -e '0,/\"RECV_F\", \"stage\": 1, \"microbatch\": 0/s//\"RECV_F\", \"stage\": 1, \"microbatch\": 9/' -e '0,/\"RECV_F\", \"stage\": 1, \"microbatch\": 1/s//\"RECV_F\", \"stage\": 1, \"microbatch\": 0/' -e 's/\"microbatch\": 9/\"microbatch\": 1/' $SOURCE_DIR/tests/data/lowered/two-sends-first.json > m.json"
                  -- validate @TMP@/m.json --comm rendezvous)
# The seed under blocking communication with batched posts (docs/validation.md). Stage 3, the
# bottleneck, is held t = 3.3854432 ms by each group of a send and a receive between its
# micro-batches: 1F1B 3097.755 + (M-1) t = 3148.536; the seed's ZB-H1 one more, the last B's send
# before the last W: 2872.162 + M t = 2926.329. Steps: + 9.975 ms.
pipeplan_cli_test(compare_seed_blocking --out "communication: blocking, lowered with batched"
                  --out "^1f1b +3148.536 +3158.511" --out "^zbh1-paddle +2926.329 +2936.304"
                  -- compare --profile profiles/seed-llama2-7b-4layers-rtx3090.json --stages 4 --microbatches 16
                     --schedules 1f1b,zbh1-paddle --comm blocking --policy batched)
# A calibrated profile replaces the estimated piece times; its settings must be the plan's.
# The measured pieces of tests/data/calibrated/tiny-llama.json: a layer F = qkv 0.6 + elementwise
# 0.4 = 1, B = 2, W = 1; embedding F 0.1, W 0.1; head F = B = W = 0.5. Layout E,t*4|t*4,H:
# stage 0 F = 0.1 + 4 = 4.1, B = 8, W = 0.1 + 4 = 4.1; stage 1 F = 4 + 0.5 = 4.5, B = 8.5, W = 4.5.
# (The analytic estimate for an H100 puts this tiny model's whole step at 0.119 ms.)
pipeplan_cli_test(plan_calibration --out "configurations: 1 within memory"
                  --then "grep -q '{\"f_ms\": 4.1, \"b_ms\": 8.0, \"w_ms\": 4.1, ' profile.json && grep -q '{\"f_ms\": 4.5, \"b_ms\": 8.5, \"w_ms\": 4.5, ' profile.json"
                  -- plan --model tests/data/models/tiny-llama.json --gpu h100 --gpus 2 --global-batch 8 --seq 256
                     --calibration tests/data/calibrated/tiny-llama.json --layout E,t*4|t*4,H --schedules 1f1b
                     --emit-schedule @TMP@)
pipeplan_cli_test(plan_calibration_mismatch --exit 2
                  --err "--calibration tests/data/calibrated/tiny-llama.json: measured with seq 256, micro-batch 1, bf16, tp 1, flash attention. the plan asks seq 512"
                  -- plan --model tests/data/models/tiny-llama.json --gpu h100 --gpus 2 --global-batch 8 --seq 512
                     --calibration tests/data/calibrated/tiny-llama.json)
# PyTorch's own lowering of ZB1P (2 ranks, 2 stages each) runs under strict rendezvous: kept by
# import --with-comms, it validates clean.
pipeplan_cli_test(import_pytorch_comms_rendezvous --out "^valid: "
                  --before "$PIPEPLAN import $SOURCE_DIR/tests/data/pytorch/zb1p_2rank_2stagep_comms_legacy.csv --with-comms -o l.json 2>/dev/null && grep -q '\"lowering\": \"pytorch\"' l.json"
                  -- validate @TMP@/l.json --comm rendezvous)

# --- the objective of the automatic schedules follows the optimizer mode (docs/schedules.md) ---
# The paper's 1.5B row (Table 5: F, B, W = 18.522, 18.086, 9.337 ms, transfer 0.601 ms,
# a_F = 34h + 5as = 201216, a_W = 32h = 73728 for h = 2304, a = 24, s = 1024), P = 8, M = 24,
# 2P micro-batches: the authors' heuristic gives a span bubble of 4.33%, and so does zb-2p.
pipeplan_cli_test(zb2p_post_validation_table5 --out "span bubble rate 4\\.33%"
                  --before "$PIPEPLAN generate --schedule zb-2p --stages 8 --microbatches 24 --costs 18.522,18.086,9.337 --transfer 0.601 --memory 201216,73728 --optimizer-mode post-validation -o g.json"
                  -- simulate @TMP@/g.json --costs 18.522,18.086,9.337 --transfer 0.601 --memory 201216,73728
                     --optimizer-mode post-validation)
pipeplan_cli_test(generate_objective_needs_automatic --exit 2
                  --err "--optimizer-mode applies to the automatic schedules \\(zb, zb-1p, zb-2p, zbv-auto\\), not to zbh1"
                  -- generate --schedule zbh1 --stages 4 --microbatches 8 --optimizer-mode post-validation)
pipeplan_cli_test(zb_looped_chunks --out "\"placement\": \\[0, 1, 2, 3, 0, 1, 2, 3\\]"
                  -- generate --schedule zb-2p --stages 4 --microbatches 8 --chunks 2 --costs 1,1.2,0.8)

# --- export --with-comms writes a lowering that runs on NCCL (docs/formats.md) ---
# The repro of issue 17: 1F1B, P = 2, M = 4 exported with its sends and receives, imported back
# with them, validated under rendezvous (NCCL's matched, blocking send/recv): the default timed
# lowering neither deadlocks nor mispairs.
pipeplan_cli_test(export_with_comms_runs_on_rendezvous --out "^valid: c\\.csv"
                  --before "$PIPEPLAN generate --schedule 1f1b --stages 2 --microbatches 4 -o g.json && $PIPEPLAN export g.json --format csv --with-comms -o c.csv && $PIPEPLAN import c.csv --with-comms -o c.json"
                  -- validate @TMP@/c.json --comm rendezvous)
# A lowered file keeps its own order: the early policy receives B0 before F1 on device 0.
pipeplan_cli_test(export_keeps_lowered_order --out "^0F0,0SEND_F0,0RECV_B0,0F1,"
                  --before "$PIPEPLAN generate --schedule 1f1b --stages 2 --microbatches 4 -o g.json && $PIPEPLAN lower g.json --policy early -o l.json"
                  -- export @TMP@/l.json --format csv --with-comms)
pipeplan_cli_test(export_policy_needs_with_comms --exit 2 --err "--policy: applies to --format csv --with-comms"
                  -- export schedules/zbh1-p4-m8.json --format csv --policy timed)
pipeplan_cli_test(import_fsdp_actions_only --err "dropped 1 FSDP actions .* no sends or receives to keep"
                  --before "echo 0F0,0REDUCE_GRAD,0I0,0W0 > rg.csv"
                  -- import @TMP@/rg.csv --with-comms -o @TMP@/rg.json)

# ---- Every file and every input (issue 16). Devices, FIFOs, links, modes, standard input,
# escapes and kill -9 are in output_files.sh, input_files.sh and kill_during_write.sh.
# No output may be an input or another output: checked before any work, the input intact.
pipeplan_cli_test(output_is_input --exit 2 --err "^pipeplan: error: -o .*/s.json: the same file as the input .*/s.json. writing it would destroy the input"
                  --before "cp $SOURCE_DIR/schedules/zbh1-p4-m8.json s.json"
                  --then "cmp s.json $SOURCE_DIR/schedules/zbh1-p4-m8.json"
                  -- simulate @TMP@/s.json -o @TMP@/s.json)
pipeplan_cli_test(svg_is_input_through_a_link --exit 2 --err "--svg .*/l.json: the same file as the input .*/s.json"
                  --before "cp $SOURCE_DIR/schedules/zbh1-p4-m8.json s.json && ln -s s.json l.json"
                  --then "cmp s.json $SOURCE_DIR/schedules/zbh1-p4-m8.json"
                  -- simulate @TMP@/s.json --svg @TMP@/./l.json)
pipeplan_cli_test(two_outputs_one_file --exit 2 --absent @TMP@/x
                  --err "--svg .*/sub/../x: the same file as -o .*/x. two outputs would overwrite each other"
                  -- simulate schedules/zbh1-p4-m8.json -o @TMP@/x --svg @TMP@/sub/../x)
pipeplan_cli_test(profile_is_output --exit 2 --err "-o .*/p.json: the same file as --profile .*/p.json"
                  --before "cp $SOURCE_DIR/profiles/example-p4.json p.json"
                  -- compare --schedules 1f1b --stages 4 --microbatches 8 --profile @TMP@/p.json -o @TMP@/p.json)
# An empty file name is a usage error, not standard output; "-" is standard output.
pipeplan_cli_test(empty_output_name --out "\"format\": \"pipeplan.schedule\""
                  --then "$PIPEPLAN generate --schedule 1f1b --stages 2 --microbatches 2 -o '' 2>err || test $? -eq 2 && grep -q 'expected a file name, got an empty one' err"
                  -- generate --schedule 1f1b --stages 2 --microbatches 2 -o -)
# Out-of-range times name the file and the field; a schedule that cannot be timed names the file.
pipeplan_cli_test(profile_time_out_of_range --exit 1
                  --err "p.json: stages\\[0\\]\\.f_ms: expected a number of milliseconds up to 1e10 \\(115 days\\), got 1e\\+?300"
                  --before "sed '0,/\"f_ms\": 1.0/s//\"f_ms\": 1e300/' $SOURCE_DIR/profiles/example-p4.json > p.json"
                  -- simulate schedules/zbh1-p4-m8.json --profile @TMP@/p.json)
pipeplan_cli_test(result_time_out_of_range --exit 1 --err "r.json: makespan_ms: expected a number of milliseconds up to 4\\.612e12 \\(2\\^62 ns, the longest run timed\\)"
                  --before "$PIPEPLAN simulate $SOURCE_DIR/schedules/zbh1-p4-m8.json -o r0.json >/dev/null && sed 's/\"makespan_ms\": [0-9.]*/\"makespan_ms\": 1e300/' r0.json > r.json"
                  -- export @TMP@/r.json --format svg)
pipeplan_cli_test(untimeable_names_file --exit 1 --err "^pipeplan: error: tests/data/broken_p2_m2.json: the schedule cannot be timed"
                  -- simulate tests/data/broken_p2_m2.json)
pipeplan_cli_test(untimeable_export_names_file --exit 1 --err "^pipeplan: error: tests/data/broken_p2_m2.json: the schedule cannot be timed"
                  -- export tests/data/broken_p2_m2.json --format svg)
# A flag that does not apply is refused, saying which schedules take it (exit 2).
pipeplan_cli_test(zbv_chunks --exit 2 --absent @TMP@/o.json
                  --err "--chunks 3: zbv builds V = 2 only. the schedules that build V = 3: interleaved, interleaved-zb, looped-bfs, zb, zb-1p, zb-2p"
                  -- generate --schedule zbv --stages 4 --microbatches 8 --chunks 3 -o @TMP@/o.json)
pipeplan_cli_test(one_f_one_b_chunks --exit 2 --err "--chunks 2: 1f1b builds V = 1 only. the schedules that build V = 2: interleaved, "
                  -- generate --schedule 1f1b --stages 4 --microbatches 8 --chunks 2)
pipeplan_cli_test(zbh1_memory_limit --exit 2 --err "--memory-limit: zbh1 plans without a memory limit. it applies to zb, zbv-auto"
                  -- generate --schedule zbh1 --stages 4 --microbatches 8 --memory-limit 1GiB)
pipeplan_cli_test(compare_chunks_none --exit 2 --err "--chunks 3: none of zbv, 1f1b builds V = 3"
                  -- compare --schedules zbv,1f1b --stages 4 --microbatches 8 --chunks 3)
# One --chunks serves a comparison when one of the schedules takes it; the others keep theirs.
pipeplan_cli_test(compare_chunks_some --out "^interleaved " --out "^zbv "
                  -- compare --schedules interleaved,zbv --stages 4 --microbatches 8 --chunks 4)
pipeplan_cli_test(group_not_grouped --exit 2 --err "--group: zbh1 builds no micro-batch groups. it applies to interleaved"
                  -- generate --schedule zbh1 --stages 4 --microbatches 8 --group 2)
pipeplan_cli_test(costs_not_used --exit 2 --err "--costs: 1f1b is built without costs. they apply to zb, zb-1p, zb-2p, zbv-auto"
                  -- generate --schedule 1f1b --stages 2 --microbatches 2 --costs 1,2,1)
pipeplan_cli_test(export_csv_costs --exit 2 --err "--costs: --format csv is not timed. the cost and steady-state flags apply to chrome, svg, html, text"
                  -- export schedules/zbh1-p4-m8.json --format csv --costs 1,2,1)
pipeplan_cli_test(export_text_limit --exit 2 --err "--memory-limit: --format text draws no memory limit. it applies to svg, html"
                  -- export schedules/zbh1-p4-m8.json --format text --memory-limit 1GiB)
pipeplan_cli_test(export_svg_comms --exit 2 --err "--with-comms: applies to --format csv, not svg"
                  -- export schedules/zbh1-p4-m8.json --format svg --with-comms)
pipeplan_cli_test(export_result_costs --exit 2 --err "--iterations: .*r.json is a result, timed already"
                  --before "$PIPEPLAN simulate $SOURCE_DIR/schedules/zbh1-p4-m8.json -o r.json >/dev/null"
                  -- export @TMP@/r.json --format svg --iterations 2)
pipeplan_cli_test(lower_costs_untimed --exit 2 --err "--costs: --policy batched places the posts without timing"
                  -- lower schedules/zbh1-p4-m8.json --policy batched --costs 1,2,1)
# Usage errors exit 2 everywhere: flags that contradict each other, a malformed layout.
pipeplan_cli_test(plan_tp_above_gpus --exit 2 --err "--gpus 8: must be a multiple of --tp 16"
                  -- plan --model tests/data/models/tiny-llama.json --gpu h100 --gpus 8 --tp 16 --global-batch 8)
pipeplan_cli_test(plan_layout_garbage --exit 2 --err "--layout"
                  -- plan --model tests/data/models/tiny-llama.json --gpu h100 --gpus 4 --global-batch 8 --layout garbage)
pipeplan_cli_test(profile_layout_garbage --exit 2 --err "--layout"
                  -- profile --model tests/data/models/tiny-llama.json --gpu h100 --stages 2 --layout garbage)
# A mistyped flag gets the closest flags; a stray argument is named.
pipeplan_cli_test(mistyped_flag --exit 2 --err "^pipeplan: error: unknown flag '--cost'. did you mean '--costs', '--comm'\\? \\(run 'pipeplan simulate --help'"
                  -- simulate schedules/zbh1-p4-m8.json --cost 1,1,1)
pipeplan_cli_test(stray_argument --exit 2 --err "^pipeplan: error: unexpected argument 'extra.json'"
                  -- simulate schedules/zbh1-p4-m8.json extra.json)
# Names in any case.
pipeplan_cli_test(schedule_any_case --golden schedules/zbh1-p4-m8.json
                  -- generate --schedule ZBH1 --stages 4 --microbatches 8)
pipeplan_cli_test(gpu_any_case --out "on h100, bf16"
                  -- profile --model tests/data/models/tiny-llama.json --gpu H100 --stages 2)
pipeplan_cli_test(format_any_case --out "^0F0,0F1,"
                  -- export schedules/zbh1-p4-m8.json --format CSV)

# The planner's search (issue 14): the settings not given are searched, the table shows them.
pipeplan_cli_test(plan_searches_settings --out "micro-batch searched, tp searched, cp searched, recompute searched, sharding searched"
                  --out "^ +# +schedule +pp +dp +tp +cp +ranks +V +M +mb recompute sharding "
                  -- plan --wide --model tests/data/models/tiny-llama.json --gpu h100 --gpus 4 --global-batch 16 --seq 256 --microbatches 4)
pipeplan_cli_test(plan_bad_sharding --exit 2 --err "--sharding: expected none, optimizer, gradients or params, got 'zero2'"
                  -- plan --model tests/data/models/tiny-llama.json --gpu h100 --gpus 4 --global-batch 8 --sharding zero2)
pipeplan_cli_test(plan_microbatches_impossible --exit 1 --err "--microbatches 3: no data-parallel degree and micro-batch size"
                  -- plan --model tests/data/models/tiny-llama.json --gpu h100 --gpus 4 --global-batch 16 --microbatches 3)
# A mixture of experts: Mixtral 8x7B's 46.7e9 parameters (12.9e9 active), expert parallelism per row.
pipeplan_cli_test(plan_mixtral --out "mixtral \\(46\\.70 B parameters, 12\\.88 B active, 32 layers\\)" --out "ep searched"
                  --out " tp +cp +ep +etp +ranks +V +M" --out "^  1  [a-z0-9-]+ +[0-9]+ +[0-9]+ +2 +[1248] +[1248] +2 tp-dp-pp "
                  -- plan --wide --model profiles/models/mixtral-8x7b.json --gpu h100 --gpus 16 --global-batch 64 --seq 4096
                     --tp 2 --micro-batch 1 --recompute none --sharding optimizer --schedules zbv,dualpipev --top 3)
pipeplan_cli_test(plan_mixtral_ep_json --out "\"ep\": 4"
                  -- plan --model profiles/models/mixtral-8x7b.json --gpu h100 --gpus 16 --global-batch 64 --seq 4096
                     --tp 2 --ep 4 --micro-batch 1 --recompute none --sharding optimizer --schedules zbv --json)
# DeepSeek-V3 is read (its 671B, 37B active, hand-derived in model_families_test) and does not fit on 8 H100.
pipeplan_cli_test(plan_deepseek_v3_over_memory --exit 1
                  --out "deepseek_v3 \\(671.03 B parameters, 37.55 B active, 61 layers\\)"
                  -- plan --model tests/data/models/deepseek-v3.json --gpu h100 --gpus 8 --global-batch 8)
# Latent attention under a family without it is refused by name.
pipeplan_cli_test(plan_refuses_latent_attention_under_llama --exit 1
                  --err "kv_lora_rank: 512: multi-head latent attention \\(q_lora_rank, kv_lora_rank\\) under model_type 'llama'"
                  -- plan --model tests/data/models/latent-under-llama.json --gpu h100 --gpus 8 --global-batch 8)
pipeplan_cli_test(plan_ep_needs_experts --exit 1 --err "--ep 2: .*tiny-llama.json has no experts to spread"
                  -- plan --model tests/data/models/tiny-llama.json --gpu h100 --gpus 4 --global-batch 16 --ep 2)
pipeplan_cli_test(plan_megatron_layout --out "\"megatron_layout\": \"Et\\*4\\|t\\*4L\""
                  -- plan --model tests/data/models/tiny-llama.json --gpu h100 --gpus 4 --global-batch 16 --seq 256
                     --layout "Et*4|t*4L" --json)

# docs/validation.md, Megatron-LM's 39.1B GPT (Narayanan et al., SC 2021, Table 1) planned with
# its settings: 512 A100s, tp 8; the pp 2 row steps in 12170.8 ms (each of a device's 4 model chunks
# all-reduces its own gradients, one latency each, as Megatron-LM's allreduce_gradients loops over
# them; 12170.7 as one all-reduce) with the A100's measured
# sustained GEMM rate (0.822 of the peak, docs/costs.md, "GEMM rate") and the GEMMs priced by
# shape (164.1 TFLOP/s per GPU by Megatron's FLOP formula against the measured 138; at 0.7 it
# was 12777.6 ms; unfused, the attention core's batched products at their shapes add 225.0 ms
# to the large-product rate's, Q K^T's K a head's 128 and the product with V bound by reading
# the 2048 x 2048 scores; per rank the output projection's and the second MLP matrix's 2048 x 8192
# outputs are 16 x 64 = 1024 tiles, 9.48 waves of 108 SMs, so 10 run; QKV's 2048 x 3072 are
# 384 tiles, 4 waves for 3.56; the output projection's K of 8192 / 8 = 1024 keeps 0.93 of the
# rate past its tiles' fixed time, docs/costs.md, "GEMM shapes"; the loss's unfused kernels,
# Megatron-LM's default, add 17.6 ms).
pipeplan_cli_test(plan_megatron_39b --out "interleaved +2 +32 +8 +1 +tp-dp-pp +4 +48 +1 full +none +12170\\.756"
                  -- plan --wide --model profiles/models/megatron-gpt-39.1b.json --gpu a100-80gb --gpus 512 --tp 8
                     --micro-batch 1 --recompute full --sharding none --no-flash-attention --schedules interleaved
                     --seq 2048 --global-batch 1536 --top 10 --no-overlap-grad-reduce)
# FP8 training (issue 24): the linear GEMMs at the card's FP8 rate, the rest in bf16. On B200
# the default recipe is MXFP8; a layer's forward comes out faster than bf16's but not twice
# (attention, element-wise kernels and the casts stay at bf16's speed), and the profile's
# description says the recipe.
pipeplan_cli_test(profile_fp8_b200
                  --before "$PIPEPLAN profile --model $SOURCE_DIR/profiles/models/llama-2-7b.json --gpu b200 --stages 4 --layout even --seq 4096 -o bf16.json"
                  --then "python3 -c \"assert (lambda a, b: a['f_ms'] / 2 < b['f_ms'] < a['f_ms'] and b['b_ms'] < a['b_ms'] and b['activation_bytes'] < a['activation_bytes'])(*[__import__('json').load(open(f))['stages'][1] for f in ('bf16.json', 'fp8.json')])\" && grep -q 'on b200, fp8 (mxfp8 recipe, bf16 weights and activations)' fp8.json"
                  -- profile --model profiles/models/llama-2-7b.json --gpu b200 --stages 4 --layout even --seq 4096
                     --dtype fp8 -o @TMP@/fp8.json)
pipeplan_cli_test(profile_fp8_recipe_named --out "fp8 \\(delayed recipe"
                  -- profile --model tests/data/models/tiny-llama.json --gpu h100 --stages 2 --dtype fp8 --fp8-recipe delayed)
pipeplan_cli_test(profile_fp8_a100_refused --exit 2
                  --err "--dtype fp8: a100-80gb \\(ampere\\) has no FP8 tensor cores. FP8 training needs Ada, Hopper or Blackwell"
                  -- profile --model tests/data/models/tiny-llama.json --gpu a100-80gb --stages 2 --dtype fp8)
pipeplan_cli_test(profile_mxfp8_h100_refused --exit 2
                  --err "--fp8-recipe mxfp8: mxfp8 needs Blackwell's block-scaled tensor cores, which h100 \\(hopper\\) lacks"
                  -- profile --model tests/data/models/tiny-llama.json --gpu h100 --stages 2 --dtype fp8 --fp8-recipe mxfp8)
pipeplan_cli_test(plan_fp8_recipe_without_fp8_refused --exit 2
                  --err "--fp8-recipe tensorwise: needs --dtype fp8 \\(--dtype is bf16\\)"
                  -- plan --model tests/data/models/tiny-llama.json --gpu h100 --gpus 8 --global-batch 32
                     --fp8-recipe tensorwise)
pipeplan_cli_test(plan_fp8_recipe_unknown --exit 2
                  --err "--fp8-recipe: expected tensorwise, delayed, blockwise or mxfp8, got 'nvfp4'"
                  -- plan --model tests/data/models/tiny-llama.json --gpu b200 --gpus 8 --global-batch 32
                     --dtype fp8 --fp8-recipe nvfp4)
pipeplan_cli_test(plan_fp8_h100 --out "on h100, fp8 \\(tensorwise recipe, bf16 weights and activations\\)"
                  -- plan --model tests/data/models/tiny-llama.json --gpu h100 --gpus 8 --global-batch 32 --seq 256
                     --dtype fp8 --top 1)

# ---- Context parallelism, FSDP and expert folding (issue 24; docs/costs.md).
# --cp 2 fixed: every row shows cp 2 (the column after tp), and the JSON says so in schema 2.
pipeplan_cli_test(plan_cp_fixed --out "tp searched, cp 2, recompute searched"
                  --out "^  1  [a-z0-9-]+ +[0-9]+ +[0-9]+ +[0-9]+ +2 tp-dp-pp "
                  -- plan --wide --model tests/data/models/tiny-llama.json --gpu h100 --gpus 8 --global-batch 16 --seq 256
                     --cp 2 --top 3)
pipeplan_cli_test(plan_cp_json --out "\"cp\": 2," --out "\"schema_version\": 2,"
                  -- plan --model tests/data/models/tiny-llama.json --gpu h100 --gpus 8 --global-batch 16 --seq 256
                     --cp 2 --top 1 --json)
pipeplan_cli_test(plan_cp_searched --out "cp searched"
                  -- plan --model tests/data/models/tiny-llama.json --gpu h100 --gpus 4 --global-batch 16 --seq 256 --top 1)
# The sequence must split into 2 x cp chunks; the GPUs into tp x cp.
pipeplan_cli_test(plan_cp_not_dividing_seq --exit 1
                  --err "--cp 3: the sequence \\(256 tokens\\) must divide into 2 x cp = 6 chunks"
                  -- plan --model tests/data/models/tiny-llama.json --gpu h100 --gpus 6 --global-batch 12 --seq 256 --cp 3)
pipeplan_cli_test(plan_cp_not_dividing_gpus --exit 2 --err "--gpus 6: must be a multiple of --cp 4"
                  -- plan --model tests/data/models/tiny-llama.json --gpu h100 --gpus 6 --global-batch 12 --seq 256 --cp 4)
pipeplan_cli_test(profile_cp_needs_flash --exit 1 --err "--cp 2: context parallelism needs flash attention"
                  -- profile --model tests/data/models/tiny-llama.json --gpu h100 --stages 2 --seq 256 --cp 2
                     --no-flash-attention)
# profile --cp 2: a transfer carries the rank's 128 of 256 tokens, 128 x 64 x 2 = 16,384 bytes.
pipeplan_cli_test(profile_cp --out "\"bytes\": 16384" --out "cp 2"
                  -- profile --model tests/data/models/tiny-llama.json --gpu h100 --stages 2 --seq 256 --cp 2)
# FSDP: fixed, at pp 1 the rows say params; profile takes it with its replicas.
pipeplan_cli_test(plan_sharding_params --out "^  1  [a-z0-9-]+ +1 +[0-9]+ .* params "
                  -- plan --wide --model tests/data/models/tiny-llama.json --gpu h100 --gpus 4 --global-batch 16 --seq 256
                     --sharding params --pp 1 --top 1)
pipeplan_cli_test(profile_sharding_params --out "sharding params"
                  -- profile --model tests/data/models/tiny-llama.json --gpu h100 --stages 2 --seq 256 --dp 4
                     --sharding params)
# Expert tensor parallelism and folding: Mixtral at tp 2, etp 1, ep 8 over pp 2's 8-rank stages
# (dp 4); at etp 2 the 16 ranks ep 8 needs do not fit them.
pipeplan_cli_test(plan_etp --out " tp +cp +ep +etp +ranks" --out "^  1  [a-z0-9-]+ +2 +4 +2 +1 +8 +1 tp-dp-pp "
                  --out "ep 8, etp 1"
                  -- plan --wide --model profiles/models/mixtral-8x7b.json --gpu h100 --gpus 16 --global-batch 64 --seq 4096
                     --tp 2 --cp 1 --etp 1 --ep 8 --pp 2 --micro-batch 1 --recompute none --sharding optimizer
                     --schedules zbv --top 1)
pipeplan_cli_test(plan_etp_not_folding --exit 1 --err "--etp 2 x --ep 8: must divide tp x cp x dp = 8"
                  -- plan --model profiles/models/mixtral-8x7b.json --gpu h100 --gpus 16 --global-batch 64 --seq 4096
                     --tp 2 --cp 1 --ep 8 --pp 2 --micro-batch 1 --recompute none --sharding optimizer --schedules zbv)
pipeplan_cli_test(profile_etp_not_folding --exit 1 --err "--etp 2 x --ep 8: must divide tp x cp x dp = 4"
                  -- profile --model profiles/models/mixtral-8x7b.json --gpu h100 --stages 1 --dp 2 --tp 2 --ep 8)
pipeplan_cli_test(plan_etp_needs_experts --exit 1 --err "--etp 2: .*tiny-llama.json has no experts to split"
                  -- plan --model tests/data/models/tiny-llama.json --gpu h100 --gpus 4 --global-batch 16 --etp 2)
# Token dropping with a capacity factor beside dropless; a dense model has no experts to route to.
pipeplan_cli_test(profile_capacity_factor --out "capacity factor 1.25"
                  -- profile --model tests/data/models/tiny-qwen-moe.json --gpu h100 --stages 1 --seq 256 --dp 2 --ep 2
                     --moe-capacity-factor 1.25)
pipeplan_cli_test(plan_capacity_needs_experts --exit 1 --err "--moe-capacity-factor: .*tiny-llama.json has no experts"
                  -- plan --model tests/data/models/tiny-llama.json --gpu h100 --gpus 4 --global-batch 16
                     --moe-capacity-factor 1.25)
# docs/costs.md, "FSDP": torchtitan's Llama 2 13B on 64 A100 80GB (FSDP2 over 64, seq 4096, global
# batch 128, local batch 2, no activation checkpointing) measured 2162 tokens/s/GPU; FSDP fits it
# without recompute at 2588.7, 20% above: each data-parallel ring crosses nodes on the 8 cards a
# node holds (docs/costs.md, "Collectives"), so every gather hides under its layer's forward,
# holding 16 of the A100's 108 SMs while it does (collective_contention.hpp), and the A100's GEMMs
# run at their measured 0.822 (its attention at 256.5 / 271.2 of cuDNN's benchmark rates); FSDP2's
# copies out of the gathers' and into the reduce-scatters' flat buffers, on the compute stream,
# add 14 bytes a parameter a micro-batch at 0.7 of 2039 GB/s: 127.7 ms (3036.9 ms without).
pipeplan_cli_test(plan_torchtitan_llama2_13b_fsdp --out " none +params +3164\\.551 .* 2588\\.7 "
                  -- plan --wide --model profiles/models/llama-2-13b.json --gpu a100-80gb --gpus 64 --global-batch 128
                     --seq 4096 --tp 1 --pp 1 --cp 1 --micro-batch 2 --recompute none --sharding params --top 1)

# plan --breakdown (docs/costs.md, "Where the step goes"): the lines of each shown row, in the text
# and as each row's "breakdown" object; without the flag the JSON rows have none.
pipeplan_cli_test(plan_breakdown_text --out "row 1: where the step goes on device [0-9]+, the busiest"
                  --out "  attention core +[0-9.]+ ms" --out "  step +[0-9.]+ ms  100.0%"
                  -- plan --model tests/data/models/tiny-llama.json --gpu h100 --gpus 4 --global-batch 16 --seq 256
                     --top 1 --breakdown)
pipeplan_cli_test(plan_breakdown_json --out "\"breakdown\": {" --out "\"attention_ms\": " --out "\"idle_ms\": "
                  -- plan --model tests/data/models/tiny-llama.json --gpu h100 --gpus 4 --global-batch 16 --seq 256
                     --top 1 --breakdown --json)
pipeplan_cli_test(plan_json_without_breakdown --then "grep -q step_ms plan.json && ! grep -q breakdown plan.json"
                  -- plan --model tests/data/models/tiny-llama.json --gpu h100 --gpus 4 --global-batch 16 --seq 256
                     --top 1 -o @TMP@/plan.json)

# plan --dtype bf16,fp8 tries both precisions, each row saying its own (the table's precision
# column, the JSON's dtype and fp8_recipe); a precision named twice, or a list for profile, is refused.
pipeplan_cli_test(plan_precision_searched --out "precision searched \\(bf16, fp8 tensorwise\\)"
                  --out " sharding +precision +step ms"
                  -- plan --wide --model tests/data/models/tiny-llama.json --gpu h100 --gpus 4 --global-batch 16 --seq 256
                     --dtype bf16,fp8 --top 3)
pipeplan_cli_test(plan_precision_json --out "\"dtype\": \"(bf16|fp8)\"" --out "\"fp8_recipe\": "
                  -- plan --model tests/data/models/tiny-llama.json --gpu h100 --gpus 4 --global-batch 16 --seq 256
                     --dtype bf16,fp8 --top 3 --json)
pipeplan_cli_test(plan_precision_twice --exit 2 --err "--dtype bf16,bf16: 'bf16' is named twice"
                  -- plan --model tests/data/models/tiny-llama.json --gpu h100 --gpus 4 --global-batch 16 --dtype bf16,bf16)
pipeplan_cli_test(profile_precision_list --exit 2 --err "--dtype bf16,fp8: a profile is of one precision"
                  -- profile --model tests/data/models/tiny-llama.json --gpu h100 --stages 2 --dtype bf16,fp8)

# NaN passes CLI11's range check; the efficiencies are refused by name (issue 31, item 4).
# Every floating flag and field passes one check (model/finite.hpp, finite_within): NaN and
# infinity refused alike, as flags (CLI11's validator, pipeplan-gpu's --watchdog too), costs and
# JSON fields.
pipeplan_cli_test(profile_gemm_efficiency_nan --exit 2 --err "--gemm-efficiency: expected a number from 0.01 to 1, got 'nan'"
                  -- profile --model tests/data/models/tiny-llama.json --gpu h100 --stages 2 --gemm-efficiency nan)
pipeplan_cli_test(plan_memory_efficiency_nan --exit 2 --err "--memory-efficiency: expected a number from 0.01 to 1, got 'nan'"
                  -- plan --model tests/data/models/tiny-llama.json --gpu h100 --gpus 4 --global-batch 8 --memory-efficiency nan)
pipeplan_cli_test(plan_memory_efficiency_inf --exit 2 --err "--memory-efficiency: expected a number from 0.01 to 1, got 'inf'"
                  -- plan --model tests/data/models/tiny-llama.json --gpu h100 --gpus 4 --global-batch 8 --memory-efficiency inf)
pipeplan_cli_test(plan_capacity_factor_nan --exit 2 --err "--moe-capacity-factor: expected a number from 0.01 to 64, got 'nan'"
                  -- plan --model tests/data/models/tiny-llama.json --gpu h100 --gpus 4 --global-batch 8 --moe-capacity-factor nan)
pipeplan_cli_test(costs_infinite --exit 2 --err "--costs \\(F\\): expected a non-negative number of milliseconds, got 'inf'"
                  -- simulate schedules/zbh1-p4-m8.json --costs inf,1,1)

# --attention-efficiency F,B: flash attention's fractions of the peak, applied and said in the
# profile's source; anything but one or two fractions from 0.01 to 1 is refused by name.
pipeplan_cli_test(profile_attention_efficiency --out "attention efficiency 0\\.3,0\\.2"
                  -- profile --model tests/data/models/tiny-llama.json --gpu h100 --stages 2 --attention-efficiency 0.3,0.2)
# --attention-kernel: FlashAttention-2's 335 and 322 of 989 TFLOP/s at head dimension 128 and 16k
# tokens, at the H100's sustained share, 698.6 / 794.5: 0.298 and 0.286 (docs/costs.md, "Work per
# piece").
pipeplan_cli_test(profile_attention_kernel_fa2
                  --out "attention efficiency fa2's by head dimension and length at the card's sustained clock \\(0\\.300,0\\.289 at 128 and 16k\\)"
                  -- profile --model tests/data/models/tiny-llama.json --gpu h100 --stages 2 --attention-kernel fa2)
pipeplan_cli_test(profile_attention_kernel_beside_efficiency --exit 2
                  --err "--attention-kernel fa2 with --attention-efficiency 0.3,0.2: the given fractions replace the kernel's measured rates"
                  -- profile --model tests/data/models/tiny-llama.json --gpu h100 --stages 2 --attention-kernel fa2
                     --attention-efficiency 0.3,0.2)
# Either prices flash attention's fused kernel only: without it they would be ignored, so refused.
pipeplan_cli_test(profile_attention_efficiency_unfused --exit 2
                  --err "--attention-efficiency with --no-flash-attention: it prices flash attention's fused kernel"
                  -- profile --model tests/data/models/tiny-llama.json --gpu h100 --stages 2 --no-flash-attention
                     --attention-efficiency 0.3)
pipeplan_cli_test(profile_attention_kernel_unfused --exit 2
                  --err "--attention-kernel with --no-flash-attention: .*cuBLAS's batched products"
                  -- plan --model tests/data/models/tiny-llama.json --gpu h100 --gpus 2 --global-batch 4
                     --no-flash-attention --attention-kernel fa3)
pipeplan_cli_test(profile_attention_kernel_unknown --exit 2 --err "--attention-kernel: .*cudnn"
                  -- profile --model tests/data/models/tiny-llama.json --gpu h100 --stages 2 --attention-kernel fa4)
pipeplan_cli_test(profile_attention_efficiency_nan --exit 2
                  --err "--attention-efficiency: expected F,B or one fraction, each from 0.01 to 1, got 'nan'"
                  -- profile --model tests/data/models/tiny-llama.json --gpu h100 --stages 2 --attention-efficiency 0.5,nan)
pipeplan_cli_test(plan_attention_efficiency_range --exit 2
                  --err "--attention-efficiency: expected F,B or one fraction, each from 0.01 to 1, got '2'"
                  -- plan --model tests/data/models/tiny-llama.json --gpu h100 --gpus 4 --global-batch 8 --attention-efficiency 2)

# --- ops of 0 ns are ordinary (issue 31, item 2) ---
# Every op takes 0 ms and transfers nothing: the whole run is one instant, so makespan 0 and no
# deadlock under blocking posts (the timed lowering once ordered equal times by stage and
# micro-batch and deadlocked here).
foreach(schedule 1f1b zbh1 gpipe eager-1f1b)
  pipeplan_cli_test(zero_cost_blocking_${schedule} --out "^makespan 0\\.000 ms"
                    --before "$PIPEPLAN generate --schedule ${schedule} --stages 4 --microbatches 8 -o s.json"
                    -- simulate @TMP@/s.json --costs 0,0,0 --comm blocking)
endforeach()
# F = 0, B = W = 1: the longest path is each device's backward work once the 0-time forwards are
# done; only the absence of a deadlock is asserted, under both modes with posts.
foreach(schedule zbv interleaved)
  foreach(mode blocking rendezvous)
    pipeplan_cli_test(zero_forward_${mode}_${schedule} --out "^makespan "
                      --before "$PIPEPLAN generate --schedule ${schedule} --stages 4 --microbatches 8 -o s.json"
                      -- simulate @TMP@/s.json --costs 0,1,1 --comm ${mode})
  endforeach()
endforeach()
# Interleaved P = 4, M = 16 exported with its sends and receives: read back, every device pair's
# sends and receives are posted in matching orders (validate names any mispairing) and it runs.
pipeplan_cli_test(zero_forward_csv_pairs --out "^valid: "
                  --before "$PIPEPLAN generate --schedule interleaved --stages 4 --microbatches 16 -o s.json && $PIPEPLAN export s.json --format csv --with-comms --costs 0,1,1 -o s.csv && $PIPEPLAN import s.csv --with-comms -o l.json"
                  -- validate @TMP@/l.json --comm blocking)
# The lowered schedule `lower --policy timed` writes with 0-time ops runs under blocking posts.
pipeplan_cli_test(zero_cost_lower_timed --out "^valid: "
                  --before "$PIPEPLAN generate --schedule zbh1 --stages 4 --microbatches 8 -o s.json && $PIPEPLAN lower s.json --policy timed --costs 0,0,0 -o l.json"
                  -- validate @TMP@/l.json --comm blocking)

# --- sums of times within 64-bit nanoseconds (issue 31, item 3) ---
# 1000 ops of 5e9 + 2 x 5e9 ms on one device: 1000 x 1.5e10 = 1.5e13 ms, past the 2^62 ns
# (4.612e12 ms) a run may last; once a bubble of -62.69%.
pipeplan_cli_test(run_too_long --exit 1
                  --err "^pipeplan: error: the costs \\(--costs, --transfer or --profile\\) with --iterations: the run could last up to 1\\.5e\\+13 ms"
                  --before "$PIPEPLAN generate --schedule gpipe --stages 1 --microbatches 1000 -o s.json"
                  -- simulate @TMP@/s.json --costs 5e9,5e9,5e9)
# 1000 x 3e6 ms x 10000 iterations = 3e13 ms: refused, where it once printed a step below its bound.
pipeplan_cli_test(run_too_long_iterations --exit 1 --err "run could last up to 3e\\+13 ms .every op, transfer and optimizer step of 10000 iterations"
                  --before "$PIPEPLAN generate --schedule gpipe --stages 1 --microbatches 1000 -o s.json"
                  -- simulate @TMP@/s.json --costs 1e6,1e6,1e6 --iterations 10000)
# At the cap: 461 backwards of 1e10 ms (4.61e12 ms, just under 2^62 ns) are timed exactly.
pipeplan_cli_test(run_at_the_cap --out "^makespan 4610000000000\\.000 ms, bubble rate 0\\.00%"
                  --before "$PIPEPLAN generate --schedule gpipe --stages 1 --microbatches 461 -o s.json"
                  -- simulate @TMP@/s.json --costs 0,0,1e10)
pipeplan_cli_test(run_over_the_cap_export --exit 1 --err "run could last up to 4\\.62e\\+12 ms"
                  --before "$PIPEPLAN generate --schedule gpipe --stages 1 --microbatches 462 -o s.json"
                  -- export @TMP@/s.json --format chrome --costs 0,0,1e10)
pipeplan_cli_test(run_over_the_cap_lower --exit 1 --err "^pipeplan: error: the costs \\(--costs"
                  --before "$PIPEPLAN generate --schedule gpipe --stages 1 --microbatches 462 -o s.json"
                  -- lower @TMP@/s.json --policy timed --costs 0,0,1e10)
# 1F1B's device 0 allocates 8 activations of 4,000,000 TiB (4.398e18 bytes each) an iteration,
# 3.518e19 bytes, past 2^62; it holds 4 at its peak, which once wrapped and showed 8,000,000 TiB.
pipeplan_cli_test(memory_too_large --exit 1 --err "^pipeplan: error: 1f1b: the memory \\(--memory or --profile\\): device 0 could hold up to 3\\.518e\\+19 bytes"
                  -- compare --schedules 1f1b,gpipe --stages 4 --microbatches 8 --memory 4000000TiB,0)

# --- what a writer writes, its readers take (issue 31, item 7) ---
# 1F1B P = 4, M = 8 with F = B = W = 1e9 ms: makespan (8 x 3 + 3 x 3 - 3) x 1e9 = 3.3e10 ms, a
# sum of costs past the 1e10 ms one cost may take; the result it writes exports (was refused).
pipeplan_cli_test(result_past_one_cost_reads_back --out "^0F0,0F1,0F2,0F3,"
                  --before "$PIPEPLAN generate --schedule 1f1b --stages 4 --microbatches 8 -o s.json && $PIPEPLAN simulate s.json --costs 1e9,1e9,1e9 -o r.json && grep -q '\"makespan_ms\": 33000000000' r.json"
                  -- export @TMP@/r.json --format csv)

# --- plan --memory-limit 0 is 0 bytes, refused as fitting nothing (issue 31, item 6) ---
# It once meant the card's whole memory, where generate and validate take 0 as 0 bytes.
# An empty value (CMake cannot pass one as an argument: the --then shell does) is refused too.
pipeplan_cli_test(plan_memory_limit_zero --exit 2 --err "^pipeplan: error: --memory-limit: expected a size above 0 \\(no configuration fits in 0 bytes"
                  --then "$PIPEPLAN plan --model $SOURCE_DIR/tests/data/models/tiny-llama.json --gpu h100 --gpus 8 --global-batch 32 --seq 256 --memory-limit '' 2> err.txt\n test $? -eq 2 && grep -q \"memory-limit: expected a size such as 2GiB, 1.5GB or a number of bytes, got ''\" err.txt"
                  -- plan --model tests/data/models/tiny-llama.json --gpu h100 --gpus 8 --global-batch 32 --seq 256 --memory-limit 0)
# A size past 8 EiB is said to be too large, not malformed.
pipeplan_cli_test(size_too_large --exit 2 --err "^pipeplan: error: --memory-limit: '9000000TiB' is 8 EiB or more, past the largest size pipeplan counts"
                  -- validate schedules/zbh1-p4-m8.json --memory-limit 9000000TiB)

# --- a malformed CSV cell is quoted cut, with its length (issue 31, item 11) ---
# A cell of 1Q then 100000 zeros (not an action: no such micro-batch): the message quotes its
# first 40 bytes and says 100002 bytes, where it once quoted the whole cell.
pipeplan_cli_test(import_long_cell --exit 1 --err "row 1, column 1: '1Q0{38}\\.\\.\\. \\(100002 bytes\\)': expected an action such as 0F0"
                  --then "test $(wc -c <stderr) -lt 400"
                  --before "python3 -c \"print('1Q' + '0' * 100000)\" > long.csv"
                  -- import @TMP@/long.csv)
# A cost past the cap of one time says the cap, not "expected a non-negative number".
pipeplan_cli_test(cost_over_the_cap --exit 2 --err "^pipeplan: error: --costs \\(F\\): '1e12' ms is above the 1e10 ms \\(115 days\\) one time may take"
                  -- simulate schedules/zbh1-p4-m8.json --costs 1e12,1,1)
# Too many iterations name the flag and the schedule's ops, not a key of the file (it read
# "s.json: iterations: ..."): GPipe P = 1, M = 10001 has 20002 ops, x 10000 = 200,020,000 > 2e8.
pipeplan_cli_test(iterations_over_the_limit --exit 1
                  --err "^pipeplan: error: --iterations: expected 1 or more, with iterations x ops at most 200000000 \\(the schedule has 20002 ops\\), got 10000$"
                  --before "$PIPEPLAN generate --schedule gpipe --stages 1 --microbatches 10001 -o s.json"
                  -- simulate @TMP@/s.json --iterations 10000)
# compare checks every schedule against the limits before simulating any: 1F1B P = 4, M = 2000
# has 2 x 4 x 2000 = 16000 ops (x 10000 iterations fits 2e8), ZB-H1 24000 (does not).
pipeplan_cli_test(compare_iterations_up_front --exit 1
                  --err "^pipeplan: error: zbh1: --iterations: expected 1 or more, with iterations x ops at most 200000000 \\(the schedule has 24000 ops\\), got 10000$"
                  -- compare --schedules 1f1b,zbh1 --stages 4 --microbatches 2000 --iterations 10000)
# --gpu a100 suggests the A100s first, not h100 (issue 31, unclear messages).
pipeplan_cli_test(gpu_prefix_suggestion --exit 2 --err "--gpu: unknown GPU 'a100'. did you mean 'a100-40gb', 'a100-80gb'"
                  -- profile --model tests/data/models/tiny-llama.json --gpu a100 --stages 2)
# --pp 64 on 32 layers leaves no layout, so nothing is tried: said so, not "fits in memory".
pipeplan_cli_test(plan_nothing_to_try --exit 1 --out "^0 configurations" --out "^no configuration to try: the degrees given"
                  -- plan --model profiles/models/llama-2-7b.json --gpu h100 --gpus 64 --pp 64 --global-batch 64)

# --- a memory estimate before the work (issue 31, item 8) ---
# GPipe P = 16384, M = 2000: up to 3 x 16384 x 2000 = 98,304,000 ops (F, B, W per stage and
# micro-batch), each 2 x sizeof(Op) = 40 bytes as op lists and at most 70 + 5 + 4 = 79 bytes of
# JSON text (memory_estimate.hpp): 119 x 98,304,000 = 11,698,176,000 bytes = 10.89 GiB. Refused
# at once, naming the flags; it once ran 25 s and ended in a bare "out of memory" (or took 5 GB).
pipeplan_cli_test(generate_over_max_memory --exit 1
                  --err "^pipeplan: error: generate --schedule gpipe needs about 10\\.89 GiB of memory, more than the 1\\.00 GiB that --max-memory allows: --stages 16384 x --chunks 1 x --microbatches 2000 \\(up to 98304000 ops\\)"
                  -- generate --schedule gpipe --stages 16384 --microbatches 2000 --max-memory 1GiB)
# Without --max-memory the machine's limits hold: here ulimit -v of about 1 GiB. Not under
# AddressSanitizer, whose shadow memory needs terabytes of address space to start.
if(NOT PIPEPLAN_SANITIZE)
  pipeplan_cli_test(generate_over_ulimit
                    --then "(ulimit -v 1000000\n $PIPEPLAN generate --schedule gpipe --stages 16384 --microbatches 2000 -o s.json 2> err.txt)\n test $? -eq 1 && grep -q 'more than the 976.56 MiB that ulimit -v allows: --stages 16384' err.txt && test ! -e s.json"
                    -- list)
endif()
# A Chrome trace of GPipe P = 4, M = 1000 (8000 ops) over 1000 iterations keeps every op's
# timing: 8e6 op-iterations x (3 x 8 readiness + 48 OpTiming + 16 MemoryPoint + 8 pointer) bytes
# and 40 x 8000 for the ops = 768,320,000 bytes = 732.73 MiB (run_memory.hpp).
pipeplan_cli_test(export_over_max_memory --exit 1
                  --err "^pipeplan: error: timing .*/s\\.json needs about 732\\.73 MiB of memory, more than the 100\\.00 MiB that --max-memory allows: .*/s\\.json's 8000 ops x --iterations 1000"
                  --before "$PIPEPLAN generate --schedule gpipe --stages 4 --microbatches 1000 -o s.json"
                  -- export @TMP@/s.json --format chrome --iterations 1000 --max-memory 100MiB -o @TMP@/t.json)
pipeplan_cli_test(max_memory_malformed --exit 2 --err "^pipeplan: error: --max-memory: expected a size"
                  -- generate --schedule gpipe --stages 4 --microbatches 8 --max-memory lots)
# A terminal on stderr gets a progress line once a command has run a second (script(1) gives it
# one); a pipe gets nothing. The schedule comes through a pipe 1.5 s late: simulate waits on it,
# reading, and says so.
pipeplan_cli_test(progress_on_a_terminal
                  --before "$PIPEPLAN generate --schedule 1f1b --stages 4 --microbatches 8 -o s.json"
                  --then "script -qec '(sleep 1.5 && cat s.json) | $PIPEPLAN simulate - --costs 1,1,1 > /dev/null' log.txt > /dev/null && grep -q 'pipeplan: reading - (1 s)' log.txt && (sleep 1.5 && cat s.json) | $PIPEPLAN simulate - --costs 1,1,1 2> err.txt > /dev/null && test ! -s err.txt"
                  -- list)

# --- plan is bounded (issue 31, item 9) ---
# A global batch of 16 Mi sequences on 8 GPUs asks 2^18 to 2^21 micro-batches of every
# configuration: those past 2^20 are over the limit of a schedule, the rest past the 4096 the
# planner searches (said in the header). It once ran past 400 s.
pipeplan_cli_test(plan_microbatches_capped --exit 1 --out "up to 4096 micro-batches per step searched$"
                  --out "^  refused 10x: more micro-batches per step than the 4096 searched"
                  -- plan --wide --model profiles/models/llama-2-7b.json --gpu h100 --gpus 8 --global-batch 16777216)
# With the count fixed, the cap is not the planner's: it plans it, and the header says no cap.
pipeplan_cli_test(plan_microbatches_fixed --out "kept for the runtime\\)$" --out "^  1  "
                  -- plan --wide --model tests/data/models/tiny-llama.json --gpu h100 --gpus 2 --global-batch 8192 --seq 256
                     --microbatches 8192 --pp 2 --schedules 1f1b --top 1)

# --threads 900 under a memory limit: each thread reserves its stack; the flag is named, not
# "internal error: Resource temporarily unavailable" (issue 31, unclear messages).
# Not under AddressSanitizer (see generate_over_ulimit).
if(NOT PIPEPLAN_SANITIZE)
  pipeplan_cli_test(plan_threads_under_ulimit
                    --then "(ulimit -v 1000000\n $PIPEPLAN plan --model $SOURCE_DIR/tests/data/models/tiny-llama.json --gpu h100 --gpus 8 --global-batch 32 --seq 256 --threads 900 2> err.txt > /dev/null)\n test $? -eq 1 && grep -q '^pipeplan: error: --threads 900: could start only [0-9]* of [0-9]* threads' err.txt"
                    -- list)
endif()

# plan --launch (issue 32, docs/launch.md): Llama-3-70B and Mixtral 8x7B on 64 H100, the search
# narrowed to one pipeline degree and two schedules (a native one and one each framework lacks
# or runs from pipeplan's CSV; for Mixtral DualPipeV alone, which Megatron-LM lacks) so that the
# three plans each case runs stay within a second or two. tests/cli/launch_values.py parses the Megatron-LM arguments and the torchtitan TOML
# (tomllib) and checks tp, pp, cp, ep, etp, virtual stages, micro-batch, global batch,
# recompute and sharding against the first row of the JSON the same run writes, and every name
# against tests/data/launch/.
pipeplan_cli_test(plan_launch_llama3_70b
                  --out "^pipeline_parallel_schedule = \"ZBVZeroBubble\"$"
                  --out "^# not as planned: torchtitan has no ZeRO-1"
                  --then "python3 $SOURCE_DIR/tests/cli/launch_values.py $PIPEPLAN . -- --model $SOURCE_DIR/profiles/models/llama-3-70b.json --gpu h100 --gpus 64 --global-batch 64 --seq 4096 --top 2 --pp 8 --schedules interleaved,zbv"
                  -- plan --model profiles/models/llama-3-70b.json --gpu h100 --gpus 64 --global-batch 64 --seq 4096
                     --top 2 --pp 8 --schedules interleaved,zbv --launch torchtitan)
pipeplan_cli_test(plan_launch_mixtral_8x7b
                  --out "^# not as planned: Megatron-LM runs 1F1B and interleaved 1F1B only" --out "^#     dualpipev: it runs the row.s configuration as interleaved 1F1B, 2 virtual stages"
                  --out "^# what this runs, simulated as plan simulates its rows: step [0-9.]+ ms"
                  --out "^--expert-model-parallel-size [0-9]+ "
                  --then "python3 $SOURCE_DIR/tests/cli/launch_values.py $PIPEPLAN . -- --model $SOURCE_DIR/profiles/models/mixtral-8x7b.json --gpu h100 --gpus 64 --global-batch 64 --seq 4096 --top 2 --pp 4 --schedules dualpipev"
                  -- plan --model profiles/models/mixtral-8x7b.json --gpu h100 --gpus 64 --global-batch 64 --seq 4096
                     --top 2 --pp 4 --schedules dualpipev --launch megatron)
# --emit-schedule writes the CSV torchtitan's pipeline_parallel_schedule_csv names, which
# `pipeplan import` reads back into the row's schedule (4 ranks of zbh1).
pipeplan_cli_test(plan_launch_emits_csv --out "^pipeline_parallel_schedule_csv = \".*/w/schedule\\.csv\"$"
                  --out "^pipeline_parallel_schedule = \"PipelineScheduleSingle\"$"
                  --then "$PIPEPLAN import w/schedule.csv | grep -q '\"devices\": 4'"
                  -- plan --model tests/data/models/tiny-llama.json --gpu h100 --gpus 4 --global-batch 16 --seq 256
                     --pp 4 --schedules zbh1 --launch torchtitan --emit-schedule @TMP@/w)
pipeplan_cli_test(plan_launch_unknown --exit 2 --err "--launch: deepspeed not in \\{megatron,torchtitan\\}"
                  -- plan --model tests/data/models/tiny-llama.json --gpu h100 --gpus 4 --global-batch 16 --launch deepspeed)
pipeplan_cli_test(plan_row_needs_launch --exit 2 --err "--row 2 needs --launch or --emit-schedule"
                  -- plan --model tests/data/models/tiny-llama.json --gpu h100 --gpus 4 --global-batch 16 --row 2)
pipeplan_cli_test(plan_row_beyond_rows --exit 1 --err "--row 900: only [0-9]+ rows fit in memory"
                  -- plan --model tests/data/models/tiny-llama.json --gpu h100 --gpus 4 --global-batch 16 --seq 256
                     --launch megatron --row 900)
pipeplan_cli_test(plan_launch_excludes_json --exit 2 --err "--json excludes --launch"
                  -- plan --model tests/data/models/tiny-llama.json --gpu h100 --gpus 4 --global-batch 16 --json --launch megatron)
# The table at a glance: Llama-3.1-405B over 16384 H100 (126 layers, up to hundreds of stages)
# prints no line wider than 120 columns; with --wide its rows spell every stage out.
pipeplan_cli_test(plan_405b_within_120_columns --out "^why row 1 first: row 2's step is"
                  --then "awk 'length > 120 { bad = 1 } END { exit bad }' stdout"
                  -- plan --model profiles/models/llama-3.1-405b.json --gpu h100 --gpus 16384 --global-batch 2048
                     --seq 8192)
pipeplan_cli_test(plan_405b_wide --then "awk 'length > 120 { wide = 1 } END { exit !wide }' stdout"
                  -- plan --wide --model profiles/models/llama-3.1-405b.json --gpu h100 --gpus 16384 --global-batch 2048
                     --seq 8192 --pp 16 --top 1)
# --row N launches the N-th row: its title is the one the table shows at N (the same run's -o JSON).
pipeplan_cli_test(plan_launch_row_two --out "^# Megatron-LM arguments for row 2 of pipeplan plan: "
                  --then "python3 -c \"__import__('sys').exit(0 if ('row 2 of pipeplan plan: %(schedule)s, pp %(pp)d x %(chunks)d chunks, dp %(dp)d, tp %(tp)d,' % __import__('json').load(open('plan.json'))['rows'][1]) in open('stdout').read() else 1)\""
                  -- plan --model tests/data/models/tiny-llama.json --gpu h100 --gpus 4 --global-batch 16 --seq 256
                     --launch megatron --row 2 -o @TMP@/plan.json)
# Activation offloading (--offload-layers, Megatron-LM's --cpu-offloading-num-layers): said in the
# header, the search kept to one stage and no recompute, Megatron's key written, torchtitan's gap
# named, and the settings Megatron-LM refuses refused in its words.
pipeplan_cli_test(plan_offload_said --out "activations offloaded to the host"
                  --out "refused [0-9]+x: activation offloading \\(--offload-layers\\) runs on one stage: no pipeline"
                  --out "^ 1  [a-z0-9-]+ +1 +[0-9]+ +[0-9]+ +[0-9]+ dp-pp +1 .* none "
                  -- plan --model tests/data/models/tiny-llama.json --gpu h100 --gpus 4 --global-batch 16 --seq 256
                     --offload-layers 2)
pipeplan_cli_test(plan_offload_launch_megatron --out "^--cpu-offloading-num-layers 2 "
                  -- plan --model tests/data/models/tiny-llama.json --gpu h100 --gpus 4 --global-batch 16 --seq 256
                     --offload-layers 2 --launch megatron)
pipeplan_cli_test(plan_offload_launch_torchtitan --out "^# not as planned: torchtitan offloads no activations to the host"
                  --out "^# what this runs, simulated as plan simulates its rows"
                  -- plan --model tests/data/models/tiny-llama.json --gpu h100 --gpus 4 --global-batch 16 --seq 256
                     --offload-layers 2 --launch torchtitan)
pipeplan_cli_test(plan_offload_refuses_pipeline --exit 1
                  --err "--offload-layers 2: Megatron-LM offloads activations only without pipeline parallelism, on one stage, not 2"
                  -- plan --model tests/data/models/tiny-llama.json --gpu h100 --gpus 4 --global-batch 16 --seq 256
                     --offload-layers 2 --pp 2)
pipeplan_cli_test(profile_offload_refuses_recompute --exit 1
                  --err "--offload-layers 2: Megatron-LM refuses activation offloading with recompute \\(--recompute full\\)"
                  -- profile --model tests/data/models/tiny-llama.json --gpu h100 --stages 1 --offload-layers 2 --recompute full)
pipeplan_cli_test(profile_offload_all_layers --exit 1 --err "--offload-layers 8: Megatron-LM offloads fewer layers than the model has \\(8\\), at most 7"
                  -- profile --model tests/data/models/tiny-llama.json --gpu h100 --stages 1 --offload-layers 8)
pipeplan_cli_test(profile_offload_negative --exit 2 --err "--offload-layers"
                  -- profile --model tests/data/models/tiny-llama.json --gpu h100 --stages 1 --offload-layers -1)
# Full recompute's block (--recompute-layers, Megatron-LM's --recompute-method block
# --recompute-num-layers): said in the header, the rows' column and JSON (schema_version 3),
# Megatron's arguments written, torchtitan's gap named, and refused beside another recompute.
pipeplan_cli_test(plan_recompute_block_said --out "recompute's block: the first 1 of each stage's layers"
                  --out "^ 1  [a-z0-9-]+ +2 .* blk1 " --out "blkN: full, of each stage's first N layers only"
                  -- plan --model tests/data/models/tiny-llama.json --gpu h100 --gpus 4 --global-batch 16 --seq 256
                     --pp 2 --recompute full --recompute-layers 1)
pipeplan_cli_test(plan_recompute_block_json --out "\"recompute_layers\": 1," --out "\"schema_version\": 3,"
                  -- plan --model tests/data/models/tiny-llama.json --gpu h100 --gpus 4 --global-batch 16 --seq 256
                     --pp 2 --recompute full --recompute-layers 1 --json)
pipeplan_cli_test(plan_recompute_block_launch_megatron --out "^--recompute-method block "
                  --out "^--recompute-num-layers 1 "
                  -- plan --model tests/data/models/tiny-llama.json --gpu h100 --gpus 4 --global-batch 16 --seq 256
                     --pp 2 --recompute full --recompute-layers 1 --launch megatron)
pipeplan_cli_test(plan_recompute_block_launch_torchtitan
                  --out "^# not as planned: torchtitan's activation checkpointing has no block of each stage's first 1"
                  -- plan --model tests/data/models/tiny-llama.json --gpu h100 --gpus 4 --global-batch 16 --seq 256
                     --pp 2 --recompute full --recompute-layers 1 --launch torchtitan)
pipeplan_cli_test(plan_recompute_block_refuses_other --exit 2
                  --err "--recompute-layers 1: chooses the layers full recompute recomputes \\(Megatron-LM's block method\\), and --recompute is selective"
                  -- plan --model tests/data/models/tiny-llama.json --gpu h100 --gpus 4 --global-batch 16 --seq 256
                     --recompute selective --recompute-layers 1)
pipeplan_cli_test(profile_recompute_block_needs_full --exit 1
                  --err "--recompute-layers 2: chooses the layers full recompute recomputes"
                  -- profile --model tests/data/models/tiny-llama.json --gpu h100 --stages 1 --recompute-layers 2)
# The flex token dispatcher (--moe-dispatcher flex, DeepEP's and HybridEP's kernels): said in the
# header, Megatron's and torchtitan's keys written, refused for a dense model.
pipeplan_cli_test(plan_flex_dispatcher_said --out "flex token"
                  -- plan --model tests/data/models/tiny-qwen-moe.json --gpu h100 --gpus 4 --global-batch 16 --seq 256
                     --ep 2 --moe-dispatcher flex)
pipeplan_cli_test(plan_flex_dispatcher_megatron --out "^--moe-token-dispatcher-type flex " --out "^--moe-flex-dispatcher-backend deepep "
                  -- plan --model tests/data/models/tiny-qwen-moe.json --gpu h100 --gpus 4 --global-batch 16 --seq 256
                     --ep 2 --moe-dispatcher flex --launch megatron)
pipeplan_cli_test(plan_flex_dispatcher_torchtitan --out "^expert_parallel_comm_backend = \"deepep\""
                  -- plan --model tests/data/models/tiny-qwen-moe.json --gpu h100 --gpus 4 --global-batch 16 --seq 256
                     --ep 2 --moe-dispatcher flex --launch torchtitan)
pipeplan_cli_test(plan_alltoall_dispatcher_megatron --out "^--moe-token-dispatcher-type alltoall "
                  -- plan --model tests/data/models/tiny-qwen-moe.json --gpu h100 --gpus 4 --global-batch 16 --seq 256
                     --ep 2 --launch megatron)
pipeplan_cli_test(plan_flex_dispatcher_dense --exit 1 --err "--moe-dispatcher flex: .* has no experts to dispatch to"
                  -- plan --model tests/data/models/tiny-llama.json --gpu h100 --gpus 4 --global-batch 16 --seq 256
                     --moe-dispatcher flex)
pipeplan_cli_test(plan_dispatcher_unknown --exit 2 --err "--moe-dispatcher: expected alltoall or flex, got 'nccl'"
                  -- plan --model tests/data/models/tiny-qwen-moe.json --gpu h100 --gpus 4 --global-batch 16 --seq 256
                     --moe-dispatcher nccl)
# The host's kernel launches (docs/costs.md, "Host time"): a dropless mixture of experts' line in
# the breakdown and its JSON (schema_version 4), none replayed from a full-iteration graph, the
# graphs said in the header and written for Megatron-LM, torchtitan's gap, a bad value refused.
pipeplan_cli_test(plan_host_launches_breakdown --out "host kernel launches, exposed"
                  -- plan --model tests/data/models/tiny-qwen-moe.json --gpu gb200 --gpus 4 --global-batch 16 --seq 256
                     --ep 2 --breakdown)
pipeplan_cli_test(plan_host_launches_json --out "\"host_ms\": [0-9]" --out "\"schema_version\": 4,"
                  -- plan --model tests/data/models/tiny-qwen-moe.json --gpu gb200 --gpus 4 --global-batch 16 --seq 256
                     --ep 2 --recompute none --breakdown --json)
pipeplan_cli_test(plan_host_launches_full_graph --then "! grep -q 'host kernel launches' stdout"
                  --out "replayed from a CUDA graph"
                  -- plan --model tests/data/models/tiny-qwen-moe.json --gpu gb200 --gpus 4 --global-batch 16 --seq 256
                     --ep 2 --breakdown --cuda-graphs full)
pipeplan_cli_test(plan_cuda_graphs_megatron --out "^--cuda-graph-impl transformer_engine "
                  --out "^--cuda-graph-modules attn moe_router moe_preprocess "
                  -- plan --model tests/data/models/tiny-qwen-moe.json --gpu h100 --gpus 4 --global-batch 16 --seq 256
                     --ep 2 --cuda-graphs attn --launch megatron)
pipeplan_cli_test(plan_cuda_graphs_megatron_full --out "^--cuda-graph-impl full_iteration "
                  --then "! grep -q cuda-graph-modules stdout"
                  -- plan --model tests/data/models/tiny-llama.json --gpu h100 --gpus 4 --global-batch 16 --seq 256
                     --cuda-graphs full --launch megatron)
pipeplan_cli_test(plan_cuda_graphs_torchtitan --out "replays no CUDA graphs of the training step"
                  -- plan --model tests/data/models/tiny-llama.json --gpu h100 --gpus 4 --global-batch 16 --seq 256
                     --cuda-graphs full --launch torchtitan)
pipeplan_cli_test(plan_cuda_graphs_router_dense --exit 1 --err "--cuda-graphs moe-router: .* has no router to capture"
                  -- plan --model tests/data/models/tiny-llama.json --gpu h100 --gpus 4 --global-batch 16 --seq 256
                     --cuda-graphs moe-router)
pipeplan_cli_test(plan_cuda_graphs_unknown --exit 2 --err "--cuda-graphs: expected none, moe-router, attn, layers or full, got 'all'"
                  -- plan --model tests/data/models/tiny-llama.json --gpu h100 --gpus 4 --global-batch 16 --seq 256
                     --cuda-graphs all)
# --fp8-params (Megatron-LM's --fp8-param-gather): said in the header, refused without FP8.
pipeplan_cli_test(profile_fp8_params_said --out "FP8 linear weights without a 16-bit copy"
                  -- profile --model tests/data/models/tiny-llama.json --gpu h100 --stages 2 --seq 256 --dtype fp8
                     --fp8-params --dp 2 --sharding optimizer)
pipeplan_cli_test(profile_fp8_params_needs_fp8 --exit 2 --err "--fp8-params: the weights are FP8 only under FP8 training"
                  -- profile --model tests/data/models/tiny-llama.json --gpu h100 --stages 2 --fp8-params)
