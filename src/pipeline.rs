//! Compiled compute pipelines, built once per [`ShaderKey`] and shared between threads.

use std::collections::HashMap;
use std::sync::{Arc, RwLock};

use crate::error::{Error, Result};
use crate::shader::ShaderKey;

/// A compiled kernel and the layout of its bind group 0.
pub(crate) struct Kernel {
    pub(crate) pipeline: wgpu::ComputePipeline,
    pub(crate) layout: wgpu::BindGroupLayout,
    pub(crate) label: String,
}

/// Checks under a read lock; builds outside any lock; inserts under the write lock, keeping
/// whichever kernel got there first so every caller shares one.
#[derive(Default)]
pub(crate) struct PipelineCache {
    kernels: RwLock<HashMap<ShaderKey, Arc<Kernel>>>,
}

impl PipelineCache {
    pub(crate) fn len(&self) -> usize {
        self.kernels.read().unwrap_or_else(|p| p.into_inner()).len()
    }

    pub(crate) fn get_or_build(&self, device: &wgpu::Device, key: &ShaderKey) -> Result<Arc<Kernel>> {
        if let Some(kernel) = self.kernels.read().unwrap_or_else(|p| p.into_inner()).get(key) {
            return Ok(Arc::clone(kernel));
        }
        let built = Arc::new(build(device, key)?);
        let mut kernels = self.kernels.write().unwrap_or_else(|p| p.into_inner());
        Ok(Arc::clone(kernels.entry(key.clone()).or_insert(built)))
    }
}

fn build(device: &wgpu::Device, key: &ShaderKey) -> Result<Kernel> {
    let label = key.label();
    let wgsl = key.wgsl();
    let scope = device.push_error_scope(wgpu::ErrorFilter::Validation);
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some(&label),
        source: wgpu::ShaderSource::Wgsl(wgsl.as_str().into()),
    });
    let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: Some(&label),
        layout: None,
        module: &module,
        entry_point: Some("main"),
        compilation_options: wgpu::PipelineCompilationOptions::default(),
        cache: None,
    });
    if let Some(error) = pollster::block_on(scope.pop()) {
        return Err(Error::Shader { label, message: error.to_string(), wgsl });
    }
    let layout = pipeline.get_bind_group_layout(0);
    Ok(Kernel { pipeline, layout, label })
}
