
// ---- instructions on double: the primitive's value ----
template <class P> NL_FN void nl_add1(double& y, double& x) { y = y + P::v(x); }
template <class P> NL_FN void nl_sub1(double& y, double& x) { y = y - P::v(x); }
template <class P> NL_FN void nl_add2(double& y, double& a, double& b) { y = y + P::v(a, b); }
template <class P> NL_FN void nl_sub2(double& y, double& a, double& b) { y = y - P::v(a, b); }
NL_FN void nl_negate(double& x) { x = -x; }
NL_FN void nl_inc(double& x) { x = x + 1.0; }
NL_FN void nl_dec(double& x) { x = x - 1.0; }
NL_FN void nl_conj(double&) {}
NL_FN void nl_rot(double& a, double& b, double& t) {
    double s = sin(t), c = cos(t), x = a, y = b;
    a = x * c - y * s;
    b = y * c + x * s;
}
NL_FN void nl_irot(double& a, double& b, double& t) {
    double s = sin(t), c = cos(t), x = a, y = b;
    a = x * c + y * s;
    b = y * c - x * s;
}
/// inv(x): x <- 1/x (rounds, as in Rust).
NL_FN void nl_inv(double& x) { x = 1.0 / x; }
/// hadamard(a, b): (a, b) <- ((a + b)/sqrt 2, (a - b)/sqrt 2).
NL_FN void nl_hadamard(double& a, double& b) {
    const double s = 0.70710678118654752440;
    double x = a, y = b;
    a = (x + y) * s;
    b = (x - y) * s;
}
NL_FN void nl_flip(bool& b) { b = !b; }

// ---- instructions on gvar: the adjoint rules (crates/nilang/src/gvar.rs) ----
template <class P> NL_FN void nl_add1(gvar& y, gvar& x) {
    y.x = y.x + P::v(x.x);
    x.g = x.g - y.g * P::d(x.x);
}
/// Adjoint rule: y <- y - f(x); x.g <- x.g + y.g f'(x).
template <class P> NL_FN void nl_sub1(gvar& y, gvar& x) {
    y.x = y.x - P::v(x.x);
    x.g = x.g + y.g * P::d(x.x);
}
template <class P> NL_FN void nl_add2(gvar& y, gvar& a, gvar& b) {
    y.x = y.x + P::v(a.x, b.x);
    double da, db;
    P::p(a.x, b.x, da, db);
    a.g = a.g - y.g * da;
    b.g = b.g - y.g * db;
}
/// Adjoint rule: y <- y - f(a, b); a.g <- a.g + y.g df/da; b.g <- b.g + y.g df/db.
template <class P> NL_FN void nl_sub2(gvar& y, gvar& a, gvar& b) {
    y.x = y.x - P::v(a.x, b.x);
    double da, db;
    P::p(a.x, b.x, da, db);
    a.g = a.g + y.g * da;
    b.g = b.g + y.g * db;
}
NL_FN void nl_negate(gvar& v) { v.x = -v.x; v.g = -v.g; }
NL_FN void nl_inc(gvar& v) { v.x = v.x + 1.0; }
NL_FN void nl_dec(gvar& v) { v.x = v.x - 1.0; }
NL_FN void nl_conj(gvar&) {}
NL_FN void nl_rot(gvar& a, gvar& b, gvar& t) {
    double s = sin(t.x), c = cos(t.x), x = a.x, y = b.x;
    a.x = x * c - y * s;
    b.x = y * c + x * s;
    double gx = a.g, gy = b.g;
    a.g = gx * c - gy * s;
    b.g = gy * c + gx * s;
    t.g = t.g - (a.x * b.g - b.x * a.g);
}
/// Adjoint rule (Eq. 9 of the paper): t.g += a'.x b'.g - b'.x a'.g, then rotate back by -t.
NL_FN void nl_irot(gvar& a, gvar& b, gvar& t) {
    t.g = t.g + (a.x * b.g - b.x * a.g);
    double s = sin(t.x), c = cos(t.x), x = a.x, y = b.x;
    a.x = x * c + y * s;
    b.x = y * c - x * s;
    double gx = a.g, gy = b.g;
    a.g = gx * c + gy * s;
    b.g = gy * c - gx * s;
}
/// Adjoint rule of inv (its own inverse): x.g <- -x.g v^2 with v the value before.
NL_FN void nl_inv(gvar& v) {
    double x = v.x;
    v.x = 1.0 / x;
    v.g = -(v.g * (x * x));
}
/// Adjoint rule of hadamard: the gradients transform with the same (orthogonal) matrix.
NL_FN void nl_hadamard(gvar& a, gvar& b) {
    nl_hadamard(a.x, b.x);
    const double s = 0.70710678118654752440;
    double ga = a.g, gb = b.g;
    a.g = (ga + gb) * s;
    b.g = (ga - gb) * s;
}

// ---- instructions on integers: exact wrapping arithmetic ----
#define NL_INT(I)                                                                       \
    template <class P> NL_FN void nl_add1(I& y, I& x) { y = nl_wadd(y, P::iv(x)); }    \
    template <class P> NL_FN void nl_sub1(I& y, I& x) { y = nl_wsub(y, P::iv(x)); }    \
    template <class P> NL_FN void nl_add2(I& y, I& a, I& b) { y = nl_wadd(y, P::iv(a, b)); } \
    template <class P> NL_FN void nl_sub2(I& y, I& a, I& b) { y = nl_wsub(y, P::iv(a, b)); } \
    NL_FN void nl_negate(I& x) { x = nl_wneg(x); }                                      \
    NL_FN void nl_inc(I& x) { x = nl_wadd(x, (I)1); }                                   \
    NL_FN void nl_dec(I& x) { x = nl_wsub(x, (I)1); }                                   \
    NL_FN void nl_conj(I&) {}
NL_INT(long long)
NL_INT(int)
NL_INT(unsigned long long)
NL_INT(unsigned int)
#undef NL_INT

// ---- batched kernels: private copies of shared arguments, gradients accumulated atomically ----
NL_FN double nl_private(double x) { return x; }
NL_FN gvar nl_private(const gvar& v) {
    gvar r;
    r.x = v.x;
    r.g = 0.0;
    return r;
}
NL_FN long long nl_private(long long x) { return x; }
/// The common length of a broadcast's slices (nilang::__private::broadcast_len); slices of
/// different lengths are a failed check (the shorter length is returned, so the loop's
/// accesses stay within both).
NL_FN long long nl_same_len(nl_ctx* c, long long site, long long a, long long b) {
    if (a != b) nl_fail(c, NL_CHECK_LENGTHS, site, a, b);
    return a < b ? a : b;
}
NL_FN void nl_atomic_add(double* p, double v) {
#if defined(__CUDACC__)
    atomicAdd(p, v);
#else
    *p += v; // the host kernels loop over instances sequentially
#endif
}
/// A shared argument's private copy after an instance: values are not written back (every
/// instance sees the same input); gradients are summed into the shared buffer.
NL_FN void nl_accumulate(double*, const double&) {}
NL_FN void nl_accumulate(long long*, const long long&) {}
NL_FN void nl_accumulate(gvar* p, const gvar& v) { nl_atomic_add(&p->g, v.g); }

// ---- parallel loops' kernels (crate::par): one thread per iteration ----
// `nl_shared_grad` and `nl_shared_val` (the places every iteration reads) are at the top
NL_FN double nl_val(const nl_shared_val& s) { return s.v; }
NL_M gvar nl_cv<gvar>::from(const nl_shared_grad& s) { return nl_private(s.v); }
NL_FN double nl_val(const nl_shared_grad& s) { return s.v.x; }
NL_FN void nl_store(nl_shared_grad& s, const gvar& v) {
    if (v.g != 0.0) nl_atomic_add(&s.v.g, v.g); // most instructions leave an operand's gradient zero
}
/// A reduction's per-iteration partial: zero, with the target's gradient in a gradient kernel
/// (the sum hands its gradient to every term).
NL_FN double nl_partial(double) { return 0.0; }
NL_FN gvar nl_partial(const gvar& target) {
    gvar r;
    r.x = 0.0;
    r.g = target.g;
    return r;
}
/// The offsets of a parallel loop's owned slots, checked before its kernel runs
/// (nilang::parallel::check_slot): `0 <= lo < stride` for an element `y[stride*i + lo]`,
/// `0 <= lo <= hi <= stride` for a sub-slice. A failure is recorded with `lo` and `stride`
/// (an element), `lo` and `hi` (a sub-slice).
NL_FN void nl_slot_check(nl_ctx* c, long long site, long long lo, long long stride) {
    if (!(0 <= lo && lo < stride)) nl_fail(c, NL_CHECK_SLOT, site, lo, stride);
}
NL_FN void nl_slot_check(nl_ctx* c, long long site, long long lo, long long hi, long long stride) {
    if (!(0 <= lo && lo <= hi && hi <= stride)) nl_fail(c, NL_CHECK_SLOTS, site, lo, hi);
}
/// A partial added to its reduction target: values only.
NL_FN void nl_add_value(double& target, double part) { target = target + part; }
NL_FN void nl_add_value(gvar& target, double part) { target.x = target.x + part; }

#endif // NILANG_HEADER
