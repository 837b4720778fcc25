//! Learn by consistency (reversible Turing machine paper, §IV, Algorithm 2): find `y` with
//! `f(x = 0.3, y) = e^(x+y) − e^x = 1` by running the program forward, setting the output to
//! the target 1, and running it backward, which updates `y`. `f2` uncomputes `x`
//! arithmetically and trains; `f1` keeps `x` and does not (its output garbage `x, x + y`
//! determines `y`).
//!
//! `cargo run --release -p nilang --example consistency`

use nilang::consistency::{f1, f1_inv, f2, f2_inv, fixed_point};

fn main() {
    let (mut y1, mut y2) = (1.6f64, 1.6f64);
    println!("{:>5} {:>22} {:>22}", "step", "f1 output", "f2 output");
    for step in 1..=200 {
        let (mut o1, mut o2, mut x2) = (0.0, 0.0, 0.3);
        f1(&mut o1, 0.3, &mut y1);
        f2(&mut o2, &mut x2, &mut y2);
        if step <= 5 || step % 25 == 0 {
            println!("{step:>5} {o1:>22.17} {o2:>22.17}");
        }
        o1 = 1.0;
        o2 = 1.0;
        f1_inv(&mut o1, 0.3, &mut y1);
        f2_inv(&mut o2, &mut x2, &mut y2);
    }
    let y_star = fixed_point();
    println!("\nf1: y = {y1:.17} (unchanged)");
    println!("f2: y = {y2:.17}, fixed point ln(1 + e^0.3) − 0.3 = {y_star:.17}");
}
