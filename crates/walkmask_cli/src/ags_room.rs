//! `walkmask ags-room`: an Adventure Game Studio room brought over as a room file and
//! its layer images.

use std::path::{Path, PathBuf};

use clap::Args;
use walkmask::ags::AgsRoom;

use crate::Failure;

/// Arguments of `walkmask ags-room`.
#[derive(Debug, Args)]
pub struct AgsRoomArgs {
    /// The room: a compiled `.crm` file (AGS 3.5.0 to 3.6.3) or an AGS 4 room folder
    /// (the folder `Rooms/N` of an AGS 4 game, holding `data.xml`).
    #[arg(value_name = "ROOM")]
    room: PathBuf,

    /// The folder the room file and its images are written to (made if missing).
    #[arg(short, long, value_name = "FOLDER")]
    out: PathBuf,

    /// The room's name: its files are NAME.room.ron, NAME.png, NAME.walk.png, ...
    /// [default: the `.crm` file's stem, or `room` and the folder's name].
    #[arg(long, value_name = "NAME")]
    name: Option<String>,
}

/// Reads the room, writes `NAME.room.ron` and its images into the output folder, and
/// prints a line for each file written.
pub fn run(args: &AgsRoomArgs) -> Result<(), Failure> {
    let input = |e: &dyn std::fmt::Display| Failure::Input(format!("{}: {e}", args.room.display()));
    let room = if args.room.is_dir() {
        AgsRoom::read_folder(&args.room).map_err(|e| input(&e))?
    } else {
        let bytes = std::fs::read(&args.room).map_err(|e| input(&e))?;
        AgsRoom::read_crm(&bytes).map_err(|e| input(&e))?
    };
    let name = match &args.name {
        Some(name) => name.clone(),
        None => default_name(&args.room),
    };
    let (file, images) = room.to_room_file(&name);
    std::fs::create_dir_all(&args.out).map_err(|e| {
        Failure::Output(std::io::Error::new(
            e.kind(),
            format!("{}: {e}", args.out.display()),
        ))
    })?;
    let ron = file
        .to_ron()
        .map_err(|e| Failure::Input(format!("could not write the room file: {e}")))?;
    let mut written = Vec::new();
    let mut write = |file: String, bytes: &[u8]| -> Result<(), Failure> {
        let path = args.out.join(file);
        std::fs::write(&path, bytes).map_err(|e| {
            Failure::Output(std::io::Error::new(
                e.kind(),
                format!("{}: {e}", path.display()),
            ))
        })?;
        written.push(path);
        Ok(())
    };
    write(format!("{name}.room.ron"), ron.as_bytes())?;
    for (file, bytes) in images {
        write(file, &bytes)?;
    }
    for path in written {
        println!("{}", path.display());
    }
    Ok(())
}

/// A `.crm` file's stem; `room` and the folder's name for a folder (`Rooms/1` is
/// `room1`).
fn default_name(room: &Path) -> String {
    let stem = room
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "room".into());
    if room.is_dir() && !stem.starts_with("room") {
        format!("room{stem}")
    } else {
        stem
    }
}
