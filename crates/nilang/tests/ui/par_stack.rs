use nilang::i;

#[i]
fn f(y: &mut [f64], s: &mut Vec<f64>) {
    for i in (0..y.len()).par() {
        push!(s, y[i]);
    }
}

fn main() {}
