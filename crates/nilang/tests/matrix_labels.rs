//! The labels of generated Jacobians and Hessians: one per row and column, built from the
//! parameter names (`w` for a scalar parameter, `x[k]` for scalar `k` of any other), printed
//! by `{}`, shown by `{:?}`, read by name, and ignored by `==`.

use nilang::{i, Loss, Matrix, NoGrad, Real, Scalars};

#[i]
fn mixed<T: Real>(out: &mut T, y: &mut [T], x: &mut Vec<T>, n: i64, c: &mut NoGrad<T>, w: &mut T) {
    out += x[0] * w;
    y[0] += x[1] * c.0;
    y[1] += x[0] * x[1];
    y[1] += w * n;
}

fn args() -> (f64, Vec<f64>, Vec<f64>, i64, NoGrad<f64>, f64) {
    (0.0, vec![0.0; 2], vec![2.0, 3.0], 4, NoGrad(5.0), 0.5)
}

const FLAT: [&str; 6] = ["out", "y[0]", "y[1]", "x[0]", "x[1]", "w"];

#[test]
fn a_jacobian_labels_its_rows_and_columns_by_parameter_name_in_flat_order() {
    let (mut out, mut y, mut x, n, mut c, mut w) = args();
    let j = mixed_jacobian(&mut out, &mut y, &mut x, n, &mut c, &mut w).unwrap();
    assert_eq!(j.row_labels(), FLAT);
    assert_eq!(j.col_labels(), FLAT);
    assert!(j.is_labelled());
    // ∂y₁/∂x₀ = x₁, ∂y₁/∂w = n, ∂y₀/∂x₁ = c (not differentiated, not a column)
    assert_eq!(j.at("y[1]", "x[0]"), Some(3.0));
    assert_eq!(j.at("y[1]", "w"), Some(4.0));
    assert_eq!(j.at("y[0]", "x[1]"), Some(5.0));
    assert_eq!(j.at("y[0]", "c"), None);
    assert_eq!(j.at("n", "w"), None);
    for (i, r) in FLAT.iter().enumerate() {
        assert_eq!(j.row_index(r), Some(i));
        assert_eq!(j.col_index(r), Some(i));
    }
}

#[test]
fn chosen_rows_are_labelled_by_their_outputs_in_the_order_asked() {
    let (mut out, mut y, mut x, n, mut c, mut w) = args();
    let losses = [Loss::elem(1, 1), Loss::arg(0), Loss::elem(1, 1)];
    let rows = mixed_jacobian_of(&losses, &mut out, &mut y, &mut x, n, &mut c, &mut w).unwrap();
    assert_eq!(rows.row_labels(), ["y[1]", "out", "y[1]"]);
    assert_eq!(rows.col_labels(), FLAT);
    let (mut out, mut y, mut x, n, mut c, mut w) = args();
    let all = mixed_jacobian(&mut out, &mut y, &mut x, n, &mut c, &mut w).unwrap();
    for (k, label) in rows.row_labels().iter().enumerate() {
        assert_eq!(rows.row(k), all.row(all.row_index(label).unwrap()));
    }
    // no outputs: no rows, the columns still labelled
    let (mut out, mut y, mut x, n, mut c, mut w) = args();
    let none = mixed_jacobian_of(&[], &mut out, &mut y, &mut x, n, &mut c, &mut w).unwrap();
    assert_eq!((none.rows, none.cols, none.col_labels().len()), (0, 6, 6));
}

#[test]
fn a_hessian_has_the_same_labels_on_both_sides_and_prints_them() {
    let (mut out, mut y, mut x, n, mut c, mut w) = args();
    let h = mixed_hessian(
        Loss::elem(1, 1),
        &mut out,
        &mut y,
        &mut x,
        n,
        &mut c,
        &mut w,
    )
    .unwrap();
    assert_eq!(h.row_labels(), FLAT);
    assert_eq!(h.col_labels(), FLAT);
    // y₁ = x₀ x₁ + n w: ∂²/∂x₀∂x₁ = 1, nothing else
    assert_eq!(h.at("x[0]", "x[1]"), Some(1.0));
    assert_eq!(h.at("x[1]", "x[0]"), Some(1.0));
    assert_eq!(h.data.iter().filter(|v| **v != 0.0).count(), 2);
    let printed = format!("{h:.1}");
    let lines: Vec<&str> = printed.lines().collect();
    assert_eq!(lines[0], "      out  y[0]  y[1]  x[0]  x[1]    w");
    assert_eq!(lines[4], "x[0] [0.0   0.0   0.0   0.0   1.0  0.0]");
    assert_eq!(lines.len(), 7);
}

#[derive(Clone, Copy, Debug, Scalars)]
struct Affine<T> {
    scale: T,
    shift: [T; 2],
}

#[i(expand, jacobian = affine_j)]
fn affine<T: Real>(y: &mut [T; 2], p: &mut Affine<T>, x: &mut T) {
    y[0] += p.scale * x;
    y[0] += p.shift[0];
    y[1] += p.shift[1] * x;
}

#[test]
fn struct_and_array_parameters_are_labelled_by_flat_index_under_chosen_names() {
    let p = Affine {
        scale: 2.0,
        shift: [1.0, 3.0],
    };
    let j = affine_j(&mut [0.0; 2], &mut p.clone(), &mut 1.5).unwrap();
    let flat = ["y[0]", "y[1]", "p[0]", "p[1]", "p[2]", "x"];
    assert_eq!(j.col_labels(), flat);
    assert_eq!(j.at("y[0]", "p[0]"), Some(1.5)); // ∂y₀/∂scale = x
    assert_eq!(j.at("y[1]", "x"), Some(3.0)); // ∂y₁/∂x = shift₁
    let rows = affine_j_of(&[Loss::elem(0, 1)], &mut [0.0; 2], &mut p.clone(), &mut 1.5).unwrap();
    assert_eq!(rows.row_labels(), ["y[1]"]);
}

#[i]
fn on_f64(y: &mut f64, x: &mut [f64]) {
    y += x[0] * x[1];
}

#[test]
fn a_function_on_f64_gets_labels_too() {
    let j = on_f64_jacobian(&mut 0.0, &mut vec![2.0, 3.0]).unwrap();
    assert_eq!(j.row_labels(), ["y", "x[0]", "x[1]"]);
    assert_eq!(j.at("y", "x[1]"), Some(2.0));
}

#[test]
fn equality_is_about_the_entries_and_debug_shows_the_labels() {
    let j = on_f64_jacobian(&mut 0.0, &mut vec![2.0, 3.0]).unwrap();
    let plain = Matrix::from_data(3, 3, j.data.clone());
    assert!(!plain.is_labelled());
    assert_eq!(j, plain);
    let relabelled = plain.clone().with_labels(["a", "b", "c"], ["a", "b", "c"]);
    assert_eq!(j, relabelled);
    assert_ne!(j.row_labels(), relabelled.row_labels());
    let mut other = plain.clone();
    other[(0, 0)] = 7.0;
    assert_ne!(j, other);
    assert_eq!(
        format!("{plain:?}"),
        "Matrix { rows: 3, cols: 3, data: [1.0, 3.0, 2.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0] }"
    );
    assert_eq!(
        format!("{j:?}"),
        "Matrix { rows: 3, cols: 3, row_labels: [\"y\", \"x[0]\", \"x[1]\"], \
         col_labels: [\"y\", \"x[0]\", \"x[1]\"], data: [1.0, 3.0, 2.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0] }"
    );
    // the labels travel with clones and survive writes to entries
    let mut k = j.clone();
    k[(0, 0)] = 2.0;
    assert_eq!(k.row_labels(), j.row_labels());
}

#[test]
fn an_unlabelled_matrix_prints_as_before() {
    let m = Matrix::from_data(2, 2, vec![10.0, 0.0, 0.0, -3.25]);
    assert_eq!(m.to_string(), "[10      0]\n[ 0  -3.25]\n");
    assert!(m.row_labels().is_empty() && m.col_labels().is_empty());
    assert_eq!(m.at("a", "b"), None);
}

#[test]
fn long_labels_widen_their_columns() {
    let m =
        Matrix::from_data(2, 2, vec![1.0, 2.0, 3.0, 4.0]).with_labels(["a", "bb"], ["first", "x"]);
    assert_eq!(
        m.to_string(),
        "    first  x\na  [    1  2]\nbb [    3  4]\n"
    );
}

#[test]
#[should_panic(expected = "a 2×2 matrix needs 2 row and 2 column labels, not 1 and 2")]
fn labels_of_the_wrong_number_are_refused() {
    let _ = Matrix::filled(2, 2, 0.0).with_labels(["a"], ["b", "c"]);
}

#[test]
#[should_panic(expected = "a 2×3 matrix has 6 entries, not 5")]
fn data_of_the_wrong_length_is_refused() {
    let _ = Matrix::from_data(2, 3, vec![0.0; 5]);
}
