//! The statements: each run with the checks the generated code makes, its decisions recorded.

use super::*;

impl<T: Float> Machine<'_, T> {
    pub(super) fn block(&mut self, frame: &mut Frame, stmts: &[Stmt]) -> Result<(), Failed> {
        stmts.iter().try_for_each(|s| self.stmt(frame, s))
    }

    pub(super) fn stmt(&mut self, frame: &mut Frame, s: &Stmt) -> Result<(), Failed> {
        let fail = |what: &str| Err(Failed::check(format!("{what} at `{}`", s.source)));
        match &s.kind {
            StmtKind::Instr(i) => self.checked_instr(frame, s, i),
            StmtKind::Builtin { op, args, operand } => {
                self.builtin(frame, *op, args, operand.as_ref())
            }
            StmtKind::Alloc(bs) => {
                for b in bs {
                    let v = match self.eval(frame, &b.value) {
                        E::F(f) => Val::F(G::new(T::from_f64(f))),
                        E::I(i) => Val::I(i),
                        E::B(b) => Val::B(b),
                    };
                    self.slots.push(v);
                    let slot = self.slots.len() - 1;
                    frame.insert(b.name.clone(), Loc { slot, index: None });
                }
                Ok(())
            }
            StmtKind::Dealloc(bs) => self.dealloc(frame, s, bs),
            StmtKind::If {
                pre,
                post,
                then,
                els,
                ..
            } => {
                let c = self.cond(frame, pre);
                let at = self.reserve();
                self.block(frame, if c { then } else { els })?;
                self.decided(at, c as i64);
                if self.cond(frame, post) != c {
                    return fail("if postcondition");
                }
                Ok(())
            }
            StmtKind::While { pre, post, body } => self.while_loop(frame, s, pre, post, body),
            StmtKind::For { var, range, body } => self.for_loop(frame, s, var, range, body),
            StmtKind::Call { call, uncall } => {
                let nilang_ir::ast::Callee::Path(p) = &call.callee else {
                    panic!("method call")
                };
                let program: &Program = self.program;
                let f = program.function(&p.path.segments.last().unwrap().ident);
                let mut inner = Frame::new();
                for (param, arg) in f.params.iter().zip(&call.args) {
                    let CallArg::View(v) = arg else {
                        panic!("argument")
                    };
                    inner.insert(param.clone(), self.place(frame, v));
                }
                self.block(&mut inner, if *uncall { &f.inverse } else { &f.forward })
            }
            StmtKind::Stack {
                stack, value, push, ..
            } => self.stack(frame, s, stack, value, *push),
            StmtKind::Routine { .. } => panic!("routines are expanded by `Program::new`"),
            StmtKind::NoCheck(b) => self.block(frame, b),
            StmtKind::Fields(fields) => {
                self.fields(frame, fields);
                Ok(())
            }
            StmtKind::XorExpr { .. } | StmtKind::Safe(_) => panic!("not generated"),
        }
    }

    /// An instruction; from moderate values, a NaN or an infinity after it is a singular point.
    pub(super) fn checked_instr(
        &mut self,
        frame: &mut Frame,
        s: &Stmt,
        i: &Instr,
    ) -> Result<(), Failed> {
        // from moderate values, a NaN or an infinity is a singular point; past them
        // (products in loops reach 1e300), an overflow of an ill-conditioned run
        let moderate = self
            .floats(frame, i)
            .all(|v| v.x.to_f64().abs() <= 1e3 && v.g.to_f64().is_finite());
        self.instr(frame, i)?;
        if moderate
            && !self
                .floats(frame, i)
                .all(|v| v.x.to_f64().is_finite() && v.g.to_f64().is_finite())
        {
            return Err(Failed {
                singular: true,
                ..Failed::check(format!("a NaN or an infinity at `{}`", s.source))
            });
        }
        Ok(())
    }

    /// A builtin on its places (rotations and `hadamard` rounded as the runtime rounds them).
    pub(super) fn builtin(
        &mut self,
        frame: &mut Frame,
        op: BuiltinOp,
        args: &[Dataview],
        operand: Option<&Operand>,
    ) -> Result<(), Failed> {
        let locs: Vec<Loc> = args.iter().map(|v| self.place(frame, v)).collect();
        match op {
            BuiltinOp::Swap => {
                let (a, b) = (self.get_f(locs[0]), self.get_f(locs[1]));
                self.set_f(locs[0], b);
                self.set_f(locs[1], a);
            }
            BuiltinOp::Neg => {
                let mut a = self.get_f(locs[0]);
                a.negate();
                self.set_f(locs[0], a);
            }
            BuiltinOp::Inc | BuiltinOp::Dec => {
                let v = self.get_i(locs[0]).unwrap();
                let step = if op == BuiltinOp::Inc { 1 } else { -1 };
                self.set_i(locs[0], v.wrapping_add(step));
            }
            BuiltinOp::Rot | BuiltinOp::IRot => {
                let Some(Operand::View(t)) = operand else {
                    panic!("angle")
                };
                let lt = self.place(frame, t);
                let (mut a, mut b, mut th) =
                    (self.get_f(locs[0]), self.get_f(locs[1]), self.get_f(lt));
                if op == BuiltinOp::Rot {
                    G::<T>::rot(&mut a, &mut b, &mut th);
                } else {
                    G::<T>::irot(&mut a, &mut b, &mut th);
                }
                let norm = a.x.to_f64().hypot(b.x.to_f64());
                let (a, b) = (self.rounded(a, norm), self.rounded(b, norm));
                self.set_f(locs[0], a);
                self.set_f(locs[1], b);
                self.set_f(lt, th);
            }
            BuiltinOp::Inv => {
                let mut a = self.get_f(locs[0]);
                a.invert();
                let a = self.rounded(a, a.x.to_f64().abs());
                self.set_f(locs[0], a);
            }
            BuiltinOp::Hadamard => {
                let (mut a, mut b) = (self.get_f(locs[0]), self.get_f(locs[1]));
                G::<T>::hadamard(&mut a, &mut b);
                let norm = a.x.to_f64().hypot(b.x.to_f64());
                let (a, b) = (self.rounded(a, norm), self.rounded(b, norm));
                self.set_f(locs[0], a);
                self.set_f(locs[1], b);
            }
            BuiltinOp::Flip => match &mut self.slots[locs[0].slot] {
                Val::B(b) => *b = !*b,
                other => panic!("flip of {other:?}"),
            },
            BuiltinOp::Conj => {}
        }
        Ok(())
    }

    /// Ancillas deallocated: each must hold its declared value.
    pub(super) fn dealloc(
        &mut self,
        frame: &mut Frame,
        s: &Stmt,
        bs: &[Binding],
    ) -> Result<(), Failed> {
        let fail = |what: &str| Err(Failed::check(format!("{what} at `{}`", s.source)));
        for b in bs {
            let l = frame[&b.name];
            let ok = match (self.eval(frame, &b.value), &self.slots[l.slot]) {
                // past moderate values, an ancilla that overflowed to NaN (`a·b − a·b`
                // with `a·b` infinite) is an ill-conditioned run, not a wrong inverse:
                // the run is not compared (its floats are not finite at the end)
                (E::F(_), Val::F(g)) if !g.x.to_f64().is_finite() && self.peak > 1e3 => true,
                (E::F(f), Val::F(g)) => {
                    let v = g.x.to_f64();
                    (v - f).abs() <= 1e-9 * v.abs().max(1.0)
                }
                (E::I(i), Val::I(v)) => i == *v,
                (E::B(b), Val::B(v)) => b == *v,
                other => panic!("dealloc {other:?}"),
            };
            if !ok {
                return fail("ancilla not at its declared value");
            }
            frame.remove(&b.name);
        }
        Ok(())
    }

    /// `while (pre, post)`, its postcondition checked on entry and after every iteration.
    pub(super) fn while_loop(
        &mut self,
        frame: &mut Frame,
        s: &Stmt,
        pre: &syn::Expr,
        post: &syn::Expr,
        body: &[Stmt],
    ) -> Result<(), Failed> {
        let fail = |what: &str| Err(Failed::check(format!("{what} at `{}`", s.source)));
        if self.cond(frame, post) {
            return fail("while postcondition true on entry");
        }
        let (mut count, at) = (0, self.reserve());
        while self.cond(frame, pre) {
            self.block(frame, body)?;
            count += 1;
            if !self.cond(frame, post) {
                return fail("while postcondition false after an iteration");
            }
        }
        self.decided(at, count);
        Ok(())
    }

    /// A `for` loop (a broadcast's over slices of one length).
    pub(super) fn for_loop(
        &mut self,
        frame: &mut Frame,
        s: &Stmt,
        var: &syn::Ident,
        range: &RangeSpec,
        body: &[Stmt],
    ) -> Result<(), Failed> {
        let fail = |what: &str| Err(Failed::check(format!("{what} at `{}`", s.source)));
        let (E::I(a), E::I(b)) = (self.eval(frame, &range.start), self.eval(frame, &range.end))
        else {
            panic!("range")
        };
        let end = if range.inclusive { b + 1 } else { b };
        // a broadcast's loop runs over slices of one length (checked before it)
        if let Some(broadcast) = &range.broadcast {
            if broadcast.slices.iter().any(|e| self.len(frame, e) != end) {
                return fail("broadcast over slices of different lengths");
            }
        }
        // one slot for the variable, which each iteration sets
        let slot = self.slots.len();
        self.slots.push(Val::I(a));
        frame.insert(var.clone(), Loc { slot, index: None });
        for j in 0..(end - a).max(0) {
            let k = if range.rev { end - 1 - j } else { a + j };
            self.slots[slot] = Val::I(k);
            self.block(frame, body)?;
        }
        Ok(())
    }

    /// `push!` and `pop!` (pop only into a zero).
    pub(super) fn stack(
        &mut self,
        frame: &mut Frame,
        s: &Stmt,
        stack: &Dataview,
        value: &Dataview,
        push: bool,
    ) -> Result<(), Failed> {
        let fail = |what: &str| Err(Failed::check(format!("{what} at `{}`", s.source)));
        let (ls, lv) = (self.place(frame, stack), self.place(frame, value));
        if push {
            let v = self.get_f(lv);
            let Val::Stack(st) = &mut self.slots[ls.slot] else {
                panic!("stack")
            };
            st.push(v);
            self.set_f(lv, G::new(T::f_zero()));
        } else {
            if self.get_f(lv).x.to_f64() != 0.0 {
                return fail("pop into a nonzero variable");
            }
            let Val::Stack(st) = &mut self.slots[ls.slot] else {
                panic!("stack")
            };
            let Some(v) = st.pop() else {
                return fail("pop from an empty stack");
            };
            self.set_f(lv, v);
        }
        Ok(())
    }

    /// A reversible constructor (`let p = new!((a, b));`: the ancillas' values move into a
    /// tuple, and their names are gone) or destructor (`let (a, b) = fields!(p);`).
    pub(super) fn fields(&mut self, frame: &mut Frame, fields: &Fields) {
        let slot_of =
            |frame: &mut Frame, name: &syn::Ident| frame.remove(name).expect("a live ancilla").slot;
        let index = |member: &syn::Member| match member {
            syn::Member::Unnamed(i) => i.index as usize,
            syn::Member::Named(n) => panic!("struct field {n}"),
        };
        if fields.construct {
            let mut parts = vec![None; fields.parts.len()];
            for p in &fields.parts {
                let slot = slot_of(frame, &p.var);
                parts[index(&p.member)] = Some(self.take(slot));
            }
            let whole = Val::Tuple(parts.into_iter().map(|p| p.expect("every field")).collect());
            self.bind(frame, &fields.whole, whole);
        } else {
            let slot = slot_of(frame, &fields.whole);
            let Val::Tuple(mut parts) = self.take(slot) else {
                panic!("fields! of a value that is not a tuple")
            };
            for p in &fields.parts {
                let v = std::mem::replace(&mut parts[index(&p.member)], Val::B(false));
                self.bind(frame, &p.var, v);
            }
        }
    }

    /// The value of a slot whose name is gone (a moved ancilla's slot holds nothing after).
    pub(super) fn take(&mut self, slot: usize) -> Val<T> {
        std::mem::replace(&mut self.slots[slot], Val::B(false))
    }

    /// A new slot holding `v`, named `name`.
    pub(super) fn bind(&mut self, frame: &mut Frame, name: &syn::Ident, v: Val<T>) {
        self.slots.push(v);
        let slot = self.slots.len() - 1;
        frame.insert(name.clone(), Loc { slot, index: None });
    }
}
