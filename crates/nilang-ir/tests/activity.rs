//! Activity (`nilang_ir::activity`): an ancilla computed from constants and read-only data
//! alone gets no shadow; one a `&mut` parameter's value reaches does, through instructions,
//! builtins and stacks; calls, constructors, parallel loops and stacks the body pops are
//! active whatever flows into them.

use nilang_ir::activity::active;
mod common;
use common::parse;

/// `power` runs through the powers of a grid point and is saved on the tape at every step:
/// it depends on no parameter. `r` reads `x`.
const POWERS: &str = r#"
    #[i]
    fn powers<T: Real>(out: &mut T, x: &mut [T], tape: &mut Vec<T>, ti: &T) {
        let r = T::zero();
        let power = T::one();
        for j in 0..x.len() {
            r -= x[j] * power;
            let next = T::zero();
            next += power * ti;
            push!(tape, power);
            swap(power, next);
            dealloc!(next = T::zero());
        }
        out += square(r);
        push!(tape, r);
        push!(tape, power);
        dealloc!(r = T::zero(), power = T::zero());
    }
"#;

#[test]
fn values_of_constants_alone_are_inactive() {
    let f = parse(POWERS);
    let a = active(&f);
    for name in ["out", "x", "tape", "r"] {
        assert!(a.contains(name), "{name}: {a:?}");
    }
    for name in ["power", "next", "ti"] {
        assert!(!a.contains(name), "{name}: {a:?}");
    }
    assert!(!f.with_gradients.contains("power") && f.with_gradients.contains("r"));
}

#[test]
fn a_parameter_reaches_through_instructions_and_swaps() {
    let f = parse(
        r#"
        #[i]
        fn chain<T: Real>(out: &mut T, x: &mut T) {
            let a = T::zero();
            let b = T::zero();
            let c = T::zero();
            a += sin(x);
            swap(a, b);
            c += square(b);
            out += identity(c);
            c -= square(b);
            swap(a, b);
            a -= sin(x);
            dealloc!(a = T::zero(), b = T::zero(), c = T::zero());
        }
        "#,
    );
    let a = active(&f);
    for name in ["a", "b", "c"] {
        assert!(a.contains(name), "{name}: {a:?}");
    }
}

#[test]
fn a_stack_the_body_pops_makes_what_moves_through_it_active() {
    // `k` is a constant, but the pop may hand `y` any value that was on the stack
    let f = parse(
        r#"
        #[i]
        fn relay<T: Real>(out: &mut T, x: &mut T, s: &mut Vec<T>) {
            let k = T::zero();
            k += 2.0;
            push!(s, k);
            let y = T::zero();
            pop!(s, y);
            out += y * x;
            push!(s, y);
            dealloc!(y = T::zero(), k = T::zero());
        }
        "#,
    );
    let a = active(&f);
    assert!(a.contains("k") && a.contains("y"), "{a:?}");
}

#[test]
fn calls_and_parallel_loops_are_active() {
    let f = parse(
        r#"
        #[i]
        fn calls<T: Real>(out: &mut [T], c: &T) {
            let k = T::zero();
            k += identity(c);
            helper(out, k);
            for i in (0..out.len()).par() {
                let t = T::zero();
                t += identity(c);
                out[i] += t * c;
                t -= identity(c);
                dealloc!(t = T::zero());
            }
            k -= identity(c);
            dealloc!(k = T::zero());
        }
        "#,
    );
    let a = active(&f);
    assert!(a.contains("k") && a.contains("t"), "{a:?}");
}
