import Adapters
import Domain
import Foundation
import PortContracts
import Testing

/// Notifiers against `NotifierContract`: notify-send as a process (a
/// stand-in script on PATH that records its title), and the in-memory spy.
@Suite("Notifiers keep the Notifier contract")
struct NotifierContractTests {
    @Test(arguments: NotifierContract.checks)
    func notifySend(_ check: ContractCheck<NotifierContract.Factory>) async throws {
        try await check.run {
            let directory = TemporaryDirectory()
            let shown = directory.file("shown")
            let script = directory.file("notify-send")
            // notify-send --app-name=retime TITLE BODY: one line per notification.
            try "#!/bin/sh\nprintf '%s\\n' \"$2\" >> '\(shown)'\n".write(toFile: script, atomically: true, encoding: .utf8)
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: script)
            let notifier = try #require(NotifySendNotifier.make(logPath: directory.file("notify.log"),
                                                                environment: ["PATH": directory.path, "DBUS_SESSION_BUS_ADDRESS": "unix:path=/dev/null"]))
            return .init(notifier: notifier, shown: { count in
                try await eventually {
                    let lines = ((try? String(contentsOfFile: shown, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
                    return lines.count >= count ? lines : nil
                }
            })
        }
    }

    @Test(arguments: NotifierContract.checks)
    func inMemory(_ check: ContractCheck<NotifierContract.Factory>) async throws {
        try await check.run {
            let spy = InMemoryEventHooks()
            return .init(notifier: spy, shown: { _ in spy.events.map { "\($0.kind.rawValue) \($0.groupName ?? "")" } })
        }
    }
}
