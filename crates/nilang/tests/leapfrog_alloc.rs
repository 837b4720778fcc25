//! Constant memory: the reversible leapfrog integrator allocates nothing per step, forward or
//! backward, however many steps it runs (a counting global allocator).

use nilang::leapfrog::*;
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

struct Counting;

static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);
static BYTES: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::SeqCst);
        BYTES.fetch_add(layout.size(), Ordering::SeqCst);
        System.alloc(layout)
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout)
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::SeqCst);
        BYTES.fetch_add(new_size, Ordering::SeqCst);
        System.realloc(ptr, layout, new_size)
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn allocations_during(f: impl FnOnce()) -> (usize, usize) {
    let (a, b) = (
        ALLOCATIONS.load(Ordering::SeqCst),
        BYTES.load(Ordering::SeqCst),
    );
    f();
    (
        ALLOCATIONS.load(Ordering::SeqCst) - a,
        BYTES.load(Ordering::SeqCst) - b,
    )
}

#[test]
fn reversible_integrator_runs_in_constant_memory() {
    // one test function: the counter is global, and tests run on parallel threads
    let mut b = solar_system();
    let mut b32 = b.convert(|v| v as f32);
    for (steps, cumulative) in [(10, false), (1000, false), (10, true), (1000, true)] {
        let used = allocations_during(|| {
            run_reversible(&mut b, steps, cumulative);
            run_reversible_inv(&mut b, steps, cumulative);
            run_reversible(&mut b32, steps, cumulative);
            run_reversible_inv(&mut b32, steps, cumulative);
        });
        assert_eq!(used, (0, 0), "{steps} steps (cumulative: {cumulative})");
    }
}
