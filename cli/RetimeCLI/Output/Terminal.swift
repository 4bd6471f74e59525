import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Where a command writes, and what it knows of the terminal. Injected, so
/// the runner can be tested without a process.
public struct Console: Sendable {
    public var writeOut: @Sendable (String) -> Void
    public var writeErr: @Sendable (String) -> Void
    /// Whether standard output is a terminal (progress bars, colour, tables).
    public var isTerminal: Bool
    public var width: Int
    /// The terminal's rows (a longer `log` goes through the pager).
    public var height: Int

    public init(writeOut: @escaping @Sendable (String) -> Void, writeErr: @escaping @Sendable (String) -> Void,
                isTerminal: Bool = false, width: Int = 80, height: Int = 24) {
        self.writeOut = writeOut
        self.writeErr = writeErr
        self.isTerminal = isTerminal
        self.width = width
        self.height = height
    }

    /// The width prose is wrapped to: the terminal's, else 80 columns.
    var proseColumns: Int { isTerminal ? width : 80 }

    public func out(_ text: String) { writeOut(text.hasSuffix("\n") ? text : text + "\n") }
    public func err(_ text: String) { writeErr(text.hasSuffix("\n") ? text : text + "\n") }
}

/// ANSI styling that is a no-op when colour is off.
struct Style: Sendable {
    var enabled: Bool

    func bold(_ text: String) -> String { wrap(text, "1") }
    func dim(_ text: String) -> String { wrap(text, "2") }
    func green(_ text: String) -> String { wrap(text, "32") }
    func yellow(_ text: String) -> String { wrap(text, "33") }
    func red(_ text: String) -> String { wrap(text, "31") }

    private func wrap(_ text: String, _ code: String) -> String {
        enabled ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text
    }
}

/// A progress bar of Unicode blocks, `width` cells wide.
enum ProgressBar {
    static func render(_ fraction: Double, width: Int) -> String {
        let cells = max(1, width)
        let filled = Int((min(1, max(0, fraction)) * Double(cells)).rounded(.down))
        return String(repeating: "█", count: filled) + String(repeating: "░", count: cells - filled)
    }
}
