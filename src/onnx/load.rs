//! Loading: files read within a size cap, host tensors of any ONNX dtype, and their
//! TensorProto encoding (every storage form).

use std::io::Read;
use std::path::Path;

use half::{bf16, f16};
use ndarray::{ArrayD, IxDyn};
use prost::Message;

use super::error::OnnxError;
use super::proto::tensor_proto::DataType;
use super::proto::{ModelProto, TensorProto};
use crate::dtype::{DType, Element, with_element_type};
use crate::engine::{Context, GpuTensor};

/// Largest file the loaders read: a serialized protobuf cannot exceed 2 GiB. Files are checked
/// against it before reading, and read no further than it, so a device file or a file that
/// grows cannot make a loader allocate without bound.
pub const MAX_FILE_BYTES: u64 = 2 << 30;

/// Reads a regular file of at most `cap` bytes.
pub fn read_file(path: &Path, cap: u64) -> Result<Vec<u8>, OnnxError> {
    let fail = |reason: String| OnnxError::File { path: path.display().to_string(), reason };
    let file = std::fs::File::open(path).map_err(|e| fail(e.to_string()))?;
    let metadata = file.metadata().map_err(|e| fail(e.to_string()))?;
    if !metadata.is_file() {
        return Err(fail("is not a regular file".into()));
    }
    if metadata.len() > cap {
        return Err(fail(format!("has {} bytes, more than the {cap} accepted", metadata.len())));
    }
    let mut bytes = Vec::with_capacity(metadata.len() as usize);
    file.take(cap + 1).read_to_end(&mut bytes).map_err(|e| fail(e.to_string()))?;
    if bytes.len() as u64 > cap {
        return Err(fail(format!("grew past the {cap} bytes accepted while being read")));
    }
    Ok(bytes)
}

/// Decodes a serialized `ModelProto`.
pub fn decode_model(bytes: &[u8]) -> Result<ModelProto, OnnxError> {
    ModelProto::decode(bytes).map_err(|e| OnnxError::Malformed(format!("ModelProto: {e}")))
}

/// A host tensor of one of the dtypes the operators accept.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq)]
pub enum HostTensor {
    /// bfloat16 values.
    BF16(ArrayD<bf16>),
    /// float16 values.
    F16(ArrayD<f16>),
    /// float values.
    F32(ArrayD<f32>),
    /// double values.
    F64(ArrayD<f64>),
    /// int8 values.
    I8(ArrayD<i8>),
    /// int16 values.
    I16(ArrayD<i16>),
    /// int32 values.
    I32(ArrayD<i32>),
    /// int64 values.
    I64(ArrayD<i64>),
    /// uint8 values.
    U8(ArrayD<u8>),
    /// uint16 values.
    U16(ArrayD<u16>),
    /// uint32 values.
    U32(ArrayD<u32>),
    /// uint64 values.
    U64(ArrayD<u64>),
}

/// One value a model holds, exactly: a float's as f64 (which holds every float dtype's values),
/// an integer's as i128.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Scalar {
    Float(f64),
    Integer(i128),
}

impl Scalar {
    /// `v`'s value, exactly.
    pub(crate) fn of<T: Element>(v: T) -> Scalar {
        crate::cpu::integer_value(v).map_or_else(|| Scalar::Float(v.widened()), Scalar::Integer)
    }

    /// The value as f64: exact for the floats and for integers within 2^53.
    pub(crate) fn to_f64(self) -> f64 {
        match self {
            Scalar::Float(v) => v,
            Scalar::Integer(v) => v as f64,
        }
    }

    /// The f32 that is this value exactly (NaN for a NaN); `None` where no f32 is.
    pub(crate) fn exact_f32(self) -> Option<f32> {
        match self {
            Scalar::Float(v) => {
                let narrowed = v as f32;
                (f64::from(narrowed) == v || v.is_nan()).then_some(narrowed)
            }
            Scalar::Integer(v) => crate::dtype::f32_exactly(v),
        }
    }
}

impl std::fmt::Display for Scalar {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Scalar::Float(v) => write!(f, "{v}"),
            Scalar::Integer(v) => write!(f, "{v}"),
        }
    }
}

/// Runs `$body` with `$a` bound to the typed array inside a [`HostTensor`].
#[macro_export]
#[doc(hidden)]
macro_rules! with_host_tensor {
    ($tensor:expr, $a:ident => $body:expr) => {
        match $tensor {
            $crate::onnx::HostTensor::BF16($a) => $body,
            $crate::onnx::HostTensor::F16($a) => $body,
            $crate::onnx::HostTensor::F32($a) => $body,
            $crate::onnx::HostTensor::F64($a) => $body,
            $crate::onnx::HostTensor::I8($a) => $body,
            $crate::onnx::HostTensor::I16($a) => $body,
            $crate::onnx::HostTensor::I32($a) => $body,
            $crate::onnx::HostTensor::I64($a) => $body,
            $crate::onnx::HostTensor::U8($a) => $body,
            $crate::onnx::HostTensor::U16($a) => $body,
            $crate::onnx::HostTensor::U32($a) => $body,
            $crate::onnx::HostTensor::U64($a) => $body,
        }
    };
}

/// Elements stored little-endian, as ONNX's `raw_data` holds them, on a host of either order.
fn from_le_bytes<T: bytemuck::Pod>(raw: &[u8]) -> Vec<T> {
    let mut values: Vec<T> = bytemuck::pod_collect_to_vec(raw);
    if cfg!(target_endian = "big") {
        for element in bytemuck::cast_slice_mut::<T, u8>(&mut values).chunks_exact_mut(size_of::<T>()) {
            element.reverse();
        }
    }
    values
}

/// int32_data's values as a narrower integer type (int8, int16, uint8 and uint16 travel there),
/// each checked.
fn narrow_ints<T: TryFrom<i32>>(values: &[i32], what: &str, name: &str) -> Result<Vec<T>, OnnxError> {
    values
        .iter()
        .map(|&v| {
            T::try_from(v).map_err(|_| OnnxError::Malformed(format!("tensor {name:?}: {what} value {v} out of range")))
        })
        .collect()
}

/// Conversion between a typed array and [`HostTensor`].
pub trait HostElement: Element {
    /// Wraps an array.
    fn wrap(array: ArrayD<Self>) -> HostTensor;
    /// Borrows the array if the tensor holds this type.
    fn unwrap_ref(tensor: &HostTensor) -> Option<&ArrayD<Self>>;
}

macro_rules! host_element {
    ($t:ty, $variant:ident) => {
        impl HostElement for $t {
            fn wrap(array: ArrayD<Self>) -> HostTensor {
                HostTensor::$variant(array)
            }
            fn unwrap_ref(tensor: &HostTensor) -> Option<&ArrayD<Self>> {
                match tensor {
                    HostTensor::$variant(a) => Some(a),
                    _ => None,
                }
            }
        }
    };
}
host_element!(bf16, BF16);
host_element!(f16, F16);
host_element!(f32, F32);
host_element!(f64, F64);
host_element!(i8, I8);
host_element!(i16, I16);
host_element!(i32, I32);
host_element!(i64, I64);
host_element!(u8, U8);
host_element!(u16, U16);
host_element!(u32, U32);
host_element!(u64, U64);

/// The ONNX data type of each dtype (the generated `TensorProto.DataType`).
fn data_type(dtype: DType) -> DataType {
    match dtype {
        DType::F32 => DataType::Float,
        DType::I8 => DataType::Int8,
        DType::I16 => DataType::Int16,
        DType::I32 => DataType::Int32,
        DType::I64 => DataType::Int64,
        DType::F16 => DataType::Float16,
        DType::F64 => DataType::Double,
        DType::U8 => DataType::Uint8,
        DType::U16 => DataType::Uint16,
        DType::U32 => DataType::Uint32,
        DType::U64 => DataType::Uint64,
        DType::BF16 => DataType::Bfloat16,
    }
}

/// The dtype of an ONNX data type code, or `None` for types the operators never accept.
pub(crate) fn dtype_of_code(code: i32) -> Option<DType> {
    DType::ALL.into_iter().find(|&dtype| code_of_dtype(dtype) == code)
}

/// The ONNX data type code of a dtype.
pub(crate) fn code_of_dtype(dtype: DType) -> i32 {
    data_type(dtype) as i32
}

impl HostTensor {
    /// Element type.
    pub fn dtype(&self) -> DType {
        fn of<T: Element>(_: &ArrayD<T>) -> DType {
            T::DTYPE
        }
        with_host_tensor!(self, a => of(a))
    }

    /// Dimensions.
    pub fn shape(&self) -> &[usize] {
        with_host_tensor!(self, a => a.shape())
    }

    /// The first element, exactly (the scalars of function-body expansions and Clip's bounds).
    pub(crate) fn first_scalar(&self) -> Option<Scalar> {
        with_host_tensor!(self, a => a.iter().next().map(|&v| Scalar::of(v)))
    }

    /// Uploads the tensor to `ctx`.
    pub fn upload(&self, ctx: &Context) -> Result<GpuTensor, crate::Error> {
        with_host_tensor!(self, a => ctx.upload(a.view()))
    }

    /// Downloads a device tensor of any dtype, blocking until it is back (not in the
    /// browser: use [`HostTensor::download_async`]).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn download(ctx: &Context, tensor: &GpuTensor) -> Result<HostTensor, crate::Error> {
        pollster::block_on(Self::download_async(ctx, tensor))
    }

    /// Downloads a device tensor of any dtype.
    pub async fn download_async(ctx: &Context, tensor: &GpuTensor) -> Result<HostTensor, crate::Error> {
        with_element_type!(tensor.dtype(), T => Ok(T::wrap(ctx.download_async::<T>(tensor).await?)))
    }

    /// Decodes a serialized `TensorProto` (a `.pb` file of the ONNX backend tests).
    pub fn decode_pb(bytes: &[u8]) -> Result<Self, OnnxError> {
        let proto = TensorProto::decode(bytes).map_err(|e| OnnxError::Malformed(format!("TensorProto: {e}")))?;
        Self::from_proto(&proto)
    }

    /// Reads a `TensorProto` in any of its storage forms: `raw_data` (little-endian) or the typed
    /// fields (`float_data`, `int32_data` holding f16/bf16 bits and int8/int16/int32 values,
    /// `int64_data`, `double_data`, `uint64_data`).
    pub fn from_proto(proto: &TensorProto) -> Result<Self, OnnxError> {
        let name = proto.name.clone().unwrap_or_default();
        let code = proto.data_type.unwrap_or(0);
        let dtype = dtype_of_code(code).ok_or_else(|| OnnxError::UnsupportedDataType { tensor: name.clone(), code })?;
        if proto.data_location == Some(1) {
            return Err(OnnxError::Malformed(format!("tensor {name:?} keeps its data in an external file")));
        }
        let mut shape = Vec::with_capacity(proto.dims.len());
        for &d in &proto.dims {
            shape.push(usize::try_from(d).map_err(|_| OnnxError::Malformed(format!("tensor {name:?} has dim {d}")))?);
        }
        let len = shape
            .iter()
            .try_fold(1usize, |acc, &d| acc.checked_mul(d))
            .ok_or_else(|| OnnxError::Malformed(format!("tensor {name:?}: element count overflows")))?;
        let bad_count = |got: usize| {
            OnnxError::Malformed(format!("tensor {name:?} of shape {shape:?} holds {got} values, needs {len}"))
        };
        macro_rules! build {
            ($t:ty, $values:expr) => {{
                let values: Vec<$t> = $values;
                if values.len() != len {
                    return Err(bad_count(values.len()));
                }
                <$t as HostElement>::wrap(
                    ArrayD::from_shape_vec(IxDyn(&shape), values).map_err(|e| OnnxError::Malformed(e.to_string()))?,
                )
            }};
        }
        if let Some(raw) = proto.raw_data.as_deref() {
            if raw.len() != len.saturating_mul(dtype.size_bytes()) {
                return Err(OnnxError::Malformed(format!(
                    "tensor {name:?} of shape {shape:?} has {} raw bytes, needs {}",
                    raw.len(),
                    len.saturating_mul(dtype.size_bytes())
                )));
            }
            return Ok(with_element_type!(dtype, T => build!(T, from_le_bytes(raw))));
        }
        // 16-bit floats travel as their bit patterns in int32_data.
        let half_bits = |what: &str| -> Result<Vec<u16>, OnnxError> {
            proto
                .int32_data
                .iter()
                .map(|&v| {
                    u16::try_from(v)
                        .map_err(|_| OnnxError::Malformed(format!("tensor {name:?}: {what} bits {v} out of range")))
                })
                .collect()
        };
        Ok(match dtype {
            DType::BF16 => build!(bf16, half_bits("bfloat16")?.into_iter().map(bf16::from_bits).collect()),
            DType::F16 => build!(f16, half_bits("float16")?.into_iter().map(f16::from_bits).collect()),
            DType::F32 => build!(f32, proto.float_data.clone()),
            DType::F64 => build!(f64, proto.double_data.clone()),
            DType::I8 => build!(i8, narrow_ints(&proto.int32_data, "int8", &name)?),
            DType::I16 => build!(i16, narrow_ints(&proto.int32_data, "int16", &name)?),
            DType::I32 => build!(i32, proto.int32_data.clone()),
            DType::I64 => build!(i64, proto.int64_data.clone()),
            DType::U8 => build!(u8, narrow_ints(&proto.int32_data, "uint8", &name)?),
            DType::U16 => build!(u16, narrow_ints(&proto.int32_data, "uint16", &name)?),
            DType::U32 => build!(
                u32,
                proto
                    .uint64_data
                    .iter()
                    .map(|&v| u32::try_from(v)
                        .map_err(|_| OnnxError::Malformed(format!("tensor {name:?}: uint32 value {v}"))))
                    .collect::<Result<_, _>>()?
            ),
            DType::U64 => build!(u64, proto.uint64_data.clone()),
        })
    }

    /// Encodes as a `TensorProto` with `raw_data`.
    pub fn to_proto(&self, name: &str) -> TensorProto {
        fn raw<T: Element>(a: &ArrayD<T>) -> Vec<u8> {
            // Element::to_le_bytes equivalent: bytemuck gives native order, so swap on big-endian.
            let mut bytes = Vec::with_capacity(a.len() * T::DTYPE.size_bytes());
            for v in a.iter() {
                let mut b = bytemuck::bytes_of(v).to_vec();
                if cfg!(target_endian = "big") {
                    b.reverse();
                }
                bytes.extend_from_slice(&b);
            }
            bytes
        }
        TensorProto {
            name: Some(name.to_string()),
            data_type: Some(code_of_dtype(self.dtype())),
            dims: self.shape().iter().map(|&d| d as i64).collect(),
            raw_data: Some(with_host_tensor!(self, a => raw(a))),
            ..Default::default()
        }
    }

    /// Serialized `TensorProto` bytes.
    pub fn encode_pb(&self, name: &str) -> Vec<u8> {
        self.to_proto(name).encode_to_vec()
    }
}
