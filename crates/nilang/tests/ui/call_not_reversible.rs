// A call of a function that is not #[i]: rustc names the missing inverse (`helper_inv`) and
// effects (`helper::WRITES`) at the call; the guide (nilang::guide::language, Errors) says
// to mark it #[i] or to write it in safe! { }.
use nilang::i;

fn helper(y: &mut f64) {
    *y += 1.0;
}

#[i]
fn uses_plain(y: &mut f64) {
    helper(y);
}

fn main() {}
