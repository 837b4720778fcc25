//! The Frobenius dot product of two random 1000×1000 CSC matrices (density 0.05), computed by
//! the reversible program and differentiated by reversal; the gradient with respect to A's
//! stored values is B on A's pattern.
//!
//! Run with `cargo run --release -p nilang-apps --example sparse`.

use nilang_apps::sparse::*;

fn main() -> Result<(), SparseError> {
    let a = random_csc(1000, 1000, 0.05, 1);
    let b = random_csc(1000, 1000, 0.05, 2);
    let (r, ga, _gb) = sparse_dot_gradient(&a, &b)?;
    println!("nnz(A) = {}, nnz(B) = {}", a.nnz(), b.nnz());
    println!(
        "dot(A, B) reversible = {r:.12}, native = {:.12}",
        sparse_dot(&a, &b)
    );
    let matches = a
        .iter()
        .zip(&ga)
        .filter(|((_, (i, j)), g)| b.get(*i, *j).copied().unwrap_or(0.0) == **g)
        .count();
    println!(
        "∂dot/∂A equals B on {matches} of {} stored entries of A",
        a.nnz()
    );
    Ok(())
}
