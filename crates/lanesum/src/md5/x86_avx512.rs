//! Placeholder: the AVX512 kernels for this family land here.

use crate::isa::Features;
use crate::lanes::LaneKernel;

pub(crate) fn kernels(_features: Features) -> Vec<LaneKernel<u32>> {
    Vec::new()
}
