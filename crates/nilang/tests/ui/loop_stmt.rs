use nilang::i;

#[i]
fn f(k: &mut i64) {
    loop {
        inc(k);
    }
}

fn main() {}
