//! The primitives of the C++/CUDA header, generated from the primitive table
//! (`nilang_prims::primitives!`): for each row a struct with its value `v`, its derivative `d`
//! (unary) or partials `p` (binary), and its wrapping integer value `iv` where the row has
//! one, in the row's C++ spelling. (The text is ASCII: each struct's comment is the
//! primitive's name, not its documentation, which has symbols NVRTC need not read.) The instructions of the header (`nl_add1` … `nl_sub2`)
//! take the struct as a template parameter, so their adjoint rules are written once.

/// One struct per row, as C++ source text (a `&'static str` built at compile time).
macro_rules! cpp_prims {
    ([] unary { $(($ty:ident $name:ident $doc:literal $x:ident $value:block $deriv:block
        $from:tt $method:tt [$v:literal $d:literal] [$($iv:literal)?] $domain:tt))* }
        binary { $(($bty:ident $bname:ident $bdoc:literal $a:ident $b:ident $bvalue:block
        $partials:block $infix:tt [$bv:literal $p:literal] [$($biv:literal)?] $($bdomain:tt)*))* }) => {
        concat!(
            $(
                "// ", stringify!($name), "\n",
                "struct nl_", stringify!($ty), " {\n",
                "    NL_M static double v(double ", stringify!($x), ") { return ", $v, "; }\n",
                "    NL_M static double d(double ", stringify!($x), ") { (void)", stringify!($x),
                "; return ", $d, "; }\n",
                $("    template <class I> NL_M static I iv(I ", stringify!($x), ") { return ", $iv, "; }\n",)?
                "};\n",
            )*
            $(
                "// ", stringify!($bname), "\n",
                "struct nl_", stringify!($bty), " {\n",
                "    NL_M static double v(double ", stringify!($a), ", double ", stringify!($b),
                ") { return ", $bv, "; }\n",
                "    NL_M static void p(double ", stringify!($a), ", double ", stringify!($b),
                ", double& da, double& db) {\n",
                "        (void)", stringify!($a), "; (void)", stringify!($b), ";\n",
                "        ", $p, "\n",
                "    }\n",
                $("    template <class I> NL_M static I iv(I ", stringify!($a), ", I ", stringify!($b),
                ") { return ", $biv, "; }\n",)?
                "};\n",
            )*
        )
    };
}

/// The device header: `gvar`, the primitives, every instruction on `double`, `gvar` and the
/// integer types (with the adjoint rules on `gvar`), and the kernel helpers. Put it first in
/// every translation unit ([`crate::Module`] does).
pub const HEADER: &str = concat!(
    include_str!("header_head.cpp"),
    nilang_prims::primitives!(cpp_prims),
    include_str!("header_tail.cpp")
);
