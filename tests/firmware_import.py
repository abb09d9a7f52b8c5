"""Import firmware modules by the bare names they have on the Pico, for CPython tests."""
import importlib
import sys
from pathlib import Path

FIRMWARE = Path(__file__).resolve().parent.parent / "firmware"
GENERIC = ("fw_checks", "sim_mfrc522", "app", "mfrc522", "presence", "proto", "config", "hw")


def import_firmware(*names):
    """The named modules; their generic names are then dropped from ``sys.modules`` so they do
    not shadow anything in other tests (``config`` above all)."""
    before = set(sys.modules)
    sys.path[:0] = [str(FIRMWARE), str(FIRMWARE / "tests")]
    try:
        return [importlib.import_module(n) for n in names]
    finally:
        del sys.path[:2]
        for name in GENERIC:
            if name not in before:
                sys.modules.pop(name, None)


def hw_constants():
    """The constant assignments of firmware/hw.py (pins, SPI settings), read without importing
    it: hw.py imports ``machine``, which exists only on the Pico."""
    import ast
    out = {}
    for node in ast.parse((FIRMWARE / "hw.py").read_text()).body:
        if isinstance(node, ast.Assign):
            try:
                value = ast.literal_eval(node.value)
            except ValueError:
                continue
            target = node.targets[0]
            if isinstance(target, ast.Tuple):
                out.update({t.id: v for t, v in zip(target.elts, value)})
            else:
                out[target.id] = value
    return out
