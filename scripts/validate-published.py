#!/usr/bin/env python3
"""Judge `pipeplan plan` against published pre-training runs.

For every row of a runs file (the JSON described in docs/validation.md, "Published pre-training
runs"), build the `pipeplan plan` command that fixes the row's published configuration (model,
GPU and count, precision, sequence, global and micro-batch, tp, pp, cp, vp, ep, etp, sharding,
recompute, schedule), run it, and record whether the row was planned within memory, over memory or
refused (with pipeplan's own message). Then compare the predicted throughput with the measured one
and, where the source gives it, the peak memory. Output: a Markdown report (stdout or -o FILE) and,
with --json FILE, every row's outcome.

Python 3 standard library only. Nothing here is fitted: the mapping from a row to flags is fixed
by the rules below, each one stated in the row's notes when it assumes something.
"""

import argparse
import collections
import concurrent.futures
import datetime
import json
import os
import pathlib
import re
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_RUNS = os.path.join(os.path.dirname(ROOT), "shared", "reference", "published-runs", "runs.json")
DEFAULT_MODELS = os.path.join(ROOT, "profiles", "models")

# Row model names (their base, before a parenthesised remark such as "(tokendrop)") -> the Hub
# config.json kept in profiles/models/ (profiles/models/README.md says where each comes from).
# None: no Hub config exists; the script writes one from the row's hf_like_config (SYNTHESISED).
MODEL_FILES = {
    "GPT3-5B": None,
    "GPT3-20B": None,
    "GPT3-175B": None,
    "LLAMA2-7B": "llama-2-7b.json",
    "LLAMA2-13B": "llama-2-13b.json",
    "LLAMA2-70B": "llama-2-70b.json",
    "Llama 2 13B": "llama-2-13b.json",
    "Llama 2 70B": "llama-2-70b.json",
    "LLAMA3-8B": "llama-3-8b.json",
    "LLAMA3_8B": "llama-3-8b.json",
    "Llama 3 8B": "llama-3-8b.json",
    "Llama 3.1 8B": "llama-3.1-8b.json",
    "LLAMA3-70B": "llama-3-70b.json",
    "LLAMA3_70B": "llama-3-70b.json",
    "Llama 3 70B": "llama-3-70b.json",
    "Llama 3.1 70B": "llama-3.1-70b.json",
    "LLAMA3-405B": "llama-3.1-405b.json",
    "LLAMA3.1_405B": "llama-3.1-405b.json",
    "Llama 3.1 405B": "llama-3.1-405b.json",
    "Mixtral-8x7B": "mixtral-8x7b.json",
    "Mixtral-8x22B": "mixtral-8x22b.json",
    "Nemotron-8B": None,
    "Nemotron-15B": None,
    "Nemotron-22B": None,
    "Nemotron-340B": None,
    "DeepSeekV3": "deepseek-v3.json",
    "Kimi_K2": "kimi-k2.json",
    "GPT OSS 120B": "gpt-oss-120b.json",
    "Qwen3_30B_a3B": "qwen3-30b-a3b.json",
    "Qwen3_235B_a22B": "qwen3-235b-a22b.json",
    "BLOOM 176B": "bloom-176b.json",
}

# The family whose Hub key names a synthesised config uses, by the row's activation.
SYNTH_FAMILY = {"gelu": "gpt2", "squared-relu": "nemotron"}


def base_model_name(model):
    return re.sub(r"\s*\(.*\)\s*$", "", model).strip()


def is_fp4(row):
    return "FP4" in (row.get("precision") or "").upper()


def is_hybrid_mamba(row):
    # NVIDIA's Nemotron 3 (Nano, Super, Ultra, 3.5) and Nemotron-H interleave Mamba-2 layers.
    name = row["model"]
    return name.startswith("Nemotron_3") or "Nemotron-H" in name or "mamba" in name.lower()


def config_reading(name):
    """The rows of one of scripts/mbridge-*.json or nemo-fw-configs.json: a setting the rows do not
    print, read per row from the framework's configurations at each release's tag (the file's
    "about" says how)."""
    return json.loads((pathlib.Path(__file__).parent / name).read_text())["rows"]


# Footnotes by which a source says its own measurement is a known performance regression, not
# what the software does: such a row would judge the model against a bug (runs.json notes name a
# row's footnotes as "Footnotes on row: NAME").
REGRESSION_FOOTNOTES = {
    # Megatron-Bridge, docs/performance-summary-archive.md at v0.6.0, its 26.06.01 GPT-OSS 120B
    # rows: "Performance regression in GPT-OSS 120B pre-training is a known issue
    # (NVIDIA/cudnn-frontend issue 256). It will be resolved with the next container release."
    "gpt-oss-note": "its source marks the measurement a known performance regression (cudnn-frontend issue 256)",
}


def known_regression(row):
    """The reason the row's source gives for its measurement being a regression, or None."""
    found = re.search(r"Footnotes on row: ([^.]*)", row.get("notes") or "")
    names = [x.strip() for x in found.group(1).split(",")] if found else []
    return next((REGRESSION_FOOTNOTES[x] for x in names if x in REGRESSION_FOOTNOTES), None)


def exclusion_reason(row):
    """Why the row is outside what the comparison judges, or None."""
    if is_fp4(row):
        return "FP4 precision"
    if is_hybrid_mamba(row):
        return "hybrid Mamba model"
    return known_regression(row)


class Mapping:
    """The flags of one row, and every assumption made to get them."""

    def __init__(self):
        self.flags = []
        self.notes = []
        self.unstated = None  # why the row cannot be fixed from what the source states
        self.missing = None  # a config this repository should hold and does not
        self.model_source = None
        self.fixed = {}  # tp, pp, cp, vp, ep as passed


# ---------------------------------------------------------------------------------------------
# Model configs


def config_value(config, *keys, default=None):
    text = config.get("text_config") if isinstance(config.get("text_config"), dict) else None
    for source in (config, text or {}):
        for key in keys:
            if key in source and source[key] is not None:
                return source[key]
    return default


def shape_of(config):
    """The shape a runs row's hf_like_config names, read from a Hub config."""
    hidden = config_value(config, "hidden_size", "n_embd", "n_embed", "d_model")
    heads = config_value(config, "num_attention_heads", "n_head")
    experts = config_value(config, "num_local_experts", "num_experts", "n_routed_experts")
    moe_ffn = None
    if experts:
        moe_ffn = config_value(config, "moe_intermediate_size")
        if moe_ffn is None:  # Mixtral and GPT-OSS size their experts with intermediate_size
            moe_ffn = config_value(config, "intermediate_size")
    ffn = config_value(config, "intermediate_size", "n_inner", "ffn_hidden_size")
    if ffn is None and hidden:
        ffn = 4 * hidden
    if experts and config_value(config, "moe_intermediate_size") is None:
        ffn = None  # every layer is a mixture: no dense FFN width
    return {
        "hidden_size": hidden,
        "num_layers": config_value(config, "num_hidden_layers", "n_layer", "num_layers"),
        "num_heads": heads,
        "num_kv_heads": config_value(config, "num_key_value_heads", default=heads),
        "ffn_hidden_size": ffn,
        "vocab_size": config_value(config, "vocab_size", "padded_vocab_size"),
        "num_experts": experts,
        "top_k": config_value(config, "num_experts_per_tok", "experts_per_token"),
        "moe_ffn_hidden_size": moe_ffn,
        "first_k_dense_layers": config_value(config, "first_k_dense_replace"),
    }


def disagreements(config, hf_like):
    """Keys where the Hub config and the row's hf_like_config differ."""
    if not hf_like:
        return []
    have = shape_of(config)
    out = []
    for key, value in have.items():
        stated = hf_like.get(key)
        if stated is None or value is None:
            continue
        if key == "ffn_hidden_size" and hf_like.get("num_experts"):
            continue  # a mixture's dense width (first_k dense layers) is compared where both give it
        if int(stated) != int(value):
            out.append(f"{key}: runs.json {stated}, config.json {value}")
    return out


def synthesise(hf_like, seq):
    """A config.json in the nearest family's Hub key names, from the row's stated shape."""
    activation = (hf_like.get("activation") or "").split()[0]
    family = SYNTH_FAMILY.get(activation)
    if family == "gpt2":
        return family, {
            "architectures": ["GPT2LMHeadModel"],
            "model_type": "gpt2",
            "n_embd": hf_like["hidden_size"],
            "n_layer": hf_like["num_layers"],
            "n_head": hf_like["num_heads"],
            "n_inner": hf_like["ffn_hidden_size"],
            "n_positions": seq,
            "vocab_size": hf_like["vocab_size"],
            # Megatron-LM's and NeMo's GPT defaults: dropout 0.1 on attention and hidden states.
            "attn_pdrop": 0.1,
            "resid_pdrop": 0.1,
            "embd_pdrop": 0.1,
            "tie_word_embeddings": bool(hf_like.get("tied_embeddings", False)),
        }
    if family == "nemotron":
        return family, {
            "architectures": ["NemotronForCausalLM"],
            "model_type": "nemotron",
            "hidden_size": hf_like["hidden_size"],
            "intermediate_size": hf_like["ffn_hidden_size"],
            "num_hidden_layers": hf_like["num_layers"],
            "num_attention_heads": hf_like["num_heads"],
            "num_key_value_heads": hf_like["num_kv_heads"],
            "hidden_act": "relu2",
            "vocab_size": hf_like["vocab_size"],
            "max_position_embeddings": seq,
            "partial_rotary_factor": 0.5,
            "norm_eps": 1e-05,
            "attention_bias": False,
            "mlp_bias": False,
            "tie_word_embeddings": False,
        }
    return None, None


def layers_run(row):
    for source in (row, row.get("hf_like_config") or {}):
        value = source.get("num_layers_run")
        if value:
            return int(value)
    return None


def set_layers(config, layers):
    config = json.loads(json.dumps(config))
    target = config.get("text_config") if isinstance(config.get("text_config"), dict) else config
    for key in ("num_hidden_layers", "n_layer", "num_layers"):
        if key in target:
            target[key] = layers
            return config
    target["num_hidden_layers"] = layers
    return config


def model_for(row, models_dir, work, mapping):
    """The --model file of a row: the Hub config, a copy cut to the layers run, or a synthesis."""
    name = base_model_name(row["model"])
    hf_like = row.get("hf_like_config")
    if name.startswith("Megatron GPT"):
        file_name = None  # Megatron-LM's own GPT shapes: never published as a Hub model
    elif name in MODEL_FILES:
        file_name = MODEL_FILES[name]
    else:
        mapping.unstated = f"no config.json is known for '{row['model']}'"
        return None, []
    config = None
    if file_name:
        path = os.path.join(models_dir, file_name)
        if not os.path.exists(path):
            mapping.missing = f"{display_path(path)} is missing"
            return None, []
        with open(path, encoding="utf-8") as f:
            config = json.load(f)
        mapping.model_source = f"profiles/models/{file_name}"
        diffs = disagreements(config, hf_like)
    else:
        if not hf_like:
            mapping.unstated = f"the source states no shape for '{row['model']}'"
            return None, []
        family, config = synthesise(hf_like, row.get("seq") or 2048)
        if config is None:
            mapping.unstated = f"no family to synthesise '{row['model']}' ({hf_like.get('activation')}) from"
            return None, []
        mapping.model_source = f"synthesised from hf_like_config in {family}'s Hub keys"
        mapping.notes.append(f"config.json synthesised from the row's hf_like_config with {family}'s key names")
        diffs = []
    changed = False
    if "w/o MTP" in row["model"] and config_value(config, "num_nextn_predict_layers"):
        config = json.loads(json.dumps(config))
        config["num_nextn_predict_layers"] = 0
        mapping.notes.append("run without multi-token prediction: num_nextn_predict_layers 0")
        changed = True
    if row["source"] == "bloom_176b":
        # BLOOM's run kept Megatron-LM's default dropouts, 0.1 on the attention probabilities and on
        # the hidden states ("The default Megatron-LM dropout settings are inherited",
        # bigscience-workshop/bigscience train/tr11-176B-ml/README.md); its Hub config.json gives
        # the 0.0 of inference.
        config = json.loads(json.dumps(config))
        config["attention_dropout"] = config["hidden_dropout"] = 0.1
        mapping.notes.append("trained with Megatron-LM's default dropouts: attention_dropout and hidden_dropout 0.1")
        changed = True
    run_layers = layers_run(row)
    if run_layers and run_layers != config_value(config, "num_hidden_layers", "n_layer", "num_layers"):
        config = set_layers(config, run_layers)
        mapping.notes.append(f"cut to the {run_layers} layers run")
        changed = True
    if file_name and not changed:
        return os.path.join(models_dir, file_name), diffs
    path = os.path.join(work, re.sub(r"[^A-Za-z0-9_.-]+", "_", row["row_id"]) + ".json")
    with open(path, "w", encoding="utf-8") as f:
        json.dump(config, f, indent=2)
    return path, diffs


# ---------------------------------------------------------------------------------------------
# Row -> flags


def gpu_for(row, mapping):
    text = row.get("gpu") or ""
    upper = text.upper()
    for key, name in (("GB300", "gb300"), ("GB200", "gb200"), ("B300", "b300"), ("B200", "b200"), ("H800", "h800"),
                      ("H200", "h200")):
        if key in upper:
            return [name]
    if "H100" in upper:
        if re.search(r"9[5-6]\s*GB", upper):
            # torchtitan's Grand Teton H100s: 96 GB HBM2e at 2.4 TB/s and 500 W, the table's
            # h100-96gb (95 GiB, as the 2024 page says 95 GB), whose peaks the GPU table takes
            # between the H100 NVL's and SXM's data sheets, linear in the power limit.
            mapping.notes.append(f"{text}: h100-96gb (HBM2e at 2.4 TB/s; its 500 W peaks between the NVL's and SXM's)")
            return ["h100-96gb"]
        return ["h100"]
    if "A100" in upper:
        if "40GB" in upper:
            return ["a100-40gb"]
        if "80GB" not in upper:
            mapping.notes.append(f"'{text}': a100-80gb assumed")
        return ["a100-80gb"]
    mapping.unstated = f"GPU '{text}' has no entry in the table's names"
    return None


def precision_flags(row, gpu, mapping):
    text = row.get("precision") or ""
    upper = text.upper()
    if upper.startswith("FP16"):
        return ["--dtype", "fp16"]
    if upper.startswith("BF16"):
        if "INFERRED" in upper:
            mapping.notes.append(f"precision '{text}'")
        return ["--dtype", "bf16"]
    if "NOT STATED" in upper:
        mapping.notes.append(f"precision '{text}': bf16 assumed")
        return ["--dtype", "bf16"]
    if "MXFP8" in upper or "FP8-MX" in upper:
        return ["--dtype", "fp8", "--fp8-recipe", "mxfp8"]
    if "FP8-CS" in upper:
        return ["--dtype", "fp8", "--fp8-recipe", "tensorwise"]
    if upper.startswith("ALTERNATIVE FP8"):
        # Megatron-Bridge 25.09's footnote: 32x32 MXFP8-style blocks on B200/GB200, DeepSeek-style
        # blocks (128x128 weights, 1x128 activations) on H100.
        recipe = "blockwise" if gpu == "h100" else "mxfp8"
        mapping.notes.append(f"alternative FP8 recipe on {gpu}: {recipe}")
        return ["--dtype", "fp8", "--fp8-recipe", recipe]
    if "FLOAT8" in upper:
        # torchao's Float8 linear layers scale each tensor dynamically by default.
        return ["--dtype", "fp8", "--fp8-recipe", "tensorwise"]
    if upper == "FP8" and row["source"] == "mbridge":
        # Megatron-Bridge's performance configs come in FP8_CS (current scaling) and FP8_MX
        # variants (scripts/performance/configs/llama/llama3_workload_base_configs.py), and its
        # tables print MXFP8 apart: a plain FP8 is current scaling, on Blackwell too (its Llama 3
        # 70B GB200 FP8 row has FP8_CS's FSDP and micro-batch 2, its MXFP8 row FP8_MX's tp 2 x pp 4).
        mapping.notes.append("Megatron-Bridge's FP8 is its FP8_CS recipe: tensorwise")
        return ["--dtype", "fp8", "--fp8-recipe", "tensorwise"]
    if upper.startswith("FP8") and "ASSUMED" in upper and row["source"] == "mbridge":
        # Megatron-Bridge 25.09's table has no precision column; beside its "alternative FP8
        # recipe" rows the others are one of the per-tensor recipes of its perf matrices (fp8_ds,
        # fp8_cs; scripts/performance/configs at v0.1.0rc3). Where the two differ, the row follows
        # fp8_cs: Llama 3 70B on 64 GB200 at micro-batch 2 with 40 layers offloaded (fp8_ds has
        # micro-batch 1 and no offloading). Current scaling, as the plain FP8 of later tables.
        mapping.notes.append("precision assumed FP8 by the transcriber: current scaling, tensorwise")
        return ["--dtype", "fp8", "--fp8-recipe", "tensorwise"]
    if upper.startswith("FP8"):
        if "ASSUMED" in upper:
            mapping.notes.append("precision assumed FP8 by the transcriber")
        return ["--dtype", "fp8"]  # the planner's default recipe
    mapping.unstated = f"precision '{text}' has no flag"
    return None


def recompute_flag(row, mapping):
    text = (row.get("recompute") or "").lower()
    if not text and row["source"] == "megatron_lm_a100_2021":
        # Narayanan et al. (SC 2021) ran with full activation recomputation, which their FLOP count
        # (and so the measured TFLOP/s) includes.
        mapping.notes.append("full recompute, as the SC21 runs (their FLOP count includes it)")
        return ["--recompute", "full"]
    if not text:
        return []
    if "selective layer" in text:
        # torchtitan's selective checkpointing by layer with its default selective_ac_option "2"
        # (config_manager.py at 3faaa1a0d, the 2024 tables' commit: "2 = checkpoint every other
        # layer"): every second block wholly recomputed, L/2 of the L layers, which is what
        # full recompute's block of L/2 layers keeps and runs on one stage.
        layers = int((row.get("hf_like_config") or {}).get("num_layers") or 0)
        if layers < 2:
            mapping.notes.append("torchtitan's per-layer selective checkpointing, its layer count not given: searched")
            return []
        mapping.notes.append(f"torchtitan's selective checkpointing of every second layer: --recompute full "
                             f"--recompute-layers {layers // 2} (of {layers})")
        return ["--recompute", "full", "--recompute-layers", str(layers // 2)]
    if row["source"].startswith("torchtitan") and "selective" in text:
        # torchtitan's selective checkpointing by op: named so in its 2024 tables, and what its
        # train_configs at 9dec370 (the 2412 tables' commit) set, selective_ac_option = 'op'.
        mapping.notes.append("torchtitan's selective checkpointing by op: --recompute ops")
        return ["--recompute", "ops"]
    if text.startswith("none") or text.endswith("none"):
        return ["--recompute", "none"]
    if "selective" in text:
        return ["--recompute", "selective"]
    if "full" in text:
        return ["--recompute", "full"]
    mapping.notes.append(f"recompute '{row.get('recompute')}' not mapped: searched")
    return []


# NeMo 2.0's performance configuration per 25.02 and 25.04 row (scripts/nemo-fw-configs.json
# says how): CUDA graphs, token drop, bf16 gradients, recompute and the loss its scripts set.
NEMO_FW = config_reading("nemo-fw-configs.json")


# Megatron-Bridge's recompute, read from its performance configs at each release's tag (v0.1.0rc3
# for 25.09 through v0.6.0 for 26.08: the workload base configs, the 25.09 perf_matrix YAML and
# the 26.08 perf_recipes, over the base recipes they override). Its Llama 3/3.1 and Qwen3 configs
# recompute nothing (recompute_granularity None; Qwen3's set_qwen3_common_configs resets its base
# recipe's full/uniform/1), but for LLAMA3_8B_H100_FP8_CS_BASE_CONFIG at v0.2.0 (25.11): full,
# block, 5 layers, in a config without the FSDP its row prints, so that row is left searched.
# DeepSeek-V3 and Kimi K2 recompute MLA's up-projections (recompute_modules [mla_up_proj], with
# mlp on some), GPT-OSS on some cards [layernorm, moe_act]: read per row, with the others'
# (scripts/mbridge-recompute.json says how), and given as --recompute-modules.
MBRIDGE_NO_RECOMPUTE_PREFIXES = ("LLAMA3", "Qwen3")
MBRIDGE_RECOMPUTE_MODULES = {"DeepSeekV3": "[mla_up_proj] (with mlp on some cards)", "Kimi_K2": "[mla_up_proj]",
                             "GPT OSS 120B": "[layernorm, moe_act] on some cards, none on others"}
MBRIDGE_RECOMPUTE = config_reading("mbridge-recompute.json")


def mbridge_recompute_flag(row, gpu, mapping):
    """The recompute Megatron-Bridge's config ran for a row that states none (above); NeMo 2.0's
    25.02 and 25.04 rows' likewise (scripts/nemo-fw-configs.json)."""
    if row["source"].startswith("nemo_fw") and (NEMO_FW.get(row["row_id"]) or {}).get("recompute") == "none":
        mapping.notes.append("its recommended configuration recomputes nothing (recompute_layers 0): --recompute none")
        return ["--recompute", "none"]
    if row["source"] != "mbridge":
        return []
    read = MBRIDGE_RECOMPUTE.get(row["row_id"])
    if read is not None:
        if read["recompute"] == "none":
            mapping.notes.append(f"its configuration ({read['config']} at {read['tag']}) recomputes nothing: "
                                 "--recompute none")
            return ["--recompute", "none"]
        modules = ",".join(read["modules"])
        mapping.notes.append(f"its configuration ({read['config']} at {read['tag']}) recomputes modules {modules}: "
                             f"--recompute-modules {modules}")
        return ["--recompute-modules", modules]
    model = row["model"]
    if model.startswith("LLAMA3_8B") and gpu == "h100" and "25.11" in (row.get("version") or ""):
        mapping.notes.append("its 25.11 config recomputes a block of 5 layers but runs no FSDP, which the row "
                             "prints: recompute searched")
        return []
    if model.startswith(MBRIDGE_NO_RECOMPUTE_PREFIXES):
        mapping.notes.append("Megatron-Bridge's config recomputes nothing: --recompute none")
        return ["--recompute", "none"]
    family = next((k for k in MBRIDGE_RECOMPUTE_MODULES if model.startswith(k)), None)
    if family:
        mapping.notes.append(f"Megatron-Bridge's config recomputes modules {MBRIDGE_RECOMPUTE_MODULES[family]}, "
                             "not read for this row: recompute searched")
    return []


# Megatron-Bridge's token dispatcher per row, read from its configurations at each release's tag
# (scripts/mbridge-dispatchers.json says how): flex (DeepEP, HybridEP) or alltoall.
MBRIDGE_DISPATCHERS = config_reading("mbridge-dispatchers.json")


def dispatcher_flag(row, ep, mapping):
    """--moe-dispatcher flex for the Megatron-Bridge rows whose configuration runs the flex dispatcher."""
    if row["source"] != "mbridge" or not ep or int(ep) <= 1:
        return []
    read = MBRIDGE_DISPATCHERS.get(row["row_id"])
    if read is None:
        mapping.notes.append("the dispatcher of its configuration was not read: alltoall")
        return []
    if read["dispatcher"] != "flex":
        return []
    mapping.notes.append(f"its configuration's flex dispatcher ({read.get('backend') or 'deepep'}): --moe-dispatcher flex")
    return ["--moe-dispatcher", "flex"]


# Megatron-Bridge's overlap of the expert all-to-alls per row, read from its configurations at
# each release's tag (scripts/mbridge-a2a-overlap.json says how).
MBRIDGE_A2A_OVERLAP = config_reading("mbridge-a2a-overlap.json")


def a2a_overlap_flag(row, ep, mapping):
    """--moe-a2a-overlap for the Megatron-Bridge rows whose configuration overlaps the expert
    all-to-alls; under HybridEP with the 32 SMs Megatron-Bridge's performance scripts give its
    kernels (scripts/performance/utils/overrides.py sets moe_hybridep_num_sms = 32 from v0.2.0)."""
    if row["source"] != "mbridge" or not ep or int(ep) <= 1:
        return []
    read = MBRIDGE_A2A_OVERLAP.get(row["row_id"])
    if read is None:
        mapping.notes.append("whether its configuration overlaps the expert all-to-alls was not read: no overlap")
        return []
    if not read["a2a_overlap"]:
        return []
    flags = ["--moe-a2a-overlap"]
    if (MBRIDGE_DISPATCHERS.get(row["row_id"]) or {}).get("backend") == "hybridep":
        flags += ["--moe-comm-sms", "32"]
    mapping.notes.append("its configuration overlaps the expert all-to-alls: " + " ".join(flags))
    return flags


MEGATRON_CORE_SOURCES = ("megatron_lm_h100", "megatron_lm_a100_2021", "nemo_2407", "nemo_longseq", "nemo_fw_2502",
                         "nemo_fw_2504", "mbridge")


def comm_flags(row, pp, schedule_flags, mapping):
    """--comm and --policy as the row's runtime posts its pipeline's sends and receives.

    Megatron-LM's 1F1B without interleaving (and so NeMo's and Megatron-Bridge's, which run
    Megatron-Core's schedules) posts each gap's pair as one group, send_forward_recv_backward and
    send_backward_recv_forward, and waits on it before the next op: _communicate in
    megatron/core/pipeline_parallel/p2p_communication.py calls req.wait() on every request
    (wait_on_reqs defaults to True), which makes the compute stream wait. torchtitan's 1F1B is
    PyTorch's Schedule1F1B, which batches fwd_sends + bwd_recvs (and bwd_sends + fwd_recvs) and
    waits on each batch (torch/distributed/pipelining/schedules.py). Megatron-LM's interleaved
    schedule posts them ahead with overlap_p2p_comm (its default) and waits only before the op
    that needs them: overlap. DeepSpeed's pipeline engine (BLOOM) runs each send and receive
    alone and blocking, in an order by stage parity (deepspeed/runtime/pipe/schedule.py: "The
    communication is blocking and must be paired"; TrainSchedule alternates even and odd stages)."""
    if pp <= 1:
        return []
    if row["source"] == "bloom_176b":
        mapping.notes.append("DeepSpeed's pipeline engine: blocking sends and receives by stage parity: "
                             "--comm blocking --policy megatron")
        return ["--comm", "blocking", "--policy", "megatron"]
    one_f_one_b = schedule_flags[schedule_flags.index("--schedules") + 1] == "1f1b"
    if one_f_one_b and row["source"] in MEGATRON_CORE_SOURCES:
        mapping.notes.append("Megatron-Core's 1F1B waits for each gap's batched send and receive: "
                             "--comm blocking --policy batched")
        return ["--comm", "blocking", "--policy", "batched"]
    if one_f_one_b and row["source"].startswith("torchtitan"):
        mapping.notes.append("PyTorch's Schedule1F1B waits for each gap's batched send and receive: "
                             "--comm blocking --policy batched")
        return ["--comm", "blocking", "--policy", "batched"]
    return []


# Megatron-Bridge's CUDA graphs per row, read from its configurations at each release's tag
# (scripts/mbridge-cuda-graphs.json says how).
MBRIDGE_CUDA_GRAPHS = config_reading("mbridge-cuda-graphs.json")


def cuda_graphs_flag(row, mapping):
    """--cuda-graphs as the Megatron-Bridge or NeMo 2.0 row's configuration captured them; the
    others none (Megatron-LM's, NeMo 1.0's and torchtitan's defaults: every kernel launched from
    the host)."""
    if row["source"].startswith("nemo_fw"):
        read = NEMO_FW.get(row["row_id"])
        if read is None or read["graphs"] == "none":
            return []
        mapping.notes.append(f"its recommended configuration ({read['csv']} at NeMo {read['tag']}) sets cuda_graphs, "
                             f"Megatron-Core's per-layer graphs: --cuda-graphs {read['graphs']}")
        return ["--cuda-graphs", read["graphs"]]
    if row["source"] != "mbridge":
        return []
    read = MBRIDGE_CUDA_GRAPHS.get(row["row_id"])
    if read is None or read["graphs"] == "unknown":
        mapping.notes.append("its configuration's CUDA graphs were not read or are in doubt: --cuda-graphs none")
        return []
    if read["graphs"] == "none":
        return []
    mapping.notes.append(f"its configuration's CUDA graphs ({read.get('impl', '')} {read.get('scope', [])}): "
                         f"--cuda-graphs {read['graphs']}")
    return ["--cuda-graphs", read["graphs"]]


# Megatron-Bridge's pipeline split per row, read from its configurations at each release's tag
# (scripts/mbridge-layouts.json says how): Megatron-Core's even split where the configuration
# sets none, the embedding and loss counted as layers where it says so, or its own layout string.
MBRIDGE_LAYOUTS = config_reading("mbridge-layouts.json")


def layout_flag(row, pp, mapping):
    """--layout as Megatron-Core split the Megatron-Bridge or NeMo 2.0 row's layers over its
    stages; where it was not read, the stages are balanced by cost (pipeplan's default, an upper
    bound)."""
    if pp < 2:
        return []
    if row["source"].startswith("nemo_fw") and (NEMO_FW.get(row["row_id"]) or {}).get("split"):
        read = NEMO_FW[row["row_id"]]
        layout = "padded" if read["split"] == "padded" else "even"
        what = ("counts the embedding and the loss as layers" if layout == "padded"
                else "sets no pipeline split: Megatron's even one")
        mapping.notes.append(f"its recipe (NeMo {read['tag']}) {what}: --layout {layout}")
        return ["--layout", layout]
    if row["source"] != "mbridge":
        return []
    read = MBRIDGE_LAYOUTS.get(row["row_id"])
    if read is None:
        mapping.notes.append("its pipeline split was not read: stages balanced by cost")
        return []
    split = read["split"]
    if split == "unknown":
        mapping.notes.append(f"its printed parallelism matches no configuration at {read['tag']} that could run, so "
                             "its pipeline split is in doubt: stages balanced by cost")
        return []
    if split == "default":
        layout, what = "even", "sets no pipeline split: Megatron's even one"
    elif split == "padded":
        layout, what = "padded", "counts the embedding and the loss as layers"
    else:
        # pipeplan keeps the multi-token prediction modules in the head, on the last stage, and
        # reads Megatron's layout with them there ("mL"); an m elsewhere it refuses by name.
        layout, what = split.removeprefix("layout:"), "sets its pipeline layout"
    mapping.notes.append(f"its configuration ({read['config']} at {read['tag']}) {what}: --layout {layout}")
    return ["--layout", layout]


def token_drop_flag(row, ep, mapping):
    """--moe-capacity-factor 1 for Megatron-Bridge's "(tokendrop)" rows: apply_moe_token_drop's
    defaults (moe_expert_capacity_factor 1.0, moe_pad_expert_input_to_capacity True,
    src/megatron/bridge/training/utils/moe_token_drop.py), every expert padded to its capacity."""
    if row["source"].startswith("nemo_fw") and (NEMO_FW.get(row["row_id"]) or {}).get("token_drop"):
        # NeMo 2.0's Mixtral recipes add MegatronTokenDropCallback to their performance
        # optimizations: the same capacity factor 1.0, padded (scripts/nemo-fw-configs.json).
        mapping.notes.append("token drop (NeMo's MegatronTokenDropCallback): capacity factor 1, padded: "
                             "--moe-capacity-factor 1")
        return ["--moe-capacity-factor", "1"]
    if row["source"] != "mbridge" or "(tokendrop)" not in row["model"]:
        return []
    mapping.notes.append("token drop (apply_moe_token_drop): capacity factor 1, padded: --moe-capacity-factor 1")
    return ["--moe-capacity-factor", "1"]


def megatron_fsdp(row):
    """The row ran Megatron-FSDP: Megatron-Bridge's and NeMo 25.04's `fsdp` above 0 (the latter prints 1 for on)."""
    fsdp = row.get("fsdp")
    return row["source"] in ("mbridge", "nemo_fw_2504") and fsdp is not None and int(fsdp) > 0


def sharding_flag(row, dp, mapping, cp=1):
    source = row["source"]
    fsdp = row.get("fsdp")
    if source.startswith("torchtitan"):
        if fsdp and int(fsdp) > 1:
            return ["--sharding", "params"]
        # FSDP2 shards over the data- and context-parallel ranks together (torchtitan's dp_shard_cp mesh).
        return ["--sharding", "none"] if dp == 1 and cp == 1 else ["--sharding", "params"]
    if source == "llama3_table4":
        mapping.notes.append("Llama 3's FSDP shards optimizer states and gradients, not weights: gradients")
        return ["--sharding", "gradients"]
    if source == "bloom_176b":
        return ["--sharding", "optimizer"]  # ZeRO-1
    if source == "megatron_lm_a100_2021":
        mapping.notes.append("Megatron-LM 2021 had no distributed optimizer: sharding none")
        return ["--sharding", "none"]
    if megatron_fsdp(row):
        # Megatron-FSDP's parameters and gradients are views of its buckets, no copies
        # (megatron_fsdp/param_and_grad_buffer.py at d98e8a64).
        mapping.notes.append("Megatron-FSDP: --sharding params --fsdp-impl megatron")
        return ["--sharding", "params", "--fsdp-impl", "megatron"]
    if dp == 1:
        return []
    mapping.notes.append("Megatron's distributed optimizer, as NeMo and Megatron-Bridge run by default: optimizer")
    return ["--sharding", "optimizer"]


# Megatron-Core's data-parallel overlaps per Megatron-Bridge row, read from its configurations at
# each release's tag (scripts/mbridge-dp-overlap.json says how): on by default (CommOverlapConfig
# turns both on for the distributed optimizer with data parallelism), off where a configuration
# says so.
MBRIDGE_DP_OVERLAP = config_reading("mbridge-dp-overlap.json")


def dp_overlap_flags(row, mapping):
    """--no-overlap-grad-reduce, --no-overlap-param-gather for the Megatron-Bridge rows whose
    configuration turned an overlap off."""
    if row["source"] != "mbridge":
        return []
    read = MBRIDGE_DP_OVERLAP.get(row["row_id"])
    if read is None:
        mapping.notes.append("its data-parallel overlaps were not read: both on, Megatron-Bridge's default")
        return []
    flags = []
    if read["overlap_grad_reduce"] is False:
        flags.append("--no-overlap-grad-reduce")
    if read["overlap_param_gather"] is False:
        flags.append("--no-overlap-param-gather")
    if flags:
        mapping.notes.append(f"its configuration ({read['config']} at {read['tag']}) turns a data-parallel overlap "
                             "off: " + " ".join(flags))
    return flags


def ddp_bucket_flags(row, dp, cp, flags, mapping):
    """How each runtime's Megatron-Core buckets and dispatches its data-parallel overlaps
    (docs/costs.md, "Buckets"):
    - Megatron-LM of April 2021 all-reduced the gradients after the whole forward-backward
      (training.py at cdde433, 2021-04-09: DDP_impl 'local', its default, calls
      allreduce_gradients after forward_backward_func): --no-overlap-grad-reduce;
    - Megatron-Core up to r0.8 dispatched the first bucket's all-gather in the optimizer's
      zero_grad, at the step's start (distrib_optimizer.py at core_r0.8.0); from r0.9 each stage
      dispatches it at its first forward. Megatron-LM's H100 table ran r0.8.0, NeMo 24.07 and
      24.03.01 ran Megatron-Core before r0.9: --param-gather-at-step-start;
    - NeMo 2.0's MegatronCommOverlapCallback and Megatron-Bridge's CommOverlapConfig set buckets
      of 128 x 1024 x 1024 parameters with data parallelism (_get_optimizer_overlap_cfgs):
      --ddp-bucket-size 134217728 (NeMo 24.07 and 24.03 keep Megatron-Core's default)."""
    source = row["source"]
    if source == "megatron_lm_a100_2021":
        mapping.notes.append("Megatron-LM 2021 all-reduced after the backward: --no-overlap-grad-reduce")
        return ["--no-overlap-grad-reduce"]
    if dp * cp <= 1 or "--sharding" not in flags:
        return []
    older = source in ("megatron_lm_h100", "nemo_2407") or (source == "nemo_longseq" and row["gpu"].startswith("H100"))
    if older and "--no-overlap-param-gather" not in flags and flags[flags.index("--sharding") + 1] == "optimizer":
        mapping.notes.append("Megatron-Core before r0.9 gathers the first bucket from the step's start: "
                             "--param-gather-at-step-start")
        return ["--param-gather-at-step-start"]
    nemo2 = source in ("mbridge", "nemo_fw_2502", "nemo_fw_2504") or (source == "nemo_longseq" and not row["gpu"].startswith("H100"))
    if nemo2 and "--no-overlap-grad-reduce" not in flags and flags[flags.index("--sharding") + 1] != "params":
        mapping.notes.append("NeMo 2.0's and Megatron-Bridge's buckets: --ddp-bucket-size 134217728")
        return ["--ddp-bucket-size", "134217728"]
    return []


def grad_reduce_flag(row, mapping):
    """--grad-reduce-in-bf16 for Megatron-Bridge's rows: its performance configurations set
    ddp.grad_reduce_in_fp32 = False for every family planned here, from 25.09 (v0.1.0rc3's
    perf_matrix YAMLs) to 26.08 (v0.6.0's perf_recipes/_common.py::_benchmark_common), for its
    Megatron-FSDP rows alike; and for NeMo 2.0's 25.02 and 25.04 rows, whose recipes' performance
    optimizations set trainer.plugins.grad_reduce_in_fp32 = False (scripts/nemo-fw-configs.json)."""
    if row["source"].startswith("nemo_fw") and (NEMO_FW.get(row["row_id"]) or {}).get("grad_bf16"):
        mapping.notes.append("NeMo's performance recipes reduce the gradients in bf16: --grad-reduce-in-bf16")
        return ["--grad-reduce-in-bf16"]
    if row["source"] != "mbridge":
        return []
    mapping.notes.append("Megatron-Bridge's performance configs reduce the gradients in bf16: --grad-reduce-in-bf16")
    return ["--grad-reduce-in-bf16"]


def elementwise_flag(row, mapping):
    """--elementwise eager (or eager-fused-norm) for torchtitan's rows that ran without torch.compile."""
    how = "eager"
    if row["source"] == "torchtitan_2412":
        # Its tables name torch.compile in each row that ran it.
        if "torch.compile" in (row.get("technique") or ""):
            return []
    elif "405B" in row["model"]:
        # The 405B table (docs/performance.md at 9515a140b, August 2024) names no compile; its
        # train_configs/llama3_405b.toml at that commit sets compile = true.
        return []
    elif "13B" in row["model"] or "8B" in row["model"]:
        # The A100 tables came with docs/performance.md at 395a52627 (Llama 2) and 1ea476e9f
        # (Llama 3), April 2024, whose train_configs set compile = false everywhere and
        # norm_type = "fused_rmsnorm" (a Triton kernel) for 13B and 8B, "rmsnorm" for 70B.
        how = "eager-fused-norm"
    mapping.notes.append(f"without torch.compile: --elementwise {how}")
    return ["--elementwise", how]


def loss_flag(row, mapping):
    """The cross entropy each source's framework ran (docs/costs.md, "Element-wise kernels")."""
    source, framework = row["source"], row.get("framework") or ""
    if source.startswith("torchtitan"):
        # torchtitan's loss is torch's cross_entropy on pred.float() (train.py at 9dec370).
        mapping.notes.append("torchtitan's loss: --loss torch")
        return ["--loss", "torch"]
    if source == "mbridge":
        # Megatron-Bridge's GPTModelProvider sets cross_entropy_loss_fusion = True and its
        # performance scripts cross_entropy_fusion_impl = "te" at every tag from v0.1.0rc3 to
        # v0.6.0 (scripts/performance/utils/overrides.py; v0.6.0's perf_recipes/_common.py).
        mapping.notes.append("Megatron-Bridge's performance scripts run TE's fused cross entropy: --loss te")
        return ["--loss", "te"]
    if source.startswith("nemo_fw") and (NEMO_FW.get(row["row_id"]) or {}).get("loss_te"):
        # NeMo's performance scripts set cross_entropy_fusion_impl = "te" from 2025-04-07, its
        # 25.04 release (scripts/nemo-fw-configs.json).
        mapping.notes.append("NeMo 25.04's performance scripts run TE's fused cross entropy: --loss te")
        return ["--loss", "te"]
    if source.startswith("nemo") and ("NeMo 2.0" in framework or "25.04" in framework):
        # NeMo 2.0's GPTConfig (nemo/collections/llm/gpt/model/base.py) defaults
        # cross_entropy_loss_fusion to True, Megatron-Core's native fused kernels.
        mapping.notes.append("NeMo 2.0's GPTConfig fuses the cross entropy: --loss vocab-parallel-fused")
        return ["--loss", "vocab-parallel-fused"]
    # Megatron-LM's default (its 2021 runs and r0.8's table; BLOOM's Megatron-DeepSpeed; NeMo
    # 1.0, whose setting is not known here): the loss op by op, pipeplan's default.
    return []


# Megatron-Bridge's performance configs that offload layers' activations to the host
# (cpu_offloading_num_layers; its activations only, cpu_offloading_weights False), all of them
# Megatron-FSDP runs without pipeline parallelism or recompute: LLAMA3_70B_PRETRAIN_CONFIG_
# GB200_FP8_CS_V1 (40 of 80 layers) and ..._GB300_FP8_CS_V1 (20) in
# scripts/performance/configs/llama/llama3_workload_base_configs.py from v0.2.0 (25.11) to v0.5.1
# (26.06.01), the same in v0.6.0's perf_recipes/llama; 25.09's (v0.1.0rc3) perf_matrix in
# scripts/performance/configs/llama3*/ gives the 70B on GB200 40 and the 405B on GB200 95 of 126.
MBRIDGE_OFFLOADED_LAYERS = {("LLAMA3_70B", "gb200"): 40, ("LLAMA3_70B", "gb300"): 20, ("LLAMA3.1_405B", "gb200"): 95}


def offload_flag(row, gpu, pp, mapping):
    """--offload-layers N for the Megatron-Bridge FSDP rows whose configuration offloads N layers."""
    if row["source"] != "mbridge" or pp != 1 or not megatron_fsdp(row):
        return []
    layers = MBRIDGE_OFFLOADED_LAYERS.get((row["model"], gpu))
    if layers is None:
        return []
    mapping.notes.append(f"the Megatron-Bridge config offloads {layers} layers' activations: --offload-layers {layers}")
    return ["--offload-layers", str(layers)]


def fp8_params_flag(row, precision, mapping):
    """--fp8-params for Megatron-Bridge's FP8 rows that do not run Megatron-FSDP."""
    if row["source"] != "mbridge" or "--dtype" not in precision or precision[precision.index("--dtype") + 1] != "fp8":
        return []
    if megatron_fsdp(row):
        # Megatron-FSDP keeps FP8 weight units too, which pipeplan does not model (its FSDP keeps
        # the 16-bit weights it gathers): left at the 16-bit copy, an upper bound on memory.
        mapping.notes.append("FSDP: its FP8 parameters are not modelled, the 16-bit weight copy kept")
        return []
    # Megatron-Bridge's FP8 mixed-precision presets (bf16_with_fp8_current_scaling_mixed,
    # bf16_with_mxfp8_mixed, bf16_with_fp8_delayed_scaling_mixed, ... in
    # src/megatron/bridge/training/mixed_precision.py at v0.4.2) set fp8_param_gather = True.
    mapping.notes.append("Megatron-Bridge's FP8 presets keep the weights in FP8 alone: --fp8-params")
    return ["--fp8-params"]


def tp_overlap_flag(row, tp, mapping):
    """--tp-comm-overlap where the source's runs overlap tensor parallelism's collectives."""
    if tp <= 1:
        return []
    source = row["source"]
    if source.startswith("torchtitan"):
        # torchtitan's async tensor parallelism is opt-in; its tables name the rows that ran it.
        # It is PyTorch's micro-pipelined TP (parallelize_llama.py at 9dec370 sets inductor's
        # _micro_pipeline_tp), not Transformer Engine's userbuffers.
        if "asynctp" in (row.get("technique") or "").replace(" ", "").lower():
            mapping.notes.append("AsyncTP in the table: --tp-comm-overlap --tp-overlap-method async-tp")
            return ["--tp-comm-overlap", "--tp-overlap-method", "async-tp"]
        return []
    if source == "megatron_lm_h100":
        mapping.notes.append("the README's runs pass --tp-comm-overlap")
        return ["--tp-comm-overlap"]
    if source == "nemo_longseq":
        # The long-sequence table's two models run without userbuffers. NeMo 2.0's long-context
        # Llama 3 8B recipes (llama3_8b_64k.py, llama3_8b_128k.py at v2.2.0 and v2.3.0, the
        # 25.04 rows') add no MegatronCommOverlapCallback, so TransformerConfig's default
        # tp_comm_overlap False holds, and the 8B's performance mode sets it False explicitly
        # (llama3_8b.py). The 24.03.01 rows' Llama 2 7B: the configuration they cite sets
        # ub_tp_comm_overlap False (NeMo-Megatron-Launcher 24.03.01,
        # launcher_scripts/conf/training/llama/llama2_7b.yaml), and the launcher holds no
        # userbuffers configuration for its 4096 width (conf/training/tp_overlap/), though the
        # table's tp and cp are not that file's, so this one is the weaker reading.
        mapping.notes.append("the long-sequence recipes run no TE tensor-parallel overlap")
        return []
    if (source == "mbridge" or source.startswith("nemo")) and not (row.get("hf_like_config") or {}).get("num_experts"):
        # NeMo's and Megatron-Bridge's performance recipes of dense models with tp above 1 run
        # Transformer Engine's userbuffers overlap (Megatron-Bridge perf_recipes at 067f987df:
        # the Llama recipes' userbuffers_* configurations; NeMo's MegatronCommOverlapCallback).
        # Their mixture-of-experts recipes set it per card (on for Qwen3 on Blackwell, off on
        # H100): left off, the source not saying which ran.
        mapping.notes.append("the recipes' TE tensor-parallel overlap: --tp-comm-overlap")
        return ["--tp-comm-overlap"]
    return []


def map_row(row, models_dir, work):
    m = Mapping()
    if row.get("gpus") is None or (row.get("tp") is None and not row.get("likely_tp_pp_from_paper")):
        m.unstated = "the source states neither the GPU count nor tp and pp"
        return m, []
    model, diffs = model_for(row, models_dir, work, m)
    if model is None:
        return m, diffs
    if m.missing:
        return m, diffs
    gpu = gpu_for(row, m)
    if gpu is None:
        return m, diffs
    precision = precision_flags(row, gpu[0], m)
    if precision is None:
        return m, diffs
    tp, pp = row.get("tp"), row.get("pp")
    if tp is None:
        tp, pp = row["likely_tp_pp_from_paper"]["tp"], row["likely_tp_pp_from_paper"]["pp"]
        m.notes.append(f"tp {tp}, pp {pp} from the SC21 paper (the README gives tp x pp only)")
    tp, pp = int(tp), int(pp or 1)
    cp = int(row.get("cp") or 1)
    gpus = int(row["gpus"])
    dp = gpus // (tp * pp * cp) if gpus % (tp * pp * cp) == 0 else None
    gbs = row.get("gbs")
    if gbs is None and row.get("local_batch_size") and dp:
        gbs = int(row["local_batch_size"]) * dp
        m.notes.append(f"global batch {gbs} = local batch {row['local_batch_size']} x dp {dp}")
    if gbs is None:
        m.unstated = "the source states no global batch"
        return m, diffs
    if row.get("seq") is None:
        m.unstated = "the source states no sequence length"
        return m, diffs
    flags = ["--model", model, "--gpu", gpu[0], *gpu[1:], "--gpus", str(gpus), *precision]
    flags += ["--seq", str(row["seq"]), "--global-batch", str(gbs)]
    # torchtitan's pipelining defaults (torchtitan/parallelisms/pipelining_utils.py at 9dec370):
    # each local batch in pipeline_parallel_microbatches, the pp degree unless set, and two
    # stages per rank for a multi-stage schedule (generate_split_points).
    titan_pipeline = row["source"].startswith("torchtitan") and pp > 1
    if row.get("mbs"):
        flags += ["--micro-batch", str(row["mbs"])]
    elif titan_pipeline and dp and gbs % dp == 0 and (gbs // dp) % pp == 0:
        mb = gbs // dp // pp
        flags += ["--micro-batch", str(mb)]
        m.notes.append(f"torchtitan's default micro-batches, as many as pp ({pp}): {mb} sequences each")
    else:
        m.notes.append("micro-batch not stated: searched")
    flags += ["--tp", str(tp), "--pp", str(pp)]
    # Fixed as published: a source that states no cp ran without context parallelism.
    flags += ["--cp", str(cp)]
    if row.get("cp") is None:
        m.notes.append("cp not stated: 1")
    vp = int(row.get("vp") or 1)
    schedule = (row.get("schedule") or "").lower()
    if vp > 1:
        flags += ["--chunks", str(vp), "--schedules", "interleaved"]
    elif "interleaved" in schedule and titan_pipeline:
        flags += ["--chunks", "2", "--schedules", "interleaved"]
        m.notes.append("torchtitan's default of two stages per rank for a multi-stage schedule: --chunks 2")
    elif "interleaved" in schedule or (row["source"] == "llama3_table4" and pp > 1):
        flags += ["--schedules", "interleaved"]
        m.notes.append("interleaved with the chunks per device not stated: chunks searched")
    else:
        flags += ["--schedules", "1f1b"]
    ep = row.get("ep")
    if ep and int(ep) > 1:
        flags += ["--ep", str(ep)]
    etp = row.get("etp")
    if etp is None and ep and int(ep) > 1 and dp and (tp * cp * dp) % (tp * int(ep)) != 0:
        # Megatron's default etp (= tp) cannot fold ep over the stage's tp x cp x dp ranks, yet the
        # run ran: its expert tensor parallelism was 1, as Megatron-Bridge's MoE recipes set it.
        etp = 1
        m.notes.append("etp not stated and tp would not fold ep over the stage: etp 1")
    if etp is not None and ep and int(ep) > 1:
        flags += ["--etp", str(etp)]
    flags += comm_flags(row, pp, flags, m)
    flags += dispatcher_flag(row, ep, m)
    flags += token_drop_flag(row, ep, m)
    flags += layout_flag(row, pp, m)
    flags += cuda_graphs_flag(row, m)
    flags += a2a_overlap_flag(row, ep, m)
    flags += sharding_flag(row, dp, m, cp)
    flags += grad_reduce_flag(row, m)
    flags += dp_overlap_flags(row, m)
    flags += ddp_bucket_flags(row, dp, cp, flags, m)
    recompute = recompute_flag(row, m)
    flags += recompute if recompute else mbridge_recompute_flag(row, gpu[0], m)
    flags += tp_overlap_flag(row, tp, m)
    flags += offload_flag(row, gpu[0], pp, m)
    flags += fp8_params_flag(row, precision, m)
    flags += loss_flag(row, m)
    if row["source"].startswith("torchtitan"):
        flags += elementwise_flag(row, m)
    if row["source"] in ("megatron_lm_a100_2021", "bloom_176b") and tp > 1:
        # Both ran before sequence parallelism (Korthikanti et al., May 2022): Megatron-LM's 2021
        # runs and BLOOM's Megatron-DeepSpeed (trained March to July 2022) ran every tensor-
        # parallel rank's norms and dropouts on the whole sequence.
        flags += ["--no-sequence-parallel"]
        m.notes.append("before sequence parallelism: --no-sequence-parallel")
    if row["source"] == "megatron_lm_a100_2021":
        flags += ["--no-flash-attention"]
    if row["source"] == "bloom_176b":
        # tr11 started on 2022-03-11 with PyTorch 1.11 and Megatron-DeepSpeed's fused masked
        # softmax (its README), before FlashAttention (Dao et al., May 2022); its partition counts
        # the two tied embeddings as layers: [embed | 5 blocks], 6 blocks on each of the ten middle
        # stages, [5 blocks | embed] (the README's --pp-partition-method 'type:transformer|embedding').
        flags += ["--no-flash-attention", "--layout", "E,t*5|" + "t*6|" * 10 + "t*5,H"]
        m.notes.append("before flash attention: --no-flash-attention; the README's partition: --layout E,t*5|t*6 (x10)|t*5,H")
        # Jean Zay's A100 nodes: 8 GPUs on "4 OmniPath links" (the README's hardware), 100 Gb/s
        # each (Omni-Path's rate), so 50 Gb/s a GPU where the A100's table entry has HDR's 200.
        flags += ["--network", "50"]
        m.notes.append("Jean Zay's 4 Omni-Path links of 100 Gb/s for 8 GPUs: --network 50")
    if row["source"].startswith("torchtitan") and gpu[0].startswith("h100"):
        # torchtitan's attention is PyTorch's scaled_dot_product_attention, which on an H100
        # dispatches to its FlashAttention-2 kernel (torchtitan issue #1042; cuDNN's backend was
        # made torchtitan's first choice on B200 only, PR #1196). FlashAttention-2 reaches 335 and
        # 322 of the H100's 989 TFLOP/s forward and backward at head dimension 128 (Shah et al.
        # 2024, FlashAttention-3, figures 5 and 6), where pipeplan's default is cuDNN's 539 and
        # 516 (docs/costs.md, "Work per piece").
        flags += ["--attention-kernel", "fa2"]
        m.notes.append("torchtitan's SDPA on H100 is FlashAttention-2: --attention-kernel fa2")
    if dp is None:
        m.notes.append(f"tp {tp} x pp {pp} x cp {cp} does not divide the {gpus} GPUs printed")
    elif row.get("dp") and int(row["dp"]) != dp:
        m.notes.append(f"the source prints dp {row['dp']}, but its {gpus} GPUs over tp x pp x cp give {dp}: GPUs kept")
    m.flags = flags + ["--top", "1", "--json", "--threads", "1"]
    m.fixed = {"tp": tp, "pp": pp, "cp": cp, "vp": vp, "ep": int(ep or 1)}
    return m, diffs


# ---------------------------------------------------------------------------------------------
# Measured values


def megatron_flops_per_token(h, layers, seq, ffn, vocab, heads, kv, gated=False, experts_to=1):
    """Megatron-LM's num_floating_point_operations (training.py, r0.8) over one token."""
    attention = (1 + kv / heads + seq / h)
    mlp = ffn / h * experts_to * (1.5 if gated else 1.0)
    logit = vocab / (2 * layers * h)
    return 12 * layers * h * h * (attention + mlp + logit)


def measured_of(row):
    """(kind, value, how): tokens/s per GPU measured, or derived from a step time or a FLOP rate
    with the source's own FLOP count; None where the source's count is not known."""
    m = row.get("measured") or {}
    if m.get("tokens_per_s_per_gpu"):
        return "tokens_per_s_per_gpu", float(m["tokens_per_s_per_gpu"]), "measured"
    gpus, gbs, seq = row.get("gpus"), row.get("gbs"), row.get("seq")
    if m.get("step_s") and gpus and gbs and seq:
        return "tokens_per_s_per_gpu", gbs * seq / m["step_s"] / gpus, "from the step time"
    hf = row.get("hf_like_config") or {}
    tflops = m.get("tflops_per_gpu")
    if not (tflops and hf and seq):
        return None, None, "no throughput the model can be compared with"
    h, layers, vocab = hf["hidden_size"], hf["num_layers"], hf["vocab_size"]
    heads, kv, ffn = hf["num_heads"], hf["num_kv_heads"], hf["ffn_hidden_size"]
    source = row["source"]
    if source == "megatron_lm_h100":
        per_token = megatron_flops_per_token(h, layers, seq, ffn, vocab, heads, kv)
        how = "from TFLOP/s with Megatron-LM's FLOP count (training.py)"
    elif source == "megatron_lm_a100_2021":
        per_token = 96 * layers * h * h * (1 + seq / (6 * h) + vocab / (16 * layers * h)) / 1.0
        how = "from TFLOP/s with Narayanan et al.'s count (with recompute)"
    elif source == "nemo_longseq" and ffn:
        # NeMo's llama FLOP formula (nemo/utils/flops_formulas.py): causal mask not discounted.
        per_token = layers * h * h * (12 + 12 * kv / heads + 18 * ffn / h + 12 * seq / h + 6 * vocab / (layers * h))
        how = "from TFLOP/s with NeMo's llama FLOP count"
    else:
        return None, None, "only a FLOP rate whose count the source does not give"
    return "tokens_per_s_per_gpu", tflops * 1e12 / per_token, how


# ---------------------------------------------------------------------------------------------
# Running


def first_error_line(stderr):
    for line in stderr.splitlines():
        if line.startswith("pipeplan: error: "):
            return line[len("pipeplan: error: "):]
    lines = [line for line in stderr.splitlines() if line.strip()]
    return lines[-1] if lines else ""


def run_row(pipeplan, flags, timeout):
    start = time.monotonic()
    try:
        proc = subprocess.run([pipeplan, "plan", *flags], capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"outcome": "refused", "reason": f"timed out after {timeout} s (this script's limit)",
                "wall_s": round(time.monotonic() - start, 3)}
    wall = round(time.monotonic() - start, 3)
    out = {"wall_s": wall, "rc": proc.returncode}
    plan = None
    if proc.stdout.strip().startswith("{"):
        try:
            plan = json.loads(proc.stdout)
        except json.JSONDecodeError:
            plan = None
    if plan is not None and plan.get("rows"):
        best = plan["rows"][0]
        out.update({"outcome": "planned", "plan": best})
        return out
    if plan is not None and plan.get("over_memory"):
        # --json keeps the terminal report back; the text report says how close the nearest came.
        try:
            again = subprocess.run([pipeplan, "plan", *[f for f in flags if f != "--json"]], capture_output=True,
                                   text=True, timeout=timeout)
            said = again.stdout + again.stderr
        except subprocess.TimeoutExpired:
            said = ""
        closest = re.search(r"needs( at least)? ([0-9.]+ [KMGT]iB) on its fullest device, the limit is ([0-9.]+ [KMGT]iB)",
                            said)
        reason = (f"the closest needs{closest.group(1) or ''} {closest.group(2)} (limit {closest.group(3)})" if closest
                  else "over memory")
        out.update({"outcome": "over_memory", "reason": reason})
        return out
    if plan is not None and plan.get("refused"):
        reason = max(plan["refused"].items(), key=lambda kv: kv[1])[0]
        out.update({"outcome": "refused", "reason": reason})
        return out
    out.update({"outcome": "refused", "reason": first_error_line(proc.stderr) or f"exit {proc.returncode}"})
    return out


def general_reason(reason, work):
    """A refusal with the row's numbers and paths taken out, so that alike ones count together."""
    text = re.sub(re.escape(work + os.sep) + r"[\w.-]+\.json", "MODEL", reason).replace(ROOT + os.sep, "")
    text = re.sub(r" \(run 'pipeplan [^)]*\)", "", text)
    text = re.sub(r" \('pipeplan gpus' lists them\)", "", text)
    text = re.sub(r"; did you mean [^?]*\?", "", text)
    text = re.sub(r"; pipeplan models decoder-only transformers: .*", "", text)
    text = re.sub(r"--(global-batch|gpus|tp|pp|ep|chunks|micro-batch|seq) \d+", r"--\1 N", text)
    return text


# ---------------------------------------------------------------------------------------------
# The report


def pct(x):
    return f"{100 * x:.1f}%"


def row_group_keys(r):
    row = r["row"]
    moe = bool((row.get("hf_like_config") or {}).get("num_experts"))
    precision = r["precision_class"]
    cp = int(row.get("cp") or 1) > 1
    keys = {
        "source": row["source"],
        "model kind": "MoE" if moe else "dense",
        "precision": precision,
        "context parallel": "with cp" if cp else "without cp",
    }
    if row["source"] == "mbridge":
        # Whether the configuration its unprinted settings (recompute, graphs, overlaps) were read
        # from at the row's tag runs the parallelism the row prints (scripts/mbridge-cuda-graphs.json's
        # matches_row false where it does not): where it runs another, those settings are the
        # nearest configuration's, not necessarily what ran.
        read = MBRIDGE_CUDA_GRAPHS.get(row["row_id"])
        keys["Megatron-Bridge configuration at the tag"] = (
            "not read" if read is None else "another parallelism" if read.get("matches_row") is False
            else "the row's parallelism")
    return keys


def precision_class(row):
    upper = (row.get("precision") or "").upper()
    if "FP4" in upper:
        return "FP4"
    if "FP8" in upper or "FLOAT8" in upper:
        return "FP8"
    if upper.startswith("FP16"):
        return "FP16"
    return "BF16"


def ranked_pairs(compared, separation=0.03):
    """Pairs of compared rows of one source and release, model and cluster (GPU and count) in different
    configurations (their pipeplan commands differ) whose measured throughputs differ by more than
    `separation`: (a, b, verdict) with a measured faster and the verdict 'right', 'wrong' or
    'tied' for the prediction's order. The same configuration measured twice (another release of
    the framework) is no question of ranking: counted apart, as `same`."""
    cluster = collections.defaultdict(list)
    for r in compared:
        # One release of the framework (the row's `version`, where the source has several):
        # across releases the software moved too, which a planner cannot order.
        row = r["row"]
        cluster[(row["source"], row.get("version"), row["model"], r["gpu"], row["gpus"])].append(r)
    pairs = []
    for rs in cluster.values():
        for i, first in enumerate(rs):
            for second in rs[i + 1:]:
                a, b = (first, second) if first["measured"]["value"] >= second["measured"]["value"] else (second, first)
                ma, mb = a["measured"]["value"], b["measured"]["value"]
                if ma <= mb * (1 + separation):
                    continue
                if a["command"] == b["command"]:
                    pairs.append((a, b, "same"))
                    continue
                pa, pb = a["plan"]["tokens_per_s_per_gpu"], b["plan"]["tokens_per_s_per_gpu"]
                pairs.append((a, b, "right" if pa > pb else "tied" if pa == pb else "wrong"))
    return pairs


def best_single_prediction_error(measured):
    """The least mean of |p / m - 1| one prediction p reaches over the measurements `measured`:
    the sum of |p - m| / m is convex and piecewise linear in p, least at a measurement (the median
    of the m weighted by 1 / m), so each measurement is tried."""
    return min(sum(abs(p / m - 1) for m in measured) for p in measured) / len(measured)


def release_groups(compared):
    """Compared rows of one source, model and cluster whose pipeplan commands are the same (so one
    prediction for all) measured in more than one release of the framework: a list of row lists."""
    groups = collections.defaultdict(list)
    for r in compared:
        row = r["row"]
        groups[(row["source"], row["model"], r["gpu"], row["gpus"], tuple(r["command"]))].append(r)
    return [rs for rs in groups.values() if len({r["row"].get("version") for r in rs}) > 1]


def release_section(compared, w):
    groups = release_groups(compared)
    w("## One configuration across releases: the measurement's own spread")
    w("")
    w("Rows of one source, model and cluster that pipeplan plans with the same command (so it predicts "
      "them alike) but that were measured in different releases of the framework (Megatron-Bridge's "
      "container versions): what the software changed between releases, which no prediction blind to "
      "the release can follow. The floor is the least mean absolute error one prediction per "
      "configuration could reach over those rows; over all compared rows it is what any "
      "release-blind model must leave.")
    w("")
    if not groups:
        w("No configuration was measured in more than one release.")
        w("")
        return
    rows = sum(len(rs) for rs in groups)
    floor = sum(best_single_prediction_error([r["measured"]["value"] for r in rs]) * len(rs) for rs in groups)
    model = sum(abs(r["ratio"] - 1) for rs in groups for r in rs)
    w(f"{len(groups)} configurations in {rows} rows: the floor {pct(floor / rows)} over them (pipeplan "
      f"{pct(model / rows)}); over all {len(compared)} compared rows the floor is {pct(floor / len(compared))}.")
    w("")
    w("| model | GPUs | rows | releases | measured tok/s/GPU, least to most | most / least | predicted |")
    w("|---|---|---|---|---|---|---|")
    spread = lambda rs: max(r["measured"]["value"] for r in rs) / min(r["measured"]["value"] for r in rs)
    for rs in sorted(groups, key=lambda g: -spread(g))[:15]:
        first = rs[0]
        values = sorted(r["measured"]["value"] for r in rs)
        releases = ", ".join(sorted({str(r["row"].get("version") or "-").replace("NeMo ", "").replace(" container", "")
                                     for r in rs}))
        w(f"| {first['row']['model']} | {first['row']['gpus']} x {first['gpu']} | {len(rs)} | {releases} | "
          f"{values[0]:.0f} to {values[-1]:.0f} | {spread(rs):.2f} | {first['plan']['tokens_per_s_per_gpu']:.0f} |")
    if len(groups) > 15:
        w(f"| ... and {len(groups) - 15} more (see --json) | | | | | | |")
    w("")


def ranking_section(compared, w):
    pairs = ranked_pairs(compared)
    w("## Ranking: configurations of one model on one cluster")
    w("")
    w("Every pair of planned rows of one source and release (Megatron-Bridge's container version), model, "
      "GPU and GPU count, in different configurations, whose measured throughputs differ by more than 3%: "
      "is the faster one predicted faster?")
    w("")
    if not pairs:
        w("No such pair among the planned rows.")
        w("")
        return
    verdicts = collections.Counter(v for _, _, v in pairs)
    ranked = len(pairs) - verdicts["same"]
    w(f"{ranked} pairs: {verdicts['right']} ordered right ({pct(verdicts['right'] / ranked) if ranked else '-'}), "
      f"{verdicts['wrong']} wrong, {verdicts['tied']} predicted equal. Not counted: {verdicts['same']} pairs of "
      "one configuration measured apart within a release (the source's repeated runs).")
    w("")
    wrong = sorted((p for p in pairs if p[2] in ("wrong", "tied")),
                   key=lambda p: -(p[0]["measured"]["value"] / p[1]["measured"]["value"]))
    if wrong:
        w("| faster (measured) | slower (measured) | model | GPUs | measured tok/s/GPU | predicted |")
        w("|---|---|---|---|---|---|")
        for a, b, _ in wrong[:15]:
            w(f"| {a['row']['row_id']} | {b['row']['row_id']} | {a['row']['model']} | {a['row']['gpus']} x {a['gpu']} | "
              f"{a['measured']['value']:.0f} > {b['measured']['value']:.0f} | "
              f"{a['plan']['tokens_per_s_per_gpu']:.0f} vs {b['plan']['tokens_per_s_per_gpu']:.0f} |")
        if len(wrong) > 15:
            w(f"| ... and {len(wrong) - 15} more (see --json) | | | | | |")
        w("")


def report(results, args, meta):
    out = []
    w = out.append
    w("# pipeplan against published pre-training runs")
    w("")
    w(f"Generated {meta['date']} by `scripts/validate-published.py` with `{meta['pipeplan_display']}` "
      f"({meta['version']}, commit {meta['commit']}), runs file `{meta['runs_display']}` ({meta['total']} rows"
      f"{', selected: ' + str(len(results)) if args.rows else ''}). Wall time {meta['wall_s']:.1f} s "
      f"over {args.jobs} process(es).")
    w("")
    w("## Reach by source")
    w("")
    w("Excluded: FP4 (NVFP4) precision, hybrid Mamba models, and rows whose source marks the measurement "
      "a known performance regression. Unstated: the source does not give "
      "what a fixed configuration needs (GPU count, tp and pp, global batch or the model's shape). "
      "Planned: pipeplan planned the published configuration within memory.")
    w("")
    w("| source | rows | excluded | unstated | plannable | planned and fitting | over memory | refused | reach |")
    w("|---|---|---|---|---|---|---|---|---|")
    by_source = collections.OrderedDict()
    for r in results:
        by_source.setdefault(r["row"]["source"], []).append(r)
    totals = collections.Counter()
    for source, rs in list(by_source.items()) + [("all", results)]:
        c = collections.Counter(r["outcome"] for r in rs)
        plannable = len(rs) - c["excluded"] - c["unstated"]
        reach = pct(c["planned"] / plannable) if plannable else "-"
        name = f"**{source}**" if source == "all" else source
        w(f"| {name} | {len(rs)} | {c['excluded']} | {c['unstated']} | {plannable} | {c['planned']} | "
          f"{c['over_memory']} | {c['refused']} | {reach} |")
        if source == "all":
            totals = c
    w("")
    reasons = collections.Counter(r["reason_general"] for r in results if r["outcome"] == "refused")
    if reasons:
        w("Most common refusals (pipeplan's message, first line; the row's numbers and file names taken out):")
        w("")
        w("| rows | message |")
        w("|---|---|")
        for reason, count in reasons.most_common(12):
            short = reason if len(reason) <= 200 else reason[:197] + "..."
            w(f"| {count} | {short.replace('|', '/')} |")
        w("")
    over = [r for r in results if r["outcome"] == "over_memory"]
    if over:
        w("Over memory (they ran, so the planner charges too much or the mapping is wrong):")
        w("")
        for r in over[:15]:
            w(f"- {r['row']['row_id']} ({r['row']['model']}, {r['row']['gpus']} x {r['row']['gpu']}): {r['reason']}")
        if len(over) > 15:
            w(f"- ... and {len(over) - 15} more (see --json)")
        w("")
    unstated = collections.Counter(re.sub(r" for '.*'", "", r["reason"]) for r in results
                                   if r["outcome"] == "unstated")
    if unstated:
        w("Unstated: " + "; ".join(f"{n} rows: {reason}" for reason, n in unstated.most_common()) + ".")
        w("")

    compared = [r for r in results if r.get("ratio") is not None]
    w("## Fidelity: predicted against measured throughput")
    w("")
    w("Tokens per second per GPU, predicted (the plan's row with the published configuration) over "
      "measured; where a source gives only a step time or a FLOP rate the measured tokens/s is derived "
      "with the source's own count (the row's `measured.how` in the JSON). Error = predicted / measured - 1: "
      "positive is optimistic. Only planned rows are compared.")
    w("")
    if not compared:
        w("No planned row has a comparable measurement yet.")
        w("")
    else:
        w("| group | rows | mean abs. error | signed mean | min ratio | max ratio |")
        w("|---|---|---|---|---|---|")
        groups = collections.OrderedDict()
        groups[("all", "")] = compared
        for r in compared:
            for kind, value in row_group_keys(r).items():
                groups.setdefault((kind, value), []).append(r)
        for (kind, value), rs in sorted(groups.items(), key=lambda kv: (kv[0][0] != "all", kv[0])):
            errors = [x["ratio"] - 1 for x in rs]
            label = "**all**" if kind == "all" else f"{kind}: {value}"
            w(f"| {label} | {len(rs)} | {pct(sum(abs(e) for e in errors) / len(errors))} | "
              f"{pct(sum(errors) / len(errors)):>6} | {min(x['ratio'] for x in rs):.2f} | "
              f"{max(x['ratio'] for x in rs):.2f} |")
        w("")
        w("### The worst ten")
        w("")
        w("| row | model | GPUs | precision | tp/pp/cp/vp/ep | measured tok/s/GPU | predicted | ratio | schedule, mb, recompute, sharding |")
        w("|---|---|---|---|---|---|---|---|---|")
        for r in sorted(compared, key=lambda x: -abs(x["ratio"] - 1))[:10]:
            row, plan = r["row"], r["plan"]
            par = "/".join(str(r["fixed"].get(k, 1)) for k in ("tp", "pp", "cp", "vp", "ep"))
            w(f"| {row['row_id']} | {row['model']} | {row['gpus']} x {r['gpu']} | {r['precision_class']} | {par} | "
              f"{r['measured']['value']:.0f} | {plan['tokens_per_s_per_gpu']:.0f} | {r['ratio']:.2f} | "
              f"{plan['schedule']} V{plan.get('chunks', 1)}, mb {plan.get('micro_batch')}, {plan.get('recompute')}, "
              f"{plan.get('sharding')} |")
        w("")
    ranking_section(compared, w)
    release_section(compared, w)
    memory = [r for r in results if r.get("memory_ratio") is not None]
    w("## Peak memory against the published value")
    w("")
    if not memory:
        w("No planned row has a published peak memory yet (torchtitan's rows give one).")
    else:
        w("Predicted: the fullest device's simulated peak. Published: the source's maximum over GPUs (GiB).")
        w("")
        w("| row | model | measured GiB | predicted GiB | ratio |")
        w("|---|---|---|---|---|")
        for r in memory:
            w(f"| {r['row']['row_id']} | {r['row']['model']} | {r['row']['measured']['memory_gib']:.1f} | "
              f"{r['predicted_memory_gib']:.1f} | {r['memory_ratio']:.2f} |")
        errors = [abs(r["memory_ratio"] - 1) for r in memory]
        w("")
        w(f"Mean absolute error {pct(sum(errors) / len(errors))} over {len(memory)} rows.")
    w("")
    diffs = [(r["row"]["row_id"], d) for r in results for d in r.get("config_disagreements", [])]
    w("## The row's hf_like_config against the Hub's config.json")
    w("")
    if not diffs:
        w("Hidden size, layers, heads, key-value heads, FFN and expert widths, experts, top-k and vocabulary: "
          "every Hub config used agrees with the rows' hf_like_config.")
        w("")
    else:
        w("The Hub's config is what is planned; where they disagree, once per model:")
        w("")
        seen = set()
        for row_id, d in diffs:
            model = next(r["row"]["model"] for r in results if r["row"]["row_id"] == row_id)
            key = (base_model_name(model), d)
            if key in seen:
                continue
            seen.add(key)
            w(f"- {base_model_name(model)}: {d}")
        w("")
    synth = collections.defaultdict(set)
    for r in results:
        found = re.match(r"synthesised from hf_like_config in (\w+)'s", r.get("model_source") or "")
        if found:
            synth[found.group(1)].add(base_model_name(r["row"]["model"]))
    if synth:
        w("Synthesised from the row's hf_like_config (no Hub config.json exists): " +
          "; ".join(f"in {family}'s key names: {', '.join(sorted(names))}" for family, names in sorted(synth.items())) +
          ".")
        w("")
    return "\n".join(out)


# ---------------------------------------------------------------------------------------------


def git_commit():
    try:
        return subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                              check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def pipeplan_version(pipeplan):
    try:
        proc = subprocess.run([pipeplan, "--version"], capture_output=True, text=True, timeout=10)
        return (proc.stdout or proc.stderr).strip().splitlines()[0]
    except (OSError, subprocess.SubprocessError, IndexError):
        return "version unknown"


def display_path(path):
    path = os.path.abspath(path)
    for base, label in ((ROOT, ""), (os.path.dirname(ROOT), "../")):
        if path.startswith(base + os.sep):
            return label + os.path.relpath(path, base)
    return path


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--runs", default=os.environ.get("PIPEPLAN_PUBLISHED_RUNS", DEFAULT_RUNS),
                   help="the runs file (default: $PIPEPLAN_PUBLISHED_RUNS or ../shared/reference/published-runs/runs.json)")
    p.add_argument("--pipeplan", default=os.path.join(ROOT, "build", "pipeplan"), help="the binary (default build/pipeplan)")
    p.add_argument("--models", default=DEFAULT_MODELS, help="where the Hub configs are (default profiles/models)")
    p.add_argument("--rows", help="only these row ids, comma-separated")
    p.add_argument("--jobs", type=int, default=2, help="pipeplan processes at once (1 or 2; default 2)")
    p.add_argument("--timeout", type=float, default=120, help="seconds one row may take before it counts as refused")
    p.add_argument("-o", "--output", help="write the Markdown report here instead of stdout")
    p.add_argument("--json", dest="json_out", help="write every row's outcome here")
    p.add_argument("--require-reach", type=float, metavar="F",
                   help="exit 1 unless at least fraction F of the plannable rows are planned within memory")
    args = p.parse_args(argv)
    if args.jobs not in (1, 2):
        p.error("--jobs: 1 or 2 (the machine is shared)")
    if args.require_reach is not None and not 0 <= args.require_reach <= 1:
        p.error("--require-reach: a fraction between 0 and 1")
    if not os.access(args.pipeplan, os.X_OK):
        p.error(f"--pipeplan {args.pipeplan}: not an executable (build it with scripts/build.sh)")
    try:
        with open(args.runs, encoding="utf-8") as f:
            runs = json.load(f)
    except (OSError, json.JSONDecodeError) as e:
        p.error(f"--runs {args.runs}: {e}")
    rows = runs.get("rows") if isinstance(runs, dict) else None
    if not isinstance(rows, list):
        p.error(f"--runs {args.runs}: expected an object with 'rows'")
    if args.rows:
        wanted = [x.strip() for x in args.rows.split(",") if x.strip()]
        known = {r["row_id"] for r in rows}
        missing = [x for x in wanted if x not in known]
        if missing:
            p.error(f"--rows: not in {args.runs}: {', '.join(missing)}")
        rows = [r for r in rows if r["row_id"] in set(wanted)]

    start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="validate-published-") as work:
        results = []
        jobs = []
        for row in rows:
            r = {"row": row, "precision_class": precision_class(row), "notes": []}
            results.append(r)
            excluded = exclusion_reason(row)
            if excluded:
                r["outcome"] = "excluded"
                r["reason"] = excluded
                continue
            mapping, diffs = map_row(row, args.models, work)
            r["notes"] = mapping.notes
            r["config_disagreements"] = diffs
            r["model_source"] = mapping.model_source
            if mapping.unstated:
                r["outcome"] = "unstated"
                r["reason"] = mapping.unstated
                continue
            if mapping.missing:
                r["outcome"] = "refused"
                r["reason"] = mapping.missing
                continue
            r["command"] = ["pipeplan", "plan", *mapping.flags]
            r["fixed"] = mapping.fixed
            r["gpu"] = mapping.flags[mapping.flags.index("--gpu") + 1]
            jobs.append((r, mapping.flags))
        with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
            futures = {pool.submit(run_row, args.pipeplan, flags, args.timeout): r for r, flags in jobs}
            for future in concurrent.futures.as_completed(futures):
                futures[future].update(future.result())
        for r in results:
            if "reason" in r:
                r["reason_general"] = general_reason(r["reason"], work)
            if r.get("command"):  # temporary model copies are gone with the folder: name them by row
                r["command"] = [x.replace(work + os.sep, "<tmp>/").replace(ROOT + os.sep, "") for x in r["command"]]
            kind, value, how = measured_of(r["row"])
            r["measured"] = {"kind": kind, "value": value, "how": how}
            plan = r.get("plan")
            if plan and value:
                r["ratio"] = plan["tokens_per_s_per_gpu"] / value
            memory = (r["row"].get("measured") or {}).get("memory_gib")
            if plan and memory and plan.get("peak_memory_bytes"):
                r["predicted_memory_gib"] = max(plan["peak_memory_bytes"]) / 2**30
                r["memory_ratio"] = r["predicted_memory_gib"] / memory
    wall = time.monotonic() - start

    meta = {
        "date": datetime.date.today().isoformat(),
        "commit": git_commit(),
        "version": pipeplan_version(args.pipeplan),
        "pipeplan_display": display_path(args.pipeplan),
        "runs_display": display_path(args.runs),
        "total": len(runs["rows"]),
        "wall_s": wall,
    }
    text = report(results, args, meta)
    if args.output:
        with open(args.output, "w", encoding="utf-8") as f:
            f.write(text + "\n")
    else:
        print(text)
    if args.json_out:
        doc = {
            "format": "pipeplan.published-validation",
            "schema_version": 1,
            "date": meta["date"],
            "commit": meta["commit"],
            "pipeplan": meta["version"],
            "runs": meta["runs_display"],
            "wall_s": round(wall, 3),
            "rows": [
                {
                    "row_id": r["row"]["row_id"],
                    "source": r["row"]["source"],
                    "model": r["row"]["model"],
                    **{k: v for k, v in r.items() if k not in ("row",)},
                }
                for r in results
            ],
        }
        with open(args.json_out, "w", encoding="utf-8") as f:
            json.dump(doc, f, indent=1)
            f.write("\n")
    if args.require_reach is not None:
        c = collections.Counter(r["outcome"] for r in results)
        plannable = len(results) - c["excluded"] - c["unstated"]
        reach = c["planned"] / plannable if plannable else 1.0
        if reach < args.require_reach:
            print(f"validate-published: reach {reach:.3f} ({c['planned']} of {plannable} plannable rows) is below "
                  f"--require-reach {args.require_reach}", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
