// nilang device header: the instructions of the reversible language and their adjoint rules,
// written once for `double` (values) and `gvar` (value + gradient), mirroring
// crates/nilang/src/{instr.rs,gvar.rs}; the primitives' structs are generated from the
// primitive table (crates/nilang-prims, by crates/nilang-cgen/src/prims.rs) between this file
// and header_tail.cpp. The adjoint rule of an instruction is bound to
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

/// pow(a, b): an integer-valued b (|b| < 1024) is computed by repeated multiplication (powi).
NL_FN bool nl_int_exponent(double b, int& n) {
    if (b - trunc(b) == 0.0 && fabs(b) < 1024.0) { n = (int)b; return true; }
    return false;
}
NL_FN double nl_pow(double a, double b) {
    int n;
    return nl_int_exponent(b, n) ? nl_powi(a, n) : pow(a, b);
}
NL_FN void nl_pow_partials(double a, double b, double& da, double& db) {
    int n;
    if (nl_int_exponent(b, n)) da = n == 0 ? 0.0 : (double)n * nl_powi(a, n - 1);
    else da = b * pow(a, b - 1.0);
    double value = nl_pow(a, b);
    db = value == 0.0 ? 0.0 : value * log(a);
}

// ---- the primitives (generated from the table of nilang-prims): value v, derivative d
// (unary) or partials p (binary), wrapping integer value iv ----
