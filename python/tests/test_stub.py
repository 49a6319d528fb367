"""The typing stub (pipeplan/__init__.pyi) says what the package does: every public name is in
it, and each function and method written in Python takes the parameters the stub gives, by name,
kind and order (a parameter added to one and not the other fails here)."""

import ast
import inspect
from pathlib import Path

import pipeplan

STUB = ast.parse((Path(pipeplan.__file__).parent / "__init__.pyi").read_text())


def stub_parameters(node):
    a = node.args
    out = [(p.arg, "POSITIONAL_OR_KEYWORD") for p in a.posonlyargs + a.args]
    if a.vararg:
        out.append((a.vararg.arg, "VAR_POSITIONAL"))
    out += [(p.arg, "KEYWORD_ONLY") for p in a.kwonlyargs]
    if a.kwarg:
        out.append((a.kwarg.arg, "VAR_KEYWORD"))
    return out


def runtime_parameters(function):
    return [(name, p.kind.name) for name, p in inspect.signature(function).parameters.items()]


def stub_names():
    names = {}
    for node in STUB.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names[node.name] = node
        elif isinstance(node, ast.AnnAssign):
            names[node.target.id] = node
    return names


def test_every_public_name_is_in_the_stub():
    assert set(pipeplan.__all__) - set(stub_names()) == set()


def test_functions_take_the_stubs_parameters():
    checked = 0
    for name, node in stub_names().items():
        if isinstance(node, ast.FunctionDef):
            assert runtime_parameters(getattr(pipeplan, name)) == stub_parameters(node), name
            checked += 1
    assert checked >= 11  # generate, simulate, validate, plan, profile, the readers and the catalogs


def test_methods_written_in_python_take_the_stubs_parameters():
    schedule = stub_names()["Schedule"]
    for method in (m for m in schedule.body if isinstance(m, ast.FunctionDef)):
        attribute = getattr(pipeplan.Schedule, method.name)
        if inspect.isfunction(attribute):  # the Python ones; pybind11's have no signature to read
            assert runtime_parameters(attribute) == stub_parameters(method), method.name


def test_result_devices_read_as_attributes_and_keys():
    device = pipeplan.simulate(pipeplan.generate("1f1b", 2, 2), costs=(1, 1, 1)).devices[1]
    fields = {n.target.id for n in stub_names()["Device"].body if isinstance(n, ast.AnnAssign)}
    assert set(device) == fields
    for field in fields:
        assert getattr(device, field) == device[field]
