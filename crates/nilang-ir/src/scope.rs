//! The names in scope at a point of a body and what each may do ([`VarKind`]): what the
//! static checks, the parallel-loop analysis, bounds hoisting and the adjoint program ask
//! of a name.

use crate::ast::*;
use proc_macro2::Span;
use syn::Ident;

/// How a name may be used at a point of the body.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VarKind {
    /// A `&mut` parameter: writable, reached through a reference.
    MutRef,
    /// A `&` parameter: read-only, reached through a reference.
    SharedRef,
    /// A by-value parameter: read-only.
    Value,
    /// A `for` loop variable: read-only.
    LoopVar,
    /// A live ancilla: writable.
    Ancilla,
}

impl VarKind {
    /// Whether instructions may change a dataview rooted at this variable.
    pub fn writable(self) -> bool {
        matches!(self, VarKind::MutRef | VarKind::Ancilla)
    }

    /// Whether the name is bound to a reference (and must be dereferenced as a place).
    pub fn is_reference(self) -> bool {
        matches!(self, VarKind::MutRef | VarKind::SharedRef)
    }
}

/// Names in scope, innermost block last.
#[derive(Clone, Debug, Default)]
pub struct Scope {
    frames: Vec<Vec<(String, VarKind, Span)>>,
}

impl Scope {
    /// The scope at the start of a function body.
    pub fn for_function(f: &Function) -> Scope {
        let params = f
            .params
            .iter()
            .map(|p| {
                let kind = match p.kind {
                    ParamKind::MutRef => VarKind::MutRef,
                    ParamKind::SharedRef => VarKind::SharedRef,
                    ParamKind::Value => VarKind::Value,
                };
                (p.name.to_string(), kind, p.name.span())
            })
            .collect();
        Scope {
            frames: vec![params],
        }
    }

    /// Opens a block.
    pub fn push(&mut self) {
        self.frames.push(Vec::new());
    }

    /// Closes a block, returning the names it still holds.
    pub fn pop(&mut self) -> Vec<(String, VarKind, Span)> {
        self.frames.pop().unwrap_or_default()
    }

    /// Declares a name in the innermost block.
    pub fn declare(&mut self, name: &Ident, kind: VarKind) {
        self.frames
            .last_mut()
            .expect("a frame")
            .push((name.to_string(), kind, name.span()));
    }

    /// Removes an ancilla from the innermost block; false when it is not there.
    pub fn remove_ancilla(&mut self, name: &Ident) -> bool {
        let frame = self.frames.last_mut().expect("a frame");
        let key = name.to_string();
        match frame
            .iter()
            .rposition(|(n, k, _)| *n == key && *k == VarKind::Ancilla)
        {
            Some(i) => {
                frame.remove(i);
                true
            }
            None => false,
        }
    }

    /// Applies a constructor or destructor: its consumed ancillas leave the innermost block,
    /// the ancillas it creates enter it. Returns the consumed names that were not live
    /// ancillas of that block.
    pub fn move_fields<'f>(&mut self, f: &'f Fields) -> Vec<&'f Ident> {
        let missing = f
            .consumed()
            .into_iter()
            .filter(|n| !self.remove_ancilla(n))
            .collect();
        for n in f.created() {
            self.declare(n, VarKind::Ancilla);
        }
        missing
    }

    /// What a name is, innermost binding first; `None` for names from outside the function
    /// (constants, statics).
    pub fn lookup(&self, name: &Ident) -> Option<VarKind> {
        let key = name.to_string();
        self.frames
            .iter()
            .rev()
            .flat_map(|f| f.iter().rev())
            .find(|(n, _, _)| *n == key)
            .map(|(_, k, _)| *k)
    }
}
