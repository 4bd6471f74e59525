import Domain

/// The rules every `SessionHistory` keeps: append-only, idempotent by id,
/// queried newest first with `since` inclusive and `until` exclusive.
public enum SessionHistoryContract {
    public typealias Factory = @Sendable () async throws -> any SessionHistory

    /// Three sessions starting at 0 s, 1000 s and 2000 s, in two groups.
    static func seeded(_ make: Factory) async throws -> (any SessionHistory, [Session], GroupID, GroupID) {
        let history = try await make()
        let (a, b) = (GroupID(), GroupID())
        let sessions = [
            Fixtures.endedSession(group: a, startingAt: 0),
            Fixtures.endedSession(group: b, startingAt: 1_000),
            Fixtures.endedSession(group: a, startingAt: 2_000),
        ]
        for session in sessions.shuffled() { try await history.append(session) }
        return (history, sessions, a, b)
    }

    public static let checks: [ContractCheck<Factory>] = [
        ContractCheck("an empty history returns nothing") { make in
            try requireEqual(try await make().sessions(matching: .all), [], "sessions(matching: .all)")
        },
        ContractCheck("an appended session reads back equal in every field") { make in
            let history = try await make()
            let session = Fixtures.endedSession(startingAt: 0)
            let strict = Fixtures.session(startingAt: 5_000, strict: true).ending(at: Fixtures.instant(6_500), outcome: .completed)
            try await history.append(session)
            try await history.append(strict)
            try requireEqual(try await history.sessions(matching: .all), [strict, session], "history")
        },
        ContractCheck("holds says which sessions are recorded, by id, whatever else the session says") { make in
            let (history, s, _, _) = try await seeded(make)
            for session in s { try requireEqual(try await history.holds(session), true, "holds \(session.id)") }
            try requireEqual(try await history.holds(Fixtures.endedSession(startingAt: 1_000)), false, "another id at the same start")
            // Deleted from history, or its start moved: it had ended all the same.
            try await history.amend(.delete(s[0].id, at: Fixtures.instant(9_000)))
            try requireEqual(try await history.holds(s[0]), true, "a deleted session")
            try await history.amend(.revise(Fixtures.endedSession(startingAt: 5_000_000).withID(s[1].id), at: Fixtures.instant(9_001)))
            try requireEqual(try await history.holds(s[1]), true, "a session whose start was moved to another month")
        },
        ContractCheck("holds(id:) says which sessions are recorded by their id alone, whatever month they started in") { make in
            let (history, s, _, _) = try await seeded(make)
            let later = Fixtures.endedSession(startingAt: 5_000_000)
            try await history.append(later)
            for session in s + [later] { try requireEqual(try await history.holds(id: session.id), true, "holds(id:) \(session.id)") }
            try requireEqual(try await history.holds(id: SessionID()), false, "an id never recorded")
            try await history.amend(.delete(later.id, at: Fixtures.instant(5_000_100)))
            try requireEqual(try await history.holds(id: later.id), true, "a deleted session")
        },
        ContractCheck("sessions come newest start first") { make in
            let (history, sessions, _, _) = try await seeded(make)
            try requireEqual(try await history.sessions(matching: .all), sessions.reversed(), "order")
        },
        ContractCheck("since is inclusive and until exclusive, on the exact instant") { make in
            let (history, s, _, _) = try await seeded(make)
            let at1000 = Fixtures.instant(1_000)
            try requireEqual(try await history.sessions(matching: .init(since: at1000)), [s[2], s[1]], "since 1000")
            try requireEqual(try await history.sessions(matching: .init(until: at1000)), [s[0]], "until 1000")
            try requireEqual(try await history.sessions(matching: .init(since: at1000, until: Fixtures.instant(2_000))),
                             [s[1]], "since 1000 until 2000")
            try requireEqual(try await history.sessions(matching: .init(since: at1000.addingTimeInterval(0.001))),
                             [s[2]], "since just after 1000")
            try requireEqual(try await history.sessions(matching: .init(since: at1000, until: at1000)), [], "empty range")
        },
        ContractCheck("the group filter keeps only that group's sessions") { make in
            let (history, s, a, b) = try await seeded(make)
            try requireEqual(try await history.sessions(matching: .init(groupId: a)), [s[2], s[0]], "group a")
            try requireEqual(try await history.sessions(matching: .init(groupId: b)), [s[1]], "group b")
            try requireEqual(try await history.sessions(matching: .init(groupId: GroupID())), [], "unknown group")
        },
        ContractCheck("limit keeps the newest, after filtering") { make in
            let (history, s, a, _) = try await seeded(make)
            try requireEqual(try await history.sessions(matching: .init(limit: 2)), [s[2], s[1]], "limit 2")
            try requireEqual(try await history.sessions(matching: .init(limit: 0)), [], "limit 0")
            try requireEqual(try await history.sessions(matching: .init(limit: 10)).count, 3, "limit above count")
            try requireEqual(try await history.sessions(matching: .init(groupId: a, limit: 1)), [s[2]], "group a, limit 1")
            try requireEqual(try await history.sessions(matching: .init(until: Fixtures.instant(2_000), limit: 1)),
                             [s[1]], "until 2000, limit 1")
        },
        ContractCheck("appending a session already recorded changes nothing") { make in
            let history = try await make()
            let session = Fixtures.endedSession(startingAt: 0)
            try await history.append(session)
            try await history.append(session)
            try requireEqual(try await history.sessions(matching: .all), [session], "history after a repeated append")
        },
        ContractCheck("a batch append keeps every session once, whatever was recorded before or repeated") { make in
            let history = try await make()
            // Sessions months apart land in different segments of a file adapter.
            let sessions = (0..<30).map { Fixtures.endedSession(startingAt: Double($0) * 86_400 * 5) }
            try await history.append(sessions[3])
            try requireEqual(try await history.append(contentsOf: sessions + [sessions[7], sessions[0]]), 29,
                             "recorded by the batch: all but the one recorded before and the repeats")
            try requireEqual(try await history.append(contentsOf: Array(sessions[10..<20])), 0, "recorded by a repeated batch")
            let read = try await history.sessions(matching: .all)
            try requireEqual(read.count, 30, "sessions after batches with repeats")
            try requireEqual(Set(read), Set(sessions), "the sessions, equal in every field")
        },
        ContractCheck("spans are the matching sessions' spans, each once, limit aside") { make in
            let history = try await make()
            let group = GroupID()
            let sessions = (0..<12).map { Fixtures.endedSession(group: $0 % 3 == 0 ? group : GroupID(), startingAt: Double($0) * 86_400 * 3) }
            try await history.append(contentsOf: sessions + [sessions[4]])
            let all = try await history.spans(matching: .init(limit: 2))
            try requireEqual(Set(all), Set(sessions.compactMap { SessionSpan($0) }), "all spans")
            try requireEqual(all.count, 12, "each once")
            let query = HistoryQuery(since: sessions[3].startedAt, until: sessions[10].startedAt, groupId: group)
            try requireEqual(Set(try await history.spans(matching: query)),
                             Set(sessions.filter(query.matches).compactMap { SessionSpan($0) }), "filtered spans")
        },
        ContractCheck("concurrent appends are all kept") { make in
            let history = try await make()
            let sessions = (0..<50).map { Fixtures.endedSession(startingAt: Double($0) * 700) }
            try await withThrowingTaskGroup(of: Void.self) { tasks in
                for session in sessions { tasks.addTask { try await history.append(session) } }
                try await tasks.waitForAll()
            }
            try requireEqual(Set(try await history.sessions(matching: .all)), Set(sessions), "history")
        },
        ContractCheck("an edit reads back as its revision, a deletion leaves the session out; spans follow both") { make in
            let (history, sessions, a, _) = try await seeded(make)
            let moved = Fixtures.endedSession(group: a, startingAt: 5_000).withID(sessions[0].id)
            try await history.amend(.revise(moved, at: Fixtures.instant(9_000)))
            try await history.amend(.delete(sessions[1].id, at: Fixtures.instant(9_001)))
            try requireEqual(try await history.sessions(matching: .all), [moved, sessions[2]], "amended, newest first")
            try requireEqual(try await history.sessions(matching: HistoryQuery(limit: 1)), [moved], "the limit counts the revision")
            try requireEqual(try await history.sessions(matching: HistoryQuery(until: Fixtures.instant(1_500))), [],
                             "the old start no longer matches")
            try requireEqual(Set(try await history.spans(matching: .all).map(\.id)), [moved.id, sessions[2].id], "spans")
            try requireEqual(try await history.spans(matching: .all).first { $0.id == moved.id }?.startedAt, moved.startedAt,
                             "the span is the revision's")
        },
        ContractCheck("the amendment recorded last wins, even stamped earlier by the wall clock (a clock set back); a deletion made last wins") { make in
            let (history, sessions, a, _) = try await seeded(make)
            let first = Fixtures.endedSession(group: a, startingAt: 3_000).withID(sessions[2].id)
            let second = Fixtures.endedSession(group: a, startingAt: 4_000).withID(sessions[2].id)
            try await history.amend(.revise(first, at: Fixtures.instant(9_500)))
            try await history.amend(.revise(second, at: Fixtures.instant(9_400)))
            try requireEqual(try await history.sessions(matching: .all).first, second, "the revision recorded last")
            try await history.amend(.delete(sessions[2].id, at: Fixtures.instant(9_000)))
            try requireEqual(try await history.sessions(matching: .all).map(\.id), [sessions[1].id, sessions[0].id], "deleted")
        },
        ContractCheck("edits of different fields both hold: one of the tags, then one of the note made from the session before it") { make in
            let (history, sessions, _, _) = try await seeded(make)
            let before = sessions[2]
            let tagged = before.with(tags: before.tags + ["x"], note: before.note)
            let noted = before.with(tags: before.tags, note: "y")
            try await history.amend(.edit(tagged, SessionChanges(from: before, to: tagged), at: Fixtures.instant(9_000)))
            try await history.amend(.edit(noted, SessionChanges(from: before, to: noted), at: Fixtures.instant(9_000)))
            let both = before.with(tags: before.tags + ["x"], note: "y")
            try requireEqual(try await history.sessions(matching: .all).first, both, "both edits")
            try requireEqual(try await history.spans(matching: HistoryQuery(spansWithTags: true)).first { $0.id == before.id }?.tags,
                             both.tags, "the span's tags")
        },
        ContractCheck("amendments recorded as one all read back: a revision, a restored deletion, a new deletion") { make in
            let (history, sessions, a, _) = try await seeded(make)
            try await history.amend(.delete(sessions[0].id, at: Fixtures.instant(9_000)))
            let moved = Fixtures.endedSession(group: a, startingAt: 4_000).withID(sessions[2].id)
            try await history.amend(contentsOf: [.revise(sessions[0], at: Fixtures.instant(9_100)), .delete(sessions[1].id, at: Fixtures.instant(9_100)),
                                                 .revise(moved, at: Fixtures.instant(9_100))])
            try requireEqual(try await history.sessions(matching: .all), [moved, sessions[0]], "the batch, whole")
            try await history.amend(contentsOf: [])
            try await history.amend(contentsOf: [.revise(sessions[2], at: Fixtures.instant(9_200))])
            try requireEqual(try await history.sessions(matching: .all), [sessions[2], sessions[0]], "a batch of one")
        },
        ContractCheck("segments' spans resolved with the amendments are the spans, for every range") { make in
            let history = try await make()
            let a = GroupID()
            // Months apart, so a file adapter has several segments.
            let sessions = (0..<24).map { Fixtures.endedSession(group: a, startingAt: Double($0) * 86_400 * 9) }
            try await history.append(contentsOf: sessions)
            try await history.amend(.revise(Fixtures.endedSession(group: a, startingAt: 86_400 * 100).withID(sessions[2].id),
                                            at: Fixtures.instant(9_000)))
            try await history.amend(.delete(sessions[5].id, at: Fixtures.instant(9_001)))
            for query in [HistoryQuery(), HistoryQuery(since: sessions[4].startedAt), HistoryQuery(until: sessions[20].startedAt),
                          HistoryQuery(since: Fixtures.instant(86_400 * 40), until: Fixtures.instant(86_400 * 120))] {
                let listed = try await history.segments(matching: query)
                let parts = try await history.spans(in: listed.segments, matching: query)
                try requireEqual(parts.count, listed.segments.count, "a list of spans per segment")
                let resolved = HistorySpans.resolve(parts, deduplicated: listed.deduplicated, amended: try await history.amendedSpans(matching: query))
                let spans = try await history.spans(matching: query)
                try requireEqual(resolved.count, spans.count, "how many, \(query)")
                try requireEqual(Set(resolved), Set(spans), "the spans, \(query)")
            }
        },
        ContractCheck("a segment of a month holds only sessions that started in it, and its version moves when one is added") { make in
            let history = try await make()
            let sessions = (0..<6).map { Fixtures.endedSession(startingAt: Double($0) * 86_400 * 20) }
            try await history.append(contentsOf: sessions)
            let before = try await history.segments(matching: .all).segments
            for (segment, spans) in zip(before, try await history.spans(in: before, matching: .all)) {
                guard let month = segment.month else { continue }
                for span in spans { try require(month.contains(span.startedAt), "\(span.startedAt) is in \(segment.name)") }
            }
            let added = Fixtures.endedSession(startingAt: 86_400 * 20 + 3_600)
            try await history.append(added)
            let after = try await history.segments(matching: .all).segments
            for segment in before where segment.month?.contains(added.startedAt) ?? true {
                guard let version = segment.version, let now = after.first(where: { $0.device == segment.device && $0.name == segment.name })
                else { continue }
                try require(now.version != version, "\(segment.name)'s version after an append: \(now.version ?? "none")")
            }
        },
    ]
}

extension Session {
    /// The same session with other tags and note.
    func with(tags: [String], note: String?) -> Session {
        Session(id: id, groupId: groupId, startedAt: startedAt, plannedEnd: plannedEnd, endedAt: endedAt, outcome: outcome, strict: strict,
                breaks: breaks, tags: tags, note: note, origin: origin, bootDeadline: bootDeadline, shield: shield, groupName: groupName)
    }
}
