use nilang::{i, Real};

pub struct Window<'a> {
    pub weights: &'a [f64],
}

// `Window` has a lifetime parameter, which the signature leaves out: the function's value
// (`rev!(g)`) needs it written, `&Window<'_>`
#[i]
fn g<T: Real>(y: &mut T, x: &mut T, w: &Window) {
    y += x * w.weights[0];
}

fn main() {}
