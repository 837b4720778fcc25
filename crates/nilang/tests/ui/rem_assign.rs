use nilang::i;

#[i]
fn f(y: &mut i64, x: &mut i64) {
    y %= x;
}

fn main() {}
