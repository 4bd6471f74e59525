import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// The app layer's look at whole trees: at a reading of every process, and
/// below an app found as it starts.
extension AppLayer {
    /// Every process: the blocked apps, and the whole tree of the user's
    /// processes below each (and below each process being ended).
    func scanAll() {
        let matcher = state.withLock { $0.matcher }
        let entries = ProcessTable.pids().compactMap(ProcessTable.entry)
        logger.debug("every process looked at", metadata: ["processes": "\(entries.count)"])
        var children: [Int32: [ProcessTable.Entry]] = [:]
        for entry in entries { children[entry.parent, default: []].append(entry) }
        var below: [(entry: ProcessTable.Entry, app: String, deadline: Date)] = []
        for entry in entries {
            if let doomed = terminations.doomed(entry.pid), doomed.uid == entry.uid {
                below.append((entry, terminations.app(entry.pid) ?? entry.comm, doomed.deadline))
            } else if let app = matcher.match(entry) {
                let deadline = deadline(entry, app)
                end(entry, app: app, inTree: false, deadline: deadline, matcher)
                below.append((entry, app, deadline))
            }
        }
        var seen = Set(below.map(\.entry.pid))
        while let (parent, app, deadline) = below.popLast() {
            for child in children[parent.pid] ?? [] where child.uid == parent.uid && !matcher.spared(child) && seen.insert(child.pid).inserted {
                end(child, app: app, inTree: true, deadline: deadline, matcher)
                below.append((child, app, deadline))
            }
        }
    }

    /// The tree below an app found as it exec'd or renamed itself: what it
    /// forked before is its user's, and ended with it.
    func endChildren(of app: ProcessTable.Entry, app name: String, _ matcher: AppMatcher) {
        guard let deadline = terminations.doomed(app.pid)?.deadline else { return }
        var below = [app.pid], seen: Set<Int32> = [app.pid]
        while let parent = below.popLast() {
            for pid in ProcessTable.children(parent) where seen.insert(pid).inserted {
                guard let child = ProcessTable.entry(pid), child.uid == app.uid, !matcher.spared(child) else { continue }
                end(child, app: name, inTree: true, deadline: deadline, matcher)
                below.append(pid)
            }
        }
    }
}
