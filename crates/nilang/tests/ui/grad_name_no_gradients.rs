use nilang::i;

// no type parameter and no float: there is nothing to differentiate
#[i(grad = dcount)]
fn count(n: &mut i64, k: i64) {
    n += k;
}

fn main() {}
