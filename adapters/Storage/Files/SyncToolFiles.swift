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
        !isTemporary(name) && markerOffset(in: name) != nil
    }

    /// The name a conflict copy stands for (`2026-11.jsonl` for
    /// `2026-11.sync-conflict-20261124-101010-ABCDEFG.jsonl`); the name
    /// itself when it is none.
    public static func original(of name: String) -> String {
        guard !isTemporary(name), let offset = markerOffset(in: name) else { return name }
        let bytes = Array(name.utf8)
        // YYYYMMDD-HHMMSS-DEVICE, then the extension (if any) after the device's dot.
        let rest = bytes[(offset + markerBytes.count)...]
        let stem = bytes[..<offset]
        guard let dot = rest.firstIndex(of: UInt8(ascii: ".")) else { return String(decoding: stem, as: UTF8.self) }
        return String(decoding: stem + bytes[dot...], as: UTF8.self)
    }

    private static let markerBytes = Array(conflictMarker.utf8)

    /// Where the marker starts in `name`'s UTF-8, compared byte by byte:
    /// `String.contains` and `firstRange(of:)` set up a searcher at each
    /// call (about 20 k instructions, 1.4 M of a `report` on ten devices'
    /// folder), and every read of history asks this of every file name in
    /// every device's folder.
    static func markerOffset(in name: String) -> Int? {
        let marker = markerBytes
        var name = name   // `withUTF8` makes a bridged string contiguous first
        return name.withUTF8 { bytes -> Int? in
            guard bytes.count >= marker.count else { return nil }
            search: for start in 0...(bytes.count - marker.count) where bytes[start] == marker[0] {
                for index in 1..<marker.count where bytes[start + index] != marker[index] { continue search }
                return start
            }
            return nil
        }
    }
}
