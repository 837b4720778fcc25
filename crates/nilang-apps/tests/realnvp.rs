//! RealNVP (`nilang_apps::realnvp`): the reversible NLL equals the plain one and its inverse
//! restores the parameters; its gradient equals nilang-dualrev's and central differences; the
//! coupling layer's log-determinant is the log of its Jacobian's determinant (by differences);
//! training lowers the NLL.
use nilang_apps::flow::two_moons;
use nilang_apps::plain::peers;
use nilang_apps::realnvp::*;

const D: usize = 2;
const H: usize = 8;

#[test]
fn reversible_nll_matches_plain_and_inverts() {
    let layers = 3;
    let p = initial_parameters(D, H, layers, 1);
    let data = two_moons(20, 0.05, 2);
    let (mut loss, mut ps) = (0.0, p.clone());
    irealnvp_nll::<f64, D, H>(&mut loss, &mut ps, &data, layers);
    let plain = realnvp_nll::<f64, D, H>(&p, &data, layers);
    assert!(
        (loss - plain).abs() < 1e-10 * plain.abs(),
        "{loss} vs {plain}"
    );
    irealnvp_nll_inv::<f64, D, H>(&mut loss, &mut ps, &data, layers);
    assert!(loss.abs() < 1e-10);
    assert_eq!(ps, p);
}

#[test]
fn gradient_matches_dual_numbers_reverse_and_differences() {
    let layers = 2;
    let p = initial_parameters(D, H, layers, 3);
    let data = two_moons(10, 0.05, 4);
    let (_, g) = nll_and_gradient::<D, H>(&p, &data, layers);
    let n = 10.0;
    let dr = peers::dualrev_gradient(|p| realnvp_nll::<_, D, H>(p, &data, layers), &p);
    for i in 0..p.len() {
        let want = dr[i] / n;
        assert!(
            (g[i] - want).abs() < 1e-10 * (1.0 + g[i].abs()),
            "{i}: {} vs {want}",
            g[i]
        );
    }
    let nll = |p: &[f64]| realnvp_nll::<f64, D, H>(p, &data, layers) / n;
    nilang::ad::check_gradient(nll, &p, &g, 1e-6, 1e-6).unwrap();
}

#[test]
fn a_layer_adds_the_log_determinant_of_its_jacobian() {
    // one layer on 4 coordinates: the log |det ∂y/∂x| by central differences equals Σ s
    const D4: usize = 4;
    let p = initial_parameters(D4, H, 2, 5);
    // layer l reads the state at l·D and writes the next one at (l + 1)·D
    let layer = |x: &[f64], l: usize| {
        let mut states = vec![0.0; (l + 2) * D4];
        states[l * D4..(l + 1) * D4].copy_from_slice(x);
        let (mut logdet, mut ps) = (0.0, p.clone());
        iaffine_coupling::<f64, D4, H>(&mut states, &mut logdet, &mut ps, l);
        (states[(l + 1) * D4..].to_vec(), logdet)
    };
    let x = [0.3, -0.8, 1.1, 0.4];
    for l in 0..2 {
        let (_, logdet) = layer(&x, l);
        let e = 1e-6;
        let mut j = [[0.0; D4]; D4];
        for c in 0..D4 {
            let (mut up, mut down) = (x, x);
            up[c] += e;
            down[c] -= e;
            let (yu, yd) = (layer(&up, l).0, layer(&down, l).0);
            for r in 0..D4 {
                j[r][c] = (yu[r] - yd[r]) / (2.0 * e);
            }
        }
        let det = determinant4(j);
        assert!(
            (det.abs().ln() - logdet).abs() < 1e-7,
            "layer {l}: {} vs {logdet}",
            det.abs().ln()
        );
    }
}

/// The determinant of a 4 × 4 matrix by Laplace expansion along the first row.
fn determinant4(m: [[f64; 4]; 4]) -> f64 {
    let minor3 = |skip: usize| {
        let rows: Vec<[f64; 3]> = (1..4)
            .map(|r| {
                let mut row = [0.0; 3];
                for (k, c) in (0..4).filter(|&c| c != skip).enumerate() {
                    row[k] = m[r][c];
                }
                row
            })
            .collect();
        rows[0][0] * (rows[1][1] * rows[2][2] - rows[1][2] * rows[2][1])
            - rows[0][1] * (rows[1][0] * rows[2][2] - rows[1][2] * rows[2][0])
            + rows[0][2] * (rows[1][0] * rows[2][1] - rows[1][1] * rows[2][0])
    };
    (0..4)
        .map(|c| if c % 2 == 0 { 1.0 } else { -1.0 } * m[0][c] * minor3(c))
        .sum()
}

#[test]
fn training_lowers_the_nll() {
    let layers = 4;
    let data = two_moons(200, 0.05, 5);
    let p = initial_parameters(D, H, layers, 6);
    let (_, history) = train::<D, H>(p, &data, layers, 0.01, 300);
    let (first, last) = (history[0], *history.last().unwrap());
    println!("NLL {first} -> {last}");
    assert!(last < first - 0.8, "NLL {first} -> {last}");
}
