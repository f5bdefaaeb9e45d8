//! SwiGLU's kernel: `shaders/driver/gated.wgsl` expanded per (dtype, products), with the f32
//! arithmetic and elements of the kernel over an axis (`super::axis`). Its CPU twin is
//! `src/cpu/gated.rs`.

use super::axis::{elements, elements_of, f32_arithmetic};
use super::{Products, Tuning, fill, input_access, input_access_label};
use crate::dtype::DType;

const GATED: &str = include_str!("../../shaders/driver/gated.wgsl");
const STORE_F32: &str = include_str!("../../shaders/driver/gated_store_f32.wgsl");
const STORE_16: &str = include_str!("../../shaders/driver/gated_store_16.wgsl");
/// f16's rounding for the 16-bit stores (shared/f16_bits.wgsl's).
const HALF_BITS_F16: &str = "fn half_bits(v: Compute) -> vec4<u32> {\n    return f16_bits_from_f32(v);\n}\n";
/// bf16's rounding to nearest-even on the bits (as repr/bf16.wgsl's), NaN kept NaN.
const HALF_BITS_BF16: &str = "fn half_bits(v: Compute) -> vec4<u32> {\n    let b = bitcast<vec4<u32>>(v);\n    \
let rounded = (b + vec4(0x7fffu) + ((b >> vec4(16u)) & vec4(1u))) >> vec4(16u);\n    \
return select(rounded, (b >> vec4(16u)) | vec4(0x40u), (b & vec4(0x7fffffffu)) > vec4(0x7f800000u));\n}\n";

/// Invocations per workgroup; each takes four consecutive elements.
pub(crate) const GATED_WORKGROUP: u32 = 64;

/// One expansion of SwiGLU's kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct GatedKernelKey {
    pub(crate) dtype: DType,
    pub(crate) exact_products: bool,
    pub(crate) fused_product_errors: bool,
    /// Whether A or B lies in Y's buffer (disjoint ranges), so that both are bound writable.
    pub(crate) input_in_y_buffer: bool,
}

impl GatedKernelKey {
    /// The key for `dtype` with the context's tuning, A or B in Y's buffer or not.
    pub(crate) fn new(dtype: DType, tuning: Tuning, input_in_y_buffer: bool) -> GatedKernelKey {
        GatedKernelKey {
            dtype,
            exact_products: tuning.products != Products::Hardware,
            fused_product_errors: tuning.fused_product_errors,
            input_in_y_buffer,
        }
    }

    /// The pipeline's label.
    pub(crate) fn label(&self) -> String {
        format!(
            "wgpu-activations.swiglu.{}{}{}{}",
            self.dtype,
            if self.exact_products { ".exact" } else { "" },
            if self.fused_product_errors { ".fma" } else { "" },
            input_access_label(self.input_in_y_buffer)
        )
    }

    /// The kernel's WGSL, pruned to what its entry point reaches.
    pub(crate) fn wgsl(&self) -> String {
        let mut src = f32_arithmetic(self.exact_products, self.fused_product_errors);
        let (io, _) = elements_of(self.dtype);
        src.push_str(&elements(io, &[("load", "x"), ("load_b", "w")], false));
        match self.dtype {
            DType::F16 => [HALF_BITS_F16, STORE_16].iter().for_each(|f| src.push_str(f)),
            DType::BF16 => [HALF_BITS_BF16, STORE_16].iter().for_each(|f| src.push_str(f)),
            _ => src.push_str(STORE_F32),
        }
        let workgroup = GATED_WORKGROUP.to_string();
        src.push_str(&fill(
            GATED,
            &[("{{WORKGROUP}}", &workgroup), ("{{INPUT_ACCESS}}", input_access(self.input_in_y_buffer))],
        ));
        super::prune::prune(&src)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::axis::AXIS_KERNEL_DTYPES;

    /// Every expansion is valid WGSL (naga, with no optional capability).
    #[test]
    fn every_gated_kernel_validates() {
        for dtype in AXIS_KERNEL_DTYPES {
            for (exact_products, fused_product_errors, input_in_y_buffer) in
                [(false, false, false), (true, false, false), (false, true, false), (false, false, true)]
            {
                let key = GatedKernelKey { dtype, exact_products, fused_product_errors, input_in_y_buffer };
                let wgsl = key.wgsl();
                let module = naga::front::wgsl::parse_str(&wgsl)
                    .unwrap_or_else(|e| panic!("{}: {}", key.label(), e.emit_to_string(&wgsl)));
                naga::valid::Validator::new(naga::valid::ValidationFlags::all(), naga::valid::Capabilities::empty())
                    .validate(&module)
                    .unwrap_or_else(|e| panic!("{}: {e:?}", key.label()));
            }
        }
    }
}
