//! `y += a·x` over slices, written in the language and compiled unchecked: its loop indexes
//! `y[i]` and `x[i]` only after one check before the loop (`nilang_ir::bounds`), so LLVM
//! vectorises it. `docs/benchmarks.md` shows how to read the assembly:
//!
//! ```sh
//! cargo rustc --release -p nilang --example axpy -- --emit asm -C "llvm-args=-x86-asm-syntax=intel"
//! ```

use nilang::{i, Real};

/// `y[i] += a·x[i]` for every `i`.
#[i(nocheck)]
#[inline(never)]
pub fn axpy<T: Real>(y: &mut [T], x: &[T], a: T) {
    for i in 0..y.len() {
        y[i] += x[i] * a;
    }
}

fn main() {
    let n = 1 << 20;
    let x: Vec<f64> = (0..n).map(|i| i as f64).collect();
    let mut y = vec![1.0; n];
    axpy(&mut y, &x, 0.5);
    println!("y[3] = {}", y[3]);
    // the adjoint (x and a are read-only: their gradients are not kept) restores y
    let mut y_grad = vec![1.0; n];
    axpy_adjoint(&mut y, &mut y_grad, &x, (), 0.5, ());
    assert!(y.iter().all(|&v| v == 1.0));
}
