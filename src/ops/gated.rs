//! SwiGLU, the gate of LLaMA-style MLPs: an operator with two inputs of one shape, described once
//! as the other tables describe theirs. It runs as a step of the elementwise driver
//! (`Step::Swiglu`, `shaders/ops/swiglu.wgsl`), alone or fused; its CPU twin is `src/cpu/gated.rs`.

use super::{Attribute, Attributes, OpVersion, OwnKernel, UlpBounds};
use crate::dtype::DType;

/// The WGSL function of SwiGLU's kernel.
const WGSL_FN: &str = "swiglu";

/// An operator of two inputs of one shape, A and B, and FLOAT attributes.
#[derive(Debug)]
pub struct GatedOp {
    /// The ONNX op type.
    pub onnx_name: &'static str,
    /// The name on the command line (`wgpu-act apply --op swiglu --gate-input B.npy A.npy Y.npy`).
    pub cli_name: &'static str,
    /// The ONNX versions with the element types each accepts.
    pub versions: &'static [OpVersion],
    /// Attributes with their ONNX defaults.
    pub attributes: &'static [Attribute],
    /// Accuracy of the GPU kernels against the correctly rounded result.
    pub max_ulp: UlpBounds,
    /// The real result, for the docs and the test-data generator (`a`, `b` and the attributes).
    pub formula: &'static str,
}

/// SwiGLU (28): `Swish_alpha(A) * B`, A and B of the same shape, no broadcasting.
pub static SWIGLU: GatedOp = GatedOp {
    onnx_name: "SwiGLU",
    cli_name: "swiglu",
    versions: &[OpVersion { since: 28, dtypes: &[DType::BF16, DType::F16, DType::F32, DType::F64] }],
    attributes: &[Attribute::new("alpha", 1.0).with_own_kernel(OwnKernel::ALPHA_ONE)],
    max_ulp: UlpBounds { bf16: 1, f16: 1, f32: 4, f64: 4 },
    formula: "a * b / (1 + exp(-alpha * a))",
};

impl GatedOp {
    /// The magnitudes of A for which a guarded kernel takes the float unit's products, given
    /// alpha (`src/ops/plain_products.rs`); the kernel tests A B apart.
    pub(crate) fn plain_products(&self, alpha: f32) -> super::PlainRange {
        super::plain_products::swiglu(alpha)
    }

    /// True when some version accepts `dtype`.
    pub fn accepts(&self, dtype: DType) -> bool {
        self.versions.iter().any(|v| v.dtypes.contains(&dtype))
    }

    /// Which of SwiGLU's kernel functions `attributes` run: 1 for values with a kernel of their
    /// own ([`OwnKernel`]: alpha 1), 0 for any others.
    pub(crate) fn kernel_variant(&self, attributes: &Attributes) -> u8 {
        OwnKernel::variant(OwnKernel::of(self.attributes), attributes)
    }

    /// The WGSL function of kernel variant `variant` (`shaders/ops/swiglu.wgsl`): `swiglu`, or
    /// `swiglu_<name>` for a value's own kernel (`swiglu_alpha_one`).
    pub(crate) fn kernel_function(&self, variant: u8) -> String {
        match OwnKernel::of(self.attributes).filter(|_| variant == 1) {
            Some(own) => format!("{WGSL_FN}_{}", own.name),
            None => WGSL_FN.to_string(),
        }
    }

    /// The index of attribute `name`, if the operator has it.
    pub fn attribute_index(&self, name: &str) -> Option<usize> {
        self.attributes.iter().position(|a| a.name == name)
    }
}
