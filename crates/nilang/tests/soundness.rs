//! Safe code never reaches undefined behaviour through the unchecked and parallel paths of the
//! generated code, whatever the user's types and expressions do (ARCHITECTURE.md,
//! "Soundness"). Each test is a shape that once wrote out of bounds, raced, or panicked on a
//! correct program; the programs that were unsound because of shadowed names are now compile
//! errors (`tests/ui/shadowed_*.rs`, `broadcast_in_parallel_loop.rs`, `xor_self_operand.rs`).

use nilang::i;
use std::cell::Cell;
use std::ops::{Deref, DerefMut, Index};
use std::sync::atomic::{AtomicUsize, Ordering};

/// A correct stencil under `nocheck`: `x[i - 1]` runs only where `i > 0`, so its index must not
/// be checked at `i = 0` before the loop (it was, and the program panicked).
#[i(nocheck)]
fn stencil(y: &mut [f64], x: &[f64]) {
    for i in 0..y.len() {
        if i > 0 {
            y[i] += identity(x[i - 1]);
        }
    }
}

#[test]
fn an_access_under_a_condition_keeps_its_own_check() {
    let (mut y, x) = (vec![0.0; 4], [1.0, 2.0, 3.0, 4.0]);
    stencil(&mut y, &x);
    assert_eq!(y, [0.0, 1.0, 2.0, 3.0]);
    stencil_inv(&mut y, &x);
    assert_eq!(y, [0.0; 4]);
}

/// A table whose `Index` answers 0 the first time and 1 000 after: an index part the loop
/// does not change is evaluated once, before the loop, for the check and for every access.
struct Shifty {
    calls: Cell<usize>,
    values: [usize; 2],
}

impl Index<usize> for Shifty {
    type Output = usize;
    fn index(&self, _: usize) -> &usize {
        let n = self.calls.get();
        self.calls.set(n + 1);
        &self.values[usize::from(n > 0)]
    }
}

#[i(nocheck)]
fn shifted(y: &mut [f64], t: &Shifty) {
    for i in 0..4 {
        y[t[0] + i] += 1.0;
    }
}

#[test]
fn invariant_index_parts_are_read_once_before_the_loop() {
    // sentinels around the four elements the loop may write
    let mut buffer = vec![-7.0; 16];
    let t = Shifty {
        calls: Cell::new(0),
        values: [2, 1000],
    };
    shifted(&mut buffer[4..10], &t);
    assert_eq!(t.calls.get(), 1, "read once");
    assert_eq!(&buffer[..6], &[-7.0; 6]);
    assert_eq!(&buffer[6..10], &[-6.0; 4]);
    assert_eq!(&buffer[10..], &[-7.0; 6], "nothing written past the slice");
}

/// A type whose `len()` is a logical size, larger than the slice it derefs to: its elements
/// are indexed with checks (nothing before the loop can trust its `len()`).
struct Padded(Vec<f64>);

impl Padded {
    fn len(&self) -> usize {
        self.0.len() + 96
    }
}

impl Deref for Padded {
    type Target = [f64];
    fn deref(&self) -> &[f64] {
        &self.0
    }
}

impl DerefMut for Padded {
    fn deref_mut(&mut self) -> &mut [f64] {
        &mut self.0
    }
}

#[i(nocheck)]
fn bump(x: &mut Padded) {
    for i in 0..x.len() {
        x[i] += 1.0;
    }
}

#[test]
#[should_panic(expected = "index out of bounds: the len is 4 but the index is 4")]
fn a_logical_length_does_not_unlock_unchecked_indexing() {
    bump(&mut Padded(vec![0.0; 4]));
}

#[i(nocheck)]
fn bump_within(x: &mut Padded, n: usize) {
    for i in 0..n {
        x[i] += 1.0;
    }
}

#[test]
fn a_type_of_the_users_is_indexed_through_its_own_deref() {
    let mut p = Padded(vec![0.0; 4]);
    bump_within(&mut p, 3);
    assert_eq!(p.0, [1.0, 1.0, 1.0, 0.0]);
}

/// A stride that is 1 before the loop and 0 inside it: every iteration would write `y[0]`.
/// The compile-time check saw the slot `y[s*i]`; each chunk of iterations may reach only the
/// elements its own iterations own at the stride evaluated before the loop, so the loop fails
/// instead of racing.
fn stride() -> usize {
    usize::from(rayon::current_thread_index().is_none())
}

#[i]
fn strided(y: &mut [f64], n: usize) {
    for i in (0..n).par() {
        y[stride() * i] += 1.0;
    }
}

/// The message of the panic `f` ends in.
fn panic_message(f: impl FnOnce()) -> String {
    let e = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).expect_err("a panic");
    e.downcast_ref::<String>().cloned().unwrap_or_default()
}

static POOL: AtomicUsize = AtomicUsize::new(0);

fn global_pool_of_four() {
    if POOL.swap(1, Ordering::SeqCst) == 0 {
        rayon::ThreadPoolBuilder::new()
            .num_threads(4)
            .build_global()
            .expect("the global pool");
    }
    nilang::parallel::set_min_parallel_work(1);
}

#[test]
fn a_parallel_chunk_cannot_reach_another_chunks_elements() {
    global_pool_of_four();
    let message = panic_message(|| strided(&mut vec![0.0; 1000], 1000));
    assert!(message.contains("outside the elements"), "{message}");
}

/// `b[i] ^= b[j]` clears `b[i]` when `i == j`: checked at run time.
#[i]
fn xor_from(b: &mut [bool], i: usize, j: usize) {
    b[i] ^= b[j];
}

#[test]
#[cfg_attr(
    not(debug_assertions),
    ignore = "needs the runtime checks, which follow `debug_assertions` (off in release builds)"
)]
fn an_xor_with_its_own_target_fails_at_run_time() {
    let mut b = vec![true, false];
    xor_from(&mut b, 1, 0);
    assert_eq!(b, [true, true]);
    let e = nilang::catch(|| xor_from(&mut b, 1, 1)).expect_err("aliasing");
    assert_eq!(e.kind, nilang::CheckKind::Aliasing);
    assert_eq!(b, [true, true], "nothing changed");
}

#[i(nocheck)]
fn strided_unchecked(y: &mut [f64], n: usize) {
    for i in (0..n).par() {
        y[stride() * i] += 1.0;
    }
}

#[test]
fn an_unchecked_parallel_chunk_cannot_reach_another_chunks_elements() {
    global_pool_of_four();
    let message = panic_message(|| strided_unchecked(&mut vec![0.0; 1000], 1000));
    assert!(message.contains("outside the elements"), "{message}");
}
