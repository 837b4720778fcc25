//! A counting global allocator for the allocation tests: it counts the allocations (and bytes)
//! made by the current thread while [`allocations`] runs a closure. The counters are per thread,
//! so the test harness and tests running concurrently in the same binary do not disturb them.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

struct Counting;

thread_local! {
    static COUNTING: Cell<bool> = const { Cell::new(false) };
    static COUNT: Cell<usize> = const { Cell::new(0) };
    static BYTES: Cell<usize> = const { Cell::new(0) };
}

/// Counts one allocation of `size` bytes if this thread is counting.
fn record(size: usize) {
    // `try_with`: the thread-locals may be gone while a thread shuts down.
    let _ = COUNTING.try_with(|c| {
        if c.get() {
            let _ = COUNT.try_with(|n| n.set(n.get() + 1));
            let _ = BYTES.try_with(|n| n.set(n.get() + size));
        }
    });
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        record(layout.size());
        System.alloc(layout)
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout)
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        record(new_size);
        System.realloc(ptr, layout, new_size)
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// The number of heap allocations, and the bytes they asked for, that `f` makes on this thread.
pub fn allocations_and_bytes(f: impl FnOnce()) -> (usize, usize) {
    COUNT.with(|n| n.set(0));
    BYTES.with(|n| n.set(0));
    COUNTING.with(|c| c.set(true));
    f();
    COUNTING.with(|c| c.set(false));
    (COUNT.with(|n| n.get()), BYTES.with(|n| n.get()))
}

/// The number of heap allocations `f` makes on this thread.
#[allow(dead_code)]
pub fn allocations(f: impl FnOnce()) -> usize {
    allocations_and_bytes(f).0
}
