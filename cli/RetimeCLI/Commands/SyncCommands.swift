import Domain
import FoundationEssentials
import JSONDocument

/// `retime sync status` and `retime device name [NAME]`: the devices that
/// share this data folder (docs/storage.md, "Devices").
enum SyncCommands {
    static let spec = CommandSpec("sync", summary: "Devices sharing this data folder: their last change, lag and conflicts.",
                                  subcommands: [Status.spec])
    static let deviceSpec = CommandSpec("device", summary: "This device: its name among the devices sharing the data folder.",
                                        subcommands: [Name.spec])

    struct Status: RetimeCommand {
        static let spec = CommandSpec(
            "status", summary: "Every device with its last change and how far behind this one it is; conflict copies; unreadable files.",
            discussion: "A device's last change is the newest change of it that this machine has. Behind is how far this device's newest change is ahead of the newest one that device has recorded seeing ('up to date' when caught up; 'unknown' when it never recorded one). Conflict copies (*.sync-conflict-*) are merged as data; they are listed so that you can remove them once every device has them.")
        init(_ parsed: ParsedCommand, values: DateValue) {}
        struct Services: CommandServices {
            @Resolved var status: SyncStatusUseCase
        }

        func run(_ services: Services, _ io: CommandIO) async throws -> CommandResult {
            let status = try services.status.execute()
            return CommandResult(json: SyncCommands.document(status), human: SyncCommands.text(status))
        }
    }

    struct Name: RetimeCommand {
        static let spec = CommandSpec("name", summary: "Print this device's name, or set it.",
                                      arguments: [ArgumentSpec("NAME", help: "The new name: 1-64 printable characters.", optional: true)])
        let name: String?
        init(_ parsed: ParsedCommand, values: DateValue) { name = parsed.argument("NAME") }
        struct Services: CommandServices {
            @Resolved var names: DeviceNameUseCase
        }

        func run(_ services: Services, _ io: CommandIO) async throws -> CommandResult {
            let id = try services.names.current().id
            if let name {
                let kept = try services.names.rename(to: name)
                return CommandResult(json: Documents.document(["device": SyncCommands.device(id: id, name: kept)]),
                                     human: "This device (\(id)) is now named \(kept).")
            }
            let current = try services.names.current()
            return CommandResult(json: Documents.document(["device": SyncCommands.device(id: id, name: current.name)]),
                                 human: current.name ?? "\(id) (no name is set; 'retime device name NAME' sets one)")
        }
    }

    static func device(id: String, name: String?) -> JSONValue {
        .object(["id": .string(id), "name": name.map(JSONValue.string) ?? .null])
    }

    /// `{schema, device:{id, name}, devices:[…], conflicts:[PATH], unreadable:[PATH]}`.
    static func document(_ status: SyncStatus) -> JSONValue {
        Documents.document([
            "device": device(id: status.device.id, name: status.device.name),
            "devices": .array(status.devices.map { entry in
                .object(["id": .string(entry.id), "name": entry.name.map(JSONValue.string) ?? .null,
                         "lastChangeAt": Documents.time(entry.lastChangeAt),
                         "behindSeconds": entry.behindSeconds.map { .int(Int64($0)) } ?? .null])
            }),
            "conflicts": .array(status.conflicts.map(JSONValue.string)),
            "unreadable": .array(status.unreadable.map(JSONValue.string)),
        ])
    }

    /// The table and the findings, in words.
    static func text(_ status: SyncStatus) -> String {
        var rows = [["DEVICE", "NAME", "LAST CHANGE", "BEHIND"]]
        for entry in status.devices {
            let this = entry.id == status.device.id
            rows.append([entry.id + (this ? " (this)" : ""), entry.name ?? "-",
                         entry.lastChangeAt.map { LocalTime.dateTime($0) } ?? "none",
                         this ? "-" : entry.behindSeconds.map(behind) ?? "unknown"])
        }
        let widths = (0..<4).map { column in rows.map { DisplayWidth.of($0[column]) }.max() ?? 0 }
        var lines = rows.map { row in
            row.enumerated().map { column, cell in
                column == 3 ? cell : cell + String(repeating: " ", count: widths[column] - DisplayWidth.of(cell))
            }.joined(separator: "  ")
        }
        lines.append("")
        if status.devices.count == 1 { lines.append("No other device shares this data folder yet.") }
        if status.conflicts.isEmpty {
            lines.append("No conflict copies.")
        } else {
            lines.append("Conflict copies (merged as data; remove them once every device has them):")
            lines += status.conflicts.map { "  " + $0 }
        }
        if status.unreadable.isEmpty {
            lines.append("Every data file could be read.")
        } else {
            lines.append("Files retime could not read:")
            lines += status.unreadable.map { "  " + $0 }
        }
        return lines.joined(separator: "\n")
    }

    /// `0s`, `5m`, `3h 2m`, `2d 4h`.
    static func behind(_ seconds: Int) -> String {
        if seconds == 0 { return "up to date" }
        if seconds < 60 { return "\(seconds)s" }
        if seconds < 3_600 { return "\(seconds / 60)m" }
        if seconds < 86_400 { return "\(seconds / 3_600)h \(seconds % 3_600 / 60)m" }
        return "\(seconds / 86_400)d \(seconds % 86_400 / 3_600)h"
    }
}
