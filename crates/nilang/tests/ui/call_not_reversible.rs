// A call of a function that is not #[i]: rustc says at the call that `helper` is not a
// module (the generated code reaches a callee's effects, inverse and adjoints through its
// name, `helper::WRITES`, `helper::adjoint_inv`, which only #[i] defines); the guide
// (nilang::guide::language, Errors) says to mark it #[i] or to write it in safe! { }.
use nilang::i;

fn helper(y: &mut f64) {
    *y += 1.0;
}

#[i]
fn uses_plain(y: &mut f64) {
    helper(y);
}

fn main() {}
