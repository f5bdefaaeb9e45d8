//! The CPU reference: one function per operator, each the twin of its shader
//! (`shaders/leaky_relu.wgsl`, `shaders/elu.wgsl`, `shaders/prelu.wgsl`), computing in f64 and
//! rounding once. Every GPU result in the test suite is compared with these.

use ndarray::{Array, ArrayView, Dimension, IxDyn};

use crate::broadcast::unidirectional_slope_shape;
use crate::dtype::{Element, FloatElement};
use crate::error::{Error, Result};

/// LeakyRelu on one element: `Where(x < 0, alpha * x, x)`.
pub fn leaky_relu_scalar<T: FloatElement>(x: T, alpha: f32) -> T {
    if !x.is_negative() {
        return x;
    }
    T::from_f64(f64::from(alpha) * x.to_f64())
}

/// Elu on one element: `Where(x < 0, alpha * (exp(x) - 1), x)`, with `exp(x) - 1` from
/// `f64::exp_m1` (accurate near 0, where the spec's literal form loses all its digits).
pub fn elu_scalar<T: FloatElement>(x: T, alpha: f32) -> T {
    if !x.is_negative() {
        return x;
    }
    T::from_f64(f64::from(alpha) * x.to_f64().exp_m1())
}

/// PRelu on one element: `Where(x < 0, slope * x, x)`, wrapping for integers.
pub fn prelu_scalar<T: Element>(x: T, slope: T) -> T {
    if !x.is_negative() {
        return x;
    }
    x.scaled_by(slope)
}

/// LeakyRelu (ONNX 1, 6, 16) on the CPU. Output has X's shape in standard layout.
pub fn leaky_relu<T: FloatElement, D: Dimension>(x: ArrayView<'_, T, D>, alpha: f32) -> Array<T, D> {
    map_standard(x, |v| leaky_relu_scalar(v, alpha))
}

/// Elu (ONNX 1, 6, 22) on the CPU. Output has X's shape in standard layout.
pub fn elu<T: FloatElement, D: Dimension>(x: ArrayView<'_, T, D>, alpha: f32) -> Array<T, D> {
    map_standard(x, |v| elu_scalar(v, alpha))
}

/// Applies `f` in logical order, so the result is in standard layout whatever X's strides
/// (ndarray's `map` keeps a contiguous Fortran-order input in Fortran order).
pub(crate) fn map_standard<T: Element, D: Dimension>(x: ArrayView<'_, T, D>, f: impl Fn(T) -> T) -> Array<T, D> {
    let values: Vec<T> = x.iter().map(|&v| f(v)).collect();
    Array::from_shape_vec(x.raw_dim(), values).expect("one value per element of X")
}

/// PRelu (ONNX 7+, unidirectional broadcasting of the slope to X) on the CPU. Output has X's
/// shape in standard layout.
pub fn prelu<T: Element, D: Dimension, E: Dimension>(
    x: ArrayView<'_, T, D>,
    slope: ArrayView<'_, T, E>,
) -> Result<Array<T, D>> {
    let aligned = unidirectional_slope_shape(x.shape(), slope.shape())?;
    let refuse = || Error::NotBroadcastable {
        x: x.shape().to_vec(),
        slope: slope.shape().to_vec(),
        rule: crate::broadcast::UNIDIRECTIONAL_RULE,
    };
    let slope_values: Vec<T> = slope.iter().copied().collect();
    let slope_aligned =
        ArrayView::from_shape(IxDyn(&aligned), &slope_values).map_err(|_| refuse())?;
    let broadcast = slope_aligned.broadcast(IxDyn(x.shape())).ok_or_else(refuse)?;
    let values: Vec<T> =
        x.iter().zip(broadcast.iter()).map(|(&v, &s)| prelu_scalar(v, s)).collect();
    Array::from_shape_vec(x.raw_dim(), values).map_err(|_| refuse())
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
    }

    #[test]
    fn prelu_broadcasts_per_channel_and_wraps_integers() {
        let x = array![[[-1.0f32, 2.0], [-3.0, -4.0]]];
        let slope = array![[10.0f32], [100.0]];
        let y = prelu(x.view(), slope.view()).unwrap();
        assert_eq!(y, array![[[-10.0f32, 2.0], [-300.0, -400.0]]]);
        let xi = array![i32::MIN, -3, 5];
        assert_eq!(prelu(xi.view(), array![-1].view()).unwrap(), array![i32::MIN, 3, 5]);
        let xu = array![u32::MAX];
        assert_eq!(prelu(xu.view(), array![0u32].view()).unwrap(), xu);
        assert!(prelu(x.view(), array![1.0f32, 2.0, 3.0].view()).is_err());
    }
}
