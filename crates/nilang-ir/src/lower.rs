//! The front of every view: a function parsed into the IR ([`crate::parse`]) and checked
//! ([`crate::check`], the naming rules of [`crate::names`]), its errors from both stages
//! reported together. The generators consume what this returns.

use crate::ast::Function;
use crate::options::Options;
use crate::parse::{parse_function, parse_method, ParsedFunction};

/// A function carrying the `#[i]` attribute (already removed), parsed and checked: the IR
/// every view consumes, or every error of both stages.
pub fn lower(options: &Options, item: syn::ItemFn) -> syn::Result<Function> {
    checked(parse_function(options, item))
}

/// A method of an `impl` block, parsed and checked ([`lower`]).
pub fn lower_method(options: &Options, item: syn::ImplItemFn) -> syn::Result<Function> {
    checked(parse_method(options, item))
}

/// `parsed` with the checker's errors added to the parser's.
fn checked(parsed: ParsedFunction) -> syn::Result<Function> {
    let ParsedFunction {
        function,
        mut errors,
    } = parsed;
    crate::names::gradient_name_collisions(&function, &mut errors);
    if let Err(e) = crate::check::check_function(&function) {
        errors.add(e);
    }
    errors.finish(function)
}
