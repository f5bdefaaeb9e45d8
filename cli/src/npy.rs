//! NumPy `.npy` files: read within a size cap with every header field checked against the
//! file's length before any allocation, and written with the input's dtype and byte order.

use std::fs;
use std::path::{Path, PathBuf};

use half::f16;
use ndarray::{ArrayD, IxDyn, ShapeBuilder};
use ndarray_npy::ReadNpyExt;
use ndarray_npy::npy::header::{Header, Layout};
use wgpu_activations::{DType, Element};

use crate::Failure;

/// Largest `.npy` file `wgpu-act` reads (4 GiB). The file's length is checked before reading.
pub(crate) const MAX_NPY_BYTES: u64 = 4 << 30;

/// The supported `.npy` descriptors: (descriptor, dtype, big-endian).
const DESCRIPTORS: [(&str, DType, bool); 20] = [
    ("<f2", DType::F16, false),
    (">f2", DType::F16, true),
    ("<f4", DType::F32, false),
    (">f4", DType::F32, true),
    ("<f8", DType::F64, false),
    (">f8", DType::F64, true),
    ("|i1", DType::I8, false),
    ("<i2", DType::I16, false),
    (">i2", DType::I16, true),
    ("<i4", DType::I32, false),
    (">i4", DType::I32, true),
    ("<i8", DType::I64, false),
    (">i8", DType::I64, true),
    ("|u1", DType::U8, false),
    ("<u2", DType::U16, false),
    (">u2", DType::U16, true),
    ("<u4", DType::U32, false),
    (">u4", DType::U32, true),
    ("<u8", DType::U64, false),
    (">u8", DType::U64, true),
];

/// Longest header accepted (numpy itself refuses headers over 10,000 bytes by default).
const MAX_HEADER_BYTES: usize = 65_536;
/// Deepest bracket nesting accepted in a header (a real one nests 2 deep).
const MAX_HEADER_NESTING: usize = 16;

/// A `.npy` file read into memory whose header has been parsed and checked against its size.
#[derive(Debug)]
pub(crate) struct Npy {
    /// "X" or "slope", for messages.
    pub(crate) role: &'static str,
    pub(crate) path: PathBuf,
    bytes: Vec<u8>,
    pub(crate) header: Header,
    pub(crate) dtype: DType,
    big_endian: bool,
    /// Where the element data starts in `bytes`.
    data_offset: usize,
}

impl Npy {
    pub(crate) fn load(path: &Path, role: &'static str) -> Result<Self, Failure> {
        let bytes = wgpu_activations::onnx::read_file(path, MAX_NPY_BYTES)
            .map_err(|e| Failure::input(format!("cannot read {role} from {e}")))?;
        let bad = |what: String| Failure::input(format!("{role} file {} {what}", path.display()));

        let data_offset = header_end(&bytes).map_err(bad)?;
        let header = Header::from_reader(&mut &bytes[..data_offset])
            .map_err(|e| bad(format!("has a malformed .npy header: {e}")))?;
        let descriptor = header
            .type_descriptor
            .as_string()
            .ok_or_else(|| bad(format!("has a structured dtype {}, which is not supported", header.type_descriptor)))?;
        let &(_, dtype, big_endian) =
            DESCRIPTORS.iter().find(|(d, _, _)| d == descriptor).ok_or_else(|| bad(unsupported(descriptor)))?;

        // ndarray requires the product of the non-zero dims to fit an isize, even when another
        // dim is 0 and the array holds nothing.
        let nonzero = header.shape.iter().filter(|&&d| d != 0).try_fold(1usize, |acc, &d| acc.checked_mul(d));
        if nonzero.is_none_or(|n| n > isize::MAX as usize) {
            return Err(bad(format!("has shape {:?}, whose size overflows", header.shape)));
        }
        let available = bytes.len() - data_offset;
        let needed = header
            .shape
            .iter()
            .try_fold(dtype.size_bytes(), |acc, &d| acc.checked_mul(d))
            .ok_or_else(|| bad(format!("has shape {:?}, whose size overflows", header.shape)))?;
        if available < needed {
            return Err(bad(format!(
                "is truncated: shape {:?} of {} needs {needed} data bytes, found {available}",
                header.shape,
                dtype.onnx_name()
            )));
        }
        if available > needed {
            return Err(bad(format!(
                "has {} bytes after the data that its header (shape {:?}, {}) does not account for",
                available - needed,
                header.shape,
                dtype.onnx_name()
            )));
        }
        Ok(Self { role, path: path.to_path_buf(), bytes, header, dtype, big_endian, data_offset })
    }

    pub(crate) fn shape(&self) -> &[usize] {
        &self.header.shape
    }

    /// The file's description without its data (what writing a result like it needs), so the
    /// data's memory goes once it is decoded.
    pub(crate) fn without_data(self) -> Npy {
        Npy { bytes: Vec::new(), ..self }
    }
}

/// Where the header of a `.npy` file ends, after checking that the whole header is present;
/// everything here is checked so that the header parser never sees a length it cannot trust.
fn header_end(bytes: &[u8]) -> Result<usize, String> {
    const MAGIC: &[u8] = b"\x93NUMPY";
    if !bytes.starts_with(MAGIC) {
        return Err(if bytes.is_empty() {
            "is empty, not a .npy file".into()
        } else if MAGIC.starts_with(bytes) {
            "is truncated inside the .npy magic string".into()
        } else {
            "is not a .npy file (no \\x93NUMPY magic string)".into()
        });
    }
    let truncated = || String::from("is truncated inside its .npy header");
    let version = bytes.get(6..8).ok_or_else(truncated)?;
    let (length_end, header_len) = match (version[0], version[1]) {
        (1, 0) => {
            let b = bytes.get(8..10).ok_or_else(truncated)?;
            (10, usize::from(u16::from_le_bytes([b[0], b[1]])))
        }
        (2, 0) | (3, 0) => {
            let b = bytes.get(8..12).ok_or_else(truncated)?;
            let len = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
            (12, usize::try_from(len).unwrap_or(usize::MAX))
        }
        (major, minor) => return Err(format!("has unsupported .npy format version {major}.{minor}")),
    };
    if header_len > MAX_HEADER_BYTES {
        return Err(format!("has a {header_len}-byte .npy header; more than {MAX_HEADER_BYTES} is not accepted"));
    }
    let end = length_end + header_len;
    let text = bytes.get(length_end..end).ok_or_else(truncated)?;
    // The header is a Python literal; bound its nesting before a recursive parser sees it.
    let mut depth = 0usize;
    for &c in text {
        match c {
            b'(' | b'[' | b'{' => {
                depth += 1;
                if depth > MAX_HEADER_NESTING {
                    return Err("has a malformed .npy header (nested too deeply)".into());
                }
            }
            b')' | b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    Ok(end)
}

fn unsupported(descriptor: &str) -> String {
    let code = descriptor.trim_start_matches(['<', '>', '|', '=']);
    let name = match code {
        "b1" | "?" => Some("bool"),
        "i1" | "b" => Some("int8"),
        "u1" | "B" => Some("uint8"),
        "i2" => Some("int16"),
        "u2" => Some("uint16"),
        "c8" => Some("complex64"),
        "c16" => Some("complex128"),
        "f16" | "g" => Some("longdouble"),
        "V2" => Some("2-byte void, e.g. ml_dtypes' bfloat16"),
        _ => None,
    };
    let named = name.map(|n| format!(" ({n})")).unwrap_or_default();
    format!(
        "has dtype {descriptor:?}{named}, which wgpu-act does not support; supported: float16, float32, \
         float64, int8, int16, int32, int64, uint8, uint16, uint32, uint64 (bfloat16 has no standard .npy dtype)"
    )
}

/// Element types that move between `.npy` files and the library.
pub(crate) trait NpyElement: Element {
    /// The values of a validated file whose dtype is `Self`.
    fn decode(npy: &Npy) -> Result<ArrayD<Self>, Failure>;
    /// Writes `y` to `path` with the dtype (and, for float16, the byte order) of `like`.
    fn encode(y: &ArrayD<Self>, like: &Npy, path: &Path) -> Result<(), Failure>;
}

pub(crate) fn write_failure(path: &Path, error: impl std::fmt::Display) -> Failure {
    Failure::input(format!("cannot write {}: {error}", path.display()))
}

macro_rules! npy_element {
    ($($t:ty),*) => {$(
        impl NpyElement for $t {
            fn decode(npy: &Npy) -> Result<ArrayD<Self>, Failure> {
                ArrayD::<$t>::read_npy(npy.bytes.as_slice())
                    .map_err(|e| Failure::input(format!("cannot read {} from {}: {e}", npy.role, npy.path.display())))
            }
            fn encode(y: &ArrayD<Self>, _like: &Npy, path: &Path) -> Result<(), Failure> {
                ndarray_npy::write_npy(path, y).map_err(|e| write_failure(path, e))
            }
        }
    )*};
}

npy_element!(f32, f64, i8, i16, i32, i64, u8, u16, u32, u64);

/// ndarray-npy 0.10 has no float16 element type, so float16 files are decoded and encoded
/// here, with ndarray-npy's header parser and writer.
impl NpyElement for f16 {
    fn decode(npy: &Npy) -> Result<ArrayD<Self>, Failure> {
        let values: Vec<f16> = npy.bytes[npy.data_offset..]
            .chunks_exact(2)
            .map(|b| {
                f16::from_bits(if npy.big_endian {
                    u16::from_be_bytes([b[0], b[1]])
                } else {
                    u16::from_le_bytes([b[0], b[1]])
                })
            })
            .collect();
        let shape = IxDyn(&npy.header.shape);
        let array = match npy.header.layout {
            Layout::Standard => ArrayD::from_shape_vec(shape, values),
            Layout::Fortran => ArrayD::from_shape_vec(shape.f(), values),
        };
        array.map_err(|e| Failure::input(format!("cannot read {} from {}: {e}", npy.role, npy.path.display())))
    }

    fn encode(y: &ArrayD<Self>, like: &Npy, path: &Path) -> Result<(), Failure> {
        let header = Header {
            type_descriptor: like.header.type_descriptor.clone(),
            layout: Layout::Standard,
            shape: y.shape().to_vec(),
        };
        let mut bytes = header.to_bytes().map_err(|e| write_failure(path, e))?;
        bytes.reserve(y.len() * 2);
        for v in y.iter() {
            let bits = v.to_bits();
            bytes.extend_from_slice(&if like.big_endian { bits.to_be_bytes() } else { bits.to_le_bytes() });
        }
        fs::write(path, bytes).map_err(|e| write_failure(path, e))
    }
}
