import Domain

/// `doctor`'s check of the wiring: every registration of the CLI's and the
/// daemon's roots resolves (a missing one, a cycle or a failing factory is
/// named), without running any command.
struct CompositionHealth: HealthInspector {
    let runtime: RuntimeContext

    func inspect(repairing: Bool) async -> [HealthCheck] {
        let roots: [(String, Registry)] = [("CLI", CLIRoot.registry(runtime)), ("daemon", DaemonRoot.registry(runtime))]
        var problems: [String] = []
        for (name, registry) in roots {
            let container = Container(registry)
            do { try container.validate() } catch {
                problems.append("\(name): \(error)")
            }
            await container.teardown()
        }
        guard problems.isEmpty else {
            return [HealthCheck(name: "services", status: .warning, detail: problems.joined(separator: "; "))]
        }
        let count = roots.map(\.1.keys.count).reduce(0, +)
        return [HealthCheck(name: "services", status: .ok, detail: "every service the CLI and the daemon use can be built (\(count))")]
    }
}
