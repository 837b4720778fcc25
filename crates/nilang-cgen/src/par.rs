//! Kernels of parallel loops: the body of a `for i in (a..b).par()` loop of a reversible
//! function as a kernel with **one thread per iteration**, forward and adjoint.
//!
//! The loop is found in the function's IR ([`par_loops`], in the order the body writes them)
//! and built from the plan the checker made of it ([`nilang_ir::Analyzed::plans`], by
//! [`nilang_ir::parallel::plan`], the rules the Rust generator runs it by): which places the
//! iterations own, which they reduce into, which every iteration reads. The kernel's parameters are the loop's *context*: the
//! function's parameters and the live ancillas that the loop's range and body mention, in that
//! order. Every entry has the batched kernels' C ABI ([`crate::KernelSpec`]),
//!
//! ```text
//! f__parK__fwd  (long long n, void* const* ptrs, const long long* lens, long long* status)  // the body on double
//! f__parK__inv  (…)   // the inverse body (nilang_ir::reverse) on double
//! f__parK__grad (…)   // the inverse body on gvar: the loop's adjoint
//! f__parK__count, f__parK__count_grad (…)  // the iteration count, into *(long long*)ptrs[P]
//! f__parK__sum, f__parK__sum_grad (…)      // the reductions' partials into their targets
//! ```
//!
//! with `ptrs[0..P]` the context's buffers (the loop's whole places: one instance of
//! [`crate::KernelSpec`]'s layout, described by the usual [`crate::KERNEL_MARK`] line),
//! `ptrs[P]` one `long long` for the count and `ptrs[P + 1 + r]` the `n` partials of
//! reduction `r` (`double`s; [`PAR_MARK`]'s line lists the reductions). A launch is: `count`
//! (one thread), `fwd`/`inv`/`grad` with `n` = the count (thread `t` runs iteration
//! `start + t`, or `end − 1 − t` for a `.rev()` range, so the host's sequential loop over `t`
//! is the sequential loop), then `sum` (one thread).
//!
//! `status` is the launch's record of a failed check ([`crate::check_failure`]): the slot
//! checks in `count`, and in the body every access of a slice checked against its length (an
//! access out of bounds records the iteration and touches a scratch place instead of memory
//! outside the buffer), so a launcher reads it back after `count` and after the body.
//!
//! How the places of the plan are treated, per iteration (thread):
//!
//! - **owned** places (`y[i]`, `y[d*i + j]`) and places read at owned slots only (`x[i]`) are
//!   used in place: the plan proved that no two iterations reach the same element, in the
//!   adjoint too. The slot checks the Rust program makes before the loop are made in `count`.
//! - **reductions** (`s += f(x[i])` into a place outside the loop) go to a partial that starts
//!   at zero (with the target's gradient in the adjoint: the sum hands it to every term) and is
//!   stored in the iteration's slot of the partials; `sum` adds them to the target in
//!   iteration order, values only, as the Rust loop adds its chunks' partials. So forward and
//!   gradient are deterministic, and on the host the sequential loop's sums.
//! - **shared reads** (a differentiable place every iteration reads, `a` in `exp(x[i] − a)`)
//!   are shared *writes* in the adjoint. In the gradient kernel such a place has the type
//!   `nl_shared_grad` (a `gvar` in memory): each instruction reads it as a private copy with a
//!   zero gradient and adds the copy's gradient back with `atomicAdd` (a plain `+=` on the
//!   host, in iteration order). A shared read handed to a call is rejected (the callee would
//!   need a private copy of the whole place).
//!
//! Not translated: loops nested in another loop (the kernel would need that loop's
//! variable), reductions into an element (`acc[0] += …`) or an integer, and everything the
//! function-level generator rejects in the body.

use crate::check::Sites;
use crate::gen::Translator;
use crate::sig::{scalar_type, signature, Elem, ParamInfo, Shape, Signature};
use crate::{CgenError, KERNEL_MARK};
use nilang_ir::ast::*;
use nilang_ir::parallel::Plan;
use nilang_ir::{Analyzed, Function};
use proc_macro2::TokenStream;
use quote::ToTokens;
use std::collections::HashSet;
use std::fmt::Write;
use syn::Expr;

/// The marker of the line that lists a parallel loop kernel's reductions:
/// `//@nilang-par NAME reductions=K,K,...` with each `K` the index of the target among the
/// kernel's parameters (the [`KERNEL_MARK`] line's `params`).
pub const PAR_MARK: &str = "//@nilang-par";

/// A parallel loop of a function, and what is live around it.
#[derive(Clone, Debug)]
pub struct ParLoop<'f> {
    /// The loop: a `For` statement whose range is parallel.
    pub stmt: &'f Stmt,
    /// The ancillas live at the loop, in the order they were allocated.
    pub ancillas: Vec<&'f Binding>,
    /// Whether the loop lies in the body of another loop.
    pub in_loop: bool,
}

/// The parallel loops of `f`'s body as written (inside `if`s, routines' computations and
/// `nocheck!` blocks too; not the uncomputations a routine adds, which are their inverses),
/// in source order: loop `k` of this list is the `k` of [`par_kernels`].
pub fn par_loops(f: &Function) -> Vec<ParLoop<'_>> {
    let mut finder = Finder {
        live: Vec::new(),
        depth: 0,
        found: Vec::new(),
    };
    finder.block(&f.body);
    finder.found
}

struct Finder<'f> {
    live: Vec<&'f Binding>,
    depth: usize,
    found: Vec<ParLoop<'f>>,
}

impl<'f> Finder<'f> {
    fn block(&mut self, stmts: &'f [Stmt]) {
        for s in stmts {
            self.stmt(s);
        }
    }

    /// A nested block: its ancillas end with it.
    fn nested(&mut self, stmts: &'f [Stmt], is_loop: bool) {
        let live = self.live.len();
        self.depth += usize::from(is_loop);
        self.block(stmts);
        self.depth -= usize::from(is_loop);
        self.live.truncate(live);
    }

    fn stmt(&mut self, s: &'f Stmt) {
        match &s.kind {
            StmtKind::Alloc(bindings) => {
                self.live.extend(bindings);
            }
            StmtKind::Dealloc(bindings) => {
                for b in bindings {
                    self.release(&b.name);
                }
            }
            StmtKind::For { range, .. } if range.parallel => self.found.push(ParLoop {
                stmt: s,
                ancillas: self.live.clone(),
                in_loop: self.depth > 0,
            }),
            StmtKind::For { body, .. } => self.nested(body, true),
            StmtKind::While { body, .. } => self.nested(body, true),
            StmtKind::If { then, els, .. } => {
                self.nested(then, false);
                self.nested(els, false);
            }
            StmtKind::NoCheck(body) => self.block(body),
            StmtKind::Routine { compute, body } => {
                let live = self.live.len();
                self.block(compute);
                self.block(body);
                // the uncomputation deallocates what the computation allocated
                let made: Vec<syn::Ident> =
                    self.live[live..].iter().map(|b| b.name.clone()).collect();
                for name in made.iter().rev() {
                    self.release(name);
                }
            }
            _ => {}
        }
    }

    fn release(&mut self, name: &syn::Ident) {
        if let Some(k) = self.live.iter().rposition(|b| b.name == *name) {
            self.live.remove(k);
        }
    }
}

/// The identifiers of a token stream, at any depth.
fn idents(ts: TokenStream, out: &mut HashSet<String>) {
    for t in ts {
        match t {
            proc_macro2::TokenTree::Ident(i) => {
                out.insert(i.to_string());
            }
            proc_macro2::TokenTree::Group(g) => idents(g.stream(), out),
            _ => {}
        }
    }
}

/// The names a block mentions: the roots and indices of its places and the identifiers of
/// its expressions (a superset of the names it uses from outside).
fn mentioned(stmts: &[Stmt], out: &mut HashSet<String>) {
    let expr = |e: &Expr, out: &mut HashSet<String>| idents(e.to_token_stream(), out);
    for s in stmts {
        for v in s.views() {
            out.insert(v.root.to_string());
            for a in &v.path {
                if let Access::Index(e) = a {
                    expr(e, out);
                }
            }
        }
        match &s.kind {
            StmtKind::If { pre, post, .. } | StmtKind::While { pre, post, .. } => {
                expr(pre, out);
                expr(post, out);
            }
            StmtKind::For { range, .. } => range_names(range, out),
            StmtKind::Alloc(bs) | StmtKind::Dealloc(bs) => {
                bs.iter().for_each(|b| expr(&b.value, out));
            }
            StmtKind::XorExpr { expr: e, .. } => expr(e, out),
            StmtKind::Call { call, .. } => {
                for a in &call.args {
                    if let CallArg::Shared(e) | CallArg::Value(e) = a {
                        expr(e, out);
                    }
                }
            }
            StmtKind::Instr(i) => {
                for a in &i.args {
                    if let Operand::Const(e) = a {
                        expr(e, out);
                    }
                }
            }
            StmtKind::Builtin {
                operand: Some(Operand::Const(e)),
                ..
            } => expr(e, out),
            _ => {}
        }
        for b in s.blocks() {
            mentioned(b, out);
        }
    }
}

fn range_names(range: &RangeSpec, out: &mut HashSet<String>) {
    let exprs = [Some(&range.start), Some(&range.end), range.step.as_ref()];
    for e in exprs.into_iter().flatten() {
        idents(e.to_token_stream(), out);
    }
    if let Some(b) = &range.broadcast {
        b.slices
            .iter()
            .for_each(|e| idents(e.to_token_stream(), out));
    }
}

/// The kernel's view of an ancilla the loop uses: its element type from its declared type
/// or its value (`T::zero()`, `T::lit(…)`, an integer or float literal; `vec![v; n]` and
/// `[v; n]` are slices of `v`'s type).
fn ancilla_param(b: &Binding, scalar: Option<&str>) -> Option<ParamInfo> {
    let (shape, elem) = match &b.ty {
        Some(ty) => (Shape::Scalar, scalar_type(ty, scalar)?),
        None => value_type(&b.value, scalar)?,
    };
    Some(ParamInfo {
        name: b.name.to_string(),
        shape,
        elem,
        mutable: true,
    })
}

fn value_type(e: &Expr, scalar: Option<&str>) -> Option<(Shape, Elem)> {
    let elem = |e: &Expr| match value_type(e, scalar) {
        Some((Shape::Scalar, el)) => Some((Shape::Slice, el)),
        _ => None,
    };
    match e {
        Expr::Call(c) => match &*c.func {
            Expr::Path(p) if p.path.segments.len() == 2 => {
                let ty = p.path.segments[0].ident.to_string();
                (Some(ty.as_str()) == scalar).then_some((Shape::Scalar, Elem::Real))
            }
            _ => None,
        },
        Expr::Lit(l) => match &l.lit {
            syn::Lit::Int(_) => Some((Shape::Scalar, Elem::Int("long long"))),
            syn::Lit::Float(_) => Some((Shape::Scalar, Elem::F64)),
            _ => None,
        },
        Expr::Repeat(r) => elem(&r.expr),
        Expr::Macro(m) if m.mac.path.is_ident("vec") => {
            let first = m
                .mac
                .parse_body_with(|input: syn::parse::ParseStream| {
                    let v: Expr = input.parse()?;
                    input.parse::<proc_macro2::TokenStream>()?;
                    Ok(v)
                })
                .ok()?;
            elem(&first)
        }
        Expr::Paren(p) => value_type(&p.expr, scalar),
        _ => None,
    }
}

/// What a kernel does with one place of the loop's context.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Role {
    /// Used in place (owned slots, reads, read-only data).
    InPlace,
    /// Read by every iteration and differentiable: `nl_shared_grad` in the gradient kernel.
    SharedRead,
    /// A reduction target: the iteration works on a partial.
    Reduction,
}

/// One parallel loop's kernels.
struct ParKernel<'f> {
    f: &'f Function,
    stmt: &'f Stmt,
    /// The kernel's own signature: its name and the loop's context as parameters.
    sig: Signature,
    roles: Vec<Role>,
    /// The owned slots' offset checks, made before the loop.
    slot_checks: Vec<nilang_ir::parallel::SlotCheck>,
    /// The sites of the runtime checks of the kernels' text.
    sites: Sites,
}

/// The kernels of the parallel loop `index` of `f` ([`par_loops`]; see the module
/// documentation): C++ text to add to a unit after the [`crate::HEADER`]
/// ([`crate::Module::par_kernel`]), named `{f}__par{index}`.
pub fn par_kernels(f: &Analyzed, index: usize) -> Result<String, CgenError> {
    let loops = par_loops(f);
    debug_assert_eq!(
        loops.len(),
        f.plans.len(),
        "a plan for each parallel loop as written"
    );
    let fname = f.sig.ident.to_string();
    let Some(l) = loops.get(index) else {
        return Err(CgenError::new(
            &fname,
            &fname,
            None,
            format!(
                "`{fname}` has {} parallel loop(s) (`.par()`), so there is no loop {index}",
                loops.len()
            ),
        ));
    };
    ParKernel::new(f, l, &f.plans[index], index)?.source()
}

impl<'f> ParKernel<'f> {
    /// The kernels of the loop `l`, the `index`th of `f`, whose plan (`nilang_ir::Analyzed::plans`)
    /// is `plan`.
    fn new(f: &'f Function, l: &ParLoop<'f>, plan: &Plan, index: usize) -> Result<Self, CgenError> {
        let fname = f.sig.ident.to_string();
        let err = |msg: String| CgenError::new(&fname, &l.stmt.source, Some(l.stmt.span), msg);
        let StmtKind::For { range, body, .. } = &l.stmt.kind else {
            unreachable!("a parallel loop is a `for`")
        };
        if l.in_loop {
            return Err(err(
                "this parallel loop lies in another loop: its kernel would need \
                 that loop's variable. Kernels are generated for parallel loops outside other \
                 loops; make the inner loop the kernel's body instead"
                    .into(),
            ));
        }
        let mut names = HashSet::new();
        mentioned(body, &mut names);
        range_names(range, &mut names);
        let scalar = signature_scalar(f)?;
        let ancillas = context_ancillas(l, &names);
        let mut params = used_params(f, &names, &ancillas)?;
        for b in &ancillas {
            params.push(ancilla_param(b, scalar.as_deref()).ok_or_else(|| {
                err(format!(
                    "the parallel loop uses the ancilla `{}`, whose type the kernel cannot \
                     tell from `{}`: declare it with its type (`let {}: T = …`)",
                    b.name,
                    nilang_ir::text::expr_text(&b.value),
                    b.name
                ))
            })?);
        }
        let roles = params
            .iter()
            .map(|p| role(p, plan).map_err(&err))
            .collect::<Result<Vec<_>, _>>()?;
        let sig = Signature {
            name: format!("{fname}__par{index}"),
            inverse: format!("{fname}__par{index}__inv"),
            scalar,
            params,
        };
        Ok(ParKernel {
            f,
            stmt: l.stmt,
            sig,
            roles,
            slot_checks: plan.slot_checks.clone(),
            sites: Sites::default(),
        })
    }
}

/// The C++ view of the parameters of `f` named in `names` (not hidden by one of `ancillas`),
/// in signature order: the others may have no translation.
fn used_params(
    f: &Function,
    names: &HashSet<String>,
    ancillas: &[&Binding],
) -> Result<Vec<ParamInfo>, CgenError> {
    let used = |a: &syn::FnArg| match a {
        syn::FnArg::Typed(pt) => match &*pt.pat {
            syn::Pat::Ident(pi) => {
                let n = pi.ident.to_string();
                names.contains(&n) && !ancillas.iter().any(|b| b.name == n)
            }
            _ => true,
        },
        syn::FnArg::Receiver(_) => true,
    };
    let mut g = f.clone();
    g.sig.inputs = f.sig.inputs.iter().filter(|a| used(a)).cloned().collect();
    Ok(signature(&g)?.params)
}

/// The function's scalar type parameter, if any (checked by [`signature`] on the context).
fn signature_scalar(f: &Function) -> Result<Option<String>, CgenError> {
    let mut g = f.clone();
    g.sig.inputs = Default::default();
    Ok(signature(&g)?.scalar)
}

/// The live ancillas the loop mentions, the last of each name.
fn context_ancillas<'f>(l: &ParLoop<'f>, names: &HashSet<String>) -> Vec<&'f Binding> {
    let mut out: Vec<&Binding> = Vec::new();
    for b in l.ancillas.iter().rev() {
        if names.contains(&b.name.to_string()) && !out.iter().any(|o| o.name == b.name) {
            out.push(b);
        }
    }
    out.reverse();
    out
}

/// How the kernels treat the context place `p`, from the loop's plan.
fn role(p: &ParamInfo, plan: &Plan) -> Result<Role, String> {
    if let Some(r) = plan.reductions.iter().find(|r| r.root == p.name) {
        if !r.path.is_empty() || p.shape != Shape::Scalar {
            return Err(format!(
                "the reduction into `{}` has no kernel: partials are kept for whole scalar \
                 targets; accumulate into a scalar ancilla and add it to `{}` after the loop",
                r.text(),
                r.text()
            ));
        }
        if !matches!(p.elem, Elem::Real | Elem::F64) {
            return Err(format!(
                "the reduction into `{}` has no kernel: its partials are real numbers",
                p.name
            ));
        }
        return Ok(Role::Reduction);
    }
    let shared = plan
        .shared_reads
        .iter()
        .find(|s| s.root == p.name && s.owned_slots.is_none());
    match shared {
        Some(s) if p.elem == Elem::Real && p.mutable => {
            if s.through_calls {
                return Err(format!(
                    "every iteration hands `{}` to a call: the gradient kernel would need a \
                     private copy of it per thread for the callee. Read it in the loop's body \
                     instead",
                    p.name
                ));
            }
            Ok(Role::SharedRead)
        }
        _ => Ok(Role::InPlace),
    }
}

impl ParKernel<'_> {
    fn name(&self) -> &str {
        &self.sig.name
    }

    /// The scalar template parameter's name (`T`), or a placeholder for functions on `f64`.
    fn scalar(&self) -> &str {
        self.sig.scalar.as_deref().unwrap_or("__S")
    }

    fn has_grad(&self) -> bool {
        self.sig.scalar.is_some()
            && self
                .sig
                .params
                .iter()
                .any(|p| p.elem == Elem::Real && p.mutable)
    }

    fn reductions(&self) -> Vec<usize> {
        (0..self.roles.len())
            .filter(|&k| self.roles[k] == Role::Reduction)
            .collect()
    }

    /// The whole source: the description lines, the device functions and the entries.
    fn source(&self) -> Result<String, CgenError> {
        let StmtKind::For { var, range, body } = &self.stmt.kind else {
            unreachable!("a parallel loop is a `for`")
        };
        let inverse = nilang_ir::reverse::reverse_stmt(self.stmt);
        let StmtKind::For {
            range: inv_range,
            body: inv_body,
            ..
        } = &inverse.kind
        else {
            unreachable!("the inverse of a loop is a loop")
        };
        let mut code = self.count_of(range)?;
        code.push_str(&self.iteration("fwd_at", var, range, body)?);
        code.push_str(&self.iteration("inv_at", var, inv_range, inv_body)?);
        code.push_str(&self.sum_of());
        code.push_str(&self.entries());
        Ok(format!(
            "{}{}{code}",
            self.description(),
            self.sites.lines()
        ))
    }

    /// The kernel's [`KERNEL_MARK`] and [`PAR_MARK`] lines, and a comment per role.
    fn description(&self) -> String {
        let name = self.name();
        let meta: Vec<String> = self
            .sig
            .params
            .iter()
            .map(|p| {
                let elem = match p.elem {
                    Elem::Real => "real",
                    Elem::F64 => "f64",
                    _ => "int",
                };
                let shape = match p.shape {
                    Shape::Scalar => "scalar",
                    Shape::Slice => "slice",
                    Shape::Value => "value",
                };
                let m = if p.mutable { "mut" } else { "const" };
                format!("{}:{elem}:{shape}:{m}:per", p.name)
            })
            .collect();
        let reductions: Vec<String> = self.reductions().iter().map(usize::to_string).collect();
        let mut out = format!(
            "{KERNEL_MARK} {name} grad={} params={}\n{PAR_MARK} {name} reductions={}\n",
            u8::from(self.has_grad()),
            meta.join(";"),
            reductions.join(",")
        );
        writeln!(
            out,
            "// the parallel loop `{}` of `{}`, one thread per iteration",
            one_line(&self.stmt.source),
            self.f.sig.ident
        )
        .unwrap();
        for (p, role) in self.sig.params.iter().zip(&self.roles) {
            match role {
                Role::SharedRead => writeln!(
                    out,
                    "// `{}` is read by every iteration: in {name}__grad its gradient is accumulated with atomicAdd",
                    p.name
                )
                .unwrap(),
                Role::Reduction => writeln!(
                    out,
                    "// `{}` is a reduction: one partial per iteration, added in iteration order by {name}__sum",
                    p.name
                )
                .unwrap(),
                Role::InPlace => {}
            }
        }
        out
    }

    /// C++ declarations of the context's places from `ptrs`/`lens`, named as in the loop; in
    /// the kernels, `{scalar}` is `double` or `gvar`, `__Sh` is `nl_shared_val` or `nl_shared_grad`.
    fn unpack(&self) -> Result<String, CgenError> {
        let mut out = String::new();
        let t = self.scalar();
        for (k, (p, role)) in self.sig.params.iter().zip(&self.roles).enumerate() {
            let buf = match (&p.elem, role) {
                (Elem::Real, Role::SharedRead) => "__Sh",
                (Elem::Real, _) => t,
                (Elem::F64, _) => "double",
                (Elem::Int(_), _) => "long long",
                (Elem::Bool, _) => {
                    return Err(self.param_error(
                        p,
                        "bool places cannot be passed to a kernel; use an integer",
                    ))
                }
            };
            if let Elem::Int(c) = &p.elem {
                if *c != "long long" && p.shape != Shape::Value {
                    return Err(self.param_error(p, "integer places of a kernel: use i64"));
                }
            }
            let (n, c) = (&p.name, if p.mutable { "" } else { "const " });
            match p.shape {
                Shape::Slice => writeln!(
                    out,
                    "    {c}{buf}* {n} = ({c}{buf}*)ptrs[{k}]; const long long {n}_len = lens[{k}]; (void){n}; (void){n}_len;"
                ),
                Shape::Scalar => writeln!(out, "    {c}{buf}& {n} = *({c}{buf}*)ptrs[{k}]; (void){n};"),
                Shape::Value => {
                    let ty = match &p.elem {
                        Elem::Int(c) => c,
                        _ => buf,
                    };
                    writeln!(out, "    const {ty} {n} = ({ty})((const {buf}*)ptrs[{k}])[0]; (void){n};")
                }
            }
            .unwrap();
        }
        Ok(out)
    }

    fn param_error(&self, p: &ParamInfo, msg: &str) -> CgenError {
        CgenError::new(
            &self.f.sig.ident.to_string(),
            &p.name,
            None,
            format!("`{}`: {msg}", p.name),
        )
    }

    /// `__start`, `__end` and `__count` of the range, from the context.
    fn range(&self, tr: &Translator<'_>, range: &RangeSpec) -> Result<String, CgenError> {
        let (start, end) = tr.range_bounds(self.stmt, range)?;
        let count = if range.inclusive {
            "__start > __end ? 0 : __end - __start + 1"
        } else {
            "__start >= __end ? 0 : __end - __start"
        };
        Ok(format!(
            "    const long long __start = (long long)({start}), __end = (long long)({end});\n    const long long __count = {count};\n"
        ))
    }

    fn template(&self) -> String {
        format!("template <class {}, class __Sh>", self.scalar())
    }

    /// The iteration count, after the owned slots' offset checks.
    fn count_of(&self, range: &RangeSpec) -> Result<String, CgenError> {
        let tr = Translator::new(&self.sig, &self.sites);
        let mut checks = String::new();
        for c in &self.slot_checks {
            let lo = tr.expr_of(self.stmt, &c.lo)?;
            let stride = tr.expr_of(self.stmt, &c.stride)?;
            let args = match &c.hi {
                Some(hi) => format!("{lo}, {}, {stride}", tr.expr_of(self.stmt, hi)?),
                None => format!("{lo}, {stride}"),
            };
            let site = self.sites.site(self.name(), None, &c.text);
            writeln!(
                checks,
                "    nl_slot_check(__nl, {site}, {args}); // `{}`",
                c.text
            )
            .unwrap();
        }
        Ok(format!(
            "{} NL_FN long long {}__count_of(nl_ctx* __nl, void* const* ptrs, const long long* lens) {{\n{}{}{checks}    return __count;\n}}\n",
            self.template(),
            self.name(),
            self.unpack()?,
            self.range(&tr, range)?,
        ))
    }

    /// One iteration (thread `__t`) of the loop `var in range { body }`.
    fn iteration(
        &self,
        suffix: &str,
        var: &syn::Ident,
        range: &RangeSpec,
        body: &[Stmt],
    ) -> Result<String, CgenError> {
        let mut tr = Translator::new(&self.sig, &self.sites);
        let head = self.range(&tr, range)?;
        let idx = if range.rev {
            "__count - 1 - __t"
        } else {
            "__t"
        };
        let mut partials = String::new();
        let mut stores = String::new();
        let t = self.scalar();
        for (r, k) in self.reductions().into_iter().enumerate() {
            let p = &self.sig.params[k];
            let ty = if p.elem == Elem::Real { t } else { "double" };
            let part = format!("__part{r}");
            writeln!(partials, "    {ty} {part} = nl_partial({});", p.name).unwrap();
            writeln!(
                stores,
                "    ((double*)ptrs[{}])[__t] = nl_val({part});",
                self.params_len() + 1 + r
            )
            .unwrap();
            tr.bind(&p.name, &part, true);
        }
        tr.bind(&var.to_string(), &var.to_string(), false);
        let text = tr.body(body)?;
        Ok(format!(
            "{} NL_FN void {}__{suffix}(nl_ctx* __nl, long long __t, void* const* ptrs, const long long* lens) {{\n{}{head}    if (__t >= __count) return;\n    const long long {var} = __start + ({idx});\n{partials}{text}{stores}}}\n",
            self.template(),
            self.name(),
            self.unpack()?,
        ))
    }

    fn params_len(&self) -> usize {
        self.sig.params.len()
    }

    /// The reductions' partials added to their targets in iteration order (values only).
    fn sum_of(&self) -> String {
        let mut adds = String::new();
        for (r, k) in self.reductions().into_iter().enumerate() {
            let ty = if self.sig.params[k].elem == Elem::Real {
                "T"
            } else {
                "double"
            };
            writeln!(
                adds,
                "    {{ {ty}& __target = *({ty}*)ptrs[{k}]; const double* __parts = (const double*)ptrs[{}];\n      for (long long __t = 0; __t < n; ++__t) nl_add_value(__target, __parts[__t]); }}",
                self.params_len() + 1 + r
            )
            .unwrap();
        }
        format!(
            "template <class T> NL_FN void {}__sum_of(long long n, void* const* ptrs, const long long* lens) {{\n    (void)n; (void)ptrs; (void)lens;\n{adds}}}\n",
            self.name()
        )
    }

    /// The `extern "C"` entries.
    fn entries(&self) -> String {
        let name = self.name();
        let count = self.params_len();
        let mut out = String::new();
        let mut kinds = vec![("", "double", "nl_shared_val")];
        if self.has_grad() {
            kinds.push(("_grad", "gvar", "nl_shared_grad"));
        }
        for (suffix, s, sh) in &kinds {
            writeln!(
                out,
                "NL_KERNEL void {name}__count{suffix}(long long n, void* const* ptrs, const long long* lens, long long* status) {{\n    NL_FOR_EACH(__t, n, status) {{\n        if (__t == 0) {{\n            nl_ctx __nl = nl_context(status, 0);\n            *(long long*)ptrs[{count}] = {name}__count_of<{s}, {sh}>(&__nl, ptrs, lens);\n        }}\n    }}\n}}"
            )
            .unwrap();
            writeln!(
                out,
                "NL_KERNEL void {name}__sum{suffix}(long long n, void* const* ptrs, const long long* lens, long long* status) {{\n    NL_FOR_EACH(__t, 1, status) {{ {name}__sum_of<{s}>(n, ptrs, lens); }}\n}}"
            )
            .unwrap();
        }
        let mut entry = |suffix: &str, at: &str, s: &str, sh: &str| {
            writeln!(
                out,
                "NL_KERNEL void {name}__{suffix}(long long n, void* const* ptrs, const long long* lens, long long* status) {{\n    NL_FOR_EACH(__t, n, status) {{\n        nl_ctx __nl = nl_context(status, __t);\n        {name}__{at}<{s}, {sh}>(&__nl, __t, ptrs, lens);\n    }}\n}}"
            )
            .unwrap();
        };
        entry("fwd", "fwd_at", "double", "nl_shared_val");
        entry("inv", "inv_at", "double", "nl_shared_val");
        if self.has_grad() {
            entry("grad", "inv_at", "gvar", "nl_shared_grad");
        }
        out
    }
}

fn one_line(s: &str) -> String {
    s.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .replace("*/", "* /")
}
