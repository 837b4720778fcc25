// A parameter of a type that is not `Copy` (other than a `Vec`), taken by value: the error
// names the type, says why it must be `Copy` and what to write.
use nilang::differentiable;

#[differentiable(wrt(x))]
fn damped(x: f64, label: String) -> f64 {
    let mut y = x;
    for _ in 0..3 {
        y = 0.5 * y * y;
    }
    y
}

fn main() {}
