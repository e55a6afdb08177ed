//! The few questions lanesum asks the CPU and the OS outside its kernels.
#![allow(unsafe_code)]

/// CPUID leaf `leaf`'s (eax, ebx, ecx, edx); `None` off x86-64 and under Miri, which
/// cannot run it.
pub(crate) fn cpuid(leaf: u32) -> Option<[u32; 4]> {
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    {
        // SAFETY: CPUID exists on every x86-64 CPU and only reads registers; leaves past
        // the highest one return zeros. (`__cpuid` is a safe fn from Rust 1.94; older ones
        // need the block.)
        #[allow(unused_unsafe)]
        let r = unsafe { std::arch::x86_64::__cpuid(leaf) };
        Some([r.eax, r.ebx, r.ecx, r.edx])
    }
    #[cfg(not(all(target_arch = "x86_64", not(miri))))]
    {
        let _ = leaf;
        None
    }
}

/// The logical CPU this thread runs on now (it may move at any time), for keeping data a
/// core wrote on that core; 0 where the OS does not say.
pub(crate) fn current_cpu() -> usize {
    #[cfg(all(target_os = "linux", not(miri)))]
    {
        // SAFETY: `sched_getcpu` takes no arguments and touches no memory of ours; it
        // returns -1 on failure, which maps to 0 below.
        let cpu = unsafe { libc::sched_getcpu() };
        usize::try_from(cpu).unwrap_or(0)
    }
    #[cfg(any(not(target_os = "linux"), miri))]
    {
        0
    }
}
