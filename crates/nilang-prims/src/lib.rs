//! The primitive table of the nilang reversible language: every primitive declared once.
//!
//! [`primitives!`] holds one row per primitive and hands the whole table to a macro of the
//! caller's (a callback), which emits that caller's code from it. Every crate that needs a
//! primitive's facts reads them here and nowhere else:
//!
//! | consumer | what its callback emits |
//! |---|---|
//! | `nilang::prims` | the runtime types and their `Unary`/`Binary` impls (value, derivative) |
//! | `nilang::real` | `Primitives`, one `Acc1`/`Acc2` bound per row, a bound of `Real` |
//! | `nilang::float` | the `Float` methods of the elementary rows, on `f64` and `f32` |
//! | `nilang::dual` | the dual-number rules of those methods (`Dual`, `DualN`) |
//! | `nilang-dualrev` | the local partials of those methods, and `DualRev`'s `Float` methods |
//! | `nilang_ir::PRIMITIVES` | the language's list: name, runtime type, arity, infix spelling |
//! | `nilang-cgen` | the C++/CUDA header's primitives (value, derivative, integer value) |
//! | `nilang-corpus` | the IR interpreter's dispatch from a name to a runtime type |
//!
//! The adjoint rule of `y += f(x)` is written once for every primitive (`nilang::gvar`, and
//! `nl_add1`/`nl_sub1` in the header): a row gives only the derivative.
//!
//! # The rows
//!
//! A unary row is one parenthesised group of token trees, in this order:
//!
//! ```text
//! (Exp exp "`exp(x)`" x {x.exp()} {x.exp()} [v {v}] [exp] ["exp(x)" "exp(x)"] [] (-3.0, 3.0))
//!  │   │   │          │ │         │         │       │     │                   │  └ an interval where f is smooth (tests sample it)
//!  │   │   │          │ │         │         │       │     │                   └ C++ of the wrapping integer value, if any
//!  │   │   │          │ │         │         │       │     └ C++ of the value and the derivative, in `x`
//!  │   │   │          │ │         │         │       └ the `Float` method it is, for elementary functions
//!  │   │   │          │ │         │         └ f′ from v = f(x) alone, when it follows from the value
//!  │   │   │          │ │         └ f′(x), Rust over `T: nilang::Float`
//!  │   │   │          │ └ f(x)
//!  │   │   │          └ the operand's name in the two expressions
//!  │   │   └ the documentation of the runtime type
//!  │   └ the name in the language (`y += exp(x)`)
//!  └ the runtime type (`nilang::prims::Exp`)
//! ```
//!
//! A binary row has two operand names, the partials `(∂f/∂a, ∂f/∂b)` as one Rust expression,
//! the infix operator if any, the C++ partials as statements assigning `da` and `db`, and an
//! interval for each operand:
//!
//! ```text
//! (Div div "`a / b`" a b {a / b} {..} [/] ["a / b" "double inv = 1.0 / b; da = inv; db = -a * inv * inv;"] ["a / b"] (-2.0, 2.0) (0.5, 2.0))
//! ```
//!
//! The Rust expressions name the number type `T` and call `nilang::Float` methods on it
//! (`x.exp()`, `T::f_one()`, `T::from_f64(0.5)`); a consumer puts the expressions where `T`
//! is its number type. An elementary row's Rust derivative uses only arithmetic, constants
//! and other elementary methods, so it also evaluates on plain `f64` (`nilang-dualrev`).
//! Each consumer's results keep the operation order written here: the C++ header and the
//! Rust runtime compute the same bits.
//!
//! # A callback
//!
//! The table comes first with the callback's own arguments in brackets, then the rows:
//!
//! ```
//! macro_rules! names {
//!     ([] unary { $(($ty:ident $name:ident $($u:tt)*))* } binary { $(($bty:ident $bname:ident $($b:tt)*))* }) => {
//!         [$(stringify!($name),)* $(stringify!($bname),)*]
//!     };
//! }
//! let names = nilang_prims::primitives!(names);
//! assert_eq!(&names[..3], ["identity", "neg", "exp"]);
//! assert!(names.contains(&"hypot"));
//! ```
#![no_std]
#![warn(missing_docs)]

/// The primitive table: `primitives!(callback)` or `primitives!(callback, args…)` expands to
/// `callback! { [args…] unary { rows… } binary { rows… } }` (the rows are described in the
/// [crate documentation](crate)).
#[macro_export]
macro_rules! primitives {
    ($($callback:tt)::+ $(, $arg:tt)*) => {
        $($callback)::+! {
            [$($arg)*]
            unary {
                (Identity identity "`identity(x) = x`" x
                    {x} {T::f_one()} [] []
                    ["x" "1.0"] ["x"] (-3.0, 3.0))
                (Neg neg "`neg(x) = −x`" x
                    {-x} {-T::f_one()} [] []
                    ["-x" "-1.0"] ["nl_wneg(x)"] (-3.0, 3.0))
                (Exp exp "`exp(x)`" x
                    {x.exp()} {x.exp()} [v {v}] [exp]
                    ["exp(x)" "exp(x)"] [] (-3.0, 3.0))
                (Log log "`log(x)` (natural)" x
                    {x.ln()} {T::f_one() / x} [] [ln]
                    ["log(x)" "1.0 / x"] [] (0.1, 3.0))
                (Log1p log1p "`log1p(x) = ln(1 + x)`" x
                    {x.ln_1p()} {T::f_one() / (T::f_one() + x)} [] [ln_1p]
                    ["log1p(x)" "1.0 / (1.0 + x)"] [] (-0.9, 3.0))
                (Log2 log2 "`log2(x)` (base 2)" x
                    {x.log2()} {T::f_one() / (x * T::from_f64(core::f64::consts::LN_2))} [] [log2]
                    ["log2(x)" "1.0 / (x * 0.6931471805599453)"] [] (0.1, 3.0))
                (Log10 log10 "`log10(x)` (base 10)" x
                    {x.log10()} {T::f_one() / (x * T::from_f64(core::f64::consts::LN_10))} [] [log10]
                    ["log10(x)" "1.0 / (x * 2.302585092994046)"] [] (0.1, 3.0))
                (Exp2 exp2 "`exp2(x) = 2ˣ`" x
                    {x.exp2()} {x.exp2() * T::from_f64(core::f64::consts::LN_2)}
                    [v {v * T::from_f64(core::f64::consts::LN_2)}] [exp2]
                    ["exp2(x)" "exp2(x) * 0.6931471805599453"] [] (-3.0, 3.0))
                (Expm1 expm1 "`expm1(x) = eˣ − 1`" x
                    {x.exp_m1()} {x.exp()} [] [exp_m1]
                    ["expm1(x)" "exp(x)"] [] (-3.0, 3.0))
                (Sin sin "`sin(x)`" x
                    {x.sin()} {x.cos()} [] [sin]
                    ["sin(x)" "cos(x)"] [] (-3.0, 3.0))
                (Cos cos "`cos(x)`" x
                    {x.cos()} {-x.sin()} [] [cos]
                    ["cos(x)" "-sin(x)"] [] (-3.0, 3.0))
                (Tan tan "`tan(x)`" x
                    {x.tan()} {{ let c = x.cos(); T::f_one() / (c * c) }} [] [tan]
                    ["tan(x)" "1.0 / (cos(x) * cos(x))"] [] (-1.4, 1.4))
                (Asin asin "`asin(x)`" x
                    {x.asin()} {T::f_one() / (T::f_one() - x * x).sqrt()} [] [asin]
                    ["asin(x)" "1.0 / sqrt(1.0 - x * x)"] [] (-0.9, 0.9))
                (Acos acos "`acos(x)`" x
                    {x.acos()} {-T::f_one() / (T::f_one() - x * x).sqrt()} [] [acos]
                    ["acos(x)" "-1.0 / sqrt(1.0 - x * x)"] [] (-0.9, 0.9))
                (Atan atan "`atan(x)`" x
                    {x.atan()} {T::f_one() / (T::f_one() + x * x)} [] [atan]
                    ["atan(x)" "1.0 / (1.0 + x * x)"] [] (-3.0, 3.0))
                (Sinh sinh "`sinh(x)`" x
                    {x.sinh()} {x.cosh()} [] [sinh]
                    ["sinh(x)" "cosh(x)"] [] (-3.0, 3.0))
                (Cosh cosh "`cosh(x)`" x
                    {x.cosh()} {x.sinh()} [] [cosh]
                    ["cosh(x)" "sinh(x)"] [] (-3.0, 3.0))
                (Tanh tanh "`tanh(x)`" x
                    {x.tanh()} {{ let t = x.tanh(); T::f_one() - t * t }} [v {T::f_one() - v * v}] [tanh]
                    ["tanh(x)" "1.0 - tanh(x) * tanh(x)"] [] (-3.0, 3.0))
                (Sqrt sqrt "`sqrt(x)`" x
                    {x.sqrt()} {T::from_f64(0.5) / x.sqrt()} [v {T::from_f64(0.5) / v}] [sqrt]
                    ["sqrt(x)" "0.5 / sqrt(x)"] [] (0.1, 3.0))
                (Abs abs "`abs(x)` (derivative: the sign of x, and 0 at 0: see the singular-point policy; of a complex operand into a real target: `|z|`, in `nilang::complex`)" x
                    {x.abs()} {if x.to_f64() == 0.0 { T::f_zero() } else { x.signum() }} [] []
                    ["fabs(x)" "x == 0.0 ? 0.0 : nl_signum(x)"] ["x < (I)0 ? nl_wneg(x) : x"] (0.1, 3.0))
                (Abs2 abs2 "`abs2(x) = x²`, the squared modulus (of a complex operand into a real target: `|z|²`, in `nilang::complex`)" x
                    {x * x} {T::from_f64(2.0) * x} [] []
                    ["x * x" "2.0 * x"] [] (-3.0, 3.0))
                (Angle angle "`angle(x)`, the argument: π for negative `x`, 0 for positive (of a complex operand into a real target: `atan2(im, re)`, in `nilang::complex`); its derivative is 0" x
                    {T::f_zero().atan2(x)} {T::f_zero()} [] []
                    ["atan2(0.0, x)" "0.0"] [] (-3.0, -0.1))
                (Square square "`square(x) = x²`" x
                    {x * x} {T::from_f64(2.0) * x} [] []
                    ["x * x" "2.0 * x"] [] (-3.0, 3.0))
                (Sigmoid sigmoid "`sigmoid(x) = 1 / (1 + e⁻ˣ)`" x
                    {T::f_one() / (T::f_one() + (-x).exp())}
                    {{ let s = T::f_one() / (T::f_one() + (-x).exp()); s * (T::f_one() - s) }}
                    [v {v * (T::f_one() - v)}] []
                    ["1.0 / (1.0 + exp(-x))" "(1.0 / (1.0 + exp(-x))) * (1.0 - 1.0 / (1.0 + exp(-x)))"]
                    [] (-3.0, 3.0))
            }
            binary {
                (Add add "`a + b`" a b
                    {a + b} {{ let _ = (a, b); (T::f_one(), T::f_one()) }} [+]
                    ["a + b" "da = 1.0; db = 1.0;"] ["nl_wadd(a, b)"] (-2.0, 2.0) (-2.0, 2.0))
                (Sub sub "`a − b`" a b
                    {a - b} {{ let _ = (a, b); (T::f_one(), -T::f_one()) }} [-]
                    ["a - b" "da = 1.0; db = -1.0;"] ["nl_wsub(a, b)"] (-2.0, 2.0) (-2.0, 2.0))
                (Mul mul "`a * b`" a b
                    {a * b} {(b, a)} [*]
                    ["a * b" "da = b; db = a;"] ["nl_wmul(a, b)"] (-2.0, 2.0) (-2.0, 2.0))
                (Div div "`a / b`" a b
                    {a / b} {{ let inv = T::f_one() / b; (inv, -a * inv * inv) }} [/]
                    ["a / b" "double inv = 1.0 / b; da = inv; db = -a * inv * inv;"] ["a / b"]
                    (-2.0, 2.0) (0.5, 2.0))
                (Pow pow "`pow(a, b) = aᵇ` (an integer-valued `b` is computed exactly by repeated multiplication)" a b
                    {pow_value(a, b)} {pow_partials(a, b)} []
                    ["nl_pow(a, b)" "nl_pow_partials(a, b, da, db);"] ["nl_wpow(a, b)"]
                    (0.5, 2.0) (-2.0, 2.0))
                (Atan2 atan2 "`atan2(a, b)`: the angle of the point (b, a)" a b
                    {a.atan2(b)} {{ let r2 = a * a + b * b; (b / r2, -a / r2) }} []
                    ["atan2(a, b)" "double r2 = a * a + b * b; da = b / r2; db = -a / r2;"] []
                    (0.5, 2.0) (0.5, 2.0))
                (Hypot hypot "`hypot(a, b) = √(a² + b²)`" a b
                    {(a * a + b * b).sqrt()} {{ let h = (a * a + b * b).sqrt(); (a / h, b / h) }} []
                    ["sqrt(a * a + b * b)" "double h = sqrt(a * a + b * b); da = a / h; db = b / h;"] []
                    (0.5, 2.0) (0.5, 2.0))
                (Max max "`max(a, b)`; its derivative is the subgradient `(1, 0)` where `a ≥ b` (ties included) and `(0, 1)` where `a < b`: the whole gradient goes to the operand chosen" a b
                    {if a.to_f64() >= b.to_f64() { a } else { b }}
                    {if a.to_f64() >= b.to_f64() { (T::f_one(), T::f_zero()) } else { (T::f_zero(), T::f_one()) }} []
                    ["(a >= b ? a : b)" "if (a >= b) { da = 1.0; db = 0.0; } else { da = 0.0; db = 1.0; }"] []
                    (0.5, 2.0) (-2.0, 2.0))
                (Min min "`min(a, b)`; its derivative is the subgradient `(1, 0)` where `a ≤ b` (ties included) and `(0, 1)` where `a > b`: the whole gradient goes to the operand chosen" a b
                    {if a.to_f64() <= b.to_f64() { a } else { b }}
                    {if a.to_f64() <= b.to_f64() { (T::f_one(), T::f_zero()) } else { (T::f_zero(), T::f_one()) }} []
                    ["(a <= b ? a : b)" "if (a <= b) { da = 1.0; db = 0.0; } else { da = 0.0; db = 1.0; }"] []
                    (0.5, 2.0) (-2.0, 2.0))
            }
        }
    };
}

/// The elementary rows of the table (those that name a `Float` method) in a shorter form:
/// `elementary!(callback, args…)` expands to `callback! { [args…] rows… }` with each row
/// `(Type method "doc" x {value} {derivative} [v {derivative from value}])`.
///
/// ```
/// macro_rules! methods {
///     ([] $(($ty:ident $method:ident $($rest:tt)*))*) => { [$(stringify!($method)),*] };
/// }
/// let methods = nilang_prims::elementary!(methods);
/// assert_eq!(&methods[..3], ["exp", "ln", "ln_1p"]);
/// ```
#[macro_export]
macro_rules! elementary {
    ($callback:ident $(, $arg:tt)*) => {
        $crate::primitives! { $crate::__elementary_rows, [$callback [$($arg)*]] }
    };
}

/// [`elementary!`]'s filter over the rows (not for use of its own).
#[doc(hidden)]
#[macro_export]
macro_rules! __elementary_rows {
    ([[$callback:ident [$($arg:tt)*]]]
        unary { $(($ty:ident $name:ident $doc:literal $x:ident $value:block $deriv:block
            $from:tt [$($method:ident)?] $($rest:tt)*))* }
        binary { $($binary:tt)* }) => {
        $callback! { [$($arg)*] $($(($ty $method $doc $x $value $deriv $from))?)* }
    };
}

/// Points and differences for the tests of the table's consumers: every consumer checks
/// each row it generates against central differences at points of the row's interval.
pub mod sample {
    /// Five points spread inside `(lo, hi)`, the ends excluded.
    ///
    /// ```
    /// assert_eq!(nilang_prims::sample::points(0.0, 6.0), [1.0, 2.0, 3.0, 4.0, 5.0]);
    /// ```
    pub fn points(lo: f64, hi: f64) -> [f64; 5] {
        core::array::from_fn(|k| lo + (hi - lo) * (k + 1) as f64 / 6.0)
    }

    /// The central difference of `f` at `x` with step `1e-6`.
    ///
    /// ```
    /// let d = nilang_prims::sample::central(|x| x * x, 3.0);
    /// assert!((d - 6.0).abs() < 1e-8);
    /// ```
    pub fn central(f: impl Fn(f64) -> f64, x: f64) -> f64 {
        let h = 1e-6;
        (f(x + h) - f(x - h)) / (2.0 * h)
    }

    /// Whether a derivative `d` agrees with a central difference `c` (relative to `1 + |d|`,
    /// within `1e-6`: the difference's truncation and round-off at step `1e-6`).
    ///
    /// ```
    /// assert!(nilang_prims::sample::agrees(2.0, 2.0 + 1e-9));
    /// assert!(!nilang_prims::sample::agrees(2.0, 2.1));
    /// ```
    pub fn agrees(d: f64, c: f64) -> bool {
        (d - c).abs() <= 1e-6 * (1.0 + d.abs())
    }
}
