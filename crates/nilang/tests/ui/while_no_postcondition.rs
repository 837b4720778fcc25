use nilang::i;

#[i]
fn f(k: &mut i64, n: i64) {
    while *k < n {
        inc(k);
    }
}

fn main() {}
