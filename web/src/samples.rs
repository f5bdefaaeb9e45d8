//! Inputs for the browser's checks: every element type's special values (zeros of both signs,
//! NaN, infinities, the subnormal edges, the extremes) and seeded random values over the whole
//! exponent range, drawn the same way on every run.

use half::{bf16, f16};
use wgpu_activations::{DType, Element, FloatElement};

use crate::page::Rng;

/// What an element type contributes to the checks.
pub trait Sample: Element {
    /// The special values of this type, then `n` seeded random ones.
    fn samples(rng: &mut Rng, n: usize) -> Vec<Self>;
    /// A slope value (any sign; an integer slope of either sign).
    fn slope(rng: &mut Rng) -> Self;
    /// A value as the bench's inputs are drawn, like the native bench's: uniform in [-4, 4]
    /// for the floats, small values for the integers.
    fn typical(rng: &mut Rng) -> Self;
}

/// Values every float type is checked on, before its own edges.
const FLOAT_SPECIALS: [f64; 14] = [
    0.0,
    -0.0,
    f64::NAN,
    f64::INFINITY,
    f64::NEG_INFINITY,
    1.0,
    -1.0,
    -0.5,
    -1e-8,
    -17.0,
    -88.7,
    -104.0,
    -746.0,
    65504.0,
];

/// The smallest subnormal, the largest subnormal and the smallest normal of a float type, with
/// its largest finite value: its edges, given by its exponent range and precision.
fn edges(min_exp: i32, mantissa_bits: i32, max: f64) -> [f64; 4] {
    let smallest_normal = 2f64.powi(min_exp);
    let smallest_subnormal = 2f64.powi(min_exp - mantissa_bits);
    [smallest_subnormal, smallest_normal - smallest_subnormal, smallest_normal, max]
}

fn float_samples<T: FloatElement>(rng: &mut Rng, n: usize, edges: [f64; 4], max_exp: i32) -> Vec<T> {
    let mut values: Vec<T> = FLOAT_SPECIALS.iter().map(|&v| T::from_f64(v)).collect();
    for edge in edges {
        values.push(T::from_f64(edge));
        values.push(T::from_f64(-edge));
    }
    let min_exp = (edges[0].log2() as i32) - 2;
    while values.len() < FLOAT_SPECIALS.len() + 8 + n {
        let v = match rng.next_u64() % 4 {
            0 => rng.range(-10.0, 10.0),
            1 => rng.range(-120.0, 1.0),
            _ => {
                let exponent = rng.range(f64::from(min_exp), f64::from(max_exp));
                let sign = if rng.next_u64() & 1 == 0 { -1.0 } else { 1.0 };
                sign * exponent.exp2() * rng.range(1.0, 2.0)
            }
        };
        values.push(T::from_f64(v));
    }
    values
}

impl Sample for bf16 {
    fn samples(rng: &mut Rng, n: usize) -> Vec<Self> {
        float_samples(rng, n, edges(-126, 7, f64::from(bf16::MAX)), 127)
    }
    fn slope(rng: &mut Rng) -> Self {
        bf16::from_f64(rng.range(-2.0, 2.0))
    }
    fn typical(rng: &mut Rng) -> Self {
        bf16::from_f64(rng.range(-4.0, 4.0))
    }
}

impl Sample for f16 {
    fn samples(rng: &mut Rng, n: usize) -> Vec<Self> {
        float_samples(rng, n, edges(-14, 10, f64::from(f16::MAX)), 15)
    }
    fn slope(rng: &mut Rng) -> Self {
        f16::from_f64(rng.range(-2.0, 2.0))
    }
    fn typical(rng: &mut Rng) -> Self {
        f16::from_f64(rng.range(-4.0, 4.0))
    }
}

impl Sample for f32 {
    fn samples(rng: &mut Rng, n: usize) -> Vec<Self> {
        float_samples(rng, n, edges(-126, 23, f64::from(f32::MAX)), 127)
    }
    fn slope(rng: &mut Rng) -> Self {
        rng.range(-2.0, 2.0) as f32
    }
    fn typical(rng: &mut Rng) -> Self {
        rng.range(-4.0, 4.0) as f32
    }
}

impl Sample for f64 {
    fn samples(rng: &mut Rng, n: usize) -> Vec<Self> {
        float_samples(rng, n, edges(-1022, 52, f64::MAX), 1023)
    }
    fn slope(rng: &mut Rng) -> Self {
        rng.range(-2.0, 2.0)
    }
    fn typical(rng: &mut Rng) -> Self {
        rng.range(-4.0, 4.0)
    }
}

macro_rules! integer_samples {
    ($($t:ty),*) => {$(
        impl Sample for $t {
            fn samples(rng: &mut Rng, n: usize) -> Vec<Self> {
                let mut values: Vec<$t> = vec![0, 1, <$t>::MIN, <$t>::MAX, <$t>::MIN.wrapping_add(1), <$t>::MAX - 1];
                values.extend((0..n).map(|i| {
                    let bits = rng.next_u64();
                    // Half small values around zero, half any bits: products that wrap and
                    // ones that don't.
                    let small = ((bits % 2001) as i64 - 1000) as $t; // wraps for i8
                    if i % 2 == 0 { small } else { bits as $t }
                }));
                values
            }
            fn slope(rng: &mut Rng) -> Self {
                ((rng.next_u64() % 7) as i64 - 3) as $t
            }
            fn typical(rng: &mut Rng) -> Self {
                ((rng.next_u64() % 2001) as i64 - 1000) as $t
            }
        }
    )*};
}
integer_samples!(i8, i16, i32, i64, u8, u16, u32, u64);

/// The float element types, for the unary operators.
pub const FLOATS: [DType; 4] = [DType::BF16, DType::F16, DType::F32, DType::F64];
