//! The correctly rounded f64 Elu, Selu and Celu, for ULP figures that do not lean on the
//! platform's `exp_m1`: expm1 in double-double arithmetic (about 100 bits), rounded once to f64.

/// An unevaluated sum `hi + lo` with `|lo| <= ulp(hi) / 2`.
#[derive(Debug, Clone, Copy)]
pub struct DoubleDouble {
    pub hi: f64,
    pub lo: f64,
}

fn two_sum(a: f64, b: f64) -> DoubleDouble {
    let s = a + b;
    let bb = s - a;
    DoubleDouble { hi: s, lo: (a - (s - bb)) + (b - bb) }
}

fn two_product(a: f64, b: f64) -> DoubleDouble {
    let p = a * b;
    DoubleDouble { hi: p, lo: a.mul_add(b, -p) }
}

impl DoubleDouble {
    pub fn from(v: f64) -> Self {
        DoubleDouble { hi: v, lo: 0.0 }
    }

    pub fn add(self, other: Self) -> Self {
        let s = two_sum(self.hi, other.hi);
        let t = two_sum(self.lo, other.lo);
        let hi = two_sum(s.hi, s.lo + t.hi);
        two_sum(hi.hi, hi.lo + t.lo)
    }

    pub fn mul(self, other: Self) -> Self {
        let p = two_product(self.hi, other.hi);
        two_sum(p.hi, p.lo + (self.hi * other.lo + self.lo * other.hi))
    }

    pub fn scale(self, power_of_two: f64) -> Self {
        DoubleDouble { hi: self.hi * power_of_two, lo: self.lo * power_of_two }
    }

    /// Rounded once to f64 (the pair is normalised, so `hi` is the nearest f64 unless `lo`
    /// is exactly half an ULP, which the sum below settles).
    pub fn to_f64(self) -> f64 {
        self.hi + self.lo
    }
}

/// ln 2 as three doubles (hi with 32 significant bits, so `k * hi` is exact for |k| < 2^21).
const LN2: [f64; 3] = [0.693_147_180_369_123_8, 1.908_214_929_270_587_7e-10, 1.161_222_722_936_253_2e-26];

/// expm1(r) for |r| <= 0.35 by its Taylor series in double-double.
fn expm1_small(r: DoubleDouble) -> DoubleDouble {
    let mut term = r;
    let mut sum = r;
    for n in 2..40u32 {
        term = term.mul(r).mul(DoubleDouble::from(1.0 / f64::from(n)));
        // 1/n is rounded; its error (2^-53 relative) enters only terms already below 2^-55.
        sum = sum.add(term);
        if term.hi.abs() < sum.hi.abs() * 1e-34 {
            break;
        }
    }
    sum
}

/// expm1(x) for x <= 0, to about 100 bits.
pub fn expm1_dd(x: f64) -> DoubleDouble {
    if x == 0.0 || x.is_nan() {
        return DoubleDouble::from(x);
    }
    if x < -800.0 {
        return DoubleDouble::from(-1.0);
    }
    let k = (x / LN2[0]).round();
    // r = x - k ln2, exactly enough: each product is exact or carries its own error term.
    let r = DoubleDouble::from(x)
        .add(DoubleDouble::from(-k * LN2[0]))
        .add(two_product(-k, LN2[1]))
        .add(DoubleDouble::from(-k * LN2[2]));
    let small = expm1_small(r);
    if k == 0.0 {
        return small;
    }
    // expm1(x) = 2^k (1 + expm1(r)) - 1 = 2^k expm1(r) + (2^k - 1).
    let power = 2f64.powi(k as i32);
    small.scale(power).add(two_sum(power, -1.0))
}

/// Elu(x) = alpha * expm1(x) for x < 0, correctly rounded to f64 (`alpha` an f32, as the
/// attribute is); x itself otherwise.
pub fn elu_f64(x: f64, alpha: f32) -> f64 {
    if x.is_nan() || x >= 0.0 || x == 0.0 {
        return x;
    }
    expm1_dd(x).mul(DoubleDouble::from(f64::from(alpha))).to_f64()
}

/// Selu(x) = gamma * alpha * expm1(x) for x < 0, gamma * x otherwise, correctly rounded to f64
/// (`alpha` and `gamma` f32, as the attributes are: their product is exact in f64).
pub fn selu_f64(x: f64, alpha: f32, gamma: f32) -> f64 {
    let gamma = f64::from(gamma);
    if x.is_nan() || x >= 0.0 {
        return gamma * x; // one IEEE product: correctly rounded
    }
    expm1_dd(x).mul(DoubleDouble::from(f64::from(alpha) * gamma)).to_f64()
}

/// Celu(x) = alpha * expm1(x / alpha) where x / alpha < 0, x otherwise, correctly rounded to
/// f64, for a finite positive `alpha`. The quotient is carried as a double-double `q + q_lo`,
/// and expm1(q + q_lo) = expm1(q) + (1 + expm1(q)) q_lo to well beyond f64's precision.
pub fn celu_f64(x: f64, alpha: f32) -> f64 {
    assert!(alpha.is_finite() && alpha > 0.0, "celu_f64 takes a finite positive alpha");
    let alpha = f64::from(alpha);
    let q = x / alpha;
    if x.is_nan() || x >= 0.0 || q > -2f64.powi(-60) {
        // x + x^2 / (2 alpha) + ...: the terms past x are far below half an ULP of x.
        return x;
    }
    if q < -800.0 {
        return -alpha; // alpha (e^q - 1) with e^q below 2^-1150
    }
    let e = expm1_dd(q);
    let q_lo = (-q).mul_add(alpha, x) / alpha; // the division's exact remainder, over alpha
    let sum = e.add(e.add(DoubleDouble::from(1.0)).mul(DoubleDouble::from(q_lo)));
    sum.mul(DoubleDouble::from(alpha)).to_f64()
}
