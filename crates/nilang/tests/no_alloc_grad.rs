//! The generated gradient function `ibesselj_grad` (forward on `f64`, inverse on `GVar`) makes
//! no heap allocation: ancillas are locals, the loss is validated without formatting, and for
//! scalar arguments the returned tuple `(GVar<f64>, GVar<f64>)` lives on the stack (the
//! `Scalars` map of a scalar is the scalar itself, not a `Vec`).
//!
//! A counting global allocator counts the allocations made by this thread while a flag is
//! set; this binary holds a single test, so nothing else allocates concurrently in it.

use nilang::special::{ibesselj_grad, ibesselj_nocheck_grad};
use nilang::{GVar, Loss};
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

struct Counting;

thread_local! {
    static COUNTING: Cell<bool> = const { Cell::new(false) };
    static COUNT: Cell<usize> = const { Cell::new(0) };
}

fn count() {
    // `try_with`: the thread-locals may be gone while a thread shuts down.
    let _ = COUNTING.try_with(|c| {
        if c.get() {
            let _ = COUNT.try_with(|n| n.set(n.get() + 1));
        }
    });
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count();
        System.alloc(layout)
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        count();
        System.alloc_zeroed(layout)
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout)
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count();
        System.realloc(ptr, layout, new_size)
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// The number of heap allocations `f` makes on this thread.
fn allocations(f: impl FnOnce()) -> usize {
    COUNT.with(|n| n.set(0));
    COUNTING.with(|c| c.set(true));
    f();
    COUNTING.with(|c| c.set(false));
    COUNT.with(|n| n.get())
}

#[test]
fn ibesselj_grad_allocates_nothing() {
    // the counter works
    assert_eq!(allocations(|| drop(std::hint::black_box(vec![1u8]))), 1);

    let mut result: Option<(GVar<f64>, GVar<f64>)> = None;
    let n = allocations(|| {
        let (mut out, mut z) = (0.0f64, 1.0f64);
        result = Some(ibesselj_grad(Loss::arg(0), &mut out, 2, &mut z).unwrap());
    });
    assert_eq!(n, 0, "ibesselj_grad allocated");
    let (gout, gz) = result.unwrap();
    assert_eq!((gout.x, gout.g, gz.x), (0.0, 1.0, 1.0));
    assert!((gz.g - 0.2102436).abs() < 1e-7, "{gz:?}");

    let n = allocations(|| {
        let (mut out, mut z) = (0.0f64, 1.0f64);
        result = Some(ibesselj_nocheck_grad(Loss::arg(0), &mut out, 2, &mut z).unwrap());
    });
    assert_eq!(n, 0, "ibesselj_nocheck_grad allocated");
    assert_eq!(result.unwrap().1.g, gz.g);

    // the error path allocates nothing either (the message is formatted only on display)
    let n = allocations(|| {
        let (mut out, mut z) = (0.0f64, 1.0f64);
        assert!(ibesselj_grad(Loss::elem(0, 1), &mut out, 2, &mut z).is_err());
    });
    assert_eq!(n, 0, "the rejected loss allocated");
}
