//! `f_jacobian` and `f_jacobian_of`: one adjoint sweep per output (several at once, in lanes).

use super::*;

/// `f_jacobian` (every output) and `f_jacobian_of` (chosen outputs): one forward run, one
/// adjoint sweep per four rows (gradients in `Lanes`) on copies of the outputs.
pub(super) fn jacobian_fns(p: &Params, names: &Names) -> TokenStream {
    let n = quote!(::nilang);
    let scalar = &p.scalar;
    let f = p.f;
    let name_str = f.sig.ident.to_string();
    let (jac_name, jac_of_name) = (&names.jacobian, &names.jacobian_of);
    let outputs = p.added_param("outputs");
    let generics = gradient_generics(p);
    let (impl_generics, _, where_clause) = generics.split_for_impl();
    let (vis, inputs) = (&f.vis, &f.sig.inputs);
    let diff = p.diff();
    let counts = p.counts();
    let all_outputs: TokenStream = diff
        .iter()
        .zip(&counts)
        .map(|((i, _, _), count)| quote!(for __k in 0..#count { __outputs.push(#n::Loss::elem(#i, __k)); }))
        .collect();
    let pass_through = p.iter().map(|(_, name, role)| match role {
        Role::Diff(_) | Role::State => quote!(&mut *#name),
        _ => quote!(#name),
    });
    let tf = p.turbofish(scalar.to_token_stream());
    let forward = halves(
        p,
        Sweep::Copies,
        &scalar.to_token_stream(),
        &TokenStream::new(),
    )
    .forward;
    let validate = p.validate();
    let (labels, loss_label) = (p.labels(), p.loss_label());
    // one sweep for one row on plain gradients, for two rows on 2 lanes, else 4 rows on 4
    let one = lane_sweep(p, &scalar.to_token_stream());
    let two = lane_sweep(p, &quote!(#n::Lanes<#scalar, 2>));
    let four = lane_sweep(p, &quote!(#n::Lanes<#scalar, 4>));
    let jac_doc = format!(
        "Jacobian of [`{name_str}`]: `J[i][j] = ∂output_i/∂input_j` over the flat list of its \
         differentiable scalars, one adjoint sweep per four outputs. The arguments are left holding \
         the outputs. {} See `nilang::ad`.",
        p.layout_doc()
    );
    let jac_of_doc = format!(
        "Rows of the Jacobian of [`{name_str}`] for the chosen outputs only: row `i` is the \
         gradient of `outputs[i]` over the flat list of differentiable inputs. One forward run, \
         one adjoint sweep per four rows (gradients in `Lanes`). The arguments are left holding the \
         outputs. {} See `nilang::ad`.",
        p.layout_doc()
    );
    let allow = allow();
    quote! {
        #[doc = #jac_doc]
        #allow
        #vis fn #jac_name #impl_generics (#inputs)
            -> ::core::result::Result<#n::ad::Matrix<#scalar>, #n::GradError> #where_clause
        {
            let mut __outputs = ::std::vec::Vec::new();
            #all_outputs
            #jac_of_name #tf(&__outputs, #(#pass_through),*)
        }

        #[doc = #jac_of_doc]
        #allow
        #vis fn #jac_of_name #impl_generics (#outputs: &[#n::Loss], #inputs)
            -> ::core::result::Result<#n::ad::Matrix<#scalar>, #n::GradError> #where_clause
        {
            let __outputs = #outputs;
            for &__loss in __outputs {
                #validate
            }
            #forward
            let __n = 0usize #(+ #counts)*;
            let mut __jac = #n::ad::Matrix::filled(__outputs.len(), __n, <#scalar as #n::Float>::f_zero());
            #labels
            let __rows = __outputs.iter().map(|&__loss| #loss_label);
            let mut __row = ::std::vec::Vec::with_capacity(__n);
            let mut __i = 0usize;
            while __i < __outputs.len() {
                let __width = match __outputs.len() - __i {
                    1 => 1,
                    2 => 2,
                    __left => __left.min(4),
                };
                let __chunk = &__outputs[__i..__i + __width];
                match __width {
                    1 => #one,
                    2 => #two,
                    _ => #four,
                }
                __i += __width;
            }
            ::core::result::Result::Ok(__jac.with_labels(__rows, __labels))
        }
    }
}

/// One adjoint sweep for the rows `__i..__i + __chunk.len()` of a Jacobian, with gradients of
/// type `lane` (`T` for one row, `Lanes<T, N>` for up to `N`): copies of the outputs, a seed
/// in lane `k` for the `k`-th loss of the chunk, the adjoint, and each lane read into its row.
pub(super) fn lane_sweep(p: &Params, lane: &TokenStream) -> TokenStream {
    let s = quote!(::nilang::__private::entry);
    let scalar = &p.scalar;
    let adjoint = halves(p, Sweep::Copies, lane, &TokenStream::new()).adjoint;
    let (copies, shadows, seed) = (p.value_copies(), p.zero_shadows(lane), p.seed(lane));
    let read_row: TokenStream = p
        .diff()
        .iter()
        .map(|(i, name, ty)| {
            let b = shadow_buffer(*i);
            quote!(#s::lane_grads::<#scalar, #ty, #lane>(&*#name, &#b, __k, &mut __row);)
        })
        .collect();
    quote!({
        #copies
        #shadows
        for (__k, &__loss) in __chunk.iter().enumerate() {
            #seed
        }
        #adjoint
        for __k in 0..__chunk.len() {
            __row.clear();
            #read_row
            for (__j, __v) in __row.iter().enumerate() {
                __jac.set(__i + __k, __j, *__v);
            }
        }
    })
}
