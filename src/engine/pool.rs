//! Reuse of GPU buffers across calls, keyed by (size class, usage).
//!
//! A buffer goes back to the pool only when it is idle and unmapped: staging buffers are
//! unmapped before they are dropped, and one whose map never completed (a cancelled call, a lost
//! device) is [`PooledBuffer::discard`]ed rather than pooled.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

use crate::error::{Error, Result};

/// Size classes are the powers of two and three quarter-steps between them, so a pooled buffer
/// wastes at most a quarter of its size.
pub(crate) fn size_class(bytes: u64) -> u64 {
    let bytes = bytes.max(256);
    let power = bytes.next_power_of_two();
    if power == bytes {
        return bytes;
    }
    let quarter = power / 8; // steps of power/2 * 1/4
    bytes.div_ceil(quarter) * quarter
}

type PoolKey = (u64, wgpu::BufferUsages);

#[derive(Default)]
struct Idle {
    /// Per key, buffers with the sequence number of their return, oldest first.
    buffers: HashMap<PoolKey, Vec<(u64, wgpu::Buffer)>>,
    /// Per usage, the last buffer returned that is larger than the capacity (not counted in
    /// `bytes` and `count`, which the capacity bounds).
    oversized: HashMap<wgpu::BufferUsages, (u64, wgpu::Buffer)>,
    bytes: u64,
    count: usize,
    returns: u64,
}

impl Idle {
    /// Drops the least recently returned buffer; false when there is none.
    fn evict_oldest(&mut self) -> bool {
        let oldest = self
            .buffers
            .iter()
            .filter_map(|(key, list)| list.first().map(|(seq, _)| (*seq, *key)))
            .min_by_key(|(seq, _)| *seq);
        let Some((_, key)) = oldest else { return false };
        if let Some(list) = self.buffers.get_mut(&key) {
            list.remove(0);
            self.bytes -= key.0;
            self.count -= 1;
            if list.is_empty() {
                self.buffers.remove(&key);
            }
        }
        true
    }
}

/// Pool of idle buffers, holding at most `capacity` bytes: returning a buffer beyond that
/// drops the least recently returned ones. Beyond the capacity it also keeps, per usage, the last
/// buffer returned that is larger than the capacity, so that repeated calls on one large tensor
/// reuse their buffers as a program that knows its size keeps its own (at 2^26 f32 a call made
/// two 256 MiB buffers and dropped them: 1.3x a minimal wgpu program's time on an H200).
/// Buffers come back through [`PooledBuffer`]'s `Drop`.
#[derive(Clone)]
pub(crate) struct BufferPool {
    idle: Arc<Mutex<Idle>>,
    capacity: u64,
}

/// What the pool holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PoolStats {
    /// Idle buffers.
    pub idle_buffers: usize,
    /// Bytes of device memory they hold.
    pub idle_bytes: u64,
}

impl BufferPool {
    pub(crate) fn new(capacity: u64) -> Self {
        BufferPool { idle: Arc::default(), capacity }
    }

    fn lock(&self) -> MutexGuard<'_, Idle> {
        self.idle.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// A buffer of at least `bytes` bytes (and at most `max_bytes`, the device's limit, which
    /// the caller has checked `bytes` against) with exactly `usage`, reused when one is idle.
    /// The caller runs this inside the error scope of its call, so running out of memory
    /// becomes an error value there.
    pub(crate) fn take(
        &self,
        device: &wgpu::Device,
        bytes: u64,
        usage: wgpu::BufferUsages,
        label: &str,
        max_bytes: u64,
    ) -> Result<PooledBuffer> {
        let class = size_class(bytes).min(max_bytes).max(bytes);
        let reused = {
            let mut idle = self.lock();
            let found = idle.buffers.get_mut(&(class, usage)).and_then(Vec::pop).map(|(_, buffer)| buffer);
            if found.is_none() && idle.oversized.get(&usage).is_some_and(|(size, _)| *size == class) {
                return Ok(PooledBuffer {
                    buffer: idle.oversized.remove(&usage).map(|(_, buffer)| buffer),
                    pool: self.clone(),
                    class,
                    usage,
                });
            }
            if found.is_some() {
                idle.bytes -= class;
                idle.count -= 1;
            }
            found
        };
        let buffer = match reused {
            Some(buffer) => buffer,
            None => {
                if class > max_bytes {
                    return Err(Error::TooLarge {
                        what: format!("{label} buffer (bytes)"),
                        needed: class,
                        limit: max_bytes,
                    });
                }
                device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some(label),
                    size: class,
                    usage,
                    mapped_at_creation: false,
                })
            }
        };
        Ok(PooledBuffer { buffer: Some(buffer), pool: self.clone(), class, usage })
    }

    /// Drops every idle buffer, returning their memory to the device.
    pub(crate) fn clear(&self) {
        let mut idle = self.lock();
        idle.buffers.clear();
        idle.oversized.clear();
        idle.bytes = 0;
        idle.count = 0;
    }

    pub(crate) fn stats(&self) -> PoolStats {
        let idle = self.lock();
        let oversized = idle.oversized.values().map(|(size, _)| *size).sum::<u64>();
        PoolStats { idle_buffers: idle.count + idle.oversized.len(), idle_bytes: idle.bytes + oversized }
    }

    fn give_back(&self, buffer: wgpu::Buffer, class: u64, usage: wgpu::BufferUsages) {
        let mut idle = self.lock();
        if class > self.capacity {
            idle.oversized.insert(usage, (class, buffer));
            return;
        }
        while idle.bytes + class > self.capacity && idle.evict_oldest() {}
        idle.returns += 1;
        let seq = idle.returns;
        idle.bytes += class;
        idle.count += 1;
        idle.buffers.entry((class, usage)).or_default().push((seq, buffer));
    }
}

/// A buffer on loan from the pool; it goes back when dropped.
pub(crate) struct PooledBuffer {
    buffer: Option<wgpu::Buffer>,
    pool: BufferPool,
    class: u64,
    usage: wgpu::BufferUsages,
}

impl PooledBuffer {
    pub(crate) fn buffer(&self) -> &wgpu::Buffer {
        match &self.buffer {
            Some(buffer) => buffer,
            None => unreachable!("the buffer is taken only in drop and discard"),
        }
    }

    /// Drops the buffer without returning it to the pool (its state is unknown: a map that
    /// never completed, a device that was lost).
    pub(crate) fn discard(mut self) {
        self.buffer = None;
    }

    /// Unmaps the buffer and returns it to the pool. Runs outside any call (in drops and
    /// callbacks), so it opens an error scope of its own: on a lost device wgpu reports the
    /// unmap, and the default handler would panic.
    pub(crate) fn unmap_and_return(self, device: &wgpu::Device) {
        if super::platform::quietly(device, || self.buffer().unmap()) {
            self.discard();
        }
    }
}

/// The parameters of a call's dispatches, a slot each of one pooled uniform buffer
/// ([`crate::Context::take_param_slots`]): filled on the host, then uploaded at once.
pub(crate) struct ParamSlots {
    pub(super) buffer: PooledBuffer,
    pub(super) slot: u64,
    pub(super) size: u64,
    pub(super) data: Vec<u8>,
}

impl ParamSlots {
    /// Writes slot `k` and gives its binding.
    pub(crate) fn put<T: bytemuck::Pod>(&mut self, k: usize, params: &T) -> wgpu::BufferBinding<'_> {
        let offset = self.slot * k as u64;
        let bytes = bytemuck::bytes_of(params);
        debug_assert!(bytes.len() as u64 <= self.size, "parameters larger than their slot");
        self.data[offset as usize..][..bytes.len()].copy_from_slice(bytes);
        wgpu::BufferBinding { buffer: self.buffer.buffer(), offset, size: std::num::NonZeroU64::new(self.size) }
    }

    /// Uploads every slot; the buffer is to be kept until the work that reads it is done.
    pub(crate) fn upload(self, queue: &wgpu::Queue) -> PooledBuffer {
        queue.write_buffer(self.buffer.buffer(), 0, &self.data);
        self.buffer
    }
}

impl Drop for PooledBuffer {
    fn drop(&mut self) {
        if let Some(buffer) = self.buffer.take() {
            self.pool.give_back(buffer, self.class, self.usage);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::size_class;

    #[test]
    fn size_classes_cover_the_request_with_at_most_a_quarter_waste() {
        for bytes in [1u64, 255, 256, 257, 1000, 4096, 5000, 1 << 20, (1 << 20) + 1, 3 << 30] {
            let class = size_class(bytes);
            assert!(class >= bytes && class >= 256, "{bytes} -> {class}");
            assert!(class as f64 <= (bytes.max(256) as f64) * 1.25 + 1.0, "{bytes} -> {class}");
            assert_eq!(class % 16, 0);
        }
    }
}
