use nilang::i;

#[i]
fn f(k: &mut i64, n: i64) {
    while (*k < n, *k > 0) {
        inc(k);
        break;
    }
}

fn main() {}
