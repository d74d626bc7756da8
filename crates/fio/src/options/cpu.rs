//! fio's CPU placement options beyond the CPU set itself.

use crate::options::{OptionDef, ValueKind};

pub static CPU_OPTIONS: &[OptionDef] = &[OptionDef {
    name: "cpus_allowed_policy",
    alias: None,
    kind: ValueKind::Str,
    help: "How job copies use cpus_allowed/cpumask: shared (default, every copy may run on the whole set) or split (each copy gets one CPU of the set, by its number in the run, round robin).",
    apply: |d, v| {
        d.spec.cpus_split = match v.trim() {
            "shared" => false,
            "split" => true,
            _ => return Err("is not shared or split".into()),
        };
        Ok(())
    },
}];
