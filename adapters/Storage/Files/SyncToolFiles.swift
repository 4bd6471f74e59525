/// Which names in a shared data folder belong to a folder-sync tool
/// (docs/storage.md, "Devices"): its temporary and partial files, never
/// data, and the conflict copies it makes, always data.
public enum SyncToolFiles {
    /// A file a sync tool is still writing: Syncthing's `.syncthing.NAME.tmp`
    /// and `~syncthing~NAME.tmp`, Nextcloud's `NAME.part` and `.~lockNAME#`,
    /// rsync's `.NAME.XXXXXX` (any dot-prefixed name, which retime's own
    /// temporaries and locks are too). Read as data, a half-copied file
    /// would be damage that is not there.
    public static func isTemporary(_ name: String) -> Bool {
        name.hasPrefix(".")
            || (name.hasPrefix("~syncthing~") && name.hasSuffix(".tmp"))
            || name.hasSuffix(".part")
            || name.hasPrefix(".~lock")
    }

    /// The marker Syncthing puts in a conflict copy's name:
    /// `NAME.sync-conflict-YYYYMMDD-HHMMSS-DEVICE.EXT`.
    public static let conflictMarker = ".sync-conflict-"

    /// Whether `name` is a conflict copy (and not a sync tool's temporary of one).
    public static func isConflictCopy(_ name: String) -> Bool {
        !isTemporary(name) && name.contains(conflictMarker)
    }

    /// The name a conflict copy stands for (`2026-11.jsonl` for
    /// `2026-11.sync-conflict-20261124-101010-ABCDEFG.jsonl`); the name
    /// itself when it is none.
    public static func original(of name: String) -> String {
        guard isConflictCopy(name), let marker = name.firstRange(of: conflictMarker) else { return name }
        let stem = name[..<marker.lowerBound]
        let rest = name[marker.upperBound...]
        // YYYYMMDD-HHMMSS-DEVICE, then the extension (if any) after the device's dot.
        guard let dot = rest.firstIndex(of: ".") else { return String(stem) }
        return String(stem) + String(rest[dot...])
    }
}
