#!/usr/bin/env python3
"""Regenerates tests/data/launch/{megatron-args,torchtitan-keys}.txt, the names `pipeplan plan
--launch` may emit, from the frameworks' own sources at a pinned commit (docs/launch.md).

  scripts/launch_names.py megatron   MEGATRON_GIT_DIR   COMMIT > tests/data/launch/megatron-args.txt
  scripts/launch_names.py torchtitan TORCHTITAN_GIT_DIR COMMIT > tests/data/launch/torchtitan-keys.txt
  scripts/launch_names.py pytorch    PYTORCH_GIT_DIR    COMMIT > tests/data/launch/pytorch-schedules.txt

Reads the sources with `git show COMMIT:path` (a bare clone is enough) and parses them with
Python's ast; nothing is imported, so neither torch nor the frameworks need be installed.

Megatron-LM: every '--flag' that megatron/training/arguments.py's add_argument calls name,
and the flags its ArgumentGroupFactory(Config, exclude=[...]) calls build from dataclass fields
(megatron/training/argument_utils.py, build_group): '--' + the field name with '_' -> '-', a
bool that defaults to True as '--no-<name>' and '--disable-<name>', and a field's
metadata={"argparse_meta": {"arg_names": [...]}} taking precedence; base classes' fields
included (TransformerConfig derives from ModelParallelConfig).

torchtitan: every dataclass field of torchtitan/config/job_config.py reachable from JobConfig,
written as the TOML key path 'section.sub.key' (torchtitan's ConfigManager reads --job.config_file
into these dataclasses; a nested dataclass is a [section.sub] table).

PyTorch: the keys of the schedule_map in torch/distributed/pipelining/schedules.py's
get_schedule_class, the names torchtitan's pipeline_parallel_schedule takes.
"""
import ast
import subprocess
import sys


def git_show(repo, commit, path):
    return subprocess.run(["git", "-C", repo, "show", f"{commit}:{path}"], check=True, capture_output=True,
                          text=True).stdout


def git_files(repo, commit, under):
    out = subprocess.run(["git", "-C", repo, "ls-tree", "-r", "--name-only", commit, under], check=True,
                         capture_output=True, text=True).stdout
    return [p for p in out.splitlines() if p.endswith(".py")]


def is_dataclass(node):
    for d in node.decorator_list:
        target = d.func if isinstance(d, ast.Call) else d
        name = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")
        if name == "dataclass":
            return True
    return False


def class_index(repo, commit, under):
    """Every dataclass under `under`, by name; a name defined twice is refused where it is used."""
    index = {}
    for path in git_files(repo, commit, under):
        try:
            tree = ast.parse(git_show(repo, commit, path))
        except SyntaxError:
            continue
        for node in tree.body:
            if isinstance(node, ast.ClassDef) and is_dataclass(node):
                index.setdefault(node.name, []).append((path, node))
    return index


def lookup(index, name):
    found = index.get(name, [])
    if len(found) != 1:
        sys.exit(f"launch_names.py: dataclass {name} found {len(found)} times: {[p for p, _ in found]}")
    return found[0][1]


def fields(index, node):
    """(name, annotation, default) of a dataclass's fields, its bases' first."""
    out = []
    for base in node.bases:
        base_name = base.id if isinstance(base, ast.Name) else getattr(base, "attr", None)
        if base_name in index:
            out += fields(index, lookup(index, base_name))
    for item in node.body:
        if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
            if "ClassVar" in ast.unparse(item.annotation):
                continue
            out.append((item.target.id, item.annotation, item.value))
    return out


def field_call_keyword(value, key):
    if isinstance(value, ast.Call) and ast.unparse(value.func).endswith("field"):
        for kw in value.keywords:
            if kw.arg == key:
                return kw.value
    return None


def megatron_field_flags(name, annotation, value):
    if field_call_keyword(value, "init") is not None and ast.unparse(field_call_keyword(value, "init")) == "False":
        return []
    metadata = field_call_keyword(value, "metadata")
    if isinstance(metadata, ast.Dict):
        for k, v in zip(metadata.keys, metadata.values):
            if isinstance(k, ast.Constant) and k.value == "argparse_meta" and isinstance(v, ast.Dict):
                for kk, vv in zip(v.keys, v.values):
                    if isinstance(kk, ast.Constant) and kk.value == "arg_names":
                        return [e.value for e in vv.elts]
    default = field_call_keyword(value, "default") if isinstance(value, ast.Call) else value
    flag = "--" + name.replace("_", "-")
    if ast.unparse(annotation) == "bool" and isinstance(default, ast.Constant) and default.value is True:
        return ["--no-" + name.replace("_", "-"), "--disable-" + name.replace("_", "-")]
    return [flag]


def megatron(repo, commit):
    source = git_show(repo, commit, "megatron/training/arguments.py")
    tree = ast.parse(source)
    names = set()
    index = class_index(repo, commit, "megatron")
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and ast.unparse(node.func).endswith("add_argument"):
            names.update(a.value for a in node.args if isinstance(a, ast.Constant) and str(a.value).startswith("--"))
        if isinstance(node, ast.Call) and ast.unparse(node.func) == "ArgumentGroupFactory":
            cls = ast.unparse(node.args[0])
            exclude = set()
            for kw in node.keywords:
                if kw.arg == "exclude":
                    target = kw.value
                    if isinstance(target, ast.Name):  # exclude=exclude: the list assigned just above
                        for a in ast.walk(tree):
                            if (isinstance(a, ast.Assign) and isinstance(a.targets[0], ast.Name)
                                    and a.targets[0].id == target.id and isinstance(a.value, ast.List)):
                                exclude |= {e.value for e in a.value.elts if isinstance(e, ast.Constant)}
                    else:
                        exclude |= {e.value for e in target.elts}
            for name, annotation, value in fields(index, lookup(index, cls)):
                if name not in exclude:
                    names.update(megatron_field_flags(name, annotation, value))
    return sorted(names)


def torchtitan(repo, commit):
    tree = ast.parse(git_show(repo, commit, "torchtitan/config/job_config.py"))
    classes = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}
    keys = []

    def walk(cls, prefix):
        for item in classes[cls].body:
            if not (isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name)):
                continue
            annotation = ast.unparse(item.annotation)
            path = prefix + item.target.id
            if annotation in classes:
                walk(annotation, path + ".")
            else:
                keys.append(path)

    walk("JobConfig", "")
    return sorted(keys)


def pytorch(repo, commit):
    tree = ast.parse(git_show(repo, commit, "torch/distributed/pipelining/schedules.py"))
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == "get_schedule_class":
            for item in ast.walk(node):
                if isinstance(item, ast.Dict):
                    return sorted(k.value for k in item.keys)
    sys.exit("launch_names.py: no get_schedule_class schedule_map in schedules.py")


WHERE = {
    "megatron": "NVIDIA/Megatron-LM megatron/training/arguments.py",
    "torchtitan": "pytorch/torchtitan torchtitan/config/job_config.py",
    "pytorch": "pytorch/pytorch torch/distributed/pipelining/schedules.py get_schedule_class",
}


def main():
    if len(sys.argv) != 4 or sys.argv[1] not in WHERE:
        sys.exit(__doc__)
    kind, repo, commit = sys.argv[1:]
    full = subprocess.run(["git", "-C", repo, "rev-parse", commit], check=True, capture_output=True,
                          text=True).stdout.strip()
    names = {"megatron": megatron, "torchtitan": torchtitan, "pytorch": pytorch}[kind](repo, full)
    print(f"# {WHERE[kind]} at commit {full}")
    print(f"# written by scripts/launch_names.py {kind} GIT_DIR {full}; one name a line")
    for n in names:
        print(n)


if __name__ == "__main__":
    main()
