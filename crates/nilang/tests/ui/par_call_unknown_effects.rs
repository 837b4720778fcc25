use nilang::i;

struct Flip;

impl Flip {
    #[i]
    fn apply(&self, y: &mut [f64]) {
        neg(y[0]);
    }
}

#[i]
fn f(y: &mut [f64], s: &Flip) {
    for i in (0..y.len()).par() {
        s.apply(y);
    }
}

fn main() {}
