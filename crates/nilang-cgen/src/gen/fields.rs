//! Reversible constructors and destructors in C++ (see [`Translator`]'s impl below).

use super::*;

/// Reversible constructors (`new!`, `fields!`) in C++: a built value is not a C++ object but
/// its fields, each in the variable it was built from, registered under the field's path
/// (`z.re`, `t.0.re` for nested values). Building and taking apart only rename, so both
/// directions and their gradients (the same statements on `gvar`) cost nothing, and no C++
/// type is needed for the user's struct.
impl Translator<'_> {
    /// The variables registered under `key` or its fields (`key.…`), removed from every
    /// scope, with the path below `key` of each (`""`, `".re"`).
    pub(super) fn take_fields(&mut self, key: &str) -> Vec<(String, Var)> {
        let below = format!("{key}.");
        let mut moved = Vec::new();
        for frame in &mut self.frames {
            let keys: Vec<String> = frame
                .keys()
                .filter(|k| *k == key || k.starts_with(&below))
                .cloned()
                .collect();
            for k in keys {
                let var = frame.remove(&k).expect("a key just listed");
                moved.push((k[key.len()..].to_string(), var));
            }
        }
        moved.sort_by(|a, b| a.0.cmp(&b.0));
        moved
    }

    /// The variables of a built value, by their path below it (`.re`), in order.
    pub(super) fn fields_of(&self, key: &str) -> Vec<(String, &Var)> {
        let below = format!("{key}.");
        let mut fields: Vec<(String, &Var)> = Vec::new();
        for frame in self.frames.iter().rev() {
            for (k, var) in frame {
                if k.starts_with(&below) && !fields.iter().any(|(f, _)| *f == k[key.len()..]) {
                    fields.push((k[key.len()..].to_string(), var));
                }
            }
        }
        fields.sort_by(|a, b| a.0.cmp(&b.0));
        fields
    }

    /// Whether a dataview names a whole value built by `new!` (not one of its scalars).
    pub(super) fn is_built(&self, v: &Dataview) -> bool {
        let (key, fields) = self.built_field(v);
        fields == v.path.len() && self.lookup(&key).is_none() && !self.fields_of(&key).is_empty()
    }

    /// The key of a dataview's leading fields of built values (`z.re` for `z.re`, `t.0.re` for
    /// `t.0.re[i]`) and how many of its accesses that key covers.
    pub(super) fn built_field(&self, v: &Dataview) -> (String, usize) {
        let mut key = v.root.to_string();
        let mut fields = 0;
        for a in &v.path {
            match a {
                Access::Field(m) if self.lookup(&key).is_none() => {
                    key = format!("{key}.{}", nilang_ir::constructors::member_text(m));
                    fields += 1;
                }
                _ => break,
            }
        }
        (key, fields)
    }

    /// A new ancilla in the current scope: its C++ name (renamed if the scope has one of that
    /// name already).
    pub(super) fn declare_ancilla(&mut self, name: &syn::Ident) -> String {
        let name = name.to_string();
        let mut cname = name.clone();
        let mut n = 1;
        while self.declared.last().unwrap().contains(&cname) {
            n += 1;
            cname = format!("{name}__{n}");
        }
        self.declared.last_mut().unwrap().insert(cname.clone());
        let var = Var {
            cname: cname.clone(),
            writable: true,
            slice: false,
        };
        self.frames.last_mut().unwrap().insert(name, var);
        cname
    }

    /// `new!` moves its parts' variables under the whole's fields; `fields!` moves them back
    /// to the parts' names.
    pub(super) fn move_fields(&mut self, f: &Fields) -> R<()> {
        let whole = f.whole.to_string();
        for part in &f.parts {
            let member = format!(
                "{whole}.{}",
                nilang_ir::constructors::member_text(&part.member)
            );
            let var = part.var.to_string();
            let (from, to) = if f.construct {
                (&var, &member)
            } else {
                (&member, &var)
            };
            let moved = self.take_fields(from);
            if moved.is_empty() {
                return Err((format!("`{from}` is not a live ancilla here"), None));
            }
            let frame = self.frames.last_mut().expect("a scope");
            for (path, v) in moved {
                frame.insert(format!("{to}{path}"), v);
            }
        }
        if !f.construct {
            self.take_fields(&whole);
        }
        Ok(())
    }

    /// `swap(t, u)` of two built values: the swap of each pair of fields.
    pub(super) fn swap_built(&self, a: &Dataview, b: &Dataview, comment: &str) -> R<String> {
        let (ka, kb) = (self.built_field(a).0, self.built_field(b).0);
        let (fa, fb) = (self.fields_of(&ka), self.fields_of(&kb));
        let paths = |f: &[(String, &Var)]| f.iter().map(|(p, _)| p.clone()).collect::<Vec<_>>();
        if !self.is_built(a) || !self.is_built(b) || paths(&fa) != paths(&fb) {
            return Err((
                format!(
                    "`swap({}, {})`: both must be values built by `new!` with the same fields",
                    a.text(),
                    b.text()
                ),
                Some(a.span),
            ));
        }
        let mut t = format!("{{ {comment}\n");
        for ((_, x), (_, y)) in fa.iter().zip(&fb) {
            let (x, y) = (&x.cname, &y.cname);
            writeln!(
                t,
                "    {{ auto __a = {x}; auto __b = {y}; {x} = __b; {y} = __a; }}"
            )
            .unwrap();
        }
        t.push('}');
        Ok(t)
    }
}
