//! A stack deep enough for deep sources.
//!
//! Parsing, checking, reversing, printing and generating code all recurse over the syntax
//! tree: a product of thousands of factors (`expand! { y += x0 * x1 * … * x1999; }`) or
//! hundreds of nested `if`s is a tree thousands of levels deep, and syn's parser, the
//! statement IR, the printers and the code generators take a few hundred bytes to a few
//! kilobytes of stack per level. The `#[i]` macro runs on rustc's thread (8 MiB of stack, and
//! proc-macro spans work on that thread only), and `nilang expand` on the main thread: both
//! overflowed — a crash of rustc, not an error — on sources rustc itself compiles.
//! [`on_deep_stack`] runs the work on a stack of [`DEEP_STACK`] bytes of its own, on the same
//! thread (the `stacker` crate, which rustc uses for the same purpose).

/// The size of the stack [`on_deep_stack`] runs its work on: 512 MiB of address space, of
/// which only the pages the work touches are ever used (a function of ordinary depth touches a
/// few). The macro, built without optimisation, takes up to about 32 KiB of it per factor of
/// a product under `expand!` or per nested `if`: it holds sources of over ten thousand levels,
/// deeper than rustc compiles (rustc 1.95 overflows its own stack at fewer than 8 000 factors
/// of a plain product and 800 nested `if`s).
pub const DEEP_STACK: usize = 512 << 20;

/// Runs `f` on the current thread, on a new stack of [`DEEP_STACK`] bytes, and returns its
/// result. Spans of `proc_macro` keep working inside (same thread).
///
/// ```
/// let depth = nilang_ir::on_deep_stack(|| {
///     fn nest(n: usize) -> usize {
///         if n == 0 { 0 } else { 1 + nest(n - 1) }
///     }
///     nest(1000)
/// });
/// assert_eq!(depth, 1000);
/// ```
pub fn on_deep_stack<R>(f: impl FnOnce() -> R) -> R {
    stacker::grow(DEEP_STACK, f)
}
