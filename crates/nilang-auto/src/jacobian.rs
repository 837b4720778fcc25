//! `f_jacobian`: the Jacobian of a function that writes outputs (`&mut [f64]`), into the
//! caller's row-major buffer, in whichever mode takes fewer sweeps: reverse, the taped
//! program's vector–Jacobian product on up to four rows at once (gradients in `Lanes`), or
//! forward, the taped program on dual numbers with four tangents (`DualN<f64, 4>`). Also the
//! taped program's vjp in two halves, and the tapes on the entry point's own buffer, that
//! `f_gradient` shares.

use crate::signature::{Param, Shape, Signature};
use crate::Names;
use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::Ident;

/// The tokens of one parameter in the generated sweeps.
struct Sweep {
    /// Before the sweeps: the working copy of an input, the row offset of an output.
    setup: TokenStream,
    /// In a sweep: the zeroed buffers, an output's seeds.
    buffers: TokenStream,
    /// Its arguments to the taped program's adjoint or vjp (values and gradients), and in
    /// a reverse sweep to the taped program itself (values).
    args: TokenStream,
    values: TokenStream,
    /// After a reverse sweep's forward run: an output's values copied to it (first sweep).
    outputs: TokenStream,
    /// After a sweep: its gradients read into the Jacobian's columns.
    read: TokenStream,
}

/// The locals the sweeps share (fresh names).
struct Locals {
    jac: Ident,
    /// The rows and the columns counted so far, in the setup.
    rows: Ident,
    cols: Ident,
    /// The sweep's first row (column, in forward mode) and its number of rows (columns).
    first: Ident,
    lanes: Ident,
    /// The tapes of the taped program (`f_rev_taped`), and their gradients in a reverse
    /// sweep.
    tape: Ident,
    decisions: Ident,
    tape_grad: Ident,
    decisions_grad: Ident,
    /// The `thread_local!` that keeps the tape's buffer between calls.
    home: Ident,
    /// Whether the Jacobian is computed in forward mode (decided from the lengths).
    forward: Ident,
}

/// The locals of one parameter (fresh names): its gradient buffer (its dual numbers, in
/// forward mode), the values an output held on entry, its offset (an output's first row, an
/// input's first column).
struct ParamLocals {
    grad: Ident,
    work: Ident,
    offset: Ident,
}

impl Signature {
    /// `f_jacobian(inputs…, outputs…, jacobian: &mut [f64])` for a function that writes
    /// outputs and has a differentiable input: runs `f` (the outputs hold what `f` writes)
    /// and writes `∂output_i/∂input_j` at `jacobian[i * cols + j]`, the rows being the
    /// outputs' entries and the columns the differentiable inputs' scalars, each in parameter
    /// order. `None` for a function that returns its value (its gradient is the Jacobian).
    pub fn jacobian(
        &self,
        vis: &syn::Visibility,
        rev: &Ident,
        names: &mut Names,
    ) -> Option<TokenStream> {
        let differentiable = self
            .params
            .iter()
            .any(|p| matches!(p.shape, Shape::Value | Shape::Ref | Shape::Slice));
        if !self.has_outputs() || !differentiable {
            return None;
        }
        let span = self.user.ident.span();
        let locals = Locals {
            jac: names.readable("jacobian", span),
            rows: names.fresh("rows", span),
            cols: names.fresh("cols", span),
            first: names.fresh("first", span),
            lanes: names.fresh("lanes", span),
            tape: names.fresh("tape", span),
            decisions: names.fresh("decisions", span),
            tape_grad: names.fresh("tape_grad", span),
            decisions_grad: names.fresh("decisions_grad", span),
            home: names.fresh("tape_home", span),
            forward: names.fresh("forward", span),
        };
        let per_param: Vec<ParamLocals> = self
            .params
            .iter()
            .map(|p| ParamLocals {
                grad: names.fresh(&format!("{}_grad", p.ident), span),
                work: names.fresh(&format!("{}_work", p.ident), span),
                offset: names.fresh(&format!("{}_offset", p.ident), span),
            })
            .collect();
        let lanes = [
            quote!(f64),
            quote!(::nilang::Lanes<f64, 2>),
            quote!(::nilang::Lanes<f64, 4>),
        ];
        let sweeps: Vec<TokenStream> = lanes
            .iter()
            .map(|lane| self.sweep(lane, rev, &locals, &per_param))
            .collect();
        let [one, two, four] = [&sweeps[0], &sweeps[1], &sweeps[2]];
        let forward = self.forward_sweep(rev, &locals, &per_param);
        let setup: Vec<TokenStream> = self
            .params
            .iter()
            .zip(&per_param)
            .map(|(p, l)| param_sweep(p, &quote!(f64), &locals, l).setup)
            .collect();
        let f = &self.user.ident;
        let name = format_ident!("{}_jacobian", f);
        let params = self.params.iter().map(|p| self.entry_param(p));
        let Locals {
            jac,
            rows,
            cols,
            first,
            lanes,
            tape,
            decisions,
            forward: forward_mode,
            ..
        } = &locals;
        let count = |output: bool| {
            let terms = self.params.iter().filter_map(|p| {
                let ident = &p.ident;
                match p.shape {
                    Shape::Output if output => Some(quote!(#ident.len())),
                    Shape::Slice if !output => Some(quote!(#ident.len())),
                    Shape::Value | Shape::Ref if !output => Some(quote!(1usize)),
                    _ => None,
                }
            });
            quote!(0usize #(+ #terms)*)
        };
        let (row_count, col_count) = (count(true), count(false));
        let capture = self.params.iter().zip(&per_param).filter_map(|(p, l)| {
            let (ident, copy) = (&p.ident, &l.work);
            (p.shape == Shape::Output).then(
                || quote!(let mut #copy = ::nilang::__private::work::Work::<f64>::copied(#ident);),
            )
        });
        let new_tapes = new_tapes([tape, decisions, &locals.home], &quote!(f64));
        let message = format!(
            "`{name}`: the Jacobian `{jac}` has {{}} entries, but {{}} rows (the outputs' \
             entries) × {{}} columns (the differentiable inputs' scalars) need {{}}"
        );
        let doc = format!(
            "Runs [`{f}`], which writes its outputs, and writes the Jacobian of the outputs \
             with respect to the differentiable inputs into `{jac}`, row-major: \
             `{jac}[i * cols + j]` is `∂output_i/∂input_j`, the rows being the outputs' \
             entries and the columns the differentiable inputs' scalars, each in parameter \
             order. By whichever mode takes fewer sweeps: reverse, one run of the taped \
             program (`{rev}_taped`, the reversible program [`{rev}`] without its wrapper) \
             and its adjoint per four rows, their gradients in `nilang::Lanes`; or forward, \
             one run of `{rev}_taped` on `nilang::DualN<f64, 4>` per four columns (a tall \
             Jacobian: many residuals of few unknowns). The first sweep's run also gives the \
             outputs' values (the taped program computes as `{f}` does). \
             Short buffers live on the stack. The outputs are differentiated from the values \
             they hold on entry, as `{f}` writes them (accumulates into them, reads them). \
             Panics when `{jac}` has another length than rows × columns."
        );
        Some(quote! {
            #[doc = #doc]
            #[allow(clippy::too_many_arguments, unused_mut)]
            #vis fn #name(#(#params,)* #jac: &mut [f64]) {
                let #forward_mode = {
                    let (#rows, #cols) = (#row_count, #col_count);
                    #cols > 0 && #cols.div_ceil(4) <= #rows.div_ceil(4)
                };
                // what the outputs hold on entry, where the sweeps start from; the first
                // sweep computes their values (beside the tangents in forward mode; by the
                // taped program's forward run before its adjoint in reverse mode)
                #(#capture)*
                let mut #rows = 0usize;
                let mut #cols = 0usize;
                #(#setup)*
                let (#rows, #cols) = (#rows, #cols);
                assert_eq!(#jac.len(), #rows * #cols, #message, #jac.len(), #rows, #cols, #rows * #cols);
                let mut #first = 0usize;
                if #forward_mode {
                    while #first < #cols {
                        let #lanes = (#cols - #first).min(4);
                        #forward
                        #first += #lanes;
                    }
                } else {
                    // emptied again by every sweep: its buffer serves them all
                    #new_tapes
                    while #first < #rows {
                        let #lanes = (#rows - #first).min(4);
                        match #lanes {
                            1 => #one,
                            2 => #two,
                            _ => #four,
                        }
                        #first += #lanes;
                    }
                }
            }
        })
    }

    /// One forward sweep: the inputs as `DualN<f64, 4>` with the sweep's columns seeded,
    /// `f_rev_taped` on them, each output's tangents read into the columns.
    fn forward_sweep(
        &self,
        rev: &Ident,
        locals: &Locals,
        per_param: &[ParamLocals],
    ) -> TokenStream {
        let taped = format_ident!("{}_taped", rev);
        let dual = quote!(::nilang::DualN<f64, 4>);
        let (tape, decisions) = (&locals.tape, &locals.decisions);
        let parts: Vec<Sweep> = self
            .params
            .iter()
            .zip(per_param)
            .map(|(p, l)| param_forward(p, &dual, locals, l))
            .collect();
        let buffers = parts.iter().map(|s| &s.buffers);
        let args = parts.iter().map(|s| &s.args);
        let read = parts.iter().map(|s| &s.read);
        let new_tapes = new_tapes([tape, decisions, &locals.home], &dual);
        quote!({
            #new_tapes
            #(#buffers)*
            #taped(&mut #tape, &mut #decisions, #(#args),*);
            #(#read)*
        })
    }

    /// One reverse sweep on gradients of type `lane`: the buffers, the vector–Jacobian
    /// product of the taped program ([`taped_vjp_reading`]: it writes the outputs in place,
    /// so no buffer of its own is added to them as in `f_rev`; the first sweep copies their
    /// values out between its halves), the rows read.
    fn sweep(
        &self,
        lane: &TokenStream,
        rev: &Ident,
        locals: &Locals,
        per_param: &[ParamLocals],
    ) -> TokenStream {
        let parts: Vec<Sweep> = self
            .params
            .iter()
            .zip(per_param)
            .map(|(p, l)| param_sweep(p, lane, locals, l))
            .collect();
        let buffers = parts.iter().map(|s| &s.buffers);
        let args: Vec<TokenStream> = parts.iter().map(|s| s.args.clone()).collect();
        let values: Vec<TokenStream> = parts.iter().map(|s| s.values.clone()).collect();
        let outputs = parts.iter().map(|s| &s.outputs);
        let read = parts.iter().map(|s| &s.read);
        let Locals {
            tape,
            tape_grad,
            decisions,
            decisions_grad,
            first,
            ..
        } = locals;
        let outputs = quote!(if #first == 0 { #(#outputs)* });
        let call = taped_vjp_reading(
            rev,
            [tape, tape_grad, decisions, decisions_grad],
            lane,
            None,
            [&values, &[outputs], &args],
        );
        quote!({
            #(#buffers)*
            #call
            #(#read)*
        })
    }
}

/// The tokens of parameter `p` (its locals `own`) in a sweep on gradients of type `lane`.
fn param_sweep(p: &Param, lane: &TokenStream, locals: &Locals, own: &ParamLocals) -> Sweep {
    let ident = &p.ident;
    let entry = quote!(::nilang::__private::entry);
    let work = quote!(::nilang::__private::work::Work);
    let zero = quote!(<#lane as ::nilang::Grad<f64>>::zero());
    let ParamLocals {
        grad,
        work: copy,
        offset,
    } = own;
    let Locals {
        jac,
        rows,
        cols,
        first,
        lanes,
        ..
    } = locals;
    let read = |grads: TokenStream| quote!(#entry::read_rows(#jac, #cols, #first, #lanes, #offset, #grads););
    let none = TokenStream::new();
    match p.shape {
        Shape::Output => Sweep {
            setup: quote!(let #offset = #rows; #rows += #ident.len();),
            // `copy`: the values the output held on entry, captured before `f` ran; each
            // sweep's taped program starts from them and restores them
            buffers: quote!(
                let mut #grad = #work::<#lane>::filled(#zero, #ident.len());
                #entry::seed_rows::<f64, #lane>(&mut #grad, #offset, #first, #lanes);
            ),
            args: quote!(&mut #copy[..], &mut #grad[..]),
            values: quote!(&mut #copy[..]),
            outputs: quote!(#ident.copy_from_slice(&#copy[..]);),
            read: none,
        },
        Shape::Value | Shape::Ref => Sweep {
            setup: {
                let value = if p.shape == Shape::Ref {
                    quote!(*#ident)
                } else {
                    quote!(#ident)
                };
                quote!(let #offset = #cols; #cols += 1; let mut #ident: f64 = #value;)
            },
            buffers: quote!(let mut #grad: #lane = #zero;),
            args: quote!(&mut #ident, &mut #grad),
            values: quote!(&mut #ident),
            outputs: none,
            read: read(quote!(::core::slice::from_ref(&#grad))),
        },
        Shape::Slice => Sweep {
            setup: quote!(
                let #offset = #cols;
                #cols += #ident.len();
                let mut #ident = #work::<f64>::copied(#ident);
            ),
            buffers: quote!(let mut #grad = #work::<#lane>::filled(#zero, #ident.len());),
            args: quote!(&mut #ident[..], &mut #grad[..]),
            values: quote!(&mut #ident[..]),
            outputs: none,
            read: read(quote!(&#grad[..])),
        },
        Shape::Plain { .. } => Sweep {
            setup: none.clone(),
            buffers: none.clone(),
            args: quote!(#ident, ()),
            values: quote!(#ident),
            outputs: none,
            read: TokenStream::new(),
        },
    }
}

/// The tokens of parameter `p` in a forward sweep on dual numbers of type `dual` (its
/// `setup` is the reverse sweeps': the offsets, and a slice's working copy, read here).
fn param_forward(p: &Param, dual: &TokenStream, locals: &Locals, own: &ParamLocals) -> Sweep {
    let ident = &p.ident;
    let entry = quote!(::nilang::__private::entry);
    let work = quote!(::nilang::__private::work::Work);
    let ParamLocals {
        grad: tangents,
        work: entry_values,
        offset,
    } = own;
    let Locals {
        jac,
        cols,
        first,
        lanes,
        ..
    } = locals;
    let none = TokenStream::new();
    let (buffers, args, read) = match p.shape {
        Shape::Output => (
            quote!(
                let mut #tangents = #work::<#dual>::filled(<#dual>::constant(0.0), #ident.len());
                #entry::constants(&#entry_values[..], &mut #tangents[..]);
            ),
            quote!(&mut #tangents[..]),
            quote!(
                #entry::read_columns(#jac, #cols, #offset, #first, #lanes, &#tangents[..]);
                if #first == 0 {
                    #entry::read_values(#ident, &#tangents[..]);
                }
            ),
        ),
        Shape::Value | Shape::Ref => (
            quote!(let mut #tangents: #dual = #entry::seeded_column(#ident, #offset, #first);),
            quote!(&mut #tangents),
            none,
        ),
        Shape::Slice => (
            quote!(
                let mut #tangents = #work::<#dual>::filled(<#dual>::constant(0.0), #ident.len());
                #entry::seed_columns(&#ident[..], #offset, #first, &mut #tangents[..]);
            ),
            quote!(&mut #tangents[..]),
            none,
        ),
        Shape::Plain { .. } => (none.clone(), quote!(#ident), none),
    };
    Sweep {
        setup: TokenStream::new(),
        buffers,
        args,
        values: TokenStream::new(),
        outputs: TokenStream::new(),
        read,
    }
}

/// A new tape of `value`s and a new decision stack, for the taped program. The tape's buffer
/// is the one this entry point's previous call on the thread used (`nilang::stack::Home`, the
/// `thread_local!` `home` declared here, a fresh name), when that stayed small; `value` is a
/// concrete type (the entry points are not generic).
pub fn new_tapes([tape, decisions, home]: [&Ident; 3], value: &TokenStream) -> TokenStream {
    quote!(
        let mut #tape = {
            ::std::thread_local!(
                #[allow(non_upper_case_globals)]
                static #home: ::nilang::stack::Home<#value> =
                    const { ::nilang::stack::Home::new() }
            );
            ::nilang::stack::Tape::<#value>::at_home(&#home)
        };
        let mut #decisions = ::nilang::stack::Decisions::new();
    )
}

/// The taped program's vector–Jacobian product in its two halves, on the caller's tapes
/// ([`new_tapes`]) and gradients of type `lane`: `f_rev_taped` on the `values`, then `read`
/// (the outputs' values, which the taped program computes as the plain function does), then
/// `f_rev_taped_adjoint` on `args` (values and gradients). For a function with a value,
/// `value` names the variable it is added to and that variable's gradient, which lead the two
/// calls' arguments. The taped program only pushes on its tapes, so their gradients are only
/// popped (an empty one gives zeros): plain `Vec`s that never allocate, made here.
pub fn taped_vjp_reading(
    rev: &Ident,
    [tape, tape_grad, decisions, decisions_grad]: [&Ident; 4],
    lane: &TokenStream,
    value: Option<[&Ident; 2]>,
    [values, read, args]: [&[TokenStream]; 3],
) -> TokenStream {
    let taped = format_ident!("{}_taped", rev);
    let adjoint = format_ident!("{}_taped_adjoint", rev);
    let (out, out_grad) = match value {
        Some([v, g]) => (quote!(&mut #v,), quote!(&mut #v, &mut #g,)),
        None => (quote!(), quote!()),
    };
    quote!(
        #taped(#out &mut *#tape, &mut #decisions, #(#values),*);
        #(#read)*
        let mut #tape_grad = ::std::vec::Vec::<#lane>::new();
        let mut #decisions_grad = ::nilang::stack::Decisions::new();
        #adjoint(
            #out_grad &mut *#tape, &mut #tape_grad, &mut #decisions, &mut #decisions_grad,
            #(#args),*
        );
    )
}
