//! Generates the ONNX protobuf types from the official `proto/onnx.proto` with prost, using
//! protox (a pure-Rust protobuf compiler) so that no `protoc` binary is needed.

fn main() -> Result<(), Box<dyn std::error::Error>> {
    println!("cargo:rerun-if-changed=proto/onnx.proto");
    let descriptors = protox::compile(["onnx.proto"], ["proto"])?;
    prost_build::Config::new().compile_fds(descriptors)?;
    Ok(())
}
