#if canImport(Glibc)
import Glibc
#endif
import Adapters
import Domain
import Foundation
import PortContracts
import Synchronization
import Testing

/// Collects what a stream handler writes.
final class Capture: Sendable {
    let text = Mutex("")
    func write(_ line: String) { text.withLock { $0 += line } }
    var lines: [String] { text.withLock { $0 }.split(separator: "\n").map(String.init) }
}

@Suite("Log and tracker adapters")
struct LoggingAdapterTests {
    static let instant = Date(timeIntervalSince1970: 1_800_000_000)

    @Test(arguments: LogHandlerContract.checks)
    func streamHandlerContract(_ check: ContractCheck<LogHandlerContract.Factory>) async throws {
        try await check.run { StreamLogHandler(level: .trace, toJournal: false, now: { Self.instant }, write: { _ in }) }
    }

    @Test(arguments: LogHandlerContract.checks)
    func fileHandlerContract(_ check: ContractCheck<LogHandlerContract.Factory>) async throws {
        let file = RotatingFile(path: TemporaryDirectory().file("logs/daemon.log"))
        try await check.run { FileLogHandler(file: file, level: .trace) }
    }

    @Test(arguments: TrackerContract.checks)
    func jsonLinesTrackerContract(_ check: ContractCheck<TrackerContract.Factory>) async throws {
        try await check.run {
            let tracker = JSONLinesTracker(file: RotatingFile(path: TemporaryDirectory().file("events.jsonl"), maxBytes: 10_000_000))
            return .init(tracker: tracker, recorded: { try tracker.recorded() })
        }
    }

    @Test("the stream handler writes swift-log's line: timestamp level label: key=value message")
    func streamFormat() {
        let capture = Capture()
        var handler = StreamLogHandler(level: .info, toJournal: false, now: { Self.instant }, write: capture.write)
        handler[metadataKey: "session"] = "s1"
        let logger = Logger(label: "retime.cli", handler: handler)
        logger.debug("hidden")
        logger.warning("lock held\nlong", metadata: ["path": "/x"])
        let line = capture.lines.first
        #expect(capture.lines.count == 1)
        #expect(line?.wholeMatch(of: /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d{4} warning retime.cli: path=\/x session=s1 lock held\\nlong/) != nil)
    }

    @Test("writing to the journal, lines carry syslog priorities and no timestamp")
    func journalFormat() {
        let capture = Capture()
        let logger = Logger(label: "retime.daemon", handler: StreamLogHandler(level: .trace, toJournal: true, now: { Self.instant }, write: capture.write))
        logger.error("e")
        logger.info("i")
        logger.debug("d")
        logger.critical("c")
        #expect(capture.lines == ["<3>error retime.daemon: e", "<6>info retime.daemon: i", "<7>debug retime.daemon: d", "<2>critical retime.daemon: c"])
    }

    @Test("JOURNAL_STREAM is believed only when it names the descriptor's own device and inode")
    func journalDetection() throws {
        let path = TemporaryDirectory().file("stream")
        #expect(FileManager.default.createFile(atPath: path, contents: nil))
        let fd = open(path, O_WRONLY)
        defer { close(fd) }
        var info = stat()
        fstat(fd, &info)
        #expect(StreamLogHandler.isJournal(fileDescriptor: fd, environment: ["JOURNAL_STREAM": "\(info.st_dev):\(info.st_ino)"]))
        #expect(!StreamLogHandler.isJournal(fileDescriptor: fd, environment: ["JOURNAL_STREAM": "\(info.st_dev):\(info.st_ino + 1)"]))
        #expect(!StreamLogHandler.isJournal(fileDescriptor: fd, environment: ["JOURNAL_STREAM": "garbage"]))
        #expect(!StreamLogHandler.isJournal(fileDescriptor: fd, environment: [:]))
    }

    @Test("the file handler rotates by size, keeping the configured number of old files")
    func rotation() throws {
        let directory = TemporaryDirectory()
        let file = RotatingFile(path: directory.file("logs/daemon.log"), maxBytes: 1_000, keep: 2)
        let logger = Logger(label: "d", handler: FileLogHandler(file: file, level: .info, now: { Self.instant }))
        for index in 0..<100 { logger.info("message number \(index) with some padding to fill the file") }
        #expect(file.rotatedPaths == [file.path + ".1", file.path + ".2"])
        for path in [file.path] + file.rotatedPaths {
            let size = (try FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.intValue ?? 0
            #expect(size <= 1_000 && size > 0)
        }
        let newest = try String(contentsOfFile: file.path, encoding: .utf8)
        #expect(newest.contains("message number 99 "))
        #expect(!FileManager.default.fileExists(atPath: file.path + ".3"))
    }

    @Test("the JSON-lines tracker keeps events exactly, in order, across handler copies")
    func trackerFile() throws {
        let file = RotatingFile(path: TemporaryDirectory().file("events.jsonl"))
        let tracker = JSONLinesTracker(file: file)
        let event = TrackedEvent(name: "interval-skipped", at: Self.instant, properties: ["schedule": "mornings", "late": .double(0.25)])
        tracker.track(event)
        JSONLinesTracker(file: file).track(TrackedEvent(name: "second", at: Self.instant))
        #expect(try tracker.recorded() == [event, TrackedEvent(name: "second", at: Self.instant)])
    }

    @Test("the tracker writes each event as the line JSONEncoder wrote for it, byte for byte")
    func trackerLineFormat() throws {
        let events = [
            TrackedEvent(name: "session-started", at: Self.instant),
            TrackedEvent(name: "interval-skipped", at: Self.instant.addingTimeInterval(0.123), properties: [
                "schedule": "mornings / \"quoted\" \u{1} é 👩‍👩‍👧", "late": .double(0.25), "whole": .double(3),
                "tiny": .double(1e-7), "big": .double(1.5e300), "count": .int(-42), "strict": .bool(true),
                "plannedEnd": .date(Self.instant.addingTimeInterval(1_500.5)), "path": "/a/b",
            ]),
        ]
        let file = RotatingFile(path: TemporaryDirectory().file("events.jsonl"))
        events.forEach(JSONLinesTracker(file: file).track)
        let written = try String(contentsOfFile: file.path, encoding: .utf8)
        let expected = try events.map { String(decoding: try StoreJSON.encoder().encode($0), as: UTF8.self) + "\n" }.joined()
        #expect(written == expected)
    }
}
