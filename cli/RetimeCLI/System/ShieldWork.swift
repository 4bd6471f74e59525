import Adapters
import Domain

/// What the system service's work uses, and all its entry resolves: the
/// registration's factory resolves the rest.
struct ShieldWork: Sendable {
    let logger: Logger
    /// Who may raise, lower and release what, and the pass that lifts blocks at their end.
    let blocks: HeldBlocks
    /// A request line in, an answer line out.
    let handler: ShieldRequestHandler
    /// The layers; those that wait on the kernel are the loop's sources too.
    let layers: [any BlockLayer]
}
