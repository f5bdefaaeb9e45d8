#!/usr/bin/env python3
"""Softmax and LogSoftmax: this library (`wgpu-act apply`) and ONNX Runtime's CPU provider on the
same rows, in ULPs against the correctly rounded result (mpmath at 200 bits, rounded once).

    pip install onnxruntime==1.32.0 onnx==1.23.2 numpy mpmath
    WGPU_ACT=target/release/wgpu-act python tests/accuracy/axis.py

Rows (float32 and float64; float16 for the first): 64 rows of 1000 logits of spread 3 (a
classifier's), 32 rows of 1000 of spread 30 (exponents far apart, subnormal probabilities), 64
rows of 16 where one term dominates by 20 to 100 (LogSoftmax near 0), and one row of 2^16. A
Markdown table goes to standard output (BENCHMARKS.md, "Softmax and LogSoftmax against ONNX
Runtime").
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import mpmath
import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper

mpmath.mp.prec = 200
TYPES = {np.float16: TensorProto.FLOAT16, np.float32: TensorProto.FLOAT, np.float64: TensorProto.DOUBLE}


def rows(kind: str, dtype, rng) -> np.ndarray:
    if kind == "logits, spread 3":
        x = rng.normal(0, 3, (64, 1000))
    elif kind == "logits, spread 30":
        x = rng.normal(0, 30, (32, 1000))
    elif kind == "one term dominating":
        x = rng.normal(0, 1, (64, 16)) - rng.uniform(20, 100, (64, 1))
        x[:, 0] = 0.0
    else:
        x = rng.normal(0, 3, (1, 1 << 16))
    return x.astype(dtype)


def exact(op: str, x: np.ndarray) -> np.ndarray:
    out = np.empty(x.shape)
    for r, row in enumerate(x.astype(np.float64)):
        m = mpmath.mpf(float(row.max()))
        terms = [mpmath.exp(mpmath.mpf(float(v)) - m) for v in row]
        total = mpmath.fsum(terms)
        log_total = mpmath.log(total)
        for i, v in enumerate(row):
            value = terms[i] / total if op == "Softmax" else (mpmath.mpf(float(v)) - m) - log_total
            out[r, i] = float(value)  # to double (nearest); the ULP distance below is in x's type
    return out


def ulps(actual: np.ndarray, expected: np.ndarray, dtype) -> np.ndarray:
    """ULP distances in dtype, from the double expected value (within 2^-53 relative of the
    correctly rounded one) to the dtype's grid: distance in the type's ordered integers."""
    bits = {np.float16: np.int16, np.float32: np.int32, np.float64: np.int64}[dtype]

    def ordered(v):
        i = v.astype(dtype).view(bits).astype(np.int64)
        return np.where(i < 0, -(i & np.int64(np.iinfo(bits).max)), i)

    rounded = expected.astype(dtype)
    return np.abs(ordered(actual.astype(dtype)) - ordered(rounded))


def ours(op: str, x: np.ndarray, work: Path) -> np.ndarray:
    src, dst = work / "x.npy", work / "y.npy"
    np.save(src, x)
    if dst.exists():
        dst.unlink()
    cli = "softmax" if op == "Softmax" else "log-softmax"
    subprocess.run([os.environ["WGPU_ACT"], "apply", "--op", cli, "--axis", "-1", str(src), str(dst)], check=True)
    return np.load(dst)


def onnx_runtime(op: str, x: np.ndarray) -> np.ndarray | None:
    et = TYPES[x.dtype.type]
    node = helper.make_node(op, ["X"], ["Y"], axis=-1)
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("X", et, x.shape)],
                              [helper.make_tensor_value_info("Y", et, x.shape)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    try:
        session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    except Exception:  # noqa: BLE001 (a missing kernel is "refused")
        return None
    return session.run(None, {"X": x})[0]


def main() -> int:
    rng = np.random.default_rng(2026_11_28)
    print("| op | rows | dtype | elements | this library: worst ULP | beyond 2 ULP | ONNX Runtime CPU: worst ULP | beyond 2 ULP |")
    print("|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as work:
        for op in ("Softmax", "LogSoftmax"):
            for kind in ("logits, spread 3", "logits, spread 30", "one term dominating", "one row of 2^16"):
                for dtype in (np.float16, np.float32, np.float64):
                    if dtype == np.float16 and kind != "logits, spread 3":
                        continue
                    x = rows(kind, dtype, rng)
                    expected = exact(op, x)
                    cells = []
                    for y in (ours(op, x, Path(work)), onnx_runtime(op, x)):
                        if y is None:
                            cells += ["refused", "-"]
                            continue
                        d = ulps(y, expected, dtype)
                        beyond = int((d > 2).sum())
                        cells += [f"{int(d.max()):.3g}" if d.max() < 1e6 else f"{float(d.max()):.3g}",
                                  f"{beyond} ({100 * beyond / d.size:.1f}%)"]
                    name = np.dtype(dtype).name.replace("float16", "float16").replace("float32", "float").replace("float64", "double")
                    print(f"| {op} | {kind} | {name} | {x.size} | " + " | ".join(cells) + " |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
