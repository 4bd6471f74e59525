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

    public init(device: String, devices: [Device], conflicts: [String] = [], unreadable: [String] = []) {
        self.device = device
        self.devices = devices
        self.conflicts = conflicts
        self.unreadable = unreadable
    }
}

/// `retime sync status`: every device with its last change and how far it
/// lags behind this one, the conflict copies and the unreadable files.
public struct SyncStatus: Sendable, Equatable {
    public struct Device: Sendable, Equatable {
        public var id: String
        public var name: String?
        public var lastChangeAt: Date?
        /// This device's newest change minus the newest change of this
        /// device that the other has recorded: 0 when caught up, nil when
        /// it never recorded one.
        public var behindSeconds: Int?

        public init(id: String, name: String?, lastChangeAt: Date?, behindSeconds: Int?) {
            self.id = id
            self.name = name
            self.lastChangeAt = lastChangeAt
            self.behindSeconds = behindSeconds
        }
    }

    public var device: Device
    public var devices: [Device]
    public var conflicts: [String]
    public var unreadable: [String]

    /// What this device has seen of every other: its newest change.
    public var seen: [String: HybridTimestamp]

    /// Works the status out of a survey.
    public init(_ survey: SyncSurvey) {
        let own = survey.devices.first { $0.id == survey.device }
        let ownLast = own?.lastChange
        devices = survey.devices.sorted { $0.id < $1.id }.map { device in
            var behind: Int?
            if device.id == survey.device {
                behind = 0
            } else if let recorded = device.seen[survey.device] {
                let lag = (ownLast?.milliseconds ?? 0) - recorded.milliseconds
                behind = Int(max(0, lag) / 1_000)
            }
            return Device(id: device.id, name: device.name, lastChangeAt: device.lastChange?.date, behindSeconds: behind)
        }
        device = devices.first { $0.id == survey.device }
            ?? Device(id: survey.device, name: own?.name, lastChangeAt: nil, behindSeconds: 0)
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
}
