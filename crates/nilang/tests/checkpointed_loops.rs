//! `#[checkpoint]` loops in `#[differentiable]` functions: the loop's iterations run in chunks
//! whose carried state alone is kept. The value is the plain function's bit for bit, the
//! inverse undoes the program, and the gradient equals the one that stores every iteration
//! (the same operations in the same order) and central differences, at trip counts that are
//! and are not powers of the chunk length, and at several levels.

use nilang::differentiable;

/// Lotka–Volterra by RK4 over `steps` steps, its loop marked by the tokens given (written in
/// a `macro_rules!`, as a user may: the front end's names keep one hygiene).
macro_rules! rk4 {
    ($name:ident $($budget:tt)*) => {
        #[differentiable(wrt(state, p))]
        fn $name(state: &[f64], p: &[f64], steps: usize, h: f64) -> f64 {
            let (mut x, mut y) = (state[0], state[1]);
            $($budget)*
            for _ in 0..steps {
                let (k1x, k1y) = (p[0] * x - p[1] * x * y, p[2] * x * y - p[3] * y);
                let (ax, ay) = (x + 0.5 * h * k1x, y + 0.5 * h * k1y);
                let (k2x, k2y) = (p[0] * ax - p[1] * ax * ay, p[2] * ax * ay - p[3] * ay);
                let (bx, by) = (x + 0.5 * h * k2x, y + 0.5 * h * k2y);
                let (k3x, k3y) = (p[0] * bx - p[1] * bx * by, p[2] * bx * by - p[3] * by);
                let (cx, cy) = (x + h * k3x, y + h * k3y);
                let (k4x, k4y) = (p[0] * cx - p[1] * cx * cy, p[2] * cx * cy - p[3] * cy);
                x += h / 6.0 * (k1x + 2.0 * k2x + 2.0 * k3x + k4x);
                y += h / 6.0 * (k1y + 2.0 * k2y + 2.0 * k3y + k4y);
            }
            x * x + y * y
        }
    };
}

// every step stored (the reference); √n chunk starts; three levels (about 4·n^¼ states)
rk4!(rk4_stored);
rk4!(rk4_sqrt #[checkpoint]);
rk4!(rk4_levels #[checkpoint(levels = 3)]);

/// A vector state updated in place (a Gauss–Seidel sweep of a nonlinear diffusion), with a
/// loss accumulated inside the loop and a branch on the data; the loop marked by the tokens
/// given.
macro_rules! sweeps {
    ($name:ident $($budget:tt)*) => {
        #[differentiable(wrt(u0, k))]
        fn $name(u0: &[f64], k: &[f64], steps: usize) -> f64 {
            let n = u0.len();
            let mut u = vec![0.0; n];
            for i in 0..n {
                u[i] += u0[i];
            }
            let mut energy = 0.0;
            $($budget)*
            for t in 1..=steps {
                for i in 1..n - 1 {
                    let flux = k[i] * (u[i - 1] - 2.0 * u[i] + u[i + 1]);
                    u[i] = u[i] + 0.1 * flux.tanh();
                }
                if u[0] > u[n - 1] {
                    energy += u[0] * u[0] / t as f64;
                }
            }
            let mut s = energy;
            for i in 0..n {
                s += u[i].sin();
            }
            s
        }
    };
}

// every step stored (the reference); two levels of chunks
sweeps!(sweeps_stored);
sweeps!(sweeps_checkpointed #[checkpoint(levels = 2)]);

const STATE: [f64; 2] = [1.2, 0.8];
const P: [f64; 4] = [1.1, 0.4, 0.3, 0.9];
const TRIPS: [usize; 7] = [0, 1, 2, 7, 16, 40, 101];

fn close(a: &[f64], b: &[f64], tol: f64) -> bool {
    a.iter()
        .zip(b)
        .all(|(x, y)| (x - y).abs() <= tol * (1.0 + y.abs()))
}

#[test]
fn checkpointed_rk4_has_the_stored_value_and_gradient() {
    for steps in TRIPS {
        let plain = rk4_stored(&STATE, &P, steps, 0.05);
        assert_eq!(rk4_sqrt(&STATE, &P, steps, 0.05).to_bits(), plain.to_bits());
        let (v, (gs, gp)) = rk4_stored_gradient(&STATE, &P, steps, 0.05);
        assert_eq!(v.to_bits(), plain.to_bits(), "stored value, {steps} steps");
        let runs = [
            ("sqrt", rk4_sqrt_gradient(&STATE, &P, steps, 0.05)),
            ("levels", rk4_levels_gradient(&STATE, &P, steps, 0.05)),
        ];
        for (name, (vc, (gsc, gpc))) in runs {
            assert_eq!(vc.to_bits(), plain.to_bits(), "{name} value, {steps} steps");
            assert!(
                close(&gsc, &gs, 1e-13),
                "{name}, {steps} steps: {gsc:?} vs {gs:?}"
            );
            assert!(
                close(&gpc, &gp, 1e-13),
                "{name}, {steps} steps: {gpc:?} vs {gp:?}"
            );
        }
    }
}

#[test]
fn checkpointed_rk4_agrees_with_central_differences() {
    let steps = 40;
    let (_, (gs, gp)) = rk4_levels_gradient(&STATE, &P, steps, 0.05);
    let mut x: Vec<f64> = STATE.iter().chain(&P).copied().collect();
    let grad: Vec<f64> = gs.iter().chain(&gp).copied().collect();
    for k in 0..x.len() {
        let e = 1e-6;
        x[k] += e;
        let up = rk4_levels(&x[..2], &x[2..], steps, 0.05);
        x[k] -= 2.0 * e;
        let down = rk4_levels(&x[..2], &x[2..], steps, 0.05);
        x[k] += e;
        let fd = (up - down) / (2.0 * e);
        assert!(
            (fd - grad[k]).abs() < 1e-6 * (1.0 + fd.abs()),
            "{k}: {fd} vs {}",
            grad[k]
        );
    }
}

#[test]
fn checkpointed_programs_are_undone_by_their_inverses() {
    for steps in TRIPS {
        let (mut s, mut p, h, mut out) = (STATE.to_vec(), P.to_vec(), 0.05, 0.0);
        rk4_levels_rev(&mut out, &mut s, &mut p, steps, h);
        assert_eq!(out, rk4_levels(&STATE, &P, steps, 0.05));
        rk4_levels_rev_inv(&mut out, &mut s, &mut p, steps, h);
        assert_eq!((out, s.as_slice(), p.as_slice()), (0.0, &STATE[..], &P[..]));
    }
}

#[test]
fn checkpointed_vector_state_has_the_stored_value_and_gradient() {
    let u0: Vec<f64> = (0..9).map(|i| (0.7 * i as f64).sin() + 0.3).collect();
    let k: Vec<f64> = (0..9).map(|i| 0.5 + 0.1 * i as f64).collect();
    for steps in TRIPS {
        let plain = sweeps_stored(&u0, &k, steps);
        assert_eq!(
            sweeps_checkpointed(&u0, &k, steps).to_bits(),
            plain.to_bits()
        );
        let (v, (gu, gk)) = sweeps_stored_gradient(&u0, &k, steps);
        let (vc, (guc, gkc)) = sweeps_checkpointed_gradient(&u0, &k, steps);
        assert_eq!(v.to_bits(), plain.to_bits());
        assert_eq!(vc.to_bits(), plain.to_bits(), "{steps} steps");
        assert!(close(&guc, &gu, 1e-13), "{steps} steps: {guc:?} vs {gu:?}");
        assert!(close(&gkc, &gk, 1e-13), "{steps} steps: {gkc:?} vs {gk:?}");
        let (mut u, mut kk, mut out) = (u0.clone(), k.clone(), 0.0);
        sweeps_checkpointed_rev(&mut out, &mut u, &mut kk, steps);
        sweeps_checkpointed_rev_inv(&mut out, &mut u, &mut kk, steps);
        assert_eq!((out, &u, &kk), (0.0, &u0, &k));
    }
}

/// The system allocator, counting per thread the bytes live and the most live since a reset
/// (per thread, so that the tests running beside each other do not count).
struct Counting;

thread_local! {
    static LIVE: std::cell::Cell<isize> = const { std::cell::Cell::new(0) };
    static PEAK: std::cell::Cell<isize> = const { std::cell::Cell::new(0) };
}

fn count(delta: isize) {
    let _ = LIVE.try_with(|live| {
        live.set(live.get() + delta);
        let _ = PEAK.try_with(|peak| peak.set(peak.get().max(live.get())));
    });
}

// SAFETY: every call is forwarded to `System` unchanged; the counters only observe sizes.
unsafe impl std::alloc::GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: std::alloc::Layout) -> *mut u8 {
        count(layout.size() as isize);
        // SAFETY: the caller's layout, as `GlobalAlloc::alloc` requires.
        unsafe { std::alloc::System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: std::alloc::Layout) {
        count(-(layout.size() as isize));
        // SAFETY: `ptr` was allocated by `alloc` above with this layout.
        unsafe { std::alloc::System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// The most bytes `f` had allocated at once on this thread beyond what was live before (with
/// this thread's pooled tapes freed first: a tape reuses the buffer an earlier call grew).
fn peak_bytes(f: impl FnOnce()) -> isize {
    nilang::stack::release_pooled_tapes();
    let base = LIVE.with(|l| l.get());
    PEAK.with(|p| p.set(base));
    f();
    PEAK.with(|p| p.get()) - base
}

#[test]
fn checkpoints_bound_the_memory_of_a_long_loop() {
    let steps = 10_000;
    let gradient = |f: fn(&[f64], &[f64], usize, f64) -> (f64, (Vec<f64>, Vec<f64>))| {
        peak_bytes(|| {
            std::hint::black_box(f(&STATE, &P, steps, 1e-3));
        })
    };
    let stored = gradient(rk4_stored_gradient);
    let sqrt = gradient(rk4_sqrt_gradient);
    let levels = gradient(rk4_levels_gradient);
    // every step stored: at least the 2 state values of each of the 10⁴ steps
    assert!(stored > 16 * steps as isize, "{stored}");
    // √n: 100 chunk starts of 2 numbers and one chunk's saved values, with a `Vec`'s slack
    assert!(sqrt < 64 * 1024, "{sqrt}");
    assert!(levels < sqrt / 2, "{levels} vs {sqrt}");
}
