//! CPU twin of `shaders/ops/prelu.wgsl`: `Where(X < 0, slope * X, X)` with the slope broadcast
//! to X by ONNX's unidirectional rule (PRelu-7+).

use ndarray::{Array, ArrayView, Dimension, IxDyn};

use crate::broadcast::{UNIDIRECTIONAL_RULE, unidirectional_slope_shape};
use crate::dtype::Element;
use crate::error::{Error, Result};

/// PRelu on one element: `Where(x < 0, slope * x, x)`; one rounding for floats (computed
/// exactly in f64 for the narrower types), wrapping for integers.
pub fn prelu_scalar<T: Element>(x: T, slope: T) -> T {
    if !x.is_negative() {
        return x;
    }
    x.scaled_by(slope)
}

/// PRelu (ONNX 7+, unidirectional broadcasting of the slope to X) on the CPU. Output has X's
/// shape in standard layout.
pub fn prelu<T: Element, D: Dimension, E: Dimension>(
    x: ArrayView<'_, T, D>,
    slope: ArrayView<'_, T, E>,
) -> Result<Array<T, D>> {
    let aligned = unidirectional_slope_shape(x.shape(), slope.shape())?;
    let refuse =
        || Error::NotBroadcastable { x: x.shape().to_vec(), slope: slope.shape().to_vec(), rule: UNIDIRECTIONAL_RULE };
    let slope_values: Vec<T> = slope.iter().copied().collect();
    let slope_aligned = ArrayView::from_shape(IxDyn(&aligned), &slope_values).map_err(|_| refuse())?;
    let broadcast = slope_aligned.broadcast(IxDyn(x.shape())).ok_or_else(refuse)?;
    let values: Vec<T> = x.iter().zip(broadcast.iter()).map(|(&v, &s)| prelu_scalar(v, s)).collect();
    Array::from_shape_vec(x.raw_dim(), values).map_err(|_| refuse())
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::array;

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
