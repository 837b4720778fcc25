//! The variants of Bennett's scheme that NiLang offers: sectors of ⌈len/k⌉ steps
//! (`Split::CeilSized`) beside our equal split, and the run that keeps the top level's sector
//! ends (`run_keeping_sectors`, NiLang's `bennett!`). Final states against the direct
//! computation, call counts against a recurrence written here from the definition, the peak
//! against `n(k−1) + 2` for `N = kⁿ`, and the inverse runs back to `s₀` alone.

use nilang::schedule::{Bennett, Split};
use nilang::{i, Real, Rev};

/// One step: `s_{i+1} = sin(s_i) + 1/2`.
#[i]
fn sine_step<T: Real>(out: &mut T, inp: &mut T) {
    out += sin(inp);
    out += 0.5;
}

const S0: f64 = 0.3;

fn direct(len: usize) -> f64 {
    (0..len).fold(S0, |s, _| s.sin() + 0.5)
}

type Step = Rev<fn(&mut f64, &mut f64), fn(&mut f64, &mut f64)>;

fn steps(len: usize) -> Vec<Step> {
    let step: Step = Rev::new(sine_step::<f64>, sine_step_inv::<f64>);
    vec![step; len]
}

/// Runs `check(split, k, len, steps)` for both splits, `k` in 2..=4 and 1 to 30 steps.
fn for_each_schedule(check: impl Fn(Split, usize, usize, &[Step])) {
    for split in [Split::Equal, Split::CeilSized] {
        for k in 2..=4 {
            for len in 1..=30 {
                check(split, k, len, &steps(len));
            }
        }
    }
}

/// The sector lengths of a level of `len` steps, from the definitions of `Split`.
fn sectors(split: Split, k: usize, len: usize) -> Vec<usize> {
    match split {
        Split::Equal => {
            let parts = k.min(len);
            let (q, r) = (len / parts, len % parts);
            (0..parts)
                .map(|j| q + usize::from(j >= parts - r))
                .collect()
        }
        Split::CeilSized => {
            let n = len.div_ceil(k);
            let mut out = vec![n; len / n];
            if len % n != 0 {
                out.push(len % n);
            }
            out
        }
    }
}

/// Step calls and uncalls of one forward run of `len` steps: every sector forward (P), then
/// all but the last backward (Q), which costs what its forward did; `top_q = false` skips the
/// top level's Q.
fn calls(split: Split, k: usize, len: usize, top_q: bool) -> usize {
    if len == 1 {
        return 1;
    }
    let s = sectors(split, k, len);
    let p: usize = s.iter().map(|&l| calls(split, k, l, true)).sum();
    let q: usize = s[..s.len() - 1]
        .iter()
        .map(|&l| calls(split, k, l, true))
        .sum();
    p + if top_q { q } else { 0 }
}

#[test]
fn ceil_sized_sectors_are_nilangs() {
    assert_eq!(sectors(Split::CeilSized, 3, 10), vec![4, 4, 2]);
    assert_eq!(sectors(Split::Equal, 3, 10), vec![3, 3, 4]);
    // fewer sectors than k where ⌈len/k⌉ covers len sooner
    assert_eq!(sectors(Split::CeilSized, 4, 6), vec![2, 2, 2]);
}

#[test]
fn both_splits_compute_the_same_states() {
    for_each_schedule(|split, k, len, steps| {
        let mut b = Bennett::new(k, S0, len).with_split(split);
        b.run(steps);
        let tag = format!("{split:?} k={k} len={len}");
        assert_eq!(b.final_state(), Some(&direct(len)), "{tag}");
        assert_eq!(b.live_states(), 2, "{tag}");
        assert_eq!(b.program_counter(), calls(split, k, len, true), "{tag}");
        b.run_inv(steps);
        assert_eq!((b.live_states(), b.state(0)), (1, Some(&S0)), "{tag}");
    });
}

#[test]
fn keeping_the_sector_ends_saves_the_top_level_uncomputation() {
    for_each_schedule(|split, k, len, steps| {
        let mut b = Bennett::new(k, S0, len).with_split(split);
        b.run_keeping_sectors(steps);
        let tag = format!("{split:?} k={k} len={len}");
        assert_eq!(b.final_state(), Some(&direct(len)), "{tag}");
        let parts = if len == 1 {
            1
        } else {
            sectors(split, k, len).len()
        };
        assert_eq!(b.live_states(), parts + 1, "{tag}");
        assert_eq!(b.program_counter(), calls(split, k, len, false), "{tag}");
        b.run_keeping_sectors_inv(steps);
        assert_eq!((b.live_states(), b.state(0)), (1, Some(&S0)), "{tag}");
    });
}

#[test]
fn powers_of_k_match_the_closed_forms() {
    for k in 2..=4usize {
        for n in 1..=4u32 {
            let len = k.pow(n);
            let st = steps(len);
            let mut b = Bennett::new(k, S0, len).with_split(Split::CeilSized);
            b.run(&st);
            assert_eq!(b.program_counter(), (2 * k - 1).pow(n));
            assert_eq!(b.peak_live_states(), n as usize * (k - 1) + 2);
            let mut b = Bennett::new(k, S0, len);
            b.run_keeping_sectors(&st);
            assert_eq!(
                b.program_counter(),
                k * (2 * k - 1).pow(n - 1),
                "k={k} n={n}"
            );
            assert_eq!(
                b.peak_live_states(),
                n as usize * (k - 1) + 2,
                "k={k} n={n}"
            );
            assert_eq!(b.live_states(), k + 1);
        }
    }
}

#[test]
fn no_steps_is_no_work() {
    for split in [Split::Equal, Split::CeilSized] {
        let mut b = Bennett::new(3, S0, 0).with_split(split);
        b.run_keeping_sectors(&steps(0));
        b.run(&steps(0));
        assert_eq!((b.program_counter(), b.live_states()), (0, 1));
    }
}
