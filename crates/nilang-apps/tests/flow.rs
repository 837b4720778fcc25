use nilang_apps::flow::*;
use nilang_apps::plain::peers;

const D: usize = 2;
const H: usize = 8;

#[test]
fn reversible_nll_matches_plain_and_inverts() {
    let layers = 3;
    let p = initial_parameters(D, H, layers, 1);
    let data = two_moons(20, 0.05, 2);
    let mut loss = 0.0;
    let mut ps = p.clone();
    inice_nll::<f64, D, H>(&mut loss, &mut ps, &data, layers);
    let plain = nice_nll::<f64, D, H>(&p, &data, layers);
    assert!(
        (loss - plain).abs() < 1e-10 * plain.abs(),
        "{loss} vs {plain}"
    );
    inice_nll_inv::<f64, D, H>(&mut loss, &mut ps, &data, layers);
    assert!(loss.abs() < 1e-10);
    assert_eq!(ps, p);
}

#[test]
fn gradient_matches_peers() {
    let layers = 2;
    let p = initial_parameters(D, H, layers, 3);
    let data = two_moons(10, 0.05, 4);
    let (_, g) = nll_and_gradient::<D, H>(&p, &data, layers);
    let n = 10.0;
    let dr = peers::dualrev_gradient(|p| nice_nll::<_, D, H>(p, &data, layers), &p);
    for i in 0..p.len() {
        assert!(
            (g[i] - dr[i] / n).abs() < 1e-10 * (1.0 + g[i].abs()),
            "{i}: {} vs {}",
            g[i],
            dr[i] / n
        );
    }
    nilang::ad::check_gradient(
        |p| nice_nll::<f64, D, H>(p, &data, layers) / n,
        &p,
        &g,
        1e-6,
        1e-6,
    )
    .unwrap();
}

#[test]
fn training_lowers_the_nll() {
    let layers = 4;
    let data = two_moons(200, 0.05, 5);
    let (_, history) = train::<D, H>(
        initial_parameters(D, H, layers, 6),
        &data,
        layers,
        0.01,
        300,
    );
    let (first, last) = (history[0], *history.last().unwrap());
    println!("NLL {first} -> {last}");
    assert!(last < first - 0.8, "NLL {first} -> {last}");
}
