//! The runtime checks of generated code: where each one is (its *site*), and what a launch's
//! status says when one failed.
//!
//! Every slice access of the generated code is `nl_at(__nl, x, x_len, i, SITE)`: element `i`
//! when `0 <= i < x_len`, else the failure is recorded in the launch's status and the access
//! gets a scratch place of its thread instead of memory outside the buffer. Broadcasts'
//! lengths (`nl_same_len`) and parallel loops' slots (`nl_slot_check`) record their failures
//! the same way. The status is [`STATUS_WORDS`] `long long`s, zero before the launch, each
//! entry's last argument (see [`crate::KernelSpec`]); the first failure writes
//!
//! ```text
//! status[0]  what failed: 1 an index out of bounds, 2 a broadcast's lengths, 3 an owned
//!            slot's offset, 4 an owned sub-slice's offsets
//! status[1]  the site: the id of a `//@nilang-site ID FUNCTION SLICE TEXT` line of the source
//! status[2]  the thread: the instance of a batched kernel, the iteration of a parallel loop's
//! status[3]  the index (1), the first length (2), the offset (3), the first offset (4)
//! status[4]  the slice's length (1), the second length (2), the stride (3), the end offset (4)
//! ```
//!
//! and [`check_failure`] turns it into words with the site lines of the unit's source.

use std::cell::RefCell;
use std::collections::BTreeMap;

/// The marker of the lines that name the checks' sites in the generated source:
/// `//@nilang-site ID FUNCTION SLICE TEXT`, with `SLICE` the slice's name (`-` for a check
/// that is not an access) and `TEXT` the access or statement as written.
pub const SITE_MARK: &str = "//@nilang-site";

/// The `long long`s of a launch's status (the last argument of every kernel entry).
pub const STATUS_WORDS: usize = 5;

const BOUNDS: i64 = 1;
const LENGTHS: i64 = 2;
const SLOT: i64 = 3;
const SLOTS: i64 = 4;

/// A check that failed in a launch, from its status.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckFailure {
    /// The thread it failed in: the instance of a batched kernel, the iteration (in the order
    /// the loop runs them) of a parallel loop's body.
    pub thread: i64,
    /// What failed, naming the function, the slice, the access and the numbers.
    pub message: String,
}

/// What the status of a launch of a kernel of `source` (the unit it was compiled from) says:
/// `None` when every check passed (`status[0] == 0`), else the failure.
pub fn check_failure(source: &str, status: &[i64]) -> Option<CheckFailure> {
    let word = |k: usize| status.get(k).copied().unwrap_or(0);
    let kind = word(0);
    if kind == 0 {
        return None;
    }
    let (site, thread, a, b) = (word(1), word(2), word(3), word(4));
    let prefix = format!("{SITE_MARK} {site} ");
    let described = source
        .lines()
        .find_map(|l| l.strip_prefix(&prefix))
        .and_then(|rest| {
            let mut parts = rest.splitn(3, ' ');
            Some((parts.next()?, parts.next()?, parts.next()?))
        });
    let Some((function, slice, text)) = described else {
        return Some(CheckFailure {
            thread,
            message: format!(
                "check {kind} failed at site {site} ({a}, {b}), which the source does not describe"
            ),
        });
    };
    let message = match kind {
        BOUNDS => format!(
            "index {a} is out of bounds for `{slice}` of length {b} (`{text}` in `{function}`)"
        ),
        LENGTHS => {
            format!("a broadcast over slices of lengths {a} and {b} (`{text}` in `{function}`)")
        }
        SLOT => format!(
            "the parallel loop's access `{text}` has stride {b} and offset {a}, which do not \
             lie in 0..stride: iterations could write the same element (in `{function}`)"
        ),
        SLOTS => format!(
            "the parallel loop's access `{text}` has offsets {a}..{b}, which do not lie in \
             0..stride: iterations could write the same element (in `{function}`)"
        ),
        _ => format!("check {kind} failed (`{text}` in `{function}`)"),
    };
    Some(CheckFailure { thread, message })
}

/// The sites of one generated text, collected while it is translated.
#[derive(Debug, Default)]
pub(crate) struct Sites(RefCell<BTreeMap<i64, String>>);

impl Sites {
    /// The id of the site of `text` (an access of `slice`, or `None`) in `function`, as a C++
    /// literal; its line is added to the table.
    pub(crate) fn site(&self, function: &str, slice: Option<&str>, text: &str) -> String {
        let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
        let line = format!("{function} {} {text}", slice.unwrap_or("-"));
        // FNV-1a, kept below 2⁶²: a positive `long long`, the same in every unit
        let id = line.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
        }) & ((1 << 62) - 1);
        let id = id as i64;
        self.0.borrow_mut().insert(id, line);
        format!("{id}LL")
    }

    /// The table: one [`SITE_MARK`] line per site.
    pub(crate) fn lines(&self) -> String {
        self.0
            .borrow()
            .iter()
            .map(|(id, line)| format!("{SITE_MARK} {id} {line}\n"))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_status_reads_back_through_the_site_lines() {
        let sites = Sites::default();
        let id = sites.site("f", Some("x"), "x[i\n    + 1]");
        let source = format!("// a unit\n{}", sites.lines());
        let n: i64 = id.trim_end_matches("LL").parse().unwrap();
        assert!(source.contains(&format!("{SITE_MARK} {n} f x x[i + 1]\n")));
        assert_eq!(check_failure(&source, &[0, n, 3, 7, 2]), None);
        let e = check_failure(&source, &[1, n, 3, 7, 2]).unwrap();
        assert_eq!(e.thread, 3);
        assert_eq!(
            e.message,
            "index 7 is out of bounds for `x` of length 2 (`x[i + 1]` in `f`)"
        );
        let e = check_failure(&source, &[1, n + 1, 0, 7, 2]).unwrap();
        assert!(e.message.contains("the source does not describe"), "{e:?}");
        // the same site, the same id
        assert_eq!(sites.site("f", Some("x"), "x[i + 1]"), id);
        assert_ne!(sites.site("g", Some("x"), "x[i + 1]"), id);
    }
}
