use nilang_apps::graph::*;
use nilang_apps::plain::peers;

#[test]
fn reversible_loss_matches_plain_and_inverts() {
    for k in [2, 5] {
        let x = initial_positions(k, 7);
        let mut loss = 0.0;
        let mut xs = x.clone();
        iembedding_loss(&mut loss, &mut xs, k);
        let plain = embedding_loss(&x, k);
        assert!(
            (loss - plain).abs() < 1e-12 * plain.abs().max(1.0),
            "{loss} vs {plain}"
        );
        iembedding_loss_inv(&mut loss, &mut xs, k);
        assert!(loss.abs() < 1e-12);
        assert_eq!(xs, x);
    }
}

#[test]
fn gradient_matches_peers_and_finite_differences() {
    let k = 3;
    let x = initial_positions(k, 3);
    let (_, g) = loss_and_gradient(&x, k);
    let fd = nilang::ad::numeric_gradient(|x| embedding_loss(x, k), &x, 1e-6);
    nilang::ad::check_gradient(|x| embedding_loss(x, k), &x, &g, 1e-6, 1e-6).unwrap();
    let nd = peers::num_dual_gradient(|x| embedding_loss(x, k), &x);
    let dr = peers::dualrev_gradient(|x| embedding_loss(x, k), &x);
    for i in 0..x.len() {
        assert!((g[i] - nd[i]).abs() < 1e-12, "{i}");
        assert!((g[i] - dr[i]).abs() < 1e-12, "{i}");
        assert!((g[i] - fd[i]).abs() < 1e-6, "{i}");
    }
}

#[test]
fn hessian_matches_forward_over_forward() {
    let k = 2;
    let x = initial_positions(k, 5);
    let h = hessian(&x, k);
    let hd = peers::num_dual_hessian(|x| embedding_loss(x, k), &x);
    for i in 0..x.len() {
        for j in 0..x.len() {
            assert!(
                (h[i][j] - hd[i][j]).abs() < 1e-10 * (1.0 + hd[i][j].abs()),
                "({i},{j}): {} vs {}",
                h[i][j],
                hd[i][j]
            );
        }
    }
}

#[test]
fn newton_finds_the_five_dimensional_embedding() {
    let rows = scan([4, 5], 3, 60);
    println!("{rows:?}");
    let (four, five) = (&rows[0], &rows[1]);
    assert!(five.loss < 1e-10, "k = 5 reaches zero loss: {five:?}");
    assert!(
        (five.ratio - 2f64.sqrt()).abs() < 1e-4,
        "l2/l1 = sqrt 2: {five:?}"
    );
    assert!(four.loss > 1e-4, "k = 4 does not: {four:?}");
}
