// A step program (src/kernel.rs, `Tuning::step_program`): the group `b` through the steps that
// `params` lists, in place of one statement per step (driver/group.wgsl's {{STEPS}}). The chain
// is then data, not text: one kernel serves every chain over the same operators, in any order
// and of any length up to MAX_CHAIN, where each distinct chain would compile a kernel of its own.
// On CPU drivers that compile is most of a small tensor's cost (BENCHMARKS.md, "Many distinct
// kernels"). params.program_steps is the chain's length, params.steps[s].slope.x the case of
// step s's operator, and params.steps[s].attributes its attributes.
// Placeholder, a line of its own:
//   {{CASES}}  one case per operator of the kernel, e.g. `case 2u: { b = elu(b, attributes); }`
// The trip count comes from the uniform, so a compiler cannot unroll the loop into MAX_CHAIN
// copies of every operator.
for (var s = 0u; s < params.program_steps; s++) {
    let attributes = params.steps[s].attributes;
    switch params.steps[s].slope.x {
{{CASES}}
        default: {}
    }
}
