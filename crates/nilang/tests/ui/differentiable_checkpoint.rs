// The loops `#[checkpoint]` rejects, each with what to write instead.
use nilang::differentiable;

#[differentiable]
fn over_elements(x: &[f64]) -> f64 {
    let mut s = 0.0;
    #[checkpoint]
    for v in x.iter() {
        s = s * 0.5 + v;
    }
    s
}

#[differentiable]
fn reversed(x: &[f64]) -> f64 {
    let mut s = 0.0;
    #[checkpoint]
    for i in (0..x.len()).rev() {
        s = s * 0.5 + x[i];
    }
    s
}

#[differentiable]
fn counter(x: &[f64]) -> f64 {
    let mut s = 0.0;
    let mut k = 0;
    #[checkpoint]
    for i in 0..x.len() {
        s = s * 0.5 + x[i];
        k += 1;
    }
    s + k as f64
}

#[differentiable]
fn other_attribute(x: &[f64]) -> f64 {
    let mut s = 0.0;
    #[inline]
    for i in 0..x.len() {
        s = s * 0.5 + x[i];
    }
    s
}

#[differentiable]
fn bad_option(x: &[f64]) -> f64 {
    let mut s = 0.0;
    #[checkpoint(snapshots = 4)]
    for i in 0..x.len() {
        s = s * 0.5 + x[i];
    }
    s
}

#[differentiable]
fn too_many_levels(x: &[f64]) -> f64 {
    let mut s = 0.0;
    #[checkpoint(levels = 9)]
    for i in 0..x.len() {
        s = s * 0.5 + x[i];
    }
    s
}

#[differentiable]
fn twice(x: &[f64]) -> f64 {
    let mut s = 0.0;
    #[checkpoint]
    #[checkpoint]
    for i in 0..x.len() {
        s = s * 0.5 + x[i];
    }
    s
}

fn main() {}
