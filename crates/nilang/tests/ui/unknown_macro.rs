use nilang::i;

#[i]
fn f(y: &mut f64, x: &mut f64) {
    println!("{}", x);
    y += sin(x);
}

fn main() {}
