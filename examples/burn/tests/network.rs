//! The worked example as a test: burn and our kernels on one device, each of our steps on
//! burn's own buffers within its bound of the CPU reference (validation mode on in `cargo xtask
//! test`), and burn computing on our results. With no adapter this fails: it never skips.

use wgpu_activations_burn::{Shared, network};

#[test]
fn our_kernels_run_on_burns_tensors_in_place_and_burn_reads_their_results() {
    let shared = Shared::new().expect("a wgpu adapter that burn and wgpu-activations can share");
    let report = network::run(&shared).expect("the network runs");
    for step in &report.steps {
        assert!(step.worst_ulp <= step.bound, "{}: {} ULP > {}", step.step, step.worst_ulp, step.bound);
    }
    assert_eq!(report.steps.len(), 3);
    assert_eq!(report.row_sums.len(), network::BATCH);
    assert!(report.passed(), "{report:?}");
    assert_eq!(report.classes.len(), network::BATCH);
    assert!(report.classes.iter().all(|c| (0..network::CLASSES as i64).contains(c)));
}
