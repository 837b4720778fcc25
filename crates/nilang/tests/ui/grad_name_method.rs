use nilang::i;

struct Acc {
    total: f64,
}

#[i]
impl Acc {
    #[i(grad = dadd)]
    fn add(&mut self, x: f64) {
        self.total += x;
    }
}

fn main() {}
