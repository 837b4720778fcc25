use nilang::i;

#[i]
fn f(y: &mut [f64]) {
    for i in (0..y.len()).par() {
        y[i] += identity(1.0);
        safe! { println!("{i}"); }
    }
}

fn main() {}
