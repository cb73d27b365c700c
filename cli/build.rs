//! Links the `ptc` binary with its start-up functions first when `PTC_STARTUP_ORDER` names a
//! symbol-ordering file: cli/build-static.sh sets it to `cli/startup.order` when the linker
//! has `--symbol-ordering-file` (see that script). Unset or empty, as in every other build,
//! this does nothing. Cargo relinks when the variable or the file changes.

fn main() {
    println!("cargo::rerun-if-env-changed=PTC_STARTUP_ORDER");
    if let Some(path) = std::env::var_os("PTC_STARTUP_ORDER").filter(|path| !path.is_empty()) {
        let path = std::path::PathBuf::from(path);
        println!("cargo::rerun-if-changed={}", path.display());
        println!(
            "cargo::rustc-link-arg-bin=ptc=-Wl,--symbol-ordering-file={}",
            path.display()
        );
        println!("cargo::rustc-link-arg-bin=ptc=-Wl,--no-warn-symbol-ordering");
    }
}
