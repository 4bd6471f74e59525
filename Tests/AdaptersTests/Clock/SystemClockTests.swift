import Adapters
import Domain
import Foundation
import Testing

@Suite("SystemClock on Linux")
struct SystemClockTests {
    @Test("the boot-time reading carries the kernel's boot id, without its newline", .enabled(if: FileManager.default.fileExists(atPath: "/proc/sys/kernel/random/boot_id")))
    func bootID() throws {
        let kernel = try String(contentsOfFile: "/proc/sys/kernel/random/boot_id", encoding: .utf8)
        let reading = try #require(SystemClock().bootTime())
        #expect(reading.bootID == kernel.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(reading.bootID.count == 36)
    }
}
