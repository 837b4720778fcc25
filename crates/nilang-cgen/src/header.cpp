// nilang device header: the instructions of the reversible language and their adjoint rules,
// written once for `double` (values) and `gvar` (value + gradient), mirroring
// crates/nilang/src/{prims.rs,instr.rs,gvar.rs}. The adjoint rule of an instruction is bound to
// its inverse: `y -= f(x)` on gvar uncomputes y and accumulates x.g += y.g * f'(x).
// Compiles as CUDA C++ (NVRTC, nvcc) and as host C++ (g++ -std=c++14 or later).
#ifndef NILANG_HEADER
#define NILANG_HEADER

#if defined(__CUDACC__)
#define NL_FN __device__ inline
#define NL_M __device__ inline
#define NL_KERNEL extern "C" __global__
#define NL_FOR_EACH(i, n, status) \
    long long i = (long long)blockIdx.x * (long long)blockDim.x + (long long)threadIdx.x; \
    if (i < (n))
#else
#include <math.h>
#include <stdlib.h>
#define NL_FN static inline
#define NL_M inline
#define NL_KERNEL extern "C"
// the host runs the threads in order and stops at the first whose check failed
#define NL_FOR_EACH(i, n, status) for (long long i = 0; i < (n) && (status)[0] == 0; ++i)
#endif

/// A value with the gradient of the loss with respect to it (nilang::GVar<f64>).
struct gvar {
    double x;
    double g;
};

/// A place every iteration of a parallel loop reads, in the gradient kernel: the memory of a
/// `gvar`, but an instruction that reads it gets its value with a zero gradient (a private
/// copy) and, after the instruction, adds the copy's gradient to it atomically (the shared
/// read of the forward is a shared write of the adjoint; the rules are below).
struct nl_shared_grad {
    gvar v;
};
/// The same place in the value kernels: read as a `double`, never stored to (every thread
/// reads it; an instruction's store of an unchanged operand would be a racing write).
struct nl_shared_val {
    double v;
    NL_M operator double() const { return v; }
};

// ---- the checks of a launch: slice bounds, broadcast lengths, parallel loops' slots ----
// Every kernel entry takes a status of NL_STATUS_WORDS `long long`s, zero before the launch,
// into which the first failed check of any thread writes what failed: the kind (one of the
// codes below), the site (the id of a `//@nilang-site` line of the generated source, which
// names the function, the slice and the access), the thread (instance or iteration), and two
// numbers (the index and the length, or the two lengths). A failed check never touches
// memory outside a buffer: an access out of bounds gets a per-thread scratch place instead,
// and the thread runs on to the end of its current loop iteration (every generated loop
// stops once its thread has failed), on values that the launcher then discards (it reads the
// status back and returns an error).
#define NL_STATUS_WORDS 5
#define NL_CHECK_BOUNDS 1
#define NL_CHECK_LENGTHS 2
#define NL_CHECK_SLOT 3
#define NL_CHECK_SLOTS 4

/// What every generated function gets first: its thread's status and scratch places, one of
/// each element type a slice can have.
struct nl_ctx {
    long long* status;
    long long thread;
    /// Whether a check of this thread failed (its loops stop).
    bool failed;
    double d;
    gvar g;
    long long ll;
    int i;
    unsigned long long ull;
    unsigned int ui;
    bool b;
    nl_shared_grad sg;
    nl_shared_val sv;
};
/// The context of thread `thread` of a launch with status `status` (scratch places zero).
NL_FN nl_ctx nl_context(long long* status, long long thread) {
    nl_ctx c = {};
    c.status = status;
    c.thread = thread;
    return c;
}
/// Records a failed check, unless one was recorded before (on the device: by any thread).
NL_FN void nl_fail(nl_ctx* c, long long kind, long long site, long long a, long long b) {
    c->failed = true;
#if defined(__CUDACC__)
    if (atomicCAS((unsigned long long*)c->status, 0ull, (unsigned long long)kind) != 0ull) return;
#else
    if (c->status[0] != 0) return;
    c->status[0] = kind;
#endif
    c->status[1] = site;
    c->status[2] = c->thread;
    c->status[3] = a;
    c->status[4] = b;
}
NL_FN double& nl_scratch(nl_ctx* c, double*) { return c->d; }
NL_FN gvar& nl_scratch(nl_ctx* c, gvar*) { return c->g; }
NL_FN long long& nl_scratch(nl_ctx* c, long long*) { return c->ll; }
NL_FN int& nl_scratch(nl_ctx* c, int*) { return c->i; }
NL_FN unsigned long long& nl_scratch(nl_ctx* c, unsigned long long*) { return c->ull; }
NL_FN unsigned int& nl_scratch(nl_ctx* c, unsigned int*) { return c->ui; }
NL_FN bool& nl_scratch(nl_ctx* c, bool*) { return c->b; }
NL_FN nl_shared_grad& nl_scratch(nl_ctx* c, nl_shared_grad*) { return c->sg; }
NL_FN nl_shared_val& nl_scratch(nl_ctx* c, nl_shared_val*) { return c->sv; }
/// Element `i` of the slice `p` of length `len` (`p[i]` in the source, a `//@nilang-site`
/// line's `site`); out of bounds, the failure recorded and the thread's scratch place. (The
/// hint lays the in-bounds path out first: about 3% of the BA kernels' time on the host.)
template <class T> NL_FN T& nl_at(nl_ctx* c, T* p, long long len, long long i, long long site) {
    if (__builtin_expect((unsigned long long)i < (unsigned long long)len, 1)) return p[i];
    nl_fail(c, NL_CHECK_BOUNDS, site, i, len);
    return nl_scratch(c, (T*)0);
}
template <class T>
NL_FN const T& nl_at(nl_ctx* c, const T* p, long long len, long long i, long long site) {
    if (__builtin_expect((unsigned long long)i < (unsigned long long)len, 1)) return p[i];
    nl_fail(c, NL_CHECK_BOUNDS, site, i, len);
    return nl_scratch(c, (T*)0);
}

// ---- conversions: how an operand enters an instruction on a target of type T (Accepts) ----
template <class T> struct nl_cv {
    template <class X> NL_M static T from(const X& x) { return (T)x; }
};
template <> struct nl_cv<gvar> {
    NL_M static gvar from(const gvar& x) { return x; }
    /// A place read by every iteration of a parallel loop: its value, with a zero gradient.
    NL_M static gvar from(const nl_shared_grad& s);
    /// A constant operand: its gradient is not kept.
    template <class X> NL_M static gvar from(const X& x) {
        gvar r;
        r.x = (double)x;
        r.g = 0.0;
        return r;
    }
};
/// Operands of the target's own type are stored back after the instruction; others are constants.
template <class X, class Y> NL_FN void nl_store(X&, const Y&) {}
template <class X> NL_FN void nl_store(X& x, const X& v) { x = v; }
template <class T> NL_FN T nl_lit(double v) { return nl_cv<T>::from(v); }
NL_FN double nl_val(double x) { return x; }
NL_FN double nl_val(const gvar& v) { return v.x; }
NL_FN double nl_val(long long x) { return (double)x; }

// ---- plain helpers used by conditions and by the primitives ----
NL_FN double nl_abs(double x) { return fabs(x); }
NL_FN long long nl_abs(long long x) { return x < 0 ? -x : x; }
NL_FN double nl_min(double a, double b) { return fmin(a, b); }
NL_FN double nl_max(double a, double b) { return fmax(a, b); }
NL_FN long long nl_min(long long a, long long b) { return a < b ? a : b; }
NL_FN long long nl_max(long long a, long long b) { return a > b ? a : b; }
NL_FN double nl_signum(double x) { return x != x ? x : copysign(1.0, x); }
/// f64::powi (compiler-builtins' __powidf2: square-and-multiply).
NL_FN double nl_powi(double a, int b) {
    bool recip = b < 0;
    unsigned int p = b < 0 ? 0u - (unsigned int)b : (unsigned int)b;
    double mul = 1.0;
    for (;;) {
        if (p & 1u) mul *= a;
        p >>= 1;
        if (p == 0) break;
        a *= a;
    }
    return recip ? 1.0 / mul : mul;
}
// wrapping integer arithmetic (Rust's wrapping_* on the integer instructions)
template <class I> NL_FN I nl_wadd(I a, I b) { return (I)((unsigned long long)a + (unsigned long long)b); }
template <class I> NL_FN I nl_wsub(I a, I b) { return (I)((unsigned long long)a - (unsigned long long)b); }
template <class I> NL_FN I nl_wmul(I a, I b) { return (I)((unsigned long long)a * (unsigned long long)b); }
template <class I> NL_FN I nl_wneg(I a) { return (I)(0ull - (unsigned long long)a); }
template <class I> NL_FN I nl_wpow(I a, I b) {
    unsigned int e = (unsigned int)b;
    I r = (I)1;
    while (e > 0) {
        if (e & 1u) r = nl_wmul(r, a);
        e >>= 1;
        if (e > 0) a = nl_wmul(a, a);
    }
    return r;
}

// ---- the primitives: value v, derivative d (unary) or partials p (binary), integer iv ----
#define NL_UNARY(NAME, VALUE, DERIV)                          \
    struct NAME {                                             \
        NL_M static double v(double x) { return VALUE; }     \
        NL_M static double d(double x) { (void)x; return DERIV; } \
    };
NL_UNARY(nl_Exp, exp(x), exp(x))
NL_UNARY(nl_Log, log(x), 1.0 / x)
NL_UNARY(nl_Log1p, log1p(x), 1.0 / (1.0 + x))
NL_UNARY(nl_Expm1, expm1(x), exp(x))
NL_UNARY(nl_Sin, sin(x), cos(x))
NL_UNARY(nl_Cos, cos(x), -sin(x))
NL_UNARY(nl_Tan, tan(x), 1.0 / (cos(x) * cos(x)))
NL_UNARY(nl_Asin, asin(x), 1.0 / sqrt(1.0 - x * x))
NL_UNARY(nl_Acos, acos(x), -1.0 / sqrt(1.0 - x * x))
NL_UNARY(nl_Atan, atan(x), 1.0 / (1.0 + x * x))
NL_UNARY(nl_Sinh, sinh(x), cosh(x))
NL_UNARY(nl_Cosh, cosh(x), sinh(x))
NL_UNARY(nl_Tanh, tanh(x), 1.0 - tanh(x) * tanh(x))
NL_UNARY(nl_Sqrt, sqrt(x), 0.5 / sqrt(x))
NL_UNARY(nl_Square, x * x, 2.0 * x)
NL_UNARY(nl_Sigmoid, 1.0 / (1.0 + exp(-x)), (1.0 / (1.0 + exp(-x))) * (1.0 - 1.0 / (1.0 + exp(-x))))
#undef NL_UNARY
struct nl_Identity {
    NL_M static double v(double x) { return x; }
    NL_M static double d(double) { return 1.0; }
    template <class I> NL_M static I iv(I x) { return x; }
};
struct nl_Neg {
    NL_M static double v(double x) { return -x; }
    NL_M static double d(double) { return -1.0; }
    template <class I> NL_M static I iv(I x) { return nl_wneg(x); }
};
struct nl_Abs {
    NL_M static double v(double x) { return fabs(x); }
    NL_M static double d(double x) { return x == 0.0 ? 0.0 : nl_signum(x); }
    template <class I> NL_M static I iv(I x) { return x < (I)0 ? nl_wneg(x) : x; }
};
struct nl_Add {
    NL_M static double v(double a, double b) { return a + b; }
    NL_M static void p(double, double, double& da, double& db) { da = 1.0; db = 1.0; }
    template <class I> NL_M static I iv(I a, I b) { return nl_wadd(a, b); }
};
struct nl_Sub {
    NL_M static double v(double a, double b) { return a - b; }
    NL_M static void p(double, double, double& da, double& db) { da = 1.0; db = -1.0; }
    template <class I> NL_M static I iv(I a, I b) { return nl_wsub(a, b); }
};
struct nl_Mul {
    NL_M static double v(double a, double b) { return a * b; }
    NL_M static void p(double a, double b, double& da, double& db) { da = b; db = a; }
    template <class I> NL_M static I iv(I a, I b) { return nl_wmul(a, b); }
};
struct nl_Div {
    NL_M static double v(double a, double b) { return a / b; }
    NL_M static void p(double a, double b, double& da, double& db) {
        double inv = 1.0 / b;
        da = inv;
        db = -a * inv * inv;
    }
    template <class I> NL_M static I iv(I a, I b) { return a / b; }
};
/// pow(a, b): an integer-valued b (|b| < 1024) is computed by repeated multiplication (powi).
NL_FN bool nl_int_exponent(double b, int& n) {
    if (b - trunc(b) == 0.0 && fabs(b) < 1024.0) { n = (int)b; return true; }
    return false;
}
struct nl_Pow {
    NL_M static double v(double a, double b) {
        int n;
        return nl_int_exponent(b, n) ? nl_powi(a, n) : pow(a, b);
    }
    NL_M static void p(double a, double b, double& da, double& db) {
        int n;
        if (nl_int_exponent(b, n)) da = n == 0 ? 0.0 : (double)n * nl_powi(a, n - 1);
        else da = b * pow(a, b - 1.0);
        double value = v(a, b);
        db = value == 0.0 ? 0.0 : value * log(a);
    }
    template <class I> NL_M static I iv(I a, I b) { return nl_wpow(a, b); }
};
struct nl_Atan2 {
    NL_M static double v(double a, double b) { return atan2(a, b); }
    NL_M static void p(double a, double b, double& da, double& db) {
        double r2 = a * a + b * b;
        da = b / r2;
        db = -a / r2;
    }
};
struct nl_Hypot {
    NL_M static double v(double a, double b) { return sqrt(a * a + b * b); }
    NL_M static void p(double a, double b, double& da, double& db) {
        double h = sqrt(a * a + b * b);
        da = a / h;
        db = b / h;
    }
};

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
