#!/usr/bin/env bash
# One short run on a real GPU (issue 52; BENCHMARKS.md, "A short GPU run"): everything a lease
# of about 15 minutes allows, most telling first, each part under its own time limit so that
# what finished comes back even when the lease does not last.
#
# Made here by `cargo xtask gpu-bundle` (release builds of wgpu-act and the GPU suites, gzipped
# into .gpu/, and the Vulkan loader's Debian packages in .gl/); run there from a copy of the
# repository with both folders, as root, e.g. through the device tool:
#   run(command: "bash tools/gpu-run.sh", carry: [".gpu", ".gl"], timeout_s: 560)
# Results go to $OUT (default ./gpu-out): log.txt, smi.csv (clocks, power and temperature every
# 250 ms), and bench.txt, each bench part's JSON after a line `== part NAME` (the device tool
# brings back at most 8 files).
#
#   GPU_RUN_PARTS   which parts, in order (default: suite axes axis24 axiscpu24 now26 split26
#                   lines26 float26 narrow26 now24 sweep engine burn before26; also: suites,
#                   every GPU suite but the operators')
#   NOMINAL_GBPS    the card's nominal bandwidth (default 4800, an H200; 3350 for an H100 SXM)
set -u
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
LOG=$OUT/log.txt
PARTS=${GPU_RUN_PARTS:-suite axes axis24 axiscpu24 now26 split26 lines26 float26 narrow26 now24 sweep engine burn before26}
NOMINAL=${NOMINAL_GBPS:-4800}
started=$(date +%s)
say() { echo "== $(( $(date +%s) - started )) s: $*" | tee -a "$LOG"; }
# Runs "$@" for at most $1 seconds, its output into the log.
limited() {
    local seconds=$1
    shift
    timeout --kill-after=5 "$seconds" "$@" >>"$LOG" 2>&1
    local code=$?
    say "exit $code: $*"
}

say "unpacking"
for deb in .gl/*.deb; do [ -e "$deb" ] && dpkg -x "$deb" /; done
ldconfig
if ! ldconfig -p | grep -q libvulkan; then say "no Vulkan loader: bring .gl (cargo xtask gpu-bundle)"; fi
nvidia_icd=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
[ -e "$nvidia_icd" ] && export VK_DRIVER_FILES=$nvidia_icd
mkdir -p bin
for packed in .gpu/*.gz; do gzip -dc "$packed" >"bin/$(basename "$packed" .gz)"; done
chmod +x bin/*
# The suites find their data through the path they were built at (CARGO_MANIFEST_DIR).
built_at=$(cat .gpu/built-at 2>/dev/null || echo /work/main)
if [ "$built_at" != "$PWD" ] && [ ! -e "$built_at" ]; then
    mkdir -p "$(dirname "$built_at")" && ln -s "$PWD" "$built_at"
fi
export WGPU_BACKEND=vulkan CI=true XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-$(mktemp -d)}
(
    query=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu,memory.used
    nvidia-smi --query-gpu=$query,clocks_event_reasons.active --format=csv -lms 250 ||
        nvidia-smi --query-gpu=$query --format=csv -lms 250
) >"$OUT/smi.csv" 2>&1 &
smi=$!
nvidia-smi >>"$LOG" 2>&1
limited 20 bin/wgpu-act info

# Each bench part is one process; within it every ratio alternates a kernel with the copy kernel
# after both ran back to back for 0.3 s (the GPU's clocks up: src/bench/mod.rs).
bench() {
    local name=$1 seconds=$2
    shift 2
    say "bench $name: $*"
    limited "$seconds" bin/wgpu-act "$@" --nominal-gbps "$NOMINAL" --json-file "$name.json"
    { echo "== part $name"; cat "$name.json" 2>/dev/null; echo; } >>"$OUT/bench.txt"
}
for part in $PARTS; do
    case $part in
    suite)
        say "the operator suite, validation mode on (the guarded products and fma's errors by default)"
        WGPU_ACTIVATIONS_VALIDATE=1 limited 100 bin/unary_ops --test-threads 8
        ;;
    axes)
        say "the kernels over an axis (issue 50; never on a GPU before), validation mode on"
        WGPU_ACTIVATIONS_VALIDATE=1 limited 120 bin/axis_ops --test-threads 8
        ;;
    axis24)
        # Issue 50's speed table: rows of 8, 1000 and 2^16, another axis, and long columns (the
        # held chunks, read twice), with the spec's body in plain f32 beside ours.
        bench axis24 90 bench --ops softmax,log-softmax,hardmax,swiglu,clip,shrink --dtypes f32,f16,bf16
        ;;
    axiscpu24)
        # The same rows in the forms chosen for CPU adapters (a row an invocation read a vector
        # at a time, chunks an invocation each), to see which a GPU should take.
        WGPU_ACTIVATIONS_AXIS_FORMS=cpu bench axiscpu24 60 bench --ops softmax,log-softmax,hardmax --dtypes f32,f16
        ;;
    now26) bench now26 90 bench --elems 67108864 --dtypes f32 ;;
    split26)
        # The guarded kernels' exact products in a second pass over flagged Vectors (a CPU
        # adapter's default): the first pass holds the plain copies alone. Where one pass's
        # kernels fall short of the float unit's on inputs all in range (Sigmoid 0.82 against
        # 0.99 on the H200), this tells whether the exact code beside the plain one costs it.
        WGPU_ACTIVATIONS_SUBNORMALS=guarded-two-passes bench split26 60 bench --elems 67108864 --dtypes f32 \
            --ops leaky-relu,selu,celu,sigmoid,softplus,swish,mish,gelu,swiglu
        ;;
    lines26)
        # The same guarded kernels in the straight-line form: an invocation's Vectors all loaded
        # before any is computed, where the loop loads each after the previous one's store (and
        # its branch between the plain copy and the exact code). AMD's compiler waits for each
        # Vector's load in the loop form: one load in flight an invocation (BENCHMARKS.md, "A GPU
        # compiler's view without a GPU"). PRelu's general pattern (0.33 of copy on the H200, with
        # 11 instructions an element there) waits on its slope's loads too.
        bench lines26 60 bench --elems 67108864 --dtypes f32 --driver straight-line \
            --ops leaky-relu,selu,celu,sigmoid,softplus,swish,mish,gelu,prelu
        ;;
    before26)
        # Every product checked and Dekker's errors: the kernels before issue 52's changes.
        WGPU_ACTIVATIONS_SUBNORMALS=integers-one-pass WGPU_ACTIVATIONS_FMA=off \
            bench before26 90 bench --elems 67108864 --dtypes f32
        ;;
    float26)
        # The float unit's products unchecked: wrong for subnormals on a device that flushes.
        WGPU_ACTIVATIONS_SUBNORMALS=hardware bench float26 90 bench --elems 67108864 --dtypes f32 ;;
    narrow26)
        bench narrow26 60 bench --elems 67108864 --dtypes f16,bf16,f64 --ops leaky-relu,relu,elu,prelu,sigmoid ;;
    now24) bench now24 90 bench --dtypes f32,f16,bf16,f64 ;;
    sweep)
        # Gelu first: its erf form's new fit, and its fma residual, which only a device whose fma
        # rounds once (the probe's) runs.
        say "every f32 input against the CPU reference: the kernels whose products, errors or plain copies changed, in that order"
        WGPU_ACTIVATIONS_SWEEP_OPS=${SWEEP_OPS:-Gelu,Swish=1.702,Mish,Swish,Sigmoid,Softplus,HardSigmoid=0.25/0.4} \
            limited 200 bin/unary_ops --ignored --exact every_f32_input_against_the_reference --nocapture
        ;;
    suites)
        say "the other GPU suites, validation mode on"
        for suite in prelu engine chains integration onnx_conformance properties; do
            WGPU_ACTIVATIONS_VALIDATE=1 limited 45 "bin/$suite" --test-threads 8
        done
        ;;
    engine) WGPU_ACTIVATIONS_VALIDATE=1 limited 45 bin/engine --test-threads 8 ;;
    burn)
        # Issue 49: the worked example on burn's tensors (validation on), then ours beside burn's
        # own activations at 2^26 elements (BENCHMARKS.md, "Beside burn 0.22 on one device").
        say "burn: the worked example, then the side-by-side table at 2^26"
        WGPU_ACTIVATIONS_VALIDATE=1 limited 30 bin/wgpu-activations-burn
        limited 150 bin/wgpu-activations-burn bench --rows 65536 --iterations 4 --repeats 7
        ;;
    esac
done
pkill -P "$smi" 2>/dev/null; kill "$smi" 2>/dev/null
say "done"
