//! The guide's worked examples (`nilang::guide::examples`): three programs written as the
//! guide teaches a new user — `#[i]` with default settings, no hand tuning — each beside its
//! plain-Rust objective, so that what a user gets can be measured
//! (`cargo run --release -p nilang-cli -- bench --only guide --threads 1`; one program in a
//! loop for a profiler: `examples/guide_profile.rs`).
//!
//! - [`gmm`]: the Gaussian mixture model objective (ADBench, GradBench), gradient with respect
//!   to the weights, means and inverse-covariance factors;
//! - [`rk4`]: a Lotka–Volterra system integrated by RK4, gradient of a final-state loss with
//!   respect to the initial state and the parameters, keeping the trajectory or O(log T)
//!   states (Treeverse);
//! - [`mlp`]: a 32-64-1 perceptron's mean squared error on a batch, gradient with respect to
//!   one flat parameter vector;
//! - [`ordinary`]: the same three as ordinary Rust under `#[differentiable]`.
//!
//! The chapter's fourth example, a k-means cost as ordinary Rust, is GradBench's natural
//! kmeans program (`nilang_gradbench::evals::natural::kmeans`), measured by the same bench.

pub mod gmm;
pub mod mlp;
pub mod ordinary;
pub mod rk4;

/// Whether this crate's reversible programs run their reversibility checks: `#[i]` checks
/// under `debug_assertions` (decision 0005, `docs/decisions/`), so this is `true` in
/// debug builds and in a release build with
/// `--config 'profile.release.package.nilang-apps.debug-assertions=true'`, which is how the
/// benchmark measures what the checks cost.
pub const CHECKED: bool = cfg!(debug_assertions);

#[cfg(test)]
mod tests {
    use super::{gmm, mlp, rk4};
    use crate::plain::peers;
    use nilang::ad::check_gradient;

    /// `|a − b| ≤ tol · max(1, |b|)`.
    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol * b.abs().max(1.0)
    }

    fn assert_all_close(got: &[f64], want: &[f64], tol: f64, what: &str) {
        assert_eq!(got.len(), want.len(), "{what}: lengths");
        for (k, (a, b)) in got.iter().zip(want).enumerate() {
            assert!(close(*a, *b, tol), "{what}[{k}]: {a} vs {b}");
        }
    }

    #[test]
    fn gmm_value_gradient_and_inverse() {
        let p = gmm::Problem::random(3, 4, 20, 7);
        let native = p.native(&p.theta);
        let mut theta = p.theta.clone();
        let forward = p.forward(&mut theta);
        assert!(close(forward, native, 1e-12), "{forward} vs {native}");
        assert_eq!(theta, p.theta, "the forward program leaves θ as it was");
        let (value, grad) = p.gradient(&mut theta);
        assert!(close(value, native, 1e-12), "{value} vs {native}");
        assert_eq!(theta, p.theta, "the gradient restores θ");
        check_gradient(|t| p.native(t), &p.theta, &grad, 1e-6, 1e-6).unwrap();
        let tape = peers::dualrev_gradient(
            |t| {
                let data = crate::adbench::GmmData {
                    d: p.d,
                    k: p.k,
                    x: &p.x,
                    gamma: p.gamma,
                    m: p.m,
                    constant: p.constant,
                };
                crate::adbench::gmm_objective(&data, t)
            },
            &p.theta,
        );
        assert_all_close(&grad, &tape, 1e-10, "gmm gradient vs nilang-dualrev");
        // uncall(call(θ)) == θ, the objective back to zero
        let [alpha, mu, q, l] = nilang::ad::split_mut(&mut theta, p.pieces());
        let mut out = 0.0;
        gmm::gmm(&mut out, alpha, mu, q, l, &p.x, p.gamma, p.m, p.constant);
        gmm::gmm_inv(&mut out, alpha, mu, q, l, &p.x, p.gamma, p.m, p.constant);
        assert!(out.abs() < 1e-12 * native.abs(), "left {out}");
        assert_eq!(theta, p.theta);
    }

    #[test]
    fn rk4_value_gradient_and_inverse() {
        let mut p = rk4::Problem::new(300);
        let native = p.native();
        let forward = p.forward();
        assert!(close(forward, native, 1e-12), "{forward} vs {native}");
        let (value, grad) = p.gradient();
        assert!(close(value, native, 1e-12), "{value} vs {native}");
        assert_eq!(
            (p.state.clone(), p.p.clone()),
            (rk4::Problem::new(300).state, rk4::Problem::new(300).p)
        );
        let at: Vec<f64> = p.state.iter().chain(&p.p).copied().collect();
        check_gradient(
            |v| rk4::native(&v[..2], &v[2..], p.steps, p.h),
            &at,
            &grad,
            1e-6,
            1e-6,
        )
        .unwrap();
        let mut loss = 0.0;
        rk4::rk4_loss(&mut loss, &mut p.state, &mut p.p, p.steps, p.h);
        rk4::rk4_loss_inv(&mut loss, &mut p.state, &mut p.p, p.steps, p.h);
        assert!(loss.abs() < 1e-12 * native, "left {loss}");
        assert_eq!(at, p.state.iter().chain(&p.p).copied().collect::<Vec<_>>());
    }

    /// Treeverse over the guide's step gives the trajectory's value and gradient, for every
    /// budget from one kept state to all of them.
    #[test]
    fn rk4_checkpointed_gradient_is_the_trajectorys() {
        let mut p = rk4::Problem::new(300);
        let (value, grad) = p.gradient();
        assert_eq!(p.stepped_forward(), value);
        for snapshots in [1, 2, 9, 300] {
            let (v, g) = p.checkpointed_gradient(snapshots);
            assert!(close(v, value, 1e-12), "{snapshots} kept: {v} vs {value}");
            assert_all_close(&g, &grad, 1e-12, &format!("{snapshots} kept"));
        }
    }

    #[test]
    fn mlp_value_gradient_and_inverse() {
        let p = mlp::Problem::random(5, 7, 9, 3);
        let native = p.native(&p.theta);
        let mut theta = p.theta.clone();
        let forward = p.forward(&mut theta);
        assert!(close(forward, native, 1e-12), "{forward} vs {native}");
        let (value, grad) = p.gradient(&mut theta);
        assert!(close(value, native, 1e-12), "{value} vs {native}");
        assert_eq!(theta, p.theta, "the gradient restores θ");
        check_gradient(|t| p.native(t), &p.theta, &grad, 1e-6, 1e-6).unwrap();
        let tape = peers::dualrev_gradient(|t| mlp::native(t, &p.x, &p.y, p.din, p.h), &p.theta);
        assert_all_close(&grad, &tape, 1e-10, "mlp gradient vs nilang-dualrev");
        let [w1, b1, w2, b2] = nilang::ad::split_mut(&mut theta, p.pieces());
        let mut loss = 0.0;
        mlp::mlp_mse(&mut loss, w1, b1, w2, b2, &p.x, &p.y);
        mlp::mlp_mse_inv(&mut loss, w1, b1, w2, b2, &p.x, &p.y);
        assert!(loss.abs() < 1e-12 * native, "left {loss}");
        assert_eq!(theta, p.theta);
    }

    /// The ordinary-Rust versions: the same objective (bit for bit where the operations are
    /// in the same order), the same gradient as the hand-written programs.
    #[test]
    fn ordinary_versions_agree_with_the_hand_written_programs() {
        use super::ordinary;
        let p = gmm::Problem::random(3, 4, 20, 7);
        let (value, grad) = ordinary::gmm_gradient_of(&p);
        let (mut theta, want) = (p.theta.clone(), p.native(&p.theta));
        assert!(close(value, want, 1e-12), "{value} vs {want}");
        assert_all_close(&grad, &p.gradient(&mut theta).1, 1e-10, "gmm");
        let mut p = rk4::Problem::new(300);
        let (value, grad) = ordinary::rk4_gradient_of(&p);
        assert_eq!(value, p.native(), "the same operations in the same order");
        assert_all_close(&grad, &p.gradient().1, 1e-10, "rk4");
        let p = mlp::Problem::random(5, 7, 9, 3);
        let (value, grad) = ordinary::mlp_gradient_of(&p);
        let mut theta = p.theta.clone();
        assert!(close(value, p.native(&p.theta), 1e-12));
        assert_all_close(&grad, &p.gradient(&mut theta).1, 1e-10, "mlp");
    }

    /// Every `rust,ignore` excerpt of the guide's chapter (`nilang::guide::examples`) is the
    /// text of one of these files (line by line, indentation aside), so the chapter shows
    /// the programs that are tested and measured.
    #[test]
    fn the_chapter_shows_these_files() {
        let chapter = include_str!("../../../nilang/doc/examples.md");
        let sources = [
            include_str!("gmm.rs"),
            include_str!("rk4.rs"),
            include_str!("mlp.rs"),
            include_str!("../../../nilang-gradbench/src/evals/natural/kmeans.rs"),
        ];
        fn lines(s: &str) -> Vec<&str> {
            s.lines().map(str::trim).collect()
        }
        let sources: Vec<Vec<&str>> = sources.iter().map(|s| lines(s)).collect();
        let excerpts: Vec<&str> = chapter
            .split("```rust,ignore\n")
            .skip(1)
            .map(|rest| rest.split("```").next().unwrap())
            .collect();
        assert!(excerpts.len() >= 5, "{} excerpts", excerpts.len());
        for excerpt in excerpts {
            let want = lines(excerpt);
            assert!(
                sources
                    .iter()
                    .any(|src| src.windows(want.len()).any(|w| w == want.as_slice())),
                "not in the sources:\n{excerpt}"
            );
        }
    }
}
