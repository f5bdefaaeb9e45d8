#!/usr/bin/env python3
"""Accuracy of this library, ONNX Runtime's CPU provider and ONNX Runtime Web's WebGPU provider
on the same inputs, in ULPs against the correctly rounded result. `cargo xtask accuracy` runs
it: `prepare`, then the browser page (tests/accuracy/page.html, ONNX Runtime Web with
executionProviders ['webgpu', 'wasm'], so the CPU fallback stands in where WebGPU lacks a
kernel), then `report`.

    python tests/accuracy/compare.py prepare DIR   # models, inputs, exact results; ORT CPU's
                                                   # and wgpu-act's outputs
    python tests/accuracy/compare.py report DIR    # the Markdown table, with DIR/web/*.bin

Cases: every unary operator of the table (`wgpu-act ops --json`) with its default attributes,
and with each other choice of a STRING attribute (Gelu's approximate = "tanh"), per dtype: float16 on every bit pattern, float and double on 2^16 log-spaced magnitudes of
both signs (subnormals to 1e5) and the specials. Then Softmax and LogSoftmax (opset 13, the
last axis) on rows like a user's, per dtype: 64 rows of 1000 logits of spread 3 (a
classifier's), 32 rows of 1000 of spread 30 (exponents far apart, subnormal probabilities), 64
rows of 16 where one term dominates by 20 to 100 (LogSoftmax near 0), and one row of 2^16; their
correctly rounded results are generate.py's ref_axis (mpmath at 300 bits). `ACCURACY_OPS`
(a comma-separated list of ONNX names, e.g. `Softmax,LogSoftmax`) keeps those operators' cases
only. "refused": that runtime has no kernel for the
case (ONNX Runtime's CPU provider lacks most double ones; the WebGPU provider has no double,
and no float16 on an adapter without shader-f16, as SwiftShader is); "-": not run. Each case's model is the operator alone at
the newest opset no later than 24 whose version allows the dtype. The correctly rounded
result is the table's formula evaluated exactly (mpmath, as the test-data generator does) and
rounded once. A NaN where the result is a number, or a number where it is NaN, counts as
beyond any bound.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(HERE.parent / "data" / "onnx"))
import generate  # noqa: E402  (the generator's table, formula evaluation and rounding)

DTYPES = {  # name: (numpy type, ONNX type, bits type)
    "float16": (np.float16, TensorProto.FLOAT16, np.int16),
    "float": (np.float32, TensorProto.FLOAT, np.int32),
    "double": (np.float64, TensorProto.DOUBLE, np.int64),
}
SHORT = {"float16": "f16", "float": "f32", "double": "f64"}
NEWEST_OPSET = 24


def inputs(dtype: str) -> np.ndarray:
    npt = DTYPES[dtype][0]
    if dtype == "float16":
        return np.arange(1 << 16, dtype=np.uint16).view(np.float16)
    lo, hi = (1e-40, 1e5) if dtype == "float" else (1e-310, 1e5)
    magnitudes = np.exp(np.linspace(np.log(lo), np.log(hi), 1 << 15))
    specials = np.array([0.0, -0.0, np.inf, -np.inf, np.nan])
    return np.concatenate([magnitudes, -magnitudes, specials]).astype(npt)


def exact(op: str, dtype: str, x: np.ndarray, settings: dict) -> np.ndarray:
    """The correctly rounded results (generate.py's ref_unary at the defaults and `settings`)."""
    attributes = dict(generate.default_attributes(op, NEWEST_OPSET), **settings)
    fmt = {"float16": "float16", "float": "float", "double": "double"}[dtype]
    return generate.ref_unary(op, fmt, x, attributes).astype(DTYPES[dtype][0])


def opset_for(spec: dict, dtype: str) -> int | None:
    versions = [v["since"] for v in spec["versions"] if SHORT[dtype] in v["dtypes"] and v["since"] <= NEWEST_OPSET]
    return max(versions) if versions else None


def model(op: str, dtype: str, opset: int, settings: dict) -> onnx.ModelProto:
    """The operator alone, X and Y of any shape."""
    et = DTYPES[dtype][1]
    node = helper.make_node(op, ["X"], ["Y"], **settings)
    graph = helper.make_graph([node], op, [helper.make_tensor_value_info("X", et, None)],
                              [helper.make_tensor_value_info("Y", et, None)])
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 8
    return m


# The operators over an axis: rows of each kind, drawn per case from its own seed.
AXIS_OPS = ("Softmax", "LogSoftmax")
AXIS_ROWS = {  # name in the case's file name: (what the table says, rows of logits from a generator)
    "spread3": ("64 rows of 1000, logits of spread 3", lambda rng: rng.normal(0, 3, (64, 1000))),
    "spread30": ("32 rows of 1000, spread 30", lambda rng: rng.normal(0, 30, (32, 1000))),
    "dominated": ("64 rows of 16, one term ahead by 20-100",
                  lambda rng: np.concatenate([np.zeros((64, 1)),
                                              rng.normal(0, 1, (64, 15)) - rng.uniform(20, 100, (64, 1))], axis=1)),
    "row2e16": ("one row of 2^16, spread 3", lambda rng: rng.normal(0, 3, (1, 1 << 16))),
}
AXIS_OPSET = 13


def wanted(op: str) -> bool:
    only = os.environ.get("ACCURACY_OPS")
    return not only or op in only.split(",")


def axis_cases() -> list[tuple[str, str, str]]:
    return [(op, kind, dtype) for op in AXIS_OPS if wanted(op) for kind in AXIS_ROWS for dtype in DTYPES]


def axis_inputs(op: str, kind: str, dtype: str) -> np.ndarray:
    rng = np.random.default_rng(generate.seed_of(f"accuracy_{op}_{kind}_{dtype}"))
    return AXIS_ROWS[kind][1](rng).astype(DTYPES[dtype][0])


def cases() -> list[tuple[str, str, int, dict]]:
    out = []
    for op, spec in generate.TABLE.items():
        if spec["inputs"] != ["X"] or spec.get("kind") or not wanted(op):
            continue
        # The defaults ({}), then each other choice of a STRING attribute.
        for settings in [{}] + [setting for extra, setting in generate.choice_settings(spec) if extra]:
            for dtype in DTYPES:
                opset = opset_for(spec, dtype)
                if opset is not None:
                    out.append((op, dtype, opset, settings))
    return out


def prepare(folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    listing = []
    wgpu_act = os.environ.get("WGPU_ACT", str(ROOT / "target" / "release" / "wgpu-act"))
    for op, dtype, opset, settings in cases():
        label = op + "".join(f" ({value})" for value in settings.values())
        name = "_".join([op, *settings.values(), dtype])
        x = inputs(dtype)
        attrs = [a for key, value in settings.items() for a in ("--attr", f"{key}={value}")]
        ours = [wgpu_act, "apply", "--op", generate.TABLE[op]["cli_name"], "--opset", str(opset), *attrs]
        case = {"name": name, "op": label, "dtype": dtype, "opset": opset, "count": int(x.size),
                "inputs": str(x.size)}
        prepare_case(folder, case, model(op, dtype, opset, settings), x, exact(op, dtype, x, settings), ours)
        listing.append(case)
    for op, kind, dtype in axis_cases():
        name = f"{op}_{kind}_{dtype}"
        x = axis_inputs(op, kind, dtype)
        want = generate.ref_axis(op, dtype, x, AXIS_OPSET, -1)
        ours = [wgpu_act, "apply", "--op", generate.TABLE[op]["cli_name"], "--opset", str(AXIS_OPSET), "--axis", "-1"]
        case = {"name": name, "op": op, "dtype": dtype, "opset": AXIS_OPSET, "count": int(x.size),
                "shape": list(x.shape), "inputs": AXIS_ROWS[kind][0]}
        prepare_case(folder, case, model(op, dtype, AXIS_OPSET, {"axis": -1}), x, want, ours)
        listing.append(case)
    (folder / "cases.json").write_text(json.dumps(listing, indent=1))


def prepare_case(folder: Path, case: dict, onnx_model: onnx.ModelProto, x: np.ndarray, want: np.ndarray,
                 ours: list[str]) -> None:
    """A case's files: its model, X, the exact results, ONNX Runtime CPU's (or why it refused)
    and this library's (`ours`, the wgpu-act command line without its files)."""
    import onnxruntime as ort

    name = case["name"]
    (folder / f"{name}.onnx").write_bytes(onnx_model.SerializeToString())
    x.tofile(folder / f"{name}.x.bin")
    want.astype(x.dtype).tofile(folder / f"{name}.exact.bin")
    try:
        session = ort.InferenceSession(str(folder / f"{name}.onnx"), providers=["CPUExecutionProvider"])
        session.run(None, {"X": x})[0].astype(x.dtype).tofile(folder / f"{name}.ort_cpu.bin")
    except Exception as error:  # noqa: BLE001 (ORT refuses what it lacks a kernel for)
        (folder / f"{name}.ort_cpu.error").write_text(str(error).splitlines()[0])
        print(f"{name}: ONNX Runtime CPU: {str(error).splitlines()[0][:100]}", file=sys.stderr)
    np.save(folder / f"{name}.x.npy", x)
    subprocess.run([*ours, str(folder / f"{name}.x.npy"), str(folder / f"{name}.ours.npy")], check=True)
    np.load(folder / f"{name}.ours.npy").tofile(folder / f"{name}.ours.bin")
    print(f"prepared {name} (opset {case['opset']})", file=sys.stderr)


def ulp_distances(got: np.ndarray, want: np.ndarray, bits_type) -> np.ndarray:
    """ULP distance per element; a NaN against a number is the largest integer."""
    def key(values):
        b = values.view(bits_type).astype(np.int64)
        sign = np.iinfo(bits_type).min
        return np.where(b < 0, -(b - sign), b)  # sign-magnitude to a signed order, -0 = +0

    distance = np.abs(key(got) - key(want)).astype(np.float64)
    nan_got, nan_want = np.isnan(got), np.isnan(want)
    distance[nan_got & nan_want] = 0
    distance[nan_got ^ nan_want] = np.inf
    return distance


def report(folder: Path) -> None:
    listing = json.loads((folder / "cases.json").read_text())
    impls = [("this library", "ours"), ("ONNX Runtime CPU", "ort_cpu"), ("ONNX Runtime Web, WebGPU", "web/ort_web")]
    print("| op | dtype | inputs | " + " | ".join(f"{label}: worst ULP | beyond 2 ULP" for label, _ in impls) + " |")
    print("|---|---|---|" + "---|---|" * len(impls))
    for case in listing:
        name, dtype = case["name"], case["dtype"]
        npt, _, bits = DTYPES[dtype]
        want = np.fromfile(folder / f"{name}.exact.bin", dtype=npt)
        cells = []
        for _, stem in impls:
            path = folder / (f"web/{name}.ort_web.bin" if stem == "web/ort_web" else f"{name}.{stem}.bin")
            if not path.exists():
                # No kernel for the dtype (ORT's CPU provider has few double ones; the WebGPU
                # provider none, and no f16 without shader-f16), or no run at all.
                refused = path.with_suffix(".error").exists()
                cells += ["refused" if refused else "-", "-"]
                continue
            got = np.fromfile(path, dtype=npt)
            if got.size != want.size:
                cells += ["error", "-"]
                continue
            d = ulp_distances(got, want, bits)
            worst = d.max()
            worst_text = "NaN/number" if np.isinf(worst) else f"{worst:.3g}"
            cells += [worst_text, f"{int((d > 2).sum())} ({100 * (d > 2).mean():.1f}%)"]
        print(f"| {case['op']} | {dtype} | {case.get('inputs', case['count'])} | " + " | ".join(cells) + " |")


def main() -> int:
    if len(sys.argv) != 3 or sys.argv[1] not in ("prepare", "report"):
        print(__doc__, file=sys.stderr)
        return 2
    folder = Path(sys.argv[2])
    if sys.argv[1] == "prepare":
        prepare(folder)
    else:
        report(folder)
    return 0


if __name__ == "__main__":
    sys.exit(main())
