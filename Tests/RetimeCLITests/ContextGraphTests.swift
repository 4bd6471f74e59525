import Foundation
import Testing

/// The walls between the domain's contexts, as Package.swift states them
/// and docs/architecture.md draws them. SwiftPM already refuses an import of
/// a module that is no dependency at all; these checks hold the rest: a
/// context names every context it uses (an import that only works through
/// another's dependencies is a hidden edge), the kernel imports nothing that
/// does I/O, and the drawing in the docs is the graph the compiler keeps.
@Suite("The domain's contexts and their dependencies")
struct ContextGraphTests {
    static let root = FoundationImportTests.root

    /// A domain target: its module name, folder and direct dependencies.
    struct Context: Equatable {
        var name: String
        var path: String
        var dependencies: [String]
    }

    /// The domain's targets as Package.swift declares them, in its order.
    static func contexts() throws -> [Context] {
        let manifest = try String(contentsOf: root.appendingPathComponent("Package.swift"), encoding: .utf8)
        // `.target(name: "X", dependencies: [...], path: "domain/Y", ...)`, possibly over several lines.
        let pattern = try NSRegularExpression(
            pattern: #"\.target\(name: "(\w+)",(?:\s*dependencies: \[([^\]]*)\],)?\s*path: "(domain/\w+)""#)
        let range = NSRange(manifest.startIndex..., in: manifest)
        return pattern.matches(in: manifest, range: range).map { match in
            func group(_ index: Int) -> String {
                Range(match.range(at: index), in: manifest).map { String(manifest[$0]) } ?? ""
            }
            let dependencies = group(2).split(separator: ",").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
                .filter { !$0.isEmpty }.map { $0.trimmingCharacters(in: CharacterSet(charactersIn: "\"")) }
            return Context(name: group(1), path: group(3), dependencies: dependencies)
        }
    }

    /// The modules a Swift file imports (`import X`, `@_exported import X`).
    static func imports(of text: String) -> [String] {
        text.split(separator: "\n").compactMap { line in
            let words = line.split(separator: "//", maxSplits: 1, omittingEmptySubsequences: false)[0]
                .split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard let position = words.firstIndex(of: "import"), position + 1 < words.count,
                  words[..<position].allSatisfy({ $0.hasPrefix("@") }) else { return nil }
            return String(words[position + 1].split(separator: ".")[0])
        }
    }

    /// The toolchain modules a context may import: no I/O among them.
    /// Glibc is allowed in one file, the DI container's recursive mutex.
    static let standardModules: Set<String> = ["FoundationEssentials", "Synchronization"]
    static let glibcAllowed = "domain/DI/RecursiveLock.swift"

    /// The drawing docs/architecture.md shows, made from `contexts`: each
    /// context and what it may use, the umbrella left out.
    static func drawing(_ contexts: [Context]) -> String {
        let kernel = contexts.filter { $0.name != "Domain" }
        return (["```mermaid", "graph BT"] + kernel.flatMap { context in
            context.dependencies.isEmpty ? ["    \(context.name)"] : context.dependencies.map { "    \(context.name) --> \($0)" }
        } + ["```"]).joined(separator: "\n")
    }

    @Test("Package.swift has one target per context, each in its own folder of domain/")
    func oneTargetPerContext() throws {
        let contexts = try Self.contexts()
        let names = Set(contexts.map(\.name))
        for expected in ["RetimeShared", "RetimeDI", "RetimeGroup", "RetimeAuth", "RetimeSession", "RetimeSchedule",
                         "RetimeHistory", "RetimeEnforcement"] {
            #expect(names.contains(expected), "\(expected) missing from Package.swift: \(names.sorted())")
        }
        let folders = try FileManager.default.contentsOfDirectory(atPath: Self.root.appendingPathComponent("domain").path)
            .filter { !$0.hasPrefix(".") }
        #expect(Set(folders.map { "domain/\($0)" }) == Set(contexts.map(\.path)), "every folder of domain/ is a target's, and only one")
    }

    @Test("a context imports only what Package.swift lets it use, and nothing that does I/O")
    func importsFollowTheManifest() throws {
        var offenders: [String] = []
        var scanned = 0
        for context in try Self.contexts() where context.name != "Domain" {
            let base = Self.root.appendingPathComponent(context.path)
            let files = try #require(FileManager.default.enumerator(atPath: base.path)).compactMap { $0 as? String }
            for file in files where file.hasSuffix(".swift") {
                let path = "\(context.path)/\(file)"
                scanned += 1
                for module in Self.imports(of: try String(contentsOf: base.appendingPathComponent(file), encoding: .utf8)) {
                    let allowed = Self.standardModules.contains(module) || context.dependencies.contains(module)
                        || (module == "Glibc" && path == Self.glibcAllowed) || (module == "Darwin" && path == Self.glibcAllowed)
                    if !allowed { offenders.append("\(path) imports \(module)") }
                }
            }
        }
        #expect(scanned > 150)
        #expect(offenders.isEmpty, "add the dependency to Package.swift (and docs/architecture.md), or go through a port: \(offenders)")
    }

    @Test("docs/architecture.md draws the graph Package.swift declares")
    func documentedGraph() throws {
        let docs = try String(contentsOf: Self.root.appendingPathComponent("docs/architecture.md"), encoding: .utf8)
        let drawing = Self.drawing(try Self.contexts())
        let drawn = docs.contains(drawing)
        #expect(drawn, "paste this into docs/architecture.md, \"Contexts and targets\":\n\(drawing)")
    }

    @Test("the import scan sees attributes and comments as they are")
    func scanner() {
        #expect(Self.imports(of: "import A\n@_exported import B\n// import C\nlet x = 1 // import D\nimport E.F\n  import G") == ["A", "B", "E", "G"])
    }
}
