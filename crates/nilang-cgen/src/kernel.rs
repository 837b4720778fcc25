//! Batched kernels: one thread (on the host: one loop iteration) per independent instance.
//!
//! Every kernel has the same C ABI, whatever the function's parameters:
//!
//! ```text
//! f__fwd (long long n, void* const* ptrs, const long long* lens, long long* status)  // forward on double
//! f__inv (long long n, void* const* ptrs, const long long* lens, long long* status)  // inverse on double
//! f__grad(long long n, void* const* ptrs, const long long* lens, long long* status)  // inverse on gvar: gradients
//! ```
//!
//! `ptrs[k]` is the buffer of parameter `k` and `lens[k]` its length per instance (1 for
//! scalars). `status` is [`crate::STATUS_WORDS`] zeros, where the first failed runtime check
//! of any instance is recorded (an index out of its slice's bounds, a broadcast over slices of
//! different lengths; [`crate::check_failure`] says what it was): the generated code checks
//! every slice access against the length it was given, and an access out of bounds touches a
//! scratch place of its thread instead of memory outside the buffer. On the host, the loop
//! over instances stops after the instance that failed; a launcher that finds a failure
//! discards the results. A real parameter's buffer holds `double`s (or `gvar`s, value and gradient
//! interleaved, for `__grad`); integer parameters' buffers hold `long long`s. Instance `i` uses
//! elements `i * lens[k] .. (i + 1) * lens[k]`, except for **shared** parameters
//! ([`KernelSpec::shared`]), which every instance reads whole.
//!
//! **Shared reads become shared writes.** A parameter read by every thread (shared camera
//! parameters, mixture weights) is a shared *write* of its gradient in the adjoint program
//! (the paper's §"Shared read and write problem"). The choice made here: each instance works on
//! a private copy of a shared parameter (values copied, gradient zero), and after the instance
//! its gradient is added to the shared buffer with `atomicAdd` on the GPU (a plain `+=` in the
//! sequential host loop). A statement that *writes* a shared parameter is rejected at code
//! generation time, since every thread would write the same place; with
//! [`SharedGradients::Reject`], any differentiable shared parameter is rejected too.

use crate::sig::{signature, Elem, ParamInfo, Shape, Signature};
use crate::CgenError;
use nilang_ir::ast::*;
use nilang_ir::Function;
use std::fmt::Write;

/// The marker of the machine-readable line that describes a kernel's parameters in the
/// generated source: `//@nilang-kernel NAME grad=0|1 params=P;P;...` with each `P` written
/// `name:elem:shape:mut|const:per|shared` (elem `real`, `f64`, `int`; shape `scalar`, `slice`,
/// `value`). Launchers (`nilang-cuda`) read it to check buffers against the signature.
pub const KERNEL_MARK: &str = "//@nilang-kernel";

/// What to do with the gradients of shared parameters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SharedGradients {
    /// Accumulate them with `atomicAdd` (the default).
    #[default]
    Atomic,
    /// Reject differentiable shared parameters at code generation time.
    Reject,
}

/// How a function is batched: which parameters every instance shares.
#[derive(Clone, Debug, Default)]
pub struct KernelSpec {
    /// Parameters read whole by every instance, with the largest length they may have (the
    /// size of each thread's private copy).
    pub shared: Vec<(String, usize)>,
    /// The policy for their gradients.
    pub gradients: SharedGradients,
}

impl KernelSpec {
    /// Every parameter per instance.
    pub fn new() -> Self {
        KernelSpec::default()
    }

    /// Marks `name` as shared by all instances, at most `max_len` elements long.
    pub fn shared(mut self, name: &str, max_len: usize) -> Self {
        self.shared.push((name.to_string(), max_len));
        self
    }

    /// Sets the policy for gradients of shared parameters.
    pub fn gradients(mut self, policy: SharedGradients) -> Self {
        self.gradients = policy;
        self
    }
}

fn walk<'s>(stmts: &'s [Stmt], f: &mut dyn FnMut(&'s Stmt) -> bool) -> bool {
    for s in stmts {
        if f(s) {
            return true;
        }
        for b in s.blocks() {
            if walk(b, f) {
                return true;
            }
        }
    }
    false
}

/// The first statement that writes a dataview rooted at `name`.
fn first_write<'s>(body: &'s [Stmt], name: &str) -> Option<&'s Stmt> {
    let mut found = None;
    walk(body, &mut |s| {
        let hit = match &s.kind {
            StmtKind::Instr(i) => i.target.root == name,
            StmtKind::XorExpr { target, .. } => target.root == name,
            StmtKind::Builtin { args, .. } => args.iter().any(|a| a.root == name),
            StmtKind::Stack { stack, value, .. } => stack.root == name || value.root == name,
            _ => false,
        };
        if hit {
            found = Some(s);
        }
        hit
    });
    found
}

/// The first statement that reads a dataview rooted at `name` as an operand or call argument.
fn first_read<'s>(body: &'s [Stmt], name: &str) -> Option<&'s Stmt> {
    let mut found = None;
    walk(body, &mut |s| {
        let hit = match &s.kind {
            StmtKind::Instr(i) => i
                .args
                .iter()
                .any(|a| matches!(a, Operand::View(v) if v.root == name)),
            StmtKind::Builtin {
                operand: Some(Operand::View(v)),
                ..
            } => v.root == name,
            StmtKind::Call { call, .. } => call.args.iter().any(|a| match a {
                CallArg::View(v) => v.root == name,
                CallArg::Shared(e) | CallArg::Value(e) => nilang_ir::parse::dataview(e)
                    .map(|v| v.root == name)
                    .unwrap_or(false),
            }),
            _ => false,
        };
        if hit {
            found = Some(s);
        }
        hit
    });
    found
}

/// The batched kernels of `f` (see the module documentation).
pub fn kernels(f: &Function, spec: &KernelSpec) -> Result<String, CgenError> {
    let sig = signature(f)?;
    check_shared(f, &sig, spec)?;
    let generic = sig.scalar.is_some();
    let has_grad = generic && sig.params.iter().any(|p| p.elem == Elem::Real && p.mutable);
    let mut parts = InstanceParts::default();
    for (k, p) in sig.params.iter().enumerate() {
        parts.param(&sig, spec, k, p)?;
    }
    let InstanceParts {
        meta,
        setup,
        finish,
        mut args,
        notes,
    } = parts;
    let targs = if generic { "<S>" } else { "" };
    let name = &sig.name;
    let inv = &sig.inverse;
    // every generated function takes its thread's context first
    args.insert(0, "__nl".to_string());
    let args = args.join(", ");
    let mut out = String::new();
    writeln!(
        out,
        "{KERNEL_MARK} {name} grad={} params={}",
        has_grad as u8,
        meta.join(";")
    )
    .unwrap();
    out.push_str(&notes);
    writeln!(
        out,
        "template <class S> NL_FN void {name}__instance(nl_ctx* __nl, int inverse, long long i, void* const* ptrs, const long long* lens) {{\n{setup}    if (inverse) {inv}{targs}({args}); else {name}{targs}({args});\n{finish}}}"
    )
    .unwrap();
    let entry = |suffix: &str, ty: &str, inverse: u8| {
        format!(
            "NL_KERNEL void {name}__{suffix}(long long n, void* const* ptrs, const long long* lens, long long* status) {{\n    NL_FOR_EACH(i, n, status) {{\n        nl_ctx __nl = nl_context(status, i);\n        {name}__instance<{ty}>(&__nl, {inverse}, i, ptrs, lens);\n    }}\n}}\n"
        )
    };
    out.push_str(&entry("fwd", "double", 0));
    out.push_str(&entry("inv", "double", 1));
    if has_grad {
        out.push_str(&entry("grad", "gvar", 1));
    }
    Ok(out)
}

/// The rules on the parameters the batch shares (`KernelSpec::shared`): a length, never
/// written, and, unless gradients are accumulated atomically, a real one never read.
fn check_shared(f: &Function, sig: &Signature, spec: &KernelSpec) -> Result<(), CgenError> {
    let err = |stmt: &str, span, msg: String| CgenError::new(&sig.name, stmt, span, msg);
    for (name, max) in &spec.shared {
        let Some(p) = sig.params.iter().find(|p| &p.name == name) else {
            return Err(err(name, None, format!("no parameter `{name}` to share")));
        };
        if *max == 0 || (p.shape != Shape::Slice && *max != 1) {
            return Err(err(
                name,
                None,
                format!("shared parameter `{name}`: give its length (1 for a scalar)"),
            ));
        }
        if let Some(s) = first_write(&f.body, name) {
            return Err(err(
                &s.source,
                Some(s.span),
                format!(
                    "`{name}` is shared by all instances of the batch (every thread reads it), but this statement \
                     writes it: every thread would write the same place. Make `{name}` per-instance, or write the \
                     result to another parameter"
                ),
            ));
        }
        if spec.gradients == SharedGradients::Reject && p.elem == Elem::Real && p.mutable {
            if let Some(s) = first_read(&f.body, name) {
                return Err(err(
                    &s.source,
                    Some(s.span),
                    format!(
                        "`{name}` is shared by all instances of the batch, and this statement reads it: in the \
                         adjoint program the read becomes a write of its gradient by every thread (shared read → \
                         shared write). Use SharedGradients::Atomic to accumulate the gradient with atomicAdd, or \
                         make `{name}` per-instance"
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// The pieces of one instance's function, gathered parameter by parameter.
#[derive(Default)]
struct InstanceParts {
    /// Each parameter's description for the kernel mark (`name:elem:shape:mut:sharing`).
    meta: Vec<String>,
    /// The instance's view of each parameter's buffer.
    setup: String,
    /// The gradients of shared parameters, accumulated after the call.
    finish: String,
    /// The arguments of the call.
    args: Vec<String>,
    /// Comments on shared reads.
    notes: String,
}

impl InstanceParts {
    /// Parameter `k`, `p`, of the signature: its view of the batch's buffer `ptrs[k]`.
    fn param(
        &mut self,
        sig: &Signature,
        spec: &KernelSpec,
        k: usize,
        p: &ParamInfo,
    ) -> Result<(), CgenError> {
        let err = |stmt: &str, span, msg: String| CgenError::new(&sig.name, stmt, span, msg);
        let shared = spec
            .shared
            .iter()
            .find(|(n, _)| n == &p.name)
            .map(|(_, m)| *m);
        let buf = match &p.elem {
            Elem::Real => "S",
            Elem::F64 => "double",
            Elem::Int(_) => "long long",
            Elem::Bool => {
                return Err(err(
                    &p.name,
                    None,
                    "bool parameters cannot be batched; use an integer".into(),
                ));
            }
        };
        if let Elem::Int(c) = &p.elem {
            if *c != "long long" && p.shape != Shape::Value {
                return Err(err(
                    &p.name,
                    None,
                    format!(
                        "integer parameter `{}` of a kernel: use i64 for references and slices",
                        p.name
                    ),
                ));
            }
        }
        let v = format!("p{k}");
        let cst = if p.mutable { "" } else { "const " };
        self.meta.push(param_meta(p, shared));
        let value_ty = match &p.elem {
            Elem::Int(c) => c.to_string(),
            _ => buf.to_string(),
        };
        match (shared, p.shape) {
            (None, Shape::Slice) => {
                writeln!(
                    self.setup,
                    "    {cst}{buf}* {v} = ({cst}{buf}*)ptrs[{k}] + i * lens[{k}];"
                )
                .unwrap();
                self.args.push(format!("{v}, lens[{k}]"));
            }
            (None, Shape::Scalar) => {
                writeln!(
                    self.setup,
                    "    {cst}{buf}& {v} = (({cst}{buf}*)ptrs[{k}])[i];"
                )
                .unwrap();
                self.args.push(v);
            }
            (None, Shape::Value) => {
                writeln!(
                    self.setup,
                    "    {value_ty} {v} = ({value_ty})((const {buf}*)ptrs[{k}])[i];"
                )
                .unwrap();
                self.args.push(v);
            }
            (Some(m), Shape::Slice) => {
                writeln!(self.setup, "    {buf} {v}[{m}];").unwrap();
                writeln!(
                    self.setup,
                    "    const long long {v}_len = lens[{k}] < {m} ? lens[{k}] : {m};"
                )
                .unwrap();
                writeln!(
                        self.setup,
                    "    for (long long j = 0; j < {v}_len; ++j) {v}[j] = nl_private(((const {buf}*)ptrs[{k}])[j]);"
                )
                .unwrap();
                self.args.push(format!("{v}, {v}_len"));
                if p.mutable && p.elem == Elem::Real {
                    writeln!(self.finish, "    for (long long j = 0; j < {v}_len; ++j) nl_accumulate(({buf}*)ptrs[{k}] + j, {v}[j]);")
                        .unwrap();
                    writeln!(self.notes, "// shared read of `{}` -> its gradient is accumulated atomically (atomicAdd) in {}__grad", p.name, sig.name).unwrap();
                }
            }
            (Some(_), _) => {
                writeln!(
                    self.setup,
                    "    {value_ty} {v} = ({value_ty})nl_private(((const {buf}*)ptrs[{k}])[0]);"
                )
                .unwrap();
                self.args.push(v.clone());
                if p.mutable && p.elem == Elem::Real && p.shape == Shape::Scalar {
                    writeln!(self.finish, "    nl_accumulate(({buf}*)ptrs[{k}], {v});").unwrap();
                    writeln!(self.notes, "// shared read of `{}` -> its gradient is accumulated atomically (atomicAdd) in {}__grad", p.name, sig.name).unwrap();
                }
            }
        }
        Ok(())
    }
}

/// A parameter's description for the kernel mark: `name:elem:shape:mut:sharing`.
fn param_meta(p: &ParamInfo, shared: Option<usize>) -> String {
    format!(
        "{}:{}:{}:{}:{}",
        p.name,
        match p.elem {
            Elem::Real => "real",
            Elem::F64 => "f64",
            _ => "int",
        },
        match p.shape {
            Shape::Scalar => "scalar",
            Shape::Slice => "slice",
            Shape::Value => "value",
        },
        if p.mutable { "mut" } else { "const" },
        match shared {
            Some(m) => format!("shared{m}"),
            None => "per".into(),
        }
    )
}
