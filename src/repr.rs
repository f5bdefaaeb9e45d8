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
    I8,
    I16,
    U8,
    U16,
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
    /// How its elements sit in storage words and registers.
    pub(crate) layout: &'static Layout,
    /// The path, as [`crate::Context::dtype_path`] and `wgpu-act info` describe it.
    pub(crate) description: &'static str,
    /// Its representation file (`shaders/repr/<name>.wgsl`).
    pub(crate) file: &'static str,
    /// The shared files its arithmetic uses.
    pub(crate) arithmetic: &'static [&'static str],
}

impl ReprSpec {
    /// The declarations of the element interface's types and lane counts, and `ELEMENT_BITS`,
    /// the element's width (the math may spend less where a narrow element rounds its error
    /// away).
    pub(crate) fn declarations(&self) -> String {
        format!("{}const ELEMENT_BITS: u32 = {}u;\n", self.layout.declarations(), self.dtype.size_bytes() * 8)
    }

    /// Elements per 16-byte storage Vector.
    pub(crate) fn vector_lanes(&self) -> u64 {
        self.layout.vector_lanes
    }

    /// Bytes per storage Word (the unit of the tail pass and of slope reads).
    pub(crate) fn word_bytes(&self) -> u64 {
        self.layout.word_lanes * self.dtype.size_bytes() as u64
    }

    /// Every file of its source, layout first, each once (order does not matter in WGSL).
    pub(crate) fn files(&self) -> impl Iterator<Item = &'static str> + '_ {
        std::iter::once(self.file).chain(self.layout.wgsl.iter().chain(self.arithmetic).copied())
    }
}

/// The WGSL types and lane counts of the interface every representation defines (documented in
/// `shaders/README.md`), which the expansion declares ahead of the files, and the shared
/// files that move elements between storage and registers for it.
#[derive(Debug)]
pub(crate) struct Layout {
    vector: &'static str,
    word: &'static str,
    lanes: &'static str,
    element: &'static str,
    mask: &'static str,
    vector_lanes: u64,
    group_lanes: u64,
    word_lanes: u64,
    /// Bits of one element packed into u32 words (`PACKED_BITS` of `shared/lanes_packed.wgsl`);
    /// 0 where elements are not packed.
    packed_bits: u64,
    wgsl: &'static [&'static str],
}

impl Layout {
    /// One Lanes value per Vector, one Element per Word: `vector` of `scalar` in both.
    const fn direct(vector: &'static str, scalar: &'static str, mask: &'static str, lanes: u64) -> Layout {
        Layout {
            vector,
            word: scalar,
            lanes: vector,
            element: scalar,
            mask,
            vector_lanes: lanes,
            group_lanes: lanes,
            word_lanes: 1,
            packed_bits: 0,
            wgsl: &[LANES_ONE_GROUP, WORDS_INDEXED, LANES_LIKE_WORDS],
        }
    }

    /// Elements of `bits` bits packed into u32 words, four groups of a word's worth of lanes.
    const fn packed(bits: u64) -> Layout {
        let per_word = 32 / bits;
        Layout {
            vector_lanes: 4 * per_word,
            word_lanes: per_word,
            packed_bits: bits,
            wgsl: &[LANES_PACKED, WORDS_INDEXED, LANES_LIKE_WORDS],
            ..U32_WORDS
        }
    }

    /// Lanes values per Vector (`GROUPS`, declared from here for the WGSL and `src/kernel.rs`,
    /// which writes the driver's steps once per group).
    pub(crate) fn groups(&self) -> u64 {
        self.vector_lanes / self.group_lanes
    }

    /// The declarations of the interface's types and lane counts.
    fn declarations(&self) -> String {
        let Layout { vector, word, lanes, element, mask, vector_lanes, group_lanes, word_lanes, packed_bits, wgsl: _ } =
            self;
        let packed =
            if *packed_bits > 0 { format!("const PACKED_BITS: u32 = {packed_bits}u;\n") } else { String::new() };
        format!(
            "alias Vector = {vector};\nalias Word = {word};\nalias Lanes = {lanes};\nalias Element = {element};\n\
             alias Mask = {mask};\nconst VECTOR_LANES: u32 = {vector_lanes}u;\nconst GROUP_LANES: u32 = {group_lanes}u;\n\
             const WORD_LANES: u32 = {word_lanes}u;\nconst GROUPS: u32 = {groups}u;\n{packed}",
            groups = self.groups()
        )
    }
}

/// 32-bit elements, as their bits in u32 words.
const U32_WORDS: Layout = Layout::direct("vec4<u32>", "u32", "vec4<bool>", 4);
/// 16-bit elements, two per u32 word.
const HALVES: Layout = Layout::packed(16);
/// 8-bit elements, four per u32 word.
const QUARTERS: Layout = Layout::packed(8);
/// 64-bit elements as (low, high) u32 pairs, two per vec4<u32>.
const U32_PAIRS: Layout = Layout {
    word: "vec2<u32>",
    element: "vec2<u32>",
    vector_lanes: 2,
    group_lanes: 2,
    wgsl: &[LANES_ONE_GROUP, LANES_PAIRS, LANES_LIKE_WORDS, WIDE_U32],
    ..U32_WORDS
};
const F64_NATIVE: Layout = Layout::direct("vec2<f64>", "f64", "vec2<bool>", 2);
const I64_NATIVE: Layout = Layout::direct("vec2<i64>", "i64", "vec2<bool>", 2);
const U64_NATIVE: Layout = Layout::direct("vec2<u64>", "u64", "vec2<bool>", 2);
/// Native f16: two vec4<f16> per Vector (`struct HalfVector` and its accessors are in the
/// representation's own file).
const F16_NATIVE: Layout = Layout {
    vector: "HalfVector",
    word: "vec2<f16>",
    lanes: "vec4<f16>",
    element: "f16",
    vector_lanes: 8,
    word_lanes: 2,
    wgsl: &[],
    ..U32_WORDS
};

const REPR_F32: &str = include_str!("../shaders/repr/f32.wgsl");
const REPR_F16: &str = include_str!("../shaders/repr/f16.wgsl");
const REPR_F16_PACKED: &str = include_str!("../shaders/repr/f16_packed.wgsl");
const REPR_BF16: &str = include_str!("../shaders/repr/bf16.wgsl");
const REPR_F64: &str = include_str!("../shaders/repr/f64.wgsl");
const REPR_F64_SOFT: &str = include_str!("../shaders/repr/f64_soft.wgsl");
/// int8 and int16, from their layout's PACKED_BITS.
const REPR_PACKED_SIGNED: &str = include_str!("../shaders/repr/packed_signed.wgsl");
/// uint8 and uint16, likewise.
const REPR_PACKED_UNSIGNED: &str = include_str!("../shaders/repr/packed_unsigned.wgsl");
const REPR_I32: &str = include_str!("../shaders/repr/i32.wgsl");
const REPR_U32: &str = include_str!("../shaders/repr/u32.wgsl");
const REPR_I64: &str = include_str!("../shaders/repr/i64.wgsl");
const REPR_I64_PAIR: &str = include_str!("../shaders/repr/i64_pair.wgsl");
const REPR_U64: &str = include_str!("../shaders/repr/u64.wgsl");
const REPR_U64_PAIR: &str = include_str!("../shaders/repr/u64_pair.wgsl");
const LANES_ONE_GROUP: &str = include_str!("../shaders/shared/lanes_one_group.wgsl");
const LANES_LIKE_WORDS: &str = include_str!("../shaders/shared/lanes_like_words.wgsl");
const WORDS_INDEXED: &str = include_str!("../shaders/shared/words_indexed.wgsl");
const LANES_PACKED: &str = include_str!("../shaders/shared/lanes_packed.wgsl");
const LANES_PAIRS: &str = include_str!("../shaders/shared/lanes_pairs.wgsl");
pub(crate) const F16_BITS: &str = include_str!("../shaders/shared/f16_bits.wgsl");
const COMPUTE_F32: &str = include_str!("../shaders/compute/f32.wgsl");
const F32_PRODUCT_ERROR: &str = include_str!("../shaders/compute/f32_product_error.wgsl");
/// A product's error from the device's fma, where it rounds once (`kernel::Tuning::fused_product_errors`).
pub(crate) const F32_PRODUCT_ERROR_FUSED: &str = include_str!("../shaders/compute/f32_product_error_fused.wgsl");
const F32_PRODUCTS: &str = include_str!("../shaders/compute/f32_products.wgsl");
const F32_PRODUCTS_EXACT: &str = include_str!("../shaders/compute/f32_products_exact.wgsl");
/// Sums that keep a subnormal result on a device that flushes them, with every exact-products
/// mode's files (`compute/f32_products.wgsl` has the plain sum).
const F32_SUMS_FLUSHING: &str = include_str!("../shaders/compute/f32_sums_flushing.wgsl");
/// Where a flushing unit's product may be wrong: the test both files below take.
const F32_PRODUCT_FLAG: &str = include_str!("../shaders/compute/f32_product_flag.wgsl");
/// `mul` as the exact product (`kernel::Products::OnIntegers` and `Listed`).
pub(crate) const F32_PRODUCTS_ON_INTEGERS: &[&str] =
    &[include_str!("../shaders/compute/f32_products_on_integers.wgsl")];
/// `mul` exact only outside a step's plain range (`kernel::Products::Guarded`).
pub(crate) const F32_PRODUCTS_GUARDED: &[&str] = &[include_str!("../shaders/compute/f32_products_guarded.wgsl")];
/// The first pass's products on a device that flushes subnormals (`kernel::Products::Flagged`).
pub(crate) const F32_PRODUCTS_FLAGGED: &[&str] =
    &[F32_PRODUCT_FLAG, F32_SUMS_FLUSHING, include_str!("../shaders/compute/f32_products_flagged.wgsl")];
const MATH_F32: &str = include_str!("../shaders/math/f32.wgsl");
const COMPUTE_F64: &str = include_str!("../shaders/compute/f64.wgsl");
const COMPUTE_F64_SOFT: &str = include_str!("../shaders/compute/f64_soft.wgsl");
const COMPUTE_F64_PROGRAM: &str = include_str!("../shaders/compute/f64_program.wgsl");
const COMPUTE_F64_LANES: &str = include_str!("../shaders/compute/f64_lanes.wgsl");
const MATH_F64: &str = include_str!("../shaders/math/f64.wgsl");
/// The element interface's arithmetic of every float representation (PRelu's product, Clip's
/// and Shrink's), from its Compute interface.
const FLOAT_LANES: &str = include_str!("../shaders/shared/float_lanes.wgsl");
const FLOAT_COMPARE: &str = include_str!("../shaders/shared/float_compare.wgsl");
const HALVES_COMPARE: &str = include_str!("../shaders/shared/halves_compare.wgsl");
/// 64-bit products on u32 words; PRelu's division (`shaders/shared/divide.wgsl`) uses it too.
pub(crate) const WIDE_U32: &str = include_str!("../shaders/shared/wide_u32.wgsl");
/// Shrink's wrapping sum and difference, for the integers of one native word an element.
const WRAPPING_SUMS: &str = include_str!("../shaders/shared/wrapping_sums.wgsl");
/// Shrink's sum or difference from them, for every integer representation.
const SHIFTED_INTEGERS: &str = include_str!("../shaders/shared/shifted_integers.wgsl");
/// The arithmetic of the integers of one native word an element; the packed and paired ones
/// define their sums themselves.
const NATIVE_INTEGER_ARITHMETIC: &[&str] = &[WRAPPING_SUMS, SHIFTED_INTEGERS];
const SOFT_F64: &str = include_str!("../shaders/shared/soft_f64.wgsl");

const NONE: wgpu::Features = wgpu::Features::empty();

/// The files of the f32 arithmetic (f32, f16, bf16): the Compute interface, its products, the
/// accurate functions, the element interface's arithmetic and comparisons.
const F32_ARITHMETIC: &[&str] = &[COMPUTE_F32, F32_PRODUCT_ERROR, F32_PRODUCTS, MATH_F32, FLOAT_LANES, FLOAT_COMPARE];
/// The f32 arithmetic for bfloat16 on u32 words: its comparisons on the bits.
const BF16_ARITHMETIC: &[&str] = &[COMPUTE_F32, F32_PRODUCT_ERROR, F32_PRODUCTS, MATH_F32, FLOAT_LANES, HALVES_COMPARE];
/// The f32 arithmetic and float16's bit conversions, for native f16.
const F16_ARITHMETIC: &[&str] =
    &[COMPUTE_F32, F32_PRODUCT_ERROR, F32_PRODUCTS, MATH_F32, FLOAT_LANES, F16_BITS, FLOAT_COMPARE];
/// The same for float16 on u32 words, with its comparisons on the bits.
const F16_PACKED_ARITHMETIC: &[&str] =
    &[COMPUTE_F32, F32_PRODUCT_ERROR, F32_PRODUCTS, MATH_F32, FLOAT_LANES, F16_BITS, HALVES_COMPARE];

/// What a row has unless it says otherwise: a native path that every adapter runs, on u32 words.
const EVERY_ADAPTER: ReprSpec = ReprSpec {
    repr: Repr::F32,
    dtype: DType::F32,
    feature: NONE,
    enable: "",
    native: true,
    slow_on_cpu_adapters: false,
    layout: &U32_WORDS,
    description: "native",
    file: REPR_F32,
    arithmetic: &[],
};
/// The 16-bit floats emulated on u32 words.
const HALF_ROW: ReprSpec = ReprSpec {
    native: false,
    layout: &HALVES,
    description: "emulated: 2 per u32, f32 math, RNE",
    arithmetic: BF16_ARITHMETIC,
    ..EVERY_ADAPTER
};
/// The native 64-bit integers.
const INT64_ROW: ReprSpec = ReprSpec {
    feature: wgpu::Features::SHADER_INT64,
    description: "native 64-bit (SHADER_INT64)",
    arithmetic: NATIVE_INTEGER_ARITHMETIC,
    ..EVERY_ADAPTER
};
/// The 64-bit integers emulated on u32 pairs.
const PAIR_ROW: ReprSpec = ReprSpec {
    native: false,
    layout: &U32_PAIRS,
    description: "emulated: (low, high) u32 pairs",
    arithmetic: &[SHIFTED_INTEGERS],
    ..EVERY_ADAPTER
};

/// Every representation, in [`Repr`] order; for each dtype the preferred (native) one first.
pub(crate) static REPRS: [ReprSpec; 16] = [
    ReprSpec { arithmetic: F32_ARITHMETIC, ..EVERY_ADAPTER },
    ReprSpec {
        repr: Repr::F16,
        dtype: DType::F16,
        feature: wgpu::Features::SHADER_F16,
        enable: "enable f16;\n",
        slow_on_cpu_adapters: true,
        layout: &F16_NATIVE,
        description: "native f16 (SHADER_F16)",
        native: true,
        file: REPR_F16,
        arithmetic: F16_ARITHMETIC,
    },
    ReprSpec {
        repr: Repr::F16Packed,
        dtype: DType::F16,
        file: REPR_F16_PACKED,
        arithmetic: F16_PACKED_ARITHMETIC,
        ..HALF_ROW
    },
    ReprSpec { repr: Repr::BF16, dtype: DType::BF16, file: REPR_BF16, ..HALF_ROW },
    ReprSpec {
        repr: Repr::F64,
        dtype: DType::F64,
        feature: wgpu::Features::SHADER_F64,
        layout: &F64_NATIVE,
        description: "native f64 (SHADER_F64)",
        file: REPR_F64,
        arithmetic: &[COMPUTE_F64, COMPUTE_F64_LANES, MATH_F64, FLOAT_LANES, FLOAT_COMPARE],
        ..EVERY_ADAPTER
    },
    ReprSpec {
        repr: Repr::F64Soft,
        dtype: DType::F64,
        description: "emulated: IEEE binary64 on u32 pairs, correctly rounded",
        file: REPR_F64_SOFT,
        arithmetic: &[
            SOFT_F64,
            COMPUTE_F64_SOFT,
            COMPUTE_F64_PROGRAM,
            COMPUTE_F64_LANES,
            MATH_F64,
            FLOAT_LANES,
            FLOAT_COMPARE,
        ],
        ..PAIR_ROW
    },
    ReprSpec {
        repr: Repr::I8,
        dtype: DType::I8,
        native: false,
        layout: &QUARTERS,
        description: "packed: 4 per u32 (WGSL has no 8-bit type)",
        file: REPR_PACKED_SIGNED,
        arithmetic: &[SHIFTED_INTEGERS],
        ..EVERY_ADAPTER
    },
    ReprSpec {
        repr: Repr::I16,
        dtype: DType::I16,
        native: false,
        layout: &HALVES,
        description: "packed: 2 per u32 (WGSL has no 16-bit integer type)",
        file: REPR_PACKED_SIGNED,
        arithmetic: &[SHIFTED_INTEGERS],
        ..EVERY_ADAPTER
    },
    ReprSpec {
        repr: Repr::U8,
        dtype: DType::U8,
        native: false,
        layout: &QUARTERS,
        description: "packed: 4 per u32 (WGSL has no 8-bit type)",
        file: REPR_PACKED_UNSIGNED,
        arithmetic: &[SHIFTED_INTEGERS],
        ..EVERY_ADAPTER
    },
    ReprSpec {
        repr: Repr::U16,
        dtype: DType::U16,
        native: false,
        layout: &HALVES,
        description: "packed: 2 per u32 (WGSL has no 16-bit integer type)",
        file: REPR_PACKED_UNSIGNED,
        arithmetic: &[SHIFTED_INTEGERS],
        ..EVERY_ADAPTER
    },
    ReprSpec {
        repr: Repr::I32,
        dtype: DType::I32,
        file: REPR_I32,
        arithmetic: NATIVE_INTEGER_ARITHMETIC,
        ..EVERY_ADAPTER
    },
    ReprSpec {
        repr: Repr::U32,
        dtype: DType::U32,
        file: REPR_U32,
        arithmetic: NATIVE_INTEGER_ARITHMETIC,
        ..EVERY_ADAPTER
    },
    ReprSpec { repr: Repr::I64, dtype: DType::I64, layout: &I64_NATIVE, file: REPR_I64, ..INT64_ROW },
    ReprSpec { repr: Repr::I64Pair, dtype: DType::I64, file: REPR_I64_PAIR, ..PAIR_ROW },
    ReprSpec { repr: Repr::U64, dtype: DType::U64, layout: &U64_NATIVE, file: REPR_U64, ..INT64_ROW },
    ReprSpec { repr: Repr::U64Pair, dtype: DType::U64, file: REPR_U64_PAIR, ..PAIR_ROW },
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

/// Whether `file` is the product error that a device whose fma rounds once replaces
/// ([`F32_PRODUCT_ERROR_FUSED`]).
pub(crate) fn is_product_error(file: &'static str) -> bool {
    file == F32_PRODUCT_ERROR
}

/// The files that replace `file` where products with subnormals are computed on integers
/// (`compute/f32_products_exact.wgsl` and the wide products it uses, for
/// `compute/f32_products.wgsl`); `None` for every other file.
pub(crate) fn exact_subnormal_products(file: &'static str) -> Option<&'static [&'static str]> {
    (file == F32_PRODUCTS).then_some(&[F32_PRODUCT_FLAG, F32_SUMS_FLUSHING, F32_PRODUCTS_EXACT, WIDE_U32])
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
            let vector_bytes = spec.vector_lanes() * spec.dtype.size_bytes() as u64;
            assert_eq!(vector_bytes, 16, "{:?}: a Vector is 16 bytes", spec.repr);
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
