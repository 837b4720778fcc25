//! The front of every view: a function parsed into the IR ([`crate::parse`]) and checked
//! ([`crate::check`], the naming rules of [`crate::names`]), its errors from both stages
//! reported together, and analysed once ([`Analyzed`]). The generators consume what this
//! returns.

use crate::analyzed::Analyzed;
use crate::options::Options;
use crate::parse::{parse_function, parse_method, ParsedFunction};

/// A function carrying the `#[i]` attribute (already removed), parsed, checked and analysed:
/// the IR and the facts every view consumes, or every error of both stages.
pub fn lower(options: &Options, item: syn::ItemFn) -> syn::Result<Analyzed> {
    checked(parse_function(options, item))
}

/// A method of an `impl` block, parsed, checked and analysed ([`lower`]).
pub fn lower_method(options: &Options, item: syn::ImplItemFn) -> syn::Result<Analyzed> {
    checked(parse_method(options, item))
}

/// `parsed` with the checker's errors added to the parser's; analysed when there are none.
fn checked(parsed: ParsedFunction) -> syn::Result<Analyzed> {
    let ParsedFunction {
        function,
        mut errors,
    } = parsed;
    crate::names::gradient_name_collisions(&function, &mut errors);
    let (check_errors, planned) = crate::check::run_checks(&function);
    if let Err(e) = check_errors.finish(()) {
        errors.add(e);
    }
    errors.finish(())?;
    Ok(Analyzed::new(function, planned))
}
