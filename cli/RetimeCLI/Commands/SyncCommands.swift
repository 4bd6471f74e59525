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
            discussion: "A device's last change is the newest change of it that this machine has. Behind is how long ago the oldest change of this device that the other has not yet recorded seeing was made ('up to date' when it has them all; 'unknown' when it never recorded one). A device whose clock is off from this one's by more than a minute is named, with what retime does about it. Conflict copies (*.sync-conflict-*) are merged as data, as more changes of their device: retime never needs them removed, and one may hold changes found nowhere else. Files that do not read are named: another device's is left out until it reads (its own device mends it with 'retime doctor --repair'); this device's is an error until repaired.")
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
                         "behindSeconds": entry.behindSeconds.map { .int(Int64($0)) } ?? .null,
                         "clockOffsetSeconds": entry.clockOffsetSeconds.map { .int(Int64($0)) } ?? .null])
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
            lines.append("Conflict copies (merged as data, as more changes of their device; keep them: one may hold changes found nowhere else):")
            lines += status.conflicts.map { "  " + $0 }
        }
        if status.unreadable.isEmpty {
            lines.append("Every data file could be read.")
        } else {
            lines.append("Files retime could not read (another device's are left out until they read; each device mends its own):")
            lines += status.unreadable.map { "  " + $0 }
        }
        for entry in status.clocksOff {
            lines.append(clockFinding(entry))
        }
        return lines.joined(separator: "\n")
    }

    /// "laptop: its clock is about 1h ahead; ..." and what retime does.
    static func clockFinding(_ entry: SyncStatus.Device) -> String {
        let offset = TimeInterval(entry.clockOffsetSeconds ?? 0)
        // Behind is only ever an upper bound: a change that came late (a
        // laptop asleep, a link down) reads the same as a slow clock.
        return (entry.name ?? entry.id) + ": " + ClockOffsetText.itsClock(offset) + " of this one's"
            + (offset < 0 ? " (or its changes reached this machine that late)" : "") + "; "
            + "a session started on whichever of the two runs behind is judged by that clock, so neither ends the other's early"
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
