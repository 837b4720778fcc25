//! Statements without nested blocks: instructions, builtins, ancillas, calls, each as C++
//! text with the statement's source as a comment.

use super::*;

impl Translator<'_> {
    /// A statement without nested blocks, as C++ text.
    pub(super) fn simple(&mut self, s: &Stmt) -> R<String> {
        let comment = format!("// {}", one_line(&s.source));
        match &s.kind {
            StmtKind::Instr(i) => self.instr(i, &comment),
            StmtKind::XorExpr { target, expr } => {
                let t = self.view(target)?;
                let e = self.expr(expr)?;
                Ok(format!("{t} ^= ({e}); {comment}"))
            }
            StmtKind::Builtin {
                op: BuiltinOp::Swap,
                args,
                ..
            } if self.is_built(&args[0]) || self.is_built(&args[1]) => {
                self.swap_built(&args[0], &args[1], &comment)
            }
            StmtKind::Builtin { op, args, operand } => {
                self.builtin(*op, args, operand.as_ref(), &comment)
            }
            StmtKind::Alloc(bindings) => self.alloc(bindings, &comment),
            StmtKind::Dealloc(bindings) => {
                for b in bindings {
                    let name = b.name.to_string();
                    if self.take_fields(&name).is_empty() {
                        for f in self.frames.iter_mut().rev() {
                            if f.remove(&name).is_some() {
                                break;
                            }
                        }
                    }
                }
                Ok(format!("{comment} (not checked in C++)"))
            }
            StmtKind::Call { call, uncall } => self.call(call, *uncall, &comment),
            StmtKind::Stack { .. } => unsupported(
                "stacks allocate memory: no C++ translation (kernels use ancillas only)",
            ),
            StmtKind::Safe(_) => unsupported("`safe!` blocks hold plain Rust: no C++ translation"),
            StmtKind::Fields(f) => {
                self.move_fields(f)?;
                Ok(format!("{comment} (its fields stay in their variables)"))
            }
            StmtKind::If { .. }
            | StmtKind::While { .. }
            | StmtKind::For { .. }
            | StmtKind::NoCheck(_)
            | StmtKind::Routine { .. } => {
                unreachable!("compound statements are translated by `stmt`")
            }
        }
    }

    /// An instruction: target and operands to locals, the instruction rule `nl_add1<prim>` …
    /// on them, and back.
    pub(super) fn instr(&mut self, i: &Instr, comment: &str) -> R<String> {
        let target = self.view(&i.target)?;
        let method = match (i.op, i.args.len()) {
            (AccOp::Add, 1) => "nl_add1",
            (AccOp::Sub, 1) => "nl_sub1",
            (AccOp::Add, 2) => "nl_add2",
            (AccOp::Sub, 2) => "nl_sub2",
            (AccOp::Mul | AccOp::Div, _) => {
                return unsupported(
                    "`*=` and `/=` (multiplicative number systems) have no C++ translation",
                )
            }
            _ => return unsupported("an instruction takes one or two operands"),
        };
        let prim = match &i.prim {
            Prim::Builtin(info) => format!("nl_{}", info.runtime),
            Prim::User(p) => {
                return unsupported(format!(
                    "user primitive `{}` has no C++ translation (only the built-in primitives do)",
                    quote::quote!(#p).to_string().replace(' ', "")
                ))
            }
        };
        let mut t = format!("{{ {comment}\n    auto __y = {target};\n");
        let mut locals = Vec::new();
        let mut stores = String::new();
        for (k, a) in i.args.iter().enumerate() {
            let (src, store) = self.operand(a)?;
            let l = format!("__a{k}");
            writeln!(
                t,
                "    decltype(__y) {l} = nl_cv<decltype(__y)>::from({src});"
            )
            .unwrap();
            if store {
                writeln!(stores, "    nl_store({src}, {l});").unwrap();
            }
            locals.push(l);
        }
        writeln!(t, "    {method}<{prim}>(__y, {});", locals.join(", ")).unwrap();
        writeln!(t, "    {target} = __y;").unwrap();
        t.push_str(&stores);
        t.push('}');
        Ok(t)
    }

    /// A builtin (`swap`, the one-place builtins, `hadamard`, the rotations) on locals.
    pub(super) fn builtin(
        &mut self,
        op: BuiltinOp,
        args: &[Dataview],
        operand: Option<&Operand>,
        comment: &str,
    ) -> R<String> {
        let places = args.iter().map(|a| self.view(a)).collect::<R<Vec<_>>>()?;
        Ok(match op {
            BuiltinOp::Swap => {
                let (a, b) = (&places[0], &places[1]);
                format!("{{ auto __a = {a}; auto __b = {b}; {a} = __b; {b} = __a; }} {comment}")
            }
            BuiltinOp::Neg
            | BuiltinOp::Inc
            | BuiltinOp::Dec
            | BuiltinOp::Conj
            | BuiltinOp::Flip
            | BuiltinOp::Inv => {
                let f = match op {
                    BuiltinOp::Neg => "nl_negate",
                    BuiltinOp::Inc => "nl_inc",
                    BuiltinOp::Dec => "nl_dec",
                    BuiltinOp::Flip => "nl_flip",
                    BuiltinOp::Inv => "nl_inv",
                    _ => "nl_conj",
                };
                let a = &places[0];
                format!("{{ auto __a = {a}; {f}(__a); {a} = __a; }} {comment}")
            }
            BuiltinOp::Hadamard => {
                let (a, b) = (&places[0], &places[1]);
                format!(
                    "{{ auto __a = {a}; auto __b = {b}; nl_hadamard(__a, __b); {a} = __a; {b} = __b; }} {comment}"
                )
            }
            BuiltinOp::Rot | BuiltinOp::IRot => {
                let f = if op == BuiltinOp::Rot {
                    "nl_rot"
                } else {
                    "nl_irot"
                };
                let (a, b) = (&places[0], &places[1]);
                let theta = operand
                    .as_ref()
                    .ok_or_else(|| ("a rotation has an angle".to_string(), None))?;
                let (src, store) = self.operand(theta)?;
                let st = if store {
                    format!(" nl_store({src}, __t);")
                } else {
                    String::new()
                };
                format!(
                    "{{ {comment}\n    auto __a = {a}; auto __b = {b};\n    decltype(__a) __t = nl_cv<decltype(__a)>::from({src});\n    {f}(__a, __b, __t);\n    {a} = __a; {b} = __b;{st}\n}}"
                )
            }
        })
    }

    /// Ancillas allocated, typed by their scalar type where they name one.
    pub(super) fn alloc(&mut self, bindings: &[Binding], comment: &str) -> R<String> {
        let mut t = String::new();
        for b in bindings {
            if let Some(of) = nilang_ir::zeros::zero_like_of(&b.value) {
                // a zero of another place's type (`expand!`, `mapfoldl!`)
                let place = self.expr(of)?;
                let cname = self.declare_ancilla(&b.name);
                writeln!(
                    t,
                    "auto {cname} = {place}; {cname} = nl_lit<decltype({cname})>(-0.0); {comment}"
                )
                .unwrap();
                continue;
            }
            let value = self.expr(&b.value)?;
            let ty = match &b.ty {
                Some(ty) => match scalar_type(ty, self.sig.scalar.as_deref()) {
                    Some(e) => elem_ctype(&e, self.scalar()).to_string(),
                    None => {
                        return unsupported(format!(
                            "ancilla type `{}` has no C++ translation",
                            type_text(ty)
                        ))
                    }
                },
                None => "auto".to_string(),
            };
            let cname = self.declare_ancilla(&b.name);
            writeln!(t, "{ty} {cname} = {value}; {comment}").unwrap();
        }
        Ok(t.trim_end().to_string())
    }

    /// A call of a free reversible function (`g_inv` for an uncall), its places passed by
    /// reference.
    pub(super) fn call(&mut self, call: &Call, uncall: bool, comment: &str) -> R<String> {
        let name = match &call.callee {
            Callee::Path(p) => {
                let last = p
                    .path
                    .segments
                    .last()
                    .ok_or_else(|| ("empty path".to_string(), None))?;
                let mut name = last.ident.to_string();
                if uncall {
                    name.push_str("_inv");
                }
                if let syn::PathArguments::AngleBracketed(a) = &last.arguments {
                    let mut tys = Vec::new();
                    for g in &a.args {
                        match g {
                            syn::GenericArgument::Type(ty) => {
                                match scalar_type(ty, self.sig.scalar.as_deref()) {
                                    Some(e) => tys.push(elem_ctype(&e, self.scalar()).to_string()),
                                    None => {
                                        return unsupported(format!(
                                            "type argument `{}`",
                                            type_text(ty)
                                        ))
                                    }
                                }
                            }
                            _ => return unsupported("only type arguments in a turbofish"),
                        }
                    }
                    name = format!("{name}<{}>", tys.join(", "));
                }
                name
            }
            Callee::Method { .. } => {
                return unsupported(
                    "method calls have no C++ translation; call a free reversible function",
                )
            }
            Callee::Param(f) => {
                return unsupported(format!(
                    "`{f}` is a reversible function passed as a parameter, which has no C++ \
                     translation (a kernel calls functions named at compile time); call a free \
                     reversible function by name"
                ))
            }
        };
        let mut args = Vec::new();
        for a in &call.args {
            let arg = match a {
                CallArg::View(v) => self.call_view(v)?,
                CallArg::Shared(e) => match nilang_ir::parse::dataview(e) {
                    Some(v) => self.call_view(&v)?,
                    None => self.expr(e)?,
                },
                CallArg::Value(e) => match nilang_ir::parse::dataview(e) {
                    Some(v) if self.lookup(&v.root.to_string()).is_some() => self.call_view(&v)?,
                    _ => self.expr(e)?,
                },
            };
            args.push(arg);
        }
        args.insert(0, "__nl".to_string());
        Ok(format!("{name}({}); {comment}", args.join(", ")))
    }

    pub(super) fn call_view(&self, v: &Dataview) -> R<String> {
        if v.path.is_empty() {
            if let Some(var) = self.lookup(&v.root.to_string()) {
                if var.slice {
                    return Ok(format!("{0}, {0}_len", var.cname));
                }
            }
        }
        self.view(v)
    }

    /// An operand as C++ text, and whether it is stored back after the instruction.
    pub(super) fn operand(&self, o: &Operand) -> R<(String, bool)> {
        match o {
            Operand::View(v) => {
                let text = self.view(v)?;
                let writable = self
                    .lookup(&self.built_field(v).0)
                    .map(|v| v.writable)
                    .unwrap_or(false);
                Ok((text, writable))
            }
            Operand::Const(e) => Ok((format!("({})", self.expr(e)?), false)),
        }
    }
}
