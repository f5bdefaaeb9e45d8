#!/usr/bin/env python3
"""Cross-check the stored expected outputs against other implementations.

Optional; not needed to (re)generate the data. Usage (repository root):

    pip install -r tests/data/onnx/requirements.txt onnxruntime
    python tests/data/onnx/crosscheck.py [own|node|pytorch-converted ...]

For every case (default: the own/ folder) it runs the model with
onnx.reference.ReferenceEvaluator and, if installed, onnxruntime (CPU), and
prints per output: elements, NaN-pattern mismatches, +-inf mismatches,
signed-zero mismatches, max |diff| over elements finite in both, and max ULP
distance. The runtimes are NOT the source of the expected values (see
generate.py); differences are reported, not fixed.
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import numpy as np
import onnx
from onnx import numpy_helper

HERE = Path(__file__).resolve().parent


def load_case(d: Path):
    model = onnx.load(d / "model.onnx")
    sets = []
    for ds in sorted(d.glob("test_data_set_*")):
        ins = [onnx.load_tensor(str(p)) for p in sorted(ds.glob("input_*.pb"), key=lambda p: int(p.stem[6:]))]
        outs = [onnx.load_tensor(str(p)) for p in sorted(ds.glob("output_*.pb"), key=lambda p: int(p.stem[7:]))]
        # old files (pytorch-converted) have unnamed tensors: match by position
        inits = {t.name for t in model.graph.initializer}
        names = [i.name for i in model.graph.input if i.name not in inits]
        feeds = [(t.name or names[k], numpy_helper.to_array(t)) for k, t in enumerate(ins)]
        sets.append((feeds, [numpy_helper.to_array(t) for t in outs]))
    return model, sets


def ordered(a: np.ndarray) -> np.ndarray:
    """Float bits -> integers whose differences are ULP distances (+0 == -0)."""
    n = a.itemsize * 8
    ut = np.dtype(f"u{a.itemsize}").type
    u = a.view(ut)
    neg = (u >> ut(n - 1)) != 0
    mag = (u & ut((1 << (n - 1)) - 1)).astype(np.int64)
    return np.where(neg, -mag, mag)


def compare(exp: np.ndarray, got: np.ndarray) -> str:
    got = np.asarray(got)
    if exp.dtype.kind in "iu":
        bad = int((got.astype(exp.dtype) != exp).sum())
        return f"n={exp.size} int mismatches={bad}"
    e = exp.astype(np.float64)
    g = got.astype(np.float64)
    nan_bad = int((np.isnan(e) != np.isnan(g)).sum())
    both = ~np.isnan(e) & ~np.isnan(g)
    inf_bad = int((both & (np.isinf(e) | np.isinf(g)) & (e != g)).sum())
    fin = both & np.isfinite(e) & np.isfinite(g)
    zero_bad = int((fin & (e == 0) & (g == 0) & (np.signbit(e) != np.signbit(g))).sum())
    maxabs = float(np.abs(e[fin] - g[fin]).max()) if fin.any() else 0.0
    ee = ordered(np.ascontiguousarray(exp))
    gg = ordered(np.ascontiguousarray(got.astype(exp.dtype)))
    ulp = int(np.abs(ee[fin] - gg[fin]).max()) if fin.any() else 0
    return (f"n={exp.size} nan_mismatch={nan_bad} inf_mismatch={inf_bad} "
            f"signed_zero_mismatch={zero_bad} max_abs={maxabs:.3g} max_ulp={ulp}")


ADAPT_OPSET = {"LeakyRelu": 16, "Elu": 21, "PRelu": 16}


def adapt(model: onnx.ModelProto, feeds: dict):
    """Same computation at an opset onnxruntime implements (cross-check only):
    drop consumed_inputs, move the opset to LeakyRelu-16 / Elu-6 (opset 21) /
    PRelu-16, and turn a PRelu-1/6 per-channel slope [C] into [C, 1, ...]."""
    m = onnx.ModelProto()
    m.CopyFrom(model)
    ops = {n.op_type for n in m.graph.node}
    old = m.opset_import[0].version
    m.opset_import[0].version = min(ADAPT_OPSET[o] for o in ops)
    m.ir_version = max(m.ir_version, 8)
    feeds = dict(feeds)
    for n in m.graph.node:
        keep = [a for a in n.attribute if a.name != "consumed_inputs"]
        del n.attribute[:]
        n.attribute.extend(keep)
        if n.op_type == "PRelu" and old < 7:
            xs = feeds[n.input[0]].shape
            sname = n.input[1]
            c = xs[1]
            new = (c,) + (1,) * (len(xs) - 2)
            hit = False
            if sname in feeds and feeds[sname].size == c > 1:
                feeds[sname] = feeds[sname].reshape(new)
                hit = True
            for t in m.graph.initializer:
                if t.name == sname and list(t.dims) == [c] and c > 1:
                    t.dims.extend([1] * (len(xs) - 2))
                    hit = True
            if hit:
                for vi in m.graph.input:
                    if vi.name == sname:
                        del vi.type.tensor_type.shape.dim[:]
                        for dim in new:
                            vi.type.tensor_type.shape.dim.add().dim_value = dim
    return m, feeds


def main() -> int:
    folders = sys.argv[1:] or ["own"]
    try:
        import onnxruntime as ort
    except ImportError:
        ort = None
    from onnx.reference import ReferenceEvaluator

    np.seterr(all="ignore")
    warnings.simplefilter("ignore")

    for folder in folders:
        for d in sorted((HERE / folder).iterdir()):
            model, sets = load_case(d)
            print(f"== {folder}/{d.name}")
            runners = ["reference"] + (["onnxruntime"] if ort is not None else [])
            for rname in runners:
                tries = [False, True] if rname == "onnxruntime" else [False]
                for adapted in tries:
                    label = rname + ("(adapted)" if adapted else "")
                    try:
                        lines = []
                        for k, (ins, outs) in enumerate(sets):
                            m, feeds = (adapt(model, dict(ins)) if adapted else (model, dict(ins)))
                            if rname == "reference":
                                res = ReferenceEvaluator(m).run(None, feeds)
                            else:
                                so = ort.SessionOptions()
                                so.log_severity_level = 3
                                sess = ort.InferenceSession(m.SerializeToString(), so,
                                                            providers=["CPUExecutionProvider"])
                                res = sess.run(None, feeds)
                            for j, (e, g) in enumerate(zip(outs, res)):
                                lines.append(f"   {label:20s} set{k} out{j}: {compare(e, g)}")
                        print("\n".join(lines))
                        break
                    except Exception as ex:  # report, do not stop
                        msg = str(ex).strip().splitlines()[0][:150] if str(ex).strip() else ""
                        print(f"   {label:20s} unsupported/failed: {type(ex).__name__}: {msg}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
