"""The ``.pyi`` stubs of the compiled core match the built module: every class and method
the stubs name exists with the same parameters, and every public class of the module has a
stub."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import deepagents_rs
from deepagents_rs import _core

STUBS = Path(deepagents_rs.__file__).with_name("_core.pyi")


def _stub_classes() -> dict[str, dict[str, list[str]]]:
    tree = ast.parse(STUBS.read_text())
    out: dict[str, dict[str, list[str]]] = {}
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            methods = {}
            for item in node.body:
                if isinstance(item, ast.FunctionDef):
                    is_property = any(getattr(d, "id", None) == "property" for d in item.decorator_list)
                    is_static = any(getattr(d, "id", None) == "staticmethod" for d in item.decorator_list)
                    params = [a.arg for a in item.args.args[0 if is_static else 1 :]]
                    methods[item.name] = None if is_property else params
            out[node.name] = methods
    return out


def test_every_stubbed_method_has_the_built_signature():
    for cls_name, methods in _stub_classes().items():
        cls = getattr(_core, cls_name)
        for name, params in methods.items():
            if name == "__init__":
                built = list(inspect.signature(cls).parameters)
            else:
                attr = getattr(cls, name)
                if params is None:
                    assert isinstance(attr, property) or not callable(attr), f"{cls_name}.{name} is a property"
                    continue
                try:
                    sig = inspect.signature(attr)
                except ValueError:  # slot wrappers of dunder methods carry no signature
                    continue
                built = [p for p in sig.parameters if p != "self"]
                if name.startswith("__") and built == ["args", "kwargs"]:
                    continue  # a slot wrapper: Python does not see the parameters
            assert built == params, f"{cls_name}.{name}: built {built}, stub {params}"


def test_every_public_class_has_a_stub():
    stubbed = set(_stub_classes())
    built = {n for n, v in vars(_core).items() if inspect.isclass(v) and not n.startswith("_")}
    assert built == stubbed, f"stubbed {sorted(stubbed)}, built {sorted(built)}"


def test_every_stubbed_function_has_the_built_signature():
    tree = ast.parse(STUBS.read_text())
    functions = [n for n in tree.body if isinstance(n, ast.FunctionDef)]
    assert functions, "the stubs name the module's functions"
    for node in functions:
        built = list(inspect.signature(getattr(_core, node.name)).parameters)
        assert built == [a.arg for a in node.args.args], node.name
