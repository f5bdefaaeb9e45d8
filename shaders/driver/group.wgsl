// One group of a Vector's elements through the chain's steps (driver/vector.wgsl,
// driver/listed.wgsl, and the tail in driver/elementwise.wgsl): `out` is in scope, {{G}} is the
// group's index and {{STEPS}} one statement per step on the group `b`, e.g.
// `b = elu(b, attributes_0);` or `b = prelu(b, scalar_1);` (in the tail, a slope of X's shape is
// read as words). src/kernel.rs writes it once per group of the representation (GROUPS),
// unrolled, in the loop form of the driver: on SwiftShader a loop over the groups, even of one
// iteration, held each step's value in memory (natively, 2^22 f32, share of the copy kernel:
// LeakyRelu 0.62 -> 0.87 with the hardware's products, Elu 0.39 -> 0.59, Sigmoid 0.34 ->
// 0.52). The straight-line form (llvmpipe) keeps a loop around it, with {{G}} its counter:
// LLVM unrolls it alone, and that form already repeats the steps once per Vector (unrolled
// there too, a 16-bit kernel held eight copies of them and the soak's resident memory grew
// past its bound). The tail, run once per dispatch, keeps the loop.
{
    let g = {{G}};
    var b = group(out, g);
{{STEPS}}
    out = with_group(out, g, b);
}
