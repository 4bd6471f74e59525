/// Reads another tool's data (a Watson frames file, a Timewarrior data
/// directory, a retime export) into sessions to import. Malformed entries
/// are returned as problems with their line numbers, never thrown; a source
/// that cannot be read at all throws `ImportError`.
///
/// The contract every adapter keeps is `HistoryImportSourceContract`.
public protocol HistoryImportSource: Sendable {
    func read(_ path: String) async throws -> ImportBatch
}
