import Adapters
import Domain
import Foundation

/// The one-shot CLI's composition root: the shared registration plus a
/// logger on standard error, validated before any command runs.
enum CLIRoot {
    static func container(_ context: RuntimeContext) throws -> Container {
        var registry = ServiceRegistration.shared(context)
        let handler = StreamLogHandler.standardError(level: context.logLevel, environment: context.environment)
        registry.register(Logger.self, value: Logger(label: "retime.cli", handler: handler))
        let container = Container(registry)
        try container.validate()
        return container
    }
}
