use nilang::{i, instruction, Real};

// an instruction without `cuda = …`: it has no C++ for the caller's translation to call
#[instruction(inverse = twice_sub, adjoint = twice_adjoint)]
fn twice(y: &mut f64, x: &mut f64) {
    *y += 2.0 * *x;
}

fn twice_sub(y: &mut f64, x: &mut f64) {
    *y -= 2.0 * *x;
}

fn twice_adjoint(y: &mut f64, gy: &mut f64, x: &mut f64, gx: &mut f64) {
    *y -= 2.0 * *x;
    *gx += 2.0 * *gy;
}

// an `#[i]` function without `cuda`
#[i]
fn add_sin<T: Real>(y: &mut T, x: &mut T) {
    y += sin(x);
}

#[i(cuda)]
fn f<T: Real>(y: &mut T, x: &mut T) {
    twice(y, x);
    add_sin(y, x);
}

fn main() {}
