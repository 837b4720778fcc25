//! A function that indexes past the length its caller declared is an `Err`, never a read or
//! write outside the buffer: every slice access of the generated code is checked against the
//! slice's length, and the launcher turns the kernel's error word into an error naming the
//! function, the slice, the index and the length (the crate doc's "Soundness").
//!
//! Before the checks, the batched test's first instance wrote its neighbour's `y[0]` (the
//! sentinel below) and the launcher returned `Ok`; the parallel loop's wrote past the end of
//! its buffer (valgrind: "Invalid write of size 8"), and a failed slot or broadcast check
//! aborted the test process.

use nilang_cgen::{KernelSpec, Module};
use nilang_cuda::{Backend, Batch, HostModule};

fn host() -> bool {
    match HostModule::compiler_available() {
        Ok(()) => true,
        Err(why) => {
            eprintln!("skipped: {why}");
            false
        }
    }
}

/// `y[i] += x[i + 1]` for `i` below `n`, a by-value parameter the slices' lengths do not bound.
const SHIFT: &str = "#[i] fn shift<T: Real>(y: &mut [T], x: &mut [T], n: usize) {
    for i in 0..n { y[i] += identity(x[i + 1]); }
}";

/// The translation unit of the one function of `src`, with its batched kernels.
fn kernel_unit(src: &str) -> String {
    let f = &nilang_ir::parse_file(src).unwrap()[0];
    let mut m = Module::new();
    m.function(f)
        .unwrap()
        .kernel(f, &KernelSpec::new())
        .unwrap();
    m.source()
}

/// The host kernels of the one function `name` of `src`.
fn host_kernel(src: &str, name: &str) -> nilang_cuda::HostKernel {
    HostModule::compile(&kernel_unit(src))
        .unwrap()
        .kernel(name)
        .unwrap()
}

fn shift_kernel() -> nilang_cuda::HostKernel {
    host_kernel(SHIFT, "shift")
}

/// Two instances of 3 elements each; the first runs `n[0]` iterations, the second none, so
/// the second's `y` (from 10.0) is a sentinel right after the first's slice.
fn shift_batch(n0: i64) -> Batch {
    Batch::new(2)
        .real(3, vec![0.0, 0.0, 0.0, 10.0, 11.0, 12.0])
        .real(3, vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
        .int(vec![n0, 0])
}

#[test]
fn a_batched_loop_within_its_slices_runs() {
    if !host() {
        return;
    }
    let k = shift_kernel();
    let mut b = shift_batch(2);
    k.forward(&mut b).unwrap();
    assert_eq!(b.values(0), [2.0, 3.0, 0.0, 10.0, 11.0, 12.0]);
    b.grads_mut(0)
        .copy_from_slice(&[1.0, 1.0, 1.0, 0.0, 0.0, 0.0]);
    k.gradient(&mut b).unwrap();
    assert_eq!(b.values(0), [0.0, 0.0, 0.0, 10.0, 11.0, 12.0]);
    assert_eq!(b.grads(1), [0.0, 1.0, 1.0, 0.0, 0.0, 0.0]);
}

#[test]
fn a_batched_loop_past_its_slices_is_an_error_in_every_direction() {
    if !host() {
        return;
    }
    let k = shift_kernel();
    // `n = 4` over slices of 3: the forward loop reads `x[3]` at `i = 2` (its first access
    // out of bounds), then would write `y[3]` (the sentinel); the inverse loop runs from
    // `i = 3` down, and `y[3]` is its first access
    let before = shift_batch(4);
    for (dir, run, first) in [
        (
            "fwd",
            Backend::forward as fn(&_, &mut Batch) -> _,
            "`x` of length 3 (`x[i + 1]` in `shift`)",
        ),
        (
            "inv",
            Backend::inverse,
            "`y` of length 3 (`y[i]` in `shift`)",
        ),
        (
            "grad",
            Backend::gradient,
            "`y` of length 3 (`y[i]` in `shift`)",
        ),
    ] {
        let mut b = before.clone();
        let r = run(&k, &mut b);
        let e = match r {
            Ok(()) => panic!(
                "shift__{dir} returned Ok; the sentinel (instance 1's y[0], 10.0) is now {}",
                b.values(0)[3]
            ),
            Err(e) => e.0,
        };
        let want = format!("`shift__{dir}`, instance 0: index 3 is out of bounds for {first}");
        assert_eq!(e, want);
        assert_eq!(b, before, "{dir}: the batch changed");
    }
}

#[test]
fn a_write_past_the_last_instance_is_an_error() {
    if !host() {
        return;
    }
    // `y[i] += …` with `x` long enough: the write `y[3]` is the first access out of bounds,
    // in the last instance, where it would land past the end of the buffer
    let src = "#[i] fn spill<T: Real>(y: &mut [T], x: &[T], n: usize) {
        for i in 0..n { y[i] += identity(x[i]); }
    }";
    let k = host_kernel(src, "spill");
    let before = Batch::new(2)
        .real(2, vec![0.0; 4])
        .real(8, vec![1.0; 16])
        .int(vec![2, 5]);
    let mut b = before.clone();
    let e = k.forward(&mut b).unwrap_err().0;
    assert_eq!(
        e,
        "`spill__fwd`, instance 1: index 2 is out of bounds for `y` of length 2 \
         (`y[i]` in `spill`)"
    );
    assert_eq!(b, before);
}

#[test]
fn a_negative_index_is_an_error() {
    if !host() {
        return;
    }
    let src = "#[i] fn back<T: Real>(y: &mut [T], k: i64) { y[k - 1] += identity(1.0); }";
    let k = host_kernel(src, "back");
    let mut b = Batch::new(1).real(2, vec![0.0; 2]).int(vec![0]);
    let e = k.forward(&mut b).unwrap_err().0;
    assert_eq!(
        e,
        "`back__fwd`, instance 0: index -1 is out of bounds for `y` of length 2 \
         (`y[k - 1]` in `back`)"
    );
    let mut b = Batch::new(1).real(2, vec![0.0; 2]).int(vec![2]);
    k.forward(&mut b).unwrap();
    assert_eq!(b.values(0), [0.0, 1.0]);
}

#[test]
fn an_access_in_a_callee_names_the_callee() {
    if !host() {
        return;
    }
    let src = "
        #[i] fn at<T: Real>(y: &mut [T], j: usize) { y[j] += identity(1.0); }
        #[i] fn caller<T: Real>(y: &mut [T], n: usize) { for j in 0..n { at(y, j); } }
    ";
    let fs = nilang_ir::parse_file(src).unwrap();
    let mut m = Module::new();
    m.function(&fs[0]).unwrap().function(&fs[1]).unwrap();
    m.kernel(&fs[1], &KernelSpec::new()).unwrap();
    let k = HostModule::compile(&m.source())
        .unwrap()
        .kernel("caller")
        .unwrap();
    let mut b = Batch::new(1).real(1, vec![0.0]).int(vec![3]);
    let e = k.forward(&mut b).unwrap_err().0;
    assert_eq!(
        e,
        "`caller__fwd`, instance 0: index 1 is out of bounds for `y` of length 1 \
         (`y[j]` in `at`)"
    );
}

#[test]
fn slices_of_different_lengths_in_a_broadcast_are_an_error() {
    if !host() {
        return;
    }
    let src = "#[i] fn bc<T: Real>(y: &mut [T], x: &[T]) { y[..] += identity(x[..]); }";
    let k = host_kernel(src, "bc");
    let mut b = Batch::new(1).real(2, vec![0.0; 2]).real(3, vec![1.0; 3]);
    let e = k.forward(&mut b).unwrap_err().0;
    assert_eq!(
        e,
        "`bc__fwd`, instance 0: a broadcast over slices of lengths 2 and 3 (`y[..] += \
         identity(x[..]);` in `bc`)"
    );
    let mut b = Batch::new(1).real(2, vec![0.0; 2]).real(2, vec![1.0; 2]);
    k.forward(&mut b).unwrap();
    assert_eq!(b.values(0), [1.0, 1.0]);
}

fn par_shift_unit() -> String {
    let src = "#[i] fn pshift<T: Real>(y: &mut [T], x: &[T], k: usize) {
        for i in (0..k).par() { y[i] += identity(x[i + 1]); }
    }";
    let f = &nilang_ir::parse_file(src).unwrap()[0];
    let mut m = Module::new();
    m.par_kernel(f, 0).unwrap();
    m.source()
}

/// The parallel loop `y[i] += x[i + 1]` over `0..k`, `k` from the context.
fn par_shift() -> nilang_cuda::HostParKernel {
    HostModule::compile(&par_shift_unit())
        .unwrap()
        .par_kernel("pshift__par0")
        .unwrap()
}

fn par_shift_context(k: i64) -> Batch {
    Batch::new(1)
        .real(3, vec![0.0; 3])
        .real(5, vec![1.0, 2.0, 3.0, 4.0, 5.0])
        .int(vec![k])
}

#[test]
fn a_parallel_loop_past_its_slices_is_an_error_in_every_direction() {
    if !host() {
        return;
    }
    let k = par_shift();
    let ctx = par_shift_context;
    let mut c = ctx(3);
    k.forward(&mut c).unwrap();
    assert_eq!(c.values(0), [2.0, 3.0, 4.0]);
    // five iterations over three elements of `y`: the loop's iteration 3 writes `y[3]`, past
    // the buffer; the inverse loop runs from `i = 4` down, so its iteration 0 writes `y[4]`
    let before = ctx(5);
    for (dir, run, first) in [
        (
            "fwd",
            Backend::forward as fn(&_, &mut Batch) -> _,
            "iteration 3: index 3",
        ),
        ("inv", Backend::inverse, "iteration 0: index 4"),
        ("grad", Backend::gradient, "iteration 0: index 4"),
    ] {
        let mut c = before.clone();
        let e = run(&k, &mut c).map(|_| c.values(0).to_vec());
        let e = e.expect_err(dir).0;
        assert_eq!(
            e,
            format!(
                "`pshift__par0__{dir}`, {first} is out of bounds for `y` of length 3 (`y[i]` \
                 in `pshift__par0`)"
            )
        );
        assert_eq!(c, before, "{dir}: the context changed");
    }
}

#[test]
fn a_failed_slot_check_is_an_error() {
    if !host() {
        return;
    }
    // the owned slot `y[2 * i + j]` needs `0 <= j < 2`: the Rust program checks it before the
    // loop, and so does the kernel's count
    let src = "#[i] fn slot<T: Real>(y: &mut [T], x: &[T], j: usize) {
        for i in (0..x.len()).par() { y[2 * i + j] += identity(x[i]); }
    }";
    let f = &nilang_ir::parse_file(src).unwrap()[0];
    let mut m = Module::new();
    m.par_kernel(f, 0).unwrap();
    let k = HostModule::compile(&m.source())
        .unwrap()
        .par_kernel("slot__par0")
        .unwrap();
    let ctx = |j: i64| {
        Batch::new(1)
            .real(4, vec![0.0; 4])
            .real(2, vec![1.0, 2.0])
            .int(vec![j])
    };
    let mut c = ctx(1);
    k.forward(&mut c).unwrap();
    assert_eq!(c.values(0), [0.0, 1.0, 0.0, 2.0]);
    let before = ctx(2);
    let mut c = before.clone();
    let e = k.forward(&mut c).unwrap_err().0;
    assert_eq!(
        e,
        "`slot__par0__count`: the parallel loop's access `y[2 * i + j]` has stride 2 and \
         offset 2, which do not lie in 0..stride: iterations could write the same element \
         (in `slot__par0`)"
    );
    assert_eq!(c, before);
}

/// On a GPU, the same failures are errors (the first thread to fail is any of those that do),
/// and the device runs on: a failed check records itself, it does not trap (which would end
/// the context).
#[test]
fn on_a_gpu_an_access_out_of_bounds_is_an_error_or_skip() {
    match nilang_cuda::is_available() {
        Err(why) => eprintln!("skipped: GPU tests not run: {why}"),
        Ok(()) => {
            #[cfg(feature = "cuda")]
            {
                let k = nilang_cuda::CudaKernel::compile(&kernel_unit(SHIFT), "shift", 0).unwrap();
                let before = shift_batch(4);
                let mut b = before.clone();
                let e = k.forward(&mut b).unwrap_err().0;
                assert_eq!(
                    e,
                    "`shift__fwd`, instance 0: index 3 is out of bounds for `x` of length 3 \
                     (`x[i + 1]` in `shift`)"
                );
                assert_eq!(b, before);
                let mut b = shift_batch(2);
                k.forward(&mut b).unwrap();
                assert_eq!(b.values(0), [2.0, 3.0, 0.0, 10.0, 11.0, 12.0]);

                let source = par_shift_unit();
                let k = nilang_cuda::CudaParKernel::compile(&source, "pshift__par0", 0).unwrap();
                let before = par_shift_context(5);
                let mut c = before.clone();
                let e = k.forward(&mut c).unwrap_err().0;
                assert!(e.starts_with("`pshift__par0__fwd`, iteration "), "{e}");
                assert!(
                    e.ends_with("is out of bounds for `y` of length 3 (`y[i]` in `pshift__par0`)"),
                    "{e}"
                );
                assert_eq!(c, before);
                let mut c = par_shift_context(3);
                k.forward(&mut c).unwrap();
                assert_eq!(c.values(0), [2.0, 3.0, 4.0]);
            }
        }
    }
}

#[test]
fn a_loop_stops_at_its_first_failed_check() {
    if !host() {
        return;
    }
    // 2⁶² iterations, the third out of bounds: the loop ends there (the Rust function panics
    // there), it does not run on scratch places for ever
    let k = shift_kernel();
    let before = shift_batch(1 << 62);
    let start = std::time::Instant::now();
    let mut b = before.clone();
    let e = k.forward(&mut b).unwrap_err().0;
    assert_eq!(
        e,
        "`shift__fwd`, instance 0: index 3 is out of bounds for `x` of length 3 \
         (`x[i + 1]` in `shift`)"
    );
    assert_eq!(b, before);
    assert!(start.elapsed().as_secs() < 10, "{:?}", start.elapsed());
    // and a `while` loop, whose condition reads past the slice
    let src = "#[i] fn walk<T: Real>(y: &mut [T], k: &mut i64) {
        while (y[k].val() >= 0.0, k > 0) { k += 1; }
    }";
    let k = host_kernel(src, "walk");
    let mut b = Batch::new(1).real(2, vec![1.0, 2.0]).int(vec![0]);
    let e = k.forward(&mut b).unwrap_err().0;
    assert_eq!(
        e,
        "`walk__fwd`, instance 0: index 2 is out of bounds for `y` of length 2 (`y[k]` in `walk`)"
    );
}
