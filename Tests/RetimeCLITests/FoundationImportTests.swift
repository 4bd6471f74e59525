import Foundation
import Testing

/// The product's modules import FoundationEssentials, never Foundation:
/// `import Foundation` links FoundationInternationalization and ICU's data,
/// some 30 MB of the release binary (docs/performance.md, "Size"). A new
/// file that imports it would bring them back without a word; this says so.
@Suite("Foundation imports")
struct FoundationImportTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test("no source of domain/, adapters/ or cli/ imports Foundation (FoundationEssentials is what they may use)")
    func onlyEssentials() throws {
        var offenders: [String] = []
        var scanned = 0
        for folder in ["domain", "adapters", "cli"] {
            let base = Self.root.appendingPathComponent(folder)
            let files = try #require(FileManager.default.enumerator(atPath: base.path)).compactMap { $0 as? String }
            for file in files where file.hasSuffix(".swift") {
                let text = try String(contentsOf: base.appendingPathComponent(file), encoding: .utf8)
                scanned += 1
                for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
                where Self.importsFoundation(line) {
                    offenders.append("\(folder)/\(file):\(number + 1): \(line.trimmingCharacters(in: .whitespaces))")
                }
            }
        }
        #expect(scanned > 100)
        #expect(offenders.isEmpty, "import FoundationEssentials instead (and Glibc, Dispatch): \(offenders)")
    }

    @Test("the scan sees the ways a file can import Foundation, and lets Essentials through")
    func scanner() {
        for line in ["import Foundation", "@preconcurrency import Foundation", "  import Foundation // why", "import Foundation.NSString",
                     "@_exported import Foundation", "import class Foundation.Process", "import FoundationInternationalization",
                     "import FoundationNetworking"] {
            #expect(Self.importsFoundation(Substring(line)), "\(line)")
        }
        for line in ["import FoundationEssentials", "// import Foundation", "/// `import Foundation` links ICU", "import Domain"] {
            #expect(!Self.importsFoundation(Substring(line)), "\(line)")
        }
    }

    /// Whether `line` imports Foundation or one of its ICU-backed modules.
    static func importsFoundation(_ line: Substring) -> Bool {
        let code = line.split(separator: "//", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        let words = code.split(whereSeparator: { $0 == " " || $0 == "\t" })
        guard let position = words.firstIndex(of: "import"), position + 1 < words.count else { return false }
        // `import class Foundation.Process` names a kind before the module.
        let kinds: Set<Substring> = ["class", "struct", "enum", "protocol", "func", "var", "let", "typealias"]
        let module = words[position + 1..<words.count].first { !kinds.contains($0) } ?? ""
        let name = module.split(separator: ".").first ?? ""
        return name.hasPrefix("Foundation") && name != "FoundationEssentials"
    }
}
