// One group of a Vector's elements through the chain's steps (driver/vector.wgsl,
// driver/listed.wgsl): `out` is in scope, {{G}} is the group's index and {{STEPS_MAIN}} the
// driver's. src/kernel.rs writes it once per group of the representation (GROUPS), unrolled,
// in the loop form of the driver: on SwiftShader a loop over the groups, even of one
// iteration, held each step's value in memory (natively, 2^22 f32, share of the copy kernel:
// LeakyRelu 0.62 -> 0.87 with the hardware's products, Elu 0.39 -> 0.59, Sigmoid 0.34 ->
// 0.52). The straight-line form (llvmpipe) keeps a loop around it, with {{G}} its counter:
// LLVM unrolls it alone, and that form already repeats the steps once per Vector (unrolled
// there too, a 16-bit kernel held eight copies of them and the soak's resident memory grew
// past its bound).
{
    let g = {{G}};
    var b = group(out, g);
{{STEPS_MAIN}}
    out = with_group(out, g, b);
}
