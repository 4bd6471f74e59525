import FoundationEssentials
import Synchronization

/// What on this machine answers names without the user's own process
/// sending DNS to port 53, which the name layer's redirect (by socket
/// owner) never sees: glibc's `nss-resolve` (named in the `hosts:` line of
/// `/etc/nsswitch.conf`, it asks systemd-resolved over its socket) and a
/// running `nscd` (it resolves as its own user, for everyone). `system
/// status` says so in plain words rather than let a block look whole. The
/// files are a seam: tests give their own, never the host's `/etc`.
public final class NameLookupBypasses: Sendable {
    let nsswitch: String
    let proc: String
    /// How long a finding is reused: every answer of the service carries
    /// the layers' reports, and a user's flood of them must not become a
    /// flood of `/proc` scans.
    static let reuse: TimeInterval = 10
    private let cached = Mutex<(at: Date, findings: [String])?>(nil)

    public init(nsswitch: String = "/etc/nsswitch.conf", proc: String = "/proc") {
        self.nsswitch = nsswitch
        self.proc = proc
    }

    /// Each way around the name layer found, as a phrase; empty when none.
    public func findings(at now: Date = Date()) -> [String] {
        if let cached = cached.withLock({ $0 }), now.timeIntervalSince(cached.at) < Self.reuse, now >= cached.at {
            return cached.findings
        }
        var found: [String] = []
        if let sources = Self.hostsSources(in: (try? String(contentsOfFile: nsswitch, encoding: .utf8)) ?? ""),
           sources.contains("resolve") {
            found.append("glibc's nss-resolve (\(nsswitch): hosts: \(sources.joined(separator: " "))) asks systemd-resolved over its socket, "
                         + "not port 53: programs resolving through it are not refused by the name layer (put dns before resolve there)")
        }
        if let pid = Self.running("nscd", in: proc) {
            found.append("nscd (pid \(pid)) resolves names as its own user for everyone: lookups it answers are not refused by "
                         + "the name layer (stop it, or set 'enable-cache hosts no' in /etc/nscd.conf)")
        }
        cached.withLock { $0 = (now, found) }
        return found
    }

    /// The sources of the `hosts:` line, actions (`[!UNAVAIL=return]`)
    /// left out; nil without one.
    static func hostsSources(in text: String) -> [String]? {
        for line in text.split(separator: "\n") {
            let content = line.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            let trimmed = content.trimmedSpaces
            guard trimmed.hasPrefix("hosts:") else { continue }
            var sources: [String] = [], inAction = false
            for word in trimmed.dropFirst("hosts:".count).split(whereSeparator: { $0 == " " || $0 == "\t" }) {
                if word.hasPrefix("[") { inAction = true }
                if !inAction { sources.append(String(word)) }
                if word.hasSuffix("]") { inAction = false }
            }
            return sources
        }
        return nil
    }

    /// The pid of a process whose command name is `name`, if one runs.
    static func running(_ name: String, in proc: String) -> Int? {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: proc) else { return nil }
        for entry in entries {
            guard let pid = Int(entry),
                  let comm = try? String(contentsOfFile: proc + "/" + entry + "/comm", encoding: .utf8) else { continue }
            if comm.trimmed == name { return pid }
        }
        return nil
    }
}
