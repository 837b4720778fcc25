//! [`Tape`]: a `Vec` used as a stack whose buffer is reused from one call to the next on the
//! same thread.
//!
//! A gradient by `#[differentiable]` stores its values on a tape that the outermost reversible
//! program (`f_rev`) allocates and frees on every call. A tape of a few megabytes freed and
//! allocated again costs its pages each time (the allocator returns them to the system, and
//! the kernel zeroes them on the next touch): a third of natural GMM's gradient at d = 10 went
//! to page faults. A [`Tape`] takes its buffer from a per-thread pool and gives it back, empty,
//! when it is dropped, so a second call finds the capacity the first one grew to.
//!
//! The pool keeps at most [`POOLED`] buffers per thread; what it keeps stays allocated until
//! the thread ends or [`release_pooled_tapes`] is called. A visit costs no allocation: the
//! pool's slots (one box per buffer type) stay when a buffer is taken out, so a gradient called
//! once per observation pays neither `malloc` nor `free` for its tape.

use super::Stack;
use std::any::{Any, TypeId};
use std::cell::{Cell, RefCell};
use std::ops::{Deref, DerefMut};
use std::thread::LocalKey;

/// The most buffers one thread's pool keeps.
///
/// ```
/// use nilang::stack::{Tape, POOLED};
/// use nilang::Stack;
///
/// // more tapes alive at once than the pool keeps: the extra buffers are freed on drop
/// let tapes: Vec<Tape<f64>> = (0..POOLED + 2)
///     .map(|_| {
///         let mut t = Tape::new();
///         t.extend(std::iter::repeat(0.5).take(1000));
///         t
///     })
///     .collect();
/// drop(tapes);
/// let again: Vec<Tape<f64>> = (0..POOLED + 2)
///     .map(|_| {
///         let mut t = Tape::new();
///         t.push_value(1.0); // a tape takes its buffer at its first push
///         t
///     })
///     .collect();
/// let reused = again.iter().filter(|t| t.capacity() >= 1000).count();
/// assert_eq!(reused, POOLED);
/// ```
pub const POOLED: usize = 4;

/// The capacity a tape starts with when the pool has no buffer for it.
const FIRST_CAPACITY: usize = 64;

/// The most slots (kept buffers and empty slots of a type) one thread's pool holds.
const SLOTS: usize = 2 * POOLED;

/// One slot of the pool: a boxed `Vec<T>` of some `T`, empty (capacity 0) when its buffer is
/// out. Its type, element size and the buffer's capacity are kept beside the box, so that a
/// visit compares numbers and calls into the box only for the buffer it takes or fills.
struct Slot {
    /// `TypeId::of::<Vec<T>>()`.
    type_id: TypeId,
    /// `size_of::<T>()`.
    element: usize,
    capacity: usize,
    buffer: Box<dyn Any>,
}

impl Slot {
    /// An empty slot for buffers of type `Vec<T>`.
    fn empty<T: 'static>() -> Slot {
        Slot {
            type_id: TypeId::of::<Vec<T>>(),
            element: std::mem::size_of::<T>(),
            capacity: 0,
            buffer: Box::new(Vec::<T>::new()),
        }
    }

    fn holds<T: 'static>(&self) -> bool {
        self.type_id == TypeId::of::<Vec<T>>()
    }

    /// The bytes its buffer holds.
    fn bytes(&self) -> usize {
        self.capacity.saturating_mul(self.element)
    }

    fn bytes_of<T>(capacity: usize) -> usize {
        capacity.saturating_mul(std::mem::size_of::<T>())
    }
}

thread_local! {
    static POOL: RefCell<Vec<Slot>> = const { RefCell::new(Vec::new()) };
}

/// A `Vec<T>` used as a stack, whose buffer comes from this thread's pool at its first push
/// or when it is first lent out as a `&mut Vec<T>`, and goes back to it (emptied) when the
/// tape is dropped: a tape that is neither costs no visit to the pool. It dereferences to the `Vec`, and a `&mut Tape<T>`
/// passes where a `&mut Vec<T>` is expected. The taped programs `#[differentiable]` writes
/// take their tape as one; its gradient in an adjoint program may be shorter than it (see the
/// `Shadow` impl below), so a gradient function checks no length for it.
///
/// ```
/// use nilang::stack::Tape;
/// use nilang::Stack;
///
/// let mut tape = Tape::<f64>::new();
/// for k in 0..100_000 {
///     tape.push_value(k as f64);
/// }
/// let grown = tape.capacity();
/// drop(tape);
/// // the next tape on this thread reuses the buffer the first one grew
/// let mut again = Tape::<f64>::new();
/// again.push_value(1.0);
/// assert_eq!((again.len(), again.capacity()), (1, grown));
/// ```
pub struct Tape<T: 'static> {
    vec: Vec<T>,
    /// Where its buffer goes back when it is dropped: its entry point's own slot
    /// ([`Tape::at_home`]) or, without one, the pool.
    home: Option<&'static LocalKey<Home<T>>>,
}

/// The most bytes a buffer may hold to go back to its [`Home`] rather than to the pool: what
/// each entry point keeps per thread at most.
///
/// ```
/// use nilang::stack::{Home, Tape, HOME_BYTES};
/// use nilang::Stack;
///
/// thread_local!(static HOME: Home<f64> = const { Home::new() });
/// let mut tape = Tape::at_home(&HOME);
/// for k in 0..HOME_BYTES / 8 + 1 {
///     tape.push_value(k as f64);
/// }
/// drop(tape);
/// // too large to stay home: the next tape of this home starts without a buffer
/// assert_eq!(Tape::at_home(&HOME).capacity(), 0);
/// ```
pub const HOME_BYTES: usize = 32 << 10;

/// One entry point's own per-thread slot for the buffer of its tape (a `thread_local!` that
/// `#[differentiable]` declares in each `f_jacobian`, and in `f_gradient` of a function that
/// writes outputs or saves values, see [`Tape::at_home`]): the Jacobian of a small function called once per
/// observation takes and returns its buffer here, where a visit of the pool (searching it by
/// type, on every call) cost a fifth of a bundle-adjustment observation's Jacobian.
///
/// ```
/// use nilang::stack::{Home, Tape};
/// use nilang::Stack;
///
/// // what `#[differentiable]` writes in an entry point: a home of its own
/// fn entry_point(x: f64) -> usize {
///     thread_local!(static HOME: Home<f64> = const { Home::new() });
///     let mut tape = Tape::at_home(&HOME);
///     tape.push_value(x);
///     tape.capacity()
/// }
/// let first = entry_point(1.0);
/// // the second call finds the buffer the first one left
/// assert_eq!(entry_point(2.0), first);
/// ```
pub struct Home<T: 'static> {
    buffer: RefCell<Vec<T>>,
    /// Whether the last tape of this entry point had a buffer larger than [`HOME_BYTES`]: the
    /// next one then starts from the pool's largest buffer, as a [`Tape::new`] does (and so
    /// do the later ones, whose buffers come from the pool and go back there).
    large: Cell<bool>,
}

impl<T: 'static> Home<T> {
    /// An empty slot (for `thread_local!`'s `const` initialiser).
    pub const fn new() -> Home<T> {
        Home {
            buffer: RefCell::new(Vec::new()),
            large: Cell::new(false),
        }
    }
}

impl<T: 'static> Default for Home<T> {
    fn default() -> Home<T> {
        Home::new()
    }
}

/// Takes the buffer `home` keeps, if any (none while another tape of it is alive, or while
/// the thread is torn down).
fn take_home<T: 'static>(home: &'static LocalKey<Home<T>>) -> Vec<T> {
    home.try_with(|h| {
        h.buffer
            .try_borrow_mut()
            .map(|mut b| std::mem::take(&mut *b))
            .unwrap_or_default()
    })
    .unwrap_or_default()
}

/// Gives `vec` (emptied) back to `home` when it holds at most [`HOME_BYTES`] and `home` is
/// empty; to the pool otherwise.
fn go_home<T: 'static>(home: &'static LocalKey<Home<T>>, mut vec: Vec<T>) {
    if vec.capacity() == 0 {
        return;
    }
    let large = Slot::bytes_of::<T>(vec.capacity()) > HOME_BYTES;
    vec.clear();
    let rest = home
        .try_with(|h| {
            h.large.set(large);
            match h.buffer.try_borrow_mut() {
                Ok(mut b) if !large && b.capacity() == 0 => {
                    *b = std::mem::take(&mut vec);
                    None
                }
                _ => Some(std::mem::take(&mut vec)),
            }
        })
        .unwrap_or(Some(vec));
    if let Some(vec) = rest {
        give_back(vec);
    }
}

impl<T: 'static> Tape<T> {
    /// An empty tape, with no buffer yet: its first push takes the largest buffer of its type
    /// in this thread's pool when it has one (a program that grew a tape of megabytes finds it
    /// again, whatever smaller tapes other programs returned in between).
    pub fn new() -> Tape<T> {
        Tape {
            vec: Vec::new(),
            home: None,
        }
    }

    /// An empty tape on the buffer its entry point's [`Home`] keeps on this thread (that of
    /// the entry point's previous call), given back there when dropped if it holds at most
    /// [`HOME_BYTES`] (to the pool otherwise). Without one, its first push starts a new
    /// buffer of a few values — or takes the pool's largest when the previous tape outgrew
    /// the home.
    ///
    /// ```
    /// use nilang::stack::{Home, Tape};
    /// use nilang::Stack;
    ///
    /// thread_local!(static HOME: Home<f64> = const { Home::new() });
    /// let mut tape = Tape::at_home(&HOME);
    /// tape.push_value(1.0);
    /// let buffer = tape.as_ptr();
    /// drop(tape);
    /// let mut again = Tape::at_home(&HOME);
    /// again.push_value(2.0);
    /// assert_eq!((again.as_ptr(), &again[..]), (buffer, &[2.0][..]));
    /// ```
    pub fn at_home(home: &'static LocalKey<Home<T>>) -> Tape<T> {
        Tape {
            vec: take_home(home),
            home: Some(home),
        }
    }

    /// Gives a tape without a buffer (capacity 0) the largest pooled one, or one of
    /// `FIRST_CAPACITY` values (at once, for a tape of a home whose tapes stay small); called
    /// by the pushes of [`Stack`] and by `deref_mut`.
    #[cold]
    #[inline(never)]
    fn take_buffer(&mut self) {
        let small = self
            .home
            .is_some_and(|h| h.try_with(|h| !h.large.get()).unwrap_or(false));
        self.vec = match small {
            true => None,
            false => pooled::<T>(|_| true, Prefer::Largest),
        }
        .unwrap_or_else(|| Vec::with_capacity(FIRST_CAPACITY));
    }
}

/// Which of the fitting buffers [`pooled`] takes.
#[derive(Clone, Copy, PartialEq)]
enum Prefer {
    Largest,
    Smallest,
}

/// Takes from this thread's pool the largest or the smallest buffer of type `Vec<T>` whose
/// capacity `fits`, if any; its slot stays, empty. (A plain loop: a visit is on the path of
/// every gradient call.)
fn pooled<T: 'static>(fits: impl Fn(usize) -> bool, prefer: Prefer) -> Option<Vec<T>> {
    POOL.try_with(|pool| {
        let mut pool = pool.borrow_mut();
        let mut best: Option<(usize, usize)> = None;
        for (k, slot) in pool.iter().enumerate() {
            let (c, better) = (slot.capacity, |b: usize| match prefer {
                Prefer::Largest => slot.capacity > b,
                Prefer::Smallest => slot.capacity < b,
            });
            if c > 0 && slot.holds::<T>() && fits(c) && best.is_none_or(|(_, b)| better(b)) {
                best = Some((k, c));
            }
        }
        let slot = &mut pool[best?.0];
        slot.capacity = 0;
        slot.buffer.downcast_mut::<Vec<T>>().map(std::mem::take)
    })
    .ok()
    .flatten()
}

/// The smallest pooled buffer that holds `n` values and is not much larger (1–4 times), or a
/// new one: a short-lived buffer of known length (a working copy) leaves the largest buffers
/// to the tapes that grow.
fn best_fit<T: 'static>(n: usize) -> Vec<T> {
    pooled(|c| c >= n && c / 4 <= n, Prefer::Smallest).unwrap_or_else(|| Vec::with_capacity(n))
}

/// Gives `vec` (emptied) back to this thread's pool: into an empty slot of its type, or a new
/// slot, while the pool holds fewer than [`POOLED`] buffers; else in place of the smallest
/// buffer held (of any type, by bytes), if that is smaller. A thread being torn down has no
/// pool left: the buffer is then freed.
fn give_back<T: 'static>(mut vec: Vec<T>) {
    if vec.capacity() == 0 {
        return;
    }
    vec.clear();
    let _ = POOL.try_with(|pool| {
        let mut pool = pool.borrow_mut();
        let held = pool.iter().filter(|slot| slot.capacity > 0).count();
        let target = if held < POOLED {
            free_slot::<T>(&mut pool)
        } else {
            let bytes = Slot::bytes_of::<T>(vec.capacity());
            let smallest = (0..pool.len())
                .filter(|&k| pool[k].capacity > 0)
                .min_by_key(|&k| pool[k].bytes())
                .filter(|&k| pool[k].bytes() < bytes);
            match smallest {
                Some(k) => k,
                None => return,
            }
        };
        let slot = &mut pool[target];
        if !slot.holds::<T>() {
            // a smaller buffer of another type makes room (freed here)
            *slot = Slot::empty::<T>();
        }
        slot.capacity = vec.capacity();
        if let Some(buffer) = slot.buffer.downcast_mut::<Vec<T>>() {
            // the buffer it replaces, if any, is freed here
            *buffer = std::mem::take(&mut vec);
        }
    });
}

/// The index of an empty slot of type `Vec<T>`, made if there is none (in place of an empty
/// slot of another type when the pool has [`SLOTS`] of them).
fn free_slot<T: 'static>(pool: &mut Vec<Slot>) -> usize {
    if let Some(k) = pool.iter().position(|s| s.capacity == 0 && s.holds::<T>()) {
        return k;
    }
    if pool.len() >= SLOTS {
        // fewer than POOLED buffers in SLOTS slots: an empty one exists
        if let Some(empty) = pool.iter().position(|s| s.capacity == 0) {
            pool[empty] = Slot::empty::<T>();
            return empty;
        }
    }
    pool.push(Slot::empty::<T>());
    pool.len() - 1
}

impl<T: Clone + 'static> Tape<T> {
    /// A tape holding a copy of `values`: on the smallest pooled buffer of 1–4 times its length
    /// when the pool holds one (a working copy of an input, made on every call of a gradient,
    /// then reuses its buffer), on a buffer of its own otherwise.
    ///
    /// ```
    /// use nilang::stack::Tape;
    ///
    /// let big: Vec<f64> = (0..10_000).map(f64::from).collect();
    /// let copy = Tape::copied_from(&big);
    /// assert_eq!(&copy[..], &big[..]);
    /// let grown = copy.capacity();
    /// drop(copy);
    /// assert_eq!(Tape::<f64>::copied_from(&big[..5000]).capacity(), grown);
    /// ```
    pub fn copied_from(values: &[T]) -> Tape<T> {
        let mut vec = best_fit(values.len());
        vec.extend_from_slice(values);
        Tape::from(vec)
    }

    /// A tape of `n` copies of `value`, on a buffer chosen as [`Tape::copied_from`] chooses.
    ///
    /// ```
    /// use nilang::stack::Tape;
    ///
    /// assert_eq!(&Tape::filled(0.5, 3)[..], &[0.5; 3]);
    /// ```
    pub fn filled(value: T, n: usize) -> Tape<T> {
        let mut vec = best_fit(n);
        vec.resize(n, value);
        Tape::from(vec)
    }
}

impl<T: 'static> Drop for Tape<T> {
    fn drop(&mut self) {
        let vec = std::mem::take(&mut self.vec);
        match self.home {
            Some(home) => go_home(home, vec),
            None => give_back(vec),
        }
    }
}

/// Frees the buffers this thread's pool keeps for [`Tape`]s.
///
/// ```
/// use nilang::stack::{release_pooled_tapes, Tape};
///
/// let mut tape = Tape::<f64>::new();
/// tape.extend(std::iter::repeat(1.0).take(10_000));
/// drop(tape);
/// release_pooled_tapes();
/// let mut again = Tape::<f64>::new();
/// nilang::Stack::push_value(&mut *again, 1.0);
/// assert!(again.capacity() < 10_000);
/// ```
pub fn release_pooled_tapes() {
    let _ = POOL.try_with(|pool| pool.borrow_mut().clear());
}

impl<T: 'static> Default for Tape<T> {
    fn default() -> Tape<T> {
        Tape::new()
    }
}

impl<T: 'static> From<Vec<T>> for Tape<T> {
    fn from(vec: Vec<T>) -> Tape<T> {
        Tape { vec, home: None }
    }
}

impl<T: 'static> Deref for Tape<T> {
    type Target = Vec<T>;
    fn deref(&self) -> &Vec<T> {
        &self.vec
    }
}

/// A tape lent out as a `&mut Vec<T>` (to a taped program, which pushes on the `Vec` itself)
/// takes its buffer first.
impl<T: 'static> DerefMut for Tape<T> {
    #[inline]
    fn deref_mut(&mut self) -> &mut Vec<T> {
        if self.vec.capacity() == 0 {
            self.take_buffer();
        }
        &mut self.vec
    }
}

impl<T: std::fmt::Debug + 'static> std::fmt::Debug for Tape<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.vec.fmt(f)
    }
}

impl<T: PartialEq + 'static> PartialEq for Tape<T> {
    fn eq(&self, other: &Self) -> bool {
        self.vec == other.vec
    }
}

impl<T: Clone + 'static> Clone for Tape<T> {
    fn clone(&self) -> Tape<T> {
        let mut copy = Tape::new();
        copy.extend_from_slice(&self.vec);
        copy
    }
}

impl<T: 'static> Stack<T> for Tape<T> {
    #[inline]
    fn push_value(&mut self, v: T) {
        if self.vec.capacity() == 0 {
            self.take_buffer();
        }
        self.vec.push_value(v)
    }
    #[inline]
    fn pop_value(&mut self) -> Option<T> {
        self.vec.pop()
    }
    fn depth(&self) -> usize {
        self.vec.len()
    }
    fn push_values(&mut self, values: &[T])
    where
        T: Clone,
    {
        if self.vec.capacity() == 0 && !values.is_empty() {
            self.take_buffer();
        }
        self.vec.push_values(values)
    }
    fn pop_values(&mut self, out: &mut [T]) -> bool {
        self.vec.pop_values(out)
    }
}

impl<T: crate::check::Check + 'static> crate::check::Check for Tape<T> {
    fn check_eq(&self, other: &Self, tol: f64) -> bool {
        self.vec.check_eq(&other.vec, tol)
    }
    fn absorb_copy_gradient(&mut self, copy: &Self) {
        self.vec.absorb_copy_gradient(&copy.vec)
    }
}

/// A tape's shadow (in an adjoint program) is a tape of the gradients of its values, from the
/// same pool. Its zero is an *empty* tape, whatever the tape holds: a shadow stack holds the
/// gradients of the top values only, the values below it have zero gradients
/// (`__private::stack_pop_shadow`), so a full tape needs no zeros written beside it.
impl<L, X: crate::__private::Shadow<L> + 'static> crate::__private::Shadow<L> for Tape<X>
where
    X::Grad: 'static,
    X::Pair: 'static,
{
    type Grad = Tape<X::Grad>;
    type Pair = Tape<X::Pair>;
    fn join(mut x: Self, mut g: Self::Grad) -> Self::Pair {
        // the shadow holds the top values' gradients: the values below it pair with zeros
        let (x, g) = (std::mem::take(&mut x.vec), std::mem::take(&mut g.vec));
        let bottom = x.len().saturating_sub(g.len());
        let mut g = g.into_iter();
        let pairs = x.into_iter().enumerate().map(|(k, x)| {
            let gx = if k < bottom { None } else { g.next() };
            let gx = gx.unwrap_or_else(|| x.zero_grad());
            X::join(x, gx)
        });
        Tape::from(pairs.collect::<Vec<_>>())
    }
    fn split(mut p: Self::Pair) -> (Self, Self::Grad) {
        let p = std::mem::take(&mut p.vec);
        let (x, g) = <Vec<X> as crate::__private::Shadow<L>>::split(p);
        (Tape::from(x), Tape::from(g))
    }
    fn zero_grad(&self) -> Self::Grad {
        Tape::new()
    }
    fn grad_is_zero(g: &Self::Grad) -> bool {
        g.vec.iter().all(X::grad_is_zero)
    }
    fn add_grad(g: &mut Self::Grad, mut d: Self::Grad) {
        // aligned at the top; where one is shorter, its missing bottom gradients are zero
        let mut d = std::mem::take(&mut d.vec);
        if d.len() > g.vec.len() {
            let extra = d.len() - g.vec.len();
            let tail = d.split_off(extra);
            g.vec.splice(0..0, d);
            d = tail;
        }
        let offset = g.vec.len() - d.len();
        g.vec[offset..]
            .iter_mut()
            .zip(d)
            .for_each(|(g, d)| X::add_grad(g, d));
    }
}

#[cfg(test)]
mod tests {
    use super::{release_pooled_tapes, Tape, POOLED};
    use crate::__private::Shadow;
    use crate::Stack;

    /// A new tape after its first push: the capacity of the buffer it took.
    fn pushed<T: Copy + Default + 'static>() -> Tape<T> {
        let mut t = Tape::new();
        t.push_value(T::default());
        t
    }

    fn grown(n: usize) -> Tape<f64> {
        let mut t = Tape::new();
        t.extend(std::iter::repeat(0.5).take(n));
        t
    }

    /// Returns `small` grown tapes, then a big one, to the pool: the next tape must get the big
    /// buffer back.
    fn big_buffer_found_after(small: usize) {
        release_pooled_tapes();
        let smalls: Vec<Tape<f64>> = (0..small).map(|_| grown(100)).collect();
        let big = grown(100_000);
        let capacity = big.capacity();
        drop(smalls);
        drop(big);
        assert_eq!(pushed::<f64>().capacity(), capacity);
        release_pooled_tapes();
    }

    #[test]
    fn a_new_tape_takes_the_largest_buffer() {
        // the small buffer goes back first: taking the first buffer would miss the big one
        big_buffer_found_after(1);
    }

    #[test]
    fn a_copy_leaves_a_much_larger_buffer_to_the_tape_that_grows() {
        release_pooled_tapes();
        let (big, medium) = (grown(100_000), grown(1_500));
        let (big_capacity, medium_capacity) = (big.capacity(), medium.capacity());
        drop((big, medium));
        // 1 000 values: the medium buffer fits; the big one is more than 4 times too large
        let copy = Tape::copied_from(&[0.25; 1_000]);
        assert_eq!(
            (&copy[..], copy.capacity()),
            (&[0.25; 1_000][..], medium_capacity)
        );
        assert_eq!(pushed::<f64>().capacity(), big_capacity);
        // a short copy takes no buffer more than 4 times its length
        assert_eq!(Tape::copied_from(&[1.0; 3]).capacity(), 3);
        release_pooled_tapes();
    }

    #[test]
    fn a_short_tape_goes_back_to_the_pool_and_comes_back() {
        release_pooled_tapes();
        let first = grown(10);
        let (capacity, address) = (first.capacity(), first.as_ptr());
        drop(first);
        let again = pushed::<f64>();
        assert_eq!((again.capacity(), again.as_ptr()), (capacity, address));
        drop(again);
        // buffers of other types take slots of their own and leave this one alone
        drop(Tape::from(vec![1u8; 100]));
        drop(Tape::from(vec![1i64; 100]));
        assert_eq!(pushed::<f64>().as_ptr(), address);
        release_pooled_tapes();
    }

    #[test]
    fn many_types_keep_at_most_pooled_buffers() {
        release_pooled_tapes();
        drop(Tape::from(vec![0u8; 10]));
        drop(Tape::from(vec![0u16; 10]));
        drop(Tape::from(vec![0u32; 10]));
        drop(Tape::from(vec![0u64; 10]));
        drop(Tape::from(vec![0i8; 10]));
        drop(Tape::from(vec![0i16; 10]));
        let kept = [
            pushed::<u8>().capacity(),
            pushed::<u16>().capacity(),
            pushed::<u32>().capacity(),
            pushed::<u64>().capacity(),
            pushed::<i8>().capacity(),
            pushed::<i16>().capacity(),
        ];
        // full after four: the `i8` buffer (10 bytes) was no larger than any held and was
        // freed, the `i16` one (20 bytes) took the place of the smallest, the `u8` one
        assert_eq!(kept, [64, 10, 10, 10, 64, 10]);
        release_pooled_tapes();
    }

    #[test]
    fn a_full_pool_of_short_buffers_of_other_types_keeps_a_large_one() {
        release_pooled_tapes();
        // four buffers of four other types fill the pool
        drop(Tape::from(vec![0u8; 64]));
        drop(Tape::from(vec![0u16; 64]));
        drop(Tape::from(vec![0u32; 64]));
        drop(Tape::from(vec![[0.0f64; 2]; 64]));
        drop(Tape::from(vec![0.0f64; 100_000]));
        assert_eq!(pushed::<f64>().capacity(), 100_000);
        release_pooled_tapes();
    }

    #[test]
    fn a_full_pool_keeps_the_largest_buffers() {
        big_buffer_found_after(POOLED);
    }

    #[test]
    fn a_full_tapes_zero_gradient_is_empty_and_pairs_its_bottom_with_zeros() {
        let tape = Tape::from(vec![1.0, 2.0, 3.0]);
        let zero = <Tape<f64> as Shadow<f64>>::zero_grad(&tape);
        assert!(zero.is_empty());
        // the shadow holds the gradient of the top value only
        let pairs = <Tape<f64> as Shadow<f64>>::join(tape, Tape::from(vec![7.0]));
        let grads: Vec<f64> = pairs.iter().map(|p| p.g).collect();
        assert_eq!(grads, [0.0, 0.0, 7.0]);
        let (values, g) = <Tape<f64> as Shadow<f64>>::split(pairs);
        assert_eq!(
            (values.as_slice(), g.as_slice()),
            (&[1.0, 2.0, 3.0][..], &[0.0, 0.0, 7.0][..])
        );
    }

    #[test]
    fn gradients_of_tapes_add_aligned_at_the_top() {
        let mut g = Tape::from(vec![1.0]);
        <Tape<f64> as Shadow<f64>>::add_grad(&mut g, Tape::from(vec![10.0, 20.0, 30.0]));
        assert_eq!(g.as_slice(), &[10.0, 20.0, 31.0]);
        <Tape<f64> as Shadow<f64>>::add_grad(&mut g, Tape::from(vec![1.0]));
        assert_eq!(g.as_slice(), &[10.0, 20.0, 32.0]);
    }

    #[test]
    fn a_homes_small_buffer_stays_home_and_a_large_one_goes_to_the_pool() {
        use super::{Home, HOME_BYTES};
        thread_local!(static HOME: Home<f64> = const { Home::new() });
        release_pooled_tapes();
        let mut small = Tape::at_home(&HOME);
        small.push_value(1.0);
        let home_buffer = small.as_ptr();
        drop(small);
        // not in the pool: a plain tape starts a buffer of its own
        assert_ne!(pushed::<f64>().as_ptr(), home_buffer);
        let mut large = Tape::at_home(&HOME);
        assert_eq!(large.as_ptr(), home_buffer);
        large.extend(std::iter::repeat(0.5).take(HOME_BYTES / 8 + 1));
        let large_capacity = large.capacity();
        drop(large);
        // the home is empty and knows its tapes grow: the next one takes the pool's largest
        let mut next = Tape::at_home(&HOME);
        assert_eq!(next.capacity(), 0);
        next.push_value(1.0);
        assert_eq!(next.capacity(), large_capacity);
        drop(next);
        // and so on: its buffer went back to the pool
        assert_eq!(Tape::at_home(&HOME).capacity(), 0);
        assert_eq!(pushed::<f64>().capacity(), large_capacity);
        release_pooled_tapes();
    }
}
