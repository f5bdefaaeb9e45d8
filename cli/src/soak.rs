//! `wgpu-act soak`: many threads sharing one context for a while, every operator and dtype (the
//! operators over an axis too), host arrays, device tensors, work encoded into the thread's own
//! encoder, fused and unfused
//! chains, in-place calls, and asynchronous calls dropped at random points; every completed
//! result checked against the CPU reference. It fails on any error, wrong result or panic, and
//! on resident memory that keeps growing after the warm-up. With `--destroy-after`, the device
//! is destroyed mid-run, and every call after must fail with `DeviceLost`, promptly.

use std::future::Future;
use std::pin::pin;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::task::{Context as TaskContext, Poll, Waker};
use std::time::{Duration, Instant};

use half::{bf16, f16};
use ndarray::{ArrayD, IxDyn};
use wgpu_activations::ops::{AXIS_OPS, PRELU, SWIGLU, UNARY_OPS, UnaryOp, accepts};
use wgpu_activations::reference::{ChainStep, check_chain};
use wgpu_activations::{Activation, Context, ContextOptions, DType, Element, Error, FloatElement, GpuTensor};

/// What the soak runs.
#[derive(Debug, Clone)]
pub(crate) struct SoakConfig {
    pub(crate) seconds: f64,
    pub(crate) threads: usize,
    /// Destroy the device after this many seconds.
    pub(crate) destroy_after: Option<f64>,
}

/// A small xorshift generator: the soak must not depend on the test-only `rand`.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }

    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// Element types the soak generates.
trait Sample: Element {
    fn random(rng: &mut Rng) -> Self;
}

macro_rules! float_sample {
    ($t:ty, $from:expr) => {
        impl Sample for $t {
            fn random(rng: &mut Rng) -> Self {
                match rng.below(16) {
                    0 => $from(f64::NAN),
                    1 => $from(-0.0),
                    2 => $from(f64::NEG_INFINITY),
                    _ => $from(rng.unit() * 16.0 - 8.0),
                }
            }
        }
    };
}
float_sample!(f32, |v: f64| v as f32);
float_sample!(f64, |v: f64| v);
float_sample!(f16, f16::from_f64);
float_sample!(bf16, bf16::from_f64);

macro_rules! int_sample {
    ($t:ty) => {
        impl Sample for $t {
            fn random(rng: &mut Rng) -> Self {
                rng.next() as $t
            }
        }
    };
}
int_sample!(i8);
int_sample!(i16);
int_sample!(i32);
int_sample!(i64);
int_sample!(u8);
int_sample!(u16);
int_sample!(u32);
int_sample!(u64);

#[derive(Default)]
struct Counters {
    calls: AtomicU64,
    host: AtomicU64,
    device: AtomicU64,
    encoded: AtomicU64,
    in_place: AtomicU64,
    asynchronous: AtomicU64,
    dropped: AtomicU64,
    errors: AtomicU64,
    wrong: AtomicU64,
    lost: AtomicU64,
    /// The slowest call to report the loss that began after it, and the slowest of those
    /// already running then (from the loss).
    slowest_after_loss: Mutex<Duration>,
    slowest_in_flight: Mutex<Duration>,
    first_problem: Mutex<Option<String>>,
}

impl Counters {
    fn problem(&self, counter: &AtomicU64, what: String) {
        counter.fetch_add(1, Ordering::Relaxed);
        let mut first = self.first_problem.lock().unwrap_or_else(|p| p.into_inner());
        first.get_or_insert(what);
    }
}

/// One chain step with what the reference needs: a unary step, PRelu with its host slope, or
/// SwiGLU with its host B and alpha.
enum Step<T> {
    Unary(Activation),
    Prelu(ArrayD<T>),
    Swiglu(ArrayD<T>, f32),
}

fn random_array<T: Sample>(rng: &mut Rng, shape: &[usize]) -> ArrayD<T> {
    let len = shape.iter().product();
    ArrayD::from_shape_vec(IxDyn(shape), (0..len).map(|_| T::random(rng)).collect())
        .unwrap_or_else(|_| ArrayD::from_elem(IxDyn(&[0]), T::random(rng)))
}

fn random_chain<T: Sample>(rng: &mut Rng, shape: &[usize]) -> Vec<Step<T>> {
    let len = 1 + rng.below(4) as usize;
    (0..len)
        .map(|_| {
            let ops: Vec<&'static UnaryOp> = UNARY_OPS.iter().copied().filter(|op| op.accepts(T::DTYPE)).collect();
            let prelu = accepts(PRELU.versions, T::DTYPE);
            if !ops.is_empty() && (!prelu || rng.below(3) > 0) {
                let op = ops[rng.below(ops.len() as u64) as usize];
                let values: Vec<f32> =
                    op.attributes.iter().map(|_| [0.01, 1.0, -0.5, 2.0, 0.0][rng.below(5) as usize]).collect();
                Step::Unary(Activation::with_attributes(op, &values))
            } else if SWIGLU.accepts(T::DTYPE) && rng.below(3) == 0 {
                Step::Swiglu(random_array::<T>(rng, shape), [1.0, 1.702, -0.5][rng.below(3) as usize])
            } else {
                // A slope of one of the broadcast patterns: scalar, per channel, trailing, same.
                let slope_shape: Vec<usize> = match rng.below(4) {
                    0 => vec![1],
                    1 => vec![shape[1], 1],
                    2 => vec![shape[2]],
                    _ => shape.to_vec(),
                };
                Step::Prelu(random_array::<T>(rng, &slope_shape))
            }
        })
        .collect()
}

/// The first element of `got` that the chain on `x` does not allow ([`check_chain`]), as a line.
fn wrong<T: Element>(x: &ArrayD<T>, chain: &[Step<T>], got: &ArrayD<T>) -> Option<String> {
    let steps: Vec<ChainStep<'_, T>> = chain
        .iter()
        .filter_map(|step| match step {
            Step::Unary(activation) => activation.reference_step(),
            Step::Prelu(slope) => Some(ChainStep::Prelu(slope.view())),
            Step::Swiglu(b, alpha) => {
                Some(ChainStep::Swiglu(b.view(), wgpu_activations::ops::attributes_from(&[*alpha])))
            }
        })
        .collect();
    check_chain(x.view(), &steps, got.view()).err().map(|e| e.to_string())
}

/// Polls `future` a random number of times, sleeping a little between polls; `None` when it
/// was dropped before completing.
fn poll_a_while<F: Future>(future: F, rng: &mut Rng) -> Option<F::Output> {
    let mut future = pin!(future);
    let mut cx = TaskContext::from_waker(Waker::noop());
    let polls = if rng.below(3) == 0 { 1 + rng.below(4) } else { 100_000 };
    for _ in 0..polls {
        if let Poll::Ready(out) = future.as_mut().poll(&mut cx) {
            return Some(out);
        }
        std::thread::sleep(Duration::from_micros(rng.below(300)));
    }
    None
}

/// One random piece of work on `T`, checked.
fn one_call<T: Sample>(ctx: &Context, rng: &mut Rng, counters: &Counters) -> Result<(), Error> {
    let shape = [1 + rng.below(4) as usize, 1 + rng.below(16) as usize, 1 + rng.below(3000) as usize];
    let x = random_array::<T>(rng, &shape);
    let chain = random_chain::<T>(rng, &shape);
    let slopes: Vec<Option<GpuTensor>> = chain
        .iter()
        .map(|s| match s {
            Step::Prelu(tensor) | Step::Swiglu(tensor, _) => ctx.upload(tensor.view()).map(Some),
            Step::Unary(_) => Ok(None),
        })
        .collect::<Result<_, _>>()?;
    let steps: Vec<Activation> = chain
        .iter()
        .zip(&slopes)
        .map(|(s, slope)| match (s, slope) {
            (Step::Unary(a), _) => a.clone(),
            (Step::Prelu(_), Some(slope)) => Activation::prelu(slope),
            (Step::Swiglu(_, alpha), Some(b)) => Activation::swiglu(b, *alpha),
            (Step::Prelu(_) | Step::Swiglu(..), None) => Activation::leaky_relu(0.0),
        })
        .collect();
    let got = match rng.below(6) {
        0 => {
            counters.host.fetch_add(1, Ordering::Relaxed);
            wgpu_activations::activations(ctx, &steps, x.view())?
        }
        1 => {
            counters.device.fetch_add(1, Ordering::Relaxed);
            let mut t = ctx.upload(x.view())?;
            if rng.below(2) == 0 {
                t = ctx.run_activations(&steps, &t)?;
            } else {
                for step in &steps {
                    t = ctx.run_activations(std::slice::from_ref(step), &t)?;
                }
            }
            ctx.download::<T>(&t)?
        }
        2 => {
            counters.encoded.fetch_add(1, Ordering::Relaxed);
            encoded_by_the_app(ctx, &steps, &x)?
        }
        3 => {
            counters.in_place.fetch_add(1, Ordering::Relaxed);
            let mut y = x.clone();
            wgpu_activations::activations_in_place(ctx, &steps, y.view_mut())?;
            y
        }
        _ => {
            counters.asynchronous.fetch_add(1, Ordering::Relaxed);
            match poll_a_while(wgpu_activations::activations_async(ctx, &steps, x.view()), rng) {
                Some(result) => result?,
                None => {
                    counters.dropped.fetch_add(1, Ordering::Relaxed);
                    return Ok(());
                }
            }
        }
    };
    if let Some(problem) = wrong(&x, &chain, &got) {
        let steps: Vec<String> = steps.iter().map(|s| format!("{s:?}")).collect();
        counters.problem(&counters.wrong, format!("{} {shape:?} [{}]: {problem}", T::DTYPE, steps.join(", ")));
    }
    Ok(())
}

/// What a user's program does with its own buffer and encoder: our work encoded between its
/// own, one submit. The program's own wgpu calls run in an error scope, as a careful program's
/// would, so that a destroyed device is an error here too rather than wgpu's default panic.
fn encoded_by_the_app<T: Sample>(ctx: &Context, steps: &[Activation], x: &ArrayD<T>) -> Result<ArrayD<T>, Error> {
    let shape = x.shape().to_vec();
    let scope = ctx.device().push_error_scope(wgpu::ErrorFilter::Validation);
    let bytes = (x.len() * T::DTYPE.size_bytes()) as u64;
    let buffer = ctx.device().create_buffer(&wgpu::BufferDescriptor {
        label: Some("soak.app"),
        size: bytes.next_multiple_of(16).max(16),
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let mut data = bytemuck::cast_slice::<T, u8>(x.as_slice().unwrap_or_default()).to_vec();
    data.resize(data.len().next_multiple_of(4), 0);
    ctx.queue().write_buffer(&buffer, 0, &data);
    let encoded = ctx.tensor_from_buffer(buffer, 0, &shape, T::DTYPE).and_then(|t| {
        let mut encoder =
            ctx.device().create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("soak.app") });
        ctx.encode_activations(&mut encoder, steps, &t, &t)?;
        ctx.queue().submit([encoder.finish()]);
        Ok(t)
    });
    let app_error = pollster::block_on(scope.pop());
    let t = encoded?;
    let y = ctx.download::<T>(&t);
    match app_error {
        // A lost device fails the download too, as DeviceLost; anything else is the app's error.
        Some(error) if y.is_ok() => Err(Error::Gpu { during: "the app's own calls", message: error.to_string() }),
        _ => y,
    }
}

/// Softmax, LogSoftmax or Hardmax over a random axis of a random shape (rows of up to 5000, so
/// that f64 takes its chunks too), on a host array, a device tensor or in the thread's own
/// encoder, checked against the reference within the operator's bound.
fn axis_call<T: Sample + FloatElement>(ctx: &Context, rng: &mut Rng, counters: &Counters) -> Result<(), Error> {
    let op = AXIS_OPS[rng.below(AXIS_OPS.len() as u64) as usize];
    let shape = [1 + rng.below(8) as usize, 1 + rng.below(5000) as usize, 1 + rng.below(3) as usize];
    let axis = rng.below(3) as i64 - 3 + 3 * rng.below(2) as i64;
    let x = random_array::<T>(rng, &shape);
    let got = match rng.below(3) {
        0 => {
            counters.host.fetch_add(1, Ordering::Relaxed);
            wgpu_activations::axis_op(ctx, op, None, x.view(), axis)?
        }
        1 => {
            counters.device.fetch_add(1, Ordering::Relaxed);
            let y = ctx.run_axis(op, &ctx.upload(x.view())?, axis, None)?;
            ctx.download::<T>(&y)?
        }
        _ => {
            counters.encoded.fetch_add(1, Ordering::Relaxed);
            let (device_x, y) = (ctx.upload(x.view())?, ctx.empty_tensor(&shape, T::DTYPE)?);
            // The app's own calls in an error scope, as in encoded_by_the_app.
            let scope = ctx.device().push_error_scope(wgpu::ErrorFilter::Validation);
            let mut encoder =
                ctx.device().create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("soak.axis") });
            let encoded = ctx.encode_axis(&mut encoder, op, &device_x, &y, axis, None);
            ctx.queue().submit([encoder.finish()]);
            let app_error = pollster::block_on(scope.pop());
            encoded?;
            let downloaded = ctx.download::<T>(&y);
            match app_error {
                Some(error) if downloaded.is_ok() => {
                    return Err(Error::Gpu { during: "the app's own calls", message: error.to_string() });
                }
                _ => downloaded?,
            }
        }
    };
    let expected = wgpu_activations::reference::axis_op(op, None, x.view(), axis)?;
    let bound = op.max_ulp.for_dtype(T::DTYPE);
    if let Some((i, (g, e))) = got
        .iter()
        .zip(expected.iter())
        .enumerate()
        .find(|(_, (g, e))| !wgpu_activations::ulp::within_ulp(**g, **e, bound))
    {
        let what = format!("{} {} {shape:?} axis {axis}: element {i} {g:?}, reference {e:?}", op.onnx_name, T::DTYPE);
        counters.problem(&counters.wrong, what);
    }
    Ok(())
}

fn call(ctx: &Context, rng: &mut Rng, counters: &Counters) -> Result<(), Error> {
    let dtype = DType::ALL[rng.below(DType::ALL.len() as u64) as usize];
    if dtype.is_float() && rng.below(5) == 0 {
        return match dtype {
            DType::BF16 => axis_call::<bf16>(ctx, rng, counters),
            DType::F16 => axis_call::<f16>(ctx, rng, counters),
            DType::F32 => axis_call::<f32>(ctx, rng, counters),
            _ => axis_call::<f64>(ctx, rng, counters),
        };
    }
    match dtype {
        DType::BF16 => one_call::<bf16>(ctx, rng, counters),
        DType::F16 => one_call::<f16>(ctx, rng, counters),
        DType::F32 => one_call::<f32>(ctx, rng, counters),
        DType::F64 => one_call::<f64>(ctx, rng, counters),
        DType::I8 => one_call::<i8>(ctx, rng, counters),
        DType::I16 => one_call::<i16>(ctx, rng, counters),
        DType::I32 => one_call::<i32>(ctx, rng, counters),
        DType::I64 => one_call::<i64>(ctx, rng, counters),
        DType::U8 => one_call::<u8>(ctx, rng, counters),
        DType::U16 => one_call::<u16>(ctx, rng, counters),
        DType::U32 => one_call::<u32>(ctx, rng, counters),
        DType::U64 => one_call::<u64>(ctx, rng, counters),
        _ => Ok(()),
    }
}

/// Resident and peak resident memory in bytes (Linux).
fn memory() -> Option<(u64, u64)> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let field = |name: &str| -> Option<u64> {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.split_whitespace().next()?.parse::<u64>().ok())
            .map(|k| k * 1024)
    };
    Some((field("VmRSS:")?, field("VmHWM:")?))
}

fn mib(bytes: u64) -> f64 {
    bytes as f64 / (1 << 20) as f64
}

/// Runs the soak; `Err` with the reason when it fails.
pub(crate) fn run(options: ContextOptions, config: &SoakConfig) -> Result<(), String> {
    let ctx = Context::new(options.clone()).map_err(|e| e.to_string())?;
    let counters = Counters::default();
    let started = Instant::now();
    let duration = Duration::from_secs_f64(config.seconds.max(1.0));
    // On lavapipe resident memory climbs for the first minute or so (the pool fills, every
    // thread's malloc arena grows with the kernels LLVM compiles) and then levels off.
    let warm_up = duration.mul_f64(0.5).min(Duration::from_secs(60));
    let destroyed = AtomicBool::new(false);
    let destroyed_at: Mutex<Option<Instant>> = Mutex::new(None);
    let mut watch = MemoryWatch::default();
    let panics = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..config.threads)
            .map(|t| {
                let (ctx, counters, destroyed, destroyed_at) = (&ctx, &counters, &destroyed, &destroyed_at);
                scope.spawn(move || work(t, ctx, counters, (destroyed, destroyed_at), started, duration))
            })
            .collect();
        // The watcher: memory after the warm-up, and the device's destruction.
        while started.elapsed() < duration {
            std::thread::sleep(Duration::from_millis(100));
            if let Some((rss, _)) = memory()
                && started.elapsed() >= warm_up
            {
                let watched = (started.elapsed() - warm_up).as_secs_f64() / (duration - warm_up).as_secs_f64();
                watch.sample(rss, watched);
            }
            if config.destroy_after.is_some_and(|s| started.elapsed().as_secs_f64() >= s)
                && !destroyed.load(Ordering::Relaxed)
            {
                *destroyed_at.lock().unwrap_or_else(|p| p.into_inner()) = Some(Instant::now());
                destroyed.store(true, Ordering::Relaxed);
                ctx.device().destroy();
            }
        }
        workers.into_iter().map(|w| w.join()).filter(Result::is_err).count()
    });
    report(&ctx, config, &counters, panics, started.elapsed(), &watch);
    let mut failures = Vec::new();
    if config.destroy_after.is_some() {
        failures.extend(loss_failures(&ctx, &counters, options)?);
    }
    let count = |c: &AtomicU64| c.load(Ordering::Relaxed);
    if count(&counters.errors) > 0 || count(&counters.wrong) > 0 || panics > 0 {
        let first = counters.first_problem.lock().unwrap_or_else(|p| p.into_inner()).clone().unwrap_or_default();
        failures.push(format!(
            "{} errors, {} wrong results, {panics} panics; first: {first}",
            count(&counters.errors),
            count(&counters.wrong)
        ));
    }
    if let Some(failure) = watch.failure() {
        failures.push(failure);
    }
    if failures.is_empty() {
        println!("soak: PASS");
        Ok(())
    } else {
        Err(failures.join("; "))
    }
}

/// Resident memory after the warm-up, its peak in each quarter of the time left. Memory may
/// wander with the allocator, may still be levelling off, and may jump once where several
/// threads compile big kernels at the same moment (a 30-second soak on lavapipe with 2 cores:
/// peaks of 385 and 484 MiB in the two halves, leaking nothing). A leak climbs at its own steady
/// rate, in every quarter.
#[derive(Debug, Default)]
struct MemoryWatch {
    /// When the warm-up ended.
    at_warm_up: Option<u64>,
    quarter_peaks: [u64; 4],
}

impl MemoryWatch {
    /// `rss` at `watched`, the share of the time after the warm-up gone by (0 to 1).
    fn sample(&mut self, rss: u64, watched: f64) {
        self.at_warm_up.get_or_insert(rss);
        let quarter = ((watched * 4.0) as usize).min(3);
        self.quarter_peaks[quarter] = self.quarter_peaks[quarter].max(rss);
    }

    /// The slowest of the three climbs from one quarter's peak to the next, made in each of them,
    /// above an eighth of the first quarter's peak plus 32 MiB of slack for the allocator: a leak
    /// climbs so, where one jump (even on top of a leak) adds to one quarter only. A short soak
    /// so sees only a fast leak; the long one (`cargo xtask soak`, 10 minutes) sees a slow one.
    fn failure(&self) -> Option<String> {
        let peaks = self.quarter_peaks;
        let slowest_climb = peaks.windows(2).map(|pair| pair[1].saturating_sub(pair[0])).min().unwrap_or(0);
        (peaks[0] > 0 && slowest_climb * 3 > peaks[0] / 8 + (32 << 20)).then(|| {
            format!(
                "resident memory kept climbing after the warm-up: its peaks in four quarters were {}",
                quarter_peaks_text(&peaks)
            )
        })
    }
}

/// The quarters' peaks in MiB, as "385.4, 386.0, 483.8 and 483.8 MiB".
fn quarter_peaks_text(peaks: &[u64; 4]) -> String {
    let [a, b, c, d] = peaks.map(mib);
    format!("{a:.1}, {b:.1}, {c:.1} and {d:.1} MiB")
}

/// One worker thread: random calls until the soak's time is up, each outcome counted; after the
/// device's destruction (`loss`: whether, and when) every call must fail with `DeviceLost`.
fn work(
    t: usize,
    ctx: &Context,
    counters: &Counters,
    loss: (&AtomicBool, &Mutex<Option<Instant>>),
    started: Instant,
    duration: Duration,
) {
    let (destroyed, destroyed_at) = loss;
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15 ^ (t as u64 + 1).wrapping_mul(0x2545_f491_4f6c_dd1d));
    while started.elapsed() < duration {
        let began = Instant::now();
        let outcome = call(ctx, &mut rng, counters);
        counters.calls.fetch_add(1, Ordering::Relaxed);
        let after_loss = destroyed.load(Ordering::Relaxed)
            && destroyed_at.lock().unwrap_or_else(|p| p.into_inner()).is_some_and(|at| began > at);
        match outcome {
            Ok(()) if after_loss => {
                counters.problem(&counters.errors, "a call after the device was destroyed succeeded".into())
            }
            Ok(()) => {}
            Err(Error::DeviceLost { .. }) if destroyed.load(Ordering::Relaxed) => {
                counters.lost.fetch_add(1, Ordering::Relaxed);
                // From the destroy, for a call already running then: a kernel whose compile
                // began before cannot be stopped, and on a CPU driver shared by the soak's
                // threads it may take seconds more (one took 16 s on lavapipe with 2 cores).
                let at = destroyed_at.lock().unwrap_or_else(|p| p.into_inner()).unwrap_or(began);
                let slowest = if began > at { &counters.slowest_after_loss } else { &counters.slowest_in_flight };
                let mut slowest = slowest.lock().unwrap_or_else(|p| p.into_inner());
                *slowest = (*slowest).max(began.max(at).elapsed());
            }
            Err(error) => counters.problem(&counters.errors, error.to_string()),
        }
    }
}

/// Prints what the soak did: calls, errors, memory, the pool and the kernel cache.
fn report(
    ctx: &Context,
    config: &SoakConfig,
    counters: &Counters,
    panics: usize,
    elapsed: Duration,
    watch: &MemoryWatch,
) {
    let count = |c: &AtomicU64| c.load(Ordering::Relaxed);
    let info = ctx.info();
    println!(
        "soak: {} threads, {:.1} s on {} ({:?})",
        config.threads,
        elapsed.as_secs_f64(),
        info.adapter.name,
        info.adapter.backend
    );
    println!(
        "calls: {} (host arrays {}, device tensors {}, encoded {}, in place {}, async {} of which {} dropped mid-flight)",
        count(&counters.calls),
        count(&counters.host),
        count(&counters.device),
        count(&counters.encoded),
        count(&counters.in_place),
        count(&counters.asynchronous),
        count(&counters.dropped)
    );
    println!("errors: {}, wrong results: {}, panics: {panics}", count(&counters.errors), count(&counters.wrong));
    let (_, peak) = memory().unwrap_or((0, 0));
    println!(
        "peak RSS: {:.1} MiB; {:.1} MiB at the warm-up's end, then peaks of {} in the four quarters after",
        mib(peak),
        mib(watch.at_warm_up.unwrap_or(0)),
        quarter_peaks_text(&watch.quarter_peaks)
    );
    let pool = ctx.pool_stats();
    let cache = ctx.pipeline_cache_stats();
    println!(
        "buffer pool: {} idle buffers, {:.1} MiB; kernel cache: {} held, {} compiled, {} evicted (capacity {})",
        pool.idle_buffers,
        mib(pool.idle_bytes),
        cache.cached,
        cache.compiled,
        cache.evicted,
        cache.capacity
    );
}

/// After the device was destroyed: what went wrong (the context did not see it, a call took
/// long to report it, or a new context does not work).
fn loss_failures(ctx: &Context, counters: &Counters, options: ContextOptions) -> Result<Vec<String>, String> {
    let count = |c: &AtomicU64| c.load(Ordering::Relaxed);
    let mut failures = Vec::new();
    let slowest = *counters.slowest_after_loss.lock().unwrap_or_else(|p| p.into_inner());
    let in_flight = *counters.slowest_in_flight.lock().unwrap_or_else(|p| p.into_inner());
    println!(
        "device destroyed: {} calls failed with DeviceLost; the slowest begun after the loss in {slowest:?}, \
         of those running then {in_flight:?} from the loss",
        count(&counters.lost)
    );
    if !ctx.is_lost() {
        failures.push("the context did not see its device lost".to_string());
    }
    // A call begun after the loss finds it at once; one running then waits out, at most, what
    // it was waiting for: a compile, or a readback within the context's timeout (60 s).
    if slowest > Duration::from_secs(10) {
        failures.push(format!("a call begun after the loss took {slowest:?} to report it"));
    }
    if in_flight > Duration::from_secs(60) {
        failures.push(format!("a call running at the loss took {in_flight:?} more to report it"));
    }
    let fresh = Context::new(options).map_err(|e| format!("no new context after the loss: {e}"))?;
    let y =
        wgpu_activations::leaky_relu(&fresh, ndarray::arr1(&[-2.0f32, 1.0]).view(), 0.5).map_err(|e| e.to_string())?;
    if y.as_slice() != Some(&[-1.0f32, 1.0][..]) {
        failures.push("a new context after the loss computed a wrong result".into());
    }
    println!("a new context after the loss works");
    Ok(failures)
}

#[cfg(test)]
mod tests {
    use super::MemoryWatch;

    const MIB: u64 = 1 << 20;

    /// Samples every 100 ms from the warm-up's end for `seconds`, of resident memory `rss(t)`.
    fn watched(seconds: f64, rss: impl Fn(f64) -> f64) -> MemoryWatch {
        let mut watch = MemoryWatch::default();
        let samples = (seconds * 10.0) as usize;
        for i in 0..samples {
            let t = i as f64 / 10.0;
            watch.sample((rss(t) * MIB as f64) as u64, i as f64 / samples as f64);
        }
        watch
    }

    #[test]
    fn a_steady_leak_fails_where_a_levelling_climb_passes() {
        // What lavapipe showed over 150 s from 60 s on: a slow rise that flattens, with noise.
        let levelling = watched(90.0, |t| 600.0 + 50.0 * (1.0 - (-t / 30.0).exp()) + 5.0 * (t * 7.0).sin());
        assert_eq!(levelling.failure(), None);
        // The 30-second soak watches 15 s: it sees a leak of 16 MiB a second (about 300 KiB a
        // call on lavapipe), and the 10-minute soak, watching 540 s, one of 1 MiB a second.
        for (seconds, mib_a_second) in [(15.0, 16.0), (540.0, 1.0)] {
            let leaking = watched(seconds, |t| 450.0 + mib_a_second * t);
            assert!(leaking.failure().is_some(), "{leaking:?}");
        }
        let flat_but_noisy = watched(15.0, |t| 450.0 + 20.0 * (t * 3.0).sin());
        assert_eq!(flat_but_noisy.failure(), None);
    }

    #[test]
    fn one_jump_passes_where_the_same_climb_made_throughout_fails() {
        // What a 30-second soak on lavapipe with 2 cores showed: 360 MiB at the warm-up's end,
        // 385 MiB in the first half, then one jump to 484 MiB, held.
        let jump = watched(15.0, |t| if t < 8.0 { 360.0 + 3.0 * t } else { 484.0 });
        assert_eq!(jump.failure(), None);
        let steady = watched(15.0, |t| 360.0 + 124.0 * t / 15.0);
        assert!(steady.failure().is_some(), "{steady:?}");
        // A jump does not hide that leak.
        let both = watched(15.0, |t| 360.0 + 124.0 * t / 15.0 + if t < 8.0 { 0.0 } else { 100.0 });
        assert!(both.failure().is_some(), "{both:?}");
    }
}
