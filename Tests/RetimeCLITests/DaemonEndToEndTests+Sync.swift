import Domain
import Foundation
import Testing

extension DaemonEndToEndTests {
    @Test("the daemon's pass records what this device has seen of the others in its device.json (docs/storage.md, \"Devices\")")
    func daemonRecordsSeen() throws {
        let retime = RetimeProcess()
        let named = try retime.run("device", "name", "--json")
        let this = try #require((named.json["device"] as? [String: Any])?["id"] as? String, "\(named.err)")
        let other = "0b1c2d3e-0000-4000-8000-000000000002"
        let changes = retime.file("devices/\(other)/changes")
        try FileManager.default.createDirectory(atPath: changes, withIntermediateDirectories: true)
        try (#"{"at":"1795000000123-4-\#(other)","key":"g","field":"name","value":"a"}"# + "\n")
            .write(toFile: changes + "/groups.jsonl", atomically: false, encoding: .utf8)
        let daemon = try startDaemon(retime)
        defer { stop(daemon) }
        let path = retime.file("devices/\(this)/device.json")
        let recorded = eventually(within: 15) {
            guard let data = FileManager.default.contents(atPath: path),
                  let document = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { return false }
            return (document["seen"] as? [String: String])?[other] == "1795000000123-4-\(other)"
        }
        #expect(recorded, "\(String(describing: try? String(contentsOfFile: path, encoding: .utf8)))")
    }
}
