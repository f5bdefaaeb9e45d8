//! Element representations: how each dtype is held and computed in WGSL, and what a device
//! needs for it. [`REPRS`] is the one capability table; the context chooses from it, the shader
//! expansion and the naga test read it, and nothing else knows these facts.

use crate::dtype::DType;

/// One way to hold a dtype in WGSL. The memory layout is the same for every representation of
/// a dtype (dense little-endian elements), so a tensor's buffer does not depend on which path a
/// device takes. The discriminant indexes [`REPRS`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum Repr {
    F32,
    F16,
    F16Packed,
    BF16,
    F64,
    F64Soft,
    I32,
    U32,
    I64,
    I64Pair,
    U64,
    U64Pair,
}

/// What the table says about one representation.
#[derive(Debug)]
pub(crate) struct ReprSpec {
    pub(crate) repr: Repr,
    pub(crate) dtype: DType,
    /// The device feature its WGSL needs; empty where every adapter runs it.
    pub(crate) feature: wgpu::Features,
    /// The `enable` directive its source starts with, if any.
    pub(crate) enable: &'static str,
    /// True for the dtype's own WGSL type, false for emulation on u32 words.
    pub(crate) native: bool,
    /// Measured slower than the emulated path on CPU drivers (llvmpipe): skipped there unless
    /// the native path is asked for (`wgpu-act bench` shows it).
    pub(crate) slow_on_cpu_adapters: bool,
    /// Elements per 16-byte storage Vector.
    pub(crate) vector_lanes: u64,
    /// Bytes per storage Word (the unit of the tail pass and of slope reads).
    pub(crate) word_bytes: u64,
    /// The path, as [`crate::Context::dtype_path`] and `wgpu-act info` describe it.
    pub(crate) description: &'static str,
    /// Its representation file and the shared files it uses (order does not matter in WGSL).
    pub(crate) wgsl: &'static [&'static str],
}

const REPR_F32: &str = include_str!("../shaders/repr/f32.wgsl");
const REPR_F16: &str = include_str!("../shaders/repr/f16.wgsl");
const REPR_F16_PACKED: &str = include_str!("../shaders/repr/f16_packed.wgsl");
const REPR_BF16: &str = include_str!("../shaders/repr/bf16.wgsl");
const REPR_F64: &str = include_str!("../shaders/repr/f64.wgsl");
const REPR_F64_SOFT: &str = include_str!("../shaders/repr/f64_soft.wgsl");
const REPR_I32: &str = include_str!("../shaders/repr/i32.wgsl");
const REPR_U32: &str = include_str!("../shaders/repr/u32.wgsl");
const REPR_I64: &str = include_str!("../shaders/repr/i64.wgsl");
const REPR_I64_PAIR: &str = include_str!("../shaders/repr/i64_pair.wgsl");
const REPR_U64: &str = include_str!("../shaders/repr/u64.wgsl");
const REPR_U64_PAIR: &str = include_str!("../shaders/repr/u64_pair.wgsl");
const LANES_DIRECT: &str = include_str!("../shaders/shared/lanes_direct.wgsl");
const LANES_HALVES: &str = include_str!("../shaders/shared/lanes_halves.wgsl");
const LANES_PAIRS: &str = include_str!("../shaders/shared/lanes_pairs.wgsl");
const COMPUTE_F32: &str = include_str!("../shaders/shared/compute_f32.wgsl");
const COMPUTE_HALF: &str = include_str!("../shaders/shared/compute_half.wgsl");
const FLOAT_MULTIPLY: &str = include_str!("../shaders/shared/float_multiply.wgsl");
const HALF_BITS: &str = include_str!("../shaders/shared/half_bits.wgsl");
const EXPM1_F32: &str = include_str!("../shaders/shared/expm1_f32.wgsl");
const EXPM1_F64: &str = include_str!("../shaders/shared/expm1_f64.wgsl");
const WIDE_U32: &str = include_str!("../shaders/shared/wide_u32.wgsl");
const SOFT_F64: &str = include_str!("../shaders/shared/soft_f64.wgsl");

const NONE: wgpu::Features = wgpu::Features::empty();
const PACKED_HALVES: &str = "emulated: 2 per u32, f32 math, RNE";
const PAIRS: &str = "emulated: (low, high) u32 pairs";

/// Every representation, in [`Repr`] order; for each dtype the preferred (native) one first.
pub(crate) static REPRS: [ReprSpec; 12] = [
    ReprSpec {
        repr: Repr::F32,
        dtype: DType::F32,
        feature: NONE,
        enable: "",
        native: true,
        slow_on_cpu_adapters: false,
        vector_lanes: 4,
        word_bytes: 4,
        description: "native",
        wgsl: &[REPR_F32, LANES_DIRECT, COMPUTE_F32, EXPM1_F32, FLOAT_MULTIPLY],
    },
    ReprSpec {
        repr: Repr::F16,
        dtype: DType::F16,
        feature: wgpu::Features::SHADER_F16,
        enable: "enable f16;\n",
        native: true,
        slow_on_cpu_adapters: true,
        vector_lanes: 8,
        word_bytes: 4,
        description: "native f16 (SHADER_F16)",
        wgsl: &[REPR_F16, COMPUTE_HALF, FLOAT_MULTIPLY],
    },
    ReprSpec {
        repr: Repr::F16Packed,
        dtype: DType::F16,
        feature: NONE,
        enable: "",
        native: false,
        slow_on_cpu_adapters: false,
        vector_lanes: 8,
        word_bytes: 4,
        description: PACKED_HALVES,
        wgsl: &[REPR_F16_PACKED, LANES_HALVES, HALF_BITS, COMPUTE_HALF, FLOAT_MULTIPLY],
    },
    ReprSpec {
        repr: Repr::BF16,
        dtype: DType::BF16,
        feature: NONE,
        enable: "",
        native: false,
        slow_on_cpu_adapters: false,
        vector_lanes: 8,
        word_bytes: 4,
        description: PACKED_HALVES,
        wgsl: &[REPR_BF16, LANES_HALVES, HALF_BITS, COMPUTE_HALF, FLOAT_MULTIPLY],
    },
    ReprSpec {
        repr: Repr::F64,
        dtype: DType::F64,
        feature: wgpu::Features::SHADER_F64,
        enable: "",
        native: true,
        slow_on_cpu_adapters: false,
        vector_lanes: 2,
        word_bytes: 8,
        description: "native f64 (SHADER_F64)",
        wgsl: &[REPR_F64, LANES_DIRECT, EXPM1_F64, FLOAT_MULTIPLY],
    },
    ReprSpec {
        repr: Repr::F64Soft,
        dtype: DType::F64,
        feature: NONE,
        enable: "",
        native: false,
        slow_on_cpu_adapters: false,
        vector_lanes: 2,
        word_bytes: 8,
        description: "emulated: IEEE binary64 on u32 pairs, correctly rounded",
        wgsl: &[REPR_F64_SOFT, LANES_PAIRS, SOFT_F64, FLOAT_MULTIPLY],
    },
    ReprSpec {
        repr: Repr::I32,
        dtype: DType::I32,
        feature: NONE,
        enable: "",
        native: true,
        slow_on_cpu_adapters: false,
        vector_lanes: 4,
        word_bytes: 4,
        description: "native",
        wgsl: &[REPR_I32, LANES_DIRECT],
    },
    ReprSpec {
        repr: Repr::U32,
        dtype: DType::U32,
        feature: NONE,
        enable: "",
        native: true,
        slow_on_cpu_adapters: false,
        vector_lanes: 4,
        word_bytes: 4,
        description: "native",
        wgsl: &[REPR_U32, LANES_DIRECT],
    },
    ReprSpec {
        repr: Repr::I64,
        dtype: DType::I64,
        feature: wgpu::Features::SHADER_INT64,
        enable: "",
        native: true,
        slow_on_cpu_adapters: false,
        vector_lanes: 2,
        word_bytes: 8,
        description: "native 64-bit (SHADER_INT64)",
        wgsl: &[REPR_I64, LANES_DIRECT],
    },
    ReprSpec {
        repr: Repr::I64Pair,
        dtype: DType::I64,
        feature: NONE,
        enable: "",
        native: false,
        slow_on_cpu_adapters: false,
        vector_lanes: 2,
        word_bytes: 8,
        description: PAIRS,
        wgsl: &[REPR_I64_PAIR, LANES_PAIRS, WIDE_U32],
    },
    ReprSpec {
        repr: Repr::U64,
        dtype: DType::U64,
        feature: wgpu::Features::SHADER_INT64,
        enable: "",
        native: true,
        slow_on_cpu_adapters: false,
        vector_lanes: 2,
        word_bytes: 8,
        description: "native 64-bit (SHADER_INT64)",
        wgsl: &[REPR_U64, LANES_DIRECT],
    },
    ReprSpec {
        repr: Repr::U64Pair,
        dtype: DType::U64,
        feature: NONE,
        enable: "",
        native: false,
        slow_on_cpu_adapters: false,
        vector_lanes: 2,
        word_bytes: 8,
        description: PAIRS,
        wgsl: &[REPR_U64_PAIR, LANES_PAIRS, WIDE_U32],
    },
];

impl Repr {
    /// This representation's row of [`REPRS`].
    pub(crate) fn spec(self) -> &'static ReprSpec {
        &REPRS[self as usize]
    }

    pub(crate) fn dtype(self) -> DType {
        self.spec().dtype
    }

    /// The representation a device with `features` runs `dtype` on: the first of the table's
    /// rows for it that the device can run, where `preference` may ask for the emulated or the
    /// native row, and by default a native row measured slow on CPU drivers is passed over on
    /// a CPU adapter. `None` when no row is runnable.
    pub(crate) fn choose(
        dtype: DType,
        features: wgpu::Features,
        preference: PathPreference,
        cpu_adapter: bool,
    ) -> Option<Repr> {
        let runnable = || REPRS.iter().filter(move |s| s.dtype == dtype && features.contains(s.feature));
        let emulated = runnable().find(|s| !s.native);
        let preferred = match preference {
            PathPreference::Emulated => emulated,
            PathPreference::Native => runnable().find(|s| s.native),
            PathPreference::Default => runnable().find(|s| !(cpu_adapter && s.slow_on_cpu_adapters)),
        };
        preferred.or_else(|| runnable().next()).map(|s| s.repr)
    }
}

/// Which path an option asks for, for one dtype.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PathPreference {
    Default,
    Emulated,
    Native,
}

/// Device features that some representation can use: a context requests those its adapter has.
pub(crate) fn optional_features() -> wgpu::Features {
    REPRS.iter().fold(wgpu::Features::empty(), |all, s| all | s.feature)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_rows_are_in_enum_order_and_cover_every_dtype() {
        for (i, spec) in REPRS.iter().enumerate() {
            assert_eq!(spec.repr as usize, i, "{:?} is not at its discriminant", spec.repr);
            assert_eq!(16 % (spec.vector_lanes * spec.dtype.size_bytes() as u64), 0);
            assert_eq!(spec.vector_lanes * spec.dtype.size_bytes() as u64, 16, "{:?}: a Vector is 16 bytes", spec.repr);
        }
        for dtype in DType::ALL {
            assert!(
                Repr::choose(dtype, wgpu::Features::all(), PathPreference::Default, false).is_some(),
                "{dtype} has no representation"
            );
        }
    }

    #[test]
    fn choice_follows_features_and_the_emulation_preference() {
        use PathPreference::{Default, Emulated, Native};
        let (all, none) = (wgpu::Features::all(), wgpu::Features::empty());
        assert_eq!(Repr::choose(DType::F16, all, Default, false), Some(Repr::F16));
        assert_eq!(Repr::choose(DType::F16, all, Default, true), Some(Repr::F16Packed), "slow on CPU drivers");
        assert_eq!(Repr::choose(DType::F16, all, Native, true), Some(Repr::F16));
        assert_eq!(Repr::choose(DType::F16, all, Emulated, false), Some(Repr::F16Packed));
        assert_eq!(Repr::choose(DType::F16, none, Native, false), Some(Repr::F16Packed), "no native row runnable");
        assert_eq!(Repr::choose(DType::F32, all, Emulated, false), Some(Repr::F32), "no emulated f32: native stays");
        assert_eq!(Repr::choose(DType::I64, none, Default, false), Some(Repr::I64Pair));
        assert_eq!(Repr::choose(DType::F64, none, Default, false), Some(Repr::F64Soft));
        assert_eq!(Repr::choose(DType::F64, all, Emulated, false), Some(Repr::F64Soft));
        assert_eq!(Repr::choose(DType::F64, all, Default, false), Some(Repr::F64));
        assert!(optional_features().contains(wgpu::Features::SHADER_F16 | wgpu::Features::SHADER_F64));
    }
}
