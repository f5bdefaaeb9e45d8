//! The bench's table on a small input: every row where we compute the activation is within our
//! bound of the correctly rounded result, on burn's tensors, beside burn's own row.

use wgpu_activations::DType;
use wgpu_activations_burn::Shared;
use wgpu_activations_burn::side_by_side::{self, Precision};

#[test]
fn every_row_of_ours_is_within_its_bound_beside_burns() {
    let shared = Shared::new().expect("a wgpu adapter that burn and wgpu-activations can share");
    let mut precisions = vec![(Precision::F32, DType::F32)];
    if shared.device.features().contains(wgpu::Features::SHADER_F16) {
        precisions.push((Precision::F16, DType::F16));
    }
    for (precision, dtype) in precisions {
        let rows = side_by_side::run(&shared, precision, 8, 1, 1).expect("the bench runs");
        assert_eq!(rows.len(), side_by_side::ROWS_OF_THE_TABLE);
        for row in &rows {
            if let (Some(ulp), Some(bound)) = (row.ours_ulp, side_by_side::bound(row.name, dtype)) {
                assert!(ulp <= bound, "{precision:?} {}: {ulp} ULP > {bound}", row.name);
            }
            assert!(row.burn_share_of_copy > 0.0 && row.burn_share_of_copy.is_finite());
        }
        println!("{}", side_by_side::markdown(precision, &rows));
    }
}
