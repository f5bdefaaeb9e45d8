//! The CPU side: the reference every GPU result is checked against, and step-for-step twins of
//! the shader algorithms. Each file mirrors the WGSL file of the same name, so the two can be
//! read side by side:
//!
//! | CPU | WGSL |
//! |---|---|
//! | `src/ops/<op>.rs` (each unary operator's twin) | `shaders/ops/<op>.wgsl` |
//! | `prelu.rs` | `shaders/ops/prelu.wgsl` |
//! | `compute.rs` | the steps of `shaders/compute/f32.wgsl`, `f64.wgsl`, `f64_soft.wgsl` |
//! | `compute_f32_product_flag.rs` | `shaders/compute/f32_product_flag.wgsl` |
//! | `compute_f32_products_exact.rs` | `shaders/compute/f32_products_exact.wgsl` |
//! | `compute_f32_products_flagged.rs` | `shaders/compute/f32_products_flagged.wgsl` |
//! | `math_f32.rs` | `shaders/math/f32.wgsl` |
//! | `math_f64.rs` | the source of `shaders/math/f64.wgsl`'s functions (`src/kernel/f64_program.rs` records them) |
//! | `soft_f64.rs` | `shaders/shared/soft_f64.wgsl` |
//! | `divide.rs` | `shaders/shared/divide.wgsl` |
//!
//! The twins of the shader algorithms are compiled for the tests only (they are what the
//! tests check the kernels' algorithms with), but for the f64 math and its steps, which the
//! kernel expansion records into the WGSL of both f64 paths (`src/kernel/f64_program.rs`). The operator twins compute in f64 and round once, so they give the correctly rounded result
//! wherever f64 holds it exactly (every f32, f16 and bf16 product), and in [`Exact`] arithmetic
//! for f64 results (`src/real.rs`); the twins of the math repeat the kernels' own steps in the
//! kernels' precision, so the kernels' error bounds can be checked exhaustively on the CPU. [`crate::Context::runs_on_cpu`] is the one switch that sends work
//! here instead of to the GPU. The public part is [`crate::reference`].

pub(crate) mod axis;
pub(crate) mod axis_f64;
pub(crate) mod chain;
pub(crate) mod compute;
#[cfg(test)]
pub(crate) mod compute_f32_product_flag;
#[cfg(test)]
pub(crate) mod compute_f32_products_exact;
#[cfg(test)]
pub(crate) mod compute_f32_products_flagged;
pub(crate) mod divide;
pub(crate) mod gated;
pub(crate) mod gated_f64;
#[cfg(test)]
pub(crate) mod math_f32;
pub(crate) mod math_f64;
pub(crate) mod prelu;
#[cfg(test)]
pub(crate) mod soft_f64;

use ndarray::{Array, ArrayView, Dimension};

use crate::dtype::{DType, Element, FloatElement};
use crate::ops::{Attributes, ELU, LEAKY_RELU, UnaryOp};

pub(crate) use crate::real::{Exact, IntegerType, Real};
pub use chain::{ChainStep, check_chain};
pub use prelu::{prelu, prelu_scalar};

/// `op` on one element: its twin on the value widened exactly, rounded once to `T`, or `x`
/// itself (bit for bit) where the operator passes X through. f64 results come from the twin in
/// double-double arithmetic (correctly rounded), the narrower dtypes' from the twin in f64.
pub fn unary_scalar<T: FloatElement>(op: &UnaryOp, attributes: &Attributes, x: T) -> T {
    let attributes = op.attributes_like(attributes, T::DTYPE);
    let value = if T::DTYPE == DType::F64 {
        (op.twin.exact)(Exact::from_f64(x.to_f64()), &attributes).map(Real::to_f64)
    } else {
        (op.twin.fast)(x.to_f64(), &attributes)
    };
    match value {
        Some(value) => T::from_f64(value),
        None => x,
    }
}

/// `op` on one element of any dtype: [`unary_scalar`] on the floats, the operator's integer
/// twin on the integers (exact, wrapped like the dtype).
pub(crate) fn unary_element<T: Element>(op: &UnaryOp, attributes: &Attributes, x: T) -> T {
    fn on<F: FloatElement, T: Element>(op: &UnaryOp, attributes: &Attributes, x: T) -> T {
        bytemuck::cast(unary_scalar::<F>(op, attributes, bytemuck::cast(x)))
    }
    match T::DTYPE {
        DType::BF16 => on::<half::bf16, T>(op, attributes, x),
        DType::F16 => on::<half::f16, T>(op, attributes, x),
        DType::F32 => on::<f32, T>(op, attributes, x),
        DType::F64 => on::<f64, T>(op, attributes, x),
        _ => integer_result(op, attributes, x).unwrap_or(x),
    }
}

/// True where `op` passes `x` through unchanged (its formula's `X`), bit for bit.
pub fn unary_passes_through<T: Element>(op: &UnaryOp, attributes: &Attributes, x: T) -> bool {
    if !T::DTYPE.is_float() {
        return integer_result(op, attributes, x).is_none();
    }
    (op.twin.fast)(x.widened(), &op.attributes_like(attributes, T::DTYPE)).is_none()
}

/// The integer twin's result for an integer `x`, the attributes cast like X as Rust's `as`
/// casts (the kernels' `lanes_from_attribute`) with their residuals added (`lanes_from_bound`);
/// `None` where X passes through, and for the floats and an operator without an integer twin
/// (no version takes an integer).
fn integer_result<T: Element>(op: &UnaryOp, attributes: &Attributes, x: T) -> Option<T> {
    let (twin, dtype) = (op.integer_twin?, IntegerType::of(T::DTYPE)?);
    let mut cast = [0; crate::ops::MAX_ATTRIBUTES];
    for (value, &attribute) in cast.iter_mut().zip(attributes) {
        *value = integer_value(T::narrowed(f64::from(attribute)))?;
    }
    // A bound of X's type: its leading f32 plus its residual, both cast, or its bound words.
    for slot in 0..op.attributes.len() {
        if let Some(residual) = op.residual_slot(slot) {
            cast[slot] = op.integer_bound(attributes, slot, dtype);
            cast[residual] = 0;
        }
    }
    integer_element(dtype.wrapped(twin(integer_value(x)?, &cast, dtype)?))
}

/// An integer element's value, exactly (`None` for the floats).
pub(crate) fn integer_value<T: Element>(x: T) -> Option<i128> {
    Some(match T::DTYPE {
        DType::I8 => i128::from(bytemuck::cast::<T, i8>(x)),
        DType::I16 => i128::from(bytemuck::cast::<T, i16>(x)),
        DType::I32 => i128::from(bytemuck::cast::<T, i32>(x)),
        DType::I64 => i128::from(bytemuck::cast::<T, i64>(x)),
        DType::U8 => i128::from(bytemuck::cast::<T, u8>(x)),
        DType::U16 => i128::from(bytemuck::cast::<T, u16>(x)),
        DType::U32 => i128::from(bytemuck::cast::<T, u32>(x)),
        DType::U64 => i128::from(bytemuck::cast::<T, u64>(x)),
        DType::BF16 | DType::F16 | DType::F32 | DType::F64 => return None,
    })
}

/// The integer element of value `v`, which lies in the dtype's range (`None` for the floats).
fn integer_element<T: Element>(v: i128) -> Option<T> {
    Some(match T::DTYPE {
        DType::I8 => bytemuck::cast(v as i8),
        DType::I16 => bytemuck::cast(v as i16),
        DType::I32 => bytemuck::cast(v as i32),
        DType::I64 => bytemuck::cast(v as i64),
        DType::U8 => bytemuck::cast(v as u8),
        DType::U16 => bytemuck::cast(v as u16),
        DType::U32 => bytemuck::cast(v as u32),
        DType::U64 => bytemuck::cast(v as u64),
        DType::BF16 | DType::F16 | DType::F32 | DType::F64 => return None,
    })
}

/// `op` on every element, of any dtype the operator accepts. Output has X's shape in standard
/// layout.
pub fn unary<T: Element, D: Dimension>(op: &UnaryOp, attributes: &Attributes, x: ArrayView<'_, T, D>) -> Array<T, D> {
    map_standard(x, |v| unary_element(op, attributes, v))
}

/// LeakyRelu (ONNX 1, 6, 16) on the CPU. Output has X's shape in standard layout.
pub fn leaky_relu<T: FloatElement, D: Dimension>(x: ArrayView<'_, T, D>, alpha: f32) -> Array<T, D> {
    unary(&LEAKY_RELU, &attributes(alpha), x)
}

/// Elu (ONNX 1, 6, 22) on the CPU. Output has X's shape in standard layout.
pub fn elu<T: FloatElement, D: Dimension>(x: ArrayView<'_, T, D>, alpha: f32) -> Array<T, D> {
    unary(&ELU, &attributes(alpha), x)
}

/// LeakyRelu on one element.
pub fn leaky_relu_scalar<T: FloatElement>(x: T, alpha: f32) -> T {
    unary_scalar(&LEAKY_RELU, &attributes(alpha), x)
}

/// Elu on one element.
pub fn elu_scalar<T: FloatElement>(x: T, alpha: f32) -> T {
    unary_scalar(&ELU, &attributes(alpha), x)
}

fn attributes(alpha: f32) -> Attributes {
    crate::ops::attributes_from(&[alpha])
}

/// Applies `f` in logical order, so the result is in standard layout whatever X's strides
/// (ndarray's `map` keeps a contiguous Fortran-order input in Fortran order).
pub(crate) fn map_standard<T: Element, D: Dimension>(x: ArrayView<'_, T, D>, f: impl Fn(T) -> T) -> Array<T, D> {
    let values: Vec<T> = match x.as_slice() {
        Some(flat) => flat.iter().map(|&v| f(v)).collect(),
        None => x.iter().map(|&v| f(v)).collect(),
    };
    match Array::from_shape_vec(x.raw_dim(), values) {
        Ok(array) => array,
        Err(_) => unreachable!("one value per element of X, in X's shape"),
    }
}

/// A xorshift64 generator from `seed` (nonzero): the twins' tests' random operands, the same on
/// every run.
#[cfg(test)]
pub(crate) fn xorshift(mut state: u64) -> impl FnMut() -> u64 {
    move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::array;

    #[test]
    fn follows_the_spec_function_bodies() {
        let x = array![-2.0f32, -0.0, 0.0, 3.0, f32::NEG_INFINITY, f32::NAN];
        let y = leaky_relu(x.view(), 0.5);
        assert_eq!(y[0], -1.0);
        assert!(y[1].is_sign_negative() && y[1] == 0.0);
        assert!(y[5].is_nan());
        assert_eq!(y[4], f32::NEG_INFINITY);
        assert!(leaky_relu(x.view(), 0.0)[4].is_nan());
        let e = elu(x.view(), 2.0);
        assert_eq!(e[4], -2.0);
        assert_eq!(e[3], 3.0);
        assert_eq!(elu_scalar(-1e-30f32, 1.0), -1e-30);
        let transposed = ndarray::Array2::<f32>::zeros((3, 2)).reversed_axes();
        assert!(elu(transposed.view(), 1.0).is_standard_layout());
        // A signalling NaN passes through with its payload: X itself, not a widened copy.
        let signalling = f32::from_bits(0x7f80_0001);
        assert_eq!(leaky_relu_scalar(signalling, 0.5).to_bits(), 0x7f80_0001);
    }
}
