//! The kernel over an axis (Softmax, LogSoftmax, Hardmax): `shaders/driver/axis.wgsl` expanded per
//! (operator, dtype, products), with the f32 arithmetic the elementwise kernels use
//! ([`super::arithmetic_files`]). Its CPU twin is `src/cpu/axis.rs`.

use super::{Products, Tuning, arithmetic_files, f64_constants, fill, input_access, input_access_label, prune};
use crate::dtype::DType;
use crate::ops::AxisKind;
use crate::repr::Repr;

const AXIS: &str = include_str!("../../shaders/driver/axis.wgsl");
const IO_F32: &str = include_str!("../../shaders/driver/axis_io_f32.wgsl");
const IO_F16: &str = include_str!("../../shaders/driver/axis_io_f16.wgsl");
const IO_BF16: &str = include_str!("../../shaders/driver/axis_io_bf16.wgsl");
const IO_PAIRS_16: &str = include_str!("../../shaders/driver/axis_io_pairs_16.wgsl");

/// Invocations per workgroup of the `rows` entry point; each takes four rows.
pub(crate) const AXIS_WORKGROUP: u32 = 64;
/// Invocations per workgroup of the `row_per_workgroup` entry point, which takes one row.
pub(crate) const ROW_WORKGROUP: u32 = 256;

/// The longest rows the `rows` entry point always takes; longer ones take a workgroup each,
/// unless there are [`MANY_ROWS`] of at most [`STRIDED_ROW_MAX`]: then four rows an invocation
/// fill a device without the workgroup's barriers (on lavapipe, Softmax over rows of 1000 ran
/// at 0.02 of the copy kernel a workgroup a row), and where the axis is not the last,
/// neighbouring invocations read neighbouring elements. (llvmpipe stops an invocation after
/// 65535 loop iterations: three passes of 16384.)
pub(crate) const SHORT_ROW_MAX: usize = 32;
/// See [`SHORT_ROW_MAX`].
pub(crate) const STRIDED_ROW_MAX: usize = 16384;
/// See [`SHORT_ROW_MAX`].
pub(crate) const MANY_ROWS: usize = 1024;
/// The longest rows `row_per_workgroup` holds in registers (read once: `CACHED_CHUNKS` in the
/// driver). On a GPU such rows take that entry point however many they are; a CPU adapter,
/// whose workgroup barriers are costly, keeps four rows an invocation for many rows.
pub(crate) const HELD_ROW_MAX: usize = ROW_WORKGROUP as usize * 4 * 4;

/// The kernel's entry points.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum AxisEntry {
    /// Four rows an invocation.
    Rows,
    /// One row a workgroup.
    RowPerWorkgroup,
}

impl AxisEntry {
    /// The entry point for `rows` rows of `n` elements `inner` apart.
    pub(crate) fn for_rows(rows: usize, n: usize, on_cpu: bool) -> AxisEntry {
        let many = n <= STRIDED_ROW_MAX && rows >= MANY_ROWS;
        let held = !on_cpu && n <= HELD_ROW_MAX;
        if n <= SHORT_ROW_MAX || (many && !held) { AxisEntry::Rows } else { AxisEntry::RowPerWorkgroup }
    }

    /// Its WGSL name.
    pub(crate) fn name(self) -> &'static str {
        match self {
            AxisEntry::Rows => "rows",
            AxisEntry::RowPerWorkgroup => "row_per_workgroup",
        }
    }
}
/// Rows one invocation takes (one per lane of the f32 Compute).
pub(crate) const ROWS_PER_INVOCATION: u32 = 4;

/// The dtypes the kernel runs (f64 runs on the CPU reference).
pub(crate) const AXIS_KERNEL_DTYPES: [DType; 3] = [DType::F32, DType::F16, DType::BF16];

/// One expansion of the kernel over an axis.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct AxisKernelKey {
    pub(crate) kind: AxisKind,
    pub(crate) dtype: DType,
    /// Whether products with a subnormal are computed exactly on integers (a device that
    /// flushes subnormals), and whether the device's fma rounds once.
    pub(crate) exact_products: bool,
    pub(crate) fused_product_errors: bool,
    /// Whether X lies in Y's buffer (disjoint ranges), so that X is bound writable too.
    pub(crate) input_in_y_buffer: bool,
}

impl AxisKernelKey {
    /// The key for `kind` on `dtype` with the context's tuning, X in Y's buffer or not.
    pub(crate) fn new(kind: AxisKind, dtype: DType, tuning: Tuning, input_in_y_buffer: bool) -> AxisKernelKey {
        AxisKernelKey {
            kind,
            dtype,
            exact_products: tuning.products != Products::Hardware,
            fused_product_errors: tuning.fused_product_errors,
            input_in_y_buffer,
        }
    }

    /// The pipeline's label.
    pub(crate) fn label(&self) -> String {
        format!(
            "wgpu-activations.axis.{:?}.{}{}{}{}",
            self.kind,
            self.dtype,
            if self.exact_products { ".exact" } else { "" },
            if self.fused_product_errors { ".fma" } else { "" },
            input_access_label(self.input_in_y_buffer)
        )
    }

    /// The kernel's WGSL, pruned to what its entry point reaches.
    pub(crate) fn wgsl(&self) -> String {
        let mut src = f32_arithmetic(self.exact_products, self.fused_product_errors);
        let (io, y_word) = elements_of(self.dtype);
        src.push_str(io);
        if matches!(self.dtype, DType::F16 | DType::BF16) {
            src.push_str(IO_PAIRS_16);
        }
        let kind = match self.kind {
            AxisKind::Softmax => "0",
            AxisKind::LogSoftmax => "1",
            AxisKind::Hardmax => "2",
        };
        let (workgroup, row_workgroup) = (AXIS_WORKGROUP.to_string(), ROW_WORKGROUP.to_string());
        let fills = [
            ("{{KIND}}", kind),
            ("{{Y_WORD}}", y_word),
            ("{{WORKGROUP}}", &workgroup),
            ("{{ROW_WORKGROUP}}", &row_workgroup),
            ("{{INPUT_ACCESS}}", input_access(self.input_in_y_buffer)),
        ];
        src.push_str(&fill(AXIS, &fills));
        prune::prune(&src)
    }
}

/// The f32 arithmetic of the kernels outside the elementwise driver, its products exact on
/// integers where `exact_products` (a device that flushes subnormals) and its products' errors
/// from fma where `fused_product_errors`, and the f16 conversions on the bits.
fn f32_arithmetic(exact_products: bool, fused_product_errors: bool) -> String {
    let tuning = Tuning {
        products: if exact_products { Products::OnIntegers } else { Products::Hardware },
        fused_product_errors,
        ..Tuning::default()
    };
    let spec = Repr::F32.spec();
    let mut src = String::from(spec.enable);
    src.push_str(&spec.layout.declarations());
    for file in arithmetic_files(spec, tuning).into_iter().chain([crate::repr::F16_BITS]) {
        src.push_str(&f64_constants(file, true));
    }
    src
}

/// The elements' file for `dtype` (`driver/axis_io_*.wgsl`) and Y's storage word.
fn elements_of(dtype: DType) -> (&'static str, &'static str) {
    match dtype {
        DType::F16 => (IO_F16, "atomic<u32>"),
        DType::BF16 => (IO_BF16, "atomic<u32>"),
        _ => (IO_F32, "u32"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every expansion is valid WGSL (naga, with no optional capability).
    #[test]
    fn every_axis_kernel_validates() {
        for kind in [AxisKind::Softmax, AxisKind::LogSoftmax, AxisKind::Hardmax] {
            for dtype in AXIS_KERNEL_DTYPES {
                for (exact_products, fused_product_errors, input_in_y_buffer) in
                    [(false, false, false), (true, false, false), (false, true, false), (false, false, true)]
                {
                    let key = AxisKernelKey { kind, dtype, exact_products, fused_product_errors, input_in_y_buffer };
                    let wgsl = key.wgsl();
                    let module = naga::front::wgsl::parse_str(&wgsl)
                        .unwrap_or_else(|e| panic!("{}: {}", key.label(), e.emit_to_string(&wgsl)));
                    naga::valid::Validator::new(
                        naga::valid::ValidationFlags::all(),
                        naga::valid::Capabilities::empty(),
                    )
                    .validate(&module)
                    .unwrap_or_else(|e| panic!("{}: {e:?}", key.label()));
                }
            }
        }
    }
}
