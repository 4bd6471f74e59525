import FoundationEssentials
import RetimeGroup
import RetimeSchedule
import RetimeSession

/// What an import source read from another tool's data: sessions with the
/// names of their groups (a Watson project, a Timewarrior first tag), and
/// the lines it could not use.
public struct ImportBatch: Sendable, Equatable {
    /// One session to import. Its id is derived from the source's data, so
    /// reading the same data twice gives the same ids (imports are idempotent).
    public struct Record: Sendable, Equatable {
        public var session: Session
        public var groupName: String
        /// The group's id and targets where the source knows them (a retime export).
        public var groupId: GroupID?
        public var groupTargets: [Target]
        /// Where the entry was, for reporting a problem the import finds later
        /// (a name that cannot be a group): its line, and the file when a
        /// source has several.
        public var line: Int
        public var file: String?
        /// The session's group was deleted where it was exported: it keeps
        /// its group id and the name it ran under, and no group is made for
        /// it (as it was: history remembers a deleted group by its id).
        public var groupDeleted: Bool

        public init(session: Session, groupName: String, groupId: GroupID? = nil, groupTargets: [Target] = [],
                    line: Int = 0, file: String? = nil, groupDeleted: Bool = false) {
            self.groupDeleted = groupDeleted
            self.session = session
            self.groupName = groupName
            self.groupId = groupId
            self.groupTargets = groupTargets
            self.line = line
            self.file = file
        }
    }

    /// A line (or entry) skipped, and why.
    public struct Problem: Sendable, Equatable, CustomStringConvertible {
        public var line: Int
        public var message: String

        public init(line: Int, message: String) {
            self.line = line
            self.message = message
        }

        public var description: String { "line \(line): \(message)" }
    }

    public var records: [Record]
    public var problems: [Problem]
    /// The rest of a retime backup (`export --format json`): every group,
    /// even those without sessions, the schedules and the settings.
    public var backup: Backup?

    /// What a backup holds besides history. Never a passcode.
    public struct Backup: Sendable, Equatable {
        public var groups: [ImportGroupRequest]
        public var schedules: [Schedule]
        public var settings: [String: String]

        public init(groups: [ImportGroupRequest], schedules: [Schedule], settings: [String: String]) {
            self.groups = groups
            self.schedules = schedules
            self.settings = settings
        }
    }

    public init(records: [Record] = [], problems: [Problem] = [], backup: Backup? = nil) {
        self.records = records
        self.problems = problems
        self.backup = backup
    }
}

/// What an import did.
public struct ImportSummary: Sendable, Equatable {
    /// Entries read from the source, whether they could be imported or not:
    /// `imported + updated + alreadyPresent + problems.count` (each entry is
    /// one of the four).
    public var read: Int
    /// Sessions added to history.
    public var imported: Int
    /// Sessions already in history (an earlier import of the same data), left alone.
    public var alreadyPresent: Int
    /// Groups created for names history did not know yet.
    public var groupsCreated: [String]
    /// Lines skipped, with why.
    public var problems: [ImportBatch.Problem]
    /// Sessions of an earlier import whose entries were changed in their
    /// tool since, updated in place.
    public var updated = 0
    /// Sessions imported earlier from the same tool, within the time this
    /// import's entries span, that no entry matched: deleted in the tool
    /// since, or moved where nothing tells which they became. Left in
    /// history, and counted so the user can look.
    public var gone = 0
    /// Of `imported`, sessions deleted here since an earlier import (its
    /// `undo`, or `delete`) and brought back: the source still has them.
    public var restored = 0
    /// From a retime backup: schedules and settings added.
    public var schedulesRestored = 0
    public var settingsRestored = 0
}
