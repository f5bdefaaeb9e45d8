//! Shader sources and their expansion per (kernel, dtype representation, variant).
//!
//! Each op family has one WGSL file in `shaders/`, written against the dtype interface that
//! each `shaders/shared/dtype_*.wgsl` file implements. A [`ShaderKey`] names one expansion;
//! [`ShaderKey::wgsl`] assembles it. Only *kinds* of things become shader text (the dtype, the
//! sequence of ops in a chain, the slope index path); every attribute and shape travels in a
//! uniform, so one pipeline serves all alphas and all shapes.

use std::fmt::Write as _;

use crate::dtype::DType;

const UNARY: &str = include_str!("../shaders/unary.wgsl");
const LEAKY_RELU: &str = include_str!("../shaders/leaky_relu.wgsl");
const ELU: &str = include_str!("../shaders/elu.wgsl");
const PRELU: &str = include_str!("../shaders/prelu.wgsl");
const EXPM1_F32: &str = include_str!("../shaders/shared/expm1_f32.wgsl");
const EXPM1_F64: &str = include_str!("../shaders/shared/expm1_f64.wgsl");
const HALF_BITS: &str = include_str!("../shaders/shared/half_bits.wgsl");
const LANES_ONE: &str = include_str!("../shaders/shared/lanes_one.wgsl");
const LANES_TWO_HALVES: &str = include_str!("../shaders/shared/lanes_two_halves.wgsl");
const FLOAT_MULTIPLY: &str = include_str!("../shaders/shared/float_multiply.wgsl");
const WIDE_U32: &str = include_str!("../shaders/shared/wide_u32.wgsl");
const DTYPE_F32: &str = include_str!("../shaders/shared/dtype_f32.wgsl");
const DTYPE_F16: &str = include_str!("../shaders/shared/dtype_f16.wgsl");
const DTYPE_F16_PACKED: &str = include_str!("../shaders/shared/dtype_f16_packed.wgsl");
const DTYPE_BF16: &str = include_str!("../shaders/shared/dtype_bf16.wgsl");
const DTYPE_F64: &str = include_str!("../shaders/shared/dtype_f64.wgsl");
const DTYPE_I32: &str = include_str!("../shaders/shared/dtype_i32.wgsl");
const DTYPE_U32: &str = include_str!("../shaders/shared/dtype_u32.wgsl");
const DTYPE_I64: &str = include_str!("../shaders/shared/dtype_i64.wgsl");
const DTYPE_U64: &str = include_str!("../shaders/shared/dtype_u64.wgsl");
const DTYPE_I64_PAIR: &str = include_str!("../shaders/shared/dtype_i64_pair.wgsl");
const DTYPE_U64_PAIR: &str = include_str!("../shaders/shared/dtype_u64_pair.wgsl");

/// Longest chain of unary ops fused into one kernel (size of `UnaryParams.alpha`).
pub(crate) const MAX_CHAIN: usize = 8;
/// Largest collapsed rank the PRelu kernel indexes (size of `PreluParams.dims`).
pub(crate) const MAX_RANK: usize = 16;
/// Invocations per workgroup in every kernel (`WORKGROUP_SIZE` in the WGSL files).
pub(crate) const WORKGROUP_SIZE: u32 = 256;

/// A unary activation kind, as it appears in a fused chain.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum UnaryKind {
    LeakyRelu,
    Elu,
}

impl UnaryKind {
    fn wgsl_fn(self) -> &'static str {
        match self {
            UnaryKind::LeakyRelu => "leaky_relu",
            UnaryKind::Elu => "elu",
        }
    }
}

/// How PRelu finds the slope element of flat X index `i` (see `src/broadcast.rs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum SlopeIndex {
    /// One slope value for all of X.
    Scalar,
    /// Slope has X's (collapsed) shape.
    Same,
    /// Collapsed pattern [slope dims, broadcast]: `i / dims[1]`.
    Outer,
    /// Collapsed pattern [broadcast, slope dims]: `i % dims[1]`.
    Inner,
    /// Collapsed pattern [broadcast, slope dims, broadcast]: `(i / dims[2]) % dims[1]`.
    Middle,
    /// Any pattern: a loop over the collapsed dims.
    General,
}

impl SlopeIndex {
    #[cfg(test)]
    pub(crate) const ALL: [SlopeIndex; 6] = [
        SlopeIndex::Scalar,
        SlopeIndex::Same,
        SlopeIndex::Outer,
        SlopeIndex::Inner,
        SlopeIndex::Middle,
        SlopeIndex::General,
    ];

    fn wgsl_body(self) -> &'static str {
        match self {
            SlopeIndex::Scalar => "    return 0u;",
            SlopeIndex::Same => "    return i;",
            SlopeIndex::Outer => "    return i / dim(1u);",
            SlopeIndex::Inner => "    return i % dim(1u);",
            SlopeIndex::Middle => "    return (i / dim(2u)) % dim(1u);",
            SlopeIndex::General => {
                "    var rest = i;
    var s = 0u;
    for (var d = params.rank; d > 0u; d--) {
        let extent = dim(d - 1u);
        s += (rest % extent) * slope_stride(d - 1u);
        rest /= extent;
    }
    return s;"
            }
        }
    }
}

/// How a dtype's elements are stored and computed in WGSL (one `shaders/shared/dtype_*.wgsl`).
/// The memory layout is the same for every representation of a dtype (dense little-endian
/// elements), so a tensor's buffer does not depend on which path a device takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Repr {
    /// f32 bits in u32 words.
    F32,
    /// f16 pairs in u32 words, read through `vec2<f16>` (SHADER_F16).
    F16Native,
    /// f16 pairs in u32 words, converted on bits (any adapter).
    F16Packed,
    /// bf16 pairs in u32 words (any adapter).
    BF16,
    /// f64 (SHADER_F64).
    F64,
    /// i32 bits in u32 words.
    I32,
    /// u32.
    U32,
    /// i64 (SHADER_INT64).
    I64Native,
    /// u64 (SHADER_INT64).
    U64Native,
    /// i64 as `vec2<u32>` (any adapter).
    I64Pair,
    /// u64 as `vec2<u32>` (any adapter).
    U64Pair,
}

impl Repr {
    #[cfg(test)]
    pub(crate) const ALL: [Repr; 11] = [
        Repr::F32,
        Repr::F16Native,
        Repr::F16Packed,
        Repr::BF16,
        Repr::F64,
        Repr::I32,
        Repr::U32,
        Repr::I64Native,
        Repr::U64Native,
        Repr::I64Pair,
        Repr::U64Pair,
    ];

    pub(crate) fn dtype(self) -> DType {
        match self {
            Repr::F32 => DType::F32,
            Repr::F16Native | Repr::F16Packed => DType::F16,
            Repr::BF16 => DType::BF16,
            Repr::F64 => DType::F64,
            Repr::I32 => DType::I32,
            Repr::U32 => DType::U32,
            Repr::I64Native | Repr::I64Pair => DType::I64,
            Repr::U64Native | Repr::U64Pair => DType::U64,
        }
    }

    /// True for the paths that use a native WGSL type the device had to offer.
    pub(crate) fn is_native(self) -> bool {
        !matches!(self, Repr::F16Packed | Repr::BF16 | Repr::I64Pair | Repr::U64Pair)
    }

    /// A short description of the path, for the README table and the CLI.
    pub(crate) fn path_name(self) -> &'static str {
        match self {
            Repr::F32 | Repr::I32 | Repr::U32 => "native",
            Repr::F16Native => "native f16 (SHADER_F16)",
            Repr::F64 => "native f64 (SHADER_F64)",
            Repr::I64Native | Repr::U64Native => "native 64-bit (SHADER_INT64)",
            Repr::F16Packed | Repr::BF16 => "emulated: 2 per u32, f32 math, RNE",
            Repr::I64Pair | Repr::U64Pair => "emulated: vec2<u32>",
        }
    }

    /// Bytes per storage word (the unit of a shader invocation).
    pub(crate) fn word_bytes(self) -> u64 {
        match self {
            Repr::F64 | Repr::I64Native | Repr::U64Native | Repr::I64Pair | Repr::U64Pair => 8,
            _ => 4,
        }
    }

    /// Elements per storage word.
    pub(crate) fn lanes(self) -> u64 {
        match self {
            Repr::F16Native | Repr::F16Packed | Repr::BF16 => 2,
            _ => 1,
        }
    }

    /// Device features the generated shader needs.
    #[cfg(test)]
    pub(crate) fn required_features(self) -> wgpu::Features {
        match self {
            Repr::F16Native => wgpu::Features::SHADER_F16,
            Repr::F64 => wgpu::Features::SHADER_F64,
            Repr::I64Native | Repr::U64Native => wgpu::Features::SHADER_INT64,
            _ => wgpu::Features::empty(),
        }
    }

    /// The dtype interface file and the helpers it relies on.
    fn sources(self) -> &'static [&'static str] {
        match self {
            Repr::F32 => &[EXPM1_F32, LANES_ONE, FLOAT_MULTIPLY, DTYPE_F32],
            Repr::F16Native => &[EXPM1_F32, FLOAT_MULTIPLY, DTYPE_F16],
            Repr::F16Packed => &[EXPM1_F32, HALF_BITS, LANES_TWO_HALVES, FLOAT_MULTIPLY, DTYPE_F16_PACKED],
            Repr::BF16 => &[EXPM1_F32, HALF_BITS, LANES_TWO_HALVES, FLOAT_MULTIPLY, DTYPE_BF16],
            Repr::F64 => &[EXPM1_F64, LANES_ONE, FLOAT_MULTIPLY, DTYPE_F64],
            Repr::I32 => &[LANES_ONE, DTYPE_I32],
            Repr::U32 => &[LANES_ONE, DTYPE_U32],
            Repr::I64Native => &[LANES_ONE, DTYPE_I64],
            Repr::U64Native => &[LANES_ONE, DTYPE_U64],
            Repr::I64Pair => &[WIDE_U32, LANES_ONE, DTYPE_I64_PAIR],
            Repr::U64Pair => &[WIDE_U32, LANES_ONE, DTYPE_U64_PAIR],
        }
    }

    fn enables(self) -> &'static str {
        match self {
            Repr::F16Native => "enable f16;\n",
            _ => "",
        }
    }

    /// The representation of `dtype` on a device with `features`, honouring the options that
    /// force emulation; `None` when the device cannot run it at all (f64 without SHADER_F64).
    pub(crate) fn choose(dtype: DType, features: wgpu::Features, options: &crate::ContextOptions) -> Option<Repr> {
        let has = |f: wgpu::Features| features.contains(f);
        let native_f16 = has(wgpu::Features::SHADER_F16) && !options.force_emulated_f16;
        let native_i64 = has(wgpu::Features::SHADER_INT64) && !options.force_emulated_i64;
        Some(match dtype {
            DType::F32 => Repr::F32,
            DType::F16 if native_f16 => Repr::F16Native,
            DType::F16 => Repr::F16Packed,
            DType::BF16 => Repr::BF16,
            DType::F64 if has(wgpu::Features::SHADER_F64) => Repr::F64,
            DType::F64 => return None,
            DType::I32 => Repr::I32,
            DType::U32 => Repr::U32,
            DType::I64 if native_i64 => Repr::I64Native,
            DType::I64 => Repr::I64Pair,
            DType::U64 if native_i64 => Repr::U64Native,
            DType::U64 => Repr::U64Pair,
        })
    }
}

/// Replaces the line that consists of `placeholder` alone (mentions in comments stay as they
/// are, documenting it).
fn fill(template: &str, placeholder: &str, text: &str) -> String {
    let mut out = String::with_capacity(template.len() + text.len());
    for line in template.lines() {
        out.push_str(if line.trim() == placeholder { text } else { line });
        out.push('\n');
    }
    out
}

/// Which kernel, for which representation: the unit of compilation and of caching.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) enum ShaderKey {
    /// A fused chain of unary activations.
    Unary { repr: Repr, chain: Vec<UnaryKind> },
    /// PRelu with one slope index path.
    Prelu { repr: Repr, index: SlopeIndex },
}

impl ShaderKey {
    pub(crate) fn repr(&self) -> Repr {
        match self {
            ShaderKey::Unary { repr, .. } | ShaderKey::Prelu { repr, .. } => *repr,
        }
    }

    /// Kernel name in candle's style, `{op}_{dtype}`, plus the variant.
    #[cfg(test)]
    pub(crate) fn name(&self) -> String {
        match self {
            ShaderKey::Unary { repr, chain } => {
                let ops: Vec<&str> = chain.iter().map(|k| k.wgsl_fn()).collect();
                format!("{}_{}", ops.join("+"), repr.dtype())
            }
            ShaderKey::Prelu { repr, index } => format!("prelu_{}.{index:?}", repr.dtype()),
        }
    }

    /// Label for GPU objects built from this key: `wgpu-activations.<op>.<dtype>[.<variant>]`.
    pub(crate) fn label(&self) -> String {
        match self {
            ShaderKey::Unary { repr, chain } => {
                let ops: Vec<&str> = chain.iter().map(|k| k.wgsl_fn()).collect();
                format!("wgpu-activations.{}.{}", ops.join("+"), repr.dtype())
            }
            ShaderKey::Prelu { repr, index } => {
                format!("wgpu-activations.prelu.{}.{index:?}", repr.dtype())
            }
        }
    }

    /// The complete WGSL source of this expansion.
    pub(crate) fn wgsl(&self) -> String {
        let repr = self.repr();
        let mut src = String::new();
        src.push_str(repr.enables());
        for part in repr.sources() {
            src.push_str(part);
        }
        match self {
            ShaderKey::Unary { chain, .. } => {
                if chain.contains(&UnaryKind::LeakyRelu) {
                    src.push_str(LEAKY_RELU);
                }
                if chain.contains(&UnaryKind::Elu) {
                    src.push_str(ELU);
                }
                let mut statements = String::new();
                for (i, kind) in chain.iter().enumerate() {
                    let _ = writeln!(statements, "    b = {}(b, op_alpha({i}u));", kind.wgsl_fn());
                }
                src.push_str(&fill(UNARY, "{{CHAIN}}", statements.trim_end()));
            }
            ShaderKey::Prelu { index, .. } => {
                src.push_str(&fill(PRELU, "{{SLOPE_INDEX}}", index.wgsl_body()));
            }
        }
        src
    }

    /// Every key the validation test must cover: each representation with each single op,
    /// every pair of ops (chains), and every PRelu index path.
    #[cfg(test)]
    pub(crate) fn all_variants() -> Vec<ShaderKey> {
        let kinds = [UnaryKind::LeakyRelu, UnaryKind::Elu];
        let mut keys = Vec::new();
        for repr in Repr::ALL {
            if repr.dtype().is_float() {
                for a in kinds {
                    keys.push(ShaderKey::Unary { repr, chain: vec![a] });
                    for b in kinds {
                        keys.push(ShaderKey::Unary { repr, chain: vec![a, b] });
                    }
                }
                keys.push(ShaderKey::Unary { repr, chain: vec![UnaryKind::Elu; MAX_CHAIN] });
            }
            for index in SlopeIndex::ALL {
                keys.push(ShaderKey::Prelu { repr, index });
            }
        }
        keys
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn validate(key: &ShaderKey) -> Result<(), String> {
        let src = key.wgsl();
        let module = naga::front::wgsl::parse_str(&src)
            .map_err(|e| format!("{}: parse error\n{}\n{src}", key.name(), e.emit_to_string(&src)))?;
        // Exactly the capabilities the key's features grant: the emulated paths must validate
        // with none, since they exist for adapters that have none.
        let features = key.repr().required_features();
        let mut caps = naga::valid::Capabilities::empty();
        if features.contains(wgpu::Features::SHADER_F16) {
            caps |= naga::valid::Capabilities::SHADER_FLOAT16;
        }
        if features.contains(wgpu::Features::SHADER_F64) {
            caps |= naga::valid::Capabilities::FLOAT64;
        }
        if features.contains(wgpu::Features::SHADER_INT64) {
            caps |= naga::valid::Capabilities::SHADER_INT64;
        }
        naga::valid::Validator::new(naga::valid::ValidationFlags::all(), caps)
            .validate(&module)
            .map_err(|e| format!("{}: invalid\n{}\n{src}", key.name(), e.emit_to_string(&src)))?;
        Ok(())
    }

    #[test]
    fn every_shader_variant_validates_with_naga() {
        let keys = ShaderKey::all_variants();
        assert!(keys.len() >= 10);
        let failures: Vec<String> = keys.iter().filter_map(|k| validate(k).err()).collect();
        assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    }

    #[test]
    fn attributes_and_shapes_are_not_shader_text() {
        // Two chains with the same kinds share one source whatever their alphas: the source
        // depends only on the key, and the key holds no numbers.
        let key = ShaderKey::Unary { repr: Repr::F32, chain: vec![UnaryKind::Elu] };
        assert!(!key.wgsl().contains("0.01"));
        assert_eq!(key.label(), "wgpu-activations.elu.f32");
        for key in ShaderKey::all_variants() {
            let src = key.wgsl();
            let unfilled = src.lines().any(|l| l.trim().starts_with("{{") && l.trim().ends_with("}}"));
            assert!(!unfilled, "unfilled placeholder in {}", key.name());
        }
    }
}
