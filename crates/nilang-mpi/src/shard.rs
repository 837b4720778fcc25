//! Which items a rank holds ([`shard_range`]) and the check that the ranks agree on a
//! problem's sizes before a collective runs on them ([`agree`]).

use crate::Comm;
use std::ops::Range;

/// The items of `0..n` that rank `rank` of `size` holds: contiguous, in rank order, the first
/// `n mod size` ranks one item more than the others.
///
/// ```
/// use nilang_mpi::shard_range;
///
/// let shards: Vec<_> = (0..3).map(|r| shard_range(10, r, 3)).collect();
/// assert_eq!(shards, [0..4, 4..7, 7..10]);
/// ```
pub fn shard_range(n: usize, rank: usize, size: usize) -> Range<usize> {
    assert!(
        rank < size,
        "shard_range: rank {rank} is not below the number of ranks, {size}"
    );
    let (base, extra) = (n / size, n % size);
    let start = rank * base + rank.min(extra);
    start..start + base + usize::from(rank < extra)
}

/// Checks that every rank holds the same value of each named size (`sizes`: name and value)
/// as rank 0; on every rank, an error naming the first size that differs and each rank's
/// value (one collective, so no rank runs on while another has stopped).
///
/// ```
/// use nilang_mpi::{agree, Comm, ThreadComm};
///
/// let ok = ThreadComm::run(2, |c| agree(c, &[("d", 3), ("k", 5)]));
/// assert!(ok.iter().all(Result::is_ok));
/// let bad = ThreadComm::run(2, |c| agree(c, &[("d", 3), ("k", 5 + c.rank() as u64)]));
/// assert_eq!(bad[0], Err("the ranks disagree on k: rank 0 has 5, the ranks have [5, 6]".into()));
/// ```
pub fn agree(comm: &dyn Comm, sizes: &[(&str, u64)]) -> Result<(), String> {
    let values: Vec<u64> = sizes.iter().map(|&(_, v)| v).collect();
    let all = comm.all_gather_u64(&values);
    if let Some(bad) = all.iter().find(|v| v.len() != values.len()) {
        return Err(format!(
            "the ranks check different lists of sizes: {} here, {} on another rank",
            values.len(),
            bad.len()
        ));
    }
    for (j, (name, _)) in sizes.iter().enumerate() {
        let column: Vec<u64> = all.iter().map(|v| v[j]).collect();
        if column.iter().any(|&v| v != column[0]) {
            return Err(format!(
                "the ranks disagree on {name}: rank 0 has {}, the ranks have {column:?}",
                column[0]
            ));
        }
    }
    Ok(())
}

/// Checks that the ranks agree on `total` and that their shards hold `total` items together
/// (`local` here); an error on every rank otherwise (one collective).
///
/// ```
/// use nilang_mpi::{check_shards, Comm, ThreadComm};
///
/// let bad = ThreadComm::run(2, |c| check_shards(c, "points", 10, 4));
/// assert_eq!(bad[1], Err("the shards hold [4, 4] points, 8 in all, but the problem has 10".into()));
/// let split = ThreadComm::run(2, |c| check_shards(c, "points", 10 + c.rank(), 5));
/// assert_eq!(split[0], Err("the ranks disagree on points: rank 0 has 10, the ranks have [10, 11]".into()));
/// ```
pub fn check_shards(comm: &dyn Comm, what: &str, total: usize, local: usize) -> Result<(), String> {
    let all = comm.all_gather_u64(&[total as u64, local as u64]);
    let totals: Vec<u64> = all.iter().map(|v| v[0]).collect();
    if totals.iter().any(|&t| t != totals[0]) {
        return Err(format!(
            "the ranks disagree on {what}: rank 0 has {}, the ranks have {totals:?}",
            totals[0]
        ));
    }
    let counts: Vec<u64> = all.iter().map(|v| v[1]).collect();
    let sum: u64 = counts.iter().sum();
    if sum != total as u64 {
        return Err(format!(
            "the shards hold {counts:?} {what}, {sum} in all, but the problem has {total}"
        ));
    }
    Ok(())
}

/// Every rank's own check of its input, shared so that the ranks stop together: `Ok` on
/// every rank when every rank's `local` is, otherwise on every rank the first failing rank's
/// error, prefixed with its rank (one collective: a rank that returned its error alone would
/// leave the others waiting in their next collective).
///
/// ```
/// use nilang_mpi::{all_ok, Comm, ThreadComm};
///
/// let r = ThreadComm::run(3, |c| {
///     all_ok(c, if c.rank() == 1 { Err("no data".into()) } else { Ok(()) })
/// });
/// assert!(r.iter().all(|r| r == &Err("rank 1: no data".to_string())));
/// ```
pub fn all_ok(comm: &dyn Comm, local: Result<(), String>) -> Result<(), String> {
    let mine: Vec<u64> = match &local {
        Ok(()) => Vec::new(),
        Err(e) => std::iter::once(1).chain(e.bytes().map(u64::from)).collect(),
    };
    let all = comm.all_gather_u64(&mine);
    match all.iter().enumerate().find(|(_, v)| !v.is_empty()) {
        None => Ok(()),
        Some((rank, v)) => {
            let bytes: Vec<u8> = v[1..].iter().map(|&b| b as u8).collect();
            Err(format!("rank {rank}: {}", String::from_utf8_lossy(&bytes)))
        }
    }
}
