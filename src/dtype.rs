//! Element types: the runtime [`DType`] tag and the sealed compile-time [`Element`] trait.

use std::fmt;

use half::{bf16, f16};

/// The ONNX element types the operators accept, as a runtime value (for the ONNX runner and CLI).
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DType {
    /// bfloat16: 1 sign, 8 exponent, 7 mantissa bits.
    BF16,
    /// IEEE binary16.
    F16,
    /// IEEE binary32.
    F32,
    /// IEEE binary64.
    F64,
    /// Two's-complement 8-bit integer.
    I8,
    /// Two's-complement 16-bit integer.
    I16,
    /// Two's-complement 32-bit integer.
    I32,
    /// Two's-complement 64-bit integer.
    I64,
    /// Unsigned 8-bit integer.
    U8,
    /// Unsigned 16-bit integer.
    U16,
    /// Unsigned 32-bit integer.
    U32,
    /// Unsigned 64-bit integer.
    U64,
}

/// Evaluates `$body` with `$t` naming the [`Element`] type of the runtime tag `$dtype`, so that
/// code generic over the element type is reached from a [`DType`] without a match of its own.
macro_rules! with_element_type {
    ($dtype:expr, $t:ident => $body:expr) => {
        $crate::dtype::with_element_type!(@arms $dtype, $t, $body;
            BF16 ::half::bf16, F16 ::half::f16, F32 f32, F64 f64, I8 i8, I16 i16, I32 i32, I64 i64, U32 u32,
            U8 u8, U16 u16, U64 u64)
    };
    (@arms $dtype:expr, $t:ident, $body:expr; $($variant:ident $type:ty),*) => {
        match $dtype {
            $($crate::DType::$variant => {
                type $t = $type;
                $body
            })*
        }
    };
}
pub(crate) use with_element_type;

impl DType {
    /// Every dtype, in a fixed order.
    pub const ALL: [DType; 12] = [
        DType::BF16,
        DType::F16,
        DType::F32,
        DType::F64,
        DType::I8,
        DType::I16,
        DType::I32,
        DType::I64,
        DType::U8,
        DType::U16,
        DType::U32,
        DType::U64,
    ];

    /// Bytes per element.
    pub const fn size_bytes(self) -> usize {
        match self {
            DType::I8 | DType::U8 => 1,
            DType::BF16 | DType::F16 | DType::I16 | DType::U16 => 2,
            DType::F32 | DType::I32 | DType::U32 => 4,
            DType::F64 | DType::I64 | DType::U64 => 8,
        }
    }

    /// True for the floating-point types.
    pub const fn is_float(self) -> bool {
        matches!(self, DType::BF16 | DType::F16 | DType::F32 | DType::F64)
    }

    /// Short lowercase name used in labels and kernel names (`f16`, `bf16`, `i64`, ...).
    pub const fn name(self) -> &'static str {
        match self {
            DType::BF16 => "bf16",
            DType::F16 => "f16",
            DType::F32 => "f32",
            DType::F64 => "f64",
            DType::I8 => "i8",
            DType::I16 => "i16",
            DType::I32 => "i32",
            DType::I64 => "i64",
            DType::U8 => "u8",
            DType::U16 => "u16",
            DType::U32 => "u32",
            DType::U64 => "u64",
        }
    }

    /// The ONNX type name (`tensor(float16)` is `float16`, and so on).
    pub const fn onnx_name(self) -> &'static str {
        match self {
            DType::BF16 => "bfloat16",
            DType::F16 => "float16",
            DType::F32 => "float",
            DType::F64 => "double",
            DType::I8 => "int8",
            DType::I16 => "int16",
            DType::I32 => "int32",
            DType::I64 => "int64",
            DType::U8 => "uint8",
            DType::U16 => "uint16",
            DType::U32 => "uint32",
            DType::U64 => "uint64",
        }
    }
}

impl fmt::Display for DType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

mod sealed {
    pub trait Sealed {}
}

/// An element type the operators can run on. Sealed: implemented for exactly the ONNX types in
/// [`DType`].
pub trait Element: bytemuck::Pod + Copy + Send + Sync + PartialEq + fmt::Debug + sealed::Sealed + 'static {
    /// The runtime tag of this type.
    const DTYPE: DType;

    /// `x < 0` as ONNX's `Less(X, 0)` decides it: false for -0.0 and NaN, always false for
    /// unsigned types.
    fn is_negative(self) -> bool;

    /// `self * factor` in this type's arithmetic with a single rounding (floats: computed
    /// exactly in f64 when the type is narrower, then rounded once; integers: wrapping).
    fn scaled_by(self, factor: Self) -> Self;

    /// A key whose integer order is the order of the values, and whose difference counts
    /// ULPs between floats (identity for integers). NaNs map to `None`.
    fn ulp_key(self) -> Option<i128>;

    /// True if the value is a subnormal float (always false for integers).
    fn is_subnormal(self) -> bool;

    /// The value as an f64: exact for the floats and for integers within 2^53, the nearest
    /// otherwise (the sign is always kept). What the operators' twins take.
    fn widened(self) -> f64;

    /// `v` in this type: rounded once for the floats; for the integers as Rust's `as` casts it
    /// (toward zero, saturating, NaN to 0), as the kernels cast an attribute like X.
    fn narrowed(v: f64) -> Self;
}

/// The floating-point element types, the only ones the unary operators are defined on.
pub trait FloatElement: Element {
    /// Widen exactly to f64.
    fn to_f64(self) -> f64;
    /// Round an f64 to this type, to nearest with ties to even.
    fn from_f64(v: f64) -> Self;
}

fn float_ulp_key(bits: u64, sign_bit: u64, is_nan: bool) -> Option<i128> {
    if is_nan {
        return None;
    }
    let magnitude = (bits & (sign_bit - 1)) as i128;
    Some(if bits & sign_bit != 0 { -magnitude } else { magnitude })
}

macro_rules! float_element {
    ($t:ty, $dtype:expr, $bits:ty, $to_bits:expr, $to64:expr, $from64:expr) => {
        impl sealed::Sealed for $t {}
        impl Element for $t {
            const DTYPE: DType = $dtype;
            fn is_negative(self) -> bool {
                self < <$t>::from_f64(0.0)
            }
            fn scaled_by(self, factor: Self) -> Self {
                $from64(self.to_f64() * factor.to_f64())
            }
            fn ulp_key(self) -> Option<i128> {
                let bits: $bits = $to_bits(self);
                float_ulp_key(bits as u64, 1 << (<$bits>::BITS - 1), self.to_f64().is_nan())
            }
            fn is_subnormal(self) -> bool {
                let v = self.to_f64();
                v != 0.0 && v.abs() < <$t>::MIN_POSITIVE.to_f64()
            }
            fn widened(self) -> f64 {
                $to64(self)
            }
            fn narrowed(v: f64) -> Self {
                $from64(v)
            }
        }
        impl FloatElement for $t {
            fn to_f64(self) -> f64 {
                $to64(self)
            }
            fn from_f64(v: f64) -> Self {
                $from64(v)
            }
        }
    };
}

float_element!(f16, DType::F16, u16, f16::to_bits, f16::to_f64, |v: f64| f16::from_f32(round_to_odd_f32(v)));
float_element!(bf16, DType::BF16, u16, bf16::to_bits, bf16::to_f64, |v: f64| bf16::from_f32(round_to_odd_f32(v)));

/// The f32 that is `integer` exactly; `None` where no f32 is (more than 24 significant bits, or
/// beyond f32's range).
pub(crate) fn f32_exactly(integer: i128) -> Option<f32> {
    let narrowed = integer as f32;
    (narrowed.is_finite() && narrowed as i128 == integer).then_some(narrowed)
}

/// `integer` as two f32 whose sum it is exactly: its leading 24 significant bits (toward zero,
/// so never beyond the range of a type that holds `integer`) and the rest, of the same sign;
/// `None` where the rest is no f32 (more than 24 bits from its own leading 1 to its last): every
/// integer of at most 48 bits from its leading 1 to its last is such a pair, and some wider ones.
/// 2^31 - 1 is 2147483520 + 127, -(2^40 + 1) is -2^40 - 1, 2^53 + 1 is 2^53 + 1.
pub(crate) fn f32_pair_exactly(integer: i128) -> Option<(f32, f32)> {
    let magnitude = integer.unsigned_abs();
    if magnitude >= 1 << 126 {
        return None; // beyond every integer type, and i128::MIN's magnitude has no i128
    }
    let spare_bits = (128 - magnitude.leading_zeros()).saturating_sub(f32::MANTISSA_DIGITS);
    let leading = ((magnitude >> spare_bits) << spare_bits) as i128;
    let leading = if integer < 0 { -leading } else { leading };
    Some((f32_exactly(leading)?, f32_exactly(integer - leading)?))
}

/// A 64-bit value as the two 32-bit words a kernel holds it in (`vec2<u32>`), low word first.
pub(crate) const fn words_of_u64(bits: u64) -> [u32; 2] {
    [bits as u32, (bits >> 32) as u32]
}

/// The 64-bit value of [`words_of_u64`]'s words.
pub(crate) const fn u64_of_words([low, high]: [u32; 2]) -> u64 {
    low as u64 | ((high as u64) << 32)
}

/// [`words_of_u64`]'s words carried in two f32 slots of a parameter block, whose kernels read
/// them back with `bitcast<u32>`.
pub(crate) fn slot_words_of_u64(bits: u64) -> [f32; 2] {
    words_of_u64(bits).map(f32::from_bits)
}

/// The 64-bit value of [`slot_words_of_u64`]'s slots.
pub(crate) fn u64_of_slot_words(words: [f32; 2]) -> u64 {
    u64_of_words(words.map(f32::to_bits))
}

/// The residual word of an f64 bound held in full in its bound words ([`f64_bound_slots`]): as
/// an f32 it is 2^65, which no integer bound's residual reaches (those stay below 2^40), so the
/// two kinds of residual never meet.
const F64_BOUND_TAG: u32 = 0x6000_0000;

/// An f64 bound (Clip's, of an f64 X) that no f32 holds, as its attribute's slots: its nearest
/// f32 (what `Activation::attribute` gives), the tag for its residual slot, and its bits as two
/// f32 words (low, high) for its bound words (`UnaryOp::bound_word_slot`), which the host hands
/// an f64 kernel (`UnaryOp::parameter_block`) and [`f64_from_bound_slots`] reads back. `None`
/// where f32 holds `v`: the f32 alone is then the bound.
pub(crate) fn f64_bound_slots(v: f64) -> Option<(f32, f32, [f32; 2])> {
    if f64::from(v as f32).to_bits() == v.to_bits() {
        return None;
    }
    let bits = v.to_bits();
    Some((v as f32, f32::from_bits(F64_BOUND_TAG), slot_words_of_u64(bits)))
}

/// The f64 bound of [`f64_bound_slots`] from its residual and bound words; `None` where the
/// residual is no such bound's (0, or an integer bound's residual).
pub(crate) fn f64_from_bound_slots(residual: f32, words: [f32; 2]) -> Option<f64> {
    (residual.to_bits() == F64_BOUND_TAG).then(|| f64::from_bits(u64_of_slot_words(words)))
}

/// The residual word of an integer bound held in full in its bound words
/// ([`integer_bound_slots`]): as an f32 it is -2^65, which no integer bound's residual reaches
/// and which differs from [`F64_BOUND_TAG`] in its sign.
const INTEGER_BOUND_TAG: u32 = 0xe000_0000;

/// An integer bound (Clip's, of a 64-bit X) that is not the sum of two f32 ([`f32_pair_exactly`]),
/// as its attribute's slots: its nearest f32 (of its sign, what `Activation::attribute`
/// gives), the tag for its residual slot, and its 64 bits, two's complement, as two f32 words
/// (low, high) for its bound words, which the host hands a 64-bit kernel
/// (`UnaryOp::parameter_block`) and [`integer_from_bound_slots`] reads back. `None` beyond the
/// 64-bit types' range (-2^63 to 2^64 - 1).
pub(crate) fn integer_bound_slots(v: i128) -> Option<(f32, f32, [f32; 2])> {
    if !(-(1i128 << 63)..(1i128 << 64)).contains(&v) {
        return None;
    }
    Some((v as f32, f32::from_bits(INTEGER_BOUND_TAG), slot_words_of_u64(v as u64)))
}

/// The integer bound of [`integer_bound_slots`] from its slots; `None` where the residual is no
/// such bound's.
pub(crate) fn integer_from_bound_slots(leading: f32, residual: f32, words: [f32; 2]) -> Option<i128> {
    let bits = u64_of_slot_words(words);
    (residual.to_bits() == INTEGER_BOUND_TAG)
        .then(|| if leading.is_sign_negative() { i128::from(bits as i64) } else { i128::from(bits) })
}

/// `v` as an f32 rounded to odd: exact where f32 holds it, else its neighbour toward zero with
/// the last bit set. Rounding that once more to a type of at most 22 bits of precision (f16,
/// bf16) is then correctly rounded: no double rounding. (half's own f64 conversions drop the
/// low 32 bits of the f64 where it has no hardware path, wasm32 for one, and misround ties
/// broken only by those bits.)
fn round_to_odd_f32(v: f64) -> f32 {
    let nearest = v as f32;
    if !v.is_finite() || f64::from(nearest) == v {
        return nearest;
    }
    let toward_zero = if f64::from(nearest).abs() > v.abs() { f32::from_bits(nearest.to_bits() - 1) } else { nearest };
    f32::from_bits(toward_zero.to_bits() | 1)
}
float_element!(f32, DType::F32, u32, f32::to_bits, f64::from, |v: f64| v as f32);
float_element!(f64, DType::F64, u64, f64::to_bits, |v: f64| v, |v: f64| v);

macro_rules! int_element {
    ($t:ty, $dtype:expr) => {
        impl sealed::Sealed for $t {}
        impl Element for $t {
            const DTYPE: DType = $dtype;
            #[allow(unused_comparisons, reason = "unsigned types are never negative")]
            fn is_negative(self) -> bool {
                self < 0
            }
            fn scaled_by(self, factor: Self) -> Self {
                self.wrapping_mul(factor)
            }
            fn ulp_key(self) -> Option<i128> {
                Some(self as i128)
            }
            fn is_subnormal(self) -> bool {
                false
            }
            fn widened(self) -> f64 {
                self as f64
            }
            fn narrowed(v: f64) -> Self {
                v as $t
            }
        }
    };
}

int_element!(i8, DType::I8);
int_element!(i16, DType::I16);
int_element!(i32, DType::I32);
int_element!(i64, DType::I64);
int_element!(u8, DType::U8);
int_element!(u16, DType::U16);
int_element!(u32, DType::U32);
int_element!(u64, DType::U64);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn f64_to_f32_rounding_is_to_nearest_even() {
        // 1 + 2^-24 is the midpoint between 1 and the next f32: ties go to the even 1.0.
        assert_eq!(f32::from_f64(1.0 + f64::powi(2.0, -24)), 1.0);
        assert_eq!(f16::from_f64(1.0 + f64::powi(2.0, -11)), f16::ONE);
        assert_eq!(bf16::from_f64(1.0 + f64::powi(2.0, -8)), bf16::ONE);
        // A tie in the top 32 bits of the f64, broken by its low bits (half's fallback misses).
        let above_tie = -1.7939453125 * 0.58056640625;
        assert_eq!(<f16 as FloatElement>::from_f64(above_tie), f16::from_f64_const(-1.0419921875));
        let just_above = 1.0 + f64::powi(2.0, -11) + f64::powi(2.0, -40);
        assert_eq!(<f16 as FloatElement>::from_f64(just_above).to_f64(), 1.0 + f64::powi(2.0, -10));
        assert_eq!(
            <bf16 as FloatElement>::from_f64(1.0 + f64::powi(2.0, -8) + f64::powi(2.0, -45)).to_f64(),
            1.0 + f64::powi(2.0, -7)
        );
        assert_eq!(<f16 as FloatElement>::from_f64(1e300), f16::INFINITY);
        assert_eq!(<bf16 as FloatElement>::from_f64(-1e-300).to_bits(), 0x8000);
    }

    #[test]
    fn f32_pairs_sum_to_the_integer_exactly_within_48_bits() {
        assert_eq!(f32_pair_exactly((1 << 53) + 1), Some((9007199254740992.0, 1.0)));
        assert_eq!(f32_pair_exactly((1 << 53) + (1 << 25) + 1), None);
        assert_eq!(f32_pair_exactly(i128::MIN), None);
        assert_eq!(f32_pair_exactly(i128::MAX), None);
        assert_eq!(f32_pair_exactly(-(1 << 125)), Some((-(2f32.powi(125)), 0.0)));
        assert_eq!(f32_pair_exactly((1 << 31) - 1), Some((2147483520.0, 127.0)));
        assert_eq!(f32_pair_exactly(-(1 << 40) - 1), Some((-1099511627776.0, -1.0)));
        assert_eq!(f32_pair_exactly(-(1 << 63)), Some((-9223372036854775808.0, 0.0)));
        assert_eq!(f32_pair_exactly(0), Some((0.0, 0.0)));
        assert_eq!(f32_pair_exactly(i128::from(i64::MAX)), None);
        assert_eq!(f32_pair_exactly(i128::from(u64::MAX)), None);
        for shift in 0..80 {
            for integer in [(1i128 << 48) - 1, 0xabc_def0_1234, 1 << 24 | 1, 7] {
                let integer = integer << shift.min(127 - 49);
                for integer in [integer, -integer] {
                    let (leading, rest) = f32_pair_exactly(integer).unwrap();
                    assert_eq!(leading as i128 + rest as i128, integer);
                    assert!(leading.abs() as i128 <= integer.abs() && rest * leading >= 0.0, "{integer}");
                }
            }
        }
    }

    #[test]
    fn f64_bound_slots_hold_their_bound_and_never_look_like_an_integer_residual() {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut held = 0;
        for _ in 0..200_000 {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let v = f64::from_bits(state);
            match f64_bound_slots(v) {
                Some((nearest, residual, words)) => {
                    held += 1;
                    assert_eq!(f64_from_bound_slots(residual, words).map(f64::to_bits), Some(v.to_bits()));
                    assert_eq!(nearest.to_bits(), (v as f32).to_bits());
                }
                None => assert_eq!(f64::from(v as f32).to_bits(), v.to_bits(), "{v:e}"),
            }
        }
        assert!(held > 190_000, "{held}");
        let (_, tag, _) = f64_bound_slots(0.1).unwrap();
        assert!(tag.abs() >= 2f32.powi(65));
        for v in [0.1, -0.7, 1e300, -1e-300, f64::MAX, f64::MIN_POSITIVE, -f64::from_bits(1), 1.0 + 2f64.powi(-52)] {
            let (_, residual, words) = f64_bound_slots(v).unwrap();
            assert_eq!(f64_from_bound_slots(residual, words), Some(v));
        }
        for v in [0.5, -0.0, f64::INFINITY, f64::NAN, f64::from(f32::MAX)] {
            assert_eq!(f64_bound_slots(v), None, "{v:e}");
        }
        for residual in [0.0, 127.0, -(2f32.powi(36))] {
            assert_eq!(f64_from_bound_slots(residual, [1.0, 2.0]), None);
        }
    }

    #[test]
    fn integer_bound_slots_hold_every_64_bit_integer() {
        for v in [(1i128 << 53) + (1 << 25) + 1, -(1 << 63), (1 << 63) - 1, (1 << 64) - 1, -((1 << 62) + 3), 5] {
            let (nearest, residual, words) = integer_bound_slots(v).unwrap();
            assert_eq!(integer_from_bound_slots(nearest, residual, words), Some(v));
            assert!(residual.abs() >= 2f32.powi(65) && f64_from_bound_slots(residual, words).is_none());
        }
        assert_eq!(integer_bound_slots(1 << 64), None);
        assert_eq!(integer_bound_slots(-(1 << 63) - 1), None);
        assert_eq!(integer_from_bound_slots(1.0, 127.0, [1.0, 2.0]), None);
    }

    #[test]
    fn ulp_key_counts_steps_across_zero() {
        let next = f32::from_bits(1);
        assert_eq!(next.ulp_key().unwrap() - 0.0f32.ulp_key().unwrap(), 1);
        assert_eq!((-0.0f32).ulp_key(), 0.0f32.ulp_key());
        assert_eq!(f32::NAN.ulp_key(), None);
        assert_eq!(1.0f32.ulp_key().unwrap() - 0.99999994f32.ulp_key().unwrap(), 1);
    }

    #[test]
    fn negativity_follows_onnx_less() {
        assert!(!(-0.0f32).is_negative());
        assert!(!f32::NAN.is_negative());
        assert!(f32::NEG_INFINITY.is_negative());
        assert!(!u64::MAX.is_negative());
        assert!(i64::MIN.is_negative());
        assert_eq!(i32::MIN.scaled_by(-1), i32::MIN);
    }
}
