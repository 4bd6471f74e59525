import Domain

/// `doctor`'s check of the wiring: every registration of the CLI's and the
/// daemon's roots resolves (a missing one, a cycle or a failing factory is
/// named), without running any command. A service that cannot be built
/// because data it reads is damaged is the data's finding, not this one.
struct CompositionHealth: HealthInspector {
    let runtime: RuntimeContext

    func inspect(repairing: Bool) async -> [HealthCheck] {
        let roots: [(String, Registry)] = [("CLI", CLIRoot.registry(runtime)), ("daemon", DaemonRoot.registry(runtime))]
        var problems: [String] = []
        for (name, registry) in roots {
            let container = Container(registry)
            do { try container.validate() } catch let error as ContainerValidationError {
                // A factory that failed on damaged data is not a wiring
                // fault: the data's own findings name it and its mend.
                let wiring = error.problems.filter { problem in
                    guard case .factoryFailed(_, _, let underlying) = problem else { return true }
                    return !(underlying is any RetimeError)
                }
                problems += wiring.map { "\(name): \($0)" }
            } catch {
                problems.append("\(name): \(error)")
            }
            await container.teardown()
        }
        guard problems.isEmpty else {
            return [HealthCheck(name: "services", status: .warning, detail: problems.joined(separator: "; "))]
        }
        let count = roots.map(\.1.keys.count).reduce(0, +)
        return [HealthCheck(name: "services", status: .ok, detail: "every service the CLI and the daemon use is wired (\(count))")]
    }
}
