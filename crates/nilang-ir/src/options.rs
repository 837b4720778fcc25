//! The options of the `#[i(...)]` attribute.

use proc_macro2::TokenStream;
use syn::spanned::Spanned;
use syn::Ident;

/// Options of the `#[i(...)]` attribute.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// `#[i(nocheck)]`: no runtime reversibility checks, in any build.
    pub nocheck: bool,
    /// `#[i(check)]`: the runtime reversibility checks in every build, release included.
    /// Without `check` or `nocheck` the checks follow `debug_assertions`, as Rust's overflow
    /// checks do: on in debug builds and tests, off in release builds.
    pub check: bool,
    /// `#[i(inverse = name)]`: the inverse function's name.
    pub inverse: Option<Ident>,
    /// `#[i(expand)]`: expand nested right-hand sides into ancillas.
    pub expand: bool,
    /// `#[i(nograd)]`: do not generate the `_grad`, `_jacobian` and `_hessian` functions.
    pub nograd: bool,
    /// `#[i(unchecked = name)]`: also generate `name` (and `name_inv`, gradients), the same
    /// program with the runtime reversibility checks off.
    pub unchecked: Option<Ident>,
    /// `#[i(cuda)]`: also emit `pub const NAME_CUDA: &str` (and `name::CUDA`), the C++/CUDA
    /// source of the forward, inverse and adjoint programs (`nilang-cgen`); every callee must
    /// have one (a compile error at the call otherwise).
    pub cuda: bool,
    /// `#[i(grad = name)]`: the name of the gradient function (default `f_grad`).
    pub grad: Option<Ident>,
    /// `#[i(vjp = name)]`: the name of the vector–Jacobian product (default `f_vjp`).
    pub vjp: Option<Ident>,
    /// `#[i(jacobian = name)]`: the name of the Jacobian (default `f_jacobian`); the
    /// Jacobian of chosen rows is then `name_of`.
    pub jacobian: Option<Ident>,
    /// `#[i(hessian = name)]`: the name of the Hessian (default `f_hessian`).
    pub hessian: Option<Ident>,
}

impl Options {
    /// Parses the tokens of the attribute (`nocheck, inverse = name, expand`).
    pub fn parse(attr: TokenStream) -> syn::Result<Options> {
        let mut options = Options::default();
        let parser = syn::meta::parser(|meta| {
            if meta.path.is_ident("nocheck") {
                options.nocheck = true;
                Ok(())
            } else if meta.path.is_ident("check") {
                options.check = true;
                Ok(())
            } else if meta.path.is_ident("unchecked") {
                options.unchecked = Some(meta.value()?.parse()?);
                Ok(())
            } else if meta.path.is_ident("nograd") {
                options.nograd = true;
                Ok(())
            } else if meta.path.is_ident("cuda") {
                options.cuda = true;
                Ok(())
            } else if meta.path.is_ident("expand") {
                options.expand = true;
                Ok(())
            } else if meta.path.is_ident("inverse") {
                options.inverse = Some(meta.value()?.parse()?);
                Ok(())
            } else if meta.path.is_ident("grad") {
                options.grad = Some(meta.value()?.parse()?);
                Ok(())
            } else if meta.path.is_ident("vjp") {
                options.vjp = Some(meta.value()?.parse()?);
                Ok(())
            } else if meta.path.is_ident("jacobian") {
                options.jacobian = Some(meta.value()?.parse()?);
                Ok(())
            } else if meta.path.is_ident("hessian") {
                options.hessian = Some(meta.value()?.parse()?);
                Ok(())
            } else {
                Err(meta.error(
                    "unknown option of #[i]: the options are `check`, `nocheck`, `expand`, `nograd`, `cuda`, `inverse = name`, `unchecked = name`, `grad = name`, `vjp = name`, `jacobian = name` and `hessian = name`",
                ))
            }
        });
        let span = attr.span();
        syn::parse::Parser::parse2(parser, attr)?;
        if options.check && options.nocheck {
            return Err(syn::Error::new(
                span,
                "`check` and `nocheck` contradict each other: `check` keeps the runtime \
                 reversibility checks in every build, `nocheck` removes them from every build, \
                 and without either they follow `debug_assertions` (on in debug builds and \
                 tests, off in release builds); keep one or neither",
            ));
        }
        Ok(options)
    }
}
