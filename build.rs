//! With the `onnx` feature: generates the ONNX protobuf types from the official
//! `proto/onnx.proto` with prost, using protox (a pure-Rust protobuf compiler) so that no
//! `protoc` binary is needed. Without it there is nothing to build.

fn main() -> Result<(), Box<dyn std::error::Error>> {
    #[cfg(feature = "onnx")]
    {
        println!("cargo:rerun-if-changed=proto/onnx.proto");
        let descriptors = protox::compile(["onnx.proto"], ["proto"])?;
        prost_build::Config::new().compile_fds(descriptors)?;
    }
    Ok(())
}
