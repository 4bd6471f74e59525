import FoundationEssentials

/// What a data folder shared by several devices holds, as this device finds
/// it: the raw facts `sync status` is worked out from.
public struct SyncSurvey: Sendable, Equatable {
    /// One device's folders (`devices/<id>/`, `history/<id>/`).
    public struct Device: Sendable, Equatable {
        public var id: String
        /// The name in its `device.json`; nil when none is set or readable.
        public var name: String?
        /// The newest change this machine has from that device.
        public var lastChange: HybridTimestamp?
        /// What its `device.json` says it has seen of each other device:
        /// the newest change of that device it had.
        public var seen: [String: HybridTimestamp]

        public init(id: String, name: String? = nil, lastChange: HybridTimestamp? = nil, seen: [String: HybridTimestamp] = [:]) {
            self.id = id
            self.name = name
            self.lastChange = lastChange
            self.seen = seen
        }
    }

    /// This device's id.
    public var device: String
    /// Every device found, this one included, by id.
    public var devices: [Device]
    /// Conflict copies a sync tool made (`*.sync-conflict-*`), relative to the data folder.
    public var conflicts: [String]
    /// Data files that could not be read, relative to the data folder.
    public var unreadable: [String]
    /// This device's changes its logs hold: each one's stamp, and when it
    /// was made on this device's clock (what `behindSeconds` is told from).
    public var changes: [Change]

    /// One change of this device.
    public struct Change: Sendable, Equatable {
        public var at: HybridTimestamp
        public var madeAt: Date

        public init(at: HybridTimestamp, madeAt: Date) {
            self.at = at
            self.madeAt = madeAt
        }
    }

    public init(device: String, devices: [Device], conflicts: [String] = [], unreadable: [String] = [], changes: [Change] = []) {
        self.device = device
        self.devices = devices
        self.conflicts = conflicts
        self.unreadable = unreadable
        self.changes = changes
    }
}

/// `retime sync status`: every device with its last change, how far it lags
/// behind this one and how far its clock is from this one's; the conflict
/// copies and the unreadable files.
public struct SyncStatus: Sendable, Equatable {
    public struct Device: Sendable, Equatable {
        public var id: String
        public var name: String?
        public var lastChangeAt: Date?
        /// How long ago the oldest change of this device that the other has
        /// not yet recorded seeing was made: 0 when it has them all, nil when
        /// it never recorded one (semantics.md, "Devices you can trust").
        public var behindSeconds: Int?
        /// How far its clock is ahead of this one's (negative: behind), as
        /// this device estimates it; nil when nothing tells.
        public var clockOffsetSeconds: Int?

        public init(id: String, name: String?, lastChangeAt: Date?, behindSeconds: Int?, clockOffsetSeconds: Int? = nil) {
            self.id = id
            self.name = name
            self.lastChangeAt = lastChangeAt
            self.behindSeconds = behindSeconds
            self.clockOffsetSeconds = clockOffsetSeconds
        }

        /// Whether its clock is off from this one's by more than two clocks
        /// that agree are (`clockAgreement`).
        public var clockIsOff: Bool { clockOffsetSeconds.map { abs($0) > SyncStatus.clockAgreement } ?? false }
    }

    /// Two clocks within this many seconds of each other agree.
    public static let clockAgreement = 60

    public var device: Device
    public var devices: [Device]
    public var conflicts: [String]
    public var unreadable: [String]

    /// What this device has seen of every other: its newest change.
    public var seen: [String: HybridTimestamp]

    /// Works the status out of a survey, at `now` on this device's clock;
    /// `offsets`: each other device's clock against this one's.
    public init(_ survey: SyncSurvey, now: Date = Date(timeIntervalSince1970: 0), offsets: [String: TimeInterval] = [:]) {
        let own = survey.devices.first { $0.id == survey.device }
        let changes = survey.changes.sorted { $0.at < $1.at }
        devices = survey.devices.sorted { $0.id < $1.id }.map { device in
            var behind: Int?
            if device.id == survey.device {
                behind = 0
            } else if let recorded = device.seen[survey.device] {
                // The oldest change it has not recorded seeing: how long ago.
                behind = changes.first { $0.at > recorded }.map { Int(max(0, now.timeIntervalSince($0.madeAt))) } ?? 0
            }
            return Device(id: device.id, name: device.name, lastChangeAt: device.lastChange?.date, behindSeconds: behind,
                          clockOffsetSeconds: device.id == survey.device ? 0 : offsets[device.id].map { Int($0.rounded()) })
        }
        device = devices.first { $0.id == survey.device }
            ?? Device(id: survey.device, name: own?.name, lastChangeAt: nil, behindSeconds: 0, clockOffsetSeconds: 0)
        conflicts = survey.conflicts.sorted()
        unreadable = survey.unreadable.sorted()
        var seen: [String: HybridTimestamp] = [:]
        for other in survey.devices where other.id != survey.device {
            if let last = other.lastChange { seen[other.id] = last }
        }
        self.seen = seen
    }

    /// Devices whose lag is over `limit` seconds.
    public func behind(moreThan limit: Int) -> [Device] {
        devices.filter { ($0.behindSeconds ?? 0) > limit }
    }

    /// Devices whose clock is off from this one's by more than a minute.
    public var clocksOff: [Device] { devices.filter(\.clockIsOff) }
}
