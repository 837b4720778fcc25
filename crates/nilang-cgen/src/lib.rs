#![doc = include_str!("../README.md")]
#![warn(missing_docs)]

mod check;
mod gen;
mod kernel;
mod par;
mod prims;
mod sig;

pub use check::{check_failure, CheckFailure, SITE_MARK, STATUS_WORDS};
pub use kernel::{KernelSpec, SharedGradients, KERNEL_MARK};
pub use par::{par_kernels, par_loops, ParLoop, PAR_MARK};
pub use prims::HEADER;
pub use sig::{signature, Elem, ParamInfo, Shape, Signature};

use nilang_ir::{Analyzed, Function};
use proc_macro2::Span;

/// Why a function has no C++ translation: the function, the statement and the reason.
#[derive(Clone, Debug)]
pub struct CgenError {
    function: String,
    statement: String,
    message: String,
    span: Span,
}

impl CgenError {
    pub(crate) fn new(
        function: &str,
        statement: &str,
        span: Option<Span>,
        message: String,
    ) -> Self {
        CgenError {
            function: function.to_string(),
            statement: statement.to_string(),
            message,
            span: span.unwrap_or_else(Span::call_site),
        }
    }

    /// The reversible function concerned.
    pub fn function(&self) -> &str {
        &self.function
    }

    /// The statement (or parameter) that has no translation, as the user wrote it.
    pub fn statement(&self) -> &str {
        &self.statement
    }

    /// Why.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// Where, in the user's source (for compile errors of the `#[i(cuda)]` attribute).
    pub fn span(&self) -> Span {
        self.span
    }
}

impl std::fmt::Display for CgenError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "cannot generate C++ for `{}` in `{}`: {}",
            self.statement, self.function, self.message
        )
    }
}

impl std::error::Error for CgenError {}

fn template_prefix(sig: &Signature) -> String {
    match &sig.scalar {
        Some(t) => format!("template <class {t}> "),
        None => String::new(),
    }
}

fn declaration(sig: &Signature, name: &str) -> String {
    let scalar = sig.scalar.as_deref().unwrap_or("double");
    let params: Vec<String> = sig.params.iter().map(|p| p.declaration(scalar)).collect();
    format!(
        "{}NL_FN void {name}(nl_ctx* __nl{}{})",
        template_prefix(sig),
        if params.is_empty() { "" } else { ", " },
        params.join(", ")
    )
}

/// Prototypes of a function's forward and inverse programs (what callers need before them).
pub fn prototypes(f: &Function) -> Result<String, CgenError> {
    let sig = signature(f)?;
    Ok(format!(
        "{};\n{};\n",
        declaration(&sig, &sig.name),
        declaration(&sig, &sig.inverse)
    ))
}

/// The C++ forward and inverse programs of a reversible function: two function templates over
/// the scalar type (`f<double>` computes, `f_inv<double>` undoes it, and `f_inv<gvar>` is the
/// adjoint program that back-propagates gradients). Preceded by their prototypes and wrapped
/// in an include guard, so that a function's text may appear several times in one unit.
/// Callees must be declared before a caller's definition: put their text first, or use
/// [`Module`].
///
/// Each function takes its thread's `nl_ctx* __nl` first (the launch's status and scratch
/// places), and every slice access is checked against the slice's length: out of bounds, the
/// failure is recorded there and no memory outside the slice is touched. The text lists the
/// checks' sites (the [`SITE_MARK`] lines) that [`check_failure`] reads.
pub fn generate(f: &Function) -> Result<String, CgenError> {
    let sig = signature(f)?;
    let sites = check::Sites::default();
    let fwd = gen::Translator::new(&sig, &sites).body(&f.body)?;
    let inverse = nilang_ir::reverse::reverse_block(&f.body);
    let inv = gen::Translator::new(&sig, &sites).body(&inverse)?;
    let guard = format!("NILANG_FN_{}", sig.name);
    Ok(format!(
        "#ifndef {guard}\n#define {guard}\n// `{name}` and its inverse `{inv_name}`, generated from the reversible source by nilang-cgen.\n\
         {sites}{proto}{fdecl} {{\n{fwd}}}\n{idecl} {{\n{inv}}}\n#endif // {guard}\n",
        sites = sites.lines(),
        name = sig.name,
        inv_name = sig.inverse,
        proto = prototypes(f)?,
        fdecl = declaration(&sig, &sig.name),
        idecl = declaration(&sig, &sig.inverse),
    ))
}

/// A translation unit: the [`HEADER`], reversible functions and batched kernels.
///
/// ```
/// let src = r#"
///     #[i]
///     fn square_into<T: Real>(y: &mut T, x: &mut T) { y += square(x); }
///     #[i]
///     fn twice<T: Real>(y: &mut T, x: &mut T) { square_into(y, x); square_into(y, x); }
/// "#;
/// let fs = nilang_ir::parse_file(src).unwrap();
/// let mut m = nilang_cgen::Module::new();
/// m.function(&fs[1]).unwrap().function(&fs[0]).unwrap();
/// m.kernel(&fs[1], &nilang_cgen::KernelSpec::default()).unwrap();
/// let cpp = m.source();
/// assert!(cpp.contains("NL_KERNEL void twice__grad("));
/// ```
#[derive(Clone, Debug, Default)]
pub struct Module {
    prototypes: String,
    functions: String,
    kernels: String,
}

impl Module {
    /// An empty unit (the header is always included).
    pub fn new() -> Self {
        Module::default()
    }

    /// Adds a reversible function (forward and inverse).
    pub fn function(&mut self, f: &Function) -> Result<&mut Self, CgenError> {
        let text = generate(f)?;
        self.prototypes.push_str(&prototypes(f)?);
        self.functions.push_str(&text);
        Ok(self)
    }

    /// Adds batched kernels for a function already added (see [`KernelSpec`]).
    pub fn kernel(&mut self, f: &Function, spec: &KernelSpec) -> Result<&mut Self, CgenError> {
        self.kernels.push_str(&kernel::kernels(f, spec)?);
        Ok(self)
    }

    /// Adds the kernels of the parallel loop `index` of `f` ([`par_kernels`]: one thread per
    /// iteration, `{f}__par{index}__fwd`, `__inv`, `__grad`). They inline the loop's body, so
    /// `f` itself need not be added (its callees must be).
    pub fn par_kernel(&mut self, f: &Analyzed, index: usize) -> Result<&mut Self, CgenError> {
        self.kernels.push_str(&par::par_kernels(f, index)?);
        Ok(self)
    }

    /// Adds C++ text verbatim (e.g. a `*_CUDA` constant emitted by `#[i(cuda)]`).
    pub fn raw(&mut self, text: &str) -> &mut Self {
        self.functions.push_str(text);
        self
    }

    /// The whole translation unit.
    pub fn source(&self) -> String {
        format!(
            "{HEADER}\n// ---- prototypes ----\n{}\n{}\n// ---- kernels ----\n{}",
            self.prototypes, self.functions, self.kernels
        )
    }
}
