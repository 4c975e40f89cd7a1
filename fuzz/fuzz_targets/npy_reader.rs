//! Fuzz target: the `.npy` reader (`Tensor::from_npy`, and `Tensor::from_npy_as` for each
//! dtype, as `autofuse-run --input` and `autofuse-opt --interpret --input` read files).
//! A tensor read back must encode and decode to itself.
#![no_main]

use autofuse_ir::graph::DType;
use autofuse_ir::tensor::Tensor;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(t) = Tensor::from_npy(data) {
        let again = Tensor::from_npy(&t.to_npy()).expect("an encoded tensor decodes");
        assert_eq!(again.shape, t.shape);
        assert_eq!(again.dtype, t.dtype);
    }
    for dtype in DType::ALL {
        let _ = Tensor::from_npy_as(data, dtype);
    }
});
