//! Bad batches from safe code are errors, never undefined behaviour: every size a kernel relies
//! on is checked before it gets a pointer (the crate doc's "Soundness").
//!
//! The first three tests are the review's findings: a buffer of the wrong length put in a
//! batch through `args_mut` (which read out of bounds in `RustKernel`), an overflowing
//! `n * len` (which wrapped in release builds, then segfaulted) and `Layout::check` not
//! comparing lengths (which `HostKernel::run`'s unsafe call relied on).

use nilang::GVar;
use nilang_cgen::{KernelSpec, Module};
use nilang_cuda::{Arg, Backend, Batch, HostModule, Layout, RustKernel};

/// `y[i] += d[i]` over the instance's slices: the Rust kernel of a real and a data parameter.
fn add_data() -> impl Backend {
    fn fwd(r: &mut [&mut [f64]], d: &[&[f64]], _: &[i64]) {
        r[0].iter_mut().zip(d[0]).for_each(|(y, x)| *y += x);
    }
    fn inv(r: &mut [&mut [f64]], d: &[&[f64]], _: &[i64]) {
        r[0].iter_mut().zip(d[0]).for_each(|(y, x)| *y -= x);
    }
    fn adj(r: &mut [&mut [GVar<f64>]], d: &[&[f64]], _: &[i64]) {
        r[0].iter_mut().zip(d[0]).for_each(|(y, x)| y.x -= x);
    }
    RustKernel::new(fwd, inv, adj)
}

/// Every direction of `k` on both thread settings fails on `batch` with an error containing
/// `want`, and leaves the batch as it was.
fn all_fail(batch: &Batch, want: &str) {
    let kernels: [Box<dyn Backend>; 2] = [Box::new(add_data()), Box::new(rayon_add_data())];
    for k in &kernels {
        for run in [
            |k: &dyn Backend, b: &mut Batch| k.forward(b),
            |k: &dyn Backend, b: &mut Batch| k.inverse(b),
            |k: &dyn Backend, b: &mut Batch| k.gradient(b),
        ] {
            let mut b = batch.clone();
            let e = run(k.as_ref(), &mut b).unwrap_err().0;
            assert!(e.contains(want), "{}: `{e}` lacks `{want}`", k.describe());
            assert_eq!(&b, batch, "{}: the batch changed", k.describe());
        }
    }
}

fn rayon_add_data() -> impl Backend {
    fn fwd(r: &mut [&mut [f64]], d: &[&[f64]], _: &[i64]) {
        r[0][0] += d[0][0];
    }
    fn adj(r: &mut [&mut [GVar<f64>]], _: &[&[f64]], _: &[i64]) {
        r[0][0].g += 0.0;
    }
    RustKernel::new(fwd, fwd, adj).rayon()
}

#[test]
fn finding_1_a_buffer_emptied_through_args_mut_is_an_error() {
    let mut b = Batch::new(4).real(1, vec![1.0; 4]).data(1, vec![2.0; 4]);
    // an emptied buffer: its pointer dangles, and the old `RustKernel` read 4 values there
    b.args_mut()[0] = Arg::real(1, vec![]);
    all_fail(
        &b,
        "parameter 0: 4 instances × 1 elements need 4 values, the buffer holds 0",
    );
    // a buffer of a batch of 2 swapped into a batch of 4
    let mut b = Batch::new(4).real(1, vec![1.0; 4]).data(1, vec![2.0; 4]);
    let mut small = Batch::new(2).real(1, vec![0.0; 2]).data(1, vec![0.0; 2]);
    std::mem::swap(&mut b.args_mut()[1], &mut small.args_mut()[1]);
    all_fail(
        &b,
        "parameter 1: 4 instances × 1 elements need 4 values, the buffer holds 2",
    );
    let e = add_data().forward(&mut small).unwrap_err().0;
    assert!(e.contains("need 2 values, the buffer holds 4"), "{e}");
}

#[test]
fn finding_1_buffers_are_written_in_place_never_resized() {
    let mut b = Batch::new(2).real(2, vec![1.0; 4]).data(2, vec![0.5; 4]);
    b.args_mut()[0].values_mut().unwrap()[3] = 3.0;
    b.args_mut()[0].grads_mut().unwrap()[3] = 1.0;
    assert!(
        b.args_mut()[1].grads_mut().is_none(),
        "data has no gradients"
    );
    assert!(b.args()[1].ints().is_none());
    add_data().forward(&mut b).unwrap();
    assert_eq!(b.values(0), [1.5, 1.5, 1.5, 3.5]);
    assert_eq!(b.args()[0].elements(), 4);
}

#[test]
fn finding_2_an_overflowing_size_is_an_error() {
    let e = Batch::new(2)
        .push(Arg::data(1 << 63, vec![]))
        .unwrap_err()
        .0;
    assert_eq!(
        e,
        "parameter 0 (Data): 2 instances × 9223372036854775808 elements per instance \
         overflows usize"
    );
    // put in place of a checked buffer: the run reports it before touching a pointer
    let mut b = Batch::new(2).real(1, vec![0.0; 2]).data(1, vec![0.0; 2]);
    b.args_mut()[1] = Arg::data(1 << 63, vec![]);
    all_fail(
        &b,
        "parameter 1: 2 instances × 9223372036854775808 elements",
    );
    all_fail(&b, "overflows usize");
}

#[test]
#[should_panic(
    expected = "parameter 0 (Data): 2 instances × 9223372036854775808 elements per instance \
                overflows usize"
)]
fn finding_2_the_builder_panics_with_the_sizes_instead_of_wrapping() {
    let _ = Batch::new(2).data(1 << 63, vec![]);
}

/// The layout of `f(y: &mut T, x: &mut [T], k: i64)`, `x` shared when `shared_x`.
fn unit(shared_x: Option<usize>) -> String {
    let src = "#[i] fn f<T: Real>(y: &mut T, x: &mut [T], k: i64) { y += x[0] * x[1]; }";
    let f = &nilang_ir::parse_file(src).unwrap()[0];
    let spec = match shared_x {
        Some(m) => KernelSpec::new().shared("x", m),
        None => KernelSpec::new(),
    };
    let mut m = Module::new();
    m.function(f).unwrap().kernel(f, &spec).unwrap();
    m.source()
}

fn good_batch() -> Batch {
    Batch::new(3)
        .real(1, vec![0.0; 3])
        .real(2, vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
        .int(vec![0; 3])
}

/// `Layout::check` and, where g++ runs, the host kernel reject `b` with `want`.
fn rejected(source: &str, b: &Batch, want: &str) {
    let layout = Layout::from_source(source, "f").unwrap();
    let e = layout.check(b).unwrap_err().0;
    assert!(e.contains(want), "Layout::check: `{e}` lacks `{want}`");
    if HostModule::compiler_available().is_err() {
        return;
    }
    let k = HostModule::compile(source).unwrap().kernel("f").unwrap();
    let mut run = b.clone();
    let e = k.forward(&mut run).unwrap_err().0;
    assert!(e.contains(want), "host kernel: `{e}` lacks `{want}`");
    assert_eq!(&run, b);
}

#[test]
fn finding_3_layout_check_compares_every_length_with_n_times_len() {
    let src = unit(None);
    let layout = Layout::from_source(&src, "f").unwrap();
    layout.check(&good_batch()).unwrap();
    let mut b = good_batch();
    b.args_mut()[1] = Arg::real(2, vec![0.1]);
    rejected(
        &src,
        &b,
        "parameter `x`: 3 instances × 2 elements need 6 values, the buffer holds 1",
    );
    let mut b = good_batch();
    b.args_mut()[0] = Arg::real(1, vec![0.0; 2]);
    rejected(
        &src,
        &b,
        "parameter `y`: 3 instances × 1 elements need 3 values, the buffer holds 2",
    );
    let mut b = good_batch();
    b.args_mut()[2] = Arg::int(vec![1]);
    rejected(
        &src,
        &b,
        "parameter `k`: 3 instances × 1 elements need 3 values, the buffer holds 1",
    );
    let mut b = good_batch();
    b.args_mut()[1] = Arg::real(1 << 63, vec![]);
    rejected(
        &src,
        &b,
        "parameter `x`: 3 instances × 9223372036854775808 elements per instance overflows usize",
    );
}

#[test]
fn the_host_kernel_runs_a_checked_batch() {
    if HostModule::compiler_available().is_err() {
        return;
    }
    let k = HostModule::compile(&unit(None))
        .unwrap()
        .kernel("f")
        .unwrap();
    let mut b = good_batch();
    k.forward(&mut b).unwrap();
    assert_eq!(b.values(0), [2.0, 12.0, 30.0]);
}

#[test]
fn shared_buffers_are_checked_against_their_private_copy() {
    let src = unit(Some(2));
    let b = |x: Vec<f64>| {
        Batch::new(3)
            .real(1, vec![0.0; 3])
            .shared_real(x)
            .int(vec![0; 3])
    };
    Layout::from_source(&src, "f")
        .unwrap()
        .check(&b(vec![1.0, 2.0]))
        .unwrap();
    rejected(
        &src,
        &b(vec![1.0; 3]),
        "shared parameter `x`: 3 elements, at most 2",
    );
    // given per instance where the kernel reads a shared buffer
    rejected(&src, &good_batch(), "parameter `x` was generated shared");
}

#[test]
fn a_scalar_parameter_takes_one_element_per_instance() {
    let mut b = good_batch();
    b.args_mut()[0] = Arg::real(2, vec![0.0; 6]);
    rejected(
        &unit(None),
        &b,
        "parameter `y` is a scalar; the batch gives 2 elements",
    );
}

#[test]
fn kinds_and_counts_of_parameters_are_checked() {
    let src = unit(None);
    let mut b = good_batch();
    b.args_mut()[2] = Arg::data(1, vec![0.0; 3]);
    rejected(
        &src,
        &b,
        "parameter `k` is `int`, the batch gives a data buffer",
    );
    let b = Batch::new(3).real(1, vec![0.0; 3]);
    rejected(&src, &b, "`f` takes 3 parameters, the batch has 1");
}

#[test]
fn an_instance_count_beyond_the_kernel_abi_is_an_error() {
    // 2⁶³ instances of a function of one slice, each instance's slice empty: every buffer
    // holds what the instances read, but `n` is no `long long` (the old kernel ran -2⁶³
    // instances, that is none, and reported success)
    let src = "#[i] fn g<T: Real>(x: &mut [T]) { for i in 0..x.len() { x[i] += identity(1.0); } }";
    let f = &nilang_ir::parse_file(src).unwrap()[0];
    let mut m = Module::new();
    m.function(f)
        .unwrap()
        .kernel(f, &KernelSpec::new())
        .unwrap();
    let b = Batch::new(1 << 63).real(0, vec![]);
    let want = "`g`: the instance count: 9223372036854775808 does not fit the kernels' 64-bit \
                signed integers";
    let e = Layout::from_source(&m.source(), "g")
        .unwrap()
        .check(&b)
        .unwrap_err()
        .0;
    assert_eq!(e, want);
    if HostModule::compiler_available().is_ok() {
        let k = HostModule::compile(&m.source())
            .unwrap()
            .kernel("g")
            .unwrap();
        assert_eq!(k.forward(&mut b.clone()).unwrap_err().0, want);
    }
}

#[test]
fn no_instances_run_nothing_whatever_the_lengths() {
    // `n = 0`: the lengths per instance are no buffer's, so no scratch buffer is sized from
    // them (the old kernel allocated 2⁶³ scratch values and panicked)
    let mut b = Batch::new(0).real(1 << 62, vec![]).data(1 << 62, vec![]);
    add_data().forward(&mut b).unwrap();
    add_data().gradient(&mut b).unwrap();
    // lengths whose sum overflows are an error, not a wrap
    let mut b = Batch::new(0)
        .real(1 << 63, vec![])
        .real(1 << 63, vec![])
        .data(1, vec![]);
    let e = add_data().forward(&mut b).unwrap_err().0;
    assert!(
        e.contains("9223372036854775808 + 9223372036854775808 elements overflows usize"),
        "{e}"
    );
}

#[test]
fn more_parameters_than_an_instance_takes_are_an_error() {
    let mut b = Batch::new(1).real(1, vec![0.0]);
    for _ in 0..17 {
        b = b.data(1, vec![0.0]);
    }
    let e = add_data().forward(&mut b).unwrap_err().0;
    assert_eq!(e, "at most 16 parameters of each kind");
}

#[test]
#[should_panic(expected = "no parameter 5: the batch has 2")]
fn a_missing_parameter_is_named() {
    let b = Batch::new(1).real(1, vec![0.0]).data(1, vec![0.0]);
    let _ = b.values(5);
}

#[test]
#[should_panic(expected = "parameter 1 has no gradient")]
fn data_has_no_gradient() {
    let b = Batch::new(1).real(1, vec![0.0]).data(1, vec![0.0]);
    let _ = b.grads(1);
}

/// A parallel loop over `0..k`, `k` from the context, adding into a reduction.
fn par_unit() -> Option<nilang_cuda::HostParKernel> {
    let src = "#[i] fn total<T: Real>(out: &mut T, x: &mut [T], k: usize) {
        for i in (0..k).par() { out += square(x[i]); }
    }";
    let f = &nilang_ir::parse_file(src).unwrap()[0];
    let mut m = Module::new();
    m.par_kernel(f, 0).unwrap();
    HostModule::compiler_available().ok()?;
    Some(
        HostModule::compile(&m.source())
            .unwrap()
            .par_kernel("total__par0")
            .unwrap(),
    )
}

#[test]
fn a_parallel_loop_too_long_for_its_partials_is_an_error() {
    let Some(k) = par_unit() else { return };
    let ctx = |k: i64| {
        Batch::new(1)
            .real(1, vec![0.0])
            .real(3, vec![1.0, 2.0, 3.0])
            .int(vec![k])
    };
    let mut c = ctx(3);
    k.forward(&mut c).unwrap();
    assert_eq!(c.values(0), [14.0]);
    // 2⁶⁰ iterations: their partials cannot be allocated (the old launcher panicked with
    // "capacity overflow"), so the loop's body never runs past `x`
    let mut c = ctx(1 << 60);
    let e = k.forward(&mut c).unwrap_err().0;
    assert!(
        e.starts_with("`total__par0`: 1152921504606846976 partials of a reduction: "),
        "{e}"
    );
    assert_eq!(c, ctx(1 << 60));
}

#[test]
fn a_buffer_of_the_wrong_size_is_refused_when_added() {
    let e = Batch::new(3)
        .push(Arg::real(1, vec![0.0; 2]))
        .unwrap_err()
        .0;
    assert_eq!(
        e,
        "parameter 0 (Real): 3 instances × 1 elements need 3 values, the buffer holds 2"
    );
    let b = Batch::new(3).push(Arg::shared_int(4)).unwrap();
    let e = b.push(Arg::int(vec![1, 2])).unwrap_err().0;
    assert_eq!(
        e,
        "parameter 1 (Int): 3 instances × 1 elements need 3 values, the buffer holds 2"
    );
}
