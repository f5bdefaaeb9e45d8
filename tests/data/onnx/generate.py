#!/usr/bin/env python3
"""Regenerate the ONNX test data for the operators of the crate's table.

The operators, their versions and dtypes, attribute defaults and formulas are
read from the table itself (`wgpu-act ops --json`, run through cargo, or the
binary named by $WGPU_ACT): adding an operator to src/ops/mod.rs adds its node
cases, its pytorch-converted cases and one own case per (opset, dtype).

Usage (from the repository root; any Python >= 3.10):

    pip install -r tests/data/onnx/requirements.txt
    python tests/data/onnx/generate.py

Everything under tests/data/onnx/{node,pytorch-converted,own}/ is deleted and
written again, deterministically (fixed seeds; the same pinned package versions
give byte-identical files):

* node/<case>/               the official ONNX node test cases test_<op>*
                             of every operator in the table (with their
                             *_expanded* variants), regenerated with ONNX's own generator
                             (onnx.backend.test.case.node.collect_testcases) and
                             written exactly like `backend-test-tools
                             generate-data` writes them.
* pytorch-converted/<case>/  test_<Op>* (any case) of every operator, copied
                             from the installed wheel
                             (onnx/backend/test/data/pytorch-converted/).
* own/<case>/                our own cases: one per (op, opset, dtype) allowed
                             by the ONNX schemas, plus broadcasting, storage-form,
                             initializer, overflow, integer-wrap and multi-node
                             cases. See README.md for the list.

Every case directory has `model.onnx` and `test_data_set_N/input_K.pb`,
`output_K.pb` (serialized TensorProto), the ONNX backend-test layout.

Expected outputs of own cases are computed independently of any ONNX runtime:
the exact real result of the formula, rounded ONCE, to nearest-even, to the
output dtype (with gradual underflow and overflow to +-inf). LeakyRelu/PRelu
products are formed in float64 (exact for float16/bfloat16/float inputs, one
correctly rounded multiply for double); every other formula of the table
(an expm1, a quotient) is evaluated with mpmath at 300 bits. Integer
PRelu uses exact Python integers reduced modulo 2^bits (two's complement wrap).
A multi-node case rounds after every node.

Options:
    --check-only   do not write anything, only run the self-tests
    --allow-version-mismatch
                   generate even if the installed onnx is not the pinned one
                   (node/ and pytorch-converted/ may then differ)
"""

from __future__ import annotations

import argparse
import math
import re
import shutil
import sys
import warnings
import zlib
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path

import mpmath
import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = Path(__file__).resolve().parent
PINNED_ONNX = "1.23.2"
FOLDERS = ("node", "pytorch-converted", "own")



def load_table() -> tuple[dict, list]:
    """The operator table and the functions its formulas may call, from `wgpu-act ops --json`."""
    import json
    import os
    import subprocess

    command = [os.environ["WGPU_ACT"]] if os.environ.get("WGPU_ACT") else [
        "cargo", "run", "--quiet", "--release", "-p", "wgpu-act", "--"]
    root = HERE.parent.parent.parent
    out = json.loads(subprocess.run(command + ["ops", "--json"], cwd=root, check=True, capture_output=True,
                                    text=True).stdout)
    return {op["onnx_name"]: op for op in out["ops"]}, out["formula_functions"]


TABLE, FORMULA_FUNCTIONS = load_table()
_NAMES = "|".join(sorted((n.lower() for n in TABLE), key=len, reverse=True))
NODE_RE = re.compile(rf"^test_({_NAMES})(_|$)")
TORCH_RE = re.compile(rf"^test_({_NAMES})(_|$)", re.IGNORECASE)

PRODUCER = "wgpu-activations tests/data/onnx/generate.py"

# --------------------------------------------------------------------------
# dtypes and exact rounding
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class FloatFmt:
    name: str  # ONNX-ish name used in case names
    onnx_type: int
    prec: int  # significand bits including the implicit one
    emin: int  # exponent of the smallest normal number
    emax: int  # exponent of the largest finite number


FLOAT_FMTS = {
    "float16": FloatFmt("float16", TensorProto.FLOAT16, 11, -14, 15),
    "bfloat16": FloatFmt("bfloat16", TensorProto.BFLOAT16, 8, -126, 127),
    "float": FloatFmt("float", TensorProto.FLOAT, 24, -126, 127),
    "double": FloatFmt("double", TensorProto.DOUBLE, 53, -1022, 1023),
}
INT_TYPES = {
    # name: (onnx type, bits, signed, numpy dtype)
    "int8": (TensorProto.INT8, 8, True, np.int8),
    "int16": (TensorProto.INT16, 16, True, np.int16),
    "int32": (TensorProto.INT32, 32, True, np.int32),
    "int64": (TensorProto.INT64, 64, True, np.int64),
    "uint8": (TensorProto.UINT8, 8, False, np.uint8),
    "uint16": (TensorProto.UINT16, 16, False, np.uint16),
    "uint32": (TensorProto.UINT32, 32, False, np.uint32),
    "uint64": (TensorProto.UINT64, 64, False, np.uint64),
}


def f64_to_bf16_bits(x) -> np.ndarray:
    """float64 -> bfloat16 bits, ONE round-to-nearest-even (no float32 detour).

    ml_dtypes 0.6 converts float64 -> float32 -> bfloat16 (double rounding), so
    it is not used for rounding. NaN becomes the quiet NaN 0x7FC0 (sign kept).
    """
    x = np.asarray(x, dtype=np.float64)
    with np.errstate(all="ignore"):
        _, e = np.frexp(x)  # |x| = m * 2**e, 0.5 <= m < 1  (e = 0 for 0/inf/nan)
        k = np.maximum(e - 1, -126) - 7  # exponent of one bfloat16 ulp at x
        q = np.ldexp(x, -k)  # exact
        r = np.ldexp(np.rint(q), k)  # rint: ties to even; result is exact
        r32 = r.astype(np.float32)  # exact (or 2**128 -> inf, the overflow)
    bits = (r32.view(np.uint32) >> 16).astype(np.uint16)
    nan = np.isnan(x)
    sign = (np.signbit(x).astype(np.uint16) << 15).astype(np.uint16)
    bits[nan] = (0x7FC0 | sign[nan]).astype(np.uint16)
    return bits


def bf16_bits_to_f64(bits) -> np.ndarray:
    b = np.asarray(bits, dtype=np.uint16).astype(np.uint32) << 16
    return b.view(np.float32).astype(np.float64)


def round_f64(fmt: str, x) -> np.ndarray:
    """Round float64 values once (nearest-even) to fmt; returns the storage array
    (np.float16 / uint16 bfloat16 bits / np.float32 / np.float64)."""
    x = np.asarray(x, dtype=np.float64)
    with np.errstate(all="ignore"):
        if fmt == "float16":
            return x.astype(np.float16)  # numpy: direct double->half, RNE
        if fmt == "bfloat16":
            return f64_to_bf16_bits(x)
        if fmt == "float":
            return x.astype(np.float32)
        if fmt == "double":
            return x.copy()
    raise ValueError(fmt)


def widen(fmt: str, stored) -> np.ndarray:
    """Storage array -> exact float64 values."""
    if fmt == "bfloat16":
        return bf16_bits_to_f64(stored)
    return np.asarray(stored).astype(np.float64)


def round_exact(fmt: FloatFmt, v: Fraction | mpmath.mpf) -> float:
    """Round an exact (Fraction) or high-precision (mpmath) real once to fmt,
    nearest-even, with subnormals and overflow to inf. Returns a float64 that is
    exactly representable in fmt."""
    if v == 0:
        return 0.0
    neg = v < 0
    a = -v if neg else v
    if isinstance(a, Fraction):
        e = a.numerator.bit_length() - a.denominator.bit_length()
        # adjust so that 2**e <= a < 2**(e+1)
        if Fraction(2) ** e > a:
            e -= 1
        elif Fraction(2) ** (e + 1) <= a:
            e += 1
        k = max(e, fmt.emin) - (fmt.prec - 1)
        q = a / Fraction(2) ** k
        n = round(q)  # Python round on Fraction: ties to even
        r = Fraction(n) * Fraction(2) ** k
    else:
        _, e1 = mpmath.frexp(a)  # a = m * 2**e1, 0.5 <= m < 1
        e = int(e1) - 1
        k = max(e, fmt.emin) - (fmt.prec - 1)
        n = int(mpmath.nint(mpmath.ldexp(a, -k)))  # nint: ties to even
        r = Fraction(n) * Fraction(2) ** k
    if r >= Fraction(2) ** (fmt.emax + 1):
        out = float("inf")
    else:
        out = float(r)  # exact: r has <= 53 significant bits and is in range
    return -out if neg else out


def self_test() -> None:
    """Check the rounding helpers against exact Fraction arithmetic."""
    # bfloat16 tie cases: float32 detour would get the first and fourth wrong.
    cases = {
        1 + 2**-8 + 2**-40: 1 + 2**-7,  # just above a tie -> up
        1 + 2**-8: 1.0,  # tie -> even (down)
        1 + 3 * 2**-8: 1 + 2**-6,  # tie -> even (up)
        1 + 3 * 2**-8 - 2**-40: 1 + 2**-7,  # just below a tie -> down
        -(1 + 2**-8 + 2**-40): -(1 + 2**-7),
        (2 - 2**-8) * 2.0**127: float("inf"),  # max + half ulp -> inf (tie to even)
        (2 - 2**-8) * 2.0**127 - 2.0**80: (2 - 2**-7) * 2.0**127,
        2.0**-134: 0.0,  # half of the smallest subnormal -> even (0)
        2.0**-134 + 2.0**-180: 2.0**-133,
        3 * 2.0**-134: 2 * 2.0**-133,  # tie between 1 and 2 subnormal ulps -> 2
        -0.0: -0.0,
        float("inf"): float("inf"),
        float("-inf"): float("-inf"),
    }
    xs = np.array(list(cases.keys()))
    got = bf16_bits_to_f64(f64_to_bf16_bits(xs))
    want = np.array(list(cases.values()))
    assert np.array_equal(got, want), (got, want)
    assert np.array_equal(np.signbit(got), np.signbit(want))
    assert f64_to_bf16_bits(np.array([np.nan]))[0] == 0x7FC0
    # (ml_dtypes 0.6 gives 1.0 for the first case: it goes through float32.)

    rng = np.random.default_rng(12345)
    # random float64 values of all magnitudes, plus values right at/near ties
    mags = np.ldexp(rng.uniform(1, 2, 4000), rng.integers(-150, 130, 4000))
    vals = mags * rng.choice([-1.0, 1.0], 4000)
    for fmt_name in ("float16", "bfloat16", "float"):
        fmt = FLOAT_FMTS[fmt_name]
        lim = 2.0 ** (fmt.emax + 2)
        test = vals[np.abs(vals) < lim]
        # ties: representable value + half ulp (+- tiny)
        base = widen(fmt_name, round_f64(fmt_name, test[:500]))
        base = base[np.isfinite(base) & (base != 0)]
        _, e = np.frexp(base)
        half = np.ldexp(1.0, np.maximum(e - 1, fmt.emin) - fmt.prec)
        test = np.concatenate([test, base + half, base - half, base + half * (1 + 2**-30)])
        got = widen(fmt_name, round_f64(fmt_name, test))
        for x, g in zip(test, got):
            w = round_exact(fmt, Fraction(float(x)))
            assert g == w or (np.isnan(g) and np.isnan(w)), (fmt_name, x, g, w)
    # mpmath path agrees with the Fraction path
    mpmath.mp.prec = 300
    for x in vals[:500]:
        for fmt in FLOAT_FMTS.values():
            assert round_exact(fmt, mpmath.mpf(float(x))) == round_exact(fmt, Fraction(float(x)))


# --------------------------------------------------------------------------
# TensorProto writing (raw_data or typed fields)
# --------------------------------------------------------------------------


def make_tensor(name: str, dtype: str, stored: np.ndarray, storage: str) -> TensorProto:
    """Build a TensorProto by hand.

    stored: np.float16 / uint16 bfloat16 bits / np.float32 / np.float64 / int array.
    storage: "raw" (little-endian raw_data) or "typed" (float_data, double_data,
    int32_data [also float16/bfloat16 bits, int8, int16, uint8, uint16], int64_data, uint64_data [uint32,
    uint64])."""
    t = TensorProto()
    t.name = name
    t.dims.extend(stored.shape)
    if dtype in FLOAT_FMTS:
        t.data_type = FLOAT_FMTS[dtype].onnx_type
    else:
        t.data_type = INT_TYPES[dtype][0]
    flat = stored.reshape(-1)
    if storage == "raw":
        le = {
            "float16": "<u2",  # bits
            "bfloat16": "<u2",
            "float": "<f4",
            "double": "<f8",
            "int8": "<i1",
            "int16": "<i2",
            "int32": "<i4",
            "int64": "<i8",
            "uint8": "<u1",
            "uint16": "<u2",
            "uint32": "<u4",
            "uint64": "<u8",
        }[dtype]
        if dtype == "float16":
            flat = flat.view(np.uint16)
        t.raw_data = flat.astype(le).tobytes()
    elif storage == "typed":
        if dtype == "float":
            t.float_data.extend(flat.astype(np.float32).tolist())
        elif dtype == "double":
            t.double_data.extend(flat.astype(np.float64).tolist())
        elif dtype == "float16":
            t.int32_data.extend(flat.view(np.uint16).astype(np.int32).tolist())
        elif dtype == "bfloat16":
            t.int32_data.extend(flat.astype(np.uint16).astype(np.int32).tolist())
        elif dtype in ("int8", "int16", "int32", "uint8", "uint16"):
            t.int32_data.extend(flat.astype(np.int32).tolist())
        elif dtype == "int64":
            t.int64_data.extend(flat.astype(np.int64).tolist())
        elif dtype in ("uint32", "uint64"):
            t.uint64_data.extend(flat.astype(np.uint64).tolist())
        else:
            raise ValueError(dtype)
    else:
        raise ValueError(storage)
    # verify against onnx's own decoder
    back = numpy_helper.to_array(t)
    if dtype == "bfloat16":
        ok = np.array_equal(back.view(np.uint16), stored)
    elif dtype == "float16":
        ok = np.array_equal(back.view(np.uint16), stored.view(np.uint16))
    elif dtype in ("float", "double"):
        ok = np.array_equal(back.view(f"u{back.itemsize}"), stored.view(f"u{stored.itemsize}"))
    else:
        ok = np.array_equal(back, stored) and back.dtype == stored.dtype
    assert ok, (name, dtype, storage)
    return t


# --------------------------------------------------------------------------
# reference implementations (independent of ONNX / runtimes)
# --------------------------------------------------------------------------


def f32(alpha: float) -> float:
    """ONNX float attributes are float32: the value the op really uses."""
    return float(np.float32(alpha))


class _Pass:
    """The formula's `X`: the input passes through unchanged."""


PASS = _Pass()


# The formulas' functions (the table's FORMULA_FUNCTIONS): exact ones (mpmath, for finite
# nonzero x) and IEEE ones (numpy, whose max and min propagate NaN) for the specials.
def _erfc(z):
    """mpmath's erfc, which overflows deciding its method for |z| near f64's largest; beyond 1e6,
    erfc(z) is below e^-1e12 (or that far from 2), far below anything a result can resolve."""
    if abs(z) < 1e6:
        return mpmath.erfc(z)
    return mpmath.mpf(0) if z > 0 else mpmath.mpf(2)


EXACT_FUNCTIONS = {"abs": abs, "erfc": _erfc, "exp": mpmath.exp, "expm1": mpmath.expm1, "log1p": mpmath.log1p,
                   "max": max, "min": min, "pi": mpmath.mp.pi, "sqrt": mpmath.sqrt, "tanh": mpmath.tanh}
IEEE_FUNCTIONS = {"abs": np.abs, "erfc": lambda v: np.float64(math.erfc(v)), "exp": np.exp, "expm1": np.expm1,
                  "log1p": np.log1p, "max": np.maximum, "min": np.minimum, "pi": np.float64(math.pi),
                  "sqrt": np.sqrt, "tanh": np.tanh}
_unknown = set(FORMULA_FUNCTIONS) ^ set(EXACT_FUNCTIONS) | set(FORMULA_FUNCTIONS) ^ set(IEEE_FUNCTIONS)
assert not _unknown, f"the table's formula functions and this generator's differ: {_unknown}"


def evaluate(formula: str, x: float, attributes: dict):
    """One element of an operator's formula from the table: PASS, an exact mpmath value, or
    (for +-0, +-inf and NaN inputs, where IEEE rules give exact signed zeros, infinities and
    NaNs) a float. A zero from mpmath takes its sign from the IEEE evaluation."""

    def run(exact: bool):
        # A STRING attribute (Gelu's approximate) is its choice; the others are numbers.
        # An attribute named like a function (Clip's min and max) is the attribute.
        if exact:
            env = dict(EXACT_FUNCTIONS, x=mpmath.mpf(x))
            env.update({k: v if isinstance(v, str) else mpmath.mpf(v) for k, v in attributes.items()})
        else:
            env = dict(IEEE_FUNCTIONS, x=np.float64(x))
            env.update({k: v if isinstance(v, str) else np.float64(v) for k, v in attributes.items()})
        env["X"] = PASS
        with np.errstate(all="ignore"):
            return eval(formula, {"__builtins__": {}}, env)  # noqa: S307 (the crate's own table)

    if np.isfinite(x) and x != 0:
        value = run(True)
        if value is PASS or value != 0:
            return value
    value = run(False)
    return value if value is PASS else float(value)


def ref_unary(op: str, fmt: str, x_stored: np.ndarray, attributes: dict) -> np.ndarray:
    """The table's formula for `op`, rounded once to fmt; attributes are float32 values."""
    x = widen(fmt, x_stored)
    ff = FLOAT_FMTS[fmt]
    formula = TABLE[op]["formula"]
    y = np.array(x, dtype=np.float64)  # PASS: y = x (exact)
    mpmath.mp.prec = 300
    attributes = {k: v if isinstance(v, str) else f32(v) for k, v in attributes.items()}
    if TABLE[op].get("attributes_like_x"):
        # CastLike(attribute, X): the function body rounds it to X's dtype first.
        attributes = {k: v if isinstance(v, str) else float(widen(fmt, round_f64(fmt, [v]))[0])
                      for k, v in attributes.items()}
    for i, xi in np.ndenumerate(x):
        v = evaluate(formula, float(xi), attributes)
        if v is PASS:
            continue
        y[i] = v if isinstance(v, float) else round_exact(ff, v)
    return round_f64(fmt, y)  # exact: values already representable


def ref_unary_int(op: str, dtype: str, x: np.ndarray, attributes: dict) -> np.ndarray:
    """The table's formula for `op` on integers, in exact Python integers, wrapped to the dtype
    (Shrink's sums and differences wrap, as the body's Add and Sub do; Relu's and Clip's results
    are 0, a bound or X itself). Attributes the body casts like X become integers first: toward
    zero, saturating at the dtype's ends, NaN 0 (Rust's `as`)."""
    _, bits, signed, npt = INT_TYPES[dtype]
    if TABLE[op].get("attributes_like_x"):
        low, high = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
        attributes = {k: v if isinstance(v, str) else 0 if v != v else max(low, min(high, int(v)))
                      if abs(v) != float("inf") else (high if v > 0 else low) for k, v in attributes.items()}
    env = dict(EXACT_FUNCTIONS, **attributes)
    out = np.empty(x.shape, dtype=npt)
    for i, xi in np.ndenumerate(x):
        v = eval(TABLE[op]["formula"], {"__builtins__": {}}, dict(env, x=int(xi), X=PASS))  # noqa: S307
        v = int(xi) if v is PASS else v
        assert v == int(v), (op, dtype, xi, v)
        out[i] = wrap(int(v), bits, signed)
    return out


def default_attributes(op: str, opset: int) -> dict:
    """The defaults of the version of `op` that `opset` runs. The table's defaults are float32
    values widened; their shortest float32 spelling is the spec's (0.01, not
    0.009999999776482582)."""
    version = max(v["since"] for v in TABLE[op]["versions"] if v["since"] <= opset)

    def default(a):
        value = next((d for v, d in a.get("earlier_defaults", []) if v == version), a["default"])
        if a.get("choices"):
            return a["choices"][int(value)]  # a STRING attribute: its value is the choice's index
        return float(str(np.float32(value)))

    return {a["name"]: default(a) for a in TABLE[op]["attributes"]}


def channel_slope(x_shape, slope: np.ndarray) -> np.ndarray:
    """PRelu-1/6: slope is [C] (C = X.shape[1]) applied along axis 1, or [1]."""
    if slope.size == 1:
        return slope.reshape(())
    assert slope.shape == (x_shape[1],), (x_shape, slope.shape)
    return slope.reshape((x_shape[1],) + (1,) * (len(x_shape) - 2))


def ref_prelu_float(fmt: str, x_stored, s_stored, per_channel: bool) -> np.ndarray:
    x = widen(fmt, x_stored)
    s = widen(fmt, s_stored)
    if per_channel:
        s = channel_slope(x.shape, s)
    s = np.broadcast_to(s, x.shape)  # unidirectional: slope -> X shape
    with np.errstate(all="ignore"):
        y = np.where(x < 0, s * x, x)  # ONE rounding (exact product or f64 mul)
    return round_f64(fmt, y)


def wrap(v: int, bits: int, signed: bool) -> int:
    v &= (1 << bits) - 1
    if signed and v >= 1 << (bits - 1):
        v -= 1 << bits
    return v


def ref_prelu_int(dtype: str, x: np.ndarray, s: np.ndarray) -> np.ndarray:
    _, bits, signed, npt = INT_TYPES[dtype]
    sb = np.broadcast_to(s, x.shape)
    out = np.empty(x.shape, dtype=npt)
    for i, xi in np.ndenumerate(x):
        xv = int(xi)
        # unsigned values are never < 0: y = x
        out[i] = wrap(xv * int(sb[i]), bits, signed) if xv < 0 else xv
    return out


# --------------------------------------------------------------------------
# input data
# --------------------------------------------------------------------------

BIG = {"float16": (2.0, 4.3), "bfloat16": (2.0, 37.0), "float": (2.0, 37.0), "double": (2.0, 300.0)}


def seed_of(name: str, k: int = 0) -> int:
    return zlib.crc32(f"{name}/{k}".encode())


def pow10(exponents: np.ndarray) -> np.ndarray:
    """10 ** u for each u, correctly rounded (mpmath): numpy's power differs in the last bit
    between machines (its SIMD loops), which the double cases would keep."""
    mpmath.mp.prec = 300
    return np.array([float(mpmath.power(10, mpmath.mpf(float(u)))) for u in np.asarray(exponents).reshape(-1)]
                    ).reshape(np.shape(exponents))


def float_inputs(rng, fmt: str, shape, specials: bool = True, elu: bool = False, around=()) -> np.ndarray:
    """Mixed float data, returned as the stored (rounded) array.

    ~45% normal(0, 1), ~20% near zero (+-1e-6..1e-3), ~15% large magnitudes
    (+-1e2..BIG, BIG chosen so alpha*x stays finite for |alpha| <= 2.5),
    ~10% small integers / halves, the rest moderate (+-1..30); plus specials
    NaN, +inf, -inf, +0, -0 (when specials) and, for Elu, strongly negative
    values that saturate to -alpha."""
    n = int(np.prod(shape))
    lo, hi = BIG[fmt]
    fixed = []
    if specials:
        fixed += [np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0]
    if elu:
        fixed += [-20.0, -100.0, -1e4, -1e-7, -2.0**-20, 5e-4, -5e-4]
        if fmt in ("float", "bfloat16", "double"):
            fixed += [-88.0, -1e30]
    for t in around:
        # a threshold, and its neighbours in the dtype
        t = float(widen(fmt, round_f64(fmt, [t]))[0])
        if np.isfinite(t) and t != 0:
            ulp = 2.0 ** (np.frexp(t)[1] - FLOAT_FMTS[fmt].prec)
            fixed += [t, t + ulp, t - ulp]
    fixed = fixed[: n // 2]
    m = n - len(fixed)
    cat = rng.choice(5, size=m, p=[0.45, 0.20, 0.15, 0.10, 0.10])
    sign = rng.choice([-1.0, 1.0], size=m)
    v = np.empty(m)
    v[cat == 0] = rng.standard_normal((cat == 0).sum())
    v[cat == 1] = sign[cat == 1] * pow10(rng.uniform(-6, -3, (cat == 1).sum()))
    v[cat == 2] = sign[cat == 2] * pow10(rng.uniform(lo, hi, (cat == 2).sum()))
    v[cat == 3] = rng.integers(-8, 9, (cat == 3).sum()) / 2.0
    v[cat == 4] = sign[cat == 4] * rng.uniform(1, 30, (cat == 4).sum())
    allv = np.concatenate([np.array(fixed, dtype=np.float64), v])
    rng.shuffle(allv)
    return round_f64(fmt, allv.reshape(shape))


def float_slope(rng, fmt: str, shape, specials: bool = False) -> np.ndarray:
    n = int(np.prod(shape)) if len(shape) else 1
    v = rng.standard_normal(n) * 0.5
    if n >= 8:
        # a few exact/interesting slopes
        fixed = [0.0, -0.0, 1.0, -1.0, 0.25]
        if specials:
            fixed += [np.nan, np.inf, -np.inf]
        v[: len(fixed)] = fixed
        rng.shuffle(v)
    return round_f64(fmt, v.reshape(shape))


# --------------------------------------------------------------------------
# case writing
# --------------------------------------------------------------------------


def write_case(root: Path, name: str, model: onnx.ModelProto, data_sets) -> None:
    """data_sets: list of (inputs, outputs), each a list of TensorProto."""
    d = root / name
    d.mkdir(parents=True)
    (d / "model.onnx").write_bytes(model.SerializeToString())
    for i, (ins, outs) in enumerate(data_sets):
        ds = d / f"test_data_set_{i}"
        ds.mkdir()
        for j, t in enumerate(ins):
            (ds / f"input_{j}.pb").write_bytes(t.SerializeToString())
        for j, t in enumerate(outs):
            (ds / f"output_{j}.pb").write_bytes(t.SerializeToString())


def gen_node(root: Path) -> list[str]:
    """Official node cases, via ONNX's generator, written like cmd_tools.py."""
    import onnx.backend.test.case.node as node_cases

    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        cases = node_cases.collect_testcases()  # seeds np.random per export()
    names = []
    for case in cases:
        if not NODE_RE.match(case.name):
            continue
        assert case.kind == "node"
        d = root / case.name
        d.mkdir(parents=True)
        (d / "model.onnx").write_bytes(case.model.SerializeToString())
        for i, (inputs, outputs) in enumerate(case.data_sets):
            ds = d / f"test_data_set_{i}"
            ds.mkdir()
            for j, a in enumerate(inputs):
                t = a if isinstance(a, TensorProto) else numpy_helper.from_array(a, case.model.graph.input[j].name)
                (ds / f"input_{j}.pb").write_bytes(t.SerializeToString())
            for j, a in enumerate(outputs):
                t = a if isinstance(a, TensorProto) else numpy_helper.from_array(a, case.model.graph.output[j].name)
                (ds / f"output_{j}.pb").write_bytes(t.SerializeToString())
        names.append(case.name)
    return sorted(names)


def copy_pytorch(root: Path) -> list[str]:
    src = Path(onnx.__file__).parent / "backend" / "test" / "data" / "pytorch-converted"
    names = sorted(p.name for p in src.iterdir() if p.is_dir() and TORCH_RE.match(p.name))
    for n in names:
        shutil.copytree(src / n, root / n, ignore=shutil.ignore_patterns("__pycache__"))
    return names


@dataclass
class Own:
    """One own case, for the README table."""

    name: str
    op: str
    opset: int
    dtype: str
    covers: str
    files: list = field(default_factory=list)


OWN: list[Own] = []


def vi(name: str, elem: int, shape) -> onnx.ValueInfoProto:
    return helper.make_tensor_value_info(name, elem, list(shape))


def elem_type(dtype: str) -> int:
    return FLOAT_FMTS[dtype].onnx_type if dtype in FLOAT_FMTS else INT_TYPES[dtype][0]


def finish_model(graph, opset: int, doc: str, ir_version: int | None = None) -> onnx.ModelProto:
    opsets = [helper.make_opsetid("", opset)]
    model = helper.make_model(graph, opset_imports=opsets, producer_name=PRODUCER, doc_string=doc)
    model.ir_version = ir_version or helper.find_min_ir_version_for(opsets)
    onnx.checker.check_model(model)
    return model


def legacy_attrs(opset: int, op: str, style: str) -> list:
    """consumed_inputs of the opset-1 ops that have it ('legacy optimization attribute')."""
    if opset != 1 or "consumed_inputs" not in onnx.defs.get_schema(op, 1).attributes:
        return []
    if style == "empty":
        return [helper.make_attribute("consumed_inputs", [], attr_type=onnx.AttributeProto.INTS)]
    n = 2 if op == "PRelu" else 1
    return [helper.make_attribute("consumed_inputs", [0] * n)]


def own_unary(root, op, opset, dtype, name_extra="", alpha=None, shape=(3, 4, 5),
              storage="raw", n_sets=1, consumed="empty", covers="", overflow_values=None):
    """One unary case: `alpha` sets the operator's first attribute (the others keep their
    defaults), None keeps every default; an operator without attributes ignores it."""
    name = f"own_{op.lower()}_opset{opset}_{dtype}{name_extra}"
    defaults = default_attributes(op, opset)
    first = next(iter(defaults), None)
    if first is None:
        alpha = None
    a = defaults.get(first) if alpha is None else alpha
    attributes = dict(defaults, **({first: a} if first else {}))
    et = elem_type(dtype)
    since = TABLE[op].get("attribute_inputs_since")
    initializers = []
    if since is not None and opset >= since:
        # The attributes are scalar inputs of X's type here (Clip's bounds from 11): given as
        # initializers, the last one (max) above the first; absent when alpha keeps the defaults.
        if alpha is not None:
            attributes = {k: a if k == first else 2 * abs(a) + 1 for k in defaults}
            if dtype in INT_TYPES:
                attributes = {k: int(f32(v)) for k, v in attributes.items()}  # toward zero
            initializers = [make_tensor(k, dtype, round_f64(dtype, [f32(v)]).reshape(()) if dtype in FLOAT_FMTS
                                        else np.array(v, dtype=INT_TYPES[dtype][3]), storage)
                            for k, v in attributes.items()]
        node = helper.make_node(op, ["X"] + [t.name for t in initializers], ["Y"])
    else:
        node = helper.make_node(op, ["X"], ["Y"], **({} if alpha is None else {first: alpha}))
    node.attribute.extend(legacy_attrs(opset, op, consumed))
    graph = helper.make_graph([node], name, [vi("X", et, shape)], [vi("Y", et, shape)], initializer=initializers)
    setting = f"{first}={'default ' if alpha is None else ''}{a}" if first else "no attributes"
    if initializers:
        setting = ", ".join(f"{k}={v} (an initializer)" for k, v in attributes.items())
    doc = f"{op}-{opset} {dtype} {setting}"
    model = finish_model(graph, opset, doc)
    sets = []
    for k in range(n_sets):
        rng = np.random.default_rng(seed_of(name, k))
        if dtype in INT_TYPES:
            x = int_inputs(rng, dtype, shape)
            y = ref_unary_int(op, dtype, x, attributes)
            sets.append(([make_tensor("X", dtype, x, storage)], [make_tensor("Y", dtype, y, storage)]))
            continue
        x = float_inputs(rng, dtype, shape, specials=True, elu="expm1" in TABLE[op]["formula"],
                         around=[v for v in attributes.values()] if "x >" in TABLE[op]["formula"] else [])
        if overflow_values is not None:
            flat = x.reshape(-1)
            flat[: len(overflow_values)] = round_f64(dtype, overflow_values)
            x = flat.reshape(shape)
        y = ref_unary(op, dtype, x, attributes)
        sets.append(([make_tensor("X", dtype, x, storage)], [make_tensor("Y", dtype, y, storage)]))
    write_case(root, name, model, sets)
    cov = [f"{first}={'default (' + str(a) + ')' if alpha is None else a}" if first else "no attributes"]
    own_case(name, op, opset, dtype, cov, consumed, "[0]", storage, n_sets, covers)


# Attribute values the table-driven cases take in turn (None: the defaults).
ROTATING_ALPHAS = [None, 0.2, 2.5, None, 1.5, 0.7]


def choice_settings(spec: dict) -> list[tuple[str, dict]]:
    """Each choice of an operator's STRING attribute (Gelu's approximate) as (a name suffix,
    "" for the default's, and the attribute set to it); [] for an operator without one."""
    return [("" if i == int(a["default"]) else f"_{choice}", {a["name"]: choice})
            for a in spec["attributes"] if a.get("choices") for i, choice in enumerate(a["choices"])]


def own_every_version(root) -> None:
    """One case per (unary operator, opset, dtype) of the table that has none yet: a new
    operator gets its cases without an edit here."""
    for op, spec in TABLE.items():
        if spec["inputs"] != ["X"] or spec.get("kind") == "axis":
            continue
        k = 0
        for version in spec["versions"]:
            for dtype in version["dtypes"]:
                fmt = {"f16": "float16", "bf16": "bfloat16", "f32": "float", "f64": "double", "i8": "int8",
                       "i16": "int16", "i32": "int32", "i64": "int64", "u8": "uint8", "u16": "uint16", "u32": "uint32",
                       "u64": "uint64"}[dtype]
                name = f"own_{op.lower()}_opset{version['since']}_{fmt}"
                if any(o.name == name for o in OWN):
                    continue
                storage = "typed" if k % 3 == 2 else "raw"
                choices = choice_settings(spec)
                # A STRING attribute (Gelu's approximate, its first): every choice on every dtype.
                for extra, setting in choices:
                    own_unary(root, op, version["since"], fmt, extra, alpha=next(iter(setting.values())),
                              storage=storage)
                if not choices:
                    own_unary(root, op, version["since"], fmt, alpha=ROTATING_ALPHAS[k % len(ROTATING_ALPHAS)],
                              storage=storage)
                k += 1


def ref_axis(op: str, fmt: str, x_stored: np.ndarray, opset: int, axis: int) -> np.ndarray:
    """Softmax, LogSoftmax or Hardmax of the stored x, each result from mpmath at 300 bits rounded
    once to fmt; before opset 13 over the 2-D coercion at axis. The rows' special cases follow
    the function bodies (a row with NaN or +inf, or only -inf, is NaN)."""
    x = widen(fmt, x_stored)
    ff = FLOAT_FMTS[fmt]
    mpmath.mp.prec = 300
    axis = axis % x.ndim
    if opset < 13:
        rows = x.reshape(int(np.prod(x.shape[:axis], dtype=np.int64)), -1)
        back = lambda r: r.reshape(x.shape)  # noqa: E731
    else:
        moved = np.moveaxis(x, axis, -1)
        rows = moved.reshape(-1, x.shape[axis])
        back = lambda r: np.moveaxis(r.reshape(moved.shape), -1, axis)  # noqa: E731
    out = np.empty(rows.shape)
    for r, row in enumerate(rows):
        if op == "Hardmax":
            out[r] = 0.0
            if row.size:
                out[r, int(np.argmax(row))] = 1.0
            continue
        if np.isnan(row).any() or (row == np.inf).any() or (row == -np.inf).all():
            out[r] = np.nan
            continue
        m = mpmath.mpf(float(row.max()))
        terms = [mpmath.exp(mpmath.mpf(float(v)) - m) if v != -np.inf else mpmath.mpf(0) for v in row]
        total = mpmath.fsum(terms)
        for i, v in enumerate(row):
            if v == -np.inf:
                out[r, i] = 0.0 if op == "Softmax" else -np.inf
            elif op == "Softmax":
                out[r, i] = round_exact(ff, terms[i] / total)
            else:
                value = (mpmath.mpf(float(v)) - m) - mpmath.log(total)
                out[r, i] = round_exact(ff, value) if value != 0 else 0.0
    return round_f64(fmt, back(out))


def own_axis(root, op: str, opset: int, dtype: str, axis, shape=(3, 4, 5), storage="raw") -> None:
    """One case of an operator over an axis: mixed data with a masked row (-inf beside finite
    values), a row far below its maximum (LogSoftmax near 0, subnormal probabilities), and the
    specials of float_inputs; `axis` None keeps the version's default."""
    name = f"own_{op.lower()}_opset{opset}_{dtype}" + ("" if axis is None else f"_axis{axis}".replace("-", "m"))
    et = elem_type(dtype)
    node = helper.make_node(op, ["X"], ["Y"], **({} if axis is None else {"axis": axis}))
    graph = helper.make_graph([node], name, [vi("X", et, shape)], [vi("Y", et, shape)])
    used_axis = (1 if opset < 13 else -1) if axis is None else axis
    doc = f"{op}-{opset} {dtype} axis={'default ' if axis is None else ''}{used_axis}"
    model = finish_model(graph, opset, doc)
    rng = np.random.default_rng(seed_of(name))
    x = widen(dtype, float_inputs(rng, dtype, shape, specials=False))
    flat = x.reshape(-1)
    flat[: shape[-1]] = [-np.inf if i % 2 else float(i) for i in range(shape[-1])]
    flat[shape[-1]: 2 * shape[-1]] = [0.0] + [-90.0 - i for i in range(shape[-1] - 1)]
    if dtype != "float16":
        flat[2 * shape[-1]] = np.nan
    x = round_f64(dtype, flat.reshape(shape))
    y = ref_axis(op, dtype, x, opset, used_axis)
    write_case(root, name, model, [([make_tensor("X", dtype, x, storage)], [make_tensor("Y", dtype, y, storage)])])
    OWN.append(Own(name, op, opset, dtype, f"axis={used_axis}; a masked row, a row far below its maximum"))


def own_swiglu(root, dtype: str, alpha=None, shape=(3, 4, 5), storage="raw") -> None:
    """One SwiGLU case: A from float_inputs (specials included), B over many magnitudes; Y the
    exact (a b) sigmoid(alpha a) from mpmath at 300 bits, rounded once."""
    name = f"own_swiglu_opset28_{dtype}" + ("" if alpha is None else f"_alpha{alpha}".replace(".", "_").replace("-", "m"))
    et = elem_type(dtype)
    node = helper.make_node("SwiGLU", ["A", "B"], ["Y"], **({} if alpha is None else {"alpha": alpha}))
    graph = helper.make_graph([node], name, [vi("A", et, shape), vi("B", et, shape)], [vi("Y", et, shape)])
    model = finish_model(graph, 28, f"SwiGLU-28 {dtype} alpha={'default ' if alpha is None else ''}{alpha or 1.0}")
    rng = np.random.default_rng(seed_of(name))
    a = float_inputs(rng, dtype, shape, specials=True)
    b = round_f64(dtype, rng.choice([-1.0, 1.0], size=shape) * pow10(rng.uniform(-3, 3, size=shape)))
    a_wide, b_wide = widen(dtype, a), widen(dtype, b)
    al = mpmath.mpf(f32(1.0 if alpha is None else alpha))
    mpmath.mp.prec = 300
    y = np.empty(shape)
    for i, av in np.ndenumerate(a_wide):
        bv = b_wide[i]
        if np.isfinite(av) and np.isfinite(bv):
            value = mpmath.mpf(float(av)) * mpmath.mpf(float(bv)) / (1 + mpmath.exp(-al * mpmath.mpf(float(av))))
            y[i] = round_exact(FLOAT_FMTS[dtype], value) if value != 0 else float(np.float64(av) * np.float64(bv) * 0.5)
        else:
            with np.errstate(all="ignore"):
                swish = av / (1 + np.exp(-float(al) * av)) if not (np.isinf(av) and av * float(al) < 0) else np.nan
                y[i] = swish * bv if not np.isnan(swish) else np.nan
    y = round_f64(dtype, y)
    sets = [([make_tensor("A", dtype, a, storage), make_tensor("B", dtype, b, storage)], [make_tensor("Y", dtype, y, storage)])]
    write_case(root, name, model, sets)
    OWN.append(Own(name, "SwiGLU", 28, dtype, f"alpha={alpha or 1.0}; A with the specials, B over 1e-3..1e3"))


def own_every_axis_version(root) -> None:
    """One case per (operator over an axis, opset, dtype), axes in turn."""
    axes = [None, 0, -1, 1, 2]
    k = 0
    for op, spec in TABLE.items():
        if spec.get("kind") != "axis":
            continue
        for version in spec["versions"]:
            for dtype in version["dtypes"]:
                fmt = {"f16": "float16", "bf16": "bfloat16", "f32": "float", "f64": "double"}[dtype]
                own_axis(root, op, version["since"], fmt, axes[k % len(axes)], storage="typed" if k % 3 == 2 else "raw")
                k += 1


def own_case(name, op, opset, dtype, cov, consumed, consumed_all, storage, n_sets, covers):
    """Records one own case with the coverage notes every case ends with."""
    if legacy_attrs(opset, op.split("+")[0], consumed):
        cov.append(f"consumed_inputs={'[]' if consumed == 'empty' else consumed_all}")
    if storage == "typed":
        cov.append(typed_field(dtype))
    if n_sets > 1:
        cov.append(f"{n_sets} data sets")
    if covers:
        cov.append(covers)
    OWN.append(Own(name, op, opset, dtype, "; ".join(cov)))


def typed_field(dtype: str) -> str:
    return {
        "float": "typed float_data",
        "double": "typed double_data",
        "float16": "typed int32_data (float16 bits)",
        "bfloat16": "typed int32_data (bfloat16 bits)",
        "int8": "typed int32_data",
        "int16": "typed int32_data",
        "int32": "typed int32_data",
        "uint8": "typed int32_data",
        "uint16": "typed int32_data",
        "int64": "typed int64_data",
        "uint32": "typed uint64_data",
        "uint64": "typed uint64_data",
    }[dtype]


def int_inputs(rng, dtype: str, shape) -> np.ndarray:
    _, bits, signed, npt = INT_TYPES[dtype]
    n = int(np.prod(shape))
    if signed:
        lo, hi = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
        fixed = [lo, lo + 1, -1, 0, 1, hi, -2, 2]
        if bits == 64:
            fixed += [-(2**53) - 1, 2**53 + 1, -(2**62) - 3, -(2**53) + 1, -(2**60) - 7]
        small = rng.integers(max(lo, -1000), min(hi, 1000) + 1, n)
        big = rng.integers(lo, hi, n, dtype=np.int64 if bits == 64 else np.int64, endpoint=True)
    else:
        lo, hi = 0, (1 << bits) - 1
        top = 1 << (bits - 1)
        fixed = [0, 1, top, top + 1, hi, hi - 1, top - 1]
        if bits == 64:
            fixed += [2**53 + 1, 2**63 + 2**53 + 1]
        small = rng.integers(0, min(hi, 1000) + 1, n)
        big = rng.integers(0, hi, n, dtype=np.uint64, endpoint=True)
    pick = rng.random(n) < 0.5
    vals = [int(big[i]) if pick[i] else int(small[i]) for i in range(n)]
    vals[: len(fixed)] = fixed
    perm = rng.permutation(n)
    arr = np.array([vals[p] for p in perm], dtype=object)
    return np.array(arr.tolist(), dtype=npt).reshape(shape)


def int_slope(rng, dtype: str, shape) -> np.ndarray:
    _, bits, signed, npt = INT_TYPES[dtype]
    n = int(np.prod(shape)) if len(shape) else 1
    if signed:
        v = rng.integers(-5, 6, n).astype(object)
        if n >= 6:
            v[:6] = [-1, 0, 1, 3, 1 << (bits // 2), -(1 << (bits - 2))]
            rng.shuffle(v)
        return np.array(v.tolist(), dtype=npt).reshape(shape)
    v = rng.integers(0, 6, n).astype(object)
    if n >= 3:
        v[:3] = [0, (1 << bits) - 1, 1 << (bits - 1)]
        rng.shuffle(v)
    return np.array(v.tolist(), dtype=npt).reshape(shape)


def int_wrap_data(dtype: str):
    """Hand-built (x, slope) pairs whose products overflow and wrap."""
    _, bits, signed, npt = INT_TYPES[dtype]
    assert signed
    mn, mx = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
    h = 1 << (bits // 2)
    pairs = [
        (mn, -1),  # INT_MIN * -1 wraps to INT_MIN
        (mn + 1, -1),  # -> INT_MAX, no wrap
        (mn, 2),  # wraps to 0
        (mn, 3),  # wraps to INT_MIN
        (-h, h),  # -2^bits wraps to 0
        (-h - 1, h),  # wraps
        (-3, mx),  # wraps
        (-(1 << (bits - 2)) - 1, 4),  # wraps to -4
        (-1, mn),  # -1 * INT_MIN = INT_MIN (wrap)
        (-7, -(1 << (bits - 3))),
        (mn, 0),  # -> 0
        (-5, 0),
        (mx, -1),  # x >= 0: y = x
        (0, mn),
        (-12345, -6789),  # ordinary
        (-2, mx // 2 + 1),  # -2 * 2^(bits-2) = INT_MIN exactly, no wrap
    ]
    if bits == 64:
        pairs += [
            (-(2**53) - 1, 3),  # exact result needs > 53 bits
            (-(2**53) - 1, -(2**10) - 1),
            (-(2**62) + 1, 2),
            (-(2**31) - 1, 2**32 + 1),
            (-(2**33) - 5, 2**31 + 3),
        ]
    else:
        pairs += [(-65537, 65537), (-46341, 46341), (-(2**20) - 1, 2**12 + 1), (-99991, -77773)]
    n = len(pairs)
    x = np.array([p[0] for p in pairs], dtype=npt).reshape(1, n)
    s = np.array([p[1] for p in pairs], dtype=npt).reshape(1, n)
    return x, s


def own_prelu(root, opset, dtype, x_shape, s_shape, name_extra="", storage="raw",
              slope_mode="input", n_sets=1, consumed="empty", covers="", slope_specials=False,
              xs=None, overflow=False):
    """slope_mode: input | initializer | initializer_as_input."""
    name = f"own_prelu_opset{opset}_{dtype}{name_extra}"
    et = elem_type(dtype)
    per_channel = opset < 7
    rng_s = np.random.default_rng(seed_of(name, 99))
    if xs is not None:
        x0, s = xs
        x_shape, s_shape = x0.shape, s.shape
    elif dtype in FLOAT_FMTS:
        s = float_slope(rng_s, dtype, s_shape, specials=slope_specials)
        if overflow:
            s = round_f64(dtype, np.full(s_shape, 10.0 if dtype != "float16" else 4.0))
    else:
        s = int_slope(rng_s, dtype, s_shape)
    node = helper.make_node("PRelu", ["X", "slope"], ["Y"])
    node.attribute.extend(legacy_attrs(opset, "PRelu", consumed))
    inputs = [vi("X", et, x_shape)]
    inits = []
    if slope_mode in ("input", "initializer_as_input"):
        inputs.append(vi("slope", et, s_shape))
    if slope_mode in ("initializer", "initializer_as_input"):
        inits.append(make_tensor("slope", dtype, s, storage))
    graph = helper.make_graph([node], name, inputs, [vi("Y", et, x_shape)], initializer=inits)
    doc = f"PRelu-{opset} {dtype} X{list(x_shape)} slope{list(s_shape)} ({slope_mode})"
    model = finish_model(graph, opset, doc)
    sets = []
    for k in range(n_sets):
        rng = np.random.default_rng(seed_of(name, k))
        if xs is not None and k == 0:
            x = x0
        elif dtype in FLOAT_FMTS:
            x = float_inputs(rng, dtype, x_shape, specials=True)
            if overflow:
                flat = x.reshape(-1)
                big = {"float16": 6e4, "bfloat16": 3e38, "float": 3e38, "double": 1.7e308}[dtype]
                flat[:4] = round_f64(dtype, [-big, -big / 2, -big / 8, -big / 16])
        else:
            x = int_inputs(rng, dtype, x_shape)
        if dtype in FLOAT_FMTS:
            y = ref_prelu_float(dtype, x, s, per_channel)
        else:
            y = ref_prelu_int(dtype, x, s)
        ins = [make_tensor("X", dtype, x, storage)]
        if slope_mode == "input":
            ins.append(make_tensor("slope", dtype, s, storage))
        sets.append((ins, [make_tensor("Y", dtype, y, storage)]))
    write_case(root, name, model, sets)
    cov = [f"X{list(x_shape)} slope{list(s_shape)}" + (" per-channel (axis 1)" if per_channel and s.size > 1 else "")]
    if slope_mode == "initializer":
        cov.append("slope is a graph initializer (not a graph input)")
    elif slope_mode == "initializer_as_input":
        cov.append(f"slope is an initializer ALSO listed as graph input (IR {model.ir_version}); data set has only X")
    own_case(name, "PRelu", opset, dtype, cov, consumed, "[0, 0]", storage, n_sets, covers)


def own_dag(root, dtype: str, storage="raw"):
    """X -> LeakyRelu -> A; A -> Elu -> B; A -> PRelu(slope) -> C; outputs B, C."""
    opset = 16
    name = f"own_dag_opset{opset}_{dtype}"
    shape, s_shape = (3, 4, 5), (5,)
    a_lr, a_elu = 0.3, 1.5
    et = elem_type(dtype)
    nodes = [
        helper.make_node("LeakyRelu", ["X"], ["A"], alpha=a_lr, name="leaky"),
        helper.make_node("Elu", ["A"], ["B"], alpha=a_elu, name="elu"),
        helper.make_node("PRelu", ["A", "slope"], ["C"], name="prelu"),
    ]
    graph = helper.make_graph(
        nodes, name, [vi("X", et, shape), vi("slope", et, s_shape)], [vi("B", et, shape), vi("C", et, shape)]
    )
    model = finish_model(graph, opset, f"DAG LeakyRelu(alpha={a_lr}) -> Elu(alpha={a_elu}) / PRelu, {dtype}")
    rng = np.random.default_rng(seed_of(name, 0))
    x = float_inputs(rng, dtype, shape, specials=True, elu=True)
    s = float_slope(rng, dtype, s_shape)
    a = ref_unary("LeakyRelu", dtype, x, {"alpha": a_lr})  # rounded to dtype: A is a tensor of dtype
    b = ref_unary("Elu", dtype, a, {"alpha": a_elu})
    c = ref_prelu_float(dtype, a, s, per_channel=False)
    sets = [(
        [make_tensor("X", dtype, x, storage), make_tensor("slope", dtype, s, storage)],
        [make_tensor("B", dtype, b, storage), make_tensor("C", dtype, c, storage)],
    )]
    write_case(root, name, model, sets)
    OWN.append(Own(name, "LeakyRelu+Elu+PRelu", opset, dtype,
                   f"3-node DAG, LeakyRelu alpha={a_lr} -> A; Elu(A) alpha={a_elu} -> B (output_0); "
                   f"PRelu(A, slope[5]) -> C (output_1); rounded to {dtype} after every node"))


def gen_own(root: Path) -> None:
    OWN.clear()
    # ---- LeakyRelu: opsets 1, 6, 16
    own_unary(root, "LeakyRelu", 1, "float16", alpha=0.2)
    own_unary(root, "LeakyRelu", 1, "float", alpha=-0.5, storage="typed", consumed="zero")
    own_unary(root, "LeakyRelu", 1, "double", alpha=2.5)
    own_unary(root, "LeakyRelu", 6, "float16", alpha=None, storage="typed")
    own_unary(root, "LeakyRelu", 6, "float", alpha=None)
    own_unary(root, "LeakyRelu", 6, "double", alpha=0.1, storage="typed")
    own_unary(root, "LeakyRelu", 16, "bfloat16", alpha=0.2)
    own_unary(root, "LeakyRelu", 16, "bfloat16", "_typeddata", alpha=-0.5, storage="typed")
    own_unary(root, "LeakyRelu", 16, "float16", alpha=2.5)
    own_unary(root, "LeakyRelu", 16, "float", alpha=0.2, n_sets=2)
    own_unary(root, "LeakyRelu", 16, "double", alpha=None)
    own_unary(root, "LeakyRelu", 16, "float", "_overflow", alpha=2.5,
              overflow_values=[-3e38, -2e38, -1.5e38, -1e38], covers="alpha*x overflows to -inf")
    own_unary(root, "LeakyRelu", 16, "float16", "_overflow", alpha=2.5,
              overflow_values=[-6e4, -4e4, -3e4, -2.7e4], covers="alpha*x overflows to -inf")
    # ---- Elu: opsets 1, 6, 22
    own_unary(root, "Elu", 1, "float16", alpha=0.2)
    own_unary(root, "Elu", 1, "float", alpha=2.5, consumed="zero")
    own_unary(root, "Elu", 1, "double", alpha=-0.5, storage="typed")
    own_unary(root, "Elu", 6, "float16", alpha=1.5)
    own_unary(root, "Elu", 6, "float", alpha=None, storage="typed")
    own_unary(root, "Elu", 6, "double", alpha=0.2)
    own_unary(root, "Elu", 22, "bfloat16", alpha=2.5, storage="typed")
    own_unary(root, "Elu", 22, "float16", alpha=None)
    own_unary(root, "Elu", 22, "float", alpha=0.2, n_sets=2)
    own_unary(root, "Elu", 22, "double", alpha=1.5)
    # ---- PRelu-1 / PRelu-6: slope [C] along axis 1, or one element
    own_prelu(root, 1, "float16", (2, 3, 4, 5), (3,))
    own_prelu(root, 1, "float", (2, 3, 4, 5), (3,), consumed="zero")
    own_prelu(root, 1, "double", (2, 3, 4, 5), (3,), storage="typed")
    own_prelu(root, 1, "float", (2, 3, 4, 5), (1,), name_extra="_slope1")
    own_prelu(root, 6, "float16", (2, 3, 4), (3,), storage="typed")
    own_prelu(root, 6, "float", (2, 3, 4, 5), (3,))
    own_prelu(root, 6, "double", (4, 3), (3,))
    own_prelu(root, 6, "float", (2, 3, 4, 5), (1,), name_extra="_slope1")
    # ---- PRelu-7 / 9 / 16: unidirectional broadcasting
    bshapes = {"_slope_scalar": (), "_slope_1": (1,), "_slope_c11": (3, 1, 1), "_slope_w": (5,),
               "_slope_full": (2, 3, 4, 5)}
    xsh = (2, 3, 4, 5)
    for opset in (7, 9, 16):
        for extra, ss in bshapes.items():
            own_prelu(root, opset, "float", xsh, ss, name_extra=extra,
                      storage="typed" if (opset, extra) == (9, "_slope_w") else "raw",
                      slope_specials=(extra == "_slope_full"),
                      n_sets=2 if (opset, extra) == (16, "_slope_c11") else 1,
                      covers="slope has 0, -0, NaN, +-inf" if extra == "_slope_full" else "")
    own_prelu(root, 7, "float16", xsh, (3, 1, 1))
    own_prelu(root, 7, "double", xsh, ())
    own_prelu(root, 7, "float", xsh, (3, 1, 1), name_extra="_slope_initializer_as_input",
              slope_mode="initializer_as_input")
    own_prelu(root, 9, "float16", xsh, (5,))
    own_prelu(root, 9, "double", xsh, (2, 3, 4, 5), storage="typed")
    own_prelu(root, 16, "float16", xsh, (4, 5))
    own_prelu(root, 16, "double", xsh, (1,))
    own_prelu(root, 16, "bfloat16", xsh, (3, 1, 1))
    own_prelu(root, 16, "bfloat16", xsh, (2, 3, 4, 5), name_extra="_typeddata", storage="typed",
              slope_specials=True, covers="slope has 0, -0, NaN, +-inf")
    own_prelu(root, 16, "float", xsh, (3, 1, 1), name_extra="_slope_initializer", slope_mode="initializer",
              storage="typed")
    own_prelu(root, 16, "float16", xsh, (), name_extra="_overflow", overflow=True,
              covers="slope*x overflows to -inf")
    own_prelu(root, 16, "float", xsh, (), name_extra="_overflow", overflow=True,
              covers="slope*x overflows to -inf")
    ish = (3, 4, 5)
    for opset in (9, 16):
        typed = "typed" if opset == 9 else "raw"
        own_prelu(root, opset, "int32", ish, (5,) if opset == 9 else (1,), storage=typed,
                  covers="INT_MIN, INT_MAX, random full-range values")
        own_prelu(root, opset, "int32", None, None, name_extra="_wrap", xs=int_wrap_data("int32"),
                  covers="products overflow and wrap (two's complement), INT_MIN*-1")
        own_prelu(root, opset, "int64", ish, (3, 1, 1) if opset == 9 else (4, 5), storage=typed,
                  covers="values beyond 2^53, full-range values")
        own_prelu(root, opset, "int64", None, None, name_extra="_wrap", xs=int_wrap_data("int64"),
                  covers="products overflow and wrap, INT64_MIN*-1, exact products beyond 2^53")
        own_prelu(root, opset, "uint32", ish, () if opset == 9 else (5,), storage=typed,
                  covers="top bit set values; y = x always")
        own_prelu(root, opset, "uint64", ish, (1,) if opset == 9 else (3, 1, 1), storage=typed,
                  covers="top bit set values, beyond 2^53; y = x always")
    # ---- every other (operator, opset, dtype) of the table
    own_every_version(root)
    own_every_axis_version(root)
    for k, dtype in enumerate(("bfloat16", "float16", "float", "double")):
        own_swiglu(root, dtype, alpha=[None, 1.702, None, -0.5][k], storage="typed" if k == 1 else "raw")
    # ---- multi-node
    own_dag(root, "float")
    own_dag(root, "float16")


def validate_layout() -> int:
    """Every case: model checks, data sets feed exactly the graph inputs that
    are not initializers (in order, by name), outputs match graph outputs in
    name, element type and shape."""
    n = 0
    for d in sorted(HERE.glob("*/*")):
        if not d.is_dir():
            continue
        model = onnx.load(d / "model.onnx")
        onnx.checker.check_model(model)
        inits = {t.name for t in model.graph.initializer}
        feeds = [i for i in model.graph.input if i.name not in inits]
        sets = sorted(d.glob("test_data_set_*"))
        assert sets, d
        for ds in sets:
            ins = sorted(ds.glob("input_*.pb"))
            outs = sorted(ds.glob("output_*.pb"))
            assert len(ins) == len(feeds) and len(outs) == len(model.graph.output), ds
            for vi_, f in list(zip(feeds, ins)) + list(zip(model.graph.output, outs)):
                t = onnx.load_tensor(str(f))
                tt = vi_.type.tensor_type
                assert t.name in ("", vi_.name), (f, t.name, vi_.name)
                assert t.data_type == tt.elem_type, f
                assert list(t.dims) == [x.dim_value for x in tt.shape.dim], f
                numpy_helper.to_array(t)
        n += 1
    return n


README_BEGIN = "<!-- own-cases:begin (generated by generate.py) -->"
README_END = "<!-- own-cases:end -->"


def replace_block(text: str, begin: str, end: str, rows: list[str]) -> str:
    if begin not in text or end not in text:
        return text
    head, rest = text.split(begin, 1)
    _, tail = rest.split(end, 1)
    return head + begin + "\n" + "\n".join(rows) + "\n" + end + tail


def update_readme_table(node: list[str], torch: list[str]) -> None:
    """Rewrite the generated tables of README.md: folders, node cases and own cases."""
    readme = HERE / "README.md"
    if not readme.exists():
        return
    text = readme.read_text()
    ops = ", ".join(TABLE)
    folders = [
        "| folder | cases | what |",
        "|---|---|---|",
        f"| `node/` | {len(node)} | official ONNX node tests of {ops}, incl. `*_expanded*` |",
        f"| `pytorch-converted/` | {len(torch)} | {', '.join(f'`{t}`' for t in torch)} from the onnx wheel |",
        f"| `own/` | {len(OWN)} | our cases: every (op, opset, dtype) the schemas allow, plus edge cases (table below) |",
    ]
    text = replace_block(text, "<!-- folders:begin (generated by generate.py) -->", "<!-- folders:end -->", folders)
    cases = ["| case | opset (IR) | dtype | graph |", "|---|---|---|---|"]
    for name in node:
        model = onnx.load(HERE / "node" / name / "model.onnx")
        graph_ops = ", ".join(dict.fromkeys(n.op_type for n in model.graph.node))
        elem = model.graph.input[0].type.tensor_type.elem_type
        dtype = next((k for k, f in FLOAT_FMTS.items() if f.onnx_type == elem), str(elem))
        cases.append(f"| `{name}` | {model.opset_import[0].version} ({model.ir_version}) | {dtype} | {graph_ops} |")
    text = replace_block(text, "<!-- node-cases:begin (generated by generate.py) -->", "<!-- node-cases:end -->", cases)
    rows = ["| case | op | opset | dtype | covers |", "|---|---|---|---|---|"]
    for o in OWN:
        rows.append(f"| `{o.name}` | {o.op} | {o.opset} | {o.dtype} | {o.covers} |")
    readme.write_text(replace_block(text, README_BEGIN, README_END, rows))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--check-only", action="store_true")
    ap.add_argument("--allow-version-mismatch", action="store_true")
    args = ap.parse_args()

    self_test()
    if args.check_only:
        print("self-test ok")
        return 0
    if onnx.__version__ != PINNED_ONNX and not args.allow_version_mismatch:
        print(f"onnx {onnx.__version__} installed, {PINNED_ONNX} pinned; "
              "pip install -r tests/data/onnx/requirements.txt (or --allow-version-mismatch)", file=sys.stderr)
        return 2
    for f in FOLDERS:
        shutil.rmtree(HERE / f, ignore_errors=True)
        (HERE / f).mkdir()
    node = gen_node(HERE / "node")
    torch = copy_pytorch(HERE / "pytorch-converted")
    gen_own(HERE / "own")
    print(f"node: {len(node)} cases, pytorch-converted: {len(torch)}, own: {len(OWN)}")
    update_readme_table(node, torch)
    print(f"validated {validate_layout()} case directories")
    return 0


if __name__ == "__main__":
    sys.exit(main())
