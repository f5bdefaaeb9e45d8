//! The elementwise driver's uniform block, as Rust writes it.

use super::MAX_CHAIN;
use crate::broadcast::{MAX_BLOCK, MAX_RANK};

/// One step's slots of [`Params`]: a unary step's attributes, or a PRelu step's slope pattern.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, bytemuck::Pod, bytemuck::Zeroable)]
pub(crate) struct StepParams {
    pub(crate) attributes: [f32; 4],
    /// Run length, channels, flat index of the first bound slope element, unused; for a unary
    /// step, its case in a step program ([`super::KernelKey::program_case`]), then its plain range's
    /// words ([`crate::ops::PlainRange::words`], for [`super::Products::Guarded`]), unused.
    pub(crate) slope: [u32; 4],
    /// The channel cursor's move between an invocation's Vectors: (run, channel, unused, unused).
    pub(crate) jump: [u32; 4],
    /// Run length and channels prepared for division: magic numbers, then modes.
    pub(crate) divide: [u32; 4],
}

/// The driver's uniform block (`struct Params` in `shaders/driver/elementwise.wgsl`); a test
/// checks that naga lays the WGSL struct out exactly like this.
#[repr(C)]
#[derive(Debug, Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
pub(crate) struct Params {
    pub(crate) vectors: u32,
    pub(crate) tail_word: u32,
    pub(crate) tail_elements: u32,
    pub(crate) first_element: u32,
    pub(crate) steps: [StepParams; MAX_CHAIN],
    pub(crate) general_rank: u32,
    /// Always 0: the kernels hide values from the compiler behind it (`shaders/README.md`).
    pub(crate) zero: u32,
    /// The most workgroups a second pass over marked Vectors dispatches (`driver/marks.wgsl`).
    pub(crate) max_listed_groups: u32,
    /// A step program's length (`driver/program.wgsl`); 0 in other kernels.
    pub(crate) program_steps: u32,
    pub(crate) general_dims: [u32; MAX_RANK],
    pub(crate) general_strides: [u32; MAX_RANK],
    /// `general_dims` prepared for division (`Divisor`): magic numbers, and modes.
    pub(crate) general_magics: [u32; MAX_RANK],
    pub(crate) general_modes: [u32; MAX_RANK],
    /// The slope offsets of [`crate::broadcast::SlopeAccess::Blocked`]'s block.
    pub(crate) block_offsets: [u32; MAX_BLOCK],
}
