//! Opening the results database, and what opening it means: a device setting that a killed
//! run left changed (recorded there before the change: a drive's write cache set for PTS) is
//! put back first, and said, whatever the command is.

use std::path::Path;

use iolab_store::{Store, StoreError};

/// [`Store::open`], then the settings killed runs left changed put back.
pub fn open(path: &Path) -> Result<Store, StoreError> {
    let store = Store::open(path)?;
    put_back(&store);
    Ok(store)
}

/// [`Store::open_existing`], then the settings killed runs left changed put back.
pub fn open_existing(path: &Path) -> Result<Store, StoreError> {
    let store = Store::open_existing(path)?;
    put_back(&store);
    Ok(store)
}

fn put_back(store: &Store) {
    for line in iolab_pts::dut::restore_orphans(store) {
        say!("{line}");
    }
}
