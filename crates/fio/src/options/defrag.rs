//! The options of fio's `e4defrag` engine: the donor file whose blocks each I/O swaps in,
//! and whether its space is reserved per I/O. Refused for any other engine, as fio refuses an
//! engine's option elsewhere.

use std::path::PathBuf;

use crate::options::{OptionDef, ValueKind};
use crate::units::parse_u32;

/// e4defrag's options.
pub static DEFRAG_OPTIONS: &[OptionDef] = &[
    OptionDef {
        name: "donorname",
        alias: None,
        kind: ValueKind::Str,
        help: "e4defrag: the donor file, in the job's directory (required). Made by iolab when missing; an existing one needs --allow-destroy, since it ends up with the job file's old blocks.",
        apply: |d, v| {
            let v = v.trim();
            d.spec.engine.options.defrag.donor = (!v.is_empty()).then(|| PathBuf::from(v));
            Ok(())
        },
    },
    OptionDef {
        name: "inplace",
        alias: None,
        kind: ValueKind::Int,
        help: "e4defrag: 1 reserves the donor's blocks for each I/O and empties the donor after it; 0 (the default) reserves the whole donor once before the run.",
        apply: |d, v| {
            d.spec.engine.options.defrag.inplace = match parse_u32(v)? {
                0 => false,
                1 => true,
                _ => return Err("must be 0 or 1".into()),
            };
            Ok(())
        },
    },
];

impl crate::options::JobDraft {
    /// fio's e4defrag `init()`: `donorname` is required, and names a file in the job's
    /// `directory` (fio puts the directory before it, even before an absolute name).
    pub(crate) fn apply_defrag(&mut self) -> Result<(), crate::FioError> {
        if self.spec.engine.kind != iolab_engine::EngineKind::E4defrag {
            return Ok(());
        }
        let dir = self.spec.directory.clone();
        let defrag = &mut self.spec.engine.options.defrag;
        let Some(name) = defrag.donor.take() else {
            return Err(crate::FioError::Usage(
                "ioengine=e4defrag needs donorname= (the file whose blocks it swaps in)".into(),
            ));
        };
        defrag.donor = Some(match dir {
            Some(d) => PathBuf::from(format!("{}/{}", d.display(), name.display())),
            None => name,
        });
        Ok(())
    }
}
