"""Fits behind the f64 x Phi(x) of src/cpu/math_f64.rs (Gelu's erf form), and with `--f32`
the f32 one of shaders/math/f32.wgsl and src/cpu/math_f32.rs.

    pip install mpmath && python tools/fit_normal_cdf.py [--f32]

prints the Rust constants PHI_SMALL, PHI_SMALL_CONSTANT, PHI_TAIL and PHI_TAIL_CONSTANT, and the
relative error of each fit before its coefficients are rounded to f64:

- small: (Phi(x) - 1/2) / x as a polynomial of degree 8 in u = x^2 on [0, 1/4] (|x| <= 1/2);
- tail: G(t) = e^(a^2/2) Phi(-a) / t as a polynomial of degree 22 in v = t - 1/2, with
  t = 1 / (1 + a/4) (exact to form on the device: a/4 is exact), a in [1/2, 38.6].

Both are least squares in relative error at Chebyshev nodes, at 60 digits: within a small factor
of minimax, and well below f64's 2^-53 (the polynomials' own rounding dominates).

`--f32` prints PHI_TAIL and PHI_TAIL_CONSTANT of src/cpu/math_f32.rs as f32 bits: G(t) as a
polynomial of degree 10 in v = t - 1/2 for a in [0, 14.5] (no small form: x Phi(x) takes the tail
from 0 on), each coefficient rounded to f32 from the constant up and the higher ones fitted again
after it (rounding them all at once costs the fit 2^-25 relative; this way 2^-28), the constant
in two f32s.
"""
import struct
import sys

import mpmath as mp

mp.mp.dps = 60


def fit(f, lo, hi, degree, nodes):
    """Coefficients (constant first) of the degree-`degree` polynomial in s on [lo, hi] that
    fits f(s) in relative error at `nodes` Chebyshev nodes, and its worst relative error."""
    points = [(lo + hi) / 2 + (hi - lo) / 2 * mp.cos(mp.pi * (k + mp.mpf(1) / 2) / nodes) for k in range(nodes)]
    a, b = mp.matrix(nodes, degree + 1), mp.matrix(nodes, 1)
    for i, s in enumerate(points):
        value = f(s)
        for j in range(degree + 1):
            a[i, j] = s**j / value
        b[i] = 1
    coefficients, _ = mp.qr_solve(a, b)
    coefficients = [coefficients[j] for j in range(degree + 1)]
    grid = [lo + (hi - lo) * k / 1999 for k in range(2000)]
    worst = max(abs(sum(c * s**j for j, c in enumerate(coefficients)) / f(s) - 1) for s in grid)
    return coefficients, worst


def split(v):
    hi = float(v)
    return hi, float(v - mp.mpf(hi))


def emit(name, coefficients, worst):
    print(f"// {name}: relative error {mp.nstr(worst, 3)} (2^{mp.nstr(mp.log(worst, 2), 4)})")
    rest = ", ".join(repr(float(c)) for c in reversed(coefficients[1:]))
    print(f"const {name}: [f64; {len(coefficients) - 1}] = [{rest}];")
    print(f"const {name}_CONSTANT: [f64; 2] = [{split(coefficients[0])[0]!r}, {split(coefficients[0])[1]!r}];")


def small(u):
    if u == 0:
        return 1 / mp.sqrt(2 * mp.pi)
    x = mp.sqrt(u)
    return (mp.ncdf(x) - mp.mpf(1) / 2) / x


def tail(v):
    t = v + mp.mpf(1) / 2
    a = 4 * (1 / t - 1)
    return mp.ncdf(-a) * mp.exp(a * a / 2) / t


def to_f32(v):
    return struct.unpack("<f", struct.pack("<f", float(v)))[0]


def f32_bits(v):
    return struct.unpack("<I", struct.pack("<f", float(v)))[0]


def fit_rounded_f32(f, lo, hi, degree, nodes):
    """The fit of f on [lo, hi] in relative error with f32 coefficients: the constant as two f32s,
    then each coefficient from degree 1 up rounded to f32 and the higher ones fitted again."""
    points = [(lo + hi) / 2 + (hi - lo) / 2 * mp.cos(mp.pi * (k + mp.mpf(1) / 2) / nodes) for k in range(nodes)]
    values = [f(s) for s in points]

    def refit(fixed):
        free = [j for j in range(degree + 1) if j not in fixed]
        a, b = mp.matrix(nodes, len(free)), mp.matrix(nodes, 1)
        for i, s in enumerate(points):
            for column, j in enumerate(free):
                a[i, column] = s**j / values[i]
            b[i] = (values[i] - sum(c * s**j for j, c in fixed.items())) / values[i]
        solved, _ = mp.qr_solve(a, b)
        return {**fixed, **{j: solved[column] for column, j in enumerate(free)}}

    constant = refit({})[0]
    hi_part = to_f32(constant)
    lo_part = to_f32(constant - mp.mpf(hi_part))
    fixed = {0: mp.mpf(hi_part) + mp.mpf(lo_part)}
    for j in range(1, degree + 1):
        fixed[j] = mp.mpf(to_f32(refit(fixed)[j]))
    grid = [lo + (hi - lo) * k / 3999 for k in range(4000)]
    worst = max(abs(sum(c * s**j for j, c in fixed.items()) / f(s) - 1) for s in grid)
    return [fixed[j] for j in range(degree, 0, -1)], (hi_part, lo_part), worst


if __name__ == "__main__":
    t_of = lambda a: 1 / (1 + mp.mpf(a) / 4) - mp.mpf(1) / 2  # noqa: E731
    if "--f32" in sys.argv[1:]:
        mp.mp.dps = 40
        coefficients, (hi_part, lo_part), worst = fit_rounded_f32(tail, t_of(14.5), t_of(0), 10, 90)
        print(f"// PHI_TAIL (f32): relative error {mp.nstr(worst, 3)} (2^{mp.nstr(mp.log(worst, 2), 4)})")
        print(f"const PHI_TAIL: [u32; {len(coefficients)}] = [{', '.join(f'{f32_bits(c):#010x}' for c in coefficients)}];")
        print(f"const PHI_TAIL_CONSTANT: [u32; 2] = [{f32_bits(hi_part):#010x}, {f32_bits(lo_part):#010x}];")
    else:
        emit("PHI_SMALL", *fit(small, mp.mpf(0), mp.mpf(1) / 4, 8, 60))
        emit("PHI_TAIL", *fit(tail, t_of(38.6), t_of(0.5), 22, 140))
