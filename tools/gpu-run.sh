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
# 250 ms), and the bench JSONs.
#
#   GPU_RUN_PARTS   which parts, in order (default: suite bench compare sweep suites)
#   NOMINAL_GBPS    the card's nominal bandwidth (default 4800, an H200; 3350 for an H100 SXM)
set -u
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
LOG=$OUT/log.txt
PARTS=${GPU_RUN_PARTS:-suite bench compare sweep suites}
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

for part in $PARTS; do
    case $part in
    suite)
        say "the operator suite, validation mode on (the guarded products and fma's errors by default)"
        WGPU_ACTIVATIONS_VALIDATE=1 limited 100 bin/unary_ops --test-threads 8
        ;;
    bench)
        say "the bench at 2^24, every kernel"
        limited 120 bin/wgpu-act bench --nominal-gbps "$NOMINAL" --json-file "$OUT/bench24.json"
        say "the bench at 2^26: f32, the 16-bit types, f64"
        limited 120 bin/wgpu-act bench --elems 67108864 --dtypes f32,f16,bf16,f64 --nominal-gbps "$NOMINAL" \
            --json-file "$OUT/bench26.json"
        ;;
    compare)
        say "2^24 f32, every product checked, Dekker's errors (before): then the float unit's products"
        WGPU_ACTIVATIONS_SUBNORMALS=integers-one-pass WGPU_ACTIVATIONS_FMA=off limited 60 \
            bin/wgpu-act bench --dtypes f32 --json-file "$OUT/before24.json"
        WGPU_ACTIVATIONS_SUBNORMALS=hardware limited 60 bin/wgpu-act bench --dtypes f32 --json-file "$OUT/float24.json"
        say "the in-process slowdown: f32 and f64 at 2^24 with a pool of 8 GiB (no buffer made twice)"
        limited 60 bin/wgpu-act --pool-mib 8192 bench --dtypes f32,f64 --json-file "$OUT/pool24.json"
        say "native f16 and f64 where the default may take another path, at 2^24"
        limited 60 bin/wgpu-act --native f16,f64 bench --dtypes f16,f64 --ops leaky-relu,relu,elu,sigmoid,prelu \
            --json-file "$OUT/native24.json"
        ;;
    sweep)
        say "every f32 input against the CPU reference: the kernels whose products or errors changed"
        WGPU_ACTIVATIONS_SWEEP_OPS=${SWEEP_OPS:-Gelu,Swish=1.702,Mish,Sigmoid,Softplus,Elu,Selu,LeakyRelu,HardSigmoid=0.25/0.4,Softsign,HardSwish,Celu} \
            limited 220 bin/unary_ops --ignored --exact every_f32_input_against_the_reference --nocapture
        ;;
    suites)
        say "the other GPU suites, validation mode on"
        for suite in prelu engine chains integration onnx_conformance properties; do
            WGPU_ACTIVATIONS_VALIDATE=1 limited 45 "bin/$suite" --test-threads 8
        done
        ;;
    esac
done
pkill -P "$smi" 2>/dev/null; kill "$smi" 2>/dev/null
say "done"
