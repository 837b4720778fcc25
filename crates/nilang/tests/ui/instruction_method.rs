use nilang::instruction;

struct S;

impl S {
    #[instruction(inverse = g_sub, adjoint = g_adj)]
    fn g(&mut self, out: &mut f64) {
        *out += 1.0;
    }
}

fn main() {}
