//! The C++ view of a reversible function's signature.

use crate::CgenError;
use nilang_ir::ast::Function;
use quote::ToTokens;

/// How a parameter is passed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// `x: &mut X` or `x: &X`: one element, by reference.
    Scalar,
    /// `x: &mut [X]` or `x: &[X]`: a pointer and a length (`x_len`).
    Slice,
    /// `x: X`: by value (read-only).
    Value,
}

/// The element type of a parameter.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Elem {
    /// The function's scalar type parameter (`T`): `double` in value kernels, `gvar` in
    /// gradient kernels.
    Real,
    /// `f64`: `double` in every kernel (a constant of the gradient program).
    F64,
    /// An integer type, with its C++ spelling.
    Int(&'static str),
    /// `bool`.
    Bool,
}

/// One parameter of a reversible function, as the generated C++ sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParamInfo {
    /// The parameter's name.
    pub name: String,
    /// How it is passed.
    pub shape: Shape,
    /// Its element type.
    pub elem: Elem,
    /// Whether the body may change it (`&mut`).
    pub mutable: bool,
}

/// A function's signature in C++ terms.
#[derive(Clone, Debug)]
pub struct Signature {
    /// The forward function's name.
    pub name: String,
    /// The inverse function's name.
    pub inverse: String,
    /// The scalar type parameter (`T`), if the function is generic.
    pub scalar: Option<String>,
    /// The parameters in order.
    pub params: Vec<ParamInfo>,
}

impl ParamInfo {
    /// The C++ type of one element, with `scalar` for [`Elem::Real`].
    pub fn elem_type<'s>(&'s self, scalar: &'s str) -> &'s str {
        match &self.elem {
            Elem::Real => scalar,
            Elem::F64 => "double",
            Elem::Int(c) => c,
            Elem::Bool => "bool",
        }
    }

    /// The parameter's C++ declaration (`T& y`, `const T* x, long long x_len`, `long long n`).
    pub fn declaration(&self, scalar: &str) -> String {
        let ty = self.elem_type(scalar);
        let c = if self.mutable { "" } else { "const " };
        let n = &self.name;
        match self.shape {
            Shape::Scalar => format!("{c}{ty}& {n}"),
            Shape::Slice => format!("{c}{ty}* {n}, long long {n}_len"),
            Shape::Value => format!("{ty} {n}"),
        }
    }
}

/// The C++ spelling of a Rust scalar type (`T` for the scalar parameter).
pub(crate) fn scalar_type(ty: &syn::Type, scalar: Option<&str>) -> Option<Elem> {
    let syn::Type::Path(p) = ty else { return None };
    if p.qself.is_some() || p.path.segments.len() != 1 {
        return None;
    }
    let id = p.path.segments[0].ident.to_string();
    if Some(id.as_str()) == scalar {
        return Some(Elem::Real);
    }
    Some(match id.as_str() {
        "f64" => Elem::F64,
        "i64" | "isize" => Elem::Int("long long"),
        "i32" => Elem::Int("int"),
        "u64" | "usize" => Elem::Int("unsigned long long"),
        "u32" => Elem::Int("unsigned int"),
        "bool" => Elem::Bool,
        _ => return None,
    })
}

/// The C++ signature of a reversible function, or why it has none.
pub fn signature(f: &Function) -> Result<Signature, CgenError> {
    let name = f.sig.ident.to_string();
    let err = |tokens: &dyn ToTokens, msg: String| {
        let text = nilang_ir::text::tokens_text(&tokens.to_token_stream())
            .replace(" < ", "<")
            .replace(" <", "<")
            .replace(" >", ">");
        CgenError::new(
            &name,
            &text,
            tokens
                .to_token_stream()
                .into_iter()
                .next()
                .map(|t| t.span()),
            msg,
        )
    };
    let mut scalar = None;
    for g in &f.sig.generics.params {
        match g {
            syn::GenericParam::Type(t) if scalar.is_none() => scalar = Some(t.ident.to_string()),
            syn::GenericParam::Lifetime(_) => {}
            other => {
                return Err(err(
                    other,
                    "C++ generation supports one scalar type parameter (`T: Real`) and lifetimes"
                        .into(),
                ))
            }
        }
    }
    let mut params = Vec::new();
    for input in &f.sig.inputs {
        let syn::FnArg::Typed(pt) = input else {
            return Err(err(
                input,
                "methods (`self`) have no C++ translation; write a free function".into(),
            ));
        };
        let syn::Pat::Ident(pi) = &*pt.pat else {
            return Err(err(&pt.pat, "parameters must be plain names".into()));
        };
        let unsupported = || {
            err(
                &pt.ty,
                "unsupported parameter type for C++ generation: use `&mut T`, `&T`, `&mut [T]`, `&[T]` \
                 (T the scalar parameter, f64, i64, i32, usize, u64, u32 or bool) or a by-value scalar"
                    .into(),
            )
        };
        let (shape, elem, mutable) = match &*pt.ty {
            syn::Type::Reference(r) => {
                let mutable = r.mutability.is_some();
                match &*r.elem {
                    syn::Type::Slice(s) => (
                        Shape::Slice,
                        scalar_type(&s.elem, scalar.as_deref()).ok_or_else(unsupported)?,
                        mutable,
                    ),
                    other => (
                        Shape::Scalar,
                        scalar_type(other, scalar.as_deref()).ok_or_else(unsupported)?,
                        mutable,
                    ),
                }
            }
            other => (
                Shape::Value,
                scalar_type(other, scalar.as_deref()).ok_or_else(unsupported)?,
                false,
            ),
        };
        params.push(ParamInfo {
            name: pi.ident.to_string(),
            shape,
            elem,
            mutable,
        });
    }
    Ok(Signature {
        name,
        inverse: f.inverse_name.to_string(),
        scalar,
        params,
    })
}
