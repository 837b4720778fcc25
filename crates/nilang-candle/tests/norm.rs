use candle_core::{Device, Tensor, Var};

#[test]
fn gradient_equals_candles_own_autograd() {
    let data: Vec<f64> = (0..1000).map(|i| ((i as f64) * 0.37).sin()).collect();
    let x = Var::from_tensor(&Tensor::new(data.as_slice(), &Device::Cpu).unwrap()).unwrap();
    let ours = nilang_candle::norm(x.as_tensor()).unwrap();
    let theirs = x
        .as_tensor()
        .sqr()
        .unwrap()
        .sum_all()
        .unwrap()
        .sqrt()
        .unwrap();
    let (a, b) = (
        ours.to_scalar::<f64>().unwrap(),
        theirs.to_scalar::<f64>().unwrap(),
    );
    assert!((a - b).abs() < 1e-12);
    let ga = ours
        .backward()
        .unwrap()
        .get(&x)
        .unwrap()
        .to_vec1::<f64>()
        .unwrap();
    let gb = theirs
        .backward()
        .unwrap()
        .get(&x)
        .unwrap()
        .to_vec1::<f64>()
        .unwrap();
    for (u, v) in ga.iter().zip(&gb) {
        assert!((u - v).abs() < 1e-14, "{u} vs {v}");
    }
}

#[test]
fn chains_with_other_ops_and_f32() {
    let x = Var::new(&[3.0f32, 4.0], &Device::Cpu).unwrap();
    let y = (nilang_candle::norm(x.as_tensor()).unwrap() * 2.0).unwrap();
    let g = y
        .backward()
        .unwrap()
        .get(&x)
        .unwrap()
        .to_vec1::<f32>()
        .unwrap();
    assert!((g[0] - 1.2).abs() < 1e-6 && (g[1] - 1.6).abs() < 1e-6);
}
